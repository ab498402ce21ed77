// RUN: memopt-opt %s -tg-autodiff -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc='max-calls-per-function=3' | memopt-translate --mlir-to-cpp | FileCheck %s
// RUN: memopt-opt %s -tg-autodiff -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc='max-calls-per-function=0' | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=WHOLE
// RUN: memopt-opt %s -tg-autodiff -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=WHOLE
// RUN: not memopt-opt %s -convert-tg-to-emitc='max-calls-per-function=many' 2>&1 | FileCheck %s --check-prefix=BAD

// A step of more than max-calls-per-function kernel calls becomes part
// functions of at most that many calls (a kernel call keeps its trace
// event), called in order by train_step. Each part takes the step's
// parameters, declares the views it uses again (a pointer and a shape) and
// the step numbers, which kernel arguments spell by name (the dropout
// seed); the concat's operand array stays with its call.

// CHECK-LABEL: static void train_step_part1(void *const* v1, void *const* v2, void *const* v3) {
// CHECK-NEXT:   void *const *args = v1;
// CHECK-NEXT:   void *const *results = v2;
// CHECK-NEXT:   void *const *arenas = v3;
// CHECK-NEXT:   const int64_t seed = memopt::rt::bufferInt64(args, 4);
// CHECK:        memopt::rt::conv(input, conv_weight, {}, conv_stem_conv,
// CHECK-NEXT:   memopt::rt::traceKernel("conv_stem_conv", "conv");
// CHECK:        memopt::rt::dropout(conv_stem_conv, dropout, dropout_mask, 0.25, memopt::rt::streamSeed(seed, 0));
// CHECK:        memopt::rt::relu(dropout, relu_stem_relu);
// CHECK-NEXT:   memopt::rt::traceKernel("relu_stem_relu", "relu");
// CHECK-NEXT:   return;
// CHECK-LABEL: static void train_step_part2(void *const* v1, void *const* v2, void *const* v3) {
// CHECK:        const int64_t seed = memopt::rt::bufferInt64(args, 4);
// CHECK-NEXT:   memopt::rt::Tensor relu_stem_relu = memopt::rt::arenaTensor(arenas[0], [[RELU:[0-9]+]], {2, 4, 4, 4});
// CHECK-NEXT:   memopt::rt::Tensor input = memopt::rt::bufferTensor(args, 0, {2, 3, 4, 4});
// CHECK-NEXT:   const memopt::rt::ConstTensor concat_cat_inputs[] = {relu_stem_relu, input};
// CHECK-NEXT:   memopt::rt::Tensor concat_cat = memopt::rt::arenaTensor(arenas[0],
// CHECK-NEXT:   memopt::rt::concat(concat_cat_inputs, 2, concat_cat, 1);
// CHECK-LABEL: static void train_step_part5(
// CHECK:        memopt::rt::sgdUpdate(head_weight,
// CHECK-NEXT:   memopt::rt::traceKernel("new_head_weight", "sgd_update");
// CHECK-NEXT:   return;
// CHECK-LABEL: static void train_step(void *const* v1, void *const* v2, void *const* v3) {
// CHECK-NEXT:   void *const *args = v1;
// CHECK-NEXT:   void *const *results = v2;
// CHECK-NEXT:   void *const *arenas = v3;
// CHECK-NEXT:   train_step_part1(v1, v2, v3);
// CHECK-NEXT:   train_step_part2(v1, v2, v3);
// CHECK-NEXT:   train_step_part3(v1, v2, v3);
// CHECK-NEXT:   train_step_part4(v1, v2, v3);
// CHECK-NEXT:   train_step_part5(v1, v2, v3);
// CHECK-NEXT:   return;
// CHECK: /*step=*/train_step,

// BAD: for the --max-calls-per-function option: 'many' value invalid for uint argument!

// Without a limit, or under the default one, the step stays whole.
// WHOLE-NOT: _part1
// WHOLE-LABEL: static void train_step(
// WHOLE:       memopt::rt::concat(concat_cat_inputs, 2, concat_cat, 1);
// WHOLE-NOT: _part1

func.func @main(%x: tensor<2x3x4x4xf32> {tg.input = "input"},
                %w: tensor<4x3x1x1xf32> {tg.param = "conv.weight"},
                %c2: tensor<4x7x1x1xf32> {tg.param = "head.weight"})
    -> (tensor<2x4x4x4xf32> {tg.output = "output"}) {
  %0 = tg.conv %x, %w : (tensor<2x3x4x4xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x4x4xf32> loc("/stem/conv/Conv")
  %1, %m1 = tg.dropout %0 {ratio = 0.25 : f64} : tensor<2x4x4x4xf32>
  %2 = tg.relu %1 : tensor<2x4x4x4xf32> loc("/stem/relu/Relu")
  %3 = tg.concat %2, %x {axis = 1} : (tensor<2x4x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<2x7x4x4xf32> loc("/cat/Concat")
  %4 = tg.conv %3, %c2 : (tensor<2x7x4x4xf32>, tensor<4x7x1x1xf32>) -> tensor<2x4x4x4xf32> loc("/head/Conv")
  return %4 : tensor<2x4x4x4xf32>
}

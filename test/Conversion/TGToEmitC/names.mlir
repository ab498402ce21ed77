// RUN: memopt-opt %s -tg-autodiff='eval-step=true' -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s
// RUN: memopt-opt %s -memopt-set-target=target=cuda -tg-autodiff='eval-step=true' -tg-fuse-elementwise -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s --check-prefix=CUDA

// Hostile ONNX names. Every identifier comes from one name scope per C++
// scope (the file, each function), so no name clashes with another or
// hides a parameter, a global or a runtime name: the step's own names
// (args, train_step), the emitter's (v1), keywords (class, int), macros
// (NULL), names a sanitizer empties ("...", non-ASCII), names that differ
// only in dropped characters (a.b, a-b) and very long names (cut to 96
// characters) all get a prefix or a suffix; readable names stay.

// CHECK-LABEL: static void train_step(void *const* v1, void *const* v2, void *const* v3) {
// CHECK-NEXT:   void *const *args = v1;
// CHECK-NEXT:   void *const *results = v2;
// CHECK-NEXT:   void *const *arenas = v3;
// CHECK-NEXT:   memopt::rt::Tensor args_2 = memopt::rt::bufferTensor(args, 0, {2, 4});
// CHECK-NEXT:   memopt::rt::Tensor target = memopt::rt::bufferTensor(args, 1, {2, 4});
// CHECK-NEXT:   memopt::rt::Tensor a_b = memopt::rt::bufferTensor(args, 2, {2, 4});
// CHECK-NEXT:   memopt::rt::Tensor a_b_2 = memopt::rt::bufferTensor(args, 3, {2, 4});
// CHECK-NEXT:   memopt::rt::Tensor class_2 = memopt::rt::bufferTensor(args, 4, {2, 4});
// CHECK-NEXT:   memopt::rt::Tensor t_NULL = memopt::rt::bufferTensor(args, 5, {2, 4});
// CHECK-NEXT:   memopt::rt::Tensor t = memopt::rt::bufferTensor(args, 6, {2, 4});
// CHECK-NEXT:   memopt::rt::Tensor t_2 = memopt::rt::bufferTensor(args, 7, {2, 4});
// CHECK-NEXT:   memopt::rt::Tensor v1_2 = memopt::rt::bufferTensor(args, 8, {2, 4});
// CHECK-NEXT:   memopt::rt::Tensor [[LONG:very_long_(very_long_){8}very_l]] = memopt::rt::bufferTensor(args, 9, {2, 4});
// CHECK:        memopt::rt::add(args_2, a_b, add_l1_0);
// CHECK:        memopt::rt::relu(add_l1_0, relu_kernel);
// CHECK:        memopt::rt::mul(relu_kernel, a_b_2, mul);
// CHECK:        memopt::rt::add(mul, class_2, add_memopt_std);
// CHECK:        memopt::rt::add(add_memopt_std, t_NULL, add_arena_results);
// CHECK:        memopt::rt::add(add_arena_results, t, add);
// CHECK:        memopt::rt::add(add, t_2, add_int);
// CHECK:        memopt::rt::add(add_int, v1_2, [[ADDLONG:add_very_long_(very_long_){8}ve]]);
// CHECK:        memopt::rt::add([[ADDLONG]], [[LONG]], [[ADDLONG]]_2);
// CHECK:        memopt::rt::relu([[ADDLONG]]_2, train_step_2);
// The step's output "train_step" and its loss; the eval function's
// locals are named as the step's.
// CHECK-LABEL: static void eval_step(
// CHECK:        memopt::rt::Tensor args_2 = memopt::rt::bufferTensor(args, 0, {2, 4});
// CHECK:        memopt::rt::relu([[ADDLONG]]_2, train_step_2);
// The specs keep the ONNX names, escaped.
// CHECK: {"args", memopt::rt::Role::Input,
// CHECK: {"\xe5""\x90""\x8d""\xe5""\x89""\x8d""", memopt::rt::Role::Param,

// With target=cuda the kernels are names of the file scope: the train
// and eval kernels of the same chain differ.
// CUDA: static __global__ void [[K1:kernel_fused_elementwise_kernel]](
// CUDA: static __global__ void [[K2:kernel_train_step_2]](
// CUDA-LABEL: static void train_step(
// CUDA: [[K1]]<<<
// CUDA: [[K2]]<<<
// CUDA: static __global__ void [[K2]]_2(
// CUDA-LABEL: static void eval_step(
// CUDA: [[K2]]_2<<<
func.func @main(%x: tensor<2x4xf32> {tg.input = "args"},
                %a: tensor<2x4xf32> {tg.param = "a.b"},
                %b: tensor<2x4xf32> {tg.param = "a-b"},
                %c: tensor<2x4xf32> {tg.param = "class"},
                %d: tensor<2x4xf32> {tg.param = "NULL"},
                %e: tensor<2x4xf32> {tg.param = "..."},
                %f: tensor<2x4xf32> {tg.param = "\E5\90\8D\E5\89\8D"},
                %g: tensor<2x4xf32> {tg.param = "v1"},
                %h: tensor<2x4xf32> {tg.param = "very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_"})
    -> (tensor<2x4xf32> {tg.output = "train_step"}) {
  %0 = tg.add %x, %a : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("l1.0")
  %1 = tg.relu %0 : tensor<2x4xf32> loc("kernel")
  %2 = tg.mul %1, %b : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("")
  %3 = tg.add %2, %c : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("/memopt/std/Add")
  %4 = tg.add %3, %d : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("/arena/results/Add")
  %5 = tg.add %4, %e : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("\E5\90\8D")
  %6 = tg.add %5, %f : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("int")
  %7 = tg.add %6, %g : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_")
  %8 = tg.add %7, %h : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_very_long_")
  %9 = tg.relu %8 : tensor<2x4xf32> loc("l1.0")
  return %9 : tensor<2x4xf32>
}

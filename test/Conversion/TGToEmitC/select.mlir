// RUN: memopt-opt %s -tg-autodiff -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s

// tg.select calls the select kernel with condition, branches and result, in
// the forward and in the parameter's gradient (the input gets none); the
// Equal predicate of tg.compare names memopt::rt::Comparison::Equal.

// CHECK-LABEL: static void train_step(
// CHECK: memopt::rt::compare(x, constant, compare, memopt::rt::Comparison::Equal);
// CHECK: memopt::rt::select(compare, p, x, {{.*}});
// CHECK: memopt::rt::select(compare, {{.*}});
// CHECK-NOT: memopt::rt::select(
func.func @main(%x: tensor<4x2xf32> {tg.input = "x"}, %p: tensor<4x2xf32> {tg.param = "p"})
    -> (tensor<4x2xf32> {tg.output = "y"}) {
  %z = tg.constant dense<0.0> : tensor<f32>
  %m = tg.compare %x, %z {predicate = #tg<comparison eq>} : (tensor<4x2xf32>, tensor<f32>) -> tensor<4x2xf32>
  %y = tg.select %m, %p, %x : (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

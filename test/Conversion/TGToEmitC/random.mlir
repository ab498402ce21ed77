// RUN: memopt-opt %s -tg-autodiff='eval-step=true' -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s

// Drop-path (random_uniform, compare) and drop-connect (random_uniform,
// floor) next to a dropout. A random_uniform draws from the stream of its
// `stream` attribute (randomUniformSeed: apart from the dropouts' streams,
// which count the dropouts in op order), so that a recomputed clone draws
// the same numbers. @eval_step draws none: each mask that multiplies the
// activations is its expectation there (0.8 and 0.75), as PyTorch's
// model.eval() skips drop-path and drop-connect.

// CHECK-LABEL: static void train_step(
// CHECK: const int64_t seed = memopt::rt::bufferInt64(args, 3);
// CHECK: memopt::rt::randomUniform(random_uniform, 0.0, 1.0, memopt::rt::randomUniformSeed(seed, 0));
// CHECK: memopt::rt::compare(random_uniform, constant, compare, memopt::rt::Comparison::Less);
// CHECK: memopt::rt::randomUniform(random_uniform_2, 0.75, 1.75, memopt::rt::randomUniformSeed(seed, 1));
// CHECK: memopt::rt::floor(random_uniform_2, floor);
// CHECK: memopt::rt::dropout({{.*}}, memopt::rt::streamSeed(seed, 0));
// CHECK: static float [[E1:.*]][1] = {8.000000110e-01f};
// CHECK: static float [[E2:.*]][1] = {7.500000000e-01f};
// CHECK-LABEL: static void eval_step(
// CHECK-NOT: memopt::rt::randomUniform
// CHECK: memopt::rt::Tensor [[C1:.*]]([[E1]], {});
// CHECK: memopt::rt::mul(p, [[C1]], [[M:.*]]);
// CHECK-NOT: memopt::rt::randomUniform
// CHECK: memopt::rt::Tensor [[C2:.*]]([[E2]], {});
// CHECK: memopt::rt::mul([[M]], [[C2]],
// CHECK-NOT: memopt::rt::randomUniform
// CHECK-LABEL: kProgram
func.func @main(%x: tensor<4x2xf32> {tg.input = "x"}, %p: tensor<4x2xf32> {tg.param = "p"})
    -> (tensor<4x2xf32> {tg.output = "y"}) {
  %u = tg.random_uniform {stream = 0} : tensor<4x1xf32>
  %k = tg.constant dense<0.8> : tensor<f32>
  %m = tg.compare %u, %k {predicate = #tg<comparison lt>} : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %v = tg.random_uniform {low = 0.75, high = 1.75, stream = 1} : tensor<4x1xf32>
  %f = tg.floor %v : tensor<4x1xf32>
  %a = tg.mul %p, %m : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
  %b = tg.mul %a, %f : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
  %c = tg.add %b, %x : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %y, %mask = tg.dropout %c {ratio = 0.5} : tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

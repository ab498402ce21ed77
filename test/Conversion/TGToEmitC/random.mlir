// RUN: memopt-opt %s -tg-autodiff='eval-step=true' -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -convert-tg-to-emitc | memopt-translate --mlir-to-cpp | FileCheck %s

// Drop-path (random_uniform, compare) and drop-connect (random_uniform,
// floor) next to a dropout. A random_uniform draws from the stream of its
// `stream` attribute (randomUniformSeed: apart from the dropouts' streams,
// which count the dropouts in op order), so that a recomputed clone draws
// the same numbers. @eval_step draws them too: memopt cannot tell what a
// model does with random numbers.

// CHECK-LABEL: static void train_step(
// CHECK: const int64_t seed = memopt::rt::bufferInt64(args, 3);
// CHECK: memopt::rt::randomUniform(random_uniform, 0.0, 1.0, memopt::rt::randomUniformSeed(seed, 0));
// CHECK: memopt::rt::compare(random_uniform, constant, compare, memopt::rt::Comparison::Less);
// CHECK: memopt::rt::randomUniform(random_uniform_2, -1.0, 2.0, memopt::rt::randomUniformSeed(seed, 1));
// CHECK: memopt::rt::floor(random_uniform_2, floor);
// CHECK: memopt::rt::dropout({{.*}}, memopt::rt::streamSeed(seed, 0));
// CHECK-LABEL: static void eval_step(
// CHECK: memopt::rt::randomUniformSeed(seed, 0)
// CHECK: memopt::rt::randomUniformSeed(seed, 1)
func.func @main(%x: tensor<4x2xf32> {tg.input = "x"}, %p: tensor<4x2xf32> {tg.param = "p"})
    -> (tensor<4x2xf32> {tg.output = "y"}) {
  %u = tg.random_uniform {stream = 0} : tensor<4x1xf32>
  %k = tg.constant dense<0.8> : tensor<f32>
  %m = tg.compare %u, %k {predicate = #tg<comparison lt>} : (tensor<4x1xf32>, tensor<f32>) -> tensor<4x1xf32>
  %v = tg.random_uniform {low = -1.0, high = 2.0, stream = 1} : tensor<4x1xf32>
  %f = tg.floor %v : tensor<4x1xf32>
  %a = tg.mul %p, %m : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
  %b = tg.mul %a, %f : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
  %c = tg.add %b, %x : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %y, %mask = tg.dropout %c {ratio = 0.5} : tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// RUN: memopt-opt %s -tg-amp -split-input-file -verify-diagnostics -allow-unregistered-dialect
// RUN: not memopt-opt %s -split-input-file -allow-unregistered-dialect -tg-amp=fp32-ops=tg.conv3d 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not memopt-opt %s -split-input-file -allow-unregistered-dialect -tg-amp=low-ops=conv_backward_data 2>&1 | FileCheck %s --check-prefix=GRADIENT
// RUN: not memopt-opt %s -split-input-file -allow-unregistered-dialect -tg-amp=fp32-ops=tg.cast 2>&1 | FileCheck %s --check-prefix=CAST
// RUN: not memopt-opt %s -split-input-file -allow-unregistered-dialect '-tg-amp=fp32-ops=relu low-ops=tg.relu' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not memopt-opt %s -split-input-file -allow-unregistered-dialect -tg-amp=mode=none 2>&1 | FileCheck %s --check-prefix=MODE

// Every diagnostic of tg-amp: a name outside the precision table, a name
// given twice, a model that is not f32, an op the table does not know (the
// pass runs before tg-autodiff), and a module converted already.

// UNKNOWN: error: tg-amp: 'tg.conv3d' in fp32-ops is not a forward tg op of the mixed-precision table (names such as tg.conv or conv; docs/passes/amp.md lists them)
// GRADIENT: error: tg-amp: 'conv_backward_data' in low-ops is not a forward tg op of the mixed-precision table
// CAST: error: tg-amp: 'tg.cast' in fp32-ops is not a forward tg op
// TWICE: error: tg-amp: 'tg.relu' is given twice (in fp32-ops and low-ops, or twice in one list); name each op once
// MODE: for the --mode option: Cannot find option named 'none'!

// expected-error @+1 {{argument #1 is 'tensor<2xbf16>'; tg-amp converts an f32 model (its arguments are the f32 master weights and data)}}
func.func @main(%x: tensor<2xf32> {tg.input = "input"},
                %p: tensor<2xbf16> {tg.param = "p"})
    -> (tensor<2xf32> {tg.output = "y"}) {
  return %x : tensor<2xf32>
}

// -----

func.func @train_step(%dy: tensor<1x2x4x4xf32>, %x: tensor<1x2x4x4xf32>)
    -> tensor<2x2x1x1xf32> {
  // expected-error @+1 {{'tg.conv_backward_filter' op has no entry in tg-amp's precision table: tg-amp runs on the forward function, before tg-autodiff}}
  %0 = tg.conv_backward_filter %dy, %x {weight_shape = array<i64: 2, 2, 1, 1>}
      : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<2x2x1x1xf32>
  return %0 : tensor<2x2x1x1xf32>
}

// -----

func.func @main(%x: tensor<2xf32> {tg.input = "input"})
    -> (tensor<2xf32> {tg.output = "y"}) {
  // expected-error @+1 {{'test.op' op is not a tg op; tg-amp converts tg ops only}}
  %0 = "test.op"(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// expected-error @+1 {{tg-amp already converted this module (memopt.amp = "bf16")}}
module attributes {memopt.amp = "bf16"} {
  func.func @main(%x: tensor<2xf32> {tg.input = "input"})
      -> (tensor<2xf32> {tg.output = "y"}) {
    return %x : tensor<2xf32>
  }
}

// RUN: memopt-opt %s -split-input-file -verify-diagnostics

// One section per diagnostic of the offload and prefetch ops.

func.func @host_copy_read_by_kernel(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{host copy may be read only by tg.offload_wait and tg.prefetch_start, not by 'tg.relu'}}
  %h = tg.offload_start %x : tensor<4xf32>
  tg.offload_wait %x, %h : tensor<4xf32>
  %r = tg.relu %h : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @offload_without_wait(%x: tensor<4xf32>) {
  // expected-error @+1 {{needs exactly one tg.offload_wait of its host copy, has 0}}
  %h = tg.offload_start %x : tensor<4xf32>
  return
}

// -----

func.func @wait_for_another_tensor(%x: tensor<4xf32>, %y: tensor<4xf32>) {
  %h = tg.offload_start %x : tensor<4xf32>
  // expected-error @+1 {{waits for the offload of another tensor than its input}}
  tg.offload_wait %y, %h : tensor<4xf32>
  return
}

// -----

func.func @wait_on_a_non_host_copy(%x: tensor<4xf32>) {
  // expected-error @+1 {{host operand must be a tg.offload_start result}}
  tg.offload_wait %x, %x : tensor<4xf32>
  return
}

// -----

func.func @read_after_release(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = tg.offload_start %x : tensor<4xf32>
  // expected-error @+1 {{releases a tensor that 'tg.relu' reads later}}
  tg.offload_wait %x, %h : tensor<4xf32>
  // expected-note @+1 {{read here}}
  %r = tg.relu %x : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @prefetch_before_offload_done(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = tg.offload_start %x : tensor<4xf32>
  // expected-error @+1 {{reads the host copy before its tg.offload_wait}}
  %d = tg.prefetch_start %h : tensor<4xf32>
  tg.offload_wait %x, %h : tensor<4xf32>
  tg.prefetch_wait %d : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @prefetch_of_a_device_tensor(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{host operand must be a tg.offload_start result}}
  %d = tg.prefetch_start %x : tensor<4xf32>
  tg.prefetch_wait %d : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @prefetch_without_wait(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = tg.offload_start %x : tensor<4xf32>
  tg.offload_wait %x, %h : tensor<4xf32>
  // expected-error @+1 {{needs exactly one tg.prefetch_wait of its result, has 0}}
  %d = tg.prefetch_start %h : tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

func.func @read_before_prefetch_done(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = tg.offload_start %x : tensor<4xf32>
  tg.offload_wait %x, %h : tensor<4xf32>
  %d = tg.prefetch_start %h : tensor<4xf32>
  %r = tg.relu %d : tensor<4xf32>
  // expected-error @+1 {{must come before every other reader of the prefetched tensor}}
  tg.prefetch_wait %d : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @wait_on_a_non_prefetch(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand must be a tg.prefetch_start result}}
  tg.prefetch_wait %x : tensor<4xf32>
  return
}

// -----

func.func @mismatched_types(%x: tensor<4xf32>, %h: tensor<8xf32>) {
  // expected-error @+1 {{all of {input, host} have same type}}
  "tg.offload_wait"(%x, %h) : (tensor<4xf32>, tensor<8xf32>) -> ()
  return
}

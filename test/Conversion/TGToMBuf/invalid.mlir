// RUN: memopt-opt %s -split-input-file -memopt-set-target=target=cpu -tg-plan-memory -convert-tg-to-mbuf -verify-diagnostics

// Values that no view can hold.

// expected-error @below {{convert-tg-to-mbuf: a view holds f32, f16, bf16, i64 or i8 elements, not 'i32'}}
func.func @int32_argument(%x: tensor<4xi32>) -> tensor<4xi32> {
  return %x : tensor<4xi32>
}

// -----

// expected-error @below {{convert-tg-to-mbuf: expected a statically shaped tensor, not 'tensor<?xf32>'}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

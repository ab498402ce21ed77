//===- TGOffloadOps.td - Tensors offloaded to host memory --*- tablegen -*-===//
//
// tg-offload's decisions (docs/passes/offload.md): a forward value that the
// backward reads leaves device memory after its last forward use and comes
// back before its first backward use, as two asynchronous copies. Each
// copy is a start op and a wait op; the start op's result is the token the
// wait takes (the host handle of an offload, the device tensor of a
// prefetch), so the IR says where each copy is issued and where it must be
// complete. The memory plan reads the same positions: the device bytes of
// an offloaded value are held until its offload_wait, the host bytes live
// in a pool of their own, and a prefetched value takes device bytes from
// its prefetch_start on. tg-plan-memory lowers them to mbuf.copy_async and
// mbuf.wait.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TG_IR_TGOFFLOADOPS_TD
#define MEMOPT_DIALECT_TG_IR_TGOFFLOADOPS_TD

def TG_OffloadStartOp : TG_Op<"offload_start", [Pure,
    AllTypesMatch<["input", "host"]>]> {
  let summary = "Starts copying a tensor to host memory";
  let description = [{
    Starts an asynchronous copy of `input` from device memory into host
    memory and returns the host copy's handle, `host`: a tensor that lives
    in the host pool, not in the device arena. The handle is also the copy's
    completion token: `tg.offload_wait` takes it, and only a
    `tg.prefetch_start` after that wait may read it.

    ```mlir
    %h = tg.offload_start %x : tensor<1x8x32x32xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input);
  let results = (outs AnyStaticShapeTensor:$host);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def TG_OffloadWaitOp : TG_Op<"offload_wait", [MemoryEffects<[MemWrite]>,
    AllTypesMatch<["input", "host"]>]> {
  let summary = "Waits until an offload is complete";
  let description = [{
    Blocks until the copy that `tg.offload_start` started into `host` is
    complete; `input` is the device tensor it copies, whose bytes are
    released here: no op after the wait reads it.

    ```mlir
    tg.offload_wait %x, %h : tensor<1x8x32x32xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       AnyStaticShapeTensor:$host);
  let assemblyFormat = "$input `,` $host attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def TG_PrefetchStartOp : TG_Op<"prefetch_start", [Pure,
    AllTypesMatch<["host", "output"]>]> {
  let summary = "Starts copying an offloaded tensor back to the device";
  let description = [{
    Starts an asynchronous copy of host copy `host` (a `tg.offload_start`
    result, whose `tg.offload_wait` comes before) into a new device tensor,
    `output`, which takes its device bytes from here on. `output` is also
    the copy's completion token: its one `tg.prefetch_wait` comes before
    every other reader.

    ```mlir
    %y = tg.prefetch_start %h : tensor<1x8x32x32xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$host);
  let results = (outs AnyStaticShapeTensor:$output);
  let assemblyFormat = "$host attr-dict `:` type($host)";
  let hasVerifier = 1;
}

def TG_PrefetchWaitOp : TG_Op<"prefetch_wait", [MemoryEffects<[MemWrite]>]> {
  let summary = "Waits until a prefetch is complete";
  let description = [{
    Blocks until the copy that `tg.prefetch_start` started into `output`
    is complete; the ops after it may read `output`.

    ```mlir
    tg.prefetch_wait %y : tensor<1x8x32x32xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$output);
  let assemblyFormat = "$output attr-dict `:` type($output)";
  let hasVerifier = 1;
}

#endif // MEMOPT_DIALECT_TG_IR_TGOFFLOADOPS_TD

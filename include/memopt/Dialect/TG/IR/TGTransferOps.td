//===- TGTransferOps.td - Tensors between pipeline stages --*- tablegen -*-===//
//
// The two ends of a value that crosses a cut of tg-partition: the stage
// that computes it sends it, the stage that reads it receives it. They are
// the only tg ops with a side effect, so that no pass erases or reorders
// them: every stage keeps its transfers in the order of the unpartitioned
// step, which makes the blocking exchange deadlock-free.
//
// And the collective of data parallelism (tg-data-parallel): the mean of a
// tensor over the replicas of a stage, each of which computed it on its
// slice of the batch; pure, since every replica runs the same schedule.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TG_IR_TGTRANSFEROPS_TD
#define MEMOPT_DIALECT_TG_IR_TGTRANSFEROPS_TD

def TG_SendOp : TG_Op<"send", [MemoryEffects<[MemWrite]>]> {
  let summary = "Sends a tensor to another pipeline stage";
  let description = [{
    Sends `input` to stage `peer`, where a `tg.recv` with the same `tag`
    yields it. `forward` marks a value of the forward pass (an activation
    or a parameter the peer reads in its forward ops) as opposed to a
    gradient: the step phases of a stage read it (docs/passes/partition.md).
    Inside a function of a partitioned step (`memopt.stage`), `peer` must
    be another stage of the same partition.

    ```mlir
    tg.send %x to stage 1 tag 0 forward : tensor<1x8x32x32xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$peer,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$tag,
                       UnitAttr:$forward);
  let assemblyFormat = [{
    $input `to` `stage` $peer `tag` $tag (`forward` $forward^)? attr-dict
    `:` type($input)
  }];
  let hasVerifier = 1;
}

def TG_RecvOp : TG_Op<"recv", [MemoryEffects<[MemWrite]>]> {
  let summary = "Receives a tensor from another pipeline stage";
  let description = [{
    The tensor that stage `peer` sends with the same `tag`. `forward` as
    for `tg.send`.

    ```mlir
    %x = tg.recv from stage 0 tag 0 forward : tensor<1x8x32x32xf32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$peer,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$tag,
                       UnitAttr:$forward);
  let results = (outs AnyStaticShapeTensor:$output);
  let assemblyFormat = [{
    `from` `stage` $peer `tag` $tag (`forward` $forward^)? attr-dict
    `:` type($output)
  }];
  let hasVerifier = 1;
}

def TG_AllReduceOp : TG_Op<"all_reduce",
    [Pure, SameOperandsAndResultType,
     TG_Kernel<["getInPlaceOperands"]>]> {
  let summary = "The mean of a tensor over the data-parallel replicas";
  let description = [{
    Every replica (a process running the same step on its own slice of the
    batch, `memopt-compile --data-parallel=N`) passes its `input`; each gets
    the elementwise mean over the `replicas` of them: the sum (MPI_Allreduce)
    times 1 / `replicas`. `tg-data-parallel` puts it on the gradients that
    the optimizer updates read, the updated running statistics and the
    loss, so that every replica keeps the same weights. Unlike the
    transfers it is pure: the replicas of a stage run one compiled step,
    so whatever order the schedule gives the collectives, every replica
    calls them in that order, and the schedule may place each one where
    its gradient is computed. The runtime reduces float32 only.

    ```mlir
    %g = tg.all_reduce %grad over 2 : tensor<8x4x3x3xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       ConfinedAttr<I64Attr, [IntMinValue<2>]>:$replicas);
  let results = (outs AnyStaticShapeTensor:$output);
  let assemblyFormat = [{
    $input `over` $replicas attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

def TG_ShardOp : TG_Op<"shard", [Pure, TG_Kernel<>]> {
  let summary = "This replica's part of a tensor (optimizer-state sharding)";
  let description = [{
    With `--zero=1` (`tg-data-parallel zero=1`) each of the `replicas`
    keeps and updates one part of every parameter's optimizer state: the
    elements [r * C, (r + 1) * C) of the flattened `input`, C =
    ceil(numel / replicas), r this process's replica (known at run time;
    the replicas run one compiled step). The last replica's part is padded
    with zeros.

    ```mlir
    %s = tg.shard %w over 2 : tensor<8x4x3x3xf32> -> tensor<144xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       ConfinedAttr<I64Attr, [IntMinValue<2>]>:$replicas);
  let results = (outs AnyStaticShapeTensor:$output);
  let assemblyFormat = [{
    $input `over` $replicas attr-dict `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
}

def TG_AllGatherOp : TG_Op<"all_gather", [Pure, TG_Kernel<>]> {
  let summary = "A tensor whose parts the replicas hold (tg.shard's inverse)";
  let description = [{
    Every replica passes its part (`tg.shard`'s result type: C =
    ceil(numel / replicas) elements) and gets the whole tensor, part r
    from replica r (MPI_Allgatherv), without the padding.

    ```mlir
    %w = tg.all_gather %s over 2 : tensor<144xf32> -> tensor<8x4x3x3xf32>
    ```
  }];
  let arguments = (ins AnyStaticShapeTensor:$input,
                       ConfinedAttr<I64Attr, [IntMinValue<2>]>:$replicas);
  let results = (outs AnyStaticShapeTensor:$output);
  let assemblyFormat = [{
    $input `over` $replicas attr-dict `:` type($input) `->` type($output)
  }];
  let hasVerifier = 1;
}

#endif // MEMOPT_DIALECT_TG_IR_TGTRANSFEROPS_TD

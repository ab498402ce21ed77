//===- TGTransferOps.td - Tensors between pipeline stages --*- tablegen -*-===//
//
// The two ends of a value that crosses a cut of tg-partition: the stage
// that computes it sends it, the stage that reads it receives it. They are
// the only tg ops with a side effect, so that no pass erases or reorders
// them: every stage keeps its transfers in the order of the unpartitioned
// step, which makes the blocking exchange deadlock-free.
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

#endif // MEMOPT_DIALECT_TG_IR_TGTRANSFEROPS_TD

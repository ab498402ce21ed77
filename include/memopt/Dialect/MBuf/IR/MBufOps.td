//===- MBufOps.td - Types and operations of mbuf -----------*- tablegen -*-===//

#ifndef MEMOPT_DIALECT_MBUF_IR_MBUFOPS_TD
#define MEMOPT_DIALECT_MBUF_IR_MBUFOPS_TD

include "memopt/Dialect/MBuf/IR/MBufDialect.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def MBuf_MemorySpace : I32EnumAttr<"MemorySpace", "where an arena lives", [
    I32EnumAttrCase<"Device", 0, "device">,
    I32EnumAttrCase<"PinnedHost", 1, "pinned_host">]> {
  let cppNamespace = "::memopt::mbuf";
  let genSpecializedAttr = 0;
}

class MBuf_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<MBuf_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def MBuf_ArenaType : MBuf_Type<"Arena", "arena"> {
  let summary = "A block of memory that the runtime allocates once";
  let description = [{
    `!mbuf.arena<device>` or `!mbuf.arena<pinned_host>`: an arena of one
    memory space. The program owns it for its whole run.
  }];
  let parameters = (ins EnumParameter<MBuf_MemorySpace>:$space);
  let assemblyFormat = "`<` $space `>`";
}

def MBuf_ViewType : MBuf_Type<"View", "view"> {
  let summary = "A row-major tensor in memory";
  let description = [{
    `!mbuf.view<1x64x32x32xf32>`: the statically shaped, contiguous
    tensor of a kernel operand or result, in device memory unless its type
    says `pinned_host` (`!mbuf.view<64xf32, pinned_host>`). Element types:
    f32, f16, bf16 (tensors), i64 (the step number and the seed) and i8
    (a kernel's workspace bytes).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<"MemorySpace",
                            "MemorySpace::Device">:$space);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "::mlir::Type":$elementType,
        CArg<"MemorySpace", "MemorySpace::Device">:$space), [{
      return $_get(elementType.getContext(), shape, elementType, space);
    }]>
  ];
  let extraClassDeclaration = [{
    int64_t getNumElements() const;
    /// The size of the tensor in bytes.
    int64_t getSizeInBytes() const;
    /// The tensor type of the same shape and element type: the type of the
    /// value a kernel's body sees for it.
    ::mlir::RankedTensorType getTensorType() const;
  }];
}

def MBuf_TokenType : MBuf_Type<"Token", "token"> {
  let summary = "The completion of an asynchronous operation";
  let description = [{
    Returned by `mbuf.copy_async`, `mbuf.send` and `mbuf.recv`; `mbuf.wait`
    blocks until it completes.
  }];
}

def MBuf_Token : Type<CPred<"::llvm::isa<::memopt::mbuf::TokenType>($_self)">,
                      "token", "::memopt::mbuf::TokenType">,
                 BuildableType<"::memopt::mbuf::TokenType::get($_builder.getContext())">;

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def MBuf_ArenaOp : MBuf_Op<"arena"> {
  let summary = "An arena of the program";
  let description = [{
    Arena `index` of the program (`memopt::rt::Program::arenas[index]`):
    `size` bytes of one memory space, on (or, for pinned host memory,
    serving) device `device`. Functions of the same program that use the
    same index share the arena, which then has the largest of their sizes.

    ```mlir
    %arena = mbuf.arena 0 size 9216 on device 0 : !mbuf.arena<device>
    ```

    The verifier checks the memory plan of the arena: two of its views
    live at the same time never share a byte (see the dialect page).
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$index,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$size,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$device);
  let results = (outs MBuf_ArenaType:$arena);
  let assemblyFormat = [{
    $index `size` $size `on` `device` $device attr-dict `:` qualified(type($arena))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    MemorySpace getSpace() { return getArena().getType().getSpace(); }
  }];
}

def MBuf_ViewOp : MBuf_Op<"view"> {
  let summary = "A view at a byte offset of an arena";
  let description = [{
    ```mlir
    %v = mbuf.view %arena[4096] : !mbuf.arena<device> -> !mbuf.view<2x3xf32>
    ```
    The offset is a multiple of 64 bytes and the view ends within the
    arena. The view is live from its first use to its last.
  }];
  let arguments = (ins MBuf_ArenaType:$arena,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$offset);
  let results = (outs MBuf_ViewType:$view);
  let assemblyFormat = [{
    $arena `[` $offset `]` attr-dict `:` qualified(type($arena)) `->` qualified(type($view))
  }];
  let hasVerifier = 1;
}

def MBuf_SubviewOp : MBuf_Op<"subview"> {
  let summary = "A contiguous part of a view";
  let description = [{
    The view of the result type at byte `offset` of `source`: an alias, not
    a buffer of its own. A concatenation's operands are computed in their
    slice of its result this way.

    ```mlir
    %s = mbuf.subview %v[96] : !mbuf.view<2x8xf32> -> !mbuf.view<1x8xf32>
    ```
  }];
  let arguments = (ins MBuf_ViewType:$source,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$offset);
  let results = (outs MBuf_ViewType:$view);
  let assemblyFormat = [{
    $source `[` $offset `]` attr-dict `:` qualified(type($source)) `->` qualified(type($view))
  }];
  let hasVerifier = 1;
}

def MBuf_ResultOp : MBuf_Op<"result"> {
  let summary = "The caller's buffer of a step result";
  let description = [{
    The view of the buffer in which the caller receives result `index` of
    the enclosing function (`results[index]` of the generated step).
    Kernels may write it directly; returning it then copies nothing.

    ```mlir
    %r = mbuf.result 1 : !mbuf.view<2x3xf32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$index);
  let results = (outs MBuf_ViewType:$view);
  let assemblyFormat = "$index attr-dict `:` qualified(type($view))";
  let hasVerifier = 1;
}

def MBuf_ConstantOp : MBuf_Op<"constant"> {
  let summary = "Read-only data of the program";
  let description = [{
    A view of data that the program carries (a static array of the
    generated code), never written.

    ```mlir
    %c = mbuf.constant dense<1.0> : tensor<1x1xf32> -> !mbuf.view<1x1xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs MBuf_ViewType:$view);
  let assemblyFormat = "$value `->` qualified(type($view)) attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Computation
//===----------------------------------------------------------------------===//

def MBuf_KernelOp : MBuf_Op<"kernel", [AttrSizedOperandSegments,
    IsolatedFromAbove, SingleBlock]> {
  let summary = "One kernel call that writes into given views";
  let description = [{
    Runs the value-semantics op of its body on the tensors in `ins` and
    writes the values it yields into `outs`, using `workspace` as scratch
    memory. The body is one block whose arguments are the inputs (as
    tensors of the views' shapes) and that holds exactly one op besides
    its `mbuf.yield`: the kernel is named by that op and its attributes.

    `tied_operands` has one entry per input: the output that the input
    shares memory with, or -1. A tied input is either the same bytes as
    the output (the kernel writes the output in place over it; the input
    dies here) or a subview of it (the input was computed in its slice of
    the output, so the kernel copies nothing for it). Any other overlap
    between the views of a kernel is an error.

    ```mlir
    mbuf.kernel ins(%a : !mbuf.view<2x3xf32>) outs(%b : !mbuf.view<2x3xf32>)
        attributes {tied_operands = array<i64: 0>} {
    ^bb0(%x: tensor<2x3xf32>):
      %y = tg.relu %x : tensor<2x3xf32>
      mbuf.yield %y : tensor<2x3xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<MBuf_ViewType>:$ins,
                       Variadic<MBuf_ViewType>:$outs,
                       Optional<MBuf_ViewType>:$workspace,
                       OptionalAttr<DenseI64ArrayAttr>:$tied_operands);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $ins^ `:` qualified(type($ins)) `)`)?
    `outs` `(` $outs `:` qualified(type($outs)) `)`
    (`workspace` `(` $workspace^ `:` qualified(type($workspace)) `)`)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The op the kernel runs.
    ::mlir::Operation *getComputation();
    /// The output input `index` is tied to, if any.
    std::optional<unsigned> getTiedOutput(unsigned index);
  }];
}

def MBuf_YieldOp : MBuf_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"KernelOp">]> {
  let summary = "The values a kernel writes into its outputs";
  let arguments = (ins Variadic<AnyRankedTensor>:$values);
  let assemblyFormat = "($values^ `:` qualified(type($values)))? attr-dict";
}

//===----------------------------------------------------------------------===//
// Asynchronous transfers
//===----------------------------------------------------------------------===//

def MBuf_CopyAsyncOp : MBuf_Op<"copy_async"> {
  let summary = "An asynchronous copy between two views";
  let description = [{
    Starts copying `source` into `target` (of the same shape and element
    type, in any memory spaces: an offload to pinned host memory, a
    prefetch back) and returns the token of its completion. Both views
    stay live until an `mbuf.wait` of the token.

    ```mlir
    %t = mbuf.copy_async %v to %h : !mbuf.view<2x3xf32> -> !mbuf.view<2x3xf32, pinned_host>
    mbuf.wait %t
    ```
  }];
  let arguments = (ins MBuf_ViewType:$source, MBuf_ViewType:$target);
  let results = (outs MBuf_Token:$token);
  let assemblyFormat = [{
    $source `to` $target attr-dict `:` qualified(type($source)) `->` qualified(type($target))
  }];
  let hasVerifier = 1;
}

def MBuf_SendOp : MBuf_Op<"send"> {
  let summary = "Sends a view to another device";
  let description = [{
    Starts sending `view` to device `peer`, where an `mbuf.recv` with the
    same `tag` receives it; the token completes when `view` may be reused.

    ```mlir
    %t = mbuf.send %v to device 1 tag 7 : !mbuf.view<2x3xf32>
    ```
  }];
  let arguments = (ins MBuf_ViewType:$view,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$peer,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$tag);
  let results = (outs MBuf_Token:$token);
  let assemblyFormat = [{
    $view `to` `device` $peer `tag` $tag attr-dict `:` qualified(type($view))
  }];
  let hasVerifier = 1;
}

def MBuf_RecvOp : MBuf_Op<"recv"> {
  let summary = "Receives a view from another device";
  let description = [{
    Starts receiving into `view` what device `peer` sends with the same
    `tag`; the token completes when `view` holds it.

    ```mlir
    %t = mbuf.recv %v from device 0 tag 7 : !mbuf.view<2x3xf32>
    ```
  }];
  let arguments = (ins MBuf_ViewType:$view,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$peer,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$tag);
  let results = (outs MBuf_Token:$token);
  let assemblyFormat = [{
    $view `from` `device` $peer `tag` $tag attr-dict `:` qualified(type($view))
  }];
  let hasVerifier = 1;
}

def MBuf_WaitOp : MBuf_Op<"wait"> {
  let summary = "Waits for asynchronous operations to complete";
  let description = [{
    ```mlir
    mbuf.wait %t0, %t1
    ```
  }];
  let arguments = (ins Variadic<MBuf_Token>:$tokens);
  let assemblyFormat = "$tokens attr-dict";
  let hasVerifier = 1;
}

#endif // MEMOPT_DIALECT_MBUF_IR_MBUFOPS_TD

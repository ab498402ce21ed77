//===- MBufDialect.td - Buffer-level dialect definition ----*- tablegen -*-===//
//
// The mbuf (memopt buffer) dialect is the runtime level of memopt: the
// training step after its memory plan, as arenas, views at byte offsets,
// kernels that write into given views, asynchronous copies and transfers
// with completion tokens. IREE's Stream dialect (stream.resource,
// stream.cmd.*, timepoints) is the model.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_MBUF_IR_MBUFDIALECT_TD
#define MEMOPT_DIALECT_MBUF_IR_MBUFDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def MBuf_Dialect : Dialect {
  let name = "mbuf";
  let cppNamespace = "::memopt::mbuf";
  let summary = "Buffer-level runtime dialect of memopt";
  let description = [{
    The training step with its memory plan made explicit. Memory is a set
    of arenas (`mbuf.arena`), one per memory space and device; every
    temporary tensor is a view (`mbuf.view`) at a byte offset of an arena;
    the step's arguments and results are views of buffers that the caller
    owns; every computation is an `mbuf.kernel` that reads its input views
    and writes its output views. Asynchronous copies, sends and receives
    return a `!mbuf.token` that `mbuf.wait` consumes: the views they touch
    stay live until then.

    Verification includes the memory plan itself: two views of an arena
    that are live at the same time never share a byte, except an output
    written in place over an input (or computed in its slice of an output)
    that the kernel declares in its `tied_operands`.
  }];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    /// The alignment of every arena view offset, in bytes (oneDNN's
    /// workspace alignment, which ArenaPlan keeps).
    static constexpr int64_t kViewAlignment = 64;
  }];
}

class MBuf_Op<string mnemonic, list<Trait> traits = []>
    : Op<MBuf_Dialect, mnemonic, traits>;

#endif // MEMOPT_DIALECT_MBUF_IR_MBUFDIALECT_TD

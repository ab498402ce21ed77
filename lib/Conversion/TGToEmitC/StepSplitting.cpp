//===- StepSplitting.cpp - The step as functions of bounded size ----------===//
//
// A C++ compiler's optimizer takes time that grows faster than linearly
// with the size of a function: the 8,600 lines of densenet121's
// `train_step` took g++ -O2 23 minutes. After conversion, a step function
// with more than `maxCalls` kernel calls becomes a sequence of calls of
// part functions `train_step_part1`, `train_step_part2`, ..., each with at
// most `maxCalls` kernel calls (a statement that needs the one before it,
// such as a kernel call and its trace event, stays with it).
//
// The glue only declares views and calls kernels in order, so splitting
// changes no result: each part takes the step's parameters, declares the
// views it uses (a view is a pointer and a shape, declared again wherever
// it is used) and the step numbers (read by name, not as operands: the
// dropout seed), then runs its statements in their original order.
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace memopt::codegen;

namespace {

constexpr StringLiteral kTraceCallee = "memopt::rt::traceKernel";

bool isTraceCall(Operation *op) {
  auto call = dyn_cast<emitc::CallOpaqueOp>(op);
  return call && call.getCallee() == kTraceCallee;
}

/// The statements of a step function, and the view declarations they use.
struct StepBody {
  /// `void *const *args = <param>;` and the like.
  SmallVector<Operation *> params;
  /// The declaration (a verbatim) of each view (a literal): the literal
  /// right after it, or a later literal of the same name (a kernel's
  /// result view refers to the view its mbuf op declared).
  DenseMap<Value, Operation *> declarations;
  /// The declarations, each once, and the literals that only refer to one.
  SmallVector<Operation *> declarationOps, references;
  /// The literals of the step numbers (int64_t), which kernel arguments
  /// name in their text.
  SmallVector<Value> stepNumbers;
  SmallVector<Operation *> statements;
  unsigned numCalls = 0;
};

/// A view declaration: a verbatim without operands right before the
/// literal that names the view (StepContext::declareView).
bool isViewDeclaration(Operation &op) {
  auto decl = dyn_cast<emitc::VerbatimOp>(op);
  auto literal = dyn_cast_or_null<emitc::LiteralOp>(op.getNextNode());
  return decl && decl.getFmtArgs().empty() && literal &&
         decl.getValue().contains(literal.getValue());
}

FailureOr<StepBody> readBody(emitc::FuncOp func) {
  StepBody body;
  Block &block = func.getBody().front();
  llvm::StringMap<Operation *> byName;
  for (Operation &op : block)
    if (isViewDeclaration(op))
      byName[cast<emitc::LiteralOp>(op.getNextNode()).getValue()] = &op;
  for (Operation &op : block) {
    if (auto literal = dyn_cast<emitc::LiteralOp>(op)) {
      Operation *prev = op.getPrevNode();
      if (prev && isViewDeclaration(*prev))
        continue; // with its declaration
      // A reference to a view declared elsewhere in the function, or a
      // literal of its own (cloned where it is used).
      if (Operation *decl = byName.lookup(literal.getValue()))
        body.declarations[literal] = decl;
      body.references.push_back(&op);
      continue;
    }
    if (isa<emitc::ReturnOp>(op))
      break;
    auto verbatim = dyn_cast<emitc::VerbatimOp>(op);
    if (verbatim && !verbatim.getFmtArgs().empty() &&
        llvm::all_of(verbatim.getFmtArgs(), [&](Value value) {
          return isa<BlockArgument>(value);
        })) {
      body.params.push_back(&op);
    } else if (isViewDeclaration(op)) {
      Value view = cast<emitc::LiteralOp>(op.getNextNode()).getResult();
      body.declarations[view] = &op;
      body.declarationOps.push_back(&op);
      if (view.getType().isInteger(64))
        body.stepNumbers.push_back(view);
    } else if (op.getNumResults() != 0) {
      return op.emitError("cannot split the step: unexpected op with "
                          "results (convert-tg-to-emitc bug)");
    } else {
      body.statements.push_back(&op);
      if (isa<emitc::CallOpaqueOp>(op) && !isTraceCall(&op))
        ++body.numCalls;
    }
  }
  return body;
}

/// Cuts the statements into runs of at most `maxCalls` kernel calls. A cut
/// goes after a call only, and not between a call and its trace event.
SmallVector<ArrayRef<Operation *>> cut(ArrayRef<Operation *> statements,
                                       unsigned maxCalls) {
  SmallVector<ArrayRef<Operation *>> parts;
  size_t begin = 0;
  unsigned calls = 0;
  for (size_t i = 0; i < statements.size(); ++i) {
    Operation *op = statements[i];
    bool afterCall =
        i > begin && isa<emitc::CallOpaqueOp>(statements[i - 1]);
    if (calls >= maxCalls && afterCall && !isTraceCall(op)) {
      parts.push_back(statements.slice(begin, i - begin));
      begin = i;
      calls = 0;
    }
    if (isa<emitc::CallOpaqueOp>(op) && !isTraceCall(op))
      ++calls;
  }
  if (begin < statements.size())
    parts.push_back(statements.drop_front(begin));
  return parts;
}

/// Clones the declaration of `view` into the part, once, and maps `view`
/// (the declared literal or a reference to it) to the part's literal.
void declare(OpBuilder &builder, const StepBody &body, Value view,
             IRMapping &mapping) {
  if (mapping.contains(view))
    return;
  Operation *decl = body.declarations.lookup(view);
  Value declared = decl->getNextNode()->getResult(0);
  if (!mapping.contains(declared)) {
    builder.clone(*decl, mapping);
    builder.clone(*decl->getNextNode(), mapping);
  }
  mapping.map(view, mapping.lookup(declared));
}

} // namespace

FailureOr<unsigned> memopt::codegen::splitStepFunction(emitc::FuncOp func,
                                                        unsigned maxCalls,
                                                        NameScope &file) {
  FailureOr<StepBody> body = readBody(func);
  if (failed(body))
    return failure();
  if (maxCalls == 0 || body->numCalls <= maxCalls)
    return 1u;

  Block &block = func.getBody().front();
  Location loc = func.getLoc();
  OpBuilder builder(func);
  SmallVector<std::string> partNames;
  for (auto [index, statements] :
       llvm::enumerate(cut(body->statements, maxCalls))) {
    std::string name = file.unique(func.getSymName().str() + "_part" +
                                   std::to_string(index + 1));
    partNames.push_back(name);
    builder.setInsertionPoint(func);
    auto part = emitc::FuncOp::create(builder, loc, name,
                                      func.getFunctionType());
    part.setSpecifiersAttr(func.getSpecifiersAttr());
    Block *entry = part.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    IRMapping mapping;
    mapping.map(block.getArguments(), entry->getArguments());
    for (Operation *param : body->params)
      builder.clone(*param, mapping);
    for (Value stepNumber : body->stepNumbers)
      declare(builder, *body, stepNumber, mapping);
    for (Operation *op : statements) {
      for (Value operand : op->getOperands()) {
        if (body->declarations.count(operand))
          declare(builder, *body, operand, mapping);
        else if (auto literal = operand.getDefiningOp<emitc::LiteralOp>();
                 literal && !mapping.contains(operand))
          builder.clone(*literal, mapping);
        else if (!mapping.contains(operand))
          return op->emitError("cannot split the step: an operand that is "
                               "not a view (convert-tg-to-emitc bug)");
      }
      builder.clone(*op, mapping);
    }
    emitc::ReturnOp::create(builder, loc, Value());
  }

  // The step function keeps its parameters and calls the parts.
  for (Operation *op : llvm::reverse(body->statements))
    op->erase();
  for (Operation *literal : body->references)
    literal->erase();
  for (Operation *decl : body->declarationOps) {
    decl->getNextNode()->erase();
    decl->erase();
  }
  builder.setInsertionPoint(block.getTerminator());
  for (const std::string &name : partNames)
    emitc::CallOpaqueOp::create(builder, loc, TypeRange(), name,
                                block.getArguments());
  return static_cast<unsigned>(partNames.size());
}

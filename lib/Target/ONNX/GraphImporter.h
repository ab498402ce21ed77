//===- GraphImporter.h - ONNX graph to tg ops -------------------*- C++ -*-===//

#ifndef MEMOPT_LIB_TARGET_ONNX_GRAPHIMPORTER_H
#define MEMOPT_LIB_TARGET_ONNX_GRAPHIMPORTER_H

#include "HostTensor.h"

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Target/ONNX/ImportONNX.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <vector>
#include <set>
#include <utility>

namespace memopt::onnx_import {

/// The tg element type of an ONNX element type (float, float16, bfloat16),
/// or null.
mlir::Type elementTypeOf(mlir::MLIRContext *context, int32_t dtype);
/// The lower-case name of an ONNX element type ("int64").
std::string dtypeName(int32_t dtype);
/// Static shapes of ONNX values by name.
using ValueShapes = std::map<std::string, std::vector<int64_t>>;

/// Builds `func.func @main` from a loaded, shape-inferred ONNX model. One
/// instance imports one model.
class GraphImporter {
public:
  /// `sourceOpset` is the opset the model had before conversion to 17.
  /// `constants` names the float initializers that are constants rather
  /// than trainable weights; `summary` receives the BatchNorm decisions.
  GraphImporter(mlir::MLIRContext *context, const onnx::ModelProto &model,
                llvm::StringRef fileName, int64_t sourceOpset,
                const ONNXImportOptions &options,
                const std::set<std::string> &constants,
                const ValueShapes &exportShapes, ONNXImportSummary &summary);

  mlir::OwningOpRef<mlir::ModuleOp> run();

  /// The shapes of the graph inputs and node outputs imported so far, by
  /// ONNX name (kept when the import fails and its module is gone).
  const ValueShapes &valueShapes() const { return importedShapes; }

private:
  /// What the importer knows about an ONNX value name.
  struct Slot {
    mlir::Value value;                     // defined at run time
    std::optional<HostTensor> constant;    // known at import time
    const onnx::TensorProto *initializer = nullptr; // not yet materialized
  };
  enum class Role { Param, State };

  // Set-up of the function signature.
  mlir::LogicalResult declareInputs();
  mlir::LogicalResult declareOutputs(mlir::func::FuncOp func);
  /// Compares the type a graph output declares with the one it computes.
  mlir::LogicalResult checkDeclaredOutput(const onnx::ValueInfoProto &output,
                                          mlir::Value value);

  // Per-node driving.
  mlir::LogicalResult importNode(const onnx::NodeProto &node, int index);
  mlir::LogicalResult convertNode();
  /// Counts the reads of every value name in `graph` and in the branches
  /// of its If nodes (whose outputs the If reads).
  void countUses(const onnx::GraphProto &graph);
  /// If with a condition known at import time: the taken branch's nodes
  /// are imported in its place.
  mlir::LogicalResult convertIf();
  mlir::LogicalResult checkAgainstOnnxShape(const std::string &name,
                                            mlir::Value value);

  // Access to the current node's inputs.
  bool hasInput(int i) const;
  mlir::FailureOr<mlir::Value> input(int i, Role role = Role::Param);
  /// The value of input `i`, with a constant materialized in `elementType`.
  mlir::FailureOr<mlir::Value> inputAs(int i, mlir::Type elementType);
  /// The host value of input `i` when known at import time; float
  /// initializers (weights) count only with `allowTrainable`.
  const HostTensor *constantInput(int i, bool allowTrainable);
  mlir::FailureOr<const HostTensor *> requireConstant(int i, llvm::StringRef what);
  /// The single value of input `i`, which must be known at import time.
  mlir::FailureOr<double> requireScalar(int i, llvm::StringRef what);
  mlir::FailureOr<mlir::RankedTensorType> inputType(int i);
  mlir::LogicalResult define(int output, mlir::Value value);
  void defineConstant(int output, HostTensor tensor);
  bool outputUsed(int output) const;

  mlir::Value materialize(const HostTensor &tensor, mlir::Type elementType);
  mlir::FailureOr<mlir::Value> argumentFor(const std::string &name, Role role);
  mlir::InFlightDiagnostic nodeError();
  /// When --batch or --input-shape changed the inputs and one of
  /// `operands` is a parameter or a mask of random numbers, why it may no
  /// longer fit (a position embedding sized for the export-time input, a
  /// drop-path mask of the export-time batch); else "".
  std::string resizedShapeHint(mlir::ValueRange operands);

  /// Creates `OpT` with its result types inferred; diagnostics from the
  /// inference carry the ONNX node's name and op type.
  template <typename OpT>
  mlir::FailureOr<OpT> build(mlir::ValueRange operands,
                             llvm::ArrayRef<mlir::NamedAttribute> attrs,
                             unsigned numResults = 1);

  // Op families (ConvertOps.cpp).
  /// Input, weight and optional bias of Conv / ConvTranspose, rank-checked.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> convOperands();
  mlir::LogicalResult convertConv();
  mlir::LogicalResult convertConvTranspose();
  mlir::LogicalResult convertBatchNorm();
  mlir::LogicalResult convertUnary();
  mlir::LogicalResult convertClip();
  mlir::LogicalResult convertPRelu();
  /// The node's `axis` attribute normalized to [0, rank); an error for an
  /// axis outside [-rank, rank).
  mlir::FailureOr<int64_t> axisAttr(int64_t rank, int64_t defaultValue);
  mlir::LogicalResult convertSoftmax();
  mlir::LogicalResult convertInstanceNorm();
  mlir::LogicalResult convertLayerNorm();
  /// The float attribute `name` of the node (or `defaultValue`) as an F64
  /// attribute of the same name.
  mlir::NamedAttribute floatAttr(llvm::StringRef name, float defaultValue);
  /// The operands of a binary op, a constant one in the other's type.
  mlir::FailureOr<std::pair<mlir::Value, mlir::Value>> binaryOperands();
  mlir::LogicalResult convertBinary();
  /// Fails unless every use of the node's boolean result is a Cast to
  /// float, a Not or the condition of a Where (tg has no boolean tensors).
  mlir::LogicalResult checkBooleanUses();
  mlir::FailureOr<mlir::Value> buildCompare(mlir::Value lhs, mlir::Value rhs,
                                            tg::ComparisonPredicate predicate);
  mlir::LogicalResult convertCompare();
  mlir::LogicalResult convertNot();
  /// The run-time input `i` that must be a comparison's 0/1 mask.
  mlir::FailureOr<mlir::Value> requireCondition(int i);
  mlir::LogicalResult convertWhere();
  mlir::LogicalResult convertPow();
  mlir::LogicalResult convertPool();
  mlir::LogicalResult convertGlobalAveragePool();
  mlir::LogicalResult convertResize();
  mlir::LogicalResult convertConcat();
  mlir::LogicalResult convertSlice();
  mlir::LogicalResult convertSplit();
  /// Elements [begin, end) of `data` along `axis`, as a tg.slice.
  mlir::FailureOr<mlir::Value> sliceAlong(mlir::Value data, int64_t axis,
                                          int64_t begin, int64_t end);
  mlir::LogicalResult convertPad();
  /// The data (input 0) and the indices (input 1, known at import time)
  /// of Gather and GatherND.
  mlir::FailureOr<std::pair<mlir::Value, const HostTensor *>> gatherOperands();
  /// `data` gathered along `axis` at `indices` (normalized) of shape
  /// `indexShape`: a tg.gather, or for one index of rank 0 a tg.slice and a
  /// tg.reshape that drops the axis.
  mlir::FailureOr<mlir::Value> gatherAt(mlir::Value data, int64_t axis,
                                        llvm::ArrayRef<int64_t> indexShape,
                                        llvm::ArrayRef<int64_t> indices);
  mlir::LogicalResult convertGather();
  mlir::LogicalResult convertGatherND();
  mlir::LogicalResult convertShapeOp();
  /// A Reshape's shape fixed at the export-time batch, re-derived for the
  /// batch of --batch into `shape` (ConstantFolding.h, rebatchedShape).
  bool rederiveBatch(llvm::ArrayRef<int64_t> input,
                     llvm::SmallVectorImpl<int64_t> &shape);
  mlir::LogicalResult convertTranspose();
  mlir::LogicalResult convertExpand();
  mlir::LogicalResult convertTile();
  mlir::LogicalResult convertMatMul();
  mlir::LogicalResult convertEinsum(); // ConvertEinsum.cpp
  mlir::LogicalResult convertGemm();
  mlir::LogicalResult convertReduce();
  mlir::LogicalResult convertDropout();
  mlir::LogicalResult convertRandom();
  /// A random shape fixed at the export-time batch (its first dimension
  /// the graph input's then), re-derived for the batch of --batch.
  void rederiveRandomBatch(llvm::SmallVectorImpl<int64_t> &shape);
  mlir::LogicalResult convertCast();
  mlir::LogicalResult convertShape();
  mlir::LogicalResult convertConstant();

  mlir::MLIRContext *context;
  const onnx::ModelProto &model;
  std::string fileName;
  int64_t sourceOpset;
  const ONNXImportOptions &options;
  /// Shapes at the export-time batch (only when --batch changed it).
  const ValueShapes &exportShapes;
  ONNXImportSummary &summary;
  mlir::OpBuilder builder;
  mlir::Block *body = nullptr;
  llvm::SmallVector<mlir::Attribute> argAttrs;
  llvm::StringMap<Slot> slots;
  llvm::StringMap<llvm::SmallVector<int64_t>> onnxShapes;
  llvm::StringMap<int> useCounts;
  /// The stream of the next tg.random_uniform (graph order).
  int64_t nextRandomStream = 0;
  ValueShapes importedShapes;

  // The node being converted.
  const onnx::NodeProto *node = nullptr;
  mlir::Location loc;
};

/// Runs `fn`, collecting the diagnostics it emits into `messages` (joined
/// with "; ") instead of printing them.
inline mlir::LogicalResult
collectDiagnostics(mlir::MLIRContext *context, std::string &messages,
                   llvm::function_ref<mlir::LogicalResult()> fn) {
  mlir::ScopedDiagnosticHandler capture(context, [&](mlir::Diagnostic &diag) {
    if (!messages.empty())
      messages += "; ";
    messages += diag.str();
    return mlir::success();
  });
  return fn();
}

// Defined here because ConvertOps.cpp instantiates it for every tg op.
template <typename OpT>
mlir::FailureOr<OpT>
GraphImporter::build(mlir::ValueRange operands,
                     llvm::ArrayRef<mlir::NamedAttribute> attrs,
                     unsigned numResults) {
  // The op is created with placeholder result types, then its own inference
  // sets them. Building through the inferring builder would abort on an
  // invalid model instead of reporting it.
  llvm::SmallVector<mlir::Type> placeholders(numResults, operands.front().getType());
  auto op = OpT::create(builder, loc, placeholders, operands, attrs);
  llvm::SmallVector<mlir::Type> types;
  std::string messages;
  mlir::Operation *raw = op.getOperation();
  if (mlir::failed(collectDiagnostics(context, messages, [&] {
        return OpT::inferReturnTypes(
            context, loc, raw->getOperands(), raw->getRawDictionaryAttrs(),
            raw->getPropertiesStorage(), raw->getRegions(), types);
      }))) {
    op->erase();
    return nodeError() << messages << resizedShapeHint(operands);
  }
  for (auto [result, type] : llvm::zip(op->getResults(), types))
    result.setType(type);
  // The op's verifier checks attribute values (a negative epsilon, a dropout
  // ratio of 1.5): report its failure against the ONNX node too, not later
  // against an anonymous op of the module.
  if (mlir::failed(collectDiagnostics(context, messages, [&] {
        return mlir::verify(raw, /*verifyRecursively=*/false);
      }))) {
    op->erase();
    return nodeError() << messages;
  }
  return op;
}

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_GRAPHIMPORTER_H

//===- StepCodegen.h - Shared state of the tg-to-EmitC patterns -*- C++ -*-===//
//
// The conversion patterns of convert-tg-to-emitc, split by op family into
// one file each, share what this header declares: the StepContext (what
// the C++ view of every mbuf view of the step is called and where the mbuf
// IR places it), the
// KernelCall builder (one `emitc.call_opaque` per kernel call) and the
// populate functions.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_CONVERSION_TGTOEMITC_STEPCODEGEN_H
#define MEMOPT_LIB_CONVERSION_TGTOEMITC_STEPCODEGEN_H

#include "NameScope.h"

#include "memopt/Dialect/MBuf/IR/MBufOps.h"

#include "mlir/Dialect/EmitC/IR/EmitC.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"

#include <initializer_list>
#include <map>
#include <memory>
#include <string>

namespace memopt::codegen {

/// The C++ names that the step function gives its parameters in its
/// prologue; views are declared relative to them.
constexpr llvm::StringLiteral kArgsName = "args";
constexpr llvm::StringLiteral kResultsName = "results";
constexpr llvm::StringLiteral kArenasName = "arenas";
/// The names of the generated step functions (and of the optional
/// evaluation function in the tg module).
constexpr llvm::StringLiteral kStepFunctionName = "train_step";
constexpr llvm::StringLiteral kEvalFunctionName = "eval_step";
/// The global that holds the learning rate of the updates
/// (Program::learningRate).
constexpr llvm::StringLiteral kLearningRateName = "learning_rate";
/// The TensorSpecs of the step's arguments and results, its arenas, and
/// the Program.
constexpr llvm::StringLiteral kArgsSpecsName = "kArgs";
constexpr llvm::StringLiteral kResultsSpecsName = "kResults";
constexpr llvm::StringLiteral kArenasSpecsName = "kArenas";
constexpr llvm::StringLiteral kProgramName = "kProgram";

/// `!emitc.opaque<"memopt::rt::Tensor">`, the type of every float view.
mlir::Type tensorViewType(mlir::MLIRContext *context);

/// Where a view of the step lives, as its defining mbuf op says.
struct Placement {
  enum class Kind {
    Argument, // args[index] (a function argument)
    Result,   // results[index] (mbuf.result)
    Arena,    // arenas[arena] + index (mbuf.view, mbuf.subview)
    Constant, // a static array of the generated file (mbuf.constant)
    StepNumber, // the rank-0 i64 args[index], read by value
  };
  Kind kind;
  uint64_t index = 0; // argument/result index or arena offset
  uint64_t arena = 0; // the arena's index (Kind::Arena)
};

/// An arena of the program: mbuf.arena `index` of the step.
struct ArenaInfo {
  uint64_t bytes;
  mbuf::MemorySpace space;
  uint64_t device;
};

/// Names and placements of every view of the step (a func.func in the mbuf
/// dialect, as tg-plan-memory makes it), read from the IR alone.
class StepContext {
public:
  /// Names the views of `step` in a function scope nested in `file` (the
  /// scope of the generated file, which also gets the names of the step's
  /// constant arrays and CUDA kernels) and reads their places. Emits a
  /// diagnostic and fails on what the backend cannot run (a bf16/f16 view
  /// of an op without a low-precision kernel names the op).
  static mlir::FailureOr<StepContext> build(mlir::func::FuncOp step,
                                            NameScope &file);

  /// The place of a view, or of the tg value a kernel reads or writes
  /// through one.
  const Placement &placement(mlir::Value value) const;
  /// The C++ name of a view, or of the tg value of a kernel's view.
  llvm::StringRef name(mlir::Value value) const;
  /// The file-scope array that holds the data of constant `value` (an
  /// mbuf.constant view, or the result of a tg.constant kernel).
  llvm::StringRef dataName(mlir::Value value) const;
  /// The local array of views that concat `op` passes to its kernel.
  llvm::StringRef arrayName(mlir::Operation *op) const;
  /// The file-scope array of the indices of gather or gather_backward `op`.
  llvm::StringRef indicesName(mlir::Operation *op) const;
  /// The file-scope CUDA kernel of fused op `op`.
  llvm::StringRef kernelName(mlir::Operation *op) const;
  /// The scope of the step function's locals.
  NameScope &scope() const { return *localScope; }
  /// The C++ name of result buffer `index` of the step.
  llvm::StringRef resultName(unsigned index) const {
    return resultNames[index];
  }
  /// The arenas of the step by index.
  const std::map<uint64_t, ArenaInfo> &arenas() const { return arenaInfos; }

  /// Declares the C++ view of `view` (an argument or mbuf view op of the
  /// step) at the builder's insertion point and returns the EmitC value
  /// that names it.
  mlir::Value declareView(mlir::OpBuilder &builder, mlir::Location loc,
                          mlir::Value view) const;
  /// The EmitC value that names the view a kernel writes tg result
  /// `result` into (declared by the view's own op).
  mlir::Value resultView(mlir::OpBuilder &builder, mlir::Location loc,
                         mlir::Value result) const;
  /// Declares the view of result buffer `index` of `type`, named
  /// resultName(index).
  mlir::Value declareResultBuffer(mlir::OpBuilder &builder,
                                  mlir::Location loc, unsigned index,
                                  mlir::Type type) const;
  /// The workspace argument of the kernel of tg op `op`: its workspace
  /// view's `arenaWorkspace(arenas[i], offset)`, or `nullptr`.
  std::string workspace(mlir::Operation *op) const;
  /// The seed argument of `op`'s (a tg.dropout's or tg.random_uniform's)
  /// kernel: the step's seed mixed with the op's random stream, a dropout's
  /// position among the step's dropouts or random_uniform's `stream`
  /// attribute, so that each op draws its own numbers.
  std::string randomSeed(mlir::Operation *op) const;

  /// The C++ expression of the start of arena view `view`.
  std::string workspaceAt(mlir::Value view) const;

  /// An mbuf.copy_async of the step: its number (in the step's order, the
  /// runtime's copy id: memopt/Runtime/Copy.h) and its trace name.
  struct Copy {
    int64_t id;
    std::string name;
  };
  const Copy &copy(mlir::Operation *op) const { return copies.at(op); }

private:
  /// The view of a tg value inside a kernel, or `value` itself.
  mlir::Value viewOf(mlir::Value value) const;

  std::map<uint64_t, ArenaInfo> arenaInfos;
  llvm::DenseMap<mlir::Value, mlir::Value> kernelViews;
  llvm::DenseMap<mlir::Operation *, mlir::Value> workspaces;
  llvm::DenseMap<mlir::Value, Placement> placements;
  llvm::DenseMap<mlir::Value, std::string> names;
  llvm::DenseMap<mlir::Value, std::string> dataNames;
  // arrays, kernels
  llvm::DenseMap<mlir::Operation *, std::string> opNames;
  std::unique_ptr<NameScope> localScope;
  llvm::SmallVector<std::string> resultNames;
  std::string seedName; // the C++ name of the tg.seed argument, if any
  llvm::DenseMap<mlir::Operation *, unsigned> randomStreams;
  std::map<mlir::Operation *, Copy> copies;
};

/// Builds one `emitc.call_opaque` of a runtime kernel, argument by argument
/// in the kernel's order (docs/runtime.md): tensors are operands, the rest
/// is C++ text (`{1, 1}`, `true`, `1e-05`), so that the call prints on one
/// line.
class KernelCall {
public:
  KernelCall(mlir::MLIRContext *context, llvm::StringRef kernel);

  KernelCall &operand(mlir::Value value);
  /// An optional tensor operand: the value, or `{}` (absent) when null.
  KernelCall &optional(mlir::Value value);
  KernelCall &operands(mlir::ValueRange values);
  KernelCall &text(llvm::StringRef cpp);
  KernelCall &list(llvm::ArrayRef<int64_t> values);
  KernelCall &integer(int64_t value);
  KernelCall &real(double value);
  KernelCall &real(const llvm::APFloat &value);
  KernelCall &boolean(bool value);
  /// Follows the call with `memopt::rt::traceKernel("name", "kind")`, the
  /// per-kernel event of the binary's --trace (StepTrace.h).
  KernelCall &traced(llvm::StringRef name, llvm::StringRef kind);

  void emit(mlir::OpBuilder &builder, mlir::Location loc);

private:
  mlir::MLIRContext *context;
  std::string callee;
  std::string traceName, traceKind;
  llvm::SmallVector<mlir::Value> values;
  llvm::SmallVector<mlir::Attribute> args;
};

/// C++ text of the values: `{1, 2}`.
std::string cppList(llvm::ArrayRef<int64_t> values);
/// A C++ double literal that reads back as `value`.
std::string cppDouble(double value);
/// A C++ string literal of `text`.
std::string cppString(llvm::StringRef text);

/// The base of every kernel pattern: declares the views of the op's results,
/// lets the subclass add the kernel's arguments and emits the call.
template <typename OpTy>
class KernelPattern : public mlir::OpConversionPattern<OpTy> {
public:
  using OpAdaptor = typename mlir::OpConversionPattern<OpTy>::OpAdaptor;

  KernelPattern(const mlir::TypeConverter &converter,
                mlir::MLIRContext *context, const StepContext &step,
                llvm::StringRef kernel)
      : mlir::OpConversionPattern<OpTy>(converter, context), step(step),
        kernel(kernel.str()) {}

  mlir::LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  mlir::ConversionPatternRewriter &rewriter) const final {
    llvm::SmallVector<mlir::Value> results;
    for (mlir::Value result : op->getResults())
      results.push_back(step.resultView(rewriter, op.getLoc(), result));
    declareOperands(op, adaptor, rewriter);
    KernelCall call(op.getContext(), kernelFor(op));
    addArguments(op, adaptor, results, call);
    call.traced(step.name(op->getResult(0)), op->getName().stripDialect());
    call.emit(rewriter, op.getLoc());
    rewriter.replaceOp(op, results);
    return mlir::success();
  }

protected:
  /// The runtime kernel that `op` calls: the pattern's, unless a subclass
  /// picks a variant by the op's attributes.
  virtual std::string kernelFor(OpTy) const { return kernel; }
  /// Declares what the call needs besides the views (concat's array).
  virtual void declareOperands(OpTy, OpAdaptor, mlir::OpBuilder &) const {}
  /// Adds the kernel's arguments: operands, `results` (the views of the
  /// op's results), attributes, workspace.
  virtual void addArguments(OpTy op, OpAdaptor adaptor,
                            mlir::ValueRange results,
                            KernelCall &call) const = 0;

  const StepContext &step;

private:
  std::string kernel;
};

/// A kernel whose arguments are the op's operands, then its results, then
/// nothing else (relu, add, mse_loss, concat's forward ops without
/// attributes, ...).
template <typename OpTy>
class PlainKernelPattern : public KernelPattern<OpTy> {
public:
  using KernelPattern<OpTy>::KernelPattern;
  using OpAdaptor = typename KernelPattern<OpTy>::OpAdaptor;

protected:
  void addArguments(OpTy, OpAdaptor adaptor, mlir::ValueRange results,
                    KernelCall &call) const override {
    call.operands(adaptor.getOperands()).operands(results);
  }
};

/// Adds a PlainKernelPattern for each op type, calling the kernel named at
/// the same position of `kernels`.
template <typename... OpTys>
void addPlainKernelPatterns(const mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns,
                            const StepContext &step,
                            std::initializer_list<llvm::StringRef> kernels) {
  static_assert(sizeof...(OpTys) > 0, "no op types");
  assert(kernels.size() == sizeof...(OpTys) && "one kernel per op type");
  const llvm::StringRef *kernel = kernels.begin();
  (patterns.add<PlainKernelPattern<OpTys>>(converter, patterns.getContext(),
                                           step, *kernel++),
   ...);
}

/// The mbuf ops: views become C++ view declarations, kernels their
/// computations on them; asynchronous transfers are errors for now.
void populateMBufPatterns(const mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns,
                          const StepContext &step);
/// Declares the static array `name` of the generated file with the values
/// of `value`, before the function that holds the builder's point.
mlir::LogicalResult declareConstantData(mlir::OpBuilder &builder,
                                        mlir::Operation *at,
                                        llvm::StringRef name,
                                        mlir::ElementsAttr value);

/// The function becomes the C++ function `cppName`.
void populateFunctionPatterns(const mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns,
                              const StepContext &step,
                              llvm::StringRef cppName);
void populateConvolutionPatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 const StepContext &step);
void populateNormalizationPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   const StepContext &step);
void populateElementwisePatterns(const mlir::TypeConverter &converter,
                                 mlir::RewritePatternSet &patterns,
                                 const StepContext &step);
void populatePoolingPatterns(const mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns,
                             const StepContext &step);
void populateShapePatterns(const mlir::TypeConverter &converter,
                           mlir::RewritePatternSet &patterns,
                           const StepContext &step);
void populateLinearAlgebraPatterns(const mlir::TypeConverter &converter,
                                   mlir::RewritePatternSet &patterns,
                                   const StepContext &step);
void populateLossPatterns(const mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns,
                          const StepContext &step);
/// Activations, softmax, instance norm and losses of segmentation networks.
void populateSegmentationPatterns(const mlir::TypeConverter &converter,
                                  mlir::RewritePatternSet &patterns,
                                  const StepContext &step);
/// With `runtimeLearningRate`, the updates read kLearningRateName instead of
/// their `lr` attribute.
void populateOptimizerPatterns(const mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns,
                               const StepContext &step,
                               bool runtimeLearningRate);
/// tg.fused_elementwise as a generated CUDA kernel (target=cuda only).
void populateFusedElementwisePatterns(const mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      const StepContext &step);


/// Splits the converted step function `func` into part functions of at
/// most `maxCalls` kernel calls each (0: no limit), named in `file`, that
/// `func` calls in order (StepSplitting.cpp). Returns the number of
/// parts: 1 when `func` stays whole.
mlir::FailureOr<unsigned> splitStepFunction(mlir::emitc::FuncOp func,
                                            unsigned maxCalls,
                                            NameScope &file);

/// The learning rate of every optimizer update of `step`, if the step has
/// updates and they all agree on it: then the binary's --lr may replace it.
std::optional<double> sharedLearningRate(mlir::func::FuncOp step);

/// One argument or result of the step, as its memopt::rt::TensorSpec says.
struct TensorSpecInfo {
  std::string name;
  std::string role; // the enumerator of memopt::rt::Role
  std::string elementType; // the enumerator of memopt::rt::ElementType
  llvm::SmallVector<int64_t> shape;
};

/// The signature of the step, read from its role attributes.
struct StepSignature {
  llvm::SmallVector<TensorSpecInfo> args;
  llvm::SmallVector<TensorSpecInfo> results;
  /// The rank-0 loss among the results; -1 for a pipeline stage that does
  /// not compute it.
  int lossIndex = 0;
  /// The classes of the label maps that the target holds (the channels of
  /// the logits of a cross-entropy or Dice loss against a class map), or 0
  /// when the target is an image like the inputs.
  int64_t targetClasses = 0;

  /// `stage`: a pipeline stage's step, which may have no loss.
  static mlir::FailureOr<StepSignature> read(mlir::func::FuncOp step,
                                             bool stage = false);
};

/// One Program of the generated file: the step function `stepName` with
/// its signature and arenas.
struct ProgramPart {
  StepSignature signature;
  std::map<uint64_t, ArenaInfo> arenas;
  std::string stepName;
  /// The threads its CPU workspaces were sized for (0: none recorded).
  int64_t threads = 0;
  /// largestExchangeBytes of the part's step (Program::exchangeBytes).
  uint64_t exchangeBytes = 0;
};

/// The names of part `index`'s globals (kArgs, kResults, kArenas, suffixed
/// with the stage index when the file holds pipeline stages).
std::string partGlobalName(llvm::StringRef base, unsigned index,
                           unsigned numParts);

/// Adds to `module` the includes, the learning rate global (with
/// `learningRate`), the Program of each part (tensor specs, arenas, the
/// file of initial weights, `weightsFile`, or null when empty; the step
/// function, the learning rate, the evaluation
/// function when `hasEvalStep`) and `main`: with one part it hands its
/// Program to trainerMain; with several (the pipeline stages of
/// tg-partition, in stage order) or with `replicas` > 1
/// (tg-data-parallel) it hands them all to stageMain, which runs the stage
/// of its MPI rank. A non-empty `evalRefusal` (tg.eval_refusal) becomes
/// Program::evalRefusal, the trainer's reason to refuse --val-data.
void emitProgram(mlir::ModuleOp module, llvm::ArrayRef<ProgramPart> parts,
                 llvm::StringRef modelName, llvm::StringRef weightsFile,
                 std::optional<double> learningRate,
                 bool hasEvalStep, int64_t replicas,
                 llvm::StringRef evalRefusal = "");

} // namespace memopt::codegen

#endif // MEMOPT_LIB_CONVERSION_TGTOEMITC_STEPCODEGEN_H

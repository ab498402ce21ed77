//===- TGDialect.td - Training-graph dialect definition ----*- tablegen -*-===//
//
// The training-graph (tg) dialect holds a whole network, and later its whole
// training step, as value-semantics tensor operations. It is the level at
// which autodiff and the memory passes reason about the graph.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TG_IR_TGDIALECT_TD
#define MEMOPT_DIALECT_TG_IR_TGDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TG_Dialect : Dialect {
  let name = "tg";
  let cppNamespace = "::memopt::tg";
  let summary = "Tensor-level training-graph dialect of memopt";
  let description = [{
    Operations on statically shaped tensors in NCHW layout with value
    semantics: the forward operators of convolutional networks as imported
    from ONNX. Every op infers its result type and verifies its attributes,
    so that a malformed graph is rejected where it is built, not where it is
    executed.

    Function arguments and results carry the roles the runtime needs:
    `tg.input` (a data input), `tg.target` (the training target),
    `tg.param` (a trainable initializer), `tg.state` (a non-trainable
    initializer such as BatchNorm running statistics), `tg.opt_state` (an
    optimizer state tensor of a parameter, named `<param>.<slot>`),
    `tg.step` (the 1-based step number) and `tg.output`. Parameters, states
    and optimizer states are also results of a training step: their updated
    values. The values are the ONNX names, which are kept so that trained
    values can be written back under them.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Names of the argument and result attributes that give an ONNX name
    /// and its role to a function argument or result.
    static constexpr llvm::StringLiteral kInputAttrName = "tg.input";
    static constexpr llvm::StringLiteral kParamAttrName = "tg.param";
    static constexpr llvm::StringLiteral kStateAttrName = "tg.state";
    static constexpr llvm::StringLiteral kOutputAttrName = "tg.output";
    static constexpr llvm::StringLiteral kTargetAttrName = "tg.target";
    static constexpr llvm::StringLiteral kOptStateAttrName = "tg.opt_state";
    static constexpr llvm::StringLiteral kStepAttrName = "tg.step";
    static constexpr llvm::StringLiteral kSeedAttrName = "tg.seed";
    /// fp16 loss scaling (tg-loss-scale): the rank-0 f32 scale of the
    /// loss's gradient, which the trainer sets before each step.
    static constexpr llvm::StringLiteral kLossScaleAttrName = "tg.loss_scale";
    /// The unit attribute that tg-loss-scale puts on the optimizer updates
    /// of an fp16 step: their kernel leaves the parameter and the optimizer
    /// state untouched when the gradient is not finite (a skipped step).
    static constexpr llvm::StringLiteral kSkipNonFiniteAttrName =
        "tg.skip_nonfinite";

    /// The optimizer state slots a `tg.opt_state` name ends with, as
    /// torch.optim names them.
    static constexpr llvm::StringLiteral kMomentumBufferSlot =
        "momentum_buffer";
    static constexpr llvm::StringLiteral kExpAvgSlot = "exp_avg";
    static constexpr llvm::StringLiteral kExpAvgSqSlot = "exp_avg_sq";
  }];
}

class TG_Op<string mnemonic, list<Trait> traits = []>
    : Op<TG_Dialect, mnemonic, traits>;

// Tensors handled by the dialect: static shapes, floating-point elements.
def TG_FloatElement : AnyTypeOf<[F32, F16, BF16]>;
def TG_Tensor : StaticShapeTensorOf<[F32, F16, BF16]>;
def TG_4DTensor : 4DTensorOf<[F32, F16, BF16]>;
// N x C x spatial axes, with 1, 2 or 3 spatial axes: the operands of the
// rank-generic window ops (convolutions). Their per-axis attributes
// (strides, dilations, ...) have one value per spatial axis and their pads
// the begins of every spatial axis, then the ends; the attributes' defaults
// are those of 2-D and a 1-D or 3-D op states them.
def TG_SpatialTensor : TensorRankOf<[F32, F16, BF16], [3, 4, 5]>;
def TG_1DTensor : 1DTensorOf<[F32, F16, BF16]>;

// The 1-based step number of a training step, an operand of the optimizer
// updates so that one compiled step serves every step.
def TG_StepTensor : 0DTensorOf<[I64]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI64Type())">;

#endif // MEMOPT_DIALECT_TG_IR_TGDIALECT_TD

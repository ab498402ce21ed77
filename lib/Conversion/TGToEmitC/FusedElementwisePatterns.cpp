//===- FusedElementwisePatterns.cpp - One CUDA kernel per fused chain -----===//
//
// target=cuda: a tg.fused_elementwise (from tg-fuse-elementwise) becomes a
// `__global__` kernel of the generated file, emitted before the step
// function, and one launch on the runtime's stream (memopt/Runtime/CUDA/
// Launch.h). The kernel reads each input once and writes the output once
// per element; its body spells every op with the float formula of the
// runtime's own kernel (lib/Runtime/CUDA/Elementwise.cu), so fusing changes
// where values live, not what they are:
//
//   // tg.fused_elementwise: add, relu
//   static __global__ void kernel_fused_elementwise_layer1_0(
//       const float *in0, const float *in1, float *out, int64_t n) {
//     for (int64_t i = ...; i < n; i += ...) {
//       const float x0 = in0[i];
//       const float x1 = in1[i];
//       const float v0 = x0 + x1;
//       const float v1 = v0 < 0 ? 0.0f : v0;
//       out[i] = v1;
//     }
//   }
//
// Under mixed precision (tg-amp) the chain's tensors are bf16 or f16: the
// kernel takes `__nv_bfloat16` / `__half` pointers, converts each element
// to float as it loads it and rounds the result to nearest even as it
// stores it (the conversions of the runtime's kernels, KernelSupport.cuh),
// so the arithmetic in between is float as above:
//
//       const float x0 = __bfloat162float(in0[i]);
//       ...
//       out[i] = __float2bfloat16_rn(v1);
//
//===----------------------------------------------------------------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

namespace {

/// A double attribute as the float the runtime's kernels convert it to.
std::string asFloat(const llvm::APFloat &value) {
  return "static_cast<float>(" + cppDouble(value.convertToDouble()) + ")";
}

/// The CUDA expression of `op` over the names `x` of its operands.
std::string expression(Operation *op, ArrayRef<std::string> x) {
  auto ternary = [](const std::string &c, const std::string &a,
                    const std::string &b) { return c + " ? " + a + " : " + b; };
  return llvm::TypeSwitch<Operation *, std::string>(op)
      .Case([&](tg::ReluOp) { return ternary(x[0] + " < 0", "0.0f", x[0]); })
      .Case([&](tg::SigmoidOp) {
        return "1.0f / (1.0f + expf(-" + x[0] + "))";
      })
      .Case([&](tg::TanhOp) { return "tanhf(" + x[0] + ")"; })
      .Case([&](tg::NegOp) { return "-" + x[0]; })
      .Case([&](tg::ExpOp) { return "expf(" + x[0] + ")"; })
      .Case([&](tg::LogOp) { return "logf(" + x[0] + ")"; })
      .Case([&](tg::SqrtOp) { return "sqrtf(" + x[0] + ")"; })
      .Case([&](tg::AbsOp) { return "fabsf(" + x[0] + ")"; })
      .Case([&](tg::SignOp) {
        return ternary(x[0] + " > 0", "1.0f",
                       "(" + ternary(x[0] + " < 0", "-1.0f", "0.0f") + ")");
      })
      .Case([&](tg::LeakyReluOp relu) {
        return ternary(x[0] + " >= 0", x[0],
                       asFloat(relu.getAlpha()) + " * " + x[0]);
      })
      .Case([&](tg::ClipOp clip) {
        std::string lo = asFloat(clip.getMin()), hi = asFloat(clip.getMax());
        return ternary(x[0] + " < " + lo, lo,
                       "(" + ternary(x[0] + " > " + hi, hi, x[0]) + ")");
      })
      .Case([&](tg::AddOp) { return x[0] + " + " + x[1]; })
      .Case([&](tg::SubOp) { return x[0] + " - " + x[1]; })
      .Case([&](tg::MulOp) { return x[0] + " * " + x[1]; })
      .Case([&](tg::DivOp) { return x[0] + " / " + x[1]; })
      .Case([&](tg::ReluBackwardOp) {
        return ternary(x[1] + " <= 0", "0.0f", x[0]);
      })
      .Case([&](tg::SigmoidBackwardOp) {
        return x[0] + " * (1 - " + x[1] + ") * " + x[1];
      })
      .Case([&](tg::TanhBackwardOp) {
        return x[0] + " * (1 - " + x[1] + " * " + x[1] + ")";
      })
      .Case([&](tg::LeakyReluBackwardOp relu) {
        return ternary(x[1] + " > 0", x[0],
                       asFloat(relu.getAlpha()) + " * " + x[0]);
      })
      .Case([&](tg::ClipBackwardOp clip) {
        std::string lo = asFloat(clip.getMin()), hi = asFloat(clip.getMax());
        return ternary(lo + " <= " + x[1] + " && " + x[1] + " <= " + hi, x[0],
                       "0.0f");
      })
      .Default([](Operation *) -> std::string {
        llvm_unreachable("the verifier admits fusable ops only");
      });
}

/// How the generated CUDA code stores, loads and stores elements of `type`
/// (f32, bf16 or f16; the verifier admits float chains only).
struct DeviceElement {
  StringRef cppType;  // the pointer's element type
  StringRef toFloat;  // the load conversion, empty for f32
  StringRef fromFloat; // the store conversion, empty for f32

  static DeviceElement of(Type type) {
    Type element = cast<ShapedType>(type).getElementType();
    if (element.isBF16())
      return {"__nv_bfloat16", "__bfloat162float", "__float2bfloat16_rn"};
    if (element.isF16())
      return {"__half", "__half2float", "__float2half_rn"};
    return {"float", "", ""};
  }
  /// `value` converted by `conversion` (nothing for f32).
  static std::string apply(StringRef conversion, const std::string &value) {
    return conversion.empty() ? value : (conversion + "(" + value + ")").str();
  }
};

/// The source of the kernel that evaluates `op`'s body per element.
std::string kernelSource(tg::FusedElementwiseOp op, StringRef kernel) {
  Block &body = op.getBody().front();
  std::string text;
  llvm::raw_string_ostream os(text);
  SmallVector<StringRef> kinds;
  for (Operation &inner : body.without_terminator())
    kinds.push_back(inner.getName().stripDialect());
  os << "// tg.fused_elementwise: " << llvm::join(kinds, ", ") << "\n";
  os << "static __global__ void " << kernel << "(";
  for (auto [i, input] : llvm::enumerate(op.getInputs()))
    os << "const " << DeviceElement::of(input.getType()).cppType << " *in"
       << i << ", ";
  DeviceElement result = DeviceElement::of(op.getOutput().getType());
  os << result.cppType << " *out, int64_t n) {\n"
     << "  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + "
        "threadIdx.x; i < n;\n"
     << "       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {\n";
  DenseMap<Value, std::string> names;
  for (BlockArgument arg : body.getArguments()) {
    std::string name = "x" + std::to_string(arg.getArgNumber());
    DeviceElement element =
        DeviceElement::of(op.getInputs()[arg.getArgNumber()].getType());
    os << "    const float " << name << " = "
       << DeviceElement::apply(element.toFloat,
                               "in" + std::to_string(arg.getArgNumber()) +
                                   "[i]")
       << ";\n";
    names[arg] = name;
  }
  unsigned count = 0;
  for (Operation &inner : body.without_terminator()) {
    SmallVector<std::string> operands;
    for (Value operand : inner.getOperands())
      operands.push_back(names.lookup(operand));
    std::string name = "v" + std::to_string(count++);
    os << "    const float " << name << " = " << expression(&inner, operands)
       << ";\n";
    names[inner.getResult(0)] = name;
  }
  os << "    out[i] = "
     << DeviceElement::apply(result.fromFloat,
                             names.lookup(op.getYielded()))
     << ";\n  }\n}";
  return text;
}

class FusedElementwisePattern
    : public OpConversionPattern<tg::FusedElementwiseOp> {
public:
  FusedElementwisePattern(const TypeConverter &converter,
                          MLIRContext *context, const StepContext &step)
      : OpConversionPattern(converter, context), step(step) {}

  LogicalResult
  matchAndRewrite(tg::FusedElementwiseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    std::string kernel = step.kernelName(op).str();
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(op->getParentOfType<emitc::FuncOp>());
      emitc::VerbatimOp::create(rewriter, op.getLoc(),
                                rewriter.getStringAttr(kernelSource(op, kernel)));
    }
    Value output = step.resultView(rewriter, op.getLoc(), op.getOutput());
    int64_t n = cast<RankedTensorType>(op.getOutput().getType())
                    .getNumElements();
    SmallVector<Value> views(adaptor.getInputs());
    views.push_back(output);
    // The views' data are float pointers; a bf16 / f16 tensor's address is
    // passed as the kernel's pointer type.
    SmallVector<std::string> data;
    for (auto [i, input] : llvm::enumerate(op.getInputs())) {
      StringRef type = DeviceElement::of(input.getType()).cppType;
      data.push_back(type == "float" ? std::string("{}.data")
                                     : ("reinterpret_cast<const " + type +
                                        " *>({}.data)")
                                           .str());
    }
    StringRef resultType = DeviceElement::of(op.getOutput().getType()).cppType;
    data.push_back(resultType == "float"
                       ? std::string("{}.data")
                       : ("reinterpret_cast<" + resultType + " *>({}.data)")
                             .str());
    std::string launch =
        kernel + "<<<memopt::rt::cuda::launchBlocks(" + std::to_string(n) +
        "), memopt::rt::cuda::kLaunchThreads, 0, "
        "memopt::rt::cuda::stream()>>>(" +
        llvm::join(data, ", ") + ", " + std::to_string(n) + ");";
    emitc::VerbatimOp::create(rewriter, op.getLoc(),
                              rewriter.getStringAttr(launch), views);
    KernelCall(op.getContext(), "cuda::checkLaunch")
        .text(cppString(kernel))
        .emit(rewriter, op.getLoc());
    rewriter.replaceOp(op, output);
    return success();
  }

private:
  const StepContext &step;
};

} // namespace

void memopt::codegen::populateFusedElementwisePatterns(
    const TypeConverter &converter, RewritePatternSet &patterns,
    const StepContext &step) {
  patterns.add<FusedElementwisePattern>(converter, patterns.getContext(),
                                        step);
}

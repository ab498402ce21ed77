//===- AmpPolicy.cpp - The precision table of tg-amp ----------------------===//
//
// The defaults follow PyTorch's autocast: the ops that tensor cores and
// oneDNN's bf16 kernels speed up run low with fp32 accumulation; ops whose
// range or sums need fp32 (exp, log, sigmoid, softmax, reductions, losses)
// take fp32; everything else keeps its input's type, so that the
// activations between two convolutions are stored low, which is where
// mixed precision saves its memory.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/AmpPolicy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace memopt;

namespace {

struct Entry {
  llvm::StringLiteral name;
  AmpPrecision precision;
};

constexpr AmpPrecision kLow = AmpPrecision::low;
constexpr AmpPrecision kFp32 = AmpPrecision::fp32;
constexpr AmpPrecision kFollow = AmpPrecision::follow;

// Every forward op of the tg dialect (TGOps.td) and the loss ops a
// loss=graph forward function may hold. tg.constant and tg.cast are not
// here: tg-amp converts constants itself and keeps given casts.
constexpr Entry kDefaultTable[] = {
    // Low precision, fp32 accumulation.
    {"tg.conv", kLow},
    {"tg.conv_transpose", kLow},
    {"tg.matmul", kLow},
    {"tg.gemm", kLow},
    // fp32: range (exp, log and what is built on them), sums, losses.
    {"tg.sigmoid", kFp32},
    {"tg.exp", kFp32},
    {"tg.log", kFp32},
    {"tg.softplus", kFp32},
    {"tg.softmax", kFp32},
    {"tg.log_softmax", kFp32},
    {"tg.reduce_sum", kFp32},
    {"tg.reduce_mean", kFp32},
    {"tg.global_avg_pool", kFp32},
    // Random numbers stay f32: a mask compares them with a probability.
    {"tg.random_uniform", kFp32},
    // Given statistics: autodiff differentiates it with per-channel
    // operands of the input's type, and the statistics stay fp32.
    {"tg.batch_norm_inference", kFp32},
    {"tg.mse_loss", kFp32},
    {"tg.l1_loss", kFp32},
    {"tg.bce_loss", kFp32},
    {"tg.cross_entropy_loss", kFp32},
    {"tg.dice_loss", kFp32},
    // The input's type (statistics and accumulation inside in fp32).
    {"tg.batch_norm", kFollow},
    {"tg.instance_norm", kFollow},
    {"tg.relu", kFollow},
    {"tg.tanh", kFollow},
    {"tg.neg", kFollow},
    {"tg.sqrt", kFollow},
    {"tg.abs", kFollow},
    {"tg.leaky_relu", kFollow},
    {"tg.clip", kFollow},
    {"tg.hard_sigmoid", kFollow},
    {"tg.hard_swish", kFollow},
    {"tg.elu", kFollow},
    {"tg.erf", kFollow},
    {"tg.prelu", kFollow},
    {"tg.add", kFollow},
    {"tg.sub", kFollow},
    {"tg.mul", kFollow},
    {"tg.div", kFollow},
    {"tg.compare", kFollow},
    {"tg.floor", kFollow},
    {"tg.select", kFollow},
    {"tg.dropout", kFollow},
    {"tg.max_pool", kFollow},
    {"tg.avg_pool", kFollow},
    {"tg.resize", kFollow},
    {"tg.concat", kFollow},
    {"tg.slice", kFollow},
    {"tg.pad", kFollow},
    {"tg.gather", kFollow},
    {"tg.reshape", kFollow},
    {"tg.transpose", kFollow},
    {"tg.broadcast", kFollow},
};

/// "conv" and "tg.conv" both name tg.conv.
std::string qualified(llvm::StringRef name) {
  name = name.trim();
  return name.starts_with("tg.") ? name.str() : ("tg." + name).str();
}

} // namespace

llvm::Expected<AmpPolicy>
AmpPolicy::build(llvm::ArrayRef<std::string> fp32Ops,
                 llvm::ArrayRef<std::string> lowOps) {
  AmpPolicy policy;
  for (const Entry &entry : kDefaultTable)
    policy.table[entry.name] = entry.precision;
  llvm::StringSet<> given;
  auto apply = [&](llvm::ArrayRef<std::string> names, llvm::StringRef list,
                   AmpPrecision precision) -> llvm::Error {
    for (const std::string &raw : names) {
      std::string name = qualified(raw);
      auto it = policy.table.find(name);
      if (it == policy.table.end())
        return llvm::createStringError(
            "'" + raw + "' in " + list +
            " is not a forward tg op of the mixed-precision table (names "
            "such as tg.conv or conv; docs/passes/amp.md lists them)");
      if (!given.insert(name).second)
        return llvm::createStringError(
            "'" + name + "' is given twice (in fp32-ops and low-ops, or "
            "twice in one list); name each op once");
      it->second = precision;
    }
    return llvm::Error::success();
  };
  if (llvm::Error error = apply(fp32Ops, "fp32-ops", AmpPrecision::fp32))
    return std::move(error);
  if (llvm::Error error = apply(lowOps, "low-ops", AmpPrecision::low))
    return std::move(error);
  return policy;
}

std::optional<AmpPrecision> AmpPolicy::lookup(llvm::StringRef opName) const {
  auto it = table.find(opName);
  if (it == table.end())
    return std::nullopt;
  return it->second;
}

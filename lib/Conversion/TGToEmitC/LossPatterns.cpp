//===- LossPatterns.cpp - Losses and their gradients ----------------------===//

#include "StepCodegen.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

using namespace mlir;
using namespace memopt;
using namespace memopt::codegen;

void memopt::codegen::populateLossPatterns(const TypeConverter &converter,
                                           RewritePatternSet &patterns,
                                           const StepContext &step) {
  addPlainKernelPatterns<tg::MSELossOp, tg::L1LossOp, tg::BCELossOp,
                         tg::MSELossBackwardOp, tg::L1LossBackwardOp,
                         tg::BCELossBackwardOp>(
      converter, patterns, step,
      {"mseLoss", "l1Loss", "bceLoss", "mseLossBackward", "l1LossBackward",
       "bceLossBackward"});
}

//===- Passes.h - Conversions out of the tg dialect -------------*- C++ -*-===//

#ifndef MEMOPT_CONVERSION_PASSES_H
#define MEMOPT_CONVERSION_PASSES_H

#include "memopt/Conversion/TGToEmitC/TGToEmitC.h"
#include "memopt/Conversion/TGToMBuf/TGToMBuf.h"

namespace memopt {

#define GEN_PASS_REGISTRATION
#include "memopt/Conversion/Passes.h.inc"

} // namespace memopt

#endif // MEMOPT_CONVERSION_PASSES_H

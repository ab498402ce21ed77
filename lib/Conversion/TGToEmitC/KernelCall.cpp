//===- KernelCall.cpp - One emitc.call_opaque per kernel call -------------===//

#include "StepCodegen.h"

#include "llvm/ADT/StringExtras.h"

#include <array>
#include <charconv>
#include <cmath>

using namespace mlir;
using namespace memopt::codegen;

Type memopt::codegen::tensorViewType(MLIRContext *context) {
  return emitc::OpaqueType::get(context, "memopt::rt::Tensor");
}

std::string memopt::codegen::cppList(ArrayRef<int64_t> values) {
  return "{" +
         llvm::join(llvm::map_range(values,
                                    [](int64_t v) { return std::to_string(v); }),
                    ", ") +
         "}";
}

std::string memopt::codegen::cppDouble(double value) {
  if (std::isnan(value))
    return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(value))
    return value < 0 ? "-std::numeric_limits<double>::infinity()"
                     : "std::numeric_limits<double>::infinity()";
  std::array<char, 64> buffer;
  auto [end, error] = std::to_chars(buffer.begin(), buffer.end(), value);
  std::string text(buffer.begin(), end);
  if (text.find_first_of(".e") == std::string::npos)
    text += ".0";
  return text;
}

std::string memopt::codegen::cppString(StringRef text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out.push_back('\\');
    if (llvm::isPrint(c)) {
      out.push_back(c);
    } else {
      out += "\\x";
      out += llvm::hexdigit((c >> 4) & 0xf, /*LowerCase=*/true);
      out += llvm::hexdigit(c & 0xf, /*LowerCase=*/true);
      out += "\"\""; // end the hex escape
    }
  }
  return out + "\"";
}

KernelCall::KernelCall(MLIRContext *context, StringRef kernel)
    : context(context), callee(("memopt::rt::" + kernel).str()) {}

KernelCall &KernelCall::operand(Value value) {
  args.push_back(IntegerAttr::get(IndexType::get(context), values.size()));
  values.push_back(value);
  return *this;
}

KernelCall &KernelCall::optional(Value value) {
  return value ? operand(value) : text("{}");
}

KernelCall &KernelCall::operands(ValueRange range) {
  for (Value value : range)
    operand(value);
  return *this;
}

KernelCall &KernelCall::text(StringRef cpp) {
  args.push_back(emitc::OpaqueAttr::get(context, cpp));
  return *this;
}

KernelCall &KernelCall::list(ArrayRef<int64_t> values) {
  return text(cppList(values));
}

KernelCall &KernelCall::integer(int64_t value) {
  return text(std::to_string(value));
}

KernelCall &KernelCall::real(double value) { return text(cppDouble(value)); }

KernelCall &KernelCall::real(const llvm::APFloat &value) {
  return real(value.convertToDouble());
}

KernelCall &KernelCall::boolean(bool value) {
  return text(value ? "true" : "false");
}

KernelCall &KernelCall::traced(StringRef name, StringRef kind) {
  traceName = name.str();
  traceKind = kind.str();
  return *this;
}

void KernelCall::emit(OpBuilder &builder, Location loc) {
  emitc::CallOpaqueOp::create(builder, loc, TypeRange(), callee, values,
                              builder.getArrayAttr(args), ArrayAttr());
  if (traceName.empty())
    return;
  Attribute traceArgs[] = {
      emitc::OpaqueAttr::get(context, cppString(traceName)),
      emitc::OpaqueAttr::get(context, cppString(traceKind))};
  emitc::CallOpaqueOp::create(builder, loc, TypeRange(),
                              "memopt::rt::traceKernel", ValueRange(),
                              builder.getArrayAttr(traceArgs), ArrayAttr());
}

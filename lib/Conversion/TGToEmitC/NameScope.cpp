//===- NameScope.cpp - C++ identifiers of the generated code --------------===//

#include "NameScope.h"

#include "memopt/Conversion/TGToEmitC/TGToEmitC.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <cassert>

using namespace llvm;
using namespace memopt::codegen;

namespace {

/// What a name must never spell at any scope: C++ (and CUDA) keywords and
/// alternative tokens, the names of the standard library and the runtime
/// that the generated code spells unqualified (types, namespaces), the
/// lower-case macros of the C library and CUDA's built-in variables.
const char *const kReservedNames[] = {
    // Keywords and alternative tokens (C++20).
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
    "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
    "char32_t", "class", "compl", "concept", "const", "consteval",
    "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false",
    "float", "for", "friend", "goto", "if", "inline", "int", "long",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr",
    "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "return", "short", "signed", "sizeof",
    "static", "static_assert", "static_cast", "struct", "switch", "template",
    "this", "thread_local", "throw", "true", "try", "typedef", "typeid",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "while", "xor", "xor_eq", "final", "override", "import",
    "module",
    // Names the generated code spells unqualified.
    "memopt", "std", "main", "int64_t", "uint64_t", "size_t", "int32_t",
    "uint32_t", "int8_t", "uint8_t", "int16_t", "uint16_t", "ptrdiff_t",
    "intptr_t", "uintptr_t", "nullptr_t", "half", "dim3", "cudaStream_t",
    // Lower-case macros of the C library and GNU extensions.
    "assert", "errno", "stdin", "stdout", "stderr", "offsetof", "setjmp",
    "va_arg", "va_start", "va_end", "va_copy", "alloca", "major", "minor",
    "makedev", "unix", "linux", "i386", "environ", "signbit", "isnan",
    "isinf", "isfinite", "fpclassify", "isnormal",
    // CUDA built-in variables.
    "blockIdx", "blockDim", "threadIdx", "gridDim", "warpSize"};

/// Names of the forms the C++ emitter gives unnamed values (`v1`) and the
/// generated CUDA kernels give their locals (`in0`, `x0`, `v0`).
bool isEmitterName(StringRef name) {
  for (StringRef prefix : {"v", "x", "in"})
    if (name.size() > prefix.size() && name.starts_with(prefix) &&
        all_of(name.drop_front(prefix.size()), isDigit))
      return true;
  return false;
}

} // namespace

std::string memopt::codegen::sanitizeName(StringRef text) {
  std::string out;
  for (char c : text) {
    if (out.size() >= kMaxNameLength)
      break;
    if (isAlnum(c))
      out.push_back(c);
    else if (!out.empty() && out.back() != '_')
      out.push_back('_');
  }
  while (!out.empty() && out.back() == '_')
    out.pop_back();
  return out;
}

NameScope::NameScope() {
  for (const char *name : kReservedNames)
    used.insert(name);
  static_assert(sizeof(kReservedNames) > 0, "no reserved names");
}

NameScope::NameScope(NameScope &parent) : parent(&parent) {
  parent.children.push_back(this);
}

NameScope::~NameScope() {
  if (parent)
    erase(parent->children, this);
}

bool NameScope::usedBelow(StringRef name) const {
  return any_of(children, [&](const NameScope *child) {
    return child->used.contains(name) || child->usedBelow(name);
  });
}

bool NameScope::isFree(StringRef name) const {
  if (isEmitterName(name) || usedBelow(name))
    return false;
  for (const NameScope *scope = this; scope; scope = scope->parent)
    if (scope->used.contains(name))
      return false;
  return true;
}

std::string NameScope::unique(StringRef hint) {
  std::string name = sanitizeName(hint);
  // `t_` keeps a name from starting with a digit and from spelling a macro
  // (by convention all upper case: NULL, EOF, INFINITY).
  if (name.empty() || isDigit(name.front()) ||
      none_of(name, [](char c) { return isLower(c); }))
    name = "t_" + name;
  while (!name.empty() && name.back() == '_')
    name.pop_back();
  if (isFree(name)) {
    used.insert(name);
    return name;
  }
  // The smallest free suffix. Those below `next` are taken in this scope,
  // which frees no name: a name asked for again and again (once per
  // microbatch) costs a probe or two, not one per earlier copy.
  unsigned &next = nextSuffix.try_emplace(name, 2).first->second;
  for (unsigned i = next;; ++i) {
    std::string candidate = name + "_" + std::to_string(i);
    bool free = !used.contains(candidate) && isFree(candidate);
    if (free)
      used.insert(candidate);
    if (i == next && used.contains(candidate))
      ++next;
    if (free)
      return candidate;
  }
}

void NameScope::reserve(StringRef name) {
  assert(isFree(name) && "a fixed name of the generated code is taken");
  used.insert(name);
}

//===- NameScope.h - C++ identifiers of the generated code ------*- C++ -*-===//
//
// Every identifier the generated code defines comes from a NameScope: one
// for the file and one per function. A name handed out (or reserved) in a
// scope differs from every name of that scope, of its enclosing scopes and
// of the scopes nested in it, so that no definition clashes with another
// and no local hides a parameter, a global or a runtime name, whatever the
// ONNX model calls its nodes and tensors.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_CONVERSION_TGTOEMITC_NAMESCOPE_H
#define MEMOPT_LIB_CONVERSION_TGTOEMITC_NAMESCOPE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace memopt::codegen {

/// `text` as a readable C++ identifier stem: ASCII letters and digits kept,
/// every run of other characters (non-ASCII bytes included) one `_`, at
/// most kMaxNameLength characters. May return "".
std::string sanitizeName(llvm::StringRef text);

/// The longest name a hint becomes before the collision suffix.
constexpr size_t kMaxNameLength = 96;

class NameScope {
public:
  /// A file scope, with the C++ keywords, the standard names and macros a
  /// name could spell, and the runtime's namespace reserved.
  NameScope();
  /// A scope nested in `parent` (which must outlive it).
  explicit NameScope(NameScope &parent);
  ~NameScope();
  NameScope(const NameScope &) = delete;
  NameScope &operator=(const NameScope &) = delete;

  /// A new identifier from `hint` (sanitized; any text): the hint itself
  /// when it is a free, safe identifier, else the hint with `t_` in front
  /// (empty, starting with a digit, or spelled like a macro: no lower-case
  /// letter) and/or a `_2`, `_3`, ... suffix.
  std::string unique(llvm::StringRef hint);
  /// Claims `name`, an identifier the generated code spells itself
  /// (`args`, `train_step`). Asserts that it is still free.
  void reserve(llvm::StringRef name);

private:
  bool isFree(llvm::StringRef name) const;
  bool usedBelow(llvm::StringRef name) const;

  NameScope *parent = nullptr;
  llvm::SmallVector<NameScope *> children;
  llvm::StringSet<> used;
  /// Per name unique() was asked for, the suffix to try first.
  llvm::StringMap<unsigned> nextSuffix;
};

} // namespace memopt::codegen

#endif // MEMOPT_LIB_CONVERSION_TGTOEMITC_NAMESCOPE_H

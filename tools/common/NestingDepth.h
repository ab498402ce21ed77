//===- NestingDepth.h - Refuse MLIR text nested beyond a limit --*- C++ -*-===//
//
// MLIR's parser recurses once per nested region, attribute, type or
// parenthesis: memopt-opt crashed with a stack overflow on 3000 nested
// regions (on an 8 MiB stack; 8000 nested arrays or parentheses, 50000
// nested types). A scan of the text before parsing turns such input into an
// error, without patching MLIR. The limit is far above anything a model
// produces (a U-Net's IR nests below 10) and far below what overflows.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_COMMON_NESTINGDEPTH_H
#define MEMOPT_TOOLS_COMMON_NESTINGDEPTH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>

namespace memopt::tools {

/// Brackets ((, [, {, and < after a name) open at once, at most.
inline constexpr int kMaxNestingDepth = 1000;

/// Whether `text` nests brackets at most kMaxNestingDepth deep (string
/// literals and // comments skipped); otherwise prints an error naming
/// `fileName`, the line and column, and returns false.
inline bool checkNestingDepth(llvm::StringRef text, llvm::StringRef fileName,
                              llvm::StringRef toolName) {
  int depth = 0, angles = 0, line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    char previous = i ? text[i - 1] : '\0';
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && previous == '/') {
      while (i + 1 < text.size() && text[i + 1] != '\n')
        ++i;
    } else if (c == '(' || c == '[' || c == '{' ||
               (c == '<' && (std::isalnum(static_cast<unsigned char>(previous)) ||
                             previous == '_' || previous == '.'))) {
      angles += c == '<';
      if (++depth > kMaxNestingDepth) {
        llvm::errs() << fileName << ":" << line << ":" << (i - lineStart + 1)
                     << ": error: the input nests more than "
                     << kMaxNestingDepth
                     << " levels of regions, attributes, types or "
                        "parentheses deep; "
                     << toolName
                     << " refuses it rather than overflow the parser's "
                        "stack\n";
        return false;
      }
    } else if (c == ')' || c == ']' || c == '}' ||
               (c == '>' && angles > 0 && previous != '-')) {
      angles -= c == '>';
      depth -= depth > 0;
    }
  }
  return true;
}

} // namespace memopt::tools

#endif // MEMOPT_TOOLS_COMMON_NESTINGDEPTH_H

//===- ParserInput.h - Refuse MLIR text that crashes MLIR's parser -*- C++ -*-===//
//
// A scan of the text before MLIR parses it, for input that MLIR 22's parser
// crashes on instead of rejecting (docs/known-upstream-issues.md):
//
// - Nesting. The parser recurses once per nested region, attribute, type or
//   parenthesis: memopt-opt crashed with a stack overflow on 3000 nested
//   regions (on an 8 MiB stack; 8000 nested arrays or parentheses, 50000
//   nested types). The limit is far above anything a model produces (a
//   U-Net's IR nests below 10) and far below what overflows.
// - `array<index: ...>`. The dense array parser accepts `index` elements and
//   then asks for their bit width, which `index` has none of: a SIGSEGV in a
//   release build (llvm/llvm-project#179045). The element type spelt
//   through a type alias is beyond a text scan; CrashBoundary.h turns that
//   crash into an error.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_COMMON_PARSERINPUT_H
#define MEMOPT_TOOLS_COMMON_PARSERINPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>

namespace memopt::tools {

/// Brackets ((, [, {, and < after a name) open at once, at most.
inline constexpr int kMaxNestingDepth = 1000;

namespace detail {

inline bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         c == '$';
}

/// Whether `text[at]` starts the keyword `word`, not a longer identifier.
inline bool startsKeyword(llvm::StringRef text, size_t at,
                          llvm::StringRef word) {
  return text.substr(at).starts_with(word) &&
         (at + word.size() == text.size() ||
          !isIdentifierChar(text[at + word.size()]));
}

/// Whether the `<` at `text[at]` opens `array<index...`.
inline bool opensIndexDenseArray(llvm::StringRef text, size_t at) {
  size_t nameBegin = at;
  while (nameBegin > 0 && isIdentifierChar(text[nameBegin - 1]))
    --nameBegin;
  if (text.slice(nameBegin, at) != "array")
    return false;
  size_t type = text.find_first_not_of(" \t\r\n", at + 1);
  return type != llvm::StringRef::npos && startsKeyword(text, type, "index");
}

} // namespace detail

/// Whether MLIR's parser may be given `text`: it nests brackets at most
/// kMaxNestingDepth deep and has no `array<index ...>` (string literals and
/// // comments skipped). Otherwise prints an error naming `fileName`, the
/// line and column, and returns false.
inline bool checkParserInput(llvm::StringRef text, llvm::StringRef fileName,
                             llvm::StringRef toolName) {
  int depth = 0, angles = 0, line = 1;
  size_t lineStart = 0;
  auto error = [&](size_t at) -> llvm::raw_ostream & {
    return llvm::errs() << fileName << ":" << line << ":"
                        << (at - lineStart + 1) << ": error: ";
  };
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
               (c == '<' && detail::isIdentifierChar(previous))) {
      if (c == '<' && detail::opensIndexDenseArray(text, i)) {
        error(i) << "a dense array of 'index' elements crashes MLIR 22's "
                    "parser (llvm/llvm-project#179045); "
                 << toolName << " refuses it: use array<i64: ...>\n";
        return false;
      }
      angles += c == '<';
      if (++depth > kMaxNestingDepth) {
        error(i) << "the input nests more than " << kMaxNestingDepth
                 << " levels of regions, attributes, types or parentheses "
                    "deep; "
                 << toolName
                 << " refuses it rather than overflow the parser's stack\n";
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

#endif // MEMOPT_TOOLS_COMMON_PARSERINPUT_H

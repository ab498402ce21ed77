//===- RematMilp.cpp - A mixed-integer linear program solved by CBC -------===//
//
// RematMilp.h. CBC's C interface (Cbc_C_Interface.h): its C++ headers throw
// (CoinError) and memopt builds without exceptions.
//
// Cbc_solve runs CBC's command-line driver (CbcMain1) on the model, and
// that driver keeps its read position in process-wide globals: two solves
// at once (tg-remat runs on each pipeline stage in its own thread) step on
// each other's arguments, and one of them runs out of arguments before its
// `-solve` and switches to reading commands from stdin, where it blocks.
// Every solve therefore holds one process-wide lock, and the driver's
// command stream is pointed at a stream that says `quit`, so that whatever
// state it ends up in, it never reads the user's terminal or pipe.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/RematMilp.h"

#include <Cbc_C_Interface.h>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <vector>

// CbcSolver's command reader (CbcOrClpParam.cpp): the stream it falls back
// to once the arguments are used up (stdin by default), and the index of
// the next argument (1: read the arguments from the start).
extern FILE *CbcOrClpReadCommand;
extern int CbcOrClpRead_mode;

using namespace memopt::remat;

namespace {

/// Holds CBC for one solve: the process-wide lock, and the command reader
/// set to read from the arguments first and from a stream that says `quit`
/// after them (restored when the solve ends).
class CbcSession {
public:
  CbcSession() : lock(mutex()), stream(fmemopen(quit, sizeof(quit) - 1, "r")) {
    saved = CbcOrClpReadCommand;
    if (stream)
      CbcOrClpReadCommand = stream;
    CbcOrClpRead_mode = 1;
  }
  ~CbcSession() {
    CbcOrClpReadCommand = saved;
    if (stream)
      std::fclose(stream);
  }
  CbcSession(const CbcSession &) = delete;
  CbcSession &operator=(const CbcSession &) = delete;

  /// False when no `quit` stream could be made: CBC must not run then.
  bool ready() const { return stream != nullptr; }

private:
  static std::mutex &mutex() {
    static std::mutex instance;
    return instance;
  }
  static inline char quit[] = "quit\n";
  std::lock_guard<std::mutex> lock;
  FILE *stream;
  FILE *saved = nullptr;
};

} // namespace

unsigned Milp::addColumn(double lo, double hi, double c, bool isInteger) {
  lower.push_back(lo);
  upper.push_back(hi);
  cost.push_back(c);
  integer.push_back(isInteger);
  return lower.size() - 1;
}

void Milp::addRow(llvm::ArrayRef<std::pair<unsigned, double>> terms,
                  Sense sense, double bound) {
  rowStarts.push_back(rowColumns.size());
  for (auto [column, coefficient] : terms) {
    rowColumns.push_back(static_cast<int>(column));
    rowCoefficients.push_back(coefficient);
  }
  rowBounds.push_back(bound);
  rowSenses.push_back(static_cast<char>(sense));
}

Milp::Result Milp::solve(double seconds) const {
  // Column-wise (compressed sparse columns) in one call: adding rows one
  // at a time copies the matrix each time.
  unsigned n = lower.size(), m = rowStarts.size();
  std::vector<CoinBigIndex> starts(n + 1, 0);
  for (int column : rowColumns)
    ++starts[column + 1];
  for (unsigned column = 0; column < n; ++column)
    starts[column + 1] += starts[column];
  std::vector<int> rowsOf(rowColumns.size());
  std::vector<double> valuesOf(rowColumns.size());
  std::vector<CoinBigIndex> next(starts.begin(), starts.end() - 1);
  std::vector<double> rowLower(m), rowUpper(m);
  for (unsigned row = 0; row < m; ++row) {
    unsigned end = row + 1 < m ? rowStarts[row + 1] : rowColumns.size();
    for (unsigned k = rowStarts[row]; k < end; ++k) {
      CoinBigIndex at = next[rowColumns[k]]++;
      rowsOf[at] = static_cast<int>(row);
      valuesOf[at] = rowCoefficients[k];
    }
    constexpr double kInfinity = 1e30;
    rowLower[row] = rowSenses[row] == 'L' ? -kInfinity : rowBounds[row];
    rowUpper[row] = rowSenses[row] == 'G' ? kInfinity : rowBounds[row];
  }
  CbcSession session;
  if (!session.ready())
    return Result();
  auto began = std::chrono::steady_clock::now();
  Cbc_Model *model = Cbc_newModel();
  Cbc_loadProblem(model, static_cast<int>(n), static_cast<int>(m),
                  starts.data(), rowsOf.data(), valuesOf.data(), lower.data(),
                  upper.data(), cost.data(), rowLower.data(), rowUpper.data());
  for (unsigned column = 0; column < n; ++column)
    if (integer[column])
      Cbc_setInteger(model, static_cast<int>(column));
  if (!start.empty()) {
    std::vector<int> indices(start.size());
    for (unsigned column = 0; column < start.size(); ++column)
      indices[column] = static_cast<int>(column);
    Cbc_setMIPStartI(model, static_cast<int>(start.size()), indices.data(),
                     start.data());
    // CBC's preprocessing with a MIP start was seen to crash in
    // CglPreProcess::postProcess when it maps the solution back; without
    // preprocessing the start is used as given.
    Cbc_setParameter(model, "preprocess", "off");
  }
  Cbc_setMaximumSeconds(model, seconds);
  Cbc_setLogLevel(model, 0);
  // One thread: the result must not depend on the machine's load; and a
  // proven gap of 0 (CBC stops at 1e-4 relative by default).
  Cbc_setParameter(model, "threads", "0");
  Cbc_setAllowableFractionGap(model, 0);
  Cbc_setAllowableGap(model, 0);
  Cbc_solve(model);

  Result result;
  const double *best = Cbc_bestSolution(model);
  if (best) {
    result.values.assign(best, best + lower.size());
    result.objective = Cbc_getObjValue(model);
    result.bound = Cbc_getBestPossibleObjValue(model);
    result.status =
        Cbc_isProvenOptimal(model) ? Status::Optimal : Status::Feasible;
    if (result.status == Status::Optimal)
      result.bound = result.objective;
  } else {
    result.status = Cbc_isProvenInfeasible(model) ? Status::Infeasible
                                                  : Status::NoSolution;
  }
  Cbc_deleteModel(model);
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - began)
                       .count();
  return result;
}

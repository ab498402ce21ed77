//===- RematMilp.h - A mixed-integer linear program solved by CBC -*- C++ -*-===//
//
// Part of the planning library, for the `optimal` planner (RematOptimal.cpp):
// the columns
// and rows of a minimization, handed to COIN-OR CBC (through its C
// interface, so that the library builds without C++ exceptions) with a
// time limit. Only RematMilp.cpp includes CBC.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PLANNING_REMATMILP_H
#define MEMOPT_PLANNING_REMATMILP_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>
#include <vector>

namespace memopt::remat {

class Milp {
public:
  /// A column in [lower, upper], `cost` per unit in the objective.
  unsigned addColumn(double lower, double upper, double cost, bool integer);
  enum class Sense : char { AtLeast = 'G', AtMost = 'L', Equal = 'E' };
  /// sum(coefficient * column) `sense` bound.
  void addRow(llvm::ArrayRef<std::pair<unsigned, double>> terms, Sense sense,
              double bound);

  /// A feasible solution for CBC to start from (one value per column).
  void setStart(std::vector<double> values) { start = std::move(values); }

  unsigned columns() const { return lower.size(); }
  unsigned rows() const { return rowStarts.size(); }

  enum class Status { Optimal, Feasible, Infeasible, NoSolution };
  struct Result {
    Status status = Status::NoSolution;
    /// The best solution's column values (Optimal, Feasible).
    std::vector<double> values;
    /// Its objective, and the best bound CBC proved (= objective when
    /// Optimal).
    double objective = 0, bound = 0;
    /// The wall time CBC took, without the wait for another thread's
    /// solve (solves run one at a time in a process: RematMilp.cpp).
    double seconds = 0;
  };
  /// Minimizes within `seconds` of wall time (CBC's `sec`).
  Result solve(double seconds) const;

private:
  llvm::SmallVector<double> lower, upper, cost;
  llvm::SmallVector<bool> integer;
  llvm::SmallVector<unsigned> rowStarts;
  llvm::SmallVector<int> rowColumns;
  llvm::SmallVector<double> rowCoefficients, rowBounds;
  llvm::SmallVector<char> rowSenses;
  std::vector<double> start;
};

} // namespace memopt::remat

#endif // MEMOPT_PLANNING_REMATMILP_H

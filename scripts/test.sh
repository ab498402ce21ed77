#!/usr/bin/env bash
# The test command: installs dependencies, builds, runs `check-memopt` (lit
# regression tests and the GoogleTest unit tests) and ends with one line
#   N passed, N failed, N skipped
# Exits non-zero when anything fails.
#   BUILD_DIR   build directory (default: build, relative to the repo root)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR

bash scripts/install-deps.sh

# A build that does not finish runs no test: report it as one failure.
if ! bash scripts/build.sh; then
  echo "build failed"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
LIT_OPTS=-sv ninja -C "$BUILD_DIR" check-memopt 2>&1 | tee "$log" || status=$?

# lit's summary has lines such as "  Passed: 19 (100.00%)".
read -r passed failed skipped < <(awk '
  /^ *[A-Za-z ]+: +[0-9]+ \([0-9.]+%\)$/ {
    split($0, kv, ":"); name = kv[1]; gsub(/^ +| +$/, "", name)
    n = $0; sub(/^[^:]*: +/, "", n); sub(/ .*/, "", n)
    if (name == "Passed" || name == "Expectedly Failed") p += n
    else if (name == "Failed" || name == "Unexpectedly Passed" ||
             name == "Unresolved" || name == "Timed Out") f += n
    else if (name == "Unsupported" || name == "Skipped") s += n
  }
  END { print p + 0, f + 0, s + 0 }' "$log")

# check-memopt can also fail before lit reports (a compile error).
if [[ $status -ne 0 && $failed -eq 0 ]]; then
  failed=1
fi
echo "$passed passed, $failed failed, $skipped skipped"
[[ $status -eq 0 && $failed -eq 0 ]]

#!/usr/bin/env bash
# Install what is missing, build with warnings as errors, run every test.
#   test.sh [PRESET]   release (g++, default), clang, debug, tsan (clang), tsan-gcc, asan (g++ ASan+UBSan), asan-clang
# Extra CTest arguments can be given after the preset, e.g. `test.sh release -L budget`.
# The release preset, given no CTest arguments, then builds and tests the
# benchmark lab against the installed build (scripts/bench.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
bash scripts/install-deps.sh
# LANES_BUILD_TESTS is set explicitly: the demo script turns it off in the shared cache.
cmake --preset "$preset" -DLANES_WERROR=ON -DLANES_BUILD_TESTS=ON >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset" -j "$(nproc)" "$@"
if [ "$preset" = release ] && [ $# -eq 0 ]; then
  bash scripts/bench.sh
fi

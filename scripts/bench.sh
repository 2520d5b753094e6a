#!/usr/bin/env bash
# The benchmark lab (bench/, its own CMake project): installs lanes - the
# library, its headers and the `lanes` command - from the release build
# into build/stage, builds the lab against that install as any consumer
# would, installs `lanes-bench` and the Rust peers next to `lanes`, and
# runs the lab's tests (every scenario in its quick form).
#   bench.sh               build, install, test
#   bench.sh --build-only  build and install only
#   bench.sh ARGS...       build, install, then run `lanes bench ARGS...`
#                          (e.g. `bench.sh s3`, `bench.sh list`)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
stage=$root/build/stage
bash scripts/install-deps.sh
cmake --preset release -DLANES_WERROR=ON >/dev/null
cmake --build --preset release --target lanes lanes_tool lanes_echo
cmake --install build/release --prefix "$stage" >/dev/null
cmake -S bench -B build/bench -G Ninja -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" -DLANES_WERROR=ON \
  -DCMAKE_PREFIX_PATH="$stage" -DCMAKE_INSTALL_PREFIX="$stage" -DLANES_STAGED_TOOL="$stage/bin/lanes" >/dev/null
cmake --build build/bench
cmake --install build/bench >/dev/null
[ "${1:-}" = --build-only ] && exit 0
if [ $# -gt 0 ]; then
  exec "$stage/bin/lanes" bench "$@"
fi
ctest --test-dir build/bench --output-on-failure -j "$(nproc)"

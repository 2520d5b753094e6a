#!/usr/bin/env bash
# The main job: install what is missing, build the `lanes` command, run it.
# Arguments go to the command (default: demo).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release -DLANES_BUILD_TESTS=OFF >/dev/null
cmake --build --preset release --target lanes_tool
[ $# -gt 0 ] || set -- demo
exec ./build/release/tools/lanes/lanes "$@"

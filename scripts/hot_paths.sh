#!/usr/bin/env bash
# Instruction counts of the io lane's hot paths (bench/hot_path.cpp) under
# callgrind: each path run N and 2N times, the difference divided by N.
# Builds the lab first (scripts/bench.sh's build, without its tests).
#   hot_paths.sh [N]    N defaults to 100000 (20000 for all but spawn)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || {
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && $sudo apt-get install -y -qq valgrind >/dev/null
}
bash scripts/bench.sh --build-only
program=build/bench/lanes-hot-path
instructions() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$program" "$1" "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
for kind in spawn first offload sleep; do
  n=${1:-100000}
  [ "$kind" = spawn ] || n=$((n / 5))
  a=$(instructions "$kind" "$n")
  b=$(instructions "$kind" $((2 * n)))
  echo "$kind: $(((b - a) / n)) instructions per operation (N = $n)"
done

#!/usr/bin/env bash
# Installs the Debian 12 packages lanes builds and tests with, skipping
# apt entirely when everything is already there.
#   install-deps.sh            what the library, the tool (with its peers oneTBB,
#                              OpenMP, Asio, boost::lockfree, moodycamel's
#                              ReaderWriterQueue, and the crate sources of Tokio
#                              and Rayon, built with cargo where the machine has
#                              it) and the tests need
#   install-deps.sh --bench    also Google Benchmark and moodycamel's ConcurrentQueue
#   install-deps.sh --lint     also clang-format and clang-tidy (scripts/lint.sh)
set -euo pipefail

packages=(cmake ninja-build g++ clang libclang-rt-14-dev libomp-14-dev googletest libcli11-dev liburing-dev libboost-dev libtbb-dev libreaderwriterqueue-dev util-linux librust-tokio-dev librust-rayon-dev)
case "${1:-}" in
  --bench) packages+=(libbenchmark-dev libconcurrentqueue-dev) ;;
  --lint) packages+=(clang-format-14 clang-tidy-14) ;;
esac

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "installing: ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

#!/usr/bin/env bash
# The checks that .clang-format and .clang-tidy describe (CONTRIBUTING.md:
# both are checked in and used). Installs what is missing with apt first.
#   lint.sh          the format check, then clang-tidy over the library: every
#                    file of src/ and the public headers they include (4.5 min
#                    of CPU, 2.5 min on 2 cores; it configures the release
#                    preset for its compile commands)
#   lint.sh format   the format check alone (seconds; CI runs it)
#   lint.sh headers  clang-tidy over the public templates as the tests
#                    instantiate them: src/ alone instantiates few of them
#                    (transform_reduce's moved-from identity was found this
#                    way). Reports findings in include/ and src/ only, not
#                    in the test files (15 min on 2 cores, measured
#                    while other builds shared them)
#   lint.sh fix      rewrites the tracked sources in .clang-format's style
# Either check fails on the first finding: a finding is fixed, or silenced
# where it stands with a NOLINT(check) and the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-all}
bash scripts/install-deps.sh --lint
mapfile -t sources < <(git ls-files '*.cpp' '*.hpp')

case "$mode" in
  fix)
    clang-format-14 -i "${sources[@]}"
    exit 0
    ;;
  format | all | headers) ;;
  *)
    echo "lint.sh: unknown mode '$mode' (all, format, headers, fix)" >&2
    exit 2
    ;;
esac

if [ "$mode" != headers ]; then
  echo "clang-format: ${#sources[@]} files"
  clang-format-14 --dry-run --Werror "${sources[@]}"
  [ "$mode" = format ] && exit 0
fi

cmake --preset release >/dev/null  # compile_commands.json for clang-tidy

if [ "$mode" = headers ]; then
  # The test files in the release build (tests/install/consumer is a
  # project of its own; tests/*/compile_fail/ hold files that must not
  # compile, each checked by a CTest). Their own findings are dropped; a
  # finding in a library file is reported once, however many tests
  # instantiate it.
  mapfile -t tests < <(git ls-files 'tests/*.cpp' | grep -v -e '^tests/install/' -e '/compile_fail/')
  echo "clang-tidy: the library's templates as ${#tests[@]} test files instantiate them, $(nproc) at a time"
  found=$(printf '%s\n' "${tests[@]}" |
    xargs -P "$(nproc)" -I{} clang-tidy-14 -p build/release --quiet {} 2>/dev/null |
    grep -E "^$PWD/(include|src)/[^:]+:[0-9]+:[0-9]+: (warning|error):" | sort -u || true)
  if [ -n "$found" ]; then
    echo "$found"
    exit 1
  fi
  echo "lint headers: clean"
  exit 0
fi
mapfile -t library < <(git ls-files 'src/*.cpp')
echo "clang-tidy: ${#library[@]} files of src/, $(nproc) at a time"
# clang-tidy counts the warnings it suppressed in system headers on stderr:
# that line is dropped, its findings and its exit status are kept.
tidy_one() {
  clang-tidy-14 -p build/release --quiet "$1" 2> >(grep -v ' warnings generated\.$' >&2)
}
export -f tidy_one
printf '%s\n' "${library[@]}" | xargs -P "$(nproc)" -I{} bash -c 'tidy_one "$1"' _ {}
echo "lint: clean"

#!/usr/bin/env bash
# The checks that .clang-format and .clang-tidy describe (STYLE.md: both are
# checked in and used). Installs what is missing with apt first.
#   lint.sh          the format check, then clang-tidy over the library: every
#                    file of src/ and the public headers they include (4.5 min
#                    of CPU, 2.5 min on 2 cores; it configures the release
#                    preset for its compile commands)
#   lint.sh format   the format check alone (seconds; CI runs it)
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
  format | all) ;;
  *)
    echo "lint.sh: unknown mode '$mode' (all, format, fix)" >&2
    exit 2
    ;;
esac

echo "clang-format: ${#sources[@]} files"
clang-format-14 --dry-run --Werror "${sources[@]}"
[ "$mode" = format ] && exit 0

cmake --preset release >/dev/null  # compile_commands.json for clang-tidy
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

#!/usr/bin/env bash
# check_command.sh EXIT REGEX CMD...: runs CMD and passes when it exits with
# EXIT and its combined output matches the extended REGEX. Exits 77 (skip)
# when CMD is a program this machine lacks, or taskset cannot pin (CPU 0 not ours).
set -u
expected_exit=$1 regex=$2
shift 2
command -v "$1" >/dev/null 2>&1 || { echo "skip: $1 not found"; exit 77; }
output=$("$@" 2>&1)
actual_exit=$?
printf '%s\n' "$output"
if [ "$1" = taskset ] && [ "$actual_exit" -ne 0 ] && grep -q "failed to set pid" <<<"$output"; then
  echo "skip: taskset cannot pin to CPU 0 here"; exit 77
fi
if [ "$actual_exit" -ne "$expected_exit" ]; then
  echo "FAIL: exit code $actual_exit, expected $expected_exit"; exit 1
fi
if ! grep -Eq -- "$regex" <<<"$output"; then
  echo "FAIL: output does not match: $regex"; exit 1
fi
echo "ok: exit $actual_exit, output matches"

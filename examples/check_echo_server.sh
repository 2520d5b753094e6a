#!/usr/bin/env bash
# check_echo_server.sh LANES_ECHO SIGNAL BACKEND: lanes-echo keeps its
# contract on io backend BACKEND (epoll, uring, auto) - its first line is
# `listening on 127.0.0.1:PORT`, it echoes, and SIGNAL (TERM or INT) makes
# it close its connections and exit 0.
set -euo pipefail
echo_bin=$1
signal=$2
backend=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$echo_bin" --port 0 --workers 2 --backend "$backend" >"$out" &
server=$!
for _ in $(seq 100); do [ -s "$out" ] && break; sleep 0.05; done
line=$(head -n 1 "$out")
[[ $line =~ ^listening\ on\ 127\.0\.0\.1:([0-9]+)$ ]] || { echo "bad first line: '$line'"; exit 1; }
port=${BASH_REMATCH[1]}
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'hello, lanes\n' >&3
IFS= read -r -t 5 reply <&3 || { echo "no echo"; exit 1; }
[ "$reply" = "hello, lanes" ] || { echo "echoed '$reply'"; exit 1; }
kill "-$signal" "$server"
status=0
wait "$server" || status=$?
[ "$status" -eq 0 ] || { echo "exit status $status after SIG$signal"; exit 1; }
# The server closed the open connection: reading it now ends at once.
if IFS= read -r -t 5 more <&3; then echo "read '$more' after shutdown"; exit 1; fi
echo "echo server contract holds (port $port, SIG$signal, backend $backend)"

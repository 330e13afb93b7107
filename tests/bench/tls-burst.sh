#!/usr/bin/env bash
# The first second of a burst to an HTTPS upstream: 50 clients arriving at once at a proxy that
# has one warm connection to the upstream (what a failover does to the fallback, or traffic after
# a quiet spell). Each new upstream connection costs a TLS handshake on both sides, a full one
# unless it resumes an earlier ticket. Per round, a fresh nginx proxy and a fresh Switchboard each get a
# 2 s warm-up on one connection, then 50 connections for --seconds (default 1); the TLS upstream
# logs every connection, so the script counts the new ones and those that resumed, beside wrk's
# p99 and slowest request.
#
#   tests/bench/tls-burst.sh [--rounds N] [--seconds S]
#
# Runs as root in a private network namespace on build/bench, like tests/bench/run.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
peers="$root/tests/bench/peers"
bench_dir="$root/build/bench"
rounds=3 seconds=1
source "$root/tests/bench/lib/namespace.sh"
bench_read_rounds "tests/bench/tls-burst.sh [--rounds N] [--seconds S]" "$@"
bench_enter_namespace SB_TLS_BURST_INSIDE

ulimit -n 65536 2>/dev/null || ulimit -n 8192
work=$(mktemp -d /tmp/sb-tls-burst.XXXXXX)
sb=""
stop_all() {
  [ -n "$sb" ] && kill "$sb" 2>/dev/null || true
  sb=""
  for pidfile in "$work"/*.pid; do [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true; done
  sleep 0.3
}
trap 'stop_all; rm -rf "$work"' EXIT
"$peers/make-cert.sh" "$work" >/dev/null

# The TLS upstream as the other benchmarks run it, with a log line per request: its connection,
# that connection's request count, and whether its handshake resumed ("r").
start_tls_upstream() {
  sed "s|@WORK@|$work|g" "$peers/tls-upstream-nginx.conf" \
    | sed "s|access_log off;|log_format burst '\$connection \$connection_requests \$ssl_session_reused'; access_log $work/tls.log burst;|" \
    > "$work/tls-upstream-nginx.conf"
  rm -f "$work/tls.log"
  nginx -c "$work/tls-upstream-nginx.conf" -p "$work" -g 'daemon on;' 2>>"$work/nginx.log" || { cat "$work/nginx.log"; exit 1; }
  wait_for https://127.0.0.1:19021/ --cacert "$work/bench-cert.pem"
}

body() { echo "{\"model\":\"$1\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],\"max_tokens\":16}"; }

# One proxy's burst: TARGET URL MODEL. Prints its row.
burst() {
  local target=$1 url=$2 model=$3 out
  WRK_BODY="$(body "$model")" wrk -t1 -c1 -d2s -s "$peers/post.lua" "$url" >/dev/null
  out=$(WRK_BODY="$(body "$model")" wrk -t2 -c50 -d"${seconds}s" --latency -s "$peers/post.lua" "$url")
  sleep 0.5 # the upstream's log is written as requests end
  awk -v target="$target" -v p99="$(echo "$out" | awk '$1=="99%"{print $2}')" -v max="$(echo "$out" | awk '/Latency/{print $4}')" \
    -v rps="$(echo "$out" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p')" \
    '$2 == 1 { opened++; if ($3 == "r") resumed++ }
     END { printf "%-12s | %16d | %7d | %8d | %8s | %8s | %8.0f\n", target, opened, resumed, opened - resumed, p99, max, rps }' \
    "$work/tls.log"
}

echo "A burst of 50 connections through a proxy with one warm connection to a TLS 1.3 upstream:"
echo "the first ${seconds} s, ${rounds} rounds, fresh processes each time, $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg)"
echo
printf '%-12s | %16s | %7s | %8s | %8s | %8s | %8s\n' proxy "new connections" resumed "full" "p99" "slowest" "req/s"
for round in $(seq "$rounds"); do
  start_tls_upstream
  sed "s|@WORK@|$work|g" "$peers/proxy-nginx.conf" > "$work/proxy-nginx.conf"
  nginx -c "$work/proxy-nginx.conf" -p "$work" -g 'daemon on;' 2>>"$work/nginx.log" || { cat "$work/nginx.log"; exit 1; }
  wait_for http://127.0.0.1:19022/
  burst nginx http://127.0.0.1:19022/v1/chat/completions bench-model
  stop_all

  start_tls_upstream
  sed "s|@WORK@|$work|g" "$peers/switchboard-bench.json" > "$work/switchboard-bench.json"
  rm -rf "$work/home" "$work/data" "$work"/switchboard.db*
  HOME="$work/home" XDG_DATA_HOME="$work/data" "$bench_dir/bin/switchboard" --headless --db "$work/switchboard.db" \
    --config "$work/switchboard-bench.json" --log-level warn >"$work/switchboard.log" 2>&1 &
  sb=$!
  wait_for http://127.0.0.1:19003/healthz
  burst switchboard http://127.0.0.1:19003/v1/chat/completions bench-tls
  stop_all
done

#!/usr/bin/env bash
# Instructions per proxied request, counted by callgrind, for two builds side by side: a figure
# that does not move with whatever else the machine does. On this 2-core VM req/s and even a
# process's CPU time per request swing by 15-30 % from one cell to the next; the instructions of
# the same build agree to 0.3 %. They do not see cache misses or the kernel, so a change that
# saves instructions is confirmed in req/s (tests/bench/ab.sh) before it is called faster.
#
#   tests/bench/instructions.sh BUILD_A BUILD_B [--seconds S]
#
# BUILD_A and BUILD_B are build trees with bin/switchboard (the bench preset: Release, symbols
# kept). For each path (plain HTTP upstream, HTTPS upstream, translation to an Anthropic upstream)
# each build is started under callgrind, warmed up, then counted over S seconds of load from
# four keep-alive connections; the requests it served are read from its /metrics, and the history
# thread's writes for them fall inside the count. nginx's proxy is counted the same way on the
# plain and HTTPS paths, as the baseline of forwarding alone. Runs as root in a private network
# namespace.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/bench/lib/namespace.sh"
peers="$root/tests/bench/peers"
seconds=10
[ $# -ge 2 ] || { echo "usage: tests/bench/instructions.sh BUILD_A BUILD_B [--seconds S]"; exit 2; }
build_a=$(cd "$1" && pwd) build_b=$(cd "$2" && pwd)
shift 2
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
for b in "$build_a" "$build_b"; do
  [ -x "$b/bin/switchboard" ] || { echo "$b/bin/switchboard is missing: build it with the bench preset"; exit 1; }
done
command -v valgrind >/dev/null || { echo "valgrind is missing: apt-get install valgrind"; exit 1; }
if [ -z "${SB_INSTRUCTIONS_INSIDE:-}" ]; then
  export SB_INSTRUCTIONS_INSIDE=1
  bench_unshare "$0" "$build_a" "$build_b" --seconds "$seconds"
fi

ulimit -n 65536 2>/dev/null || ulimit -n 8192
work=$(mktemp -d /tmp/sb-instructions.XXXXXX)
sb=""
cleanup() {
  [ -n "$sb" ] && kill "$sb" 2>/dev/null || true
  for pidfile in "$work"/*.pid; do [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true; done
  sleep 0.5; rm -rf "$work"
}
trap cleanup EXIT
wait_for() { for _ in $(seq 1 300); do curl -s -o /dev/null "$1" && return 0; sleep 0.2; done; echo "nothing answers at $1"; exit 1; }

"$peers/make-cert.sh" "$work" >/dev/null
for conf in upstream-nginx tls-upstream-nginx; do
  sed "s|@WORK@|$work|g" "$peers/$conf.conf" > "$work/$conf.conf"
  nginx -c "$work/$conf.conf" -p "$work" -g 'daemon on;' 2>"$work/$conf.start.log" || { cat "$work/$conf.start.log"; exit 1; }
done
sed "s|@WORK@|$work|g" "$peers/switchboard-bench.json" > "$work/switchboard-bench.json"
wait_for http://127.0.0.1:19001/

# Requests the instance has answered, all routes and outcomes together.
served() { curl -s http://127.0.0.1:19003/metrics | awk '/^switchboard_requests_total\{/ { n += $NF } END { print n + 0 }'; }
load() { # MODEL SECONDS [PORT] -> the requests wrk completed
  WRK_BODY="{\"model\":\"$1\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],\"max_tokens\":16}" \
    wrk -t2 -c4 -d"$2s" -s "$peers/post.lua" "http://127.0.0.1:${3:-19003}/v1/chat/completions" \
    | awk '/requests in/ { print $1 }'
}
count() { # BUILD MODEL -> instructions per request
  local out="$work/callgrind.out"
  rm -f "$out"
  HOME="$work/home" XDG_DATA_HOME="$work/data" valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$1/bin/switchboard" --headless --db "$work/count-$RANDOM.db" --config "$work/switchboard-bench.json" \
    --listen 127.0.0.1:19003 --log-level warn >"$work/switchboard.log" 2>&1 &
  sb=$!
  wait_for http://127.0.0.1:19003/healthz
  load "$2" 3 >/dev/null # warm: connections, TLS resumption, caches, the first history batches
  sleep 1       # the history's flush interval is 250 ms: nothing of the warm-up is left to write
  local before=$(served)
  callgrind_control -z "$sb" >/dev/null 2>&1
  load "$2" "$seconds" >/dev/null
  sleep 1.5     # the rows of the counted requests are written inside the count
  callgrind_control -d "$sb" >/dev/null 2>&1
  local after=$(served)
  kill "$sb"; wait "$sb" 2>/dev/null || true; sb=""
  local total=$(callgrind_annotate "$out".* 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
  rm -f "$out"*
  awk -v t="$total" -v n=$((after - before)) 'BEGIN { printf "%d %d\n", t / n, n }'
}

# nginx's proxy forwarding the same request, counted the same way: what forwarding alone costs.
# One worker and no master process, so that one process holds the whole count; requests as wrk
# counted them (nginx keeps no tally).
count_nginx() { # PORT -> instructions per request
  local out="$work/nginx-callgrind.out" conf="$work/proxy-counted.conf"
  sed "s|@WORK@|$work|g; s/^worker_processes auto;/worker_processes 1; master_process off; daemon off;/" \
    "$peers/proxy-nginx.conf" > "$conf"
  rm -f "$out"
  valgrind --tool=callgrind --callgrind-out-file="$out" nginx -c "$conf" -p "$work" >"$work/nginx-counted.log" 2>&1 &
  sb=$!
  wait_for "http://127.0.0.1:$1/"
  load bench-model 3 "$1" >/dev/null
  callgrind_control -z "$sb" >/dev/null 2>&1
  local n=$(load bench-model "$seconds" "$1")
  callgrind_control -d "$sb" >/dev/null 2>&1
  kill "$sb"; wait "$sb" 2>/dev/null || true; sb=""
  local total=$(callgrind_annotate "$out".* 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
  rm -f "$out"*
  awk -v t="$total" -v n="$n" 'BEGIN { printf "%d %d\n", t / n, n }'
}

printf 'A = %s\nB = %s\n%s s counted per cell, four connections\n\n' "$build_a" "$build_b" "$seconds"
printf '%-22s %14s %14s %8s\n' path "A instr/req" "B instr/req" "B/A"
declare -A counted_b
for path in "plain HTTP:bench" "HTTPS upstream:bench-tls" "Anthropic upstream:bench-anthropic"; do
  read -r a na < <(count "$build_a" "${path#*:}")
  read -r b nb < <(count "$build_b" "${path#*:}")
  counted_b[${path%%:*}]=$b
  printf '%-22s %14s %14s %8s   (%s and %s requests)\n' "${path%%:*}" "$a" "$b" \
    "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')" "$na" "$nb"
done

printf '\n%-22s %14s %14s\n' "nginx's proxy" "instr/req" "B/nginx"
for path in "plain HTTP:19002" "HTTPS upstream:19022"; do
  read -r n nn < <(count_nginx "${path#*:}")
  printf '%-22s %14s %14s   (%s requests)\n' "${path%%:*}" "$n" \
    "$(awk -v n="$n" -v b="${counted_b[${path%%:*}]}" 'BEGIN { printf "%.2f", b / n }')" "$nn"
done

#!/usr/bin/env bash
# Two builds of Switchboard side by side against nginx, in alternating rounds: what a change did to
# the proxy's overhead, measured on one machine in one run (a machine that drifts between runs
# cannot say that). Each round measures, in a rotating order, nginx and both builds at one
# connection (p50) and at 50 connections (req/s and p99), and prints each build's req/s ratio to
# nginx; at the end, the medians over the rounds of each build's req/s and p99 against nginx's and
# of B's against A's in the same round.
#
#   tests/bench/ab.sh BUILD_A BUILD_B [--rounds N] [--seconds S] [--https]
#
# --https measures the HTTPS path instead: the TLS upstream by name (bench-upstream, offering HTTP/2
# and HTTP/1.1, as a hosted provider is), nginx's proxy to it beside.
# BUILD_A and BUILD_B are build trees with bin/switchboard (e.g. a worktree of the old commit built
# with the bench preset, and build/bench). Runs as root inside a private network namespace, like
# tests/bench/run.sh, on the same fake upstream (nginx returning a canned completion).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/bench/lib/namespace.sh"
peers="$root/tests/bench/peers"
rounds=4 seconds=10 https=0
[ $# -ge 2 ] || { echo "usage: tests/bench/ab.sh BUILD_A BUILD_B [--rounds N] [--seconds S] [--https]"; exit 2; }
build_a=$(cd "$1" && pwd) build_b=$(cd "$2" && pwd)
shift 2
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --https) https=1; shift ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
done
for b in "$build_a" "$build_b"; do
  [ -x "$b/bin/switchboard" ] || { echo "$b/bin/switchboard is missing: build it with the bench preset"; exit 1; }
done
if [ -z "${SB_AB_INSIDE:-}" ]; then
  export SB_AB_INSIDE=1
  more=()
  [ $https = 1 ] && more=(--https)
  bench_unshare "$0" "$build_a" "$build_b" --rounds "$rounds" --seconds "$seconds" "${more[@]}"
fi

ulimit -n 65536 2>/dev/null || ulimit -n 8192
work=$(mktemp -d /tmp/sb-ab.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for conf in upstream-nginx tls-upstream-nginx proxy-nginx; do
    [ -f "$work/$conf.pid" ] && kill "$(cat "$work/$conf.pid")" 2>/dev/null || true
  done
  sleep 0.3; rm -rf "$work"
}
trap cleanup EXIT

# The bench configuration's TLS providers and the nginx proxy's HTTPS upstream both name it.
"$peers/make-cert.sh" "$work"
for conf in upstream-nginx tls-upstream-nginx proxy-nginx; do
  sed "s|@WORK@|$work|g" "$peers/$conf.conf" > "$work/$conf.conf"
  nginx -c "$work/$conf.conf" -p "$work" -g 'daemon on;' 2>"$work/$conf.start.log" || { cat "$work/$conf.start.log"; exit 1; }
done
sed "s|@WORK@|$work|g" "$peers/switchboard-bench.json" > "$work/switchboard-bench.json"
start() { # name build port
  HOME="$work/home-$1" XDG_DATA_HOME="$work/data-$1" "$2/bin/switchboard" --headless --db "$work/$1.db" \
    --config "$work/switchboard-bench.json" --listen "127.0.0.1:$3" --log-level warn >"$work/$1.log" 2>&1 &
  pids+=($!)
  wait_for "http://127.0.0.1:$3/healthz"
}
start a "$build_a" 19003
start b "$build_b" 19013
wait_for http://127.0.0.1:19001/
wait_for http://127.0.0.1:19002/
wait_for https://bench-upstream:19021/ --cacert "$work/bench-cert.pem"

nginx_port=19002 model=bench path="plain HTTP"
[ $https = 1 ] && nginx_port=19022 model=bench-tls path="HTTPS, by name"
url_of() { case $1 in nginx) echo "http://127.0.0.1:$nginx_port/v1/chat/completions" ;;
  a) echo http://127.0.0.1:19003/v1/chat/completions ;; b) echo http://127.0.0.1:19013/v1/chat/completions ;; esac; }
body_of() { printf '{"model":"%s","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16}' \
  "$([ "$1" = nginx ] && echo bench-model || echo "$model")"; }
wrk_ms() { awk -v q="$1" '$1==q { v=$2; u=v; gsub(/[0-9.]/,"",u); gsub(/[a-z]/,"",v);
  if (u=="us") v/=1000; else if (u=="s") v*=1000; printf "%.3f", v }'; }
cell() { # target connections → "p50_ms rps p99_ms"
  local threads=1 out
  [ "$2" -gt 1 ] && threads=2
  out=$(WRK_BODY="$(body_of "$1")" wrk -t$threads -c"$2" -d"${seconds}s" --latency -s "$peers/post.lua" "$(url_of "$1")" 2>&1)
  echo "$(echo "$out" | wrk_ms 50%) $(echo "$out" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p') $(echo "$out" | wrk_ms 99%)"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }

printf 'A = %s\nB = %s\n%s, %s s per cell, %s rounds, %s cores, load average %s\n\n' "$build_a" "$build_b" "$path" "$seconds" \
  "$rounds" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
printf '%-6s | %-32s | %-32s | %-32s |\n' "" "50 connections, req/s" "1 connection, p50 ms" "50 connections, p99 ms"
printf '%-6s | %-10s %-10s %-10s | %-10s %-10s %-10s | %-10s %-10s %-10s | %-7s %-7s\n' round "nginx rps" "A rps" "B rps" \
  "nginx p50" "A p50" "B p50" "nginx p99" "A p99" "B p99" "A/nginx" "B/nginx"
orders=("nginx a b" "b a nginx" "a nginx b" "nginx b a")
# Each round's ratios, for the medians at the end: on this VM one round's req/s or p99 can move by
# a third between two runs of the same binary, so a single round says little.
a_rps=() b_rps=() a_p99=() b_p99=() ba_rps=() ba_p99=()
for round in $(seq 1 "$rounds"); do
  declare -A rps=() p50=() p99=()
  for t in ${orders[$(( (round - 1) % 4 ))]}; do
    read -r p50[$t] _ _ <<< "$(cell "$t" 1)"
    read -r _ rps[$t] p99[$t] <<< "$(cell "$t" 50)"
  done
  printf '%-6s | %-10s %-10s %-10s | %-10s %-10s %-10s | %-10s %-10s %-10s | %-7s %-7s\n' "$round" "${rps[nginx]}" "${rps[a]}" "${rps[b]}" \
    "${p50[nginx]}" "${p50[a]}" "${p50[b]}" "${p99[nginx]}" "${p99[a]}" "${p99[b]}" \
    "$(ratio "${rps[a]}" "${rps[nginx]}")" "$(ratio "${rps[b]}" "${rps[nginx]}")"
  a_rps+=("$(ratio "${rps[a]}" "${rps[nginx]}")") b_rps+=("$(ratio "${rps[b]}" "${rps[nginx]}")")
  a_p99+=("$(ratio "${p99[a]}" "${p99[nginx]}")") b_p99+=("$(ratio "${p99[b]}" "${p99[nginx]}")")
  ba_rps+=("$(ratio "${rps[b]}" "${rps[a]}")") ba_p99+=("$(ratio "${p99[b]}" "${p99[a]}")")
done
median() { printf '%s\n' "$@" | grep -v -- - | sort -g | awk '{ v[NR] = $1 } END {
  if (NR == 0) printf "-"; else if (NR % 2) printf "%.2f", v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '\nmedians of the rounds: req/s A/nginx %s, B/nginx %s, B/A %s; p99 A/nginx %s, B/nginx %s, B/A %s\n' \
  "$(median "${a_rps[@]}")" "$(median "${b_rps[@]}")" "$(median "${ba_rps[@]}")" \
  "$(median "${a_p99[@]}")" "$(median "${b_p99[@]}")" "$(median "${ba_p99[@]}")"

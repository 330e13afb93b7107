#!/usr/bin/env bash
# What being in a fleet costs the request path, side by side in one run: 50 connections through
# one instance alone, and through one instance of a fleet of three sharing a redis-server (a
# provider rate limit drawn from the fleet's shared bucket, a route budget summed across the fleet,
# the announcements and the pub/sub all live), in alternating rounds, each against nginx returning
# a canned answer. The target: the fleet member's req/s at least 0.9x the lone instance's.
#
#   tests/bench/fleet.sh [--rounds N] [--seconds S]
#
# Runs as root in a private network namespace, like tests/bench/run.sh, on build/bench.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
peers="$root/tests/bench/peers"
bench_dir="$root/build/bench"
rounds=4 seconds=8
source "$root/tests/bench/lib/namespace.sh"
bench_read_rounds "tests/bench/fleet.sh [--rounds N] [--seconds S]" "$@"
bench_enter_namespace SB_FLEET_INSIDE

ulimit -n 65536 2>/dev/null || ulimit -n 8192
work=$(mktemp -d /tmp/sb-fleet.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$work/upstream-nginx.pid" ] && kill "$(cat "$work/upstream-nginx.pid")" 2>/dev/null || true
  sleep 0.3; rm -rf "$work"
}
trap cleanup EXIT

sed "s|@WORK@|$work|g" "$peers/upstream-nginx.conf" > "$work/upstream-nginx.conf"
nginx -c "$work/upstream-nginx.conf" -p "$work" -g 'daemon on;' 2>"$work/nginx.log" || { cat "$work/nginx.log"; exit 1; }
redis_port=19030
redis-server --port $redis_port --bind 127.0.0.1 --save '' --appendonly no --dir "$work" --daemonize no >"$work/redis.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do redis-cli -p $redis_port ping >/dev/null 2>&1 && break; sleep 0.1; done
# One lone instance on 19031, and the fleet's three on 19032-19034; each its own database.
start_instance() { # port [redis-url]
  local port=$1 extra=()
  [ -n "${2:-}" ] && extra=(--redis "$2")
  HOME="$work/home-$port" XDG_DATA_HOME="$work/data-$port" "$bench_dir/bin/switchboard" --headless \
    --db "$work/switchboard-$port.db" --config "$peers/switchboard-fleet.json" --listen "127.0.0.1:$port" \
    --log-level warn "${extra[@]}" >"$work/switchboard-$port.log" 2>&1 &
  pids+=($!)
  wait_for "http://127.0.0.1:$port/healthz"
}
start_instance 19031
for port in 19032 19033 19034; do start_instance $port "redis://127.0.0.1:$redis_port"; done
wait_for http://127.0.0.1:19001/
for _ in $(seq 1 50); do
  [ "$(curl -s http://127.0.0.1:19032/admin/fleet | grep -o '"id"' | wc -l)" -ge 3 ] && break; sleep 0.2
done
members=$(curl -s http://127.0.0.1:19032/admin/fleet | grep -o '"id"' | wc -l)
[ "$members" -ge 3 ] || { echo "the fleet lists $members instances, not 3"; curl -s http://127.0.0.1:19032/admin/fleet; exit 1; }

body='{"model":"bench","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16}'
url_of() { case $1 in alone) echo http://127.0.0.1:19031/v1/chat/completions ;; fleet) echo http://127.0.0.1:19032/v1/chat/completions ;; esac; }
for t in alone fleet; do
  code=$(curl -s -o "$work/$t.json" -w '%{http_code}' -H 'Content-Type: application/json' -d "$body" "$(url_of $t)")
  [ "$code" = 200 ] || { echo "$t answered $code: $(cat "$work/$t.json")"; exit 1; }
done
rps_of() { sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p'; }
non2xx_of() { sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p'; }
printf '%s s per cell, %s rounds, %s cores, 50 connections, load average %s\n\n' "$seconds" "$rounds" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
printf '%-5s | %-14s | %-14s | %s\n' round "alone req/s" "fleet req/s" "fleet / alone"
alone_all="" fleet_all=""
for round in $(seq 1 "$rounds"); do
  order="alone fleet"
  (( round % 2 )) || order="fleet alone"
  declare -A rps=()
  for t in $order; do
    out=$(WRK_BODY="$body" wrk -t2 -c50 -d"${seconds}s" -s "$peers/post.lua" "$(url_of $t)" 2>&1)
    bad=$(echo "$out" | non2xx_of)
    [ -z "$bad" ] || { echo "$t: $bad non-2xx answers"; echo "$out"; exit 1; }
    rps[$t]=$(echo "$out" | rps_of)
  done
  alone_all+="${rps[alone]} " fleet_all+="${rps[fleet]} "
  printf '%-5s | %-14s | %-14s | %s\n' "$round" "${rps[alone]}" "${rps[fleet]}" \
    "$(awk -v f="${rps[fleet]}" -v a="${rps[alone]}" 'BEGIN { printf "%.3f", f / a }')"
done
median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
alone=$(echo "$alone_all" | median) fleet=$(echo "$fleet_all" | median)
ratio=$(awk -v f="$fleet" -v a="$alone" 'BEGIN { printf "%.3f", f / a }')
verdict=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.9) ? "within" : "OVER" }')
printf '\nMedians: alone %s req/s, in a fleet of three %s req/s: %sx (the target: at least 0.9x): %s\n' "$alone" "$fleet" "$ratio" "$verdict"
draws=$(curl -s http://127.0.0.1:19032/metrics | awk '$1 ~ /^switchboard_fleet_limit_draws_total/ { print $2; exit }')
printf 'The member drew its share of the rate limit from Redis %s times; the fleet: %s\n' "${draws:-?}" \
  "$(curl -s http://127.0.0.1:19032/admin/fleet | tr -d '\n' | cut -c1-300)"

#!/usr/bin/env bash
# Where a proxied request's machine time goes: the CPU each proxy spends per request (its own
# utime + stime over the cell, from /proc) beside the whole machine's, at 50 connections, for
# nginx and Switchboard to the same canned upstream over plain HTTP and over HTTPS, and
# Switchboard translating to an Anthropic upstream. req/s alone moves with whatever else the
# machine does; the proxy's own CPU per request says what a change to the proxy bought.
#
#   tests/bench/cpu-per-request.sh [--rounds N] [--seconds S]
#
# Runs as root in a private network namespace on build/bench, like tests/bench/run.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
peers="$root/tests/bench/peers"
bench_dir="$root/build/bench"
rounds=2 seconds=6
source "$root/tests/bench/lib/namespace.sh"
bench_read_rounds "tests/bench/cpu-per-request.sh [--rounds N] [--seconds S]" "$@"
bench_enter_namespace SB_CPU_INSIDE

ulimit -n 65536 2>/dev/null || ulimit -n 8192
work=$(mktemp -d /tmp/sb-cpu.XXXXXX)
sb=""
cleanup() {
  [ -n "$sb" ] && kill "$sb" 2>/dev/null || true
  for pidfile in "$work"/*.pid; do [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true; done
  sleep 0.3; rm -rf "$work"
}
trap cleanup EXIT

"$peers/make-cert.sh" "$work" >/dev/null
for conf in upstream-nginx tls-upstream-nginx proxy-nginx; do
  sed "s|@WORK@|$work|g" "$peers/$conf.conf" > "$work/$conf.conf"
  nginx -c "$work/$conf.conf" -p "$work" -g 'daemon on;' 2>>"$work/nginx.log" || { cat "$work/nginx.log"; exit 1; }
done
sed "s|@WORK@|$work|g" "$peers/switchboard-bench.json" > "$work/switchboard-bench.json"
HOME="$work/home" XDG_DATA_HOME="$work/data" "$bench_dir/bin/switchboard" --headless --db "$work/switchboard.db" \
  --config "$work/switchboard-bench.json" --log-level warn >"$work/switchboard.log" 2>&1 &
sb=$!
wait_for http://127.0.0.1:19001/
wait_for http://127.0.0.1:19002/
wait_for http://127.0.0.1:19003/healthz

# The proxy nginx's workers: children of the master whose pid file is proxy-nginx.pid.
nginx_workers=$(pgrep -P "$(cat "$work/proxy-nginx.pid")" | tr '\n' ' ')
targets=(direct nginx switchboard nginx-https switchboard-https switchboard-anthropic)
url_of() { case $1 in
  direct) echo http://127.0.0.1:19001/v1/chat/completions ;;
  nginx) echo http://127.0.0.1:19002/v1/chat/completions ;;
  nginx-https) echo http://127.0.0.1:19022/v1/chat/completions ;;
  switchboard*) echo http://127.0.0.1:19003/v1/chat/completions ;;
esac; }
model_of() { case $1 in
  switchboard) echo bench ;;
  switchboard-https) echo bench-tls ;;
  switchboard-anthropic) echo bench-anthropic ;;
  *) echo bench-model ;;
esac; }
pids_of() { case $1 in nginx*) echo "$nginx_workers" ;; switchboard*) echo "$sb" ;; *) echo "" ;; esac; }
ticks_of() { local sum=0 pid; for pid in "$@"; do sum=$(( sum + $(awk '{ print $14 + $15 }' "/proc/$pid/stat") )); done; echo "$sum"; }
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
hz=$(getconf CLK_TCK)

declare -A rps_all proxy_all machine_all
printf '%s s per cell, %s rounds, %s cores, load average %s\n\n' "$seconds" "$rounds" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
printf '%-5s %-22s %10s %16s %18s\n' round target req/s "proxy us/req" "machine us/req"
for round in $(seq 1 "$rounds"); do
  for t in "${targets[@]}"; do
    body="{\"model\":\"$(model_of "$t")\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],\"max_tokens\":16}"
    read -r -a pids <<< "$(pids_of "$t")"
    p0=$(ticks_of "${pids[@]}") m0=$(machine_ticks)
    out=$(WRK_BODY="$body" wrk -t2 -c50 -d"${seconds}s" -s "$peers/post.lua" "$(url_of "$t")" 2>&1)
    p1=$(ticks_of "${pids[@]}") m1=$(machine_ticks)
    if echo "$out" | grep -q "Non-2xx"; then echo "$t: non-2xx answers"; echo "$out"; exit 1; fi
    total=$(echo "$out" | sed -n 's/^ *\([0-9]*\) requests in.*/\1/p')
    rps=$(echo "$out" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p')
    proxy=$(awk -v t="$(( p1 - p0 ))" -v n="$total" -v hz="$hz" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
    machine=$(awk -v t="$(( m1 - m0 ))" -v n="$total" -v hz="$hz" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }')
    printf '%-5s %-22s %10.0f %16s %18s\n' "$round" "$t" "$rps" "$proxy" "$machine"
    rps_all[$t]+="$rps " proxy_all[$t]+="$proxy " machine_all[$t]+="$machine "
  done
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '\nMedians, and Switchboard against nginx on the same path\n'
printf '%-22s %10s %16s %18s\n' target req/s "proxy us/req" "machine us/req"
declare -A m_rps m_proxy
for t in "${targets[@]}"; do
  m_rps[$t]=$(echo "${rps_all[$t]}" | median)
  m_proxy[$t]=$(echo "${proxy_all[$t]}" | median)
  printf '%-22s %10.0f %16s %18s\n' "$t" "${m_rps[$t]}" "${m_proxy[$t]}" "$(echo "${machine_all[$t]}" | median)"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf '\nplain HTTP: req/s %sx nginx, proxy CPU per request %sx nginx\n' \
  "$(ratio "${m_rps[switchboard]}" "${m_rps[nginx]}")" "$(ratio "${m_proxy[switchboard]}" "${m_proxy[nginx]}")"
printf 'HTTPS:      req/s %sx nginx, proxy CPU per request %sx nginx\n' \
  "$(ratio "${m_rps[switchboard-https]}" "${m_rps[nginx-https]}")" "$(ratio "${m_proxy[switchboard-https]}" "${m_proxy[nginx-https]}")"
printf 'Anthropic upstream (translated): req/s %sx Switchboard plain\n' \
  "$(ratio "${m_rps[switchboard-anthropic]}" "${m_rps[switchboard]}")"

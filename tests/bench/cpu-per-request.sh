#!/usr/bin/env bash
# Where a proxied request's machine time goes: the CPU each proxy spends per request (its own
# user and system time over the cell, from /proc) beside the upstream's and the whole machine's,
# at 50 connections, for nginx and Switchboard to the same canned upstream over plain HTTP and over
# HTTPS, and Switchboard translating to an Anthropic upstream. req/s alone moves with whatever else
# the machine does; the proxy's own CPU per request says what a change to the proxy bought, and
# its split says whether that was the proxy's code (user) or the kernel's work for it (system).
# With strace installed, a last cell per proxy and path counts the system calls each request costs
# (under strace, so not timed).
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
upstream_workers=$(pgrep -P "$(cat "$work/upstream-nginx.pid")" | tr '\n' ' ')
tls_upstream_workers=$(pgrep -P "$(cat "$work/tls-upstream-nginx.pid")" | tr '\n' ' ')
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
# The upstream that answers a target: the plain canned nginx, or its TLS twin for the HTTPS paths.
upstream_pids_of() { case $1 in *https) echo "$tls_upstream_workers" ;; *) echo "$upstream_workers" ;; esac; }
ticks_of() { # PID... → "user system" clock ticks, summed over the processes
  local pid user=0 system=0 u s
  for pid in "$@"; do
    read -r u s < <(awk '{ print $14, $15 }' "/proc/$pid/stat")
    user=$(( user + u )) system=$(( system + s ))
  done
  echo "$user $system"
}
machine_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat; }
hz=$(getconf CLK_TCK)
per_request() { awk -v t="$1" -v n="$2" -v hz="$hz" 'BEGIN { printf "%.1f", t * 1e6 / hz / n }'; }
body_of() { echo "{\"model\":\"$(model_of "$1")\",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello.\"}],\"max_tokens\":16}"; }
total_of() { sed -n 's/^ *\([0-9]*\) requests in.*/\1/p'; }

declare -A rps_all proxy_all user_all system_all upstream_all machine_all
printf '%s s per cell, %s rounds, %s cores, load average %s\n' "$seconds" "$rounds" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
printf "us/req: CPU time per request; the proxy's split into user and system time\n\n"
printf '%-5s %-22s %10s %10s %10s %10s %10s %10s\n' round target req/s proxy user system upstream machine
for round in $(seq 1 "$rounds"); do
  for t in "${targets[@]}"; do
    read -r -a pids <<< "$(pids_of "$t")"
    read -r -a upstream <<< "$(upstream_pids_of "$t")"
    read -r u0 s0 < <(ticks_of "${pids[@]}")
    read -r uu0 us0 < <(ticks_of "${upstream[@]}")
    m0=$(machine_ticks)
    out=$(WRK_BODY="$(body_of "$t")" wrk -t2 -c50 -d"${seconds}s" -s "$peers/post.lua" "$(url_of "$t")" 2>&1)
    read -r u1 s1 < <(ticks_of "${pids[@]}")
    read -r uu1 us1 < <(ticks_of "${upstream[@]}")
    m1=$(machine_ticks)
    if echo "$out" | grep -q "Non-2xx"; then echo "$t: non-2xx answers"; echo "$out"; exit 1; fi
    total=$(echo "$out" | total_of)
    rps=$(echo "$out" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p')
    user=$(per_request $(( u1 - u0 )) "$total") system=$(per_request $(( s1 - s0 )) "$total")
    proxy=$(per_request $(( u1 - u0 + s1 - s0 )) "$total")
    upstream_cpu=$(per_request $(( uu1 - uu0 + us1 - us0 )) "$total")
    machine=$(per_request $(( m1 - m0 )) "$total")
    printf '%-5s %-22s %10.0f %10s %10s %10s %10s %10s\n' "$round" "$t" "$rps" "$proxy" "$user" "$system" "$upstream_cpu" "$machine"
    rps_all[$t]+="$rps " proxy_all[$t]+="$proxy " user_all[$t]+="$user " system_all[$t]+="$system " upstream_all[$t]+="$upstream_cpu "
    machine_all[$t]+="$machine "
  done
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '\nMedians, and Switchboard against nginx on the same path\n'
printf '%-22s %10s %10s %10s %10s %10s %10s\n' target req/s proxy user system upstream machine
declare -A m_rps m_proxy
for t in "${targets[@]}"; do
  m_rps[$t]=$(echo "${rps_all[$t]}" | median)
  m_proxy[$t]=$(echo "${proxy_all[$t]}" | median)
  printf '%-22s %10.0f %10s %10s %10s %10s %10s\n' "$t" "${m_rps[$t]}" "${m_proxy[$t]}" "$(echo "${user_all[$t]}" | median)" \
    "$(echo "${system_all[$t]}" | median)" "$(echo "${upstream_all[$t]}" | median)" "$(echo "${machine_all[$t]}" | median)"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf '\nplain HTTP: req/s %sx nginx, proxy CPU per request %sx nginx\n' \
  "$(ratio "${m_rps[switchboard]}" "${m_rps[nginx]}")" "$(ratio "${m_proxy[switchboard]}" "${m_proxy[nginx]}")"
printf 'HTTPS:      req/s %sx nginx, proxy CPU per request %sx nginx\n' \
  "$(ratio "${m_rps[switchboard-https]}" "${m_rps[nginx-https]}")" "$(ratio "${m_proxy[switchboard-https]}" "${m_proxy[nginx-https]}")"
printf 'Anthropic upstream (translated): req/s %sx Switchboard plain\n' \
  "$(ratio "${m_rps[switchboard-anthropic]}" "${m_rps[switchboard]}")"

# System calls per request: each proxy's whole process (Switchboard's history thread included)
# under strace -c for one cell. strace slows what it traces, so these cells are counted, not timed.
if ! command -v strace >/dev/null; then
  printf '\nstrace is missing (apt-get install strace): system calls per request not counted\n'
  exit 0
fi
printf '\nSystem calls per request (under strace, one %s s cell at 50 connections each; calls of at least 0.01 a request)\n' "$seconds"
for t in nginx switchboard nginx-https switchboard-https; do
  read -r -a pids <<< "$(pids_of "$t")"
  traced=()
  for pid in "${pids[@]}"; do traced+=(-p "$pid"); done
  strace -c -f -o "$work/strace-$t.txt" "${traced[@]}" 2>/dev/null &
  tracer=$!
  sleep 1 # attached to every thread before the first request
  total=$(WRK_BODY="$(body_of "$t")" wrk -t2 -c50 -d"${seconds}s" -s "$peers/post.lua" "$(url_of "$t")" 2>&1 | total_of)
  kill -INT "$tracer"
  wait "$tracer" 2>/dev/null || true
  # strace -c's rows: % time, seconds, usecs/call, calls, [errors,] syscall.
  awk -v n="$total" -v t="$t" '
    $NF == "total" { all = $4 }
    $1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" && $4 / n >= 0.01 { list = list sprintf(" %s %.2f", $NF, $4 / n) }
    END { printf "%-22s %5.2f:%s\n", t, all / n, list }' "$work/strace-$t.txt"
done

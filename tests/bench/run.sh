#!/usr/bin/env bash
# The peer comparison: builds Release with the benchmarks, then measures, side by side in
# one run on this machine, what each proxy adds over talking to the fake upstream directly:
#   direct (the limit) · nginx as a plain reverse proxy (C baseline) · Portkey's open-source gateway ·
#   Switchboard
# and prints one table: non-streaming overhead at one connection, at 50 connections (max req/s), at
# fixed 500 and 2,000 req/s; streaming TTFT added; then the upstream kinds a hosted provider is
# reached by, in the same run: an HTTPS upstream (nginx with a certificate tests/bench/peers/make-cert.sh
# makes, which Switchboard trusts as the provider's CA bundle; reached by name and offering HTTP/2 and
# HTTP/1.1, as hosted providers are) directly, through nginx and through Switchboard, and through a
# provider that asks for HTTP/2 (wrk speaks no h2, so it has no direct row); an
# Anthropic-dialect upstream through Switchboard (an OpenAI request translated each way), with
# the HTTPS path's targets checked side by side; 1,000 concurrent streams through Switchboard (success,
# peak RSS, CPU); what each front door (chat completions, Responses, Anthropic Messages) adds, side by
# side (tests/bench/front-doors.sh); optionally the full-length launch-day drill.
#
#   tests/bench/run.sh [--quick] [--with-drill] [--no-portkey]
#
# --quick measures 4 s per cell instead of 10. Everything listens on 127.0.0.1 inside a private network
# namespace (Portkey binds every interface and has no host option), so nothing is reachable from outside.
# Load generator, upstream and proxies share the machine: read ratios, not absolute figures.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/bench/lib/namespace.sh"
cd "$root"
bench_dir="$root/build/bench"
peers="$root/tests/bench/peers"
seconds=10 with_drill=0 portkey=1
for arg in "$@"; do
  case "$arg" in
    --quick) seconds=4 ;;
    --with-drill) with_drill=1 ;;
    --no-portkey) portkey=0 ;;
    --inside-netns) ;;
    *) echo "usage: tests/bench/run.sh [--quick] [--with-drill] [--no-portkey]"; exit 2 ;;
  esac
done

# 1. Outside the namespace (network needed): build, and install Portkey's gateway from npm.
if [[ " $* " != *" --inside-netns "* ]]; then
  packaging/install-deps.sh
  cmake --preset bench >/dev/null
  cmake --build --preset bench --target switchboard switchboard-sim bench_load bench_proxy_ttft
  if [ $portkey = 1 ] && [ ! -x "$bench_dir/peers/node_modules/.bin/gateway" ]; then
    mkdir -p "$bench_dir/peers"
    (cd "$bench_dir/peers" && npm install --silent --no-audit --no-fund @portkey-ai/gateway@1 >/dev/null) \
      || { echo "could not install @portkey-ai/gateway; its row is left out"; portkey=0; }
  fi
  [ $portkey = 1 ] || set -- "$@" --no-portkey
  bench_unshare "$0" "$@" --inside-netns
fi

# 2. Inside the namespace: start the upstreams and the proxies.
ulimit -n 65536 2>/dev/null || ulimit -n 8192
work=$(mktemp -d /tmp/sb-bench.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for conf in upstream-nginx tls-upstream-nginx proxy-nginx; do
    [ -f "$work/$conf.pid" ] && kill "$(cat "$work/$conf.pid")" 2>/dev/null || true
  done
  sleep 0.3; rm -rf "$work"
}
trap cleanup EXIT
"$peers/make-cert.sh" "$work"
sed "s|@WORK@|$work|g" "$peers/switchboard-bench.json" > "$work/switchboard-bench.json"

wait_for() { # URL [extra curl args]
  local url=$1; shift
  for _ in $(seq 1 150); do curl -s -o /dev/null "$@" "$url" && return 0; sleep 0.1; done
  echo "nothing answers at $url"; return 1
}

for conf in upstream-nginx tls-upstream-nginx proxy-nginx; do
  sed "s|@WORK@|$work|g" "$peers/$conf.conf" > "$work/$conf.conf"
  nginx -c "$work/$conf.conf" -p "$work" -g 'daemon on;' 2>"$work/$conf.start.log" \
    || { cat "$work/$conf.start.log"; exit 1; }
done
"$bench_dir/bin/switchboard-sim" serve "$peers/stream-upstream.json" >"$work/sim.log" 2>&1 &
pids+=($!)

start_switchboard() {
  HOME="$work/home" XDG_DATA_HOME="$work/data" "$bench_dir/bin/switchboard" --headless \
    --db "$work/switchboard-$1.db" --config "$work/switchboard-bench.json" --log-level warn \
    >"$work/switchboard-$1.log" 2>&1 &
  switchboard_pid=$!
  pids+=($switchboard_pid)
  wait_for http://127.0.0.1:19003/healthz
}
start_switchboard main

if [ $portkey = 1 ]; then
  (cd "$bench_dir/peers" && exec node_modules/.bin/gateway --headless --port=19004) >"$work/portkey.log" 2>&1 &
  portkey_pid=$!
  pids+=($portkey_pid)
fi

wait_for http://127.0.0.1:19001/
wait_for http://127.0.0.1:19002/
wait_for http://127.0.0.1:19005/v1/models
wait_for https://bench-upstream:19021/ --cacert "$work/bench-cert.pem"
wait_for http://127.0.0.1:19022/
[ $portkey = 1 ] && { wait_for http://127.0.0.1:19004/ || portkey=0; }

# 3. Targets: name, URL, the model field, extra headers ("|"-separated).
body() { printf '{"model":"%s","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16%s}' "$1" "${2:-}"; }
portkey_canned='x-portkey-provider: openai|x-portkey-custom-host: http://127.0.0.1:19001/v1|Authorization: Bearer bench'
portkey_stream='x-portkey-provider: openai|x-portkey-custom-host: http://127.0.0.1:19005/v1|Authorization: Bearer bench'
targets=(direct nginx switchboard)
[ $portkey = 1 ] && targets=(direct nginx portkey switchboard)
url_of() { case $1 in
  direct) echo http://127.0.0.1:19001/v1/chat/completions ;;
  nginx) echo http://127.0.0.1:19002/v1/chat/completions ;;
  portkey) echo http://127.0.0.1:19004/v1/chat/completions ;;
  switchboard|sb-https|sb-h2|sb-anthropic) echo http://127.0.0.1:19003/v1/chat/completions ;;
  direct-https) echo https://127.0.0.1:19021/v1/chat/completions ;;
  nginx-https) echo http://127.0.0.1:19022/v1/chat/completions ;;
esac; }
stream_url_of() { case $1 in
  direct) echo http://127.0.0.1:19005/v1/chat/completions ;;
  nginx) echo http://127.0.0.1:19012/v1/chat/completions ;;
  portkey) echo http://127.0.0.1:19004/v1/chat/completions ;;
  switchboard) echo http://127.0.0.1:19003/v1/chat/completions ;;
esac; }
model_of() { case $1 in
  switchboard) echo "${2:-bench}" ;;
  sb-https) echo bench-tls ;;
  sb-h2) echo bench-h2 ;;
  sb-anthropic) echo bench-anthropic ;;
  *) echo bench-model ;;
esac; }
headers_of() { [ "$1" = portkey ] && echo "${2:-$portkey_canned}" || true; }

# wrk's latency lines ("50%  123.00us") to milliseconds.
wrk_ms() { awk -v q="$1" '$1==q { v=$2; u=v; gsub(/[0-9.]/,"",u); gsub(/[a-z]/,"",v);
  if (u=="us") v/=1000; else if (u=="s") v*=1000; else if (u=="m") v*=60000; printf "%.3f", v }'; }
run_wrk() { # target connections → "p50 p99 rps errors"
  local target=$1 conns=$2 out threads=1
  [ "$conns" -gt 1 ] && threads=2
  out=$(WRK_BODY="$(body "$(model_of "$target")")" WRK_HEADERS="$(headers_of "$target")" \
    wrk -t$threads -c"$conns" -d"${seconds}s" --latency -s "$peers/post.lua" "$(url_of "$target")" 2>&1)
  local non2xx errors
  non2xx=$(echo "$out" | sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p')
  errors=$(echo "$out" | sed -n 's/.*Socket errors: connect \([0-9]*\), read \([0-9]*\), write \([0-9]*\), timeout \([0-9]*\).*/\1+\2+\3+\4/p')
  echo "$(echo "$out" | wrk_ms 50%) $(echo "$out" | wrk_ms 99%) $(echo "$out" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p') $(( ${non2xx:-0} + ${errors:-0} ))"
}
load_args() { # target stream? → the bench_load arguments for it
  local target=$1 stream=${2:-} headers url model
  if [ -n "$stream" ]; then
    url=$(stream_url_of "$target"); model=$(model_of "$target" bench-stream); headers=$(headers_of "$target" "$portkey_stream")
    [ "$target" = direct ] || [ "$target" = nginx ] && model=sim-model
  else
    url=$(url_of "$target"); model=$(model_of "$target"); headers=$(headers_of "$target")
  fi
  printf '%s\n' --url "$url" --body "$(body "$model" "${stream:+,\"stream\":true}")"
  [ -n "$stream" ] && printf '%s\n' --stream
  IFS='|' read -ra hs <<< "$headers"
  for h in "${hs[@]}"; do [ -n "$h" ] && printf '%s\n' --header "$h"; done
}
run_load() { # target stream? extra args… → key=value line
  local target=$1 stream=$2; shift 2
  mapfile -t args < <(load_args "$target" "$stream")
  "$bench_dir/tests/bench/bench_load" "${args[@]}" --duration "$seconds" --warmup 1 --label "$target" "$@" 2>/dev/null
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

# Between cells the machine is let go quiet, so no cell pays for the one before it: a proxy still
# working off a saturated cell (Portkey's queue, Switchboard's history rows) would land in the next
# cell's p99. The fixed-rate cells come before the saturating one for the same reason.
settle() { # until the machine is at least 90 % idle over half a second, for at most ~10 s
  local _
  for _ in $(seq 1 20); do [ "$(idle_percent)" -ge 90 ] && return 0; done
  return 0 # a machine that stays busy (another build) is measured as it is, not a reason to stop
}
idle_percent() { # over the next 0.5 s, from /proc/stat
  local a b
  a=$(awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat); sleep 0.5
  b=$(awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 }' /proc/stat)
  awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ");
    d = y[2] - x[2]; printf "%d", (d > 0 ? 100 * (y[1] - x[1]) / d : 100) }'
}

declare -A R
echo "Measuring ${seconds} s per cell (targets: ${targets[*]}) …" >&2
for t in "${targets[@]}"; do
  settle; read -r R[$t.c1p50] R[$t.c1p99] R[$t.c1rps] R[$t.c1err] <<< "$(run_wrk "$t" 1)"
  for rate in 500 2000; do
    settle; line=$(run_load "$t" "" --rate $rate)
    R[$t.r${rate}p50]=$(echo "$line" | field p50_ms); R[$t.r${rate}p99]=$(echo "$line" | field p99_ms)
    R[$t.r${rate}err]=$(echo "$line" | field errors)
  done
  settle; line=$(run_load "$t" stream --connections 1)
  R[$t.ttft50]=$(echo "$line" | field ttft_p50_ms); R[$t.ttft99]=$(echo "$line" | field ttft_p99_ms)
  R[$t.serr]=$(echo "$line" | field errors); R[$t.sok]=$(echo "$line" | field ok)
  # Portkey's Node process is stopped once measured (its one 50-connection cell here): an idle
  # event loop still wakes up and collects garbage beside the cells that follow.
  if [ "$t" = portkey ]; then
    settle; read -r R[$t.c50p50] R[$t.c50p99] R[$t.c50rps] R[$t.c50err] <<< "$(run_wrk "$t" 50)"
    kill "$portkey_pid" 2>/dev/null || true; wait "$portkey_pid" 2>/dev/null || true
  fi
  echo "  $t done" >&2
done

# The upstream kinds, on the same Switchboard, at one connection.
kinds=(direct-https nginx-https sb-https sb-h2 sb-anthropic)
for t in "${kinds[@]}"; do
  settle; read -r R[$t.c1p50] R[$t.c1p99] R[$t.c1rps] R[$t.c1err] <<< "$(run_wrk "$t" 1)"
  echo "  $t done" >&2
done

# 50 connections, every target and kind in each of rounds50 alternating rounds, each figure the
# median of its rounds: one cell on this VM moves by 15-20 % with its neighbours, enough to turn a
# target's verdict either way, and a round measures every target under the same weather. The
# first round's HTTPS cells open their upstream connections as a burst of new clients opens them
# (tests/bench/tls-burst.sh measures that first second alone).
rounds50=3
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A C50
for round in $(seq 1 $rounds50); do
  for t in "${targets[@]}" "${kinds[@]}"; do
    [ "$t" = portkey ] && continue
    settle; read -r p50 p99 rps err <<< "$(run_wrk "$t" 50)"
    C50[$t.p50]+=" $p50" C50[$t.p99]+=" $p99" C50[$t.rps]+=" $rps"
    R[$t.c50err]=$(( ${R[$t.c50err]:-0} + err ))
  done
  echo "  50 connections, round $round of $rounds50 done" >&2
done
for t in "${targets[@]}" "${kinds[@]}"; do
  [ "$t" = portkey ] && continue
  # shellcheck disable=SC2086 # the rounds' figures, one word each
  R[$t.c50p50]=$(median ${C50[$t.p50]}) R[$t.c50p99]=$(median ${C50[$t.p99]}) R[$t.c50rps]=$(median ${C50[$t.rps]})
done

# 4. 1,000 concurrent streams through a freshly started Switchboard: success, peak RSS, CPU.
kill "$switchboard_pid"; wait "$switchboard_pid" 2>/dev/null || true
start_switchboard streams
ticks=$(getconf CLK_TCK)
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
cpu_before=$(cpu_of "$switchboard_pid")
stream_seconds=$(( seconds * 2 ))
mapfile -t args < <(load_args switchboard stream)
args=("${args[@]/bench-stream/bench-long}")
streams_line=$("$bench_dir/tests/bench/bench_load" "${args[@]}" --connections 1000 --duration "$stream_seconds" \
  --warmup 2 --label streams 2>/dev/null)
cpu_after=$(cpu_of "$switchboard_pid")
peak_rss_mb=$(awk '/VmHWM/ { printf "%.1f", $2/1024 }' "/proc/$switchboard_pid/status")
cpu_pct=$(awk -v a="$cpu_before" -v b="$cpu_after" -v t="$ticks" -v s="$((stream_seconds + 2))" \
  'BEGIN { printf "%.0f", 100 * (b - a) / t / s }')
fds=$(ls "/proc/$switchboard_pid/fd" | wc -l)

# 5. The table.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
added() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.3f", a - b }'; }
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$root" diff --quiet HEAD -- core app 2>/dev/null || commit="$commit+changes"
printf '\nPeer comparison on %s (%s cores, load average %s), %s s per cell, Switchboard at commit %s\n' "$(uname -n)" "$(nproc)" \
  "$(cut -d' ' -f1 /proc/loadavg)" "$seconds" "$commit"
printf '(50 connections: the median of %s alternating rounds; errors summed over them)\n' "$rounds50"
printf '\nNon-streaming small completion (ms; "added" is the difference to direct; x = ratio to direct)\n'
printf '%-12s | %-24s | %-24s | %-22s | %-20s | %-20s\n' target "1 conn p50 (added)" "1 conn p99 (added)" \
  "50 conns req/s (x)" "500/s p99 (added)" "2000/s p99 (added)"
for t in "${targets[@]}"; do
  printf '%-12s | %9s (%9s) %3s | %9s (%9s)    | %9s (%5s) err %-3s | %8s (%8s) | %8s (%8s)\n' "$t" \
    "${R[$t.c1p50]}" "$(added "${R[$t.c1p50]}" "${R[direct.c1p50]}")" "" \
    "${R[$t.c1p99]}" "$(added "${R[$t.c1p99]}" "${R[direct.c1p99]}")" \
    "${R[$t.c50rps]}" "$(ratio "${R[$t.c50rps]}" "${R[direct.c50rps]}")" "${R[$t.c50err]}" \
    "${R[$t.r500p99]}" "$(added "${R[$t.r500p99]}" "${R[direct.r500p99]}")" \
    "${R[$t.r2000p99]}" "$(added "${R[$t.r2000p99]}" "${R[direct.r2000p99]}")"
done
printf '\nUpstream kinds (ms): HTTPS by name to a server that offers HTTP/2 and HTTP/1.1, as a hosted provider is reached\n'
printf '(sb-https: the provider default, HTTP/1.1; sb-h2: a provider that asks for HTTP/2), verified against the bench\n'
printf 'certificate; and an Anthropic-dialect upstream (plain HTTP; the OpenAI request and its answer translated). "added"\n'
printf 'is over direct HTTPS (the Anthropic row: over direct plain HTTP); x = ratio to nginx → HTTPS (the Anthropic row: to\n'
printf 'Switchboard → plain)\n'
printf '%-13s | %-22s | %-9s | %-26s | %-18s\n' target "1 conn p50 (added)" "1 conn p99" "50 conns req/s (x) err" "50 conns p99 (x)"
for t in "${kinds[@]}"; do
  base_p50=${R[direct-https.c1p50]} base_rps=${R[nginx-https.c50rps]} base_p99=${R[nginx-https.c50p99]}
  if [ "$t" = sb-anthropic ]; then base_p50=${R[direct.c1p50]} base_rps=${R[switchboard.c50rps]} base_p99=${R[switchboard.c50p99]}; fi
  printf '%-13s | %8s (%9s)  | %9s | %9s (%5s) err %-5s | %8s (%5s)\n' "$t" \
    "${R[$t.c1p50]}" "$(added "${R[$t.c1p50]}" "$base_p50")" "${R[$t.c1p99]}" \
    "${R[$t.c50rps]}" "$(ratio "${R[$t.c50rps]}" "$base_rps")" "$(( ${R[$t.c1err]:-0} + ${R[$t.c50err]:-0} ))" \
    "${R[$t.c50p99]}" "$(ratio "${R[$t.c50p99]}" "$base_p99")"
done
verdict() { awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN { ok = (op == "<=") ? (a <= b) : (a >= b); printf "%s", ok ? "met" : "MISSED" }'; }
scaled() { awk -v a="$1" -v f="$2" 'BEGIN { printf "%.3f", a * f }'; }
sb_added=$(added "${R[sb-https.c1p50]}" "${R[direct-https.c1p50]}")
printf '\nTargets of the HTTPS path, this run:\n'
printf '  HTTPS 50 conns p99 %s ms <= 2x nginx %s ms: %s\n' "${R[sb-https.c50p99]}" "${R[nginx-https.c50p99]}" \
  "$(verdict "${R[sb-https.c50p99]}" "<=" "$(scaled "${R[nginx-https.c50p99]}" 2)")"
printf '  HTTPS 50 conns req/s %s >= 1.0x nginx %s: %s\n' "${R[sb-https.c50rps]}" "${R[nginx-https.c50rps]}" \
  "$(verdict "${R[sb-https.c50rps]}" ">=" "${R[nginx-https.c50rps]}")"
printf '  HTTPS 1 conn p50 added %s ms <= 0.060 ms: %s\n' "$sb_added" "$(verdict "$sb_added" "<=" 0.060)"
printf '  plain 50 conns req/s %s >= 1.0x nginx %s: %s\n' "${R[switchboard.c50rps]}" "${R[nginx.c50rps]}" \
  "$(verdict "${R[switchboard.c50rps]}" ">=" "${R[nginx.c50rps]}")"
printf '  plain 50 conns p99 %s ms <= 1.5x nginx %s ms: %s\n' "${R[switchboard.c50p99]}" "${R[nginx.c50p99]}" \
  "$(verdict "${R[switchboard.c50p99]}" "<=" "$(scaled "${R[nginx.c50p99]}" 1.5)")"
printf '  Anthropic upstream req/s %s >= 0.8x pass-through %s: %s\n' "${R[sb-anthropic.c50rps]}" "${R[switchboard.c50rps]}" \
  "$(verdict "${R[sb-anthropic.c50rps]}" ">=" "$(scaled "${R[switchboard.c50rps]}" 0.8)")"

printf '\nStreaming, one connection (fake upstream TTFT 20 ms): TTFT in ms\n'
printf '%-12s | %-22s | %-10s | %s\n' target "TTFT p50 (added)" "TTFT p99" "streams ok / errors"
for t in "${targets[@]}"; do
  printf '%-12s | %8s (%9s)  | %10s | %s / %s\n' "$t" "${R[$t.ttft50]}" "$(added "${R[$t.ttft50]:-0}" "${R[direct.ttft50]}")" \
    "${R[$t.ttft99]}" "${R[$t.sok]}" "${R[$t.serr]}"
done
printf '\n1,000 concurrent streams through Switchboard (%s s, each stream ~6 s):\n' "$stream_seconds"
printf '  completed %s, errors %s, TTFT p50 %s ms / p99 %s ms; Switchboard peak RSS %s MB, CPU %s %% of one core, %s open fds after\n' \
  "$(echo "$streams_line" | field ok)" "$(echo "$streams_line" | field errors)" \
  "$(echo "$streams_line" | field ttft_p50_ms)" "$(echo "$streams_line" | field ttft_p99_ms)" \
  "$peak_rss_mb" "$cpu_pct" "$fds"
for t in "${targets[@]}"; do
  case "$t" in portkey) [ "${R[$t.serr]:-0}" != 0 ] && \
    printf '  Portkey streaming: %s errors (a known Portkey 1.15 failure on Node 20: every stream is a 500)\n' "${R[$t.serr]}";;
  esac
done

# 6. The front doors, on a freshly started Switchboard and the same canned upstream.
kill "$switchboard_pid"; wait "$switchboard_pid" 2>/dev/null || true
start_switchboard doors
printf '\nFront doors: the same small completion through each client API (tests/bench/front-doors.sh)\n'
door_rounds=4
[ "$seconds" -lt 10 ] && door_rounds=2
SB_DOORS_INSIDE=1 SB_DOORS_REUSE=1 "$root/tests/bench/front-doors.sh" --rounds $door_rounds --seconds "$seconds"

if [ $with_drill = 1 ]; then
  printf '\nFull-length launch-day drill (5 minutes):\n'
  kill "$switchboard_pid"; wait "$switchboard_pid" 2>/dev/null || true
  HOME="$work/home" XDG_DATA_HOME="$work/data" "$bench_dir/bin/switchboard" --headless --db "$work/drill.db" \
    --config tests/sim/launch-day-proxy.json --listen 127.0.0.1:8400 --log-level warn >"$work/drill-proxy.log" 2>&1 &
  pids+=($!)
  wait_for http://127.0.0.1:8400/healthz
  SIM="$bench_dir/bin/switchboard-sim" sh tests/sim/run-drill.sh resources/drills/launch-day.json \
    http://127.0.0.1:8400/v1 2>&1 | tail -25
fi

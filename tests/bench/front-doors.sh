#!/usr/bin/env bash
# What each front door adds, side by side in one run: the same small completion asked of nginx
# returning a canned answer, directly and through Switchboard's doors:
#   chat        OpenAI chat completions to an OpenAI-compatible upstream (the answer passes through)
#   responses   the Responses API to the same upstream (translated each way; the response is stored,
#               as OpenAI's default store: true asks)
#   resp-nostore the same with store: false (what Codex CLI sends): nothing is written to SQLite
#   messages    Anthropic Messages to an Anthropic upstream (nearly as sent, both ways)
#   messages→oa Anthropic Messages to the OpenAI-compatible upstream (translated each way)
# Alternating rounds, rotating order; each round measures one connection (p50) and 50 connections
# (req/s) per target.
#
#   tests/bench/front-doors.sh [--rounds N] [--seconds S]
#
# "added" at one connection is p50(door) - p50(direct); at 50 connections it is the machine time a
# request costs, 1/rps(door) - 1/rps(direct), since load generator, proxy and upstream share the
# cores. The verdict compares each translating door's added cost to the chat door's. Runs as
# root in a private network namespace, like tests/bench/run.sh, on build/bench. tests/bench/run.sh
# runs it as its last part (SB_DOORS_REUSE=1: its upstream nginx and a fresh Switchboard are up).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
peers="$root/tests/bench/peers"
bench_dir="$root/build/bench"
rounds=4 seconds=8
source "$root/tests/bench/lib/namespace.sh"
bench_read_rounds "tests/bench/front-doors.sh [--rounds N] [--seconds S]" "$@"
bench_enter_namespace SB_DOORS_INSIDE

ulimit -n 65536 2>/dev/null || ulimit -n 8192
work=$(mktemp -d /tmp/sb-doors.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -f "$work/upstream-nginx.pid" ] && kill "$(cat "$work/upstream-nginx.pid")" 2>/dev/null || true
  sleep 0.3; rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${SB_DOORS_REUSE:-}" ]; then
  sed "s|@WORK@|$work|g" "$peers/upstream-nginx.conf" > "$work/upstream-nginx.conf"
  nginx -c "$work/upstream-nginx.conf" -p "$work" -g 'daemon on;' 2>"$work/nginx.log" || { cat "$work/nginx.log"; exit 1; }
  "$peers/make-cert.sh" "$work" # the bench configuration's TLS providers name it as their CA bundle
  sed "s|@WORK@|$work|g" "$peers/switchboard-bench.json" > "$work/switchboard-bench.json"
  HOME="$work/home" XDG_DATA_HOME="$work/data" "$bench_dir/bin/switchboard" --headless --db "$work/switchboard.db" \
    --config "$work/switchboard-bench.json" --log-level warn >"$work/switchboard.log" 2>&1 &
  pids+=($!)
fi
wait_for http://127.0.0.1:19001/
wait_for http://127.0.0.1:19003/healthz

doors=(chat responses resp-nostore messages messages-oa)
url_of() { case $1 in
  direct) echo http://127.0.0.1:19001/v1/chat/completions ;;
  chat) echo http://127.0.0.1:19003/v1/chat/completions ;;
  responses|resp-nostore) echo http://127.0.0.1:19003/v1/responses ;;
  messages|messages-oa) echo http://127.0.0.1:19003/v1/messages ;;
esac; }
body_of() { case $1 in
  direct) echo '{"model":"bench-model","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16}' ;;
  chat) echo '{"model":"bench","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16}' ;;
  responses) echo '{"model":"bench","input":"Say hello.","max_output_tokens":16}' ;;
  resp-nostore) echo '{"model":"bench","input":"Say hello.","max_output_tokens":16,"store":false}' ;;
  messages) echo '{"model":"bench-anthropic","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16}' ;;
  messages-oa) echo '{"model":"bench","messages":[{"role":"user","content":"Say hello."}],"max_tokens":16}' ;;
esac; }
headers_of() { case $1 in messages|messages-oa) echo 'anthropic-version: 2023-06-01' ;; esac; }
wrk_ms() { awk -v q="$1" '$1==q { v=$2; u=v; gsub(/[0-9.]/,"",u); gsub(/[a-z]/,"",v);
  if (u=="us") v/=1000; else if (u=="s") v*=1000; printf "%.3f", v }'; }
cell() { # target connections → "p50_ms rps non2xx"
  local threads=1 out
  [ "$2" -gt 1 ] && threads=2
  out=$(WRK_BODY="$(body_of "$1")" WRK_HEADERS="$(headers_of "$1")" wrk -t$threads -c"$2" -d"${seconds}s" --latency \
        -s "$peers/post.lua" "$(url_of "$1")" 2>&1)
  echo "$(echo "$out" | wrk_ms 50%) $(echo "$out" | sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p') \
$(echo "$out" | sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p')"
}
# Each door answers before it is measured: a refusal would be fast and look like a win.
for t in "${doors[@]}"; do
  code=$(curl -s -o "$work/$t.json" -w '%{http_code}' -H 'Content-Type: application/json' -H "$(headers_of "$t")" \
         -d "$(body_of "$t")" "$(url_of "$t")")
  [ "$code" = 200 ] || { echo "$t answered $code: $(cat "$work/$t.json")"; exit 1; }
done

printf '%s s per cell, %s rounds, %s cores, load average %s\n\n' "$seconds" "$rounds" "$(nproc)" "$(cut -d' ' -f1 /proc/loadavg)"
all=(direct "${doors[@]}")
n=${#all[@]}
row() { printf '%-5s |' "$1"; shift; for v in "${@:1:n}"; do printf ' %-12s' "$v"; done; printf ' |'
  for v in "${@:n+1:n}"; do printf ' %-12s' "$v"; done; printf '\n'; }
printf '%-5s | %-*s | %s\n' "" $(( 13 * n - 1 )) "1 connection, p50 ms" "50 connections, req/s"
row round "${all[@]}" "${all[@]}"
declare -A p50s rpss
# Each round rotates the order by one and reverses every other round, so no target always runs
# first or right after the same neighbour.
order_of() { local r=$1 i out=()
  for i in $(seq 0 $(( n - 1 ))); do out+=("${all[$(( (i + r) % n ))]}"); done
  if (( r % 2 )); then for (( i = n - 1; i >= 0; i-- )); do printf '%s ' "${out[$i]}"; done
  else printf '%s ' "${out[@]}"; fi; }
for round in $(seq 1 "$rounds"); do
  declare -A p50=() rps=()
  for t in $(order_of "$round"); do
    read -r p50[$t] _ bad1 <<< "$(cell "$t" 1)"
    read -r _ rps[$t] bad50 <<< "$(cell "$t" 50)"
    [ "${bad1:-0}${bad50:-0}" = "00" ] || [ -z "$bad1$bad50" ] || { echo "$t: non-2xx answers ($bad1, $bad50)"; exit 1; }
    p50s[$t]+="${p50[$t]} "; rpss[$t]+="${rps[$t]} "
  done
  cells=()
  for t in "${all[@]}"; do cells+=("${p50[$t]}"); done
  for t in "${all[@]}"; do cells+=("${rps[$t]}"); done
  row "$round" "${cells[@]}"
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A m_p50 m_rps
for t in "${all[@]}"; do
  m_p50[$t]=$(echo "${p50s[$t]}" | median)
  m_rps[$t]=$(echo "${rpss[$t]}" | median)
done
added_ms() { awk -v a="${m_p50[$1]}" -v d="${m_p50[direct]}" 'BEGIN { printf "%.3f", a - d }'; }
cost_us() { awk -v a="${m_rps[$1]}" -v d="${m_rps[direct]}" 'BEGIN { printf "%.1f", 1e6 / a - 1e6 / d }'; }
times() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'; }
printf '\nMedians: what each door adds over asking the upstream directly\n'
printf '%-12s | %-22s | %-26s\n' door "1 conn p50 added (ms)" "50 conns cost added (us/req)"
for t in "${doors[@]}"; do
  printf '%-12s | %-22s | %-26s\n' "$t" "$(added_ms "$t")" "$(cost_us "$t")"
done
printf '\nAgainst chat completions to the OpenAI-compatible upstream (the limits: responses 1.5x, messages 1.3x)\n'
for t in responses:1.5 resp-nostore:1.5 messages:1.3 messages-oa:-; do
  door=${t%%:*} limit=${t##*:}
  one=$(times "$(added_ms "$door")" "$(added_ms chat)")
  fifty=$(times "$(cost_us "$door")" "$(cost_us chat)")
  verdict=""
  [ "$limit" != - ] && verdict=$(awk -v a="$one" -v b="$fifty" -v l="$limit" \
    'BEGIN { printf "%s %sx", (a <= l && b <= l) ? ": within" : ": OVER", l }')
  printf '%-12s | 1 conn %sx, 50 conns %sx%s\n' "$door" "$one" "$fifty" "$verdict"
done

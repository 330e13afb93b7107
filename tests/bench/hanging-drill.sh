#!/bin/sh
# Benchmark, not a test: the full-length hanging-primary drill (5 minutes of real time, 4 requests/s,
# half of them streamed; the primary accepts every request and never answers from second 120 to 240)
# through a headless Switchboard running the shipped defaults (tests/sim/launch-day-proxy.json: the
# launch-day breaker, attempt budgets 5 s / 30 s / 20 s). Prints the drill's report, then the targets
# and their verdicts:
#   - every request succeeds;
#   - in the outage, stream TTFT p95 at most 1.5x the fallback's own and non-stream latency p95 at
#     most 2x (the fallback's own: requests of the same minutes it answered at their first attempt);
#   - the primary carries traffic again within its breaker's half-open time plus three probes after
#     it recovers: the rest of the 120 s open duration (it opened about when the last request touched
#     the primary) plus three heartbeat intervals (10 s). The half-open state admits 5 % of traffic
#     and at least one trial at a time each second, so recovery is about three trial calls after it;
#     the figure is printed beside the half-open time.
#
#   tests/bench/hanging-drill.sh [--embedded] [PORT]   (default 8490; the drill's providers use 18401/18402)
#   tests/bench/hanging-drill.sh --verdicts REPORT.json  (only the verdicts of a report written before)
#
# --embedded (or no switchboard binary built) runs the engine inside switchboard-sim instead
# (`drill --embedded`): the same defaults, the scenario's launch-day preset, no proxy process.
# SWITCHBOARD and SIM may point at other binaries; TIME_SCALE runs it faster (the engine is then not
# scaled, so read those figures as a smoke run only). Exit status 1 when a target is missed.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
embedded=0 verdicts_of=
if [ "${1:-}" = --embedded ]; then embedded=1; shift; fi
if [ "${1:-}" = --verdicts ]; then verdicts_of=${2:?a report JSON}; shift 2; fi
port=${1:-8490}
find_bin() {
  for candidate in "$here/build/release/bin/$1" "$here/build/bench/bin/$1" "$here/build/debug/bin/$1"; do
    if [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  command -v "$1" || true
}
if [ -z "$verdicts_of" ]; then
switchboard=${SWITCHBOARD:-$(find_bin switchboard)}
sim=${SIM:-$(find_bin switchboard-sim)}
if [ -z "$sim" ]; then
  echo "switchboard-sim not found: build it (cmake --build --preset debug) or set SIM" >&2
  exit 1
fi
if [ -z "$switchboard" ] && [ $embedded = 0 ]; then
  echo "no switchboard binary: running the engine embedded in switchboard-sim"
  embedded=1
fi
work=$(mktemp -d /tmp/sb-hanging-drill.XXXXXX)
proxy_pid=
cleanup() {
  if [ -n "$proxy_pid" ]; then kill "$proxy_pid" 2>/dev/null || true; wait "$proxy_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

out=${OUT:-$PWD/drill-hanging-primary-$(date -u +%Y%m%dT%H%M%SZ).json}
if [ $embedded = 1 ]; then
  set -- drill "$here/resources/drills/hanging-primary.json" --embedded --json "$out"
else
  HOME="$work/home" XDG_DATA_HOME="$work/data" "$switchboard" --headless --db "$work/drill.db" \
    --config "$here/tests/sim/launch-day-proxy.json" --listen "127.0.0.1:$port" --log-level warn >"$work/proxy.log" 2>&1 &
  proxy_pid=$!
  up=0
  for _ in $(seq 1 150); do
    if curl -s -o /dev/null "http://127.0.0.1:$port/healthz"; then up=1; break; fi
    sleep 0.1
  done
  if [ $up = 0 ]; then echo "the proxy did not start:"; cat "$work/proxy.log"; exit 1; fi
  set -- drill "$here/resources/drills/hanging-primary.json" --proxy "http://127.0.0.1:$port/v1" --json "$out"
fi
if [ -n "${TIME_SCALE:-}" ]; then set -- "$@" --time-scale "$TIME_SCALE"; fi
"$sim" "$@"
else
  out=$verdicts_of
fi

# One number of the report's JSON: QJsonDocument writes one member a line, indented 4 spaces at the
# top level and 8 inside outage_window (whose "requests" and "succeeded" are the window's).
value() { sed -n "s/^    \"$1\": *\\([-0-9.e+]*\\),\\{0,1\\}\$/\\1/p" "$out" | head -1; }
window_value() { sed -n "s/^        \"$1\": *\\([-0-9.e+]*\\),\\{0,1\\}\$/\\1/p" "$out" | head -1; }
requests=$(value requests)
succeeded=$(value succeeded)
ttft_ratio=$(window_value ttft_p95_ratio)
latency_ratio=$(window_value latency_p95_ratio)
outage_from=$(value outage_from_s)
outage_to=$(value outage_to_s)
to_fallback=$(value time_to_fallback_s)
to_recovery=$(value time_to_recovery_s)
# The launch-day preset: open 120 s; the drill's rate: 4 requests/s; heartbeats every 10 s.
awk -v requests="$requests" -v succeeded="$succeeded" -v ttft="$ttft_ratio" -v latency="$latency_ratio" \
    -v from="$outage_from" -v to="$outage_to" -v fallback="${to_fallback:-0}" -v recovery="${to_recovery:--1}" '
function verdict(ok) { if (!ok) missed = 1; return ok ? "met" : "MISSED" }
BEGIN {
  open = 120; rate = 4; probe = 10
  half_open_after = from + fallback + 1 / rate + open - to
  bound = half_open_after + 3 * probe
  printf "\nTargets (shipped defaults, primary hanging %s s to %s s):\n", from, to
  printf "  every request succeeds          %d of %d                      %s\n", succeeded, requests, verdict(succeeded == requests)
  printf "  stream TTFT p95 vs fallback     %.2fx (target <= 1.5x)          %s\n", ttft, verdict(ttft > 0 && ttft <= 1.5)
  printf "  non-stream latency p95 vs fb    %.2fx (target <= 2x)            %s\n", latency, verdict(latency > 0 && latency <= 2.0)
  printf "  primary carries traffic again   %.1f s after recovery (target <= %.1f s: half-open at %.1f s + 3 probes) %s\n", \
         recovery, bound, half_open_after, verdict(recovery >= 0 && recovery <= bound)
  exit missed
}'

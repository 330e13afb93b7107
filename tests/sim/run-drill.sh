#!/bin/sh
# Benchmark, not a test: a full-length drill (default: launch-day, 5 minutes of real time) through a
# running Switchboard proxy, printing the report and keeping it as JSON.
#
#   tests/sim/run-drill.sh [SCENARIO.json] [PROXY_BASE_URL]
#
# Start the proxy first with a config whose channels point at the scenario's fixed ports (launch-day:
# primary 127.0.0.1:18401/v1, fallback 127.0.0.1:18402/v1) and are named as the scenario's
# report.primary_channels expect. SIM may point at another switchboard-sim binary; TIME_SCALE runs
# the drill faster (the proxy's windows must then be scaled too, see SCENARIO_FORMAT.md).
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
scenario=${1:-$here/resources/drills/launch-day.json}
proxy=${2:-http://127.0.0.1:8400/v1}
sim=${SIM:-}
if [ -z "$sim" ]; then
  for candidate in "$here/build/release/bin/switchboard-sim" "$here/build/bench/bin/switchboard-sim" \
                   "$here/build/debug/bin/switchboard-sim" "$(command -v switchboard-sim || true)"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then sim=$candidate; break; fi
  done
fi
if [ -z "$sim" ]; then
  echo "switchboard-sim not found: build it (cmake --workflow --preset release) or set SIM=/path/to/switchboard-sim" >&2
  exit 1
fi
name=$(basename "$scenario" .json)
out=${OUT:-$PWD/drill-$name-$(date -u +%Y%m%dT%H%M%SZ).json}
set -- drill "$scenario" --proxy "$proxy" --json "$out"
if [ -n "${TIME_SCALE:-}" ]; then set -- "$@" --time-scale "$TIME_SCALE"; fi
"$sim" "$@"
echo "report written to $out"

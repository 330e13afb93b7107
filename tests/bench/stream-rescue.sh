#!/bin/sh
# Benchmark, not a test: the full-length stream-rescue drill (1 minute of real time, 20 streams/s;
# the primary breaks 30 % of them halfway through the answer and the fallback, asked to continue,
# repeats the last 12 characters first) with the engine embedded in switchboard-sim at its defaults.
# Prints the drill's report, then the targets and their verdicts:
#   - at least 99.9 % of streams complete and well-formed;
#   - none with a repeated or missing span at the splice (each client text is exactly one whole
#     answer of the simulator's passage);
#   - the median time a rescue adds (the longest wait between two pieces of text in a rescued
#     stream) beside the fallback's own TTFT.
#
#   tests/bench/stream-rescue.sh              (the drill's providers use ports 18451/18452)
#   tests/bench/stream-rescue.sh tool-call-rescue
#                                             (30 s, 10 streams/s, answers that reason and call a
#                                             tool, broken inside the call, the reasoning or the
#                                             text; adds the target: one whole call per stream)
#
# SIM may point at another switchboard-sim. Exit status 1 when a target is missed.
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
sim=${SIM:-}
if [ -z "$sim" ]; then
  for candidate in "$here/build/release/bin/switchboard-sim" "$here/build/bench/bin/switchboard-sim" "$here/build/debug/bin/switchboard-sim"; do
    if [ -x "$candidate" ]; then sim=$candidate; break; fi
  done
fi
[ -n "$sim" ] || { echo "switchboard-sim not found: build it (cmake --build --preset release) or set SIM" >&2; exit 1; }
drill=${1:-stream-rescue}
out=${OUT:-$PWD/drill-$drill-$(date -u +%Y%m%dT%H%M%SZ).json}
"$sim" drill "$here/resources/drills/$drill.json" --embedded --json "$out"

# One number of the report's stream_rescue object (QJsonDocument: one member a line, 8 spaces in;
# the percentiles' members 12).
score() { sed -n "/\"stream_rescue\"/,/^    }/s/^        \"$1\": *\\([-0-9.e+]*\\),\\{0,1\\}\$/\\1/p" "$out" | head -1; }
median() { sed -n "/\"stream_rescue\"/,/^    }/{/\"$1\"/,/}/s/^            \"p50\": *\\([-0-9.e+]*\\),\\{0,1\\}\$/\\1/p}" "$out" | head -1; }
streams=$(score streams) well=$(score well_formed) intact=$(score intact)
printf '\nTargets\n'
status=0
if awk -v w="$well" -v s="$streams" 'BEGIN { exit !(s > 0 && w >= 0.999 * s) }'; then verdict=met; else verdict=MISSED; status=1; fi
printf '  well-formed streams      %s of %s (at least 99.9 %%): %s\n' "$well" "$streams" "$verdict"
if [ "$intact" = "$well" ]; then verdict=met; else verdict=MISSED; status=1; fi
printf '  whole answers            %s of %s well-formed (no seam shows): %s\n' "$intact" "$well" "$verdict"
calls=$(score with_tool_calls) whole_calls=$(score tool_calls_whole)
if [ -n "$calls" ] && [ "$calls" != 0 ]; then
  if [ "$whole_calls" = "$calls" ] && [ "$calls" = "$well" ]; then verdict=met; else verdict=MISSED; status=1; fi
  printf '  tool calls               %s of %s streams with exactly one whole call: %s\n' "$whole_calls" "$well" "$verdict"
fi
printf '  rescue time              median %.0f ms, beside the fallback'"'"'s own TTFT median %.0f ms\n' \
  "$(median rescue_gap_ms)" "$(score fallback_ttft_ms)"
exit $status

#!/bin/sh
# Runs every libFuzzer target for N seconds (default 60) over its committed corpus.
#   cmake --preset fuzz && cmake --build --preset fuzz && tests/fuzz/run.sh [seconds] [build-dir]
# New inputs that add coverage go to build-dir/fuzz-corpus/<target>/ (copy the interesting ones into
# tests/fuzz/corpus/<target>/ and commit them); crashes go to build-dir/fuzz-crashes/<target>/ — copy
# each reproducer into tests/fuzz/regressions/<target>/ so tst_FuzzCorpora replays it from then on.
# The last lines of each target's log (execs, coverage) are printed as a summary.
set -eu
seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
build=${2:-$here/../../build/fuzz}
build=$(cd "$build" && pwd)
status=0
for target in http_request http_request_reader http_response sse_parser utf8_reassembler errormap stream_translator config_json; do
    exe=$build/tests/fuzz/fuzz_$target
    if [ ! -x "$exe" ]; then
        echo "missing $exe: build the fuzz preset first" >&2
        exit 2
    fi
    work=$build/fuzz-corpus/$target
    crashes=$build/fuzz-crashes/$target
    mkdir -p "$work" "$crashes"
    log=$build/fuzz-$target.log
    # The HTTP target answers over a socket per input, so its inputs stay small; the others take 64 KiB.
    maxlen=65536
    [ "$target" = http_request ] && maxlen=16384
    echo "== fuzz_$target for ${seconds}s"
    if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        QT_QPA_PLATFORM=offscreen "$exe" "$work" "$here/corpus/$target" \
        -max_total_time="$seconds" -max_len="$maxlen" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1; then
        echo "   CRASH (see $log and $crashes/)"
        status=1
    fi
    grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)' "$log" | sed 's/^/   /' || true
    grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 | sed 's/^/   /' || true
done
exit $status

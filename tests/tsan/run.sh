#!/bin/sh
# The whole suite under ThreadSanitizer, and the races it reports in the project's own code.
#   tests/tsan/run.sh [ctest arguments, e.g. -R Drill]
# Builds the `tsan` preset (clang, -O1; ~15 minutes cold on two cores), runs the tests with every
# report written to build/tsan/tsan-reports/, then prints the reports that a reader has to look at.
#
# Qt is not built with ThreadSanitizer, so it cannot see Qt's own synchronisation: a functor or an
# event handed to another thread's loop (a worker started, a descriptor handed over, a queued
# signal, a thread pool's job) shows as a race between the two sides. Those reports are counted
# and left out; what is printed is every report in which an access happened in the project's code
# (sb:: or a test's own functions) and neither access was such a hand-off. A wait on one of Qt's
# semaphores is unseen too: tst_LoopClockTimers reads what its loop thread wrote after one, and
# shows. Not part of CI: the build and the run together take about 20 minutes on two cores.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
cd "$root"
cmake --preset tsan >/dev/null
cmake --build --preset tsan
reports=$root/build/tsan/tsan-reports
rm -rf "$reports"
mkdir -p "$reports"
status=0
QT_QPA_PLATFORM=offscreen TSAN_OPTIONS="log_path=$reports/report exitcode=0 report_signal_unsafe=0" \
    ctest --test-dir build/tsan --output-on-failure --timeout 900 -j2 "$@" || status=$?
cat "$reports"/report.* 2>/dev/null | awk -f "$here/own-races.awk"
exit $status

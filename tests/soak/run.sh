#!/usr/bin/env bash
# The soak, run by hand: N minutes (default 30) of mixed traffic with random
# faults through a release build of the headless proxy, to show that it does not leak and that the
# only errors a client sees are the ones the faults make unavoidable.
#
#   tests/soak/run.sh [--minutes N]
#
# What it runs: `switchboard --headless` with tests/soak/soak-proxy.json (four logical models, each
# with two or three channels on six providers of five dialects), and `switchboard-sim drill` with
# tests/soak/soak.json (those providers with fault programs that repeat the whole time, and ~50
# requests/s of load, 60 % streamed). Two providers (oai-b, claude) serve HTTPS with a certificate
# the run makes for localhost and are reached by name, as hosted providers are. Every 10 s it
# samples the proxy's RSS (VmRSS), its open file descriptors and its request counters (/metrics);
# after the load ends it keeps sampling until the descriptors are back. Then it prints the table
# and the verdict, and exits 1 when the verdict fails:
#   - RSS flat: the mean of the last third of the samples under load may exceed the middle third's
#     by at most 5 %, or by 4 MB when that is more (see RSS_RULE below for why);
#   - descriptors: after the load, within FD_SLACK of the count before it;
#   - errors: every request the client saw fail is one the proxy could not save: cut mid-stream
#     where the stream could not be continued (the continuation itself cut, or every channel of the
#     model faulted), or every channel of its model was faulted in that request (its attempt failed,
#     or the router kept it out: circuit open or its trials taken, every key cooling);
#     the proxy's history (SQLite) holds each request's attempts and the refusal's reasons per channel.
# Release binaries: cmake --preset release && cmake --build build/release -j2 --target switchboard switchboard-sim
# BUILD=dir uses another build tree; PORT=n another proxy port (default 18600). Everything the run
# writes (samples.csv, the proxy's log and database, the drill's report) is kept in
# $BUILD/soak/<UTC time>/.
set -euo pipefail

minutes=30
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) minutes=${2:?--minutes needs a number}; shift 2 ;;
    --minutes=*) minutes=${1#--minutes=}; shift ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (usage: run.sh [--minutes N])" >&2; exit 2 ;;
  esac
done
if ! [[ $minutes =~ ^[0-9]+$ ]] || [ "$minutes" -lt 1 ]; then
  echo "run.sh: --minutes needs a whole number of minutes, at least 1 (got \"$minutes\")" >&2
  exit 2
fi

here=$(cd "$(dirname "$0")/../.." && pwd)
soak=$here/tests/soak
build=${BUILD:-$here/build/release}
case $build in /*) ;; *) build=$PWD/$build ;; esac # the proxy's config names files under it by absolute path
port=${PORT:-18600}
proxy_bin=$build/bin/switchboard
sim_bin=$build/bin/switchboard-sim
for bin in "$proxy_bin" "$sim_bin"; do
  if [ ! -x "$bin" ]; then
    echo "run.sh: $bin is missing; build it with" >&2
    echo "  cmake --preset release && cmake --build build/release -j2 --target switchboard switchboard-sim" >&2
    exit 1
  fi
done
for tool in curl jq sqlite3 awk openssl; do
  command -v "$tool" >/dev/null || { echo "run.sh: needs $tool" >&2; exit 1; }
done

# The rules of the verdict.
FD_SLACK=4        # pooled upstream connections the engine may still hold (one per provider would be 6; none are expected)
RSS_PERCENT=5     # growth of the last third over the middle third, in %
RSS_FLOOR_MB=4    # ... or in MB, whichever allows more
SAMPLE_S=10
SETTLE_MAX_S=120  # after the load: sample until the descriptors are back, at most this long

run=$build/soak/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$run"
csv=$run/samples.csv
duration=$((minutes * 60))
# Two of the six providers serve HTTPS and are reached by name, as hosted providers are: the path
# real traffic takes (TLS handshakes, resumption by ticket, reconnecting after a reset) soaks beside plain HTTP.
# Their certificate, made here for localhost, is its own CA, which the proxy trusts per provider.
tls_providers='["oai-b","claude"]'
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost -keyout "$run/tls-key.pem" -out "$run/tls-cert.pem" 2>"$run/openssl.log" \
  || { echo "run.sh: openssl could not make the providers' certificate; see $run/openssl.log" >&2; exit 1; }
jq --argjson d "$duration" --argjson tls "$tls_providers" --arg cert "$run/tls-cert.pem" --arg key "$run/tls-key.pem" \
  '.load.duration = $d
   | .providers |= map(if (.name as $n | $tls | index($n)) then . + {tls: {cert_file: $cert, key_file: $key}} else . end)' \
  "$soak/soak.json" >"$run/soak.json"
jq --argjson tls "$tls_providers" --arg cert "$run/tls-cert.pem" \
  '.providers |= map(if (.name as $n | $tls | index($n))
                     then .base_url |= sub("^http://127\\.0\\.0\\.1:"; "https://localhost:") | . + {ca_bundle: $cert} else . end)' \
  "$soak/soak-proxy.json" >"$run/soak-proxy.json"

proxy_pid=
drill_pid=
cleanup() {
  [ -n "$drill_pid" ] && kill "$drill_pid" 2>/dev/null || true
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$proxy_bin" --headless --db "$run/soak.db" --config "$run/soak-proxy.json" --listen "127.0.0.1:$port" \
  --log-level warn 2>"$run/proxy.log" >&2 &
proxy_pid=$!
metrics_url=http://127.0.0.1:$port/metrics
for _ in $(seq 1 100); do
  curl -sf -o /dev/null "$metrics_url" && break
  kill -0 "$proxy_pid" 2>/dev/null || { echo "run.sh: the proxy exited at start; see $run/proxy.log" >&2; exit 1; }
  sleep 0.2
done
curl -sf -o /dev/null "$metrics_url" || { echo "run.sh: the proxy does not answer on $metrics_url" >&2; exit 1; }

rss_mb() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$proxy_pid/status"; }
fd_count() { ls "/proc/$proxy_pid/fd" | wc -l; }
# Requests the proxy finished, and those whose status was not ok (error, mid_stream, cancelled).
counts() {
  curl -sf "$metrics_url" | awk '
    /^switchboard_requests_total\{/ { n += $NF; if ($0 !~ /status="ok"/) e += $NF }
    END { printf "%d,%d", n, e }'
}
start_s=$(date +%s)
sample() { # phase
  printf '%d,%s,%s,%s,%s\n' "$(($(date +%s) - start_s))" "$1" "$(rss_mb)" "$(fd_count)" "$(counts)" >>"$csv"
  tail -n 1 "$csv" | awk -F, '{ printf "  t=%5ss  %-6s RSS %6.1f MB  fds %4d  requests %7d  errors %5d\n", $1, $2, $3, $4, $5, $6 }'
}

echo "soak: $minutes min, run directory $run"
echo "t_s,phase,rss_mb,fds,requests,errors" >"$csv"
sample before
fds_before=$(tail -n 1 "$csv" | cut -d, -f4)

"$sim_bin" drill "$run/soak.json" --proxy "http://127.0.0.1:$port/v1" --json "$run/drill.json" >"$run/drill.txt" 2>&1 &
drill_pid=$!
next=$(($(date +%s) + SAMPLE_S))
while kill -0 "$drill_pid" 2>/dev/null; do
  if [ "$(date +%s)" -ge "$next" ]; then
    sample load
    next=$((next + SAMPLE_S))
  fi
  sleep 1
done
drill_rc=0
wait "$drill_pid" || drill_rc=$?
drill_pid=
settle_until=$(($(date +%s) + SETTLE_MAX_S))
while :; do
  sleep "$SAMPLE_S"
  sample after
  fds=$(tail -n 1 "$csv" | cut -d, -f4)
  if [ $((fds - fds_before)) -le "$FD_SLACK" ] && [ $((fds_before - fds)) -le "$FD_SLACK" ]; then break; fi
  [ "$(date +%s)" -ge "$settle_until" ] && break
done

# What the descriptors left after the load are, by TCP state (ss lists sockets that are still
# connected or closing; a socket whose peer reset it is not listed but keeps its descriptor).
ls -l "/proc/$proxy_pid/fd" | grep -c 'socket:' >"$run/sockets.count" || true
ss -tanp 2>/dev/null | awk -v pid="pid=$proxy_pid," 'index($0, pid) { n[$1]++ } END { for (s in n) printf "%s %d, ", s, n[s] }' \
  >"$run/sockets.states" || true

# Stop the proxy the way a service manager does, so its history writer flushes every row.
kill -TERM "$proxy_pid"
proxy_rc=0
wait "$proxy_pid" || proxy_rc=$?
proxy_pid=

echo
cat "$run/drill.txt"
echo
echo "   time   RSS MB   fds   requests   errors   (proxy; errors = finished with a status other than ok)"
awk -F, 'NR > 1 { printf "%6ss  %7.1f  %4d  %9d  %7d   %s\n", $1, $3, $4, $5, $6, $2 }' "$csv"
echo

fail=0
verdict() { # pass|fail text
  printf '%s  %s\n' "$([ "$1" = pass ] && echo PASS || echo FAIL)" "$2"
  [ "$1" = pass ] || fail=1
}

# RSS_RULE: the first third is warm-up (windows, rings and SQLite's page cache fill to their bounds),
# so growth is the last third against the middle one. 5 % is the rule; for a process this small 5 %
# is only a few MB, below what one glibc heap trim or a burst of hung requests moves, hence the floor.
awk -F, -v pct="$RSS_PERCENT" -v floor="$RSS_FLOOR_MB" '
  $2 == "load" { rss[n++] = $3 }
  END {
    if (n < 6) { printf "fail|RSS: only %d samples under load; run at least a minute\n", n; exit }
    a = int(n / 3); b = int(2 * n / 3)
    for (i = a; i < b; i++) mid += rss[i]; mid /= (b - a)
    for (i = b; i < n; i++) last += rss[i]; last /= (n - b)
    growth = last - mid; allowed = mid * pct / 100; rule = pct " %"
    if (floor > allowed) { allowed = floor; rule = floor " MB (more than " pct " %)" }
    printf "%s|RSS flat: middle third %.1f MB, last third %.1f MB, growth %+.1f MB (%+.1f %%), allowed %s\n",
      (growth <= allowed ? "pass" : "fail"), mid, last, growth, 100 * growth / mid, rule
  }' "$csv" >"$run/rss.verdict"
IFS='|' read -r ok text <"$run/rss.verdict"
verdict "$ok" "$text"

fds_after=$(tail -n 1 "$csv" | cut -d, -f4)
fds_peak=$(awk -F, '$2 == "load" && $4 > m { m = $4 } END { print m + 0 }' "$csv")
fds_text="descriptors: $fds_before before the load, $fds_peak at most under it, $fds_after after it (allowed ± $FD_SLACK);"
fds_text+=" sockets after it $(cat "$run/sockets.count"), by TCP state: $(cat "$run/sockets.states")the rest not listed (reset)"
if [ $((fds_after - fds_before)) -le "$FD_SLACK" ] && [ $((fds_before - fds_after)) -le "$FD_SLACK" ]; then
  verdict pass "$fds_text"
else
  verdict fail "$fds_text"
fi

# Errors. The proxy's history row of a request lists its attempts (channel, outcome, whether it failed
# mid-stream). A failure the client saw is explained when
#   mid_stream: the last attempt failed after bytes had gone to the client (an injected cut or error
#               event), or an attempt did and the continuation on another channel found every channel of
#               the model faulted in that request (the row's error names the ones it did not try, and why), or
#   error:      every channel of the model was faulted in that request (all of them at once): an attempt on
#               it failed, or the router could not use it because its provider had rate-limited every key
#               or its circuit was open or half-open with its trials taken (only injected failures open one).
# Anything else (an error while a channel of the model was not tried, a cancelled request, a request
# the client saw fail that the proxy counted as ok) is unexpected.
jq -r '.routes[] | .model as $m | .channels[] | [$m, .] | @csv' "$run/soak-proxy.json" >"$run/routes.csv"
sqlite3 -readonly "$run/soak.db" >"$run/errors.csv" <<SQL
.mode csv
CREATE TEMP TABLE soak_routes (model TEXT, channel TEXT);
.import $run/routes.csv soak_routes
WITH bad AS (SELECT id, logical_model AS model, status, error, attempts FROM requests WHERE status != 'ok'),
-- A channel of the model was faulted in a request when an attempt on it failed, or when the router skipped
-- it because the provider had rate-limited every key (a 429 or a rate limit in a 200 body cools the key)
-- or because its circuit was open, or half-open with its trial calls taken by other requests, or it was
-- ejected (only failures open or eject, and here every failure is injected). The refusal the client gets
-- names each channel with its reason.
faulted AS (
  SELECT b.id, count(*) AS n,
    sum(EXISTS (SELECT 1 FROM json_each(b.attempts) a
                WHERE json_extract(a.value, '\$.name') = s.channel AND json_extract(a.value, '\$.outcome') != 'SUCCESS')) AS tried
  FROM bad b JOIN soak_routes s ON s.model = b.model
  WHERE EXISTS (SELECT 1 FROM json_each(b.attempts) a
                WHERE json_extract(a.value, '\$.name') = s.channel AND json_extract(a.value, '\$.outcome') != 'SUCCESS')
     OR instr(b.error, s.channel || ': every API key is cooling down') > 0
     OR instr(b.error, s.channel || ': provider rate limit reached') > 0
     OR instr(b.error, s.channel || ': circuit open') > 0
     OR instr(b.error, s.channel || ': circuit half-open, trial calls in progress') > 0
     OR instr(b.error, s.channel || ': ejected') > 0
  GROUP BY b.id),
channels AS (SELECT model, count(*) AS n FROM soak_routes GROUP BY model)
SELECT
  CASE
    WHEN b.status = 'mid_stream' AND json_extract(b.attempts, '\$[#-1].mid') = 1 THEN 'cut_mid_stream'
    WHEN b.status = 'mid_stream' AND EXISTS (SELECT 1 FROM json_each(b.attempts) a WHERE json_extract(a.value, '\$.mid') = 1)
         AND coalesce(f.n, 0) = c.n THEN 'cut_not_continued'
    WHEN b.status = 'error' AND coalesce(f.n, 0) = c.n AND f.tried = c.n THEN 'every_channel_failed'
    WHEN b.status = 'error' AND coalesce(f.n, 0) = c.n THEN 'every_channel_failed_or_out'
    ELSE 'unexpected'
  END,
  b.id, b.model, b.status, coalesce(f.n, 0) || '/' || c.n, b.error, b.attempts
FROM bad b JOIN channels c ON c.model = b.model LEFT JOIN faulted f ON f.id = b.id;
SQL
proxy_rows=$(sqlite3 -readonly "$run/soak.db" 'SELECT count(*) FROM requests')
cut_mid=$(grep -c '^cut_mid_stream,' "$run/errors.csv" || true)
cut_kept=$(grep -c '^cut_not_continued,' "$run/errors.csv" || true)
all_failed=$(grep -c '^every_channel_failed,' "$run/errors.csv" || true)
all_out=$(grep -c '^every_channel_failed_or_out,' "$run/errors.csv" || true)
unexpected=$(grep -c '^unexpected,' "$run/errors.csv" || true)
client_sent=$(jq '.requests' "$run/drill.json" 2>/dev/null || echo -1)
client_failed=$(jq '.failed' "$run/drill.json" 2>/dev/null || echo -1)
client_dropped=$(jq '.dropped' "$run/drill.json" 2>/dev/null || echo -1)
proxy_failed=$((cut_mid + cut_kept + all_failed + all_out + unexpected))
errors_text="errors: client sent $client_sent, saw $client_failed fail; proxy recorded $proxy_rows, $proxy_failed not ok: $cut_mid cut mid-stream, $cut_kept cut and not continued with every channel failed or kept out, $all_failed failed on every channel of their model, $all_out with every channel failed in the request or kept out by its open circuit or cooling keys, $unexpected unexpected"
if [ "$drill_rc" -ne 0 ] || [ "$client_sent" -le 0 ]; then
  verdict fail "the drill did not finish (exit $drill_rc); see $run/drill.txt"
elif [ "$unexpected" -ne 0 ] || [ "$client_failed" -ne "$proxy_failed" ] || [ "$client_sent" -ne "$proxy_rows" ] \
     || [ "$client_dropped" -ne 0 ]; then
  verdict fail "$errors_text; dropped at the load's cap $client_dropped (list: $run/errors.csv)"
  awk '/^unexpected,/ && n++ < 5 { print substr($0, 1, 400) }' "$run/errors.csv" | sed 's/^/    /'
else
  verdict pass "$errors_text"
fi
if [ "$proxy_rc" -ne 0 ]; then
  verdict fail "the proxy exited with $proxy_rc when stopped; see $run/proxy.log"
fi
echo "samples: $csv"
exit "$fail"

#!/usr/bin/env bash
# The OpenAI SDK's Responses API through the headless proxy, in front of one simulated provider per
# upstream dialect (switchboard-sim) and a scripted model that calls tools. The proxy is stopped
# and started again on the same database between the two phases, so that previous_response_id is
# seen to continue a conversation from SQLite.
# Usage: run.sh SWITCHBOARD SWITCHBOARD_SIM SDK_DIR (holds node_modules) WORK_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
switchboard=$1 sim=$2 sdk_dir=$3 work=$4
rm -rf "$work" && mkdir -p "$work"
pids=()
trap 'for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done' EXIT

"$sim" serve "$here/every-dialect.json" > "$work/sim.log" 2>&1 & pids+=($!)
node "$here/../support/scripted-model.mjs" 18466 "$work/scripted-requests.log" & pids+=($!)
for port in 18461 18462 18463 18464 18465 18466; do
  for _ in $(seq 1 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done
done

proxy_pid=""
start_proxy() {
  HOME="$work/home" XDG_DATA_HOME="$work/data" "$switchboard" --headless --db "$work/switchboard.db" \
    --config "$here/config.json" --listen 127.0.0.1:0 > "$work/proxy-$1.log" 2>&1 &
  proxy_pid=$!
  pids+=($proxy_pid)
  port=""
  for _ in $(seq 1 100); do
    port=$(sed -n 's|.*proxy listening on http://127.0.0.1:\([0-9]*\)/v1.*|\1|p' "$work/proxy-$1.log" | head -1)
    if [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/healthz" > /dev/null; then return 0; fi
    sleep 0.1
  done
  echo "proxy did not come up"; cat "$work/proxy-$1.log"; exit 1
}
stop_proxy() {
  kill -TERM "$proxy_pid"
  for _ in $(seq 1 100); do kill -0 "$proxy_pid" 2>/dev/null || break; sleep 0.1; done
  code=0; wait "$proxy_pid" || code=$?
  [ $code -eq 0 ] || { echo "proxy exited with $code"; cat "$work/proxy-$1.log"; exit 1; }
}

# ES modules resolve packages next to the script, so the client runs from the SDK's directory.
cp "$here/client.mjs" "$sdk_dir/client.mjs"
start_proxy first
node "$sdk_dir/client.mjs" "http://127.0.0.1:$port/v1" first "$work/state.json" || { cat "$work/proxy-first.log"; exit 1; }
stop_proxy first
start_proxy second
node "$sdk_dir/client.mjs" "http://127.0.0.1:$port/v1" continue "$work/state.json" || { cat "$work/proxy-second.log"; exit 1; }
stop_proxy second
# The turn asked after the restart reached the model with the stored turn before it.
tail -1 "$work/scripted-requests.log" | grep -q "My name is Lan" \
  || { echo "FAIL: the conversation read back from SQLite did not reach the model"; tail -1 "$work/scripted-requests.log"; exit 1; }
echo "ok: the model saw the turn stored before the restart"
if grep -q "not-needed-on-loopback" "$work"/proxy-*.log; then echo "a client key reached the log"; exit 1; fi
echo "headless proxy + OpenAI SDK (Responses API, every dialect): passed"

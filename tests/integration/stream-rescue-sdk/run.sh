#!/usr/bin/env bash
# The official SDKs against streams broken mid-answer: switchboard-sim serves primaries that cut
# every stream 40 characters in and fallbacks that continue it, a headless Switchboard routes to
# them, and client.mjs reads the spliced streams with the OpenAI and the Anthropic SDK.
# Usage: run.sh SWITCHBOARD SIM OPENAI_SDK_DIR ANTHROPIC_SDK_DIR WORK_DIR
set -euo pipefail
switchboard=$1 sim=$2 openai_dir=$3 anthropic_dir=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
"$sim" serve "$here/scenario.json" > "$work/sim.log" 2>&1 &
sim_pid=$!
HOME="$work/home" XDG_DATA_HOME="$work/data" "$switchboard" --headless --db "$work/switchboard.db" \
  --config "$here/switchboard.json" --listen 127.0.0.1:0 > "$work/proxy.log" 2>&1 &
proxy_pid=$!
trap 'kill -9 $proxy_pid $sim_pid 2>/dev/null || true' EXIT
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's|.*proxy listening on http://127.0.0.1:\([0-9]*\)/v1.*|\1|p' "$work/proxy.log" | head -1)
  if [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && curl -s -o /dev/null "http://127.0.0.1:18474/v1/models"; then break; fi
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/healthz" > /dev/null || { echo "proxy did not come up"; cat "$work/proxy.log"; exit 1; }
# Both SDKs resolve next to the script: one directory holding both packages.
mkdir -p "$work/client/node_modules"
cp -r "$openai_dir/node_modules/." "$work/client/node_modules/"
cp -r "$anthropic_dir/node_modules/." "$work/client/node_modules/"
cp "$here/client.mjs" "$work/client/client.mjs"
node "$work/client/client.mjs" "http://127.0.0.1:$port" || { cat "$work/proxy.log"; exit 1; }
grep -q "continuing it on another channel" "$work/proxy.log" || { echo "no stream was continued"; cat "$work/proxy.log"; exit 1; }
echo "stream rescue as the SDKs read it: passed"

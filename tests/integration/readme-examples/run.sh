#!/usr/bin/env bash
# Starts `switchboard --headless` on a fresh database (so on its embedded default, the demo
# configuration with the built-in simulator) and runs the README's examples against it
# (readme-examples.mjs says how).
# Usage: run.sh SWITCHBOARD_BINARY README.md OPENAI_SDK_DIR ANTHROPIC_SDK_DIR WORK_DIR
set -euo pipefail
binary=$1 readme=$2 openai_dir=$3 anthropic_dir=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
HOME="$work/home" XDG_DATA_HOME="$work/data" "$binary" --headless --db "$work/switchboard.db" \
  --listen 127.0.0.1:0 > "$work/proxy.log" 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true' EXIT
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's|.*proxy listening on http://127.0.0.1:\([0-9]*\)/v1.*|\1|p' "$work/proxy.log" | head -1)
  if [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/healthz" > /dev/null; then break; fi
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/healthz" > /dev/null || { echo "proxy did not come up"; cat "$work/proxy.log"; exit 1; }
node "$here/readme-examples.mjs" "$readme" "$port" "$openai_dir" "$anthropic_dir" || { cat "$work/proxy.log"; exit 1; }
echo "README examples against the embedded default: passed"

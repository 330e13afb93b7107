#!/usr/bin/env bash
# Claude Code itself through Switchboard, in print mode: one prompt answered, then one tool (Bash)
# round trip, against a scripted OpenAI-compatible model behind the proxy (so every turn is
# translated both ways). Not part of the CTest suite: it installs Claude Code from npm and takes
# a while. Prints what Claude Code printed; exits 1 when an answer is missing.
# Usage: tests/integration/claude-code/run.sh [BUILD_DIR]   (default build/debug)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${1:-$root/build/debug}
work=$(mktemp -d /tmp/sb-claude-code.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

(cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund @anthropic-ai/claude-code >/dev/null)
claude="$work/node_modules/.bin/claude"

node "$root/tests/integration/support/scripted-model.mjs" 18711 & pids+=($!)
cat > "$work/config.json" <<JSON
{ "format": "switchboard-config", "version": 1,
  "settings": { "proxy": { "listen_host": "127.0.0.1", "listen_port": 18710 } },
  "providers": [ { "name": "scripted", "dialect": "openai_compat", "base_url": "http://127.0.0.1:18711/v1" } ],
  "channels": [ { "name": "scripted", "provider": "scripted", "upstream_model": "scripted" } ],
  "routes": [ { "model": "cc", "channels": ["scripted"] } ] }
JSON
HOME="$work/home" XDG_DATA_HOME="$work/data" "$build/bin/switchboard" --headless --db "$work/sb.db" \
  --config "$work/config.json" --log-level warn >"$work/proxy.log" 2>&1 & pids+=($!)
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:18710/healthz >/dev/null && break; sleep 0.1; done

export HOME="$work/cc-home" ANTHROPIC_BASE_URL=http://127.0.0.1:18710 ANTHROPIC_API_KEY=local
export ANTHROPIC_MODEL=cc ANTHROPIC_DEFAULT_HAIKU_MODEL=cc ANTHROPIC_DEFAULT_SONNET_MODEL=cc ANTHROPIC_DEFAULT_OPUS_MODEL=cc
export DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1
mkdir -p "$HOME"
cd "$work"
echo "== claude -p \"Say hello\""
hello=$(timeout 120 "$claude" -p "Say hello" 2>&1 || true)
echo "$hello"
echo "== claude -p \"Run the marker command and tell me what it printed\" --allowedTools=Bash"
tool=$(timeout 180 "$claude" -p "Run the marker command and tell me what it printed" --allowedTools=Bash 2>&1 || true)
echo "$tool"
status=0
grep -q "hello from the scripted model" <<<"$hello" || { echo "FAIL: no answer to the prompt"; status=1; }
grep -q "The command printed: switchboard-tool-check" <<<"$tool" || { echo "FAIL: the tool round trip did not complete"; status=1; }
[ $status -eq 0 ] && echo "Claude Code through Switchboard: a prompt answered and a Bash round trip completed"
exit $status

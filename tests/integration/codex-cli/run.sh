#!/usr/bin/env bash
# Codex CLI itself through Switchboard, in exec mode: one prompt answered, then one tool
# (exec_command) round trip, against a scripted OpenAI-compatible model behind the proxy (so every
# turn is translated from the Responses API to chat completions and back). Not part of the CTest
# suite: it installs Codex CLI from npm and takes a while. Prints what Codex printed; exits 1 when
# an answer is missing.
# Usage: tests/integration/codex-cli/run.sh [BUILD_DIR]   (default build/debug)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${1:-$root/build/debug}
work=$(mktemp -d /tmp/sb-codex.XXXXXX)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT

(cd "$work" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund @openai/codex >/dev/null)
codex="$work/node_modules/.bin/codex"

node "$root/tests/integration/support/scripted-model.mjs" 18721 "$work/model-requests.log" & pids+=($!)
cat > "$work/config.json" <<JSON
{ "format": "switchboard-config", "version": 1,
  "settings": { "proxy": { "listen_host": "127.0.0.1", "listen_port": 18720 } },
  "providers": [ { "name": "scripted", "dialect": "openai_compat", "base_url": "http://127.0.0.1:18721/v1" } ],
  "channels": [ { "name": "scripted", "provider": "scripted", "upstream_model": "scripted" } ],
  "routes": [ { "model": "sb-codex", "channels": ["scripted"] } ] }
JSON
HOME="$work/home" XDG_DATA_HOME="$work/data" "$build/bin/switchboard" --headless --db "$work/sb.db" \
  --config "$work/config.json" --log-level warn >"$work/proxy.log" 2>&1 & pids+=($!)
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:18720/healthz >/dev/null && break; sleep 0.1; done

# The provider block the README gives. web_search is a tool OpenAI runs on its own servers; no
# upstream behind Switchboard can, so Codex is told not to offer it.
export HOME="$work/codex-home" CODEX_HOME="$work/codex-home/.codex" SWITCHBOARD_TOKEN=local
mkdir -p "$CODEX_HOME"
cat > "$CODEX_HOME/config.toml" <<TOML
model = "sb-codex"
model_provider = "switchboard"
web_search = "disabled"

[model_providers.switchboard]
name = "Switchboard"
base_url = "http://127.0.0.1:18720/v1"
wire_api = "responses"
env_key = "SWITCHBOARD_TOKEN"
TOML
mkdir -p "$work/project"
cd "$work/project"
echo "== codex exec \"Say hello\""
hello=$(timeout 120 "$codex" exec --skip-git-repo-check "Say hello" 2>&1 || true)
echo "$hello"
echo "== codex exec --sandbox danger-full-access \"Run the marker command and tell me what it printed\""
tool=$(timeout 180 "$codex" exec --skip-git-repo-check --sandbox danger-full-access \
         "Run the marker command and tell me what it printed" 2>&1 || true)
echo "$tool"
status=0
grep -q "hello from the scripted model" <<<"$hello" || { echo "FAIL: no answer to the prompt"; status=1; }
grep -q "The command printed: switchboard-tool-check" <<<"$tool" || { echo "FAIL: the tool round trip did not complete"; status=1; }
if grep -q "error\|warn" "$work/proxy.log"; then echo "-- proxy log:"; cat "$work/proxy.log"; fi
[ $status -eq 0 ] && echo "Codex CLI through Switchboard: a prompt answered and an exec_command round trip completed"
exit $status

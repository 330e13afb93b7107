#!/usr/bin/env bash
# Runs the headless proxy on its demo configuration (the built-in simulator behind it) and points
# an official SDK's client script at it. Also checks that SIGTERM drains and exits cleanly and that
# the client's key never reaches the log.
# Usage: run-sdk-client.sh SWITCHBOARD_BINARY SDK_DIR (holds node_modules) WORK_DIR CLIENT.mjs BASE_PATH NAME [https]
#   BASE_PATH: what follows http://127.0.0.1:PORT in the client's base URL ("/v1" for OpenAI's SDK,
#   "" for Anthropic's, which adds /v1 itself).
#   https: the proxy port serves HTTPS with a self-signed certificate made here, which the client
#   trusts through NODE_EXTRA_CA_CERTS (and nothing else changes for it).
set -euo pipefail
binary=$1 sdk_dir=$2 work=$3 client=$4 base_path=$5 name=$6 scheme=${7:-http}
rm -rf "$work" && mkdir -p "$work"
tls_args=() curl_tls=()
if [ "$scheme" = https ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/cert.pem" 2> "$work/openssl.log"
  tls_args=(--tls-cert "$work/cert.pem" --tls-key "$work/key.pem")
  curl_tls=(--cacert "$work/cert.pem")
  export NODE_EXTRA_CA_CERTS="$work/cert.pem"
fi
HOME="$work/home" XDG_DATA_HOME="$work/data" "$binary" --headless --db "$work/switchboard.db" \
  --listen 127.0.0.1:0 "${tls_args[@]}" > "$work/proxy.log" 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true' EXIT
# Port 0: the proxy picks a free port and says which in its log.
port=""
for _ in $(seq 1 100); do
  port=$(sed -n "s|.*proxy listening on $scheme://127.0.0.1:\\([0-9]*\\)/v1.*|\\1|p" "$work/proxy.log" | head -1)
  if [ -n "$port" ] && curl -sf "${curl_tls[@]}" "$scheme://127.0.0.1:$port/healthz" > /dev/null; then break; fi
  sleep 0.1
done
curl -sf "${curl_tls[@]}" "$scheme://127.0.0.1:$port/healthz" > /dev/null || { echo "proxy did not come up"; cat "$work/proxy.log"; exit 1; }
# ES modules resolve packages next to the script, so the client runs from the SDK's directory.
cp "$client" "$sdk_dir/client.mjs"
node "$sdk_dir/client.mjs" "$scheme://127.0.0.1:$port$base_path" demo \
  || { cat "$work/proxy.log"; exit 1; }
kill -TERM $pid
for _ in $(seq 1 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then echo "proxy did not exit after SIGTERM"; exit 1; fi
code=0; wait $pid || code=$?
[ $code -eq 0 ] || { echo "proxy exited with $code"; cat "$work/proxy.log"; exit 1; }
grep -q "draining in-flight requests" "$work/proxy.log"
if grep -q "not-needed-on-loopback" "$work/proxy.log"; then echo "a client key reached the log"; exit 1; fi
echo "headless proxy + $name: passed"

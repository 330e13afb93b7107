#!/usr/bin/env bash
# Builds the Release .deb, installs it on this machine and checks the installed binaries
# (what a user gets is what was tested): `switchboard --version`, then a headless smoke request through the installed
# proxy on the demo configuration. Needs root (or sudo) for apt-get; CI runs it after the tests.
# Usage: packaging/test-deb.sh [--keep]   (--keep leaves the package installed)
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo

cmake --preset release >/dev/null
cmake --build --preset release
(cd build/release && cpack -G DEB >/dev/null)
deb=$(ls -t build/release/switchboard_*.deb | head -1)
echo "built $deb"
dpkg-deb --info "$deb" | sed -n '/Depends/p'

# apt-get resolves the package's declared dependencies, which is what this checks.
$SUDO apt-get install -y -qq --no-install-recommends "./$deb" >/dev/null
[ "$(command -v switchboard)" = /usr/bin/switchboard ] || { echo "switchboard is not on PATH at /usr/bin"; exit 1; }
command -v switchboard-sim >/dev/null || { echo "switchboard-sim was not installed"; exit 1; }
for f in /usr/share/applications/switchboard.desktop \
         /usr/share/metainfo/app.switchboard.Switchboard.metainfo.xml \
         /usr/share/icons/hicolor/scalable/apps/switchboard.svg \
         /lib/systemd/system/switchboard.service; do
  [ -f "$f" ] || { echo "missing $f"; exit 1; }
done
command -v desktop-file-validate >/dev/null && desktop-file-validate /usr/share/applications/switchboard.desktop
command -v appstreamcli >/dev/null && appstreamcli validate --no-net --explain /usr/share/metainfo/app.switchboard.Switchboard.metainfo.xml
command -v systemd-analyze >/dev/null && systemd-analyze verify /lib/systemd/system/switchboard.service 2>&1 \
  | grep -v "Failed to .*cgroup\|System has not been booted\|Cannot .*bus" || true

version=$(switchboard --version)
echo "installed: $version"
case "$version" in *"$(sed -n 's/^project(Switchboard VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)"*) ;; \
  *) echo "unexpected version text: $version"; exit 1 ;; esac

work=$(mktemp -d)
HOME="$work/home" XDG_DATA_HOME="$work/data" switchboard --headless --db "$work/switchboard.db" \
  --listen 127.0.0.1:0 > "$work/proxy.log" 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null || true; rm -rf "$work"' EXIT
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's|.*proxy listening on http://127.0.0.1:\([0-9]*\)/v1.*|\1|p' "$work/proxy.log" | head -1)
  if [ -n "$port" ] && curl -sf "http://127.0.0.1:$port/healthz" > /dev/null; then break; fi
  sleep 0.1
done
[ -n "$port" ] || { echo "installed proxy did not come up"; cat "$work/proxy.log"; exit 1; }
answer=$(curl -sS -D "$work/headers" "http://127.0.0.1:$port/v1/chat/completions" \
  -H 'Content-Type: application/json' \
  -d '{"model":"demo","messages":[{"role":"user","content":"Say hello"}]}')
echo "$answer" | grep -q '"chat.completion"' || { echo "smoke request failed: $answer"; cat "$work/proxy.log"; exit 1; }
grep -qi '^x-switchboard-channel:' "$work/headers" || { echo "no x-switchboard-channel header"; exit 1; }
kill -TERM $pid
code=0; wait $pid || code=$?
[ $code -eq 0 ] || { echo "installed proxy exited with $code after SIGTERM"; cat "$work/proxy.log"; exit 1; }
echo "installed package: --version and a headless smoke request passed"

if [ "${1:-}" != "--keep" ]; then
  $SUDO apt-get remove -y -qq switchboard >/dev/null
fi

#!/usr/bin/env bash
# Installs every Debian 12 package that building, testing and benchmarking Switchboard needs.
# Idempotent: when everything is already installed it does nothing (no apt-get update, no network).
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config git ca-certificates ccache mold
  # Qt 6 (Widgets, Network, Sql, Charts, Test); qt6-charts-dev needs libqt6opengl6-dev
  # named explicitly under --no-install-recommends.
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev libqt6opengl6-dev libqt6sql6-sqlite
  libgl-dev libvulkan-dev qt6-svg-dev libqt6svg6 qt6-qpa-plugins
  qtkeychain-qt6-dev
  # a private Secret Service on its own D-Bus for the keyring tests
  gnome-keyring dbus-x11
  # engine libraries
  node-llhttp libcurl4-openssl-dev libssl-dev libspdlog-dev libfmt-dev libsqlite3-dev libjemalloc-dev
  liburing-dev
  # a fleet's shared state: the hiredis client, and a real redis-server for the fleet tests
  libhiredis-dev redis-server
  # tests, fuzzing, benchmarks
  clang libclang-rt-14-dev libbenchmark-dev xvfb xauth fonts-dejavu-core
  sqlite3 curl wrk nginx-light procps iproute2 openssl
  # packaging: CPack's dependency scan, and the checks packaging/test-deb.sh runs
  file dpkg-dev desktop-file-utils appstream
)
# Node.js runs the real OpenAI SDK client in the integration tests. A machine that already has a
# node + npm (from any source) keeps it; otherwise Debian's nodejs and npm are installed.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null

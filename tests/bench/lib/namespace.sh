# Sourced by the benchmarks that measure side by side inside a private network namespace: the way
# in for all of them, and for those on the `bench` tree alone (front-doors.sh, fleet.sh,
# cpu-per-request.sh, tls-burst.sh) their two options.
# The sourcing script sets `root` (the project's root) and the defaults of `rounds` and `seconds`.

# Reads --rounds N and --seconds S into $rounds and $seconds; anything else prints the usage line.
bench_read_rounds() { # USAGE ARGS...
  local usage=$1
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --rounds) rounds=$2; shift 2 ;;
      --seconds) seconds=$2; shift 2 ;;
      *) echo "usage: $usage"; exit 2 ;;
    esac
  done
}

# Runs SCRIPT ARGS... again as root in private network and mount namespaces: loopback up, so
# nothing it starts is reachable from outside, and a hosts file of its own (peers/hosts), where the
# TLS upstream is bench-upstream: a hosted provider is reached by name, and so is the bench's.
bench_unshare() { # SCRIPT ARGS...
  [ "$(id -u)" -eq 0 ] || { echo "run as root: the comparison runs in private network and mount namespaces (unshare -n -m)"; exit 1; }
  exec unshare -n -m bash -c 'ip link set lo up && mount --bind "$BENCH_HOSTS" /etc/hosts && exec "$0" "$@"' "$@"
}
export BENCH_HOSTS="$root/tests/bench/peers/hosts"

# Outside (the variable named INSIDE unset): installs what is missing, builds the bench tree's
# switchboard, and runs the script again inside (bench_unshare). Inside: returns at once.
bench_enter_namespace() { # INSIDE
  [ -n "${!1:-}" ] && return 0
  "$root/packaging/install-deps.sh" >/dev/null
  cmake --preset bench >/dev/null
  cmake --build --preset bench --target switchboard >/dev/null
  export "$1=1"
  bench_unshare "$0" --rounds "$rounds" --seconds "$seconds"
}

# Up to 15 s for something to answer at URL (curl's options after it, e.g. --cacert FILE).
wait_for() { # URL [CURL OPTIONS...]
  for _ in $(seq 1 150); do curl -s -o /dev/null "$@" && return 0; sleep 0.1; done
  echo "nothing answers at $1"
  exit 1
}

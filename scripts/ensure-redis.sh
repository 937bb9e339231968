# Sourced by scripts/test.sh: the queue-mode tests start a real redis-server (Debian's `redis-server`)
# on a free port in a temporary folder. Installs it when missing; it is not started as a service.
if ! command -v redis-server >/dev/null 2>&1; then
  echo "weft: installing Debian's redis-server for the queue-mode tests" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  ($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends redis-server) >&2 \
    || echo "weft: could not install redis-server (apt-get install redis-server); the queue-mode tests will fail" >&2
fi

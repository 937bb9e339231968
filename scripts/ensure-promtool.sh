# Sourced by scripts/test.sh: the metrics test lints /metrics with Prometheus' `promtool check metrics`
# (Debian's `prometheus` package; only the promtool binary is used, no server is started). Installs it when missing.
if ! command -v promtool >/dev/null 2>&1; then
  echo "weft: installing Debian's prometheus (for promtool) for the metrics test" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  ($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends prometheus) >&2 \
    || echo "weft: could not install prometheus (apt-get install prometheus); the promtool metrics test will fail in CI and be skipped elsewhere" >&2
fi

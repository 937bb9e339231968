# Sourced by the test script: browser tests drive Debian's chromium (never a downloaded one).
if [ -z "${WEFT_CHROMIUM:-}" ]; then
  if ! command -v chromium >/dev/null 2>&1; then
    echo "weft: installing Debian's chromium for the browser tests" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    ($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium) >&2 \
      || { echo "weft: could not install chromium (apt-get install chromium); browser tests will fail" >&2; }
  fi
  export WEFT_CHROMIUM="$(command -v chromium || echo /usr/bin/chromium)"
fi

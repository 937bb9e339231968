# Sourced by the setup scripts when PostgreSQL is needed (the tests start their own clusters; a server
# with WEFT_DATABASE_URL uses an existing one): installs Debian's `postgresql` when its binaries are
# missing and exports WEFT_PG_BIN, the folder with initdb, pg_ctl and postgres. Fast when installed.
weft_pg_bin() {
  local dir
  for dir in ${WEFT_PG_BIN:-} $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -rV); do
    if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then echo "$dir"; return 0; fi
  done
  return 1
}
if ! WEFT_PG_BIN="$(weft_pg_bin)"; then
  echo "weft: installing Debian's postgresql for the storage tests" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  ($SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql) >&2 \
    || echo "weft: could not install postgresql (apt-get install postgresql)" >&2
  WEFT_PG_BIN="$(weft_pg_bin || true)"
fi
if [ -n "$WEFT_PG_BIN" ]; then
  export WEFT_PG_BIN
else
  unset WEFT_PG_BIN
  echo "weft: no PostgreSQL binaries found, so the PostgreSQL storage tests will fail." >&2
fi
unset -f weft_pg_bin

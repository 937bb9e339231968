#!/usr/bin/env bash
# Installs what Weft needs (bun, dependencies), builds the editor and starts Weft with its embedded defaults.
# Quiet: each step's own output goes to a log, printed only when the step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-bun.sh
LOG="$(mktemp "${TMPDIR:-/tmp}/weft-start.XXXXXX")"
trap 'rm -f "$LOG"' EXIT

# step "what it does" command…: one line while it runs; on failure the step's output and its exit code.
step() {
  local what=$1
  shift
  printf 'weft: %s… ' "$what" >&2
  if "$@" >"$LOG" 2>&1; then
    echo "done" >&2
  else
    local code=$?
    echo "failed (exit $code). Its output:" >&2
    cat "$LOG" >&2
    exit "$code"
  fi
}

step "installing dependencies" bun install --frozen-lockfile
source scripts/ensure-bubblewrap.sh
step "building the editor" bun run build:frontend
rm -f "$LOG"
trap - EXIT
exec bun apps/backend/src/main.ts "$@"

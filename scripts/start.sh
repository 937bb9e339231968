#!/usr/bin/env bash
# Installs what Weft needs (bun, dependencies), builds the editor and starts Weft with its embedded defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-bun.sh
bun install --frozen-lockfile >&2
source scripts/ensure-bubblewrap.sh
exec bun run serve "$@"

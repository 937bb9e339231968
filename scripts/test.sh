#!/usr/bin/env bash
# Installs everything the tests need (bun, dependencies, chromium, bubblewrap, redis, postgresql, promtool, the Python openai SDK and a2a-sdk where the package index serves it), then runs the typecheck and every test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-bun.sh
bun install --frozen-lockfile >&2
source scripts/ensure-chromium.sh
source scripts/ensure-bubblewrap.sh
source scripts/ensure-redis.sh
source scripts/ensure-postgres.sh
source scripts/ensure-promtool.sh
source scripts/ensure-python-openai.sh
source scripts/ensure-python-a2a.sh
exec bun scripts/run-tests.ts "$@"

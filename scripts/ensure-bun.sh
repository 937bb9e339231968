# Sourced by the setup scripts: installs bun from npm when it is missing (STACK.md).
BUN_VERSION=1.4.5
if ! command -v bun >/dev/null 2>&1; then
  echo "weft: installing bun $BUN_VERSION from npm" >&2
  npm install -g --allow-scripts=bun "bun@$BUN_VERSION" >&2 || npm install -g "bun@$BUN_VERSION" >&2
fi
if ! command -v bun >/dev/null 2>&1; then
  export PATH="$(npm prefix -g)/bin:$PATH"
fi
command -v bun >/dev/null 2>&1 || { echo "weft: could not install bun; install it with: npm install -g bun@$BUN_VERSION" >&2; exit 1; }

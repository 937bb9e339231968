# Sourced by scripts/test.sh: the A2A endpoint's test runs the official Python `a2a-sdk` client against a Weft agent.
# Makes a virtualenv in the cache folder with a pinned `a2a-sdk` (once; reused while the pin is the same) and exports
# WEFT_PYTHON_A2A, the interpreter the test runs (apps/backend/src/a2a/a2a-python.test.ts). Where the package index
# cannot serve a2a-sdk, the test is skipped with a warning (in CI too): it is the only test that needs it.
WEFT_PYTHON_A2A_PIN="a2a-sdk==1.3.0"
WEFT_PYTHON_A2A_VENV="${XDG_CACHE_HOME:-$HOME/.cache}/weft/python-a2a-sdk-1.3.0"
if [ ! -x "$WEFT_PYTHON_A2A_VENV/bin/python" ] || ! "$WEFT_PYTHON_A2A_VENV/bin/python" -c "import a2a.client" >/dev/null 2>&1; then
  echo "weft: installing the Python $WEFT_PYTHON_A2A_PIN SDK in $WEFT_PYTHON_A2A_VENV for the A2A endpoint test" >&2
  (python3 -m venv "$WEFT_PYTHON_A2A_VENV" && "$WEFT_PYTHON_A2A_VENV/bin/python" -m pip install -q --disable-pip-version-check --retries 1 --timeout 30 "$WEFT_PYTHON_A2A_PIN") >&2 \
    || echo "weft: could not install the Python $WEFT_PYTHON_A2A_PIN SDK (python3 -m venv, pip); the A2A Python SDK test is skipped" >&2
fi
"$WEFT_PYTHON_A2A_VENV/bin/python" -c "import a2a.client" >/dev/null 2>&1 && export WEFT_PYTHON_A2A="$WEFT_PYTHON_A2A_VENV/bin/python"
true

# Sourced by scripts/test.sh: the OpenAI-compatible endpoint's test runs the official Python `openai` SDK against the
# server. Makes a virtualenv in the cache folder with a pinned `openai` (once; reused while the pin is the same) and
# exports WEFT_PYTHON_OPENAI, the interpreter the test runs (apps/backend/src/openai-compat/openai-python.test.ts).
WEFT_PYTHON_OPENAI_PIN="openai==3.22.1"
WEFT_PYTHON_OPENAI_VENV="${XDG_CACHE_HOME:-$HOME/.cache}/weft/python-openai-3.22.1"
if [ ! -x "$WEFT_PYTHON_OPENAI_VENV/bin/python" ] || ! "$WEFT_PYTHON_OPENAI_VENV/bin/python" -c "import openai" >/dev/null 2>&1; then
  echo "weft: installing the Python $WEFT_PYTHON_OPENAI_PIN SDK in $WEFT_PYTHON_OPENAI_VENV for the OpenAI endpoint test" >&2
  (python3 -m venv "$WEFT_PYTHON_OPENAI_VENV" && "$WEFT_PYTHON_OPENAI_VENV/bin/python" -m pip install -q --disable-pip-version-check "$WEFT_PYTHON_OPENAI_PIN") >&2 \
    || echo "weft: could not install the Python $WEFT_PYTHON_OPENAI_PIN SDK (python3 -m venv, pip); its test fails in CI and is skipped elsewhere" >&2
fi
[ -x "$WEFT_PYTHON_OPENAI_VENV/bin/python" ] && export WEFT_PYTHON_OPENAI="$WEFT_PYTHON_OPENAI_VENV/bin/python"

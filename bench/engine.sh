#!/bin/sh
# This checkout's engine (built in place) for match runners; bench/ab_match.py's default --new.
# The interpreter: $PYTHON, else the checkout's .venv if there is one, else python3 (a match
# runner's own environment may lack numpy, and the engine would then only play legal moves).
cd "$(dirname "$0")/.." || exit 1
if [ -z "$PYTHON" ] && [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; fi
exec "${PYTHON:-python3}" -m usi_engine "$@"

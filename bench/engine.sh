#!/bin/sh
# This checkout's engine (built in place) for match runners; bench/ab_match.py's default --new.
cd "$(dirname "$0")/.." && exec "${PYTHON:-python3}" -m usi_engine "$@"

#!/usr/bin/env bash
# Round 1 of the project's own HalfKP network (issue 70): self-play data scored by the
# engine's own search, then a halfkp_256x2-32-32 trained on it, written as nn.bin.
#
# The data: 20,000,000 positions in 2,000 batches of 10,000 (batch k from seed (1, k):
# the same bytes on any machine), searched at 8,000 nodes with the shipped network,
# the shipped openings and up to 4 random plies. Measured on the 2-core machine: 166
# positions a second a core (2026-12-02), so some 17 hours on 2 cores, 2 on 16.
# Resumable: rerun the same line and the batches already written are skipped; share
# the batches out among machines with BATCHES (e.g. BATCHES=0-999 on one, 1000-1999 on
# another); RAY=auto (or HOST:PORT) runs the batches on a Ray cluster instead.
# Nothing here is committed but this recipe: a lost batch is made again from its seed.
set -euo pipefail
DATA=${DATA:-/work/data/halfkp-round1}
WORKERS=${WORKERS:-$(nproc)}
extra=()
[[ -n ${BATCHES:-} ]] && extra+=(--batches "$BATCHES")
[[ -n ${RAY:-} ]] && extra+=(--ray "$RAY")
usi-engine gensfen --out "$DATA/psv" --positions 20000000 --batch-positions 10000 \
    --seed 1 --nodes 8000 --eval learned --random-plies 4 --workers "$WORKERS" "${extra[@]}"
[[ ${TRAIN:-1} = 1 ]] || exit 0
# The network: 4 epochs from a random start (the last 5% of the batches held out).
usi-engine learn-net "$DATA/psv" --out "$DATA/nn.bin" --head halfkp --epochs 4 \
    --batch-size 8192 --lr 0.001 --out-lr 0.5 --seed 1

#!/usr/bin/env bash
# Build YaneuraOu's NNUE edition for the two wider HalfKP shapes that usi_engine reads
# (halfkp_512x2-16-32, halfkp_1024x2-8-32), beside the halfkp_256x2-32-32 build of
# ../shared/tools/setup-peers.sh: tests/eval/test_nnue_yaneuraou.py compares our eval with
# each build's `e` where it finds one. Run setup-peers.sh first: this reuses its YaneuraOu
# source tree (BUILD_DIR) and compiler choice, and installs into PEERS_DIR as
# yaneuraou-nnue-512x2-16-32 and yaneuraou-nnue-1024x2-8-32. Some 2 minutes a build on 2 cores.
set -euo pipefail
PEERS_DIR=${PEERS_DIR:-$HOME/.cache/usi-peers}
BUILD_DIR=${BUILD_DIR:-$HOME/.cache/usi-peers-build}
SOURCE=$BUILD_DIR/yaneuraou-nnue/source
[[ -d $SOURCE ]] || { echo "no YaneuraOu source at $SOURCE: run ../shared/tools/setup-peers.sh first" >&2; exit 1; }
COMPILER=${COMPILER:-$(command -v ld.lld >/dev/null && echo clang++ || echo g++)}
TARGET_CPU=${TARGET_CPU:-$(grep -qw avx2 /proc/cpuinfo && echo AVX2 || echo SSE42)}
for shape in 512x2-16-32 1024x2-8-32; do
    edition=YANEURAOU_ENGINE_NNUE_HALFKP_$(echo "$shape" | tr 'x-' 'X_')
    tree=$BUILD_DIR/yaneuraou-nnue-$shape
    rm -rf "$tree" && mkdir -p "$tree" && cp -r "$SOURCE" "$tree/source"
    (cd "$tree/source" && make clean >/dev/null 2>&1 || true
     nice -n 5 make -j"${JOBS:-2}" normal YANEURAOU_EDITION="$edition" TARGET_CPU="$TARGET_CPU" \
         COMPILER="$COMPILER" > "$tree/build.log" 2>&1)
    install -m 755 "$tree/source/YaneuraOu-by-gcc" "$PEERS_DIR/yaneuraou-nnue-$shape"
    echo "built $PEERS_DIR/yaneuraou-nnue-$shape ($edition, $TARGET_CPU, $COMPILER)"
done

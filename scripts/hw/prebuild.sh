#!/usr/bin/env bash
# Builds what scripts/hw/nv.sh runs, for a GPU machine that has no Rust toolchain or no registry
# to fetch crates from: the release `baregpu` binary and the release test binaries it runs,
# stripped, into DIR. On the GPU machine (same x86-64 Linux, glibc at least this machine's):
#
#   scripts/hw/prebuild.sh DIR                          # here
#   BAREGPU_HW_PREBUILT=DIR scripts/hw/nv.sh             # there, from a checkout at the same path
#
# The test binaries find their fixtures through the checkout path they were built in (DIR/root
# names it); nv.sh says so when that path is missing there.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?usage: scripts/hw/prebuild.sh DIR}
mkdir -p "$OUT/tests"
cargo build --release --locked --bin baregpu
cp target/release/baregpu "$OUT/baregpu"
# One cargo call for every test binary nv.sh runs; cargo prints each executable as JSON.
cargo test --release --locked --no-run --message-format=json \
    -p baregpu-drivers --test nv_hw --test nv_qmd \
    -p baregpu-runtime --test cubin \
    -p baregpu --test nv_runtime --test nv_corpus |
    python3 -c '
import json, shutil, sys
out = sys.argv[1]
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"].get("test"):
        name = m["target"]["name"]
        shutil.copy(m["executable"], out + "/tests/" + name)
' "$OUT"
strip "$OUT/baregpu" "$OUT"/tests/*
pwd >"$OUT/root"
ls -l "$OUT" "$OUT/tests"

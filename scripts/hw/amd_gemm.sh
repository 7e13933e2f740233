#!/usr/bin/env bash
# Hardware check of the MXFP4 GEMM on a real gfx950 (MI350X / MI355X) over KFD. One command:
#
#   scripts/hw/amd_gemm.sh            # from anywhere in the checkout; AMD_GEMM_DEVICE=amd:N to pick
#
# It builds baregpu (release), finds the first gfx950 in `baregpu devices --json`, runs
# `baregpu gemm mxfp4 --check` (bit-exact inputs and random ones against the host reference) on
# every tile and on shapes that divide no tile, then the performance shapes without the host check
# (its f64 reference of 8192^3 would take the host hours), printing GPU time and TFLOP/s against the
# ~10 PFLOP/s dense FP4 peak of an MI355X. Exit status: 0 all passed, 1 a check failed, 2 no gfx950.
set -uo pipefail

cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$(pwd)/target}
BIN=$CARGO_TARGET_DIR/release/baregpu
PEAK_TFLOPS=${PEAK_TFLOPS:-10000}
FAILED=0

cargo build --release --bin baregpu || { echo "amd_gemm.sh: build failed"; exit 1; }

DEV=${AMD_GEMM_DEVICE:-}
if [ -z "$DEV" ]; then
    DEV=$("$BIN" devices --json | python3 -c '
import json, sys
for x in json.load(sys.stdin).get("devices", []):
    if x.get("arch") == "gfx950" and x.get("kind") != "emulated":
        print(x["spec"]); break
')
fi
if [ -z "$DEV" ]; then
    echo "amd_gemm.sh: no gfx950 here (baregpu devices lists none); nothing to check"
    exit 2
fi
echo "device: $DEV"

gemm() { # label args...
    local label=$1; shift
    local out
    if out=$("$BIN" gemm mxfp4 --device "$DEV" "$@" --json 2>&1); then
        printf '%-34s ok    %s\n' "$label" "$out"
    else
        printf '%-34s FAIL  %s\n' "$label" "$out"
        FAILED=1
    fi
}

# Correctness: every tile and memory mode, exact inputs (bit-exact) and random ones (within the
# bf16 bound).
for mem in lds buffer global; do
    for tile in 256x256 192x256 128x512; do
        gemm "exact 256^3 $tile $mem" -m 256 -n 256 -k 256 --tile "$tile" --memory "$mem" --data exact --check
        gemm "exact 512x512x1024 $tile $mem" -m 512 -n 512 -k 1024 --tile "$tile" --memory "$mem" --data exact --check
        gemm "random 512x512x1024 $tile $mem" -m 512 -n 512 -k 1024 --tile "$tile" --memory "$mem" --check
        gemm "exact 1000x3000x512 $tile $mem" -m 1000 -n 3000 -k 512 --tile "$tile" --memory "$mem" --data exact --check
    done
done
gemm "exact K 4096" -m 256 -n 512 -k 4096 --data exact --check
gemm "random 2048^3" -m 2048 -n 2048 -k 2048 --check

# Performance (`bench gemm mxfp4`): no host check; medians of 10 runs, TFLOP/s from the GPU timestamps.
for s in 4096 8192 16384; do
    for tile in 256x256 192x256 128x512; do
      for mem in lds buffer; do
        out=$("$BIN" bench gemm mxfp4 --device "$DEV" -m "$s" -n "$s" -k "$s" --tile "$tile" --memory "$mem" --runs 10 --json 2>&1) || { echo "perf $s $tile $mem FAIL $out"; FAILED=1; continue; }
        echo "$out" | python3 -c "
import json, sys
d = json.loads(sys.stdin.read())
print('perf %5d^3 %-8s %-6s %10.1f us %9.1f TFLOP/s (%.1f%% of %d peak)' % ($s, d['tile'], d['memory'], d['gpu_us'] or d['wall_us'], d['tflops'], 100 * d['tflops'] / $PEAK_TFLOPS, $PEAK_TFLOPS))"
      done
    done
done

[ $FAILED = 0 ] && echo "amd_gemm.sh: all passed" || echo "amd_gemm.sh: FAILED"
exit $FAILED

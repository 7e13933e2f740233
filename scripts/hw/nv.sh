#!/usr/bin/env bash
# Hardware check for a machine with an NVIDIA GPU and the 580-branch kernel driver (open or
# proprietary modules, nvidia + nvidia-uvm loaded). One command, a few minutes:
#
#   scripts/hw/nv.sh            # from anywhere in the checkout
#
# It builds baregpu (release), lists the devices, runs the real-GPU bring-up test (RM client,
# device, VA space, UVM, channels, memory round trips), runs a vector add and a tiled matmul with
# `baregpu run --device nv:0` (clang-built PTX compiled by ptxas into cubins) and checks their
# outputs on the host, runs the runtime's NVIDIA tests on the GPU (reduction with shared memory
# and atomics, f16/f64 math, copy engine, 64-bit semaphores across channels, a faulting kernel)
# and the clang corpus at -O0..-O3 (tests/nv_corpus.rs),
# `baregpu demo` and `baregpu bench launch`, then proves that no CUDA user-mode library was loaded
# by any of it: every process runs with LD_DEBUG=libs, which makes ld.so log each library it
# loads, dlopen() included, and the logs are searched for libcuda, libcudart,
# libnvidia-ptxjitcompiler and libnvrtc. ptxas (a compiler executable, not a library of this
# process) comes from $PTXAS, PATH, /usr/local/cuda/bin, or the pinned nvidia-cuda-nvcc wheel.
# Exit status: 0 all passed, 1 a check failed, 2 no NVIDIA GPU/driver here.
#
# BAREGPU_HW_PREBUILT=DIR: a machine with no Rust toolchain runs the binaries that
# scripts/hw/prebuild.sh DIR built elsewhere, instead of building them here.
set -uo pipefail

cd "$(dirname "$0")/../.."
ROOT=$(pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LOGDIR=$(mktemp -d -t baregpu-nv-hw.XXXXXX)
declare -a RESULTS=()
FAILED=0
PREBUILT=${BAREGPU_HW_PREBUILT:-}

say() { printf '%s\n' "$*"; }
record() { # name status detail
    RESULTS+=("$(printf '%-28s %-8s %s' "$1" "$2" "$3")")
    [ "$2" = FAIL ] && FAILED=1
    return 0
}

# --- Is there an NVIDIA GPU and driver? ---------------------------------------------------
if [ ! -e /dev/nvidiactl ] || [ ! -r /proc/driver/nvidia/version ]; then
    say "nv.sh: no NVIDIA GPU driver on this machine (/dev/nvidiactl or /proc/driver/nvidia/version missing); nothing to check"
    exit 2
fi
DRIVER=$(sed -n 's/.*Kernel Module[^0-9]*\([0-9][0-9]*\.[0-9.]*\).*/\1/p' /proc/driver/nvidia/version | head -n1)
[ -n "$DRIVER" ] || DRIVER=$(head -n1 /proc/driver/nvidia/version)
say "driver: $DRIVER"
case "$DRIVER" in
    580.*) ;;
    *) say "warning: this check is written for the 580 branch; the RM ABI module is chosen by branch, continuing" ;;
esac
for f in /proc/driver/nvidia/gpus/*/information; do
    [ -r "$f" ] && say "gpu $(basename "$(dirname "$f")"): $(sed -n 's/^Model:[[:space:]]*//p' "$f")"
done
if [ ! -e /dev/nvidia-uvm ]; then
    say "warning: /dev/nvidia-uvm is missing (modprobe nvidia-uvm); the bring-up test will skip"
fi

# A command prefix that makes ld.so log every library load into $LOGDIR/ld.<name>.<pid>.
traced() { # name
    printf '%s\n' env LD_DEBUG=libs "LD_DEBUG_OUTPUT=$LOGDIR/ld.$1"
}

# The command that runs one integration test binary (arguments to the test harness follow it).
test_cmd() { # test-name cargo-package-args...
    local name=$1
    shift
    if [ -n "$PREBUILT" ]; then
        printf '%s\n' "$PREBUILT/tests/$name"
    else
        printf '%s\n' cargo test --release "$@" --test "$name" --
    fi
}

step() { # name timeout cmd... ; output in $LOGDIR/<name>.log
    local name=$1 secs=$2
    shift 2
    local t0=$SECONDS
    if timeout "$secs" "$@" >"$LOGDIR/$name.log" 2>&1; then
        record "$name" ok "$((SECONDS - t0)) s"
        return 0
    else
        local rc=$?
        record "$name" FAIL "exit $rc after $((SECONDS - t0)) s, see $LOGDIR/$name.log"
        tail -n 20 "$LOGDIR/$name.log" | sed 's/^/    /'
        return 1
    fi
}

# --- Build ---------------------------------------------------------------------------------
if [ -n "$PREBUILT" ]; then
    BIN=$PREBUILT/baregpu
    [ -x "$BIN" ] || { say "no $BIN: run scripts/hw/prebuild.sh $PREBUILT on a machine with cargo"; exit 1; }
    BUILT_AT=$(cat "$PREBUILT/root" 2>/dev/null || true)
    if [ -n "$BUILT_AT" ] && [ ! -d "$BUILT_AT/tests/fixtures" ]; then
        say "warning: the test binaries read fixtures under $BUILT_AT, which is not here (link it to $ROOT)"
    fi
    record build ok "prebuilt in $PREBUILT"
else
    say "building (release) ..."
    if ! step build 240 cargo build --release --bin baregpu; then
        say "build failed; stopping"
        printf '%s\n' "${RESULTS[@]}"
        exit 1
    fi
    BIN=$CARGO_TARGET_DIR/release/baregpu
fi

# --- Devices --------------------------------------------------------------------------------
# shellcheck disable=SC2046
if step devices 30 $(traced devices) "$BIN" devices; then
    cat "$LOGDIR/devices.log"
    if ! grep -Eq '(^|[^-])nv(:[0-9]+)?([^a-z0-9]|$)' "$LOGDIR/devices.log"; then
        record devices-lists-nv FAIL "no nv device in \`baregpu devices\`"
    else
        record devices-lists-nv ok "an nv device is listed"
    fi
fi

# --- Real-GPU bring-up ----------------------------------------------------------------------
# Build the test binary first (untraced), then run it traced.
[ -n "$PREBUILT" ] || step build-tests 240 cargo test --release -p baregpu-drivers --test nv_hw --no-run
# shellcheck disable=SC2046
if step nv_hw 120 $(traced nv_hw) $(test_cmd nv_hw -p baregpu-drivers) --ignored --nocapture; then
    if grep -q 'skipped:' "$LOGDIR/nv_hw.log"; then
        record nv_hw-ran FAIL "the test skipped itself: $(grep -m1 'skipped:' "$LOGDIR/nv_hw.log")"
    else
        record nv_hw-ran ok "$(grep -m1 'classes' "$LOGDIR/nv_hw.log" | cut -c1-100)"
    fi
fi

# --- ptxas (the cubins come from it) ---------------------------------------------------------
if [ -z "${PTXAS:-}" ]; then
    PTXAS=$(command -v ptxas || true)
    [ -z "$PTXAS" ] && [ -x /usr/local/cuda/bin/ptxas ] && PTXAS=/usr/local/cuda/bin/ptxas
    if [ -z "$PTXAS" ]; then
        CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/baregpu/nvidia-cuda-nvcc-13.5.37
        PTXAS=$(find "$CACHE" -path '*/bin/ptxas' -type f 2>/dev/null | head -n1 || true)
        if [ -z "$PTXAS" ] && python3 -m pip install --quiet --target "$CACHE" nvidia-cuda-nvcc==13.5.37 >/dev/null 2>&1; then
            PTXAS=$(find "$CACHE" -path '*/bin/ptxas' -type f | head -n1)
        fi
    fi
fi
if [ -n "${PTXAS:-}" ]; then
    export PTXAS
    record ptxas ok "$PTXAS"
else
    record ptxas FAIL "no ptxas (CUDA toolkit, PATH, or pip nvidia-cuda-nvcc): the launches below cannot compile"
fi

# --- Kernels through `baregpu run` on nv:0, checked on the host ------------------------------
PTX=$ROOT/tests/fixtures/ptx/kernels.ptx
WORK=$LOGDIR/run
mkdir -p "$WORK"
python3 - "$WORK" <<'PY'
import random, struct, sys
d = sys.argv[1]
random.seed(7)
n = 1 << 20
open(f"{d}/a.bin", "wb").write(struct.pack(f"{n}f", *[random.uniform(-1, 1) for _ in range(n)]))
open(f"{d}/b.bin", "wb").write(struct.pack(f"{n}f", *[random.uniform(-1, 1) for _ in range(n)]))
m = 64
open(f"{d}/ma.bin", "wb").write(struct.pack(f"{m*m}f", *[random.uniform(-1, 1) for _ in range(m * m)]))
open(f"{d}/mb.bin", "wb").write(struct.pack(f"{m*m}f", *[random.uniform(-1, 1) for _ in range(m * m)]))
PY
# shellcheck disable=SC2046
if step run-vector-add 60 $(traced run-vadd) "$BIN" run "$PTX" --kernel vector_add --device nv:0 \
    --grid 4096 --block 256 --arg "in:$WORK/a.bin" --arg "in:$WORK/b.bin" --arg out:4194304 --arg u32:1048576 \
    --out "$WORK/vadd"; then
    if python3 - "$WORK" <<'PY'
import struct, sys
d = sys.argv[1]; n = 1 << 20
a = struct.unpack(f"{n}f", open(f"{d}/a.bin", "rb").read())
b = struct.unpack(f"{n}f", open(f"{d}/b.bin", "rb").read())
c = struct.unpack(f"{n}f", open(f"{d}/vadd/arg2.bin", "rb").read())
bad = [i for i in range(n) if c[i] != struct.unpack("f", struct.pack("f", a[i] + b[i]))[0]]
sys.exit(1 if bad else 0)
PY
    then record vector-add-result ok "1M elements match the host"; else record vector-add-result FAIL "wrong sums"; fi
fi
# shellcheck disable=SC2046
if step run-matmul 60 $(traced run-matmul) "$BIN" run "$PTX" --kernel matmul_tiled --device nv:0 \
    --grid 8,8 --block 8,8 --arg "in:$WORK/ma.bin" --arg "in:$WORK/mb.bin" --arg out:16384 --arg u32:64 \
    --out "$WORK/mm"; then
    if python3 - "$WORK" <<'PY'
import struct, sys
d = sys.argv[1]; m = 64
a = struct.unpack(f"{m*m}f", open(f"{d}/ma.bin", "rb").read())
b = struct.unpack(f"{m*m}f", open(f"{d}/mb.bin", "rb").read())
c = struct.unpack(f"{m*m}f", open(f"{d}/mm/arg2.bin", "rb").read())
err = max(abs(c[i*m+j] - sum(a[i*m+k]*b[k*m+j] for k in range(m))) for i in range(m) for j in range(m))
print(f"max error {err:.3g}")
sys.exit(0 if err < 1e-3 else 1)
PY
    then record matmul-result ok "64x64x64 matches the host"; else record matmul-result FAIL "wrong products"; fi
fi

# --- The runtime's NVIDIA tests on the GPU, the demo, and the launch benchmark ----------------
[ -n "$PREBUILT" ] || step build-nv-runtime 300 cargo test --release --test nv_runtime --test nv_corpus --no-run
# shellcheck disable=SC2046
step nv_runtime 180 $(traced nv_runtime) env BAREGPU_NV_DEVICE=nv:0 $(test_cmd nv_runtime)
# The clang corpus (tests/kernels/corpus.cl) at -O0..-O3 against the host references.
# shellcheck disable=SC2046
step nv_corpus 300 $(traced nv_corpus) env BAREGPU_NV_DEVICE=nv:0 $(test_cmd nv_corpus)
# shellcheck disable=SC2046
step demo 120 $(traced demo) "$BIN" demo --device nv:0
# shellcheck disable=SC2046
if step bench-launch 120 $(traced bench) "$BIN" bench launch --device nv:0; then
    sed 's/^/    /' "$LOGDIR/bench-launch.log"
fi

# --- Offline NV checks (no GPU needed; they run here because they are cheap) ----------------
# shellcheck disable=SC2046
step nv_qmd 120 $(test_cmd nv_qmd -p baregpu-drivers)
# shellcheck disable=SC2046
step cubin 120 $(test_cmd cubin -p baregpu-runtime)

# --- Was any CUDA user-mode library loaded? -------------------------------------------------
LD_LOGS=$(ls "$LOGDIR"/ld.* 2>/dev/null | wc -l)
if [ "$LD_LOGS" -eq 0 ] || ! grep -qs 'libc\.so' "$LOGDIR"/ld.*; then
    record no-libcuda FAIL "could not verify: ld.so wrote no LD_DEBUG logs"
elif grep -Eqs 'lib(cuda|cudart|nvidia-ptxjitcompiler|nvrtc|nvJitLink)\.so' "$LOGDIR"/ld.*; then
    record no-libcuda FAIL "$(grep -Ehos 'lib(cuda|cudart|nvidia-ptxjitcompiler|nvrtc|nvJitLink)\.so[^ ]*' "$LOGDIR"/ld.* | sort -u | tr '\n' ' ')"
else
    record no-libcuda ok "$LD_LOGS processes traced, none loaded libcuda/libcudart/ptxjitcompiler/nvrtc"
fi
if ldd "$BIN" 2>/dev/null | grep -Eq 'libcuda|libnvidia'; then
    record ldd-baregpu FAIL "the baregpu binary links an NVIDIA library: $(ldd "$BIN" | grep -E 'libcuda|libnvidia')"
else
    record ldd-baregpu ok "baregpu links no NVIDIA library"
fi

# --- Summary --------------------------------------------------------------------------------
say ""
say "== baregpu NVIDIA hardware check ($DRIVER) =="
printf '%s\n' "${RESULTS[@]}"
say "logs: $LOGDIR"
exit $FAILED

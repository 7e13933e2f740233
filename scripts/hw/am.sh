#!/usr/bin/env bash
# Hardware check of the userspace PCI driver (AM: no amdgpu.ko) on a real AMD GPU
# (gfx1100 / Navi31 first, gfx942 next). One command, as root:
#
#   scripts/hw/am.sh [BDF]        # from anywhere in the checkout; BDF like 0000:03:00.0
#
#   AM_UNBIND=1   unbind amdgpu from the GPU first (the desktop on it goes away)
#   AM_REBIND=1   bind amdgpu again at the end
#   AM_VFIO=1     go through VFIO: load vfio-pci, bind the GPU to it, BAREGPU_VFIO=1
#
# It builds baregpu (release), checks the privileges the sysfs path needs (root, or
# cap_dac_override, cap_sys_admin and cap_ipc_lock), finds the AMD GPU in `baregpu devices
# --json`, frees it from amdgpu if asked, runs `baregpu devices`, `baregpu demo --device am:BDF`
# and `baregpu bench launch --device am:BDF` with BAREGPU_TRACE (the boot's register writes and
# the command streams) and BAREGPU_LOG=debug, and keeps every log under one directory.
# Exit status: 0 all passed, 1 a check failed, 2 no usable AMD PCI GPU here.
set -uo pipefail

cd "$(dirname "$0")/../.."
ROOT=$(pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
LOGDIR=$(mktemp -d -t baregpu-am-hw.XXXXXX)
declare -a RESULTS=()
FAILED=0

say() { printf '%s\n' "$*"; }
record() { # name status detail
    RESULTS+=("$(printf '%-24s %-8s %s' "$1" "$2" "$3")")
    [ "$2" = FAIL ] && FAILED=1
    return 0
}
summary() {
    say ""
    say "== baregpu AM hardware check (${BDF:-no device}) =="
    printf '%s\n' "${RESULTS[@]}"
    say "logs: $LOGDIR"
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
say "building (release) ..."
if ! step build 300 cargo build --release --bin baregpu; then
    summary
    exit 1
fi
BIN=$CARGO_TARGET_DIR/release/baregpu

# --- Privileges -----------------------------------------------------------------------------
if [ "$(id -u)" -eq 0 ]; then
    record privileges ok "root"
elif command -v getcap >/dev/null && getcap "$BIN" | grep -q 'cap_sys_admin'; then
    record privileges ok "$(getcap "$BIN")"
else
    record privileges FAIL "not root and $BIN has no capabilities: run as root or setcap cap_dac_override,cap_sys_admin,cap_ipc_lock=ep $BIN"
fi

# --- Which GPU ------------------------------------------------------------------------------
step devices-json 30 "$BIN" devices --json
PCI_JSON=$LOGDIR/devices-json.log
pci_field() { # bdf field -> the field of that GPU in `devices --json` (empty when absent)
    python3 - "$PCI_JSON" "$1" "$2" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception:
    sys.exit(0)
for g in doc.get("pci", []):
    if g["bdf"] == sys.argv[2]:
        v = g.get(sys.argv[3])
        print("" if v is None else v)
PY
}
BDF=${1:-${AM_BDF:-}}
if [ -z "$BDF" ]; then
    BDF=$(python3 - "$PCI_JSON" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception:
    sys.exit(0)
gpus = doc.get("pci", [])
# A GPU nothing is bound to first, then one behind vfio-pci, then one amdgpu holds.
for want in (None, "vfio-pci", "amdgpu"):
    for g in gpus:
        if g.get("driver") == want:
            print(g["bdf"]); sys.exit(0)
PY
)
fi
if [ -z "$BDF" ]; then
    say "am.sh: no AMD PCI GPU in \`baregpu devices --json\`; nothing to check"
    summary
    exit 2
fi
say "device: $BDF ($(pci_field "$BDF" status))"
SYSDEV=/sys/bus/pci/devices/$BDF
if [ ! -d "$SYSDEV" ]; then
    say "am.sh: no $SYSDEV"
    summary
    exit 2
fi

# --- Free it from amdgpu (or hand it to vfio-pci) --------------------------------------------
driver_of() { [ -L "$SYSDEV/driver" ] && basename "$(readlink "$SYSDEV/driver")"; }
DRIVER=$(driver_of || true)
WAS_AMDGPU=0
if [ "$DRIVER" = amdgpu ]; then
    WAS_AMDGPU=1
    if [ "${AM_UNBIND:-0}" = 1 ]; then
        if echo "$BDF" >/sys/bus/pci/drivers/amdgpu/unbind; then
            record unbind-amdgpu ok "$BDF"
        else
            record unbind-amdgpu FAIL "echo $BDF > /sys/bus/pci/drivers/amdgpu/unbind failed"
        fi
    else
        record unbind-amdgpu FAIL "$BDF is bound to amdgpu; rerun with AM_UNBIND=1 (or unbind it yourself)"
    fi
fi
if [ "${AM_VFIO:-0}" = 1 ]; then
    modprobe vfio-pci 2>"$LOGDIR/modprobe.log" || record vfio-modprobe FAIL "$(cat "$LOGDIR/modprobe.log")"
    if [ "$(driver_of || true)" != vfio-pci ]; then
        echo vfio-pci >"$SYSDEV/driver_override" && echo "$BDF" >/sys/bus/pci/drivers_probe
    fi
    if [ "$(driver_of || true)" = vfio-pci ]; then
        record bind-vfio ok "IOMMU group $(basename "$(readlink "$SYSDEV/iommu_group" 2>/dev/null || echo none)")"
    else
        record bind-vfio FAIL "could not bind $BDF to vfio-pci"
    fi
    export BAREGPU_VFIO=1
fi
say "driver now: $(driver_of || echo none)"
{
    say "resource:"; cat "$SYSDEV/resource" 2>&1
    say "resource0_resize: $(cat "$SYSDEV/resource0_resize" 2>&1)"
    say "enable: $(cat "$SYSDEV/enable" 2>&1)"
    # sysfs mode needs DMA untranslated (type identity); VFIO maps it through the IOMMU.
    say "iommu group: $(readlink "$SYSDEV/iommu_group" 2>&1) type $(cat "$SYSDEV/iommu_group/type" 2>&1)"
    lspci -vvv -s "$BDF" 2>&1
} >"$LOGDIR/sysfs.log"

# --- The checks -----------------------------------------------------------------------------
if step devices 30 "$BIN" devices; then
    if grep -q "am:$BDF" "$LOGDIR/devices.log"; then
        record devices-lists-am ok "$(grep -m1 "am:$BDF" "$LOGDIR/devices.log" | cut -c1-110)"
    else
        record devices-lists-am FAIL "am:$BDF is not in \`baregpu devices\`"
    fi
fi
step pci-unit-tests 300 cargo test --release -p baregpu-drivers --lib pci::
export BAREGPU_LOG=${BAREGPU_LOG:-debug}
step demo 300 env "BAREGPU_TRACE=$LOGDIR/trace.demo.log" "$BIN" demo --device "am:$BDF"
if step bench-launch 300 env "BAREGPU_TRACE=$LOGDIR/trace.bench.log" "$BIN" bench launch --device "am:$BDF"; then
    sed 's/^/    /' "$LOGDIR/bench-launch.log" | tail -n 5
fi
# A second open reuses what the first boot left (partial boot), and must still work.
step demo-again 300 env "BAREGPU_TRACE=$LOGDIR/trace.demo-again.log" "$BIN" demo --device "am:$BDF"
for t in demo bench demo-again; do
    f=$LOGDIR/trace.$t.log
    [ -s "$f" ] && say "trace $t: $(wc -l <"$f") lines in $f"
done
# The boot lines of the trace (register writes like `regGRBM_GFX_CNTL <- me=1 pipe=0 queue=0`).
grep -h ' <- ' "$LOGDIR"/trace.demo.log 2>/dev/null | head -n 200 >"$LOGDIR/boot.log" || true

# --- Give the GPU back ------------------------------------------------------------------------
if [ "${AM_VFIO:-0}" = 1 ] && [ -e "$SYSDEV/driver_override" ]; then
    echo >"$SYSDEV/driver_override" || true
fi
if [ "${AM_REBIND:-0}" = 1 ] && [ "$WAS_AMDGPU" = 1 ]; then
    [ -L "$SYSDEV/driver" ] && echo "$BDF" >"$SYSDEV/driver/unbind"
    if echo "$BDF" >/sys/bus/pci/drivers/amdgpu/bind; then
        record rebind-amdgpu ok "$BDF"
    else
        record rebind-amdgpu FAIL "echo $BDF > /sys/bus/pci/drivers/amdgpu/bind failed (see dmesg)"
    fi
fi
dmesg 2>/dev/null | tail -n 100 >"$LOGDIR/dmesg.log" || true

summary
exit $FAILED

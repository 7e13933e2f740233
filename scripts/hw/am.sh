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
# It looks for an AMD display-class PCI function in sysfs first (none: one line, exit 2), builds
# baregpu (release), checks the firmware files the chip needs in /lib/firmware/amdgpu (plain
# .bin; .bin.zst copies only are named with the `unzstd` to run: the driver reads no zstd),
# reports a BAR0 smaller than VRAM (no resizable BAR: VRAM past the BAR goes through MM_INDEX
# and SDMA staging), checks the privileges the sysfs path needs (root, or
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

# --- Is there a card at all (no build needed to know) ----------------------------------------
amd_gpus() { # BDFs of AMD (0x1002) display-class (0x03xxxx) functions
    local d
    for d in /sys/bus/pci/devices/*; do
        [ -r "$d/vendor" ] && [ -r "$d/class" ] || continue
        [ "$(cat "$d/vendor")" = 0x1002 ] || continue
        case $(cat "$d/class") in 0x03*) basename "$d" ;; esac
    done
}
if [ -z "${1:-${AM_BDF:-}}" ] && [ -z "$(amd_gpus)" ]; then
    say "am.sh: no AMD GPU (vendor 0x1002, display class) in /sys/bus/pci/devices; nothing to check"
    exit 2
fi

# --- Build ---------------------------------------------------------------------------------
say "building (release) ..."
if ! step build 900 cargo build --release --locked --bin baregpu; then
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

VRAM_BEFORE=$(cat "$SYSDEV/mem_info_vram_total" 2>/dev/null || true)

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

# --- Firmware --------------------------------------------------------------------------------
# The files the driver loads (drivers::amd::am::firmware::ChipVersions::blob_names), by device
# id for the chips it knows; another chip's missing file is named by the boot itself.
FWDIR=/lib/firmware/amdgpu
DEVID=$(cat "$SYSDEV/device" 2>/dev/null)
case $DEVID in
    0x744c|0x7448) FW="psp_13_0_0_sos smu_13_0_0 sdma_6_0_0 gc_11_0_0_pfp gc_11_0_0_me gc_11_0_0_mec gc_11_0_0_imu gc_11_0_0_rlc" ;;
    0x74a0|0x74a1|0x74a5) FW="psp_13_0_6_sos smu_13_0_6 sdma_4_4_2 gc_9_4_3_mec gc_9_4_3_rlc" ;;
    *) FW="" ;;
esac
if [ -z "$FW" ]; then
    record firmware skip "device $DEVID: no file list here; the boot names a missing file"
else
    MISSING="" ZST=""
    for f in $FW; do
        if [ -f "$FWDIR/$f.bin" ]; then continue; fi
        if [ -f "$FWDIR/$f.bin.zst" ]; then ZST="$ZST $f.bin.zst"; else MISSING="$MISSING $f.bin"; fi
    done
    if [ -n "$MISSING" ]; then
        record firmware FAIL "missing in $FWDIR:$MISSING (Debian: firmware-amd-graphics, non-free-firmware)"
    elif [ -n "$ZST" ]; then
        record firmware FAIL "only zstd-compressed copies:$ZST; the driver reads no zstd: run \`cd $FWDIR && unzstd -k$ZST\` as root"
    else
        record firmware ok "$(echo "$FW" | wc -w) files in $FWDIR"
    fi
fi

# --- BAR0 against VRAM (resizable BAR) --------------------------------------------------------
# resource line 1 is BAR0 (VRAM): start end flags. VRAM size as amdgpu reported it before the
# unbind (VRAM_BEFORE); without amdgpu the boot's RCC_CONFIG_MEMSIZE is the only source.
BAR0=""
if read -r B0S B0E _ <"$SYSDEV/resource" 2>/dev/null && [ $((B0E)) -gt $((B0S)) ]; then
    BAR0=$((B0E - B0S + 1))
fi
VRAM=$VRAM_BEFORE
if [ -z "$BAR0" ]; then
    record bar0 FAIL "no BAR0 in $SYSDEV/resource"
elif [ -n "$VRAM" ] && [ "$BAR0" -lt "$VRAM" ]; then
    record bar0 warn "BAR0 $((BAR0 >> 20)) MiB < VRAM $((VRAM >> 20)) MiB: enable Resizable BAR (Above 4G decoding) in the firmware setup; resource0_resize: $(cat "$SYSDEV/resource0_resize" 2>/dev/null || echo none)"
else
    record bar0 ok "BAR0 $((BAR0 >> 20)) MiB${VRAM:+, VRAM $((VRAM >> 20)) MiB}"
fi

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

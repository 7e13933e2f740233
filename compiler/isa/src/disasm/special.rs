//! Symbolic forms of scalar immediates: s_waitcnt, s_delay_alu, depctr, hwreg, sendmsg.

use crate::operand::is_gfx9;
use crate::Arch;

pub fn waitcnt(arch: Arch, v: u32) -> String {
    let (vm, exp, lgkm, vm_max, lgkm_max) = if is_gfx9(arch) {
        ((v & 0xf) | ((v >> 14) & 3) << 4, (v >> 4) & 7, (v >> 8) & 0xf, 63, 15)
    } else {
        ((v >> 10) & 0x3f, v & 7, (v >> 4) & 0x3f, 63, 63)
    };
    let mut parts = Vec::new();
    if vm != vm_max {
        parts.push(format!("vmcnt({vm})"));
    }
    if exp != 7 {
        parts.push(format!("expcnt({exp})"));
    }
    if lgkm != lgkm_max {
        parts.push(format!("lgkmcnt({lgkm})"));
    }
    if parts.is_empty() {
        return format!("vmcnt({vm}) expcnt({exp}) lgkmcnt({lgkm})");
    }
    parts.join(" ")
}

const INSTID: [&str; 12] = [
    "NO_DEP",
    "VALU_DEP_1",
    "VALU_DEP_2",
    "VALU_DEP_3",
    "VALU_DEP_4",
    "TRANS32_DEP_1",
    "TRANS32_DEP_2",
    "TRANS32_DEP_3",
    "FMA_ACCUM_CYCLE_1",
    "SALU_CYCLE_1",
    "SALU_CYCLE_2",
    "SALU_CYCLE_3",
];
const SKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];

pub fn delay_alu(v: u32) -> String {
    let (id0, skip, id1) = (v & 0xf, (v >> 4) & 7, (v >> 7) & 0xf);
    if v >> 11 != 0 || id0 as usize >= INSTID.len() || id1 as usize >= INSTID.len() || skip as usize >= SKIP.len() {
        return format!("0x{v:x}");
    }
    let mut parts = Vec::new();
    if id0 != 0 {
        parts.push(format!("instid0({})", INSTID[id0 as usize]));
    }
    if skip != 0 {
        parts.push(format!("instskip({})", SKIP[skip as usize]));
    }
    if id1 != 0 {
        parts.push(format!("instid1({})", INSTID[id1 as usize]));
    }
    if parts.is_empty() {
        return "0".into();
    }
    parts.join(" | ")
}

/// (name, lo bit, width) of the depctr fields, in print order.
pub const DEPCTR: [(&str, u32, u32); 7] = [
    ("depctr_hold_cnt", 7, 1),
    ("depctr_sa_sdst", 0, 1),
    ("depctr_va_vdst", 12, 4),
    ("depctr_va_sdst", 9, 3),
    ("depctr_va_ssrc", 8, 1),
    ("depctr_va_vcc", 1, 1),
    ("depctr_vm_vsrc", 2, 3),
];

pub fn depctr(v: u32) -> String {
    let mut parts = Vec::new();
    for (n, lo, w) in DEPCTR {
        let x = (v >> lo) & ((1 << w) - 1);
        if x != (1 << w) - 1 {
            parts.push(format!("{n}({x})"));
        }
    }
    if parts.is_empty() {
        return format!("0x{v:x}");
    }
    parts.join(" ")
}

pub fn hwreg_name(arch: Arch, id: u32) -> Option<&'static str> {
    Some(match (arch, id) {
        (_, 1) => "HW_REG_MODE",
        (_, 2) => "HW_REG_STATUS",
        (Arch::Gfx1201, 4) => "HW_REG_HW_ID1",
        (Arch::Gfx1201, 16) => "HW_REG_PERF_SNAPSHOT_DATA2",
        (Arch::Gfx1201, 17) => "HW_REG_WAVE_EXCP_FLAG_PRIV",
        (Arch::Gfx1100, 3) => "HW_REG_TRAPSTS",
        (Arch::Gfx1100, 4) => "HW_REG_HW_ID1",
        (Arch::Gfx1100, 5) => "HW_REG_GPR_ALLOC",
        (Arch::Gfx1100, 6) => "HW_REG_LDS_ALLOC",
        (Arch::Gfx1100, 7) => "HW_REG_IB_STS",
        (Arch::Gfx1100, 23) => "HW_REG_HW_ID2",
        (Arch::Gfx942 | Arch::Gfx950, 3) => "HW_REG_TRAPSTS",
        (Arch::Gfx942 | Arch::Gfx950, 4) => "HW_REG_HW_ID",
        (Arch::Gfx942 | Arch::Gfx950, 5) => "HW_REG_GPR_ALLOC",
        (Arch::Gfx942 | Arch::Gfx950, 6) => "HW_REG_LDS_ALLOC",
        (Arch::Gfx942 | Arch::Gfx950, 7) => "HW_REG_IB_STS",
        (Arch::Gfx942 | Arch::Gfx950, 16) => "HW_REG_TBA_LO",
        (Arch::Gfx942 | Arch::Gfx950, 17) => "HW_REG_TBA_HI",
        (Arch::Gfx942 | Arch::Gfx950, 18) => "HW_REG_TMA_LO",
        (Arch::Gfx942 | Arch::Gfx950, 19) => "HW_REG_TMA_HI",
        (Arch::Gfx942 | Arch::Gfx950, 15) => "HW_REG_SH_MEM_BASES",
        (Arch::Gfx942 | Arch::Gfx950, 20) => "HW_REG_XCC_ID",
        (Arch::Gfx942 | Arch::Gfx950, 21) => "HW_REG_SQ_PERF_SNAPSHOT_DATA",
        (Arch::Gfx942 | Arch::Gfx950, 22) => "HW_REG_SQ_PERF_SNAPSHOT_DATA1",
        (Arch::Gfx942 | Arch::Gfx950, 23) => "HW_REG_SQ_PERF_SNAPSHOT_PC_LO",
        (Arch::Gfx942 | Arch::Gfx950, 24) => "HW_REG_SQ_PERF_SNAPSHOT_PC_HI",
        _ => return None,
    })
}

pub fn hwreg(arch: Arch, v: u32) -> String {
    let (id, off, size) = (v & 0x3f, (v >> 6) & 0x1f, ((v >> 11) & 0x1f) + 1);
    let name = hwreg_name(arch, id).map(str::to_string).unwrap_or_else(|| id.to_string());
    if off == 0 && size == 32 {
        format!("hwreg({name})")
    } else {
        format!("hwreg({name}, {off}, {size})")
    }
}

pub fn sendmsg_name(arch: Arch, id: u32) -> Option<&'static str> {
    if !is_gfx9(arch) {
        return sendmsg_name_gfx11(arch, id);
    }
    Some(match id {
        1 => "MSG_INTERRUPT",
        2 => "MSG_GS",
        3 => "MSG_GS_DONE",
        4 => "MSG_SAVEWAVE",
        8 => "MSG_EARLY_PRIM_DEALLOC",
        9 => "MSG_GS_ALLOC_REQ",
        10 => "MSG_GET_DOORBELL",
        15 => "MSG_SYSMSG",
        5 => "MSG_STALL_WAVE_GEN",
        6 => "MSG_HALT_WAVES",
        7 => "MSG_ORDERED_PS_DONE",
        _ => return None,
    })
}

/// gfx11/gfx12 message names as llvm-mc 22 prints them (the same table for s_sendmsg and
/// s_sendmsg_rtn); gfx12 dropped STALL_WAVE_GEN/HALT_WAVES and added SE_AID_ID.
fn sendmsg_name_gfx11(arch: Arch, id: u32) -> Option<&'static str> {
    let g12 = arch == Arch::Gfx1201;
    Some(match id {
        1 => "MSG_INTERRUPT",
        2 => "MSG_HS_TESSFACTOR",
        3 => "MSG_DEALLOC_VGPRS",
        5 if !g12 => "MSG_STALL_WAVE_GEN",
        6 if !g12 => "MSG_HALT_WAVES",
        9 => "MSG_GS_ALLOC_REQ",
        128 => "MSG_RTN_GET_DOORBELL",
        129 => "MSG_RTN_GET_DDID",
        130 => "MSG_RTN_GET_TMA",
        131 => "MSG_RTN_GET_REALTIME",
        132 => "MSG_RTN_SAVE_WAVE",
        133 => "MSG_RTN_GET_TBA",
        134 => "MSG_RTN_GET_TBA_TO_PC",
        135 if g12 => "MSG_RTN_GET_SE_AID_ID",
        _ => return None,
    })
}

/// gfx9 sendmsg operation names: GS operations of MSG_GS/MSG_GS_DONE, system messages.
pub const GS_OPS: [&str; 4] = ["GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"];
pub fn sysmsg_op(op: u32) -> Option<&'static str> {
    Some(match op {
        1 => "SYSMSG_OP_ECC_ERR_INTERRUPT",
        2 => "SYSMSG_OP_REG_RD",
        4 => "SYSMSG_OP_TTRACE_PC",
        _ => return None,
    })
}

pub fn sendmsg(arch: Arch, v: u32) -> String {
    let (id, op, stream) =
        if is_gfx9(arch) { (v & 0xf, (v >> 4) & 7, (v >> 8) & 3) } else { (v & 0xff, (v >> 8) & 7, 0) };
    // llvm-mc: a valid message by name (other bits ignored); else the three numbers when they
    // give the value back; else the number.
    let numbers = |id: u32, op: u32, stream: u32| {
        let back = if is_gfx9(arch) { id | op << 4 | stream << 8 } else { id | op << 8 };
        if back == v {
            format!("sendmsg({id}, {op}, {stream})")
        } else {
            v.to_string()
        }
    };
    if is_gfx9(arch) {
        // MSG_GS needs a GS operation; MSG_GS_DONE may have none (then no stream is printed).
        match id {
            2 | 3 if op != 0 && op < 4 => {
                return format!("sendmsg({}, {}, {stream})", sendmsg_name(arch, id).unwrap_or(""), GS_OPS[op as usize]);
            }
            3 if op == 0 && stream == 0 => return "sendmsg(MSG_GS_DONE, GS_OP_NOP)".into(),
            15 if stream == 0 => {
                if let Some(n) = sysmsg_op(op) {
                    return format!("sendmsg(MSG_SYSMSG, {n})");
                }
            }
            _ => {}
        }
        if matches!(id, 2 | 3 | 15) {
            return numbers(id, op, stream);
        }
    }
    if op == 0 && stream == 0 {
        if let Some(n) = sendmsg_name(arch, id) {
            return format!("sendmsg({n})");
        }
    }
    if is_gfx9(arch) {
        return numbers(id, op, stream);
    }
    format!("sendmsg({id}, {op}, {stream})")
}

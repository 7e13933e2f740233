//! Message names of `s_sendmsg`/`s_sendmsg_rtn` (`sendmsg(MSG, OP, STREAM)`), per architecture,
//! as llvm-mc 22 prints and accepts them (checked against llvm-mc 22 by tests/names_llvm.rs).
//!
//! llvm-mc encodes `sendmsg(id, op, stream)` as `id | op << 4 | stream << 8` on every
//! architecture (gfx11+ message ids are 8 bits wide and overlap the op field).

use super::{call_args, int, name_of, value_of};
use crate::operand::is_gfx9;
use crate::Arch;

const GFX9: &[(u32, &str)] = &[
    (1, "MSG_INTERRUPT"),
    (2, "MSG_GS"),
    (3, "MSG_GS_DONE"),
    (4, "MSG_SAVEWAVE"),
    (5, "MSG_STALL_WAVE_GEN"),
    (6, "MSG_HALT_WAVES"),
    (7, "MSG_ORDERED_PS_DONE"),
    (8, "MSG_EARLY_PRIM_DEALLOC"),
    (9, "MSG_GS_ALLOC_REQ"),
    (10, "MSG_GET_DOORBELL"),
    (15, "MSG_SYSMSG"),
];

const GFX11: &[(u32, &str)] = &[
    (1, "MSG_INTERRUPT"),
    (2, "MSG_HS_TESSFACTOR"),
    (3, "MSG_DEALLOC_VGPRS"),
    (5, "MSG_STALL_WAVE_GEN"),
    (6, "MSG_HALT_WAVES"),
    (9, "MSG_GS_ALLOC_REQ"),
    (128, "MSG_RTN_GET_DOORBELL"),
    (129, "MSG_RTN_GET_DDID"),
    (130, "MSG_RTN_GET_TMA"),
    (131, "MSG_RTN_GET_REALTIME"),
    (132, "MSG_RTN_SAVE_WAVE"),
    (133, "MSG_RTN_GET_TBA"),
    (134, "MSG_RTN_GET_TBA_TO_PC"),
];

/// gfx12 dropped STALL_WAVE_GEN/HALT_WAVES and added SE_AID_ID.
const GFX12: &[(u32, &str)] = &[
    (1, "MSG_INTERRUPT"),
    (2, "MSG_HS_TESSFACTOR"),
    (3, "MSG_DEALLOC_VGPRS"),
    (9, "MSG_GS_ALLOC_REQ"),
    (128, "MSG_RTN_GET_DOORBELL"),
    (129, "MSG_RTN_GET_DDID"),
    (130, "MSG_RTN_GET_TMA"),
    (131, "MSG_RTN_GET_REALTIME"),
    (132, "MSG_RTN_SAVE_WAVE"),
    (133, "MSG_RTN_GET_TBA"),
    (134, "MSG_RTN_GET_TBA_TO_PC"),
    (135, "MSG_RTN_GET_SE_AID_ID"),
];

/// gfx9 operations of MSG_GS/MSG_GS_DONE.
pub const GS_OPS: &[(u32, &str)] = &[(0, "GS_OP_NOP"), (1, "GS_OP_CUT"), (2, "GS_OP_EMIT"), (3, "GS_OP_EMIT_CUT")];

/// gfx9 operations of MSG_SYSMSG.
pub const SYSMSG_OPS: &[(u32, &str)] =
    &[(1, "SYSMSG_OP_ECC_ERR_INTERRUPT"), (2, "SYSMSG_OP_REG_RD"), (4, "SYSMSG_OP_TTRACE_PC")];

const MSG_GS: u32 = 2;
const MSG_GS_DONE: u32 = 3;
const MSG_SYSMSG: u32 = 15;

/// Every (id, name) pair of an architecture.
pub fn table(arch: Arch) -> &'static [(u32, &'static str)] {
    match arch {
        Arch::Gfx1100 => GFX11,
        Arch::Gfx1201 => GFX12,
        Arch::Gfx942 | Arch::Gfx950 => GFX9,
    }
}

/// The name of a message id.
pub fn name(arch: Arch, id: u32) -> Option<&'static str> {
    name_of(table(arch), id)
}

/// The id of a message name.
pub fn id(arch: Arch, name: &str) -> Option<u32> {
    value_of(table(arch), name)
}

/// The name of operation `op` of message `id` (gfx9 GS and system messages only).
pub fn op_name(arch: Arch, id: u32, op: u32) -> Option<&'static str> {
    match id {
        MSG_GS | MSG_GS_DONE if is_gfx9(arch) => name_of(GS_OPS, op),
        MSG_SYSMSG if is_gfx9(arch) => name_of(SYSMSG_OPS, op),
        _ => None,
    }
}

/// The code of operation `name` of message `id`.
pub fn op_id(arch: Arch, id: u32, name: &str) -> Option<u32> {
    match id {
        MSG_GS | MSG_GS_DONE if is_gfx9(arch) => value_of(GS_OPS, name),
        MSG_SYSMSG => value_of(SYSMSG_OPS, name),
        _ => None,
    }
}

fn encode(id: u32, op: u32, stream: u32) -> u32 {
    id | op << 4 | stream << 8
}

/// The operand's text: llvm-mc's symbolic form where it gives `v` back, else the number (llvm-mc
/// itself prints some values symbolically that lose bits, e.g. the stream bits of a message
/// without operation).
pub fn text(arch: Arch, v: u32) -> String {
    let sym = symbolic(arch, v);
    match sym {
        Some(s) if parse(arch, &s) == Some(v) => s,
        _ => v.to_string(),
    }
}

fn symbolic(arch: Arch, v: u32) -> Option<String> {
    if !is_gfx9(arch) {
        let id = v & 0xff;
        return Some(match name(arch, id) {
            Some(n) => format!("sendmsg({n})"),
            None => format!("sendmsg({id}, 0, 0)"),
        });
    }
    let (id, op, stream) = (v & 0xf, (v >> 4) & 7, (v >> 8) & 3);
    let n = name(arch, id);
    Some(match (id, op_name(arch, id, op), n) {
        (MSG_GS | MSG_GS_DONE, Some(o), Some(n)) if op != 0 => format!("sendmsg({n}, {o}, {stream})"),
        (MSG_GS_DONE, Some(o), Some(n)) if stream == 0 => format!("sendmsg({n}, {o})"),
        (MSG_SYSMSG, Some(o), Some(n)) => format!("sendmsg({n}, {o})"),
        (MSG_GS | MSG_GS_DONE | MSG_SYSMSG, _, _) => format!("sendmsg({id}, {op}, {stream})"),
        (_, _, Some(n)) if op == 0 && stream == 0 => format!("sendmsg({n})"),
        _ => format!("sendmsg({id}, {op}, {stream})"),
    })
}

/// The value of a `sendmsg(msg[, op[, stream]])` operand (names or numbers) as llvm-mc encodes
/// it; `None` if malformed or out of range.
pub fn parse(arch: Arch, s: &str) -> Option<u32> {
    let args = call_args(s, "sendmsg")?;
    let id_max = if is_gfx9(arch) { 0xf } else { 0xff };
    let numeric = int(args[0]);
    let id = match numeric {
        Some(v) => u32::try_from(v).ok().filter(|&v| v <= id_max)?,
        // gfx11+ still take MSG_SYSMSG by name (with a system-message operation), though
        // llvm-mc prints it as a number there.
        None if args[0] == "MSG_SYSMSG" => MSG_SYSMSG,
        None => id(arch, args[0])?,
    };
    let op = match args.get(1) {
        None => 0,
        Some(o) => match int(o) {
            Some(v) => u32::try_from(v).ok().filter(|&v| v <= 7)?,
            // A numeric message id takes the operation names unchecked, as llvm-mc does: the
            // system-message names for id 15, the GS names for any other id, on every target.
            None if numeric.is_some() => value_of(if id == MSG_SYSMSG { SYSMSG_OPS } else { GS_OPS }, o)?,
            None => op_id(arch, id, o)?,
        },
    };
    let stream = match args.get(2) {
        None => 0,
        Some(x) => u32::try_from(int(x)?).ok().filter(|&v| v <= 3)?,
    };
    if args.len() > 3 {
        return None;
    }
    Some(encode(id, op, stream))
}

/// The operand value of message `id` with operation `op` and stream (as [`parse`] encodes
/// `sendmsg(id, op, stream)`); `None` when a field is out of range.
pub fn value(arch: Arch, id: u32, op: u32, stream: u32) -> Option<u32> {
    let id_max = if is_gfx9(arch) { 0xf } else { 0xff };
    (id <= id_max && op <= 7 && stream <= 3).then(|| encode(id, op, stream))
}

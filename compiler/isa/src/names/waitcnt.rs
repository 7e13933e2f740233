//! The fields of the wait instructions: `s_waitcnt` counters, `s_delay_alu` dependencies,
//! `s_waitcnt_depctr`/`s_wait_alu` counters. Each `text` prints the symbolic form only where it
//! assembles back to the same value, else the number (lossless).

use crate::operand::is_gfx9;
use crate::Arch;

/// `s_waitcnt` counters of a value: (vmcnt, expcnt, lgkmcnt).
pub fn counters(arch: Arch, v: u32) -> (u32, u32, u32) {
    if is_gfx9(arch) {
        ((v & 0xf) | ((v >> 14) & 3) << 4, (v >> 4) & 7, (v >> 8) & 0xf)
    } else {
        ((v >> 10) & 0x3f, v & 7, (v >> 4) & 0x3f)
    }
}

/// The largest value (meaning "do not wait") of each counter: (vmcnt, expcnt, lgkmcnt).
pub fn counter_max(arch: Arch) -> (u32, u32, u32) {
    if is_gfx9(arch) {
        (63, 7, 15)
    } else {
        (63, 7, 63)
    }
}

/// The `s_waitcnt` value of three counters (bits of no counter are 0).
pub fn encode(arch: Arch, vm: u32, exp: u32, lgkm: u32) -> u32 {
    if is_gfx9(arch) {
        (vm & 0xf) | (vm >> 4 & 3) << 14 | exp << 4 | lgkm << 8
    } else {
        vm << 10 | exp | lgkm << 4
    }
}

/// `s_waitcnt`'s operand: `vmcnt(N) expcnt(N) lgkmcnt(N)` (counters at their maximum left out),
/// or the number where bits outside the counters are set.
pub fn text(arch: Arch, v: u32) -> String {
    let (vm, exp, lgkm) = counters(arch, v);
    if encode(arch, vm, exp, lgkm) != v {
        return format!("0x{v:x}");
    }
    let (vm_max, exp_max, lgkm_max) = counter_max(arch);
    let mut parts = Vec::new();
    if vm != vm_max {
        parts.push(format!("vmcnt({vm})"));
    }
    if exp != exp_max {
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

/// The value of `s_waitcnt` counters (`vmcnt(N) & expcnt(N), lgkmcnt(N)`); counters not named
/// are at their maximum. `Err` names the bad part.
pub fn parse(arch: Arch, s: &str) -> Result<u32, String> {
    let (mut vm, mut ex, mut lg) = counter_max(arch);
    for p in s.split(|c: char| c.is_whitespace() || c == '&' || c == ',').filter(|x| !x.is_empty()) {
        let (n, v) = p.strip_suffix(')').and_then(|x| x.split_once('(')).ok_or(format!("bad counter '{p}'"))?;
        let v = super::int(v).and_then(|v| u32::try_from(v).ok()).ok_or(format!("bad counter '{p}'"))?;
        // `vmcnt_sat(N)` and the like clamp N to the counter's maximum instead of refusing it.
        let (n, sat) = n.strip_suffix("_sat").map_or((n, false), |b| (b, true));
        let (slot, max) = match n {
            "vmcnt" => (&mut vm, counter_max(arch).0),
            "expcnt" => (&mut ex, counter_max(arch).1),
            "lgkmcnt" => (&mut lg, counter_max(arch).2),
            _ => return Err(format!("unknown counter '{n}'")),
        };
        if v > max && !sat {
            return Err(format!("{n} value {v} out of range (max {max})"));
        }
        *slot = v.min(max);
    }
    Ok(encode(arch, vm, ex, lg))
}

/// `s_delay_alu` instruction-dependency names, by code.
pub const INSTID: [&str; 12] = [
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

/// `s_delay_alu` skip names, by code.
pub const SKIP: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];

/// `s_delay_alu`'s operand: `instid0(..) | instskip(..) | instid1(..)`, or the number where a
/// field has no name or bits above the fields are set.
pub fn delay_alu_text(v: u32) -> String {
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

/// The value of `s_delay_alu` fields (the inverse of [`delay_alu_text`]).
pub fn delay_alu_parse(s: &str) -> Result<u32, String> {
    let mut v = 0;
    for p in s.split('|').map(str::trim) {
        let (n, x) = p.strip_suffix(')').and_then(|x| x.split_once('(')).ok_or(format!("bad field '{p}'"))?;
        let pos = |t: &[&str]| t.iter().position(|y| *y == x).map(|k| k as u32).ok_or(format!("bad value '{x}'"));
        match n {
            "instid0" => v |= pos(&INSTID)?,
            "instskip" => v |= pos(&SKIP)? << 4,
            "instid1" => v |= pos(&INSTID)? << 7,
            _ => return Err(format!("unknown field '{n}'")),
        }
    }
    Ok(v)
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

/// `s_waitcnt_depctr`/`s_wait_alu`'s operand: the fields not at their maximum (all of them when
/// every one is, as llvm-mc prints it), or the number.
pub fn depctr_text(v: u32) -> String {
    let field = |lo: u32, w: u32| (v >> lo) & ((1 << w) - 1);
    let all_max = DEPCTR.iter().all(|&(_, lo, w)| field(lo, w) == (1 << w) - 1);
    let parts: Vec<String> = DEPCTR
        .iter()
        .filter(|&&(_, lo, w)| all_max || field(lo, w) != (1 << w) - 1)
        .map(|&(n, lo, w)| format!("{n}({})", field(lo, w)))
        .collect();
    let t = parts.join(" ");
    // Bits outside the fields only a number shows.
    if depctr_parse(&t) != Ok(v) {
        return format!("0x{v:x}");
    }
    t
}

/// The value of depctr fields (fields not named at their maximum); llvm-mc takes blanks, `&` or
/// commas between them.
pub fn depctr_parse(s: &str) -> Result<u32, String> {
    let mut v = 0u32;
    let mut seen = 0u32;
    for p in s.split(|c: char| c.is_whitespace() || c == '&' || c == ',').filter(|x| !x.is_empty()) {
        let (n, x) = p.strip_suffix(')').and_then(|x| x.split_once('(')).ok_or(format!("bad field '{p}'"))?;
        let (_, lo, w) = DEPCTR.iter().find(|d| d.0 == n).ok_or(format!("unknown field '{n}'"))?;
        let x = super::int(x).and_then(|x| u32::try_from(x).ok()).ok_or(format!("bad value '{x}'"))?;
        if x >= 1 << w {
            return Err(format!("{n} value {x} out of range"));
        }
        v = (v & !(((1 << w) - 1) << lo)) | x << lo;
        seen |= ((1 << w) - 1) << lo;
    }
    for (_, lo, w) in DEPCTR {
        if seen >> lo & 1 == 0 {
            v |= ((1 << w) - 1) << lo;
        }
    }
    Ok(v)
}

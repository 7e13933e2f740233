//! The constant bus: the scalar values one VALU instruction reads, as llvm-mc 22 counts them
//! ("invalid operand (violates constant bus restrictions)"). gfx9 reads one; gfx11 and gfx12
//! two, except the 64-bit shifts, one. A value is a scalar register (an SGPR, VCC, a trap
//! temporary, M0, EXEC, the `src_*` registers; `null` is none), counted once per register and
//! width (`s0` and `s[0:1]` are two), or the literal, counted once. The lane mask VOP2 carry-in
//! and `v_cndmask_b32_e32` read, and `v_div_fmas_*`'s, counts too (VCC on gfx9, VCC_LO in
//! wave32). VOPD halves share the bus. gfx9 `v_fmamk_f32`/`v_fmaak_f32` constant K counts as the
//! literal.
//!
//! DPP and SDWA forms count alike. gfx9 SDWA keeps a scalar src0 in `sdwa_src0` and a scalar
//! src1 in `vsrc1` (flagged by `s0`/`s1`): `v_add_f32_sdwa v0, s0, s1` and
//! `v_addc_co_u32_sdwa v0, vcc, s0, v1, vcc` are over the limit. A DPP src0 is a VGPR (its
//! field holds the DPP marker, no scalar code), so only gfx12 VOP3 DPP's src1 and src2 can be
//! scalar: two values at most, within gfx12's limit. Matrix forms (MFMA, scaled MFMA, WMMA,
//! SWMMAC) are counted too, though `asm::matrix` refuses every scalar source there first, as
//! llvm-mc does ("invalid operand for instruction").

use baregpu_autogen::isa::{OperandKind, FLAG_LITERAL};

use crate::inst::{get, Instruction};
use crate::operand::is_gfx9;

/// The code of VCC (VCC_LO).
const VCC: u32 = 106;

/// Whether a 9-bit source code is a scalar register the bus carries (gfx11+ `null` is 124).
fn scalar(code: u32, gfx9: bool) -> bool {
    (code < 128 && (gfx9 || code != 124)) || (235..=239).contains(&code) || (251..=253).contains(&code)
}

/// Whether the constant bus applies to the instruction's encoding (its DPP, SDWA and matrix
/// forms included).
fn checked(i: &Instruction) -> bool {
    let f = i.format();
    matches!(f.parent.unwrap_or(f.name), "VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3SD" | "VOP3P")
}

/// The scalar source code of a gfx9 SDWA source, `None` for a VGPR: src0's register is in
/// `sdwa_src0` and src1's in `vsrc1`, scalar where `s0`/`s1` is set (the 9-bit src0 field
/// holds the SDWA marker).
fn sdwa_scalar(i: &Instruction, name: &str) -> Option<u32> {
    match name {
        "src0" => (i.f("s0") != 0).then(|| i.f("sdwa_src0")),
        "vsrc1" => (i.f("s1") != 0).then(|| i.f("vsrc1")),
        _ => None,
    }
}

/// VOPD: both halves share the bus (two values); `v_dual_cndmask_b32` reads VCC_LO, which
/// llvm-mc counts apart from a VCC_LO source; the literal (a source's or fmaak/fmamk's K) once.
fn vopd(i: &Instruction) -> Result<(), (Option<usize>, String)> {
    let mut seen: Vec<u32> = Vec::with_capacity(4);
    let mut read = |v: u32| {
        if !seen.contains(&v) {
            seen.push(v)
        }
    };
    for name in ["src0x", "src0y"] {
        match i.field(name) {
            Some(code) if scalar(code, false) => read(code),
            Some(255) => read(255),
            _ => {}
        }
    }
    if i.literal.is_some() {
        read(255);
    }
    let halves = [Some(i.mnemonic()), i.opcode_y().map(|o| o.mnemonic)];
    if halves.iter().flatten().any(|m| *m == "v_dual_cndmask_b32") {
        read(u32::MAX);
    }
    if seen.len() > 2 {
        return Err((None, "VOPD: more than 2 scalar values or literals (the constant bus limit)".to_string()));
    }
    Ok(())
}

/// Whether operand `k` is a lane mask the instruction reads: one after the first source (before
/// it, one it writes).
fn lane_read(o: &baregpu_autogen::isa::Operand, k: usize, first_src: Option<usize>) -> bool {
    o.kind == OperandKind::Special && matches!(o.name, "vcc" | "vcc_lo") && first_src.is_some_and(|s| k > s)
}

/// Whether the instruction reads a lane mask its sources do not name (VOP2 carry-in,
/// `v_cndmask_b32_e32`, `v_div_fmas_*`): the builder's own count, which sees sources only,
/// leaves such instructions to [`check`].
pub(crate) fn reads_lane_mask(i: &Instruction) -> bool {
    let ops = i.operands();
    let first_src = ops.iter().position(|o| o.kind == OperandKind::Vsrc);
    ops.iter().enumerate().any(|(k, o)| lane_read(o, k, first_src)) || i.mnemonic().starts_with("v_div_fmas_")
}

/// The distinct scalar values an instruction reads, in the order read, each with the index of
/// the operand that first read it (None: an implicit read). A fixed array: this runs for every
/// VALU line the assembler reads, and no instruction reads more than four.
#[derive(Default)]
struct Reads {
    seen: [((u32, u8), Option<usize>); 6],
    len: usize,
}

impl Reads {
    fn read(&mut self, v: (u32, u8), k: Option<usize>) {
        if self.len < self.seen.len() && !self.seen[..self.len].iter().any(|s| s.0 == v) {
            self.seen[self.len] = (v, k);
            self.len += 1;
        }
    }
}

/// How many scalar values the bus carries for `mnemonic`: one on gfx9, two on gfx11/gfx12
/// except the 64-bit shifts, one.
pub(crate) fn limit(arch: crate::Arch, mnemonic: &str) -> usize {
    let base = mnemonic.trim_end_matches("_e64").trim_end_matches("_e32");
    if is_gfx9(arch) || matches!(base, "v_lshlrev_b64" | "v_lshrrev_b64" | "v_ashrrev_i64") {
        1
    } else {
        2
    }
}

/// Refuses a VALU instruction that reads more scalar values than the bus carries; `Err` holds
/// the index of the operand that went over (None: an implicit read, or VOPD) and the message.
pub(crate) fn check(i: &Instruction) -> Result<(), (Option<usize>, String)> {
    // A VOPD instruction is checked whole: its halves are filled one by one (op_y comes last).
    if i.format().name == "VOPD" {
        return if i.op_y.is_some() { vopd(i) } else { Ok(()) };
    }
    if !checked(i) {
        return Ok(());
    }
    let g9 = is_gfx9(i.arch);
    let sdwa = g9 && i.format().name.ends_with("_SDWA");
    let mut reads = Reads::default();
    let ops = i.operands();
    let first_src = ops.iter().position(|o| o.kind == OperandKind::Vsrc);
    for (k, o) in ops.iter().enumerate() {
        match o.kind {
            // SDWA holds no literal (its src0 field is the marker) and no 9-bit source.
            OperandKind::Vsrc | OperandKind::Vgpr if sdwa => {
                if let Some(code) = sdwa_scalar(i, o.name).filter(|&c| scalar(c, true)) {
                    reads.read((code, o.dwords), Some(k));
                }
            }
            OperandKind::Vsrc => {
                let Some(f) = i.field_def(o.name).filter(|f| f.hi - f.lo == 8) else { continue };
                let code = get(&i.words, f);
                if scalar(code, g9) {
                    reads.read((code, o.dwords), Some(k));
                } else if code == 255 {
                    reads.read((255, 0), Some(k));
                }
            }
            OperandKind::Special if lane_read(o, k, first_src) => reads.read((VCC, o.dwords), Some(k)),
            _ => {}
        }
    }
    // gfx9 `v_fmamk_f32`/`v_fmaak_f32`: llvm-mc counts the constant K as the literal
    // (`v_fmamk_f32 v8, s5, 0x40490fdb, v40` is over; gfx11+ takes two values).
    if g9 && i.opcode().flags & FLAG_LITERAL != 0 && i.literal.is_some() {
        reads.read((255, 0), ops.iter().position(|o| o.kind == OperandKind::Imm));
    }
    let m = i.mnemonic();
    if m.starts_with("v_div_fmas_") {
        reads.read((VCC, if g9 { 2 } else { 1 }), None);
    }
    // One value always fits; the limit (and its mnemonic test) is asked only past that.
    if reads.len <= 1 {
        return Ok(());
    }
    let limit = limit(i.arch, m);
    match reads.seen.get(limit).filter(|_| reads.len > limit) {
        Some(&(_, k)) => Err((k, format!("{m}: more than {limit} scalar values or literals (the constant bus limit)"))),
        None => Ok(()),
    }
}

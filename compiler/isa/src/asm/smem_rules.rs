//! SMEM operand rules of llvm-mc 22 that the field widths alone do not say, one definition for
//! the assembler (which refuses the line) and the disassembler (which prints such a word as
//! `.long`, disasm::raw; llvm-mc's disassembler refuses or flags these words too):
//! - a buffer resource is no `null` (`s_buffer_load_b32 s0, null, 0x10`);
//! - the data registers are no `m0`, `exec_lo` or `exec_hi` (llvm-mc's `SReg_*_XM0_XEXEC`
//!   classes: `s_load_b32 m0, ...`, `s_memtime exec`, `s_buffer_atomic_add exec_lo, ...`);
//! - an immediate offset is signed (21 bits, gfx12 24), a buffer's (a 4-dword `sbase`) unsigned
//!   with one bit fewer: llvm-mc refuses `s_buffer_load_b32 s24, s[20:23], -7`;
//! - gfx12's probe and prefetch size (the immediate `sdata` of `s_atc_probe*`, `s_prefetch_*`,
//!   `s_buffer_prefetch_data`) is 5 bits: llvm-mc writes the low 5 bits of a larger value into
//!   the 7-bit field (`s_atc_probe 65` as 1) and refuses to decode a word with the top two set.

use baregpu_autogen::isa::OperandKind;

use crate::inst::Instruction;
use crate::operand::is_gfx9;
use crate::Arch;

/// The scalar codes llvm-mc refuses as SMEM data: m0, exec_lo, exec_hi.
fn data_refused(arch: Arch, code: u32) -> bool {
    let m0 = if is_gfx9(arch) { 0x7c } else { 0x7d };
    code == m0 || code == 0x7e || code == 0x7f
}

/// Whether `i` addresses a buffer (its `sbase` is a 4-dword resource).
fn is_buffer(i: &Instruction) -> bool {
    i.operands().iter().any(|o| o.name == "sbase" && o.dwords == 4)
}

/// The width of the immediate offset field (21 bits, gfx12 24), from the format's table.
pub(crate) fn offset_bits(i: &Instruction) -> u32 {
    i.field_def("offset").map_or(21, |f| u32::from(f.hi - f.lo) + 1)
}

/// The immediate offsets llvm-mc 22 takes for `i` ("expected a 21-bit signed offset",
/// "expected a 20-bit unsigned offset", gfx12 "a 23-bit unsigned offset for buffer ops").
pub(crate) fn offset_range(i: &Instruction) -> (i64, i64) {
    let half = 1i64 << (offset_bits(i) - 1);
    if is_buffer(i) {
        (0, half - 1)
    } else {
        (-half, half - 1)
    }
}

/// Checks an immediate offset `v` (written `text`) against [`offset_range`].
pub(crate) fn offset_refusal(i: &Instruction, v: i64, text: &str) -> Option<String> {
    let (lo, hi) = offset_range(i);
    let what = if is_buffer(i) { "a buffer" } else { "an" };
    (v < lo || v > hi).then(|| {
        let bits = (hi - lo + 1).ilog2();
        format!("offset {text} out of range: {what} SMEM offset is {bits} bits ({lo:#x}..{hi:#x})")
    })
}

/// The largest immediate `sdata` (probe or prefetch size) of `arch`: gfx12 keeps 5 bits.
fn imm_sdata_max(arch: Arch) -> u32 {
    if arch == Arch::Gfx1201 {
        31
    } else {
        127
    }
}

/// Checks an immediate `sdata` value `v` (written `text`) against [`imm_sdata_max`].
pub(crate) fn imm_sdata_refusal(arch: Arch, v: i64, text: &str) -> Option<String> {
    let max = imm_sdata_max(arch);
    (!(0..=i64::from(max)).contains(&v))
        .then(|| format!("immediate {text} out of range: the SMEM size field is 0..{max}"))
}

/// Whether the rules apply to `i`'s format (asm::rules keeps it per candidate).
pub(crate) fn applies(i: &Instruction) -> bool {
    i.format().name == "SMEM"
}

/// Refuses an SMEM instruction that breaks one of the rules above.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    if !applies(i) {
        return Ok(());
    }
    for o in i.operands() {
        match (o.kind, o.name) {
            // The first register decides: a tuple from `null` (0x7c) is taken (`s_load_b128 null`),
            // and no tuple below it reaches m0 (the SGPRs end at s105, the trap ones at 0x7b).
            (OperandKind::Sgpr, "sdata") if data_refused(i.arch, i.f("sdata")) => {
                return Err("llvm-mc 22 takes no m0 or exec as SMEM data".to_string());
            }
            (OperandKind::Imm, "sdata") => {
                let v = i.f("sdata");
                if let Some(e) = imm_sdata_refusal(i.arch, i64::from(v), &v.to_string()) {
                    return Err(e);
                }
            }
            _ => {}
        }
    }
    // A buffer resource is no `null` (gfx11+: 0x7c), as llvm-mc 22 refuses it; a 64-bit base
    // may be (`s_load_b32 s0, null, 0x10`).
    if !is_gfx9(i.arch) && is_buffer(i) && i.field("sbase").is_some_and(|b| b * 2 == 0x7c) {
        return Err("llvm-mc 22 takes no null as an SMEM buffer resource".to_string());
    }
    // gfx9 keeps an SGPR in the offset field when `imm` is clear.
    let imm_offset = !is_gfx9(i.arch) || i.field("imm") == Some(1);
    if imm_offset && is_buffer(i) {
        let (_, hi) = offset_range(i);
        let off = i64::from(i.f("offset"));
        if off > hi {
            return Err(format!("a buffer SMEM offset is unsigned (0..{hi:#x})"));
        }
    }
    Ok(())
}

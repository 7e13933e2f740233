//! Hardware register names of `s_getreg`/`s_setreg` (`hwreg(NAME, offset, size)`), per
//! architecture, as llvm-mc 22 prints and accepts them (checked against llvm-mc 22 over every id
//! by tests/names_llvm.rs).

use super::{call_args, int, name_of, value_of};
use crate::Arch;

/// (id, name): the name llvm-mc prints comes first for each id, aliases it also accepts after.
const GFX1100: &[(u32, &str)] = &[
    (1, "HW_REG_MODE"),
    (2, "HW_REG_STATUS"),
    (3, "HW_REG_TRAPSTS"),
    (5, "HW_REG_GPR_ALLOC"),
    (6, "HW_REG_LDS_ALLOC"),
    (7, "HW_REG_IB_STS"),
    (15, "HW_REG_SH_MEM_BASES"),
    (18, "HW_REG_PERF_SNAPSHOT_PC_LO"),
    (19, "HW_REG_PERF_SNAPSHOT_PC_HI"),
    (20, "HW_REG_FLAT_SCR_LO"),
    (21, "HW_REG_FLAT_SCR_HI"),
    (23, "HW_REG_HW_ID1"),
    (24, "HW_REG_HW_ID2"),
    (27, "HW_REG_PERF_SNAPSHOT_DATA"),
    (29, "HW_REG_SHADER_CYCLES"),
];

const GFX1201: &[(u32, &str)] = &[
    (1, "HW_REG_WAVE_MODE"),
    (2, "HW_REG_WAVE_STATUS"),
    (4, "HW_REG_WAVE_STATE_PRIV"),
    (5, "HW_REG_WAVE_GPR_ALLOC"),
    (6, "HW_REG_WAVE_LDS_ALLOC"),
    (7, "HW_REG_IB_STS"),
    (10, "HW_REG_PERF_SNAPSHOT_DATA"),
    (11, "HW_REG_PERF_SNAPSHOT_PC_LO"),
    (12, "HW_REG_PERF_SNAPSHOT_PC_HI"),
    (15, "HW_REG_PERF_SNAPSHOT_DATA1"),
    (16, "HW_REG_PERF_SNAPSHOT_DATA2"),
    (17, "HW_REG_WAVE_EXCP_FLAG_PRIV"),
    (18, "HW_REG_WAVE_EXCP_FLAG_USER"),
    (19, "HW_REG_WAVE_TRAP_CTRL"),
    (20, "HW_REG_WAVE_SCRATCH_BASE_LO"),
    (21, "HW_REG_WAVE_SCRATCH_BASE_HI"),
    (23, "HW_REG_WAVE_HW_ID1"),
    (24, "HW_REG_WAVE_HW_ID2"),
    (26, "HW_REG_WAVE_SCHED_MODE"),
    (29, "HW_REG_SHADER_CYCLES_LO"),
    (30, "HW_REG_SHADER_CYCLES_HI"),
    (31, "HW_REG_WAVE_DVGPR_ALLOC_LO"),
    (32, "HW_REG_WAVE_DVGPR_ALLOC_HI"),
    // Pre-gfx12 spellings llvm-mc still accepts.
    (1, "HW_REG_MODE"),
    (2, "HW_REG_STATUS"),
    (4, "HW_REG_STATE_PRIV"),
    (5, "HW_REG_GPR_ALLOC"),
    (6, "HW_REG_LDS_ALLOC"),
    (17, "HW_REG_EXCP_FLAG_PRIV"),
    (18, "HW_REG_EXCP_FLAG_USER"),
    (19, "HW_REG_TRAP_CTRL"),
    (20, "HW_REG_SCRATCH_BASE_LO"),
    (21, "HW_REG_SCRATCH_BASE_HI"),
    (23, "HW_REG_HW_ID1"),
    (24, "HW_REG_HW_ID2"),
    (31, "HW_REG_DVGPR_ALLOC_LO"),
    (32, "HW_REG_DVGPR_ALLOC_HI"),
];

/// gfx942 and gfx950 share the table.
const GFX94X: &[(u32, &str)] = &[
    (1, "HW_REG_MODE"),
    (2, "HW_REG_STATUS"),
    (3, "HW_REG_TRAPSTS"),
    (4, "HW_REG_HW_ID"),
    (5, "HW_REG_GPR_ALLOC"),
    (6, "HW_REG_LDS_ALLOC"),
    (7, "HW_REG_IB_STS"),
    (15, "HW_REG_SH_MEM_BASES"),
    (16, "HW_REG_TBA_LO"),
    (17, "HW_REG_TBA_HI"),
    (18, "HW_REG_TMA_LO"),
    (19, "HW_REG_TMA_HI"),
    (20, "HW_REG_XCC_ID"),
    (21, "HW_REG_SQ_PERF_SNAPSHOT_DATA"),
    (22, "HW_REG_SQ_PERF_SNAPSHOT_DATA1"),
    (23, "HW_REG_SQ_PERF_SNAPSHOT_PC_LO"),
    (24, "HW_REG_SQ_PERF_SNAPSHOT_PC_HI"),
];

/// Every (id, name) pair of an architecture, printed names first.
pub fn table(arch: Arch) -> &'static [(u32, &'static str)] {
    match arch {
        Arch::Gfx1100 => GFX1100,
        Arch::Gfx1201 => GFX1201,
        Arch::Gfx942 | Arch::Gfx950 => GFX94X,
    }
}

/// The name llvm-mc prints for a register id.
pub fn name(arch: Arch, id: u32) -> Option<&'static str> {
    name_of(table(arch), id)
}

/// The id of a register name (or alias).
pub fn id(arch: Arch, name: &str) -> Option<u32> {
    value_of(table(arch), name)
}

/// The fields of a `hwreg` operand: (id, bit offset, bit size 1..=32).
pub fn fields(v: u32) -> (u32, u32, u32) {
    (v & 0x3f, (v >> 6) & 0x1f, ((v >> 11) & 0x1f) + 1)
}

/// The operand's text as llvm-mc prints it: `hwreg(NAME)` when the whole register is read,
/// `hwreg(NAME, offset, size)` otherwise; an id without a name as its number. The three fields
/// cover all 16 bits, so the text is lossless.
pub fn text(arch: Arch, v: u32) -> String {
    let (id, off, size) = fields(v);
    let name = name(arch, id).map(str::to_string).unwrap_or_else(|| id.to_string());
    if off == 0 && size == 32 {
        format!("hwreg({name})")
    } else {
        format!("hwreg({name}, {off}, {size})")
    }
}

/// The value of a `hwreg(id[, offset, size])` operand (the inverse of [`text`]); `None` if
/// malformed or out of range.
pub fn parse(arch: Arch, s: &str) -> Option<u32> {
    let args = call_args(s, "hwreg")?;
    let id = match int(args[0]) {
        Some(v) => u32::try_from(v).ok()?,
        None => id(arch, args[0])?,
    };
    let (off, size) = match args[..] {
        [_] => (0, 32),
        [_, o, z] => (u32::try_from(int(o)?).ok()?, u32::try_from(int(z)?).ok()?),
        _ => return None,
    };
    value(id, off, size)
}

/// The operand value of register `id`, bits `offset..offset + size` (the inverse of
/// [`fields`]); `None` when a field is out of range.
pub fn value(id: u32, offset: u32, size: u32) -> Option<u32> {
    if id > 63 || offset > 31 || size == 0 || size > 32 {
        return None;
    }
    Some(id | offset << 6 | (size - 1) << 11)
}

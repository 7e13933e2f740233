//! gfx11's `s_waitcnt_vmcnt`/`_expcnt`/`_lgkmcnt`/`_vscnt` take `null` as their register: llvm-mc
//! 22 refuses any other ("src0 must be null"). The disassembler prints such words as `.long`
//! (disasm::raw).

use crate::inst::Instruction;
use crate::Arch;

/// gfx11's null SGPR code.
const NULL: u32 = 0x7c;

/// Whether the rule applies to `i`'s opcode: a gfx11 `s_waitcnt_*cnt` (asm::rules keeps it per
/// candidate).
pub(crate) fn applies(i: &Instruction) -> bool {
    // The architecture first: the mnemonic is read only on gfx1100.
    if i.arch != Arch::Gfx1100 {
        return false;
    }
    let m = i.mnemonic();
    m.starts_with("s_waitcnt_") && m.ends_with("cnt")
}

/// Refuses a gfx11 `s_waitcnt_*cnt` whose register is not `null`.
pub(crate) fn check(i: &Instruction) -> Result<(), String> {
    if applies(i) && i.field("sdst").is_some_and(|r| r != NULL) {
        return Err(format!("{}: the register must be null", i.mnemonic()));
    }
    Ok(())
}

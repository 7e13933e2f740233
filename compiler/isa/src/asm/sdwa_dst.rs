//! gfx9 SDWA forms that llvm-mc 22 gives no destination selector: the fp8/bf8 conversions
//! (`v_cvt_f32_fp8_sdwa v8, v24 clamp src0_sel:BYTE_1`; `disasm::sdwa_has_dst_sel` reads the
//! generated list `baregpu_autogen::isa::sdwa_dst`, probed with llvm-mc). llvm-mc
//! writes dst_sel DWORD and dst_unused UNUSED_PAD there, refuses `dst_sel:`, `dst_unused:` and
//! `sext(...)` on the source, and prints words with other dst_sel/dst_unused values, or the sext
//! bit set, as lines it then refuses or reads to other bytes. So the assembler and the builder
//! refuse those modifiers, and such words print as `.long` (no line writes them).

use crate::disasm::sdwa_has_dst_sel;
use crate::inst::Instruction;

/// dst_sel DWORD.
const DWORD: u32 = 6;

/// Why the modifier `name` cannot be written on `i`, an SDWA instruction of an opcode without
/// a destination selector; `None` for other modifiers or opcodes.
pub(crate) fn refusal(i: &Instruction, name: &str) -> Option<String> {
    let sdwa = i.format().name.ends_with("_SDWA");
    let m = i.mnemonic();
    (sdwa && matches!(name, "dst_sel" | "dst_unused") && !sdwa_has_dst_sel(m))
        .then(|| format!("{name}: llvm-mc's SDWA form of {m} has no destination selector"))
}

/// Whether `mnemonic`'s SDWA form takes `sext` on its source: llvm-mc 22 refuses it on the
/// opcodes without a destination selector, though their source is an integer one.
pub(crate) fn takes_sext(mnemonic: &str) -> bool {
    sdwa_has_dst_sel(mnemonic)
}

/// Whether `i` is such an SDWA word with a dst_sel or dst_unused other than llvm-mc's.
pub(crate) fn unwritten(i: &Instruction) -> bool {
    i.format().name.ends_with("_SDWA")
        && !sdwa_has_dst_sel(i.mnemonic())
        && (i.field("dst_sel").is_some_and(|v| v != DWORD) || i.field("dst_unused").is_some_and(|v| v != 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Arch;

    fn decode(bytes: &[u8]) -> Instruction {
        crate::decode::decode(Arch::Gfx942, bytes).expect("decodes")
    }

    /// llvm-mc 22's bytes for `v_cvt_f32_fp8_sdwa v8, v24 src0_sel:BYTE_1` and
    /// `v_cvt_f32_f16_sdwa v8, v24 dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:WORD_1`,
    /// then the first with dst_unused UNUSED_SEXT and with dst_sel BYTE_0.
    #[test]
    fn fp8_words() {
        let plain = decode(&[0xf9, 0xa8, 0x10, 0x7e, 0x18, 0x06, 0x01, 0x00]);
        assert!(!unwritten(&plain));
        assert!(refusal(&plain, "dst_sel").is_some() && refusal(&plain, "src0_sel").is_none());
        let f16 = decode(&[0xf9, 0x16, 0x10, 0x7e, 0x18, 0x16, 0x05, 0x00]);
        assert!(!unwritten(&f16) && refusal(&f16, "dst_sel").is_none());
        assert!(unwritten(&decode(&[0xf9, 0xa8, 0x10, 0x7e, 0x18, 0x0e, 0x01, 0x00])));
        assert!(unwritten(&decode(&[0xf9, 0xa8, 0x10, 0x7e, 0x18, 0x00, 0x01, 0x00])));
        assert!(takes_sext("v_cvt_f32_f16_sdwa") && !takes_sext("v_cvt_pk_f32_bf8_sdwa"));
        let unused = crate::disassemble(&decode(&[0xf9, 0xa8, 0x10, 0x7e, 0x18, 0x16, 0x01, 0x00]));
        assert!(unused.starts_with(".long 0x7e10a8f9, 0x00011618"), "{unused}");
        let sext = crate::disassemble(&decode(&[0xf9, 0xa8, 0x10, 0x7e, 0x18, 0x06, 0x09, 0x00]));
        assert!(sext.starts_with(".long"), "{sext}");
    }
}

//! Words no instruction line produces, printed as the `.long` dwords they are (which llvm-mc
//! and our assembler both read back to the same bytes), the decoded text after them as a
//! comment. The tests are the rules the assembler itself enforces, not copies of them.

use super::valu::Ext;
use crate::asm::lexer::split_line;
use crate::asm::operand::{check_alignment, check_attr};
use crate::asm::value::{typed, Val};
use crate::inst::Instruction;
use crate::operand::{is_gfx9, takes_no_literal};
use crate::tables::FLAG_LIT16;
use crate::Arch;
use baregpu_autogen::isa::OperandKind;

/// Whether no instruction line assembles to `i`, whose text is `text`: a DPP16 control is
/// reserved or not row_newbcast on a gfx9 64-bit instruction, a source modifier bit is set where
/// the source takes no such modifier (`src_mods`), a bit or field no line writes is set
/// (`unwritten`), a matrix source is one the assembler refuses (asm::matrix), a 16-bit VGPR
/// operand of a gfx1201 32-bit encoding is above v127 (llvm-mc 22 reads no `.h` there, and we
/// refuse what it refuses), an interpolation attribute is above attr32, a wide MFMA's C matrix
/// partially overlaps its destination (asm::mfma_overlap), a gfx11 64-bit DPP src1 is no VGPR
/// (isa::ext_forms, which also refuses DPP16/DPP8/SDWA forms llvm-mc lacks), a literal buffer
/// soffset (asm::buf_soffset), a 16-bit fmamk/fmaak constant is too wide (asm::k16), a gfx11
/// `s_waitcnt_*cnt` names a register other than null (asm::waitcnt_null), a gfx9 VGPR-indexing
/// mode is above 15 (asm::gpr_idx_mode), the constant bus is over its limit
/// (asm::const_bus), a source holds the literal code where the encoding has no literal dword
/// ([`literal_code_without_literal`]), a source or scalar destination holds a kind llvm-mc
/// refuses there (isa::src_kinds), or a gfx9 word breaks a gfx9 rule
/// ([`gfx9_fields_unencodable`], odd register tuples).
pub(crate) fn unencodable(i: &Instruction, text: &str) -> bool {
    // A reserved DPP16 control: no control name spells it.
    let ctrl = i.field("dpp_ctrl");
    if ctrl
        .is_some_and(|c| crate::names::dpp::ctrl_parts(i.arch, c).is_none() || crate::names::dpp::dp_alu_refuses(i, c))
    {
        return true;
    }
    // An interpolation attribute llvm-mc refuses to read; a wide MFMA's C matrix that
    // partially overlaps its destination; more scalar values than the constant bus carries.
    if i.field("attr").is_some_and(|a| check_attr(a).is_err())
        || crate::asm::mfma_overlap::check(i).is_err()
        || crate::asm::k16::check(i).is_err()
        || crate::asm::waitcnt_null::check(i).is_err()
        || crate::asm::gpr_idx_mode::check(i).is_err()
        || crate::asm::smem_rules::check(i).is_err()
        || crate::asm::salu_imm::bare_sopp_refused(i)
        || crate::asm::gws::check(i).is_err()
        || crate::asm::store_tfe::check(i).is_err()
        || crate::asm::const_bus::check(i).is_err()
    {
        return true;
    }
    if crate::src_mods::refused_bits(i)
        || super::unwritten::unwritten(i)
        || wide_literal_in_16bit_source(i)
        || crate::ext_forms::refusal(i).is_some()
        || crate::dpp_kinds::first_refusal(i).is_some()
        || crate::asm::buf_soffset::refused(i)
        || literal_code_without_literal(i)
        || crate::src_kinds::first_refusal(i).is_some()
    {
        return true;
    }
    // The operands' text is read only where a rule needs it.
    let lo128 = i.arch == Arch::Gfx1201 && crate::t16::lo128_mask(i.arch, i.opcode()) != 0;
    let matrix = crate::asm::matrix::is_matrix(i);
    let g9 = is_gfx9(i.arch);
    if !(lo128 || matrix || g9) {
        return false;
    }
    if g9 && gfx9_fields_unencodable(i) {
        return true;
    }
    let Some(line) = split_line(text, 1) else { return false };
    let ops = typed(&line).ops;
    if lo128 {
        let (fname, op) = (i.format().name, i.opcode());
        let high = ops.iter().enumerate().any(|(k, o)| {
            matches!(&o.val, Val::Reg(r) if r.file == 'v' && crate::t16::lo128_breaks(i.arch, fname, op, k, r.first + r.count))
        });
        if high {
            return true;
        }
    }
    if g9 && ops.iter().any(|o| matches!(&o.val, Val::Reg(r) if check_alignment(i.arch, r).is_err())) {
        return true;
    }
    // Matrix sources the assembler refuses (SGPRs, literals), printed in the operand order.
    matrix
        && i.operands().iter().enumerate().any(|(k, o)| {
            let file = match ops.get(k).map(|x| &x.val) {
                Some(Val::Reg(r)) => Some(r.file),
                _ => None,
            };
            i.field(o.name).is_some_and(|code| crate::asm::matrix::check(i, o.name, code, file).is_err())
        })
}

/// gfx9 fields no line writes: `v_pk_fmac_f16` op_sel or sext bits, or a 16-bit literal with
/// high bits.
fn gfx9_fields_unencodable(i: &Instruction) -> bool {
    if crate::asm::modifier::pk_fmac_drops_mods(i)
        && ["opsel", "src0_sext", "src1_sext"].iter().any(|f| i.field(f).is_some_and(|v| v != 0))
    {
        return true;
    }
    // A 16-bit literal (FLAG_LIT16) with high bits: the text has only the low half, except a
    // negative integer's sign extension (asm::neg16).
    i.opcode().flags & FLAG_LIT16 != 0
        && i.literal.is_some_and(|l| l >> 16 != 0)
        && crate::asm::neg16::signed_literal(i).is_none()
}

/// A source holding the literal code (255) in an encoding without a literal dword: gfx9's
/// 64-bit VALU encodings, DPP and SDWA. The text has no value to print (llvm-mc prints a stray
/// value), and both assemblers refuse a literal there (asm::parser: "SDWA takes no literal",
/// "gfx9's 64-bit encoding takes no literal"; the DPP forms have no literal candidate).
fn literal_code_without_literal(i: &Instruction) -> bool {
    if i.literal.is_some() {
        return false;
    }
    let (_, ext) = super::valu::shape(i);
    // SDWA: a scalar source is its 8-bit field with the s0/s1 bit set.
    if ext == Ext::Sdwa {
        return i.field("s0") == Some(1) && i.field("sdwa_src0") == Some(255)
            || i.field("s1") == Some(1) && i.field("vsrc1") == Some(255);
    }
    if ext == Ext::None && !takes_no_literal(i.arch, i.format().name) {
        return false;
    }
    // 9-bit source fields only: an 8-bit VGPR field at 255 is v255.
    i.operands().iter().any(|o| {
        matches!(o.kind, OperandKind::Ssrc | OperandKind::Vsrc)
            && i.field_def(o.name).is_some_and(|f| f.hi - f.lo == 8)
            && i.field(o.name) == Some(255)
    })
}

/// `.long` with the instruction's dwords, then `text` as a comment.
pub(crate) fn text(i: &Instruction, text: &str) -> String {
    let words: Vec<String> =
        i.encode().chunks(4).map(|c| format!("0x{:08x}", u32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect();
    format!(".long {} // {text}", words.join(", "))
}

/// A literal that is no 16-bit value (-32768..65535) in a source that reads 16 bits of it: the
/// assembler refuses such a line, as llvm-mc 22 does (the same test as `asm::parser::fill`), so
/// no line writes the word. Sources that keep a literal's low 16 bits (`asm::low16`) take any.
fn wide_literal_in_16bit_source(i: &Instruction) -> bool {
    if !i.literal.is_some_and(crate::operand::literal_too_wide) {
        return false;
    }
    let (m, fname) = (i.mnemonic(), i.format().name);
    let lit16 = i.opcode().flags & FLAG_LIT16 != 0;
    let packed = fname.starts_with("VOP3P") || fname == "WMMA";
    i.operands().iter().any(|o| {
        let holds = matches!(o.kind, OperandKind::Ssrc | OperandKind::Vsrc) && i.field(o.name) == Some(255);
        let idx = crate::operand::src_index(o.name);
        holds && crate::asm::low16::low16(i, idx).is_none() && {
            let k = idx.unwrap_or(0);
            let ty = crate::src_type::src_val_type(i.arch, m, k, u32::from(o.dwords.max(1)));
            crate::operand::reads_16bit_literal(ty, lit16, packed, crate::src_type::halves_read_32bit(i.arch, m, k))
        }
    })
}

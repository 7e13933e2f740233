//! Scalar ALU formats: SOP1, SOP2, SOPC, SOPK, SOPP.

use baregpu_autogen::isa::OperandKind;

use super::src_text;
use crate::inst::Instruction;
use crate::names;
use crate::operand::sreg_text;

pub fn text(i: &Instruction) -> String {
    let op = i.opcode();
    let m = op.mnemonic;
    let mut ops: Vec<String> = Vec::new();
    for o in i.operands() {
        let d = o.dwords.max(1) as u32;
        let t = match o.kind {
            OperandKind::Sgpr => {
                let v = i.f(o.name);
                sreg_text(i.arch, v as u16, d).unwrap_or_else(|| v.to_string())
            }
            OperandKind::Ssrc => {
                let v = i.f(o.name);
                if m.starts_with("s_sendmsg_rtn") {
                    names::sendmsg::text(i.arch, v)
                } else {
                    src_text(i.arch, v, d, crate::operand::src_val_type(i.arch, m, 0, d), i.literal)
                }
            }
            OperandKind::Hwreg => names::hwreg::text(i.arch, i.f(o.name)),
            OperandKind::Sendmsg => names::sendmsg::text(i.arch, i.f(o.name)),
            // llvm-mc 22's disassembler prints branch offsets unsigned on every target
            // (`s_cbranch_scc1 65532`), though its assembler takes `-4` as well.
            OperandKind::Label => i.f(o.name).to_string(),
            OperandKind::Imm if m == "s_setreg_imm32_b32" => setreg_imm32(i.literal.unwrap_or(0)),
            OperandKind::Imm => format!("0x{:x}", i.literal.unwrap_or(0)),
            OperandKind::Simm16 => simm16(i, m, i.f(o.name)),
            OperandKind::Special => o.name.to_string(),
            _ => i.f(o.name).to_string(),
        };
        ops.push(t);
    }
    if ops.is_empty() && op.format == "SOPP" && i.f("simm16") != 0 {
        ops.push(simm16(i, m, i.f("simm16")));
    }
    if ops.is_empty() {
        m.to_string()
    } else {
        format!("{m} {}", ops.join(", "))
    }
}

fn simm16(i: &Instruction, m: &str, v: u32) -> String {
    match m {
        "s_waitcnt" => names::waitcnt::text(i.arch, v),
        "s_delay_alu" => names::waitcnt::delay_alu_text(v),
        "s_waitcnt_depctr" | "s_wait_alu" => names::waitcnt::depctr_text(v),
        "s_set_gpr_idx_on" | "s_set_gpr_idx_mode" => gpr_idx(v),
        "s_version" => names::uc_version::text(v),
        "s_nop" | "s_sleep" | "s_trap" | "s_setprio" | "s_denorm_mode" | "s_setkill" | "s_sethalt"
        | "s_incperflevel" | "s_decperflevel" | "s_sleep_var" | "s_barrier_wait"
            if v <= 64 =>
        {
            // Inline-constant range in decimal, larger values in hex.
            v.to_string()
        }
        // A branch-like target: llvm-mc prints it unsigned decimal whatever its size.
        "s_endpgm" | "s_subvector_loop_begin" | "s_subvector_loop_end" => v.to_string(),
        _ => format!("0x{v:x}"),
    }
}

/// s_setreg_imm32_b32's value: llvm-mc 22 prints the inline integers (-16..=64) in decimal. It
/// prints the inline float patterns as floats too (`1.0`), which it then reads back as other bits
/// (0), so those stay in hex here, as every other value.
fn setreg_imm32(v: u32) -> String {
    match v as i32 {
        n @ -16..=64 => n.to_string(),
        _ => format!("0x{v:x}"),
    }
}

fn gpr_idx(v: u32) -> String {
    // Bits beyond the four modes: llvm-mc prints the number.
    if v > 0xf {
        return format!("0x{v:x}");
    }
    let names = ["SRC0", "SRC1", "SRC2", "DST"];
    let p: Vec<&str> = (0..4).filter(|b| v >> b & 1 != 0).map(|b| names[b]).collect();
    format!("gpr_idx({})", p.join(","))
}

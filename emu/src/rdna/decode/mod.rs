//! Decoded instructions (`baregpu_isa`) -> the pre-decoded form ([`super::ops`]).

mod ds;
mod operands;
mod salu;
mod valu;
mod valu_sig;
mod vmem;
mod vopd;

use super::gfx9;
use super::ops::*;
use baregpu_isa::{Arch, Instruction};
use ds::*;
use operands::*;
pub use operands::{ssrc, vsrc};
use salu::*;
pub(super) use valu::blank;
use valu::*;
use valu_sig::*;
use vmem::*;
pub use vopd::{lower_vopd, vopd_size};

/// Apertures the emulated hardware reports (src_shared_base, src_private_base) for flat
/// addressing of LDS and scratch: the KFD's gfx9+ layout.
pub const SHARED_BASE: u64 = 1 << 48;
pub const PRIVATE_BASE: u64 = 2 << 48;
pub const APERTURE_SIZE: u64 = 1 << 32;

const NULL: u8 = 124;
const VCC: u8 = 106;

fn base(m: &str) -> &str {
    m.strip_suffix("_e32").or_else(|| m.strip_suffix("_e64")).unwrap_or(m)
}

/// The pre-decoded form of one instruction; `Err` names what is not supported.
pub fn lower(arch: Arch, i: &Instruction, pc: u64, resolve: &dyn Fn(u64) -> Tgt) -> Result<Op, String> {
    let gfx9 = gfx9::is_gfx9(arch);
    let canonical;
    let i = if gfx9 {
        canonical = gfx9::canonical_sgprs(i);
        &canonical
    } else {
        i
    };
    let m = i.mnemonic();
    let fmt = i.format();
    // VOP3SD's DPP forms are modifiers of the VOP3SD layout: their encoding is VOP3.
    let enc = match fmt.parent {
        Some("VOP3SD") => "VOP3",
        Some(p) => p,
        None => fmt.name,
    };
    let lit = i.literal;
    let next = pc + i.size() as u64;
    let gfx12 = arch == Arch::Gfx1201;
    let unsupported = || format!("{m}: not supported");
    if let Some(op) = gfx9
        .then(|| {
            gfx9::lower_accvgpr(m, i, lit)
                .or_else(|| gfx9::lower_pk_f32(m, i, lit))
                .or_else(|| gfx9::lower_gpr_idx(m, i, lit))
                .or_else(|| super::mfma::lower(m, i, lit))
        })
        .flatten()
    {
        return op;
    }
    match enc {
        "SOPP" => {
            let imm = i.f("simm16");
            let tgt = || resolve(next.wrapping_add((sext(imm, 16) * 4) as u64));
            Ok(match m {
                "s_endpgm" | "s_endpgm_saved" | "s_endpgm_ordered_ps_done" => Op::End,
                "s_branch" => Op::Branch(tgt()),
                "s_cbranch_scc0" => Op::CBranch(Cond::Scc0, tgt()),
                "s_cbranch_scc1" => Op::CBranch(Cond::Scc1, tgt()),
                "s_cbranch_vccz" => Op::CBranch(Cond::Vccz, tgt()),
                "s_cbranch_vccnz" => Op::CBranch(Cond::Vccnz, tgt()),
                "s_cbranch_execz" => Op::CBranch(Cond::Execz, tgt()),
                "s_cbranch_execnz" => Op::CBranch(Cond::Execnz, tgt()),
                "s_barrier" | "s_barrier_wait" => Op::Barrier,
                "s_trap" => Op::Trap,
                m if m.starts_with("s_wait")
                    || m.starts_with("s_nop")
                    || m.starts_with("s_delay_alu")
                    || m.starts_with("s_clause")
                    || m.starts_with("s_sendmsg")
                    || m.starts_with("s_set_inst_prefetch")
                    || m.starts_with("s_inst_prefetch")
                    || m == "s_barrier_signal"
                    || m == "s_sleep"
                    || m == "s_icache_inv"
                    || m == "s_code_end"
                    || m == "s_setprio"
                    || m == "s_sethalt"
                    || m == "s_denorm_mode"
                    || m == "s_round_mode"
                    || m == "s_ttracedata"
                    || m == "s_singleuse_vdst"
                    || m == "s_version" =>
                {
                    Op::Nop
                }
                _ => return Err(unsupported()),
            })
        }
        "SOP1" | "SOP2" | "SOPC" | "SOPK" => lower_salu(m, enc, i, lit, next, resolve, gfx12),
        "SMEM" => {
            let (n, buffer) = match m {
                "s_load_b32" | "s_load_dword" => (1, false),
                "s_load_b64" | "s_load_dwordx2" => (2, false),
                "s_load_b96" => (3, false),
                "s_load_b128" | "s_load_dwordx4" => (4, false),
                "s_load_b256" | "s_load_dwordx8" => (8, false),
                "s_load_b512" | "s_load_dwordx16" => (16, false),
                "s_buffer_load_b32" => (1, true),
                "s_buffer_load_b64" => (2, true),
                "s_buffer_load_b96" => (3, true),
                "s_buffer_load_b128" => (4, true),
                "s_buffer_load_b256" => (8, true),
                "s_buffer_load_b512" => (16, true),
                // gfx12 sub-dword scalar loads: one SGPR, zero- or sign-extended.
                "s_load_u8" => (SMEM_U8, false),
                "s_load_i8" => (SMEM_I8, false),
                "s_load_u16" => (SMEM_U16, false),
                "s_load_i16" => (SMEM_I16, false),
                "s_buffer_load_u8" => (SMEM_U8, true),
                "s_buffer_load_i8" => (SMEM_I8, true),
                "s_buffer_load_u16" => (SMEM_U16, true),
                "s_buffer_load_i16" => (SMEM_I16, true),
                m if m.starts_with("s_dcache") || m.starts_with("s_gl1_inv") || m.starts_with("s_prefetch") => {
                    return Ok(Op::Nop)
                }
                _ => return Err(unsupported()),
            };
            let bits = if gfx12 { 24 } else { 21 };
            let soff = i.f("soffset");
            let (off, soff) = if gfx9 {
                gfx9::smem_offsets(i)?
            } else {
                (sext(i.f("offset"), bits), if soff == NULL as u32 { Ss::K(0) } else { ssrc(soff, Ty::B32, lit)? })
            };
            Ok(Op::Smem { dst: i.f("sdata") as u8, n, base: (i.f("sbase") * 2) as u8, off, soff, buffer })
        }
        "GLOBAL" | "FLAT" | "SCRATCH" => lower_vmem(m, enc, i, gfx12, gfx9),
        "DS" => lower_ds(m, i, gfx9),
        "VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3P" => lower_valu(arch, m, enc, fmt.name, i, lit),
        // Cache invalidations: the emulator has no caches to invalidate.
        "MUBUF" if m == "buffer_gl0_inv" || m == "buffer_gl1_inv" => Ok(Op::Nop),
        _ => Err(unsupported()),
    }
}

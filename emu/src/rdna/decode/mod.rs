//! Decoded instructions (`baregpu_isa`) -> the pre-decoded form ([`super::ops`]).

mod buffer;
mod cdna4;
mod cvt8;
mod ds;
mod operands;
mod refused;
mod salu;
mod sdwa;
mod smem;
mod valu;
mod valu_sig;
mod vmem;
mod vopd;

use super::gfx9;
use super::ops::*;
use baregpu_isa::{Arch, Instruction};
use buffer::*;
use ds::*;
use operands::*;
pub use operands::{ssrc, vsrc};
use salu::*;
use smem::*;
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
    if let Some(why) = refused::refused(m) {
        return Err(format!("{m}: not run: {why}"));
    }
    if let Some(op) = gfx9
        .then(|| {
            gfx9::lower_accvgpr(m, i, lit)
                .or_else(|| gfx9::lower_pk_f32(m, i, lit))
                .or_else(|| gfx9::lower_gpr_idx(m, i, lit))
                .or_else(|| super::mfma::lower(m, i, lit))
                .or_else(|| cdna4::lower(m, i))
                .or_else(|| sdwa::lower(arch, m, i))
        })
        .flatten()
    {
        return op;
    }
    match enc {
        "SOPP" => lower_sopp(m, i, next, resolve),
        "SOP1" | "SOP2" | "SOPC" | "SOPK" => lower_salu(m, enc, i, lit, next, resolve, gfx12),
        "SMEM" => lower_smem(m, i, lit, gfx9, gfx12),
        "GLOBAL" | "FLAT" | "SCRATCH" => lower_vmem(m, enc, i, gfx12, gfx9),
        "DS" => lower_ds(m, i, gfx9),
        "VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3P" => lower_valu(arch, m, enc, fmt.name, i, lit),
        "MUBUF" | "MTBUF" | "VBUFFER" => lower_buffer(m, i, arch),
        _ => Err(unsupported()),
    }
}

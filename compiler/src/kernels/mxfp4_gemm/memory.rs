//! How the kernel reaches memory: raw buffer instructions (the reference kernel's way: 32-bit
//! offsets range-checked against each buffer's size, the K step in `soffset`), with A staged
//! through the LDS ([`Mem::Lds`], the reference's structure) or not ([`Mem::Buffer`]), or global
//! instructions with an SGPR base ([`Mem::Global`], the K step added to the base pointer). All
//! take the same per-lane 32-bit offsets, so everything else in the kernel is written once.

use crate::isa::builder::{m0, s, Builder, Ctors, Flag, Mod, Reg};

use super::tile::*;

/// The memory instructions a kernel is built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mem {
    /// `buffer_load_dword{,x4}` / `buffer_store_*` with `offen`; every wave loads its own A.
    Buffer,
    /// `global_load_dword{,x4}` / `global_store_*` with an SGPR base.
    Global,
    /// Buffer instructions, with A staged through the LDS as the reference kernel does: the four
    /// waves load the workgroup's A rows once (`buffer_load_dwordx4 … lds`), and each wave reads
    /// its fragments with `ds_read_b128` after a barrier (`super::kloop`). The default.
    #[default]
    Lds,
}

impl Mem {
    pub const ALL: [Mem; 3] = [Mem::Buffer, Mem::Global, Mem::Lds];

    pub fn name(self) -> &'static str {
        match self {
            Mem::Buffer => "buffer",
            Mem::Global => "global",
            Mem::Lds => "lds",
        }
    }

    pub fn parse(s: &str) -> Option<Mem> {
        Mem::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// What a load reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Src {
    A,
    B,
    ScaleA,
    ScaleB,
}

impl Src {
    /// (buffer descriptor, soffset SGPR, the matrix's pointer, the global step base pair).
    fn regs(self) -> (u32, u32, u32, u32) {
        match self {
            Src::A => (R_A, S_OFF_A, S_A, G_A),
            Src::B => (R_B, S_OFF_B, S_B, G_B),
            Src::ScaleA => (R_SA, S_OFF_S, S_SA, G_SA),
            Src::ScaleB => (R_SB, S_OFF_S, S_SB, G_SB),
        }
    }
}

/// Global mode's step bases: the matrix pointers plus this step's offsets (in the buffer
/// descriptors' SGPRs, which global mode does not use).
pub const G_A: u32 = R_A;
pub const G_B: u32 = R_A + 2;
pub const G_SA: u32 = R_B;
pub const G_SB: u32 = R_B + 2;

/// Loads 16 bytes (`dst` of 4) or a dword (`dst` of 1) for the lane at `offset` of `src`, at the
/// current step's offsets.
pub fn load(b: &mut Builder, mem: Mem, src: Src, dst: Reg, offset: Reg) {
    let (rsrc_at, soff, _, base) = src.regs();
    match (mem, dst.count) {
        (Mem::Buffer | Mem::Lds, 4) => {
            b.mods([Mod::Flag(Flag::Offen)]).buffer_load_dwordx4(dst, offset, rsrc(rsrc_at), s(soff))
        }
        (Mem::Buffer | Mem::Lds, _) => {
            b.mods([Mod::Flag(Flag::Offen)]).buffer_load_dword(dst, offset, rsrc(rsrc_at), s(soff))
        }
        (Mem::Global, 4) => b.global_load_dwordx4(dst, offset, s(base..base + 2)),
        (Mem::Global, _) => b.global_load_dword(dst, offset, s(base..base + 2)),
    };
}

/// Global mode: the step bases of the next loads from the offsets just computed (the scale
/// bases only with `scales`). Nothing in buffer mode (the offsets are the `soffset`s).
pub fn step_bases(b: &mut Builder, mem: Mem, scales: bool) {
    if mem != Mem::Global {
        return;
    }
    let srcs: &[Src] = if scales { &[Src::A, Src::B, Src::ScaleA, Src::ScaleB] } else { &[Src::A, Src::B] };
    for &src in srcs {
        let (_, soff, ptr, base) = src.regs();
        b.s_add_u32(s(base), s(ptr), s(soff)).s_addc_u32(s(base + 1), s(ptr + 1), 0);
    }
}

/// A store to C.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Store {
    /// 8 bytes from two VGPRs.
    X2,
    /// The low half of a VGPR.
    Lo16,
    /// The high half of a VGPR.
    Hi16,
}

/// Stores `data` to C at the lane's byte `offset` plus `imm`.
pub fn store(b: &mut Builder, mem: Mem, kind: Store, data: Reg, offset: Reg, imm: u32) {
    let imm = i64::from(imm);
    match mem {
        Mem::Buffer | Mem::Lds => {
            b.mods([Mod::Flag(Flag::Offen), Mod::Offset(imm)]);
            match kind {
                Store::X2 => b.buffer_store_dwordx2(data, offset, rsrc(R_C), 0),
                Store::Lo16 => b.buffer_store_short(data, offset, rsrc(R_C), 0),
                Store::Hi16 => b.buffer_store_short_d16_hi(data, offset, rsrc(R_C), 0),
            };
        }
        Mem::Global => {
            b.mods([Mod::Offset(imm)]);
            let c = s_c();
            match kind {
                Store::X2 => b.global_store_dwordx2(offset, data, c),
                Store::Lo16 => b.global_store_short(offset, data, c),
                Store::Hi16 => b.global_store_short_d16_hi(offset, data, c),
            };
        }
    }
}

/// Loads the lane's 16 bytes of A at `offset` (this step) into the LDS at `lds_at` plus
/// 16 * lane: `M0 = S_LDS_WAVE + lds_at`, then `buffer_load_dwordx4 … offen lds`.
pub fn load_a_to_lds(b: &mut Builder, offset: Reg, lds_at: u32) {
    b.s_add_u32(m0(), s(S_LDS_WAVE), lds_at).s_nop(0);
    // The LDS form has no data operand (llvm-mc: `buffer_load_dwordx4 v1, s[4:7], s45 offen lds`).
    b.op_mods(
        "buffer_load_dwordx4",
        [offset.into(), rsrc(R_A).into(), s(S_OFF_A).into()],
        &[Mod::Flag(Flag::Offen), Mod::Flag(Flag::Lds)],
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Arch;

    #[test]
    fn a_load_to_lds_encodes_as_llvm_mc() {
        // llvm-mc 22: `buffer_load_dwordx4 v1, s[4:7], 0 offen lds` (no data VGPR: the field is 0).
        let mut b = Builder::new(Arch::Gfx950);
        let ops: [crate::isa::builder::Operand; 3] = [crate::isa::builder::v(1).into(), s(4..8).into(), 0.into()];
        b.op_mods("buffer_load_dwordx4", ops, &[Mod::Flag(Flag::Offen), Mod::Flag(Flag::Lds)]);
        assert_eq!(b.finish().unwrap(), [0x00, 0x10, 0x5d, 0xe0, 0x01, 0x00, 0x01, 0x80]);
    }
}

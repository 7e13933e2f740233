//! The MXFP4 GEMM for gfx950: `C (bf16, M x N) = A (MXFP4, M x K) * B^T (MXFP4, N x K)`, built
//! with the typed instruction builder (no text) and written as a code object by our writer.
//!
//! # The kernel
//!
//! One kernel per workgroup tile ([`Tile`]: 256x256, 192x256, 128x512), named
//! `mxfp4_gemm_<tile>`. A workgroup is four wave64s splitting its tile 2 x 2; each wave owns
//! `(tile_m/2) x (tile_n/2)` of C as 16x16 blocks, one `v_mfma_scale_f32_16x16x128_f8f6f4` per
//! block and K step of 128 (cbsz = blgp = 4: both sources FP4 E2M1), accumulating in AGPRs.
//! The first MFMA source is the B fragment and the second the A fragment, so each lane's four
//! results are four consecutive columns of one row of C.
//!
//! Inputs (host side: [`crate::mxfp4`]): A in the natural layout (`M` rows of `K/2` bytes); B
//! pre-shuffled in 16-row x 32-byte tiles, so one K step of 16 rows is 1 KiB read by the 64
//! lanes in order; both scale matrices pre-shuffled in 256-byte tiles of 32 rows x 8 columns, so
//! one dword per lane holds a row's scales for two 16-row halves and two K steps (the MFMA's
//! `op_sel`/`op_sel_hi` pick the byte). Kernel arguments: pointers C@0, A@8, B@16, scale A@24,
//! scale B@32 (as in the reference kernel), then `M`@40, `N`@44, `K`@48 (u32). Grid:
//! `(ceil(N/tile_n), ceil(M/tile_m))` workgroups of 256.
//!
//! Any `M` and `N`: loads clamp their row to the last row of the matrix (so every load stays in
//! its buffer; the rows computed from clamped loads are never stored), and a tile on an edge of C
//! stores element by element under exec masks ([`epilogue`]). `K` is any multiple of 128: the
//! loop over K ([`kloop`]) runs four steps a trip with an exit test after each.
//!
//! Memory ([`memory`]): by default ([`Mem::Lds`]) as in the reference, buffer instructions with
//! A staged through the LDS: per K step the four waves each load a quarter of the workgroup's A
//! fragments with `buffer_load_dwordx4 … lds`, and after an `s_barrier` each wave reads its own
//! with `ds_read_b128`; B and the scales go straight to VGPRs. The LDS holds two steps of A
//! (2 x tile_m/16 KiB: 32, 24 and 16 KiB), not the reference's 160 KiB, which also stages B.
//! [`Mem::Buffer`] loads A straight to VGPRs too (each A row is read by two waves), and
//! [`Mem::Global`] uses global instructions on SGPR bases; the three are checked alike.
//!
//! [`Tile`]: tile::Tile

pub mod epilogue;
pub mod kloop;
pub mod memory;
pub mod prologue;
pub mod tile;

pub use memory::Mem;
pub use tile::{choose_tile, Plan, Tile, K_STEP, WORKGROUP};

use crate::codeobj::{write_code_object, Kernel, KernelArg};
use crate::isa::builder::Builder;
use crate::isa::{Arch, IsaError};

use super::KernelError;

/// The kernel argument block's size in bytes.
pub const KERNARG_BYTES: u32 = 52;

/// A built kernel: the builder (for listings and counts) and its code.
pub struct Built {
    pub tile: Tile,
    pub builder: Builder,
    pub code: Vec<u8>,
    pub plan: Plan,
    /// Instructions of one trip of the K loop (four K steps).
    pub loop_range: std::ops::Range<usize>,
}

/// Builds the kernel of `tile` with the default memory instructions ([`Mem::Lds`]).
pub fn build(tile: Tile) -> Result<Built, KernelError> {
    build_with(tile, Mem::default())
}

/// Builds the kernel of `tile` with the memory instructions of `mem`.
pub fn build_with(tile: Tile, mem: Mem) -> Result<Built, KernelError> {
    let p = Plan::new(tile, mem);
    let mut b = Builder::new(Arch::Gfx950);
    let skel = skeleton(tile, &p);
    // The plan's workgroup-id SGPRs follow the user SGPRs (the kernarg pointer alone).
    let user = skel.user_sgpr_count(Arch::Gfx950);
    if user != tile::S_WG_X {
        return Err(IsaError::Encode(format!(
            "{user} user SGPRs; the plan has the workgroup ids at s{}",
            tile::S_WG_X
        ))
        .into());
    }
    b.tracker_mut().reserve_sgprs(user + 2);
    b.tracker_mut().reserve_vgprs(1);
    prologue::emit(&mut b, &p);
    kloop::emit_first_loads(&mut b, &p);
    prologue::clear_accumulators(&mut b, &p);
    let done = b.label("k_done");
    let start = b.len();
    kloop::emit(&mut b, &p, done);
    let loop_range = start..b.len();
    epilogue::emit(&mut b, &p, done);
    let code = b.finish()?;
    Ok(Built { tile, builder: b, code, plan: p, loop_range })
}

/// Arguments and resources of a tile's kernel (register counts are filled from the code).
fn skeleton(tile: Tile, p: &Plan) -> Kernel {
    let buf =
        |name: &str, off: u32, ty: &str, c: bool| KernelArg::global_buffer(name, off).with_type_name(ty).with_const(c);
    let mut k = Kernel::new(Arch::Gfx950, &tile.kernel_name(), Vec::new()).with_args(vec![
        buf("C", 0, "ushort*", false),
        buf("A", 8, "uchar*", true),
        buf("B", 16, "uchar*", true),
        buf("scale_A", 24, "uchar*", true),
        buf("scale_B", 32, "uchar*", true),
        KernelArg::by_value("M", 40, 4).with_type_name("uint"),
        KernelArg::by_value("N", 44, 4).with_type_name("uint"),
        KernelArg::by_value("K", 48, 4).with_type_name("uint"),
    ]);
    let r = &mut k.resources;
    r.workgroup_id = [true, true, false];
    r.workitem_id_dims = 1;
    r.agpr_count = p.agprs();
    if p.mem == Mem::Lds {
        r.lds_bytes = 2 * p.lds_step_bytes();
    }
    k.reqd_workgroup_size = Some([WORKGROUP, 1, 1]);
    k.max_flat_workgroup_size = WORKGROUP;
    k
}

/// The code-object kernel of `tile`.
pub fn kernel(tile: Tile, mem: Mem) -> Result<Kernel, KernelError> {
    let built = build_with(tile, mem)?;
    let mut k = skeleton(tile, &built.plan);
    k.code = built.code;
    super::apply_usage(Arch::Gfx950, &mut k, &built.builder);
    Ok(k)
}

/// A code object holding the kernels of `tiles` (all named [`Tile::kernel_name`]: one `mem`
/// per code object).
pub fn code_object(tiles: &[Tile], mem: Mem) -> Result<Vec<u8>, KernelError> {
    let ks = tiles.iter().map(|&t| kernel(t, mem)).collect::<Result<Vec<_>, _>>()?;
    Ok(write_code_object(Arch::Gfx950, &ks)?)
}

/// Instruction counts of a kernel.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub total: usize,
    pub bytes: usize,
    pub mfma: usize,
    /// Vector memory loads (buffer or global).
    pub loads: usize,
    /// Vector memory stores.
    pub stores: usize,
    pub waits: usize,
    pub salu: usize,
    pub valu: usize,
}

impl Counts {
    fn of(b: &Builder, range: std::ops::Range<usize>) -> Counts {
        let mut c = Counts::default();
        for e in &b.instructions()[range] {
            let m = e.inst.mnemonic();
            c.total += 1;
            c.bytes += e.inst.size();
            if m.starts_with("v_mfma") {
                c.mfma += 1;
            } else if m.starts_with("buffer_load") || m.starts_with("global_load") {
                c.loads += 1;
            } else if m.starts_with("buffer_store") || m.starts_with("global_store") {
                c.stores += 1;
            } else if m == "s_waitcnt" {
                c.waits += 1;
            } else if m.starts_with("s_") {
                c.salu += 1;
            } else if m.starts_with("v_") {
                c.valu += 1;
            }
        }
        c
    }
}

impl Built {
    /// Counts over the whole kernel.
    pub fn counts(&self) -> Counts {
        Counts::of(&self.builder, 0..self.builder.len())
    }

    /// Counts over one trip of the K loop (four K steps).
    pub fn loop_counts(&self) -> Counts {
        Counts::of(&self.builder, self.loop_range.clone())
    }
}

//! The GPU page-table format: the PTE/PDE bit layout of each generation as data, and the walk
//! of a 4-level table. ONE definition: the driver writes its tables with [`PteLayout::leaf`] and
//! [`PteLayout::table`], and the emulated GPU's MMU translates with [`walk`].
//!
//! Bits from linux-6.12 `drivers/gpu/drm/amd/amdgpu/amdgpu_vm.h` (`AMDGPU_PTE_*`, `AMDGPU_PDE_*`)
//! and the `MTYPE_*` values of `include/{vega10,soc21,soc24}_enum.h`:
//! VALID 0, SYSTEM 1, SNOOPED 2, TMZ 3, EXECUTABLE 4, READABLE 5, WRITEABLE 6, FRAG 11:7, the
//! address 47:12; MTYPE at 58:57 (gfx9, `AMDGPU_PTE_MTYPE_VG10`), 50:48 (gfx10/11,
//! `AMDGPU_PTE_MTYPE_NV10`), 55:54 (gfx12, `AMDGPU_PTE_MTYPE_GFX12`); a PDE that is a leaf (a
//! huge page) carries `AMDGPU_PDE_PTE` bit 54, or `AMDGPU_PDE_PTE_GFX12` bit 63 on gfx12.
//!
//! The shape is the kernel's for a 48-bit VA with a 9-bit block size (`amdgpu_vm_adjust_size`:
//! three PD levels above the PTB): PDB2 (VA 47:39) → PDB1 (38:30) → PDB0 (29:21) → PTB (20:12),
//! 512 entries of 8 bytes in every table, `PAGE_TABLE_DEPTH = 3`, `PAGE_TABLE_BLOCK_SIZE = 0`.
//! Without "translate further" (which the driver does not enable) a leaf at PDB1 maps 1 GiB and a
//! leaf at PDB0 maps 2 MiB.

use crate::{Error, Result};

/// Levels of the table, root first.
pub const LEVELS: usize = 4;
/// The lowest VA bit each level indexes (PDB2, PDB1, PDB0, PTB).
pub const LEVEL_SHIFTS: [u32; LEVELS] = [39, 30, 21, 12];
/// Entries in one table (9 bits of VA per level).
pub const ENTRIES: u64 = 512;
/// Bytes of one table.
pub const TABLE_BYTES: u64 = ENTRIES * 8;
/// VA bits the hardware translates.
pub const VA_BITS: u32 = 48;
/// `CONTEXT0_CNTL.PAGE_TABLE_DEPTH` for this shape (PD levels above the PTB).
pub const PAGE_TABLE_DEPTH: u32 = (LEVELS - 1) as u32;

/// Bit 0: the entry is valid.
pub const VALID: u64 = 1 << 0;
/// Bit 1: the address is a system (bus) address, not VRAM.
pub const SYSTEM: u64 = 1 << 1;
/// Bit 2: accesses snoop the CPU caches (system memory).
pub const SNOOPED: u64 = 1 << 2;
pub const TMZ: u64 = 1 << 3;
pub const EXECUTABLE: u64 = 1 << 4;
pub const READABLE: u64 = 1 << 5;
pub const WRITEABLE: u64 = 1 << 6;
const FRAG_SHIFT: u32 = 7;
const FRAG_MASK: u64 = 0x1f << FRAG_SHIFT;
/// The physical address bits of a PTE or PDE (47:12).
pub const ADDR_MASK: u64 = 0x0000_ffff_ffff_f000;

/// Memory types (`MTYPE_*` of the soc enums): how the GPU caches the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Mtype {
    /// Non-coherent cached (the default for VRAM).
    Nc = 0,
    /// gfx9.4.3: read-write cached (`MTYPE_RW`); write-combined on older parts.
    Rw = 1,
    /// Cache-coherent.
    Cc = 2,
    /// Uncached (signals, memory the host polls).
    Uc = 3,
}

impl Mtype {
    fn from_bits(v: u64) -> Mtype {
        match v & 3 {
            0 => Mtype::Nc,
            1 => Mtype::Rw,
            2 => Mtype::Cc,
            _ => Mtype::Uc,
        }
    }
}

/// Page-table generation (follows the GC major version).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtGeneration {
    /// GC 9.x (gfx942, gfx950).
    Gfx9,
    /// GC 10.x and 11.x.
    Gfx11,
    /// GC 12.x.
    Gfx12,
}

/// The bits that differ between generations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PteLayout {
    pub generation: PtGeneration,
    /// Lowest bit of the MTYPE field and its width mask (unshifted).
    pub mtype_shift: u32,
    pub mtype_mask: u64,
    /// The bit that makes a PDE at PDB1/PDB0 a leaf (a huge page).
    pub pde_pte: u64,
}

impl PtGeneration {
    /// The generation of a GC IP version (major number).
    pub fn of_gc_major(major: u8) -> Result<PtGeneration> {
        match major {
            9 => Ok(PtGeneration::Gfx9),
            10 | 11 => Ok(PtGeneration::Gfx11),
            12 => Ok(PtGeneration::Gfx12),
            _ => Err(Error::Unsupported(format!("GC {major}.x: no page-table layout"))),
        }
    }

    pub const fn layout(self) -> PteLayout {
        match self {
            PtGeneration::Gfx9 => PteLayout { generation: self, mtype_shift: 57, mtype_mask: 3, pde_pte: 1 << 54 },
            PtGeneration::Gfx11 => PteLayout { generation: self, mtype_shift: 48, mtype_mask: 7, pde_pte: 1 << 54 },
            PtGeneration::Gfx12 => PteLayout { generation: self, mtype_shift: 54, mtype_mask: 3, pde_pte: 1 << 63 },
        }
    }
}

/// What a leaf grants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PteFlags {
    /// The address is a system-memory bus address (else a VRAM physical address).
    pub system: bool,
    pub snooped: bool,
    pub readable: bool,
    pub writeable: bool,
    pub executable: bool,
    pub mtype: Mtype,
}

impl PteFlags {
    /// Read-write-execute VRAM, cached.
    pub const VRAM: PteFlags =
        PteFlags { system: false, snooped: false, readable: true, writeable: true, executable: true, mtype: Mtype::Nc };
    /// Read-write system memory, snooped and uncached (what the host polls).
    pub const SYSTEM_UC: PteFlags =
        PteFlags { system: true, snooped: true, readable: true, writeable: true, executable: true, mtype: Mtype::Uc };
}

/// One decoded entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    Invalid,
    /// A PDE naming the next table's physical (VRAM) address.
    Table {
        pa: u64,
    },
    /// A leaf mapping `1 << LEVEL_SHIFTS[level]` bytes at `pa`.
    Leaf {
        pa: u64,
        flags: PteFlags,
        frag: u32,
    },
}

impl PteLayout {
    /// A leaf at `level` (3 = PTB, 4 KiB; 2 = PDB0, 2 MiB; 1 = PDB1, 1 GiB) mapping `pa`.
    /// `frag` is log2(contiguous bytes) − 12 for the TLB's fragment hint (0 for none).
    pub fn leaf(&self, level: usize, pa: u64, flags: PteFlags, frag: u32) -> u64 {
        let mut e = (pa & ADDR_MASK) | VALID | ((u64::from(frag) << FRAG_SHIFT) & FRAG_MASK);
        for (on, bit) in [
            (flags.system, SYSTEM),
            (flags.snooped, SNOOPED),
            (flags.readable, READABLE),
            (flags.writeable, WRITEABLE),
            (flags.executable, EXECUTABLE),
        ] {
            if on {
                e |= bit;
            }
        }
        e |= (flags.mtype as u64 & self.mtype_mask) << self.mtype_shift;
        if level < LEVELS - 1 {
            e |= self.pde_pte;
        }
        e
    }

    /// A PDE pointing at the table at VRAM physical address `pa`.
    pub fn table(&self, pa: u64) -> u64 {
        (pa & ADDR_MASK) | VALID
    }

    /// Decodes an entry found at `level`.
    pub fn decode(&self, level: usize, e: u64) -> Entry {
        if e & VALID == 0 {
            return Entry::Invalid;
        }
        let pa = e & ADDR_MASK;
        if level < LEVELS - 1 && e & self.pde_pte == 0 {
            return Entry::Table { pa };
        }
        let flags = PteFlags {
            system: e & SYSTEM != 0,
            snooped: e & SNOOPED != 0,
            readable: e & READABLE != 0,
            writeable: e & WRITEABLE != 0,
            executable: e & EXECUTABLE != 0,
            mtype: Mtype::from_bits(e >> self.mtype_shift),
        };
        Entry::Leaf { pa, flags, frag: ((e & FRAG_MASK) >> FRAG_SHIFT) as u32 }
    }
}

/// The index of `va` in a table of `level`.
pub const fn index(va: u64, level: usize) -> u64 {
    (va >> LEVEL_SHIFTS[level]) & (ENTRIES - 1)
}

/// Bytes one entry of `level` covers.
pub const fn entry_span(level: usize) -> u64 {
    1 << LEVEL_SHIFTS[level]
}

/// The largest fragment (log2 bytes − 12, at most 31) a mapping of `size` bytes at `va` → `pa`
/// may claim: both addresses and the size aligned to it.
pub fn fragment(va: u64, pa: u64, size: u64) -> u32 {
    let align = (va | pa | size).trailing_zeros().min(12 + 31);
    align.saturating_sub(12)
}

/// A successful translation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Translation {
    /// The physical address of `va` (VRAM offset, or bus address when `flags.system`).
    pub pa: u64,
    pub flags: PteFlags,
    /// Bytes from `va` to the end of the leaf (the contiguous run this translation covers).
    pub run: u64,
}

/// Why a walk stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkFault {
    pub va: u64,
    /// The level whose entry was invalid.
    pub level: usize,
}

/// Walks the table rooted at VRAM physical address `root` for `va`, reading 8-byte entries
/// through `read` (the caller's VRAM). `Ok(Err(fault))` when an entry is invalid; `Err` when
/// `read` fails.
pub fn walk(
    layout: &PteLayout,
    root: u64,
    va: u64,
    mut read: impl FnMut(u64) -> Result<u64>,
) -> Result<std::result::Result<Translation, WalkFault>> {
    let mut table = root;
    for level in 0..LEVELS {
        let e = read(table + index(va, level) * 8)?;
        match layout.decode(level, e) {
            Entry::Invalid => return Ok(Err(WalkFault { va, level })),
            Entry::Table { pa } => table = pa,
            Entry::Leaf { pa, flags, .. } => {
                let span = entry_span(level);
                let off = va & (span - 1);
                return Ok(Ok(Translation { pa: pa + off, flags, run: span - off }));
            }
        }
    }
    unreachable!("the PTB level always decodes to a leaf or invalid")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn leaf_bits_per_generation_match_the_kernel_macros() {
        // AMDGPU_PTE_VALID|READABLE|WRITEABLE|EXECUTABLE = 0x71; SYSTEM|SNOOPED = 0x6;
        // FRAG(9) = 9 << 7; MTYPE_UC (3) at 48 (NV10), 57 (VG10), 54 (GFX12).
        let pa = 0x1234_5678_9000u64;
        let gfx11 = PtGeneration::Gfx11.layout().leaf(3, pa, PteFlags::SYSTEM_UC, 9);
        assert_eq!(gfx11, pa | 0x77 | (9 << 7) | (3 << 48));
        let gfx9 = PtGeneration::Gfx9.layout().leaf(3, pa, PteFlags::SYSTEM_UC, 9);
        assert_eq!(gfx9, pa | 0x77 | (9 << 7) | (3 << 57));
        let gfx12 = PtGeneration::Gfx12.layout().leaf(3, pa, PteFlags::SYSTEM_UC, 9);
        assert_eq!(gfx12, pa | 0x77 | (9 << 7) | (3 << 54));
        // Huge leaves: AMDGPU_PDE_PTE (bit 54) and AMDGPU_PDE_PTE_GFX12 (bit 63).
        assert_eq!(PtGeneration::Gfx11.layout().leaf(2, 0x20_0000, PteFlags::VRAM, 0), 0x20_0000 | 0x71 | (1 << 54));
        assert_eq!(PtGeneration::Gfx12.layout().leaf(1, 1 << 30, PteFlags::VRAM, 0), (1 << 30) | 0x71 | (1 << 63));
        assert_eq!(PtGeneration::Gfx9.layout().table(0x7000), 0x7001);
    }

    #[test]
    fn decode_is_the_inverse_of_encode() {
        for g in [PtGeneration::Gfx9, PtGeneration::Gfx11, PtGeneration::Gfx12] {
            let l = g.layout();
            for level in 1..LEVELS {
                for flags in [PteFlags::VRAM, PteFlags::SYSTEM_UC] {
                    let e = l.leaf(level, 0x4000_0000, flags, 5);
                    assert_eq!(l.decode(level, e), Entry::Leaf { pa: 0x4000_0000, flags, frag: 5 }, "{g:?} {level}");
                }
            }
            assert_eq!(l.decode(0, l.table(0x5000)), Entry::Table { pa: 0x5000 });
            assert_eq!(l.decode(2, 0x5000), Entry::Invalid);
        }
    }

    #[test]
    fn walk_translates_4k_and_huge_leaves_and_reports_the_faulting_level() {
        let l = PtGeneration::Gfx11.layout();
        let mut mem: HashMap<u64, u64> = HashMap::new();
        let (root, pdb1, pdb0, ptb) = (0x10_000u64, 0x11_000u64, 0x12_000u64, 0x13_000u64);
        let va = 0x7f12_3456_7000u64;
        mem.insert(root + index(va, 0) * 8, l.table(pdb1));
        mem.insert(pdb1 + index(va, 1) * 8, l.table(pdb0));
        mem.insert(pdb0 + index(va, 2) * 8, l.table(ptb));
        mem.insert(ptb + index(va, 3) * 8, l.leaf(3, 0xabc_d000, PteFlags::VRAM, 0));
        // A 2 MiB leaf in the next PDB0 entry.
        let huge_va = (va & !0x1f_ffff) + 0x20_0000;
        mem.insert(pdb0 + index(huge_va, 2) * 8, l.leaf(2, 0x4000_0000, PteFlags::SYSTEM_UC, 9));
        let read = |a: u64| Ok(*mem.get(&a).unwrap_or(&0));
        let t = walk(&l, root, va + 0x123, read).unwrap().unwrap();
        assert_eq!((t.pa, t.run, t.flags), (0xabc_d123, 0x1000 - 0x123, PteFlags::VRAM));
        let t = walk(&l, root, huge_va + 0x1234, read).unwrap().unwrap();
        assert_eq!((t.pa, t.run, t.flags.system), (0x4000_1234, 0x20_0000 - 0x1234, true));
        assert_eq!(walk(&l, root, va + 0x1000, read).unwrap(), Err(WalkFault { va: va + 0x1000, level: 3 }));
        assert_eq!(walk(&l, root, 0x1000, read).unwrap(), Err(WalkFault { va: 0x1000, level: 0 }));
    }

    #[test]
    fn fragment_is_the_common_alignment() {
        assert_eq!(fragment(0x20_0000, 0x40_0000, 0x20_0000), 9);
        assert_eq!(fragment(0x1000, 0x40_0000, 0x20_0000), 0);
        assert_eq!(fragment(0, 0, 1 << 50), 31);
    }
}

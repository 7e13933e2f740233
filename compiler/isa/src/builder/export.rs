//! Exports (`exp` on gfx1100, `export` on gfx1201): a target, up to four VGPR sources (`off`
//! for the rest) and the `done` and `row_en` bits, written straight into the EXP fields.

use super::reg::{Reg, RegFile};
use super::Builder;
use crate::asm::parser::{start, Ext};
use crate::error::Result;
use crate::names;
use crate::tables::Tables;
use crate::Arch;

/// An export target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpTarget {
    /// `mrt0`..`mrt7`.
    Mrt(u8),
    Mrtz,
    Null,
    /// `pos0`..`pos4`.
    Pos(u8),
    Prim,
    /// `dual_src_blend0`, `dual_src_blend1`.
    DualSrcBlend(u8),
    /// `param0`..`param31`.
    Param(u8),
}

impl ExpTarget {
    /// The `target` field, through the name table the assembler and disassembler use.
    pub fn value(self) -> std::result::Result<u32, String> {
        let name = match self {
            ExpTarget::Mrt(n) => format!("mrt{n}"),
            ExpTarget::Mrtz => "mrtz".into(),
            ExpTarget::Null => "null".into(),
            ExpTarget::Pos(n) => format!("pos{n}"),
            ExpTarget::Prim => "prim".into(),
            ExpTarget::DualSrcBlend(n) => format!("dual_src_blend{n}"),
            ExpTarget::Param(n) => format!("param{n}"),
        };
        names::exp::value(&name).ok_or_else(|| format!("{name} is not an export target"))
    }
}

/// One export: `Export::new(ExpTarget::Mrtz).src(0, v(4)).src(1, v(3)).done()`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Export {
    pub target: ExpTarget,
    /// The four sources; `None` is `off`.
    pub srcs: [Option<Reg>; 4],
    pub done: bool,
    pub row_en: bool,
}

impl Export {
    /// An export of nothing (every source `off`) to `target`.
    pub fn new(target: ExpTarget) -> Export {
        Export { target, srcs: [None; 4], done: false, row_en: false }
    }
    /// Source `k` (0..=3) is `r`.
    pub fn src(mut self, k: usize, r: Reg) -> Export {
        if let Some(s) = self.srcs.get_mut(k) {
            *s = Some(r);
        }
        self
    }
    /// `done`: the last export of the shader.
    pub fn done(mut self) -> Export {
        self.done = true;
        self
    }
    /// `row_en`.
    pub fn row_en(mut self) -> Export {
        self.row_en = true;
        self
    }
}

impl Builder {
    /// Emits an export.
    pub fn export_to(&mut self, e: Export) -> &mut Self {
        let r = self.try_export(e);
        self.record(r)
    }

    /// [`Builder::export_to`], returning the instruction's size in bytes.
    pub fn try_export(&mut self, e: Export) -> Result<usize> {
        let arch = self.arch;
        let m = if arch == Arch::Gfx1201 { "export" } else { "exp" };
        let op = Tables::get(arch).by_mnemonic.get(m).and_then(|v| v.first().copied());
        let Some(mut i) = op.and_then(|op| start(arch, op, Ext::None)) else {
            return Err(self.err(format!("{} has no exports", arch.name())));
        };
        let target = e.target.value().map_err(|m| self.err(m))?;
        let mut en = 0;
        let mut used = [0; 4];
        for (k, r) in e.srcs.iter().enumerate() {
            let Some(r) = r else { continue };
            if r.file != RegFile::Vgpr || r.count != 1 || r.half.is_some() || !r.fits(arch) {
                return Err(self.err(format!("{m} source {k} ({r}): one whole VGPR or off is required")));
            }
            i.set_field(&format!("vsrc{k}"), r.first as u32);
            en |= 1 << k;
            used[RegFile::Vgpr as usize] = used[RegFile::Vgpr as usize].max(r.first as u32 + 1);
        }
        for (f, v) in [("target", target), ("en", en), ("done", e.done as u32), ("row", e.row_en as u32)] {
            if !i.set_field(f, v) {
                return Err(self.err(format!("{m}: {f} {v} does not fit")));
            }
        }
        self.tracker.note_used(used, false);
        self.push(&i, None, false);
        Ok(i.size())
    }
}

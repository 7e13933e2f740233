//! VOPD (gfx11+ dual issue): two `v_dual_*` halves in one instruction,
//! `b.dual(|x| x.v_dual_mul_f32(v(0), v(1), v(2)), |y| y.v_dual_add_f32(v(3), v(4), v(5)))`.
//!
//! Each half is recorded by the same generated constructors ([`Ctors`]) and encoded into the
//! shared VOPD dwords through the X opcode's and the Y opcode's candidates: the X half first,
//! then the Y half into the same words (its fields are VOPD fields too), sharing one literal.

use baregpu_autogen::isa::ctors::{Ctors, NAMES};

use super::cands::{cand, Cand};
use super::encode::{describe, Fail, Fill};
use super::operand::Operand;
use super::Builder;
use crate::asm::parser::Ext;
use crate::error::Result;
use crate::inst::Instruction;
use crate::tables::Tables;
use crate::Arch;

/// One half of a VOPD pair: its constructor records the instruction instead of emitting it.
#[derive(Debug, Clone, Default)]
pub struct DualHalf {
    id: Option<u16>,
    ops: Vec<Operand>,
}

impl Ctors for DualHalf {
    type Op = Operand;

    fn ctor(&mut self, id: u16, ops: &[Operand]) -> &mut Self {
        self.id = Some(id);
        self.ops.clear();
        self.ops.extend_from_slice(ops);
        self
    }
}

/// The candidates of a VOPD half's opcodes (`VOPD` for X, `VOPD_Y` for Y).
fn halves(arch: Arch, name: &str, format: &str) -> Vec<Cand> {
    let t = Tables::get(arch);
    let ops = t.by_mnemonic.get(name).map(|v| &v[..]).unwrap_or(&[]);
    ops.iter().filter(|&&o| t.op(o).format == format).filter_map(|&o| cand(arch, o, false, Ext::None)).collect()
}

impl Builder {
    /// Emits a VOPD pair: `x` and `y` each call one `v_dual_*` constructor.
    pub fn dual(
        &mut self,
        x: impl FnOnce(&mut DualHalf) -> &mut DualHalf,
        y: impl FnOnce(&mut DualHalf) -> &mut DualHalf,
    ) -> &mut Self {
        let (mut hx, mut hy) = (DualHalf::default(), DualHalf::default());
        x(&mut hx);
        y(&mut hy);
        let r = self.try_dual(&hx, &hy);
        self.record(r)
    }

    /// [`Builder::dual`] with the halves given; returns the instruction's size in bytes.
    pub fn try_dual(&mut self, x: &DualHalf, y: &DualHalf) -> Result<usize> {
        let name = |h: &DualHalf| h.id.and_then(|id| NAMES.get(id as usize)).copied();
        let (Some(nx), Some(ny)) = (name(x), name(y)) else {
            return Err(self.err("a VOPD half calls no v_dual_* constructor"));
        };
        let (xs, ys) = (halves(self.arch, nx, "VOPD"), halves(self.arch, ny, "VOPD_Y"));
        if xs.is_empty() || ys.is_empty() {
            let bad = if xs.is_empty() { (nx, "X") } else { (ny, "Y") };
            return Err(self.err(format!("{} is not a VOPD {} opcode of {}", bad.0, bad.1, self.arch.name())));
        }
        let mut why: Option<(&str, Fail)> = None;
        for cx in &xs {
            for cy in &ys {
                match self.pair(cx, cy, &x.ops, &y.ops) {
                    Ok(size) => return Ok(size),
                    Err((half, e)) => {
                        why.get_or_insert((half, e));
                    }
                }
            }
        }
        let (half, e) = why.map_or(("X", Fail::new(None, "no encoding")), |w| w);
        let (ops, n) = if half == "X" { (&x.ops, nx) } else { (&y.ops, ny) };
        let e = e.why();
        Err(self.err(match e.operand {
            Some(k) => format!("{n} ({half} half) operand {} ({}): {}", k + 1, describe(&ops[k]), e.msg),
            None => format!("{n} ({half} half): {}", e.msg),
        }))
    }

    /// Encodes one (X opcode, Y opcode) choice; the error names the half at fault.
    fn pair(
        &mut self,
        cx: &Cand,
        cy: &Cand,
        ox: &[Operand],
        oy: &[Operand],
    ) -> std::result::Result<usize, (&'static str, Fail)> {
        let mut fx = Fill::new(cx, self.arch, false);
        fx.operands(ox).and_then(|()| fx.finish()).map_err(|e| ("X", e))?;
        let mut fy = Fill::new(cy, self.arch, false);
        // The Y half fills the X half's words; its opcode goes in their `opy` bits.
        let opy = cy.init.words[0] & !cx.init.words[0];
        fy.i.words = fx.i.words;
        fy.i.words[0] |= opy;
        fy.lit = fx.i.literal;
        fy.operands(oy).and_then(|()| fy.finish()).map_err(|e| ("Y", e))?;
        let i = Instruction { op: cx.init.op, op_y: Some(cy.init.op), fmt: cx.init.fmt, ..fy.i };
        crate::vopd_banks::check(&i).map_err(|e| ("Y", Fail::new(None, e)))?;
        self.tracker.note_used(fx.used, fx.vcc);
        self.tracker.note_used(fy.used, fy.vcc);
        self.push(&i, None, false);
        Ok(i.size())
    }
}

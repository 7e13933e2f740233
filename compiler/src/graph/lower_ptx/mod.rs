//! The loop IR rendered as PTX for NVIDIA: interpreted by the emulated GPU (`emu-nv:`), compiled
//! by ptxas for a real one. PTX has virtual registers, so there is no allocation: value `i` is
//! `%v<i>` (32 bits; float and integer instructions read the same `.b32` registers), held as
//! [`DType`] says (f16 and bf16 as f32, u8 as 0..=255, bool 0/1); `%h0` carries the 16 bits of
//! an f16 or bf16 on its way to or from memory.
//!
//! The launch is the AMD lowering's ([`super::lower_amd::launch_shape`]): without a reduction a
//! thread per output element; with one a block of [`BLOCK`] threads per output element, each
//! thread reducing `r = tid, tid + BLOCK, ...`, the partial results combined in shared memory by
//! a halving tree, thread 0 running the epilogue.

mod matmul;

use std::fmt::Write;

use super::dtype::DType;
use super::error::GraphError;
use super::ir::{IdxOp, Inst, Kernel, Reduce, Region, Val};
use super::lower_amd::BLOCK;
use super::ops::{BinaryOp, ReduceOp, UnaryOp};

fn fail(k: &Kernel, what: impl Into<String>) -> GraphError {
    GraphError::Codegen { kernel: k.name.clone(), what: what.into() }
}

/// One PTX module holding every kernel of `ks`, for `target` (`sm_90`).
pub fn module(target: &str, ks: &[Kernel]) -> Result<String, GraphError> {
    let mut s = format!(".version 8.0\n.target {target}\n.address_size 64\n");
    for k in ks {
        s.push_str(&kernel(k)?);
    }
    Ok(s)
}

// Fixed registers: %s0 tid, %s1 ctaid, %s2 output index, %s3 r, %s4 accumulator, %s5/%s6
// tree operands.
const TID: &str = "%s0";
const CTAID: &str = "%s1";
const OUT: &str = "%s2";
const R: &str = "%s3";
const ACC: &str = "%s4";

fn kernel(k: &Kernel) -> Result<String, GraphError> {
    if let Some(mm) = k.matmul {
        return matmul::kernel(k, mm);
    }
    let mut b = header(k);
    if k.reduce.is_some() {
        let _ = writeln!(b, "    .shared .align 4 .b32 {}_lds[{}];", k.name, 2 * BLOCK);
    }
    load_params(k, &mut b);
    match k.reduce {
        None => {
            let _ = writeln!(b, "    mad.lo.u32 {OUT}, {CTAID}, {BLOCK}, {TID};");
            let _ = writeln!(b, "    setp.ge.u32 %p0, {OUT}, {};\n    @%p0 bra END;", k.n_out);
        }
        Some(_) => {
            let _ = writeln!(b, "    mov.u32 {OUT}, {CTAID};");
        }
    }
    let mut r = Render::new(k, b);
    for v in k.in_region(Region::Pre) {
        r.inst(v)?;
    }
    if let Some(red) = k.reduce {
        r.reduction(red)?;
    }
    for v in k.in_region(Region::Post) {
        r.inst(v)?;
    }
    r.b.push_str("END:\n    ret;\n}\n");
    Ok(r.b)
}

/// The entry, its parameters and the registers every kernel declares.
fn header(k: &Kernel) -> String {
    let mut b = String::new();
    let params: Vec<String> = (0..k.params.len()).map(|i| format!("    .param .u64 {}_p{i}", k.name)).collect();
    let _ = writeln!(b, "\n.visible .entry {}(\n{}\n)\n{{", k.name, params.join(",\n"));
    let _ = writeln!(
        b,
        "    .reg .pred %p<6>;\n    .reg .b16 %h<2>;\n    .reg .b32 %s<8>;\n    .reg .b64 %a<{}>;",
        k.params.len().max(1) + 8
    );
    let _ = writeln!(b, "    .reg .b32 %v<{}>;", k.insts.len().max(1));
    b
}

/// The parameters' global addresses into `%a<i>`, the thread and block ids into TID and CTAID.
fn load_params(k: &Kernel, b: &mut String) {
    for i in 0..k.params.len() {
        let _ = writeln!(b, "    ld.param.u64 %a{i}, [{}_p{i}];\n    cvta.to.global.u64 %a{i}, %a{i};", k.name);
    }
    let _ = writeln!(b, "    mov.u32 {TID}, %tid.x;\n    mov.u32 {CTAID}, %ctaid.x;");
}

struct Render<'k> {
    k: &'k Kernel,
    b: String,
    /// The first 64-bit register free for addresses.
    addr: usize,
    /// The registers a matmul kernel's `Tile` values (by `TileAxis as usize`) and `Acc` read.
    tile: [String; 4],
    acc: String,
}

fn v(x: Val) -> String {
    format!("%v{x}")
}

impl<'k> Render<'k> {
    fn new(k: &'k Kernel, b: String) -> Render<'k> {
        let tile = ["%s0", "%s0", "%s0", "%s0"].map(String::from);
        Render { k, b, addr: k.params.len(), tile, acc: ACC.to_string() }
    }

    fn line(&mut self, s: String) {
        self.b.push_str("    ");
        self.b.push_str(&s);
        self.b.push('\n');
    }

    /// The loop over r, the shared-memory tree, and thread 0 alone after it.
    fn reduction(&mut self, red: Reduce) -> Result<(), GraphError> {
        let id = red.op.identity_bits(red.dtype);
        self.line(format!("mov.b32 {ACC}, {id:#x};"));
        self.line(format!("mov.u32 {R}, {TID};"));
        self.b.push_str("LOOP:\n");
        self.line(format!("setp.ge.u32 %p1, {R}, {};", red.len));
        self.line("@%p1 bra LOOP_END;".into());
        for x in self.k.in_region(Region::Body).collect::<Vec<_>>() {
            self.inst(x)?;
        }
        let x = self.k.body_result.ok_or_else(|| fail(self.k, "a reduction without an operand"))?;
        self.combine(red, ACC, ACC, &v(x));
        self.line(format!("add.u32 {R}, {R}, {BLOCK};"));
        self.line("bra LOOP;".into());
        self.b.push_str("LOOP_END:\n");
        let (lds, a) = (format!("{}_lds", self.k.name), self.addr);
        self.line(format!("mov.u64 %a{a}, {lds};"));
        self.line(format!("mul.wide.u32 %a{}, {TID}, 4;", a + 1));
        self.line(format!("add.u64 %a{}, %a{a}, %a{};", a + 1, a + 1));
        self.line(format!("st.shared.b32 [%a{}], {ACC};", a + 1));
        self.line("bar.sync 0;".into());
        let mut step = BLOCK / 2;
        while step > 0 {
            self.line(format!("ld.shared.b32 %s5, [%a{}];", a + 1));
            self.line(format!("ld.shared.b32 %s6, [%a{}+{}];", a + 1, 4 * step));
            self.line("bar.sync 0;".into());
            self.combine(red, ACC, "%s5", "%s6");
            self.line(format!("st.shared.b32 [%a{}], {ACC};", a + 1));
            self.line("bar.sync 0;".into());
            step /= 2;
        }
        self.line(format!("ld.shared.b32 {ACC}, [%a{a}];"));
        self.line(format!("setp.ne.u32 %p1, {TID}, 0;"));
        self.line("@%p1 bra END;".into());
        Ok(())
    }

    fn combine(&mut self, red: Reduce, d: &str, x: &str, y: &str) {
        let op = match (red.op, red.dtype) {
            (ReduceOp::Sum, DType::I32) => "add.s32",
            (ReduceOp::Sum, _) => "add.f32",
            (ReduceOp::Max, DType::I32) => "max.s32",
            (ReduceOp::Max, _) => "max.f32",
        };
        self.line(format!("{op} {d}, {x}, {y};"));
    }

    /// `%a<addr+2>` = the global address of element `idx` of parameter `buf`.
    fn address(&mut self, buf: usize, idx: Val) -> String {
        let a = self.addr + 2;
        let size = self.k.params[buf].dtype.size();
        self.line(format!("mul.wide.u32 %a{a}, {}, {size};", v(idx)));
        self.line(format!("add.u64 %a{a}, %a{buf}, %a{a};"));
        format!("%a{a}")
    }

    fn inst(&mut self, x: Val) -> Result<(), GraphError> {
        let d = v(x);
        match self.k.insts[x] {
            Inst::OutIdx => self.line(format!("mov.u32 {d}, {OUT};")),
            Inst::RedIdx => self.line(format!("mov.u32 {d}, {R};")),
            Inst::Acc => self.line(format!("mov.b32 {d}, {};", self.acc)),
            Inst::Tile(a) => self.line(format!("mov.u32 {d}, {};", self.tile[a as usize])),
            Inst::Const(_, bits) => self.line(format!("mov.b32 {d}, {bits:#x};")),
            Inst::Idx(op, a, b) => {
                let (a, b) = (v(a), v(b));
                self.line(match op {
                    IdxOp::Add => format!("add.u32 {d}, {a}, {b};"),
                    IdxOp::Mul => format!("mul.lo.u32 {d}, {a}, {b};"),
                    IdxOp::DivC(n) => format!("div.u32 {d}, {a}, {n};"),
                    IdxOp::ModC(n) => format!("rem.u32 {d}, {a}, {n};"),
                    IdxOp::Lt => format!("setp.lt.u32 %p2, {a}, {b};\n    selp.u32 {d}, 1, 0, %p2;"),
                    IdxOp::And => format!("and.b32 {d}, {a}, {b};"),
                });
            }
            Inst::Load { buf, idx, valid, dtype } => {
                let at = self.address(buf, idx);
                // Into %h0 for f16 (converted below), zero-extended into the value otherwise.
                let (ty, to) = match dtype {
                    DType::F16 => ("b16", "%h0".to_string()),
                    DType::BF16 => ("u16", d.clone()),
                    DType::U8 | DType::Bool => ("u8", d.clone()),
                    _ => ("b32", d.clone()),
                };
                let guard = match valid {
                    Some(ok) => {
                        self.line(format!("mov.b{} {to}, 0;", if ty == "b16" { 16 } else { 32 }));
                        self.line(format!("setp.ne.u32 %p2, {}, 0;", v(ok)));
                        "@%p2 "
                    }
                    None => "",
                };
                self.line(format!("{guard}ld.global.{ty} {to}, [{at}];"));
                match dtype {
                    DType::F16 => self.line(format!("cvt.f32.f16 {d}, %h0;")),
                    DType::BF16 => self.line(format!("shl.b32 {d}, {d}, 16;")),
                    _ => {}
                }
            }
            Inst::Store { buf, idx, val, dtype } => {
                let at = self.address(buf, idx);
                let x = v(val);
                match dtype {
                    DType::F16 | DType::BF16 => {
                        self.line(format!("cvt.rn.{}.f32 %h0, {x};", ptx_half(dtype)));
                        self.line(format!("st.global.b16 [{at}], %h0;"));
                    }
                    DType::U8 | DType::Bool => self.line(format!("st.global.u8 [{at}], {x};")),
                    _ => self.line(format!("st.global.b32 [{at}], {x};")),
                }
            }
            Inst::Unary(op, to, a) => {
                let s = self.unary(op, self.k.dtype(a), to, &d, &v(a));
                self.line(s);
            }
            Inst::Binary(op, dt, a, b) => {
                let s = self.binary(op, dt, &d, &v(a), &v(b))?;
                self.line(s);
            }
            Inst::Where(_, c, a, b) => {
                self.line(format!("setp.ne.u32 %p2, {}, 0;", v(c)));
                self.line(format!("selp.b32 {d}, {}, {}, %p2;", v(a), v(b)));
            }
        }
        Ok(())
    }

    fn unary(&self, op: UnaryOp, from: DType, to: DType, d: &str, a: &str) -> String {
        match op {
            UnaryOp::Neg if to == DType::I32 => format!("neg.s32 {d}, {a};"),
            UnaryOp::Neg => format!("neg.f32 {d}, {a};"),
            UnaryOp::Exp2 => format!("ex2.approx.f32 {d}, {a};"),
            UnaryOp::Log2 => format!("lg2.approx.f32 {d}, {a};"),
            UnaryOp::Sqrt => format!("sqrt.rn.f32 {d}, {a};"),
            UnaryOp::Rsqrt => format!("rsqrt.approx.f32 {d}, {a};"),
            UnaryOp::Recip => format!("rcp.rn.f32 {d}, {a};"),
            UnaryOp::Sin => format!("sin.approx.f32 {d}, {a};"),
            UnaryOp::Bitcast(_) => bitcast(from, to, d, a),
            UnaryOp::Cast(_) => cast(from, to, d, a),
        }
    }

    fn binary(&self, op: BinaryOp, dt: DType, d: &str, a: &str, b: &str) -> Result<String, GraphError> {
        use BinaryOp::*;
        let t = match dt {
            DType::F32 | DType::F16 | DType::BF16 => "f32",
            DType::I32 => "s32",
            DType::U8 | DType::Bool => "u32",
        };
        let cmp = |c: &str| format!("setp.{c}.{t} %p3, {a}, {b};\n    selp.u32 {d}, 1, 0, %p3;");
        let line = match op {
            Add | Sub | Max | Min => {
                let name = format!("{op:?}").to_lowercase();
                format!("{name}.{t} {d}, {a}, {b};")
            }
            Mul if dt.is_float() => format!("mul.f32 {d}, {a}, {b};"),
            Mul => format!("mul.lo.{t} {d}, {a}, {b};"),
            Div if dt.is_float() => format!("div.rn.f32 {d}, {a}, {b};"),
            Div => return Err(fail(self.k, format!("{dt} division"))),
            CmpLt => cmp("lt"),
            CmpEq => cmp("eq"),
            CmpNe if dt.is_float() => cmp("neu"),
            CmpNe => cmp("ne"),
            And => format!("and.b32 {d}, {a}, {b};"),
            Or => format!("or.b32 {d}, {a}, {b};"),
            Xor => format!("xor.b32 {d}, {a}, {b};"),
            Shl => format!("shl.b32 {d}, {a}, {b};"),
            Shr => format!("shr.s32 {d}, {a}, {b};"),
        };
        // u8 arithmetic wraps: keep the register in 0..=255.
        Ok(if dt == DType::U8 && matches!(op, Add | Sub | Mul | Shl) {
            format!("{line}\n    and.b32 {d}, {d}, 255;")
        } else {
            line
        })
    }
}

/// The PTX name of a 16-bit float type.
fn ptx_half(d: DType) -> &'static str {
    if d == DType::BF16 {
        "bf16"
    } else {
        "f16"
    }
}

/// `d` = the `to` value of the same bits as the `from` value `a` (same size, no bool).
fn bitcast(from: DType, to: DType, d: &str, a: &str) -> String {
    match (from, to) {
        (DType::F16 | DType::BF16, DType::F16 | DType::BF16) => {
            format!("cvt.rn.{}.f32 %h0, {a};\n    cvt.f32.{} {d}, %h0;", ptx_half(from), ptx_half(to))
        }
        _ => format!("mov.b32 {d}, {a};"),
    }
}

/// `d` = the `from` value `a` converted to `to`, as the AMD lowering does (floats to integers
/// truncate and saturate to i32, u8 wraps that; anything to bool is `!= 0`).
fn cast(from: DType, to: DType, d: &str, a: &str) -> String {
    let float = from.is_float();
    match to {
        _ if from == to => format!("mov.b32 {d}, {a};"),
        DType::Bool if float => format!("setp.neu.f32 %p3, {a}, 0f00000000;\n    selp.u32 {d}, 1, 0, %p3;"),
        DType::Bool => format!("setp.ne.u32 %p3, {a}, 0;\n    selp.u32 {d}, 1, 0, %p3;"),
        DType::I32 if float => format!("cvt.rzi.s32.f32 {d}, {a};"),
        DType::U8 if float => format!("cvt.rzi.s32.f32 {d}, {a};\n    and.b32 {d}, {d}, 255;"),
        DType::I32 => format!("mov.b32 {d}, {a};"),
        DType::U8 => format!("and.b32 {d}, {a}, 255;"),
        DType::F32 | DType::F16 | DType::BF16 => {
            let f = match from {
                DType::I32 => format!("cvt.rn.f32.s32 {d}, {a};"),
                DType::U8 | DType::Bool => format!("cvt.rn.f32.u32 {d}, {a};"),
                _ => format!("mov.b32 {d}, {a};"),
            };
            match to {
                DType::F32 => f,
                _ => format!("{f}\n    cvt.rn.{0}.f32 %h0, {d};\n    cvt.f32.{0} {d}, %h0;", ptx_half(to)),
            }
        }
    }
}

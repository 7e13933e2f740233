//! Opcodes: an instruction's name and its dot-modifiers (`add.rn.f32`, `ld.global.v4.u32`,
//! `setp.lt.and.s32`) decoded into the IR's operation, its types and its flags.

use super::{P, R};
use crate::nv::ptx::ir::*;
use crate::nv::ptx::PtxError;

/// What an opcode's modifiers select besides the flags they set on the instruction itself.
pub(super) struct Modifiers {
    /// The types, in order (`cvt.f32.s32`: the destination's, then the source's).
    pub(super) types: Vec<Ty>,
    space: Space,
    width: Width,
    cmp: Option<Cmp>,
    boolop: Option<BoolOp>,
    atomop: Option<AtomOp>,
    to: bool,
    shfl: Option<ShflMode>,
    vote: Option<VoteMode>,
}

impl P<'_> {
    /// Sort the modifiers of `opcode` (`base.mods...`): rounding, saturation, flush-to-zero and
    /// vector width go into `inst`, the rest into the [`Modifiers`] returned.
    pub(super) fn modifiers(&self, inst: &mut Inst, base: &str, opcode: &str, mods: &[&str]) -> R<Modifiers> {
        let mut types = Vec::new();
        let mut space = Space::Generic;
        let mut width = Width::Full;
        let mut cmp = None;
        let mut boolop = None;
        let mut atomop = None;
        let mut to = false;
        let mut shfl = None;
        let mut vote = None;
        for m in mods {
            if let Some(t) = Ty::parse(m) {
                types.push(t);
                continue;
            }
            match *m {
                "rn" => inst.rnd = Rnd::Rn,
                "rz" => inst.rnd = Rnd::Rz,
                "rm" => inst.rnd = Rnd::Rm,
                "rp" => inst.rnd = Rnd::Rp,
                "rni" => inst.rnd = Rnd::Rni,
                "rzi" => inst.rnd = Rnd::Rzi,
                "rmi" => inst.rnd = Rnd::Rmi,
                "rpi" => inst.rnd = Rnd::Rpi,
                "ftz" => inst.ftz = true,
                "sat" => inst.sat = true,
                "global" => space = Space::Global,
                "shared" => space = Space::Shared,
                "local" => space = Space::Local,
                "param" => space = Space::Param,
                "const" => space = Space::Const,
                "to" => to = true,
                "v2" => inst.vec = 2,
                "v4" => inst.vec = 4,
                "lo" if base != "setp" && base != "set" => width = Width::Lo,
                "hi" if base != "setp" && base != "set" => width = Width::Hi,
                "wide" => width = Width::Wide,
                "up" => shfl = Some(ShflMode::Up),
                "down" => shfl = Some(ShflMode::Down),
                "bfly" => shfl = Some(ShflMode::Bfly),
                "idx" => shfl = Some(ShflMode::Idx),
                "all" if base == "vote" => vote = Some(VoteMode::All),
                "any" if base == "vote" => vote = Some(VoteMode::Any),
                "uni" if base == "vote" => vote = Some(VoteMode::Uni),
                "ballot" => vote = Some(VoteMode::Ballot),
                "and" if base == "setp" || base == "set" => boolop = Some(BoolOp::And),
                "or" if base == "setp" || base == "set" => boolop = Some(BoolOp::Or),
                "xor" if base == "setp" || base == "set" => boolop = Some(BoolOp::Xor),
                _ if base == "setp" || base == "set" => {
                    cmp = Some(match *m {
                        "eq" => Cmp::Eq,
                        "ne" => Cmp::Ne,
                        "lt" => Cmp::Lt,
                        "le" => Cmp::Le,
                        "gt" => Cmp::Gt,
                        "ge" => Cmp::Ge,
                        "lo" => Cmp::Lo,
                        "ls" => Cmp::Ls,
                        "hi" => Cmp::Hi,
                        "hs" => Cmp::Hs,
                        "equ" => Cmp::Equ,
                        "neu" => Cmp::Neu,
                        "ltu" => Cmp::Ltu,
                        "leu" => Cmp::Leu,
                        "gtu" => Cmp::Gtu,
                        "geu" => Cmp::Geu,
                        "num" => Cmp::Num,
                        "nan" => Cmp::Nan,
                        _ => return self.err(format!("unknown comparison `.{m}` in `{opcode}`")),
                    })
                }
                _ if base == "atom" || base == "red" => {
                    atomop = match *m {
                        "add" => Some(AtomOp::Add),
                        "min" => Some(AtomOp::Min),
                        "max" => Some(AtomOp::Max),
                        "exch" => Some(AtomOp::Exch),
                        "cas" => Some(AtomOp::Cas),
                        "and" => Some(AtomOp::And),
                        "or" => Some(AtomOp::Or),
                        "xor" => Some(AtomOp::Xor),
                        "inc" => Some(AtomOp::Inc),
                        "dec" => Some(AtomOp::Dec),
                        _ => atomop,
                    }
                }
                // Cache, ordering, scope, alignment and approximation qualifiers change
                // nothing an interpreter observes.
                _ => {}
            }
        }
        Ok(Modifiers { types, space, width, cmp, boolop, atomop, to, shfl, vote })
    }

    /// The operation `base` names, with what its modifiers selected.
    pub(super) fn operation(&self, base: &str, opcode: &str, mods: &[&str], m: &Modifiers, line: u32) -> R<Op> {
        let Modifiers { space, width, cmp, boolop, atomop, to, shfl, vote, .. } = *m;
        Ok(match base {
            "mov" => Op::Mov,
            "ld" | "ldu" => Op::Ld(space),
            "st" => Op::St(space),
            "cvta" => Op::Cvta { to, space },
            "add" => Op::Add,
            "sub" => Op::Sub,
            "mul" => Op::Mul(width),
            "mad" => Op::Mad(width),
            "mul24" => Op::Mul(width),
            "mad24" => Op::Mad(width),
            "fma" => Op::Fma,
            "div" => Op::Div,
            "rem" => Op::Rem,
            "abs" => Op::Abs,
            "neg" => Op::Neg,
            "min" => Op::Min,
            "max" => Op::Max,
            "and" => Op::And,
            "or" => Op::Or,
            "xor" => Op::Xor,
            "not" => Op::Not,
            "cnot" => Op::Cnot,
            "shl" => Op::Shl,
            "shr" => Op::Shr,
            "setp" => Op::Setp(cmp.ok_or_else(|| PtxError::new(line, "setp without a comparison"))?, boolop),
            "selp" => Op::Selp,
            "cvt" => Op::Cvt,
            "bra" | "brx" => Op::Bra,
            "ret" => Op::Ret,
            "exit" => Op::Exit,
            "call" => Op::Call,
            "bar" | "barrier" => {
                if mods.first().is_some_and(|m| *m == "sync" || *m == "aligned") || mods.is_empty() {
                    Op::Bar
                } else if mods.first() == Some(&"warp") {
                    Op::Nop
                } else {
                    return self.err(format!("unsupported barrier `{opcode}`"));
                }
            }
            "membar" | "fence" | "prefetch" | "prefetchu" | "pmevent" | "nanosleep" => Op::Nop,
            "atom" => Op::Atom(space, atomop.ok_or_else(|| PtxError::new(line, "atom without an operation"))?),
            "red" => Op::Red(space, atomop.ok_or_else(|| PtxError::new(line, "red without an operation"))?),
            "shfl" => Op::Shfl(shfl.ok_or_else(|| PtxError::new(line, "shfl without a mode"))?),
            "vote" => Op::Vote(vote.ok_or_else(|| PtxError::new(line, "vote without a mode"))?),
            "activemask" => Op::Activemask,
            "sqrt" => Op::Sqrt,
            "rcp" => Op::Rcp,
            "rsqrt" => Op::Rsqrt,
            "ex2" => Op::Ex2,
            "lg2" => Op::Lg2,
            "sin" => Op::Sin,
            "cos" => Op::Cos,
            "tanh" => Op::Tanh,
            "clz" => Op::Clz,
            "popc" => Op::Popc,
            "brev" => Op::Brev,
            "bfe" => Op::Bfe,
            "bfi" => Op::Bfi,
            "prmt" => Op::Prmt,
            "shf" => {
                let left = match (mods.contains(&"l"), mods.contains(&"r")) {
                    (true, false) => true,
                    (false, true) => false,
                    _ => return self.err(format!("`{opcode}` needs one direction, .l or .r")),
                };
                let wrap = match (mods.contains(&"wrap"), mods.contains(&"clamp")) {
                    (true, false) => true,
                    (false, true) => false,
                    _ => return self.err(format!("`{opcode}` needs one mode, .wrap or .clamp")),
                };
                Op::Shf { left, wrap }
            }
            "copysign" => Op::Copysign,
            "testp" => Op::Testp(match mods.first().copied() {
                Some("finite") => 0,
                Some("infinite") => 1,
                Some("number") => 2,
                Some("notanumber") => 3,
                Some("normal") => 4,
                Some("subnormal") => 5,
                _ => return self.err("testp needs a test"),
            }),
            "trap" | "brkpt" => Op::Trap,
            _ => return self.err(format!("unknown instruction `{opcode}`")),
        })
    }
}

//! One thread: running it until it blocks (control flow, calls, collectives), and reading and
//! writing its operands.

use super::inst::exec;
use super::numeric::from_f;
use super::*;

pub(super) fn step_thread(ctx: &Ctx, t: &mut Thread, shared: &mut [u8]) -> F<()> {
    let m = ctx.m;
    // A thread runs until it blocks; loops are where a hung one spends its time, so backward
    // branches look at the cancel flag (every 4096th, to keep it off the fast path).
    let mut back_edges = 0u32;
    loop {
        let depth = t.frames.len();
        let fr = t.frames.last_mut().expect("a frame");
        let func = &m.funcs[fr.func as usize];
        let Some(inst) = func.body.get(fr.pc as usize) else {
            return Err(Fault::Illegal(format!("ran off the end of `{}`", func.name)));
        };
        if let Some((p, neg)) = inst.pred {
            if (fr.regs[p as usize] != 0) == neg {
                fr.pc += 1;
                continue;
            }
        }
        match inst.op {
            Op::Bra => {
                let Opnd::Label(target) = inst.ops[0] else { return Err(Fault::Illegal("bra without a label".into())) };
                if target <= fr.pc {
                    back_edges = back_edges.wrapping_add(1);
                    if back_edges.is_multiple_of(4096) && ctx.l.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
                        return Err(Fault::Cancelled);
                    }
                }
                fr.pc = target;
                continue;
            }
            Op::Ret | Op::Exit => {
                if inst.op == Op::Exit || depth == 1 {
                    t.status = Status::Exited;
                    return Ok(());
                }
                let done = t.frames.pop().expect("a frame");
                let caller = t.frames.last_mut().expect("a caller");
                for (coff, eoff, size) in &done.rets {
                    let src = &done.param[*eoff as usize..(*eoff + *size) as usize];
                    caller.param[*coff as usize..(*coff + *size) as usize].copy_from_slice(src);
                }
                t.local.truncate(done.local_base as usize);
                caller.pc += 1;
                continue;
            }
            Op::Call => {
                call(m, t, inst)?;
                continue;
            }
            Op::Bar => {
                fr.pc += 1;
                t.status = Status::Bar;
                return Ok(());
            }
            Op::Shfl(mode) => {
                let ty = inst.ty;
                let (dst, pdst) = match &inst.ops[0] {
                    Opnd::Pair(d, p) => (Some(*d), Some(*p)),
                    Opnd::Reg(d) => (Some(*d), None),
                    _ => (None, None),
                };
                let val = value(ctx, t, &inst.ops[1], ty)?;
                let b = value(ctx, t, &inst.ops[2], Ty::B32)? as u32;
                let c = value(ctx, t, &inst.ops[3], Ty::B32)? as u32;
                let fr = t.frames.last_mut().expect("a frame");
                fr.pc += 1;
                t.status = Status::Coll(Coll::Shfl { mode, val, b, c, dst, pdst });
                return Ok(());
            }
            Op::Vote(mode) => {
                let dst = match &inst.ops[0] {
                    Opnd::Reg(d) => Some(*d),
                    _ => None,
                };
                let val = value(ctx, t, &inst.ops[1], Ty::Pred)? != 0;
                let fr = t.frames.last_mut().expect("a frame");
                fr.pc += 1;
                t.status = Status::Coll(Coll::Vote { mode, val, dst });
                return Ok(());
            }
            Op::Trap => return Err(Fault::Trap),
            _ => {}
        }
        exec(ctx, t, shared, inst)?;
        t.frames.last_mut().expect("a frame").pc += 1;
    }
}

/// Enter the function `inst` calls: check the call against its declaration, copy the arguments into
/// the callee's parameter frame and give it its `.local` frame on the thread's stack.
fn call(m: &Module, t: &mut Thread, inst: &Inst) -> F<()> {
    let depth = t.frames.len();
    let fr = t.frames.last().expect("a frame");
    let (Opnd::Vec(rets), Opnd::Sym(Sym::Func(fi)), Opnd::Vec(args)) = (&inst.ops[0], &inst.ops[1], &inst.ops[2])
    else {
        return Err(Fault::Illegal("malformed call".into()));
    };
    let callee = &m.funcs[*fi as usize];
    if callee.external {
        return Err(Fault::Illegal(format!("call of `{}`, which the module only declares", callee.name)));
    }
    if depth >= MAX_CALL_DEPTH {
        return Err(Fault::Illegal("call stack overflow".into()));
    }
    if args.len() != callee.params.len() || rets.len() != callee.rets.len() {
        return Err(Fault::Illegal(format!("call of `{}` with the wrong number of arguments", callee.name)));
    }
    let mut param = vec![0u8; callee.param_size as usize];
    for (a, (off, size)) in args.iter().zip(&callee.params) {
        let Opnd::Sym(Sym::Param(src)) = a else {
            return Err(Fault::Illegal("call arguments must be .param variables".into()));
        };
        let s = *src as usize;
        let bytes =
            fr.param.get(s..s + *size as usize).ok_or_else(|| Fault::Illegal("argument out of range".into()))?;
        param[*off as usize..(*off + *size) as usize].copy_from_slice(bytes);
    }
    let mut rmap = Vec::new();
    for (r, (off, size)) in rets.iter().zip(&callee.rets) {
        let Opnd::Sym(Sym::Param(dst)) = r else {
            return Err(Fault::Illegal("call results must be .param variables".into()));
        };
        if (*dst + *size) as usize > fr.param.len() {
            return Err(Fault::Illegal("call result out of range".into()));
        }
        rmap.push((*dst, *off, *size));
    }
    let base = t.local.len().next_multiple_of(16);
    let top = base + callee.local_size as usize;
    if top > LOCAL_LIMIT {
        return Err(Fault::Illegal("local memory (stack) exhausted".into()));
    }
    t.local.resize(top, 0);
    t.frames.push(Frame {
        func: *fi,
        pc: 0,
        regs: vec![0; callee.nregs as usize],
        param,
        local_base: base as u32,
        rets: rmap,
    });
    Ok(())
}

pub(super) fn sreg(ctx: &Ctx, t: &Thread, s: Sreg) -> u64 {
    let l = ctx.l;
    let lane = t.lin % 32;
    (match s {
        Sreg::Tid(d) => t.tid[d as usize],
        Sreg::Ntid(d) => l.ntid[d as usize],
        Sreg::Ctaid(d) => ctx.ctaid[d as usize],
        Sreg::Nctaid(d) => l.nctaid[d as usize],
        Sreg::LaneId => lane,
        Sreg::WarpId => t.lin / 32,
        Sreg::NWarpId => ctx.nthreads.div_ceil(32),
        Sreg::SmId => sm_of(ctx.ctaid, l.sm_count),
        Sreg::NSmId => l.sm_count,
        Sreg::GridId => 1,
        Sreg::Clock => ctx.start.elapsed().as_nanos() as u32,
        Sreg::Clock64 => return ctx.start.elapsed().as_nanos() as u64,
        Sreg::GlobalTimer => return crate::clock::nv_timestamp(),
        Sreg::LanemaskEq => 1 << lane,
        Sreg::LanemaskLt => (1u32 << lane) - 1,
        Sreg::LanemaskLe => ((1u64 << (lane + 1)) - 1) as u32,
        Sreg::LanemaskGt => !(((1u64 << (lane + 1)) - 1) as u32),
        Sreg::LanemaskGe => !((1u32 << lane) - 1),
        Sreg::DynSmemSize => l.dynamic_shared,
    }) as u64
}

pub(super) fn sym_addr(t: &Thread, s: Sym) -> F<u64> {
    let fr = t.frames.last().expect("a frame");
    Ok(match s {
        Sym::Shared(o) | Sym::Param(o) | Sym::Const(o) => o as u64,
        Sym::Local(o) => (fr.local_base + o) as u64,
        Sym::Global(o) => GLOBALS_WINDOW + o as u64,
        Sym::Func(_) => return Err(Fault::Illegal("a function used as a value".into())),
    })
}

/// Read an operand as the bits of `ty`.
pub(super) fn value(ctx: &Ctx, t: &Thread, o: &Opnd, ty: Ty) -> F<u64> {
    let fr = t.frames.last().expect("a frame");
    Ok(match o {
        Opnd::Reg(r) => fr.regs[*r as usize],
        Opnd::Int(v) => {
            if ty.float() {
                from_f(ty, *v as i64 as f64)
            } else {
                *v
            }
        }
        Opnd::F32(b) => match ty {
            Ty::F64 => (f32::from_bits(*b) as f64).to_bits(),
            Ty::F16 | Ty::Bf16 => from_f(ty, f32::from_bits(*b) as f64),
            _ => *b as u64,
        },
        Opnd::F64(b) => match ty {
            Ty::F32 | Ty::F16 | Ty::Bf16 => from_f(ty, f64::from_bits(*b)),
            _ => *b,
        },
        Opnd::Sreg(s) => sreg(ctx, t, *s),
        Opnd::Sym(s) => sym_addr(t, *s)?,
        Opnd::Addr(..) => return Err(Fault::Illegal("an address used as a value".into())),
        Opnd::Vec(_) | Opnd::Label(_) | Opnd::Sink | Opnd::Pair(..) => {
            return Err(Fault::Illegal("operand kind not allowed here".into()))
        }
    })
}

pub(super) fn set(t: &mut Thread, o: &Opnd, ty: Ty, v: u64) -> F<()> {
    let fr = t.frames.last_mut().expect("a frame");
    match o {
        Opnd::Reg(r) => {
            fr.regs[*r as usize] = if ty == Ty::Pred { (v != 0) as u64 } else { v & ty.mask() };
            Ok(())
        }
        Opnd::Sink => Ok(()),
        _ => Err(Fault::Illegal("destination must be a register".into())),
    }
}

//! Memory: resolving an address operand to a location in one of the address spaces, and
//! loads, stores and atomics there.

use super::thread::sym_addr;
use super::*;

/// A resolved memory location.
pub(super) enum Loc {
    /// An emulator address of global memory (shared with other CTAs and the host).
    Global(usize),
    /// A byte offset into a buffer the worker owns.
    Shared(usize),
    Local(usize),
    Param(usize),
    Const(usize),
    Globals(usize),
}

/// Where `[addr]` of `space` lies, for an access of `len` bytes.
pub(super) fn locate(
    ctx: &Ctx,
    t: &Thread,
    shared: &[u8],
    space: Space,
    o: &Opnd,
    len: u32,
    write: bool,
) -> F<(Loc, u64)> {
    let Opnd::Addr(base, sym, off) = o else { return Err(Fault::Illegal("expected an address operand".into())) };
    let fr = t.frames.last().expect("a frame");
    let mut a = off.cast_unsigned();
    if let Some(r) = base {
        a = a.wrapping_add(fr.regs[*r as usize]);
    }
    if let Some(s) = sym {
        a = a.wrapping_add(sym_addr(t, *s)?);
    }
    let mut space = space;
    let mut addr = a;
    if space == Space::Generic {
        if (SHARED_WINDOW..SHARED_WINDOW + WINDOW).contains(&a) {
            space = Space::Shared;
            addr = a - SHARED_WINDOW;
        } else if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW).contains(&a) {
            space = Space::Local;
            addr = a - LOCAL_WINDOW;
        } else {
            space = Space::Global;
        }
    }
    if space == Space::Global && (GLOBALS_WINDOW..GLOBALS_WINDOW + WINDOW).contains(&addr) {
        let o = addr - GLOBALS_WINDOW;
        if o + len as u64 > ctx.globals.len() as u64 * 8 {
            return Err(Fault::Memory { va: a, space: "global", len, write });
        }
        if !o.is_multiple_of(len.min(8) as u64) {
            return Err(Fault::Misaligned { va: a, space: "global", len });
        }
        return Ok((Loc::Globals(o as usize), a));
    }
    if !addr.is_multiple_of(len.min(16) as u64) {
        return Err(Fault::Misaligned { va: a, space: space.name(), len });
    }
    let fault = || Fault::Memory { va: a, space: space.name(), len, write };
    let within = |n: usize| addr.checked_add(len as u64).is_some_and(|e| e <= n as u64);
    Ok(match space {
        Space::Global => (Loc::Global(ctx.mem.host_ptr(addr, len as u64).ok_or_else(fault)?), a),
        Space::Shared if within(shared.len()) => (Loc::Shared(addr as usize), a),
        Space::Local if within(t.local.len()) => (Loc::Local(addr as usize), a),
        Space::Param => {
            if !within(fr.param.len()) {
                return Err(fault());
            }
            (Loc::Param(addr as usize), a)
        }
        Space::Const if !write && within(ctx.m.const_data.len()) => (Loc::Const(addr as usize), a),
        _ => return Err(fault()),
    })
}

pub(super) fn load(ctx: &Ctx, t: &Thread, shared: &[u8], loc: &Loc, len: u32) -> u64 {
    let mut buf = [0u8; 8];
    let n = len as usize;
    match *loc {
        Loc::Global(p) => {
            // SAFETY: `p` was translated from a live mapping for `len` bytes and is aligned.
            unsafe {
                match len {
                    1 => buf[0] = std::ptr::read_volatile(p as *const u8),
                    2 => buf[..2].copy_from_slice(&std::ptr::read_volatile(p as *const u16).to_ne_bytes()),
                    4 => buf[..4].copy_from_slice(&(*(p as *const AtomicU32)).load(Ordering::Relaxed).to_ne_bytes()),
                    _ => buf.copy_from_slice(&(*(p as *const AtomicU64)).load(Ordering::Relaxed).to_ne_bytes()),
                }
            }
        }
        Loc::Globals(o) => {
            let w = ctx.globals[o / 8].load(Ordering::Relaxed).to_le_bytes();
            buf[..n].copy_from_slice(&w[o % 8..o % 8 + n]);
        }
        Loc::Shared(o) => buf[..n].copy_from_slice(&shared[o..o + n]),
        Loc::Local(o) => buf[..n].copy_from_slice(&t.local[o..o + n]),
        Loc::Param(o) => buf[..n].copy_from_slice(&t.frames.last().expect("a frame").param[o..o + n]),
        Loc::Const(o) => buf[..n].copy_from_slice(&ctx.m.const_data[o..o + n]),
    }
    u64::from_le_bytes(buf)
}

pub(super) fn store(ctx: &Ctx, t: &mut Thread, shared: &mut [u8], loc: &Loc, len: u32, v: u64) {
    let n = len as usize;
    let bytes = v.to_le_bytes();
    match *loc {
        Loc::Global(p) => {
            // SAFETY: as in `load`.
            unsafe {
                match len {
                    1 => std::ptr::write_volatile(p as *mut u8, v as u8),
                    2 => std::ptr::write_volatile(p as *mut u16, v as u16),
                    4 => (*(p as *const AtomicU32)).store(v as u32, Ordering::Relaxed),
                    _ => (*(p as *const AtomicU64)).store(v, Ordering::Relaxed),
                }
            }
        }
        Loc::Globals(o) => {
            let word = &ctx.globals[o / 8];
            let mut cur = word.load(Ordering::Relaxed);
            loop {
                let mut b = cur.to_le_bytes();
                b[o % 8..o % 8 + n].copy_from_slice(&bytes[..n]);
                match word.compare_exchange(cur, u64::from_le_bytes(b), Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => break,
                    Err(x) => cur = x,
                }
            }
        }
        Loc::Shared(o) => shared[o..o + n].copy_from_slice(&bytes[..n]),
        Loc::Local(o) => t.local[o..o + n].copy_from_slice(&bytes[..n]),
        Loc::Param(o) => t.frames.last_mut().expect("a frame").param[o..o + n].copy_from_slice(&bytes[..n]),
        Loc::Const(_) => {}
    }
}

/// Atomic read-modify-write; returns the old value.
pub(super) fn atomic(
    ctx: &Ctx,
    t: &mut Thread,
    shared: &mut [u8],
    loc: &Loc,
    ty: Ty,
    f: impl Fn(u64) -> u64,
) -> F<u64> {
    let len = ty.size();
    match *loc {
        Loc::Global(p) if len == 4 => {
            // SAFETY: translated, aligned, live.
            let a = unsafe { &*(p as *const AtomicU32) };
            let mut cur = a.load(Ordering::Relaxed);
            loop {
                let new = f(cur as u64) as u32;
                match a.compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Relaxed) {
                    Ok(_) => return Ok(cur as u64),
                    Err(x) => cur = x,
                }
            }
        }
        Loc::Global(p) if len == 8 => {
            // SAFETY: translated, aligned, live.
            let a = unsafe { &*(p as *const AtomicU64) };
            let mut cur = a.load(Ordering::Relaxed);
            loop {
                let new = f(cur);
                match a.compare_exchange_weak(cur, new, Ordering::AcqRel, Ordering::Relaxed) {
                    Ok(_) => return Ok(cur),
                    Err(x) => cur = x,
                }
            }
        }
        Loc::Global(_) => Err(Fault::Illegal(format!("{len}-byte atomic"))),
        _ => {
            let old = load(ctx, t, shared, loc, len);
            store(ctx, t, shared, loc, len, f(old));
            Ok(old)
        }
    }
}

pub(super) fn offset_loc(loc: &Loc, d: usize) -> Loc {
    match *loc {
        Loc::Global(p) => Loc::Global(p + d),
        Loc::Shared(o) => Loc::Shared(o + d),
        Loc::Local(o) => Loc::Local(o + d),
        Loc::Param(o) => Loc::Param(o + d),
        Loc::Const(o) => Loc::Const(o + d),
        Loc::Globals(o) => Loc::Globals(o + d),
    }
}

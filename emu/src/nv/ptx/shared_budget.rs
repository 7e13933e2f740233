//! Static shared memory is bounded per kernel, as ptxas bounds it: a kernel counts the
//! module-scope `.shared` variables that it and the functions it calls reference, and the
//! `.shared` variables those functions declare. The interpreter lays every variable of the
//! module out side by side (one offset each, so a function called from two kernels needs no
//! second layout), but two kernels each near the limit are both valid PTX.

use super::ir::{Func, Opnd, Sym};
use super::PtxError;
use baregpu_drivers::nv::ptx_abi::{MAX_SHARED_PER_BLOCK, MAX_STATIC_SHARED};
use std::collections::{BTreeSet, HashMap};

/// One static `.shared` variable as the parser placed it.
pub struct SharedVar {
    pub name: String,
    pub line: u32,
    /// Its offset in the module-wide layout: unique, so it names the variable.
    pub offset: u32,
    pub size: u32,
    pub align: u32,
    /// The function that declares it in its body (`None` at module scope).
    pub owner: Option<u32>,
}

/// Refuse the first kernel whose static shared memory passes [`MAX_STATIC_SHARED`], naming
/// the line of the variable that passes it.
pub fn check(funcs: &[Func], vars: &[SharedVar]) -> Result<(), PtxError> {
    let by_offset: HashMap<u32, usize> = vars.iter().enumerate().map(|(i, v)| (v.offset, i)).collect();
    for (k, f) in funcs.iter().enumerate() {
        if !f.is_entry || f.external {
            continue;
        }
        let used = kernel_vars(funcs, vars, &by_offset, k as u32);
        // A kernel's own layout: its variables in declaration order, each aligned.
        let mut end = 0u64;
        for &i in &used {
            let v = &vars[i];
            end = end.next_multiple_of(u64::from(v.align.max(1))) + u64::from(v.size);
            if end > u64::from(MAX_STATIC_SHARED) {
                return Err(PtxError::new(
                    v.line,
                    format!(
                        "`.shared` `{}` takes kernel `{}`'s static shared memory to {end} bytes; the limit is {MAX_STATIC_SHARED}",
                        v.name, f.name
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Every CTA holds the whole module-wide layout: refuse one past a block's shared memory
/// ([`MAX_SHARED_PER_BLOCK`]), naming the variable that passes it (checked after [`check`],
/// so a kernel over ptxas's limit is named first).
pub fn check_module(vars: &[SharedVar]) -> Result<(), PtxError> {
    match vars.iter().find(|v| v.offset + v.size > MAX_SHARED_PER_BLOCK) {
        Some(v) => Err(PtxError::new(
            v.line,
            format!(
                "`.shared` `{}` takes the module's static shared memory (every kernel's, side by side here) to {} bytes; \
                 a CTA holds at most {MAX_SHARED_PER_BLOCK}",
                v.name,
                v.offset + v.size
            ),
        )),
        None => Ok(()),
    }
}

/// The variables (indices into `vars`, in declaration order) that `entry` reaches.
fn kernel_vars(funcs: &[Func], vars: &[SharedVar], by_offset: &HashMap<u32, usize>, entry: u32) -> BTreeSet<usize> {
    let mut used = BTreeSet::new();
    let mut seen = vec![false; funcs.len()];
    let mut stack = vec![entry];
    seen[entry as usize] = true;
    while let Some(fi) = stack.pop() {
        used.extend(vars.iter().enumerate().filter(|(_, v)| v.owner == Some(fi)).map(|(i, _)| i));
        let mut visit = |s: Sym| match s {
            Sym::Shared(o) => {
                if let Some(&i) = by_offset.get(&o) {
                    used.insert(i);
                }
            }
            Sym::Func(g) if !seen[g as usize] => {
                seen[g as usize] = true;
                stack.push(g);
            }
            _ => {}
        };
        for inst in &funcs[fi as usize].body {
            inst.ops.iter().for_each(|o| symbols(o, &mut visit));
        }
    }
    used
}

fn symbols(o: &Opnd, visit: &mut impl FnMut(Sym)) {
    match o {
        Opnd::Sym(s) | Opnd::Addr(_, Some(s), _) => visit(*s),
        Opnd::Vec(v) => v.iter().for_each(|o| symbols(o, visit)),
        _ => {}
    }
}

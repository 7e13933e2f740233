//! Variable declarations and where they are laid out: module `.global`/`.const` data and
//! `.shared` variables, a body's `.reg`, `.local`, `.param` and `.shared`, and formal parameter
//! lists. Each state space has the bound the hardware gives it; a variable past it, or whose
//! offset would pass 4 GiB, is an error naming its line.

use super::{Body, DYN_SHARED, P, R};
use crate::nv::ptx::ir::{Space, Sym, Ty};
use crate::nv::ptx::lexer::Tok;
use crate::nv::ptx::shared_budget::SharedVar;
use crate::nv::ptx::PtxError;
use baregpu_drivers::nv::ptx_abi::{self, ParamDecl};
use std::collections::HashMap;

/// Module `.const` bytes: one 64 KiB constant bank. CUDA C++ Programming Guide, "Technical
/// Specifications per Compute Capability" (constant memory size 64 KB, every compute
/// capability; `cudaDeviceProp::totalConstMem` reads 65536).
pub const MAX_CONST_BYTES: u32 = 64 << 10;

/// Per-thread local memory: 512 KiB from compute capability 2.0 on. CUDA C++ Programming Guide,
/// "Technical Specifications per Compute Capability" (maximum amount of local memory per
/// thread). It bounds a function's `.local` variables, its `.param` space (a device function's
/// parameters and a body's call arguments live on the thread's stack) and the interpreter's
/// call stack.
pub const MAX_LOCAL_BYTES: u32 = 512 << 10;

/// Module `.global` bytes. PTX and ptxas set no bound below the device's memory; the
/// interpreter keeps a module's globals in host memory and copies them into every launch, so it
/// takes at most 256 MiB (compiled kernels declare kilobytes to megabytes).
pub const MAX_GLOBAL_BYTES: u32 = 256 << 20;

/// What a variable declaration said.
pub(super) struct VarDecl {
    space: Space,
    align: u32,
    /// The layout facts of a parameter: `.align` as written, and `.ptr`.
    declared_align: Option<u32>,
    ptr: bool,
    ty: Ty,
    name: String,
    /// Element count (1 for scalars; 0 for `[]`).
    count: u32,
    init: Vec<u64>,
    /// `<N>` register ranges.
    range: Option<u32>,
    line: u32,
}

impl VarDecl {
    /// Bytes; a size past 32 bits saturates, which every bound refuses.
    fn size(&self) -> u32 {
        self.ty.size().saturating_mul(self.count.max(1))
    }
}

/// A state space for [`place`]: its keyword, what it is called in an error, and its size bound.
type Bound = (&'static str, &'static str, u32);

/// Place `v` (aligned to `align`) after `used` bytes of a space: its offset and the space's new
/// size. Counted in 64 bits, so nothing wraps.
fn place(used: u32, v: &VarDecl, align: u32, (kw, space, max): Bound) -> R<(u32, u32)> {
    let off = u64::from(used).next_multiple_of(u64::from(align.max(1)));
    let end = off + u64::from(v.size());
    if end > u64::from(max) {
        return Err(PtxError::new(
            v.line,
            format!("`{kw}` `{}` takes {space} to {end} bytes; the limit is {max}", v.name),
        ));
    }
    Ok((off as u32, end as u32))
}

const LOCAL: Bound = (".local", "per-thread local memory", MAX_LOCAL_BYTES);
const PARAM: Bound = (".param", "the function's parameter space", MAX_LOCAL_BYTES);
const CONST: Bound = (".const", "the module's constant bank", MAX_CONST_BYTES);
const GLOBAL: Bound = (".global", "the module's global data", MAX_GLOBAL_BYTES);
/// Static `.shared` in the module-wide layout the interpreter uses (every kernel's variables
/// side by side), placed below the dynamic marker so nothing wraps. The bounds that matter come
/// once the module is read (shared_budget): ptxas's per kernel, and a CTA's for the whole layout.
const SHARED: Bound = (".shared", "the module's static shared memory", DYN_SHARED - 1);

impl P<'_> {
    /// After the space keyword: attributes, type, name, array, initializer (not the `;`).
    pub(super) fn var_decl(&mut self, space: Space) -> R<VarDecl> {
        let line = self.line();
        let mut align = 0;
        let mut ty = None;
        let mut ptr = false;
        // A vector variable (`.v2`, `.v4`) is that many elements, aligned to its whole size.
        let mut lanes = 1u32;
        while let Some(w) = self.peek_ident().map(str::to_string) {
            if w == ".align" {
                self.i += 1;
                align = match u32::try_from(self.int()?) {
                    Ok(a) if a.is_power_of_two() => a,
                    _ => return self.err("`.align` needs a power of two"),
                };
            } else if let Some(t) = w.strip_prefix('.').and_then(Ty::parse) {
                self.i += 1;
                ty = Some(t);
            } else if let Some(n) =
                w.strip_prefix(".v").and_then(|n| n.parse::<u32>().ok()).filter(|n| [2, 4].contains(n))
            {
                lanes = n;
                self.i += 1;
            } else if matches!(w.as_str(), ".ptr" | ".global" | ".shared" | ".const" | ".local") {
                ptr |= w == ".ptr";
                self.i += 1;
            } else {
                break;
            }
        }
        let ty = match ty {
            Some(t) => t,
            None => return self.err("variable declaration without a type"),
        };
        let name = self.ident()?;
        let range = self.range()?;
        let mut count = lanes;
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                count = 0;
            } else {
                let n = self.count()?;
                count = match count.checked_mul(n).filter(|c| c.checked_mul(ty.size()).is_some()) {
                    Some(c) => c,
                    None => return self.err(format!("`{name}` is 4 GiB or larger")),
                };
                self.expect_punct(']')?;
            }
        }
        let mut init = Vec::new();
        if self.eat_punct('=') {
            if self.eat_punct('{') {
                loop {
                    init.push(self.literal()?);
                    if !self.eat_punct(',') {
                        break;
                    }
                }
                self.expect_punct('}')?;
            } else {
                init.push(self.literal()?);
            }
        }
        let declared_align = (align != 0).then_some(align);
        let align = if align == 0 { ty.size() * lanes } else { align };
        Ok(VarDecl { space, align, declared_align, ptr, ty, name, count, init, range, line })
    }

    fn literal(&mut self) -> R<u64> {
        let neg = self.eat_punct('-');
        let v = match self.next()? {
            Tok::Int(v) => v,
            Tok::F32(b) => b as u64,
            Tok::F64(b) => b,
            t => {
                self.i -= 1;
                return self.err(format!("expected a literal, found {}", super::describe(Some(&t))));
            }
        };
        Ok(if neg { v.wrapping_neg() } else { v })
    }

    /// Place a static `.shared` variable: its offset; noted for shared_budget's checks.
    fn static_shared(&mut self, v: &VarDecl) -> R<u32> {
        let (off, end) = place(self.shared_size, v, v.align, SHARED)?;
        self.shared_size = end;
        self.shared_vars.push(SharedVar {
            name: v.name.clone(),
            line: v.line,
            offset: off,
            size: end - off,
            align: v.align,
            owner: self.current,
        });
        Ok(off)
    }

    /// A module `.global`, `.const` or `.shared` variable, up to its `;`.
    pub(super) fn module_var(&mut self, v: VarDecl, external: bool) -> R<()> {
        if self.is_punct(',') {
            return self.err("one module variable per declaration is supported");
        }
        self.expect_punct(';')?;
        let sym = match v.space {
            Space::Shared if external || v.count == 0 => Sym::Shared(DYN_SHARED),
            Space::Shared => Sym::Shared(self.static_shared(&v)?),
            Space::Const | Space::Global => {
                let (data, bound) = if v.space == Space::Const {
                    (&mut self.const_data, CONST)
                } else {
                    (&mut self.global_data, GLOBAL)
                };
                // Bounded before the buffer grows.
                let (off, end) = place(data.len() as u32, &v, v.align, bound)?;
                data.resize(end as usize, 0);
                let es = v.ty.size() as usize;
                for (k, x) in v.init.iter().enumerate() {
                    let at = off as usize + k * es;
                    if at + es > data.len() {
                        return Err(PtxError::new(v.line, format!("too many initializers for `{}`", v.name)));
                    }
                    data[at..at + es].copy_from_slice(&x.to_le_bytes()[..es]);
                }
                if v.space == Space::Const {
                    Sym::Const(off)
                } else {
                    Sym::Global(off)
                }
            }
            _ => return Err(PtxError::new(v.line, "unsupported module variable space")),
        };
        self.globals.insert(v.name, sym);
        Ok(())
    }

    /// `( .param ... name, ... )`: formal parameters laid out in a parameter area from `base`.
    pub(super) fn param_list(&mut self, base: &mut u32, names: &mut HashMap<String, Sym>) -> R<Vec<(u32, u32)>> {
        let mut out = Vec::new();
        self.expect_punct('(')?;
        if self.eat_punct(')') {
            return Ok(out);
        }
        loop {
            let kw = self.ident()?;
            if kw != ".param" && kw != ".reg" {
                return self.err(format!("expected .param in a parameter list, found `{kw}`"));
            }
            let v = self.var_decl(Space::Param)?;
            // The runtime lays the block out with the same rule (drivers::nv::ptx_abi).
            let decl = ParamDecl { elem_size: v.ty.size(), count: v.count, align: v.declared_align, ptr: v.ptr };
            let (off, end) = match ptx_abi::place_param(*base, &decl) {
                Some((off, end)) if end <= PARAM.2 => (off, end),
                _ => {
                    let (kw, space, max) = PARAM;
                    let msg = format!("`{kw}` `{}` takes {space} past its limit of {max} bytes", v.name);
                    return Err(PtxError::new(v.line, msg));
                }
            };
            *base = end;
            names.insert(v.name, Sym::Param(off));
            out.push((off, end - off));
            if self.eat_punct(')') {
                return Ok(out);
            }
            self.expect_punct(',')?;
        }
    }

    /// `.reg .T a, b<N>, ...;` in a body, after `.reg`.
    pub(super) fn reg_decl(&mut self, b: &mut Body, line: u32) -> R<()> {
        let first = self.var_decl(Space::Generic)?;
        let mut names = vec![(first.name, first.range)];
        while self.eat_punct(',') {
            let name = self.ident()?;
            names.push((name, self.range()?));
        }
        self.expect_punct(';')?;
        for (name, range) in names {
            match range {
                Some(n) => b.scopes.declare_range(name, n),
                None => b.scopes.declare_reg(name).map_err(|e| PtxError::new(line, e))?,
            }
        }
        Ok(())
    }

    /// A register range's `<N>`, if there is one.
    fn range(&mut self) -> R<Option<u32>> {
        if !self.eat_punct('<') {
            return Ok(None);
        }
        let n = self.count()?;
        self.expect_punct('>')?;
        Ok(Some(n))
    }

    /// A body's `.local`, `.param` or `.shared` variable, after the space keyword.
    pub(super) fn body_var(&mut self, b: &mut Body, space: Space) -> R<()> {
        let v = self.var_decl(space)?;
        self.expect_punct(';')?;
        let sym = match space {
            Space::Local => {
                let (off, end) = place(b.local, &v, v.align, LOCAL)?;
                b.local = end;
                Sym::Local(off)
            }
            Space::Param => {
                let (off, end) = place(b.area, &v, v.align.max(8), PARAM)?;
                b.area = end;
                Sym::Param(off)
            }
            _ => Sym::Shared(self.static_shared(&v)?),
        };
        b.scopes.insert(v.name, sym);
        Ok(())
    }
}

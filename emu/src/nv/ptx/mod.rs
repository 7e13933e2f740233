//! A PTX interpreter: [`lexer`] → [`parser`] (into the typed [`ir`]) → [`exec`].
//!
//! Coverage: `.entry` and `.func` (prototypes, definitions, calls through the param space with
//! return values), module `.global`/`.const` (with initialisers) and `.shared` variables,
//! function `.local`/`.shared`/`.param` variables, `.extern .shared` dynamic shared memory;
//! ld/st (global, shared, local, param, const, generic; vectors; signed loads sign-extend to
//! the register's width), cvta; integer arithmetic (add sub mul.lo/hi/wide mad div rem abs neg
//! min max, and/or/xor/not/cnot, shl/shr, clz popc brev bfe bfi prmt, shf funnel shifts),
//! float arithmetic in f16/bf16/f32/f64 (add sub mul fma mad div rem-free
//! ops, sqrt rcp rsqrt ex2 lg2 sin cos tanh min max abs neg copysign testp), cvt between all
//! of them with the rounding modes (.rn .rz .rm .rp and the integer .rni .rzi .rmi .rpi, .sat),
//! setp (every comparison, with and/or/xor combination and two results), selp, predication,
//! bra, call, ret, exit, bar.sync / barrier.sync, atom and red (add min max exch cas and or
//! xor inc dec on global and shared, f32/f64 add), shfl.sync (up down bfly idx), vote.sync and
//! activemask, and the special registers (%tid %ntid %ctaid %nctaid %laneid %warpid %nwarpid
//! %smid %nsmid %clock %clock64 %globaltimer %lanemask_*). Memory accesses are bounds-checked:
//! a bad one stops the launch with a [`LaunchError`] naming the VA, never a host panic.

pub mod exec;
pub mod ir;
pub mod lexer;
pub mod mem;
pub mod parser;
mod scope;
mod shared_budget;

pub use exec::{Fault, Launch, LaunchError};

use std::collections::HashMap;
use std::fmt;

/// Malformed PTX: what and on which line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxError {
    pub line: u32,
    pub message: String,
}

impl PtxError {
    pub fn new(line: u32, message: impl Into<String>) -> PtxError {
        PtxError { line, message: message.into() }
    }
}

impl fmt::Display for PtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PTX line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PtxError {}

/// A parsed PTX module.
#[derive(Debug, Clone)]
pub struct Module {
    pub funcs: Vec<ir::Func>,
    pub func_index: HashMap<String, u32>,
    /// Bytes of static shared memory: all of the module's shared variables, side by side
    /// (each kernel's own are bounded by ptxas's limit at load; a CTA holds them all).
    pub shared_size: u32,
    pub const_data: Vec<u8>,
    pub global_data: Vec<u8>,
}

impl Module {
    pub fn parse(src: &str) -> Result<Module, PtxError> {
        parser::parse(src)
    }

    /// The `.entry` called `name`.
    pub fn entry(&self, name: &str) -> Option<&ir::Func> {
        self.func_index.get(name).map(|&i| &self.funcs[i as usize]).filter(|f| f.is_entry && !f.external)
    }

    /// Names of the kernels.
    pub fn entries(&self) -> Vec<&str> {
        self.funcs.iter().filter(|f| f.is_entry && !f.external).map(|f| f.name.as_str()).collect()
    }

    /// The parameter block of `entry` filled from `args` (each argument's bytes, in order, at
    /// the offsets and sizes the PTX declares).
    pub fn param_block(&self, entry: &str, args: &[&[u8]]) -> Result<Vec<u8>, String> {
        let f = self.entry(entry).ok_or_else(|| format!("no kernel `{entry}` in the module"))?;
        if args.len() != f.params.len() {
            return Err(format!("kernel `{entry}` takes {} parameters, {} given", f.params.len(), args.len()));
        }
        let mut block = vec![0u8; f.formal_param_size() as usize];
        for (i, ((off, size), a)) in f.params.iter().zip(args).enumerate() {
            if a.len() != *size as usize {
                return Err(format!("parameter {i} of `{entry}` is {size} bytes, {} given", a.len()));
            }
            block[*off as usize..(*off + *size) as usize].copy_from_slice(a);
        }
        Ok(block)
    }
}

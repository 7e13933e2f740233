//! Names in scope in a function body: variables, parameters and registers, block by block.
//! A register range (`.reg .b32 %r<N>;`) gets a register only for the members the body uses,
//! so `%p<4294967295>` costs nothing until `%p7` appears; a function may use at most
//! [`MAX_REGS`] registers.

use super::ir::Sym;
use std::collections::HashMap;

/// Virtual registers one function may use. PTX registers are virtual (ptxas maps them onto the
/// 255 a thread has), so compilers emit thousands; this bound keeps an interpreter frame (8 bytes
/// a register, per thread) at 512 KiB.
pub const MAX_REGS: u32 = 1 << 16;

/// Registers are stored among the symbols as `Sym::Func(u32::MAX - index)`.
pub fn reg_sym(index: u32) -> Sym {
    Sym::Func(u32::MAX - index)
}

/// The register index of a symbol made by [`reg_sym`].
pub fn sym_reg(s: Sym) -> Option<u32> {
    match s {
        Sym::Func(r) if r > u32::MAX / 2 => Some(u32::MAX - r),
        _ => None,
    }
}

#[derive(Default)]
struct Level {
    names: HashMap<String, Sym>,
    /// Register ranges declared here: prefix and member count.
    ranges: Vec<(String, u32)>,
}

pub struct Scopes {
    levels: Vec<Level>,
    /// Registers handed out so far: the function's register count.
    pub regs: u32,
}

impl Scopes {
    /// The function's scope, holding its parameters.
    pub fn new(params: HashMap<String, Sym>) -> Scopes {
        Scopes { levels: vec![Level { names: params, ranges: Vec::new() }], regs: 0 }
    }

    pub fn push(&mut self) {
        self.levels.push(Level::default());
    }

    pub fn pop(&mut self) {
        self.levels.pop();
    }

    fn innermost(&mut self) -> &mut Level {
        self.levels.last_mut().expect("the function scope is never popped")
    }

    pub fn insert(&mut self, name: String, sym: Sym) {
        self.innermost().names.insert(name, sym);
    }

    fn next_reg(&mut self) -> Result<Sym, String> {
        if self.regs >= MAX_REGS {
            return Err(format!("the function uses more than {MAX_REGS} registers"));
        }
        self.regs += 1;
        Ok(reg_sym(self.regs - 1))
    }

    /// `.reg .T name;`: a register now.
    pub fn declare_reg(&mut self, name: String) -> Result<(), String> {
        let s = self.next_reg()?;
        self.insert(name, s);
        Ok(())
    }

    /// `.reg .T prefix<count>;`: registers `prefix0` .. `prefix{count-1}`, each made on first use.
    pub fn declare_range(&mut self, prefix: String, count: u32) {
        let level = self.innermost();
        level.ranges.retain(|(p, _)| *p != prefix);
        level.ranges.push((prefix, count));
        // Members made under an earlier declaration of the prefix here are shadowed too.
        let ranges = &level.ranges;
        level.names.retain(|n, _| member(ranges, n).is_none());
    }

    /// What `name` means here, innermost block first; a range member gets its register now.
    pub fn resolve(&mut self, name: &str) -> Result<Option<Sym>, String> {
        for at in (0..self.levels.len()).rev() {
            if let Some(s) = self.levels[at].names.get(name) {
                return Ok(Some(*s));
            }
            if member(&self.levels[at].ranges, name).is_some() {
                let s = self.next_reg()?;
                self.levels[at].names.insert(name.to_string(), s);
                return Ok(Some(s));
            }
        }
        Ok(None)
    }
}

/// The index of `name` in one of `ranges` (`%r12` in `%r<100>`), spelled without leading zeros.
fn member(ranges: &[(String, u32)], name: &str) -> Option<u32> {
    ranges.iter().find_map(|(prefix, count)| {
        let digits = name.strip_prefix(prefix.as_str())?;
        if digits.is_empty()
            || !digits.bytes().all(|c| c.is_ascii_digit())
            || (digits.len() > 1 && digits.starts_with('0'))
        {
            return None;
        }
        digits.parse::<u32>().ok().filter(|k| k < count)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cost_only_what_is_used() {
        let mut s = Scopes::new(HashMap::new());
        s.declare_range("%p".into(), u32::MAX);
        assert_eq!(s.regs, 0);
        assert_eq!(s.resolve("%p4000000000").unwrap().and_then(sym_reg), Some(0));
        assert_eq!(s.resolve("%p7").unwrap().and_then(sym_reg), Some(1));
        assert_eq!(s.resolve("%p4000000000").unwrap().and_then(sym_reg), Some(0));
        assert_eq!(s.resolve("%p07").unwrap(), None);
        assert_eq!(s.resolve("%q1").unwrap(), None);
        s.push();
        s.declare_range("%p".into(), 2);
        assert_eq!(s.resolve("%p7").unwrap().and_then(sym_reg), Some(1), "outer member");
        assert_eq!(s.resolve("%p1").unwrap().and_then(sym_reg), Some(2), "inner member");
        s.pop();
        assert_eq!(s.regs, 3);
    }

    #[test]
    fn the_register_bound_is_an_error() {
        let mut s = Scopes::new(HashMap::new());
        s.declare_range("%r".into(), u32::MAX);
        for k in 0..MAX_REGS {
            s.resolve(&format!("%r{k}")).unwrap();
        }
        assert!(s.resolve(&format!("%r{MAX_REGS}")).unwrap_err().contains("registers"));
    }
}

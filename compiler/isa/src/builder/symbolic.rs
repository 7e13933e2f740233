//! Symbolic immediates as typed values: `hwreg(..)` and `sendmsg(..)` operands whose names are
//! resolved for the builder's architecture by the one name table (`crate::names`), and whose
//! fields are range-checked there.

use crate::names::{hwreg as hw, sendmsg as msg};
use crate::Arch;

/// A name or a number of a symbolic field (a hardware register, a message, a message operation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sym {
    Name(&'static str),
    Id(u32),
}

impl From<&'static str> for Sym {
    fn from(s: &'static str) -> Sym {
        Sym::Name(s)
    }
}
impl From<u32> for Sym {
    fn from(v: u32) -> Sym {
        Sym::Id(v)
    }
}

/// `hwreg(id, offset, size)`: bits `offset..offset + size` of hardware register `id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Hwreg {
    pub id: Sym,
    pub offset: u8,
    pub size: u8,
}

/// `hwreg(NAME)` (or a number): the whole register.
pub fn hwreg(id: impl Into<Sym>) -> Hwreg {
    Hwreg { id: id.into(), offset: 0, size: 32 }
}

/// `hwreg(NAME, offset, size)`.
pub fn hwreg_bits(id: impl Into<Sym>, offset: u8, size: u8) -> Hwreg {
    Hwreg { id: id.into(), offset, size }
}

impl Hwreg {
    /// The 16-bit operand value on `arch`; `Err` says which part is wrong.
    pub fn value(&self, arch: Arch) -> Result<u32, String> {
        let id = match self.id {
            Sym::Id(v) => v,
            Sym::Name(n) => {
                hw::id(arch, n).ok_or_else(|| format!("{n} is not a hardware register of {}", arch.name()))?
            }
        };
        hw::value(id, self.offset as u32, self.size as u32).ok_or_else(|| {
            format!("hwreg({id}, {}, {}): id 0..=63, offset 0..=31, size 1..=32", self.offset, self.size)
        })
    }
}

/// `sendmsg(msg, op, stream)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Sendmsg {
    pub msg: Sym,
    /// The operation (gfx9 GS and system messages: `GS_OP_*`, `SYSMSG_OP_*`, or a number).
    pub op: Sym,
    pub stream: u8,
}

/// `sendmsg(NAME)` (or a number).
pub fn sendmsg(m: impl Into<Sym>) -> Sendmsg {
    Sendmsg { msg: m.into(), op: Sym::Id(0), stream: 0 }
}

/// `sendmsg(NAME, OP, stream)`.
pub fn sendmsg_op(m: impl Into<Sym>, op: impl Into<Sym>, stream: u8) -> Sendmsg {
    Sendmsg { msg: m.into(), op: op.into(), stream }
}

impl Sendmsg {
    /// The 16-bit operand value on `arch`; `Err` says which part is wrong.
    pub fn value(&self, arch: Arch) -> Result<u32, String> {
        let id = match self.msg {
            Sym::Id(v) => v,
            Sym::Name(n) => msg::id(arch, n).ok_or_else(|| format!("{n} is not a message of {}", arch.name()))?,
        };
        let op = match self.op {
            Sym::Id(v) => v,
            Sym::Name(n) => msg::op_id(arch, id, n)
                .ok_or_else(|| format!("{n} is not an operation of message {id} on {}", arch.name()))?,
        };
        msg::value(arch, id, op, self.stream as u32)
            .ok_or_else(|| format!("sendmsg({id}, {op}, {}): a field is out of range on {}", self.stream, arch.name()))
    }
}

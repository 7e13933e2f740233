//! Operands as short phrases for error messages.

use std::fmt;

use super::super::operand::Operand;

/// An operand as a short phrase for errors (formatted only when shown).
pub(crate) fn describe(x: &Operand) -> Describe<'_> {
    Describe(x)
}

pub(crate) struct Describe<'a>(&'a Operand);

impl fmt::Display for Describe<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Operand::Reg { reg, .. } => write!(f, "{reg}"),
            Operand::Special { reg, .. } => f.write_str(reg.name()),
            Operand::Int(v) => write!(f, "the immediate {v}"),
            Operand::F32(x) => write!(f, "the float {x}"),
            Operand::F64(x) => write!(f, "the f64 {x}"),
            Operand::Off => f.write_str("off"),
            Operand::Label(l) => write!(f, "label {}", l.index()),
            Operand::Waitcnt(_) => f.write_str("waitcnt counters"),
            Operand::Hwreg(_) => f.write_str("a hwreg operand"),
            Operand::Attr(a) => write!(f, "attr{}", a.index),
            Operand::Sendmsg(_) => f.write_str("a sendmsg operand"),
            Operand::Modified { x, neg, abs, sext } => {
                let (n, a) = (if *neg { "-" } else { "" }, if *abs { "|" } else { "" });
                let (s0, s1) = if *sext { ("sext(", ")") } else { ("", "") };
                write!(f, "{s0}{n}{a}{}{a}{s1}", describe(&x.get()))
            }
        }
    }
}

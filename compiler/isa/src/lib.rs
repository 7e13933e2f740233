//! The AMD ISA model shared by the compiler and the emulator: typed instructions over the
//! generated per-architecture tables in `baregpu-autogen`.
//!
//! - [`decode`] / [`decode_all`]: bytes -> [`Instruction`] (table-driven, with a per-arch lookup
//!   built once);
//! - [`disassemble`]: [`Instruction`] -> llvm-mc 22 text;
//! - [`Instruction::encode`]: the inverse of decoding;
//! - [`assemble`] / [`assemble_line`]: llvm-mc syntax -> bytes.

pub mod alias;
pub mod asm;
pub mod builder;
pub mod decode;
mod decode_lut;
#[cfg(test)]
mod decode_ref;
pub mod disasm;
mod dpp_kinds;
pub mod error;
mod ext_forms;
mod field_index;
pub mod fixup;
mod fnv;
#[cfg(test)]
mod golden_vectors;
mod image_taken;
pub mod inst;
mod modifiers;
pub mod names;
mod offset_range;
mod op_table;
pub mod operand;
mod src_kinds;
mod src_mods;
mod src_type;
mod substr;
pub mod t16;
pub mod tables;
pub mod vopd_banks;

pub use asm::{assemble, assemble_line};
pub use decode::{decode, decode_all, decode_at, Decoder};
pub use disasm::{disassemble, disassemble_into};
pub use error::{IsaError, Result};
pub use inst::Instruction;

/// The architectures the ISA model covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    Gfx1100,
    Gfx1201,
    Gfx942,
    Gfx950,
}

impl Arch {
    pub const ALL: [Arch; 4] = [Arch::Gfx1100, Arch::Gfx1201, Arch::Gfx942, Arch::Gfx950];

    pub fn name(self) -> &'static str {
        match self {
            Arch::Gfx1100 => "gfx1100",
            Arch::Gfx1201 => "gfx1201",
            Arch::Gfx942 => "gfx942",
            Arch::Gfx950 => "gfx950",
        }
    }

    pub fn from_name(name: &str) -> Option<Arch> {
        Arch::ALL.into_iter().find(|a| a.name() == name)
    }
}

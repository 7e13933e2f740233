//! Element types of tensors, and how a kernel holds each in a 32-bit register: f32 and i32 as
//! themselves, f16 and bf16 as the f32 of the same value (arithmetic runs in f32, rounded to the
//! type where a cast says so and where the value is stored), u8 as 0..=255 (wrapping arithmetic
//! masks to 8 bits) and bool as 0 or 1. Memory holds every type at its own width.

/// The element type of a tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    F32,
    F16,
    BF16,
    I32,
    U8,
    Bool,
}

impl DType {
    /// Bytes one element takes in memory (a bool is one byte).
    pub fn size(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F16 | DType::BF16 => 2,
            DType::U8 | DType::Bool => 1,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F16 | DType::BF16)
    }

    /// Bits of a constant `value` as a register holds it (floats rounded to the type, u8
    /// wrapped, bool 0/1, i32 saturated).
    pub fn const_bits(self, value: f64) -> u32 {
        match self {
            DType::F32 => (value as f32).to_bits(),
            DType::F16 => half::f16::from_f64(value).to_f32().to_bits(),
            DType::BF16 => half::bf16::from_f64(value).to_f32().to_bits(),
            DType::I32 => value as i32 as u32,
            DType::U8 => u32::from(value as i64 as u8),
            DType::Bool => u32::from(value != 0.0),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I32 => "i32",
            DType::U8 => "u8",
            DType::Bool => "bool",
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

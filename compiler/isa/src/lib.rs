//! The AMD ISA model shared by the compiler and the emulator: typed instructions over the
//! generated per-architecture tables in `baregpu-autogen`.

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

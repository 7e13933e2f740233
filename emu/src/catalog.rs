//! The boards the emulator models: what an emulated device reports through its (emulated)
//! topology. The figures are those of the real board of each architecture, so sizing logic in
//! the driver sees realistic numbers; memory is host memory taken on demand, not reserved.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    Amd,
    Nvidia,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmuModel {
    pub vendor: Vendor,
    /// `gfx1100`, `sm_90`, ...: the architecture in the device spec.
    pub arch: &'static str,
    /// The real board whose figures it reports.
    pub board: &'static str,
    /// Compute units (AMD) or streaming multiprocessors (NVIDIA).
    pub compute_units: u32,
    pub memory_bytes: u64,
    /// What it cannot run yet, or `None` when it runs everything the emulator supports.
    pub not_ready: Option<&'static str>,
}

const GIB: u64 = 1 << 30;

pub const MODELS: &[EmuModel] = &[
    EmuModel {
        vendor: Vendor::Amd,
        arch: "gfx1100",
        board: "Radeon RX 7900 XTX",
        compute_units: 96,
        memory_bytes: 24 * GIB,
        not_ready: None,
    },
    EmuModel {
        vendor: Vendor::Amd,
        arch: "gfx1201",
        board: "Radeon RX 9070 XT",
        compute_units: 64,
        memory_bytes: 16 * GIB,
        not_ready: None,
    },
    EmuModel {
        vendor: Vendor::Amd,
        arch: "gfx942",
        board: "Instinct MI300X",
        compute_units: 304,
        memory_bytes: 192 * GIB,
        not_ready: None,
    },
    EmuModel {
        vendor: Vendor::Amd,
        arch: "gfx950",
        board: "Instinct MI355X",
        compute_units: 256,
        memory_bytes: 288 * GIB,
        not_ready: None,
    },
    EmuModel {
        vendor: Vendor::Nvidia,
        arch: "sm_90",
        board: "H200",
        compute_units: 132,
        memory_bytes: 141 * GIB,
        not_ready: None,
    },
    EmuModel {
        vendor: Vendor::Nvidia,
        arch: "sm_89",
        board: "GeForce RTX 4090",
        compute_units: 128,
        memory_bytes: 24 * GIB,
        not_ready: None,
    },
    EmuModel {
        vendor: Vendor::Nvidia,
        arch: "sm_120",
        board: "GeForce RTX 5090",
        compute_units: 170,
        memory_bytes: 32 * GIB,
        not_ready: None,
    },
];

pub fn model(vendor: Vendor, arch: &str) -> Option<&'static EmuModel> {
    MODELS.iter().find(|m| m.vendor == vendor && m.arch == arch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_is_unique_and_found() {
        for m in MODELS {
            assert_eq!(model(m.vendor, m.arch), Some(m));
            assert_eq!(MODELS.iter().filter(|o| o.arch == m.arch).count(), 1, "{}", m.arch);
        }
        assert_eq!(model(Vendor::Amd, "sm_90"), None);
    }
}

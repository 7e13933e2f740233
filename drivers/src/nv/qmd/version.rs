//! The QMD layout versions: which compute class reads which, their sizes, and the units each
//! encodes addresses and sizes in.

/// A QMD layout version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QmdVersion {
    /// `QMDV03_00`: Ampere and Ada (256 bytes).
    V3,
    /// `QMDV04_00`: Hopper (384 bytes).
    V4,
    /// `QMDV05_00`: Blackwell (384 bytes).
    V5,
}

/// The largest QMD, in dwords.
pub const MAX_DWORDS: usize = 0x60;

impl QmdVersion {
    pub const ALL: [QmdVersion; 3] = [QmdVersion::V3, QmdVersion::V4, QmdVersion::V5];

    /// The QMD version a compute class reads, by class id.
    pub fn for_compute_class(class: u32) -> Option<QmdVersion> {
        match class {
            0xc6c0 | 0xc7c0 | 0xc9c0 => Some(QmdVersion::V3),
            0xcbc0 => Some(QmdVersion::V4),
            0xcdc0 | 0xcec0 => Some(QmdVersion::V5),
            _ => None,
        }
    }

    /// Size in dwords: the highest field of V3 ends at bit 2047, of V4 and V5 at bit 3071.
    pub fn dwords(self) -> usize {
        match self {
            QmdVersion::V3 => 0x40,
            QmdVersion::V4 | QmdVersion::V5 => 0x60,
        }
    }

    pub fn bytes(self) -> usize {
        self.dwords() * 4
    }

    /// `QMD_MAJOR_VERSION` value.
    pub fn major(self) -> u64 {
        match self {
            QmdVersion::V3 => 3,
            QmdVersion::V4 => 4,
            QmdVersion::V5 => 5,
        }
    }

    /// The header and the prefix of its field names (for messages and the header cross-check).
    pub fn header(self) -> (&'static str, &'static str) {
        match self {
            QmdVersion::V3 => ("clc6c0qmd.h", "NVC6C0_QMDV03_00_"),
            QmdVersion::V4 => ("clcbc0qmd.h", "NVCBC0_QMDV04_00_"),
            QmdVersion::V5 => ("clcec0qmd.h", "NVCEC0_QMDV05_00_"),
        }
    }

    /// How many release semaphores, dependent QMDs and constant buffers the layout has.
    pub fn release_slots(self) -> u8 {
        3
    }
    pub fn dependent_slots(self) -> u8 {
        2
    }
    pub fn constant_buffers(self) -> u8 {
        8
    }

    /// Right shift applied to the program address (`PROGRAM_ADDRESS_*_SHIFTED4` on V5).
    pub fn program_address_shift(self) -> u32 {
        if self == QmdVersion::V5 {
            4
        } else {
            0
        }
    }

    /// Right shift applied to constant-buffer addresses (`CONSTANT_BUFFER_ADDR_*_SHIFTED6` on V4/V5).
    pub fn constant_buffer_shift(self) -> u32 {
        if self == QmdVersion::V3 {
            0
        } else {
            6
        }
    }

    /// Right shift applied to the shared-memory size (`SHARED_MEMORY_SIZE_SHIFTED7` on V5).
    pub fn shared_memory_shift(self) -> u32 {
        if self == QmdVersion::V5 {
            7
        } else {
            0
        }
    }

    /// Right shift applied to local-memory sizes (`SHADER_LOCAL_MEMORY_*_SIZE_SHIFTED4` on V5).
    pub fn local_memory_shift(self) -> u32 {
        if self == QmdVersion::V5 {
            4
        } else {
            0
        }
    }
}

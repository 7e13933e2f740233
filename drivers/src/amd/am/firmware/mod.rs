//! amdgpu firmware files: the common header and each kind's header versions (PSP SOS, SMU,
//! SDMA, PFP/ME/MEC, IMU, RLC), the list of files a chip needs and the PSP firmware type each
//! payload becomes, and where files come from. Every offset and size a header gives is checked
//! against the file before use: a malformed file is one `Malformed` error naming the file and
//! the field, never a panic or an out-of-bounds read. Layouts: `amdgpu_ucode.h`, `psp_gfx_if.h`
//! (linux-source-6.12 6.12.117), each struct with compile-time size and offset checks. Files we
//! know are identified by SHA-256 ([`known`]); a pinned [`DirSource`] refuses a known name with
//! other content.

pub mod chip;
pub mod fw_type;
pub mod gfx;
pub mod header;
pub mod imu;
pub mod known;
pub mod psp;
pub mod rlc;
pub mod sdma;
pub mod smu;
pub mod source;

pub use chip::{check_file, ChipFirmware, ChipVersions, FileKind, Payload};
pub use fw_type::GfxFwType;
pub use header::Blob;
pub use source::{DirSource, FirmwareSource};

/// A byte range of a firmware file, already checked to lie inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    pub offset: usize,
    pub len: usize,
}

impl Span {
    /// The bytes of the span in the file it was checked against.
    pub fn of<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        &bytes[self.offset..self.offset + self.len]
    }
}

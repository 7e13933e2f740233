//! `common_firmware_header` (`amdgpu_ucode.h`): the first 32 bytes of every amdgpu firmware
//! file, giving the header version that selects the rest of the header, and the main ucode
//! array.

#![allow(non_camel_case_types)]

use super::Span;
use crate::amd::am::raw::{self, layout, raw_structs, Raw};
use crate::{Error, Result};

/// `common_firmware_header`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct common_firmware_header {
    /// Bytes of the whole file (header and images).
    pub size_bytes: u32,
    /// Bytes of the header alone.
    pub header_size_bytes: u32,
    pub header_version_major: u16,
    pub header_version_minor: u16,
    pub ip_version_major: u16,
    pub ip_version_minor: u16,
    pub ucode_version: u32,
    pub ucode_size_bytes: u32,
    /// Offset of the ucode array from the start of the file.
    pub ucode_array_offset_bytes: u32,
    pub crc32: u32,
}
layout!(common_firmware_header, 32, {
    size_bytes: 0, header_size_bytes: 4, header_version_major: 8, header_version_minor: 10,
    ip_version_major: 12, ip_version_minor: 14, ucode_version: 16, ucode_size_bytes: 20,
    ucode_array_offset_bytes: 24, crc32: 28
});
raw_structs!(common_firmware_header);

/// A firmware file with its common header read and checked: every later offset is checked
/// against `bytes.len()` through [`Blob::span`].
#[derive(Debug, Clone)]
pub struct Blob<'a> {
    /// The file name errors carry (`gc_11_0_0_mec.bin`).
    pub name: &'a str,
    pub bytes: &'a [u8],
    pub common: common_firmware_header,
}

impl<'a> Blob<'a> {
    pub fn parse(name: &'a str, bytes: &'a [u8]) -> Result<Blob<'a>> {
        let common: common_firmware_header = raw::read(bytes, 0, name, "common_firmware_header")?;
        let len = bytes.len();
        if common.size_bytes as usize > len {
            return Err(Error::malformed(
                name,
                format!("size_bytes {:#x} but the file has {len:#x}", common.size_bytes),
            ));
        }
        let hs = common.header_size_bytes as usize;
        if hs < std::mem::size_of::<common_firmware_header>() || hs > len {
            return Err(Error::malformed(name, format!("header_size_bytes {hs:#x} outside [0x20, {len:#x}]")));
        }
        let blob = Blob { name, bytes, common };
        blob.span(
            common.ucode_array_offset_bytes,
            common.ucode_size_bytes,
            "ucode_array_offset_bytes/ucode_size_bytes",
        )?;
        Ok(blob)
    }

    /// `(major, minor)` of the header.
    pub fn version(&self) -> (u16, u16) {
        (self.common.header_version_major, self.common.header_version_minor)
    }

    /// The header as `T` (which starts with the common header); `header_size_bytes` must
    /// cover it.
    pub fn header<T: Raw>(&self, what: &str) -> Result<T> {
        let need = std::mem::size_of::<T>();
        if (self.common.header_size_bytes as usize) < need {
            return Err(self.bad(format!(
                "{what} needs {need:#x} header bytes, header_size_bytes is {:#x}",
                self.common.header_size_bytes
            )));
        }
        raw::read(self.bytes, 0, self.name, what)
    }

    /// `[offset, offset + len)` of the file, checked; `field` names the header fields that gave it.
    pub fn span(&self, offset: u32, len: u32, field: &str) -> Result<Span> {
        let (o, l) = (offset as usize, len as usize);
        match o.checked_add(l) {
            Some(end) if end <= self.bytes.len() => Ok(Span { offset: o, len: l }),
            _ => {
                Err(self
                    .bad(format!("{field}: {l:#x} bytes at {o:#x} run past the end ({:#x} bytes)", self.bytes.len())))
            }
        }
    }

    /// A span at `offset` from the start of the ucode array.
    pub fn ucode_span(&self, offset: u32, len: u32, field: &str) -> Result<Span> {
        let base = self.common.ucode_array_offset_bytes;
        let o = base.checked_add(offset).ok_or_else(|| self.bad(format!("{field}: offset {offset:#x} overflows")))?;
        self.span(o, len, field)
    }

    /// The main ucode array (`ucode_array_offset_bytes`, `ucode_size_bytes`).
    pub fn ucode(&self) -> Span {
        Span { offset: self.common.ucode_array_offset_bytes as usize, len: self.common.ucode_size_bytes as usize }
    }

    /// A `Malformed` error naming this file.
    pub fn bad(&self, reason: impl Into<String>) -> Error {
        Error::malformed(self.name, reason)
    }

    /// The error for a header version this parser does not read.
    pub fn unknown_version(&self, kind: &str, known: &str) -> Error {
        let (ma, mi) = self.version();
        self.bad(format!("{kind} header version {ma}.{mi} (we read {known})"))
    }
}

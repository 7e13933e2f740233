//! Plain-data structs of the kernel's AM headers (discovery.h, amdgpu_ucode.h, psp_gfx_if.h) read
//! out of, and written into, byte buffers: firmware files and the discovery table are untrusted
//! bytes, so every read is bounds-checked and names the file and the field it was after.

use crate::{Error, Result};

/// `#[repr(C)]` structs of integers (and arrays of them) with no padding the compile-time
/// layout checks do not account for.
///
/// # Safety
/// Implementors are plain data: every bit pattern is a valid value, and every byte of the value
/// is initialised (no implicit padding), so a value can be viewed as bytes and rebuilt from any.
pub unsafe trait Raw: Copy + 'static {
    /// The all-zero value.
    fn zeroed() -> Self {
        // SAFETY: the trait's contract makes every bit pattern, all zeroes included, valid.
        unsafe { std::mem::zeroed() }
    }
}

/// Mark structs as [`Raw`]; each is `#[repr(C)]` with a `layout!` check beside it.
macro_rules! raw_structs {
    ($($t:ty),* $(,)?) => { $(
        // SAFETY: #[repr(C)] integer-only struct whose size and field offsets are asserted at
        // compile time to leave no padding (layout! beside the definition).
        unsafe impl $crate::amd::am::raw::Raw for $t {}
    )* };
}
pub(crate) use raw_structs;

/// Compile-time size and field-offset checks, as the kernel header lays the struct out.
macro_rules! layout {
    ($t:ty, $size:expr, { $($f:ident : $off:expr),* $(,)? }) => {
        const _: () = {
            assert!(::std::mem::size_of::<$t>() == $size);
            $( assert!(::std::mem::offset_of!($t, $f) == $off); )*
        };
    };
}
pub(crate) use layout;

/// The bytes of a value (to write tables and stand-in blobs).
pub fn bytes_of<T: Raw>(value: &T) -> &[u8] {
    // SAFETY: T is Raw: size_of::<T>() initialised bytes with no padding.
    unsafe { std::slice::from_raw_parts(value as *const T as *const u8, std::mem::size_of::<T>()) }
}

/// Read a `T` at byte `offset` of `bytes`; `what` names the struct in the error, `file` the
/// source (a firmware file name, `discovery table`).
pub fn read<T: Raw>(bytes: &[u8], offset: usize, file: &str, what: &str) -> Result<T> {
    let size = std::mem::size_of::<T>();
    let end = offset.checked_add(size).filter(|&e| e <= bytes.len()).ok_or_else(|| {
        Error::malformed(
            file,
            format!("{what} ({size} bytes at {offset:#x}) runs past the end ({:#x} bytes)", bytes.len()),
        )
    })?;
    // SAFETY: bytes[offset..end] holds size_of::<T>() bytes; T is Raw, valid for any bit
    // pattern; read_unaligned because the buffer has no alignment guarantee.
    Ok(unsafe { std::ptr::read_unaligned(bytes[offset..end].as_ptr() as *const T) })
}

/// The sub-slice `[offset, offset + len)` of `bytes`, or an error naming the field that
/// described it.
pub fn slice<'a>(bytes: &'a [u8], offset: usize, len: usize, file: &str, what: &str) -> Result<&'a [u8]> {
    offset.checked_add(len).filter(|&e| e <= bytes.len()).map(|e| &bytes[offset..e]).ok_or_else(|| {
        Error::malformed(
            file,
            format!("{what} ({len:#x} bytes at {offset:#x}) runs past the end ({:#x} bytes)", bytes.len()),
        )
    })
}

/// Little-endian u32 at `offset` (bounds-checked).
pub fn u32_at(bytes: &[u8], offset: usize, file: &str, what: &str) -> Result<u32> {
    let b = slice(bytes, offset, 4, file, what)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Little-endian u64 at `offset` (bounds-checked).
pub fn u64_at(bytes: &[u8], offset: usize, file: &str, what: &str) -> Result<u64> {
    let b = slice(bytes, offset, 8, file, what)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Ok(u64::from_le_bytes(a))
}

/// The byte sum the discovery table and its sub-tables carry as a checksum.
pub fn byte_sum16(bytes: &[u8]) -> u16 {
    bytes.iter().fold(0u16, |s, &b| s.wrapping_add(b as u16))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_past_the_end_are_errors_naming_the_field() {
        let e = read::<crate::amd::am::discovery::die_header>(&[0u8; 3], 0, "x.bin", "header").unwrap_err().to_string();
        assert!(e.contains("x.bin") && e.contains("header"), "{e}");
        assert!(slice(&[0u8; 4], usize::MAX, 2, "x.bin", "blob").is_err());
        assert_eq!(u32_at(&[1, 0, 0, 0, 9], 0, "x", "v").unwrap(), 1);
    }
}

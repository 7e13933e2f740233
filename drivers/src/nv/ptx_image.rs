//! The emulated GPU's code image: how PTX reaches it. It lives here, below both the runtime that
//! writes it and the emulator that reads it, as a format spoken across the OS boundary.
//!
//! The emulated GPU executes PTX. Where a runtime would upload a cubin and point a QMD's program
//! address at the kernel's code, a runtime targeting `emu-nv` uploads this image and points the
//! program address at its start:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `BGPTX\0\0\x01` |
//! | 8 | 4 | entry-name length N (u32, little endian) |
//! | 12 | 4 | PTX text length M |
//! | 16 | 16 | reserved (0) |
//! | 32 | N | the `.entry` name (UTF-8) |
//! | 32+N | M | the PTX module text (UTF-8) |
//!
//! At launch the channel processor reads the header at the program address, parses the PTX
//! (cached by content) and runs the named entry. Its parameters are read from constant bank 0
//! at the generation's parameter offset.

pub const MAGIC: [u8; 8] = *b"BGPTX\0\0\x01";
pub const HEADER: usize = 32;

/// The image for `entry` of module `ptx`.
pub fn image(entry: &str, ptx: &str) -> Vec<u8> {
    let mut v = Vec::with_capacity(HEADER + entry.len() + ptx.len());
    v.extend_from_slice(&MAGIC);
    v.extend_from_slice(&(entry.len() as u32).to_le_bytes());
    v.extend_from_slice(&(ptx.len() as u32).to_le_bytes());
    v.extend_from_slice(&[0; 16]);
    v.extend_from_slice(entry.as_bytes());
    v.extend_from_slice(ptx.as_bytes());
    v
}

/// `(entry length, text length)` from a header, or why it is not one.
pub fn header(h: &[u8]) -> Result<(usize, usize), String> {
    if h.len() < HEADER || h[..8] != MAGIC {
        return Err("the program address holds no emulated PTX image (bad magic)".into());
    }
    let n = u32::from_le_bytes(h[8..12].try_into().expect("4")) as usize;
    let m = u32::from_le_bytes(h[12..16].try_into().expect("4")) as usize;
    if n == 0 || n > 4096 || m > 64 << 20 {
        return Err(format!("implausible PTX image header (entry {n} bytes, text {m} bytes)"));
    }
    Ok((n, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_rejects_garbage() {
        let img = image("k", ".version 7.8");
        assert_eq!(header(&img[..HEADER]).unwrap(), (1, 12));
        assert_eq!(&img[HEADER..HEADER + 1], b"k");
        assert!(header(&[0u8; HEADER]).is_err());
        assert!(header(&img[..8]).is_err());
    }
}

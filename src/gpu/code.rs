//! Which vendor a code object is for, by its first bytes, before any device is opened: what
//! picks the default device for `run` and refuses a file that is no code object at all.

use std::fmt;

/// A GPU vendor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Vendor {
    Amd,
    Nvidia,
}

impl fmt::Display for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Vendor::Amd => "AMD",
            Vendor::Nvidia => "NVIDIA",
        })
    }
}

const FORMATS: &str = "an AMD HSACO or NVIDIA cubin (ELF), or PTX text";

/// The vendor of the code object `bytes`, by its first bytes (ELF, and then its machine) or, for
/// text, by a PTX module directive at the start of a line; anything else says what was expected.
pub fn identify(bytes: &[u8]) -> Result<Vendor, String> {
    if bytes.starts_with(b"\x7fELF") {
        let cuda = bytes.get(18..20) == Some(&baregpu_runtime::program::cubin::EM_CUDA.to_le_bytes()[..]);
        return Ok(if cuda { Vendor::Nvidia } else { Vendor::Amd });
    }
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(format!("the file is empty: expected {FORMATS}"));
    }
    let ptx = std::str::from_utf8(bytes).is_ok_and(|t| {
        t.lines()
            .map(str::trim_start)
            .any(|l| [".version", ".target", ".entry", ".visible"].iter().any(|d| l.starts_with(d)))
    });
    if ptx {
        return Ok(Vendor::Nvidia);
    }
    let head: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02x}")).collect();
    Err(format!("not a code object (it starts with {}): expected {FORMATS}", head.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifies_formats() {
        assert_eq!(identify(b"\x7fELF\x02\x01\x01\x40\0\0\0\0\0\0\0\0\x03\0\xe0\0"), Ok(Vendor::Amd));
        assert_eq!(identify(b"\x7fELF\x02\x01\x01\x33\0\0\0\0\0\0\0\0\x02\0\xbe\0"), Ok(Vendor::Nvidia));
        assert_eq!(identify(b"//\n.version 7.8\n.target sm_90\n"), Ok(Vendor::Nvidia));
        assert!(identify(b"").unwrap_err().contains("empty"));
        assert!(identify(b" \n").unwrap_err().contains("empty"));
        let e = identify(b"hello world").unwrap_err();
        assert!(e.contains("68 65 6c 6c") && e.contains("HSACO"), "{e}");
    }
}

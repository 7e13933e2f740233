//! Firmware files we know by SHA-256: the release each came from, so that a boot can say which
//! firmware it ran (the closing note asks for it) and a pinned source can refuse a file
//! that differs. The table holds the files this project's tests run on; a file not listed is
//! not judged.

use crate::{Error, Result};
use sha2::{Digest, Sha256};

/// Debian bookworm's `firmware-amd-graphics` (non-free-firmware).
pub const DEBIAN_20230210: &str = "Debian firmware-amd-graphics 20230210-5";

/// A file we know: its name, SHA-256 (hex) and release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownBlob {
    pub name: &'static str,
    pub sha256: &'static str,
    pub release: &'static str,
}

/// The known files (computed from the installed package).
pub const KNOWN: &[KnownBlob] = &[
    KnownBlob {
        name: "psp_13_0_0_sos.bin",
        sha256: "0e585dd67c1c1a36076263b9d4f64033684af47005a90b7f34eb355fcfdcdfcf",
        release: DEBIAN_20230210,
    },
    KnownBlob {
        name: "smu_13_0_0.bin",
        sha256: "892728fc9bbadde27637dc578730b0069f9d15ea00b74dfcbf84defc0caef5db",
        release: DEBIAN_20230210,
    },
    KnownBlob {
        name: "sdma_6_0_0.bin",
        sha256: "6c0ee334cb4b71debe65eadd0da2537fab378fc552b736b53afe872703b5d414",
        release: DEBIAN_20230210,
    },
    KnownBlob {
        name: "gc_11_0_0_pfp.bin",
        sha256: "ef275f109937ee696e893729afbc396f441697c98d99fa6b97e8930faf48f82b",
        release: DEBIAN_20230210,
    },
    KnownBlob {
        name: "gc_11_0_0_me.bin",
        sha256: "df95b30c03f1725332655036c2800e5471b76467c50093ab52d5bface1dcf1ec",
        release: DEBIAN_20230210,
    },
    KnownBlob {
        name: "gc_11_0_0_mec.bin",
        sha256: "74daa9af1046e4b4d7f902ecfd2397d2eb94c6f20be38969d62eefe0340665a7",
        release: DEBIAN_20230210,
    },
    KnownBlob {
        name: "gc_11_0_0_imu.bin",
        sha256: "2a5fd2c6f59b058b855998586640ac806b4c554bab9fb1b1978b1f8e60ed64e2",
        release: DEBIAN_20230210,
    },
    KnownBlob {
        name: "gc_11_0_0_rlc.bin",
        sha256: "cd0e4f5b5aa9458231b33c78adcb5bfb42014c14583e12639581c62b9074d06f",
        release: DEBIAN_20230210,
    },
];

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The known file with this name and content, if any.
pub fn identify(name: &str, bytes: &[u8]) -> Option<&'static KnownBlob> {
    let entries: Vec<&KnownBlob> = KNOWN.iter().filter(|k| k.name == name).collect();
    if entries.is_empty() {
        return None;
    }
    let hash = sha256_hex(bytes);
    entries.into_iter().find(|k| k.sha256 == hash)
}

/// For a pinned source: a file whose name we know must be one of the known contents.
pub fn verify(name: &str, bytes: &[u8]) -> Result<()> {
    let listed: Vec<&KnownBlob> = KNOWN.iter().filter(|k| k.name == name).collect();
    if listed.is_empty() {
        return Ok(());
    }
    let hash = sha256_hex(bytes);
    if listed.iter().any(|k| k.sha256 == hash) {
        return Ok(());
    }
    Err(Error::malformed(
        name,
        format!("sha256 {hash} is not the known file ({}: {})", listed[0].release, listed[0].sha256),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_of_a_known_vector() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn a_known_name_with_other_content_fails_verification_only() {
        assert_eq!(identify("gc_11_0_0_mec.bin", b"x"), None);
        let e = verify("gc_11_0_0_mec.bin", b"x").unwrap_err().to_string();
        assert!(e.contains("gc_11_0_0_mec.bin") && e.contains(DEBIAN_20230210), "{e}");
        assert!(verify("gc_12_0_0_mec.bin", b"x").is_ok());
    }
}

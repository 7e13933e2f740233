//! Where firmware files come from: [`FirmwareSource`] loads a blob by its file name
//! (`gc_11_0_0_mec.bin`); [`DirSource`] reads a directory, by default `/lib/firmware/amdgpu`
//! (Debian's `firmware-amd-graphics`, in the `non-free-firmware` component).

use crate::{Error, Result};
use std::path::PathBuf;

/// The directory distributions install amdgpu firmware into.
pub const DEFAULT_DIR: &str = "/lib/firmware/amdgpu";

/// A source of firmware files by name.
pub trait FirmwareSource: Send + Sync {
    /// The file's bytes; a missing file is an error that says where it was looked for.
    fn load(&self, name: &str) -> Result<Vec<u8>>;

    /// Where files come from, for messages (`/lib/firmware/amdgpu`, `stand-in blobs`).
    fn describe(&self) -> String;
}

/// Firmware files in a directory. Compressed copies (`.bin.zst`, `.bin.xz`, as newer
/// distributions ship) are recognised but not decompressed: no decompressor is a dependency of
/// this project, so such a file is an error that names it and says how to unpack it.
#[derive(Debug, Clone)]
pub struct DirSource {
    pub dir: PathBuf,
    /// Refuse a file whose name [`super::known`] lists but whose SHA-256 differs.
    pub pinned: bool,
}

impl DirSource {
    pub fn new(dir: impl Into<PathBuf>) -> DirSource {
        DirSource { dir: dir.into(), pinned: false }
    }

    /// The same directory, refusing known names with unknown content.
    pub fn pinned(self) -> DirSource {
        DirSource { pinned: true, ..self }
    }

    /// `/lib/firmware/amdgpu`.
    pub fn system() -> DirSource {
        DirSource::new(DEFAULT_DIR)
    }
}

impl FirmwareSource for DirSource {
    fn load(&self, name: &str) -> Result<Vec<u8>> {
        if name.contains('/') || name.starts_with('.') {
            return Err(Error::malformed(name, "firmware names are plain file names"));
        }
        let path = self.dir.join(name);
        match std::fs::read(&path) {
            Ok(bytes) => {
                if self.pinned {
                    super::known::verify(name, &bytes)?;
                }
                Ok(bytes)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                for ext in ["zst", "xz"] {
                    let packed = self.dir.join(format!("{name}.{ext}"));
                    if packed.exists() {
                        let tool = if ext == "zst" { "zstd -d" } else { "xz -dk" };
                        return Err(Error::Unsupported(format!(
                            "{}: only the compressed {} exists and baregpu reads uncompressed firmware; \
                             unpack it ({tool} {}) or point the firmware directory elsewhere",
                            path.display(),
                            packed.display(),
                            packed.display()
                        )));
                    }
                }
                Err(Error::io(
                    path,
                    std::io::Error::new(
                        e.kind(),
                        "firmware file not found (Debian: apt install firmware-amd-graphics, from non-free-firmware)",
                    ),
                ))
            }
            Err(e) => Err(Error::io(path, e)),
        }
    }

    fn describe(&self) -> String {
        self.dir.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_names_the_path_and_the_package() {
        let dir = tempfile::tempdir().unwrap();
        let e = DirSource::new(dir.path()).load("gc_11_0_0_mec.bin").unwrap_err().to_string();
        assert!(e.contains("gc_11_0_0_mec.bin") && e.contains("firmware-amd-graphics"), "{e}");
    }

    #[test]
    fn a_compressed_only_file_is_named_in_the_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("gc_11_0_0_mec.bin.zst"), b"x").unwrap();
        let e = DirSource::new(dir.path()).load("gc_11_0_0_mec.bin").unwrap_err().to_string();
        assert!(e.contains("gc_11_0_0_mec.bin.zst") && e.contains("zstd -d"), "{e}");
    }

    #[test]
    fn names_with_paths_are_refused() {
        assert!(DirSource::system().load("../../etc/passwd").is_err());
    }
}

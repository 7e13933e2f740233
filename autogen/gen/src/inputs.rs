//! The generator's pinned inputs: files from Debian packages at fixed versions, each checked by
//! SHA-256 before use, so a regenerated crate is a function of exactly these bytes.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a pinned input comes from.
pub struct Input {
    /// Debian package that ships it.
    pub package: &'static str,
    /// The exact package version.
    pub version: &'static str,
    /// Path on the installed system, or inside the kernel source tree for `linux-source-*`.
    pub path: &'static str,
    /// SHA-256 of the file, lowercase hex.
    pub sha256: &'static str,
}

/// The kernel source package: its tarball is unpacked once into the cache below.
pub const LINUX_SOURCE: &str = "linux-source-6.12";
pub const LINUX_VERSION: &str = "6.12.117-1~deb12u1";
const LINUX_TARBALL: &str = "/usr/src/linux-source-6.12.tar.xz";
/// Parts of the kernel tree the generators read.
const LINUX_MEMBERS: &[&str] = &[
    "linux-source-6.12/include/uapi/linux/kfd_ioctl.h",
    "linux-source-6.12/include/uapi/drm/*.h",
    "linux-source-6.12/drivers/gpu/drm/amd/include/*",
    "linux-source-6.12/drivers/gpu/drm/amd/amdgpu/*.h",
    "linux-source-6.12/drivers/gpu/drm/amd/amdkfd/*.h",
];

pub struct Inputs {
    cache: PathBuf,
}

impl Inputs {
    pub fn new() -> Self {
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target"));
        Inputs { cache: target.join("autogen-inputs") }
    }

    /// The bytes of a pinned input, after checking its hash (and unpacking the kernel source
    /// the first time a kernel file is asked for).
    pub fn read(&self, input: &Input) -> Result<String, String> {
        let path = self.locate(input)?;
        let bytes = std::fs::read(&path)
            .map_err(|e| format!("{}: {e} (is {} {} installed?)", path.display(), input.package, input.version))?;
        let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
        if digest != input.sha256 {
            return Err(format!(
                "{}: SHA-256 {digest} is not the pinned {} ({} {} expected)",
                path.display(),
                input.sha256,
                input.package,
                input.version
            ));
        }
        String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8", path.display()))
    }

    /// Where an input lives on disk (for tools like bindgen that want a path).
    pub fn locate(&self, input: &Input) -> Result<PathBuf, String> {
        if input.package != LINUX_SOURCE {
            return Ok(PathBuf::from(input.path));
        }
        if input.version != LINUX_VERSION {
            return Err(format!(
                "{}: pinned to {} but the generator unpacks {LINUX_VERSION}",
                input.path, input.version
            ));
        }
        let root = self.cache.join(format!("linux-{LINUX_VERSION}"));
        let stamp = root.join(".unpacked");
        if !stamp.exists() {
            std::fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
            if !Path::new(LINUX_TARBALL).exists() {
                return Err(format!("{LINUX_TARBALL} missing: apt-get install {LINUX_SOURCE}={LINUX_VERSION}"));
            }
            let status = Command::new("tar")
                .arg("-xJf")
                .arg(LINUX_TARBALL)
                .arg("-C")
                .arg(&root)
                .arg("--wildcards")
                .args(LINUX_MEMBERS)
                .status()
                .map_err(|e| format!("tar: {e}"))?;
            if !status.success() {
                return Err(format!("tar failed unpacking {LINUX_TARBALL}"));
            }
            std::fs::write(&stamp, LINUX_VERSION).map_err(|e| format!("{}: {e}", stamp.display()))?;
        }
        Ok(root.join("linux-source-6.12").join(input.path))
    }
}

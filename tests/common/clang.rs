//! OpenCL kernels compiled at test time by clang-22 and linked by ld.lld-22 into code objects,
//! for regression tests whose kernel is a few lines: no binary fixture to keep in step. Without
//! LLVM 22 the caller skips, saying why.
#![allow(dead_code)] // each includer uses its own subset of the helpers

use std::path::PathBuf;
use std::process::Command;

/// A scratch directory of this test process, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(tag: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!(
            "baregpu-{tag}-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&d).expect("scratch directory");
        Scratch(d)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Compile `src` (OpenCL C 2.0, with the project's -O2 flags) for `arch` into `dir/name.o`
/// and link it into `dir/name.hsaco`; `None` (with the reason printed) when LLVM 22 is absent.
pub fn build(dir: &std::path::Path, name: &str, src: &str, arch: &str) -> Option<PathBuf> {
    let cl = dir.join(format!("{name}.cl"));
    let obj = dir.join(format!("{name}.o"));
    let out = dir.join(format!("{name}.hsaco"));
    std::fs::write(&cl, src).expect("write the kernel source");
    // The work-item builtins (tests/kernels/amdgcn.h), from the root package or a member crate.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let header = [root.join("tests/kernels/amdgcn.h"), root.join("../tests/kernels/amdgcn.h")]
        .into_iter()
        .find(|p| p.exists())
        .expect("tests/kernels/amdgcn.h");
    let clang = Command::new("clang-22")
        .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2", "-include"])
        .arg(header)
        .arg(format!("-mcpu={arch}"))
        .arg("-c")
        .arg(&cl)
        .arg("-o")
        .arg(&obj)
        .output();
    match clang {
        Err(e) => {
            eprintln!("skipped: clang-22 is not available ({e})");
            return None;
        }
        Ok(o) => assert!(o.status.success(), "clang-22 failed: {}", String::from_utf8_lossy(&o.stderr)),
    }
    let ld = Command::new("ld.lld-22").arg("-shared").arg(&obj).arg("-o").arg(&out).output();
    match ld {
        Err(e) => {
            eprintln!("skipped: ld.lld-22 is not available ({e})");
            None
        }
        Ok(o) => {
            assert!(o.status.success(), "ld.lld-22 failed: {}", String::from_utf8_lossy(&o.stderr));
            Some(out)
        }
    }
}

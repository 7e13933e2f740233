//! The committed generated files are exactly what the generator makes from the pinned inputs.
//! Skipped (with the reason printed) where the pinned inputs or tools are not installed; CI
//! installs them.

use std::path::Path;
use std::process::Command;

/// Files whose absence means the pinned inputs (or the tools that read them) are not installed.
const NEEDED: &[(&str, &str)] = &[
    ("/usr/src/linux-source-6.12.tar.xz", "linux-source-6.12"),
    ("/usr/include/libdrm/amdgpu_drm.h", "libdrm-dev"),
    ("/usr/include/hsa/hsa.h", "libhsa-runtime-dev"),
    ("/usr/lib/llvm-22/include/llvm/Support/AMDHSAKernelDescriptor.h", "llvm-22-dev"),
    ("/usr/lib/llvm-22/lib/libclang-22.so.1", "libclang1-22"),
    ("/usr/bin/clang-22", "clang-22"),
];

#[test]
fn generated_files_are_current() {
    for (path, package) in NEEDED {
        if !Path::new(path).exists() {
            println!("skipped: {path} is missing (install {package})");
            return;
        }
    }
    let out =
        Command::new(env!("CARGO_BIN_EXE_baregpu-autogen-gen")).arg("--check").output().expect("run the generator");
    assert!(
        out.status.success(),
        "baregpu-autogen-gen --check failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

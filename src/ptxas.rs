//! ptxas, when a real NVIDIA GPU needs SASS from PTX: `$PTXAS`, else `ptxas` on PATH, else the
//! CUDA toolkit's (/usr/local/cuda/bin). The `nvidia-cuda-nvcc` PyPI wheel ships one too. Only
//! the compiler runs; no CUDA library is loaded into this process.

use crate::{Error, Result};
use std::path::PathBuf;
use std::process::Command;

pub fn find() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS") {
        return Some(PathBuf::from(p));
    }
    let on_path = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|d| d.join("ptxas")).find(|p| p.is_file()));
    on_path.or_else(|| Some(PathBuf::from("/usr/local/cuda/bin/ptxas")).filter(|p| p.is_file()))
}

/// Compile PTX text to a cubin for `arch` (`sm_90`). `what` names the source in errors.
pub fn compile(ptx: &str, arch: &str, what: &str) -> Result<Vec<u8>> {
    let ptxas = find().ok_or_else(|| {
        Error::Usage(format!(
            "{what}: a real NVIDIA GPU needs a cubin, and no ptxas was found to compile the PTX (set PTXAS, \
             install the CUDA toolkit, or `pip install nvidia-cuda-nvcc`)"
        ))
    })?;
    let dir = std::env::temp_dir();
    // One name per call: threads of one process compile the same PTX at once (the NVIDIA tests
    // on an H200 did), and one's clean-up must not take the other's file.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stem = format!("baregpu-{}-{call}-{arch}", std::process::id());
    let (src, out) = (dir.join(format!("{stem}.ptx")), dir.join(format!("{stem}.cubin")));
    std::fs::write(&src, ptx).map_err(|source| Error::Io { path: src.clone(), source })?;
    let result = Command::new(&ptxas).arg(format!("-arch={arch}")).arg("-o").arg(&out).arg(&src).output();
    let _ = std::fs::remove_file(&src);
    let output = result.map_err(|source| Error::Io { path: ptxas.clone(), source })?;
    if !output.status.success() {
        let msg = String::from_utf8_lossy(&output.stderr);
        return Err(Error::Usage(format!("{what}: ptxas failed: {}", msg.lines().next().unwrap_or("no message"))));
    }
    let cubin = std::fs::read(&out).map_err(|source| Error::Io { path: out.clone(), source });
    let _ = std::fs::remove_file(&out);
    cubin
}

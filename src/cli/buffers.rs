//! Moving `baregpu run`'s buffer arguments between files and device memory in bounded chunks:
//! an `out:BYTES` buffer is zeroed on the device and every buffer is streamed back to its file,
//! so the host never holds a whole buffer it did not read from a file (a size the device takes
//! but the host has not got would otherwise abort the process).

use baregpu::gpu::{Buffer, Gpu};
use baregpu::{Error, Result};
use std::io::Write;
use std::path::Path;

/// Bytes moved per device write or read.
const CHUNK: u64 = 1 << 20;

/// A chunk-sized host buffer, or an error instead of an abort.
fn chunk_buffer(len: u64) -> Result<Vec<u8>> {
    let n = len.min(CHUNK) as usize;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| Error::Usage(format!("cannot allocate {n} bytes of host memory")))?;
    v.resize(n, 0);
    Ok(v)
}

/// Zeroes the first `len` bytes of `b`.
pub fn zero(dev: &dyn Gpu, b: &Buffer, len: u64) -> Result<()> {
    let zeros = chunk_buffer(len)?;
    let mut at = 0;
    while at < len {
        let n = (len - at).min(CHUNK) as usize;
        dev.write(b, at, &zeros[..n])?;
        at += n as u64;
    }
    Ok(())
}

/// `--out` must name a directory or nothing yet: checked before a launch, not after it.
pub fn check_out_dir(dir: &Path) -> Result<()> {
    match dir.exists() && !dir.is_dir() {
        true => Err(Error::Usage(format!("--out {}: a file, not a directory", dir.display()))),
        false => Ok(()),
    }
}

/// Writes the `(index, buffer, length)` buffers to DIR/arg<index>.bin. `--out` must name a
/// directory (made when missing).
pub fn save(dev: &dyn Gpu, dir: &Path, buffers: &[(usize, Buffer, u64)]) -> Result<()> {
    check_out_dir(dir)?;
    std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })?;
    let mut chunk = chunk_buffer(buffers.iter().map(|b| b.2).max().unwrap_or(0))?;
    for (i, b, len) in buffers {
        let path = dir.join(format!("arg{i}.bin"));
        let io = |source| Error::Io { path: path.clone(), source };
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).map_err(io)?);
        let mut at = 0;
        while at < *len {
            let n = (len - at).min(CHUNK) as usize;
            dev.read(b, at, &mut chunk[..n])?;
            f.write_all(&chunk[..n]).map_err(io)?;
            at += n as u64;
        }
        f.flush().map_err(io)?;
    }
    Ok(())
}

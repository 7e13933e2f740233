//! Reading the files a command is given (code objects, sources, dumps, buffer contents) without
//! unbounded work: a regular file is read whole into memory reserved fallibly (a size the host
//! has not got is an error, not an abort); anything else (a pipe, `/dev/zero`) is read up to
//! [`MAX_STREAM`] bytes.

use baregpu::{Error, Result};
use std::io::Read;
use std::path::Path;

/// The most bytes read from a file that is not a regular file.
pub const MAX_STREAM: u64 = 256 << 20;

pub fn read(p: &Path) -> Result<Vec<u8>> {
    let io = |source| Error::Io { path: p.to_path_buf(), source };
    let file = std::fs::File::open(p).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    let limit = if meta.is_file() { meta.len() } else { MAX_STREAM };
    let mut data = Vec::new();
    usize::try_from(limit)
        .ok()
        .and_then(|n| data.try_reserve_exact(n).ok())
        .ok_or_else(|| Error::Usage(format!("{}: cannot allocate {limit} bytes of host memory", p.display())))?;
    // One byte past the limit tells a stream that is too long (or a file that grew).
    file.take(limit + 1).read_to_end(&mut data).map_err(io)?;
    if !meta.is_file() && data.len() as u64 > limit {
        return Err(Error::Usage(format!(
            "{}: more than {MAX_STREAM} bytes from a file that is not a regular file",
            p.display()
        )));
    }
    Ok(data)
}

//! Standard output for every command, fallibly: `println!` panics when stdout is a closed pipe
//! (`baregpu devices | head -c 10`) or a full disk, and the contract is one error line, never a
//! panic. Every command prints through [`line`] or [`bytes`]; their errors name `stdout` and carry
//! the OS error, and [`is_closed_pipe`] lets `main` end quietly when the reader went away.

use baregpu::{Error, Result};
use std::io::Write;
use std::path::PathBuf;

fn stdout_error(source: std::io::Error) -> Error {
    Error::Io { path: PathBuf::from("stdout"), source }
}

/// Writes `text` and a newline to stdout, and flushes, so that a failure shows here and not in
/// the exit-time flush, where it cannot be reported.
pub fn line(text: impl std::fmt::Display) -> Result<()> {
    let mut o = std::io::stdout().lock();
    writeln!(o, "{text}").and_then(|_| o.flush()).map_err(stdout_error)
}

/// Writes raw bytes to stdout, and flushes.
pub fn bytes(data: &[u8]) -> Result<()> {
    let mut o = std::io::stdout().lock();
    o.write_all(data).and_then(|_| o.flush()).map_err(stdout_error)
}

/// Writes a JSON value as one line.
pub fn json(v: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string(v).map_err(|e| Error::Usage(format!("serialising the output: {e}")))?;
    line(text)
}

/// Whether `e` is stdout's reader having gone away (EPIPE). `main` then ends quietly with status
/// 0: a reader that stops early (`| head`) took what it wanted; that is not a failure of the
/// command. A full disk or any other write error stays an error.
pub fn is_closed_pipe(e: &Error) -> bool {
    matches!(e, Error::Io { path, source } if path.as_os_str() == "stdout"
        && source.kind() == std::io::ErrorKind::BrokenPipe)
}

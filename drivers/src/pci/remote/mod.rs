//! The remote transport: a PCI function served over TCP by `baregpu serve` and driven by a
//! client through [`PciDevice`](crate::pci::PciDevice), so that the whole AM driver and runtime
//! run on the client, unchanged, over a device on another machine.
//!
//! The link carries raw PCI primitives only ([`protocol`]): config space, register reads and
//! writes (writes posted and batched, flushed by the next read), bulk BAR and DMA-memory copies,
//! DMA allocation, interrupts and reset. With a pre-shared [`Key`] every message is encrypted and
//! authenticated ([`channel`]); without one the link is plain and both ends keep it to loopback.
//! Every wait on the link is bounded by a socket timeout, so a dead peer is an error naming the
//! link, never a hang; TCP keepalive on both ends (30 s idle, then 3 probes 10 s apart, see
//! [`channel`]) ends a session across a silent network partition, so the server frees the device
//! within about a minute. Closing a [`RemotePci`] waits (bounded) for the server to confirm that
//! the device is free, so the same client can open it again at once.

pub mod channel;
mod client;
pub mod protocol;
mod server;

pub use client::{list, Export, RemoteDma, RemotePci};
pub use server::{Opener, Server};

use crate::{Error, Result};
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

/// The port `baregpu serve` listens on by default.
pub const DEFAULT_PORT: u16 = 6667;

/// The environment variable naming the client's key file.
pub const KEY_ENV: &str = "BAREGPU_REMOTE_KEY_FILE";

/// The environment variable bounding each wait for the server, in seconds.
pub const TIMEOUT_ENV: &str = "BAREGPU_REMOTE_TIMEOUT_S";

/// How long the client waits for any answer by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// A pre-shared key: 32 bytes, kept in a file as 64 hex digits (or the 32 raw bytes).
#[derive(Clone, PartialEq, Eq)]
pub struct Key(pub(crate) [u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

impl Key {
    pub fn from_bytes(bytes: [u8; 32]) -> Key {
        Key(bytes)
    }

    /// The key in `path`: 64 hex digits (surrounding whitespace ignored) or exactly 32 bytes.
    pub fn from_file(path: &Path) -> Result<Key> {
        let raw = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let text = std::str::from_utf8(&raw).map(str::trim).unwrap_or("");
        if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            let mut key = [0; 32];
            for (i, k) in key.iter_mut().enumerate() {
                *k = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).unwrap_or(0);
            }
            return Ok(Key(key));
        }
        match <[u8; 32]>::try_from(raw.as_slice()) {
            Ok(key) => Ok(Key(key)),
            Err(_) => Err(Error::malformed(path, "a key file holds 64 hex digits (32 bytes)")),
        }
    }

    /// The client's key: the file [`KEY_ENV`] names, if set.
    pub fn from_env() -> Result<Option<Key>> {
        match std::env::var_os(KEY_ENV) {
            Some(p) if !p.is_empty() => {
                Key::from_file(Path::new(&p)).map(Some).map_err(|e| Error::Unsupported(format!("{KEY_ENV}: {e}")))
            }
            _ => Ok(None),
        }
    }
}

/// The client's wait bound: [`TIMEOUT_ENV`] seconds, else [`DEFAULT_TIMEOUT`].
pub fn timeout_from_env() -> Result<Duration> {
    match std::env::var(TIMEOUT_ENV) {
        Ok(s) => match s.trim().parse::<f64>() {
            Ok(t) if t > 0.0 && t < 1e6 => Ok(Duration::from_secs_f64(t)),
            _ => Err(Error::Unsupported(format!("{TIMEOUT_ENV}={s}: not a number of seconds"))),
        },
        Err(_) => Ok(DEFAULT_TIMEOUT),
    }
}

/// A plain (keyless) link is kept to loopback: refuse it anywhere else. `who` names the link
/// or the listening address, `hint` where the key goes.
pub fn check_keyless(addr: &SocketAddr, key: Option<&Key>, who: &str, hint: &str) -> Result<()> {
    match key.is_some() || addr.ip().is_loopback() {
        true => Ok(()),
        false => Err(Error::Unsupported(format!("{who}: a link beyond loopback needs a pre-shared key ({hint})"))),
    }
}

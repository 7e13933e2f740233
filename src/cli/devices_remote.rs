//! `devices --remote HOST:PORT` (and `BAREGPU_REMOTE_SERVERS`): the devices `baregpu serve`s
//! export, as rows of the usual listing; a server that cannot be asked is one line, not the end of
//! the listing.

use baregpu::registry::DeviceEntry;
use baregpu::{Error, Result};
use baregpu_drivers::pci::remote::{list, timeout_from_env, Key};
use baregpu_runtime::spec::parse_host_port;

/// The environment variable naming servers to list: `HOST:PORT,HOST:PORT`.
pub const SERVERS_ENV: &str = "BAREGPU_REMOTE_SERVERS";

/// A server that could not be asked, and why.
#[derive(Debug, serde::Serialize)]
pub struct Unreachable {
    pub server: String,
    pub error: String,
}

/// The servers named on the command line, then in [`SERVERS_ENV`]; a malformed address is a
/// usage error (bad input, not a server to report).
pub fn servers(args: &[String]) -> Result<Vec<(String, u16)>> {
    let env = std::env::var(SERVERS_ENV).unwrap_or_default();
    let from_env = env.split(',').map(str::trim).filter(|s| !s.is_empty());
    let mut out: Vec<(String, u16)> = Vec::new();
    for (addr, source) in args.iter().map(|a| (a.as_str(), "--remote")).chain(from_env.map(|a| (a, SERVERS_ENV))) {
        let parsed = parse_host_port(addr).map_err(|e| Error::Usage(format!("devices: {source} {addr}: {e}")))?;
        if !out.contains(&parsed) {
            out.push(parsed);
        }
    }
    Ok(out)
}

/// Every device of every server, and the servers that could not be asked.
pub fn list_all(servers: &[(String, u16)]) -> (Vec<DeviceEntry>, Vec<Unreachable>) {
    let (mut devices, mut unreachable) = (Vec::new(), Vec::new());
    if servers.is_empty() {
        return (devices, unreachable);
    }
    let (key, timeout) = (Key::from_env(), timeout_from_env());
    for (host, port) in servers {
        let server = match host.contains(':') {
            true => format!("[{host}]:{port}"),
            false => format!("{host}:{port}"),
        };
        let listed = match (&key, &timeout) {
            (Ok(key), Ok(timeout)) => list(host, *port, key.as_ref(), *timeout).map_err(|e| e.to_string()),
            (Err(e), _) | (_, Err(e)) => Err(e.to_string()),
        };
        match listed {
            Ok(exports) => devices.extend(exports.into_iter().map(|x| DeviceEntry {
                spec: x.spec,
                vendor: "amd",
                kind: "remote",
                arch: x.arch,
                name: format!("served by {server}"),
                compute_units: None,
                memory_bytes: None,
                ready: x.holder.is_none(),
                note: x.holder.map_or(String::new(), |h| format!("in use by {h}")),
            })),
            Err(error) => unreachable.push(Unreachable { server, error }),
        }
    }
    (devices, unreachable)
}

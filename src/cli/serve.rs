//! `baregpu serve`: serve PCI functions over TCP to clients that name them
//! `remote:HOST:PORT/SPEC`; the AM driver and runtime run on the client.

use std::net::{SocketAddr, TcpListener, ToSocketAddrs};
use std::path::PathBuf;
use std::sync::Arc;

use baregpu::{DeviceSpec, Error, Result};
use baregpu_drivers::pci::remote::channel::NOISE_PARAMS;
use baregpu_drivers::pci::remote::{check_keyless, Key, Server, KEY_ENV};

use super::out;

pub const HELP: &str = "Without --key-file the link is plain and kept to loopback; with one (32 bytes as 64 hex \
digits, e.g. `od -An -tx1 -N32 /dev/urandom | tr -d ' \\n' > key`) every message is encrypted and authenticated \
(a Noise handshake with the key; the start line names the suite) and any address may be used. Clients give the same file in \
BAREGPU_REMOTE_KEY_FILE, and bound each wait for the server with BAREGPU_REMOTE_TIMEOUT_S (default 10). One client \
holds a device at a time; the device is released when its client goes.";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Address to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:6667")]
    listen: String,
    /// The pre-shared key (required beyond loopback).
    #[arg(long)]
    key_file: Option<PathBuf>,
    /// A PCI function to serve: am:BDF or am:emu:ARCH (repeat for more).
    #[arg(long = "device", required = true)]
    devices: Vec<DeviceSpec>,
}

pub fn run(a: Args) -> Result<()> {
    let key = a.key_file.as_deref().map(Key::from_file).transpose();
    let key = key.map_err(|e| Error::Usage(format!("serve: --key-file {e}")))?;
    let addrs: Vec<SocketAddr> = match a.listen.to_socket_addrs() {
        Ok(addrs) => addrs.collect(),
        Err(e) => return Err(Error::Usage(format!("serve: --listen {}: {e}", a.listen))),
    };
    for addr in &addrs {
        check_keyless(addr, key.as_ref(), &format!("listen {addr}"), "--key-file F")?;
    }
    for d in &a.devices {
        if !matches!(d, DeviceSpec::Am { .. }) {
            return Err(Error::Usage(format!("serve: {d} is not a PCI function (am:BDF or am:emu:ARCH)")));
        }
    }
    let names: Vec<String> = a.devices.iter().map(ToString::to_string).collect();
    let listener =
        TcpListener::bind(&addrs[..]).map_err(|e| Error::Usage(format!("serve: --listen {}: {e}", a.listen)))?;
    let at = listener.local_addr().map_err(|e| Error::Usage(format!("serve: {e}")))?;
    let mode = match key {
        Some(_) => format!("keyed, {NOISE_PARAMS}"),
        None => "plain, loopback only".to_string(),
    };
    out::line(format_args!(
        "serving {} on {at} ({mode}; clients: remote:{at}/SPEC, key file in {KEY_ENV})",
        names.join(", ")
    ))?;
    let opener = Box::new(|spec: &str| {
        let spec: DeviceSpec = spec.parse().map_err(|e| format!("{e}"))?;
        baregpu::pci_device::open(&spec).map_err(|e| e.to_string())
    });
    let report = Arc::new(|line: String| {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "baregpu serve: {line}");
    });
    let server = Server::new(names, key, opener).with_arch(Box::new(baregpu::pci_device::arch_of));
    Arc::new(server).serve(listener, report)
}

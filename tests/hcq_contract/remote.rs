//! The contract over a keyed remote link (issue 17): a `baregpu serve` server in a thread,
//! keyed, serving the emulated PCI GPU on 127.0.0.1, and the AM driver and runtime booted on it
//! through `RemotePci` (encrypted, authenticated frames for every register and memory access).
//! The key goes to the client directly, so no process-global environment is touched and tests
//! in other threads are unaffected.

use super::run_contract;
use baregpu::device;
use baregpu::drivers::pci::remote::{Key, RemotePci, Server};
use baregpu::drivers::pci::PciDevice;
use baregpu_emu::am::firmware_standin::StandinSource;
use baregpu_emu::am::layout::Layout;
use baregpu_emu::am::EmuPciGpu;
use baregpu_emu::rdna::Interpreter;
use baregpu_runtime::amd::{AmdDevice, AmdIface};
use std::cell::RefCell;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

const DEVICE: &str = "am:emu:gfx1100";
const WAIT: Duration = Duration::from_secs(10);

/// A keyed server of DEVICE on loopback, and what a client needs to reach it.
#[derive(Clone)]
pub struct Remote {
    port: u16,
    key: Key,
    /// The engine of every GPU the server opens: its retired workgroups are the progress probe.
    engine: Arc<Interpreter>,
}

thread_local! {
    /// The remote link a test thread runs the contract over (see [`run_contract`]).
    pub static REMOTE: RefCell<Option<Remote>> = const { RefCell::new(None) };
}

/// The remote link this thread set, if any.
pub fn current() -> Option<Remote> {
    REMOTE.with(|r| r.borrow().clone())
}

impl Remote {
    /// A server in a thread, serving a fresh emulated GPU per session, keyed with `key`.
    pub fn serve(key: Key) -> Remote {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let engine = Arc::new(Interpreter::new("gfx1100"));
        let e = engine.clone();
        let opener = Box::new(move |_: &str| {
            EmuPciGpu::new("gfx1100", e.clone()).map(|g| g as Arc<dyn PciDevice>).map_err(|e| e.to_string())
        });
        let server = Arc::new(Server::new(vec![DEVICE.to_string()], Some(key.clone()), opener));
        std::thread::spawn(move || server.serve(listener, Arc::new(|_| {})));
        Remote { port, key, engine }
    }

    pub fn label(&self) -> String {
        format!("remote:127.0.0.1:{}/{DEVICE}", self.port)
    }

    /// The driver interface over a new session (the previous session's close returned only once
    /// the server had released the device, so it is free now).
    pub fn iface(&self) -> Box<dyn AmdIface> {
        let pci = RemotePci::connect("127.0.0.1", self.port, DEVICE, Some(&self.key), WAIT)
            .unwrap_or_else(|e| panic!("{}: {e}", self.label()));
        let fw = StandinSource::for_layout(&Layout::for_arch("gfx1100").unwrap());
        device::am_iface_over(pci, &fw).unwrap_or_else(|e| panic!("{}: {e}", self.label()))
    }

    /// The runtime's device over a new session.
    pub fn open(&self) -> AmdDevice {
        let dev = AmdDevice::open_on(self.iface(), &self.label()).unwrap_or_else(|e| panic!("{}: {e}", self.label()));
        dev.with_progress(device::emu_progress(self.engine.clone()))
    }
}

#[test]
fn the_contract_holds_over_a_keyed_remote_loopback_link() {
    if std::env::var("BAREGPU_DEVICE").is_ok() {
        return;
    }
    REMOTE.with(|r| *r.borrow_mut() = Some(Remote::serve(Key::from_bytes([0x5a; 32]))));
    run_contract();
}

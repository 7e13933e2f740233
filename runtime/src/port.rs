//! How the host side of the runtime reaches memory the GPU also uses (signals, rings, read and
//! write pointers, kernargs, command buffers, code): ONE [`Port`] per device.
//!
//! - [`Port::Local`]: the memory is mapped in this process at its GPU address (the one-address
//!   rule of [`crate::amd::iface`]): atomic and volatile accesses through the address, as cheap
//!   as the raw accesses they replace (one predictable branch on the variant).
//! - [`Port::Link`]: it is not (a GPU behind a network or USB link, or in VRAM the CPU does not
//!   map): every access is a call to the driver ([`LinkMem`]), which reaches the memory over the
//!   link. Calls keep their order, so the submission order of DESIGN.md (ring words, write
//!   pointer, doorbell) holds. A failed access never panics or blocks: the link latches its
//!   first failure ([`Link::failure`]), reads return zero from then on, and the driver's sleep
//!   between the polls of every wait reports it, so every wait on the device ends with an
//!   error naming the link.

use crate::{Error, Result};
use baregpu_drivers::pci::Until;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// Memory reached by calls: what a driver over a link implements. Addresses are GPU virtual
/// addresses of memory the driver allocated; an access stays inside one allocation.
pub trait LinkMem: Send + Sync {
    /// What errors call the link: the PCI device's name (`remote:host:port/am:…`, `usb:…`).
    fn name(&self) -> String;
    fn read(&self, va: u64, buf: &mut [u8]) -> Result<()>;
    fn write(&self, va: u64, data: &[u8]) -> Result<()>;
    /// Wait up to `timeout` until the 64-bit word at `va` satisfies `until`; the last value
    /// read. By default polls [`LinkMem::read`]; a network link waits next to the device
    /// instead (one round trip).
    fn wait_u64(&self, va: u64, until: Until, timeout: Duration) -> Result<u64> {
        let read = || {
            let mut b = [0u8; 8];
            self.read(va, &mut b).map(|()| u64::from_le_bytes(b))
        };
        baregpu_drivers::pci::wait::poll(read, until, timeout)
    }
}

/// A link's memory and its first failure.
pub struct Link {
    mem: Arc<dyn LinkMem>,
    name: String,
    failure: OnceLock<String>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Link({}, failed: {:?})", self.name, self.failure.get())
    }
}

impl Link {
    pub fn new(mem: Arc<dyn LinkMem>) -> Arc<Link> {
        Arc::new(Link { name: mem.name(), mem, failure: OnceLock::new() })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The first failure, as a wait reports it: `the link to NAME failed: why`.
    pub fn failure(&self) -> Option<String> {
        self.failure.get().map(|why| format!("the link to {} failed: {why}", self.name))
    }

    /// Latch `why` (the first failure wins) and give the error that reports it.
    pub fn fail(&self, why: impl std::fmt::Display) -> Error {
        self.failure.get_or_init(|| why.to_string());
        self.error().expect("latched above")
    }

    /// The error that reports the latched failure (`NAME: the link failed: why`), if any.
    pub fn error(&self) -> Option<Error> {
        let why = self.failure.get()?;
        Some(Error::Device { device: self.name.clone(), msg: format!("the link failed: {why}") })
    }

    /// Once failed, a link is not touched again (a dead network peer would cost a timeout per
    /// access).
    pub fn read(&self, va: u64, buf: &mut [u8]) -> Result<()> {
        if let Some(e) = self.error() {
            return Err(e);
        }
        self.mem.read(va, buf).map_err(|e| self.fail(e))
    }

    pub fn write(&self, va: u64, data: &[u8]) -> Result<()> {
        if let Some(e) = self.error() {
            return Err(e);
        }
        self.mem.write(va, data).map_err(|e| self.fail(e))
    }

    /// See [`LinkMem::wait_u64`]; a failure is latched as a read's.
    pub fn wait_u64(&self, va: u64, until: Until, timeout: Duration) -> Result<u64> {
        if let Some(e) = self.error() {
            return Err(e);
        }
        self.mem.wait_u64(va, until, timeout).map_err(|e| self.fail(e))
    }
}

/// See the module doc.
#[derive(Debug, Clone, Default)]
pub enum Port {
    #[default]
    Local,
    Link(Arc<Link>),
}

/// The port of devices whose memory is all CPU-mapped.
pub static LOCAL: Port = Port::Local;

impl Port {
    /// The link's first failure, where the port is a link that failed.
    pub fn failure(&self) -> Option<String> {
        match self {
            Port::Local => None,
            Port::Link(l) => l.failure(),
        }
    }

    pub fn is_local(&self) -> bool {
        matches!(self, Port::Local)
    }

    /// A 64-bit word the GPU writes (acquire). Over a link: zero after a failure (latched; the
    /// next sleep of a wait reports it).
    ///
    /// # Safety
    /// Local: `addr` is 8-byte aligned and mapped at that address for as long as this runs.
    pub unsafe fn load_u64(&self, addr: u64) -> u64 {
        match self {
            // SAFETY: the caller's contract; atomic, as the GPU writes the word too.
            Port::Local => unsafe { AtomicU64::from_ptr(addr as *mut u64) }.load(Ordering::Acquire),
            Port::Link(l) => {
                let mut b = [0u8; 8];
                l.read(addr, &mut b).map_or(0, |()| u64::from_le_bytes(b))
            }
        }
    }

    /// Store a 64-bit word the GPU reads (release). A link failure is latched.
    ///
    /// # Safety
    /// As [`Port::load_u64`].
    pub unsafe fn store_u64(&self, addr: u64, value: u64) {
        match self {
            // SAFETY: the caller's contract.
            Port::Local => unsafe { AtomicU64::from_ptr(addr as *mut u64) }.store(value, Ordering::Release),
            Port::Link(l) => {
                let _ = l.write(addr, &value.to_le_bytes());
            }
        }
    }

    /// Store a 32-bit word the GPU also writes (release). A link failure is latched.
    ///
    /// # Safety
    /// Local: `addr` is 4-byte aligned and mapped for as long as this runs.
    pub unsafe fn store_u32(&self, addr: u64, value: u32) {
        match self {
            // SAFETY: the caller's contract.
            Port::Local => unsafe { AtomicU32::from_ptr(addr as *mut u32) }.store(value, Ordering::Release),
            Port::Link(l) => {
                let _ = l.write(addr, &value.to_le_bytes());
            }
        }
    }

    /// Words the GPU reads once they are published (ring contents, patched commands): volatile
    /// u32 stores locally, one bulk write over a link.
    ///
    /// # Safety
    /// Local: `addr` is 4-byte aligned and `4 * words.len()` bytes there are mapped and not
    /// read by the GPU while this runs.
    pub unsafe fn write_words(&self, addr: u64, words: &[u32]) -> Result<()> {
        match self {
            Port::Local => {
                let p = addr as *mut u32;
                for (i, &w) in words.iter().enumerate() {
                    // SAFETY: the caller's contract.
                    unsafe { std::ptr::write_volatile(p.add(i), w) };
                }
                Ok(())
            }
            Port::Link(l) => {
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                l.write(addr, &bytes)
            }
        }
    }

    /// Bytes into memory the GPU does not use meanwhile.
    ///
    /// # Safety
    /// Local: `data.len()` bytes at `addr` are mapped and not used by the GPU while this runs.
    pub unsafe fn write(&self, addr: u64, data: &[u8]) -> Result<()> {
        match self {
            Port::Local => {
                // SAFETY: the caller's contract.
                unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), addr as *mut u8, data.len()) };
                Ok(())
            }
            Port::Link(l) => l.write(addr, data),
        }
    }

    /// Bytes out of memory the GPU finished writing.
    ///
    /// # Safety
    /// Local: `buf.len()` bytes at `addr` are mapped and not written by the GPU while this runs.
    pub unsafe fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        match self {
            Port::Local => {
                std::sync::atomic::fence(Ordering::Acquire);
                // SAFETY: the caller's contract.
                unsafe { std::ptr::copy_nonoverlapping(addr as *const u8, buf.as_mut_ptr(), buf.len()) };
                Ok(())
            }
            Port::Link(l) => l.read(addr, buf),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::sync::atomic::AtomicUsize;
    use std::sync::Mutex;

    /// Memory at made-up addresses, that fails after `budget` calls.
    struct Fake {
        bytes: Mutex<BTreeMap<u64, u8>>,
        budget: AtomicUsize,
    }

    impl LinkMem for Fake {
        fn name(&self) -> String {
            "test-link".into()
        }
        fn read(&self, va: u64, buf: &mut [u8]) -> Result<()> {
            self.spend()?;
            let m = self.bytes.lock().unwrap();
            for (i, b) in buf.iter_mut().enumerate() {
                *b = m.get(&(va + i as u64)).copied().unwrap_or(0);
            }
            Ok(())
        }
        fn write(&self, va: u64, data: &[u8]) -> Result<()> {
            self.spend()?;
            let mut m = self.bytes.lock().unwrap();
            for (i, &b) in data.iter().enumerate() {
                m.insert(va + i as u64, b);
            }
            Ok(())
        }
    }

    impl Fake {
        fn spend(&self) -> Result<()> {
            match self.budget.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1)) {
                Ok(_) => Ok(()),
                Err(_) => Err(Error::Device { device: "test-link".into(), msg: "connection reset".into() }),
            }
        }
    }

    #[test]
    fn a_link_port_reads_what_it_wrote_and_latches_its_first_failure() {
        let fake = Arc::new(Fake { bytes: Mutex::default(), budget: AtomicUsize::new(4) });
        let port = Port::Link(Link::new(fake.clone()));
        // SAFETY: a link port never dereferences its addresses.
        unsafe {
            port.store_u64(0x1_0000_0000, 0x1122_3344_5566_7788);
            port.write_words(0x1_0000_0010, &[1, 2]).unwrap();
            assert_eq!(port.load_u64(0x1_0000_0000), 0x1122_3344_5566_7788);
            assert_eq!(port.load_u64(0x1_0000_0010), 2 << 32 | 1);
            assert!(port.failure().is_none());
            // The budget is spent: the failure is latched, reads give zero, writes fail.
            assert_eq!(port.load_u64(0x1_0000_0000), 0);
            let e = port.write(0x1_0000_0000, &[1]).unwrap_err().to_string();
            assert_eq!(e, "test-link: the link failed: test-link: connection reset");
        }
        assert_eq!(port.failure().as_deref(), Some("the link to test-link failed: test-link: connection reset"));
        // A dead link is not called again.
        fake.budget.store(100, Ordering::SeqCst);
        // SAFETY: as above.
        assert_eq!(unsafe { port.load_u64(0x1_0000_0000) }, 0);
        assert_eq!(fake.budget.load(Ordering::SeqCst), 100);
    }

    #[test]
    fn a_local_port_reaches_memory_through_its_address() {
        let mut mem = [0u64; 4];
        let at = mem.as_mut_ptr() as u64;
        // SAFETY: inside `mem`, aligned, nothing else touches it.
        unsafe {
            LOCAL.store_u64(at, 7);
            LOCAL.write_words(at + 8, &[3, 4]).unwrap();
            LOCAL.store_u32(at + 16, 9);
            assert_eq!(LOCAL.load_u64(at), 7);
            let mut b = [0u8; 8];
            LOCAL.read(at + 8, &mut b).unwrap();
            assert_eq!(u64::from_le_bytes(b), 4 << 32 | 3);
        }
        assert_eq!(mem[2], 9);
    }
}

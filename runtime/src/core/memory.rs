//! Buffers and programs: allocation through the backend, host reads and writes checked against
//! the buffer once for both vendors.

use super::{Backend, Device, DeviceBuffer, Mem};
use crate::port::Port;
use crate::Result;

/// `len` bytes at `offset` lie inside a buffer of `size` bytes; the message otherwise.
pub(crate) fn span_error(size: u64, offset: u64, len: u64) -> Option<String> {
    offset
        .checked_add(len)
        .is_none_or(|end| end > size)
        .then(|| format!("{len} bytes at offset {offset} exceed a {size}-byte buffer"))
}

/// Copy `data` into a CPU-visible buffer the GPU is not using (a vendor's program image), through
/// the device's `port`.
pub(crate) fn copy_into(label: &str, port: &Port, b: &impl DeviceBuffer, offset: u64, data: &[u8]) -> Result<()> {
    let dst = host_addr(label, b, offset, data.len())?;
    // SAFETY: in bounds and reachable through the port (host_addr checked both); not in use by
    // the GPU (the caller's contract).
    unsafe { port.write(dst, data) }
}

/// The address of `len` bytes at `offset` of `b`, which the host reaches through its port.
fn host_addr(label: &str, b: &impl DeviceBuffer, offset: u64, len: usize) -> Result<u64> {
    if !b.host_visible() {
        return Err(super::dev_err(label, format!("buffer at {:#x} is not CPU-visible", b.va())));
    }
    if let Some(msg) = span_error(b.size(), offset, len as u64) {
        return Err(super::dev_err(label, msg));
    }
    Ok(b.va() + offset)
}

impl<B: Backend> Device<B> {
    /// Device memory the CPU can also map (through the BAR on a real GPU).
    pub fn alloc(&self, size: u64) -> Result<B::Buffer> {
        self.backend.alloc(size, Mem::Device)
    }

    /// Host memory the GPU maps.
    pub fn alloc_host(&self, size: u64) -> Result<B::Buffer> {
        self.backend.alloc(size, Mem::Host)
    }

    pub fn free(&self, b: B::Buffer) -> Result<()> {
        self.peer_maps().retain(|&(va, _, _)| va != b.va());
        self.backend.free(b)
    }

    /// Map buffer `b` of this device for `peer`'s GPU too, at the same address, until `b` is
    /// freed: `peer`'s kernels, copies and waits can then reach it. Host memory on every
    /// backend; device memory where the backend can (AMD: KFD maps it for a peer GPU).
    pub fn map_for_peer(&self, b: &B::Buffer, peer: &Device<B>) -> Result<()> {
        self.map_into(b, &peer.backend, peer.id, &peer.label)
    }

    /// [`Device::map_for_peer`] for the peer whose backend is `peer` (`id`, `label`).
    pub(crate) fn map_into(&self, b: &B::Buffer, peer: &B, id: u64, label: &str) -> Result<()> {
        self.backend
            .map_for_peer(b, peer)
            .map_err(|why| self.err(format!("cannot map the memory at {:#x} for {label} too: {why}", b.va())))?;
        let mut maps = self.peer_maps();
        if !maps.contains(&(b.va(), b.size(), id)) {
            maps.push((b.va(), b.size(), id));
        }
        Ok(())
    }

    /// Whether `bytes` bytes at `va` lie in one buffer of this device mapped for `peer`.
    pub fn mapped_for_peer(&self, va: u64, bytes: u64, peer: &Device<B>) -> bool {
        self.peer_maps()
            .iter()
            .any(|&(a, n, p)| p == peer.id && va >= a && va.checked_add(bytes).is_some_and(|end| end <= a + n))
    }

    fn peer_maps(&self) -> std::sync::MutexGuard<'_, Vec<(u64, u64, u64)>> {
        self.peer_maps.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `len` bytes at `offset` lie inside `b`.
    pub(crate) fn check_span(&self, b: &B::Buffer, offset: u64, len: u64) -> Result<()> {
        match span_error(b.size(), offset, len) {
            Some(msg) => Err(self.err(msg)),
            None => Ok(()),
        }
    }

    /// Copy host bytes into a buffer. The device must not be using that range.
    pub fn write(&self, b: &B::Buffer, offset: u64, data: &[u8]) -> Result<()> {
        copy_into(&self.label, self.port(), b, offset, data)
    }

    /// Copy buffer bytes to the host, after the work that wrote them completed.
    pub fn read(&self, b: &B::Buffer, offset: u64, out: &mut [u8]) -> Result<()> {
        let src = host_addr(&self.label, b, offset, out.len())?;
        // SAFETY: in bounds and reachable through the port (host_addr checked both); the GPU
        // finished writing (synchronize before read). The port fences (acquire) first.
        unsafe { self.port().read(src, out) }
    }

    /// Load a code object into device memory, checked against the device.
    pub fn load(&self, code: B::Code) -> Result<B::Program> {
        let p = self.backend.load(&self.label, code)?;
        if let Err(e) = B::prepare(self, &p) {
            self.backend.unload(p)?;
            return Err(e);
        }
        Ok(p)
    }

    pub fn unload(&self, p: B::Program) -> Result<()> {
        self.backend.unload(p)
    }
}

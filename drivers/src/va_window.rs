//! A device's address window: one PROT_NONE reservation of process address space that every
//! allocation of the device is carved from, so that an allocation's GPU VA is also its CPU
//! address. Both drivers (KFD and RM) place memory through it.
//!
//! The window has two regions: user buffers from the bottom up, and the driver's and runtime's
//! own memory (rings, push buffers, kernel arguments, signals, code images) in the top quarter,
//! far from any user buffer. Every allocation is followed by an unmapped guard gap. So a kernel
//! that writes before or past its buffer (`p[-(1<<20)]`, `p[len]`) reaches an address nothing
//! maps, and the GPU faults naming it, instead of landing in the runtime's queues or in the
//! neighbouring buffer.

use crate::os::{MapFlags, Os, Prot};
use crate::{Error, Result};
use std::sync::{Arc, Mutex};

/// Where the first device's window is tried, and the window's size: [64 GiB, 128 GiB) for the
/// first device; later ones (or a taken range) move up by a window at a time, up to the limit
/// the driver gives.
pub const VA_WINDOW_BASE: u64 = 0x10_0000_0000;
pub const VA_WINDOW_SIZE: u64 = 0x10_0000_0000;
/// Allocation granule in the window.
pub const VA_ALIGN: u64 = 0x1_0000;
/// Unmapped bytes after every allocation: a stray access just past a buffer faults.
pub const VA_GUARD: u64 = 0x10_0000;
/// The internal region: the top quarter of the window.
pub const INTERNAL_REGION: u64 = VA_WINDOW_SIZE / 4;
/// Unmapped bytes between the top of the user region and the internal region.
const SEPARATION: u64 = 0x4000_0000;

/// Which region of the window an allocation goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// A buffer a kernel is given (the user's data, staging memory).
    User,
    /// Memory the driver or runtime itself keeps: rings, push buffers, arguments, signals,
    /// code images. Kept apart from every user buffer.
    Internal,
}

/// The address window of a device.
pub struct VaWindow {
    os: Arc<dyn Os>,
    pub base: u64,
    pub size: u64,
    /// The next free address of each region.
    next_user: Mutex<u64>,
    next_internal: Mutex<u64>,
}

impl std::fmt::Debug for VaWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VaWindow({:#x}..{:#x})", self.base, self.base + self.size)
    }
}

impl VaWindow {
    /// Reserve a window at the first free place from [`VA_WINDOW_BASE`] up to `limit`.
    pub fn reserve(os: &Arc<dyn Os>, limit: u64) -> Result<VaWindow> {
        let flags = MapFlags::PRIVATE | MapFlags::ANONYMOUS | MapFlags::NORESERVE;
        let mut hint = VA_WINDOW_BASE;
        while hint + VA_WINDOW_SIZE <= limit {
            let addr = os.mmap(hint as usize, VA_WINDOW_SIZE as usize, Prot::empty(), flags, None, 0)? as u64;
            if addr == hint {
                return Ok(VaWindow {
                    os: os.clone(),
                    base: hint,
                    size: VA_WINDOW_SIZE,
                    next_user: Mutex::new(hint),
                    next_internal: Mutex::new(hint + VA_WINDOW_SIZE - INTERNAL_REGION),
                });
            }
            // Something lives there already: the kernel put it elsewhere. Try the next window.
            os.munmap(addr as usize, VA_WINDOW_SIZE as usize)?;
            hint += VA_WINDOW_SIZE;
        }
        Err(Error::Protocol(format!(
            "no free {VA_WINDOW_SIZE:#x}-byte window of address space between {VA_WINDOW_BASE:#x} and {limit:#x}"
        )))
    }

    /// Where the internal region starts.
    pub fn internal_base(&self) -> u64 {
        self.base + self.size - INTERNAL_REGION
    }

    /// `size` bytes of address space in `placement`'s region, followed by a guard gap.
    pub fn take(&self, size: u64, placement: Placement) -> Result<u64> {
        let (next, end) = match placement {
            Placement::User => (&self.next_user, self.internal_base() - SEPARATION),
            Placement::Internal => (&self.next_internal, self.base + self.size),
        };
        let mut next = next.lock().unwrap_or_else(|e| e.into_inner());
        let va = next.next_multiple_of(VA_ALIGN);
        let fits = va.checked_add(size).is_some_and(|e| e <= end);
        if !fits {
            let what = if placement == Placement::User { "buffers" } else { "internal memory" };
            return Err(Error::Protocol(format!(
                "the address space for {what} ({:#x}..{end:#x}) is exhausted ({size:#x} bytes wanted)",
                *next
            )));
        }
        *next = va + size + VA_GUARD;
        Ok(va)
    }

    /// Put the reservation back over a range whose mapping is gone.
    pub fn restore(&self, va: u64, size: u64) -> Result<()> {
        let flags = MapFlags::PRIVATE | MapFlags::ANONYMOUS | MapFlags::NORESERVE | MapFlags::FIXED;
        self.os.mmap(va as usize, size as usize, Prot::empty(), flags, None, 0).map(|_| ())
    }
}

impl Drop for VaWindow {
    fn drop(&mut self) {
        if let Err(e) = self.os.munmap(self.base as usize, self.size as usize) {
            log::warn!("releasing the address window at {:#x}: {e}", self.base);
        }
    }
}

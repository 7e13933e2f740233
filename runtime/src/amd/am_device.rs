//! [`AmDriver`] over the AM driver's booted [`AmDevice`]: on a GPU whose memory this process
//! maps, every allocation is mapped for the GPU at its CPU address ([`AmDevice::alloc_at_cpu`]),
//! so the runtime's one-address rule holds; on one it does not (behind a network or USB link:
//! no BAR or DMA mapping), allocations take GPU addresses of the driver's VA window and the
//! runtime reaches them through [`AmDriver::read`]/[`AmDriver::write`] (BAR0 copies, DMA memory
//! reads and writes). Compute queues take the lowest free HQD of ME 1 pipe 0, the SDMA queue is SDMA0's
//! queue 0; faults come from draining the IH ring. One lock serializes the device.

use super::am::{AmDriver, AmFault, DriverAlloc, Where};
use super::drained::DrainedCopy;
use super::hdp::HdpFlush;
use super::iface::{GpuInfo, QueueKind};
use crate::Result;
use baregpu_drivers::amd::am::discovery::{hw_id, IpVersion};
use baregpu_drivers::amd::am::ih::IhEvent;
use baregpu_drivers::amd::am::{self as am, AmDevice, GpuAlloc, Placement as GpuPlacement, QueueHandle};
use baregpu_drivers::pci::drained::DrainedWindows;
use baregpu_drivers::pci::{Until, AMD_BAR_VRAM, DMA_PAGE};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Scratch wave slots per CU where the discovery table does not say (the KFD's default too).
const SCRATCH_SLOTS_PER_CU: u64 = 32;

/// The LLVM target of a GC version the runtime drives.
pub fn arch_of(gc: IpVersion) -> Option<&'static str> {
    Some(match (gc.major, gc.minor, gc.revision) {
        (11, 0, 0) => "gfx1100",
        (11, 0, 1) => "gfx1101",
        (11, 0, 2) => "gfx1102",
        (9, 4, 3) => "gfx942",
        _ => return None,
    })
}

struct State {
    /// `None` only while the driver is dropped.
    dev: Option<AmDevice>,
    allocs: HashMap<u64, GpuAlloc>,
    /// Live allocations by GPU address: token (what calls over a link look up).
    by_va: BTreeMap<u64, u64>,
    queues: HashMap<u32, QueueHandle>,
    /// The drain fence's GPU address, once mapped ([`DrainedCopy::fence_va`]).
    fence_va: Option<u64>,
    next_token: u64,
    next_queue: u32,
}

/// A booted AM device as the runtime's [`AmDriver`].
pub struct AmDeviceDriver {
    st: Mutex<State>,
    info: GpuInfo,
    large_bar: bool,
    /// See [`AmDriver::maps_memory`].
    mapped: bool,
    /// See [`AmDriver::dma_pool`].
    dma_pool: Option<u64>,
    /// See [`AmDriver::hdp`].
    hdp: Option<HdpFlush>,
    name: String,
    /// The PCI device has drained windows ([`AmDriver::drained`]).
    drained: bool,
}

fn err(m: String) -> crate::Error {
    crate::Error::Driver(baregpu_drivers::Error::Protocol(m))
}

impl AmDeviceDriver {
    pub fn new(dev: AmDevice) -> Result<AmDeviceDriver> {
        let d = &dev.discovery;
        let gc = d.version(hw_id::GC).ok_or_else(|| err("AM: the discovery table has no GC block".into()))?;
        let arch = arch_of(gc).ok_or_else(|| err(format!("AM: GC {gc} is not an architecture the runtime drives")))?;
        let xccs = d.instances(hw_id::GC).len().max(1) as u32;
        let (cus, lds) =
            d.gc_info.map_or((0, 64), |g| (g.num_se() * g.num_sh_per_se() * g.num_cu_per_sh(), g.lds_size()));
        let info = GpuInfo {
            arch: arch.into(),
            xccs,
            compute_units: cus.max(1) * if gc.major == 9 { xccs } else { 1 },
            lds_bytes: lds.max(1) * 1024,
            scratch_slots_per_cu: SCRATCH_SLOTS_PER_CU,
        };
        let hdp = match dev.hdp_flush_regs() {
            Ok((req, done)) => Some(HdpFlush { req, done }),
            Err(e) => {
                log::warn!("AM: no HDP flush pair ({e}); memory barriers rely on cache invalidation alone");
                None
            }
        };
        let pci = dev.pci().clone();
        let dma_pool = pci.dma_pool();
        let vram_mapped = pci.bar_ptr(AMD_BAR_VRAM).is_some();
        // Rings and signals live in system memory where the GPU reaches it, else in VRAM: the
        // process maps the device's memory where it maps that.
        let mapped = match dma_pool.is_none() {
            true => pci.alloc_dma(DMA_PAGE, false)?.cpu_ptr().is_some(),
            false => vram_mapped,
        };
        // Over a link BAR0 is reached by copies, mapped or not: it covers VRAM where it is as large.
        let large_bar = match mapped {
            true => vram_mapped,
            false => pci.bar(AMD_BAR_VRAM).is_some_and(|b| b.size >= dev.vram_size()),
        };
        let st = State {
            dev: Some(dev),
            allocs: HashMap::new(),
            by_va: BTreeMap::new(),
            queues: HashMap::new(),
            fence_va: None,
            next_token: 1,
            next_queue: 1,
        };
        let name = pci.name().to_string();
        let drained = pci.drained_windows().is_some() && super::drained::enabled_by_env();
        Ok(AmDeviceDriver { st: Mutex::new(st), info, large_bar, mapped, dma_pool, hdp, name, drained })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.st.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl State {
    fn dev(&mut self) -> Result<&mut AmDevice> {
        self.dev.as_mut().ok_or_else(|| err("AM: the device is closed".into()))
    }

    /// The device and the allocation that holds `len` bytes at `va`, and the offset in it.
    fn holding(&self, va: u64, len: usize) -> Result<(&AmDevice, &GpuAlloc, u64)> {
        let dev = self.dev.as_ref().ok_or_else(|| err("AM: the device is closed".into()))?;
        let a = self.by_va.range(..=va).next_back().and_then(|(_, t)| self.allocs.get(t));
        match a {
            Some(a) if va + len as u64 <= a.va + a.size => Ok((dev, a, va - a.va)),
            _ => Err(err(format!("AM: {len} bytes at {va:#x} lie in no allocation"))),
        }
    }
}

impl AmDriver for AmDeviceDriver {
    fn info(&self) -> GpuInfo {
        self.info.clone()
    }

    fn large_bar(&self) -> bool {
        self.large_bar
    }

    fn maps_memory(&self) -> bool {
        self.mapped
    }

    fn dma_pool(&self) -> Option<u64> {
        self.dma_pool
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn drained(&self) -> Option<&dyn DrainedCopy> {
        self.drained.then_some(self as &dyn DrainedCopy)
    }

    fn alloc(&self, size: u64, place: Where) -> Result<DriverAlloc> {
        let mut st = self.lock();
        let vram = matches!(place, Where::Vram { .. });
        let a = match self.mapped {
            true => st.dev()?.alloc_at_cpu(size, vram)?,
            false => st.dev()?.alloc(size, vram)?,
        };
        let token = st.next_token;
        st.next_token += 1;
        // VRAM the runtime wants no CPU access to keeps its BAR address as its VA (reserved by
        // BAR0's mapping, so no CPU mapping collides with it) but is not CPU-mapped to the
        // runtime. Over a link, the rest is reached by calls.
        let reachable = a.cpu.is_some() || !self.mapped;
        let cpu_mapped = reachable && place != (Where::Vram { contiguous: false });
        let d = DriverAlloc { va: a.va, size: a.size, cpu_mapped, token };
        st.by_va.insert(a.va, token);
        st.allocs.insert(token, a);
        Ok(d)
    }

    fn free(&self, token: u64) -> Result<()> {
        let mut st = self.lock();
        let a = st.allocs.remove(&token).ok_or_else(|| err(format!("AM: free of allocation {token}, not live")))?;
        st.by_va.remove(&a.va);
        Ok(st.dev()?.free(a)?)
    }

    fn read(&self, va: u64, buf: &mut [u8]) -> Result<()> {
        let st = self.lock();
        let (dev, a, off) = st.holding(va, buf.len())?;
        Ok(dev.read(a, off, buf)?)
    }

    fn write(&self, va: u64, data: &[u8]) -> Result<()> {
        let st = self.lock();
        let (dev, a, off) = st.holding(va, data.len())?;
        Ok(dev.write(a, off, data)?)
    }

    /// Holds the device's lock for the wait, as a read does (a wait is one slice: short).
    fn wait_u64(&self, va: u64, until: Until, timeout: Duration) -> Result<u64> {
        let st = self.lock();
        let (dev, a, off) = st.holding(va, 8)?;
        Ok(dev.wait_u64(a, off, until, timeout)?)
    }

    fn create_queue(&self, kind: QueueKind, ring_va: u64, ring_bytes: u64, rptr_va: u64, wptr_va: u64) -> Result<u32> {
        let mut st = self.lock();
        let busy: Vec<u32> = st
            .queues
            .values()
            .filter_map(|h| match h.kind {
                am::QueueKind::Compute { queue } => Some(queue),
                am::QueueKind::Sdma => None,
            })
            .collect();
        let h = match kind {
            QueueKind::Compute => {
                let queue =
                    (0..8).find(|q| !busy.contains(q)).ok_or_else(|| err("AM: all 8 HQDs are in use".into()))?;
                st.dev()?.create_compute_queue(queue, ring_va, ring_bytes, rptr_va, wptr_va)?
            }
            QueueKind::Sdma => {
                if st.queues.values().any(|h| h.kind == am::QueueKind::Sdma) {
                    return Err(err("AM: SDMA0's one queue is in use".into()));
                }
                st.dev()?.create_sdma_queue(ring_va, ring_bytes, rptr_va, wptr_va)?
            }
        };
        let id = st.next_queue;
        st.next_queue += 1;
        st.queues.insert(id, h);
        Ok(id)
    }

    fn destroy_queue(&self, handle: u32) -> Result<()> {
        let mut st = self.lock();
        let h = *st.queues.get(&handle).ok_or_else(|| err(format!("AM: destroy of queue {handle}, not live")))?;
        st.dev()?.destroy_queue(h)?;
        st.queues.remove(&handle);
        Ok(())
    }

    fn ring_doorbell(&self, handle: u32, wptr: u64) -> Result<()> {
        let st = self.lock();
        let (Some(dev), Some(h)) = (st.dev.as_ref(), st.queues.get(&handle)) else { return Ok(()) };
        Ok(dev.ring_doorbell(*h, wptr)?)
    }

    fn poll_faults(&self) -> Result<Option<AmFault>> {
        let mut st = self.lock();
        let Some(dev) = st.dev.as_mut() else { return Ok(None) };
        let events = dev.poll_interrupts()?;
        Ok(events.into_iter().find_map(|(_, ev)| match ev {
            IhEvent::VmFault { va, write, .. } => Some(AmFault::Memory { va, write }),
            ev if ev.is_error() => Some(AmFault::Engine(format!("the IH ring reported {ev:?}"))),
            _ => None,
        }))
    }

    /// NBIO's flush pair where the driver's tables bind it ([`AmDevice::hdp_flush_regs`]).
    fn hdp(&self) -> Option<HdpFlush> {
        self.hdp
    }

    /// The runtime destroyed its queues (their HQDs dequeued with RESET_WAVES); what a hung
    /// wave or a wedged CP left is cleared by the compute reset the hardware needs (amd.md
    /// §6.3: every HQD dequeued again, GRBM soft reset of the CP, the MEC restarted), then the
    /// IH ring is drained and the GC hub's fault status cleared. The runtime then maps fresh
    /// queues with zeroed pointers. Context 0 sends faulting accesses to the dummy page (the
    /// *_ENABLE_DEFAULT bits) rather than stalling, so the VM needs no reset.
    fn reset(&self) -> Result<bool> {
        let mut st = self.lock();
        st.dev()?.reset_compute()?;
        // Compute queues a failed destroy left listed went with the reset.
        st.queues.retain(|_, h| h.kind == am::QueueKind::Sdma);
        Ok(true)
    }

    /// Dequeues what is left; the device itself is closed (IH off, the session marked clean
    /// or not) when the driver is dropped, so memory keeps working until then.
    fn close(&self) {
        let mut st = self.lock();
        let live: Vec<QueueHandle> = st.queues.drain().map(|(_, h)| h).collect();
        if let Some(dev) = st.dev.as_mut() {
            for h in live {
                if let Err(e) = dev.destroy_queue(h) {
                    log::warn!("AM: close: {e}");
                }
            }
        }
    }
}

/// The PCI device's drained windows; the fence page mapped once and kept for the device's life.
impl DrainedCopy for AmDeviceDriver {
    fn fence_va(&self) -> Result<u64> {
        let mut st = self.lock();
        if let Some(va) = st.fence_va {
            return Ok(va);
        }
        let dev = st.dev()?;
        let (page, offset) = windows(dev)?.fence_page()?;
        let a = dev.map_dma(page)?;
        let va = a.va + offset;
        let token = st.next_token;
        st.next_token += 1;
        st.by_va.insert(a.va, token);
        st.allocs.insert(token, a);
        st.fence_va = Some(va);
        Ok(va)
    }

    fn fence(&self) -> Result<u64> {
        let mut st = self.lock();
        Ok(windows(st.dev()?)?.fence()?)
    }

    fn window_align(&self) -> u64 {
        let mut st = self.lock();
        st.dev().ok().and_then(|d| d.pci().drained_windows().map(|w| w.window_align())).unwrap_or(1)
    }

    fn stream(&self, staging_va: u64, windows_at: [u64; 2], window: u64, first: u64, chunks: &[&[u8]]) -> Result<()> {
        let st = self.lock();
        let (dev, a, offset) = st.holding(staging_va, (windows_at[0].max(windows_at[1]) + window) as usize)?;
        let GpuPlacement::System { dma } = &a.place else {
            return Err(err(format!("AM: the staging memory at {staging_va:#x} is not DMA memory")));
        };
        let at = windows_at.map(|w| w + offset);
        Ok(windows(dev)?.stream(dma.as_ref(), at, window, first, chunks)?)
    }
}

fn windows(dev: &AmDevice) -> Result<&dyn DrainedWindows> {
    dev.pci().drained_windows().ok_or_else(|| err("AM: the PCI device has no drained windows".into()))
}

impl Drop for AmDeviceDriver {
    fn drop(&mut self) {
        let mut st = self.lock();
        // The allocations' VRAM and tables go with the device; system memory as it drops.
        st.allocs.clear();
        st.by_va.clear();
        if let Some(dev) = st.dev.take() {
            if let Err(e) = dev.close() {
                log::warn!("AM: close: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gc_versions_name_their_llvm_targets_and_unknown_ones_none() {
        assert_eq!(arch_of(IpVersion::new(11, 0, 0)), Some("gfx1100"));
        assert_eq!(arch_of(IpVersion::new(9, 4, 3)), Some("gfx942"));
        assert_eq!(arch_of(IpVersion::new(10, 3, 0)), None);
    }
}

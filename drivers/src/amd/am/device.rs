//! [`AmDevice`]: a booted AMD GPU driven through [`PciDevice`] — memory mapped into context 0's
//! VA window, PM4 compute and SDMA queues, doorbells, the IH ring, and a clean close.

use super::boot::{self, BootBuffers, BootFirmware, BootPlan, CONTEXT0_END, CONTEXT0_START, VA_END, VA_START};
use super::chip::ChipTables;
use super::discovery::Discovery;
use super::firmware::FirmwareSource;
use super::gfx::{self, ComputeQueueDesc};
use super::gmc::{self, Hub};
use super::ih::{IhEntry, IhEvent, IhRing};
use super::mmio::{trace_from_env, Ip, Mmio};
use super::pagetable::{PtGeneration, PteFlags};
use super::recover;
use super::sdma::{self, SdmaQueueDesc, DOORBELL_SDMA0};
use super::vm::{PageTable, VramTables};
use super::vram::{RangeAllocator, Vram, VramIo};
use crate::pci::{DmaMemory, PciDevice, Until, AMD_BAR_DOORBELL, AMD_BAR_VRAM, DMA_PAGE};
use crate::{Error, Result};
use std::sync::Arc;
use std::time::Duration;

/// Where an allocation lives.
#[derive(Debug)]
pub enum Placement {
    /// VRAM at this offset (the CPU reaches it through BAR0 at the same offset).
    Vram { pa: u64 },
    /// Pinned system memory.
    System { dma: Box<dyn DmaMemory> },
}

/// Memory mapped into the GPU's VA space.
#[derive(Debug)]
pub struct GpuAlloc {
    /// The GPU virtual address (context 0).
    pub va: u64,
    pub size: u64,
    pub place: Placement,
    /// The CPU's address of the memory when it is mapped in this process (system memory, or
    /// VRAM when BAR0 is mapped whole); `None` otherwise (copy through the `PciDevice`).
    pub cpu: Option<usize>,
}

/// A queue programmed into the hardware.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueHandle {
    /// The 64-bit doorbell slot in BAR2 ([`AmDevice::ring_doorbell`]); a compute ring's on
    /// XCC 0 (it has one on every XCC: [`gfx::mec_doorbell`]).
    pub doorbell: u32,
    pub kind: QueueKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueKind {
    Compute { queue: u32 },
    Sdma,
}

pub struct AmDevice {
    pci: Arc<dyn PciDevice>,
    mmio: Mmio,
    chip: ChipTables,
    pub discovery: Discovery,
    vram: Vram,
    va: RangeAllocator,
    fb_base: u64,
    pt: PageTable,
    ih: IhRing,
    bufs: BootBuffers,
    queues: Vec<(QueueHandle, Vec<u64>)>,
    /// Whether this session booted only partly (the previous one's firmware reused).
    pub partial_boot: bool,
    /// The MEC runs firmware ([`BootPlan::mec_loaded`]): compute queues can run.
    mec_loaded: bool,
    /// The RS64 MEC's firmware start address ([`BootPlan::mec_start`]).
    mec_start: u64,
    error_state: bool,
}

impl std::fmt::Debug for AmDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AmDevice").field("device", &self.pci.name()).field("gc_major", &self.chip.gc_major).finish()
    }
}

impl AmDevice {
    /// Discovers and boots the device (partly, when the previous session closed it cleanly).
    pub fn open(pci: Arc<dyn PciDevice>, fw: &dyn FirmwareSource) -> Result<AmDevice> {
        AmDevice::open_with(pci, &mut |d| BootFirmware::load(d, fw))
    }

    /// [`AmDevice::open`] with the firmware already cut into PSP payloads by `blobs` (tests
    /// with synthetic images; asked only when the boot is full).
    pub fn open_with(
        pci: Arc<dyn PciDevice>,
        blobs: &mut dyn FnMut(&Discovery) -> Result<BootFirmware>,
    ) -> Result<AmDevice> {
        let (discovery, vram_size) = boot::discover(pci.as_ref())?;
        let versions = boot::versions(&discovery)?;
        let chip = boot::chip_tables(&versions)?;
        let mut mmio = Mmio::new(pci.clone(), trace_from_env())?;
        boot::bind(&mut mmio, &chip, &discovery)?;
        let mut vram = boot::vram_for(vram_size, chip.gc_major)?;
        let bufs = BootBuffers::alloc(&mut vram)?;
        let fb_base = Hub::mm(chip.gc_major, 0).fb_base(&mmio)?;
        let partial = boot::can_partial_boot(&mmio, chip.gc_major)?;
        let (ih, mec_loaded, mec_start) = {
            let io = VramIo { pci: pci.as_ref(), fb_base };
            let mut plan = BootPlan {
                mmio: &mmio,
                io,
                chip,
                versions,
                bufs,
                vram: &mut vram,
                partial,
                mec_loaded: false,
                mec_start: 0,
            };
            (plan.run(&mut || blobs(&discovery))?, plan.mec_loaded, plan.mec_start)
        };
        let layout = chip.pt_generation().layout();
        let pt = PageTable { layout, root: bufs.root, va_start: CONTEXT0_START, va_end: CONTEXT0_END };
        Ok(AmDevice {
            pci,
            mmio,
            chip,
            discovery,
            vram,
            va: RangeAllocator::new("GPU VA window", VA_START, VA_END + 1),
            fb_base,
            pt,
            ih,
            bufs,
            queues: Vec::new(),
            partial_boot: partial,
            mec_loaded,
            mec_start,
            error_state: false,
        })
    }

    pub fn pci(&self) -> &Arc<dyn PciDevice> {
        &self.pci
    }

    pub fn gc_major(&self) -> u8 {
        self.chip.gc_major
    }

    pub fn pt_generation(&self) -> PtGeneration {
        self.chip.pt_generation()
    }

    /// Bytes of VRAM.
    pub fn vram_size(&self) -> u64 {
        self.vram.size
    }

    fn io(&self) -> VramIo<'_> {
        VramIo { pci: self.pci.as_ref(), fb_base: self.fb_base }
    }

    /// `size` bytes (rounded up to 4 KiB) in VRAM or pinned system memory, mapped into the VA
    /// window; system memory is mapped snooped and uncached (what the host polls).
    pub fn alloc(&mut self, size: u64, vram: bool) -> Result<GpuAlloc> {
        let size = size.max(1).next_multiple_of(DMA_PAGE);
        let align = if size >= 2 << 20 { 2 << 20 } else { DMA_PAGE };
        let va = self.va.alloc(size, align)?;
        let r = self.map_new(va, size, align, vram);
        if r.is_err() {
            self.va.free(va)?;
        }
        r
    }

    /// `size` bytes (rounded up to 4 KiB) mapped for the GPU at the address the CPU maps them
    /// at (system memory: its DMA mapping; VRAM: its offset in BAR0's mapping), so that one
    /// address names the memory on both sides. An error where the memory has no CPU mapping,
    /// or where that address falls in the FB aperture (the MC routes those to VRAM directly).
    pub fn alloc_at_cpu(&mut self, size: u64, vram: bool) -> Result<GpuAlloc> {
        let size = size.max(1).next_multiple_of(DMA_PAGE);
        let align = if size >= 2 << 20 { 2 << 20 } else { DMA_PAGE };
        let (place, cpu) = self.backing(size, align, vram)?;
        let mapped = match cpu {
            None => Err(Error::Unsupported(format!(
                "{}: {size:#x} bytes of {} with no CPU mapping cannot be mapped at a CPU address",
                self.pci.name(),
                if vram { "VRAM (BAR0 not mapped whole)" } else { "system memory" }
            ))),
            Some(va) => self.check_cpu_va(va as u64, size).and_then(|_| self.map_at(va as u64, size, &place)),
        };
        match (mapped, cpu) {
            // Mapped: a failed invalidation leaves the memory mapped (and so not given back).
            (Ok(()), Some(va)) => {
                self.flush_tlb()?;
                Ok(GpuAlloc { va: va as u64, size, place, cpu })
            }
            (r, _) => {
                self.release(place)?;
                Err(r.err().unwrap_or_else(|| Error::Protocol("mapped without a CPU address".into())))
            }
        }
    }

    /// A CPU address range the GPU can use as a VA: inside context 0, outside the FB aperture.
    fn check_cpu_va(&self, va: u64, size: u64) -> Result<()> {
        let hub = Hub::mm(self.chip.gc_major, 0);
        let (fb_lo, fb_hi) = (hub.fb_base(&self.mmio)?, hub.fb_top(&self.mmio)?);
        let end = va + size - 1;
        if end > CONTEXT0_END || (va <= fb_hi && end >= fb_lo) {
            return Err(Error::Unsupported(format!(
                "{}: CPU address range [{va:#x}, {end:#x}] cannot be a GPU VA (context 0 ends at \
                 {CONTEXT0_END:#x}; the FB aperture is [{fb_lo:#x}, {fb_hi:#x}])",
                self.pci.name()
            )));
        }
        Ok(())
    }

    /// Maps `dma`, DMA memory the device provides outside its pool (a USB bridge's fence
    /// page), for the GPU at a fresh VA.
    pub fn map_dma(&mut self, dma: Box<dyn DmaMemory>) -> Result<GpuAlloc> {
        let size = dma.size().max(1).next_multiple_of(DMA_PAGE);
        let va = self.va.alloc(size, DMA_PAGE)?;
        let cpu = dma.cpu_ptr().map(|p| p as usize);
        let place = Placement::System { dma };
        if let Err(e) = self.map_at(va, size, &place).and_then(|()| self.flush_tlb()) {
            self.va.free(va)?;
            return Err(e);
        }
        Ok(GpuAlloc { va, size, place, cpu })
    }

    fn map_new(&mut self, va: u64, size: u64, align: u64, vram: bool) -> Result<GpuAlloc> {
        let (place, cpu) = self.backing(size, align, vram)?;
        if let Err(e) = self.map_at(va, size, &place) {
            self.release(place)?;
            return Err(e);
        }
        self.flush_tlb()?;
        Ok(GpuAlloc { va, size, place, cpu })
    }

    /// VRAM from the heap or pinned system memory, and its CPU address where it has one.
    fn backing(&mut self, size: u64, align: u64, vram: bool) -> Result<(Placement, Option<usize>)> {
        Ok(if vram {
            let pa = self.vram.heap.alloc(size, align)?;
            let cpu = self.pci.bar_ptr(AMD_BAR_VRAM).map(|p| p as usize + pa as usize);
            (Placement::Vram { pa }, cpu)
        } else {
            let dma = self.pci.alloc_dma(size, false)?;
            let cpu = dma.cpu_ptr().map(|p| p as usize);
            (Placement::System { dma }, cpu)
        })
    }

    /// Gives back what [`AmDevice::backing`] took (system memory goes when dropped).
    fn release(&mut self, place: Placement) -> Result<()> {
        if let Placement::Vram { pa } = place {
            self.vram.heap.free(pa)?;
        }
        Ok(())
    }

    /// Maps `place` at `va` in context 0 (the caller invalidates the TLBs).
    fn map_at(&mut self, va: u64, size: u64, place: &Placement) -> Result<()> {
        let io = VramIo { pci: self.pci.as_ref(), fb_base: self.fb_base };
        let mut tables = VramTables { io, alloc: &mut self.vram.heap };
        match place {
            Placement::Vram { pa } => self.pt.map(&mut tables, va, size, *pa, PteFlags::VRAM, None),
            Placement::System { dma } => {
                self.pt.map(&mut tables, va, size, 0, PteFlags::SYSTEM_UC, Some(dma.bus_pages()))
            }
        }
    }

    /// Unmaps and frees an allocation (the GPU must no longer use it).
    pub fn free(&mut self, a: GpuAlloc) -> Result<()> {
        let io = VramIo { pci: self.pci.as_ref(), fb_base: self.fb_base };
        let mut tables = VramTables { io, alloc: &mut self.vram.heap };
        self.pt.unmap(&mut tables, a.va, a.size)?;
        self.flush_tlb()?;
        // Only the window's allocations hold a VA of it ([`AmDevice::alloc_at_cpu`]'s do not;
        // the page table never maps two allocations at one VA).
        if self.va.is_allocated(a.va) {
            self.va.free(a.va)?;
        }
        self.release(a.place)
    }

    /// Writes bytes into an allocation through the PCI device (VRAM via BAR0, system memory
    /// via its DMA mapping).
    pub fn write(&self, a: &GpuAlloc, offset: u64, data: &[u8]) -> Result<()> {
        match &a.place {
            Placement::Vram { pa } => {
                self.io().write(pa + offset, data)?;
                gmc::hdp_flush(&self.mmio)
            }
            Placement::System { dma } => dma.write(offset, data),
        }
    }

    /// Reads bytes of an allocation through the PCI device; an aligned 8-byte read is one
    /// 64-bit access (a word the GPU writes, such as a signal, is never seen torn).
    pub fn read(&self, a: &GpuAlloc, offset: u64, buf: &mut [u8]) -> Result<()> {
        match &a.place {
            Placement::Vram { pa } if buf.len() == 8 && (pa + offset).is_multiple_of(8) => {
                buf.copy_from_slice(&self.io().read64(pa + offset)?.to_le_bytes());
                Ok(())
            }
            Placement::Vram { pa } => self.io().read(pa + offset, buf),
            Placement::System { dma } => dma.read(offset, buf),
        }
    }

    /// Wait up to `timeout` until the aligned 64-bit word at `offset` of an allocation (a
    /// signal) satisfies `until`; the last value read. Waits where the memory is (see
    /// [`crate::pci::wait`]): across a link, one round trip.
    pub fn wait_u64(&self, a: &GpuAlloc, offset: u64, until: Until, timeout: Duration) -> Result<u64> {
        if !offset.is_multiple_of(8) || offset.checked_add(8).is_none_or(|end| end > a.size) {
            return Err(Error::Unsupported(format!("AM: a wait on {offset:#x} of an allocation of {:#x}", a.size)));
        }
        match &a.place {
            Placement::Vram { pa } => self.pci.wait_bar_u64(AMD_BAR_VRAM, pa + offset, until, timeout),
            Placement::System { dma } => dma.wait_u64(offset, until, timeout),
        }
    }

    /// HDP flush: CPU writes through BAR0 become visible to the GPU.
    pub fn hdp_flush(&self) -> Result<()> {
        gmc::hdp_flush(&self.mmio)
    }

    /// Absolute dword addresses of NBIO's BIF_BX_PF0_GPU_HDP_FLUSH_REQ and _DONE (the chip's
    /// table at the discovery table's NBIO bases): what a command processor's WAIT_REG_MEM
    /// writes and polls to flush HDP before it reads what the CPU wrote through the BAR.
    pub fn hdp_flush_regs(&self) -> Result<(u32, u32)> {
        let reg = |n| self.mmio.reg(Ip::Nbio, 0, n).map(|r| r.addr);
        Ok((reg("BIF_BX_PF0_GPU_HDP_FLUSH_REQ")?, reg("BIF_BX_PF0_GPU_HDP_FLUSH_DONE")?))
    }

    fn flush_tlb(&self) -> Result<()> {
        gmc::hdp_flush(&self.mmio)?;
        for xcc in boot::instances(&self.mmio, Ip::Gc) {
            gmc::flush_tlb(&self.mmio, Hub::gc(self.chip.gc_major, xcc))?;
        }
        for inst in boot::instances(&self.mmio, Ip::Mmhub) {
            gmc::flush_tlb(&self.mmio, Hub::mm(self.chip.gc_major, inst))?;
        }
        Ok(())
    }

    /// A PM4 compute queue on ME 1 pipe 0 `queue` (0 for PM4, as tinygrad): `ring` of
    /// `ring_bytes` (a power of two), the read pointer written back to `rptr_va` and the write
    /// pointer polled at `wptr_va`, mapped on every XCC (XCC `x` reports its read pointer at
    /// `rptr_va + 8x`). The MQDs and EOP buffers are allocated here.
    pub fn create_compute_queue(
        &mut self,
        queue: u32,
        ring_va: u64,
        ring_bytes: u64,
        rptr_va: u64,
        wptr_va: u64,
    ) -> Result<QueueHandle> {
        if !ring_bytes.is_power_of_two() || ring_bytes < 256 {
            return Err(Error::Protocol(format!("compute ring of {ring_bytes:#x} bytes: not a power of two ≥ 256")));
        }
        if !self.mec_loaded {
            return Err(Error::Protocol(format!(
                "{}: no compute queue: the MEC has no firmware (the boot loaded no CP_MEC or RS64_MEC image \
                 through the PSP)",
                self.pci.name()
            )));
        }
        let mut mem = Vec::new();
        if let Err(e) = self.map_on_every_xcc(queue, ring_va, ring_bytes, rptr_va, wptr_va, &mut mem) {
            // What was mapped is dequeued and its memory given back (best effort: the error
            // that matters is the first).
            let _ = gfx::unmap_queue_all(&self.mmio, queue);
            for pa in mem {
                let _ = self.vram.heap.free(pa);
            }
            return Err(e);
        }
        let doorbell = gfx::mec_doorbell(0, queue);
        let h = QueueHandle { doorbell, kind: QueueKind::Compute { queue } };
        self.queues.push((h, mem));
        Ok(h)
    }

    /// Maps compute ring `queue` on every XCC's HQD: every XCC's CP runs the ring (dispatches
    /// are split across them), each from its own MQD, with its own doorbell and reporting its
    /// read pointer 8 bytes after the previous XCC's, as KFD's queues do. `mem` collects the
    /// VRAM taken (MQDs, EOP buffers), also when an error stops it.
    fn map_on_every_xcc(
        &mut self,
        queue: u32,
        ring_va: u64,
        ring_bytes: u64,
        rptr_va: u64,
        wptr_va: u64,
        mem: &mut Vec<u64>,
    ) -> Result<()> {
        for xcc in boot::instances(&self.mmio, Ip::Gc) {
            let mqd_pa = self.vram.heap.alloc(0x1000, 0x1000)?;
            mem.push(mqd_pa);
            let eop_pa = self.vram.heap.alloc(0x1000, 0x1000)?;
            mem.push(eop_pa);
            let q = ComputeQueueDesc {
                queue,
                ring: ring_va,
                ring_bytes,
                rptr_addr: rptr_va + 8 * u64::from(xcc),
                wptr_addr: wptr_va,
                eop: self.fb_base + eop_pa,
                eop_bytes: 0x1000,
                mqd_addr: self.fb_base + mqd_pa,
                doorbell: gfx::mec_doorbell(xcc, queue),
            };
            let mqd = gfx::build_mqd(&self.mmio, xcc, self.chip.gc_major, &q)?;
            self.io().zero(eop_pa, 0x1000)?;
            self.io().write(mqd_pa, &mqd.to_bytes())?;
            gmc::hdp_flush(&self.mmio)?;
            gfx::map_queue(&self.mmio, xcc, &mqd, &q)?;
        }
        gmc::hdp_flush(&self.mmio)
    }

    /// The first SDMA engine's first ring (SDMA 6 on gfx11, SDMA 4.4 on gfx942).
    pub fn create_sdma_queue(
        &mut self,
        ring_va: u64,
        ring_bytes: u64,
        rptr_va: u64,
        wptr_va: u64,
    ) -> Result<QueueHandle> {
        if !ring_bytes.is_power_of_two() || ring_bytes < 256 {
            return Err(Error::Protocol(format!("SDMA ring of {ring_bytes:#x} bytes: not a power of two ≥ 256")));
        }
        let q = SdmaQueueDesc {
            ring: ring_va,
            ring_bytes,
            rptr_addr: rptr_va,
            wptr_addr: wptr_va,
            doorbell: DOORBELL_SDMA0,
        };
        sdma::map_queue(&self.mmio, &self.chip, &q)?;
        let h = QueueHandle { doorbell: DOORBELL_SDMA0, kind: QueueKind::Sdma };
        self.queues.push((h, Vec::new()));
        Ok(h)
    }

    /// Dequeues one queue (the compute HQD, or the SDMA ring disabled) and frees its MQD and
    /// EOP buffer. A queue that does not dequeue keeps them (the engine may still read them).
    pub fn destroy_queue(&mut self, q: QueueHandle) -> Result<()> {
        let i = self.queues.iter().position(|(h, _)| *h == q).ok_or_else(|| {
            Error::Protocol(format!("{}: destroy of {q:?}, which is not a live queue", self.pci.name()))
        })?;
        match q.kind {
            QueueKind::Compute { queue } => gfx::unmap_queue_all(&self.mmio, queue)?,
            QueueKind::Sdma => sdma::unmap_queue(&self.mmio, &self.chip)?,
        }
        let (_, mem) = self.queues.remove(i);
        for pa in mem {
            self.vram.heap.free(pa)?;
        }
        Ok(())
    }

    /// Rings a queue's doorbell with its new write pointer (after the ring contents and the
    /// write-pointer memory are written and fenced).
    pub fn ring_doorbell(&self, q: QueueHandle, wptr: u64) -> Result<()> {
        let QueueKind::Compute { queue } = q.kind else {
            return self.pci.write64(AMD_BAR_DOORBELL, u64::from(q.doorbell) * 8, wptr);
        };
        // A compute ring has an HQD, and a doorbell, on every XCC.
        for xcc in boot::instances(&self.mmio, Ip::Gc) {
            self.pci.write64(AMD_BAR_DOORBELL, u64::from(gfx::mec_doorbell(xcc, queue)) * 8, wptr)?;
        }
        Ok(())
    }

    /// New IH entries, decoded; an error event puts the device in the error state that
    /// [`AmDevice::close`] records (the next open then boots fully).
    pub fn poll_interrupts(&mut self) -> Result<Vec<(IhEntry, IhEvent)>> {
        let io = VramIo { pci: self.pci.as_ref(), fb_base: self.fb_base };
        let ring = self.bufs.ih_ring;
        let entries = self.ih.drain(&self.mmio, |off| {
            let mut b = [0u8; 32];
            io.read(ring + off, &mut b)?;
            Ok(std::array::from_fn(|i| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().expect("4 bytes"))))
        })?;
        let g = self.pt_generation();
        let out: Vec<_> = entries.into_iter().map(|e| (e, e.event(g))).collect();
        if out.iter().any(|(_, ev)| ev.is_error()) {
            self.error_state = true;
        }
        Ok(out)
    }

    /// Brings the compute engine back after a hang or a fault ([`recover::reset_mec`]): every
    /// HQD dequeued with its waves killed, the CP soft-reset, the MEC restarted; compute queues
    /// still listed are gone with it (their MQD and EOP memory freed), the IH ring drained and
    /// the GC hub's fault status cleared. The SDMA queue is left as it is.
    pub fn reset_compute(&mut self) -> Result<()> {
        recover::reset_mec(&self.mmio, self.chip.gc_major, self.mec_start)?;
        let (gone, kept): (Vec<_>, Vec<_>) =
            std::mem::take(&mut self.queues).into_iter().partition(|(h, _)| h.kind != QueueKind::Sdma);
        self.queues = kept;
        for (_, mem) in gone {
            for pa in mem {
                self.vram.heap.free(pa)?;
            }
        }
        self.poll_interrupts()?;
        self.vm_fault()?;
        Ok(())
    }

    /// The GC hub's recorded VM fault, if any (cleared).
    pub fn vm_fault(&self) -> Result<Option<gmc::FaultStatus>> {
        gmc::fault_status(&self.mmio, Hub::gc(self.chip.gc_major, 0), true)
    }

    /// Dequeues every queue, disables SDMA and the IH, and marks the session closed
    /// (`SCRATCH_REG6` = 0 when clean, so the next open may boot partly).
    pub fn close(mut self) -> Result<()> {
        let mut first_err = None;
        for (h, _) in std::mem::take(&mut self.queues) {
            let r = match h.kind {
                QueueKind::Compute { queue } => gfx::unmap_queue_all(&self.mmio, queue),
                QueueKind::Sdma => sdma::unmap_queue(&self.mmio, &self.chip),
            };
            if let Err(e) = r {
                first_err.get_or_insert(e);
            }
        }
        if let Err(e) = IhRing::disable(&self.mmio) {
            first_err.get_or_insert(e);
        }
        // A session whose MEC had no firmware must not be reused by a partial boot.
        let dirty = self.error_state || first_err.is_some() || !self.mec_loaded;
        self.mmio.write(self.mmio.reg(Ip::Gc, 0, "SCRATCH_REG6")?, u32::from(dirty))?;
        first_err.map_or(Ok(()), Err)
    }
}

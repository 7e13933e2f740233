//! AM: the userspace PCI driver for AMD GPUs, with no amdgpu.ko — IP discovery, firmware,
//! the PSP and SMU, GMC page tables, the IH ring, and the compute and SDMA queues programmed
//! into the hardware's registers. Everything goes through [`crate::pci::PciDevice`].
//!
//! Entry point for the runtime: [`AmDevice::open`]`(pci, fw)` reads the VRAM size and the IP
//! discovery table, binds the register tables of the GC version found ([`chip`]), and boots
//! ([`boot`]: fully, or partly when the previous session closed cleanly). Then:
//! - [`AmDevice::alloc`]`(size, vram)` → [`GpuAlloc`] `{ va, size, place, cpu }`: VRAM or pinned
//!   system memory mapped at `va` in context 0's VA window (system memory snooped/uncached);
//!   `cpu` is the CPU address where the memory is mapped in this process, else use
//!   [`AmDevice::write`]/[`AmDevice::read`]; [`AmDevice::free`].
//! - [`AmDevice::create_compute_queue`]`(queue, ring_va, ring_bytes, rptr_va, wptr_va)` and
//!   [`AmDevice::create_sdma_queue`] → [`QueueHandle`] `{ doorbell }`; after writing the ring
//!   and the write-pointer memory, [`AmDevice::ring_doorbell`]`(q, wptr)` (a 64-bit store to
//!   BAR2 slot `doorbell`).
//! - [`AmDevice::poll_interrupts`]: the IH ring's new entries, decoded (VM faults with their VA,
//!   SQ errors); [`AmDevice::vm_fault`]: the GC hub's fault status.
//! - [`AmDevice::close`]: dequeue, disable, mark the session closed.
//!
//! Firmware files come through [`FirmwareSource`] ([`DirSource::system`]: /lib/firmware/amdgpu),
//! parsed by [`firmware`] and loaded in the PSP's order ([`BootFirmware::load`]).
//! `BAREGPU_TRACE=FILE` appends every register write of the boot, decoded by field.

pub mod boot;
pub mod chip;
pub mod device;
pub mod discovery;
pub mod firmware;
pub mod gfx;
pub mod gmc;
pub mod ih;
pub mod mmio;
pub mod mqd;
pub mod pagetable;
pub mod psp;
pub mod psp_abi;
pub mod raw;
pub mod recover;
pub mod sdma;
pub mod smu;
#[cfg(test)]
pub(crate) mod testing;
pub mod vm;
pub mod vram;

pub use boot::{BootFirmware, IpFirmware};
pub use device::{AmDevice, GpuAlloc, Placement, QueueHandle, QueueKind};
pub use firmware::{DirSource, FirmwareSource};

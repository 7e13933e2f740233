//! The interrupt handler (IH) ring: setup of ring 0 in OSSSYS (`ih_v6_0.c` / `vega20_ih.c`:
//! RB_BASE, RB_CNTL, the write-pointer writeback address, RPTR/WPTR) and decoding of its 32-byte
//! entries (`amdgpu_ih_decode_iv_helper`): client, source, ring, vmid, pasid, node and four
//! context dwords. A VM fault carries the page of the VA in ctx0 and ctx1[3:0]
//! (`gmc_v11_0_process_interrupt`, `kfd_int_process_v9.c`); an SQ interrupt carries its
//! encoding and, for errors, the error type (`kfd_int_process_v10.c`/`_v9.c`).

use super::mmio::{Ip, Mmio};
use super::pagetable::PtGeneration;
use crate::Result;

/// Bytes of one IH entry.
pub const ENTRY_BYTES: u64 = 32;

/// Client ids (`soc15_ih_clientid.h`).
pub const CLIENT_SOC21_GFX: u8 = 0x0a;
pub const CLIENT_VMC: u8 = 0x12;
pub const CLIENT_GRBM_CP: u8 = 0x14;
pub const CLIENT_UTCL2: u8 = 0x1b;
pub const CLIENT_SDMA0: u8 = 0x08;
/// Source ids (`ivsrcid/gfx/irqsrcs_gfx_*.h`, `soc15_int.h`).
pub const SRC_UTCL2_FAULT: u8 = 0;
pub const SRC_CP_EOP: u8 = 181;
pub const SRC_CP_BAD_OPCODE: u8 = 183;
pub const SRC_SDMA_TRAP: u8 = 224;
pub const SRC_SQ_INTERRUPT: u8 = 239;

/// One decoded entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IhEntry {
    pub client: u8,
    pub src: u8,
    pub ring: u8,
    pub vmid: u8,
    pub pasid: u16,
    pub node: u8,
    pub timestamp: u64,
    pub ctx: [u32; 4],
}

impl IhEntry {
    pub fn decode(dw: &[u32; 8]) -> IhEntry {
        IhEntry {
            client: dw[0] as u8,
            src: (dw[0] >> 8) as u8,
            ring: (dw[0] >> 16) as u8,
            vmid: ((dw[0] >> 24) & 0xf) as u8,
            timestamp: u64::from(dw[1]) | (u64::from(dw[2] & 0xffff) << 32),
            pasid: dw[3] as u16,
            node: (dw[3] >> 16) as u8,
            ctx: [dw[4], dw[5], dw[6], dw[7]],
        }
    }

    /// The inverse of [`IhEntry::decode`] (what the emulated IH writes).
    pub fn encode(&self) -> [u32; 8] {
        [
            u32::from(self.client)
                | (u32::from(self.src) << 8)
                | (u32::from(self.ring) << 16)
                | (u32::from(self.vmid & 0xf) << 24),
            self.timestamp as u32,
            ((self.timestamp >> 32) & 0xffff) as u32,
            u32::from(self.pasid) | (u32::from(self.node) << 16),
            self.ctx[0],
            self.ctx[1],
            self.ctx[2],
            self.ctx[3],
        ]
    }

    /// A VM (UTCL2 / VMC) fault entry for `va`; `write` sets the ctx1 write bit (0x20).
    pub fn vm_fault(generation: PtGeneration, va: u64, vmid: u8, write: bool) -> IhEntry {
        let page = va >> 12;
        let client = match generation {
            PtGeneration::Gfx9 => CLIENT_UTCL2,
            _ => CLIENT_SOC21_GFX,
        };
        let ctx1 = ((page >> 32) as u32 & 0xf) | if write { 0x20 } else { 0 };
        IhEntry { client, src: SRC_UTCL2_FAULT, vmid, ctx: [page as u32, ctx1, 0, 0], ..Default::default() }
    }

    /// What the entry means.
    pub fn event(&self, generation: PtGeneration) -> IhEvent {
        let vm_client = matches!(self.client, CLIENT_VMC | CLIENT_UTCL2)
            || (generation != PtGeneration::Gfx9 && self.client == CLIENT_SOC21_GFX && self.src == SRC_UTCL2_FAULT);
        if vm_client {
            let page = u64::from(self.ctx[0]) | (u64::from(self.ctx[1] & 0xf) << 32);
            return IhEvent::VmFault {
                va: page << 12,
                vmid: self.vmid,
                write: self.ctx[1] & 0x20 != 0,
                mmhub: self.client == CLIENT_VMC,
            };
        }
        match self.src {
            SRC_CP_EOP => IhEvent::EndOfPipe,
            SRC_SDMA_TRAP => IhEvent::SdmaTrap,
            SRC_CP_BAD_OPCODE => IhEvent::BadOpcode { ctx0: self.ctx[0] },
            SRC_SQ_INTERRUPT => {
                let (encoding, err) = match generation {
                    // ctxid0[27:26]; error type = bits 23:20 of the 24-bit data = ctxid1[7:4].
                    PtGeneration::Gfx9 => ((self.ctx[0] >> 26) & 3, (self.ctx[1] >> 4) & 0xf),
                    // ctxid1[7:6]; error type = ctxid0[22:19].
                    _ => ((self.ctx[1] >> 6) & 3, (self.ctx[0] >> 19) & 0xf),
                };
                match encoding {
                    2 => IhEvent::SqError(SqError::from_type(err)),
                    e => IhEvent::SqMessage { encoding: e, ctx0: self.ctx[0] },
                }
            }
            _ => IhEvent::Other,
        }
    }
}

/// `enum SQ_INTERRUPT_ERROR_TYPE` (kfd_int_process_v*.c).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqError {
    EdcFue,
    IllegalInstruction,
    MemoryViolation,
    EdcFed,
    Unknown(u32),
}

impl SqError {
    fn from_type(t: u32) -> SqError {
        match t {
            0 => SqError::EdcFue,
            1 => SqError::IllegalInstruction,
            2 => SqError::MemoryViolation,
            3 => SqError::EdcFed,
            t => SqError::Unknown(t),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IhEvent {
    /// A page fault at `va` (from the GC hub's UTCL2, or the MM hub when `mmhub`).
    VmFault {
        va: u64,
        vmid: u8,
        write: bool,
        mmhub: bool,
    },
    SqError(SqError),
    /// SQ auto/wave messages (not errors).
    SqMessage {
        encoding: u32,
        ctx0: u32,
    },
    BadOpcode {
        ctx0: u32,
    },
    EndOfPipe,
    SdmaTrap,
    Other,
}

impl IhEvent {
    /// Whether the event leaves the device in an error state (what a runtime reports).
    pub fn is_error(&self) -> bool {
        !matches!(self, IhEvent::EndOfPipe | IhEvent::SdmaTrap | IhEvent::SqMessage { .. })
    }
}

/// Ring 0 of the IH: `size` bytes at MC address `ring_mc`, its write pointer written back to
/// `wptr_mc`.
#[derive(Debug, Clone, Copy)]
pub struct IhRing {
    pub ring_mc: u64,
    pub size: u64,
    pub wptr_mc: u64,
    /// Byte offset of the next entry to read.
    pub rptr: u64,
}

impl IhRing {
    /// Programs ring 0 (`ih_v6_0_enable_ring`, `navi10_ih_toggle_ring_interrupts`): base, size,
    /// snooped system-memory writes, write-pointer writeback and overflow handling, then enables it.
    pub fn init(mmio: &Mmio, ring_mc: u64, size: u64, wptr_mc: u64) -> Result<IhRing> {
        let r = |n| mmio.reg(Ip::Osssys, 0, n);
        mmio.trace_note("IH ring 0");
        mmio.write(r("IH_RB_BASE")?, (ring_mc >> 8) as u32)?;
        mmio.write(r("IH_RB_BASE_HI")?, (ring_mc >> 40) as u32)?;
        let rb_size = (size / 4).trailing_zeros();
        let cntl = r("IH_RB_CNTL")?;
        let v = cntl.with(
            0,
            &[
                ("MC_SPACE", 4),
                ("RB_SIZE", rb_size),
                ("MC_SNOOP", 1),
                ("WPTR_OVERFLOW_CLEAR", 1),
                ("WPTR_OVERFLOW_ENABLE", 1),
                ("RPTR_REARM", 1),
                ("WPTR_WRITEBACK_ENABLE", 1),
            ],
        )?;
        mmio.write(cntl, v)?;
        mmio.write(r("IH_RB_WPTR_ADDR_LO")?, wptr_mc as u32)?;
        mmio.write(r("IH_RB_WPTR_ADDR_HI")?, (wptr_mc >> 32) as u32)?;
        mmio.write(r("IH_RB_RPTR")?, 0)?;
        mmio.write(r("IH_RB_WPTR")?, 0)?;
        mmio.write(r("IH_DOORBELL_RPTR")?, 0)?;
        mmio.write(cntl, cntl.with(v, &[("RB_ENABLE", 1), ("ENABLE_INTR", 1)])?)?;
        Ok(IhRing { ring_mc, size, wptr_mc, rptr: 0 })
    }

    /// Disables the ring (fini).
    pub fn disable(mmio: &Mmio) -> Result<()> {
        let cntl = mmio.reg(Ip::Osssys, 0, "IH_RB_CNTL")?;
        mmio.update(cntl, &[("RB_ENABLE", 0), ("ENABLE_INTR", 0)])?;
        Ok(())
    }

    /// Reads the entries between the read pointer and the hardware's write pointer (from
    /// `IH_RB_WPTR`) through `read_ring` (byte offset in the ring → 8 dwords), then acknowledges
    /// them (RPTR) and clears an overflow.
    pub fn drain(&mut self, mmio: &Mmio, mut read_ring: impl FnMut(u64) -> Result<[u32; 8]>) -> Result<Vec<IhEntry>> {
        let wptr_reg = mmio.reg(Ip::Osssys, 0, "IH_RB_WPTR")?;
        let w = mmio.read(wptr_reg)?;
        let overflow = wptr_reg.field("RB_OVERFLOW")?;
        let wptr = u64::from(wptr_reg.field("OFFSET")?.get(w)) * 4 % self.size;
        let mut out = Vec::new();
        while self.rptr != wptr {
            out.push(IhEntry::decode(&read_ring(self.rptr)?));
            self.rptr = (self.rptr + ENTRY_BYTES) % self.size;
        }
        mmio.write(mmio.reg(Ip::Osssys, 0, "IH_RB_RPTR")?, self.rptr as u32)?;
        if overflow.get(w) != 0 {
            let cntl = mmio.reg(Ip::Osssys, 0, "IH_RB_CNTL")?;
            let v = mmio.update(cntl, &[("WPTR_OVERFLOW_CLEAR", 1)])?;
            mmio.write(cntl, cntl.with(v, &[("WPTR_OVERFLOW_CLEAR", 0)])?)?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_decode_as_the_kernel_helper_does() {
        let dw = [0x0c14_b514u32 | (0x3 << 24), 0x1111_2222, 0x8000_0033, 0x0007_1234, 1, 2, 3, 4];
        let e = IhEntry::decode(&dw);
        assert_eq!((e.client, e.src, e.ring, e.vmid), (0x14, 0xb5, 0x14, 0xf));
        assert_eq!((e.pasid, e.node, e.timestamp, e.ctx), (0x1234, 7, 0x33_1111_2222, [1, 2, 3, 4]));
        assert_eq!(IhEntry::decode(&e.encode()), e);
        assert_eq!(e.event(PtGeneration::Gfx11), IhEvent::EndOfPipe);
    }

    #[test]
    fn utcl2_faults_carry_their_va() {
        for g in [PtGeneration::Gfx9, PtGeneration::Gfx11] {
            let va = 0xf123_4567_8000u64;
            let e = IhEntry::vm_fault(g, va, 0, true);
            assert_eq!(
                IhEntry::decode(&e.encode()).event(g),
                IhEvent::VmFault { va, vmid: 0, write: true, mmhub: false }
            );
        }
        // gmc_v11_0: addr = src_data[0] << 12 | (src_data[1] & 0xf) << 44; VMC is the MM hub.
        let e = IhEntry { client: CLIENT_VMC, ctx: [0x89abc, 0x2, 0, 0], ..Default::default() };
        assert_eq!(
            e.event(PtGeneration::Gfx11),
            IhEvent::VmFault { va: (0x2 << 44) | (0x89abc << 12), vmid: 0, write: false, mmhub: true }
        );
    }

    #[test]
    fn sq_error_types_by_generation() {
        // gfx11: encoding ctxid1[7:6] = 2, type ctxid0[22:19] = 2 (MEMVIOL).
        let e = IhEntry {
            client: CLIENT_GRBM_CP,
            src: SRC_SQ_INTERRUPT,
            ctx: [2 << 19, 2 << 6, 0, 0],
            ..Default::default()
        };
        assert_eq!(e.event(PtGeneration::Gfx11), IhEvent::SqError(SqError::MemoryViolation));
        // gfx9: encoding ctxid0[27:26] = 2, type ctxid1[7:4] = 1 (ILLEGAL_INST).
        let e = IhEntry {
            client: CLIENT_GRBM_CP,
            src: SRC_SQ_INTERRUPT,
            ctx: [2 << 26, 1 << 4, 0, 0],
            ..Default::default()
        };
        assert_eq!(e.event(PtGeneration::Gfx9), IhEvent::SqError(SqError::IllegalInstruction));
        assert!(e.event(PtGeneration::Gfx9).is_error());
        let wave = IhEntry { src: SRC_SQ_INTERRUPT, ctx: [5, 1 << 6, 0, 0], ..Default::default() };
        assert!(!wave.event(PtGeneration::Gfx11).is_error());
    }
}

//! Push-buffer method encoding and GPFIFO entries for the host (PBDMA) of Ampere, Ada, Hopper
//! and Blackwell channels.
//!
//! Method headers are the `NVC56F_DMA_*` formats of `clc56f.h` (open-gpu-doc
//! `classes/host/clc56f.h` and open-gpu-kernel-modules `src/common/sdk/nvidia/inc/class/clc56f.h`,
//! 580.65.06): method address (in dwords) 11:0, subchannel 15:13, count or immediate data
//! 28:16, SEC_OP 31:29. The Hopper and Blackwell host classes (`clc86f.h`, `clc96f.h`) keep
//! these formats and the GP entry layout, adding only the PB-extended-base control entry and
//! 25-bit semaphore upper addresses.
//!
//! GP entries (`NVC56F_GP_ENTRY0/1_*`, identical in `NVC86F_`/`NVC96F_`): entry0 has FETCH 0:0
//! and GET (address bits 31:2) in 31:2; entry1 has GET_HI (address bits 39:32) in 7:0, LEVEL 9:9,
//! LENGTH (dwords) 30:10, SYNC 31:31 — or, for a control entry (LENGTH 0), OPCODE in 7:0.

use crate::{Error, Result};

// USERD (`Nvc56fControl`, `Nvc86fControl`, `Nvc96fControl`): byte offsets.
pub const USERD_PUT: usize = 0x40;
pub const USERD_GET: usize = 0x44;
pub const USERD_GP_GET: usize = 0x88;
pub const USERD_GP_PUT: usize = 0x8c;

/// `NVC56F_NUMBER_OF_SUBCHANNELS`.
pub const SUBCHANNELS: u32 = 8;
/// The largest count or immediate value (13 bits, 28:16).
pub const MAX_COUNT: u32 = 0x1fff;
/// The largest method byte offset (12-bit dword address).
pub const MAX_METHOD: u32 = 0xfff << 2;

/// `NVC56F_DMA_SEC_OP_*`: how a header's data words are applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SecOp {
    /// `GRP0_USE_TERT` (0): the tertiary-op formats (subdevice masks).
    Grp0UseTert = 0,
    /// `INC_METHOD` (1): data word i goes to method + 4i.
    Inc = 1,
    /// `GRP2_USE_TERT` (2).
    Grp2UseTert = 2,
    /// `NON_INC_METHOD` (3): every data word goes to the same method.
    NonInc = 3,
    /// `IMMD_DATA_METHOD` (4): no data words; 13 bits of data in the header.
    Immediate = 4,
    /// `ONE_INC` (5): the first word to method, the rest to method + 4.
    OneInc = 5,
    /// `RESERVED6`.
    Reserved6 = 6,
    /// `END_PB_SEGMENT` (7).
    EndPbSegment = 7,
}

impl SecOp {
    pub fn from_bits(v: u32) -> SecOp {
        match v & 7 {
            0 => SecOp::Grp0UseTert,
            1 => SecOp::Inc,
            2 => SecOp::Grp2UseTert,
            3 => SecOp::NonInc,
            4 => SecOp::Immediate,
            5 => SecOp::OneInc,
            6 => SecOp::Reserved6,
            _ => SecOp::EndPbSegment,
        }
    }
}

/// A decoded method header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MethodHeader {
    pub op: SecOp,
    pub subchannel: u32,
    /// Byte offset of the method (the header holds it in dwords).
    pub method: u32,
    /// Data words that follow, or the immediate value for [`SecOp::Immediate`].
    pub count: u32,
}

impl MethodHeader {
    pub fn encode(&self) -> Result<u32> {
        if self.subchannel >= SUBCHANNELS {
            return Err(Error::Protocol(format!("subchannel {} out of range (0..8)", self.subchannel)));
        }
        if self.method > MAX_METHOD || self.method & 3 != 0 {
            return Err(Error::Protocol(format!("method {:#x} is not a dword offset below 0x4000", self.method)));
        }
        if self.count > MAX_COUNT {
            return Err(Error::Protocol(format!(
                "method {:#x}: {} does not fit the 13-bit {} field",
                self.method,
                self.count,
                if self.op == SecOp::Immediate { "immediate" } else { "count" }
            )));
        }
        Ok(((self.op as u32) << 29) | (self.count << 16) | (self.subchannel << 13) | (self.method >> 2))
    }

    pub fn decode(word: u32) -> MethodHeader {
        MethodHeader {
            op: SecOp::from_bits(word >> 29),
            subchannel: (word >> 13) & 7,
            method: (word & 0xfff) << 2,
            count: (word >> 16) & MAX_COUNT,
        }
    }

    /// Data words that follow this header in the push buffer.
    pub fn data_words(&self) -> u32 {
        match self.op {
            SecOp::Inc | SecOp::NonInc | SecOp::OneInc => self.count,
            _ => 0,
        }
    }
}

/// A push buffer being built: method headers and their data, as the host reads them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PushBuffer {
    words: Vec<u32>,
}

impl PushBuffer {
    pub fn new() -> PushBuffer {
        PushBuffer::default()
    }

    pub fn words(&self) -> &[u32] {
        &self.words
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    fn push(&mut self, op: SecOp, subchannel: u32, method: u32, data: &[u32]) -> Result<&mut Self> {
        let count = u32::try_from(data.len()).unwrap_or(u32::MAX);
        if count == 0 {
            return Err(Error::Protocol(format!("method {method:#x}: no data words")));
        }
        self.words.push(MethodHeader { op, subchannel, method, count }.encode()?);
        self.words.extend_from_slice(data);
        Ok(self)
    }

    /// Incrementing: `data[i]` to `method + 4 i`.
    pub fn inc(&mut self, subchannel: u32, method: u32, data: &[u32]) -> Result<&mut Self> {
        self.push(SecOp::Inc, subchannel, method, data)
    }

    /// Non-incrementing: every word to `method` (inline data streams).
    pub fn non_inc(&mut self, subchannel: u32, method: u32, data: &[u32]) -> Result<&mut Self> {
        self.push(SecOp::NonInc, subchannel, method, data)
    }

    /// Increment-once: `data[0]` to `method`, the rest to `method + 4`.
    pub fn one_inc(&mut self, subchannel: u32, method: u32, data: &[u32]) -> Result<&mut Self> {
        self.push(SecOp::OneInc, subchannel, method, data)
    }

    /// Immediate: a 13-bit value in the header itself.
    pub fn immediate(&mut self, subchannel: u32, method: u32, value: u32) -> Result<&mut Self> {
        let word = MethodHeader { op: SecOp::Immediate, subchannel, method, count: value }.encode()?;
        self.words.push(word);
        Ok(self)
    }

    /// `NVC56F_DMA_ENDSEG`: end of the push-buffer segment.
    pub fn end_segment(&mut self) -> &mut Self {
        self.words.push((SecOp::EndPbSegment as u32) << 29);
        self
    }

    /// `SET_OBJECT` (host method 0x0): bind `class` to `subchannel`.
    pub fn set_object(&mut self, subchannel: u32, class: u32) -> Result<&mut Self> {
        self.inc(subchannel, host::SET_OBJECT, &[class & 0xffff])
    }

    /// A host semaphore operation: SEM_ADDR_LO/HI, SEM_PAYLOAD_LO/HI, SEM_EXECUTE in one
    /// incrementing method on subchannel 0.
    pub fn semaphore(&mut self, addr: u64, payload: u64, execute: u32) -> Result<&mut Self> {
        if addr & 3 != 0 || addr >> 57 != 0 {
            return Err(Error::Protocol(format!("semaphore address {addr:#x} is not 4-byte aligned below 2^57")));
        }
        self.inc(
            0,
            host::SEM_ADDR_LO,
            &[addr as u32, (addr >> 32) as u32, payload as u32, (payload >> 32) as u32, execute],
        )
    }
}

/// Host (PBDMA) methods, valid on any subchannel (`clc56f.h`, same offsets in `clc86f.h`,
/// `clc96f.h`).
pub mod host {
    pub const SET_OBJECT: u32 = 0x0;
    pub const NON_STALL_INTERRUPT: u32 = 0x20;
    pub const SEM_ADDR_LO: u32 = 0x5c;
    pub const SEM_ADDR_HI: u32 = 0x60;
    pub const SEM_PAYLOAD_LO: u32 = 0x64;
    pub const SEM_PAYLOAD_HI: u32 = 0x68;
    pub const SEM_EXECUTE: u32 = 0x6c;
    pub const WFI: u32 = 0x78;
    /// Methods below this offset belong to the host; the rest go to the subchannel's object.
    pub const HOST_METHODS_END: u32 = 0x100;
    /// SEM_ADDR_HI: address bits 56:32 (24:0).
    pub const SEM_ADDR_HI_MASK: u32 = 0x1ff_ffff;
    /// SEM_EXECUTE OPERATION (2:0).
    pub const SEM_EXECUTE_OPERATION_MASK: u32 = 7;

    // SEM_EXECUTE fields.
    pub const SEM_EXECUTE_OPERATION_ACQUIRE: u32 = 0;
    pub const SEM_EXECUTE_OPERATION_RELEASE: u32 = 1;
    pub const SEM_EXECUTE_OPERATION_ACQ_STRICT_GEQ: u32 = 2;
    pub const SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ: u32 = 3;
    pub const SEM_EXECUTE_OPERATION_ACQ_AND: u32 = 4;
    pub const SEM_EXECUTE_OPERATION_ACQ_NOR: u32 = 5;
    pub const SEM_EXECUTE_OPERATION_REDUCTION: u32 = 6;
    /// ACQUIRE_SWITCH_TSG (12:12) = EN.
    pub const SEM_EXECUTE_ACQUIRE_SWITCH_TSG: u32 = 1 << 12;
    /// RELEASE_WFI (20:20) = EN.
    pub const SEM_EXECUTE_RELEASE_WFI: u32 = 1 << 20;
    /// PAYLOAD_SIZE (24:24) = 64BIT.
    pub const SEM_EXECUTE_PAYLOAD_SIZE_64BIT: u32 = 1 << 24;
    /// RELEASE_TIMESTAMP (25:25) = EN.
    pub const SEM_EXECUTE_RELEASE_TIMESTAMP: u32 = 1 << 25;
    /// REDUCTION (30:27) field shift; FORMAT (31:31) unsigned.
    pub const SEM_EXECUTE_REDUCTION_SHIFT: u32 = 27;
    pub const SEM_EXECUTE_REDUCTION_FORMAT_UNSIGNED: u32 = 1 << 31;
}

/// `NVC56F_GP_ENTRY1_LEVEL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpLevel {
    Main = 0,
    Subroutine = 1,
}

/// `NVC56F_GP_ENTRY1_OPCODE_*` of a control entry (LENGTH 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpOpcode {
    Nop = 0,
    Illegal = 1,
    GpCrc = 2,
    PbCrc = 3,
    /// Hopper and later (`NVC86F_GP_ENTRY1_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE`).
    SetPbSegmentExtendedBase = 4,
}

/// The largest push-buffer segment a GP entry can describe, in dwords (LENGTH is 21 bits).
pub const GP_MAX_LENGTH: u32 = (1 << 21) - 1;
/// GP entries address push buffers below 2^40 (GET_HI is 8 bits), without an extended base.
pub const GP_ADDRESS_LIMIT: u64 = 1 << 40;

/// A 64-bit GPFIFO entry (entry0 in the low word, entry1 in the high word, as the ring holds
/// them little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpEntry(pub u64);

impl GpEntry {
    /// An entry fetching `dwords` of push buffer at `addr`.
    pub fn segment(addr: u64, dwords: u32, level: GpLevel, sync_wait: bool) -> Result<GpEntry> {
        if addr & 3 != 0 || addr >= GP_ADDRESS_LIMIT {
            return Err(Error::Protocol(format!("push buffer at {addr:#x} is not 4-byte aligned below 2^40")));
        }
        if dwords == 0 || dwords > GP_MAX_LENGTH {
            return Err(Error::Protocol(format!("push-buffer segment of {dwords} dwords (1..=0x1fffff)")));
        }
        let entry0 = addr as u32 & !3; // GET 31:2, FETCH 0 = UNCONDITIONAL
        let entry1 = ((addr >> 32) as u32 & 0xff) | ((level as u32) << 9) | (dwords << 10) | ((sync_wait as u32) << 31);
        Ok(GpEntry(entry0 as u64 | ((entry1 as u64) << 32)))
    }

    /// A control entry (LENGTH 0) with `opcode`; `operand` goes to entry0 (for
    /// SET_PB_SEGMENT_EXTENDED_BASE, `PB_EXTENDED_BASE_OPERAND` 24:8).
    pub fn control(opcode: GpOpcode, operand: u32) -> GpEntry {
        GpEntry(operand as u64 | ((opcode as u64) << 32))
    }

    /// SET_PB_SEGMENT_EXTENDED_BASE with a 17-bit operand in 24:8 of entry0.
    pub fn set_pb_segment_extended_base(operand: u32) -> Result<GpEntry> {
        if operand >> 17 != 0 {
            return Err(Error::Protocol(format!("PB extended base {operand:#x} exceeds 17 bits")));
        }
        Ok(GpEntry::control(GpOpcode::SetPbSegmentExtendedBase, operand << 8))
    }

    pub fn entry0(self) -> u32 {
        self.0 as u32
    }

    pub fn entry1(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// Push-buffer address (GET and GET_HI).
    pub fn address(self) -> u64 {
        (self.entry0() & !3) as u64 | (((self.entry1() & 0xff) as u64) << 32)
    }

    /// LENGTH, in dwords (0 for a control entry).
    pub fn length(self) -> u32 {
        (self.entry1() >> 10) & GP_MAX_LENGTH
    }

    pub fn level(self) -> GpLevel {
        if self.entry1() & (1 << 9) != 0 {
            GpLevel::Subroutine
        } else {
            GpLevel::Main
        }
    }

    pub fn sync_wait(self) -> bool {
        self.entry1() >> 31 != 0
    }

    pub fn conditional_fetch(self) -> bool {
        self.entry0() & 1 != 0
    }

    /// OPCODE of a control entry.
    pub fn opcode(self) -> u32 {
        self.entry1() & 0xff
    }
}

/// One line per method header of a push buffer, with its data words: what `baregpu decode gpfifo`
/// and `BAREGPU_TRACE` print.
pub fn decode(words: &[u32]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let h = MethodHeader::decode(words[i]);
        let n = h.data_words() as usize;
        let line = match h.op {
            SecOp::Immediate => {
                format!("{:#06x}: IMMD subch {} method {:#06x} = {:#x}", i * 4, h.subchannel, h.method, h.count)
            }
            SecOp::Inc | SecOp::NonInc | SecOp::OneInc => {
                let data = words.get(i + 1..i + 1 + n);
                let shown = match data {
                    Some(d) => d.iter().map(|w| format!("{w:#x}")).collect::<Vec<_>>().join(" "),
                    None => format!("(truncated: {n} data words expected, {} left)", words.len() - i - 1),
                };
                format!("{:#06x}: {:?} subch {} method {:#06x} [{n}] {shown}", i * 4, h.op, h.subchannel, h.method)
            }
            op => format!("{:#06x}: {op:?} header {:#010x}", i * 4, words[i]),
        };
        out.push(line);
        i += 1 + n;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips() {
        for h in [
            MethodHeader { op: SecOp::Inc, subchannel: 4, method: 0x300, count: 1 },
            MethodHeader { op: SecOp::NonInc, subchannel: 1, method: 0x1b4, count: 0x1fff },
            MethodHeader { op: SecOp::Immediate, subchannel: 7, method: 0x3ffc, count: 0x1234 },
            MethodHeader { op: SecOp::OneInc, subchannel: 0, method: 0, count: 2 },
        ] {
            assert_eq!(MethodHeader::decode(h.encode().unwrap()), h);
        }
    }

    #[test]
    fn bad_headers_are_errors() {
        let bad = |op, subchannel, method, count| MethodHeader { op, subchannel, method, count }.encode().is_err();
        assert!(bad(SecOp::Inc, 8, 0, 1));
        assert!(bad(SecOp::Inc, 0, 0x4000, 1));
        assert!(bad(SecOp::Inc, 0, 0x102, 1));
        assert!(bad(SecOp::Inc, 0, 0, 0x2000));
        assert!(PushBuffer::new().inc(0, 0, &[]).is_err());
        assert!(GpEntry::segment(1 << 40, 1, GpLevel::Main, false).is_err());
        assert!(GpEntry::segment(0x1002, 1, GpLevel::Main, false).is_err());
        assert!(GpEntry::segment(0x1000, 1 << 21, GpLevel::Main, false).is_err());
        assert!(GpEntry::set_pb_segment_extended_base(1 << 17).is_err());
    }

    #[test]
    fn gp_entry_round_trips() {
        let e = GpEntry::segment(0xab_1234_5670, 0x1f_ffff, GpLevel::Subroutine, true).unwrap();
        assert_eq!(e.address(), 0xab_1234_5670);
        assert_eq!(e.length(), 0x1f_ffff);
        assert_eq!(e.level(), GpLevel::Subroutine);
        assert!(e.sync_wait() && !e.conditional_fetch());
    }

    #[test]
    fn push_buffers_decode_header_by_header() {
        let mut pb = PushBuffer::new();
        pb.inc(1, 0x2b4, &[1, 2]).unwrap().immediate(4, 0x100, 7).unwrap().non_inc(0, 0x10, &[9]).unwrap();
        let lines = decode(pb.words());
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].contains("Inc subch 1 method 0x02b4 [2] 0x1 0x2"), "{}", lines[0]);
        assert!(lines[1].contains("IMMD subch 4 method 0x0100 = 0x7"), "{}", lines[1]);
        assert!(lines[2].contains("NonInc subch 0 method 0x0010 [1] 0x9"), "{}", lines[2]);
        // A header promising more data than there is says so instead of reading past the end.
        let cut = &pb.words()[..2];
        assert!(decode(cut)[0].contains("truncated"));
    }
}

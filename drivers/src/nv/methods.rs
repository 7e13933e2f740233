//! Compute-class and copy-class methods: the offsets and fields the runtime uses, as data, and
//! small encoders that append them to a [`PushBuffer`].
//!
//! Compute offsets are those of `clc6c0.h` (AMPERE_COMPUTE_A); `clc7c0.h`, `clc9c0.h`,
//! `clcbc0.h` (HOPPER_COMPUTE_A) and `clcec0.h` (BLACKWELL_COMPUTE_B) keep every offset listed
//! here (open-gpu-doc c8607fe5). Hopper widens some upper-address fields (SET_SHADER_LOCAL_MEMORY_A
//! 24:0, SET_REPORT_SEMAPHORE_A 24:0, SET_INLINE_QMD_ADDRESS_A 8:0 plus INLINE_SIZE) and adds
//! SEND_SIGNALING_PCAS2_B SELECT/OFFSET_MINUS_ONE and PCAS actions 0xC/0xD.
//!
//! Copy offsets are those of `clc6b5.h` (AMPERE_DMA_COPY_A); `clc7b5.h`, `clc8b5.h`
//! (HOPPER_DMA_COPY_A) and `clcab5.h` (BLACKWELL_DMA_COPY_B) keep them. Hopper adds
//! SET_SEMAPHORE_PAYLOAD_UPPER (0x24c) and LAUNCH_DMA SEMAPHORE_PAYLOAD_SIZE (27:27), and widens
//! OFFSET_IN/OUT_UPPER and SET_SEMAPHORE_A to 25 bits.

use crate::nv::pushbuf::PushBuffer;
use crate::{Error, Result};

/// The subchannel the runtime binds the compute object to (tinygrad's convention; any of 0..8
/// works as long as SET_OBJECT used the same one).
pub const COMPUTE_SUBCHANNEL: u32 = 1;
/// The subchannel of the copy object.
pub const COPY_SUBCHANNEL: u32 = 4;

/// Compute-class methods (`NVC6C0_*`, byte offsets).
pub mod compute {
    pub const SET_OBJECT: u32 = 0x0000;
    pub const NO_OPERATION: u32 = 0x0100;
    pub const WAIT_FOR_IDLE: u32 = 0x0110;
    pub const PM_TRIGGER: u32 = 0x0140;
    pub const LINE_LENGTH_IN: u32 = 0x0180;
    pub const LINE_COUNT: u32 = 0x0184;
    pub const OFFSET_OUT_UPPER: u32 = 0x0188;
    pub const OFFSET_OUT: u32 = 0x018c;
    pub const LAUNCH_DMA: u32 = 0x01b0;
    pub const LOAD_INLINE_DATA: u32 = 0x01b4;
    pub const INVALIDATE_SHADER_CACHES: u32 = 0x021c;
    pub const SET_QMD_VERSION: u32 = 0x0288;
    pub const INVALIDATE_SKED_CACHES: u32 = 0x0298;
    pub const SET_SHADER_SHARED_MEMORY_WINDOW_A: u32 = 0x02a0;
    pub const SET_SHADER_SHARED_MEMORY_WINDOW_B: u32 = 0x02a4;
    pub const SEND_PCAS_A: u32 = 0x02b4;
    pub const SEND_PCAS_B: u32 = 0x02b8;
    pub const SEND_SIGNALING_PCAS_B: u32 = 0x02bc;
    pub const SEND_SIGNALING_PCAS2_B: u32 = 0x02c0;
    pub const SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A: u32 = 0x02e4;
    pub const SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B: u32 = 0x02e8;
    pub const SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C: u32 = 0x02ec;
    pub const SET_SPA_VERSION: u32 = 0x0310;
    pub const SET_INLINE_QMD_ADDRESS_A: u32 = 0x0318;
    pub const SET_INLINE_QMD_ADDRESS_B: u32 = 0x031c;
    /// `LOAD_INLINE_QMD_DATA(i)` = 0x0320 + 4 i.
    pub const LOAD_INLINE_QMD_DATA: u32 = 0x0320;
    pub const SET_SHADER_LOCAL_MEMORY_A: u32 = 0x0790;
    pub const SET_SHADER_LOCAL_MEMORY_B: u32 = 0x0794;
    pub const SET_SHADER_LOCAL_MEMORY_WINDOW_A: u32 = 0x07b0;
    pub const SET_SHADER_LOCAL_MEMORY_WINDOW_B: u32 = 0x07b4;
    pub const SET_SHADER_EXCEPTIONS: u32 = 0x1528;
    pub const INVALIDATE_SHADER_CACHES_NO_WFI: u32 = 0x1698;
    pub const SET_REPORT_SEMAPHORE_A: u32 = 0x1b00;
    pub const SET_REPORT_SEMAPHORE_B: u32 = 0x1b04;
    pub const SET_REPORT_SEMAPHORE_C: u32 = 0x1b08;
    pub const SET_REPORT_SEMAPHORE_D: u32 = 0x1b0c;

    // SEND_SIGNALING_PCAS2_B PCAS_ACTION (3:0).
    pub const PCAS_ACTION_NOP: u32 = 0x0;
    pub const PCAS_ACTION_INVALIDATE: u32 = 0x1;
    pub const PCAS_ACTION_SCHEDULE: u32 = 0x2;
    pub const PCAS_ACTION_INVALIDATE_COPY_SCHEDULE: u32 = 0x3;
    pub const PCAS_ACTION_INCREMENT_PUT: u32 = 0x6;
    pub const PCAS_ACTION_DECREMENT_DEPENDENCE: u32 = 0x7;
    pub const PCAS_ACTION_PREFETCH: u32 = 0x8;
    pub const PCAS_ACTION_PREFETCH_SCHEDULE: u32 = 0x9;
    pub const PCAS_ACTION_INVALIDATE_PREFETCH_COPY_SCHEDULE: u32 = 0xa;
    /// Hopper and later.
    pub const PCAS_ACTION_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING: u32 = 0xb;
    pub const PCAS_ACTION_MASK: u32 = 0xf;
    /// The actions that schedule the QMD SEND_PCAS_A named.
    pub const PCAS_SCHEDULING_ACTIONS: [u32; 5] = [
        PCAS_ACTION_SCHEDULE,
        PCAS_ACTION_INVALIDATE_COPY_SCHEDULE,
        PCAS_ACTION_PREFETCH_SCHEDULE,
        PCAS_ACTION_INVALIDATE_PREFETCH_COPY_SCHEDULE,
        PCAS_ACTION_INVALIDATE_PREFETCH_COPY_FORCE_REQUIRE_SCHEDULING,
    ];
    /// SEND_PCAS_A holds the QMD address shifted right by this.
    pub const SEND_PCAS_A_QMD_ADDRESS_SHIFT: u32 = 8;

    // INVALIDATE_SHADER_CACHES_NO_WFI fields.
    pub const INVALIDATE_INSTRUCTION: u32 = 1 << 0;
    pub const INVALIDATE_GLOBAL_DATA: u32 = 1 << 4;
    pub const INVALIDATE_CONSTANT: u32 = 1 << 12;
    // INVALIDATE_SHADER_CACHES (with WFI) adds LOCKS (1:1) and FLUSH_DATA (2:2); DATA is 4:4.
    pub const INVALIDATE_LOCKS: u32 = 1 << 1;
    pub const INVALIDATE_FLUSH_DATA: u32 = 1 << 2;

    // SET_REPORT_SEMAPHORE_D fields.
    pub const REPORT_SEMAPHORE_D_OPERATION_RELEASE: u32 = 0;
    pub const REPORT_SEMAPHORE_D_OPERATION_TRAP: u32 = 3;
    pub const REPORT_SEMAPHORE_D_FLUSH_DISABLE: u32 = 1 << 2;
    pub const REPORT_SEMAPHORE_D_REDUCTION_ENABLE: u32 = 1 << 3;
    pub const REPORT_SEMAPHORE_D_AWAKEN_ENABLE: u32 = 1 << 20;
    /// STRUCTURE_SIZE (28:28) = ONE_WORD; 0 = FOUR_WORDS (payload and timestamp).
    pub const REPORT_SEMAPHORE_D_STRUCTURE_SIZE_ONE_WORD: u32 = 1 << 28;

    // LAUNCH_DMA (the compute class's inline-data DMA) fields.
    pub const LAUNCH_DMA_DST_MEMORY_LAYOUT_PITCH: u32 = 1 << 0;
    /// COMPLETION_TYPE (5:4) = FLUSH_ONLY.
    pub const LAUNCH_DMA_COMPLETION_TYPE_FLUSH_ONLY: u32 = 1 << 4;
    pub const LAUNCH_DMA_SYSMEMBAR_DISABLE: u32 = 1 << 6;
}

/// Copy-class methods (`NVC6B5_*`, byte offsets).
pub mod copy {
    pub const NOP: u32 = 0x0100;
    pub const PM_TRIGGER: u32 = 0x0140;
    pub const SET_SEMAPHORE_A: u32 = 0x0240;
    pub const SET_SEMAPHORE_B: u32 = 0x0244;
    pub const SET_SEMAPHORE_PAYLOAD: u32 = 0x0248;
    /// Hopper and later (`NVC8B5_SET_SEMAPHORE_PAYLOAD_UPPER`).
    pub const SET_SEMAPHORE_PAYLOAD_UPPER: u32 = 0x024c;
    pub const SET_SRC_PHYS_MODE: u32 = 0x0260;
    pub const SET_DST_PHYS_MODE: u32 = 0x0264;
    pub const LAUNCH_DMA: u32 = 0x0300;
    pub const OFFSET_IN_UPPER: u32 = 0x0400;
    pub const OFFSET_IN_LOWER: u32 = 0x0404;
    pub const OFFSET_OUT_UPPER: u32 = 0x0408;
    pub const OFFSET_OUT_LOWER: u32 = 0x040c;
    pub const PITCH_IN: u32 = 0x0410;
    pub const PITCH_OUT: u32 = 0x0414;
    pub const LINE_LENGTH_IN: u32 = 0x0418;
    pub const LINE_COUNT: u32 = 0x041c;

    // LAUNCH_DMA fields.
    /// DATA_TRANSFER_TYPE (1:0).
    pub const DATA_TRANSFER_TYPE_NONE: u32 = 0;
    pub const DATA_TRANSFER_TYPE_PIPELINED: u32 = 1;
    pub const DATA_TRANSFER_TYPE_NON_PIPELINED: u32 = 2;
    pub const DATA_TRANSFER_TYPE_MASK: u32 = 3;
    /// FLUSH_ENABLE (2:2).
    pub const FLUSH_ENABLE: u32 = 1 << 2;
    /// SEMAPHORE_TYPE (4:3) shift: 1 = RELEASE_ONE_WORD (c8b5: NO_TIMESTAMP), 2 = RELEASE_FOUR_WORD
    /// (c8b5: WITH_TIMESTAMP).
    pub const SEMAPHORE_TYPE_SHIFT: u32 = 3;
    pub const SEMAPHORE_TYPE_RELEASE_ONE_WORD: u32 = 1 << 3;
    pub const SEMAPHORE_TYPE_RELEASE_FOUR_WORD: u32 = 2 << 3;
    pub const SEMAPHORE_TYPE_MASK: u32 = 3 << 3;
    /// INTERRUPT_TYPE (6:5) shift.
    pub const INTERRUPT_TYPE_SHIFT: u32 = 5;
    pub const INTERRUPT_TYPE_MASK: u32 = 3 << 5;
    /// OFFSET_IN_UPPER, OFFSET_OUT_UPPER, SET_SEMAPHORE_A: address bits 56:32 (24:0; Ampere
    /// uses 16:0 and leaves the rest zero).
    pub const UPPER_ADDRESS_MASK: u32 = 0x1ff_ffff;
    /// SRC_MEMORY_LAYOUT (7:7) = PITCH.
    pub const SRC_MEMORY_LAYOUT_PITCH: u32 = 1 << 7;
    /// DST_MEMORY_LAYOUT (8:8) = PITCH.
    pub const DST_MEMORY_LAYOUT_PITCH: u32 = 1 << 8;
    /// MULTI_LINE_ENABLE (9:9).
    pub const MULTI_LINE_ENABLE: u32 = 1 << 9;
    /// SRC_TYPE (12:12) / DST_TYPE (13:13) = PHYSICAL.
    pub const SRC_TYPE_PHYSICAL: u32 = 1 << 12;
    pub const DST_TYPE_PHYSICAL: u32 = 1 << 13;
    /// SEMAPHORE_REDUCTION (17:14) shift, SIGN (18:18), ENABLE (19:19).
    pub const SEMAPHORE_REDUCTION_SHIFT: u32 = 14;
    pub const SEMAPHORE_REDUCTION_SIGNED: u32 = 1 << 18;
    pub const SEMAPHORE_REDUCTION_ENABLE: u32 = 1 << 19;
    /// FLUSH_TYPE (25:25) = GL (0 = SYS).
    pub const FLUSH_TYPE_GL: u32 = 1 << 25;
    /// DISABLE_PLC (26:26).
    pub const DISABLE_PLC: u32 = 1 << 26;
    /// SEMAPHORE_PAYLOAD_SIZE (27:27) = TWO_WORD (64-bit payload; Hopper and later).
    pub const SEMAPHORE_PAYLOAD_SIZE_64: u32 = 1 << 27;
}

/// A method as data: its header name and byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Method {
    pub name: &'static str,
    pub offset: u32,
}

/// Every compute method listed in [`compute`], by its header name (without `NVC6C0_`).
pub const COMPUTE_METHODS: &[Method] = &[
    Method { name: "SET_OBJECT", offset: compute::SET_OBJECT },
    Method { name: "NO_OPERATION", offset: compute::NO_OPERATION },
    Method { name: "WAIT_FOR_IDLE", offset: compute::WAIT_FOR_IDLE },
    Method { name: "PM_TRIGGER", offset: compute::PM_TRIGGER },
    Method { name: "LINE_LENGTH_IN", offset: compute::LINE_LENGTH_IN },
    Method { name: "LINE_COUNT", offset: compute::LINE_COUNT },
    Method { name: "OFFSET_OUT_UPPER", offset: compute::OFFSET_OUT_UPPER },
    Method { name: "OFFSET_OUT", offset: compute::OFFSET_OUT },
    Method { name: "LAUNCH_DMA", offset: compute::LAUNCH_DMA },
    Method { name: "LOAD_INLINE_DATA", offset: compute::LOAD_INLINE_DATA },
    Method { name: "INVALIDATE_SHADER_CACHES", offset: compute::INVALIDATE_SHADER_CACHES },
    Method { name: "SET_QMD_VERSION", offset: compute::SET_QMD_VERSION },
    Method { name: "INVALIDATE_SKED_CACHES", offset: compute::INVALIDATE_SKED_CACHES },
    Method { name: "SET_SHADER_SHARED_MEMORY_WINDOW_A", offset: compute::SET_SHADER_SHARED_MEMORY_WINDOW_A },
    Method { name: "SET_SHADER_SHARED_MEMORY_WINDOW_B", offset: compute::SET_SHADER_SHARED_MEMORY_WINDOW_B },
    Method { name: "SEND_PCAS_A", offset: compute::SEND_PCAS_A },
    Method { name: "SEND_PCAS_B", offset: compute::SEND_PCAS_B },
    Method { name: "SEND_SIGNALING_PCAS_B", offset: compute::SEND_SIGNALING_PCAS_B },
    Method { name: "SEND_SIGNALING_PCAS2_B", offset: compute::SEND_SIGNALING_PCAS2_B },
    Method {
        name: "SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A",
        offset: compute::SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A,
    },
    Method {
        name: "SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B",
        offset: compute::SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_B,
    },
    Method {
        name: "SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C",
        offset: compute::SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_C,
    },
    Method { name: "SET_SPA_VERSION", offset: compute::SET_SPA_VERSION },
    Method { name: "SET_INLINE_QMD_ADDRESS_A", offset: compute::SET_INLINE_QMD_ADDRESS_A },
    Method { name: "SET_INLINE_QMD_ADDRESS_B", offset: compute::SET_INLINE_QMD_ADDRESS_B },
    Method { name: "LOAD_INLINE_QMD_DATA(0)", offset: compute::LOAD_INLINE_QMD_DATA },
    Method { name: "SET_SHADER_LOCAL_MEMORY_A", offset: compute::SET_SHADER_LOCAL_MEMORY_A },
    Method { name: "SET_SHADER_LOCAL_MEMORY_B", offset: compute::SET_SHADER_LOCAL_MEMORY_B },
    Method { name: "SET_SHADER_LOCAL_MEMORY_WINDOW_A", offset: compute::SET_SHADER_LOCAL_MEMORY_WINDOW_A },
    Method { name: "SET_SHADER_LOCAL_MEMORY_WINDOW_B", offset: compute::SET_SHADER_LOCAL_MEMORY_WINDOW_B },
    Method { name: "SET_SHADER_EXCEPTIONS", offset: compute::SET_SHADER_EXCEPTIONS },
    Method { name: "INVALIDATE_SHADER_CACHES_NO_WFI", offset: compute::INVALIDATE_SHADER_CACHES_NO_WFI },
    Method { name: "SET_REPORT_SEMAPHORE_A", offset: compute::SET_REPORT_SEMAPHORE_A },
    Method { name: "SET_REPORT_SEMAPHORE_B", offset: compute::SET_REPORT_SEMAPHORE_B },
    Method { name: "SET_REPORT_SEMAPHORE_C", offset: compute::SET_REPORT_SEMAPHORE_C },
    Method { name: "SET_REPORT_SEMAPHORE_D", offset: compute::SET_REPORT_SEMAPHORE_D },
];

/// Every copy method listed in [`copy`], by its header name (without `NVC6B5_`).
/// `SET_SEMAPHORE_PAYLOAD_UPPER` exists from `clc8b5.h` (Hopper) on.
pub const COPY_METHODS: &[Method] = &[
    Method { name: "NOP", offset: copy::NOP },
    Method { name: "PM_TRIGGER", offset: copy::PM_TRIGGER },
    Method { name: "SET_SEMAPHORE_A", offset: copy::SET_SEMAPHORE_A },
    Method { name: "SET_SEMAPHORE_B", offset: copy::SET_SEMAPHORE_B },
    Method { name: "SET_SEMAPHORE_PAYLOAD", offset: copy::SET_SEMAPHORE_PAYLOAD },
    Method { name: "SET_SEMAPHORE_PAYLOAD_UPPER", offset: copy::SET_SEMAPHORE_PAYLOAD_UPPER },
    Method { name: "SET_SRC_PHYS_MODE", offset: copy::SET_SRC_PHYS_MODE },
    Method { name: "SET_DST_PHYS_MODE", offset: copy::SET_DST_PHYS_MODE },
    Method { name: "LAUNCH_DMA", offset: copy::LAUNCH_DMA },
    Method { name: "OFFSET_IN_UPPER", offset: copy::OFFSET_IN_UPPER },
    Method { name: "OFFSET_IN_LOWER", offset: copy::OFFSET_IN_LOWER },
    Method { name: "OFFSET_OUT_UPPER", offset: copy::OFFSET_OUT_UPPER },
    Method { name: "OFFSET_OUT_LOWER", offset: copy::OFFSET_OUT_LOWER },
    Method { name: "PITCH_IN", offset: copy::PITCH_IN },
    Method { name: "PITCH_OUT", offset: copy::PITCH_OUT },
    Method { name: "LINE_LENGTH_IN", offset: copy::LINE_LENGTH_IN },
    Method { name: "LINE_COUNT", offset: copy::LINE_COUNT },
];

/// The widest address the copy engine and the compute class's window/semaphore methods take:
/// 49 bits on Ampere/Ada (upper fields 16:0), 57 on Hopper and later (24:0).
pub fn upper_address_bits(hopper_or_later: bool) -> u32 {
    if hopper_or_later {
        25
    } else {
        17
    }
}

fn check_addr(what: &str, addr: u64, hopper_or_later: bool) -> Result<()> {
    let limit = 32 + upper_address_bits(hopper_or_later);
    if addr >> limit != 0 {
        return Err(Error::Protocol(format!("{what} {addr:#x} is beyond 2^{limit}")));
    }
    Ok(())
}

/// Compute-class commands on [`COMPUTE_SUBCHANNEL`].
pub struct ComputeCmds;

impl ComputeCmds {
    /// `SEND_PCAS_A` (QMD address >> 8) then `SEND_SIGNALING_PCAS2_B` PREFETCH_SCHEDULE.
    pub fn launch(pb: &mut PushBuffer, qmd_addr: u64) -> Result<()> {
        if qmd_addr & 0xff != 0 || qmd_addr >> 40 != 0 {
            return Err(Error::Protocol(format!("QMD address {qmd_addr:#x} is not 256-byte aligned below 2^40")));
        }
        pb.inc(COMPUTE_SUBCHANNEL, compute::SEND_PCAS_A, &[(qmd_addr >> 8) as u32])?;
        pb.inc(COMPUTE_SUBCHANNEL, compute::SEND_SIGNALING_PCAS2_B, &[compute::PCAS_ACTION_PREFETCH_SCHEDULE])?;
        Ok(())
    }

    /// `SET_SHADER_SHARED_MEMORY_WINDOW_A/B` (upper, lower).
    pub fn shared_memory_window(pb: &mut PushBuffer, window: u64) -> Result<()> {
        check_addr("shared-memory window", window, false)?;
        pb.inc(
            COMPUTE_SUBCHANNEL,
            compute::SET_SHADER_SHARED_MEMORY_WINDOW_A,
            &[(window >> 32) as u32, window as u32],
        )?;
        Ok(())
    }

    /// `SET_SHADER_LOCAL_MEMORY_WINDOW_A/B` (upper, lower).
    pub fn local_memory_window(pb: &mut PushBuffer, window: u64) -> Result<()> {
        check_addr("local-memory window", window, false)?;
        pb.inc(COMPUTE_SUBCHANNEL, compute::SET_SHADER_LOCAL_MEMORY_WINDOW_A, &[(window >> 32) as u32, window as u32])?;
        Ok(())
    }

    /// `SET_SHADER_LOCAL_MEMORY_A/B` (the backing buffer) and `..._NON_THROTTLED_A/B/C` (bytes per
    /// TPC, then MAX_SM_COUNT 0xff as tinygrad sends it).
    pub fn local_memory(pb: &mut PushBuffer, base: u64, bytes_per_tpc: u64, hopper_or_later: bool) -> Result<()> {
        check_addr("local memory", base, hopper_or_later)?;
        pb.inc(COMPUTE_SUBCHANNEL, compute::SET_SHADER_LOCAL_MEMORY_A, &[(base >> 32) as u32, base as u32])?;
        if bytes_per_tpc >> 40 != 0 {
            return Err(Error::Protocol(format!("local memory per TPC {bytes_per_tpc:#x} over 2^40")));
        }
        pb.inc(
            COMPUTE_SUBCHANNEL,
            compute::SET_SHADER_LOCAL_MEMORY_NON_THROTTLED_A,
            &[(bytes_per_tpc >> 32) as u32, bytes_per_tpc as u32, 0xff],
        )?;
        Ok(())
    }

    /// `INVALIDATE_SHADER_CACHES_NO_WFI` INSTRUCTION | GLOBAL_DATA | CONSTANT.
    pub fn invalidate_caches(pb: &mut PushBuffer) -> Result<()> {
        let v = compute::INVALIDATE_INSTRUCTION | compute::INVALIDATE_GLOBAL_DATA | compute::INVALIDATE_CONSTANT;
        pb.inc(COMPUTE_SUBCHANNEL, compute::INVALIDATE_SHADER_CACHES_NO_WFI, &[v])?;
        Ok(())
    }

    /// `SET_REPORT_SEMAPHORE_A..D`: a release of a 32-bit `payload` (ONE_WORD) or payload plus
    /// timestamp (FOUR_WORDS) once preceding work is done.
    pub fn report_semaphore(
        pb: &mut PushBuffer,
        addr: u64,
        payload: u32,
        timestamp: bool,
        hopper_or_later: bool,
    ) -> Result<()> {
        check_addr("report semaphore", addr, hopper_or_later)?;
        let mut d = compute::REPORT_SEMAPHORE_D_OPERATION_RELEASE;
        if !timestamp {
            d |= compute::REPORT_SEMAPHORE_D_STRUCTURE_SIZE_ONE_WORD;
        }
        pb.inc(COMPUTE_SUBCHANNEL, compute::SET_REPORT_SEMAPHORE_A, &[(addr >> 32) as u32, addr as u32, payload, d])?;
        Ok(())
    }
}

/// Copy-class commands on [`COPY_SUBCHANNEL`].
pub struct CopyCmds;

impl CopyCmds {
    /// The LAUNCH_DMA value of a plain linear copy: NON_PIPELINED, pitch layouts, virtual
    /// addresses, no flush (0x182, what tinygrad sends; the release that follows flushes).
    pub const LINEAR_COPY: u32 =
        copy::DATA_TRANSFER_TYPE_NON_PIPELINED | copy::SRC_MEMORY_LAYOUT_PITCH | copy::DST_MEMORY_LAYOUT_PITCH;

    /// A linear copy of `len` bytes, split into pieces of at most 2 GiB (LINE_LENGTH_IN is
    /// 32 bits; tinygrad splits at 2^31 too).
    pub fn copy(pb: &mut PushBuffer, dst: u64, src: u64, len: u64, hopper_or_later: bool) -> Result<()> {
        let end_src = src.checked_add(len);
        let end_dst = dst.checked_add(len);
        match (end_src, end_dst) {
            (Some(s), Some(d)) => {
                check_addr("copy source", s.saturating_sub(1), hopper_or_later)?;
                check_addr("copy destination", d.saturating_sub(1), hopper_or_later)?;
            }
            _ => return Err(Error::Protocol(format!("copy of {len:#x} bytes wraps the address space"))),
        }
        let mut done = 0;
        while done < len {
            let n = (len - done).min(1 << 31);
            let (s, d) = (src + done, dst + done);
            pb.inc(COPY_SUBCHANNEL, copy::OFFSET_IN_UPPER, &[(s >> 32) as u32, s as u32, (d >> 32) as u32, d as u32])?;
            pb.inc(COPY_SUBCHANNEL, copy::LINE_LENGTH_IN, &[n as u32])?;
            pb.inc(COPY_SUBCHANNEL, copy::LAUNCH_DMA, &[Self::LINEAR_COPY])?;
            done += n;
        }
        Ok(())
    }

    /// A semaphore release by the copy engine after its previous work: SET_SEMAPHORE_A/B/PAYLOAD
    /// (and PAYLOAD_UPPER with a 64-bit payload, Hopper and later), then LAUNCH_DMA with no
    /// transfer, FLUSH and SEMAPHORE_TYPE four-word (with timestamp) or one-word.
    pub fn release(pb: &mut PushBuffer, addr: u64, payload: u64, timestamp: bool, hopper_or_later: bool) -> Result<()> {
        check_addr("copy semaphore", addr, hopper_or_later)?;
        let mut launch = copy::FLUSH_ENABLE
            | if timestamp { copy::SEMAPHORE_TYPE_RELEASE_FOUR_WORD } else { copy::SEMAPHORE_TYPE_RELEASE_ONE_WORD };
        if payload >> 32 != 0 {
            if !hopper_or_later {
                return Err(Error::Protocol(format!(
                    "copy-engine payload {payload:#x} needs 64 bits (Hopper and later)"
                )));
            }
            pb.inc(
                COPY_SUBCHANNEL,
                copy::SET_SEMAPHORE_A,
                &[(addr >> 32) as u32, addr as u32, payload as u32, (payload >> 32) as u32],
            )?;
            launch |= copy::SEMAPHORE_PAYLOAD_SIZE_64;
        } else {
            pb.inc(COPY_SUBCHANNEL, copy::SET_SEMAPHORE_A, &[(addr >> 32) as u32, addr as u32, payload as u32])?;
        }
        pb.inc(COPY_SUBCHANNEL, copy::LAUNCH_DMA, &[launch])?;
        Ok(())
    }
}

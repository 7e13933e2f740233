//! Push-buffer method headers and GPFIFO entries, word-exact against the host class headers
//! (`clc56f.h` NVC56F_DMA_* / NVC56F_GP_ENTRY*, unchanged in `clc86f.h` and `clc96f.h`), and
//! against the words a known-working driver (tinygrad, reference notes §6–7) emits.

use baregpu_drivers::nv::pushbuf::{host, GpEntry, GpLevel, GpOpcode, MethodHeader, PushBuffer, SecOp};

fn header(op: SecOp, subchannel: u32, method: u32, count: u32) -> u32 {
    MethodHeader { op, subchannel, method, count }.encode().unwrap()
}

#[test]
fn each_header_field_lands_in_its_bits() {
    // NVC56F_DMA_METHOD_ADDRESS 11:0 (dwords).
    assert_eq!(header(SecOp::Grp0UseTert, 0, 0x3ffc, 0), 0x0000_0fff);
    assert_eq!(header(SecOp::Grp0UseTert, 0, 0x4, 0), 0x0000_0001);
    // NVC56F_DMA_METHOD_SUBCHANNEL 15:13.
    assert_eq!(header(SecOp::Grp0UseTert, 7, 0, 0), 0x0000_e000);
    assert_eq!(header(SecOp::Grp0UseTert, 1, 0, 0), 0x0000_2000);
    // NVC56F_DMA_METHOD_COUNT / NVC56F_DMA_IMMD_DATA 28:16.
    assert_eq!(header(SecOp::Grp0UseTert, 0, 0, 0x1fff), 0x1fff_0000);
    assert_eq!(header(SecOp::Grp0UseTert, 0, 0, 1), 0x0001_0000);
    // NVC56F_DMA_SEC_OP 31:29 and its values.
    assert_eq!(header(SecOp::Inc, 0, 0, 0), 0x2000_0000); // INC_METHOD 1
    assert_eq!(header(SecOp::NonInc, 0, 0, 0), 0x6000_0000); // NON_INC_METHOD 3
    assert_eq!(header(SecOp::Immediate, 0, 0, 0), 0x8000_0000); // IMMD_DATA_METHOD 4
    assert_eq!(header(SecOp::OneInc, 0, 0, 0), 0xa000_0000); // ONE_INC 5
    assert_eq!(header(SecOp::EndPbSegment, 0, 0, 0), 0xe000_0000); // END_PB_SEGMENT 7
}

#[test]
fn methods_match_known_good_words() {
    let mut pb = PushBuffer::new();
    pb.set_object(1, 0xcbc0).unwrap(); // HOPPER_COMPUTE_A on subchannel 1
    pb.set_object(4, 0xc8b5).unwrap(); // HOPPER_DMA_COPY_A on subchannel 4
    pb.inc(1, 0x7b0, &[0x7293, 0]).unwrap(); // SET_SHADER_LOCAL_MEMORY_WINDOW_A/B
    pb.inc(4, 0x400, &[1, 2, 3, 4]).unwrap(); // OFFSET_IN_UPPER..OFFSET_OUT_LOWER
    pb.inc(0, host::NON_STALL_INTERRUPT, &[0]).unwrap();
    pb.non_inc(1, 0x1b4, &[0xa, 0xb, 0xc]).unwrap(); // LOAD_INLINE_DATA
    pb.one_inc(1, 0x320, &[0x11, 0x22, 0x33]).unwrap();
    pb.immediate(1, 0x2c0, 9).unwrap(); // SEND_SIGNALING_PCAS2_B, PREFETCH_SCHEDULE
    pb.end_segment();
    assert_eq!(
        pb.words(),
        [
            0x2001_2000,
            0xcbc0, //
            0x2001_8000,
            0xc8b5, //
            0x2002_21ec,
            0x7293,
            0, //
            0x2004_8100,
            1,
            2,
            3,
            4, //
            0x2001_0008,
            0, //
            0x6003_206d,
            0xa,
            0xb,
            0xc, //
            0xa003_20c8,
            0x11,
            0x22,
            0x33,        //
            0x8009_20b0, //
            0xe000_0000,
        ]
    );
    // Decoding walks the same stream.
    let mut i = 0;
    let mut ops = Vec::new();
    while i < pb.len() {
        let h = MethodHeader::decode(pb.words()[i]);
        ops.push((h.op, h.subchannel, h.method));
        i += 1 + h.data_words() as usize;
    }
    assert_eq!(ops.len(), 9);
    assert_eq!(ops[5], (SecOp::NonInc, 1, 0x1b4));
    assert_eq!(ops[7], (SecOp::Immediate, 1, 0x2c0));
}

#[test]
fn host_semaphores_match_known_good_words() {
    // SEM_ADDR_LO..SEM_EXECUTE as one incrementing method: header 0x20050017.
    let wait = host::SEM_EXECUTE_OPERATION_ACQ_CIRC_GEQ | host::SEM_EXECUTE_PAYLOAD_SIZE_64BIT;
    let signal = host::SEM_EXECUTE_OPERATION_RELEASE
        | host::SEM_EXECUTE_RELEASE_WFI
        | host::SEM_EXECUTE_PAYLOAD_SIZE_64BIT
        | host::SEM_EXECUTE_RELEASE_TIMESTAMP;
    assert_eq!(wait, 0x0100_0003);
    assert_eq!(signal, 0x0310_0001);
    let mut pb = PushBuffer::new();
    pb.semaphore(0x10_2000_0010, 0x1_0000_0005, signal).unwrap();
    assert_eq!(pb.words(), [0x2005_0017, 0x2000_0010, 0x10, 5, 1, 0x0310_0001]);
    assert!(PushBuffer::new().semaphore(0x1002, 0, wait).is_err());
}

#[test]
fn gp_entries_put_each_field_in_its_bits() {
    // entry0: GET 31:2 (FETCH 0:0 = UNCONDITIONAL); entry1: GET_HI 7:0, LEVEL 9:9, LENGTH 30:10,
    // SYNC 31:31.
    let e = GpEntry::segment(0x12_3456_7800, 0x40, GpLevel::Main, false).unwrap();
    assert_eq!((e.entry0(), e.entry1()), (0x3456_7800, 0x12 | (0x40 << 10)));
    let e = GpEntry::segment(0x1000, 1, GpLevel::Subroutine, false).unwrap();
    assert_eq!(e.entry1(), (1 << 9) | (1 << 10));
    let e = GpEntry::segment(0x1000, 1, GpLevel::Main, true).unwrap();
    assert_eq!(e.entry1(), (1 << 31) | (1 << 10));
    let e = GpEntry::segment(0xff_ffff_fffc, 0x1f_ffff, GpLevel::Main, false).unwrap();
    assert_eq!((e.entry0(), e.entry1()), (0xffff_fffc, 0xff | (0x1f_ffff << 10)));
}

#[test]
fn gp_entries_match_known_good_words() {
    // tinygrad: (addr//4 << 2) | (len << 42) | (1 << 41) for a subroutine-level segment.
    for (addr, len) in [(0x10_0020_0000u64, 0x10u64), (0x7f_ffff_f000, 0x1234), (0x4000, 1)] {
        let e = GpEntry::segment(addr, len as u32, GpLevel::Subroutine, false).unwrap();
        assert_eq!(e.0, ((addr / 4) << 2) | (len << 42) | (1 << 41), "{addr:#x}");
    }
}

#[test]
fn control_entries() {
    // NVC86F_GP_ENTRY1_OPCODE_SET_PB_SEGMENT_EXTENDED_BASE (4) with the operand in entry0 24:8.
    let e = GpEntry::set_pb_segment_extended_base(0x1_ffff).unwrap();
    assert_eq!((e.entry0(), e.entry1()), (0x01ff_ff00, 4));
    assert_eq!((e.length(), e.opcode()), (0, 4));
    let nop = GpEntry::control(GpOpcode::Nop, 0);
    assert_eq!(nop.0, 0);
}

//! Checks the generated hardware tables against values known independently of the generator:
//! the PM4 opcode map, Mesa's byte addresses of the compute SH registers (`R_00B830_COMPUTE_PGM_LO`
//! ...), SDMA opcodes and packet layouts as the drivers emit them, and register fields as the
//! kernel headers spell them.

use baregpu_autogen::amd::regs::{self, Field, Reg};
use baregpu_autogen::amd::{ip_base, pm4_mec, pm4_nv, pm4_soc15, sdma_4_0_0, sdma_5_0_0, sdma_6_0_0, sdma_7_0};

/// Absolute MMIO dword address of a GC register through a static segment table.
fn abs(table: &[[u32; 6]], reg: Reg) -> u32 {
    reg.addr(&table[0]).expect("segment present")
}

#[test]
fn pm4_opcodes_match_the_pm4_spec() {
    // (opcode, name) pairs of the PM4 type-3 opcode map.
    let spec = [
        (0x10, "NOP"),
        (0x15, "DISPATCH_DIRECT"),
        (0x23, "PRED_EXEC"),
        (0x3C, "WAIT_REG_MEM"),
        (0x3F, "INDIRECT_BUFFER"),
        (0x40, "COPY_DATA"),
        (0x46, "EVENT_WRITE"),
        (0x49, "RELEASE_MEM"),
        (0x58, "ACQUIRE_MEM"),
        (0x76, "SET_SH_REG"),
        (0x79, "SET_UCONFIG_REG"),
    ];
    let nv = [
        pm4_nv::PACKET3_NOP,
        pm4_nv::PACKET3_DISPATCH_DIRECT,
        pm4_nv::PACKET3_PRED_EXEC,
        pm4_nv::PACKET3_WAIT_REG_MEM,
        pm4_nv::PACKET3_INDIRECT_BUFFER,
        pm4_nv::PACKET3_COPY_DATA,
        pm4_nv::PACKET3_EVENT_WRITE,
        pm4_nv::PACKET3_RELEASE_MEM,
        pm4_nv::PACKET3_ACQUIRE_MEM,
        pm4_nv::PACKET3_SET_SH_REG,
        pm4_nv::PACKET3_SET_UCONFIG_REG,
    ];
    let soc = [
        pm4_soc15::PACKET3_NOP,
        pm4_soc15::PACKET3_DISPATCH_DIRECT,
        pm4_soc15::PACKET3_PRED_EXEC,
        pm4_soc15::PACKET3_WAIT_REG_MEM,
        pm4_soc15::PACKET3_INDIRECT_BUFFER,
        pm4_soc15::PACKET3_COPY_DATA,
        pm4_soc15::PACKET3_EVENT_WRITE,
        pm4_soc15::PACKET3_RELEASE_MEM,
        pm4_soc15::PACKET3_ACQUIRE_MEM,
        pm4_soc15::PACKET3_SET_SH_REG,
        pm4_soc15::PACKET3_SET_UCONFIG_REG,
    ];
    for (i, (op, name)) in spec.iter().enumerate() {
        assert_eq!(nv[i], *op, "nvd.h {name}");
        assert_eq!(soc[i], *op, "soc15d.h {name}");
    }
}

#[test]
fn pm4_header_builder() {
    // Type 3 in bits 31:30, count (payload dwords - 1) in 29:16, opcode in 15:8.
    assert_eq!(pm4_nv::PACKET3(pm4_nv::PACKET3_SET_SH_REG, 2), 0xC002_7600);
    assert_eq!(pm4_soc15::PACKET3(pm4_soc15::PACKET3_DISPATCH_DIRECT, 3), 0xC003_1500);
    assert_eq!(pm4_nv::PACKET3(pm4_nv::PACKET3_RELEASE_MEM, 6), 0xC006_4900);
    // The count field is 14 bits: larger counts do not spill into the type bits.
    assert_eq!(pm4_nv::PACKET3(0x10, 0x4000) >> 30, 3);
    assert_eq!(pm4_nv::CP_PACKET3_GET_OPCODE(0xC002_7600), 0x76);
    assert_eq!(pm4_nv::CP_PACKET_GET_COUNT(0xC002_7600), 2);
    assert_eq!(pm4_soc15::CP_PACKET_GET_TYPE(0xC002_7600), 3);
    // PACKET3_COMPUTE sets the shader-type bit (bit 1).
    assert_eq!(pm4_nv::PACKET3_COMPUTE(pm4_nv::PACKET3_NOP, 0), 0xC000_1002);
}

#[test]
fn pm4_register_windows_and_fields() {
    for (sh, uconfig) in [
        (pm4_nv::PACKET3_SET_SH_REG_START, pm4_nv::PACKET3_SET_UCONFIG_REG_START),
        (pm4_soc15::PACKET3_SET_SH_REG_START, pm4_soc15::PACKET3_SET_UCONFIG_REG_START),
    ] {
        assert_eq!(sh, 0x2C00);
        assert_eq!(uconfig, 0xC000);
    }
    assert_eq!(pm4_nv::PACKET3_SET_SH_REG_END, 0x3000);
    // WAIT_REG_MEM info for "memory, >=": function 5, mem space bit 4.
    assert_eq!(pm4_nv::WAIT_REG_MEM_FUNCTION(5) | pm4_nv::WAIT_REG_MEM_MEM_SPACE(1), 0x15);
    // Register-space wait with write-then-poll (HDP flush): operation 1 at bit 6.
    assert_eq!(pm4_soc15::WAIT_REG_MEM_FUNCTION(5) | pm4_soc15::WAIT_REG_MEM_OPERATION(1), 0x45);
    assert_eq!(pm4_nv::INDIRECT_BUFFER_VALID, 1 << 23);
    // RELEASE_MEM with end-of-pipe cache flush timestamp event (0x14, index 5) plus the gfx10+ GCR
    // write-back/invalidate bits, as the compute driver emits it on gfx11.
    let dw1 = pm4_nv::PACKET3_RELEASE_MEM_EVENT_TYPE(0x14)
        | pm4_nv::PACKET3_RELEASE_MEM_EVENT_INDEX(5)
        | pm4_nv::PACKET3_RELEASE_MEM_GCR_GLM_WB
        | pm4_nv::PACKET3_RELEASE_MEM_GCR_GLM_INV
        | pm4_nv::PACKET3_RELEASE_MEM_GCR_GLV_INV
        | pm4_nv::PACKET3_RELEASE_MEM_GCR_GL1_INV
        | pm4_nv::PACKET3_RELEASE_MEM_GCR_GL2_INV
        | pm4_nv::PACKET3_RELEASE_MEM_GCR_GL2_WB
        | pm4_nv::PACKET3_RELEASE_MEM_GCR_SEQ;
    assert_eq!(dw1, 0x0070_F514);
    // gfx9: same event with TC write-back and non-coherent actions.
    let dw1 = pm4_soc15::EVENT_TYPE(0x14)
        | pm4_soc15::EVENT_INDEX(5)
        | pm4_soc15::EOP_TC_WB_ACTION_EN
        | pm4_soc15::EOP_TC_NC_ACTION_EN;
    assert_eq!(dw1, 0x0008_8514);
    assert_eq!(pm4_nv::PACKET3_RELEASE_MEM_DATA_SEL(1), 0x2000_0000);
    assert_eq!(pm4_nv::PACKET3_RELEASE_MEM_INT_SEL(2) | pm4_nv::PACKET3_RELEASE_MEM_DATA_SEL(1), 0x2200_0000);
    // Full gfx10+ ACQUIRE_MEM GCR_CNTL: GLI, GLM, GLK, GLV, GL1, GL2 invalidate/write-back.
    let gcr = pm4_nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLI_INV(1)
        | pm4_nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLM_WB(1)
        | pm4_nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLM_INV(1)
        | pm4_nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLK_WB(1)
        | pm4_nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLK_INV(1)
        | pm4_nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GLV_INV(1)
        | pm4_nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL1_INV(1)
        | pm4_nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL2_INV(1)
        | pm4_nv::PACKET3_ACQUIRE_MEM_GCR_CNTL_GL2_WB(1);
    assert_eq!(gcr, 0xC3F1);
    // The PACKETJ builder's `type` parameter survives the keyword rename.
    assert_eq!(pm4_soc15::CP_PACKETJ_GET_TYPE(pm4_soc15::PACKETJ(0, 0, 0, 6)), 6);
}

#[test]
fn kfd_mec_packet_layouts() {
    use pm4_mec::pm4_mec_release_mem as rm;
    assert_eq!(pm4_mec::event_index__mec_release_mem__end_of_pipe, 5);
    assert_eq!(pm4_mec::data_sel__mec_release_mem__send_gpu_clock_counter, 3);
    assert_eq!(pm4_mec::int_sel__mec_release_mem__send_interrupt_after_write_confirm, 2);
    assert_eq!(pm4_mec::CACHE_FLUSH_AND_INV_TS_EVENT, 0x14);
    assert_eq!((rm::ordinal2::event_index_shift, rm::ordinal2::event_index_mask), (8, 0xF));
    assert_eq!(rm::ordinal2::tc_wb_action_ena_shift, 15);
    assert_eq!(rm::ordinal2::tc_nc_action_ena_shift, 19);
    assert_eq!((rm::ordinal3::data_sel_shift, rm::ordinal3::int_sel_shift, rm::ordinal3::dst_sel_shift), (29, 24, 16));
}

#[test]
fn compute_sh_registers_land_in_the_sh_window() {
    // Mesa's byte addresses: R_00B800_COMPUTE_DISPATCH_INITIATOR, R_00B830_COMPUTE_PGM_LO,
    // R_00B900_COMPUTE_USER_DATA_0; MMIO dword address = byte address / 4.
    let want = [
        (0xB800 / 4, "COMPUTE_DISPATCH_INITIATOR"),
        (0xB830 / 4, "COMPUTE_PGM_LO"),
        (0xB900 / 4, "COMPUTE_USER_DATA_0"),
    ];
    assert_eq!(want[1].0, 0x2E0C);
    assert_eq!(want[0].0, 0x2E00);
    for (dword, name) in want {
        // gfx11 / gfx12: navi-class GC base.
        for regs in [regs::gc_11_0_0::REGS, regs::gc_12_0_0::REGS] {
            let r = regs::find(regs, name).unwrap_or_else(|| panic!("{name}"));
            assert_eq!(abs(ip_base::sienna_cichlid::GC_BASE, *r), dword, "gfx11/12 {name}");
            assert_eq!(abs(ip_base::navi10::GC_BASE, *r), dword, "gfx11/12 {name}");
        }
        // gfx942 / gfx950: vega-class GC base.
        for regs in [regs::gc_9_4_3::REGS, regs::gc_9_5_0::REGS] {
            let r = regs::find(regs, name).unwrap_or_else(|| panic!("{name}"));
            for table in [ip_base::vega10::GC_BASE, ip_base::vega20::GC_BASE, ip_base::aldebaran::GC_BASE] {
                assert_eq!(abs(table, *r), dword, "gfx9 {name}");
            }
        }
    }
    // SET_SH_REG payload offset of COMPUTE_PGM_LO.
    let a = abs(ip_base::vega10::GC_BASE, regs::gc_9_4_3::regCOMPUTE_PGM_LO);
    assert_eq!(a - pm4_soc15::PACKET3_SET_SH_REG_START, 0x20C);
    let a = abs(ip_base::navi10::GC_BASE, regs::gc_11_0_0::regCOMPUTE_PGM_LO);
    assert_eq!(a - pm4_nv::PACKET3_SET_SH_REG_START, 0x20C);
    assert_eq!(ip_base::vega10::GC_BASE[0][..2], [0x2000, 0xA000]);
    assert_eq!(ip_base::navi10::GC_BASE[0][..2], [0x1260, 0xA000]);
}

#[test]
fn register_fields() {
    use regs::gc_11_0_0::COMPUTE_PGM_RSRC2 as R11;
    use regs::gc_9_4_3::COMPUTE_PGM_RSRC2 as R9;
    for f in [R9::USER_SGPR, R11::USER_SGPR, regs::gc_12_0_0::COMPUTE_PGM_RSRC2::USER_SGPR] {
        assert_eq!((f.shift, f.mask), (1, 0x3E));
    }
    assert_eq!((R11::SCRATCH_EN.shift, R11::SCRATCH_EN.mask), (0, 0x1));
    assert_eq!(regs::gc_11_0_0::regCOMPUTE_PGM_RSRC2.offset, 0x1BB3);
    assert_eq!(regs::gc_11_0_0::regCOMPUTE_PGM_RSRC2.field("USER_SGPR"), Some(&R11::USER_SGPR));
    // Field helpers.
    let f = Field::new("X", 4, 0xF0);
    assert_eq!(f.val(0x1F), 0xF0);
    assert_eq!(f.get(0x1234_56A7), 0xA);
    assert_eq!(f.set(0xFFFF_FFFF, 0), 0xFFFF_FF0F);
    // IH ring: RB_SIZE at bits 5:1 on every OSSSYS version; IH_RB_BASE moved in 7.0.
    for rb_size in [
        regs::osssys_4_4_2::IH_RB_CNTL::RB_SIZE,
        regs::osssys_6_0_0::IH_RB_CNTL::RB_SIZE,
        regs::osssys_7_0_0::IH_RB_CNTL::RB_SIZE,
    ] {
        assert_eq!((rb_size.shift, rb_size.mask), (1, 0x3E));
    }
    assert_eq!(regs::osssys_6_0_0::regIH_RB_BASE.offset, 0x81);
    assert_eq!(regs::osssys_7_0_0::regIH_RB_BASE.offset, 0x83);
    // HDP flush request/done pairs.
    for (req, done) in [
        (regs::nbio_7_9_0::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ, regs::nbio_7_9_0::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE),
        (regs::nbio_4_3_0::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ, regs::nbio_4_3_0::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE),
        (regs::nbif_6_3_1::regBIF_BX_PF0_GPU_HDP_FLUSH_REQ, regs::nbif_6_3_1::regBIF_BX_PF0_GPU_HDP_FLUSH_DONE),
    ] {
        assert_eq!((req.offset, req.base_idx), (0x106, 2));
        assert_eq!((done.offset, done.base_idx), (0x107, 2));
    }
    assert_eq!(regs::nbio_7_9_0::regBIF_BX_PF1_GPU_HDP_FLUSH_REQ.base_idx, 8);
    assert_eq!(regs::nbif_6_3_1::regBIF_BX_PF1_GPU_HDP_FLUSH_REQ.base_idx, 5);
    // SDMA ring control: queue 0 in GC on gfx11, the GFX queue of SDMA 4.4.2 on MI300.
    assert_eq!(regs::gc_11_0_0::regSDMA0_QUEUE0_RB_CNTL.offset, 0x80);
    assert_eq!(regs::sdma_4_4_2::regSDMA_GFX_RB_CNTL.offset, 0x80);
    // Filtering keeps graphics-only blocks out.
    assert!(regs::find(regs::gc_11_0_0::REGS, "PA_SC_WINDOW_OFFSET").is_none());
    assert!(regs::find(regs::gc_11_0_0::REGS, "CP_HQD_PQ_BASE").is_some());
    assert!(regs::find(regs::gc_9_4_3::REGS, "CP_HQD_PQ_DOORBELL_CONTROL").is_some());
}

#[test]
fn sdma_opcodes() {
    // (opcode, name) as every SDMA generation encodes them.
    let want = [
        (0, "NOP"),
        (1, "COPY"),
        (2, "WRITE"),
        (4, "INDIRECT"),
        (5, "FENCE"),
        (6, "TRAP"),
        (8, "POLL_REGMEM"),
        (13, "TIMESTAMP"),
    ];
    let v4 = [
        sdma_4_0_0::SDMA_OP_NOP,
        sdma_4_0_0::SDMA_OP_COPY,
        sdma_4_0_0::SDMA_OP_WRITE,
        sdma_4_0_0::SDMA_OP_INDIRECT,
        sdma_4_0_0::SDMA_OP_FENCE,
        sdma_4_0_0::SDMA_OP_TRAP,
        sdma_4_0_0::SDMA_OP_POLL_REGMEM,
        sdma_4_0_0::SDMA_OP_TIMESTAMP,
    ];
    let v5 = [
        sdma_5_0_0::SDMA_OP_NOP,
        sdma_5_0_0::SDMA_OP_COPY,
        sdma_5_0_0::SDMA_OP_WRITE,
        sdma_5_0_0::SDMA_OP_INDIRECT,
        sdma_5_0_0::SDMA_OP_FENCE,
        sdma_5_0_0::SDMA_OP_TRAP,
        sdma_5_0_0::SDMA_OP_POLL_REGMEM,
        sdma_5_0_0::SDMA_OP_TIMESTAMP,
    ];
    let v6 = [
        sdma_6_0_0::SDMA_OP_NOP,
        sdma_6_0_0::SDMA_OP_COPY,
        sdma_6_0_0::SDMA_OP_WRITE,
        sdma_6_0_0::SDMA_OP_INDIRECT,
        sdma_6_0_0::SDMA_OP_FENCE,
        sdma_6_0_0::SDMA_OP_TRAP,
        sdma_6_0_0::SDMA_OP_POLL_REGMEM,
        sdma_6_0_0::SDMA_OP_TIMESTAMP,
    ];
    for (i, (op, name)) in want.iter().enumerate() {
        assert_eq!(v4[i], *op, "sdma4 {name}");
        assert_eq!(v5[i], *op, "sdma5 {name}");
        assert_eq!(v6[i], *op, "sdma6 {name}");
    }
    assert_eq!(sdma_7_0::SDMA_OP_COPY, 1);
    assert_eq!(sdma_4_0_0::SDMA_SUBOP_TIMESTAMP_GET_GLOBAL, 2);
    assert_eq!(sdma_6_0_0::SDMA_SUBOP_COPY_LINEAR, 0);
    // DUMMY_TRAP moved from 16 to 32 when GPUVM_INV took 16 (SDMA 5).
    assert_eq!(sdma_4_0_0::SDMA_OP_DUMMY_TRAP, 16);
    assert_eq!(sdma_5_0_0::SDMA_OP_DUMMY_TRAP, 32);
    assert_eq!(sdma_6_0_0::SDMA_OP_GCR_REQ, 17);
}

#[test]
fn sdma_packet_layouts() {
    // COPY_LINEAR byte count: 22 bits on SDMA 4 and 5, 30 bits on SDMA 6 (and 7, which uses 6's header).
    use sdma_6_0_0::SDMA_PKT_COPY_LINEAR as CL6;
    assert_eq!(sdma_4_0_0::SDMA_PKT_COPY_LINEAR::COUNT::count_mask, 0x003F_FFFF);
    assert_eq!(sdma_5_0_0::SDMA_PKT_COPY_LINEAR::COUNT::count_mask, 0x003F_FFFF);
    assert_eq!(CL6::COUNT::count_mask, 0x3FFF_FFFF);
    assert_eq!(sdma_7_0::SDMA_PKT_COPY_LINEAR::COUNT::count_mask, 0x3FFF_FFFF);
    assert_eq!(CL6::COUNT::count_offset, 1);
    assert_eq!(CL6::DST_ADDR_HI::dst_addr_63_32_offset, 6);
    // Header: op in bits 7:0, sub-op in 15:8.
    let hdr = CL6::HEADER::OP(sdma_6_0_0::SDMA_OP_COPY) | CL6::HEADER::SUB_OP(sdma_6_0_0::SDMA_SUBOP_COPY_LINEAR);
    assert_eq!(hdr, 1);
    assert_eq!((CL6::HEADER::tmz_shift, CL6::HEADER::backwards_shift, CL6::HEADER::broadcast_shift), (18, 25, 27));
    // TIMESTAMP GET_GLOBAL header 0x20D.
    use sdma_4_0_0::SDMA_PKT_TIMESTAMP_GET_GLOBAL as TS;
    assert_eq!(TS::HEADER::OP(13) | TS::HEADER::SUB_OP(2), 0x20D);
    // POLL_REGMEM on memory with function ">=" (5): 0xD0000008, and DW5 interval 4, retry 0xFFF.
    use sdma_6_0_0::SDMA_PKT_POLL_REGMEM as PR;
    assert_eq!(PR::HEADER::OP(8) | PR::HEADER::FUNC(5) | PR::HEADER::MEM_POLL(1), 0xD000_0008);
    assert_eq!(PR::DW5::INTERVAL(4) | PR::DW5::RETRY_COUNT(0xFFF), 0x0FFF_0004);
    // FENCE MTYPE (gfx10+ headers) at bits 18:16; TRAP context 28 bits.
    assert_eq!(sdma_6_0_0::SDMA_PKT_FENCE::HEADER::MTYPE(3), 3 << 16);
    assert_eq!(sdma_4_0_0::SDMA_PKT_TRAP::INT_CONTEXT::int_context_mask, 0x0FFF_FFFF);
    // Encoders mask their argument.
    assert_eq!(CL6::HEADER::OP(0x1FF), 0xFF);
}

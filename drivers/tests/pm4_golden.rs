//! PM4 golden tests: the exact dwords of every packet per generation. Expected words are built
//! from the autogen definitions (nvd.h / soc15d.h encoders, register tables) and cross-checked
//! against literal values from the kernel's own emitters and Mesa's register addresses — never
//! from the builder's output.

use baregpu_autogen::amd::{pm4_nv as nv, pm4_soc15 as soc15};
use baregpu_drivers::amd::pm4::{Compare, Dispatch, Pm4, ReleaseData, GFX11, GFX12, GFX9};

const ADDR: u64 = 0x0000_7f12_3456_7890;
const LO: u32 = 0x3456_7890;
const HI: u32 = 0x7f12;

#[test]
fn compute_register_addresses_match_mesa() {
    // Mesa sid.h: R_00B800_COMPUTE_DISPATCH_INITIATOR, R_00B830_COMPUTE_PGM_LO,
    // R_00B900_COMPUTE_USER_DATA_0, R_00B81C_COMPUTE_NUM_THREAD_X - 3 = START_X (byte 0xB810).
    for gen in [&GFX9, &GFX11, &GFX12] {
        assert_eq!(gen.regs.dispatch_initiator, 0xb800 / 4, "{:?}", gen.family);
        assert_eq!(gen.regs.pgm_lo, 0xb830 / 4, "{:?}", gen.family);
        assert_eq!(gen.regs.user_data_0, 0xb900 / 4, "{:?}", gen.family);
        assert_eq!(gen.regs.start_x, 0xb810 / 4, "{:?}", gen.family);
        assert_eq!(gen.regs.pgm_rsrc1, 0xb848 / 4, "{:?}", gen.family);
        assert_eq!(gen.regs.tmpring_size, 0xb860 / 4, "{:?}", gen.family);
    }
}

#[test]
fn set_sh_reg() {
    let mut q = Pm4::new(&GFX11);
    q.set_sh_regs(GFX11.regs.pgm_lo, &[0x1111, 0x22]);
    // PACKET3(SET_SH_REG, 2) = 0xC0027600; COMPUTE_PGM_LO is 0x20C into the SH window.
    assert_eq!(q.words(), [nv::PACKET3(nv::PACKET3_SET_SH_REG, 2), 0x20c, 0x1111, 0x22]);
    assert_eq!(q.words()[0], 0xc002_7600);
}

#[test]
fn release_mem_signal_per_generation() {
    // gfx11/12: gfx_v11_0_ring_emit_fence's bits.
    let nv_dw1 = nv::PACKET3_RELEASE_MEM_GCR_SEQ
        | nv::PACKET3_RELEASE_MEM_GCR_GL2_WB
        | nv::PACKET3_RELEASE_MEM_GCR_GLM_INV
        | nv::PACKET3_RELEASE_MEM_GCR_GLM_WB
        | nv::PACKET3_RELEASE_MEM_CACHE_POLICY(3)
        | nv::PACKET3_RELEASE_MEM_EVENT_TYPE(0x14)
        | nv::PACKET3_RELEASE_MEM_EVENT_INDEX(5);
    assert_eq!(nv_dw1, 0x0660_3514);
    for gen in [&GFX11, &GFX12] {
        let mut q = Pm4::new(gen);
        let at = q.release_mem(ADDR, ReleaseData::U32(0xabcd), true, None);
        assert_eq!(
            q.words(),
            [
                nv::PACKET3(nv::PACKET3_RELEASE_MEM, 6),
                nv_dw1,
                nv::PACKET3_RELEASE_MEM_DATA_SEL(1),
                LO,
                HI,
                0xabcd,
                0,
                0
            ]
        );
        assert_eq!(at, 5, "patch index of the value");
        // With an interrupt for a KFD event: INT_SEL 2 (send after write confirm) and the ctxid.
        let mut q = Pm4::new(gen);
        q.release_mem(ADDR, ReleaseData::U32(7), false, Some(7));
        assert_eq!(q.words()[2], 0x2200_0000);
        assert_eq!(q.words()[7], 7);
    }
    // gfx9: gfx_v9_4_3_ring_emit_fence's bits.
    let gfx9_dw1 = soc15::EOP_TCL1_ACTION_EN
        | soc15::EOP_TC_ACTION_EN
        | soc15::EOP_TC_WB_ACTION_EN
        | soc15::EOP_TC_MD_ACTION_EN
        | soc15::EVENT_TYPE(0x14)
        | soc15::EVENT_INDEX(5);
    assert_eq!(gfx9_dw1, 0x0023_8514);
    let mut q = Pm4::new(&GFX9);
    q.release_mem(ADDR, ReleaseData::U64(0x1_0000_0002), true, None);
    assert_eq!(
        q.words(),
        [soc15::PACKET3(soc15::PACKET3_RELEASE_MEM, 6), gfx9_dw1, soc15::DATA_SEL(2), LO, HI, 2, 1, 0]
    );
    let mut q = Pm4::new(&GFX9);
    q.release_mem(ADDR, ReleaseData::Timestamp, false, None);
    assert_eq!(q.words()[1..3], [soc15::EVENT_TYPE(0x14) | soc15::EVENT_INDEX(5), soc15::DATA_SEL(3)]);
}

#[test]
fn wait_reg_mem() {
    for gen in [&GFX9, &GFX11, &GFX12] {
        let mut q = Pm4::new(gen);
        let at = q.wait_mem(ADDR, 41, 0xffff_ffff, Compare::GreaterEqual);
        let info = nv::WAIT_REG_MEM_FUNCTION(5) | nv::WAIT_REG_MEM_MEM_SPACE(1);
        assert_eq!(info, 0x15);
        assert_eq!(q.words(), [nv::PACKET3(nv::PACKET3_WAIT_REG_MEM, 5), info, LO, HI, 41, 0xffff_ffff, 4]);
        assert_eq!(at, 4);
        // HDP flush handshake: register space, write-then-wait (operation 1), equal.
        let mut q = Pm4::new(gen);
        q.write_then_wait_reg(0x1234, 0x1235, 1 << 2, 1 << 2, Compare::Equal);
        assert_eq!(q.words(), [nv::PACKET3(nv::PACKET3_WAIT_REG_MEM, 5), 0x43, 0x1234, 0x1235, 4, 4, 0x20]);
    }
}

#[test]
fn acquire_mem_per_generation() {
    // gfx_v11_0_emit_mem_sync: GL2_INV|GL2_WB|GLM_INV|GLM_WB|GL1_INV|GLV_INV|GLK_INV|GLI_INV.
    let full = 0xc3b1;
    // Shader caches only: GLM_INV|GLM_WB|GL1_INV|GLV_INV|GLK_INV.
    let shader = 0x03b0;
    for gen in [&GFX11, &GFX12] {
        let mut q = Pm4::new(gen);
        q.acquire_mem(true);
        q.acquire_mem(false);
        let h = nv::PACKET3(nv::PACKET3_ACQUIRE_MEM, 6);
        assert_eq!(
            q.words(),
            [h, 0, 0xffff_ffff, 0xff_ffff, 0, 0, 0xa, full, h, 0, 0xffff_ffff, 0xff_ffff, 0, 0, 0xa, shader]
        );
    }
    // gfx_v9_4_3_emit_mem_sync: SH_ICACHE|SH_KCACHE|TC|TCL1|TC_WB in CP_COHER_CNTL.
    let mut q = Pm4::new(&GFX9);
    q.acquire_mem(true);
    q.acquire_mem(false);
    let h = soc15::PACKET3(soc15::PACKET3_ACQUIRE_MEM, 5);
    assert_eq!(
        q.words(),
        [h, 0x28c4_0000, 0xffff_ffff, 0xff_ffff, 0, 0, 0xa, h, 0x0840_0000, 0xffff_ffff, 0xff_ffff, 0, 0, 0xa]
    );
}

#[test]
fn indirect_buffer_event_write_nop() {
    let mut q = Pm4::new(&GFX11);
    q.indirect_buffer(ADDR & !3, 100);
    q.event_write(GFX11.cs_partial_flush, 4);
    q.nop(2);
    assert_eq!(
        q.words(),
        [
            nv::PACKET3(nv::PACKET3_INDIRECT_BUFFER, 2),
            LO,
            HI,
            100 | nv::INDIRECT_BUFFER_VALID,
            nv::PACKET3(nv::PACKET3_EVENT_WRITE, 0),
            0x407, // CS_PARTIAL_FLUSH, event index 4
            nv::PACKET3(nv::PACKET3_NOP, 1),
            0,
            0,
        ]
    );
}

fn dispatch(wave32: bool, scratch: Option<u64>) -> Dispatch {
    Dispatch {
        entry: 0x7f00_0000_1200,
        rsrc1: 0x11,
        rsrc2: 0x22,
        rsrc3: 0x33,
        tmpring_size: 0x44,
        scratch_base: scratch,
        scratch_per_xcc: 0,
        user_data: vec![0xaaaa, 0xbbbb],
        grid: [4, 2, 1],
        block: [64, 1, 1],
        wave32,
    }
}

#[test]
fn dispatch_sequence_gfx11() {
    let mut q = Pm4::new(&GFX11);
    q.dispatch(&dispatch(true, Some(0x7e00_0000_0000)));
    let sh = |n: u32| nv::PACKET3(nv::PACKET3_SET_SH_REG, n);
    let off = |reg: u32| reg - 0x2c00;
    let r = GFX11.regs;
    let expect = [
        // ACQUIRE_MEM of the shader caches.
        vec![nv::PACKET3(nv::PACKET3_ACQUIRE_MEM, 6), 0, 0xffff_ffff, 0xff_ffff, 0, 0, 0xa, 0x03b0],
        // Program address >> 8 = 0x7f00000012, split in two.
        vec![sh(2), off(r.pgm_lo), 0x0000_0012, 0x7f],
        vec![sh(2), off(r.pgm_rsrc1), 0x11, 0x22],
        vec![sh(1), off(r.pgm_rsrc3), 0x33],
        vec![sh(1), off(r.tmpring_size), 0x44],
        vec![sh(2), off(r.dispatch_scratch_base_lo), 0x0000_0000, 0x7e],
        vec![sh(3), off(r.restart_x), 0, 0, 0],
        vec![sh(2), 0x240, 0xaaaa, 0xbbbb],
        vec![sh(1), off(r.resource_limits), 0],
        vec![sh(8), 0x204, 0, 0, 0, 64, 1, 1, 0, 0],
        // DISPATCH_DIRECT: COMPUTE_SHADER_EN | FORCE_START_AT_000 | CS_W32_EN = 0x8005.
        vec![nv::PACKET3(nv::PACKET3_DISPATCH_DIRECT, 3), 4, 2, 1, 0x8005],
        vec![nv::PACKET3(nv::PACKET3_EVENT_WRITE, 0), 0x407],
    ]
    .concat();
    assert_eq!(q.words(), expect.as_slice());
}

#[test]
fn dispatch_sequence_gfx9_is_wave64_without_scratch_base() {
    let mut q = Pm4::new(&GFX9);
    q.dispatch(&dispatch(true, None));
    let w = q.words();
    // ACQUIRE_MEM is the gfx9 6-dword form; no DISPATCH_SCRATCH_BASE write; no CS_W32_EN bit.
    assert_eq!(w[0], soc15::PACKET3(soc15::PACKET3_ACQUIRE_MEM, 5));
    let dd = w.iter().position(|&x| x == soc15::PACKET3(soc15::PACKET3_DISPATCH_DIRECT, 3)).unwrap();
    assert_eq!(&w[dd + 1..dd + 5], [4, 2, 1, 0x5]);
    assert!(!w
        .windows(2)
        .any(|p| p[0] == soc15::PACKET3(soc15::PACKET3_SET_SH_REG, 2)
            && p[1] == GFX9.regs.dispatch_scratch_base_lo - 0x2c00));
    assert_eq!(w.len(), 7 + 4 + 4 + 3 + 3 + 5 + 4 + 3 + 10 + 5 + 2);
}

#[test]
#[should_panic(expected = "not 256-byte aligned")]
fn misaligned_entry_is_refused() {
    Pm4::new(&GFX11).dispatch(&Dispatch { entry: 0x1010, ..dispatch(true, None) });
}

//! The ASM24xx USB bridge transport against the emulated bridge: the firmware protocol (XDATA,
//! PCIe power and link, TLPs and their completions), the switch's bus numbers and windows, BAR
//! sizing with the resizable BAR, BAR accesses as TLPs, the SRAM DMA pool, the AM driver's boot
//! over the bridge, and faults of the link (each one clear error; the device opens again).
//! Oracles: the emulated GPU itself (its registers and VRAM read directly, not over the bridge)
//! and the SRAM as the controller's XDATA window shows it.

use baregpu::drivers::pci::asm24xx::link::Link;
use baregpu::drivers::pci::asm24xx::protocol::*;
use baregpu::drivers::pci::asm24xx::{setup, Asm24xx};
use baregpu::drivers::pci::{PciDevice, AMD_BAR_MMIO, AMD_BAR_VRAM};
use baregpu::drivers::usb::UsbTransport;
use baregpu::emu::am::EmuPciGpu;
use baregpu::emu::rdna::Interpreter;
use baregpu::emu::usb_bridge::{EmuAsm24xx, Fault};
use std::sync::Arc;

#[path = "usb_bridge/drained.rs"]
mod drained;

fn bridge() -> (Arc<EmuPciGpu>, Arc<EmuAsm24xx>) {
    let gpu = EmuPciGpu::new("gfx1100", Arc::new(Interpreter::new("gfx1100"))).expect("emulated GPU");
    let bridge = EmuAsm24xx::new(gpu.clone()).expect("emulated bridge");
    (gpu, bridge)
}

#[test]
fn xdata_power_and_config_tlps_follow_the_firmware_protocol() {
    let (gpu, bridge) = bridge();
    let link = Link::new(bridge.clone());
    link.xdata_write(0x1234, &[0xa5, 0x5a]).expect("XDATA write");
    let mut b = [0u8; 2];
    link.xdata_read(0x1234, &mut b).expect("XDATA read");
    assert_eq!(b, [0xa5, 0x5a]);
    // The firmware boots with PCIe off: no link, and TLPs are refused with the link named.
    assert_ne!(link.ltssm().expect("LTSSM"), LTSSM_L0);
    let e = link.config_read(0, 0, 0, 0, 4).expect_err("no link yet").to_string();
    assert!(e.contains("PCIe link is down"), "{e}");
    link.power_on().expect("power on");
    assert_eq!(link.ltssm().expect("LTSSM"), LTSSM_L0);
    // Bus 0 answers type 0; bus 4 is unreachable until the bridges are numbered: UR.
    assert_eq!(link.config_read(0, 0, 0, 0, 2).expect("bus 0 vendor"), 0x1b21);
    let e = link.config_read(GPU_BUS, 0, 0, 0, 4).expect_err("not routed").to_string();
    assert!(e.contains("unsupported request (UR)"), "{e}");
    setup::bridges(&link).expect("bridges");
    let ids = link.config_read(GPU_BUS, 0, 0, 0, 4).expect("GPU ids");
    let mut want = [0u8; 4];
    gpu.config_read(0, &mut want).expect("GPU config directly");
    assert_eq!(ids, u32::from_le_bytes(want));
    // Sub-dword reads shift and mask by the byte enables.
    assert_eq!(link.config_read(GPU_BUS, 0, 0, 2, 2).expect("device id"), ids >> 16);
    assert_eq!(link.config_read(GPU_BUS, 0, 0, 0x0b, 1).expect("class"), 0x03);
    // A partial config write touches only its bytes.
    link.config_write(GPU_BUS, 0, 0, 0x04, 1, 0x06).expect("command byte");
    let mut cmd = [0u8; 2];
    gpu.config_read(4, &mut cmd).expect("command directly");
    assert_eq!(cmd, [0x06, 0x00]);
    // No function at device 1: UR. Memory nobody decodes: UR.
    assert!(link.config_read(GPU_BUS, 1, 0, 0, 4).is_err());
    let e = link.tlp(TLP_MRD, 0xf, 0x1_0000, 0).expect_err("nothing there").to_string();
    assert!(e.contains("UR"), "{e}");
}

#[test]
fn opening_numbers_the_buses_resizes_and_assigns_the_bars() {
    let (gpu, bridge) = bridge();
    let pci = Asm24xx::open(bridge).expect("open");
    assert_eq!(pci.resized(), &[(0, gpu.vram_size())]);
    let vram = pci.bar(AMD_BAR_VRAM).expect("BAR0");
    assert_eq!(vram.size, gpu.vram_size());
    assert!(vram.prefetchable && vram.bus_addr >= PREF_WINDOW_BASE && vram.bus_addr.is_multiple_of(vram.size));
    let mmio = pci.bar(AMD_BAR_MMIO).expect("BAR5");
    assert!(!mmio.prefetchable && mmio.bus_addr >= MEM_WINDOW_BASE && mmio.bus_addr + mmio.size <= 1 << 32);
    assert_eq!(pci.bar(1), None);
    // The GPU's own config space holds the assigned addresses, and decode is on.
    let mut bar0 = [0u8; 8];
    gpu.config_read(0x10, &mut bar0).expect("BAR0 directly");
    assert_eq!(u64::from_le_bytes(bar0) & !0xf, vram.bus_addr);
    let mut cmd = [0u8; 2];
    gpu.config_read(4, &mut cmd).expect("command");
    assert_eq!(cmd[0] & 0x7, 0x7);
}

#[test]
fn bar_accesses_and_copies_go_through_tlps() {
    let (gpu, bridge) = bridge();
    let pci = Asm24xx::open(bridge.clone()).expect("open");
    // A register read over the bridge equals the GPU's own register.
    let reg = 0x0; // any register: compare with the GPU's view
    assert_eq!(pci.read32(AMD_BAR_MMIO, reg * 4).expect("read32"), gpu.reg(reg as u32));
    // VRAM: dword, qword and unaligned byte copies, checked against the GPU's VRAM directly.
    pci.write32(AMD_BAR_VRAM, 0x1000, 0xdead_beef).expect("write32");
    pci.write64(AMD_BAR_VRAM, 0x1008, 0x0123_4567_89ab_cdef).expect("write64");
    let mut direct = [0u8; 16];
    gpu.copy_from_bar(AMD_BAR_VRAM, 0x1000, &mut direct).expect("direct");
    assert_eq!(&direct[0..4], &0xdead_beef_u32.to_le_bytes());
    assert_eq!(&direct[8..16], &0x0123_4567_89ab_cdef_u64.to_le_bytes());
    assert_eq!(pci.read64(AMD_BAR_VRAM, 0x1008).expect("read64"), 0x0123_4567_89ab_cdef);
    let data: Vec<u8> = (0..70_001u32).map(|i| (i * 7 + 3) as u8).collect();
    pci.copy_to_bar(AMD_BAR_VRAM, 0x2_0003, &data).expect("copy to");
    let mut back = vec![0u8; data.len() + 2];
    gpu.copy_from_bar(AMD_BAR_VRAM, 0x2_0002, &mut back).expect("direct");
    assert_eq!(back[0], 0, "the byte before the copy is untouched");
    assert_eq!(&back[1..=data.len()], &data[..]);
    let mut over = vec![0u8; data.len()];
    pci.copy_from_bar(AMD_BAR_VRAM, 0x2_0003, &mut over).expect("copy from");
    assert_eq!(over, data);
    // Out of range and misaligned accesses are refused before anything goes on the wire.
    let before = bridge.transfers();
    assert!(pci.read32(AMD_BAR_VRAM, gpu.vram_size()).is_err());
    assert!(pci.read32(AMD_BAR_VRAM, 2).is_err());
    assert_eq!(bridge.transfers(), before);
}

#[test]
fn the_sram_pool_is_the_dma_memory_and_writes_land_before_returning() {
    let (_gpu, bridge) = bridge();
    let pci = Asm24xx::open(bridge.clone()).expect("open");
    let a = pci.alloc_dma(0x2000, true).expect("SRAM");
    assert_eq!(a.bus_pages(), &[SRAM_PCIE, SRAM_PCIE + 0x1000]);
    assert!(a.cpu_ptr().is_none());
    let data: Vec<u8> = (0..300u32).map(|i| (i ^ 0x5c) as u8).collect();
    a.write(0x10, &[0xee; 4]).expect("first write");
    a.write(0x13, &data).expect("overlapping write");
    // The controller's XDATA window onto the start of the SRAM shows what landed.
    let link = pci.link();
    let mut seen = vec![0u8; 3 + data.len()];
    link.xdata_read(0xF010, &mut seen).expect("XDATA window");
    assert_eq!(&seen[..3], &[0xee; 3]);
    assert_eq!(&seen[3..], &data[..]);
    let mut back = vec![0u8; data.len()];
    a.read(0x13, &mut back).expect("read");
    assert_eq!(back, data);
    // A second allocation gets the next slot; the pool runs out with a clear error.
    let b = pci.alloc_dma(0x1000, false).expect("second");
    assert_eq!(b.bus_pages()[0], SRAM_PCIE + SRAM_SLOT);
    let e = pci.alloc_dma(pci.dma_pool_size(), false).expect_err("too big").to_string();
    assert!(e.contains("SRAM pool"), "{e}");
    drop(b);
    assert!(a.write(0x2000 - 1, &[1, 2]).is_err(), "past the allocation");
    // The drain fence reads back as the controller holds it (the GPU writes it at PCIe 0x820800).
    link.xdata_write(XDATA_FENCE, &0x0102_0304_0506_0708u64.to_le_bytes()).expect("fence");
    assert_eq!(link.fence().expect("fence"), 0x0102_0304_0506_0708);
}

#[test]
fn faults_of_the_link_are_one_clear_error_and_the_bridge_opens_again() {
    let (gpu, bridge) = bridge();
    let pci = Asm24xx::open(bridge.clone()).expect("open");
    for (fault, words) in [
        (Fault::TransferError, "transfer error"),
        (Fault::Timeout, "timed out"),
        (Fault::LinkLost, "PCIe link is down"),
    ] {
        bridge.inject(fault, 0);
        let e = pci.read32(AMD_BAR_MMIO, 0).expect_err("fault").to_string();
        assert!(e.contains(words) && e.contains("usb:emu:gfx1100"), "{fault:?}: {e}");
        let pci2 = Asm24xx::open(bridge.clone()).expect("reopen");
        assert_eq!(pci2.read32(AMD_BAR_MMIO, 0).expect("after reopen"), gpu.reg(0));
    }
}

#[test]
fn the_am_driver_boots_the_gpu_over_the_emulated_bridge() {
    use baregpu::drivers::amd::am::AmDevice;
    use baregpu::emu::am::firmware_standin::StandinSource;
    use baregpu::emu::am::layout::Layout;
    let (gpu, bridge) = bridge();
    let pci = Asm24xx::open(bridge.clone()).expect("open");
    let before = bridge.transfers();
    let layout = Layout::for_arch("gfx1100").expect("layout");
    let dev = AmDevice::open(pci.clone(), &StandinSource::for_layout(&layout)).expect("AM boot over the bridge");
    assert!(bridge.transfers() > before + 100, "the boot went over the wire: {}", bridge.transfers() - before);
    // The boot left the GPU's firmware running: what the driver reads over the bridge is what
    // the GPU holds.
    assert_eq!(pci.read32(AMD_BAR_MMIO, 0).expect("read"), gpu.reg(0));
    drop(dev);
}

/// The runtime over the emulated bridge, with the bridge at hand for fault injection.
fn runtime_over_bridge() -> (baregpu::runtime::amd::AmdDevice, Arc<EmuAsm24xx>) {
    use baregpu::emu::am::firmware_standin::StandinSource;
    use baregpu::emu::am::layout::Layout;
    let engine = Arc::new(Interpreter::new("gfx1100"));
    let (bridge, pci) = baregpu::device_usb::open_emulated("gfx1100", engine.clone()).expect("bridge");
    let fw = StandinSource::for_layout(&Layout::for_arch("gfx1100").expect("layout"));
    let dev = baregpu::device::open_am_over(pci, &fw, "usb:emu:gfx1100").expect("runtime over the bridge");
    (dev.with_progress(baregpu::device::emu_progress(engine)), bridge)
}

fn basic_code_object() -> baregpu::runtime::program::CodeObject {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hsaco/basic-gfx1100.hsaco");
    baregpu::runtime::program::CodeObject::parse(&std::fs::read(p).expect("fixture")).expect("code object")
}

#[test]
fn a_launch_and_copies_both_ways_run_over_the_emulated_bridge() {
    use baregpu::runtime::program::{ArgValue, Launch};
    let (dev, bridge) = runtime_over_bridge();
    // Host to GPU and back through the SRAM staging, at unaligned sizes and offsets.
    let buf = dev.alloc(3 * 4096 + 8).expect("alloc");
    let data: Vec<u8> = (0..3 * 4096 + 3).map(|i| (i * 31 % 251) as u8).collect();
    dev.copy_in(&buf, 5, &data).expect("copy in");
    let mut back = vec![0u8; data.len()];
    dev.copy_out(&buf, 5, &mut back).expect("copy out");
    assert!(back == data, "the round trip over the bridge differs");
    // Memory the CPU cannot map is copied by the GPU through the SRAM (the bridge's DMA pool).
    let hidden = dev.alloc_vram(data.len() as u64).expect("invisible VRAM");
    let staged = bridge.engine_bytes();
    dev.copy_in(&hidden, 0, &data).expect("staged copy in");
    let mut back = vec![0u8; data.len()];
    dev.copy_out(&hidden, 0, &mut back).expect("staged copy out");
    assert!(back == data, "the staged round trip over the bridge differs");
    let moved = bridge.engine_bytes() - staged;
    assert!(moved >= 2 * data.len() as u64, "the copies did not stage through the SRAM: {moved} bytes");
    dev.free(hidden).expect("free");
    // A kernel writes it; the host reads what the GPU wrote.
    let prog = dev.load(basic_code_object()).expect("load");
    let m = 256u32;
    let before = bridge.transfers();
    let args = [ArgValue::Pointer(buf.va()), ArgValue::u32(m), ArgValue::u32(11)];
    let s = dev.launch(&prog, "fill2d", &args, &Launch::new([1, 1, 1], [m, 1, 1]), false).expect("launch");
    dev.synchronize().expect("synchronize");
    assert!(bridge.transfers() > before, "the launch went over the wire");
    let mut out = vec![0u8; 4 * m as usize];
    dev.copy_out(&buf, 0, &mut out).expect("copy out");
    for x in 0..m as usize {
        assert_eq!(i32::from_le_bytes(out[4 * x..4 * x + 4].try_into().unwrap()), 11 + x as i32, "element {x}");
    }
    dev.release(s);
    dev.free(buf).expect("free");
    dev.unload(prog).expect("unload");
}

#[test]
fn a_link_lost_mid_run_ends_the_wait_with_one_error_and_the_device_opens_again() {
    use std::time::{Duration, Instant};
    for fault in [Fault::LinkLost, Fault::TransferError, Fault::Timeout] {
        let (dev, bridge) = runtime_over_bridge();
        // A gate the host never opens: only the link's failure can end the wait.
        let gate = dev.new_signal().expect("signal");
        let done = dev.new_signal().expect("signal");
        let mut q = dev.compute_queue().expect("queue");
        q.wait(&gate, 1).signal(&done, 1);
        q.submit().expect("submit");
        bridge.inject(fault, 2);
        let t = Instant::now();
        let e = dev.wait(&done, 1).expect_err("the link failed").to_string();
        assert!(e.contains("usb:emu:gfx1100"), "{fault:?}: {e}");
        assert!(t.elapsed() < Duration::from_secs(10), "{fault:?}: the wait took {:?}", t.elapsed());
        drop((gate, done));
        drop(dev);
        // The same bridge opens again (power-on retrains a lost link) and runs work.
        let pci = Asm24xx::open(bridge.clone()).expect("reopen");
        let mut b = [0u8; 4];
        pci.config_read(0, &mut b).expect("config over the reopened bridge");
        assert_eq!(u16::from_le_bytes([b[0], b[1]]), 0x1002);
    }
}

#[test]
fn pipelined_copies_keep_transfers_in_flight_and_prove_a_write_once() {
    let (gpu, bridge) = bridge();
    let pci = Asm24xx::open(bridge.clone()).expect("open");
    // 1 MiB through BAR0: 16 streamed chunks, several queued at once, landing in order.
    let data: Vec<u8> = (0..(1u32 << 20) + 12).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    pci.copy_to_bar(AMD_BAR_VRAM, 0x10_0000, &data).expect("pipelined copy to");
    assert!(bridge.most_in_flight() > 1, "nothing was in flight at once");
    let mut direct = vec![0u8; data.len()];
    gpu.copy_from_bar(AMD_BAR_VRAM, 0x10_0000, &mut direct).expect("direct");
    assert!(direct == data, "the pipelined write differs from what the GPU holds");
    let mut back = vec![0u8; data.len()];
    pci.copy_from_bar(AMD_BAR_VRAM, 0x10_0000, &mut back).expect("pipelined copy from");
    assert!(back == data, "the pipelined read differs");
    // The SRAM: a 256 KiB write is 4 engine chunks (arm + queued bulk each) and one sentinel
    // (arm + bulk queued behind them, then arm, trigger and bulk IN to read it back).
    let a = pci.alloc_dma(0x4_0000, true).expect("SRAM");
    let sram: Vec<u8> = data[..0x4_0000].to_vec();
    let before = bridge.transfers();
    a.write(0, &sram).expect("pipelined SRAM write");
    assert_eq!(bridge.transfers() - before, 4 * 2 + 2 + 3, "transfers of one proven write");
    let mut seen = vec![0u8; 200];
    pci.link().xdata_read(0xF000, &mut seen).expect("XDATA window");
    assert_eq!(seen, sram[..200]);
    let mut back = vec![0u8; sram.len()];
    a.read(0, &mut back).expect("pipelined SRAM read");
    assert!(back == sram, "the SRAM reads back differently");
    assert_eq!((bridge.bulk_pending(EP_OUT), bridge.bulk_pending(EP_IN)), (0, 0));
}

#[test]
fn a_fault_in_the_middle_of_a_pipelined_copy_is_one_error_and_the_bridge_opens_again() {
    let (gpu, bridge) = bridge();
    let data: Vec<u8> = (0..0x8_0000u32).map(|i| (i * 13 + 1) as u8).collect();
    let faults = [
        (Fault::TransferError, "transfer error"),
        (Fault::Timeout, "timed out"),
        (Fault::LinkLost, "PCIe link is down"),
    ];
    // 8 chunks each way: arm and bulk per chunk; fail at the first, in the middle, at the last.
    for (fault, words) in faults {
        for after in [0, 1, 6, 9, 15] {
            let pci = Asm24xx::open(bridge.clone()).expect("open");
            let case = format!("{fault:?} after {after}");
            bridge.inject(fault, after);
            let e = pci.copy_to_bar(AMD_BAR_VRAM, 0, &data).expect_err(&case).to_string();
            assert!(e.contains(words) && e.contains("usb:emu:gfx1100"), "{case}: {e}");
            assert_eq!(e.lines().count(), 1, "{case}: {e}");
            assert_eq!(bridge.bulk_pending(EP_OUT), 0, "{case}: transfers left queued");
            let pci = Asm24xx::open(bridge.clone()).expect("reopen");
            bridge.inject(fault, after);
            let mut back = vec![0u8; data.len()];
            let e = pci.copy_from_bar(AMD_BAR_VRAM, 0, &mut back).expect_err(&case).to_string();
            assert!(e.contains(words), "{case}: read: {e}");
            assert_eq!(bridge.bulk_pending(EP_IN), 0, "{case}: reads left queued");
            // The bridge opens again and the copy then goes through whole.
            let pci = Asm24xx::open(bridge.clone()).expect("reopen");
            pci.copy_to_bar(AMD_BAR_VRAM, 0, &data).expect("copy after the fault");
            let mut direct = vec![0u8; data.len()];
            gpu.copy_from_bar(AMD_BAR_VRAM, 0, &mut direct).expect("direct");
            assert!(direct == data, "{case}: the copy after reopening differs");
        }
    }
    // The SRAM engine is the bridge's own (no PCIe link involved): transfer errors and
    // timeouts in the middle of a write fail it; nothing reports it landed.
    for (fault, words) in &faults[..2] {
        for after in [1, 4, 8, 11] {
            let pci = Asm24xx::open(bridge.clone()).expect("open");
            let a = pci.alloc_dma(0x4_0000, true).expect("SRAM");
            bridge.inject(*fault, after);
            let e = a.write(0, &data[..0x4_0000]).expect_err("SRAM write").to_string();
            assert!(e.contains(words), "{fault:?} after {after}: {e}");
            assert_eq!(bridge.bulk_pending(EP_OUT) + bridge.bulk_pending(EP_IN), 0);
            a.write(0, &data[..0x4_0000]).expect("the next write goes through");
        }
    }
}

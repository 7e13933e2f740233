//! The contract over a link (issue 17): the emulated PCI GPU behind a test double of a link
//! (`baregpu_emu::am::restricted`), booted by the AM driver through `device::am_iface_over`,
//! as a remote or USB transport will be. Nothing is CPU-mapped, so every access of the runtime
//! to rings, pointers, signals, kernargs and command buffers goes through the driver; without
//! host DMA (the USB bridge) everything lies in VRAM. A link that fails ends every wait with an
//! error naming it, never a hang or a panic.

use super::{run_contract, OVER};
use baregpu::device;
use baregpu_emu::am::firmware_standin::StandinSource;
use baregpu_emu::am::layout::Layout;
use baregpu_emu::am::restricted::Restricted;
use baregpu_emu::am::EmuPciGpu;
use baregpu_emu::rdna::Interpreter;
use baregpu_runtime::amd::{AmdDevice, AmdIface};
use baregpu_runtime::program::{ArgValue, Launch};
use baregpu_runtime::timeout::ProgressProbe;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Bytes of the DMA pool of a link without host DMA (the USB bridge's SRAM is 512 KiB).
pub const POOL: u64 = 512 << 10;

/// Which test link the emulated GPU sits behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    /// Nothing CPU-mapped (a remote link).
    Unmapped,
    /// Nothing CPU-mapped and no DMA into host memory but a small pool (the USB bridge).
    VramOnly,
}

impl Over {
    pub fn label(self) -> String {
        format!("am:emu:gfx1100 over a test link ({self:?})")
    }

    /// The driver interface over a fresh emulated GPU behind the link, the link, and the
    /// engine's progress probe.
    pub fn iface(self) -> (Box<dyn AmdIface>, Arc<Restricted>, ProgressProbe) {
        let engine = Arc::new(Interpreter::new("gfx1100"));
        let gpu = EmuPciGpu::new("gfx1100", engine.clone()).unwrap();
        let link = match self {
            Over::Unmapped => Restricted::unmapped(gpu),
            Over::VramOnly => Restricted::vram_only(gpu, POOL),
        };
        let fw = StandinSource::for_layout(&Layout::for_arch("gfx1100").unwrap());
        let iface = device::am_iface_over(link.clone(), &fw).unwrap_or_else(|e| panic!("{}: {e}", self.label()));
        (iface, link, device::emu_progress(engine))
    }

    /// The runtime's device over it, and the link.
    pub fn open(self) -> (AmdDevice, Arc<Restricted>) {
        let (iface, link, probe) = self.iface();
        let dev = AmdDevice::open_on(iface, &self.label()).unwrap_or_else(|e| panic!("{}: {e}", self.label()));
        (dev.with_progress(probe), link)
    }
}

#[test]
fn the_contract_holds_over_a_link_where_nothing_is_mapped() {
    OVER.set(Some(Over::Unmapped));
    run_contract();
}

#[test]
fn the_contract_holds_over_a_link_without_host_dma() {
    OVER.set(Some(Over::VramOnly));
    run_contract();
    // Nothing of the runtime's took DMA memory: rings, signals and buffers all lie in VRAM.
    let (dev, link) = Over::VramOnly.open();
    let b = dev.alloc_host(4096).unwrap();
    dev.write(&b, 0, &[7; 64]).unwrap();
    assert_eq!(link.pool_used(), 0, "memory of a device without host DMA was placed in system memory");
    dev.free(b).unwrap();
}

/// A launch, then a link that goes down: the next wait ends with an error naming the link,
/// at once (no timeout, no hang); later submissions and waits fail the same way, and the device
/// closes without a panic.
#[test]
fn a_failed_link_ends_a_wait_with_an_error_naming_it() {
    for over in [Over::Unmapped, Over::VramOnly] {
        let (dev, link) = over.open();
        let prog = dev.load(super::fixture(&dev.arch)).unwrap();
        let buf = dev.alloc(4 * 64).unwrap();
        let args = [ArgValue::Pointer(buf.va()), ArgValue::u32(64), ArgValue::u32(3)];
        let s = dev.launch(&prog, "fill2d", &args, &Launch::new([1, 1, 1], [64, 1, 1]), false).unwrap();
        dev.synchronize().unwrap();
        dev.release(s);
        // A gate the host never opens keeps the next wait waiting: only the link can end it.
        let gate = dev.new_signal().unwrap();
        let done = dev.new_signal().unwrap();
        let mut q = dev.compute_queue().unwrap();
        q.wait(&gate, 1).signal(&done, 1);
        q.submit().unwrap();
        link.fail_after(3);
        let t = Instant::now();
        let e = dev.wait(&done, 1).unwrap_err().to_string();
        assert!(e.contains("the link to emu:gfx1100 over a test link failed"), "{over:?}: {e}");
        assert!(t.elapsed() < Duration::from_secs(5), "{over:?}: the wait took {:?}", t.elapsed());
        let e = dev.synchronize().unwrap_err().to_string();
        assert!(e.contains("link"), "{over:?}: {e}");
        let mut q = dev.compute_queue();
        if let Ok(q) = q.as_mut() {
            q.signal(&done, 2);
        }
        assert!(q.and_then(|q| q.submit()).is_err(), "{over:?}: a submission over a dead link succeeded");
        let mut out = [0u8; 4];
        assert!(dev.read(&buf, 0, &mut out).is_err(), "{over:?}: a read over a dead link succeeded");
        drop((gate, done));
        // Freeing and closing over a dead link report or log errors; none panics.
        let _ = dev.free(buf);
        let _ = dev.unload(prog);
        drop(dev);
    }
}

/// Copies into VRAM the host cannot reach go through the DMA pool where the device has one,
/// and give it back.
#[test]
fn staging_over_a_link_without_host_dma_uses_the_pool() {
    let (dev, link) = Over::VramOnly.open();
    let n = 3 * POOL as usize + 999;
    let vram = dev.alloc_vram(n as u64).unwrap();
    let data: Vec<u8> = (0..n).map(|i| (i * 7 % 251) as u8).collect();
    dev.copy_in(&vram, 0, &data).unwrap();
    let mut back = vec![0u8; n];
    dev.copy_out(&vram, 0, &mut back).unwrap();
    assert!(back == data, "a round trip through the pool differs");
    assert_eq!((link.pool_peak(), link.pool_used()), (POOL, 0), "staging took the whole pool, then gave it back");
    dev.free(vram).unwrap();
}

/// The demo's work over both links, checked against the host: copies in, a matmul and a vector
/// add, copies out as one graph; then a transformer block as a graph and its replay.
#[test]
fn the_demo_runs_over_both_links() {
    for over in [Over::Unmapped, Over::VramOnly] {
        let (dev, _link) = over.open();
        let gpu = baregpu::gpu::from_device(device::Device::Amd(dev)).unwrap();
        let r = baregpu::demo::run(&*gpu, 32, baregpu::demo::Mode::Graph, &mut |_| Ok(()))
            .unwrap_or_else(|e| panic!("{over:?}: {e}"));
        assert!(!r.runs.is_empty() && r.runs.iter().all(|k| k.ok), "{over:?}: {:?}", r.runs);
        let t = r.transformer.expect("the demo runs the transformer block");
        assert!(t.ok && t.replays > 0, "{over:?}: {t:?}");
    }
}

/// A link that goes down during the AM driver's boot or the runtime's open: an error naming
/// the link, never a panic or a hang.
#[test]
fn a_link_that_fails_while_opening_is_an_error_naming_it() {
    let fw = StandinSource::for_layout(&Layout::for_arch("gfx1100").unwrap());
    let gpu = || EmuPciGpu::new("gfx1100", Arc::new(Interpreter::new("gfx1100"))).unwrap();
    let link = Restricted::vram_only(gpu(), POOL);
    let dev = device::open_am_over(link.clone(), &fw, "test").unwrap();
    let calls = link.calls();
    drop(dev);
    for after in [0, calls / 10, calls / 2, calls * 9 / 10] {
        let link = Restricted::vram_only(gpu(), POOL);
        link.fail_after(after);
        let t = Instant::now();
        let e = device::open_am_over(link.clone(), &fw, "test").err();
        let e = e.unwrap_or_else(|| panic!("opened though the link failed after {after} of {calls} calls"));
        assert!(e.to_string().contains("over a test link"), "failing after {after} calls: {e}");
        assert!(t.elapsed() < Duration::from_secs(10), "failing after {after} calls took {:?}", t.elapsed());
    }
}

//! Host→VRAM copies through the bridge's drained SRAM windows (hcq.md §6.3): the host's loop
//! against a thread playing the GPU (it waits for each chunk's exact sentinel, copies the
//! window, checks that the window is not refilled before it writes the drain fence), a GPU that
//! never drains (the host stops before it reuses a window), the link lost while the host waits
//! for the fence, and the runtime's staged copy with the emulated SDMA on the GPU's side.

use super::{bridge, runtime_over_bridge};
use baregpu::drivers::pci::asm24xx::protocol::{FENCE_PCIE, SRAM_SLOT};
use baregpu::drivers::pci::asm24xx::Asm24xx;
use baregpu::drivers::pci::drained::{image_len, sentinel};
use baregpu::drivers::pci::{DmaMemory, PciDevice};
use baregpu::emu::usb_bridge::{EmuAsm24xx, Fault};
use baregpu::runtime::amd::drained::MAX_WINDOW;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// One slot per window: many chunks from little data.
const W: u64 = SRAM_SLOT;

fn pattern(len: usize, salt: usize) -> Vec<u8> {
    (0..len).map(|i| ((i * 7 + salt) % 253) as u8).collect()
}

/// The GPU's side played by a thread over the bridge's DMA windows: per chunk, the exact
/// sentinel, then the window's bytes, still the same a while later (a host that refilled the
/// window before the fence said it was drained would have changed them), then the fence.
fn drainer(
    bridge: Arc<EmuAsm24xx>,
    windows: [u64; 2],
    first: u64,
    lens: Vec<usize>,
) -> JoinHandle<Result<Vec<u8>, String>> {
    torn_drainer(bridge, windows, first, lens, None)
}

/// [`drainer`], which with `torn` shows a torn fence for a while before the last chunk's true
/// one: the new value's high bytes over the old value's low byte, what a byte-wise read across
/// a carry returns; `torn` is set just before the true fence is written.
fn torn_drainer(
    bridge: Arc<EmuAsm24xx>,
    windows: [u64; 2],
    first: u64,
    lens: Vec<usize>,
    torn: Option<Arc<AtomicBool>>,
) -> JoinHandle<Result<Vec<u8>, String>> {
    thread::spawn(move || {
        let mut out = Vec::new();
        for (i, &len) in lens.iter().enumerate() {
            let (seq, win) = (first + i as u64, windows[i % 2]);
            let at = win + image_len(len as u64) - 4;
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let mut b = [0u8; 4];
                if bridge.dma_read(at, &mut b) && u32::from_le_bytes(b) == sentinel(seq) {
                    break;
                }
                if Instant::now() > deadline {
                    return Err(format!("chunk {seq}: its sentinel never landed"));
                }
                thread::sleep(Duration::from_micros(50));
            }
            let (mut chunk, mut again) = (vec![0u8; len], vec![0u8; len]);
            bridge.dma_read(win, &mut chunk);
            thread::sleep(Duration::from_millis(2));
            bridge.dma_read(win, &mut again);
            if again != chunk {
                return Err(format!("chunk {seq}: its window was refilled before the fence said it was drained"));
            }
            out.extend_from_slice(&chunk);
            if let (Some(flag), true) = (&torn, i + 1 == lens.len()) {
                let mix = ((seq + 1) & !0xff) | (seq & 0xff);
                bridge.dma_write(FENCE_PCIE, &mix.to_le_bytes());
                thread::sleep(Duration::from_millis(50));
                flag.store(true, Ordering::SeqCst);
            }
            bridge.dma_write(FENCE_PCIE, &(seq + 1).to_le_bytes());
        }
        Ok(out)
    })
}

/// Streams `data` in chunks of one window less the sentinel against the drainer; the fence after.
fn stream_drained(bridge: &Arc<EmuAsm24xx>, pci: &Asm24xx, staging: &dyn DmaMemory, data: &[u8]) -> u64 {
    let w = pci.drained_windows().expect("the bridge has drained windows");
    let chunks: Vec<&[u8]> = data.chunks(W as usize - 4).collect();
    let first = w.fence().expect("fence");
    let bus = staging.bus_pages()[0];
    let gpu = drainer(bridge.clone(), [bus, bus + W], first, chunks.iter().map(|c| c.len()).collect());
    w.stream(staging, [0, W], W, first, &chunks).expect("stream");
    let out = gpu.join().expect("drainer thread").expect("the GPU's side");
    assert!(out == data, "the chunks the GPU drained differ from the data");
    let fence = w.fence().expect("fence");
    assert_eq!(fence, first + chunks.len() as u64, "the copy ends at the last chunk's fence");
    fence
}

#[test]
fn chunks_alternate_between_windows_and_wait_for_the_drain_fence() {
    let (_gpu, bridge) = bridge();
    let pci = Asm24xx::open(bridge.clone()).expect("open");
    let staging = pci.alloc_dma(2 * W, false).expect("SRAM");
    let data = pattern(5 * (W as usize - 4) + 1000, 1);
    let fence = stream_drained(&bridge, &pci, staging.as_ref(), &data);
    assert_eq!(fence, 6);
    // The next copy goes on from the fence; sentinels wrap at 24 bits, the fence does not.
    assert!(bridge.dma_write(FENCE_PCIE, &0xff_fffeu64.to_le_bytes()));
    let fence = stream_drained(&bridge, &pci, staging.as_ref(), &pattern(4 * W as usize, 2));
    assert_eq!(fence, 0xff_fffe + 5);
}

/// A fence read torn across a carry (0x1ff -> 0x200 read as 0x2ff) is beyond any chunk queued:
/// the host reads again rather than take the copy for finished before the last chunk drained.
#[test]
fn a_torn_fence_read_is_not_taken_for_drained() {
    let (_gpu, bridge) = bridge();
    let pci = Asm24xx::open(bridge.clone()).expect("open");
    let staging = pci.alloc_dma(2 * W, false).expect("SRAM");
    assert!(bridge.dma_write(FENCE_PCIE, &0x1fdu64.to_le_bytes()));
    let data = pattern(3 * (W as usize - 4), 5);
    let chunks: Vec<&[u8]> = data.chunks(W as usize - 4).collect();
    let w = pci.drained_windows().expect("drained windows");
    let bus = staging.bus_pages()[0];
    let flag = Arc::new(AtomicBool::new(false));
    let lens = chunks.iter().map(|c| c.len()).collect();
    let gpu = torn_drainer(bridge.clone(), [bus, bus + W], 0x1fd, lens, Some(flag.clone()));
    w.stream(staging.as_ref(), [0, W], W, 0x1fd, &chunks).expect("stream");
    assert!(flag.load(Ordering::SeqCst), "the copy ended on the torn fence, before the last chunk drained");
    let out = gpu.join().expect("drainer thread").expect("the GPU's side");
    assert!(out == data, "the chunks the GPU drained differ from the data");
    assert_eq!(w.fence().expect("fence"), 0x200);
}

#[test]
fn a_gpu_that_never_drains_stops_the_host_before_it_reuses_a_window() {
    let (_gpu, bridge) = bridge();
    let pci = Asm24xx::open(bridge.clone()).expect("open");
    pci.set_drain_timeout(Duration::from_millis(200));
    let staging = pci.alloc_dma(2 * W, false).expect("SRAM");
    let data = pattern(3 * (W as usize - 4), 3);
    let chunks: Vec<&[u8]> = data.chunks(W as usize - 4).collect();
    let w = pci.drained_windows().expect("drained windows");
    let first = w.fence().expect("fence");
    let e = w.stream(staging.as_ref(), [0, W], W, first, &chunks).expect_err("nothing drains").to_string();
    assert!(e.contains("usb:emu:gfx1100") && e.contains("did not drain"), "{e}");
    // The windows still hold chunks 0 and 1, each closed by its sentinel: chunk 2 waited.
    let bus = staging.bus_pages()[0];
    for (i, chunk) in chunks[..2].iter().enumerate() {
        let mut image = vec![0u8; image_len(chunk.len() as u64) as usize];
        assert!(bridge.dma_read(bus + i as u64 * W, &mut image));
        assert!(image[..chunk.len()] == **chunk, "window {i} was refilled");
        let end = image.len();
        assert_eq!(u32::from_le_bytes(image[end - 4..].try_into().unwrap()), sentinel(first + i as u64));
    }
}

#[test]
fn a_link_lost_while_waiting_for_the_fence_is_one_error_and_the_bridge_opens_again() {
    let (_gpu, bridge) = bridge();
    let pci = Asm24xx::open(bridge.clone()).expect("open");
    let staging = pci.alloc_dma(2 * W, false).expect("SRAM");
    let data = pattern(3 * (W as usize - 4), 4);
    let chunks: Vec<&[u8]> = data.chunks(W as usize - 4).collect();
    let w = pci.drained_windows().expect("drained windows");
    let first = w.fence().expect("fence");
    // Chunks 0 and 1 go out (an arm and a bulk transfer each); the link drops as the host
    // waits for chunk 0's drain.
    bridge.inject(Fault::LinkLost, 4);
    let t = Instant::now();
    let e = w.stream(staging.as_ref(), [0, W], W, first, &chunks).expect_err("the link is down").to_string();
    assert!(e.contains("usb:emu:gfx1100") && e.contains("PCIe link is down"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(5), "the error took {:?}", t.elapsed());
    drop((staging, pci));
    let pci = Asm24xx::open(bridge.clone()).expect("reopen");
    let staging = pci.alloc_dma(2 * W, false).expect("SRAM");
    stream_drained(&bridge, &pci, staging.as_ref(), &data);
}

#[test]
fn the_runtimes_staged_copy_drains_windows_on_the_copy_engine() {
    let (dev, bridge) = runtime_over_bridge();
    let fence = || {
        let mut b = [0u8; 8];
        assert!(bridge.dma_read(FENCE_PCIE, &mut b));
        u64::from_le_bytes(b)
    };
    let len = 2 * MAX_WINDOW as usize + 12345;
    let data = pattern(len, 5);
    let hidden = dev.alloc_vram(len as u64 + 64).expect("invisible VRAM");
    let before = fence();
    dev.copy_in(&hidden, 9, &data).expect("copy in through the drained windows");
    assert_eq!(fence() - before, len.div_ceil(MAX_WINDOW as usize - 4) as u64, "one drain per chunk");
    let mut back = vec![0u8; len];
    dev.copy_out(&hidden, 9, &mut back).expect("copy out");
    assert!(back == data, "the copy through the drained windows differs");
    // A copy that fits one chunk is one drain too.
    let before = fence();
    dev.copy_in(&hidden, 0, &data[..100]).expect("small copy in");
    assert_eq!(fence() - before, 1);
    // The link lost halfway through a copy: one error naming the bridge, the waits after it
    // report it, and the bridge opens again.
    let t0 = bridge.transfers();
    dev.copy_in(&hidden, 0, &data).expect("copy in");
    let used = bridge.transfers() - t0;
    bridge.inject(Fault::LinkLost, used / 2);
    let e = dev.copy_in(&hidden, 0, &data).expect_err("the link dropped").to_string();
    assert!(e.contains("usb:emu:gfx1100"), "{e}");
    assert!(dev.synchronize().is_err(), "a wait after the lost link must fail");
    drop(hidden);
    drop(dev);
    let pci = Asm24xx::open(bridge.clone()).expect("reopen");
    let mut b = [0u8; 2];
    pci.config_read(0, &mut b).expect("config over the reopened bridge");
    assert_eq!(u16::from_le_bytes(b), 0x1002);
}

//! A kernel that writes before or past its buffer faults with the address it wrote, on
//! emu:gfx1100 and emu-nv:sm_90, instead of landing in the runtime's own memory (argument
//! rings, push buffers, QMDs, signals) or in the neighbouring buffer: the drivers keep internal
//! memory apart from user buffers and leave an unmapped guard gap after every allocation
//! (drivers::va_window). Afterwards the device still runs kernels correctly.

use baregpu::device::{self, Device};
use baregpu_runtime::hcq::{DeviceBuffer, HcqDevice};
use baregpu_runtime::nv::NvCode;
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};

/// Bytes of the buffer the kernel gets (a whole allocation granule, so that before the fix its
/// neighbour started right at its end).
const LEN: u64 = 0x1_0000;
const WORDS: i32 = (LEN / 4) as i32;

fn amd() -> (baregpu_runtime::amd::AmdDevice, CodeObject) {
    let Device::Amd(dev) = device::open(&"emu:gfx1100".parse().unwrap()).unwrap() else { panic!("not AMD") };
    let p = format!("{}/tests/fixtures/hsaco/basic-gfx1100.hsaco", env!("CARGO_MANIFEST_DIR"));
    (dev, CodeObject::parse(&std::fs::read(p).unwrap()).unwrap())
}

fn nv() -> (baregpu_runtime::nv::NvDevice, NvCode) {
    let Device::Nv(dev) = device::open(&"emu-nv:sm_90".parse().unwrap()).unwrap() else { panic!("not NVIDIA") };
    (dev, NvCode::parse(include_bytes!("kernels/nv_fill2d.ptx")).unwrap())
}

/// `fill2d(out, width, 7)` over a 2-row grid: row 1 writes `out[width + x]`.
fn fill2d<D: HcqDevice>(
    dev: &D,
    prog: &D::Program,
    out: &D::Buffer,
    width: i32,
    cols: u32,
) -> baregpu_runtime::Result<()> {
    let args = [ArgValue::Pointer(out.va()), ArgValue::Bytes(width.to_le_bytes().to_vec()), ArgValue::u32(7)];
    dev.launch(prog, "fill2d", &args, &Launch::new([cols, 2, 1], [1, 1, 1]), false)?;
    dev.synchronize()
}

fn read_words<D: HcqDevice>(dev: &D, b: &D::Buffer) -> Vec<i32> {
    let mut raw = vec![0u8; LEN as usize];
    dev.read(b, 0, &mut raw).unwrap();
    raw.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// One stray write at `out[width]` (row 1, column 0): a fault naming `out.va() + 4 * width`,
/// neighbours untouched; then (on `open()`'s fresh device when `reopen`, else on the same one)
/// a correct launch.
fn stray<D: HcqDevice>(open: impl Fn() -> (D, D::Code), width: i32, reopen: bool) {
    let (dev, code) = open();
    let prog = dev.load(code).unwrap();
    let pattern = vec![0x5au8; LEN as usize];
    let bufs: Vec<D::Buffer> = (0..3).map(|_| dev.alloc(LEN).unwrap()).collect();
    for b in &bufs {
        dev.write(b, 0, &pattern).unwrap();
    }
    // The first user buffer: right after (NVIDIA, before the fix) or right below (AMD, where mmap
    // placed them) what the driver and runtime allocated at open: rings, CWSR, argument memory.
    let out = &bufs[0];
    let target = out.va().wrapping_add_signed(4 * width as i64);
    let e = fill2d(&dev, &prog, out, width, 1).expect_err("a stray write must fault").to_string();
    assert!(e.contains(&format!("{target:#x}")), "{}: width {width}: no fault at {target:#x}: {e}", dev.label());
    for (i, b) in bufs.iter().enumerate().skip(1) {
        assert!(read_words(&dev, b).iter().all(|w| *w == 0x5a5a_5a5a), "{}: buffer {i} was written", dev.label());
    }
    let follow_up = |dev: &D, prog: &D::Program, out: &D::Buffer| {
        fill2d(dev, prog, out, 16, 16).unwrap_or_else(|e| panic!("{}: the launch after the fault: {e}", dev.label()));
        let w = read_words(dev, out);
        for y in 0..2 {
            for x in 0..16 {
                assert_eq!(w[(y * 16 + x) as usize], 7 + x - y, "{}: ({x}, {y})", dev.label());
            }
        }
    };
    if reopen {
        drop((prog, bufs, dev));
        let (dev, code) = open();
        let prog = dev.load(code).unwrap();
        let out = dev.alloc(LEN).unwrap();
        follow_up(&dev, &prog, &out);
    } else {
        follow_up(&dev, &prog, out);
    }
}

#[test]
fn writes_before_a_buffer_fault_on_both_emulators() {
    stray(amd, -(1 << 20), false);
    // emu-nv: the channel is stopped after an MMU fault; the device is reopened.
    stray(nv, -(1 << 20), true);
}

#[test]
fn writes_just_past_a_buffer_fault_on_both_emulators() {
    stray(amd, WORDS, false);
    stray(nv, WORDS, true);
}

//! The wave interpreter's test harness, shared by the RDNA and CDNA tests: the code object loaded
//! as the runtime loads it (relocated image, kernargs, user SGPRs, RSRC2), host memory as GPU
//! memory (VA == host address), and the same launch through the whole driver path.

#![allow(dead_code)]

use crate::corpus;
use baregpu_emu::amd::dispatch::{DispatchFault, DispatchState, GpuMemory, WaveEngine};
use baregpu_emu::rdna::Interpreter;
use baregpu_runtime::amd::launch;
use baregpu_runtime::program::{kernargs, ArgValue, CodeObject, Launch};

pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures");

/// A host allocation the GPU may touch, 256-byte aligned.
pub struct Buf {
    mem: Vec<u64>,
    off: usize,
    pub len: usize,
}

impl Buf {
    pub fn new(len: usize) -> Buf {
        let mem = vec![0u64; (len + 512) / 8 + 1];
        let off = (256 - (mem.as_ptr() as usize % 256)) % 256;
        Buf { mem, off, len }
    }
    pub fn from<T: Copy>(data: &[T]) -> Buf {
        let n = std::mem::size_of_val(data);
        let mut b = Buf::new(n.max(4));
        // SAFETY: n bytes fit at `off` (the buffer has 512 spare bytes).
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr() as *const u8, b.ptr(), n) };
        b
    }
    pub fn ptr(&mut self) -> *mut u8 {
        // SAFETY: off < 256 < allocation size.
        unsafe { (self.mem.as_mut_ptr() as *mut u8).add(self.off) }
    }
    pub fn va(&self) -> u64 {
        self.mem.as_ptr() as u64 + self.off as u64
    }
    pub fn get<T: Copy + Default>(&self, n: usize) -> Vec<T> {
        let mut v = vec![T::default(); n];
        // SAFETY: reads n * size_of::<T>() bytes inside the allocation (checked by the caller's sizes).
        assert!(n * std::mem::size_of::<T>() <= self.len);
        unsafe {
            std::ptr::copy_nonoverlapping(
                (self.mem.as_ptr() as *const u8).add(self.off),
                v.as_mut_ptr() as *mut u8,
                n * std::mem::size_of::<T>(),
            )
        };
        v
    }
}

pub enum Arg<'a> {
    Buf(&'a Buf),
    Val(ArgValue),
}

pub struct Program {
    pub code: CodeObject,
    pub image: Buf,
    pub arch: &'static str,
}

pub fn load(file: &str, arch: &'static str) -> Program {
    load_path(&format!("{FIXTURES}/{file}"), arch)
}

pub fn load_path(file: &str, arch: &'static str) -> Program {
    let data = std::fs::read(file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let code = CodeObject::parse(&data).expect("code object");
    let mut image = Buf::new(code.image.len());
    let img = code.relocated(image.va());
    // SAFETY: the buffer holds the image.
    unsafe { std::ptr::copy_nonoverlapping(img.as_ptr(), image.ptr(), img.len()) };
    Program { code, image, arch }
}

/// Runs `kernel` on `engine`; returns the dispatch result.
pub fn run_on(
    engine: &Interpreter,
    p: &Program,
    kernel: &str,
    args: &[Arg],
    grid: [u32; 3],
    block: [u32; 3],
) -> Result<(), DispatchFault> {
    let k = p.code.kernel(kernel).expect("kernel");
    let shape = Launch::new(grid, block);
    let vals: Vec<ArgValue> = args
        .iter()
        .map(|a| match a {
            Arg::Buf(b) => ArgValue::Pointer(b.va()),
            Arg::Val(v) => v.clone(),
        })
        .collect();
    let ka = kernargs::build(&k.meta, &vals, &shape).expect("kernargs");
    let mut kbuf = Buf::from(&ka);
    let kva = kbuf.va();
    let _ = kbuf.ptr();
    let ptrs = launch::Pointers { kernargs: kva, dispatch_packet: 0, queue: 0, dispatch_id: 1 };
    let user = launch::user_sgprs(k, &ptrs).expect("user sgprs");
    let rsrc2 = launch::rsrc2(k, &shape, 65536).expect("rsrc2");
    let mut user_data = [0u32; 16];
    user_data[..user.len()].copy_from_slice(&user);
    // Scratch as the runtime sizes it: per wave, 64 lanes, 256-byte units; 64 wave slots.
    let per_lane = k.descriptor.private_segment_fixed_size as u64;
    let per_wave = (per_lane * 64).div_ceil(256) * 256;
    let scratch = Buf::new((per_wave * 64).max(256) as usize);
    let tmpring = if per_lane == 0 { 0 } else { 64 | (((per_wave / 256) as u32) << 12) };
    let d = DispatchState {
        arch: p.arch,
        pgm: p.image.va() + k.entry_offset,
        rsrc1: k.descriptor.compute_pgm_rsrc1,
        rsrc2,
        rsrc3: k.descriptor.compute_pgm_rsrc3,
        user_data,
        grid,
        block,
        start: [0; 3],
        wave32: launch::wave32(k),
        tmpring_size: tmpring,
        scratch_base: scratch.va(),
        lds_bytes: ((rsrc2 >> 15) & 0x1ff) * 512,
        xcc: Default::default(),
        cancel: Default::default(),
    };
    let mut ranges = vec![
        (p.image.va(), p.image.len as u64, p.image.va() as usize),
        (kva, kbuf.len as u64, kva as usize),
        (scratch.va(), scratch.len as u64, scratch.va() as usize),
    ];
    for a in args {
        if let Arg::Buf(b) = a {
            ranges.push((b.va(), b.len as u64, b.va() as usize));
        }
    }
    let mem = GpuMemory::from_ranges(&ranges);
    engine.dispatch(&d, &mem)
}

pub fn run(p: &Program, kernel: &str, args: &[Arg], grid: [u32; 3], block: [u32; 3]) {
    let through_driver = run_through_driver(p, kernel, args, grid, block);
    let e = Interpreter::new(p.arch);
    run_on(&e, p, kernel, args, grid, block).unwrap_or_else(|f| panic!("{}: {kernel}: {f}", p.arch));
    // Float atomics sum in whatever order the workgroups run: those results may differ in the last bits.
    if ORDER_DEPENDENT.contains(&kernel) {
        return;
    }
    let mut bufs = args.iter().filter_map(|a| if let Arg::Buf(b) = a { Some(*b) } else { None });
    for (i, got) in through_driver.iter().enumerate() {
        let b = bufs.next().expect("as many buffers");
        assert!(
            b.get::<u8>(b.len) == *got,
            "{} {kernel}: buffer {i} differs between the driver path and a direct run",
            p.arch
        );
    }
}

/// Kernels whose results depend on the order workgroups finish in.
pub const ORDER_DEPENDENT: &[&str] = &["atomics"];

/// The same launch through the runtime on an emulated GPU of the program's arch; returns every
/// buffer argument's bytes afterwards.
pub fn run_through_driver(p: &Program, kernel: &str, args: &[Arg], grid: [u32; 3], block: [u32; 3]) -> Vec<Vec<u8>> {
    use baregpu_runtime::amd::AmdDevice;
    use std::sync::Arc;
    thread_local! {
        static DEVICES: std::cell::RefCell<Vec<(&'static str, AmdDevice)>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    DEVICES.with(|devs| {
        let mut devs = devs.borrow_mut();
        if !devs.iter().any(|(a, _)| *a == p.arch) {
            let kfd = baregpu_emu::amd::machine(&[p.arch], Arc::new(Interpreter::new(p.arch))).expect("machine");
            let dev = AmdDevice::open(kfd, 0, &format!("emu:{}", p.arch)).expect("device");
            devs.push((p.arch, dev));
        }
        let dev = &devs.iter().find(|(a, _)| *a == p.arch).expect("just opened").1;
        let prog = dev.load(p.code.clone()).expect("load");
        let mut bufs = Vec::new();
        let vals: Vec<ArgValue> = args
            .iter()
            .map(|a| match a {
                Arg::Buf(b) => {
                    let d = dev.alloc(b.len as u64).expect("alloc");
                    dev.write(&d, 0, &b.get::<u8>(b.len)).expect("write");
                    let v = ArgValue::Pointer(d.va());
                    bufs.push(d);
                    v
                }
                Arg::Val(v) => v.clone(),
            })
            .collect();
        let s = dev.launch(&prog, kernel, &vals, &Launch::new(grid, block), false).expect("launch");
        dev.synchronize().unwrap_or_else(|e| panic!("{} {kernel} through the driver: {e}", p.arch));
        dev.release(s);
        let lens = args.iter().filter_map(|a| if let Arg::Buf(b) = a { Some(b.len) } else { None });
        let out = bufs
            .into_iter()
            .zip(lens)
            .map(|(d, len)| {
                let mut v = vec![0u8; len];
                dev.read(&d, 0, &mut v).expect("read");
                dev.free(d).expect("free");
                v
            })
            .collect();
        dev.unload(prog).expect("unload");
        out
    })
}

pub fn u32v(x: u32) -> Arg<'static> {
    Arg::Val(ArgValue::u32(x))
}

/// The corpus checks (tests/common/corpus.rs) run on a program here: each buffer argument
/// becomes a host buffer, and comes back as bytes.
pub struct Emu<'a>(pub &'a Program);

impl corpus::Gpu for Emu<'_> {
    fn run(&mut self, kernel: &str, args: &[corpus::Arg], grid: [u32; 3], block: [u32; 3]) -> Vec<Vec<u8>> {
        let bufs: Vec<Option<Buf>> = args
            .iter()
            .map(|a| match a {
                corpus::Arg::Buf(bytes) => Some(Buf::from(bytes)),
                corpus::Arg::Val(_) => None,
            })
            .collect();
        let ours: Vec<Arg> = args
            .iter()
            .zip(&bufs)
            .map(|(a, b)| match (a, b) {
                (_, Some(b)) => Arg::Buf(b),
                (corpus::Arg::Val(v), None) => Arg::Val(v.clone()),
                (corpus::Arg::Buf(_), None) => unreachable!("every buffer was made above"),
            })
            .collect();
        run(self.0, kernel, &ours, grid, block);
        bufs.iter().flatten().map(|b| b.get::<u8>(b.len)).collect()
    }

    fn wave_size(&self, kernel: &str) -> usize {
        if launch::wave32(self.0.code.kernel(kernel).expect("kernel")) {
            32
        } else {
            64
        }
    }
}

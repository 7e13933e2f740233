//! Seed inputs: the committed fixtures, golden vectors and driver-built command streams.

use std::path::PathBuf;

use baregpu::drivers::amd::pm4::{Compare, Dispatch, Pm4, ReleaseData, GFX11, GFX12, GFX9};
use baregpu::drivers::amd::sdma::{Sdma, SDMA4, SDMA6, SDMA7};
use baregpu::drivers::nv::pushbuf::PushBuffer;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` (relative to the repository) whose name ends with `ext`, sorted.
pub fn files(dir: &str, ext: &str) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))).collect()
}

/// The AMD code objects: clang-built (basic, codeobj, the RDNA corpus) and ours.
pub fn hsaco() -> Vec<Vec<u8>> {
    ["tests/fixtures/hsaco", "tests/fixtures/codeobj", "tests/fixtures/rdna"]
        .iter()
        .flat_map(|d| files(d, ".hsaco"))
        .collect()
}

pub fn cubin() -> Vec<Vec<u8>> {
    files("tests/fixtures/cubin", ".cubin")
}

/// PTX modules: the small ones and tests/fixtures/ptx/bad whole, and the clang corpus cut into
/// runs of lines (whole files of 50-90 KB would make each input slow without reaching more code).
pub fn ptx() -> Vec<Vec<u8>> {
    let mut v = files("tests/kernels", ".ptx");
    v.extend(files("tests/fixtures/ptx", "kernels.ptx"));
    // Hostile layouts (arrays whose sizes pass 4 GiB together), for the variable bounds.
    v.extend(files("tests/fixtures/ptx/bad", ".ptx"));
    for f in files("tests/fixtures/ptx", ".ptx") {
        let text = String::from_utf8_lossy(&f).into_owned();
        let lines: Vec<&str> = text.lines().collect();
        // The header (.version/.target/.address_size) and one function at a time.
        let head: Vec<&str> = lines.iter().take_while(|l| !l.contains(".entry")).take(12).copied().collect();
        let starts: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].contains(".entry")).collect();
        for w in starts.windows(2).step_by(4) {
            let body = lines[w[0]..w[1]].join("\n");
            v.push(format!("{}\n{body}\n", head.join("\n")).into_bytes());
        }
    }
    v
}

/// Golden assembly lines of one architecture (text only), in windows of 16 lines.
pub fn asm(arch: &str) -> Vec<Vec<u8>> {
    let src = std::fs::read_to_string(root().join(format!("tests/isa/golden/{arch}.txt"))).expect("golden file");
    let lines: Vec<&str> =
        src.lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.rsplit_once(" ; [").map(|(t, _)| t)).collect();
    let step = (lines.len() / 400).max(1);
    lines.chunks(16).step_by(step).map(|c| (c.join("\n") + "\n").into_bytes()).collect()
}

/// Golden instruction bytes of one architecture, in runs of 16 instructions.
pub fn golden_bytes(arch: &str) -> Vec<Vec<u8>> {
    let src = std::fs::read_to_string(root().join(format!("tests/isa/golden/{arch}.txt"))).expect("golden file");
    let insts: Vec<Vec<u8>> = src
        .lines()
        .filter_map(|l| l.rsplit_once(" ; [").map(|(_, e)| e))
        .map(|e| {
            e.trim_end_matches(']')
                .split(',')
                .filter_map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).ok())
                .collect()
        })
        .collect();
    let step = (insts.len() / 300).max(1);
    insts.chunks(16).step_by(step).map(|c| c.concat()).collect()
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// PM4 streams of every generation from the driver's builder.
pub fn pm4() -> Vec<(&'static str, Vec<u8>)> {
    let mut v = Vec::new();
    for (arch, gen) in [("gfx942", &GFX9), ("gfx1100", &GFX11), ("gfx1201", &GFX12)] {
        let mut q = Pm4::new(gen);
        q.wait_mem(0x1000, 7, 0xffff_ffff, Compare::GreaterEqual);
        q.acquire_mem(true);
        q.set_sh_regs(gen.regs.pgm_lo, &[0x1234, 0]);
        q.dispatch(&Dispatch {
            entry: 0x10_0000,
            rsrc1: 0x60_0000,
            rsrc2: 0x90,
            rsrc3: 0,
            tmpring_size: 0x40_0200,
            scratch_base: Some(0x5_0000_0000),
            scratch_per_xcc: 0,
            user_data: vec![0x2000, 0],
            grid: [4, 2, 1],
            block: [64, 1, 1],
            wave32: arch != "gfx942",
        });
        q.release_mem(0x2000, ReleaseData::U32(9), true, Some(3));
        q.event_write(4, 0);
        q.indirect_buffer(0x4000, 16);
        q.nop(3);
        v.push((arch, bytes(q.words())));
    }
    v
}

/// SDMA streams of every generation from the driver's builder.
pub fn sdma() -> Vec<(&'static str, Vec<u8>)> {
    let mut v = Vec::new();
    for (arch, gen) in [("gfx942", &SDMA4), ("gfx1100", &SDMA6), ("gfx1201", &SDMA7)] {
        let mut q = Sdma::new(gen);
        q.poll_ge(0x1000, 5, 0xffff_ffff);
        q.copy(0x3000, 0x2000, 100);
        q.fence(0x1000, 6);
        q.trap(2);
        q.timestamp(0x1008);
        q.write(0x1010, &[1, 2]);
        q.indirect(0x8000, 12);
        q.nop();
        v.push((arch, bytes(q.words())));
    }
    v
}

/// A push buffer with every kind of method header.
pub fn pushbuf() -> Vec<u8> {
    let mut pb = PushBuffer::new();
    pb.inc(1, 0x2b4, &[1, 2]).expect("inc");
    pb.immediate(4, 0x100, 7).expect("immediate");
    pb.non_inc(0, 0x10, &[9, 8]).expect("non_inc");
    pb.one_inc(2, 0x20, &[3, 4, 5]).expect("one_inc");
    pb.end_segment();
    bytes(pb.words())
}

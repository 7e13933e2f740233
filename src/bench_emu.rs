//! `bench emu`: how fast the emulated GPU runs kernels, in wave instructions per second, on a
//! clang-compiled fp32 matmul (N=128) and a vector add, launched through the whole stack.

use crate::{Error, Result};
use baregpu_emu::rdna::Interpreter;
use baregpu_runtime::amd::AmdDevice;
use baregpu_runtime::program::{ArgValue, CodeObject, Launch};
use serde::Serialize;
use std::sync::Arc;
use std::time::Instant;

#[derive(Debug, Clone, Serialize)]
pub struct EmuFigure {
    pub device: String,
    pub kernel: String,
    pub wave_instructions: u64,
    pub seconds: f64,
    pub wave_instructions_per_s: f64,
}

/// The clang-built code objects the bench runs (the test fixtures, built by their scripts).
fn fixtures(arch: &str) -> Result<(&'static [u8], &'static [u8])> {
    Ok(match arch {
        "gfx1100" => (
            include_bytes!("../tests/fixtures/rdna/corpus-gfx1100-O2.hsaco"),
            include_bytes!("../tests/fixtures/hsaco/basic-gfx1100.hsaco"),
        ),
        "gfx1201" => (
            include_bytes!("../tests/fixtures/rdna/corpus-gfx1201-O2.hsaco"),
            include_bytes!("../tests/fixtures/hsaco/basic-gfx1201.hsaco"),
        ),
        a => return Err(Error::Usage(format!("bench emu runs the RDNA interpreter: gfx1100 or gfx1201, not {a}"))),
    })
}

fn load(dev: &AmdDevice, bytes: &[u8]) -> Result<baregpu_runtime::amd::Program> {
    let co = CodeObject::parse(bytes).map_err(|e| Error::Usage(format!("bench fixture: {e}")))?;
    Ok(dev.load(co)?)
}

pub fn run(arch: &str) -> Result<Vec<EmuFigure>> {
    let (corpus, basic) = fixtures(arch)?;
    let interp = Arc::new(Interpreter::new(arch));
    let dev = crate::device::open_emulated(arch, 0, interp.clone())?;
    let (mm, va) = (load(&dev, corpus)?, load(&dev, basic)?);
    let mut out = Vec::new();
    let mut measure =
        |kernel: &str, prog: &baregpu_runtime::amd::Program, args: &[ArgValue], l: Launch| -> Result<()> {
            let before = interp.instructions();
            let t = Instant::now();
            let s = dev.launch(prog, kernel, args, &l, false)?;
            dev.synchronize()?;
            let seconds = t.elapsed().as_secs_f64();
            dev.release(s);
            let n = interp.instructions() - before;
            out.push(EmuFigure {
                device: dev.label.clone(),
                kernel: kernel.to_string(),
                wave_instructions: n,
                seconds,
                wave_instructions_per_s: n as f64 / seconds,
            });
            Ok(())
        };
    // fp32 matmul, N = 128: one work-item per element, 8x8 workgroups.
    let n = 128usize;
    let bytes = (n * n * 4) as u64;
    let (a, b, c) = (dev.alloc(bytes)?, dev.alloc(bytes)?, dev.alloc(bytes)?);
    let fill: Vec<u8> = (0..n * n).flat_map(|i| ((i % 17) as f32 * 0.25).to_le_bytes()).collect();
    dev.write(&a, 0, &fill)?;
    dev.write(&b, 0, &fill)?;
    let args =
        [ArgValue::Pointer(a.va()), ArgValue::Pointer(b.va()), ArgValue::Pointer(c.va()), ArgValue::u32(n as u32)];
    measure("matmul", &mm, &args, Launch::new([16, 16, 1], [8, 8, 1]))?;
    // Vector add over 1M elements.
    let len = 1u32 << 20;
    let (x, y, z) = (dev.alloc(len as u64 * 4)?, dev.alloc(len as u64 * 4)?, dev.alloc(len as u64 * 4)?);
    let args = [ArgValue::Pointer(x.va()), ArgValue::Pointer(y.va()), ArgValue::Pointer(z.va()), ArgValue::u32(len)];
    measure("vector_add", &va, &args, Launch::new([len / 256, 1, 1], [256, 1, 1]))?;
    for buf in [a, b, c, x, y, z] {
        dev.free(buf)?;
    }
    dev.unload(mm)?;
    dev.unload(va)?;
    Ok(out)
}

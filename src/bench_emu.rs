//! `bench emu`: how fast the emulated GPU runs kernels, in wave instructions per second, on a
//! clang-compiled fp32 matmul (N=128) and a vector add, launched through the whole stack; on
//! CDNA (gfx942, gfx950) also MFMAs per second on a loop of `v_mfma_f32_16x16x16_f16` built with
//! our assembler and code-object writer.

use crate::{Error, Result};
use baregpu_compiler::codeobj::{write_code_object, Kernel, KernelArg, KernelResources};
use baregpu_emu::rdna::Interpreter;
use baregpu_isa::Arch;
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
    /// MFMA instructions the kernel executed (the MFMA loop only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mfma: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mfma_per_s: Option<f64>,
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
        "gfx942" => (
            include_bytes!("../tests/fixtures/cdna/corpus-gfx942-O2.hsaco"),
            include_bytes!("../tests/fixtures/hsaco/basic-gfx942.hsaco"),
        ),
        "gfx950" => (
            include_bytes!("../tests/fixtures/cdna/corpus-gfx950-O2.hsaco"),
            include_bytes!("../tests/fixtures/hsaco/basic-gfx950.hsaco"),
        ),
        a => {
            return Err(Error::Usage(format!(
                "bench emu runs the AMD wave interpreter: gfx1100, gfx1201, gfx942 or gfx950, not {a}"
            )))
        }
    })
}

/// MFMAs in one trip of the loop kernel's body.
pub const MFMA_UNROLL: u32 = 8;

/// The MFMA loop kernel `mfma_loop(float4 *out, uint trips)` for gfx942/gfx950: each wave64
/// multiplies 16×16 f16 ones into a 16×16 f32 accumulator in AGPRs, [`MFMA_UNROLL`] MFMAs a
/// trip, then stores each lane's four accumulators at `out[workgroup × 64 + lane]`: every
/// element ends at `16 × MFMA_UNROLL × trips`.
pub fn mfma_loop_code_object(arch: &str) -> Result<Vec<u8>> {
    let a = Arch::from_name(arch).filter(|a| matches!(a, Arch::Gfx942 | Arch::Gfx950));
    let a = a.ok_or_else(|| Error::Usage(format!("the MFMA loop is CDNA code (gfx942, gfx950), not {arch}")))?;
    let mut src = String::from(
        "s_load_dwordx2 s[4:5], s[0:1], 0x0\n\
         s_load_dword s6, s[0:1], 0x8\n\
         v_mov_b32 v2, 0x3c003c00\n\
         v_mov_b32 v3, 0x3c003c00\n",
    );
    for k in 0..4 {
        src += &format!("v_accvgpr_write_b32 a{k}, 0\n");
    }
    src += "s_waitcnt lgkmcnt(0)\nloop:\n";
    for _ in 0..MFMA_UNROLL {
        src += "v_mfma_f32_16x16x16_f16 a[0:3], v[2:3], v[2:3], a[0:3]\n";
    }
    src += "s_sub_u32 s6, s6, 1\n\
            s_cmp_lg_u32 s6, 0\n\
            s_cbranch_scc1 loop\n";
    for k in 0..4 {
        src += &format!("v_accvgpr_read_b32 v{}, a{k}\n", 4 + k);
    }
    src += "v_lshlrev_b32 v1, 4, v0\n\
            s_lshl_b32 s3, s2, 10\n\
            v_add_u32 v1, s3, v1\n\
            global_store_dwordx4 v1, v[4:7], s[4:5]\n\
            s_endpgm\n";
    let code = baregpu_isa::assemble(a, &src).map_err(|e| Error::Usage(format!("assembling the MFMA loop: {e}")))?;
    let mut k = Kernel::new(a, "mfma_loop", code)
        .with_args(vec![KernelArg::global_buffer("out", 0), KernelArg::by_value("trips", 8, 4)]);
    let r = &mut k.resources;
    (r.vgpr_count, r.agpr_count) = (8, 4);
    r.sgpr_count = KernelResources::sgpr_count_for(a, 8, false);
    write_code_object(a, &[k]).map_err(|e| Error::Usage(format!("writing the MFMA loop: {e}")))
}

fn load(dev: &AmdDevice, bytes: &[u8]) -> Result<baregpu_runtime::amd::Program> {
    let co = CodeObject::parse(bytes).map_err(|e| Error::Usage(format!("bench fixture: {e}")))?;
    Ok(dev.load(co)?)
}

/// One measured launch.
struct Bench<'a> {
    dev: &'a AmdDevice,
    interp: &'a Interpreter,
    out: Vec<EmuFigure>,
}

impl Bench<'_> {
    fn measure(
        &mut self,
        kernel: &str,
        prog: &baregpu_runtime::amd::Program,
        args: &[ArgValue],
        l: Launch,
    ) -> Result<&mut EmuFigure> {
        let before = self.interp.instructions();
        let t = Instant::now();
        let s = self.dev.launch(prog, kernel, args, &l, false)?;
        self.dev.synchronize()?;
        let seconds = t.elapsed().as_secs_f64();
        self.dev.release(s);
        let n = self.interp.instructions() - before;
        self.out.push(EmuFigure {
            device: self.dev.label.clone(),
            kernel: kernel.to_string(),
            wave_instructions: n,
            seconds,
            wave_instructions_per_s: n as f64 / seconds,
            mfma: None,
            mfma_per_s: None,
        });
        Ok(self.out.last_mut().expect("just pushed"))
    }

    /// The MFMA loop over `groups` wave64 workgroups of `trips` trips; its result is checked.
    fn mfma_loop(&mut self, arch: &str, groups: u32, trips: u32) -> Result<()> {
        let dev = self.dev;
        let prog = load(dev, &mfma_loop_code_object(arch)?)?;
        let bytes = groups as u64 * 64 * 16;
        let out = dev.alloc(bytes)?;
        let args = [ArgValue::Pointer(out.va()), ArgValue::u32(trips)];
        let f = self.measure("mfma_loop", &prog, &args, Launch::new([groups, 1, 1], [64, 1, 1]))?;
        let mfma = groups as u64 * trips as u64 * MFMA_UNROLL as u64;
        (f.mfma, f.mfma_per_s) = (Some(mfma), Some(mfma as f64 / f.seconds));
        let mut got = vec![0u8; bytes as usize];
        dev.read(&out, 0, &mut got)?;
        dev.free(out)?;
        dev.unload(prog)?;
        let want = (16 * MFMA_UNROLL * trips) as f32;
        match got.chunks(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).position(|x| x != want) {
            None => Ok(()),
            Some(i) => {
                Err(Error::Usage(format!("bench emu: the MFMA loop computed a wrong element {i} (want {want})")))
            }
        }
    }
}

/// Runs the MFMA loop alone on `arch` (gfx942, gfx950): `groups` waves of `trips` trips.
pub fn run_mfma(arch: &str, groups: u32, trips: u32) -> Result<EmuFigure> {
    let interp = Arc::new(Interpreter::new(arch));
    let dev = crate::device::open_emulated(arch, 0, interp.clone())?;
    let mut b = Bench { dev: &dev, interp: &interp, out: Vec::new() };
    b.mfma_loop(arch, groups, trips)?;
    Ok(b.out.remove(0))
}

pub fn run(arch: &str) -> Result<Vec<EmuFigure>> {
    let (corpus, basic) = fixtures(arch)?;
    let interp = Arc::new(Interpreter::new(arch));
    let dev = crate::device::open_emulated(arch, 0, interp.clone())?;
    let (mm, va) = (load(&dev, corpus)?, load(&dev, basic)?);
    let mut b = Bench { dev: &dev, interp: &interp, out: Vec::new() };
    // fp32 matmul, N = 128: one work-item per element, 8x8 workgroups.
    let n = 128usize;
    let bytes = (n * n * 4) as u64;
    let (a, bm, c) = (dev.alloc(bytes)?, dev.alloc(bytes)?, dev.alloc(bytes)?);
    let fill: Vec<u8> = (0..n * n).flat_map(|i| ((i % 17) as f32 * 0.25).to_le_bytes()).collect();
    dev.write(&a, 0, &fill)?;
    dev.write(&bm, 0, &fill)?;
    let args =
        [ArgValue::Pointer(a.va()), ArgValue::Pointer(bm.va()), ArgValue::Pointer(c.va()), ArgValue::u32(n as u32)];
    b.measure("matmul", &mm, &args, Launch::new([16, 16, 1], [8, 8, 1]))?;
    // Vector add over 1M elements.
    let len = 1u32 << 20;
    let (x, y, z) = (dev.alloc(len as u64 * 4)?, dev.alloc(len as u64 * 4)?, dev.alloc(len as u64 * 4)?);
    let args = [ArgValue::Pointer(x.va()), ArgValue::Pointer(y.va()), ArgValue::Pointer(z.va()), ArgValue::u32(len)];
    b.measure("vector_add", &va, &args, Launch::new([len / 256, 1, 1], [256, 1, 1]))?;
    if matches!(arch, "gfx942" | "gfx950") {
        b.mfma_loop(arch, 32, 8)?;
    }
    let out = b.out;
    for buf in [a, bm, c, x, y, z] {
        dev.free(buf)?;
    }
    dev.unload(mm)?;
    dev.unload(va)?;
    Ok(out)
}

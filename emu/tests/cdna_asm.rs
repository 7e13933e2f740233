//! The CDNA wave interpreter on kernels written in gfx9 assembly (built with our assembler), for
//! what clang's corpus does not reach. MFMA: each single-block f32/f16/bf16/i8 `v_mfma_*` of gfx942 and
//! gfx950, run in a small kernel (built with our assembler) that loads each lane's A, B and C
//! registers, multiplies (C/D in AGPRs or VGPRs) and stores D, against a plain-Rust matrix
//! product of the same matrices placed by the documented layout (docs/cdna-mfma.md). Also: the
//! unified VGPR/AGPR file, with AGPRs from the kernel's ACCUM_OFFSET on. gfx9 v_cmpx (EXEC and
//! VCC), the gfx9 DPP broadcasts and shifts, and an unsupported instruction as an Illegal fault.

use baregpu_emu::amd::dispatch::{DispatchFault, DispatchState, GpuMemory, WaveEngine};
use baregpu_emu::rdna::fp::f32_to_f16;
use baregpu_emu::rdna::mfma::{a_slot, d_slot, per_lane, shape, MfmaTy};
use baregpu_emu::rdna::Interpreter;
use baregpu_isa::Arch;

/// Bytes of per-lane data: A at 0, B at 16, C/D at 32 (16 registers).
const LANE: usize = 128;

/// Runs `src` (gfx9 assembly) as one wave64 with s[0:1] = the buffer, ACCUM_OFFSET = `accum`.
fn run(arch: &'static str, src: &str, buf: &mut [u32], accum: u32) {
    dispatch(arch, src, buf, accum).unwrap_or_else(|f| panic!("{arch}: {f:?}\n{src}"));
}

/// As [`run`]; returns the dispatch's result and the code's address.
fn dispatch(arch: &'static str, src: &str, buf: &mut [u32], accum: u32) -> Result<(), (DispatchFault, u64)> {
    let a = Arch::from_name(arch).unwrap();
    let code = baregpu_isa::assemble(a, src).unwrap_or_else(|e| panic!("{arch}: {e}\n{src}"));
    let words: Vec<u32> = code.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    dispatch_words(arch, &words, buf, accum)
}

/// As [`dispatch`], for code given as dwords.
fn dispatch_words(arch: &'static str, code: &[u32], buf: &mut [u32], accum: u32) -> Result<(), (DispatchFault, u64)> {
    let mut words = code.to_vec();
    words.resize(code.len() + 64, 0);
    let (va, bva) = (words.as_ptr() as u64, buf.as_ptr() as u64);
    let mem =
        GpuMemory::from_ranges(&[(va, words.len() as u64 * 4, va as usize), (bva, buf.len() as u64 * 4, bva as usize)]);
    let mut user_data = [0u32; 16];
    (user_data[0], user_data[1]) = (bva as u32, (bva >> 32) as u32);
    let d = DispatchState {
        arch,
        pgm: va,
        rsrc1: 0,
        rsrc2: 2 << 1,
        rsrc3: accum / 4 - 1,
        user_data,
        grid: [1, 1, 1],
        block: [64, 1, 1],
        start: [0; 3],
        wave32: false,
        tmpring_size: 0,
        scratch_base: 0,
        lds_bytes: 0,
        cancel: Default::default(),
    };
    Interpreter::new(arch).dispatch(&d, &mem).map_err(|f| (f, va))
}

fn regs(base: &str, first: usize, n: usize) -> String {
    if n == 1 {
        format!("{base}{first}")
    } else {
        format!("{base}[{first}:{}]", first + n - 1)
    }
}

/// The kernel: per-lane loads of A (v2..), B (v6..), C (v10..25), the MFMA, D stored back over C.
fn kernel(mnemonic: &str, ab_regs: usize, d_regs: usize, agpr_cd: bool) -> String {
    let mut s = String::from("v_lshlrev_b32 v1, 7, v0\n");
    s += "global_load_dwordx4 v[2:5], v1, s[0:1]\nglobal_load_dwordx4 v[6:9], v1, s[0:1] offset:16\n";
    for q in 0..4 {
        s += &format!("global_load_dwordx4 v[{}:{}], v1, s[0:1] offset:{}\n", 10 + 4 * q, 13 + 4 * q, 32 + 16 * q);
    }
    s += "s_waitcnt vmcnt(0)\n";
    let (a, b) = (regs("v", 2, ab_regs), regs("v", 6, ab_regs));
    if agpr_cd {
        for r in 0..d_regs {
            s += &format!("v_accvgpr_write_b32 a{r}, v{}\n", 10 + r);
        }
        let cd = regs("a", 0, d_regs);
        s += &format!("{mnemonic} {cd}, {a}, {b}, {cd}\n");
        for r in 0..d_regs {
            s += &format!("v_accvgpr_read_b32 v{}, a{r}\n", 10 + r);
        }
    } else {
        let cd = regs("v", 10, d_regs);
        s += &format!("{mnemonic} {cd}, {a}, {b}, {cd}\n");
    }
    for q in 0..4 {
        s += &format!("global_store_dwordx4 v1, v[{}:{}], s[0:1] offset:{}\n", 10 + 4 * q, 13 + 4 * q, 32 + 16 * q);
    }
    s + "s_endpgm\n"
}

fn encode(ty: MfmaTy, x: f32) -> u32 {
    match ty {
        MfmaTy::F32 => x.to_bits(),
        MfmaTy::F16 => f32_to_f16(x) as u32,
        MfmaTy::Bf16 => x.to_bits() >> 16,
        MfmaTy::I8 => x as i8 as u8 as u32,
    }
}

/// One variant: random small integers (exact in every format and under every summation order,
/// so any internal precision agrees), placed by the layout, against the host product.
fn check(arch: &'static str, mnemonic: &str, agpr_cd: bool, seed: &mut u64) {
    let (ty, m, k) = shape(mnemonic).unwrap_or_else(|| panic!("{mnemonic}: a single-block MFMA"));
    let (mu, ku) = (m as usize, k as usize);
    let mut rnd = |lo: i32, hi: i32| {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        lo + ((*seed >> 33) % (hi - lo + 1) as u64) as i32
    };
    let a: Vec<i32> = (0..mu * ku).map(|_| rnd(-8, 8)).collect();
    let b: Vec<i32> = (0..ku * mu).map(|_| rnd(-8, 8)).collect();
    let c: Vec<i32> = (0..mu * mu).map(|_| rnd(-100, 100)).collect();
    let mut buf = vec![0u32; 64 * LANE / 4];
    let bits = ty.bits() as usize;
    let mut put = |base: usize, lane: usize, e: usize, v: u32| {
        let w = &mut buf[lane * LANE / 4 + base + e * bits / 32];
        let sh = (e * bits) % 32;
        let mask = if bits == 32 { u32::MAX } else { ((1u32 << bits) - 1) << sh };
        *w = (*w & !mask) | ((v << sh) & mask);
    };
    for i in 0..mu {
        for kk in 0..ku {
            let (lane, e) = a_slot(m, k, i, kk);
            put(0, lane, e, encode(ty, a[i * ku + kk] as f32));
            let (lane, e) = a_slot(m, k, i, kk);
            put(4, lane, e, encode(ty, b[kk * mu + i] as f32));
        }
    }
    let cbits = |x: i32| if ty == MfmaTy::I8 { x as u32 } else { (x as f32).to_bits() };
    for r in 0..mu {
        for col in 0..mu {
            let (lane, reg) = d_slot(m, r, col);
            buf[lane * LANE / 4 + 8 + reg] = cbits(c[r * mu + col]);
        }
    }
    let ab_regs = per_lane(m, k) * bits / 32;
    run(arch, &kernel(mnemonic, ab_regs, mu * mu / 64, agpr_cd), &mut buf, 64);
    for r in 0..mu {
        for col in 0..mu {
            let want = c[r * mu + col] + (0..ku).map(|kk| a[r * ku + kk] * b[kk * mu + col]).sum::<i32>();
            let (lane, reg) = d_slot(m, r, col);
            let got = buf[lane * LANE / 4 + 8 + reg];
            assert_eq!(
                got,
                cbits(want),
                "{arch} {mnemonic} (C/D in {}) D[{r}][{col}]",
                if agpr_cd { "AGPRs" } else { "VGPRs" }
            );
        }
    }
}

const BOTH: &[&str] = &[
    "v_mfma_f32_32x32x2_f32",
    "v_mfma_f32_16x16x4_f32",
    "v_mfma_f32_32x32x8_f16",
    "v_mfma_f32_16x16x16_f16",
    "v_mfma_f32_32x32x8_bf16",
    "v_mfma_f32_16x16x16_bf16",
    "v_mfma_i32_32x32x16_i8",
    "v_mfma_i32_16x16x32_i8",
];
const GFX950: &[&str] = &[
    "v_mfma_f32_16x16x32_f16",
    "v_mfma_f32_32x32x16_f16",
    "v_mfma_f32_16x16x32_bf16",
    "v_mfma_f32_32x32x16_bf16",
    "v_mfma_i32_16x16x64_i8",
    "v_mfma_i32_32x32x32_i8",
];

#[test]
fn every_single_block_mfma_matches_a_host_matrix_product() {
    let mut seed = 7u64;
    for arch in ["gfx942", "gfx950"] {
        let extra: &[&str] = if arch == "gfx950" { GFX950 } else { &[] };
        for (n, m) in BOTH.iter().chain(extra).enumerate() {
            check(arch, m, n % 2 == 0, &mut seed);
        }
    }
}

/// a[k] is v[ACCUM_OFFSET + k]: written as an AGPR, read back as a VGPR.
#[test]
fn agprs_start_at_accum_offset_in_the_unified_file() {
    for arch in ["gfx942", "gfx950"] {
        for accum in [32u32, 128] {
            let src = format!(
                "v_lshlrev_b32 v1, 7, v0\nv_add_u32_e32 v2, 0x3e8, v0\nv_accvgpr_write_b32 a3, v2\n\
                 v_mov_b32 v4, v{}\nglobal_store_dword v1, v4, s[0:1]\ns_endpgm\n",
                accum + 3
            );
            let mut buf = vec![0u32; 64 * LANE / 4];
            run(arch, &src, &mut buf, accum);
            for lane in 0..64 {
                assert_eq!(buf[lane * LANE / 4], 1000 + lane as u32, "{arch} accum_offset {accum} lane {lane}");
            }
        }
    }
}

/// The layouts agree with AMD's Matrix Instruction Calculator for every single-block CDNA3 MFMA
/// (tests/fixtures/cdna/mfma-layouts-cdna3.txt, made by mfma_layouts.py beside it): A, B and D.
#[test]
fn layouts_match_amds_matrix_instruction_calculator() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/cdna/mfma-layouts-cdna3.txt");
    let text = std::fs::read_to_string(path).expect("layout fixture");
    let mut checked = std::collections::BTreeSet::new();
    for line in text.lines() {
        let (head, cells) = line.split_once(": ").expect("MNEMONIC MATRIX ROW: cells");
        let mut h = head.split(' ');
        let (mnemonic, matrix, row) =
            (h.next().unwrap(), h.next().unwrap(), h.next().unwrap().parse::<usize>().unwrap());
        let (_, m, k) = shape(mnemonic).unwrap_or_else(|| panic!("{mnemonic}"));
        for (col, cell) in cells.split(' ').enumerate() {
            let (lane, e) = cell.split_once('.').unwrap();
            let got = (lane.parse::<usize>().unwrap(), e.parse::<usize>().unwrap());
            let ours = match matrix {
                "A" => a_slot(m, k, row, col),
                "B" => a_slot(m, k, col, row),
                _ => d_slot(m, row, col),
            };
            assert_eq!(ours, got, "{mnemonic} {matrix}[{row}][{col}]");
        }
        checked.insert(mnemonic);
    }
    assert_eq!(checked.len(), 8, "every CDNA3 single-block shape");
}

/// gfx9 `v_cmpx` writes EXEC and VCC (gfx10+ writes EXEC only).
#[test]
fn cmpx_writes_exec_and_vcc_on_gfx9() {
    for arch in ["gfx942", "gfx950"] {
        let src = "v_lshlrev_b32 v1, 7, v0\ns_mov_b64 vcc, 0\nv_cmpx_gt_u32_e32 vcc, 20, v0\n\
                   s_mov_b64 s[4:5], vcc\ns_mov_b64 s[6:7], exec\ns_mov_b64 exec, -1\n\
                   v_mov_b32 v2, s4\nv_mov_b32 v3, s5\nv_mov_b32 v4, s6\nv_mov_b32 v5, s7\n\
                   global_store_dwordx4 v1, v[2:5], s[0:1]\ns_endpgm\n";
        let mut buf = vec![0u32; 64 * LANE / 4];
        run(arch, src, &mut buf, 64);
        assert_eq!(&buf[..4], &[0xf_ffff, 0, 0xf_ffff, 0], "{arch}: VCC and EXEC are lanes 0..19");
    }
}

/// The gfx9 DPP controls RDNA dropped: row_bcast:15, row_bcast:31, wave_shr:1.
#[test]
fn gfx9_dpp_broadcasts_and_wave_shifts() {
    for arch in ["gfx942", "gfx950"] {
        let src =
            "v_lshlrev_b32 v1, 7, v0\nv_mov_b32_e32 v2, 0x3e8\nv_mov_b32_e32 v3, 0x3e8\nv_mov_b32_e32 v4, 0x3e8\n\
                   v_mov_b32_dpp v2, v0 row_bcast:15 row_mask:0xa bank_mask:0xf\n\
                   v_mov_b32_dpp v3, v0 wave_shr:1 row_mask:0xf bank_mask:0xf\n\
                   v_mov_b32_dpp v4, v0 row_bcast:31 row_mask:0xc bank_mask:0xf\n\
                   global_store_dwordx3 v1, v[2:4], s[0:1]\ns_endpgm\n";
        let mut buf = vec![0u32; 64 * LANE / 4];
        run(arch, src, &mut buf, 64);
        for l in 0..64usize {
            let got = &buf[l * LANE / 4..l * LANE / 4 + 3];
            let row = l / 16;
            let bcast15 = if row % 2 == 1 { (row as u32 - 1) * 16 + 15 } else { 1000 };
            let shr = if l == 0 { 1000 } else { l as u32 - 1 };
            let bcast31 = if row >= 2 { 31 } else { 1000 };
            assert_eq!(got, &[bcast15, shr, bcast31], "{arch} lane {l}");
        }
    }
}

/// An instruction the interpreter does not run is an Illegal fault at its PC, as on RDNA.
#[test]
fn unsupported_instruction_is_an_illegal_fault_at_its_pc() {
    for arch in ["gfx942", "gfx950"] {
        // s_nop is 4 bytes; the graphics-only cube-map operation after it is not run by the
        // interpreter.
        let src = "s_nop 0\nv_cubeid_f32 v1, v2, v3, v4\ns_endpgm\n";
        let mut buf = vec![0u32; 16];
        match dispatch(arch, src, &mut buf, 64) {
            Err((DispatchFault::Illegal { pc, what }, va)) => {
                assert_eq!(pc, va + 4, "{arch}: {what}");
                assert!(what.contains("v_cubeid_f32: not supported"), "{arch}: {what}");
            }
            other => panic!("{arch}: {other:?}"),
        }
    }
}

/// A dword with VOPD's first-dword pattern is no instruction on gfx9 (VOPD is gfx11+): an
/// Illegal fault there, not a dual-issue VALU pair.
#[test]
fn vopd_pattern_is_not_an_instruction_on_gfx9() {
    for arch in ["gfx942", "gfx950"] {
        // 0xc8000000 0x00000000: v_dual_fmac_f32 v0, s0, v0 :: v_dual_fmac_f32 v1, s0, v0 on gfx11;
        // then s_endpgm (0xbf810000).
        let code = [0xc800_0000u32, 0, 0xbf81_0000];
        let mut buf = vec![0u32; 16];
        match dispatch_words(arch, &code, &mut buf, 64) {
            Err((DispatchFault::Illegal { pc, what }, va)) => {
                assert_eq!(pc, va, "{arch}: {what}");
                assert!(what.contains("undecodable"), "{arch}: {what}");
            }
            other => panic!("{arch}: {other:?}"),
        }
    }
}

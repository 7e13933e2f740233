//! The gfx950 MXFP4 GEMM end to end on emu:gfx950: every tile bit-exact against the host
//! reference on exact inputs (every product and partial sum exact in f32) and within the bf16
//! bound on random ones, shapes that do not divide the tiles (edge masks, an odd number of K
//! steps), and the command's errors as one line. The larger shapes of the issue are #[ignore]d
//! (run them with `cargo test --release --test gemm_mxfp4 -- --ignored`).

use std::path::Path;
use std::process::{Command, Output};

use baregpu::gemm::{gemm_mxfp4, GemmOptions};
use baregpu::Gpu;
use baregpu_compiler::kernels::mxfp4_gemm::{Mem, Tile};
use baregpu_compiler::mxfp4::reference::{compare, gemm_bf16, gemm_f64};
use baregpu_compiler::mxfp4::{inputs, Mxfp4Matrix};

fn gfx950() -> Box<dyn Gpu> {
    baregpu::open(&"emu:gfx950".parse().unwrap()).unwrap()
}

fn exact(m: usize, n: usize, k: usize, seed: u64) -> (Mxfp4Matrix, Mxfp4Matrix) {
    (inputs::exact(m, k, seed).unwrap(), inputs::exact(n, k, seed + 1).unwrap())
}

/// Runs one GEMM and requires the reference's bits.
fn bit_exact(dev: &dyn Gpu, tile: Tile, mem: Mem, m: usize, n: usize, k: usize) {
    let (a, b) = exact(m, n, k, (m * 31 + n * 7 + k) as u64);
    let run = gemm_mxfp4(dev, &a, &b, &GemmOptions { tile: Some(tile), mem, runs: 1 }).unwrap();
    let want = gemm_bf16(&a, &b).unwrap();
    println!("{} {} {m}x{n}x{k}: {:.2} s in the emulator", tile.name(), mem.name(), run.wall_us / 1e6);
    assert_eq!(run.tile, tile);
    let bad: Vec<usize> = (0..want.len()).filter(|&i| run.c[i] != want[i]).collect();
    assert!(
        bad.is_empty(),
        "{} {} {m}x{n}x{k}: {} of {} differ; first at ({}, {}): {:#06x}, reference {:#06x}",
        tile.name(),
        mem.name(),
        bad.len(),
        want.len(),
        bad[0] / n,
        bad[0] % n,
        run.c[bad[0]],
        want[bad[0]]
    );
}

#[test]
fn every_tile_is_bit_exact_at_256_cubed() {
    let dev = gfx950();
    for mem in Mem::ALL {
        for t in Tile::ALL {
            bit_exact(&*dev, t, mem, 256, 256, 256);
        }
    }
}

#[test]
fn edges_and_odd_step_counts_are_bit_exact() {
    // M and N that divide no tile, K of 1, 3 and 5 steps: partial tiles on both edges, rows past
    // M clamped on load and masked on store, N not a multiple of 4 (element stores).
    let dev = gfx950();
    for mem in Mem::ALL {
        bit_exact(&*dev, Tile::T256x256, mem, 100, 70, 384);
        bit_exact(&*dev, Tile::T192x256, mem, 200, 261, 128);
        bit_exact(&*dev, Tile::T128x512, mem, 129, 33, 640);
    }
}

#[test]
fn random_inputs_are_within_the_bf16_bound() {
    let dev = gfx950();
    for t in Tile::ALL {
        let (m, n, k) = (256, 256, 512);
        let (a, b) = (inputs::random(m, k, 3).unwrap(), inputs::random(n, k, 4).unwrap());
        let run = gemm_mxfp4(&*dev, &a, &b, &GemmOptions { tile: Some(t), ..GemmOptions::default() }).unwrap();
        let r = compare(&run.c, &gemm_f64(&a, &b).unwrap(), k);
        println!("{}: {r:?}", t.name());
        assert!(r.within_bound(), "{}: {r:?}", t.name());
    }
}

fn baregpu(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .current_dir(cwd)
        .env("BAREGPU_SYSROOT", cwd)
        // A debug build emulates one workgroup of these kernels in seconds; on a loaded machine
        // that can pass the default 10 s without a workgroup retiring.
        .env("BAREGPU_TIMEOUT_MS", "120000")
        .env_remove("BAREGPU_LOG")
        .output()
        .expect("run baregpu")
}

#[test]
fn the_command_checks_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = baregpu(
        &["gemm", "mxfp4", "--device", "emu:gfx950", "-m", "256", "-n", "256", "-k", "256", "--check", "--json"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["tile"], "256x256");
    assert_eq!(v["memory"], "lds");
    assert_eq!(v["check"]["pass"], true);
    assert!(v["tflops"].as_f64().unwrap() > 0.0);
    for args in [&["gemm", "--help"][..], &["gemm", "mxfp4", "--help"], &["bench", "gemm", "mxfp4", "--help"]] {
        let out = baregpu(args, dir.path());
        assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("Usage: baregpu"), "{args:?}");
    }
}

#[test]
fn raw_inputs_in_the_natural_layout() {
    // Files written from exact inputs give the reference's C in --out.
    let dir = tempfile::tempdir().unwrap();
    let (m, n, k) = (64, 48, 256);
    let (a, b) = exact(m, n, k, 9);
    let p = |f: &str| dir.path().join(f).display().to_string();
    std::fs::write(p("a.bin"), &a.data).unwrap();
    std::fs::write(p("sa.bin"), &a.scales).unwrap();
    std::fs::write(p("b.bin"), &b.data).unwrap();
    std::fs::write(p("sb.bin"), &b.scales).unwrap();
    let (ms, ns, ks) = (m.to_string(), n.to_string(), k.to_string());
    let mut args = vec!["gemm", "mxfp4", "--device", "emu:gfx950", "-m", &ms, "-n", &ns, "-k", &ks];
    let files = [p("a.bin"), p("sa.bin"), p("b.bin"), p("sb.bin"), p("c.bin")];
    for (flag, f) in ["--a", "--a-scale", "--b", "--b-scale", "--out"].iter().zip(&files) {
        args.extend([*flag, f.as_str()]);
    }
    args.push("--check");
    let out = baregpu(&args, dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let c = std::fs::read(p("c.bin")).unwrap();
    let want: Vec<u8> = gemm_bf16(&a, &b).unwrap().iter().flat_map(|x| x.to_le_bytes()).collect();
    assert_eq!(c, want);
    // A file of the wrong size is one error line.
    std::fs::write(p("sa.bin"), vec![127u8; 10]).unwrap();
    let out = baregpu(&args, dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("sa.bin: 10 bytes; scale A of 64 x 8 = 512 bytes expected"), "{err}");
}

#[test]
fn bad_shapes_and_devices_are_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[&str], i32, &str); 4] = [
        (&["-m", "256", "-n", "256", "-k", "100"], 1, "K must be a positive multiple of 128"),
        (&["-m", "0", "-n", "256", "-k", "128"], 1, "must be positive"),
        (&["-m", "65536", "-n", "65536", "-k", "128"], 1, "over 4 GiB"),
        (&["-m", "256", "-n", "256", "-k", "128", "--tile", "64x64"], 2, "the tiles are 256x256, 192x256 and 128x512"),
    ];
    for (extra, code, msg) in cases {
        let mut args = vec!["gemm", "mxfp4", "--device", "emu:gfx950"];
        args.extend(extra);
        let out = baregpu(&args, dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
    let out = baregpu(&["gemm", "mxfp4", "--device", "emu:gfx942", "-m", "256", "-n", "256", "-k", "256"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(err.contains("emu:gfx942 is gfx942: the MXFP4 GEMM needs a gfx950"), "{err}");
}

/// The larger shapes; minutes in a debug build.
#[test]
#[ignore]
fn larger_shapes() {
    // Dozens of workgroups share the host's cores: one may take longer than the default 10 s
    // of no progress to retire.
    std::env::set_var("BAREGPU_TIMEOUT_MS", "600000");
    let dev = gfx950();
    for (t, m, n, k) in
        [(Tile::T256x256, 512, 512, 1024), (Tile::T192x256, 512, 512, 1024), (Tile::T128x512, 512, 512, 1024)]
    {
        bit_exact(&*dev, t, Mem::Buffer, m, n, k);
        bit_exact(&*dev, t, Mem::Lds, m, n, k);
    }
    bit_exact(&*dev, Tile::T256x256, Mem::Buffer, 1000, 3000, 512);
    bit_exact(&*dev, Tile::T192x256, Mem::Lds, 1000, 3000, 512);
    bit_exact(&*dev, Tile::T128x512, Mem::Buffer, 256, 512, 4096);
    bit_exact(&*dev, Tile::T256x256, Mem::Lds, 256, 256, 4096);
    let (a, b) = (inputs::random(1000, 512, 5).unwrap(), inputs::random(3000, 512, 6).unwrap());
    let run = gemm_mxfp4(&*dev, &a, &b, &GemmOptions::default()).unwrap();
    let r = compare(&run.c, &gemm_f64(&a, &b).unwrap(), 512);
    println!("random 1000x3000x512 ({}): {:.2} s in the emulator, {r:?}", run.tile.name(), run.wall_us / 1e6);
    assert!(r.within_bound(), "{r:?}");
}

//! `baregpu run` end to end on the emulated gfx1100: clang-built code objects, arguments checked
//! against the metadata, buffers written back; and every kind of bad input as one error line.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn baregpu(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .current_dir(cwd)
        .env("BAREGPU_SYSROOT", cwd) // no real GPUs: the default device is emu:gfx1100
        .env_remove("BAREGPU_LOG")
        .output()
        .expect("run baregpu")
}

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hsaco").join(name).display().to_string()
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn vector_add_runs_and_writes_every_buffer() {
    let dir = tempfile::tempdir().unwrap();
    let n = 300usize;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let b: Vec<f32> = (0..n).map(|i| 100.0 - i as f32).collect();
    std::fs::write(dir.path().join("a.bin"), f32s(&a)).unwrap();
    std::fs::write(dir.path().join("b.bin"), f32s(&b)).unwrap();
    let co = fixture("basic-gfx1100.hsaco");
    let out = baregpu(
        &[
            "run",
            &co,
            "--kernel",
            "vector_add",
            "--grid",
            "5",
            "--block",
            "64",
            "--arg",
            "in:a.bin",
            "--arg",
            "in:b.bin",
            "--arg",
            "out:1200",
            "--arg",
            "u32:300",
            "--json",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!((v["device"].as_str(), v["kernel"].as_str()), (Some("emu:gfx1100"), Some("vector_add")));
    assert!(v["gpu_us"].as_f64().unwrap() > 0.0 && v["wall_us"].as_f64().unwrap() > 0.0);
    let c = std::fs::read(dir.path().join("out/arg2.bin")).unwrap();
    for i in 0..n {
        assert_eq!(f32::from_le_bytes(c[4 * i..4 * i + 4].try_into().unwrap()), a[i] + b[i], "element {i}");
    }
    // Input buffers come back too, unchanged.
    assert_eq!(std::fs::read(dir.path().join("out/arg0.bin")).unwrap(), f32s(&a));
    assert!(!dir.path().join("out/arg3.bin").exists(), "scalars are not buffers");
}

#[test]
fn fill2d_on_a_2d_grid() {
    let dir = tempfile::tempdir().unwrap();
    let co = fixture("basic-gfx1100.hsaco");
    let (w, h) = (32, 8);
    let out = baregpu(
        &[
            "run", &co, "--kernel", "fill2d", "--grid", "2,4", "--block", "16,2", "--arg", "out:1024", "--arg",
            "i32:32", "--arg", "i32:1000", "--out", "res",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let o = std::fs::read(dir.path().join("res/arg0.bin")).unwrap();
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            let got = i32::from_le_bytes(o[4 * i..4 * i + 4].try_into().unwrap());
            assert_eq!(got, 1000 + x as i32 - y as i32, "({x}, {y})");
        }
    }
}

#[test]
fn bad_input_is_one_line_and_a_nonzero_exit() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("garbage.hsaco"), b"\x7fELF\x02\x01\x01 not really").unwrap();
    std::fs::write(dir.path().join("a.bin"), [0u8; 16]).unwrap();
    let co = fixture("basic-gfx1100.hsaco");
    let co942 = fixture("basic-gfx942.hsaco");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["run", &co, "--kernel", "nope", "--grid", "1", "--block", "1"], "no kernel `nope`"),
        (
            vec!["run", &co, "--kernel", "vector_add", "--grid", "1", "--block", "1", "--arg", "u32:1"],
            "takes 4 arguments, 1 given",
        ),
        (
            vec![
                "run",
                &co,
                "--kernel",
                "vector_add",
                "--grid",
                "1",
                "--block",
                "1",
                "--arg",
                "u32:1",
                "--arg",
                "in:a.bin",
                "--arg",
                "in:a.bin",
                "--arg",
                "u32:4",
            ],
            "argument 0: the kernel takes a buffer, u32 given",
        ),
        (
            vec![
                "run", &co, "--kernel", "saxpy", "--grid", "1", "--block", "1", "--arg", "in:a.bin", "--arg",
                "in:a.bin", "--arg", "u32:2", "--arg", "u64:4",
            ],
            "argument 2: the kernel takes float, u32 given",
        ),
        (
            vec![
                "run",
                &co942,
                "--kernel",
                "vector_add",
                "--grid",
                "1",
                "--block",
                "1",
                "--arg",
                "in:a.bin",
                "--arg",
                "in:a.bin",
                "--arg",
                "in:a.bin",
                "--arg",
                "u32:4",
            ],
            "is for gfx942",
        ),
        (vec!["run", "garbage.hsaco", "--kernel", "k", "--grid", "1", "--block", "1"], "garbage.hsaco"),
        (vec!["run", "missing.hsaco", "--kernel", "k", "--grid", "1", "--block", "1"], "missing.hsaco"),
        (
            vec![
                "run",
                &co,
                "--kernel",
                "vector_add",
                "--grid",
                "1",
                "--block",
                "1",
                "--arg",
                "in:nothere.bin",
                "--arg",
                "in:a.bin",
                "--arg",
                "in:a.bin",
                "--arg",
                "u32:4",
            ],
            "nothere.bin",
        ),
        (
            vec![
                "run",
                &co,
                "--kernel",
                "vector_add",
                "--grid",
                "1",
                "--block",
                "2048",
                "--arg",
                "in:a.bin",
                "--arg",
                "in:a.bin",
                "--arg",
                "in:a.bin",
                "--arg",
                "u32:4",
            ],
            "exceeds",
        ),
    ];
    for (args, want) in cases {
        let out = baregpu(&args, dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(err.contains(want), "{args:?}: {err}");
        let lines: Vec<&str> = err.lines().filter(|l| !l.contains(" WARN ")).collect();
        assert_eq!(lines.len(), 1, "{args:?}: not one line: {err}");
    }
}

#[test]
fn trace_and_decode_show_the_command_stream() {
    let dir = tempfile::tempdir().unwrap();
    let co = fixture("basic-gfx1100.hsaco");
    let trace = dir.path().join("trace.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(["run", &co, "--kernel", "fill2d", "--grid", "1", "--block", "8", "--arg", "out:32", "--arg", "i32:8"])
        .args(["--arg", "i32:5"])
        .current_dir(dir.path())
        .env("BAREGPU_SYSROOT", dir.path())
        .env("BAREGPU_TRACE", &trace)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t = std::fs::read_to_string(&trace).unwrap();
    assert!(t.contains("# emu:gfx1100 compute queue: kernel `fill2d`"), "{t}");
    assert!(t.contains("DISPATCH_DIRECT [5 dw] grid=[1, 1, 1]"), "{t}");
    assert!(t.contains("COMPUTE_NUM_THREAD_X(0x2e07)=0x8"), "{t}");

    // The same decoder on a file: a PM4 stream built with the driver's packet builder.
    let mut q = baregpu_drivers::amd::pm4::Pm4::new(&baregpu_drivers::amd::pm4::GFX11);
    q.set_sh_regs(baregpu_drivers::amd::pm4::GFX11.regs.pgm_rsrc1, &[0x11, 0x22]);
    q.nop(3);
    let bytes: Vec<u8> = q.words().iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(dir.path().join("ib.bin"), &bytes).unwrap();
    let out = baregpu(&["decode", "pm4", "--arch", "gfx1100", "ib.bin"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.lines().next().unwrap().contains("SET_SH_REG [4 dw] COMPUTE_PGM_RSRC1(0x2e12)=0x11"), "{s}");
    assert!(s.lines().nth(1).unwrap().starts_with("0x0010: NOP"), "{s}");
    // A truncated stream is an error line, not a panic.
    std::fs::write(dir.path().join("cut.bin"), &bytes[..6]).unwrap();
    let out = baregpu(&["decode", "pm4", "cut.bin"], dir.path());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cut.bin"));
}

fn ptx() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ptx/kernels.ptx").display().to_string()
}

/// PTX runs on emu-nv (the default NVIDIA device with no GPU: the PTX's target), through the
/// RM driver path; its arguments are checked against the `.entry` parameter list.
#[test]
fn ptx_runs_on_the_emulated_nvidia_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let n = 32usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 * 0.5).collect();
    std::fs::write(dir.path().join("a.bin"), f32s(&a)).unwrap();
    std::fs::write(dir.path().join("b.bin"), f32s(&b)).unwrap();
    let p = ptx();
    let args = ["run", &p, "--kernel", "matmul_tiled", "--grid", "4,4", "--block", "8,8", "--arg", "in:a.bin", "--arg"];
    let mut full: Vec<&str> = args.to_vec();
    full.extend(["in:b.bin", "--arg", "out:4096", "--arg", "u32:32", "--json"]);
    let out = baregpu(&full, dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["device"].as_str(), Some("emu-nv:sm_90"));
    let c: Vec<f32> = std::fs::read(dir.path().join("out/arg2.bin"))
        .unwrap()
        .chunks(4)
        .map(|w| f32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    for r in 0..n {
        for col in 0..n {
            let want = (0..n).fold(0f32, |acc, k| a[r * n + k].mul_add(b[k * n + col], acc));
            assert_eq!(c[r * n + col], want, "c[{r}][{col}]");
        }
    }

    // Bad input: one line naming what is wrong, non-zero exit.
    let bad_in = |file: &str, extra: &[&str], want: &str| {
        let mut a = vec!["run", file, "--grid", "1", "--block", "32"];
        a.extend_from_slice(extra);
        let out = baregpu(&a, dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(want), "{extra:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    };
    let bad = |extra: &[&str], want: &str| bad_in(&p, extra, want);
    bad(&["--kernel", "nope"], "no kernel `nope`");
    bad(&["--kernel", "vector_add", "--arg", "in:a.bin"], "takes 4 arguments, 1 given");
    bad(
        &["--kernel", "vector_add", "--arg", "in:a.bin", "--arg", "in:a.bin", "--arg", "f32:1", "--arg", "u32:1"],
        "argument 2: the kernel takes a buffer",
    );
    bad(
        &["--kernel", "vector_add", "--arg", "in:a.bin", "--arg", "in:a.bin", "--arg", "out:4", "--arg", "f32:1"],
        "argument 3: the kernel takes a 4-byte integer, f32 given",
    );
    let four = ["--arg", "out:4", "--arg", "out:4", "--arg", "out:4", "--arg", "u32:1"];
    bad(&[&["--kernel", "vector_add", "--device", "emu:gfx1100"][..], &four].concat(), "cannot run on emu:gfx1100");
    std::fs::write(dir.path().join("bad.ptx"), ".version 7.8\n.target sm_90\n.entry k(.param .q32 x)\n{\n}\n").unwrap();
    bad_in("bad.ptx", &["--kernel", "k"], "line 3");
    // A kernel that reads out of bounds: the channel error, not a hang or a panic.
    let mut a = vec!["run", &p, "--grid", "64", "--block", "128", "--kernel", "vector_add"];
    a.extend(["--arg", "out:4", "--arg", "out:4", "--arg", "out:4", "--arg", "u32:1000000"]);
    let out = baregpu(&a, dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("Xid 31") && err.contains("vector_add"), "{err}");
}

/// With no --device, an AMD code object runs on the first real AMD GPU, else emu:gfx1100, even
/// where the machine's first real GPU is an NVIDIA one (it used to be opened, and refused).
#[test]
fn an_amd_code_object_defaults_to_an_amd_device() {
    let dir = tempfile::tempdir().unwrap();
    let w = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    w(
        "proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build\n",
    );
    w("proc/driver/nvidia/gpus/0000:19:00.0/information", "Model: NVIDIA H200\nBus Location: 0000:19:00.0\n");
    w("sys/bus/pci/devices/0000:19:00.0/device", "0x2335\n");
    std::fs::write(dir.path().join("a.bin"), [0u8; 256]).unwrap();
    let co = fixture("basic-gfx1100.hsaco");
    let args = ["--grid", "1", "--block", "64", "--arg", "in:a.bin", "--arg", "in:a.bin", "--arg", "out:256"];
    let mut full = vec!["run", &co, "--kernel", "vector_add", "--json"];
    full.extend(args);
    full.extend(["--arg", "u32:64"]);
    let out = baregpu(&full, dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["device"].as_str(), Some("emu:gfx1100"));
}

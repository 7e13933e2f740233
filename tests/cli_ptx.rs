//! `baregpu run` with PTX on emu-nv: the parameter layout clang and nvcc write, modules with
//! `.noreturn` prototypes, PTX the interpreter refuses (one error line at load, naming the PTX
//! line, before anything is launched), and files that are no code object at all.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

fn baregpu(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .current_dir(cwd)
        .env("BAREGPU_SYSROOT", cwd) // no real GPUs
        .env_remove("BAREGPU_LOG")
        .env_remove("BAREGPU_TRACE")
        .output()
        .expect("run baregpu")
}

fn path(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel).display().to_string()
}

fn run_ok(args: &[&str], cwd: &Path) {
    let out = baregpu(args, cwd);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The one stderr line of a failed run (WARN log lines would be a second).
fn run_err(args: &[&str], cwd: &Path) -> String {
    let out = baregpu(args, cwd);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "{args:?} succeeded");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
    err
}

fn words(file: &Path) -> Vec<u32> {
    std::fs::read(file).unwrap().chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect()
}

/// clang's `__kernel void k(int b, __global float *s)`: the pointer is at offset 8 for the
/// runtime as for the emulated GPU (it was put at 4 and faulted at 0x10).
#[test]
fn an_int_then_a_pointer_reaches_the_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let p = path("tests/fixtures/ptx/clang-abi.ptx");
    run_ok(
        &["run", &p, "--kernel", "int_then_ptr", "--grid", "1", "--block", "4", "--arg", "i32:3", "--arg", "out:16"],
        dir.path(),
    );
    assert_eq!(words(&dir.path().join("out/arg1.bin")), [3.0f32.to_bits(); 4]);
}

/// A module whose other kernel never returns (a `.noreturn` prototype) loads and runs.
#[test]
fn a_noreturn_prototype_does_not_stop_the_module() {
    let dir = tempfile::tempdir().unwrap();
    let p = path("tests/fixtures/ptx/clang-abi.ptx");
    run_ok(&["run", &p, "--kernel", "store5", "--grid", "1", "--block", "1", "--arg", "out:4"], dir.path());
    assert_eq!(words(&dir.path().join("out/arg0.bin")), [5]);
}

/// nvcc-style `.param .u64` pointers take buffers.
#[test]
fn plain_u64_parameters_take_buffers() {
    let dir = tempfile::tempdir().unwrap();
    let a: Vec<u8> = (0..8).flat_map(|i| (i as f32).to_le_bytes()).collect();
    std::fs::write(dir.path().join("a.bin"), &a).unwrap();
    let p = path("tests/kernels/nv_vadd.ptx");
    let mut args = vec!["run", &p, "--kernel", "vadd", "--device", "emu-nv:sm_90", "--grid", "1", "--block", "8"];
    args.extend(["--arg", "in:a.bin", "--arg", "in:a.bin", "--arg", "out:32", "--arg", "u32:8"]);
    run_ok(&args, dir.path());
    let want: Vec<u32> = (0..8).map(|i| (2.0 * i as f32).to_bits()).collect();
    assert_eq!(words(&dir.path().join("out/arg2.bin")), want);
}

/// PTX the interpreter refuses: one line naming the PTX line, at load, before any launch (so no
/// channel error); the next run on the device works.
#[test]
fn bad_ptx_is_refused_at_load_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let head = ".version 7.8\n.target sm_90\n.address_size 64\n";
    let ok = ".visible .entry ok(.param .u64 .ptr .global .align 8 p)\n{\n\tret;\n}\n";
    let cases = [
        (
            "body.ptx",
            format!("{head}{ok}.visible .entry k()\n{{\n\tfrobnicate.b32 %r1;\n}}\n"),
            r"body.ptx: PTX line 10: unknown instruction `frobnicate.b32`",
        ),
        (
            "version.ptx",
            format!(".version 99.9\n.target sm_90\n{ok}"),
            r"version.ptx: line 1: PTX ISA version 99.9 is newer",
        ),
        (
            "shared.ptx",
            // `ok` references `s`: static shared memory is counted per kernel, on what it uses.
            format!(
                "{head}.shared .align 4 .b8 s[240000];\n{}",
                ok.replace("\tret;", "\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, s;\n\tret;")
            ),
            r"shared.ptx: PTX line 4: `.shared` `s` .* the limit is 49152",
        ),
        (
            "shared4g.ptx",
            format!("{head}.shared .align 4 .b32 s[1073741824];\n{ok}"),
            r"shared4g.ptx: PTX line 4: `s` is 4 GiB or larger",
        ),
    ];
    for (name, text, want) in cases {
        std::fs::write(dir.path().join(name), text).unwrap();
        let err = run_err(
            &[
                "run",
                name,
                "--kernel",
                "ok",
                "--device",
                "emu-nv:sm_90",
                "--grid",
                "1",
                "--block",
                "1",
                "--arg",
                "out:8",
            ],
            dir.path(),
        );
        let re = regex_lite(want);
        assert!(re(&err), "{name}: {err} !~ {want}");
        assert!(!err.contains("Xid"), "{name}: refused at launch: {err}");
    }
}

/// `%p<4294967295>` registers cost only those used: the kernel runs at once.
#[test]
fn huge_register_ranges_run() {
    let dir = tempfile::tempdir().unwrap();
    let text = ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 .ptr .global .align 8 p)\n{\n\
                \t.reg .pred %p<4294967295>;\n\t.reg .b64 %rd<4294967295>;\n\t.reg .b32 %r<4294967295>;\n\
                \tld.param.u64 %rd4000000000, [p];\n\tmov.u32 %r7, 9;\n\tst.global.u32 [%rd4000000000], %r7;\n\tret;\n}\n";
    std::fs::write(dir.path().join("regs.ptx"), text).unwrap();
    let t = Instant::now();
    run_ok(&["run", "regs.ptx", "--kernel", "k", "--grid", "1", "--block", "1", "--arg", "out:4"], dir.path());
    assert!(t.elapsed().as_secs() < 10, "{:?}", t.elapsed());
    assert_eq!(words(&dir.path().join("out/arg0.bin")), [9]);
}

/// An empty or unrecognised file says which formats `run` takes, on any device.
#[test]
fn files_that_are_no_code_object_say_what_is_expected() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("empty.bin"), b"").unwrap();
    std::fs::write(dir.path().join("text.bin"), b"hello\n").unwrap();
    for dev in ["emu:gfx1100", "emu-nv:sm_90"] {
        let args = |f| vec!["run", f, "--kernel", "k", "--device", dev, "--grid", "1", "--block", "1"];
        let err = run_err(&args("empty.bin"), dir.path());
        assert!(err.contains("empty.bin: the file is empty: expected an AMD HSACO or NVIDIA cubin"), "{err}");
        let err = run_err(&args("text.bin"), dir.path());
        assert!(err.contains("text.bin: not a code object (it starts with 68 65 6c 6c)"), "{err}");
    }
}

/// A tiny matcher for the patterns above: literal text with `.*` gaps.
fn regex_lite(pat: &str) -> impl Fn(&str) -> bool + '_ {
    move |s: &str| {
        let mut at = 0;
        for part in pat.split(".*") {
            match s[at..].find(part) {
                Some(i) => at += i + part.len(),
                None => return false,
            }
        }
        true
    }
}

/// `BAREGPU_TRACE` on emu-nv: every push buffer submitted, decoded as `decode gpfifo` prints it.
#[test]
fn trace_holds_the_push_buffers() {
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.txt");
    let p = path("tests/fixtures/ptx/clang-abi.ptx");
    let out = Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(["run", &p, "--kernel", "store5", "--grid", "1", "--block", "1", "--arg", "out:4"])
        .current_dir(dir.path())
        .env("BAREGPU_SYSROOT", dir.path())
        .env("BAREGPU_TRACE", &trace)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t = std::fs::read_to_string(&trace).unwrap();
    assert!(t.contains("# emu-nv:sm_90 compute channel: channel setup"), "{t}");
    assert!(t.contains("# emu-nv:sm_90 compute channel: kernel `store5` grid [1, 1, 1] block [1, 1, 1]"), "{t}");
    assert!(t.contains("# emu-nv:sm_90 copy channel: copies of"), "{t}");
    assert!(t.lines().any(|l| l.starts_with("0x0000: Inc subch")), "{t}");
}

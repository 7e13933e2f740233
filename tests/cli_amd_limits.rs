//! `baregpu run` on the emulated gfx1100 at the edges of what the hardware takes: grids beyond
//! the dispatch limits are refused up front, a dispatch that runs past the emulator's wall-clock
//! budget is reported as a hang of that kernel on that device (and the next run works), and
//! private memory is sized for the waves a dispatch has, not for the whole device.

#[path = "common/clang.rs"]
mod clang;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn baregpu(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_baregpu"));
    c.args(args).current_dir(cwd).env("BAREGPU_SYSROOT", cwd).env_remove("BAREGPU_LOG");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run baregpu")
}

/// The one stderr line of a failed run.
fn one_error_line(out: &Output, what: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{what}: succeeded");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: not one line: {err}");
    err
}

const KERNELS: &str = r#"
kernel void big_private(global int *out, int n) {
    volatile int a[60000];
    int g = get_global_id(0);
    a[59999 - g] = g * 3 + n;
    a[g] = -1;
    out[g] = a[59999 - g];
}
kernel void spin(global volatile int *flag) {
    while (flag[0] == 0) {}
}
kernel void nothing(global int *out) {
    if (get_global_id(0) == 0xffffffffu) out[0] = 1;
}
kernel void boom(global int *out) {
    if (out[0] == 0) __builtin_trap();
    out[1] = 2;
}
kernel void bad_op(global int *out) {
    if (out[0] == 0) __asm__ volatile("v_illegal");
    out[1] = 2;
}
"#;

#[test]
fn grids_beyond_the_dispatch_limits_are_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let Some(co) = clang::build(dir.path(), "k", KERNELS, "gfx1100") else { return };
    let co = co.display().to_string();
    for (grid, block) in [("1,65536,65536", "1"), ("4294967295", "2"), ("65536,65536", "2")] {
        let t = Instant::now();
        let args = ["run", &co, "--kernel", "nothing", "--grid", grid, "--block", block, "--arg", "out:4"];
        let out = baregpu(&args, dir.path(), &[]);
        let err = one_error_line(&out, grid);
        assert!(err.contains("work-items") && err.contains("`nothing`"), "{grid}: {err}");
        assert!(t.elapsed() < Duration::from_secs(20), "{grid}: took {:?}", t.elapsed());
    }
}

#[test]
fn a_dispatch_past_its_budget_is_a_hang_of_that_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let Some(co) = clang::build(dir.path(), "k", KERNELS, "gfx1100") else { return };
    let co = co.display().to_string();
    let budget = [("BAREGPU_EMU_DISPATCH_MS", "300")];
    // A kernel that never ends, and one of 2^26 short workgroups (minutes of emulation).
    for (kernel, grid) in [("spin", "1"), ("nothing", "67108864")] {
        let t = Instant::now();
        let args = ["run", &co, "--kernel", kernel, "--grid", grid, "--block", "1", "--arg", "out:4"];
        let out = baregpu(&args, dir.path(), &budget);
        let err = one_error_line(&out, kernel);
        assert!(
            err.contains("emu:gfx1100") && err.contains("hang") && err.contains(&format!("`{kernel}`")),
            "{kernel}: {err}"
        );
        assert!(t.elapsed() < Duration::from_secs(20), "{kernel}: took {:?}", t.elapsed());
    }
    let out = baregpu(
        &["run", &co, "--kernel", "nothing", "--grid", "4", "--block", "64", "--arg", "out:4"],
        dir.path(),
        &budget,
    );
    assert!(out.status.success(), "after a hang: {}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn scratch_is_sized_for_the_dispatch_and_errors_name_the_device() {
    let dir = tempfile::tempdir().unwrap();
    let Some(co) = clang::build(dir.path(), "k", KERNELS, "gfx1100") else { return };
    let co = co.display().to_string();
    // 240,004 bytes per work-item: 128 work-items need 4 waves of scratch, not the whole device's.
    let args =
        ["run", &co, "--kernel", "big_private", "--grid", "2", "--block", "64", "--arg", "out:512", "--arg", "i32:5"];
    let out = baregpu(&args, dir.path(), &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let got = std::fs::read(dir.path().join("out/arg0.bin")).unwrap();
    for g in 0..128 {
        let v = i32::from_le_bytes(got[4 * g..4 * g + 4].try_into().unwrap());
        assert_eq!(v, g as i32 * 3 + 5, "work-item {g}");
    }
    // A dispatch with more waves than fit at once needs scratch for every resident slot: more
    // than the emulated device has. The error names the device as the user gave it.
    let args = [
        "run",
        &co,
        "--kernel",
        "big_private",
        "--grid",
        "100000",
        "--block",
        "64",
        "--arg",
        "out:4",
        "--arg",
        "i32:5",
    ];
    let out = baregpu(&args, dir.path(), &[]);
    let err = one_error_line(&out, "oversized scratch");
    assert!(err.contains("emu:gfx1100") && err.contains("scratch") && !err.contains("amd:0"), "{err}");
}

/// A trap and an illegal instruction are named as such (not as a hang): the error line says
/// what the wave did; with BAREGPU_LOG=warn the emulated GPU's log line says where (PC and instruction).
#[test]
fn wave_exceptions_name_their_cause() {
    let dir = tempfile::tempdir().unwrap();
    let Some(co) = clang::build(dir.path(), "k", KERNELS, "gfx1100") else { return };
    let co = co.display().to_string();
    // v_illegal (encoded as 0) reads "undecodable" while the decoder does not know its name.
    let cases =
        [("boom", "trapped", ["s_trap", "s_trap"]), ("bad_op", "illegal instruction", ["v_illegal", "undecodable"])];
    for (kernel, cause, inst) in cases {
        let args = ["run", &co, "--kernel", kernel, "--grid", "1", "--block", "1", "--arg", "out:8"];
        // By default: one line, with the cause.
        let out = baregpu(&args, dir.path(), &[]);
        assert!(!out.status.success(), "{kernel} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{kernel}: not one line: {err}");
        assert!(err.contains(cause) && err.contains(&format!("`{kernel}`")), "{kernel}: {err}");
        assert!(!err.contains("after a hang"), "{kernel}: {err}");
        // BAREGPU_LOG=warn adds where: the PC and the instruction.
        let out = baregpu(&args, dir.path(), &[("BAREGPU_LOG", "warn")]);
        let err = String::from_utf8_lossy(&out.stderr);
        let log: Vec<&str> = err.lines().filter(|l| l.contains(" WARN ")).collect();
        assert!(log.iter().any(|l| l.contains("PC 0x") && inst.iter().any(|i| l.contains(i))), "{kernel}: {err}");
    }
}

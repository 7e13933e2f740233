//! The readers that live in the `baregpu` binary only (`asm --elf` directives, `disasm` of a code
//! object, `decode gpfifo`), fuzzed through the binary: every run ends with exit 0, or exit 1 and
//! one `baregpu: error:` line; never a signal, a panic or a hang. A process per input, so the
//! counts are smaller than the in-process targets'.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{fuzz, Show};
use crate::mutate::{mutate_bytes, mutate_text};
use crate::seeds;

/// Runs `baregpu ARGS FILE` on `input` and checks the one-line error contract.
fn run_cli(name: &str, args: &[&str], input: &[u8]) {
    let path = format!("{}/fuzz-cli-{name}.in", env!("CARGO_TARGET_TMPDIR"));
    std::fs::write(&path, input).expect("write the input file");
    let mut child = Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .arg(&path)
        .env_remove("BAREGPU_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start baregpu");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait for baregpu") {
            break s;
        }
        if t.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("baregpu {args:?} still running after 30 s");
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let err = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    match status.code() {
        Some(0) => {}
        Some(1) => {
            let lines: Vec<&str> = err.lines().collect();
            assert!(
                lines.len() == 1 && lines[0].starts_with("baregpu: error: ") && lines[0].len() < 1000,
                "baregpu {args:?}: not one short error line: {:?}",
                &err[..err.len().min(2000)]
            );
        }
        c => panic!("baregpu {args:?}: exit {c:?} ({status}), stderr {:?}", &err[..err.len().min(2000)]),
    }
}

const KERNELS: &str = "\
.kernel add_one
.arg buf global
.arg n u32
.arg scale f32 8
.hidden_args
.scratch 16
.wave32
.workgroup_id x,y
.workitem_id xy
.max_workgroup_size 256
  s_load_b64 s[2:3], s[0:1], 0x0
  v_lshlrev_b32_e32 v0, 2, v0
  s_waitcnt lgkmcnt(0)
  global_load_b32 v1, v0, s[2:3]
  s_waitcnt vmcnt(0)
  v_add_nc_u32_e32 v1, 1, v1
  global_store_b32 v0, v1, s[2:3]
  s_endpgm
.end

.kernel zero
.arg out global
.vgprs 4
.sgprs 8
.lds 1024
.workgroup_size 64,1,1
loop:
  s_load_b64 s[2:3], s[0:1], 0x0
  s_cbranch_scc0 loop
  s_endpgm
.end
";

const DIRECTIVES: &[&str] = &[
    ".kernel",
    ".end",
    ".arg",
    "global",
    "u8",
    "i64",
    "f16",
    ".hidden_args",
    ".vgprs",
    ".agprs",
    ".sgprs",
    ".lds",
    ".scratch",
    ".wave32",
    ".wave64",
    ".workgroup_id",
    ".workitem_id",
    "xyz",
    ".workgroup_size",
    "0,0,0",
    ".max_workgroup_size",
    "x,y,z,w",
    "k.kd",
    "s_endpgm",
    "v_nop",
    "s[3:4]",
    "v[1:2]",
    "\n",
];

#[test]
fn cli_asm_elf() {
    fuzz(
        "cli_asm_elf",
        100,
        Show::Text,
        &[KERNELS.as_bytes().to_vec()],
        |r, i, o| mutate_text(r, &String::from_utf8_lossy(i), o, DIRECTIVES).into_bytes(),
        |b| run_cli("asm_elf", &["asm", "--arch", "gfx1100", "--elf", "-o", "-"], b),
    );
}

#[test]
fn cli_disasm_codeobj() {
    let seeds: Vec<Vec<u8>> = seeds::files("tests/fixtures/hsaco", ".hsaco")
        .into_iter()
        .chain(seeds::files("tests/fixtures/codeobj", ".hsaco"))
        .collect();
    fuzz(
        "cli_disasm",
        100,
        Show::Hex,
        &seeds,
        |r, i, o| mutate_bytes(r, i, o, 1 << 20),
        |b| run_cli("disasm", &["disasm"], b),
    );
}

#[test]
fn cli_decode_gpfifo() {
    fuzz(
        "cli_decode_gpfifo",
        100,
        Show::Hex,
        &[seeds::pushbuf()],
        |r, i, o| mutate_bytes(r, i, o, 1 << 12),
        |b| run_cli("gpfifo", &["decode", "gpfifo"], b),
    );
}

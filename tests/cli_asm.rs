//! `baregpu asm`, `baregpu disasm` and `baregpu bench asm` as processes: round trips per
//! architecture, code objects that the runtime loader (and LLVM's tools, where installed) read,
//! one-line `FILE:LINE:COL: reason` errors for bad input, and --help.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use baregpu_runtime::program::CodeObject;

fn baregpu(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .args(args)
        .env_remove("BAREGPU_LOG")
        .env_remove("BAREGPU_SYSROOT")
        .output()
        .expect("run baregpu")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    p
}

fn ok(out: &Output, what: &str) {
    assert!(out.status.success(), "{what} failed: {}{}", text(&out.stderr), text(&out.stdout));
}

/// One line on stderr, exit code 1, and the line contains `want`.
fn fails_with(out: &Output, want: &str) {
    assert_eq!(out.status.code(), Some(1), "expected exit 1: {}", text(&out.stderr));
    let err = text(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err:?}");
    assert!(err.contains(want), "stderr {err:?} does not contain {want:?}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Multi-format snippets in llvm-mc's printed syntax (what disasm prints back).
fn snippet(arch: &str) -> &'static str {
    match arch {
        "gfx1100" => {
            "s_mov_b32 s0, 1
s_add_u32 s1, s2, 0x12345
s_load_b64 s[2:3], s[0:1], 0x10
s_waitcnt lgkmcnt(0)
v_add_f32_e32 v1, v2, v3
v_fma_f32 v1, v2, v3, 0x40490fdb
v_add_co_u32 v1, vcc_lo, v2, v3
v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
v_pk_add_f16 v1, v2, v3
v_cmp_eq_u32_e32 vcc_lo, v1, v2
global_load_b32 v1, v0, s[2:3] offset:16
global_store_b32 v0, v1, s[2:3]
ds_store_b32 v1, v2 offset:8
buffer_load_b32 v1, off, s[4:7], 0
s_cbranch_scc0 2
s_nop 0
s_endpgm
"
        }
        "gfx1201" => {
            "s_mov_b32 s0, 1
s_add_co_u32 s1, s2, 0x12345
s_load_b64 s[2:3], s[0:1], 0x10
s_wait_kmcnt 0x0
v_add_f32_e32 v1, v2, v3
v_fma_f32 v1, v2, v3, 0x40490fdb
v_pk_add_f16 v1, v2, v3
v_cmp_eq_u32_e32 vcc_lo, v1, v2
global_load_b32 v1, v0, s[2:3] offset:16
global_store_b32 v0, v1, s[2:3]
ds_store_b32 v1, v2 offset:8
s_cbranch_scc0 1
s_nop 0
s_endpgm
"
        }
        _ => {
            "s_mov_b32 s0, 1
s_add_u32 s1, s2, 0x12345
s_load_dwordx2 s[2:3], s[0:1], 0x10
s_waitcnt lgkmcnt(0)
v_add_f32_e32 v1, v2, v3
v_fma_f32 v1, v2, s3, 1.0
v_mov_b32_sdwa v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PAD src0_sel:BYTE_0
v_add_f32_dpp v1, v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
v_add_u32_e32 v1, 0x1234, v2
v_add_co_u32_e32 v1, vcc, v2, v3
v_pk_add_f16 v1, v2, v3
v_cmp_eq_u32_e32 vcc, v1, v2
global_load_dword v1, v[2:3], off offset:16
global_store_dword v[2:3], v1, off
ds_write_b32 v1, v2 offset:8
s_cbranch_scc0 1
s_nop 0
s_endpgm
"
        }
    }
}

#[test]
fn asm_disasm_round_trip_every_arch() {
    let dir = tempfile::tempdir().unwrap();
    for arch in ["gfx1100", "gfx1201", "gfx942", "gfx950"] {
        let src = snippet(arch);
        let s = write(dir.path(), &format!("{arch}.s"), src);
        let out = baregpu(&["asm", "--arch", arch, s.to_str().unwrap()]);
        ok(&out, &format!("asm {arch}"));
        let bin = dir.path().join(format!("{arch}.bin"));
        assert!(bin.exists(), "default output FILE.bin");
        let dis = baregpu(&["disasm", "--arch", arch, bin.to_str().unwrap()]);
        ok(&dis, &format!("disasm {arch}"));
        assert_eq!(text(&dis.stdout), src, "{arch}: disasm(asm(x)) != x");
        // `-o -` writes to stdout, the same bytes.
        let out = baregpu(&["asm", "--arch", arch, "-o", "-", s.to_str().unwrap()]);
        ok(&out, "asm -o -");
        assert_eq!(out.stdout, std::fs::read(&bin).unwrap());
    }
}

#[test]
fn asm_accepts_labels_comments_and_short_mnemonics() {
    let dir = tempfile::tempdir().unwrap();
    let s = write(
        dir.path(),
        "l.s",
        "// a loop\nloop:\n  v_mov_b32 v1, v2 ; the e32 form\n  s_sub_u32 s0, s0, 1\n  s_cmp_lg_u32 s0, 0\n  s_cbranch_scc1 loop\n  s_branch done\ndone: s_endpgm\n",
    );
    let out = baregpu(&["asm", "--arch", "gfx1100", "-o", "-", s.to_str().unwrap()]);
    ok(&out, "asm");
    let bin = write(dir.path(), "l.bin", "");
    std::fs::write(&bin, &out.stdout).unwrap();
    let dis = baregpu(&["disasm", "--arch", "gfx1100", bin.to_str().unwrap()]);
    ok(&dis, "disasm");
    assert_eq!(
        text(&dis.stdout),
        "v_mov_b32_e32 v1, v2\ns_sub_u32 s0, s0, 1\ns_cmp_lg_u32 s0, 0\ns_cbranch_scc1 65532\ns_branch 0\ns_endpgm\n"
    );
}

#[test]
fn asm_errors_are_one_line_with_position() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("s_nop 0\nv_frobnicate v1, v2\n", ":2:1:", "unknown mnemonic"),
        ("v_add_f32_e32 v1, v2, v3\nv_add_f32_e32 v1, v2\n", ":2:", "operands"),
        ("s_mov_b32 s200, 1\n", ":1:11:", "beyond the SGPR file"),
        ("v_mov_b32_e32 v300, v1\n", ":1:15:", "v300"),
        ("s_movk_i32 s1, 0x123456\n", ":1:16:", "out of range"),
        ("s_mov_b32 s0, s1, s2 foo\n", ":1:", ""),
        ("s_branch nowhere\n", ":1:10:", "undefined label 'nowhere'"),
    ];
    for (k, (src, pos, msg)) in cases.iter().enumerate() {
        let s = write(dir.path(), &format!("bad{k}.s"), src);
        let out = baregpu(&["asm", "--arch", "gfx1100", s.to_str().unwrap()]);
        let file = s.display().to_string();
        fails_with(&out, &format!("{file}{pos}"));
        fails_with(&out, msg);
    }
    // A branch further than 32767 dwords.
    let mut far = String::from("s_branch far\n");
    for _ in 0..33000 {
        far.push_str("s_nop 0\n");
    }
    far.push_str("far:\ns_endpgm\n");
    let s = write(dir.path(), "far.s", &far);
    let out = baregpu(&["asm", "--arch", "gfx1100", s.to_str().unwrap()]);
    fails_with(&out, &format!("{}:1:10:", s.display()));
    fails_with(&out, "out of range");
    // Unknown architecture, missing file.
    let out = baregpu(&["asm", "--arch", "gfx000", s.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("unknown architecture"));
    let out = baregpu(&["asm", "--arch", "gfx1100", "/nonexistent/x.s"]);
    fails_with(&out, "/nonexistent/x.s");
}

#[test]
fn disasm_errors_name_the_byte_offset() {
    let dir = tempfile::tempdir().unwrap();
    // s_mov_b32 s0, 1 then the first 6 bytes of a VOP3 with literal.
    let b = dir.path().join("t.bin");
    std::fs::write(&b, [0x81, 0x00, 0x80, 0xbe, 0x01, 0x00, 0x13, 0xd6, 0x02, 0x07]).unwrap();
    let out = baregpu(&["disasm", "--arch", "gfx1100", b.to_str().unwrap()]);
    fails_with(&out, &format!("{}: offset 4", b.display()));
    fails_with(&out, "truncated");
    assert_eq!(text(&out.stdout), "s_mov_b32 s0, 1\n", "what decoded is printed");
    // Raw bytes need --arch.
    let out = baregpu(&["disasm", b.to_str().unwrap()]);
    fails_with(&out, "--arch");
    // Garbage ELF.
    let e = dir.path().join("bad.elf");
    std::fs::write(&e, b"\x7fELF\x02\x01\x01\x40garbage").unwrap();
    let out = baregpu(&["disasm", e.to_str().unwrap()]);
    fails_with(&out, &e.display().to_string());
}

const KERNELS: &str = "\
// two kernels
.kernel add_one
.arg buf global
.arg n u32
.arg scale f32
.hidden_args
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
.lds 1024
.workgroup_size 64
  s_load_b64 s[2:3], s[0:1], 0x0
  v_lshlrev_b32_e32 v0, 2, v0
  v_mov_b32_e32 v1, 0
  s_waitcnt lgkmcnt(0)
  global_store_b32 v0, v1, s[2:3]
  s_endpgm
.end
";

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn asm_elf_builds_a_loadable_code_object() {
    let dir = tempfile::tempdir().unwrap();
    let s = write(dir.path(), "k.s", KERNELS);
    let out = baregpu(&["asm", "--arch", "gfx1100", "--elf", s.to_str().unwrap()]);
    ok(&out, "asm --elf");
    let co_path = dir.path().join("k.hsaco");
    let data = std::fs::read(&co_path).expect("default output FILE.hsaco");
    let co = CodeObject::parse(&data).expect("runtime loader parses it");
    assert_eq!(co.arch, "gfx1100");
    let names: Vec<&str> = co.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["add_one", "zero"]);
    let k = co.kernel("add_one").unwrap();
    let explicit: Vec<_> = k.meta.args.iter().filter(|a| a.is_explicit()).collect();
    assert_eq!(explicit.len(), 3);
    assert_eq!((explicit[0].offset, explicit[0].size), (0, 8));
    assert_eq!((explicit[1].offset, explicit[1].size, explicit[1].type_name.as_deref()), (8, 4, Some("uint")));
    assert_eq!((explicit[2].offset, explicit[2].type_name.as_deref()), (12, Some("float")));
    assert!(k.meta.args.len() > 3, "hidden arguments appended");
    assert!(k.meta.vgpr_count >= 2, "registers counted from the code: {}", k.meta.vgpr_count);
    let z = co.kernel("zero").unwrap();
    assert_eq!(z.meta.group_segment_fixed_size, 1024);
    assert_eq!(z.meta.max_flat_workgroup_size, 64);

    // disasm of the code object: per kernel, arch from e_flags, and it assembles back.
    let dis = baregpu(&["disasm", co_path.to_str().unwrap()]);
    ok(&dis, "disasm code object");
    let listing = text(&dis.stdout);
    assert!(listing.starts_with("add_one:\ns_load_b64 s[2:3], s[0:1], null\n"), "{listing}");
    assert!(listing.contains("\nzero:\ns_load_b64"), "{listing}");
    assert_eq!(listing.matches("s_endpgm").count(), 2, "{listing}");
    let again = write(dir.path(), "again.s", &listing);
    ok(&baregpu(&["asm", "--arch", "gfx1100", again.to_str().unwrap()]), "listing assembles");
    let wrong = baregpu(&["disasm", "--arch", "gfx942", co_path.to_str().unwrap()]);
    fails_with(&wrong, "gfx1100");

    // CDNA: wave64 default, same file shape.
    let s942 = write(
        dir.path(),
        "k942.s",
        ".kernel k\n.arg p global\n  s_load_dwordx2 s[2:3], s[0:1], 0x0\n  s_waitcnt lgkmcnt(0)\n  s_endpgm\n.end\n",
    );
    let out = baregpu(&["asm", "--arch", "gfx942", "--elf", "-o", "-", s942.to_str().unwrap()]);
    ok(&out, "asm --elf gfx942");
    let co = CodeObject::parse(&out.stdout).expect("gfx942 object parses");
    assert_eq!(co.arch, "gfx942");
    assert_eq!(co.kernels[0].meta.wavefront_size, 64);

    // LLVM's tools read it too.
    for (tool, args, want) in
        [("llvm-readelf-22", vec!["--notes"], "amdhsa.kernels"), ("llvm-objdump-22", vec!["-d"], "global_store_b32")]
    {
        if !have(tool) {
            println!("skipped: {tool} not installed");
            continue;
        }
        let out = Command::new(tool).args(&args).arg(&co_path).output().unwrap();
        assert!(out.status.success(), "{tool}: {}", text(&out.stderr));
        let t = text(&out.stdout);
        assert!(t.contains(want), "{tool} output lacks {want}:\n{t}");
        if tool == "llvm-objdump-22" {
            assert!(t.contains("<add_one>:") && t.contains("<zero>:"), "{t}");
        }
    }
}

#[test]
fn asm_elf_directive_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str)] = &[
        ("s_endpgm\n", "1:3: instruction outside"),
        (".kernel k\n s_endpgm\n", "1:1: kernel `k` has no `.end`"),
        (".kernel k\n.arg x float\n s_endpgm\n.end\n", "2:6: unknown argument type 'float'"),
        (".kernel k\n.frob 1\n s_endpgm\n.end\n", "2:1: unknown directive '.frob'"),
        (".kernel k\n.vgprs many\n s_endpgm\n.end\n", "2:8: expected a number"),
        (".kernel k\n s_endpgm\n v_bogus v1\n.end\n", "3:2: unknown mnemonic"),
        (".kernel k\n.end\n", "1:1: kernel `k` has no instructions"),
        (
            ".kernel k\n.scratch 1048576\n s_endpgm\n.end\n",
            " code object: kernel `k`: invalid private_segment_fixed_size: 1048576 bytes of scratch per work-item \
             exceed gfx1100's 262136 (wave32)",
        ),
        (".kernel k\n s_load_b64 s[3:4], s[0:1], 0x0\n s_endpgm\n.end\n", "2:13: invalid register alignment"),
    ];
    for (k, (src, want)) in cases.iter().enumerate() {
        let src = if k == 0 { format!("  {src}") } else { src.to_string() };
        let s = write(dir.path(), &format!("e{k}.s"), &src);
        let out = baregpu(&["asm", "--arch", "gfx1100", "--elf", s.to_str().unwrap()]);
        fails_with(&out, &format!("{}:{want}", s.display()));
    }
}

/// An error quotes at most a bounded prefix of a huge token (here 5 MB), in one short line.
#[test]
fn asm_errors_do_not_echo_huge_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let token = "x".repeat(5 << 20);
    for (k, src) in [format!("{token}\n"), format!(".kernel k\n.arg a {token}\n s_endpgm\n.end\n")].iter().enumerate() {
        let s = write(dir.path(), &format!("t{k}.s"), src);
        let mut args = vec!["asm", "--arch", "gfx1100", s.to_str().unwrap()];
        if k == 1 {
            args.push("--elf");
        }
        let out = baregpu(&args);
        fails_with(&out, &format!("'{}…'", "x".repeat(60)));
        assert!(out.stderr.len() < 400, "{} bytes of stderr", out.stderr.len());
    }
}

#[test]
fn asm_disasm_bench_have_help() {
    let top = text(&baregpu(&["--help"]).stdout);
    for cmd in ["asm", "disasm", "bench"] {
        assert!(top.contains(cmd), "--help does not list {cmd}:\n{top}");
    }
    for args in [&["asm", "--help"][..], &["disasm", "--help"], &["bench", "--help"], &["bench", "asm", "--help"]] {
        let out = baregpu(args);
        ok(&out, &args.join(" "));
        assert!(text(&out.stdout).contains("Usage: baregpu"), "{args:?}:\n{}", text(&out.stdout));
    }
    let asm = text(&baregpu(&["asm", "--help"]).stdout);
    for d in [".kernel NAME", ".arg NAME TYPE", ".vgprs", ".wave64", ".workgroup_id", ".end", "FILE:LINE:COL"] {
        assert!(asm.contains(d), "asm --help does not document {d}");
    }
}

#[test]
fn bench_asm_json_small() {
    let out = baregpu(&["bench", "asm", "--arch", "gfx1100", "--count", "2000", "--runs", "1", "--json"]);
    ok(&out, "bench asm");
    let lines: Vec<serde_json::Value> =
        text(&out.stdout).lines().map(|l| serde_json::from_str(l).expect("one JSON object a line")).collect();
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0]["bench"], "asm");
    assert_eq!(lines[1]["bench"], "disasm");
    assert_eq!(lines[2]["bench"], "decode");
    assert_eq!(lines[2]["goal_inst_per_s"], 50e6);
    let goal = &lines[3];
    assert_eq!(goal["bench"], "decode_goal");
    assert_eq!(goal["slowest_arch"], "gfx1100");
    assert_eq!(goal["slowest_inst_per_s"], lines[2]["ours_inst_per_s"]);
    assert_eq!(goal["met"], goal["slowest_inst_per_s"].as_f64().unwrap() >= 50e6);
    if let Some(cpu) = lines[2]["cpu_inst_per_s"].as_f64() {
        assert_eq!(goal["slowest_cpu_inst_per_s"].as_f64(), Some(cpu));
        assert_eq!(goal["met_cpu"], cpu >= 50e6);
    }
    // The typed builder on its fixed workload, and whether it meets its goal.
    let (builder, builder_goal) = (&lines[4], &lines[5]);
    assert_eq!(builder["bench"], "builder");
    assert_eq!(builder["arch"], "gfx1100");
    assert!(builder["instructions"].as_u64().unwrap() > 0);
    assert_eq!(builder_goal["bench"], "builder_goal");
    assert_eq!(builder_goal["slowest_inst_per_s"], builder["ours_inst_per_s"]);
    assert_eq!(builder_goal["met"], builder["ours_inst_per_s"].as_f64().unwrap() >= 20e6);
    for l in &lines[..3] {
        assert_eq!(l["arch"], "gfx1100");
        assert_eq!(l["instructions"], 2000);
        assert!(l["ours_inst_per_s"].as_f64().unwrap() > 0.0);
        if l["bench"] == "decode" {
            continue;
        }
        if have("llvm-mc-22") {
            assert!(l["speedup"].as_f64().unwrap() > 0.0);
            // Assembly is compared by CPU time too (Linux), as the ratio of the two times.
            if l["bench"] == "asm" && std::path::Path::new("/proc/self/stat").exists() {
                let (o, m) = (l["ours_cpu_s"].as_f64().unwrap(), l["llvm_cpu_s"].as_f64().unwrap());
                assert!(o > 0.0 && m >= 0.0, "{l}");
                assert!((l["speedup_cpu"].as_f64().unwrap() - m / o).abs() < 1e-9, "{l}");
            }
        } else {
            println!("skipped comparison: llvm-mc-22 not installed");
        }
    }
}

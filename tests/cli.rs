//! The command-line contract: every command has --help, errors are one line on stderr with a
//! non-zero exit, and `devices` lists what a (captured) machine has.

#[path = "bench/emu.rs"]
mod bench_emu;

use std::path::Path;
use std::process::{Command, Output};

fn baregpu(args: &[&str], sysroot: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_baregpu"));
    cmd.args(args).env_remove("BAREGPU_LOG");
    match sysroot {
        Some(r) => cmd.env("BAREGPU_SYSROOT", r),
        None => cmd.env_remove("BAREGPU_SYSROOT"),
    };
    cmd.output().expect("run baregpu")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn write(root: &Path, rel: &str, body: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, body).unwrap();
}

#[test]
fn every_command_has_help() {
    let top = baregpu(&["--help"], None);
    assert!(top.status.success());
    let top = text(&top.stdout);
    for cmd in ["devices", "run", "demo", "asm", "disasm", "bench"] {
        assert!(top.contains(cmd), "--help does not list {cmd}:\n{top}");
        let out = baregpu(&[cmd, "--help"], None);
        assert!(out.status.success(), "{cmd} --help failed");
        assert!(text(&out.stdout).contains("Usage: baregpu"), "{cmd} --help:\n{}", text(&out.stdout));
    }
    assert!(top.contains("BAREGPU_LOG"));
}

#[test]
fn devices_json_lists_real_and_emulated_devices() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let topo = "sys/devices/virtual/kfd/kfd/topology/nodes";
    write(r, &format!("{topo}/0/gpu_id"), "0\n");
    write(r, &format!("{topo}/0/properties"), "cpu_cores_count 8\n");
    write(r, &format!("{topo}/1/gpu_id"), "1234\n");
    write(
        r,
        &format!("{topo}/1/properties"),
        "simd_count 304\nsimd_per_cu 1\ngfx_target_version 90402\nlocation_id 256\ndomain 0\ndrm_render_minor 129\n",
    );
    write(r, &format!("{topo}/1/mem_banks/0/properties"), "heap_type 2\nsize_in_bytes 206158430208\n");
    write(r, "dev/kfd", "");
    let out = baregpu(&["devices", "--json"], Some(r));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let devices = v["devices"].as_array().unwrap();
    let first = &devices[0];
    assert_eq!(first["spec"], "amd:0");
    assert_eq!(first["arch"], "gfx942");
    assert_eq!(first["compute_units"], 304);
    assert_eq!(first["memory_bytes"], 206158430208u64);
    assert_eq!(first["kind"], "real");
    assert_eq!(first["ready"], true, "/dev/kfd is there and gfx942 is driven");
    for (spec, ready) in [
        ("emu:gfx1100", true),
        ("emu:gfx1201", true),
        ("emu:gfx942", true),
        ("emu:gfx950", true),
        ("emu-nv:sm_90", true),
        ("emu-nv:sm_120", true),
        ("am:emu:gfx1100", true),
        ("am:emu:gfx942", true),
        ("usb:emu:gfx1100", true),
    ] {
        let d = devices.iter().find(|d| d["spec"] == spec).unwrap_or_else(|| panic!("{spec} not listed"));
        assert_eq!(d["kind"], "emulated");
        assert!(d["compute_units"].as_u64().unwrap() > 0 && d["memory_bytes"].as_u64().unwrap() > 0);
        assert_eq!(d["ready"], ready, "{spec}");
        // What cannot run yet says why.
        assert_eq!(d["note"].as_str().unwrap().is_empty(), ready, "{spec}");
    }

    let table = baregpu(&["devices"], Some(r));
    assert!(table.status.success());
    let table = text(&table.stdout);
    assert!(table.lines().nth(1).unwrap().starts_with("amd:0"), "{table}");
    assert!(table.contains("default device: amd:0"), "{table}");
}

/// A fake sysfs PCI function of an AMD GPU (Navi31) under `root`, optionally bound to `driver`.
fn fake_amd_pci(root: &Path, bdf: &str, driver: Option<&str>) {
    let dir = format!("sys/bus/pci/devices/{bdf}");
    write(root, &format!("{dir}/vendor"), "0x1002\n");
    write(root, &format!("{dir}/device"), "0x744c\n");
    write(root, &format!("{dir}/class"), "0x030000\n");
    write(root, &format!("{dir}/config"), &"\0".repeat(256));
    write(root, &format!("{dir}/resource0_resize"), "000000000000ff00\n");
    let line = |start: u64, size: u64, flags: u64| format!("{start:#018x} {:#018x} {flags:#018x}\n", start + size - 1);
    let zero = format!("{0:#018x} {0:#018x} {0:#018x}\n", 0);
    let resource = [
        line(0x38_0000_0000, 256 << 20, 0x14_220c),
        zero.clone(),
        line(0x38_1000_0000, 2 << 20, 0x14_220c),
        zero.clone(),
        zero.clone(),
        line(0xfcc0_0000, 1 << 20, 0x4_0200),
    ]
    .concat();
    write(root, &format!("{dir}/resource"), &resource);
    if let Some(d) = driver {
        std::fs::create_dir_all(root.join(format!("sys/bus/pci/drivers/{d}"))).unwrap();
        std::os::unix::fs::symlink(format!("../../../bus/pci/drivers/{d}"), root.join(format!("{dir}/driver")))
            .unwrap();
    }
}

#[test]
fn devices_lists_amd_pci_gpus_with_what_it_takes_to_open_them() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    fake_amd_pci(r, "0000:03:00.0", Some("amdgpu"));
    fake_amd_pci(r, "0000:83:00.0", None);
    let out = baregpu(&["devices"], Some(r));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.lines().nth(1).unwrap().starts_with("emu:gfx1100"), "the emulated devices come first: {table}");
    assert!(table.contains("AMD PCI GPUs for the userspace driver (am:BDF):"), "{table}");
    assert!(
        table.contains(
            "  am:0000:03:00.0  744c  driver amdgpu  BAR0 256 MiB (resizable to 32 GiB), BAR2 2 MiB, BAR5 1 MiB: bound to \
             amdgpu; unbind it first: echo 0000:03:00.0 | sudo tee /sys/bus/pci/drivers/amdgpu/unbind"
        ),
        "{table}"
    );
    assert!(table.contains("  am:0000:83:00.0  744c  no driver  BAR0 256 MiB"), "{table}");
    assert!(table.contains("default device: emu:gfx1100"), "a PCI GPU is not the default: {table}");

    let out = baregpu(&["devices", "--json"], Some(r));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let pci = v["pci"].as_array().unwrap();
    assert_eq!(pci.len(), 2);
    assert_eq!(
        (pci[0]["spec"].as_str(), pci[0]["driver"].as_str(), &pci[0]["openable"]),
        (Some("am:0000:03:00.0"), Some("amdgpu"), &serde_json::json!(false))
    );
    assert_eq!(pci[1]["driver"], serde_json::Value::Null);
    assert_eq!(pci[1]["bars"][0]["size"], 256u64 << 20);
    assert_eq!(pci[1]["bar0_resizable_max"], 32u64 << 30);
    assert!(v["devices"].as_array().unwrap().iter().any(|d| d["spec"] == "emu:gfx1100"));
}

#[test]
fn am_on_a_missing_pci_device_is_one_clear_error() {
    for args in [&["demo", "--device", "am:ffff:99:00.0"][..], &["bench", "launch", "--device", "am:ffff:99:00.0"]] {
        let out = baregpu(args, None);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("ffff:99:00.0: no such PCI device (nothing at /sys/bus/pci/devices/ffff:99:00.0)"),
            "{err}"
        );
    }
}

#[test]
fn bad_input_is_one_error_line_and_a_nonzero_exit() {
    let out = baregpu(&["demo", "--device", "cuda:0"], None);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("bad device spec `cuda:0`"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sys/devices/virtual/kfd/kfd/topology/nodes/1/gpu_id", "not-a-number\n");
    // A malformed KFD node is listed as not ready, with the reason; the others stay listed.
    let out = baregpu(&["devices"], Some(dir.path()));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.lines().nth(1).unwrap().starts_with("amd:0") && table.contains("not ready"), "{table}");
    assert!(table.contains("nodes/1/gpu_id") && table.contains("emu:gfx1100"), "{table}");
}

#[test]
fn demo_runs_and_verifies_on_the_emulated_gpu() {
    let dir = tempfile::tempdir().unwrap();
    let out = baregpu(&["demo", "--size", "64", "--json"], Some(dir.path()));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["device"], "emu:gfx1100");
    // One graph by default: four copies in, two kernels, two copies out.
    assert_eq!(v["mode"], "graph");
    assert_eq!(v["graph"]["nodes"], 8, "{v}");
    assert!(v["graph"]["queues"].as_str().unwrap().contains("copy and compute queues"), "{v}");
    // Each kernel waits for its copies in, each copy out for its kernel: none is implied by
    // another, as the matmul's and the vector add's copies are in the order of the kernels.
    assert_eq!(v["graph"]["waits"], 4, "{v}");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for r in runs {
        assert_eq!(r["ok"], true, "{r}");
        assert!(r["gpu_us"].as_f64().unwrap() > 0.0, "{r}");
    }
    // Then the transformer block through the graph compiler: one graph of its 14 kernels,
    // compiled once, replayed on new tokens, both runs within the tolerance of the f64 reference.
    let t = &v["transformer"];
    assert_eq!((t["seq"].as_u64(), t["d_model"].as_u64(), t["d_ff"].as_u64()), (Some(16), Some(32), Some(64)), "{t}");
    assert_eq!(
        (t["kernels"].as_u64(), t["compiled"].as_u64(), t["replays"].as_u64()),
        (Some(14), Some(14), Some(1)),
        "{t}"
    );
    assert!(t["ok"] == true && t["max_error"].as_f64().unwrap() <= 1e-3, "{t}");
    let bad = baregpu(&["demo", "--size", "30"], Some(dir.path()));
    assert!(!bad.status.success());
    assert!(text(&bad.stderr).contains("not a multiple of 16"), "{}", text(&bad.stderr));
}

#[test]
fn a_fifo_in_the_topology_does_not_hang_devices() {
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("sys/devices/virtual/kfd/kfd/topology/nodes/1");
    write(dir.path(), "sys/devices/virtual/kfd/kfd/topology/nodes/1/gpu_id", "7\n");
    let status = Command::new("mkfifo").arg(node.join("properties")).status().expect("mkfifo");
    assert!(status.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_baregpu"))
        .arg("devices")
        .env("BAREGPU_SYSROOT", dir.path())
        .env_remove("BAREGPU_LOG")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed().as_secs() > 20 {
            let _ = child.kill();
            panic!("`devices` hung on a FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let table = text(&out.stdout);
    assert!(table.contains("not a regular file") && table.contains("emu:gfx1100"), "{table}");
}

/// `demo` as one graph (the default), with --eager, and with BAREGPU_GRAPH=0: the last two run
/// eagerly, and all give the same result bytes, verified, on both vendors (BAREGPU_GRAPH=0 on
/// AMD only: the NVIDIA emulator takes seconds per demo).
/// `demo --size 16 --json` on `dev` (with `extra` arguments and BAREGPU_GRAPH set to `graph_env`
/// or unset): the mode it ran in and the runs' checksums, every run verified.
fn demo_checksums(sysroot: &Path, dev: &str, extra: &[&str], graph_env: Option<&str>) -> (String, Vec<String>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_baregpu"));
    cmd.args(["demo", "--size", "16", "--json", "--device", dev]).args(extra);
    cmd.env_remove("BAREGPU_LOG").env("BAREGPU_SYSROOT", sysroot);
    match graph_env {
        Some(v) => cmd.env("BAREGPU_GRAPH", v),
        None => cmd.env_remove("BAREGPU_GRAPH"),
    };
    let out = cmd.output().expect("run baregpu");
    assert!(out.status.success(), "{dev} {extra:?} {graph_env:?}: {}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let sums: Vec<String> = v["runs"].as_array().unwrap().iter().map(|r| r["checksum"].to_string()).collect();
    assert_eq!(sums.len(), 2, "{v}");
    assert!(v["runs"].as_array().unwrap().iter().all(|r| r["ok"] == true), "{v}");
    assert_eq!(v["transformer"]["ok"], true, "{dev}: {v}");
    (v["mode"].as_str().unwrap().to_string(), sums)
}

#[test]
fn demo_graph_and_eager_give_identical_results() {
    let dir = tempfile::tempdir().unwrap();
    let demo = |dev: &str, extra: &[&str], graph_env: Option<&str>| demo_checksums(dir.path(), dev, extra, graph_env);
    for dev in ["emu:gfx1100", "emu-nv:sm_90"] {
        let (mode, graph) = demo(dev, &[], None);
        assert_eq!(mode, "graph", "{dev}");
        let (mode, eager) = demo(dev, &["--eager"], Some("1"));
        assert_eq!(mode, "eager", "{dev}: --eager");
        assert_eq!(graph, eager, "{dev}: graph and eager results differ");
        if dev.starts_with("emu:") {
            let (mode, env_eager) = demo(dev, &[], Some("0"));
            assert_eq!(mode, "eager", "{dev}: BAREGPU_GRAPH=0");
            assert_eq!(graph, env_eager, "{dev}");
        }
    }
}

/// `demo` on the emulated CDNA GPUs (wave64 kernels from the ISA builder), as a graph and eagerly:
/// verified, and the same result bytes as on gfx1100 (the same fp32 operations in the same order).
#[test]
fn demo_runs_on_cdna_graph_and_eager() {
    let dir = tempfile::tempdir().unwrap();
    let (_, rdna) = demo_checksums(dir.path(), "emu:gfx1100", &[], None);
    for dev in ["emu:gfx942", "emu:gfx950"] {
        let (mode, graph) = demo_checksums(dir.path(), dev, &[], None);
        assert_eq!(mode, "graph", "{dev}");
        let (mode, eager) = demo_checksums(dir.path(), dev, &["--eager"], None);
        assert_eq!(mode, "eager", "{dev}: --eager");
        assert_eq!(graph, eager, "{dev}: graph and eager results differ");
        assert_eq!(graph, rdna, "{dev}: results differ from gfx1100's");
    }
}

/// `bench graph --json` on both vendors: one object with every key, figures positive.
#[test]
fn bench_graph_json_has_its_figures() {
    for dev in ["emu:gfx1100", "emu-nv:sm_90"] {
        let out = baregpu(&["bench", "graph", "--device", dev, "--nodes", "20", "--runs", "20", "--json"], None);
        assert!(out.status.success(), "{dev}: {}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(v["device"], dev);
        // 20 kernels and 2 copies.
        assert_eq!(v["nodes"], 22, "{v}");
        assert_eq!(v["runs"], 20, "{v}");
        for key in ["compile_us", "run_host_us_per_node", "run_complete_us_per_node", "eager_host_us_per_node", "ratio"]
        {
            let x = v[key].as_f64().unwrap_or_else(|| panic!("{dev}: no {key} in {v}"));
            assert!(x > 0.0 && x.is_finite(), "{dev}: {key} = {x}");
        }
    }
    // Two emulated devices of one machine in one graph (on AMD: one KFD event page shared).
    for dev in ["emu-nv:sm_90", "emu:gfx1100"] {
        let args = ["bench", "graph", "--device", dev, "--devices", "2", "--nodes", "20", "--runs", "5", "--json"];
        let out = baregpu(&args, None);
        assert!(out.status.success(), "{dev}: {}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(v["device"], format!("{dev}+{dev}:1"), "{v}");
        assert!(v["run_complete_us_per_node"].as_f64().is_some_and(|x| x > 0.0), "{v}");
    }
}

/// `bench launch` (a) is a one-node graph on both vendors: one mechanism, figures positive.
#[test]
fn bench_launch_signal_only_is_a_graph_on_both_vendors() {
    for dev in ["emu:gfx1100", "emu-nv:sm_90"] {
        let out = baregpu(&["bench", "launch", "--device", dev, "--iterations", "20", "--json"], None);
        assert!(out.status.success(), "{dev}: {}", text(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(v["signal_only"], "graph", "{dev}: {v}");
        for key in ["submit_bound_us", "bound_roundtrip_us", "enqueue_launch_us", "launch_latency_us"] {
            assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{dev}: {key} in {v}");
        }
    }
}

//! Hand-built kernels with and without their waits: the checker faults on the missing ones
//! only.

use crate::amd::dispatch::{DispatchState, GpuMemory, WaveEngine};
use crate::rdna::Interpreter;
use baregpu_isa::Arch;

/// Runs `body` (then `s_endpgm`) as one wave with a 256-byte buffer at s[0:1]; the dispatch's
/// fault as text.
fn run(arch: &'static str, body: &str) -> Result<(), String> {
    let text = format!("{body}\ns_endpgm\n");
    let code = baregpu_isa::assemble(Arch::from_name(arch).unwrap(), &text).map_err(|e| e.to_string())?;
    let mut words: Vec<u32> = code.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    words.resize(words.len() + 64, 0);
    let mut buf = vec![7u32; 64];
    let (va, bva) = (words.as_ptr() as u64, buf.as_mut_ptr() as u64);
    let mem = GpuMemory::from_ranges(&[(va, words.len() as u64 * 4, va as usize), (bva, 256, bva as usize)]);
    let mut user_data = [0u32; 16];
    (user_data[0], user_data[1]) = (bva as u32, (bva >> 32) as u32);
    let wave32 = !arch.starts_with("gfx9");
    let d = DispatchState {
        arch,
        pgm: va,
        rsrc1: 0,
        rsrc2: 2 << 1,
        rsrc3: 64 / 4 - 1,
        user_data,
        grid: [1, 1, 1],
        block: [if wave32 { 32 } else { 64 }, 1, 1],
        start: [0; 3],
        wave32,
        tmpring_size: 0,
        scratch_base: 0,
        lds_bytes: 1024,
        cancel: Default::default(),
        xcc: Default::default(),
    };
    Interpreter::new(arch).dispatch(&d, &mem).map_err(|f| f.to_string())
}

/// The fault's text, which must name the register and the counter.
fn faults(arch: &'static str, body: &str, reg: &str, cnt: &str) {
    let e = run(arch, body).expect_err(&format!("{arch}: no fault for\n{body}"));
    assert!(e.contains("missing wait") && e.contains(&format!(" {reg} ")) && e.contains(cnt), "{arch}: {e}");
    assert!(e.contains("at PC 0x"), "{e}");
}

fn passes(arch: &'static str, body: &str) {
    run(arch, body).unwrap_or_else(|e| panic!("{arch}: {e}\n{body}"));
}

const ZERO_V2: &str = "v_mov_b32 v2, 0";

#[test]
fn vmem_load_read_before_vmcnt() {
    for (arch, load, add) in [
        ("gfx1100", "global_load_b32 v1, v2, s[0:1]", "v_add_nc_u32 v3, v1, v1"),
        ("gfx942", "global_load_dword v1, v2, s[0:1]", "v_add_u32 v3, v1, v1"),
    ] {
        faults(arch, &format!("{ZERO_V2}\n{load}\n{add}"), "v1", "vmcnt");
        passes(arch, &format!("{ZERO_V2}\n{load}\ns_waitcnt vmcnt(0)\n{add}"));
        // Overwriting the destination before the load returns is as wrong as reading it.
        faults(arch, &format!("{ZERO_V2}\n{load}\nv_mov_b32 v1, 0"), "v1", "vmcnt");
    }
}

#[test]
fn vmcnt_counts_in_order() {
    let loads = "global_load_b32 v1, v2, s[0:1]\nglobal_load_b32 v3, v2, s[0:1] offset:4";
    passes("gfx1100", &format!("{ZERO_V2}\n{loads}\ns_waitcnt vmcnt(1)\nv_mov_b32 v4, v1"));
    faults("gfx1100", &format!("{ZERO_V2}\n{loads}\ns_waitcnt vmcnt(1)\nv_mov_b32 v4, v3"), "v3", "vmcnt");
    // Two loads into one register land in order: no wait between them.
    passes("gfx1100", &format!("{ZERO_V2}\nglobal_load_b32 v1, v2, s[0:1]\nglobal_load_b32 v1, v2, s[0:1]\ns_waitcnt vmcnt(0)\nv_mov_b32 v4, v1"));
    // gfx9 counts stores on VM_CNT too, in order with the loads.
    let gfx9 = "global_load_dword v1, v2, s[0:1]\nglobal_store_dword v2, v2, s[0:1] offset:8";
    passes("gfx942", &format!("{ZERO_V2}\n{gfx9}\ns_waitcnt vmcnt(1)\nv_mov_b32 v4, v1"));
    faults("gfx942", &format!("{ZERO_V2}\n{gfx9}\ns_waitcnt vmcnt(2)\nv_mov_b32 v4, v1"), "v1", "vmcnt");
}

#[test]
fn smem_needs_lgkmcnt_zero() {
    let load = "s_load_b32 s4, s[0:1], 0x0\ns_load_b32 s5, s[0:1], 0x4";
    faults("gfx1100", &format!("{load}\ns_add_u32 s6, s4, 1"), "s4", "lgkmcnt");
    // Scalar loads may return out of order: lgkmcnt(1) proves neither complete.
    faults("gfx1100", &format!("{load}\ns_waitcnt lgkmcnt(1)\ns_add_u32 s6, s4, 1"), "s4", "lgkmcnt");
    passes("gfx1100", &format!("{load}\ns_waitcnt lgkmcnt(0)\ns_add_u32 s6, s4, s5"));
    // A VALU reading the SGPR, and a global access using it as its base, are reads too.
    faults("gfx1100", "s_load_b64 s[4:5], s[0:1], 0x0\nv_mov_b32 v1, s5", "s5", "lgkmcnt");
    faults(
        "gfx942",
        &format!("s_load_dwordx2 s[4:5], s[0:1], 0x0\n{ZERO_V2}\nglobal_load_dword v1, v2, s[4:5]"),
        "s4",
        "lgkmcnt",
    );
    passes(
        "gfx942",
        &format!("s_load_dwordx2 s[4:5], s[0:1], 0x0\n{ZERO_V2}\ns_waitcnt lgkmcnt(0)\ns_mov_b64 s[4:5], s[0:1]\nglobal_load_dword v1, v2, s[4:5]\ns_waitcnt vmcnt(0)"),
    );
}

#[test]
fn lds_and_smem_share_lgkmcnt() {
    let ops = "ds_load_b32 v1, v2\ns_load_b32 s4, s[0:1], 0x0";
    // The scalar load may complete first: lgkmcnt(1) does not prove the LDS read done.
    faults("gfx1100", &format!("{ZERO_V2}\n{ops}\ns_waitcnt lgkmcnt(1)\nv_mov_b32 v3, v1"), "v1", "lgkmcnt");
    passes("gfx1100", &format!("{ZERO_V2}\n{ops}\ns_waitcnt lgkmcnt(0)\nv_mov_b32 v3, v1"));
    // LDS accesses alone complete in order.
    let lds = "ds_load_b32 v1, v2\nds_load_b32 v3, v2 offset:4";
    passes("gfx1100", &format!("{ZERO_V2}\n{lds}\ns_waitcnt lgkmcnt(1)\nv_mov_b32 v4, v1"));
}

#[test]
fn gfx12_separate_counters() {
    let load = "global_load_b32 v1, v2, s[0:1]";
    faults("gfx1201", &format!("{ZERO_V2}\n{load}\nv_add_nc_u32 v3, v1, v1"), "v1", "loadcnt");
    // A wait on another counter does not help.
    faults(
        "gfx1201",
        &format!("{ZERO_V2}\n{load}\ns_wait_storecnt 0\ns_wait_dscnt 0\nv_add_nc_u32 v3, v1, v1"),
        "v1",
        "loadcnt",
    );
    passes("gfx1201", &format!("{ZERO_V2}\n{load}\ns_wait_loadcnt 0\nv_add_nc_u32 v3, v1, v1"));
    passes("gfx1201", &format!("{ZERO_V2}\n{load}\ns_wait_loadcnt_dscnt 0x0\nv_add_nc_u32 v3, v1, v1"));
    faults(
        "gfx1201",
        &format!("{ZERO_V2}\n{load}\ns_wait_loadcnt_dscnt 0x100\nv_add_nc_u32 v3, v1, v1"),
        "v1",
        "loadcnt",
    );
    faults("gfx1201", "s_load_b32 s4, s[0:1], 0x0\ns_add_co_u32 s6, s4, 1", "s4", "kmcnt");
    passes("gfx1201", "s_load_b32 s4, s[0:1], 0x0\ns_wait_kmcnt 0\ns_add_co_u32 s6, s4, 1");
}

#[test]
fn stores_and_barriers() {
    // A store reads its data when it issues: overwriting it at once is fine, on every target.
    passes("gfx1100", &format!("{ZERO_V2}\nv_mov_b32 v1, 5\nglobal_store_b32 v2, v1, s[0:1]\nv_mov_b32 v1, 0"));
    passes("gfx942", &format!("{ZERO_V2}\nv_mov_b32 v1, 5\nglobal_store_dword v2, v1, s[0:1]\nv_mov_b32 v1, 0"));
    // A barrier waits for no memory counter.
    faults(
        "gfx1100",
        &format!("{ZERO_V2}\nglobal_load_b32 v1, v2, s[0:1]\ns_barrier\nv_mov_b32 v3, v1"),
        "v1",
        "vmcnt",
    );
}

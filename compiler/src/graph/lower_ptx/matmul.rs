//! A matmul kernel in PTX: the AMD lowering's tiling ([`super::super::lower_amd::matmul`]): a block
//! of [`BLOCK`] threads per `TM` x `TN` tile of C, both tiles staged k-major in shared memory per
//! step of `TK` (thread `t` writes element `t + 64 j` of each), each thread accumulating a 4 x 4
//! block read with 16-byte loads. PTX has virtual registers, so each staged element and each
//! output element simply runs its cone of the IR again with the `Tile` registers set.

use std::fmt::Write;

use super::super::error::GraphError;
use super::super::ir::{Inst, Kernel, Matmul, TileAxis};
use super::super::lower_amd::matmul::{LDS_BYTES, TK, TM, TN};
use super::super::lower_amd::BLOCK;
use super::{fail, header, load_params, Render, CTAID, TID};

/// Rows and columns of C per thread.
const RM: u32 = 4;
const RN: u32 = 4;
const B_OFF: u32 = TK * TM * 4;

/// `%m` registers: tile scalars and per-thread indices.
const M0: &str = "%m0";
const N0: &str = "%m1";
const BATCH: &str = "%m2";
const AM: &str = "%m3";
const BN: &str = "%m4";
const KB: &str = "%m5";
const KJ: &str = "%m6";
const EM: &str = "%m7";
const EN: &str = "%m8";
const MI: &str = "%m9";
const NJ: &str = "%m10";
const STEPS: &str = "%m11";
const T: &str = "%m12";

pub(super) fn kernel(k: &Kernel, mm: Matmul) -> Result<String, GraphError> {
    let mut b = header(k);
    let _ = writeln!(b, "    .reg .b32 %m<16>;\n    .reg .b32 %c<{}>;\n    .reg .b32 %f<{}>;", RM * RN, RM + RN);
    let _ = writeln!(b, "    .shared .align 16 .b32 {}_lds[{}];", k.name, LDS_BYTES / 4);
    load_params(k, &mut b);
    let mut r = Render::new(k, b);
    let (st, ra, rb) = (r.addr + 3, r.addr + 4, r.addr + 5);
    let (tiles_m, tiles_n) = (mm.m.div_ceil(TM), mm.n.div_ceil(TN));
    let k_len = k.reduce.map_or(0, |r| r.len);
    let lines = [
        format!("rem.u32 {N0}, {CTAID}, {tiles_n};"),
        format!("div.u32 {T}, {CTAID}, {tiles_n};"),
        format!("rem.u32 {M0}, {T}, {tiles_m};"),
        format!("div.u32 {BATCH}, {T}, {tiles_m};"),
        format!("mul.lo.u32 {M0}, {M0}, {TM};"),
        format!("mul.lo.u32 {N0}, {N0}, {TN};"),
        format!("and.b32 {T}, {TID}, {};", TM - 1),
        format!("add.u32 {AM}, {M0}, {T};"),
        format!("min.u32 {AM}, {AM}, {};", mm.m.max(1) - 1),
        format!("add.u32 {BN}, {N0}, {T};"),
        format!("min.u32 {BN}, {BN}, {};", mm.n.max(1) - 1),
        format!("shr.u32 {KB}, {TID}, {};", TM.trailing_zeros()),
        format!("mov.u64 %a{st}, {}_lds;", k.name),
        format!("mul.wide.u32 %a{ra}, {TID}, 4;"),
        format!("add.u64 %a{st}, %a{st}, %a{ra};"),
        // (ti, tj) = (tid / 8, tid % 8): rows 4 ti, columns 4 tj.
        format!("shr.u32 {T}, {TID}, {};", (TN / RN).trailing_zeros()),
        format!("mad.lo.u32 {EM}, {T}, {RM}, {M0};"),
        format!("mul.wide.u32 %a{ra}, {T}, 16;"),
        format!("and.b32 {T}, {TID}, {};", TN / RN - 1),
        format!("mad.lo.u32 {EN}, {T}, {RN}, {N0};"),
        format!("mul.wide.u32 %a{rb}, {T}, 16;"),
        format!("mov.u64 %a{}, {}_lds;", r.addr + 6, k.name),
        format!("add.u64 %a{ra}, %a{ra}, %a{};", r.addr + 6),
        format!("add.u64 %a{rb}, %a{rb}, %a{};", r.addr + 6),
        format!("mov.u32 {STEPS}, {};", k_len.div_ceil(TK)),
        format!("setp.eq.u32 %p1, {STEPS}, 0;"),
        "@%p1 bra EPILOGUE;".into(),
    ];
    for l in lines {
        r.line(l);
    }
    for c in 0..RM * RN {
        r.line(format!("mov.b32 %c{c}, 0;"));
    }
    r.tile[TileAxis::Batch as usize] = BATCH.into();
    r.tile[TileAxis::M as usize] = AM.into();
    r.tile[TileAxis::N as usize] = BN.into();
    r.tile[TileAxis::K as usize] = KJ.into();
    r.b.push_str("STEP:\n");
    for (f, base) in [(mm.a, 0), (mm.b, B_OFF)] {
        for j in 0..TK * TM / BLOCK {
            // k = kb + 2j; elements past the end read k - 1's and store 0.
            r.line(format!("add.u32 {KJ}, {KB}, {};", BLOCK / TM * j));
            r.line(format!("setp.lt.u32 %p4, {KJ}, {k_len};"));
            r.line(format!("min.u32 {KJ}, {KJ}, {};", k_len.max(1) - 1));
            inputs(&mut r)?;
            for x in k.cone(&[f], &[]) {
                r.inst(x)?;
            }
            r.line(format!("mov.u32 {T}, %v{f};"));
            r.line(format!("@!%p4 mov.u32 {T}, 0;"));
            r.line(format!("st.shared.b32 [%a{st}+{}], {T};", base + 4 * BLOCK * j));
        }
    }
    r.line("bar.sync 0;".into());
    for kk in 0..TK {
        let regs = |first: u32, n: u32| (first..first + n).map(|i| format!("%f{i}")).collect::<Vec<_>>().join(", ");
        r.line(format!("ld.shared.v4.b32 {{{}}}, [%a{ra}+{}];", regs(0, RM), kk * TM * 4));
        r.line(format!("ld.shared.v4.b32 {{{}}}, [%a{rb}+{}];", regs(RM, RN), B_OFF + kk * TN * 4));
        for i in 0..RM {
            for j in 0..RN {
                let c = i * RN + j;
                r.line(format!("fma.rn.f32 %c{c}, %f{i}, %f{}, %c{c};", RM + j));
            }
        }
    }
    r.line("bar.sync 0;".into());
    r.line(format!("add.u32 {KB}, {KB}, {TK};"));
    r.line(format!("sub.u32 {STEPS}, {STEPS}, 1;"));
    r.line(format!("setp.ne.u32 %p1, {STEPS}, 0;"));
    r.line("@%p1 bra STEP;".into());
    r.b.push_str("EPILOGUE:\n");
    epilogue(&mut r, mm)?;
    r.b.push_str("    ret;\n}\n");
    Ok(r.b)
}

/// The `Tile` and `Acc` values from the registers [`Render`] names for them now.
fn inputs(r: &mut Render) -> Result<(), GraphError> {
    for x in 0..r.k.insts.len() {
        if matches!(r.k.insts[x], Inst::Tile(_) | Inst::Acc) {
            r.inst(x)?;
        }
    }
    Ok(())
}

/// The post region per element of the thread's block, elements outside C skipped.
fn epilogue(r: &mut Render, mm: Matmul) -> Result<(), GraphError> {
    let k = r.k;
    let store = (0..k.insts.len()).rev().find(|&x| matches!(k.insts[x], Inst::Store { .. }));
    let cone = k.cone(&[store.ok_or_else(|| fail(k, "a kernel without a store"))?], &[]);
    r.tile[TileAxis::M as usize] = MI.into();
    r.tile[TileAxis::N as usize] = NJ.into();
    for i in 0..RM {
        for j in 0..RN {
            r.line(format!("add.u32 {MI}, {EM}, {i};"));
            r.line(format!("add.u32 {NJ}, {EN}, {j};"));
            r.line(format!("setp.lt.u32 %p1, {MI}, {};", mm.m));
            r.line(format!("setp.lt.u32 %p2, {NJ}, {};", mm.n));
            r.line("and.pred %p1, %p1, %p2;".into());
            r.line(format!("@!%p1 bra SKIP_{i}_{j};"));
            r.acc = format!("%c{}", i * RN + j);
            inputs(r)?;
            for &x in &cone {
                r.inst(x)?;
            }
            let _ = writeln!(r.b, "SKIP_{i}_{j}:");
        }
    }
    Ok(())
}

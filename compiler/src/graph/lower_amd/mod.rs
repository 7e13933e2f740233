//! The loop IR lowered to AMD machine code through the typed builder: one code-object kernel per
//! IR kernel, for gfx1100 and gfx1201 (wave32) and gfx942 and gfx950 (wave64); [`Target`] spells
//! what differs.
//!
//! Launch: workgroups of [`BLOCK`] lanes. Without a reduction lane `i` of workgroup `g` computes
//! output element `g*BLOCK + i` (lanes past the end are masked off). With a reduction workgroup
//! `g` computes output element `g`: each lane reduces elements `lane, lane+BLOCK, ...`, the
//! lanes' partial results are combined through LDS in a tree (a barrier between steps), and lane
//! 0 runs the epilogue and stores. A matmul kernel is tiled instead ([`matmul`]).
//!
//! Registers: `s[0:1]` the kernarg pointer, then the workgroup id; the buffer pointers after
//! it; a few fixed SGPRs and VGPRs for the loop and temporaries; the IR's values in
//! what is left, by [`regs`].

mod convert;
pub mod matmul;
mod regs;
mod select;

use crate::codeobj::{write_code_object, Kernel as CodeKernel, KernelArg};
use crate::isa::builder::{offset, s, v, vcc, vcc_lo, Builder, Ctors, Label, Operand, Reg};
use crate::isa::Arch;
use crate::kernels::{apply_usage, Target};

use super::dtype::DType;
use super::error::GraphError;
use super::ir::{Inst, Kernel, Reduce};
use regs::{Home, Order, Pool};

/// Lanes per workgroup.
pub const BLOCK: u32 = 64;
/// SGPRs the allocator may hand out, below this.
const SGPR_END: u32 = 100;
/// VGPRs the allocator may hand out, below this.
const VGPR_END: u32 = 256;

/// How to launch a lowered kernel: workgroups along x, and lanes per workgroup.
pub fn launch_shape(k: &Kernel) -> (u32, u32) {
    if let Some(mm) = &k.matmul {
        return (matmul::groups(mm), BLOCK);
    }
    match k.reduce {
        Some(_) => (k.n_out, BLOCK),
        None => (k.n_out.div_ceil(BLOCK), BLOCK),
    }
}

/// Fixed registers of a kernel.
#[derive(Clone)]
struct Fixed {
    /// First SGPR of each parameter's pointer.
    ptr: Vec<u32>,
    wg: u32,
    /// Two SGPRs each (a wave64 lane mask).
    save: u32,
    valid: u32,
    tmp: u32,
    count: u32,
    /// The lane's index, the output index (without a reduction), r, r clamped, the accumulator,
    /// an address, the LDS address and four temporaries.
    lane: u32,
    out: u32,
    r: u32,
    rc: u32,
    acc: u32,
    addr: u32,
    laddr: u32,
    vt: [u32; 4],
}

impl Fixed {
    /// The pointers from `first_ptr` (even) on.
    fn new(params: usize, first_ptr: u32) -> Fixed {
        let ptr: Vec<u32> = (0..params as u32).map(|i| first_ptr + 2 * i).collect();
        let s0 = first_ptr + 2 * params as u32;
        Fixed {
            ptr,
            wg: s0,
            save: s0 + 2,
            valid: s0 + 4,
            tmp: s0 + 6,
            count: s0 + 8,
            // The workgroup is one-dimensional: v0 holds the x id alone (y and z are 0 in
            // the packed form), so no mask is needed.
            lane: 0,
            out: 2,
            r: 3,
            rc: 4,
            acc: 5,
            addr: 6,
            laddr: 7,
            vt: [8, 9, 10, 11],
        }
    }
    fn first_free_sgpr(&self) -> u32 {
        self.count + 1
    }
    const FIRST_FREE_VGPR: u32 = 12;
}

/// The state of lowering one kernel.
pub(crate) struct Lower<'k> {
    b: Builder,
    t: Target,
    wave64: bool,
    k: &'k Kernel,
    f: Fixed,
    home: Vec<Home>,
    uniform: Vec<bool>,
    sp: Pool,
    vp: Pool,
    /// Loads issued and not waited for: the first instruction that reads a loaded value waits,
    /// so the loads of one element are in flight together.
    loads_pending: bool,
    /// The (index, element size) whose byte address `v(f.addr)` holds, for the next access to
    /// the same element.
    addr_of: Option<(usize, usize)>,
}

fn codegen(k: &Kernel, what: impl Into<String>) -> GraphError {
    GraphError::Codegen { kernel: k.name.clone(), what: what.into() }
}

/// The code-object kernel of `k` for `arch`.
pub fn lower(arch: Arch, k: &Kernel) -> Result<CodeKernel, GraphError> {
    Ok(build(arch, k)?.0)
}

/// The machine code of `k` for `arch` in LLVM syntax, for people.
pub fn listing(arch: Arch, k: &Kernel) -> Result<String, GraphError> {
    Ok(build(arch, k)?.1.listing())
}

fn build(arch: Arch, k: &Kernel) -> Result<(CodeKernel, Builder), GraphError> {
    let mut ck = CodeKernel::new(arch, &k.name, Vec::new()).with_args(
        k.params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                KernelArg::global_buffer(&format!("p{i}"), 8 * i as u32)
                    .with_type_name(type_name(p.dtype))
                    .with_const(!p.written)
            })
            .collect(),
    );
    let r = &mut ck.resources;
    r.workgroup_id = [true, false, false];
    r.workitem_id_dims = 1;
    r.lds_bytes = match (k.reduce, k.matmul) {
        (_, Some(_)) => matmul::LDS_BYTES,
        (Some(_), None) => 2 * BLOCK * 4,
        (None, None) => 0,
    };
    ck.reqd_workgroup_size = Some([BLOCK, 1, 1]);
    ck.max_flat_workgroup_size = BLOCK;
    let user_sgprs = ck.user_sgpr_count(arch);
    // The workgroup id follows the user SGPRs; the pointers start at the next even SGPR.
    let f = Fixed::new(k.params.len(), (user_sgprs + 2) & !1);
    let first_s = f.first_free_sgpr();
    let first_v = if k.matmul.is_some() { matmul::FIRST_FREE_VGPR } else { Fixed::FIRST_FREE_VGPR };
    let mut l = Lower {
        b: Builder::new(arch),
        t: Target::new(arch),
        wave64: matches!(arch, Arch::Gfx942 | Arch::Gfx950),
        k,
        f,
        home: vec![Home::Const; k.insts.len()],
        uniform: regs::uniform(k),
        sp: Pool::new(first_s, SGPR_END),
        vp: Pool::new(first_v, VGPR_END),
        loads_pending: false,
        addr_of: None,
    };
    l.b.tracker_mut().reserve_sgprs(first_s);
    l.b.tracker_mut().reserve_vgprs(first_v);
    l.body(user_sgprs)?;
    ck.code = l.b.finish().map_err(|e| codegen(k, e.to_string()))?;
    apply_usage(arch, &mut ck, &l.b);
    Ok((ck, l.b))
}

/// The OpenCL C pointer type of a parameter, for the metadata.
fn type_name(d: DType) -> &'static str {
    match d {
        DType::F32 => "float*",
        DType::F16 => "half*",
        DType::BF16 => "ushort*",
        DType::I32 => "int*",
        DType::U8 | DType::Bool => "uchar*",
    }
}

/// One code object holding every kernel of `ks`.
pub fn code_object(arch: Arch, ks: &[Kernel]) -> Result<Vec<u8>, GraphError> {
    let kernels = ks.iter().map(|k| lower(arch, k)).collect::<Result<Vec<_>, _>>()?;
    write_code_object(arch, &kernels)
        .map_err(|e| GraphError::Codegen { kernel: "(code object)".into(), what: e.to_string() })
}

impl Lower<'_> {
    /// The lane mask a compare writes.
    fn vcc(&self) -> Operand {
        if self.wave64 {
            vcc().into()
        } else {
            vcc_lo().into()
        }
    }

    /// Copies a lane mask: `dst` = `src` (SGPR pairs in wave64).
    fn mov_mask(&mut self, dst: Operand, src: Operand) {
        if self.wave64 {
            self.b.s_mov_b64(dst, src);
        } else {
            self.b.s_mov_b32(dst, src);
        }
    }

    fn mask_reg(&self, first: u32) -> Operand {
        if self.wave64 {
            s(first..first + 2).into()
        } else {
            s(first).into()
        }
    }

    /// Waits for the loads in flight, if any.
    fn wait_loads(&mut self) {
        if self.loads_pending {
            self.t.wait_vmem_loads(&mut self.b);
            self.loads_pending = false;
        }
    }

    /// Restricts exec to the lanes of the mask in vcc; `false` when none is left (branch to `end`).
    fn and_exec_vcc(&mut self, end: Label) {
        let vcc = if self.wave64 { vcc() } else { vcc_lo() };
        self.t.s_and_saveexec(&mut self.b, self.f.save, vcc);
        self.b.s_cbranch_execz(end);
    }

    /// The kernel: prologue, regions, reduction, epilogue.
    fn body(&mut self, user_sgprs: u32) -> Result<(), GraphError> {
        let (t, f) = (self.t, self.f.clone());
        for (i, &p) in f.ptr.iter().enumerate() {
            t.s_load(&mut self.b, s(p..p + 2), s(0..2), 8 * i as i64);
        }
        // The workgroup id stays in the SGPR the hardware put it in (gfx12 copies it there).
        let (wg, _) = t.workgroup_ids(&mut self.b, user_sgprs, s(f.wg), s(f.tmp));
        if wg == s(user_sgprs) {
            self.f.wg = user_sgprs;
        }
        let f = self.f.clone();
        if let Some(mm) = self.k.matmul {
            self.matmul_body(mm)?;
            self.b.s_endpgm();
            return Ok(());
        }
        let end = self.b.label("end");
        if self.k.reduce.is_none() {
            // out = wg*BLOCK + lane; lanes past n_out do nothing.
            self.b.v_lshl_add_u32(v(f.out), s(f.wg), BLOCK.trailing_zeros() as i32, v(f.lane));
            self.b.v_cmp_gt_u32(self.vcc(), Operand::Int(self.k.n_out as i64), v(f.out));
            self.and_exec_vcc(end);
        }
        t.wait_smem(&mut self.b);
        let order = Order::of(self.k);
        let last = order.last_use(self.k);
        for i in 0..order.pre.len() {
            self.emit(order.pre[i], &order, &last)?;
        }
        if let Some(red) = self.k.reduce {
            self.wait_loads();
            self.reduce_loop(red, &order, &last)?;
            // The loop ran its accesses many times: what `addr` holds is not known here.
            self.addr_of = None;
            self.lds_tree(red)?;
            // Lane 0 finishes.
            self.b.v_cmp_eq_u32(self.vcc(), 0, v(f.lane));
            self.and_exec_vcc(end);
        }
        for i in 0..order.post.len() {
            self.emit(order.post[i], &order, &last)?;
        }
        self.b.bind(end).s_endpgm();
        Ok(())
    }

    /// Emits value `v` and gives back the registers of values that die there.
    fn emit(&mut self, val: usize, order: &Order, last: &[usize]) -> Result<(), GraphError> {
        self.place(val)?;
        self.inst(val)?;
        let at = order.pos[val];
        let mut dying = Kernel::operands(&self.k.insts[val]);
        dying.push(val);
        // An operand read twice (`DivC` reads `a` as both) dies once.
        dying.sort_unstable();
        dying.dedup();
        for o in dying {
            if last[o] == at {
                self.release(o);
            }
        }
        Ok(())
    }

    /// A register for `val` (none for constants and the pinned values).
    fn place(&mut self, val: usize) -> Result<(), GraphError> {
        let f = &self.f;
        self.home[val] = match self.k.insts[val] {
            Inst::Const(..) | Inst::Store { .. } => Home::Const,
            Inst::OutIdx if self.k.reduce.is_some() => Home::Sgpr(f.wg),
            Inst::OutIdx => Home::Vgpr(f.out),
            Inst::RedIdx => Home::Vgpr(f.rc),
            Inst::Acc => Home::Vgpr(f.acc),
            _ => {
                let (pool, what) = if self.uniform[val] { (&mut self.sp, "SGPRs") } else { (&mut self.vp, "VGPRs") };
                let r = pool.take().ok_or_else(|| codegen(self.k, format!("out of {what}")))?;
                if self.uniform[val] {
                    Home::Sgpr(r)
                } else {
                    Home::Vgpr(r)
                }
            }
        };
        Ok(())
    }

    fn release(&mut self, val: usize) {
        let pinned = matches!(self.k.insts[val], Inst::OutIdx | Inst::RedIdx | Inst::Acc);
        match self.home[val] {
            Home::Sgpr(r) if !pinned => self.sp.give(r),
            Home::Vgpr(r) if !pinned => self.vp.give(r),
            _ => {}
        }
    }

    /// Each lane reduces `r = lane, lane + BLOCK, ...` below `len` into `acc`.
    fn reduce_loop(&mut self, red: Reduce, order: &Order, last: &[usize]) -> Result<(), GraphError> {
        let (t, f) = (self.t, self.f.clone());
        let identity = red.op.identity_bits(red.dtype);
        self.b.v_mov_b32(v(f.acc), Operand::Int(identity as i32 as i64));
        let trips = red.len.div_ceil(BLOCK);
        if trips == 0 {
            return Ok(());
        }
        self.b.v_mov_b32(v(f.r), v(f.lane)).s_mov_b32(s(f.count), Operand::Int(trips as i64));
        let top = self.b.here("reduce");
        self.addr_of = None;
        // Lanes past the end read element 0 and keep their accumulator.
        self.b.v_cmp_gt_u32(self.vcc(), Operand::Int(red.len as i64), v(f.r));
        self.b.v_cndmask_b32(v(f.rc), 0, v(f.r), self.vcc());
        let (valid, vcc) = (self.mask_reg(f.valid), self.vcc());
        self.mov_mask(valid, vcc);
        for i in 0..order.body.len() {
            self.emit(order.body[i], order, last)?;
        }
        let x = self.k.body_result.ok_or_else(|| codegen(self.k, "a reduction without an operand"))?;
        self.wait_loads();
        let ops = self.vops(&[x]);
        self.combine(red, v(f.vt[2]), v(f.acc).into(), ops[0]);
        let (vcc, valid) = (self.vcc(), self.mask_reg(f.valid));
        self.mov_mask(vcc, valid);
        self.b.v_cndmask_b32(v(f.acc), v(f.acc), v(f.vt[2]), self.vcc());
        t.v_add_u32(&mut self.b, v(f.r), Operand::Int(BLOCK as i64), v(f.r));
        t.s_add_i32(&mut self.b, s(f.count), s(f.count), -1);
        self.b.s_cmp_lg_u32(s(f.count), 0).s_cbranch_scc1(top);
        // The values of `pre` the loop read die here.
        let dead: Vec<usize> = (0..self.k.insts.len()).filter(|&v| last[v] == order.loop_end).collect();
        for v in dead {
            self.release(v);
        }
        Ok(())
    }

    /// The lanes' accumulators combined through LDS: a tree of halving steps, then every lane
    /// reads the result.
    fn lds_tree(&mut self, red: Reduce) -> Result<(), GraphError> {
        let (t, f) = (self.t, self.f.clone());
        self.b.v_lshlrev_b32(v(f.laddr), 2, v(f.lane));
        t.ds_store_b32(&mut self.b, v(f.laddr), v(f.acc));
        t.wait_lds(&mut self.b);
        t.barrier(&mut self.b);
        let mut step = BLOCK / 2;
        while step > 0 {
            t.ds_load(&mut self.b, v(f.vt[0]), v(f.laddr));
            self.b.mods([offset(4 * step as i64)]);
            t.ds_load(&mut self.b, v(f.vt[1]), v(f.laddr));
            t.wait_lds(&mut self.b);
            t.barrier(&mut self.b); // every lane has read before any writes
            self.combine(red, v(f.acc), v(f.vt[0]).into(), v(f.vt[1]).into());
            t.ds_store_b32(&mut self.b, v(f.laddr), v(f.acc));
            t.wait_lds(&mut self.b);
            t.barrier(&mut self.b);
            step /= 2;
        }
        self.b.v_mov_b32(v(f.vt[0]), 0);
        t.ds_load(&mut self.b, v(f.acc), v(f.vt[0]));
        t.wait_lds(&mut self.b);
        if let Some(e) = self.b.error() {
            return Err(codegen(self.k, e.to_string()));
        }
        Ok(())
    }

    /// `d = x op y` for the reduction's op.
    fn combine(&mut self, red: Reduce, d: Reg, x: Operand, y: Operand) {
        use super::ops::ReduceOp;
        match (red.op, red.dtype) {
            (ReduceOp::Sum, DType::I32) => self.t.v_add_u32(&mut self.b, d, x, y),
            (ReduceOp::Sum, _) => {
                self.b.v_add_f32(d, x, y);
            }
            (ReduceOp::Max, DType::I32) => {
                self.b.v_max_i32(d, x, y);
            }
            (ReduceOp::Max, _) => {
                self.v_max_f32(d, x, y);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{schedule, DType, Tensor};

    /// Kernels of a softmax, a matmul and a padded, flipped elementwise chain.
    fn kernels() -> Vec<Kernel> {
        let x = Tensor::input(0, &[7, 33], DType::F32);
        let a = Tensor::input(1, &[5, 7], DType::F32);
        let e = x.flip(&[1]).unwrap().pad(&[(1, 0), (0, 2)]).unwrap().shrink(&[(0, 7), (0, 33)]).unwrap();
        let e = e.sin().unwrap().maximum(&x).unwrap();
        let graphs = [x.softmax(1).unwrap(), a.matmul(&x).unwrap(), e];
        let mut ks: Vec<Kernel> = graphs.iter().flat_map(|g| schedule(g).unwrap().kernels).map(|k| k.ir).collect();
        // Names are unique per schedule; these come from three.
        for (i, k) in ks.iter_mut().enumerate() {
            k.name = format!("g{i}_{}", k.name);
        }
        ks
    }

    #[test]
    fn every_kernel_lowers_on_every_architecture_within_the_compile_budget() {
        let ks = kernels();
        for arch in [Arch::Gfx1100, Arch::Gfx1201, Arch::Gfx942, Arch::Gfx950] {
            let t = std::time::Instant::now();
            let code = code_object(arch, &ks).unwrap();
            let ms = t.elapsed().as_secs_f64() * 1e3 / ks.len() as f64;
            assert!(!code.is_empty());
            // The goal is 5 ms a kernel; a test build on a busy machine gets ten times that.
            assert!(ms < 50.0, "{arch:?}: {ms:.2} ms a kernel");
            eprintln!("{arch:?}: {} kernels, {ms:.3} ms a kernel", ks.len());
        }
    }
}

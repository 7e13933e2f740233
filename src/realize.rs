//! The graph compiler on a device: a [`Realizer`] schedules a lazy tensor
//! ([`baregpu_compiler::graph`]), compiles the schedule's kernels into one code object, builds
//! ONE HCQ2 graph for the schedule (inputs and output as buffer slots bound per run,
//! intermediates in a pool of device buffers it owns) and runs it. Graphs are cached by schedule:
//! realizing the same computation again, on new buffers, only binds the slots and replays the
//! graph; nothing is compiled.
//!
//! Programs live in a [`ProgramArena`] the caller makes first, so cached graphs can borrow them
//! for as long as the realizer lives.
//!
//! The cache is bounded (least recently used out): every cached graph holds device signals
//! (a device has one page of them) and memory, so a process that realizes many distinct
//! computations would otherwise run out. An evicted graph waits for its last run when dropped,
//! then its intermediates are freed and its program unloaded.

use crate::gpu::{Buffer, ExecOptions, Gpu, GpuGraph, GraphDesc, Program, Vendor};
use crate::{Error, Result};
use baregpu_compiler::graph::ir::Kernel;
use baregpu_compiler::graph::lower_amd::{code_object, launch_shape};
use baregpu_compiler::graph::lower_ptx;
use baregpu_compiler::graph::{schedule, BufferKind, Schedule, Tensor};
use baregpu_isa::Arch;
use baregpu_runtime::graph::{Arg, Bindings, BufRef, Home, QueueKey, Range, Shape, SlotId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::time::Instant;

/// Loaded programs that outlive the graphs made from them: a realizer adds one per graph and
/// unloads it with the graph (eviction, close); [`ProgramArena::unload_all`] unloads the rest.
#[derive(Default)]
pub struct ProgramArena {
    // The boxes are the point: a program's address must not move when the vector grows.
    #[allow(clippy::vec_box)]
    programs: RefCell<Vec<Box<Program>>>,
}

impl ProgramArena {
    pub fn new() -> Self {
        Self::default()
    }

    fn add(&self, p: Program) -> &Program {
        let boxed = Box::new(p);
        let at: *const Program = &*boxed;
        self.programs.borrow_mut().push(boxed);
        // SAFETY: the program lives in its own heap box, which the vector only moves as a
        // pointer when it grows; a box is removed only by `unload`, whose caller promises the
        // reference is no longer used, or by `unload_all`, which takes `self` by value.
        unsafe { &*at }
    }

    /// Unload the program at `p` from `dev` and forget it (no error where it is not here).
    ///
    /// # Safety
    /// No reference to the program that [`ProgramArena::add`] gave out may be used afterwards
    /// (the graphs that borrowed it are dropped).
    unsafe fn unload(&self, p: *const Program, dev: &dyn Gpu) -> Result<()> {
        let mut programs = self.programs.borrow_mut();
        let Some(i) = programs.iter().position(|b| std::ptr::eq(&**b, p)) else {
            return Ok(());
        };
        let program = programs.swap_remove(i);
        drop(programs);
        dev.unload(*program)
    }

    /// Unload every program from `dev` (after every graph borrowing them is gone).
    pub fn unload_all(self, dev: &dyn Gpu) -> Result<()> {
        let mut first = Ok(());
        for p in self.programs.into_inner() {
            let r = dev.unload(*p);
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}

/// A compiled schedule: its graph and what binds to it.
struct Cached<'a> {
    /// None when the schedule launches nothing (every kernel's result is empty).
    graph: Option<Box<dyn GpuGraph + 'a>>,
    /// The slot of each input and of the output.
    slots: Vec<(BufferKind, SlotId)>,
    pool: Vec<Buffer>,
    /// The arena's program the graph borrows: unloaded when the graph is evicted.
    program: Option<*const Program>,
    kernels: usize,
    /// The realizer's clock at the last realize that used it (the least recent goes first).
    used: u64,
}

/// What one realize did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Realized {
    /// Kernels in the schedule (launches in the graph).
    pub kernels: usize,
    /// Whether it compiled (false: a replay of a cached graph).
    pub compiled: bool,
    /// Milliseconds spent lowering the kernels to machine code (0 on a replay).
    pub codegen_ms: f64,
}

/// What the kernels are compiled to.
enum Codegen {
    /// Machine code through the typed builder.
    Amd(Arch),
    /// PTX for this target (`sm_90`): the emulator interprets it, the device loads it through
    /// ptxas on a real GPU.
    Ptx(String),
}

impl Codegen {
    fn code(&self, kernels: &[Kernel]) -> Result<Vec<u8>> {
        let usage = |e: baregpu_compiler::graph::GraphError| Error::Usage(e.to_string());
        match self {
            Codegen::Amd(arch) => code_object(*arch, kernels).map_err(usage),
            Codegen::Ptx(target) => Ok(lower_ptx::module(target, kernels).map_err(usage)?.into_bytes()),
        }
    }
}

/// Realizes lazy tensors on one device.
pub struct Realizer<'a> {
    dev: &'a dyn Gpu,
    arena: &'a ProgramArena,
    codegen: Codegen,
    cache: HashMap<Schedule, Cached<'a>>,
    /// Most graphs kept cached.
    capacity: usize,
    /// Realizes so far: what [`Cached::used`] counts in.
    clock: u64,
    compilations: usize,
}

/// Graphs a realizer keeps by default: each holds two of its device's signals (a page of 256,
/// shared with everything else on the device) and its intermediates' memory.
pub const CACHED_GRAPHS: usize = 64;

impl<'a> Realizer<'a> {
    /// A realizer for `dev`: AMD architectures the code generator knows, or NVIDIA (PTX).
    pub fn new(dev: &'a dyn Gpu, arena: &'a ProgramArena) -> Result<Self> {
        let codegen = match dev.vendor() {
            Vendor::Nvidia => Codegen::Ptx(dev.arch().to_string()),
            Vendor::Amd => Codegen::Amd(Arch::from_name(dev.arch()).ok_or_else(|| {
                Error::Usage(format!("{}: the graph compiler has no code generator for {}", dev.label(), dev.arch()))
            })?),
        };
        Ok(Realizer { dev, arena, codegen, cache: HashMap::new(), capacity: CACHED_GRAPHS, clock: 0, compilations: 0 })
    }

    /// Keep at most `graphs` graphs cached (at least one); the least recently realized go first.
    pub fn with_cache_capacity(mut self, graphs: usize) -> Self {
        self.capacity = graphs.max(1);
        self
    }

    /// Graphs cached now.
    pub fn cached(&self) -> usize {
        self.cache.len()
    }

    /// Kernels compiled so far (a replay compiles none).
    pub fn compilations(&self) -> usize {
        self.compilations
    }

    /// Compute `out` from `inputs` (input n of the graph is `inputs[n]`) into `output`.
    pub fn realize(&mut self, out: &Tensor, inputs: &[&Buffer], output: &Buffer) -> Result<Realized> {
        let sched = schedule(out).map_err(|e| Error::Usage(e.to_string()))?;
        check_buffers(&sched, inputs, output)?;
        let (compiled, codegen_ms) = if self.cache.contains_key(&sched) {
            (false, 0.0)
        } else {
            while self.cache.len() >= self.capacity {
                self.evict_least_recent()?;
            }
            let (cached, ms) = self.compile(&sched)?;
            self.cache.insert(sched.clone(), cached);
            (true, ms)
        };
        self.clock += 1;
        let c = self.cache.get_mut(&sched).expect("just compiled");
        c.used = self.clock;
        let Some(graph) = c.graph.as_mut() else {
            return Ok(Realized { kernels: 0, compiled, codegen_ms });
        };
        let mut b = Bindings::new();
        for &(kind, slot) in &c.slots {
            let buf = match kind {
                BufferKind::Input(n) => inputs[n],
                _ => output,
            };
            b.buffer(slot, buf.va(), buf.size());
        }
        graph.run(&b)?;
        graph.wait()?;
        Ok(Realized { kernels: c.kernels, compiled, codegen_ms })
    }

    /// Lower every kernel, load them as one program and build the schedule's graph.
    fn compile(&mut self, sched: &Schedule) -> Result<(Cached<'a>, f64)> {
        let irs: Vec<_> = sched.kernels.iter().filter(|k| k.ir.n_out > 0).map(|k| k.ir.clone()).collect();
        if irs.is_empty() {
            let none = Cached { graph: None, slots: Vec::new(), pool: Vec::new(), program: None, kernels: 0, used: 0 };
            return Ok((none, 0.0));
        }
        let t = Instant::now();
        let code = self.codegen.code(&irs)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        self.compilations += irs.len();
        let mut pool = Vec::new();
        for &bytes in &sched.pool {
            match self.dev.alloc(bytes) {
                Ok(b) => pool.push(b),
                Err(e) => {
                    for b in pool {
                        let _ = self.dev.free(b);
                    }
                    return Err(e);
                }
            }
        }
        let built = self.build_graph(sched, &code, &pool);
        match built {
            Ok((graph, slots, program)) => {
                let c = Cached { graph: Some(graph), slots, pool, program: Some(program), kernels: irs.len(), used: 0 };
                Ok((c, ms))
            }
            Err(e) => {
                for b in pool {
                    let _ = self.dev.free(b);
                }
                Err(e)
            }
        }
    }

    /// The graph, its slots, and the program it borrows.
    #[allow(clippy::type_complexity)]
    fn build_graph(
        &self,
        sched: &Schedule,
        code: &[u8],
        pool: &[Buffer],
    ) -> Result<(Box<dyn GpuGraph + 'a>, Vec<(BufferKind, SlotId)>, *const Program)> {
        let program: &'a Program = self.arena.add(self.dev.load(code, "graph kernels")?);
        let mut g = GraphDesc::new();
        let fixed: Vec<_> = pool.iter().map(|b| g.buffer(0, b)).collect();
        let mut slots = Vec::new();
        let refs: Vec<BufRef> = sched
            .buffers
            .iter()
            .map(|info| match info.kind {
                BufferKind::Temp(e) => BufRef::Fixed(fixed[e]),
                kind => {
                    let name = match kind {
                        BufferKind::Input(n) => format!("input {n}"),
                        _ => "output".to_string(),
                    };
                    let slot = g.buffer_slot(&name, Home::Device(0), info.bytes);
                    slots.push((kind, slot));
                    BufRef::Slot(slot)
                }
            })
            .collect();
        let range = |b: usize| Range::new(refs[b], 0, sched.buffers[b].bytes);
        for k in sched.kernels.iter().filter(|k| k.ir.n_out > 0) {
            let args = k.args.iter().map(|&b| Arg::buf(refs[b])).collect();
            let (groups, block) = launch_shape(&k.ir);
            let (written, read): (Vec<_>, Vec<_>) =
                k.args.iter().enumerate().partition(|(i, _)| k.ir.params[*i].written);
            let reads = read.iter().map(|&(_, &b)| range(b)).collect();
            let writes = written.iter().map(|&(_, &b)| range(b)).collect();
            g.launch_ranges(
                QueueKey::compute(0),
                program,
                &k.ir.name,
                args,
                Shape::linear(groups, block),
                reads,
                writes,
            );
        }
        match self.dev.compile_graph(g, &[], ExecOptions { profile: false }) {
            Ok(graph) => Ok((graph, slots, program as *const Program)),
            Err(e) => {
                // SAFETY: nothing borrows the program: the graph description that did is gone.
                let _ = unsafe { self.arena.unload(program, self.dev) };
                Err(e)
            }
        }
    }

    /// Drop the least recently realized graph and give back what it holds.
    fn evict_least_recent(&mut self) -> Result<()> {
        let Some(key) = self.cache.iter().min_by_key(|(_, c)| c.used).map(|(k, _)| k.clone()) else {
            return Ok(());
        };
        let c = self.cache.remove(&key).expect("a key of the cache");
        self.release(c)
    }

    /// Drop a graph (its drop waits for its last run, so the GPU writes none of what follows),
    /// then free its intermediates and unload its program; the first error.
    fn release(&self, c: Cached<'a>) -> Result<()> {
        drop(c.graph);
        let mut first = Ok(());
        for b in c.pool {
            let r = self.dev.free(b);
            if first.is_ok() {
                first = r;
            }
        }
        if let Some(p) = c.program {
            // SAFETY: the only borrow of the program was the graph, dropped above.
            let r = unsafe { self.arena.unload(p, self.dev) };
            if first.is_ok() {
                first = r;
            }
        }
        first
    }

    /// Give back the intermediate buffers and programs of every cached graph.
    pub fn close(mut self) -> Result<()> {
        let mut first = Ok(());
        for (_, c) in std::mem::take(&mut self.cache) {
            let r = self.release(c);
            if first.is_ok() {
                first = r;
            }
        }
        first
    }
}

/// Every input the schedule reads is given and large enough, and so is the output.
fn check_buffers(sched: &Schedule, inputs: &[&Buffer], output: &Buffer) -> Result<()> {
    for info in &sched.buffers {
        let (what, have) = match info.kind {
            BufferKind::Input(n) => match inputs.get(n) {
                Some(b) => (format!("input {n}"), b.size()),
                None => {
                    return Err(Error::Usage(format!("the graph reads input {n}, but {} were given", inputs.len())))
                }
            },
            BufferKind::Output => ("the output".to_string(), output.size()),
            BufferKind::Temp(_) => continue,
        };
        if have < info.bytes {
            return Err(Error::Usage(format!("{what}: a buffer of {have} bytes, the graph needs {}", info.bytes)));
        }
    }
    Ok(())
}

//! One wave64 running one MFMA on registers loaded from a per-lane buffer.

use crate::amd::dispatch::{DispatchState, GpuMemory, WaveEngine};
use crate::rdna::Interpreter;
use baregpu_isa::Arch;

/// Dwords of per-lane data: v[2 + t] holds dword t.
pub const LANE: usize = 64;
/// Where each operand starts in a lane's dwords (and so in v[2 + ...]).
pub const A: usize = 0;
pub const B: usize = 8;
pub const SA: usize = 16;
pub const SB: usize = 17;
pub const IDX: usize = 18;
pub const CD: usize = 32;
/// ACCUM_OFFSET: AGPRs after v[2 + LANE].
const ACCUM: u32 = 68;

/// The registers of all 64 lanes, as the kernel loads and stores them.
pub struct Lanes(pub Vec<u32>);

impl Lanes {
    pub fn new() -> Lanes {
        Lanes(vec![0; 64 * LANE])
    }

    /// Sets element `e` (`bits` wide, packed from bit 0 of the first dword up) of the operand
    /// at dword `base` of `lane`.
    pub fn put(&mut self, base: usize, lane: usize, bits: usize, e: usize, value: u64) {
        for bit in 0..bits {
            let at = e * bits + bit;
            let w = &mut self.0[lane * LANE + base + at / 32];
            *w = (*w & !(1 << (at % 32))) | (((value >> bit) & 1) as u32) << (at % 32);
        }
    }

    pub fn get(&self, base: usize, lane: usize, reg: usize) -> u32 {
        self.0[lane * LANE + base + reg]
    }

    pub fn set(&mut self, base: usize, lane: usize, reg: usize, v: u32) {
        self.0[lane * LANE + base + reg] = v;
    }
}

/// `v[...]` (or `vN`) naming `n` registers from dword `base` of the lane data.
pub fn vregs(base: usize, n: usize) -> String {
    let first = 2 + base;
    if n == 1 {
        format!("v{first}")
    } else {
        format!("v[{first}:{}]", first + n - 1)
    }
}

/// C/D's operand text: VGPRs at [`CD`], or AGPRs from a0.
pub fn cd_regs(n: usize, agpr: bool) -> String {
    match (agpr, n) {
        (false, _) => vregs(CD, n),
        (true, 1) => "a0".into(),
        (true, _) => format!("a[0:{}]", n - 1),
    }
}

/// Runs `inst` (its C/D in AGPRs from a0 when `agpr`, `d_regs` of them) in a kernel that
/// loads and stores every lane's data; panics with the assembler's or interpreter's error.
pub fn run(arch: &'static str, inst: &str, lanes: &mut Lanes, agpr: bool, d_regs: usize) {
    try_run(arch, inst, lanes, agpr, d_regs).unwrap_or_else(|e| panic!("{arch}: {inst}: {e}"));
}

/// As [`run`]; returns the error text of the assembler or of the dispatch's fault.
pub fn try_run(arch: &'static str, inst: &str, lanes: &mut Lanes, agpr: bool, d_regs: usize) -> Result<(), String> {
    try_run_patched(arch, inst, lanes, agpr, d_regs, &|_| {})
}

/// [`try_run`] with `patch` applied to the words of `inst` and after: for encodings our
/// assembler refuses (as llvm-mc does) that a crafted code object can still hold.
pub fn try_run_patched(
    arch: &'static str,
    inst: &str,
    lanes: &mut Lanes,
    agpr: bool,
    d_regs: usize,
    patch: &dyn Fn(&mut [u32]),
) -> Result<(), String> {
    let mut s = String::from("v_lshlrev_b32 v1, 8, v0\n");
    for q in 0..LANE / 4 {
        s += &format!("global_load_dwordx4 {}, v1, s[0:1] offset:{}\n", vregs(4 * q, 4), 16 * q);
    }
    s += "s_waitcnt vmcnt(0)\n";
    for r in 0..d_regs * agpr as usize {
        s += &format!("v_accvgpr_write_b32 a{r}, v{}\n", 2 + CD + r);
    }
    let at = baregpu_isa::assemble(Arch::from_name(arch).unwrap(), &s).map_err(|e| e.to_string())?.len() / 4;
    s += inst;
    s += "\n";
    for r in 0..d_regs * agpr as usize {
        s += &format!("v_accvgpr_read_b32 v{}, a{r}\n", 2 + CD + r);
    }
    for q in 0..LANE / 4 {
        s += &format!("global_store_dwordx4 v1, {}, s[0:1] offset:{}\n", vregs(4 * q, 4), 16 * q);
    }
    s += "s_endpgm\n";
    let code = baregpu_isa::assemble(Arch::from_name(arch).unwrap(), &s).map_err(|e| e.to_string())?;
    let mut words: Vec<u32> = code.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    patch(&mut words[at..]);
    words.resize(words.len() + 64, 0);
    let buf = &mut lanes.0;
    let (va, bva) = (words.as_ptr() as u64, buf.as_mut_ptr() as u64);
    let mem =
        GpuMemory::from_ranges(&[(va, words.len() as u64 * 4, va as usize), (bva, buf.len() as u64 * 4, bva as usize)]);
    let mut user_data = [0u32; 16];
    (user_data[0], user_data[1]) = (bva as u32, (bva >> 32) as u32);
    let d = DispatchState {
        arch,
        pgm: va,
        rsrc1: 0,
        rsrc2: 2 << 1,
        rsrc3: ACCUM / 4 - 1,
        user_data,
        grid: [1, 1, 1],
        block: [64, 1, 1],
        start: [0; 3],
        wave32: false,
        tmpring_size: 0,
        scratch_base: 0,
        lds_bytes: 0,
        cancel: Default::default(),
        xcc: Default::default(),
    };
    Interpreter::new(arch).dispatch(&d, &mem).map_err(|f| format!("{f:?}"))
}

/// A small deterministic generator (LCG) for test data.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// Uniform in lo..=hi.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
}

//! The VALU's rarely emitted operations: `v_trig_preop_f64` (trig_preop.rs), the cube-map
//! coordinates (`v_cube{id,sc,tc,ma}_f32`), the quad SADs (`v_qsad_pk_u16_u8`,
//! `v_mqsad_pk_u16_u8`, `v_mqsad_u32_u8`) and gfx950's `v_ashr_pk_{i8,u8}_i32`.
//!
//! Sources: AMD CDNA3 ISA guide §12 (V_CUBE*, V_QSAD_PK_U16_U8, V_MQSAD_*; the RDNA3 guide has
//! the same pseudocode) and LLVM's selection pattern for V_ASHR_PK_*_I32 (AMDGPU
//! VOP3Instructions.td: each i32 shifted right arithmetically by S2[4:0], clamped to the byte
//! range, S0's in the low byte). docs/cdna-gfx9-ops.md has the rules.

use super::trig_preop::trig_preop;
use super::*;

/// The major axis of the direction (x, y, z): 2 for z, 1 for y, 0 for x; ties go to z, then y.
fn cube_axis(x: f32, y: f32, z: f32) -> u8 {
    if z.abs() >= x.abs() && z.abs() >= y.abs() {
        2
    } else if y.abs() >= x.abs() {
        1
    } else {
        0
    }
}

/// `v_cube*`: face id, s and t coordinates (before the division by |ma|), and 2 × major axis.
fn cube(op: VOp, x: f32, y: f32, z: f32) -> f32 {
    let axis = cube_axis(x, y, z);
    let major = [x, y, z][axis as usize];
    match op {
        VOp::CubeIdF32 => (2 * axis + (major < 0.0) as u8) as f32,
        VOp::CubeScF32 => match axis {
            2 if z < 0.0 => -x,
            2 | 1 => x,
            _ if x < 0.0 => z,
            _ => -z,
        },
        VOp::CubeTcF32 => match axis {
            1 if y < 0.0 => -z,
            1 => z,
            _ => -y,
        },
        _ => 2.0 * major,
    }
}

/// Σ |a_k − b_k| over the four bytes, plus `acc`; `masked`: bytes where b is 0 are skipped.
fn sad4(a: u64, b: u64, acc: u64, masked: bool) -> u64 {
    (0..4)
        .map(|k| (a >> (8 * k) & 0xff, b >> (8 * k) & 0xff))
        .filter(|&(_, y)| !masked || y != 0)
        .map(|(x, y)| x.abs_diff(y))
        .sum::<u64>()
        + acc
}

/// `v_qsad_pk_u16_u8` / `v_mqsad_pk_u16_u8`: the SADs of S1 against the four byte windows of
/// S0 (bytes 0-3, 1-4, 2-5, 3-6), each plus its 16-bit accumulator from S2; `clamp` saturates
/// at 0xffff, else the sum wraps to 16 bits.
fn qsad(s0: u64, s1: u64, s2: u64, masked: bool, clamp: bool) -> u64 {
    (0..4).fold(0, |r, k| {
        let s = sad4(s0 >> (8 * k), s1, s2 >> (16 * k) & 0xffff, masked);
        r | (if clamp { s.min(0xffff) } else { s & 0xffff }) << (16 * k)
    })
}

/// An i32 shifted right arithmetically, clamped to `[lo, hi]`, as a byte.
fn ashr_sat(x: u64, sh: u64, lo: i32, hi: i32) -> u64 {
    ((x as u32 as i32 >> (sh & 31)).clamp(lo, hi) as u32 & 0xff) as u64
}

impl<const W: usize> Wave<W> {
    #[inline(always)]
    pub(super) fn valu_special(&self, v: &Valu, io: &mut Lanes<W>) -> Result<Arm, String> {
        use VOp::*;
        let clamp = v.clamp;
        #[allow(unused_variables)]
        match v.op {
            TrigPreopF64 => map!(io, |x, y, z| db(trig_preop(d(x), y as u32))),
            CubeIdF32 | CubeScF32 | CubeTcF32 | CubeMaF32 => map!(io, |x, y, z| fb(cube(v.op, f(x), f(y), f(z)))),
            QsadPkU16U8 => map!(io, |x, y, z| qsad(x, y, z, false, clamp)),
            MqsadPkU16U8 => map!(io, |x, y, z| qsad(x, y, z, true, clamp)),
            AshrPkI8I32 => map!(io, |x, y, z| ashr_sat(x, z, -128, 127) | ashr_sat(y, z, -128, 127) << 8),
            AshrPkU8I32 => map!(io, |x, y, z| ashr_sat(x, z, 0, 255) | ashr_sat(y, z, 0, 255) << 8),
            _ => return Ok(Arm::Next),
        }
        Ok(Arm::Lanes)
    }

    /// `v_mqsad_u32_u8`: four masked SADs of S1 (32 bits) against the byte windows of S0 (64
    /// bits), each plus its 32-bit accumulator from S2 (128 bits); D is 128 bits. Outside the
    /// 64-bit lane model: the registers are read and written here.
    pub(super) fn mqsad_u32(&mut self, v: &Valu) {
        let exec = self.exec();
        let s0 = self.vsrc(v.src[0], Ty::B64, false);
        let s1 = self.vsrc(v.src[1], Ty::B32, false);
        // S2's four dwords: consecutive registers, or a constant in the first (ours).
        let acc: [[u64; W]; 4] = std::array::from_fn(|k| match v.src[2] {
            Vs::V(r) => self.vsrc(Vs::V(r + k as u16), Ty::B32, false),
            Vs::S(Ss::R(r)) => self.vsrc(Vs::S(Ss::R(r + k as u8)), Ty::B32, false),
            s if k == 0 => self.vsrc(s, Ty::B32, false),
            _ => [0; W],
        });
        for l in 0..W {
            if exec >> l & 1 == 0 {
                continue;
            }
            for k in 0..4 {
                let s = sad4(s0[l] >> (8 * k), s1[l], acc[k][l], true);
                let s = if v.clamp { s.min(u32::MAX as u64) } else { s & 0xffff_ffff };
                self.v[v.dst as usize + k][l] = s as u32;
            }
        }
    }
}

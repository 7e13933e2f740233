//! Buffer format conversions (`buffer_load/store_format_*`, `tbuffer_*`): the data and numeric
//! format from the instruction (MTBUF) or the V#, per component.
//!
//! Format numbers: llvm-mc 22's encodings of `format:[BUF_DATA_FORMAT_*,BUF_NUM_FORMAT_*]`
//! (gfx9: DFMT 1 = 8, 2 = 16, 3 = 8_8, 4 = 32, 5 = 16_16, 10 = 8_8_8_8, 11 = 32_32,
//! 12 = 16_16_16_16, 13 = 32_32_32, 14 = 32_32_32_32; NFMT 0 UNORM, 1 SNORM, 2 USCALED,
//! 3 SSCALED, 4 UINT, 5 SINT, 7 FLOAT) and of `format:[BUF_FMT_*]` (gfx11's unified numbers).
//! Conversions as the ISA guides define the numeric formats: UNORM x / (2^n - 1), SNORM
//! max(x / (2^(n-1) - 1), -1), SCALED the integer as a float; components the format lacks read
//! as 0 (x, y, z) and 1 (w). Packed formats (10_11_11, 2_10_10_10...) and stores of the
//! normalized and scaled formats are not modelled: an Illegal fault names them.

use super::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Num {
    Unorm,
    Snorm,
    Uscaled,
    Sscaled,
    Uint,
    Sint,
    Float,
}

/// Components, bits per component, numeric format.
#[derive(Clone, Copy, Debug)]
struct Fmt(u8, u8, Num);

const NUMS6: [Num; 6] = [Num::Unorm, Num::Snorm, Num::Uscaled, Num::Sscaled, Num::Uint, Num::Sint];
const NUMS7: [Num; 7] = [Num::Unorm, Num::Snorm, Num::Uscaled, Num::Sscaled, Num::Uint, Num::Sint, Num::Float];
const NUMS3: [Num; 3] = [Num::Uint, Num::Sint, Num::Float];

/// gfx9: DFMT | NFMT << 4.
fn gfx9_fmt(f: u8) -> Option<Fmt> {
    let (n, bits) = match f & 0xf {
        1 => (1, 8),
        2 => (1, 16),
        3 => (2, 8),
        4 => (1, 32),
        5 => (2, 16),
        10 => (4, 8),
        11 => (2, 32),
        12 => (4, 16),
        13 => (3, 32),
        14 => (4, 32),
        _ => return None,
    };
    let num = match f >> 4 {
        7 if bits >= 16 => Num::Float,
        k @ 0..=5 => NUMS6[k as usize],
        _ => return None,
    };
    Some(Fmt(n, bits, num))
}

/// gfx11's unified FORMAT.
fn gfx11_fmt(f: u8) -> Option<Fmt> {
    let k = f as usize;
    Some(match f {
        1..=6 => Fmt(1, 8, NUMS6[k - 1]),
        7..=13 => Fmt(1, 16, NUMS7[k - 7]),
        14..=19 => Fmt(2, 8, NUMS6[k - 14]),
        20..=22 => Fmt(1, 32, NUMS3[k - 20]),
        23..=29 => Fmt(2, 16, NUMS7[k - 23]),
        42..=47 => Fmt(4, 8, NUMS6[k - 42]),
        48..=50 => Fmt(2, 32, NUMS3[k - 48]),
        51..=57 => Fmt(4, 16, NUMS7[k - 51]),
        58..=60 => Fmt(3, 32, NUMS3[k - 58]),
        61..=63 => Fmt(4, 32, NUMS3[k - 61]),
        _ => return None,
    })
}

fn sext(raw: u32, bits: u8) -> i32 {
    ((raw << (32 - bits as u32)) as i32) >> (32 - bits as u32)
}

/// One component as a load returns it (32 bits: a float or an integer).
fn decode(raw: u32, bits: u8, num: Num) -> u32 {
    let max = |b: u8| ((1u64 << b) - 1) as f32;
    match num {
        Num::Unorm => (raw as f32 / max(bits)).to_bits(),
        Num::Snorm => (sext(raw, bits) as f32 / max(bits - 1)).max(-1.0).to_bits(),
        Num::Uscaled => (raw as f32).to_bits(),
        Num::Sscaled => (sext(raw, bits) as f32).to_bits(),
        Num::Uint => raw,
        Num::Sint => sext(raw, bits) as u32,
        Num::Float if bits == 16 => f16_to_f32(raw as u16).to_bits(),
        Num::Float => raw,
    }
}

impl<const W: usize> Wave<W> {
    pub(super) fn buffer_format(
        &mut self,
        ctx: &Ctx,
        b: &BufAccess,
        f: BufFmt,
        vs: &buffer::Vsharp,
        pc: u64,
    ) -> Result<(), DispatchFault> {
        let code = f.inst.unwrap_or(vs.format);
        let fmt = if b.layout == VsharpLayout::Gfx9 { gfx9_fmt(code) } else { gfx11_fmt(code) };
        let ill = |what: String| DispatchFault::Illegal { pc, what };
        let Some(Fmt(n, bits, num)) = fmt else {
            return Err(ill(format!("buffer format {code:#x}: not supported")));
        };
        let store = matches!(b.op, MemOp::Store { .. });
        if store && !matches!(num, Num::Uint | Num::Sint | Num::Float) {
            return Err(ill(format!("buffer store to a {num:?} format: not supported")));
        }
        let used = f.comps.min(n);
        let bytes = used as u64 * bits as u64 / 8;
        let soff = self.sval(b.soffset, Ty::B32) as u32 as u64;
        let vdata = self.unified(b.vdata) as usize;
        let exec = self.exec();
        let one = if matches!(num, Num::Uint | Num::Sint) { 1 } else { 1f32.to_bits() };
        for l in 0..W {
            if exec >> l & 1 == 0 {
                continue;
            }
            let (index, off) = self.buf_lane(b, vs, l);
            let va = vs.base.wrapping_add(soff).wrapping_add(vs.buffer_offset(index, off));
            let ok = vs.in_range(b.idxen, index, off, 0, bytes);
            let p = if ok {
                Some(ctx.mem.translate(va, bytes).ok_or(DispatchFault::Memory { va, write: store, pc })?)
            } else {
                None
            };
            for c in 0..f.comps as usize {
                let (reg, half) = if f.d16 { (vdata + c / 2, (c % 2 == 1) || f.hi) } else { (vdata + c, false) };
                let at = c * bits as usize / 8;
                if store {
                    let (Some(p), true) = (p, c < n as usize) else { continue };
                    let x = self.v[reg][l];
                    let x = if f.d16 { x >> (16 * half as u32) & 0xffff } else { x };
                    let raw = match (num, bits, f.d16) {
                        (Num::Float, 16, false) => f32_to_f16(f32::from_bits(x)) as u32,
                        (Num::Float, 32, true) => f16_to_f32(x as u16).to_bits(),
                        _ => x,
                    };
                    // SAFETY: `p` points at `bytes` bytes (translate), `at + bits / 8` <= bytes.
                    unsafe { put(p.add(at), raw, bits) };
                    continue;
                }
                let x = match p {
                    _ if c == 3 && c >= n as usize => one,
                    _ if c >= n as usize => 0,
                    // SAFETY: as above, for reading.
                    Some(p) => decode(unsafe { get(p.add(at), bits) }, bits, num),
                    None => 0,
                };
                if f.d16 {
                    let h = if matches!(num, Num::Uint | Num::Sint) {
                        x & 0xffff
                    } else {
                        f32_to_f16(f32::from_bits(x)) as u32
                    };
                    let d = &mut self.v[reg][l];
                    *d = if half { (*d & 0xffff) | h << 16 } else { (*d & 0xffff_0000) | h };
                } else {
                    self.v[reg][l] = x;
                }
            }
        }
        Ok(())
    }
}

/// A component of `bits` at `p`.
///
/// # Safety
/// `p` points at `bits / 8` readable bytes.
unsafe fn get(p: *mut u8, bits: u8) -> u32 {
    match bits {
        8 => p.read() as u32,
        16 => (p as *const u16).read_unaligned() as u32,
        _ => (p as *const u32).read_unaligned(),
    }
}

/// # Safety
/// `p` points at `bits / 8` writable bytes.
unsafe fn put(p: *mut u8, x: u32, bits: u8) {
    match bits {
        8 => p.write(x as u8),
        16 => (p as *mut u16).write_unaligned(x as u16),
        _ => (p as *mut u32).write_unaligned(x),
    }
}

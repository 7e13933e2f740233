//! `ds_swizzle_b32` offset modes (`swizzle(MODE, ...)`), both directions.

use crate::Arch;

/// ds_swizzle_b32's offset as llvm-mc 22 prints it (AMDGPUInstPrinter::printSwizzle), the same
/// on every architecture: FFT from 0xe000, ROTATE from 0xc000, quad-permute at 0x80xx, other
/// values with bit 15 as a decimal offset, and below 0x8000 the bitmask modes with their named
/// special cases (SWAP, REVERSE, BROADCAST). A mode whose name drops bits of the offset (FFT's
/// unused bits, a bitmask whose lanes 0 and 31 do not say it all) prints as the number, which
/// both assemblers read back whole.
pub fn text(arch: Arch, off: u32) -> String {
    let t = named(off);
    if t.starts_with("swizzle(") && parse(arch, &t) != Some(off) {
        return off.to_string();
    }
    t
}

/// The offset's llvm-mc name, whether or not it keeps every bit.
fn named(off: u32) -> String {
    if off >= 0xe000 {
        return format!("swizzle(FFT,{})", off & 0x1f);
    }
    if off >= 0xc000 {
        return format!("swizzle(ROTATE,{},{})", (off >> 10) & 1, (off >> 5) & 0x1f);
    }
    if off & 0xff00 == 0x8000 {
        let l: Vec<String> = (0..4).map(|k| ((off >> (2 * k)) & 3).to_string()).collect();
        return format!("swizzle(QUAD_PERM,{})", l.join(","));
    }
    if off & 0x8000 != 0 {
        return off.to_string();
    }
    let (and, or, xor) = (off & 0x1f, (off >> 5) & 0x1f, (off >> 10) & 0x1f);
    if and == 0x1f && or == 0 && xor.count_ones() == 1 {
        return format!("swizzle(SWAP,{xor})");
    }
    if and == 0x1f && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
        return format!("swizzle(REVERSE,{})", xor + 1);
    }
    let group = 0x20 - and;
    if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
        return format!("swizzle(BROADCAST,{group},{or})");
    }
    // BITMASK_PERM: each lane-id bit is what lanes 0 and 31 turn into (as llvm-mc derives it):
    // a constant 0/1, kept (p) or inverted (i).
    let (p0, p1) = (or ^ xor, (and | or) ^ xor);
    let bits: String = (0..5)
        .rev()
        .map(|b| match (p0 >> b & 1, p1 >> b & 1) {
            (0, 0) => '0',
            (1, 1) => '1',
            (0, _) => 'p',
            _ => 'i',
        })
        .collect();
    format!("swizzle(BITMASK_PERM,\"{bits}\")")
}

/// The offset of a `swizzle(...)` (the inverse of [`text`]); `None` if malformed.
pub fn parse(_arch: Arch, s: &str) -> Option<u32> {
    let inner = s.strip_prefix("swizzle(")?.strip_suffix(')')?;
    let mut it = inner.split(',').map(str::trim);
    let mode = it.next()?;
    let args: Vec<&str> = it.collect();
    let num = |k: usize, max: u32| -> Option<u32> {
        let v = super::int(args.get(k)?)?;
        (0..=max as i64).contains(&v).then_some(v as u32)
    };
    let bitmask = |and: u32, or: u32, xor: u32| Some(and | or << 5 | xor << 10);
    match (mode, args.len()) {
        ("QUAD_PERM", 4) => Some(0x8000 | (0..4).map(|k| num(k, 3).map(|v| v << (2 * k))).sum::<Option<u32>>()?),
        ("SWAP", 1) => num(0, 16).filter(|v| v.is_power_of_two()).and_then(|v| bitmask(0x1f, 0, v)),
        ("REVERSE", 1) => num(0, 32).filter(|v| *v >= 2 && v.is_power_of_two()).and_then(|v| bitmask(0x1f, 0, v - 1)),
        ("BROADCAST", 2) => {
            let g = num(0, 32).filter(|v| *v >= 2 && v.is_power_of_two())?;
            bitmask(32 - g, num(1, g - 1)?, 0)
        }
        ("BITMASK_PERM", 1) => {
            let m = args[0].strip_prefix('"')?.strip_suffix('"')?;
            if m.len() != 5 {
                return None;
            }
            let (mut and, mut or, mut xor) = (0, 0, 0);
            for (k, c) in m.chars().enumerate() {
                let b = 1 << (4 - k);
                match c {
                    '0' => {}
                    '1' => or |= b,
                    'p' => and |= b,
                    'i' => {
                        and |= b;
                        xor |= b
                    }
                    _ => return None,
                }
            }
            bitmask(and, or, xor)
        }
        ("FFT", 1) => Some(0xe000 | num(0, 31)?),
        ("ROTATE", 2) => Some(0xc000 | num(0, 1)? << 10 | num(1, 31)? << 5),
        _ => None,
    }
}

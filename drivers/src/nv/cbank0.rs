//! Constant bank 0 as ptxas-compiled code reads it. The driver fills its slots for each launch:
//! the block and grid sizes (SASS reads `%ntid` and `%nctaid` from bank 0, not from a special
//! register), the shared- and local-memory windows, the initial stack pointer; the kernel
//! parameters follow at `params` (`EIATTR_PARAM_CBANK`).
//!
//! The offsets of the sizes, the stack pointer and the parameters are what ptxas 13.5 emits for
//! a kernel that stores `%ntid.xyz`, `%nctaid.xyz` (`LDC R5, c[0x0][RZ]` on sm_90,
//! `c[0x0][0x360]` on sm_100/sm_120) and its first parameter; the window slots are tinygrad's
//! values ([3rd-party]). An H200 ran a vector add wrong with the sizes left out.

/// Byte offsets in bank 0 for one generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bank0 {
    /// `%ntid.x`, `.y`, `.z`: three u32.
    pub ntid: usize,
    /// `%nctaid.x`, `.y`, `.z`: three u32.
    pub nctaid: usize,
    /// The shared-memory window, then the local-memory window: two u64.
    pub windows: usize,
    /// The initial stack pointer: one u32.
    pub stack: usize,
    /// Where the kernel parameters start.
    pub params: usize,
}

/// Bank 0's layout on `sm_XY`.
pub const fn bank0(sm: u32) -> Bank0 {
    match sm {
        0..=89 => Bank0 { ntid: 0, nctaid: 0xc, windows: 0x18, stack: 0x28, params: 0x160 },
        90..=99 => Bank0 { ntid: 0, nctaid: 0xc, windows: 0x18, stack: 0x28, params: 0x210 },
        _ => Bank0 { ntid: 0x360, nctaid: 0x370, windows: 0x2f0, stack: 0x37c, params: 0x380 },
    }
}

/// Writes a launch's block and grid sizes into `cb0` at their slots for `sm_XY`. Slots past
/// the end of `cb0` or inside the parameter block are left alone.
pub fn put_launch_sizes(cb0: &mut [u8], sm: u32, block: [u32; 3], grid: [u32; 3]) {
    let l = bank0(sm);
    for (at, dims) in [(l.ntid, block), (l.nctaid, grid)] {
        for (i, d) in dims.iter().enumerate() {
            let o = at + 4 * i;
            if o + 4 <= l.params {
                if let Some(slot) = cb0.get_mut(o..o + 4) {
                    slot.copy_from_slice(&d.to_le_bytes());
                }
            }
        }
    }
}

/// The block and grid sizes a kernel reads from `cb0` on `sm_XY`, if bank 0 holds them.
pub fn launch_sizes(cb0: &[u8], sm: u32) -> Option<([u32; 3], [u32; 3])> {
    let l = bank0(sm);
    let read = |at: usize| -> Option<[u32; 3]> {
        let mut v = [0u32; 3];
        for (i, d) in v.iter_mut().enumerate() {
            let b = cb0.get(at + 4 * i..at + 4 * i + 4)?;
            *d = u32::from_le_bytes(b.try_into().ok()?);
        }
        Some(v)
    };
    Some((read(l.ntid)?, read(l.nctaid)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_trip_below_the_parameters_on_every_generation() {
        for sm in [80, 89, 90, 100, 120] {
            let l = bank0(sm);
            assert!(l.ntid + 12 <= l.params && l.nctaid + 12 <= l.params && l.stack + 4 <= l.params, "sm_{sm}");
            let mut cb0 = vec![0u8; l.params + 16];
            put_launch_sizes(&mut cb0, sm, [128, 2, 1], [8, 3, 4]);
            assert_eq!(launch_sizes(&cb0, sm), Some(([128, 2, 1], [8, 3, 4])), "sm_{sm}");
            assert!(cb0[l.params..].iter().all(|&b| b == 0), "sm_{sm}: the parameters untouched");
        }
        // A bank too short to hold the sizes has none to read.
        assert_eq!(launch_sizes(&[0; 8], 90), None);
    }
}

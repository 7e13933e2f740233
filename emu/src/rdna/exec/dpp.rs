//! DPP: moving src0 between lanes before a VALU operation.

use super::*;

impl<const W: usize> Wave<W> {
    /// DPP: permute src0 across lanes; returns the lanes that may be written.
    pub(super) fn dpp(&self, dpp: Dpp, a: &mut [u64; W], exec: u64) -> u64 {
        let orig = *a;
        let mut wm = exec;
        match dpp {
            Dpp::None => {}
            Dpp::D8 { sel, .. } => {
                for l in 0..W {
                    let k = (sel >> (3 * (l % 8))) & 7;
                    a[l] = orig[(l & !7) + k as usize];
                }
            }
            Dpp::D16 { ctrl, row_mask, bank_mask, bound_ctrl, fi } => {
                for l in 0..W {
                    let row = l / 16;
                    let bank = (l % 16) / 4;
                    if row_mask >> (row & 3) & 1 == 0 || bank_mask >> bank & 1 == 0 {
                        wm &= !(1u64 << l);
                        continue;
                    }
                    let base = l & !15;
                    let li = (l % 16) as i32;
                    let c = ctrl as i32;
                    let src: Option<usize> = match c {
                        0..=0xff => Some((l & !3) + ((c >> (2 * (l % 4))) & 3) as usize),
                        0x101..=0x10f => {
                            let s = li + (c - 0x100);
                            (s < 16).then(|| base + s as usize)
                        }
                        0x111..=0x11f => {
                            let s = li - (c - 0x110);
                            (s >= 0).then(|| base + s as usize)
                        }
                        0x121..=0x12f => Some(base + ((li - (c - 0x120)).rem_euclid(16)) as usize),
                        // gfx9 only (reserved on gfx10+): whole-wave shifts and rotates by one,
                        // and the row broadcasts of lane 15 / lane 31.
                        0x130 => Some(l + 1),
                        0x134 => Some((l + 1) % W),
                        0x138 => l.checked_sub(1),
                        0x13c => Some((l + W - 1) % W),
                        0x142 => (row >= 1).then(|| (row - 1) * 16 + 15),
                        0x143 => (row >= 2).then_some(31),
                        0x140 => Some(base + (15 - li) as usize),
                        0x141 => Some((l & !7) + (7 - (l % 8))),
                        0x150..=0x15f => Some(base + (c - 0x150) as usize),
                        0x160..=0x16f => Some(base + ((li ^ (c - 0x160)) as usize)),
                        _ => None,
                    };
                    match src {
                        Some(s) if s < W && (fi || exec >> s & 1 != 0) => a[l] = orig[s],
                        _ => {
                            if bound_ctrl {
                                a[l] = 0;
                            } else {
                                wm &= !(1u64 << l);
                            }
                        }
                    }
                }
            }
        }
        wm
    }
}

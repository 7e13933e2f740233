//! `Geom::slot` (element → register) and `Geom::lane`/`Geom::k_of` (register → element, what
//! the execution walks) are inverses for every operand geometry of both tables.

use crate::rdna::mfma::{Fmt, Variant};
use baregpu_isa::Arch;

#[test]
fn slot_inverts_lane_and_k_for_every_operand() {
    let mut n = 0;
    for arch in [Arch::Gfx942, Arch::Gfx950] {
        for mnemonic in baregpu_isa::tables::Tables::get(arch).by_mnemonic.keys() {
            let Some(v) = Variant::parse(arch, mnemonic) else { continue };
            let formats: &[Fmt] = if v.f8f6f4 { &[Fmt::Fp8, Fmt::Fp6, Fmt::Fp4] } else { &[v.a] };
            for &f in formats {
                for g in [v.a_geom(f), v.b_geom(f)] {
                    for b in 0..g.blocks as usize {
                        for i in 0..g.m as usize {
                            for grp in 0..g.groups() {
                                for e in 0..g.per_lane() {
                                    let k = g.k_of(grp, e);
                                    assert!(k < g.k as usize, "{mnemonic} {f:?}: k {k}");
                                    assert_eq!(
                                        g.slot(b, i, k),
                                        (g.lane(b, i, grp), e),
                                        "{mnemonic} {f:?} {b} {i} {grp} {e}"
                                    );
                                    n += 1;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(n > 100_000, "{n} elements");
}

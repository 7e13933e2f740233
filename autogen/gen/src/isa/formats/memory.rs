//! The vector memory formats: DS, FLAT/GLOBAL/SCRATCH and the buffer formats.

use super::*;

/// Appends the LDS, flat and buffer formats.
pub(super) fn push(fam: Family, v: &mut Vec<Fmt>) {
    let gfx9 = fam == Family::Gfx9;
    // LDS/GDS.
    let mut ds = vec![f("offset0", 0, 7, Role::Offset), f("offset1", 8, 15, Role::Offset)];
    match fam {
        Family::Gfx9 => ds.extend([f("gds", 16, 16, Role::Mod), f("acc", 25, 25, Role::Mod)]),
        Family::Gfx11 => ds.push(f("gds", 17, 17, Role::Mod)),
        Family::Gfx12 => {}
    }
    ds.extend([
        f("addr", 32, 39, Role::Vgpr),
        f("data0", 40, 47, Role::Vgpr),
        f("data1", 48, 55, Role::Vgpr),
        f("vdst", 56, 63, Role::Vgpr),
    ]);
    let ds_lds = vec![("addr", 8), ("data0", 24), ("data1", 40), ("vdst", 56)];
    let mut ds_templates = vec![ds_lds.clone()];
    if fam != Family::Gfx12 {
        // The GWS and ordered-count operations (ds_gws_init, ds_ordered_count...) decode only
        // with the gds bit set; tried after the LDS form so the others keep gds clear.
        let mut gds = ds_lds;
        gds.push(("gds", 1));
        ds_templates.push(gds);
    }
    v.push(fmt(
        "DS",
        64,
        (0xFC00_0000, 0xD800_0000),
        Some(if gfx9 { (17, 24) } else { (18, 25) }),
        ds,
        ds_templates,
        false,
    ));

    // FLAT / GLOBAL / SCRATCH.
    let segs = [("FLAT", 0u32), ("SCRATCH", 1), ("GLOBAL", 2)];
    match fam {
        Family::Gfx9 | Family::Gfx11 => {
            for (name, seg) in segs {
                let (mask, value, fields) = if gfx9 {
                    (
                        0xFC00_C000,
                        0xDC00_0000 | (seg << 14),
                        vec![
                            f("offset", 0, 12, Role::Offset),
                            f("sve", 13, 13, Role::Mod),
                            f("seg", 14, 15, Role::Fixed),
                            f("sc0", 16, 16, Role::Mod),
                            f("nt", 17, 17, Role::Mod),
                            f("sc1", 25, 25, Role::Mod),
                            f("addr", 32, 39, Role::Vgpr),
                            f("data", 40, 47, Role::Vgpr),
                            f("saddr", 48, 54, Role::Sgpr),
                            f("acc", 55, 55, Role::Mod),
                            f("vdst", 56, 63, Role::Vgpr),
                        ],
                    )
                } else {
                    (
                        0xFC03_0000,
                        0xDC00_0000 | (seg << 16),
                        vec![
                            f("offset", 0, 12, Role::Offset),
                            f("dlc", 13, 13, Role::Mod),
                            f("glc", 14, 14, Role::Mod),
                            f("slc", 15, 15, Role::Mod),
                            f("seg", 16, 17, Role::Fixed),
                            f("addr", 32, 39, Role::Vgpr),
                            f("data", 40, 47, Role::Vgpr),
                            f("saddr", 48, 54, Role::Sgpr),
                            f("sve", 55, 55, Role::Mod),
                            f("vdst", 56, 63, Role::Vgpr),
                        ],
                    )
                };
                let off = if gfx9 { 0x7F } else { 0x7C };
                let base = vec![("seg", seg as u64), ("addr", 8), ("data", 24), ("vdst", 56)];
                let with = |s: u64, sve: u64| {
                    let mut t = base.clone();
                    t.push(("saddr", s));
                    if sve == 1 {
                        t.push(("sve", 1));
                    }
                    t
                };
                let templates = if seg == 0 {
                    // gfx9 plain FLAT has no SGPR address: its saddr bits must be 0.
                    vec![with(if gfx9 { 0 } else { off }, 0)]
                } else {
                    vec![with(16, 1), with(off, 1), with(16, 0), with(off, 0)]
                };
                v.push(fmt(name, 64, (mask, value), Some((18, 24)), fields, templates, false));
            }
        }
        Family::Gfx12 => {
            for (name, seg) in segs {
                let value = match seg {
                    0 => 0xEC00_0000,
                    1 => 0xED00_0000,
                    _ => 0xEE00_0000,
                };
                let fields = vec![
                    f("saddr", 0, 6, Role::Sgpr),
                    f("vdst", 32, 39, Role::Vgpr),
                    f("sve", 49, 49, Role::Mod),
                    f("scope_th", 50, 54, Role::Mod),
                    f("vsrc", 55, 62, Role::Vgpr),
                    f("vaddr", 64, 71, Role::Vgpr),
                    f("offset", 72, 95, Role::Offset),
                ];
                let base = vec![("vaddr", 8u64), ("vsrc", 24), ("vdst", 56)];
                let with = |s: u64, sve: u64| {
                    let mut t = base.clone();
                    t.push(("saddr", s));
                    if sve == 1 {
                        t.push(("sve", 1));
                    }
                    t
                };
                let templates = if seg == 0 {
                    vec![with(0x7C, 0)]
                } else {
                    vec![with(16, 1), with(0x7C, 1), with(16, 0), with(0x7C, 0)]
                };
                v.push(fmt(name, 96, (0xFF00_0000, value), Some((14, 20)), fields, templates, false));
            }
        }
    }

    // Buffers.
    match fam {
        Family::Gfx9 => {
            let tail = || {
                vec![
                    f("vaddr", 32, 39, Role::Vgpr),
                    f("vdata", 40, 47, Role::Vgpr),
                    f("srsrc", 48, 52, Role::SgprX4),
                    f("acc", 55, 55, Role::Mod),
                    f("soffset", 56, 63, Role::SSrc),
                ]
            };
            let t = vec![("vaddr", 8u64), ("vdata", 24), ("srsrc", 4), ("soffset", 40), ("offen", 1)];
            let mut mubuf = vec![
                f("offset", 0, 11, Role::Offset),
                f("offen", 12, 12, Role::Mod),
                f("idxen", 13, 13, Role::Mod),
                f("sc0", 14, 14, Role::Mod),
                f("sc1", 15, 15, Role::Mod),
                f("lds", 16, 16, Role::Mod),
                f("nt", 17, 17, Role::Mod),
            ];
            mubuf.extend(tail());
            // Cache maintenance (buffer_wbl2, buffer_inv...) decodes only with unused fields at 0.
            v.push(fmt("MUBUF", 64, (0xFC00_0000, 0xE000_0000), Some((18, 24)), mubuf, vec![t.clone(), vec![]], false));
            let mut mtbuf = vec![
                f("offset", 0, 11, Role::Offset),
                f("offen", 12, 12, Role::Mod),
                f("idxen", 13, 13, Role::Mod),
                f("sc0", 14, 14, Role::Mod),
                f("dfmt", 19, 22, Role::Mod),
                f("nfmt", 23, 25, Role::Mod),
                f("sc1", 53, 53, Role::Mod),
                f("nt", 54, 54, Role::Mod),
            ];
            mtbuf.extend(tail());
            let mut tt = t;
            tt.extend([("dfmt", 4), ("nfmt", 7)]);
            v.push(fmt("MTBUF", 64, (0xFC00_0000, 0xE800_0000), Some((15, 18)), mtbuf, vec![tt], false));
        }
        Family::Gfx11 => {
            let tail = || {
                vec![
                    f("vaddr", 32, 39, Role::Vgpr),
                    f("vdata", 40, 47, Role::Vgpr),
                    f("srsrc", 48, 52, Role::SgprX4),
                    f("tfe", 53, 53, Role::Mod),
                    f("offen", 54, 54, Role::Mod),
                    f("idxen", 55, 55, Role::Mod),
                    f("soffset", 56, 63, Role::SSrc),
                ]
            };
            let t = vec![("vaddr", 8u64), ("vdata", 24), ("srsrc", 4), ("soffset", 40), ("offen", 1)];
            let mut mubuf = vec![
                f("offset", 0, 11, Role::Offset),
                f("slc", 12, 12, Role::Mod),
                f("dlc", 13, 13, Role::Mod),
                f("glc", 14, 14, Role::Mod),
                f("lds", 16, 16, Role::Mod),
            ];
            mubuf.extend(tail());
            // buffer_gl0_inv / buffer_gl1_inv take no operands and llvm-mc wants their fields zero.
            let templates = vec![t.clone(), Vec::new()];
            v.push(fmt("MUBUF", 64, (0xFC00_0000, 0xE000_0000), Some((18, 25)), mubuf, templates, false));
            let mut mtbuf = vec![
                f("offset", 0, 11, Role::Offset),
                f("slc", 12, 12, Role::Mod),
                f("dlc", 13, 13, Role::Mod),
                f("glc", 14, 14, Role::Mod),
                f("format", 19, 25, Role::Mod),
            ];
            mtbuf.extend(tail());
            let mut tt = t;
            tt.push(("format", 1));
            v.push(fmt("MTBUF", 64, (0xFC00_0000, 0xE800_0000), Some((15, 18)), mtbuf, vec![tt], false));
        }
        Family::Gfx12 => {
            let fields = || {
                vec![
                    f("soffset", 0, 6, Role::Sgpr),
                    f("vdata", 32, 39, Role::Vgpr),
                    f("rsrc", 41, 49, Role::Sgpr),
                    f("scope_th", 50, 54, Role::Mod),
                    f("tfe", 22, 22, Role::Mod),
                    f("format", 55, 61, Role::Mod),
                    f("offen", 62, 62, Role::Mod),
                    f("idxen", 63, 63, Role::Mod),
                    f("vaddr", 64, 71, Role::Vgpr),
                    f("offset", 72, 95, Role::Offset),
                ]
            };
            let t = vec![("vaddr", 8u64), ("vdata", 24), ("rsrc", 16), ("soffset", 40), ("offen", 1), ("format", 1)];
            // gfx12 VBUFFER: buffer_* and tbuffer_* share one opcode space (tbuffer at 0x80..).
            v.push(fmt("VBUFFER", 96, (0xFF80_0000, 0xC400_0000), Some((14, 21)), fields(), vec![t], false));
        }
    }
}

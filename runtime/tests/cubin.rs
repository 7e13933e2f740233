//! The cubin loader against real ptxas output: tests/fixtures/cubin/*.cubin, built from
//! tests/kernels/nv_vadd.ptx and nv_reduce.ptx by tests/fixtures/cubin/build.sh (ptxas 13.5.37
//! from the nvidia-cuda-nvcc wheel) for sm_89, sm_90 and sm_120.
//!
//! With `PTXAS` set, the PTX is compiled again and loaded too; with `CUOBJDUMP` set, the attribute
//! names are compared with what NVIDIA's cuobjdump prints for the same records.

use baregpu_runtime::program::cubin::{self, Cubin, R_CUDA_64};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn fixture(name: &str) -> Vec<u8> {
    let p = root().join("tests/fixtures/cubin").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

const ARCHS: [(&str, u32); 3] = [("sm_89", 89), ("sm_90", 90), ("sm_120", 120)];

/// The `.param` list of every `.entry` in a PTX file: (kernel, [(size, align)]).
fn ptx_params(ptx: &str) -> Vec<(String, Vec<(u32, u32)>)> {
    let mut out: Vec<(String, Vec<(u32, u32)>)> = Vec::new();
    let mut in_params = false;
    for line in ptx.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix(".visible .entry ") {
            out.push((rest.trim_end_matches('(').to_string(), Vec::new()));
            in_params = true;
        } else if in_params && line.starts_with(".param ") {
            let ty = line.split_whitespace().nth(1).unwrap();
            let size = match &ty[2..] {
                "8" => 1,
                "16" => 2,
                "32" => 4,
                "64" => 8,
                t => panic!("PTX type {t}"),
            };
            out.last_mut().unwrap().1.push((size, size));
        } else if line.starts_with(')') {
            in_params = false;
        }
    }
    out
}

/// Offsets of a parameter list laid out at natural alignment, as the CUDA ABI does.
fn layout(params: &[(u32, u32)]) -> (Vec<u32>, u32) {
    let mut off = 0u32;
    let mut offs = vec![];
    for &(size, align) in params {
        off = off.div_ceil(align) * align;
        offs.push(off);
        off += size;
    }
    (offs, off)
}

fn check_against_ptx(c: &Cubin, ptx_file: &str, sm: u32) {
    let ptx = std::fs::read_to_string(root().join("tests/kernels").join(ptx_file)).unwrap();
    let entries = ptx_params(&ptx);
    assert!(!entries.is_empty());
    assert_eq!(c.kernels.len(), entries.len(), "{ptx_file} sm_{sm}: kernels");
    for (name, params) in entries {
        let k = c.kernel(&name).unwrap();
        let (offsets, size) = layout(&params);
        assert_eq!(k.params.len(), params.len(), "{name}: parameter count");
        for (i, p) in k.params.iter().enumerate() {
            assert_eq!(p.ordinal as usize, i);
            assert_eq!(p.offset as u32, offsets[i], "{name} sm_{sm}: parameter {i} offset");
            assert_eq!(p.size as u32, params[i].0, "{name} sm_{sm}: parameter {i} size");
        }
        assert_eq!(k.param_size, size, "{name} sm_{sm}: EIATTR_PARAM_CBANK size");
        assert_eq!(k.param_base, cubin::cb0_param_base(sm), "{name} sm_{sm}: parameter base in bank 0");
        assert_eq!(k.cb0_size, k.param_base + k.param_size, "{name} sm_{sm}: .nv.constant0 size");
        assert!((4..=255).contains(&k.registers), "{name} sm_{sm}: {} registers", k.registers);
        assert!(k.text_size > 0 && k.text_size.is_multiple_of(128));
        assert_eq!(k.text_offset % cubin::SECTION_ALIGN, 0);
        assert_eq!(k.cb0_offset % cubin::SECTION_ALIGN, 0);
        assert!(!k.exit_offsets.is_empty());
        for &e in &k.exit_offsets {
            assert!((e as u64) < k.text_size && e.is_multiple_of(16), "{name}: exit at {e:#x}");
        }
        assert_eq!(k.min_stack_size, 0);
        assert_eq!(k.frame_size, 0);
    }
}

#[test]
fn vadd_two_kernels_per_cubin() {
    for (arch, sm) in ARCHS {
        let c = Cubin::parse(&fixture(&format!("nv_vadd.{arch}.cubin"))).unwrap();
        assert_eq!(c.sm, sm);
        assert_eq!(c.abi_version, 8);
        check_against_ptx(&c, "nv_vadd.ptx", sm);
        let names: Vec<&str> = c.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["scale", "vadd"]);
        let scale = c.kernel("scale").unwrap();
        // u64, u8, f64, u32: the f64 is aligned to 8 after the u8.
        let offsets: Vec<u16> = scale.params.iter().map(|p| p.offset).collect();
        assert_eq!(offsets, [0, 8, 16, 24]);
        assert_eq!(scale.param_size, 0x1c);
        for k in &c.kernels {
            assert_eq!(k.shared_size, 0);
            assert_eq!(k.barriers, 0);
        }
        assert!(c.relocs.is_empty(), "{arch}: no relocations in vadd");
        assert!(c.kernel("nope").unwrap_err().contains("scale, vadd"));
    }
}

#[test]
fn reduce_shared_memory_barriers_and_relocations() {
    for (arch, sm) in ARCHS {
        let c = Cubin::parse(&fixture(&format!("nv_reduce.{arch}.cubin"))).unwrap();
        check_against_ptx(&c, "nv_reduce.ptx", sm);
        let k = c.kernel("reduce_sum").unwrap();
        // 256 u32 of static shared memory (ptxas 13.5 reports 0x400 on sm_89, 0x800 on sm_90/120).
        assert!(k.shared_size >= 256 * 4, "{arch}: shared {:#x}", k.shared_size);
        if sm == 89 {
            assert_eq!(k.shared_size, 0x400);
        }
        assert_eq!(k.barriers, 1, "{arch}: bar.sync 0 is one barrier");
        // .const weights -> bank 3; the address of .global blocks_done -> bank 4, relocated.
        let banks: Vec<u8> = c.constant_banks.iter().map(|b| b.0).collect();
        assert!(banks.contains(&3) && banks.contains(&4), "{arch}: banks {banks:?}");
        let c3 = c.section(".nv.constant3").unwrap();
        let w: Vec<u32> = c.image[c3.offset as usize..c3.offset as usize + 16]
            .chunks(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(w, [1, 2, 3, 4]);
        let global = c.section(".nv.global").unwrap();
        assert_eq!(global.size, 4);
        let c4 = c.section(".nv.constant4").unwrap();
        assert_eq!(c.relocs.len(), 1, "{arch}: {:?}", c.relocs);
        let r = c.relocs[0];
        assert_eq!((r.kind, r.offset, r.symbol), (R_CUDA_64, c4.offset, global.offset));
        let base = 0x7f12_3400_0000u64;
        let img = c.relocated(base);
        let at = c4.offset as usize;
        assert_eq!(u64::from_le_bytes(img[at..at + 8].try_into().unwrap()), base + global.offset);
        assert_eq!(img.len(), c.image.len());
    }
}

#[test]
fn constant_bank0_places_parameters() {
    let c = Cubin::parse(&fixture("nv_vadd.sm_90.cubin")).unwrap();
    let k = c.kernel("vadd").unwrap();
    let mut args = Vec::new();
    for v in [0x1000u64, 0x2000, 0x3000] {
        args.extend_from_slice(&v.to_le_bytes());
    }
    args.extend_from_slice(&77u32.to_le_bytes());
    let cb0 = c.constant_bank0(k, &args).unwrap();
    assert_eq!(cb0.len(), 0x210 + 0x1c);
    assert_eq!(&cb0[0x210..], &args[..]);
    assert!(c.constant_bank0(k, &args[..8]).unwrap_err().contains("28 bytes"));
}

#[test]
fn attributes_decode_and_are_named() {
    let c = Cubin::parse(&fixture("nv_reduce.sm_90.cubin")).unwrap();
    let k = c.kernel("reduce_sum").unwrap();
    let names: Vec<&str> = k.attributes.iter().filter_map(|a| a.name()).collect();
    for want in ["EIATTR_KPARAM_INFO", "EIATTR_PARAM_CBANK", "EIATTR_CBANK_PARAM_SIZE", "EIATTR_EXIT_INSTR_OFFSETS"] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    let globals: Vec<&str> = c.attributes.iter().filter_map(|a| a.name()).collect();
    assert_eq!(globals, ["EIATTR_REGCOUNT", "EIATTR_FRAME_SIZE", "EIATTR_MIN_STACK_SIZE"]);
    assert_eq!(cubin::eiattr_name(0x2f), Some("EIATTR_REGCOUNT"));
    assert_eq!(cubin::eiattr_name(0x4c), Some("EIATTR_NUM_BARRIERS"));
    assert_eq!(cubin::eiattr_name(0x2a), None);
    assert_eq!(cubin::eiattr_name(0xff), None);
    // The TLV stream: truncated headers, payloads past the end and unknown formats are errors.
    assert!(cubin::parse_attributes(&[4, 0x0a, 8, 0, 1, 2]).unwrap_err().contains("run past"));
    assert!(cubin::parse_attributes(&[3, 0x19]).unwrap_err().contains("truncated"));
    assert!(cubin::parse_attributes(&[9, 0x19, 0, 0]).unwrap_err().contains("format 9"));
    let a = cubin::parse_attributes(&[3, 0x19, 0x1c, 0, 2, 0x4c, 1, 0]).unwrap();
    assert_eq!((a[0].code, a[0].value, a[1].code, a[1].value), (0x19, 0x1c, 0x4c, 1));
}

#[test]
fn bad_cubins_are_errors_not_panics() {
    assert!(Cubin::parse(b"").is_err());
    assert!(Cubin::parse(b"\x7fELF not really").is_err());
    let good = fixture("nv_reduce.sm_90.cubin");
    // Not EM_CUDA.
    let mut wrong = good.clone();
    wrong[18] = 62;
    assert!(Cubin::parse(&wrong).unwrap_err().contains("not a cubin"));
    // Every truncation.
    for len in 0..good.len() {
        let _ = Cubin::parse(&good[..len]);
    }
    // Byte corruption all over the file (a fixed pseudo-random sequence).
    let mut x = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..3000 {
        let mut bad = good.clone();
        for _ in 0..4 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let at = (x % bad.len() as u64) as usize;
            bad[at] = (x >> 32) as u8;
        }
        if let Ok(c) = Cubin::parse(&bad) {
            let _ = c.relocated(0x1000_0000);
            for k in &c.kernels {
                let _ = c.constant_bank0(k, &vec![0; k.param_size as usize]);
            }
        }
    }
    // An AMD code object is refused.
    let amd = std::fs::read(root().join("tests/fixtures/codeobj/gfx1100.hsaco"));
    if let Ok(amd) = amd {
        assert!(Cubin::parse(&amd).is_err());
    }
}

/// With PTXAS set: compile the PTX again and load the result.
#[test]
fn ptxas_oracle() {
    let Some(ptxas) = std::env::var_os("PTXAS") else {
        eprintln!("skipped: set PTXAS to a ptxas binary to recompile tests/kernels/nv_*.ptx");
        return;
    };
    let dir = std::env::temp_dir().join(format!("baregpu-cubin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (arch, sm) in ARCHS {
        for k in ["nv_vadd", "nv_reduce"] {
            let out = dir.join(format!("{k}.{arch}.cubin"));
            let st = std::process::Command::new(&ptxas)
                .arg(format!("-arch={arch}"))
                .arg("-O3")
                .arg(root().join(format!("tests/kernels/{k}.ptx")))
                .arg("-o")
                .arg(&out)
                .status()
                .unwrap();
            if !st.success() {
                eprintln!("ptxas does not take {arch}; skipped");
                continue;
            }
            let c = Cubin::parse(&std::fs::read(&out).unwrap()).unwrap();
            check_against_ptx(&c, &format!("{k}.ptx"), sm);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// With CUOBJDUMP set: attribute names in .nv.info* agree with `cuobjdump -elf`.
#[test]
fn cuobjdump_oracle() {
    let Some(tool) = std::env::var_os("CUOBJDUMP") else {
        eprintln!("skipped: set CUOBJDUMP to a cuobjdump binary to compare attribute names");
        return;
    };
    for (arch, _) in ARCHS {
        for k in ["nv_vadd", "nv_reduce"] {
            let path = root().join(format!("tests/fixtures/cubin/{k}.{arch}.cubin"));
            let out = std::process::Command::new(&tool).arg("-elf").arg(&path).output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            let c = Cubin::parse(&std::fs::read(&path).unwrap()).unwrap();
            // Sections are printed as a line with the name, then "<0xN>", "Attribute:\tNAME" ...
            let mut current = String::new();
            let mut theirs: std::collections::HashMap<String, Vec<String>> = Default::default();
            for line in text.lines() {
                if line.starts_with(".nv.") {
                    current = line.trim().to_string();
                } else if let Some(n) = line.trim().strip_prefix("Attribute:") {
                    theirs.entry(current.clone()).or_default().push(n.trim().to_string());
                }
            }
            let name = |a: &cubin::Attribute| a.name().unwrap_or("unknown Attribute").to_string();
            let ours: Vec<String> = c.attributes.iter().map(name).collect();
            assert_eq!(theirs.get(".nv.info"), Some(&ours), "{k}.{arch} .nv.info");
            for kernel in &c.kernels {
                let ours: Vec<String> = kernel.attributes.iter().map(name).collect();
                assert_eq!(theirs.get(&format!(".nv.info.{}", kernel.name)), Some(&ours), "{k}.{arch} {}", kernel.name);
            }
        }
    }
}

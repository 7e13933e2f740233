//! The code-object loader on clang 22-built objects (tests/fixtures/hsaco, rebuilt by its
//! build.sh): several kernels per object, metadata, descriptors, kernel arguments; and bad files.

use baregpu_runtime::program::kernargs::build;
use baregpu_runtime::program::{ArgKind, ArgValue, CodeObject, HiddenArg, Launch};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hsaco").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn every_arch_loads_with_all_its_kernels() {
    for (file, arch, version, wave) in [
        ("basic-gfx1100.hsaco", "gfx1100", 6, 32),
        ("basic-gfx1100-cov5.hsaco", "gfx1100", 5, 32),
        ("basic-gfx1201.hsaco", "gfx1201", 6, 32),
        ("basic-gfx942.hsaco", "gfx942", 6, 64),
        ("basic-gfx950.hsaco", "gfx950", 6, 64),
    ] {
        let co = CodeObject::parse(&fixture(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!((co.arch.as_str(), co.version), (arch, version), "{file}");
        assert!(co.target.contains(arch), "{file}: target {}", co.target);
        let mut names: Vec<&str> = co.kernels.iter().map(|k| k.name.as_str()).collect();
        names.sort();
        assert_eq!(names, ["block_reverse", "fill2d", "saxpy", "scalars", "vector_add"], "{file}");
        for k in &co.kernels {
            assert_eq!(k.meta.wavefront_size, wave, "{file} {}", k.name);
            // The descriptor and the metadata agree on what both record.
            assert_eq!(k.descriptor.kernarg_size, k.meta.kernarg_segment_size, "{file} {}", k.name);
            assert_eq!(k.descriptor.group_segment_fixed_size, k.meta.group_segment_fixed_size, "{file} {}", k.name);
            assert_eq!(k.entry_offset % 256, 0);
            // The entry is code: not inside the descriptor table.
            assert!(k.entry_offset >= k.descriptor_offset + 64 || k.entry_offset + 256 <= k.descriptor_offset);
        }
        let br = co.kernel("block_reverse").unwrap();
        assert_eq!(br.meta.group_segment_fixed_size, 256, "{file}: 64 ints of LDS");
    }
}

#[test]
fn gfx1100_layout_matches_the_symbol_table() {
    // From `llvm-readelf-22 -s basic-gfx1100.hsaco`: vector_add at 0x2e00, vector_add.kd at 0x1c00.
    let co = CodeObject::parse(&fixture("basic-gfx1100.hsaco")).unwrap();
    let va = co.kernel("vector_add").unwrap();
    assert_eq!((va.descriptor_offset, va.entry_offset), (0x1c00, 0x2e00));
    assert_eq!(va.descriptor.kernel_code_entry_byte_offset, 0x1200);
    let err = co.kernel("nope").unwrap_err();
    assert!(err.contains("no kernel `nope`") && err.contains("vector_add"), "{err}");
}

#[test]
fn metadata_describes_arguments() {
    let co = CodeObject::parse(&fixture("basic-gfx1100.hsaco")).unwrap();
    let k = &co.kernel("scalars").unwrap().meta;
    let explicit: Vec<(u32, u32, &ArgKind)> =
        k.args.iter().filter(|a| a.is_explicit()).map(|a| (a.offset, a.size, &a.kind)).collect();
    assert_eq!(
        explicit,
        [
            (0, 8, &ArgKind::GlobalBuffer),
            (8, 1, &ArgKind::ByValue),
            (10, 2, &ArgKind::ByValue),
            (12, 4, &ArgKind::ByValue),
            (16, 8, &ArgKind::ByValue),
            (24, 4, &ArgKind::ByValue),
            (32, 8, &ArgKind::ByValue),
        ]
    );
    // clang omits the implicit arguments of a kernel that reads no work-item geometry.
    assert!(k.args.iter().all(|a| a.is_explicit()));
    let va = &co.kernel("vector_add").unwrap().meta;
    assert!(va.args.iter().any(|a| a.kind == ArgKind::Hidden(HiddenArg::GroupSize(2)) && a.offset == 48));
}

#[test]
fn kernargs_fill_explicit_and_hidden_arguments() {
    let co = CodeObject::parse(&fixture("basic-gfx1100.hsaco")).unwrap();
    let k = &co.kernel("vector_add").unwrap().meta;
    let launch = Launch::new([4, 1, 1], [64, 1, 1]);
    let args = [ArgValue::Pointer(0x1000), ArgValue::Pointer(0x2000), ArgValue::Pointer(0x3000), ArgValue::u32(256)];
    let buf = build(k, &args, &launch).unwrap();
    assert_eq!(buf.len(), 288);
    let u64_at = |o: usize| u64::from_le_bytes(buf[o..o + 8].try_into().unwrap());
    let u32_at = |o: usize| u32::from_le_bytes(buf[o..o + 4].try_into().unwrap());
    let u16_at = |o: usize| u16::from_le_bytes(buf[o..o + 2].try_into().unwrap());
    assert_eq!((u64_at(0), u64_at(8), u64_at(16), u32_at(24)), (0x1000, 0x2000, 0x3000, 256));
    // Offsets from the metadata note (llvm-readelf --notes): block counts at 32, group sizes at
    // 44, remainders at 50, grid dims at 96.
    assert_eq!((u32_at(32), u32_at(36), u32_at(40)), (4, 1, 1));
    assert_eq!((u16_at(44), u16_at(46), u16_at(48)), (64, 1, 1));
    assert_eq!((u16_at(50), u16_at(52), u16_at(54)), (0, 0, 0));
    assert_eq!(u16_at(96), 1);
    let two_d = build(k, &args, &Launch::new([4, 3, 1], [8, 8, 1])).unwrap();
    assert_eq!(u16::from_le_bytes(two_d[96..98].try_into().unwrap()), 2);
}

#[test]
fn kernarg_mismatches_name_the_argument() {
    let co = CodeObject::parse(&fixture("basic-gfx1100.hsaco")).unwrap();
    let k = &co.kernel("vector_add").unwrap().meta;
    let launch = Launch::new([1, 1, 1], [1, 1, 1]);
    let fail = |a: &[ArgValue]| build(k, a, &launch).unwrap_err();
    assert_eq!(fail(&[ArgValue::Pointer(0)]), "kernel `vector_add` takes 4 arguments, 1 given");
    let e = fail(&[ArgValue::Pointer(0), ArgValue::u32(1), ArgValue::Pointer(0), ArgValue::u32(1)]);
    assert_eq!(e, "kernel `vector_add`: argument 1 wants a buffer, a 4-byte value given");
    let e = fail(&[ArgValue::Pointer(0), ArgValue::Pointer(0), ArgValue::Pointer(0), ArgValue::u64(1)]);
    assert_eq!(e, "kernel `vector_add`: argument 3 wants a 4-byte value (uint), a 8-byte value given");
}

#[test]
fn bad_files_are_errors_not_panics() {
    let good = fixture("basic-gfx1100.hsaco");
    assert!(CodeObject::parse(b"").unwrap_err().contains("not an ELF64"));
    assert!(CodeObject::parse(b"\x7fELF garbage").is_err());
    // Every truncation and a sweep of single-byte corruptions either parse or fail cleanly.
    for len in (0..good.len()).step_by(97) {
        let _ = CodeObject::parse(&good[..len]);
    }
    for at in (0..good.len()).step_by(13) {
        let mut bad = good.clone();
        bad[at] ^= 0xa5;
        let _ = CodeObject::parse(&bad);
    }
    let mut x86 = good.clone();
    x86[18] = 62; // e_machine = EM_X86_64
    assert!(CodeObject::parse(&x86).unwrap_err().contains("not an AMDGPU code object"));
    let mut v3 = good;
    v3[8] = 1; // ABI version: code object v3
    assert!(CodeObject::parse(&v3).unwrap_err().contains("ABI version 1 is not supported"));
}

#[test]
fn relocations_apply_for_the_load_address() {
    use baregpu_autogen::amd::elf::{R_AMDGPU_ABS32_HI, R_AMDGPU_ABS64, R_AMDGPU_REL32_LO, R_AMDGPU_RELATIVE64};
    use baregpu_runtime::program::hsaco::Reloc;
    let mut co = CodeObject::parse(&fixture("basic-gfx1100.hsaco")).unwrap();
    let base = 0x7f00_0000_0000u64;
    co.relocs = vec![
        Reloc { offset: 0x100, kind: R_AMDGPU_ABS64, symbol: 0x1c00, addend: 8 },
        Reloc { offset: 0x108, kind: R_AMDGPU_RELATIVE64, symbol: 0, addend: 0x2e00 },
        Reloc { offset: 0x110, kind: R_AMDGPU_REL32_LO, symbol: 0x2e00, addend: -4 },
        Reloc { offset: 0x114, kind: R_AMDGPU_ABS32_HI, symbol: 0x1c00, addend: 0 },
    ];
    let img = co.relocated(base);
    let u64_at = |o: usize| u64::from_le_bytes(img[o..o + 8].try_into().unwrap());
    let u32_at = |o: usize| u32::from_le_bytes(img[o..o + 4].try_into().unwrap());
    assert_eq!(u64_at(0x100), base + 0x1c08);
    assert_eq!(u64_at(0x108), base + 0x2e00);
    assert_eq!(u32_at(0x110), (0x2e00u64 - 4 - 0x110) as u32);
    assert_eq!(u32_at(0x114), ((base + 0x1c00) >> 32) as u32);
    assert_eq!(&img[..0x100], &co.image[..0x100], "bytes outside relocations changed");
}

/// `good` with the first `from` replaced by `to` (same length): a hand-edited code object.
fn patched(good: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let at = good.windows(from.len()).position(|w| w == from).expect("pattern in the fixture");
    let mut bad = good.to_vec();
    bad[at..at + to.len()].copy_from_slice(to);
    bad
}

#[test]
fn metadata_that_contradicts_the_code_object_is_refused_at_load() {
    let good = fixture("basic-gfx1100.hsaco");
    let fail = |from: &[u8], to: &[u8]| CodeObject::parse(&patched(&good, from, to)).unwrap_err();
    let e = fail(b".wavefront_size\x20", b".wavefront_size\x40");
    assert!(e.contains(".wavefront_size 64 contradicts the descriptor's wave32"), "{e}");
    let e = fail(b".kernarg_segment_size\xcd\x01\x20", b".kernarg_segment_size\xcd\x01\x21");
    assert!(e.contains(".kernarg_segment_size 289 contradicts the descriptor's kernarg_size 288"), "{e}");
    let e = fail(b"amdgcn-amd-amdhsa--gfx1100", b"amdgcn-amd-amdhsa--gfx1101");
    assert!(e.contains("amdhsa.target `amdgcn-amd-amdhsa--gfx1101` contradicts the ELF header's gfx1100"), "{e}");
    let e = fail(b".size\x08\xaa.type_name\xa6float*", b".size\x00\xaa.type_name\xa6float*");
    assert!(e.contains("a global_buffer argument of .size 0 (a pointer is 8 bytes)"), "{e}");
}

#[test]
fn an_unlinked_object_says_to_link_it() {
    let mut obj = fixture("basic-gfx1100.hsaco");
    obj[16] = 1; // e_type = ET_REL, as clang -c leaves it
    let e = CodeObject::parse(&obj).unwrap_err();
    assert!(e.contains("relocatable object") && e.contains("ld.lld"), "{e}");
}

/// The hardware runs at most 1024 work-items per workgroup, whatever the metadata allows; and
/// a grid whose work-items do not fit the dispatch packet's 32 bits is refused before launch.
#[test]
fn launch_shapes_beyond_the_hardware_are_refused() {
    use baregpu_runtime::amd::launch::check_shape;
    let good = fixture("basic-gfx1100.hsaco");
    let co = CodeObject::parse(&patched(
        &good,
        b".max_flat_workgroup_size\xcd\x01\x00",
        b".max_flat_workgroup_size\xcd\x08\x00",
    ))
    .unwrap();
    let k = co.kernels.iter().find(|k| k.meta.max_flat_workgroup_size == 2048).expect("the patched kernel");
    let e = check_shape(k, &Launch::new([1, 1, 1], [64, 32, 1])).unwrap_err().to_string();
    assert!(e.contains("exceeds the hardware's 1024 work-items"), "{e}");
    assert!(check_shape(k, &Launch::new([1, 1, 1], [64, 16, 1])).is_ok());
    let e = check_shape(k, &Launch::new([1, 65536, 65536], [1, 1, 1])).unwrap_err().to_string();
    assert!(e.contains("4294967296 work-items"), "{e}");
    let e = check_shape(k, &Launch::new([u32::MAX, 1, 1], [2, 1, 1])).unwrap_err().to_string();
    assert!(e.contains("per dimension"), "{e}");
}

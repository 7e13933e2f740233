//! The code-object writer's MessagePack encoder against clang's: every NT_AMDGPU_METADATA note of
//! the clang-built fixtures (tests/fixtures/codeobj and tests/fixtures/hsaco), decoded with rmpv and
//! written back through `codeobj::metadata::encode`, gives clang's bytes; and clang's map key order
//! is the order `codeobj::metadata::map` sorts into. Together with `codeobj::descriptor_words_match_clang_fixtures`
//! (which rebuilds the whole note from kernels) this pins the encoding forms, not only the values.

use std::collections::BTreeSet;
use std::path::PathBuf;

use baregpu_compiler::codeobj::metadata::{self, Value};
use object::read::elf::ElfFile64;
use object::{Endianness, Object, ObjectSection};

/// Every clang-built code object under tests/fixtures.
fn clang_fixtures() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures");
    let mut out = Vec::new();
    for dir in ["codeobj", "hsaco"] {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap_or_else(|e| panic!("tests/fixtures/{dir}: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "hsaco"))
            .collect();
        paths.sort();
        for p in paths {
            out.push((format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()), std::fs::read(&p).unwrap()));
        }
    }
    out
}

/// The metadata note's descriptor bytes.
fn note_desc(bytes: &[u8]) -> Vec<u8> {
    let obj = ElfFile64::<Endianness>::parse(bytes).expect("fixture parses as ELF64");
    let notes = obj.section_by_name(".note").expect(".note section").data().unwrap();
    metadata::find_metadata(notes).expect("NT_AMDGPU_METADATA note").to_vec()
}

/// `doc` with every string-keyed map re-sorted by the writer's rule.
fn resorted(doc: &Value) -> Value {
    match doc {
        Value::Map(entries) => {
            let keyed: Option<Vec<(String, Value)>> =
                entries.iter().map(|(k, v)| Some((k.as_str()?.to_string(), resorted(v)))).collect();
            match keyed {
                Some(keyed) => metadata::map(keyed),
                None => doc.clone(),
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(resorted).collect()),
        other => other.clone(),
    }
}

/// The MessagePack form each value takes when written in its smallest encoding.
fn forms(v: &Value, out: &mut BTreeSet<&'static str>) {
    let by_len = |n: usize, small: usize, names: [&'static str; 3]| {
        if n < small {
            names[0]
        } else if n <= 0xff && !names[1].is_empty() {
            names[1]
        } else {
            names[2]
        }
    };
    let form = match v {
        Value::String(s) => by_len(s.as_str().map_or(0, str::len), 32, ["fixstr", "str8", "str16+"]),
        Value::Integer(_) => match v.as_u64() {
            Some(n) if n < 0x80 => "positive fixint",
            Some(n) if n <= 0xff => "uint8",
            Some(n) if n <= 0xffff => "uint16",
            Some(_) => "uint32+",
            None => "negative int",
        },
        Value::Boolean(_) => "bool",
        Value::Array(items) => {
            items.iter().for_each(|i| forms(i, out));
            by_len(items.len(), 16, ["fixarray", "", "array16+"])
        }
        Value::Map(entries) => {
            for (k, v) in entries {
                forms(k, out);
                forms(v, out);
            }
            by_len(entries.len(), 16, ["fixmap", "", "map16+"])
        }
        _ => "other",
    };
    out.insert(form);
}

#[test]
fn clang_metadata_notes_reencode_byte_identically() {
    let fixtures = clang_fixtures();
    assert!(fixtures.len() >= 8, "clang fixtures: {}", fixtures.len());
    let mut seen = BTreeSet::new();
    for (name, bytes) in &fixtures {
        let desc = note_desc(bytes);
        let mut rest = desc.as_slice();
        let doc = rmpv::decode::read_value(&mut rest).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(rest.is_empty(), "{name}: {} bytes after the metadata map", rest.len());
        assert_eq!(metadata::encode(&doc), desc, "{name}: our encoding of clang's document differs");
        assert_eq!(resorted(&doc), doc, "{name}: clang's map key order is not the writer's sort order");
        forms(&doc, &mut seen);
    }
    // The fixtures exercise every form the writer's documents use, so the byte comparison above
    // covers each length threshold (fixstr/str8, fixint/uint8/uint16, fixmap/map16).
    for form in ["fixstr", "positive fixint", "uint8", "uint16", "bool", "fixarray", "fixmap", "map16+"] {
        assert!(seen.contains(form), "no {form} in the clang fixtures' metadata (seen: {seen:?})");
    }
}

/// Strings of 32..255 bytes (str8, which LLVM's writer uses and a "compatible" msgpack writer would
/// not) do not occur in the fixtures: clang-22, where installed, writes a kernel with long names.
#[test]
fn clang_long_names_reencode_byte_identically() {
    let dir = std::env::temp_dir().join(format!("baregpu-msgpack-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (src, obj) = (dir.join("long.cl"), dir.join("long.o"));
    std::fs::write(
        &src,
        "typedef float a_float_type_with_a_name_longer_than_31;\n\
         kernel void a_kernel_whose_name_is_longer_than_31_bytes(\n\
         global a_float_type_with_a_name_longer_than_31 *out, int n) { out[n] = 1.0f; }\n",
    )
    .unwrap();
    let status = std::process::Command::new("clang-22")
        .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib", "-O2"])
        .args(["-mcode-object-version=5", "-cl-kernel-arg-info", "-mcpu=gfx942", "-c"])
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .status();
    let Ok(status) = status else {
        eprintln!("clang-22 not installed: skipped");
        return;
    };
    assert!(status.success(), "clang-22 failed on {}", src.display());
    let desc = note_desc(&std::fs::read(&obj).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
    let doc = rmpv::decode::read_value(&mut desc.as_slice()).unwrap();
    let mut seen = BTreeSet::new();
    forms(&doc, &mut seen);
    assert!(seen.contains("str8"), "no str8 in clang's note: {seen:?}");
    assert_eq!(metadata::encode(&doc), desc);
    assert_eq!(resorted(&doc), doc);
}

#[test]
fn encoder_uses_the_smallest_form() {
    let enc = |v: Value| metadata::encode(&v);
    assert_eq!(enc(Value::from(0u32)), [0x00]);
    assert_eq!(enc(Value::from(127u32)), [0x7f]);
    assert_eq!(enc(Value::from(128u32)), [0xcc, 0x80]);
    assert_eq!(enc(Value::from(256u32)), [0xcd, 0x01, 0x00]);
    assert_eq!(enc(Value::from(65536u32)), [0xce, 0x00, 0x01, 0x00, 0x00]);
    assert_eq!(enc(Value::from(1u64 << 32)), [0xcf, 0, 0, 0, 1, 0, 0, 0, 0]);
    assert_eq!(enc(Value::from(-1i64)), [0xff]);
    assert_eq!(enc(Value::from(-33i64)), [0xd0, 0xdf]);
    assert_eq!(enc(Value::from(5i64)), [0x05]);
    assert_eq!(enc(Value::from("AMD")), [0xa3, b'A', b'M', b'D']);
    assert_eq!(enc(Value::from("x".repeat(31)))[0], 0xbf);
    assert_eq!(enc(Value::from("x".repeat(32)))[..2], [0xd9, 32]);
    assert_eq!(enc(Value::from("x".repeat(256)))[..3], [0xda, 0x01, 0x00]);
    assert_eq!(enc(Value::Array((0..15u32).map(Value::from).collect()))[0], 0x9f);
    assert_eq!(enc(Value::Array((0..16u32).map(Value::from).collect()))[..3], [0xdc, 0x00, 0x10]);
    let m = metadata::map((0..17).map(|i| (format!("k{i:02}"), Value::from(i % 2 == 0))));
    assert_eq!(enc(m)[..3], [0xde, 0x00, 0x11]);
}

#[test]
fn map_keys_sort_by_bytes() {
    use metadata::MapLookup;
    let m = metadata::map([(".b", Value::Nil), ("amdhsa.x", Value::Nil), (".a", Value::Nil), (".Z", Value::Nil)]);
    assert_eq!(m.keys(), [".Z", ".a", ".b", "amdhsa.x"]);
    assert_eq!(m.get(".a"), Some(&Value::Nil));
    assert_eq!(m.get(".c"), None);
    assert_eq!(Value::from(1u32).get(".a"), None);
}

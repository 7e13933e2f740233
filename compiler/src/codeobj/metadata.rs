//! The NT_AMDGPU_METADATA note: the msgpack map that LLVM 22 emits for code object v5
//! (`amdhsa.version` [1, 2], `amdhsa.target`, `amdhsa.kernels`), keys sorted like LLVM's
//! msgpack document so that the bytes match clang's for the same kernel.
//!
//! The document is an [`rmpv::Value`], the type the loader reads the note into. rmpv writes every
//! value in its smallest form (positive/negative fixint, then 8/16/32/64-bit ints; fixstr, then str8,
//! str16, str32; fixarray/fixmap, then the 16- and 32-bit forms), which is what LLVM's
//! `msgpack::Writer` does; the map entries are written in the order given, and [`map`] sorts them by
//! key bytes the way LLVM's `msgpack::Document` (a `std::map` of keys) orders them.

pub use rmpv::Value;

use super::{arch, Arch, ArgKind, CodeObjectOptions, Kernel, KernelArg, NT_AMDGPU_METADATA};

/// `amdhsa.version` of code object v5.
pub const METADATA_VERSION: [u32; 2] = [1, 2];

/// The note owner name.
pub const NOTE_NAME: &[u8] = b"AMDGPU";

/// A map with string keys, sorted by key bytes (the order LLVM's msgpack document emits).
pub fn map<K: Into<String>>(entries: impl IntoIterator<Item = (K, Value)>) -> Value {
    let mut entries: Vec<(String, Value)> = entries.into_iter().map(|(k, v)| (k.into(), v)).collect();
    entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Value::Map(entries.into_iter().map(|(k, v)| (Value::from(k), v)).collect())
}

/// The MessagePack bytes of a document.
pub fn encode(doc: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail (its `io::Write` never errors), and the metadata's maps and
    // arrays are far below rmpv's 2^32-entry limit.
    rmpv::encode::write_value(&mut out, doc).expect("writing msgpack into a Vec cannot fail");
    out
}

/// Key lookups in a metadata map (rmpv's `Value` has none that returns `Option`).
pub trait MapLookup {
    /// The value of a string key; `None` for a missing key or a value that is not a map.
    fn get(&self, key: &str) -> Option<&Value>;
    /// The string keys of a map in encoding order (empty for other values).
    fn keys(&self) -> Vec<&str>;
}

impl MapLookup for Value {
    fn get(&self, key: &str) -> Option<&Value> {
        self.as_map()?.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v)
    }

    fn keys(&self) -> Vec<&str> {
        self.as_map().map(|m| m.iter().filter_map(|(k, _)| k.as_str()).collect()).unwrap_or_default()
    }
}

/// The metadata document of a set of (validated) kernels.
pub fn metadata(arch: Arch, options: &CodeObjectOptions, kernels: &[Kernel]) -> Value {
    map([
        ("amdhsa.kernels", Value::Array(kernels.iter().map(|k| kernel(arch, k)).collect())),
        ("amdhsa.target", Value::from(super::target_id(arch, options))),
        ("amdhsa.version", Value::Array(METADATA_VERSION.iter().map(|&v| v.into()).collect())),
    ])
}

fn kernel(arch: Arch, k: &Kernel) -> Value {
    let r = &k.resources;
    let mut m: Vec<(&str, Value)> = vec![
        (".args", Value::Array(k.args.iter().map(arg).collect())),
        (".group_segment_fixed_size", r.lds_bytes.into()),
        (".kernarg_segment_align", k.kernarg_segment_align.into()),
        (".kernarg_segment_size", k.kernarg_segment_size.into()),
        (".max_flat_workgroup_size", k.max_flat_workgroup_size.into()),
        (".name", Value::from(k.name.as_str())),
        (".private_segment_fixed_size", r.private_bytes.into()),
        (".sgpr_count", r.sgpr_count.into()),
        (".sgpr_spill_count", r.sgpr_spill_count.into()),
        (".symbol", Value::from(format!("{}.kd", k.name))),
        (".uses_dynamic_stack", r.uses_dynamic_stack.into()),
        (".vgpr_count", r.total_vgprs(arch).into()),
        (".vgpr_spill_count", r.vgpr_spill_count.into()),
        (".wavefront_size", r.wave_size.lanes().into()),
    ];
    if arch::is_cdna(arch) {
        m.push((".agpr_count", r.agpr_count.into()));
    } else {
        m.push((".workgroup_processor_mode", u32::from(r.wgp_mode).into()));
    }
    if let Some((language, version)) = &k.language {
        m.push((".language", Value::from(language.as_str())));
        m.push((".language_version", Value::Array(version.iter().map(|&v| v.into()).collect())));
    }
    if let Some(size) = k.reqd_workgroup_size {
        m.push((".reqd_workgroup_size", Value::Array(size.iter().map(|&v| v.into()).collect())));
    }
    map(m)
}

fn arg(a: &KernelArg) -> Value {
    let mut m: Vec<(&str, Value)> =
        vec![(".offset", a.offset.into()), (".size", a.size.into()), (".value_kind", Value::from(a.kind.value_kind()))];
    if let Some(name) = &a.name {
        m.push((".name", Value::from(name.as_str())));
    }
    if let Some(type_name) = &a.type_name {
        m.push((".type_name", Value::from(type_name.as_str())));
    }
    match &a.kind {
        ArgKind::GlobalBuffer { address_space, access } => {
            m.push((".address_space", Value::from(address_space.as_str())));
            if let Some(access) = access {
                m.push((".access", Value::from(access.as_str())));
            }
        }
        ArgKind::DynamicSharedPointer { pointee_align } => {
            m.push((".address_space", Value::from("local")));
            if let Some(align) = pointee_align {
                m.push((".pointee_align", (*align).into()));
            }
        }
        ArgKind::ByValue | ArgKind::Hidden(_) => {}
    }
    for (key, on) in [(".is_const", a.is_const), (".is_restrict", a.is_restrict), (".is_volatile", a.is_volatile)] {
        if on {
            m.push((key, true.into()));
        }
    }
    map(m)
}

/// The complete ELF note (header, "AMDGPU\0" name, msgpack descriptor), each part padded to 4.
pub fn metadata_note(arch: Arch, options: &CodeObjectOptions, kernels: &[Kernel]) -> Vec<u8> {
    note(NT_AMDGPU_METADATA, &encode(&metadata(arch, options, kernels)))
}

fn note(note_type: u32, desc: &[u8]) -> Vec<u8> {
    let name_size = NOTE_NAME.len() + 1;
    let mut out = Vec::with_capacity(12 + name_size.next_multiple_of(4) + desc.len().next_multiple_of(4));
    out.extend_from_slice(&(name_size as u32).to_le_bytes());
    out.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    out.extend_from_slice(&note_type.to_le_bytes());
    out.extend_from_slice(NOTE_NAME);
    out.push(0);
    out.resize(out.len().next_multiple_of(4), 0);
    out.extend_from_slice(desc);
    out.resize(out.len().next_multiple_of(4), 0);
    out
}

/// Finds the NT_AMDGPU_METADATA descriptor in the contents of a note section.
pub fn find_metadata(notes: &[u8]) -> Option<&[u8]> {
    let mut at = 0usize;
    while at + 12 <= notes.len() {
        let word = |o: usize| u32::from_le_bytes([notes[o], notes[o + 1], notes[o + 2], notes[o + 3]]) as usize;
        let (name_size, desc_size, note_type) = (word(at), word(at + 4), word(at + 8));
        let name_start = at + 12;
        let desc_start = name_start.checked_add(name_size.next_multiple_of(4))?;
        let desc_end = desc_start.checked_add(desc_size)?;
        if desc_end > notes.len() || name_start + name_size > notes.len() {
            return None;
        }
        let name = &notes[name_start..name_start + name_size];
        if note_type == NT_AMDGPU_METADATA as usize && name.strip_suffix(&[0]) == Some(NOTE_NAME) {
            return Some(&notes[desc_start..desc_end]);
        }
        at = desc_end.next_multiple_of(4);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codeobj::{hidden_args_v5, KernelArg};

    #[test]
    fn note_layout() {
        let n = note(32, &[1, 2, 3, 4, 5]);
        assert_eq!(&n[..12], [7, 0, 0, 0, 5, 0, 0, 0, 32, 0, 0, 0]);
        assert_eq!(&n[12..20], b"AMDGPU\0\0");
        assert_eq!(&n[20..], [1, 2, 3, 4, 5, 0, 0, 0]);
        assert_eq!(find_metadata(&n), Some(&[1, 2, 3, 4, 5][..]));
        assert_eq!(find_metadata(&n[..10]), None);
    }

    #[test]
    fn keys_per_arch() {
        let k = Kernel::new(Arch::Gfx942, "k", vec![0; 4])
            .with_args(vec![KernelArg::global_buffer("out", 0).with_type_name("float*")]);
        let doc = metadata(Arch::Gfx942, &CodeObjectOptions::default(), std::slice::from_ref(&k));
        assert_eq!(doc.keys(), ["amdhsa.kernels", "amdhsa.target", "amdhsa.version"]);
        let kern = &doc.get("amdhsa.kernels").unwrap().as_array().unwrap()[0];
        assert_eq!(kern.keys()[0], ".agpr_count");
        assert!(kern.get(".workgroup_processor_mode").is_none());
        let arg = &kern.get(".args").unwrap().as_array().unwrap()[0];
        assert_eq!(arg.keys(), [".address_space", ".name", ".offset", ".size", ".type_name", ".value_kind"]);

        let k11 = Kernel { resources: crate::codeobj::KernelResources::for_arch(Arch::Gfx1100), ..k };
        let doc = metadata(Arch::Gfx1100, &CodeObjectOptions::default(), &[k11]);
        let kern = &doc.get("amdhsa.kernels").unwrap().as_array().unwrap()[0];
        assert!(kern.get(".agpr_count").is_none());
        assert_eq!(kern.get(".workgroup_processor_mode").and_then(Value::as_u64), Some(1));
        assert_eq!(kern.get(".wavefront_size").and_then(Value::as_u64), Some(32));
    }

    #[test]
    fn hidden_args_have_no_name() {
        let a = &hidden_args_v5(8)[13];
        let v = arg(a);
        assert_eq!(v.get(".value_kind").and_then(Value::as_str), Some("hidden_queue_ptr"));
        assert_eq!(v.get(".offset").and_then(Value::as_u64), Some(208));
        assert_eq!(v.keys(), [".offset", ".size", ".value_kind"]);
    }
}

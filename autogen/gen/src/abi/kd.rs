//! `amd/kd.rs` from LLVM's `AMDHSAKernelDescriptor.h`: the 64-byte kernel descriptor
//! (`llvm::amdhsa::kernel_descriptor_t`) and its bit fields.
//!
//! The header is C++ and declares its bit fields through macros (`AMDHSA_BITS_ENUM_ENTRY(NAME,
//! SHIFT, WIDTH)` wrapped by one macro per register variant), so it is read textually: the wrapper
//! macros give each entry's full name, each `enum : T { ... }` block followed by `#undef WRAPPER`
//! becomes one module, plain `enum : T { NAME = V }` blocks become constants, and the struct's
//! fields are laid out by C rules. Everything derived textually is then checked against the C++
//! compiler (clang-22 compiles a program that includes the header and prints every constant,
//! size, alignment and offset); any difference is an error, so the output is a faithful function
//! of the header.

use super::{compile_and_run, file_head, rustfmt, CLANG, KERNEL_DESCRIPTOR_H};
use crate::inputs::Inputs;
use crate::Generated;

const STRUCT: &str = "kernel_descriptor_t";
const RUST_STRUCT: &str = "llvm_amdhsa_kernel_descriptor_t";
const NAMESPACE: &str = "llvm::amdhsa";

/// One enum block of the header.
struct Block {
    /// `Some(wrapper macro)` for a bit-field block (named by the `#undef` that follows it).
    module: Option<String>,
    /// The enum's underlying C type.
    ctype: String,
    entries: Vec<Entry>,
}

enum Entry {
    Bits { name: String, shift: u32, width: u32 },
    Value { name: String, value: i64 },
}

struct Field {
    name: String,
    ctype: String,
    count: Option<usize>,
}

pub fn generate(inputs: &Inputs) -> Result<Generated, String> {
    let text = inputs.read(&KERNEL_DESCRIPTOR_H)?;
    let header = inputs.locate(&KERNEL_DESCRIPTOR_H)?;
    let (blocks, fields) = parse(&text)?;
    let layout = layout(&fields)?;
    verify(&header.display().to_string(), &blocks, &fields, &layout)?;

    let mut out = file_head(
        &[&KERNEL_DESCRIPTOR_H],
        "AMDHSA kernel descriptor (`llvm::amdhsa::kernel_descriptor_t`, 64 bytes, the `<kernel>.kd` symbol of a\n\
         code object) and the bit fields of its COMPUTE_PGM_RSRC1/2/3, kernel code properties and kernarg\n\
         preload words, from LLVM's `AMDHSAKernelDescriptor.h`. Each bit field NAME has NAME_SHIFT,\n\
         NAME_WIDTH and NAME (the mask), grouped in one module per register variant as in the header.",
    );
    out.push_str("#[repr(C)]\n#[derive(Debug, Default, Copy, Clone, PartialEq, Eq, Hash)]\n");
    out.push_str(&format!("pub struct {RUST_STRUCT} {{\n"));
    for f in &fields {
        let t = rust_type(&f.ctype)?;
        match f.count {
            Some(n) => out.push_str(&format!("    pub {}: [{t}; {n}],\n", f.name)),
            None => out.push_str(&format!("    pub {}: {t},\n", f.name)),
        }
    }
    out.push_str("}\nconst _: () = {\n");
    out.push_str(&format!(
        "    assert!(core::mem::size_of::<{RUST_STRUCT}>() == {0}, \"Size of {RUST_STRUCT}\");\n",
        layout.size
    ));
    out.push_str(&format!(
        "    assert!(core::mem::align_of::<{RUST_STRUCT}>() == {0}, \"Alignment of {RUST_STRUCT}\");\n",
        layout.align
    ));
    for (f, off) in fields.iter().zip(&layout.offsets) {
        out.push_str(&format!(
            "    assert!(core::mem::offset_of!({RUST_STRUCT}, {0}) == {off}, \"Offset of field: {RUST_STRUCT}::{0}\");\n",
            f.name
        ));
    }
    out.push_str("};\n");

    for b in &blocks {
        out.push('\n');
        match &b.module {
            Some(m) => {
                out.push_str(&format!("/// Bit fields declared with `{m}(NAME, SHIFT, WIDTH)` in `{NAMESPACE}`.\n"));
                out.push_str(&format!("pub mod {} {{\n", m.to_ascii_lowercase()));
                for e in &b.entries {
                    if let Entry::Bits { name, shift, width } = e {
                        let mask = ((1u64 << width) - 1) << shift;
                        out.push_str(&format!("    pub const {name}_SHIFT: u32 = {shift};\n"));
                        out.push_str(&format!("    pub const {name}_WIDTH: u32 = {width};\n"));
                        out.push_str(&format!("    pub const {name}: u32 = {mask:#010x};\n"));
                    }
                }
                out.push_str("}\n");
            }
            None => {
                let t = rust_type(&b.ctype)?;
                out.push_str(&format!("// `enum : {}` in `{NAMESPACE}`.\n", b.ctype));
                for e in &b.entries {
                    if let Entry::Value { name, value } = e {
                        out.push_str(&format!("pub const {name}: {t} = {value};\n"));
                    }
                }
            }
        }
    }
    Ok(Generated { path: "src/amd/kd.rs".into(), text: rustfmt(&out)? })
}

fn rust_type(ctype: &str) -> Result<&'static str, String> {
    Ok(match ctype {
        "uint8_t" => "u8",
        "uint16_t" => "u16",
        "uint32_t" => "u32",
        "uint64_t" => "u64",
        "int8_t" => "i8",
        "int16_t" => "i16",
        "int32_t" => "i32",
        "int64_t" => "i64",
        other => return Err(format!("kernel descriptor header: unsupported type `{other}`")),
    })
}

fn c_size(ctype: &str) -> Result<usize, String> {
    Ok(match rust_type(ctype)? {
        "u8" | "i8" => 1,
        "u16" | "i16" => 2,
        "u32" | "i32" => 4,
        _ => 8,
    })
}

/// Removes `//` comments and joins continuation lines.
fn clean(text: &str) -> String {
    let joined = text.replace("\\\n", " ");
    joined.lines().map(|l| l.split_once("//").map_or(l, |(code, _)| code)).collect::<Vec<_>>().join("\n")
}

fn parse(text: &str) -> Result<(Vec<Block>, Vec<Field>), String> {
    let err = |m: &str| format!("{}: {m}", KERNEL_DESCRIPTOR_H.path);
    let text = clean(text);
    // Wrapper macro name -> entry-name prefix, e.g. COMPUTE_PGM_RSRC1_GFX6_GFX11 -> COMPUTE_PGM_RSRC1_GFX6_GFX11_.
    let mut wrappers: Vec<(String, String)> = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut fields = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim();
        if let Some(def) = t.strip_prefix("#define ") {
            let Some((name, rest)) = def.split_once('(') else { continue };
            let Some((params, body)) = rest.split_once(')') else { continue };
            let Some(args) = body.trim().strip_prefix("AMDHSA_BITS_ENUM_ENTRY(") else { continue };
            let first_param = params.split(',').next().unwrap_or("").trim();
            let first_arg: String = args.split(',').next().unwrap_or("").split_whitespace().collect();
            let prefix = first_arg
                .strip_suffix(first_param)
                .and_then(|p| p.strip_suffix("##"))
                .ok_or_else(|| err(&format!("cannot read wrapper macro {name}")))?;
            wrappers.retain(|(n, _)| n != name.trim());
            wrappers.push((name.trim().to_string(), prefix.to_string()));
        } else if let Some(name) = t.strip_prefix("#undef ") {
            let name = name.trim();
            if let Some(b) = blocks.last_mut() {
                let is_bits = b.entries.iter().any(|e| matches!(e, Entry::Bits { .. }));
                if is_bits && b.module.is_none() {
                    b.module = Some(name.to_string());
                }
            }
        } else if let Some(rest) = t.strip_prefix("enum : ") {
            let ctype = rest.trim_end_matches('{').trim().to_string();
            let mut body = String::new();
            for l in lines.by_ref() {
                if l.trim() == "};" {
                    break;
                }
                body.push_str(l);
                body.push('\n');
            }
            let mut entries = Vec::new();
            for item in split_top(&body, ',') {
                let item: String = item.split_whitespace().collect::<Vec<_>>().join(" ");
                if item.is_empty() {
                    continue;
                }
                if let Some((mac, args)) = item.split_once('(') {
                    let (_, prefix) = wrappers
                        .iter()
                        .find(|(n, _)| n == mac.trim())
                        .ok_or_else(|| err(&format!("unknown bit-field macro in `{item}`")))?;
                    let args: Vec<&str> = args.trim_end_matches(')').split(',').map(str::trim).collect();
                    let [name, shift, width] = args[..] else { return Err(err(&format!("bad entry `{item}`"))) };
                    let num = |s: &str| s.parse::<u32>().map_err(|_| err(&format!("bad number in `{item}`")));
                    let (shift, width) = (num(shift)?, num(width)?);
                    if width == 0 || shift + width > 32 {
                        return Err(err(&format!("bit field out of a 32-bit word: `{item}`")));
                    }
                    entries.push(Entry::Bits { name: format!("{prefix}{name}"), shift, width });
                } else if let Some((name, value)) = item.split_once('=') {
                    let value = value.trim();
                    let v = match value.strip_prefix("0x") {
                        Some(h) => i64::from_str_radix(h, 16),
                        None => value.parse::<i64>(),
                    }
                    .map_err(|_| err(&format!("bad value in `{item}`")))?;
                    entries.push(Entry::Value { name: name.trim().to_string(), value: v });
                } else {
                    return Err(err(&format!("enum entry without value: `{item}`")));
                }
            }
            blocks.push(Block { module: None, ctype, entries });
        } else if t == format!("struct {STRUCT} {{") {
            for l in lines.by_ref() {
                let l = l.trim();
                if l == "};" {
                    break;
                }
                let decl = l.strip_suffix(';').ok_or_else(|| err(&format!("bad field `{l}`")))?;
                let (ctype, name) = decl.split_once(' ').ok_or_else(|| err(&format!("bad field `{l}`")))?;
                let name = name.trim();
                let (name, count) = match name.split_once('[') {
                    Some((n, c)) => {
                        let c =
                            c.trim_end_matches(']').parse::<usize>().map_err(|_| err(&format!("bad array `{l}`")))?;
                        (n.to_string(), Some(c))
                    }
                    None => (name.to_string(), None),
                };
                fields.push(Field { name, ctype: ctype.trim().to_string(), count });
            }
        }
    }
    if fields.is_empty() {
        return Err(err(&format!("struct {STRUCT} not found")));
    }
    if let Some(b) =
        blocks.iter().find(|b| b.module.is_none() && b.entries.iter().any(|e| matches!(e, Entry::Bits { .. })))
    {
        return Err(err(&format!("bit-field enum of `{}` not followed by #undef", b.ctype)));
    }
    Ok((blocks, fields))
}

/// Splits at `sep` outside parentheses.
fn split_top(s: &str, sep: char) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        out.last_mut().expect("never empty").push(c);
    }
    out
}

struct Layout {
    size: usize,
    align: usize,
    offsets: Vec<usize>,
}

/// C struct layout on x86_64: each field at the next multiple of its alignment (its scalar size).
fn layout(fields: &[Field]) -> Result<Layout, String> {
    let (mut off, mut align, mut offsets) = (0usize, 1usize, Vec::new());
    for f in fields {
        let a = c_size(&f.ctype)?;
        off = off.next_multiple_of(a);
        offsets.push(off);
        off += a * f.count.unwrap_or(1);
        align = align.max(a);
    }
    Ok(Layout { size: off.next_multiple_of(align), align, offsets })
}

/// Compiles the header with clang-22 (C++20) and compares every constant and the layout.
fn verify(header: &str, blocks: &[Block], fields: &[Field], layout: &Layout) -> Result<(), String> {
    let mut src = format!(
        "#include <cstdio>\n#include <cstddef>\n#include <cstdint>\n#include \"{header}\"\nusing namespace {NAMESPACE};\nint main() {{\n"
    );
    let mut expected = Vec::new();
    let mut print = |src: &mut String, label: &str, expr: &str, value: i128| {
        src.push_str(&format!("    std::printf(\"%s %lld\\n\", \"{label}\", (long long)({expr}));\n"));
        expected.push(format!("{label} {value}"));
    };
    print(&mut src, "sizeof", &format!("sizeof({STRUCT})"), layout.size as i128);
    print(&mut src, "alignof", &format!("alignof({STRUCT})"), layout.align as i128);
    for (f, off) in fields.iter().zip(&layout.offsets) {
        print(&mut src, &format!("offsetof.{}", f.name), &format!("offsetof({STRUCT}, {})", f.name), *off as i128);
    }
    for b in blocks {
        for e in &b.entries {
            match e {
                Entry::Bits { name, shift, width } => {
                    print(&mut src, &format!("{name}_SHIFT"), &format!("{name}_SHIFT"), *shift as i128);
                    print(&mut src, &format!("{name}_WIDTH"), &format!("{name}_WIDTH"), *width as i128);
                    let mask = ((1u64 << width) - 1) << shift;
                    print(&mut src, name, &format!("(uint32_t){name}"), mask as i128);
                }
                Entry::Value { name, value } => print(&mut src, name, name, *value as i128),
            }
        }
    }
    src.push_str("    return 0;\n}\n");
    let args = ["-x", "c++", "-std=c++20", "-w"].map(String::from);
    let got = compile_and_run(CLANG, &args, "kd_oracle.cpp", &src)?;
    let got: Vec<&str> = got.lines().collect();
    if got.len() != expected.len() {
        return Err(format!("kd oracle printed {} lines, expected {}", got.len(), expected.len()));
    }
    for (g, e) in got.iter().zip(&expected) {
        if *g != e.as_str() {
            return Err(format!(
                "{}: the compiler says `{g}` but the header was read as `{e}`",
                KERNEL_DESCRIPTOR_H.path
            ));
        }
    }
    Ok(())
}

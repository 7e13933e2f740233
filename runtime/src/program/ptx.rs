//! PTX modules as the runtime needs them: the target, and each `.entry` with its parameter list
//! laid out as the parameter block in constant bank 0 (each parameter at the next multiple of its
//! alignment, in order, as PTX's parameter state space is laid out). Bodies are not parsed here:
//! the emulated GPU interprets them, and a real GPU gets a cubin from ptxas. The layout rule is
//! `drivers::nv::ptx_abi`'s, the one the emulated GPU reads the block back with.

use baregpu_drivers::nv::ptx_abi::{check_version, place_param, ParamDecl};

/// What a parameter holds, from its PTX declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtxParamKind {
    /// `.ptr .global` (or `.ptr` with no space): a buffer address.
    GlobalPointer,
    /// `.ptr .shared` / `.const` / `.local`: an address the host cannot provide a buffer for.
    OtherPointer,
    /// Integer or bit-typed scalar (or byte array).
    Integer,
    Float,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxParam {
    pub name: String,
    /// The declared type, `.u64`, `.f32`, `.b8` ...
    pub ty: String,
    pub kind: PtxParamKind,
    /// Offset in the parameter block, size and alignment in bytes.
    pub offset: u32,
    pub size: u32,
    pub align: u32,
}

impl PtxParam {
    /// `u64 pointer (.global)`, `f32`: for messages.
    pub fn describe(&self) -> String {
        match self.kind {
            PtxParamKind::GlobalPointer => "a global buffer (.ptr .global)".into(),
            PtxParamKind::OtherPointer => format!("a non-global pointer ({})", self.ty),
            _ => format!("a {}-byte {} value", self.size, self.ty.trim_start_matches('.')),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxEntry {
    pub name: String,
    pub params: Vec<PtxParam>,
    /// Size of the parameter block.
    pub param_size: u32,
    /// `.reqntid` / `.maxntid`, when declared.
    pub required_block: Option<[u32; 3]>,
    pub max_block: Option<[u32; 3]>,
    /// 1-based line of the `.entry` directive.
    pub line: usize,
}

#[derive(Debug, Clone)]
pub struct PtxModule {
    /// `sm_XY` as XY from `.target`.
    pub sm: u32,
    pub entries: Vec<PtxEntry>,
    pub text: String,
}

/// Type size in bytes of a PTX fundamental type (`.u32` → 4, `.b8` → 1, `.pred` → none).
fn type_size(ty: &str) -> Option<u32> {
    let t = ty.strip_prefix('.')?;
    let bits: u32 = t.get(1..)?.parse().ok()?;
    match (t.as_bytes()[0], bits) {
        (b'u' | b's' | b'b', 8 | 16 | 32 | 64) | (b'f', 16 | 32 | 64) => Some(bits / 8),
        (b'b', 128) => Some(16),
        _ => None,
    }
}

/// Text without `//` and `/* */` comments, with the line structure kept.
fn strip_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars().peekable();
    let mut in_block = false;
    let mut in_line = false;
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_line {
            if c == '\n' {
                in_line = false;
                out.push('\n');
            }
            continue;
        }
        if in_block {
            if c == '*' && chars.peek() == Some(&'/') {
                chars.next();
                in_block = false;
            } else if c == '\n' {
                out.push('\n');
            }
            continue;
        }
        if c == '"' {
            in_string = !in_string;
        }
        if !in_string && c == '/' {
            match chars.peek() {
                Some('/') => {
                    in_line = true;
                    continue;
                }
                Some('*') => {
                    chars.next();
                    in_block = true;
                    continue;
                }
                _ => {}
            }
        }
        out.push(c);
    }
    out
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at].bytes().filter(|&b| b == b'\n').count() + 1
}

/// One `.param` declaration: name, type, kind, and its layout facts.
fn parse_param(decl: &str, line: usize) -> Result<(String, String, PtxParamKind, ParamDecl), String> {
    let toks: Vec<&str> = decl.split_whitespace().collect();
    if toks.first() != Some(&".param") {
        return Err(format!("line {line}: `{decl}` is not a .param declaration"));
    }
    let (mut ty, mut align, mut ptr, mut space, mut name) = (None, None, false, None, None);
    let mut i = 1;
    while i < toks.len() {
        match toks[i] {
            ".align" => {
                let v = toks.get(i + 1).and_then(|v| v.parse::<u32>().ok()).filter(|v| v.is_power_of_two());
                align = Some(v.ok_or_else(|| format!("line {line}: `.align` needs a power of two in `{decl}`"))?);
                i += 1;
            }
            ".ptr" => ptr = true,
            s @ (".global" | ".shared" | ".const" | ".local") => space = Some(s),
            t if t.starts_with('.') && type_size(t).is_some() => ty = Some(t),
            t if t.starts_with('.') => return Err(format!("line {line}: unknown qualifier `{t}` in `{decl}`")),
            n => name = Some(n),
        }
        i += 1;
    }
    let ty = ty.ok_or_else(|| format!("line {line}: no type in `{decl}`"))?;
    let name = name.ok_or_else(|| format!("line {line}: no name in `{decl}`"))?;
    let elem = type_size(ty).expect("checked");
    let (name, count) = match name.split_once('[') {
        Some((n, rest)) => {
            let c = rest
                .strip_suffix(']')
                .and_then(|c| c.trim().parse::<u32>().ok())
                .filter(|&c| c > 0)
                .ok_or_else(|| format!("line {line}: bad array size in `{decl}`"))?;
            (n, c)
        }
        None => (name, 1),
    };
    let layout = ParamDecl { elem_size: elem, count, align, ptr };
    layout.size().ok_or_else(|| format!("line {line}: `{decl}` is too large"))?;
    let kind = match (ptr, space) {
        (true, None | Some(".global")) => PtxParamKind::GlobalPointer,
        (true, Some(_)) => PtxParamKind::OtherPointer,
        (false, _) if ty.starts_with(".f") => PtxParamKind::Float,
        (false, _) => PtxParamKind::Integer,
    };
    Ok((name.to_string(), ty.to_string(), kind, layout))
}

/// `a, b, c` of a performance directive such as `.reqntid 256, 1, 1`.
fn dims_after(tail: &str, directive: &str) -> Option<[u32; 3]> {
    let at = tail.find(directive)? + directive.len();
    let mut d = [1u32; 3];
    let rest = &tail[at..];
    let end = rest.find(['{', '.', ';']).unwrap_or(rest.len());
    for (i, v) in rest[..end].split(',').take(3).enumerate() {
        d[i] = v.trim().parse().ok()?;
    }
    Some(d)
}

impl PtxModule {
    /// Parse the target and every `.entry` signature. Errors name the line.
    pub fn parse(src: &str) -> Result<PtxModule, String> {
        let text = strip_comments(src);
        if let Some((at, v)) =
            text.lines().enumerate().find_map(|(i, l)| Some((i + 1, l.trim().strip_prefix(".version")?)))
        {
            check_version(v.trim()).map_err(|e| format!("line {at}: {e}"))?;
        }
        let sm = text
            .lines()
            .find_map(|l| l.trim().strip_prefix(".target"))
            .and_then(|t| t.split([',', ' ', '\t']).map(str::trim).find(|w| w.starts_with("sm_")))
            .and_then(|w| w[3..].trim_end_matches(['a', 'f']).parse::<u32>().ok())
            .ok_or("no `.target sm_XX` directive")?;
        let mut entries = Vec::new();
        let mut at = 0;
        while let Some(k) = text[at..].find(".entry") {
            let start = at + k;
            at = start + 6;
            // Only the directive, not an identifier that contains the word.
            let before = text[..start].chars().next_back();
            let after = text[at..].chars().next();
            if before.is_some_and(|c| !c.is_whitespace()) || after.is_some_and(|c| !c.is_whitespace()) {
                continue;
            }
            let line = line_of(&text, start);
            let open = text[at..].find('(').map(|o| at + o);
            let body = text[at..].find('{').map(|o| at + o);
            let name_end = match (open, body) {
                (Some(o), Some(b)) if o < b => o,
                (_, Some(b)) => b,
                _ => return Err(format!("line {line}: `.entry` without a body")),
            };
            let name = text[at..name_end].trim().to_string();
            if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || "_$.%".contains(c)) {
                return Err(format!("line {line}: bad entry name `{name}`"));
            }
            let mut params = Vec::new();
            let mut cursor = 0u32;
            let mut tail_start = name_end;
            if text[name_end..].starts_with('(') {
                let close = text[name_end..]
                    .find(')')
                    .map(|c| name_end + c)
                    .ok_or_else(|| format!("line {line}: unclosed parameter list of `{name}`"))?;
                for decl in text[name_end + 1..close].split(',').map(str::trim).filter(|d| !d.is_empty()) {
                    let (pname, ty, kind, layout) = parse_param(decl, line)?;
                    let (offset, end) = place_param(cursor, &layout)
                        .ok_or_else(|| format!("line {line}: the parameters of `{name}` pass 4 GiB"))?;
                    cursor = end;
                    let (size, align) = (end - offset, layout.align());
                    params.push(PtxParam { name: pname, ty, kind, offset, size, align });
                }
                tail_start = close + 1;
            }
            let body_at = text[tail_start..].find('{').map(|b| tail_start + b).unwrap_or(text.len());
            let tail = &text[tail_start..body_at];
            entries.push(PtxEntry {
                name,
                params,
                param_size: cursor,
                required_block: dims_after(tail, ".reqntid"),
                max_block: dims_after(tail, ".maxntid"),
                line,
            });
            at = body_at;
        }
        if entries.is_empty() {
            return Err("no `.entry` in the PTX module".into());
        }
        Ok(PtxModule { sm, entries, text: src.to_string() })
    }

    pub fn entry(&self, name: &str) -> Result<&PtxEntry, String> {
        self.entries.iter().find(|e| e.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.entries.iter().map(|e| e.name.as_str()).collect();
            format!("no `.entry {name}` in the PTX module (it has: {})", names.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "//\n.version 7.8\n.target sm_90\n.address_size 64\n\n\
        .visible .entry vector_add(\n\t.param .u64 .ptr .global .align 4 a, // buffer\n\
        \t.param .u64 .ptr .global .align 4 b,\n\t.param .u32 n,\n\t.param .f64 scale,\n\
        \t.param .align 16 .b8 blob[24]\n)\n.reqntid 128, 1, 1\n{\n\tret;\n}\n\
        /* .entry commented_out( */\n.entry noargs\n{\n\tret;\n}\n";

    #[test]
    fn entries_and_param_layout() {
        let m = PtxModule::parse(SRC).unwrap();
        assert_eq!(m.sm, 90);
        assert_eq!(m.entries.len(), 2);
        let e = m.entry("vector_add").unwrap();
        let lay: Vec<(u32, u32, PtxParamKind)> = e.params.iter().map(|p| (p.offset, p.size, p.kind)).collect();
        assert_eq!(
            lay,
            [
                (0, 8, PtxParamKind::GlobalPointer),
                (8, 8, PtxParamKind::GlobalPointer),
                (16, 4, PtxParamKind::Integer),
                (24, 8, PtxParamKind::Float),
                (32, 24, PtxParamKind::Integer)
            ]
        );
        assert_eq!(e.param_size, 56);
        assert_eq!(e.required_block, Some([128, 1, 1]));
        assert_eq!(e.line, 6);
        assert!(m.entry("noargs").unwrap().params.is_empty());
        assert!(m.entry("nope").unwrap_err().contains("vector_add, noargs"));
    }

    #[test]
    fn pointer_align_does_not_move_the_pointer() {
        // clang's `__kernel void k(int b, __global float *s)`: the pointer sits at 8.
        let src = ".version 7.8\n.target sm_90\n.visible .entry k(\n\t.param .u32 k_param_0,\n\
            \t.param .u64 .ptr .global .align 4 k_param_1\n)\n{\n\tret;\n}\n";
        let e = PtxModule::parse(src).unwrap().entries.remove(0);
        assert_eq!(e.params[1].offset, 8);
        assert_eq!(e.param_size, 16);
    }

    #[test]
    fn newer_versions_are_refused() {
        let e = PtxModule::parse("\n.version 99.9\n.target sm_90\n.entry k()\n{}").unwrap_err();
        assert!(e.contains("line 2") && e.contains("99.9"), "{e}");
    }

    #[test]
    fn malformed_signatures_name_the_line() {
        let bad = |s: &str| PtxModule::parse(s).unwrap_err();
        assert!(bad(".version 7.8\n.entry k()\n{}").contains("sm_XX"));
        assert!(bad(".target sm_90\n").contains("no `.entry`"));
        assert!(bad(".target sm_90\n.entry k(.param .q32 x)\n{}").contains("line 2"));
        assert!(bad(".target sm_90\n.entry k(.param .u32)\n{}").contains("no name"));
        assert!(bad(".target sm_90\n.entry k(.param .b8 x[0])\n{}").contains("array size"));
        assert!(bad(".target sm_90\n\n.entry k(.param .u32 x\n{}").contains("line 3"));
    }
}

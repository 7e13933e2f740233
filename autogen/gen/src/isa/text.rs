//! Reading llvm-mc's instruction text in the `isa` generator: operands, registers, the kinds of
//! 16-bit immediates.

pub(super) fn simm16_kind(mnemonic: &str, text: &str) -> &'static str {
    if text.starts_with("hwreg(") {
        "Hwreg"
    } else if text.starts_with("sendmsg") {
        "Sendmsg"
    } else if mnemonic.contains("branch") || mnemonic.starts_with("s_call") {
        "Label"
    } else {
        "Simm16"
    }
}

pub(super) fn special_dwords(t: &str) -> u32 {
    let t = t.trim_start_matches(['-', '|']).trim_end_matches('|');
    match t {
        "vcc" | "exec" | "flat_scratch" | "xnack_mask" | "tba" | "tma" | "src_shared_base" | "src_private_base" => 2,
        _ => 1,
    }
}

/// Register class ('v', 's', 'a', 't' for ttmp), first and last number.
pub(super) fn reg(t: &str) -> Option<(char, u32, u32)> {
    let mut t = t.trim();
    for p in ["neg(", "abs(", "sext(", "-", "|"] {
        t = t.strip_prefix(p).unwrap_or(t);
    }
    t = t.trim_end_matches([')', '|']);
    let t = t.strip_suffix(".l").or_else(|| t.strip_suffix(".h")).unwrap_or(t);
    let (class, rest) = if let Some(r) = t.strip_prefix("ttmp") {
        ('t', r)
    } else {
        let c = t.chars().next()?;
        if !matches!(c, 'v' | 's' | 'a') {
            return None;
        }
        (c, &t[1..])
    };
    if let Some(r) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (a, b) = r.split_once(':')?;
        Some((class, a.parse().ok()?, b.parse().ok()?))
    } else {
        let n: u32 = rest.parse().ok()?;
        Some((class, n, n))
    }
}

const FLAGS: &[&str] = &[
    "glc", "slc", "dlc", "sc0", "sc1", "nt", "offen", "idxen", "lds", "gds", "tfe", "done", "row_en", "clamp", "off",
    "vm", "compr", "nv", "lwe", "a16", "d16", "unorm", "r128", "da",
];

/// The operands of the instruction text (the second VOPD half when `half` is 1).
pub(super) fn operands(text: &str, half: usize) -> Vec<String> {
    let part = text.split(" :: ").nth(half).unwrap_or("");
    let rest = match part.trim().split_once(char::is_whitespace) {
        Some((_, r)) => r.trim(),
        None => return Vec::new(),
    };
    let mut elems = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in rest.chars() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            elems.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(ch);
        }
    }
    elems.push(cur.trim().to_string());
    // The last element carries the modifiers, separated by spaces.
    let last = elems.pop().unwrap_or_default();
    let mut toks = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for ch in last.chars() {
        match ch {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            _ => {}
        }
        if ch == ' ' && depth == 0 {
            if !cur.is_empty() {
                toks.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(ch);
        }
    }
    if !cur.is_empty() {
        toks.push(cur);
    }
    let is_mod = |t: &str| t.contains(':') || FLAGS.contains(&t);
    let mut it = toks.into_iter();
    if let Some(first) = it.next() {
        if !(elems.is_empty() && is_mod(&first) && first != "off") {
            let mut op = first;
            for t in it {
                if is_mod(&t) {
                    break;
                }
                op.push(' ');
                op.push_str(&t);
            }
            elems.push(op);
        }
    }
    elems
}

//! A small deterministic input mutator for the fuzz tests (tests/fuzz, compiler/isa/tests/
//! decode_fuzz.rs): a seeded xorshift generator, byte mutations (bit flips, interesting values,
//! inserts, deletes, splices of other inputs, truncations) and token-level text mutations with a
//! dictionary. Stable Rust only: CI runs it as an ordinary test for a fixed count.

#![allow(dead_code)]

/// xorshift64: the same sequence for the same seed on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // splitmix64 of the seed, so that nearby seeds give unrelated streams (and never 0).
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)) | 1)
    }

    pub fn next(&mut self) -> u64 {
        xorshift(&mut self.0)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// One xorshift64 step.
pub fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

const BYTES: [u8; 10] = [0x00, 0x01, 0x02, 0x10, 0x3f, 0x40, 0x7f, 0x80, 0xfe, 0xff];
const WORDS: [u32; 12] =
    [0, 1, 2, 4, 0x40, 0x7f, 0xff, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff, 0x0001_0000];

/// `input` changed by 1 to 8 byte mutations (rarely 16); `others` supply splices; the result is
/// at most `max_len` bytes.
pub fn mutate_bytes(rng: &mut Rng, input: &[u8], others: &[Vec<u8>], max_len: usize) -> Vec<u8> {
    let mut b = input.to_vec();
    let n = if rng.one_in(16) { 16 } else { 1 + rng.below(8) };
    for _ in 0..n {
        mutate_once(rng, &mut b, others);
    }
    b.truncate(max_len);
    b
}

fn mutate_once(rng: &mut Rng, b: &mut Vec<u8>, others: &[Vec<u8>]) {
    let len = b.len();
    let at = rng.below(len.max(1));
    match rng.below(11) {
        0 if len > 0 => b[at] ^= 1 << rng.below(8),
        1 if len > 0 => b[at] = *rng.pick(&BYTES),
        2 if len > 0 => b[at] = rng.next() as u8,
        3 if len >= 4 => {
            // An interesting 32-bit value, usually at an aligned offset (sizes, offsets, counts).
            let at = if rng.one_in(4) { at.min(len - 4) } else { (at & !3).min(len - 4) };
            b[at..at + 4].copy_from_slice(&rng.pick(&WORDS).to_le_bytes());
        }
        4 if len >= 8 => {
            // An offset-like u64 nudged up or down.
            let at = (at & !7).min(len - 8);
            let v = u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
            let d = 1 + rng.below(64) as u64;
            let v = if rng.one_in(2) { v.wrapping_add(d) } else { v.wrapping_sub(d) };
            b[at..at + 8].copy_from_slice(&v.to_le_bytes());
        }
        5 => {
            let k = 1 + rng.below(16);
            let ins: Vec<u8> = (0..k).map(|_| rng.next() as u8).collect();
            b.splice(at.min(len)..at.min(len), ins);
        }
        6 if len > 0 => {
            let k = 1 + rng.below(32.min(len));
            b.drain(at..(at + k).min(len));
        }
        7 if !others.is_empty() => {
            // A piece of another input, inserted or written over.
            let o = rng.pick(others);
            if o.is_empty() {
                return;
            }
            let a = rng.below(o.len());
            let k = 1 + rng.below(256.min(o.len() - a));
            let piece = o[a..a + k].to_vec();
            if rng.one_in(2) || len == 0 {
                b.splice(at.min(len)..at.min(len), piece);
            } else {
                let end = (at + k).min(len);
                b.splice(at..end, piece);
            }
        }
        8 => b.truncate(at),
        9 if len > 0 => {
            // A chunk repeated: loops, duplicate entries, counts that disagree.
            let k = 1 + rng.below(64.min(len - at));
            let chunk = b[at..at + k].to_vec();
            let to = rng.below(len + 1);
            b.splice(to..to, chunk);
        }
        _ if len > 0 => b[at] = b[at].wrapping_add(rng.below(5) as u8).wrapping_sub(2),
        _ => b.push(rng.next() as u8),
    }
}

/// Numbers that sit on the edges parsers get wrong.
pub const NUMBERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "4294967295",
    "4294967296",
    "2147483648",
    "-2147483649",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "0x",
    "0xffffffffffffffff",
    "0x1ffffffffffffffff",
    "-0x8000000000000000",
    "1e400",
    "-0.0",
    "0f7FC00000",
    "0d7FF8000000000000",
    "1048576",
];

/// `input` changed at the token level: dictionary tokens or edge numbers put in place of or
/// between words, lines deleted, duplicated or spliced from another input, a truncation, and now
/// and then byte mutations. The result is valid UTF-8.
pub fn mutate_text(rng: &mut Rng, input: &str, others: &[Vec<u8>], dict: &[&str]) -> String {
    let mut s = input.to_string();
    let n = 1 + rng.below(4);
    for _ in 0..n {
        s = mutate_text_once(rng, &s, others, dict);
    }
    s
}

/// Byte ranges of the words of `s` (runs of identifier-like characters).
fn words(s: &str) -> Vec<(usize, usize)> {
    let mut v = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        let w = c.is_ascii_alphanumeric() || "_.%$".contains(c);
        match (w, start) {
            (true, None) => start = Some(i),
            (false, Some(a)) => {
                v.push((a, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(a) = start {
        v.push((a, s.len()));
    }
    v
}

fn boundary(s: &str, mut at: usize) -> usize {
    at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn mutate_text_once(rng: &mut Rng, s: &str, others: &[Vec<u8>], dict: &[&str]) -> String {
    let token = |rng: &mut Rng| -> String {
        match rng.below(8) {
            0 | 1 => rng.pick(NUMBERS).to_string(),
            2 if rng.one_in(8) => "x".repeat(1 + rng.below(100_000)),
            _ if !dict.is_empty() => rng.pick(dict).to_string(),
            _ => rng.pick(NUMBERS).to_string(),
        }
    };
    let lines: Vec<&str> = s.split_inclusive('\n').collect();
    match rng.below(9) {
        0..=2 => {
            // A word replaced.
            let w = words(s);
            if w.is_empty() {
                return format!("{s}{}", token(rng));
            }
            let (a, b) = *rng.pick(&w);
            format!("{}{}{}", &s[..a], token(rng), &s[b..])
        }
        3 => {
            // A token inserted (with a separator now and then).
            let at = boundary(s, rng.below(s.len() + 1));
            let sep = *rng.pick(&["", " ", ", ", "\n", ";", "[", "]", "(", ")", "{", "}", "<", ">", ":", "\""]);
            format!("{}{sep}{}{}", &s[..at], token(rng), &s[at..])
        }
        4 if !lines.is_empty() => {
            let k = rng.below(lines.len());
            let mut v = lines.clone();
            if rng.one_in(2) {
                v.remove(k);
            } else {
                let times = if rng.one_in(8) { 1 + rng.below(200) } else { 1 };
                for _ in 0..times {
                    v.insert(k, lines[k]);
                }
            }
            v.concat()
        }
        5 if !others.is_empty() => {
            // Lines of another input spliced in.
            let o = String::from_utf8_lossy(rng.pick(others).as_slice()).into_owned();
            let ol: Vec<&str> = o.split_inclusive('\n').collect();
            if ol.is_empty() {
                return s.to_string();
            }
            let a = rng.below(ol.len());
            let k = 1 + rng.below(8.min(ol.len() - a));
            let at = rng.below(lines.len() + 1);
            let mut v = lines.clone();
            v.splice(at..at, ol[a..a + k].iter().copied());
            v.concat()
        }
        6 => s[..boundary(s, rng.below(s.len() + 1))].to_string(),
        7 => {
            let b = mutate_bytes(rng, s.as_bytes(), others, usize::MAX);
            String::from_utf8_lossy(&b).into_owned()
        }
        _ => {
            // A word deleted.
            let w = words(s);
            if w.is_empty() {
                return s.to_string();
            }
            let (a, b) = *rng.pick(&w);
            format!("{}{}", &s[..a], &s[b..])
        }
    }
}

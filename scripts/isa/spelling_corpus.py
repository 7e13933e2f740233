#!/usr/bin/env python3
"""Writes tests/isa/spelling/<arch>.txt: the golden vectors respelled in the other forms llvm-mc 22 accepts.

Each golden line (llvm-mc's canonical text) is rewritten by every rule below (integers in other bases,
the other branch-offset spelling, defaults written or omitted, modifiers reordered, suffixes, numeric
hwreg/sendmsg/waitcnt, true16 `.l` left implicit, case, whitespace, comments ...). Every rewrite is
assembled by llvm-mc 22; only the ones it accepts without a diagnostic are kept, each with the bytes
llvm-mc gives it (usually the golden bytes; where not, llvm-mc's). At most PER_KEY rewrites are kept
per (rule, mnemonic), so the files stay small. Lines are grouped under `# class <rule>` headers; the
line format is the golden one, `text ; [0x..,..]`.

Usage: scripts/isa/spelling_corpus.py [--arch gfx1100,...]   (needs /usr/bin/llvm-mc-22)
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcoracle  # noqa: E402

ARCHS = ["gfx1100", "gfx1201", "gfx942", "gfx950"]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PER_KEY = 2
# Kept lines per rule at most (spread evenly over the mnemonics), so the files stay a few MB in all.
PER_RULE = 300

# Tokens of an operand string: registers, floats, words and strings are kept; integers are respelled.
TOKEN = re.compile(
    r'(?P<str>"[^"]*")'
    r"|(?P<reg>\b(?:ttmp|[vsa])(?:\[\d+(?::\d+)?\]|\d+)(?:\.[lh])?)"
    r"|(?P<float>-?\d+\.\d+(?:e[-+]?\d+)?)"
    r"|(?P<word>[A-Za-z_][A-Za-z_0-9]*)"
    r"|(?P<int>-?(?:0x[0-9a-fA-F]+|\d+))"
)

SYMBOLIC = ("hwreg(", "sendmsg(", "vmcnt(", "expcnt(", "lgkmcnt(", "depctr_", "instid0(", "instskip(",
            "instid1(", "swizzle(", "loadcnt(", "storecnt(", "dscnt(", "kmcnt(", "samplecnt(", "bvhcnt(",
            "expcnt(", "vm_vsrc(", "va_vdst(", "sa_sdst(", "va_sdst(", "va_ssrc(", "va_vcc(", "hold_cnt(")

# Modifiers whose value written out is the default; each is appended where absent.
DEFAULTS = ["offset:0", "op_sel:[0,0]", "op_sel:[0,0,0]", "op_sel:[0,0,0,0]", "neg_lo:[0,0,0]",
            "neg_hi:[0,0,0]", "neg_lo:[0,0]", "neg_hi:[0,0]", "bound_ctrl:0", "fi:0", "wait_exp:0",
            "row_mask:0xf", "bank_mask:0xf", "mul:1", "div:1", "offset0:0", "offset1:0", "wait_vdst:0",
            "wait_va_vdst:0", "wait_vm_vsrc:0", "index_key:0", "byte_sel:0", "cbsz:0", "abid:0", "blgp:0",
            "scope:SCOPE_CU", "th:TH_LOAD_RT", "th:TH_STORE_RT", "th:TH_ATOMIC_RT", "clamp:0",
            "dst_sel:DWORD", "dst_unused:UNUSED_PAD", "src0_sel:DWORD", "src1_sel:DWORD", "op_sel_hi:[1,1]",
            "op_sel_hi:[1,1,1]", "op_sel_hi:[0,0,0]", "format:1", "row_mask:15", "bank_mask:15", "noa16", "nod16", "nor128"]
OMIT = ("row_mask:0xf", "bank_mask:0xf", "dst_sel:DWORD", "dst_unused:UNUSED_PAD", "src0_sel:DWORD",
        "src1_sel:DWORD", "offset:0", "bound_ctrl:1", "fi:0", "wait_exp:0", "quad_perm:[0,1,2,3]")


def split_operands(rest):
    """Top-level items of the operand text: (item, preceded_by_comma)."""
    items, cur, depth, quote, comma = [], "", 0, False, False
    for ch in rest:
        if quote:
            cur += ch
            quote = ch != '"'
            continue
        if ch == '"':
            quote = True
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if depth == 0 and ch in ", ":
            if cur:
                items.append((cur, comma))
                cur, comma = "", False
            if ch == ",":
                comma = True
            continue
        cur += ch
    if cur:
        items.append((cur, comma))
    return items


class Inst:
    def __init__(self, text):
        parts = text.split(None, 1)
        self.mnem = parts[0]
        items = split_operands(parts[1]) if len(parts) > 1 else []
        self.ops, self.mods = [], []
        for k, (it, comma) in enumerate(items):
            (self.ops if k == 0 or comma else self.mods).append(it)

    def is_dpp(self):
        return any(m.startswith(("quad_perm", "dpp8", "row_", "wave_", "bound_ctrl")) for m in self.mods)

    def render(self, mnem=None, ops=None, mods=None):
        mnem = self.mnem if mnem is None else mnem
        ops = self.ops if ops is None else ops
        mods = self.mods if mods is None else mods
        s = mnem
        if ops:
            s += " " + ", ".join(ops)
        if mods:
            s += " " + " ".join(mods)
        return s


def map_ints(s, f):
    out, pos = [], 0
    for m in TOKEN.finditer(s):
        out.append(s[pos : m.start()])
        tok = m.group(0)
        if m.group("int") is not None:
            neg = tok.startswith("-")
            body = tok[1:] if neg else tok
            val = int(body, 16) if body.lower().startswith("0x") else int(body, 10)
            r = f(-val if neg else val, body)
            out.append(tok if r is None else r)
        else:
            out.append(tok)
        pos = m.end()
    out.append(s[pos:])
    return "".join(out)


def hexs(v):
    return f"-0x{-v:x}" if v < 0 else f"0x{v:x}"


INT_RULES = {
    "int_hex": lambda v, b: hexs(v),
    "int_hex_upper": lambda v, b: hexs(v).upper().replace("0X", "0x"),
    "int_dec": lambda v, b: str(v),
    "int_hex_leading_zeros": lambda v, b: (f"-0x000{-v:x}" if v < 0 else f"0x000{v:x}"),
    "int_octal_leading_zero": lambda v, b: ("0" + b) if v > 0 and not b.startswith(("0x", "0")) else None,
    "int_negative": lambda v, b: (str(v - (1 << 32)) if (1 << 31) <= v < (1 << 32)
                                  else str(v - (1 << 16)) if (1 << 15) <= v < (1 << 16) else None),
    "int_binary": lambda v, b: (f"0b{v:b}" if 0 <= v < 256 else None),
    "int_paren_expr": lambda v, b: f"({v})",
    "int_sum_expr": lambda v, b: (f"{v - 1}+1" if v > 0 else None),
}


DEFAULT_SCOPE = [
    (("bound_ctrl", "fi", "row_mask", "bank_mask"), lambda i: i.mnem.endswith("_dpp") or i.is_dpp()),
    (("dst_sel", "dst_unused", "src0_sel", "src1_sel"), lambda i: i.mnem.endswith("_sdwa")),
    (("offset", "offset0", "offset1", "format"),
     lambda i: i.mnem.startswith(("ds_", "buffer_", "tbuffer_", "global_", "flat_", "scratch_", "s_load", "s_buffer",
                                  "s_store", "s_scratch", "s_atc", "image_", "s_prefetch"))),
    (("op_sel", "neg_lo", "neg_hi", "op_sel_hi", "mul", "div", "clamp", "byte_sel"),
     lambda i: i.mnem.startswith("v_") and not i.is_dpp()),
    (("wait_exp", "wait_vdst", "wait_va_vdst", "wait_vm_vsrc"),
     lambda i: i.mnem.startswith(("v_interp", "lds_", "ds_param", "ds_direct"))),
    (("cbsz", "abid", "blgp"), lambda i: "mfma" in i.mnem),
    (("index_key",), lambda i: "swmmac" in i.mnem),
    (("noa16", "nod16", "nor128"), lambda i: i.mnem.startswith("image_")),
    (("scope", "th"), lambda i: i.mnem.startswith(("buffer_", "global_", "flat_", "scratch_", "s_load", "s_buffer", "image_", "tbuffer_"))),
]


def default_applies(name, inst):
    return any(name in names and pred(inst) for names, pred in DEFAULT_SCOPE)


def rewrites(text, bs):
    """Yields (rule, rewritten text)."""
    inst = Inst(text)
    rest = text[len(inst.mnem) :]
    for name, f in INT_RULES.items():
        yield name, inst.mnem + map_ints(rest, f)
    if inst.mnem.startswith(("s_branch", "s_cbranch", "s_call")) and inst.ops:
        try:
            v = int(inst.ops[-1], 0)
            alt = v + 65536 if v < 0 else v - 65536 if v >= 0x8000 else None
            if alt is not None:
                yield "branch_offset_other_spelling", inst.render(ops=inst.ops[:-1] + [str(alt)])
        except ValueError:
            pass
    yield "upper_mnemonic", inst.render(mnem=inst.mnem.upper())
    yield "upper_all", text.upper()
    yield "whitespace_tab", inst.mnem + "\t" + rest.strip()
    yield "whitespace_spaces", "  " + inst.mnem + "   " + "  ,  ".join(inst.ops) + ("   " + "   ".join(inst.mods) if inst.mods else "")
    yield "whitespace_no_space_after_comma", inst.mnem + " " + ",".join(inst.ops) + (" " + " ".join(inst.mods) if inst.mods else "")
    yield "comment_slashes", text + " // comment"
    yield "comment_semicolon", text + " ; comment"
    m = inst.mnem
    if m.endswith("_e32") or m.endswith("_e64"):
        yield "suffix_dropped", inst.render(mnem=m[:-4])
    elif m.startswith("v_") and not m.endswith(("_dpp", "_sdwa")):
        yield "suffix_e64_added", inst.render(mnem=m + "_e64")
        yield "suffix_e32_added", inst.render(mnem=m + "_e32")
    if ".l" in rest:
        yield "true16_l_implicit", inst.mnem + re.sub(r"\b(v\d+|v\[\d+:\d+\])\.l\b", r"\1", rest)
    names = {md.split(":")[0] for md in inst.mods}
    for d in DEFAULTS:
        if d.split(":")[0] not in names and default_applies(d.split(":")[0], inst):
            yield "default_written_" + d.split(":")[0], inst.render(mods=inst.mods + [d])
    for o in OMIT:
        if o in inst.mods:
            yield "default_omitted_" + o.split(":")[0], inst.render(mods=[x for x in inst.mods if x != o])
    if "row_mask:0xf" in inst.mods and "bank_mask:0xf" in inst.mods:
        yield "default_omitted_dpp_masks", inst.render(mods=[x for x in inst.mods if x not in ("row_mask:0xf", "bank_mask:0xf")])
    if len(inst.mods) >= 2:
        yield "modifier_order_reversed", inst.render(mods=list(reversed(inst.mods)))
        yield "modifier_order_rotated", inst.render(mods=inst.mods[1:] + inst.mods[:1])
    items = inst.ops + inst.mods
    sym = [i for i, x in enumerate(items) if any(x.startswith(p) or ("offset:" + p) in x for p in SYMBOLIC)]
    if sym and len(bs) >= 4:
        simm = bs[0] | bs[1] << 8
        kind = re.match(r"(?:offset:)?([a-z_]+?)(?:\d*\(|_)", items[sym[0]]).group(1)
        num = f"offset:0x{simm:x}" if items[sym[0]].startswith("offset:") else f"0x{simm:x}"
        keep = [x for i, x in enumerate(items) if i not in sym and x != "|"]
        first = sym[0]
        new_ops = [x for x in inst.ops if x in keep]
        if first < len(inst.ops):
            new_ops.insert(min(first, len(new_ops)), num)
            new_mods = [x for x in inst.mods if x in keep]
        else:
            new_mods = [x for x in inst.mods if x in keep] + [num]
        yield "numeric_" + kind, inst.render(ops=new_ops, mods=new_mods)
        yield "numeric_" + kind + "_decimal", inst.render(ops=new_ops, mods=new_mods).replace(f"0x{simm:x}", str(simm))
    hwn = re.search(r"hwreg\((HW_REG_[A-Z0-9_]+)", text)
    if hwn and len(bs) >= 4:
        yield "hwreg_numeric_id", text.replace(hwn.group(0), f"hwreg({bs[0] & 0x3F}")
    fm = re.search(r"format:\[[^\]]*\]", text)
    if fm:
        # The numeric format is found by trying them all; only the one with the golden bytes is kept.
        for n in range(128):
            yield "same_bytes_format_numeric", text.replace(fm.group(0), f"format:{n}")
    if fm and "BUF_DATA_FORMAT_" in fm.group(0):
        # gfx9: a default part written out (llvm-mc prints neither BUF_DATA_FORMAT_8 nor UNORM).
        yield "format_default_part_written", re.sub(r"BUF_NUM_FORMAT_[A-Z0-9_]+", "BUF_NUM_FORMAT_UNORM", text)
        yield "format_default_part_written", re.sub(r"BUF_DATA_FORMAT_[A-Z0-9_]+", "BUF_DATA_FORMAT_8", text)
    va = re.match(r"(image_\w+\s+[^,]+,\s*)v\[(\d+):(\d+)\]", text)
    if va and 5 <= int(va.group(3)) - int(va.group(2)) + 1 <= 7 and int(va.group(2)) + 7 <= 255:
        # gfx11 takes an 8-register sequential address range for 5 to 7 addresses.
        a = int(va.group(2))
        yield "image_addr_range_oversized", text[: va.start(2) - 2] + f"v[{a}:{a + 7}]" + text[va.end(3) + 1 :]
    if "dim:SQ_RSRC_IMG_" in text:
        # Image dimensions in their short form (`dim:2D`).
        yield "image_dim_short", text.replace("dim:SQ_RSRC_IMG_", "dim:")
    hw = re.search(r"hwreg\(([^,()]+), 0, 32\)", text)
    if hw:
        yield "hwreg_short_form", text.replace(hw.group(0), f"hwreg({hw.group(1)})")
    if re.search(r"\b[vs]\d+\b", rest):
        yield "register_brackets", inst.mnem + re.sub(r"\b([vs])(\d+)\b", r"\1[\2]", rest)
        yield "register_range_of_one", inst.mnem + re.sub(r"\b([vs])(\d+)\b", r"\1[\2:\2]", rest)
    if "|" in rest and not inst.mnem.startswith("s_delay_alu"):
        yield "abs_function", inst.mnem + re.sub(r"\|([^|]+)\|", r"abs(\1)", rest)
    if re.search(r"-([vs]\d|[vs]\[)", rest):
        yield "neg_function", inst.mnem + re.sub(r"-((?:[vs](?:\d+|\[\d+:\d+\]))(?:\.[lh])?)", r"neg(\1)", rest)
    if re.search(r"\d\.\d", rest):
        yield "float_trailing_zero", inst.mnem + re.sub(r"(\d\.\d+)(?![\de])", r"\g<1>0", rest)
    if ".h" in rest and any(md.startswith("op_sel:") for md in inst.mods):
        # gfx11+ true16 VOP3: the op_sel that `.h` registers imply, left out.
        yield "true16_op_sel_implicit", inst.render(mods=[x for x in inst.mods if not x.startswith("op_sel:")])
    m32 = "_f32" in inst.mnem and "16" not in inst.mnem and "64" not in inst.mnem
    m16 = "_f16" in inst.mnem and "32" not in inst.mnem and "64" not in inst.mnem
    fl = next((o for o in inst.ops if o in INLINE_FLOAT_BITS), None)
    # Not where another literal is written (llvm-mc then encodes that one for both) nor in
    # v_fma_mix*, whose source type op_sel_hi decides.
    other_lit = any(re.fullmatch(r"0x[0-9a-f]{3,8}", o) for o in inst.ops) or "mix" in inst.mnem
    if fl and (m32 or m16) and not other_lit:
        # An inline float written as its bit pattern (llvm-mc folds it back to the constant).
        bits = INLINE_FLOAT_BITS[fl][0 if m16 else 1]
        yield "inline_float_as_hex", inst.render(ops=[f"0x{bits:x}" if o == fl else o for o in inst.ops])
        yield "inline_float_as_lit", inst.render(ops=[f"lit({fl})" if o == fl else o for o in inst.ops])
    named = next((o for o in inst.ops[1:] if o in ("vcc_lo", "vcc_hi", "m0", "exec_lo", "exec_hi", "src_scc")), None)
    if named and inst.mnem.startswith("v_"):
        # A source modifier on a named register (`-vcc_hi`).
        yield "neg_named_register", inst.render(ops=[("-" + o) if o == named else o for o in inst.ops])
    hexlit = next((o for o in inst.ops if re.fullmatch(r"0x[0-9a-f]{3,8}", o)), None)
    if hexlit and inst.mnem.startswith("v_"):
        # A literal written as lit(...).
        yield "literal_lit_wrapped", inst.render(ops=[f"lit({o})" if o == hexlit else o for o in inst.ops])
    if re.search(r"\bv\d+\.[lh]\b", rest) and any(md.startswith("op_sel:") for md in inst.mods):
        # gfx11+ VOP3/VINTERP: halves left to op_sel (`v1 ... op_sel:[1,0,0,0]` is `v1.h`).
        yield "true16_halves_from_op_sel", inst.mnem + re.sub(r"\b(v\d+)\.[lh]\b", r"\1", rest)
    if re.search(r"\bsrc_(shared_base|shared_limit|private_base|private_limit|pops_exiting_wave_id|vccz|execz|scc)\b", rest):
        yield "special_register_short_name", inst.mnem + re.sub(r"\bsrc_(\w+)", r"\1", rest)
    wc = re.search(r"\b(vmcnt|expcnt|lgkmcnt)\((\d+)\)", rest)
    if wc:
        # Saturating counters: the value as written, and one past the maximum (clamped).
        yield "waitcnt_sat", text.replace(wc.group(0), f"{wc.group(1)}_sat({wc.group(2)})")
        yield "waitcnt_sat_clamped", text.replace(wc.group(0), f"{wc.group(1)}_sat(0xFFFF)")
    sm = re.search(r"sendmsg\((MSG_[A-Z_]+)((?:, [A-Z_]+)?)", rest)
    if sm and sm.group(2):
        # A numeric message id with a symbolic operation.
        ids = {"MSG_GS": 2, "MSG_GS_DONE": 3, "MSG_SYSMSG": 15}
        if sm.group(1) in ids:
            yield "sendmsg_numeric_id_named_op", text.replace(sm.group(1), str(ids[sm.group(1)]), 1)
    if not inst.ops and inst.mnem.startswith("s_") and len(bs) == 4:
        yield "sopp_explicit_zero", inst.mnem + " 0"


# Inline float constants' (f16, f32) bit patterns.
INLINE_FLOAT_BITS = {
    "0.5": (0x3800, 0x3F000000), "-0.5": (0xB800, 0xBF000000), "1.0": (0x3C00, 0x3F800000),
    "-1.0": (0xBC00, 0xBF800000), "2.0": (0x4000, 0x40000000), "-2.0": (0xC000, 0xC0000000),
    "4.0": (0x4400, 0x40800000), "-4.0": (0xC400, 0xC0800000), "0.15915494": (0x3118, 0x3E22F983),
}


def variant_key(rule, text):
    """The written default itself, for default_written_* (op_sel:[0,0] and [0,0,0] are both tried)."""
    return text.rsplit(" ", 1)[-1] if rule.startswith("default_written_") else ""


def per_key_cap(rule, mnem):
    """Named 16-bit fields (hwreg ids, sendmsg ids, waitcnt fields) are kept whole: one line per value."""
    if rule == "simm16_canonical" or rule.startswith(("numeric_", "branch_offset", "hwreg_numeric")):
        return 300
    if rule.startswith("same_bytes_"):
        return 128
    return PER_KEY


def spread(lines, n):
    """n lines taken evenly over the list (all when it is short)."""
    if len(lines) <= n:
        return lines
    return [lines[k * len(lines) // n] for k in range(n)]


# 16-bit immediates tried in every SOPP/SOPK golden word: branch offsets both ways, waitcnt/depctr/
# delay_alu/wait_alu fields, sendmsg ids, bits no symbolic form covers (0x3141, 0xc1d1).
SIMM16 = [0, 1, 2, 3, 7, 0x10, 0x1F, 0x3F, 0x7F, 0xFF, 0x100, 0x3141, 0x3F70, 0x7FFF, 0x8000, 0xC07F, 0xC1D1,
          0xF803, 0xFC07, 0xFFF4, 0xFFF9, 0xFFFE, 0xFFFF]


def simm16_values(mnem):
    if "getreg" in mnem or "setreg" in mnem:
        # Every hwreg id, whole register and a bit field.
        return [i | 31 << 11 for i in range(64)] + [i | 4 << 6 | 7 << 11 for i in range(64)]
    if mnem.startswith("s_sendmsg"):
        return list(range(256)) + [m | o << 4 | st << 8 for m in (2, 3) for o in range(4) for st in range(4)]
    return SIMM16


def seeds(arch, golden):
    """Canonical llvm-mc text of SOPP/SOPK words with other 16-bit immediates (names included)."""
    words, seen = [], set()
    for text, bs in golden:
        mnem = text.split(None, 1)[0]
        sopp = len(bs) == 4 and bs[3] == 0xBF and bs[2] & 0x80
        sopk = len(bs) == 4 and 0xB0 <= bs[3] <= 0xBD and mnem.startswith("s_")
        if not (sopp or sopk) or mnem in seen:
            continue
        seen.add(mnem)
        for v in simm16_values(mnem):
            words.append([v & 0xFF, v >> 8, bs[2], bs[3]])
    out = []
    for ans in mcoracle.disassemble(arch, words):
        if ans is not None:
            out.append(ans)
    return out


def build(arch):
    golden_path = os.path.join(ROOT, "tests", "isa", "golden", f"{arch}.txt")
    golden = []
    with open(golden_path) as f:
        for line in f:
            p = mcoracle.parse_line(line.rstrip("\n"))
            if p:
                golden.append(p)
    seen = {t for t, _ in golden}
    extra = [(t, bs) for t, bs in seeds(arch, golden) if t not in seen]
    cands = []
    for text, bs in extra:
        cands.append(("simm16_canonical", text.split(None, 1)[0], text, bs))
    for text, bs in golden + extra:
        mnem = text.split(None, 1)[0]
        for rule, new in rewrites(text, bs):
            cands.append((rule, mnem, new, bs))
    # Identity rewrites and repeats carry nothing new.
    # At most PER_KEY + 1 tries per (rule, what it wrote, mnemonic): the rest would be sampled away.
    uniq, dup, tries = [], set(), {}
    for c in cands:
        if c[2] in seen or (c[0], c[2]) in dup:
            continue
        k = (c[0], c[1], variant_key(c[0], c[2]))
        if tries.get(k, 0) > per_key_cap(c[0], c[1]):
            continue
        tries[k] = tries.get(k, 0) + 1
        dup.add((c[0], c[2]))
        uniq.append(c)
    answers = mcoracle.assemble(arch, [c[2] for c in uniq])
    per_key, by_rule, stats = {}, {}, {}
    for (rule, mnem, new, bs), ans in zip(uniq, answers):
        st = stats.setdefault(rule, [0, 0, 0])
        st[0] += 1
        if ans is None or (rule.startswith("same_bytes_") and ans[1] != bs):
            continue
        st[1] += 1
        st[2] += ans[1] == bs
        k = (rule, mnem)
        if per_key.get(k, 0) >= per_key_cap(rule, mnem):
            continue
        per_key[k] = per_key.get(k, 0) + 1
        by_rule.setdefault(rule, []).append(mcoracle.fmt_line(new, ans[1]))
    out = [f"# Spelling corpus for {arch}: golden vectors rewritten in other spellings llvm-mc 22 accepts, with"
           " llvm-mc's bytes.", "# Generated by scripts/isa/spelling_corpus.py; do not edit."]
    for rule in sorted(by_rule):
        if per_key_cap(rule, "") == PER_KEY:
            by_rule[rule] = spread(by_rule[rule], PER_RULE)
        out.append(f"# class {rule}")
        out.extend(by_rule[rule])
    path = os.path.join(ROOT, "tests", "isa", "spelling", f"{arch}.txt")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    kept = sum(len(v) for v in by_rule.values())
    print(f"{arch}: {len(uniq)} rewrites tried, {sum(s[1] for s in stats.values())} accepted, {kept} kept")
    for rule in sorted(stats):
        t, a, same = stats[rule]
        print(f"  {rule:<40} tried {t:>6} accepted {a:>6} golden-bytes {same:>6} kept {len(by_rule.get(rule, []))}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", default=",".join(ARCHS))
    args = ap.parse_args()
    for a in args.arch.split(","):
        build(a)


if __name__ == "__main__":
    main()

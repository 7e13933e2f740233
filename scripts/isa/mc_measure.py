#!/usr/bin/env python3
"""Measures our assembler and disassembler against llvm-mc 22 on real spellings (not a test).

Inputs under DATA (default /work/wt/mcdata, outside the repository; never commit it):
  llvm/*.s      LLVM's assembler tests (llvm/test/MC/AMDGPU): every instruction line is tried;
  llvm/*.txt    LLVM's disassembler tests (llvm/test/MC/Disassembler/AMDGPU): every byte line;
  clang/<arch>/*.s  clang -S output, made by --clang from the repository's OpenCL kernels.
llvm-mc decides, per architecture, which lines it accepts and their bytes (and the text it prints
for bytes); compiler/isa/examples/mc_measure.rs gives our verdicts. Printed: per architecture the
accept and byte-match rates of our assembler, the text-match and round-trip rates of our
disassembler, and the top failure classes with an example each.

Usage: scripts/isa/mc_measure.py [--data DIR] [--arch gfx1100,...] [--clang] [--top 20] [--md FILE]
                                 [--vectors | --vectors-fixed OLD_BIN]
"""

import argparse
import collections
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcoracle  # noqa: E402

ARCHS = ["gfx1100", "gfx1201", "gfx942", "gfx950"]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CL_SOURCES = ["tests/kernels/*.cl", "tests/fixtures/codeobj/kernels.cl"]
BYTE_LINE = re.compile(r"^\s*(0x[0-9a-fA-F]{2}[\s,]*)+$")
MNEMONIC = re.compile(r"^[a-zA-Z][a-zA-Z0-9_]*\b")


def make_clang(data):
    for arch in ARCHS:
        d = os.path.join(data, "clang", arch)
        os.makedirs(d, exist_ok=True)
        waves = [[]] + ([["-mwavefrontsize64"]] if arch.startswith("gfx1") else [])
        for pat in CL_SOURCES:
            for src in glob.glob(os.path.join(ROOT, pat)):
                for opt in ("-O1", "-O3"):
                    for w in waves:
                        out = os.path.join(d, f"{os.path.basename(src)}{opt}{''.join(w)}.s")
                        cmd = ["clang-22", "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib",
                               f"-mcpu={arch}", opt, *w, "-S", src, "-o", out]
                        subprocess.run(cmd, capture_output=True)


def asm_lines(path):
    """Instruction lines of an assembly file: comments, directives, labels and symbol uses dropped."""
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            s = line.split("//", 1)[0].split(";", 1)[0].strip()
            if not s or s.startswith((".", "#")) or s.endswith(":") or not MNEMONIC.match(s):
                continue
            if ".L" in s or "@" in s or "=" in s:
                continue
            out.append(s)
    return out


def byte_lines(path):
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            s = line.split("#", 1)[0].split("//", 1)[0].strip()
            if s and BYTE_LINE.match(s):
                out.append([int(x, 16) for x in re.findall(r"0x[0-9a-fA-F]{2}", s)])
    return out


def collect(data, arch):
    asm, dis = {}, {}
    for p in sorted(glob.glob(os.path.join(data, "llvm", "*.s"))) + sorted(
            glob.glob(os.path.join(data, "clang", arch, "*.s"))):
        # pat*.s: LLVM pages' operand and modifier patterns applied to the golden vectors' opcodes
        # (generated outside the repository), not lines of LLVM's pages.
        src = "clang" if "/clang/" in p else "pattern" if os.path.basename(p).startswith("pat") else "llvm"
        for s in asm_lines(p):
            asm.setdefault(s, f"{src}:{os.path.basename(p)}")
    for p in sorted(glob.glob(os.path.join(data, "llvm", "*.txt"))):
        # A page named `..._<arch>.txt` holds words of that architecture only (words of another
        # can crash llvm-mc's disassembler, which ends the oracle's whole batch).
        own = [a for a in ARCHS if os.path.basename(p).endswith(f"_{a}.txt")]
        if own and own != [arch]:
            continue
        for bs in byte_lines(p):
            dis.setdefault(tuple(bs), os.path.basename(p))
    return asm, dis


MOD = re.compile(r"\b([a-z_0-9]+):")


def mods(text):
    return set(MOD.findall(text))


def tags(inp, canon):
    """How the input differs from llvm-mc's printing of it."""
    t = []
    mi, mc = inp.split(None, 1)[0].lower(), canon.split(None, 1)[0]
    strip = re.compile(r"_(e32|e64|dpp|sdwa|e64_dpp)$")
    if mi != mc:
        t.append("suffix" if strip.sub("", mi) == strip.sub("", mc) else f"alias({mi}->{mc})")
    omitted = sorted(mods(canon) - mods(inp))
    written = sorted(mods(inp) - mods(canon))
    if omitted:
        t.append("defaults-omitted:" + ",".join(omitted))
    if written:
        t.append("defaults-written:" + ",".join(written))
    if not t and " ".join(inp.split()) != canon:
        t.append("operand-spelling")
    return " ".join(t) or "canonical"


def norm(msg):
    msg = re.sub(r"^.*?:\d+:\d+: ", "", msg)
    msg = re.sub(r"'[^']*'", "'…'", msg)
    msg = re.sub(r"\(closest encoding.*", "", msg)
    return re.sub(r"\d+", "N", msg)[:90]


VECTOR_HEADER = """# Instruction lines of LLVM's public MC tests (llvm/llvm-project llvm/test/MC/AMDGPU), not written
# here, that llvm-mc 22 accepts for {arch}, each with the bytes it gives them; one class per source
# file. Made by scripts/isa/mc_measure.py --vectors from a sample held outside the repository;
# checked by compiler/isa/tests/spelling.rs like the spelling corpus. Do not edit.
"""


def write_vectors(arch, asm, acc):
    """tests/isa/llvm_mc/<arch>.txt: the LLVM lines llvm-mc accepts, with its bytes, by source file."""
    by_file = collections.defaultdict(list)
    for s, (_, bs) in acc:
        src = asm[s]
        if src.startswith("llvm:"):
            by_file[src].append(mcoracle.fmt_line(s, bs))
    out = [VECTOR_HEADER.format(arch=arch).rstrip("\n")]
    for f in sorted(by_file):
        out.append(f"# class {f}")
        out.extend(by_file[f])
    d = os.path.join(ROOT, "tests", "isa", "llvm_mc")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, f"{arch}.txt"), "w") as fh:
        fh.write("\n".join(out) + "\n")


FIXED_CAP = 300


def append_fixed(arch, asm, fixed):
    """Appends to tests/isa/llvm_mc/<arch>.txt the LLVM (and pattern) lines a fix made pass (not
    yet there), each under its source file's class, with llvm-mc's bytes; at most FIXED_CAP per
    class, spread evenly over it."""
    path = os.path.join(ROOT, "tests", "isa", "llvm_mc", f"{arch}.txt")
    have = set()
    if os.path.exists(path):
        have = {l.rsplit(" ; [", 1)[0] for l in open(path) if not l.startswith("#") and " ; [" in l}
    by_file = collections.defaultdict(list)
    for s, bs in fixed:
        if asm[s].startswith(("llvm:", "pattern:")) and s not in have:
            by_file[asm[s]].append(mcoracle.fmt_line(s, bs))
    for f, lines in by_file.items():
        if len(lines) > FIXED_CAP:
            by_file[f] = [lines[k * len(lines) // FIXED_CAP] for k in range(FIXED_CAP)]
    if not by_file:
        return
    with open(path, "a") as fh:
        for f in sorted(by_file):
            fh.write(f"# class {f}\n")
            fh.write("".join(l + "\n" for l in by_file[f]))


def measure(data, arch, top, vectors=False, old_bin=None):
    asm, dis = collect(data, arch)
    asm_in = list(asm)
    ans = mcoracle.assemble(arch, asm_in)
    acc = [(s, a) for s, a in zip(asm_in, ans) if a is not None]
    if vectors:
        write_vectors(arch, asm, acc)
    for _, (text, bs) in acc:
        dis.setdefault(tuple(bs), "assembled")
    dis_in = [list(b) for b in dis]
    dans = [d for d in mcoracle.disassemble(arch, dis_in) if d is not None]
    od = os.path.join(data, "oracle")
    os.makedirs(od, exist_ok=True)
    pa, pd = os.path.join(od, f"{arch}.asm.txt"), os.path.join(od, f"{arch}.dis.txt")
    with open(pa, "w") as f:
        f.write("".join(mcoracle.fmt_line(s, a[1]) + "\n" for s, a in acc))
    with open(pd, "w") as f:
        f.write("".join(mcoracle.fmt_line(t, b) + "\n" for t, b in dans))
    va, vd = pa + ".ours", pd + ".ours"
    # MC_MEASURE_PROFILE=debug uses the (warm) debug build; the default is release. MC_MEASURE_BIN
    # runs a prebuilt mc_measure instead (e.g. one built from an older commit, for a before/after).
    prof = [] if os.environ.get("MC_MEASURE_PROFILE") == "debug" else ["--release"]
    ours = os.environ.get("MC_MEASURE_BIN")
    cmd = [ours] if ours else ["cargo", "run", "-q", *prof, "-p", "baregpu-isa", "--example", "mc_measure", "--"]
    subprocess.run([*cmd, arch, pa, pd, va, vd], cwd=ROOT, check=True)
    verd_a = open(va).read().splitlines()
    verd_d = open(vd).read().splitlines()
    assert len(verd_a) == len(acc) and len(verd_d) == len(dans), "verdict count mismatch"
    if old_bin:
        subprocess.run([old_bin, arch, pa, pd, va + ".old", vd + ".old"], cwd=ROOT, check=True)
        old = open(va + ".old").read().splitlines()
        append_fixed(arch, asm, [(s, a[1]) for (s, a), o, v in zip(acc, old, verd_a) if o != "ok" and v == "ok"])
    # Assembly.
    classes, examples = collections.Counter(), {}
    ok = accepted = 0
    for (s, (canon, bs)), v in zip(acc, verd_a):
        kind, _, rest = v.partition("\t")
        accepted += kind != "err"
        ok += kind == "ok"
        if kind != "ok":
            c = tags(s, canon) + " | " + ("wrong bytes" if kind == "bytes" else norm(rest))
            classes[c] += 1
            examples.setdefault(c, f"`{s}` (llvm-mc: `{canon}`; {asm[s]}; ours: {rest[:160]})")
    # Disassembly: our text == llvm-mc's; ours assembles back; llvm-mc assembles ours back.
    ours_text = [v.split("\t", 2)[2] if not v.startswith("decode") else "" for v in verd_d]
    back_llvm = mcoracle.assemble(arch, [t or "s_nop_invalid_line" for t in ours_text])
    dclasses, dex = collections.Counter(), {}
    same = reasm = llvm_back = 0
    for (ltext, bs), v, t, lb in zip(dans, verd_d, ours_text, back_llvm):
        f = v.split("\t")
        lb_ok = lb is not None and lb[1] == bs
        if f[0] == "decode":
            c = "decode error: " + norm(f[1])
        else:
            same += f[0] == "true"
            reasm += f[1] == "true"
            llvm_back += lb_ok
            if f[0] == "true" and f[1] == "true" and lb_ok:
                continue
            what = []
            if f[0] != "true":
                what.append("text differs")
            if f[1] != "true":
                what.append("ours does not re-assemble")
            if not lb_ok:
                what.append("llvm-mc does not re-assemble")
            c = " + ".join(what) + " | " + ltext.split(None, 1)[0].split("_")[0] + "_*"
        dclasses[c] += 1
        dex.setdefault(c, f"{' '.join(f'{b:02x}' for b in bs)}: llvm-mc `{ltext}`, ours `{t}`")
    n, m = len(acc), len(dans)
    pct = lambda a, b: f"{100.0 * a / b:.2f}%" if b else "n/a"  # noqa: E731
    lines = [f"### {arch}", "",
             f"- assembler: {n} lines llvm-mc accepts (of {len(asm_in)} tried); ours accepts {accepted} ({pct(accepted, n)}), "
             f"same bytes {ok} ({pct(ok, n)})",
             f"- disassembler: {m} words llvm-mc decodes; our text equals llvm-mc's {same} ({pct(same, m)}); ours "
             f"re-assembles with ours {reasm} ({pct(reasm, m)}), with llvm-mc {llvm_back} ({pct(llvm_back, m)})", "",
             f"Top {top} assembler failure classes (how the input differs from llvm-mc's printing | our error):", ""]
    for c, k in classes.most_common(top):
        lines.append(f"1. {k} × {c}\n    - e.g. {examples[c]}")
    lines += ["", f"Top {top} disassembler failure classes:", ""]
    for c, k in dclasses.most_common(top):
        lines.append(f"1. {k} × {c}\n    - e.g. {dex[c]}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/work/wt/mcdata")
    ap.add_argument("--arch", default=",".join(ARCHS))
    ap.add_argument("--clang", action="store_true", help="(re)make DATA/clang/<arch>/*.s with clang-22 first")
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--md", help="also write the report to this file")
    ap.add_argument("--vectors-fixed", metavar="OLD_BIN",
                    help="also append to tests/isa/llvm_mc/<arch>.txt the LLVM lines OLD_BIN (an mc_measure built "
                         "before a fix) got wrong and the current build gets right")
    ap.add_argument("--vectors", action="store_true",
                    help="also write the accepted LLVM lines with llvm-mc's bytes to tests/isa/llvm_mc/<arch>.txt")
    a = ap.parse_args()
    if a.clang:
        make_clang(a.data)
    report = "".join(measure(a.data, arch, a.top, a.vectors, a.vectors_fixed) + "\n" for arch in a.arch.split(","))
    print(report)
    if a.md:
        with open(a.md, "w") as f:
            f.write(report)


if __name__ == "__main__":
    main()

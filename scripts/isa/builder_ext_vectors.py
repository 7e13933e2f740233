#!/usr/bin/env python3
"""Builder test vectors for DPP16, DPP8, SDWA, VOPD and exports: lines taken from LLVM's public MC
tests (llvm/llvm-project, llvm/test/MC/AMDGPU: gfx11_asm_vop1_dpp16.s, gfx11_asm_vop2_dpp16.s,
gfx11_asm_vop3_dpp16.s, gfx11_asm_vop1_dpp8.s, gfx11_asm_vopd.s, gfx12_asm_vopd.s, exp-gfx11.s,
vop_dpp.s, vop_sdwa.s, the gfx90a/gfx940 feature tests' row_newbcast lines and the gfx10 SDWA
compares with an SGPR-pair destination), held OUTSIDE the repository as DIR/<arch>.s, one instruction a line.
Each line llvm-mc 22 accepts is written with its bytes to tests/isa/builder_ext/<arch>.txt as
`text ; [0x..,..]`; compiler/isa/tests/builder_ext.rs builds each from typed operands and compares.
DIR/<arch>.refused.s (lines written here, e.g. VOPD pairs whose sources share a VGPR bank) must
each be refused by llvm-mc 22; they go to tests/isa/builder_ext/<arch>.refused.txt with llvm-mc's
error, and the builder must refuse them too.

usage: scripts/isa/builder_ext_vectors.py [DIR]   (default /tmp/isa_llvm_in)
"""
import os
import re
import subprocess
import sys

MC = "/usr/bin/llvm-mc-22"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = """# Builder vectors (DPP16, DPP8, SDWA, VOPD, exports) for {arch}: instruction lines of LLVM's public
# MC tests (llvm/llvm-project llvm/test/MC/AMDGPU), not written here, each with the bytes
# `llvm-mc-22 -arch=amdgcn -mcpu={arch} -show-encoding` gives it. Made by
# scripts/isa/builder_ext_vectors.py; checked by compiler/isa/tests/builder_ext.rs.
"""


REFUSED_HEADER = """# Lines llvm-mc 22 refuses for {arch} (written here, not taken from LLVM), each with llvm-mc's
# error; the builder must refuse each too. Made by scripts/isa/builder_ext_vectors.py; checked by
# compiler/isa/tests/builder_ext.rs.
"""


def run_mc(arch, line):
    return subprocess.run([MC, "-arch=amdgcn", f"-mcpu={arch}", "-show-encoding"], input=line + "\n",
                          capture_output=True, text=True, timeout=30)


def encode(arch, line):
    r = run_mc(arch, line)
    if r.returncode != 0 or "error" in r.stderr:
        return None
    m = re.search(r"encoding: (\[[^\]]*\])", r.stdout)
    return m.group(1) if m else None


def refusal(arch, line):
    """llvm-mc's error for a line it refuses; a line it takes is a mistake in the input."""
    m = re.search(r"error: (.*)", run_mc(arch, line).stderr)
    if not m:
        sys.exit(f"{arch}: llvm-mc accepts '{line}', listed as refused")
    return m.group(1).strip()


def refused(src, out_dir, name):
    arch = name[: -len(".refused.s")]
    lines = [x.strip() for x in open(os.path.join(src, name)) if x.strip() and not x.startswith("//")]
    with open(os.path.join(out_dir, f"{arch}.refused.txt"), "w") as f:
        f.write(REFUSED_HEADER.format(arch=arch))
        f.write("".join(f"{x} ; error: {refusal(arch, x)}\n" for x in lines))
    print(f"{arch}: {len(lines)} refused lines")


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "/tmp/isa_llvm_in"
    out_dir = os.path.join(ROOT, "tests", "isa", "builder_ext")
    os.makedirs(out_dir, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if name.endswith(".refused.s"):
            refused(src, out_dir, name)
            continue
        if not name.endswith(".s"):
            continue
        arch = name[:-2]
        kept, dropped = [], 0
        for line in open(os.path.join(src, name)):
            line = line.strip()
            if not line or line.startswith("//"):
                continue
            enc = encode(arch, line)
            if enc is None:
                dropped += 1
                continue
            kept.append(f"{line} ; {enc}")
        with open(os.path.join(out_dir, f"{arch}.txt"), "w") as f:
            f.write(HEADER.format(arch=arch))
            f.write("\n".join(kept) + "\n")
        print(f"{arch}: {len(kept)} lines, {dropped} rejected by llvm-mc")


if __name__ == "__main__":
    main()

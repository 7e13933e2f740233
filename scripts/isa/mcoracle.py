"""llvm-mc 22 as an oracle: assemble or disassemble many independent lines in one run each.

Each input line is followed by a marker instruction (`s_movk_i32 s100+(i>>16), i`, the same marker
the autogen isa generator uses), so the output splits back onto the input lines. A line counts as
accepted when llvm-mc printed no diagnostic (error or warning) for it and produced exactly one
instruction for it.
"""

import re
import subprocess

LLVM_MC = "/usr/bin/llvm-mc-22"
MARKER_SGPR = 100
CHUNK = 100_000
_DIAG = re.compile(r"^<stdin>:(\d+):\d+: (error|warning)")
_LONG = re.compile(r"^\s*\.long\s+(-?\d+)\s*$")
_ENC = re.compile(r"^\s*(.*?)\s*; encoding: \[([^\]]*)\]")


def _marker(i):
    return 0xB000_0000 | ((MARKER_SGPR + (i >> 16)) << 16) | (i & 0xFFFF)


def _marker_index(b):
    if len(b) != 4:
        return None
    w = int.from_bytes(bytes(b), "little")
    sgpr = (w >> 16) & 0xFFFF
    if sgpr in (0xB000 | MARKER_SGPR, 0xB000 | (MARKER_SGPR + 1)):
        return ((sgpr & 0xFF) - MARKER_SGPR) << 16 | (w & 0xFFFF)
    return None


def _run(cpu, text, disassemble):
    cmd = [LLVM_MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={cpu}", "-show-encoding"]
    if disassemble:
        cmd.insert(1, "--disassemble")
    p = subprocess.run(cmd, input=text, capture_output=True, text=True, errors="replace")
    return p.stdout, p.stderr


def _split(stdout, stderr, n):
    per = [[] for _ in range(n)]
    cur = 0
    prev_long = False
    for line in stdout.splitlines():
        # `.long` data (what the disassembler prints for words no instruction line produces):
        # consecutive dwords of one input line make one answer, text `.long`.
        d = _LONG.match(line)
        if d:
            if cur < n:
                bs = list((int(d.group(1)) & 0xFFFFFFFF).to_bytes(4, "little"))
                if prev_long and per[cur]:
                    per[cur][-1] = (".long", per[cur][-1][1] + bs)
                else:
                    per[cur].append((".long", bs))
            prev_long = True
            continue
        prev_long = False
        m = _ENC.match(line)
        if not m:
            continue
        text = m.group(1).strip()
        toks = [x.strip() for x in m.group(2).split(",") if x.strip()]
        if not all(x.startswith("0x") for x in toks):
            # A fixup (`A` bytes: a symbol, e.g. `S28`, which llvm-mc reads as a label, not a
            # register): no complete encoding, so not an answer for this line.
            if cur < n:
                per[cur].append((text, None))
            continue
        bs = [int(x, 16) for x in toks]
        idx = _marker_index(bs)
        if idx is not None and text.startswith("s_movk_i32"):
            cur = idx + 1
            continue
        if cur < n:
            per[cur].append((text, bs))
    bad = [False] * n
    diag = [None] * n
    for line in stderr.splitlines():
        m = _DIAG.match(line)
        if not m:
            continue
        num = int(m.group(1))
        if num % 2 == 1 and (num - 1) // 2 < n:
            k = (num - 1) // 2
            bad[k] = True
            if diag[k] is None:
                diag[k] = line.split(": ", 2)[-1]
    out = []
    for k in range(n):
        ok = not bad[k] and len(per[k]) == 1 and per[k][0][1] is not None
        out.append(per[k][0] if ok else None)
    return out, diag


def assemble(cpu, lines):
    """[(canonical_text, bytes) or None] for each line of assembly."""
    res = []
    for s in range(0, len(lines), CHUNK):
        chunk = lines[s : s + CHUNK]
        buf = []
        for i, l in enumerate(chunk):
            w = _marker(i)
            buf.append(l)
            buf.append(f"s_movk_i32 s{(w >> 16) & 0x7F}, 0x{w & 0xFFFF:x}")
        out, _ = _split(*_run(cpu, "\n".join(buf) + "\n", False), len(chunk))
        res.extend(out)
    return res


def disassemble(cpu, words):
    """[(text, bytes) or None] for each byte string; None unless exactly one instruction of its length."""
    res = []
    for s in range(0, len(words), CHUNK):
        chunk = words[s : s + CHUNK]
        buf = []
        for i, bs in enumerate(chunk):
            buf.append(" ".join(f"0x{b:02x}" for b in bs))
            m = _marker(i).to_bytes(4, "little")
            buf.append(" ".join(f"0x{b:02x}" for b in m * 4))
        out, _ = _split(*_run(cpu, "\n".join(buf) + "\n", True), len(chunk))
        res.extend(o if o and len(o[1]) == len(bs) else None for o, bs in zip(out, chunk))
    return res


def fmt_line(text, bs):
    return f"{text} ; [{','.join(f'0x{b:02x}' for b in bs)}]"


def parse_line(line):
    if line.startswith("#") or " ; [" not in line:
        return None
    text, enc = line.rsplit(" ; [", 1)
    return text, [int(x, 16) for x in enc.rstrip().rstrip("]").split(",") if x.strip()]

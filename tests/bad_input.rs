//! The bad-input table: every row is a command line that must end with ONE error line on stderr
//! (matching the row's pattern), the row's exit status, no panic, no signal, no hang; and after
//! each, a small vector add on the same device must still succeed.
//!
//! A row is one line of [`TABLE`]: where it runs, the exit status, the pattern, the command.
//! `on` is `all` (emu:gfx1100, emu:gfx1201, emu-nv:sm_90: one case each), `amd` (the two AMD
//! ones), `any` (one of the three, for a command that opens no device: only the follow-up uses
//! it) or one spec. In the command, words are separated by spaces and
//! - `{dev}` is the device, `{co}` its vector-add code object (basic-ARCH.hsaco, or kernels.ptx),
//!   `{other}` a code object of the other vendor, `{va}` the vector add's grid, block and four
//!   arguments, `{fx}` tests/fixtures, `{k}` tests/kernels, `{d}` a directory of generated bad
//!   files (see [`files`]), `{out}` a fresh --out directory;
//! - leading `KEY=VALUE` words set environment variables;
//! - a last word `>full` puts stdout on /dev/full, `|closed` on a pipe whose reader is gone.
//!
//! In the pattern, `{dev}` is the device (as a literal). An empty pattern means stderr must be
//! empty (a closed pipe ends quietly, and a valid command prints nothing there).

use regex::Regex;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

struct Row {
    on: &'static str,
    code: i32,
    err: &'static str,
    cmd: &'static str,
}

const fn row(on: &'static str, code: i32, err: &'static str, cmd: &'static str) -> Row {
    Row { on, code, err, cmd }
}

/// Usage errors (clap's, and the argument parsers behind it) exit 2; every other failure 1.
const TABLE: &[Row] = &[
    // run: arguments against the kernel
    row("all", 1, r"no kernel `nope`", "run {co} --device {dev} --kernel nope {va}"),
    row("all", 1, r"takes 4 arguments, 1 given", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg in:{d}/a.bin"),
    row("all", 1, r"takes 4 arguments, 5 given", "run {co} --device {dev} --kernel vector_add {va} --arg u32:1"),
    row("all", 1, r"argument 0: the kernel takes .*u32 given", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg u32:1 --arg in:{d}/a.bin --arg out:256 --arg u32:64"),
    row("all", 1, r"argument 3: the kernel takes .*a buffer given", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg in:{d}/a.bin --arg in:{d}/a.bin --arg out:256 --arg in:{d}/a.bin"),
    row("all", 1, r"argument 3: the kernel takes .*f32 given", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg in:{d}/a.bin --arg in:{d}/a.bin --arg out:256 --arg f32:1"),
    row("all", 1, r"argument 3: the kernel takes .*u64.* given", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg in:{d}/a.bin --arg in:{d}/a.bin --arg out:256 --arg u64:1"),
    row("all", 1, r"missing\.bin: No such file", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg in:{d}/missing.bin --arg in:{d}/a.bin --arg out:256 --arg u32:64"),
    row("all", 1, r"adir: Is a directory", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg in:{d}/a.bin --arg inout:{d}/adir --arg out:256 --arg u32:64"),
    row("all", 1, r"--out .*afile: a file, not a directory", "run {co} --device {dev} --kernel vector_add {va} --out {d}/afile"),
    row("all", 1, r"out of memory|exhausted|past the address space", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg in:{d}/a.bin --arg in:{d}/a.bin --arg out:1000000000000 --arg u32:64"),
    row("all", 1, r"out of memory|exhausted|past the address space", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg in:{d}/a.bin --arg in:{d}/a.bin --arg out:18446744073709551615 --arg u32:64"),
    row("all", 1, r"exceeds", "run {co} --device {dev} --kernel vector_add --grid 1 --block 2048 --arg in:{d}/a.bin --arg in:{d}/a.bin --arg out:256 --arg u32:64"),
    row("all", 1, r"cannot run on", "run {other} --device {dev} --kernel vector_add {va}"),
    // run: a kernel fault is one line that carries the cause (the context is for BAREGPU_LOG)
    row("emu-nv:sm_90", 1, r"^baregpu: error: emu-nv:sm_90: .*MMU fault at 0x[0-9a-f]+.*kernel `vector_add`", "run {co} --device {dev} --kernel vector_add --grid 64 --block 128 --arg in:{d}/a.bin --arg in:{d}/a.bin --arg out:256 --arg u32:100000000 --out {out}"),
    row("emu-nv:sm_90", 1, r"^baregpu: error: emu-nv:sm_90: compute queue: compute channel stopped by RM: Xid 13: .*BPT_INT", "run {d}/trap.ptx --kernel k --device {dev} --grid 4 --block 64 --arg out:256"),
    row("emu-nv:sm_90", 1, r"Xid 31: GPU memory page fault \(MMU\); MMU fault at 0x100: write", "run {d}/fault.ptx --kernel k --device {dev} --grid 4 --block 64 --arg out:256"),
    row("emu-nv:sm_90", 1, r"PTX line 9: `\.local` `a` takes per-thread local memory to 3000000000 bytes; the limit is 524288", "run {fx}/ptx/bad/local-overflow.ptx --device {dev} --kernel k --grid 1 --block 1"),
    row("emu-nv:sm_90", 1, r"PTX line 6: `\.global` `g` takes the module's global data to 3000000000 bytes; the limit is 268435456", "run {fx}/ptx/bad/global-overflow.ptx --device {dev} --kernel k --grid 1 --block 1"),
    // run: a stray write before or past a buffer lands on a guard page, not on the runtime's memory
    row("emu-nv:sm_90", 1, r"Xid 31: GPU memory page fault .*MMU fault at 0x[0-9a-f]+: write", "run {k}/nv_fill2d.ptx --device {dev} --kernel fill2d --grid 1,2 --block 1,1 --arg out:4096 --arg i32:-1048576 --arg i32:7"),
    row("emu-nv:sm_90", 1, r"Xid 31: GPU memory page fault .*MMU fault at 0x[0-9a-f]+: write", "run {k}/nv_fill2d.ptx --device {dev} --kernel fill2d --grid 1,2 --block 1,1 --arg out:4096 --arg i32:1024 --arg i32:7"),
    row("amd", 1, r"{dev}: compute queue: memory fault at VA 0x[0-9a-f]+ \(page not present\)", "run {co} --device {dev} --kernel fill2d --grid 1,2 --block 1,1 --arg out:4096 --arg i32:-1048576 --arg i32:7"),
    row("amd", 1, r"{dev}: compute queue: memory fault at VA 0x[0-9a-f]+ \(page not present\)", "run {co} --device {dev} --kernel fill2d --grid 1,2 --block 1,1 --arg out:4096 --arg i32:1024 --arg i32:7"),
    // run: AMD grid limits, and a dispatch that outlasts its wall-clock budget
    row("amd", 1, r"kernel .vector_add.: grid \[1, 65536, 65536\].*4294967296 work-items", "run {co} --device {dev} --kernel vector_add --grid 1,65536,65536 --block 1 --arg out:4 --arg out:4 --arg out:4 --arg u32:1"),
    row("amd", 1, r"8589934590 work-items; the hardware takes at most 4294967295", "run {co} --device {dev} --kernel vector_add --grid 4294967295 --block 2 --arg out:4 --arg out:4 --arg out:4 --arg u32:1"),
    row("amd", 1, r"^baregpu: error: {dev}: compute queue: .*after a hang; last submitted: kernel .vector_add.", "BAREGPU_EMU_DISPATCH_MS=300 run {co} --device {dev} --kernel vector_add --grid 67108864 --block 1 --arg out:4 --arg out:4 --arg out:4 --arg u32:0"),
    // run: the command line itself
    row("all", 2, r"not a valid u32", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg u32:-1"),
    row("all", 2, r"not a valid i32", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg i32:99999999999"),
    row("all", 2, r"not a valid u64", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg u64:-5"),
    row("all", 2, r"not a valid f32", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg f32:1e400"),
    row("all", 2, r"not a valid f64", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg f64:-1e999"),
    row("all", 2, r"not a valid f32", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg f32:one"),
    row("all", 2, r"unknown argument kind `q`", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg q:1"),
    row("all", 2, r"expected a byte count", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg out:lots"),
    row("all", 2, r"expected KIND:VALUE", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg 5"),
    row("all", 2, r"`0` is not a positive count", "run {co} --device {dev} --kernel vector_add --grid 0 --block 64"),
    row("all", 2, r"`0` is not a positive count", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64,0"),
    row("all", 2, r"expected X\[,Y\[,Z\]\]", "run {co} --device {dev} --kernel vector_add --grid 1,1,1,1 --block 64"),
    row("all", 2, r"`x` is not a positive count", "run {co} --device {dev} --kernel vector_add --grid x --block 64"),
    row("all", 2, r"not a positive count", "run {co} --device {dev} --kernel vector_add --grid 4294967296 --block 64"),
    row("all", 2, r"required arguments were not provided: --kernel", "run {co} --device {dev} --grid 1 --block 64"),
    row("all", 2, r"unexpected argument '--kernl'", "run {co} --device {dev} --kernl vector_add {va}"),
    row("all", 2, r"emulates 16 devices.*:0 to .*:15", "run {co} --device {dev}:16 --kernel vector_add {va}"),
    row("all", 2, r"emulates 16 devices", "run {co} --device {dev}:4294967295 --kernel vector_add {va}"),
    row("all", 2, r"emulates 16 devices", "run {co} --device {dev}:100000 --kernel vector_add {va}"),
    row("all", 2, r"not a device index", "run {co} --device {dev}:-1 --kernel vector_add {va}"),
    row("all", 2, r"not a device index", "run {co} --device {dev}:99999999999999999999999 --kernel vector_add {va}"),
    // run: code objects
    row("all", 1, r"missing\.hsaco: No such file", "run {d}/missing.hsaco --device {dev} --kernel vector_add {va}"),
    row("all", 1, r"adir: Is a directory", "run {d}/adir --device {dev} --kernel vector_add {va}"),
    row("amd", 1, r"trunc\.hsaco: bad program headers", "run {d}/trunc.hsaco --device {dev} --kernel vector_add {va}"),
    row("amd", 1, r"hdr\.hsaco: bad program headers", "run {d}/hdr.hsaco --device {dev} --kernel vector_add {va}"),
    row("amd", 1, r"shoff\.hsaco: bad section headers", "run {d}/shoff.hsaco --device {dev} --kernel vector_add {va}"),
    row("amd", 1, r"shnum\.hsaco: bad section headers", "run {d}/shnum.hsaco --device {dev} --kernel vector_add {va}"),
    row("amd", 1, r"half\.hsaco: segment outside the file", "run {d}/half.hsaco --device {dev} --kernel vector_add {va}"),
    row("amd", 1, r"true: not an AMDGPU code object \(e_machine 62\)", "run {d}/true --device {dev} --kernel vector_add {va}"),
    row("emu:gfx1201", 1, r"the code object is for gfx1100, but emu:gfx1201 is gfx1201", "run {fx}/hsaco/basic-gfx1100.hsaco --device {dev} --kernel vector_add {va}"),
    row("emu:gfx1100", 1, r"the code object is for gfx1201, but emu:gfx1100 is gfx1100", "run {fx}/hsaco/basic-gfx1201.hsaco --device {dev} --kernel vector_add {va}"),
    row("emu:gfx1100", 1, r"the code object is for gfx942", "run {fx}/hsaco/basic-gfx942.hsaco --device {dev} --kernel vector_add {va}"),
    row("emu-nv:sm_90", 1, r"bin\.ptx: not a code object \(it starts with 00 01 02 03\)", "run {d}/bin.ptx --device {dev} --kernel vector_add {va}"),
    row("emu-nv:sm_90", 1, r"bad\.ptx: line \d+", "run {d}/bad.ptx --device {dev} --kernel vector_add {va}"),
    row("emu-nv:sm_90", 1, r"empty: ", "run {d}/empty --device {dev} --kernel vector_add {va}"),
    row("emu-nv:sm_90", 1, r"garbage\.bin: ", "run {d}/garbage.bin --device {dev} --kernel vector_add {va}"),
    row("emu-nv:sm_90", 1, r"no kernel `vector_add` \(it has: scale, vadd\)", "run {fx}/cubin/nv_vadd.sm_90.cubin --device {dev} --kernel vector_add {va}"),
    row("all", 1, r"empty\.bin: the file is empty: expected an AMD HSACO or NVIDIA cubin \(ELF\), or PTX text", "run {d}/empty.bin --device {dev} --kernel k --grid 1 --block 1"),
    row("amd", 1, r"text\.bin: not a code object \(it starts with 68 65 6c 6c\)", "run {d}/text.bin --device {dev} --kernel k --grid 1 --block 1"),
    // PTX checked at load time, with the line
    row("emu-nv:sm_90", 1, r"v\.ptx: line 1: PTX ISA version 99\.9 is newer than the newest known here", "run {d}/v.ptx --kernel ok --device {dev} --grid 1 --block 1 --arg out:8"),
    row("emu-nv:sm_90", 1, r"sh\.ptx: PTX line 4: .*static shared memory to 240000 bytes; the limit is 49152", "run {d}/sh.ptx --kernel ok --device {dev} --grid 1 --block 1 --arg out:8"),
    row("emu-nv:sm_90", 1, r"insn\.ptx: PTX line 5: unknown instruction .frobnicate\.b32.", "run {d}/insn.ptx --kernel ok --device {dev} --grid 1 --block 1 --arg out:8"),
    // valid PTX the runtime once refused: nvcc-style pointers, clang's parameter offsets
    row("emu-nv:sm_90", 0, "", "run {k}/nv_vadd.ptx --kernel vadd --device {dev} --grid 1 --block 4 --arg out:16 --arg out:16 --arg out:16 --arg u32:4"),
    row("emu-nv:sm_90", 0, "", "run {fx}/ptx/clang-abi.ptx --kernel int_then_ptr --device {dev} --grid 1 --block 4 --arg i32:3 --arg out:16"),
    // devices
    row("all", 2, r"bad device spec `cuda:0`", "run {co} --device cuda:0 --kernel vector_add {va}"),
    row("all", 2, r"no emulated `gfx906`", "run {co} --device emu:gfx906 --kernel vector_add {va}"),
    row("all", 2, r"no emulated `sm_70`", "run {co} --device emu-nv:sm_70 --kernel vector_add {va}"),
    row("all", 1, r"BAREGPU_LOG=`junk!!`", "BAREGPU_LOG=junk!! run {co} --device {dev} --kernel vector_add {va}"),
    row("any", 1, r"BAREGPU_LOG=`debg`: `debg` is neither a level", "BAREGPU_LOG=debg devices"),
    row("any", 1, r"BAREGPU_LOG=.*`loud` is not a level", "BAREGPU_LOG=baregpu=loud devices"),
    row("any", 1, r"^baregpu: error: stdout: No space left on device", "devices >full"),
    row("any", 1, r"^baregpu: error: stdout: No space left on device", "devices --json >full"),
    row("any", 0, "", "devices |closed"),
    row("any", 0, "", "devices --json |closed"),
    row("any", 2, r"unexpected argument '--bogus'", "devices --bogus"),
    row("any", 2, r"unrecognized subcommand 'frob'", "frob"),
    // output on a full disk or a closed pipe, per command
    row("all", 1, r"^baregpu: error: stdout: No space left on device", "run {co} --device {dev} --kernel vector_add {va} --out {out} >full"),
    row("all", 1, r"^baregpu: error: stdout: No space left on device", "run {co} --device {dev} --kernel vector_add {va} --out {out} --json >full"),
    row("all", 0, "", "run {co} --device {dev} --kernel vector_add {va} --out {out} |closed"),
    row("all", 1, r"^baregpu: error: stdout: No space left on device", "demo --device {dev} --size 16 >full"),
    row("all", 0, "", "demo --device {dev} --size 16 |closed"),
    row("any", 1, r"^baregpu: error: stdout: No space left on device", "decode pm4 {d}/a.bin >full"),
    row("any", 0, "", "decode gpfifo {d}/a.bin |closed"),
    row("any", 1, r"^baregpu: error: stdout: No space left on device", "disasm {fx}/hsaco/basic-gfx1100.hsaco >full"),
    row("any", 0, "", "disasm {fx}/hsaco/basic-gfx1100.hsaco |closed"),
    // demo
    row("all", 1, r"matrix size 65536: at most 4096", "demo --device {dev} --size 65536"),
    row("all", 1, r"matrix size 4294967280: at most 4096", "demo --device {dev} --size 4294967280"),
    row("all", 1, r"matrix size 30 is not a multiple of", "demo --device {dev} --size 30"),
    row("all", 1, r"matrix size 0 is not a multiple of", "demo --device {dev} --size 0"),
    row("all", 2, r"unexpected argument '-1'", "demo --device {dev} --size -1"),
    row("all", 2, r"emulates 16 devices", "demo --device {dev}:1000000"),
    // bench
    row("all", 1, r"--iterations 0: expected 1 to", "bench launch --device {dev} --iterations 0"),
    row("all", 1, r"--iterations 99999999999: expected 1 to", "bench launch --device {dev} --iterations 99999999999"),
    row("all", 1, r"--nodes 0: expected 1 to 10000", "bench graph --device {dev} --nodes 0"),
    row("all", 1, r"--nodes 99999999999: expected 1 to 10000", "bench graph --device {dev} --nodes 99999999999"),
    row("all", 1, r"--runs 0: expected 1 to 100000", "bench graph --device {dev} --runs 0"),
    row("all", 1, r"--devices 3: expected 1 to 2", "bench graph --device {dev} --devices 3"),
    row("all", 1, r"--devices 0: expected 1 to 2", "bench graph --device {dev} --devices 0"),
    row("all", 1, r"--runs 99999999999: expected 1 to 100000", "bench graph --device {dev} --runs 99999999999"),
    row("all", 2, r"unexpected argument '-5'", "bench graph --device {dev} --nodes -5"),
    row("any", 1, r"BAREGPU_GRAPH=`yes`: expected 0 \(eager\) or 1 \(graph\)", "BAREGPU_GRAPH=yes demo --size 16"),
    row("any", 1, r"--llvm-mc /bin/false: `/bin/false --version` failed \(exit status: 1\)", "bench asm --llvm-mc /bin/false --count 1 --arch gfx1100"),
    row("any", 1, r"--count must be at least 1", "bench asm --count 0"),
    row("any", 1, r"--runs must be at least 1", "bench asm --runs 0 --count 1"),
    row("any", 1, r"--count 18446744073709551615: at most", "bench asm --count 18446744073709551615"),
    // endless or oversized inputs
    row("any", 1, r"/dev/zero: more than 268435456 bytes", "decode pm4 /dev/zero"),
    row("any", 1, r"/dev/zero: more than 268435456 bytes", "disasm --arch gfx1100 /dev/zero"),
    row("all", 1, r"/dev/zero: more than 268435456 bytes", "run /dev/zero --device {dev} --kernel vector_add {va}"),
    row("all", 1, r"/dev/zero: more than 268435456 bytes", "run {co} --device {dev} --kernel vector_add --grid 1 --block 64 --arg in:/dev/zero --arg in:{d}/a.bin --arg out:256 --arg u32:64"),
    row("emu-nv:sm_90", 1, r"emu-nv:sm_90 is not an emu: device", "bench emu --device {dev}"),
    // decode
    row("any", 1, r"three\.bin: ", "decode pm4 {d}/three.bin"),
    row("any", 1, r"three\.bin: ", "decode sdma {d}/three.bin"),
    row("any", 1, r"three\.bin: ", "decode gpfifo {d}/three.bin"),
    row("any", 1, r"missing\.bin: No such file", "decode pm4 {d}/missing.bin"),
    row("any", 2, r"invalid value 'bogus'", "decode bogus {d}/a.bin"),
    // asm and disasm (the assembler's own messages are another table's; here: files and flags)
    row("any", 1, r"bad\.s:1:\d+: ", "asm --arch gfx1100 {d}/bad.s -o -"),
    row("any", 1, r"missing\.s: No such file", "asm --arch gfx1100 {d}/missing.s -o -"),
    row("any", 2, r"unknown architecture `gfx906`", "asm --arch gfx906 {d}/bad.s -o -"),
    row("any", 1, r":1:12: invalid register alignment$", "asm --arch gfx1100 -o - {d}/align-s.s"),
    row("any", 1, r":1:29: invalid register alignment$", "asm --arch gfx1201 -o - {d}/align-v.s"),
    row("any", 1, r":1:21: invalid register alignment$", "asm --arch gfx942 -o - {d}/align-942.s"),
    row("any", 1, r"invalid private_segment_fixed_size: 1048576 bytes of scratch per work-item exceed gfx1100's 262136 \(wave32\)$", "asm --arch gfx1100 --elf -o {d}/scratch.o {d}/scratch.s"),
    row("any", 1, r"unknown mnemonic 'x{60}…' for gfx1100$", "asm --arch gfx1100 -o - {d}/long.s"),
    row("any", 1, r":1:15: expected a source operand, found 'v4294967295'$", "asm --arch gfx1100 -o - {d}/vreg.s"),
    row("any", 0, "", "asm --arch gfx1100 -o - {d}/vnop.s"),
    row("any", 1, r":1:24: bad sendmsg '0x10000'$", "asm --arch gfx1100 -o - {d}/sendmsg-rtn.s"),
    row("any", 1, r"'fi:2': the value must be 0 or 1$", "asm --arch gfx1100 -o - {d}/fi2.s"),
    row("any", 1, r":1:44: unsupported format '\[BUF_DATA_FORMAT_32\]'$", "asm --arch gfx1201 -o - {d}/ufmt.s"),
    row("any", 1, r"'mul:3': the output modifier is mul:2, mul:4 or div:2$", "asm --arch gfx1100 -o - {d}/omod3.s"),
    row("any", 1, r"immediate 65536 out of range for 16 bits$", "asm --arch gfx1100 -o - {d}/branch-range.s"),
    row("any", 1, r"format 128 out of range$", "asm --arch gfx942 -o - {d}/tbuffer-format.s"),
    row("any", 1, r"bound_ctrl is 0 or 1$", "asm --arch gfx950 -o - {d}/bound-ctrl2.s"),
    row("any", 1, r":1:45: src1 operands must use different VGPR banks$", "asm --arch gfx1100 -o - {d}/vopd-bank.s"),
    row("any", 1, r":1:15: 'lit\(x\)': expected a 32-bit literal here$", "asm --arch gfx1100 -o - {d}/lit-x.s"),
    // bench compile and the MXFP4 GEMM
    row("any", 2, r"unknown architecture .gfx9999.", "bench compile --arch gfx9999"),
    row("any", 1, r"-k 100: K must be a positive multiple of 128", "gemm mxfp4 --device emu:gfx950 -m 256 -n 256 -k 100"),
    row("any", 1, r"-k 0: K must be a positive multiple of 128", "gemm mxfp4 --device emu:gfx950 -m 256 -n 256 -k 0"),
    row("any", 1, r"M = 0 and N = 256 must be positive", "gemm mxfp4 --device emu:gfx950 -m 0 -n 256 -k 128"),
    row("any", 1, r"needs buffers over 4 GiB", "gemm mxfp4 --device emu:gfx950 -m 65536 -n 65536 -k 128"),
    row("any", 2, r"the tiles are 256x256, 192x256 and 128x512", "gemm mxfp4 --device emu:gfx950 -m 256 -n 256 -k 128 --tile 64x64"),
    row("any", 2, r"lds, buffer or global", "gemm mxfp4 --device emu:gfx950 -m 4 -n 4 -k 128 --memory lol"),
    row("any", 2, r"required arguments were not provided: --a-scale", "gemm mxfp4 --device emu:gfx950 -m 256 -n 256 -k 128 --a {d}/a.bin"),
    row("any", 1, r"a\.bin: 256 bytes; scale A of 4 x 4 = 16 bytes expected", "gemm mxfp4 --device emu:gfx950 -m 4 -n 4 -k 128 --a {d}/a.bin --a-scale {d}/a.bin --b {d}/a.bin --b-scale {d}/a.bin"),
    row("any", 1, r"missing\.bin: No such file", "gemm mxfp4 --device emu:gfx950 -m 4 -n 4 -k 128 --a {d}/missing.bin --a-scale {d}/a.bin --b {d}/a.bin --b-scale {d}/a.bin"),
    row("any", 1, r"--runs 0: at least one run", "gemm mxfp4 --device emu:gfx950 -m 256 -n 256 -k 128 --runs 0"),
    row("amd", 1, r"is gfx1(100|201): the MXFP4 GEMM needs a gfx950", "gemm mxfp4 --device {dev} -m 256 -n 256 -k 256"),
    row("emu-nv:sm_90", 1, r"is sm_90: the MXFP4 GEMM needs a gfx950", "gemm mxfp4 --device {dev} -m 256 -n 256 -k 256"),
    row("any", 1, r"bad hwreg '0x12345'$", "asm --arch gfx1100 -o - {d}/hwreg-range.s"),
    row("any", 1, r"gds is not supported on this architecture$", "asm --arch gfx942 -o - {d}/gds.s"),
    row("any", 1, r":1:1: unknown mnemonic 's_add_co_u32' for gfx1100$", "asm --arch gfx1100 -o - {d}/alias-other-arch.s"),
    row("any", 1, r"three\.bin: offset 0 \(0x0\): truncated instruction", "disasm --arch gfx1100 {d}/three.bin"),
    row("any", 1, r"raw instruction bytes need --arch", "disasm {d}/garbage.bin"),
    row("any", 1, r"a gfx1100 code object, but --arch says gfx1201", "disasm --arch gfx1201 {fx}/hsaco/basic-gfx1100.hsaco"),
    row("any", 1, r"trunc\.hsaco: ", "disasm {d}/trunc.hsaco"),
    row("any", 1, r"true: not an AMDGPU code object", "disasm {d}/true"),
    // am: the userspace PCI driver's device specs
    row("any", 1, r"^baregpu: error: 0000:99:00\.0: no such PCI device \(nothing at /sys/bus/pci/devices/0000:99:00\.0\)", "demo --device am:0000:99:00.0"),
    row("any", 1, r"ffff:99:00\.0: no such PCI device .*baregpu devices. lists the AMD GPUs here", "bench launch --device am:ffff:99:00.0"),
    row("any", 2, r"no emulated PCI .gfx1201.; am:emu has gfx1100, gfx942", "demo --device am:emu:gfx1201"),
    // serve and the remote: and usb: transports (no traffic leaves loopback: a keyless link beyond it is refused first)
    row("any", 1, r"^baregpu: error: listen 0\.0\.0\.0:0: a link beyond loopback needs a pre-shared key \(--key-file F\)$", "serve --listen 0.0.0.0:0 --device am:emu:gfx1100"),
    row("any", 1, r"^baregpu: error: serve: emu:gfx1100 is not a PCI function", "serve --device emu:gfx1100"),
    row("any", 1, r"^baregpu: error: serve: --listen bogus: invalid socket address$", "serve --listen bogus --device am:emu:gfx1100"),
    row("any", 1, r"^baregpu: error: serve: --key-file .*nonexistent: No such file", "serve --device am:emu:gfx1100 --key-file {d}/nonexistent"),
    row("any", 1, r"^baregpu: error: remote:127\.0\.0\.1:1: no server: Connection refused", "bench link --device remote:127.0.0.1:1/am:emu:gfx1100"),
    row("any", 1, r"^baregpu: error: remote:127\.0\.0\.1:1: no server: Connection refused", "demo --device remote:127.0.0.1:1/am:emu:gfx1100"),
    row("any", 1, r"^baregpu: error: emu:gfx1100: not a PCI function", "bench link --device emu:gfx1100"),
    row("any", 1, r"--replay 0: expected 1 to 10000$", "bench link --device remote:127.0.0.1:1/am:emu:gfx1100 --replay 0"),
    row("any", 1, r"a server serves PCI functions .*not emu:gfx1100$", "bench link --device remote:127.0.0.1:1/emu:gfx1100"),
    row("any", 1, r"^baregpu: error: remote:192\.0\.2\.1:1: a link beyond loopback needs a pre-shared key \(BAREGPU_REMOTE_KEY_FILE\)$", "bench link --device remote:192.0.2.1:1/am:emu:gfx1100"),
    row("any", 1, r"^baregpu: error: BAREGPU_REMOTE_KEY_FILE: .*nonexistent: No such file", "BAREGPU_REMOTE_KEY_FILE={d}/nonexistent bench link --device remote:127.0.0.1:1/am:emu:gfx1100"),
    row("any", 1, r"^baregpu: error: BAREGPU_REMOTE_TIMEOUT_S=abc: not a number of seconds$", "BAREGPU_REMOTE_TIMEOUT_S=abc bench link --device remote:127.0.0.1:1/am:emu:gfx1100"),
    row("any", 1, r"^baregpu: error: BAREGPU_USB_QUEUE_DEPTH=0: not a transfer count from 1 to 64$", "BAREGPU_USB_QUEUE_DEPTH=0 bench link --device usb:emu:gfx1100"),
    row("any", 1, r"^baregpu: error: BAREGPU_EMU_USB_LATENCY_US=-5: not a number of microseconds from 0 to 1000000$", "BAREGPU_EMU_USB_LATENCY_US=-5 bench link --device usb:emu:gfx1100"),
    row("any", 1, r"^baregpu: error: devices: --remote nowhere: needs HOST:PORT$", "devices --remote nowhere"),
    row("any", 1, r"^baregpu: error: devices: --remote :5: host is empty$", "devices --remote :5"),
    row("any", 1, r"^baregpu: error: devices: BAREGPU_REMOTE_SERVERS nowhere: needs HOST:PORT$", "BAREGPU_REMOTE_SERVERS=nowhere devices"),
    row("any", 1, r"^baregpu: error: usb:bogus: expected usb:/dev/bus/usb/BBB/DDD, usb:first or usb:emu:ARCH$", "demo --device usb:bogus"),
    row("any", 1, r"^baregpu: error: usb:emu:gfx9999: no emulated PCI GPU of that architecture$", "demo --device usb:emu:gfx9999"),
    row("any", 1, r"^baregpu: error: usb:first: (cannot list the host's USB devices|no ASM24xx USB bridge)", "demo --device usb:first"),
    // asm: operands llvm-mc refuses
    row("any", 1, r":1:37: .*the C matrix must be vector registers or an inline constant \(no SGPR or literal\)$", "asm --arch gfx942 -o - {d}/mfma-sgpr-c.s"),
    row("any", 1, r"missing dim operand", "asm --arch gfx1100 -o - {d}/image-nodim.s"),
];

const DEVICES: &[&str] = &["emu:gfx1100", "emu:gfx1201", "emu-nv:sm_90"];
const VA: &str = "--grid 1 --block 64 --arg in:{d}/a.bin --arg in:{d}/a.bin --arg out:256 --arg u32:64";

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The vector-add code object for `dev`, and one of the other vendor.
fn code_objects(dev: &str) -> (String, String) {
    let fx = fixtures();
    let ptx = fx.join("ptx/kernels.ptx");
    let (own, other) = match dev.strip_prefix("emu:") {
        Some(arch) => (fx.join(format!("hsaco/basic-{arch}.hsaco")), ptx),
        None => (ptx, fx.join("hsaco/basic-gfx1100.hsaco")),
    };
    (own.display().to_string(), other.display().to_string())
}

/// The generated bad inputs, made once for the whole table.
fn files(d: &Path) {
    let hsaco = std::fs::read(fixtures().join("hsaco/basic-gfx1100.hsaco")).unwrap();
    let w = |name: &str, data: &[u8]| std::fs::write(d.join(name), data).unwrap();
    w("a.bin", &[0u8; 256]);
    w("empty", b"");
    w("garbage.bin", b"hello world\n");
    w("three.bin", &[1, 2, 3]);
    w("afile", b"x\n");
    w("trunc.hsaco", &hsaco[..100]);
    w("hdr.hsaco", &hsaco[..64]);
    w("half.hsaco", &hsaco[..hsaco.len() / 2]);
    let mut shoff = hsaco.clone();
    shoff[40..48].fill(0xff);
    w("shoff.hsaco", &shoff);
    let mut shnum = hsaco.clone();
    shnum[60..62].fill(0xff);
    w("shnum.hsaco", &shnum);
    w("bin.ptx", &(0..=255u8).collect::<Vec<_>>());
    w("bad.ptx", b".version 7.0\n.target sm_90\n.address_size 64\n.visible .entry k(\n  bogus\n");
    w("bad.s", b"s_bogus v0\n");
    w("mfma-sgpr-c.s", b"v_mfma_f32_4x4x1f32 a[0:3], v0, v1, s[0:3]\n");
    w("image-nodim.s", b"image_load v0, v4, s[8:15] dmask:0x1\n");
    w("empty.bin", b"");
    w("text.bin", b"hello\n");
    let entry = ".visible .entry ok(.param .u64 .ptr .global .align 8 p)\n{\n\tret;\n}\n";
    w("v.ptx", format!(".version 99.9\n.target sm_90\n{entry}").as_bytes());
    let shared = ".shared .align 4 .b8 s[240000];\n";
    // The kernel references `s`: static shared memory is counted per kernel, on what it uses.
    let uses = entry.replace("\tret;", "\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, s;\n\tret;");
    w("sh.ptx", format!(".version 7.8\n.target sm_90\n.address_size 64\n{shared}{uses}").as_bytes());
    let insn = ".visible .entry ok(.param .u64 .ptr .global .align 8 p)\n{\n\tfrobnicate.b32 %r1;\n}\n";
    w("insn.ptx", format!(".version 7.8\n.target sm_90\n{insn}").as_bytes());
    let k = ".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 .ptr .global .align 1 p)\n";
    w("trap.ptx", format!("{k}{{\n\ttrap;\n\tret;\n}}\n").as_bytes());
    let store = "\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, 256;\n\tmov.u32 %r1, 7;\n\tst.global.u32 [%rd1], %r1;\n";
    w("fault.ptx", format!("{k}{{\n{store}\tret;\n}}\n").as_bytes());
    w("align-s.s", b"s_load_b64 s[3:4], s[0:1], 0x0\n");
    w("align-v.s", b"global_load_b64 v[1:2], v0, s[3:4]\n");
    w("align-942.s", b"global_load_dwordx2 v[1:2], v0, s[2:3]\n");
    w("scratch.s", b".kernel k\n.scratch 1048576\n s_endpgm\n.end\n");
    w("long.s", &vec![b'x'; 5 << 20]);
    w("vreg.s", b"v_mov_b32 v1, v4294967295\n");
    w("vnop.s", b"v_nop\nv_illegal\n");
    w("sendmsg-rtn.s", b"s_sendmsg_rtn_b32 s16, 0x10000\n");
    w("fi2.s", b"v_mov_b32_dpp v0, v1 row_shl:1 fi:2\n");
    w("ufmt.s", b"tbuffer_load_format_x v4, off, s[8:11], s3 format:[BUF_DATA_FORMAT_32]\n");
    w("omod3.s", b"v_add_f32_e64 v0, v1, v2 mul:3\n");
    w("branch-range.s", b"s_branch 65536\n");
    w("tbuffer-format.s", b"tbuffer_load_format_x v24, v8, s[16:19], s40 format:128 offen\n");
    w("bound-ctrl2.s", b"v_permlane16_swap_b32_e64 v8, v24 bound_ctrl:2\n");
    w("vopd-bank.s", b"v_dual_add_f32 v0, v1, v2 :: v_dual_add_f32 v3, v4, v6\n");
    w("lit-x.s", b"s_mov_b32 s0, lit(x)\n");
    w("hwreg-range.s", b"s_getreg_b32 s0, 0x12345\n");
    w("gds.s", b"ds_add_u32 v1, v2 gds\n");
    w("alias-other-arch.s", b"s_add_co_u32 s0, s1, s2\n");
    // An x86-64 ELF: a real executable, not a code object.
    w("true", &std::fs::read("/bin/true").unwrap());
    std::fs::create_dir(d.join("adir")).unwrap();
}

/// What one run did.
struct Outcome {
    code: Option<i32>,
    signal: Option<i32>,
    stderr: String,
    took: Duration,
}

fn run(dir: &Path, dev: &str, cmd: &str, n: usize) -> Outcome {
    let (co, other) = code_objects(dev);
    let out_dir = dir.join(format!("out-{n}"));
    let cmd = cmd
        .replace("{va}", VA)
        .replace("{dev}", dev)
        .replace("{co}", &co)
        .replace("{other}", &other)
        .replace("{fx}", &fixtures().display().to_string())
        .replace("{k}", &fixtures().with_file_name("kernels").display().to_string())
        .replace("{d}", &dir.display().to_string())
        .replace("{out}", &out_dir.display().to_string());
    let mut words: Vec<&str> = cmd.split(' ').filter(|w| !w.is_empty()).collect();
    let mut c = Command::new(env!("CARGO_BIN_EXE_baregpu"));
    c.current_dir(dir).env("BAREGPU_SYSROOT", dir).env_remove("BAREGPU_LOG").env_remove("BAREGPU_TRACE");
    while let Some((k, v)) = words.first().and_then(|w| w.split_once('=')).filter(|(k, _)| k.starts_with("BAREGPU_")) {
        c.env(k, v);
        words.remove(0);
    }
    let redirect = words.last().copied().filter(|w| *w == ">full" || *w == "|closed");
    if redirect.is_some() {
        words.pop();
    }
    c.args(&words).stdin(Stdio::null()).stderr(Stdio::piped());
    c.stdout(match redirect {
        Some(">full") => Stdio::from(std::fs::File::create("/dev/full").unwrap()),
        Some(_) => Stdio::piped(),
        None => Stdio::null(),
    });
    let t = Instant::now();
    let mut child = c.spawn().expect("run baregpu");
    // The reader goes away before the command writes.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for baregpu");
    Outcome {
        code: out.status.code(),
        signal: out.status.signal(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: t.elapsed(),
    }
}

/// What is wrong with a case's outcome, if anything.
fn judge(row: &Row, dev: &str, o: &Outcome) -> Option<String> {
    let Some(code) = o.code else { return Some(format!("killed by signal {:?}", o.signal)) };
    if o.stderr.contains("panicked") {
        return Some("panicked".into());
    }
    if code != row.code {
        return Some(format!("exit {code}, expected {}", row.code));
    }
    if row.err.is_empty() {
        return (!o.stderr.is_empty()).then(|| "stderr should be empty".into());
    }
    if o.stderr.lines().count() != 1 || !o.stderr.ends_with('\n') {
        return Some(format!("{} lines on stderr, expected one", o.stderr.lines().count()));
    }
    let pattern = row.err.replace("{dev}", &regex::escape(dev));
    let re = Regex::new(&pattern).expect("a valid pattern");
    (!re.is_match(o.stderr.trim_end())).then(|| format!("stderr does not match /{pattern}/"))
}

/// The cases: every row on each of its devices.
fn cases() -> Vec<(&'static Row, &'static str)> {
    let mut v = Vec::new();
    for (k, r) in TABLE.iter().enumerate() {
        let on: Vec<&'static str> = match r.on {
            "all" => DEVICES.to_vec(),
            "any" => vec![DEVICES[k % DEVICES.len()]],
            "amd" => DEVICES.iter().copied().filter(|d| d.starts_with("emu:")).collect(),
            one => vec![*DEVICES.iter().find(|d| **d == one).unwrap_or_else(|| panic!("unknown device {one}"))],
        };
        v.extend(on.into_iter().map(|d| (r, d)));
    }
    v
}

#[test]
fn every_bad_input_is_one_error_line_and_the_device_stays_usable() {
    let cases = cases();
    assert!(cases.len() >= 100, "{} cases", cases.len());
    let dir = tempfile::tempdir().unwrap();
    files(dir.path());
    let next = AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(row, dev)) = cases.get(n) else { break };
                let o = run(dir.path(), dev, row.cmd, n);
                let mut why = judge(row, dev, &o);
                if o.took > Duration::from_secs(20) {
                    why = Some(format!("took {:?}", o.took));
                }
                // The device still works: a small vector add on it.
                if why.is_none() {
                    let va = "run {co} --device {dev} --kernel vector_add {va} --out {out}";
                    let f = run(dir.path(), dev, va, n);
                    if f.code != Some(0) {
                        let how = format!("exit {:?}, signal {:?}", f.code, f.signal);
                        why = Some(format!("the follow-up vector add failed ({how}): {}", f.stderr.trim_end()));
                    }
                }
                if let Some(why) = why {
                    let line = format!("[{dev}] {}\n    {why}; stderr: {:?}", row.cmd, o.stderr);
                    failures.lock().unwrap().push(line);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    eprintln!("{} cases in {:.1} s", cases.len(), started.elapsed().as_secs_f64());
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

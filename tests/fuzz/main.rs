//! Deterministic mutation fuzzing of every parser of untrusted input, for a fixed count so that
//! it runs in CI on stable Rust: code objects (HSACO: runtime loader and the descriptor/notes
//! readers), cubins, PTX (the emulator's parser and the runtime's signature parser), assembly,
//! disassembly (decode and print) and command streams (PM4, SDMA, NVIDIA push buffers), plus the
//! CLI-only readers (`asm --elf`, `disasm` of a code object, `decode gpfifo`) through the binary.
//! Each input must give a result or an error: no panic, no hang (see harness.rs). The seeds are
//! the committed fixtures (tests/fixtures, tests/kernels, tests/isa/golden) and driver-built
//! command streams.

#[path = "../common/mutate.rs"]
mod mutate;

mod cli;
mod harness;
mod seeds;
mod targets;

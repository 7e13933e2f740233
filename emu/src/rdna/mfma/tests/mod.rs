//! MFMA tests: each assembles one instruction (our assembler, llvm-mc syntax) into a one-wave
//! kernel that loads every lane's operand registers from memory, runs it through the
//! interpreter and stores C/D back; D is compared with a plain-Rust matrix product of the same
//! matrices (reference.rs decodes the formats by their definitions, apart from the emulator's).

mod harness;
mod reference;
mod scaled;

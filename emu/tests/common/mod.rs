//! Helpers shared by the emulator's test files.

pub mod wave;

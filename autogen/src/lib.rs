//! Generated ABI bindings and hardware tables. Every module here is written by the generator in
//! `autogen/gen` (`cargo run -p baregpu-autogen-gen`) from pinned inputs that it checks by
//! SHA-256; never edit them by hand: change the generator and re-run it. `--check` proves the
//! committed files match their inputs.

pub mod amd;
pub mod isa;

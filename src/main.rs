//! The `baregpu` command-line tool.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    cli::init_logging();
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("baregpu: error: {e}");
            ExitCode::FAILURE
        }
    }
}

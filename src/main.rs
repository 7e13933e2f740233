//! The `baregpu` command-line tool.

mod cli;

use clap::Parser;
use std::io::Write;
use std::process::ExitCode;

/// The one error line; `eprintln!` would panic if stderr itself is closed.
fn report(e: &baregpu::Error) -> ExitCode {
    let _ = writeln!(std::io::stderr(), "baregpu: error: {e}");
    ExitCode::FAILURE
}

fn main() -> ExitCode {
    if let Err(e) = cli::init_logging() {
        return report(&e);
    }
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of our stdout went away (`| head`): nothing to report.
        Err(e) if cli::out::is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => report(&e),
    }
}

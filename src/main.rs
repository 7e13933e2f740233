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

/// A command line clap refused, as one line with status 2 (clap's and the shells' usage status);
/// --help and --version print as clap renders them.
fn usage_error(e: clap::Error) -> ExitCode {
    if !e.use_stderr() {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    let text = e.render().to_string();
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .collect();
    let line = parts.join(" ");
    let _ = writeln!(std::io::stderr(), "baregpu: {line}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    if let Err(e) = cli::init_logging() {
        return report(&e);
    }
    let args = match cli::Cli::try_parse() {
        Ok(args) => args,
        Err(e) => return usage_error(e),
    };
    match cli::run(args) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of our stdout went away (`| head`): nothing to report.
        Err(e) if cli::out::is_closed_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => report(&e),
    }
}

//! The `charioteer` binary: parses the command line and reports errors with the right
//! exit code (2 for bad input, 1 otherwise).

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = charioteer::cli::Cli::parse();
    match charioteer::cli::main_with(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            for cause in error.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(charioteer::cli::exit_code(&error))
        }
    }
}

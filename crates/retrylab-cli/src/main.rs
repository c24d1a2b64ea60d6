//! `retrylab`: the lab's links on the command line.
//!
//! Every command reads the same query vocabulary as the page (`docs/link.md`), so a link copied
//! from the browser reproduces the same numbers here. Bad input exits with status 2 and one line
//! naming the key or flag and what it accepts.

mod args;
mod commands;
mod exercise;
#[cfg(test)]
mod hostile_args;
mod json;
mod listing;
mod shard;
mod simcmd;
mod tunecmd;

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match commands::run(&argv) {
        Ok(out) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("retrylab: {msg}");
            ExitCode::from(2)
        }
    }
}

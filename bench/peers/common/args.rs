//! The command line of a lanes peer, shared by bench/peers/*/src/main.rs
//! (each includes this file with `#[path]`): a usage error exits with 2
//! and says so under the peer's name.

/// Prints `message` after the peer's name and exits with 2.
pub fn usage_error(message: &str) -> ! {
    eprintln!("{}: {message}", env!("CARGO_PKG_NAME"));
    std::process::exit(2);
}

/// `args[i]` as a positive number, or a usage error naming `what`.
pub fn positive(args: &[String], i: usize, what: &str) -> usize {
    match args.get(i).and_then(|s| s.parse().ok()) {
        Some(n) if n > 0 => n,
        _ => usage_error(&format!("{what} must be a positive number")),
    }
}

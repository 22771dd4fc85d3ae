//! Standard output that reports a closed pipe as an error instead of panicking
//! (`murmuration run | head` must exit quietly, not crash).

/// `println!` that returns `std::io::Result<()>`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}
pub(crate) use outln;

/// True when `e` comes from writing to a closed pipe (the reader went away).
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

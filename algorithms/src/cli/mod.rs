//! What the command line needs around the algorithms: limits, inputs read
//! once (a path, `-` for standard input, a FIFO), outputs that never clobber
//! an input or leave half a file, standard output that ends quietly at a
//! closed pipe, and messages that cannot drive a terminal.

pub mod files;
pub mod gnn;
pub mod limits;
pub mod oom;
pub mod stdout;

use std::fmt;

/// Standard output was closed by its reader (`| head`): the program ends
/// quietly and successfully, as Unix tools do.
#[derive(Debug)]
pub struct StdoutClosed;

impl fmt::Display for StdoutClosed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("standard output was closed")
    }
}

impl std::error::Error for StdoutClosed {}

/// A message for the terminal: every line escaped ([`bitgraphblas::io::printable`]),
/// line breaks kept.
pub fn escape_lines(text: &str) -> String {
    text.split('\n')
        .map(|l| bitgraphblas::io::printable(l.as_bytes()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writes a note or warning to standard error; a closed or broken standard
/// error is ignored (there is nowhere left to report it).
pub fn note(msg: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "bitgraphblas: {}", escape_lines(msg));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_escaped_but_kept() {
        assert_eq!(escape_lines("a\x1b[1m\nb\tc"), "a\\x1b[1m\nb\\tc");
    }
}

//! Standard output that reports a closed pipe as [`StdoutClosed`] and any
//! other failure (a full disk) as an error naming standard output.

use std::io::{StdoutLock, Write};

use super::StdoutClosed;

type AnyError = Box<dyn std::error::Error>;

/// What went wrong writing to standard output, as the command's error.
pub fn stdout_error(e: std::io::Error) -> AnyError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Box::new(StdoutClosed)
    } else {
        format!("standard output: {e}").into()
    }
}

/// Standard output (line-buffered, so that a long job shows its progress);
/// every method maps failures through [`stdout_error`].
pub struct Stdout {
    w: StdoutLock<'static>,
}

impl Stdout {
    /// Locks standard output for the rest of the run.
    pub fn new() -> Self {
        Stdout {
            w: std::io::stdout().lock(),
        }
    }

    /// Writes one line.
    pub fn line(&mut self, text: &str) -> Result<(), AnyError> {
        self.w
            .write_all(text.as_bytes())
            .and_then(|_| self.w.write_all(b"\n"))
            .map_err(stdout_error)
    }

    /// Writes many lines through one buffer, then flushes.
    pub fn lines<I: IntoIterator<Item = S>, S: AsRef<str>>(
        &mut self,
        lines: I,
    ) -> Result<(), AnyError> {
        let mut b = std::io::BufWriter::with_capacity(1 << 16, &mut self.w);
        for l in lines {
            b.write_all(l.as_ref().as_bytes())
                .and_then(|_| b.write_all(b"\n"))
                .map_err(stdout_error)?;
        }
        b.flush().map_err(stdout_error)
    }

    /// Flushes what is left; the last chance to see a full disk.
    pub fn finish(mut self) -> Result<(), AnyError> {
        self.w.flush().map_err(stdout_error)
    }
}

//! The log writer: every formatted log line passes the scrubber of the
//! [`Secrets`] it was made with on its way to stderr, whatever emitted it
//! (the host, a plugin's log line, a library), so a secret in an error's text
//! is redacted as surely as one in a field.

use std::io::{self, Write};
use std::sync::Arc;

use tracing_subscriber::fmt::MakeWriter;

use super::Secrets;

/// Makes [`ScrubbedStderr`] writers for `tracing_subscriber::fmt`.
#[derive(Debug, Clone, Default)]
pub struct MakeScrubbedStderr {
    /// The secrets kept out of the log.
    pub secrets: Arc<Secrets>,
}

/// Stderr, with secrets replaced in each write. The formatter writes one
/// whole line per call, so a secret is never split between two writes.
#[derive(Debug)]
pub struct ScrubbedStderr {
    secrets: Arc<Secrets>,
}

impl Write for ScrubbedStderr {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let scrubber = self.secrets.scrubber();
        let clean = scrubber.scrub_bytes(buf);
        io::stderr().lock().write_all(&clean)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

impl<'a> MakeWriter<'a> for MakeScrubbedStderr {
    type Writer = ScrubbedStderr;

    fn make_writer(&'a self) -> Self::Writer {
        ScrubbedStderr {
            secrets: self.secrets.clone(),
        }
    }
}

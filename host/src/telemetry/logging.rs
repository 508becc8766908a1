//! The log settings read from the environment, checked once at start:
//! `GLEANER_LOG` (the filter), `GLEANER_LOG_FORMAT` (`text` or `json`) and
//! `NO_COLOR`. Colour is used only when stderr is a terminal and `NO_COLOR`
//! is unset or empty, so a log file or a collector never gets escape codes.

use std::io::IsTerminal;
use std::sync::Arc;

use tracing_subscriber::EnvFilter;

use crate::secrets::writer::MakeScrubbedStderr;
use crate::secrets::Secrets;

/// The formats `GLEANER_LOG_FORMAT` accepts.
pub const FORMATS: [&str; 2] = ["text", "json"];

/// A log setting that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// `GLEANER_LOG_FORMAT` names no format.
    #[error("GLEANER_LOG_FORMAT={0:?} is not a log format; use `text` (the default) or `json`")]
    Format(String),
    /// `GLEANER_LOG` is no filter.
    #[error(
        "GLEANER_LOG={value:?} is not a log filter ({reason}); use a level (`error`, `warn`, `info`, \
         `debug`, `trace`) or directives such as `info,gleaner=debug`"
    )]
    Filter {
        /// The value given.
        value: String,
        /// Why the filter parser refused it.
        reason: String,
    },
}

/// How the server logs.
#[derive(Debug)]
pub struct LogSettings {
    /// What is logged.
    pub filter: EnvFilter,
    /// One JSON object per line, instead of text.
    pub json: bool,
    /// ANSI colour in text lines.
    pub ansi: bool,
}

impl LogSettings {
    /// The settings from the process environment, with `default` as the
    /// filter when `GLEANER_LOG` is unset.
    pub fn from_env(default: &str) -> Result<LogSettings, LogError> {
        let var = |name: &str| std::env::var(name).ok();
        LogSettings::read(
            default,
            var("GLEANER_LOG"),
            var("GLEANER_LOG_FORMAT"),
            var("NO_COLOR"),
            std::io::stderr().is_terminal(),
        )
    }

    /// The settings from these values (the environment's, or a test's).
    pub fn read(
        default: &str,
        filter: Option<String>,
        format: Option<String>,
        no_color: Option<String>,
        terminal: bool,
    ) -> Result<LogSettings, LogError> {
        let json = match format.as_deref().map(str::trim) {
            None | Some("") | Some("text") => false,
            Some("json") => true,
            Some(other) => return Err(LogError::Format(other.to_owned())),
        };
        let filter = match filter.filter(|f| !f.trim().is_empty()) {
            None => EnvFilter::new(default),
            Some(value) => EnvFilter::builder()
                .parse(&value)
                .map_err(|e| LogError::Filter {
                    reason: e.to_string(),
                    value,
                })?,
        };
        let ansi = terminal && !json && no_color.is_none_or(|v| v.is_empty());
        Ok(LogSettings { filter, json, ansi })
    }

    /// Logs to stderr with these settings, secrets scrubbed, as the only
    /// subscriber (the CLI's commands other than serving).
    pub fn init(self, secrets: Arc<Secrets>) {
        use tracing_subscriber::layer::SubscriberExt as _;
        use tracing_subscriber::util::SubscriberInitExt as _;
        tracing_subscriber::registry()
            .with(self.layer(secrets))
            .init();
    }

    /// The stderr layer with these settings, secrets scrubbed.
    pub fn layer<S>(
        self,
        secrets: Arc<Secrets>,
    ) -> Box<dyn tracing_subscriber::Layer<S> + Send + Sync>
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        use tracing_subscriber::Layer as _;
        let fmt = tracing_subscriber::fmt::layer()
            .with_writer(MakeScrubbedStderr { secrets })
            .with_ansi(self.ansi);
        if self.json {
            fmt.json().with_filter(self.filter).boxed()
        } else {
            fmt.with_filter(self.filter).boxed()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(
        filter: Option<&str>,
        format: Option<&str>,
        no_color: Option<&str>,
        terminal: bool,
    ) -> Result<LogSettings, LogError> {
        LogSettings::read(
            "info",
            filter.map(str::to_owned),
            format.map(str::to_owned),
            no_color.map(str::to_owned),
            terminal,
        )
    }

    #[test]
    fn an_unknown_format_is_refused_naming_the_accepted_ones() {
        let e = read(None, Some("yaml"), None, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("GLEANER_LOG_FORMAT=\"yaml\""), "{e}");
        for f in FORMATS {
            assert!(e.contains(&format!("`{f}`")), "{e}");
        }
    }

    #[test]
    fn a_filter_that_does_not_parse_is_refused_naming_the_levels() {
        let e = read(Some("info,gleaner=loud"), None, None, false)
            .unwrap_err()
            .to_string();
        assert!(e.contains("GLEANER_LOG=\"info,gleaner=loud\""), "{e}");
        assert!(e.contains("`debug`"), "{e}");
    }

    #[test]
    fn colour_only_on_a_terminal_without_no_color() {
        assert!(read(None, None, None, true).unwrap().ansi);
        assert!(!read(None, None, None, false).unwrap().ansi);
        assert!(!read(None, None, Some("1"), true).unwrap().ansi);
        assert!(read(None, None, Some(""), true).unwrap().ansi);
        assert!(!read(None, Some("json"), None, true).unwrap().ansi);
    }

    #[test]
    fn text_and_json_and_filters_are_accepted() {
        assert!(!read(Some("debug"), Some("text"), None, false).unwrap().json);
        assert!(
            read(Some("info,gleaner=debug"), Some("json"), None, false)
                .unwrap()
                .json
        );
    }
}

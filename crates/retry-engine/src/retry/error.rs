//! Configuration errors that name the field and the rule it broke.

use alloc::string::String;
use core::fmt;

/// A rejected configuration value. `field` is the link key (`base`, `attempts`, ...), so the
/// same message serves the page, the CLI and the tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The link key that holds the bad value.
    pub field: &'static str,
    /// What is wrong and what is accepted.
    pub rule: String,
}

/// The longest message, in characters.
const MAX_RULE: usize = 600;

impl ConfigError {
    /// An error for `field` with the given rule.
    pub fn new(field: &'static str, rule: impl Into<String>) -> Self {
        let rule = rule.into();
        // One line whatever the input held: control characters are written as escapes.
        let rule = if rule.chars().any(char::is_control) {
            let mut out = String::new();
            for c in rule.chars() {
                if c.is_control() {
                    out.extend(c.escape_default());
                } else {
                    out.push(c);
                }
            }
            out
        } else {
            rule
        };
        // And short: a message quotes at most 80 characters of what was written (`shorten` in
        // the link's key table); this cap only stops a quote no rule shortened.
        let rule = if rule.chars().count() > MAX_RULE {
            let mut cut: String = rule.chars().take(MAX_RULE).collect();
            cut.push_str("...");
            cut
        } else {
            rule
        };
        ConfigError { field, rule }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.rule)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ConfigError {}

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

impl ConfigError {
    /// An error for `field` with the given rule.
    pub fn new(field: &'static str, rule: impl Into<String>) -> Self {
        ConfigError {
            field,
            rule: rule.into(),
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.rule)
    }
}

#[cfg(feature = "std")]
impl std::error::Error for ConfigError {}

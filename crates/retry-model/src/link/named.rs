//! The enums a choice key names, each with its values (`ALL`) and their link names: a key reads
//! and writes its value through these, never by a position in a list.

/// An enum a choice key names: its values and each one's link name. A key's domain lists the
/// same names in the same order (a test in `link/keys/tests.rs` holds each pair).
pub trait Named: Copy + 'static {
    /// Every value.
    const ALL: &'static [Self];
    /// Its link name.
    fn name(self) -> &'static str;
}

macro_rules! named {
    ($($t:ty),*) => {$(
        impl Named for $t {
            const ALL: &'static [Self] = &<$t>::ALL;
            fn name(self) -> &'static str {
                <$t>::name(self)
            }
        }
    )*};
}

named!(
    crate::retry::backoff::BackoffKind,
    crate::retry::policy::FitRule,
    crate::retry::policy::RetryAfterMode,
    crate::retry::budget::Scope,
    crate::retry::classify::Classifier,
    super::JitterKind,
    crate::sim::ServerKind,
    crate::sim::Engine,
    crate::sim::Discipline,
    crate::sim::ServiceDist,
    crate::sim::OutageKind,
    crate::sim::LimiterScope
);

//! A link's policy as an AWS config file profile: the SDK's retry modes are fixed, so the
//! export picks the mode closest to the link (legacy without a quota, standard with one,
//! adaptive with botocore's rate limiter) and notes every key the mode draws otherwise.

use super::READ_TIMEOUT;
use crate::write::{get, Notes};
use crate::ImportError;
use retry_model::link_key;
use retry_model::link_keys::Key;
use retry_model::Params;

/// What a mode fixes, key by key, as the import writes it.
const STANDARD: &[(&Key, &str)] = &[
    (link_key!("backoff"), "full"),
    (link_key!("base"), "50ms"),
    (link_key!("cap"), "20s"),
    (link_key!("multiplier"), "2"),
    (link_key!("first_exp"), "0"),
    (link_key!("throttle_base"), "1s"),
    (link_key!("classify"), "aws"),
    (link_key!("ra_mode"), "clamp"),
    (link_key!("budget"), "aws2026"),
    (link_key!("deadline"), "none"),
];
const LEGACY: &[(&Key, &str)] = &[
    (link_key!("backoff"), "full"),
    (link_key!("base"), "1s"),
    (link_key!("cap"), "86400s"),
    (link_key!("multiplier"), "2"),
    (link_key!("first_exp"), "0"),
    (link_key!("throttle_base"), "none"),
    (link_key!("classify"), "aws"),
    (link_key!("ra_mode"), "ignore"),
    (link_key!("budget"), "none"),
    (link_key!("deadline"), "none"),
];

/// The profile, with the notes for what its mode draws otherwise.
pub(crate) fn export(p: &Params, notes: &mut Notes) -> Result<String, ImportError> {
    let budget = get(p, link_key!("budget"));
    let limiter = get(p, link_key!("limiter")) == "aws-adaptive";
    let (mode, fixed) = match budget.as_str() {
        "none" if !limiter => ("legacy", LEGACY),
        _ if limiter => ("adaptive", STANDARD),
        _ => ("standard", STANDARD),
    };
    for (key, want) in fixed {
        let have = get(p, key);
        // The outage link an adaptive profile opens leaves out the base after a 429.
        let skip = limiter && key.name == "throttle_base";
        if have != *want && !skip {
            notes.add(
                key,
                format!(
                    "the SDK's {mode} mode has {}={want}; the link's {have} is not written",
                    key.name
                ),
            );
        }
    }
    if !p.policy.statuses.is_empty() {
        notes.add(link_key!("retry_on"), "the SDK decides what is retryable by its own rules (classify=aws): retry_on is not written");
    }
    if p.policy.attempt_timeout != READ_TIMEOUT {
        notes.add(link_key!("attempt_timeout"), format!("a config file has no timeout: give the client Config(read_timeout={}) for the link's {}", p.policy.attempt_timeout.0 as f64 / 1e6, p.policy.attempt_timeout));
    }
    let mut t = format!("# Written by `retrylab export --to aws` from the link\n#   ?{p}\n# In ~/.aws/config (or AWS_RETRY_MODE and AWS_MAX_ATTEMPTS): max_attempts counts every attempt.\n");
    t.push_str(&format!(
        "[default]\nretry_mode = {mode}\nmax_attempts = {}\n",
        p.policy.max_attempts
    ));
    for n in notes.notes() {
        t.push_str(&format!("# not expressed: {}: {}\n", n.field, n.text));
    }
    Ok(t)
}

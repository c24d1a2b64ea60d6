//! A search kept to what a configuration format writes back (`retrylab tune --format-of`, the
//! link's `tune_format`): the exporter is the oracle. A policy is searched only if its export
//! needs no note the link's own policy does not need, so every point on the frontier can be
//! written into the user's configuration as it was measured.

use retry_model::tune;

/// Whether `format` writes a policy back: its export of the policy's link (`base` with the
/// policy's keys) needs no note beyond those the link's own policy needs (what the format
/// cannot say of the system). The error: `format` cannot write the link's own policy.
pub fn writes_back(base: &str, format: &str) -> Result<impl Fn(&str) -> bool, String> {
    let own = crate::export(base, format)
        .map_err(|e| format!("{format} cannot write this link's policy: {e}"))?
        .notes;
    let (base, format) = (base.to_string(), format.to_string());
    Ok(move |keys: &str| {
        let Ok((link, _)) = tune::policy_link(&base, &[keys]) else {
            return false;
        };
        crate::export(&link, &format).is_ok_and(|e| {
            e.notes
                .iter()
                .all(|n| own.iter().any(|o| o.key == n.key && o.text == n.text))
        })
    })
}

/// The search's pool kept to `format`: the first `n` policies of the seed's order that
/// [`writes_back`] keeps. The error says why there is nothing to search.
pub fn pool_for(base: &str, format: &str, n: usize) -> Result<Vec<String>, String> {
    let keep = writes_back(base, format)?;
    let p: retry_model::Params = base
        .parse()
        .map_err(|e: retry_model::ConfigError| e.to_string())?;
    let pool = tune::pool_where(&p, n, &keep);
    if pool.len() < 2 {
        return Err(format!(
            "{format} can write back {} of the policies searched; nothing to choose between",
            pool.len()
        ));
    }
    Ok(pool)
}

/// The pool a `tune=on` link asks for: kept to its `tune_format`, or every policy.
pub fn pool_of(link: &str) -> Result<Vec<String>, String> {
    let p: retry_model::Params = link
        .parse()
        .map_err(|e: retry_model::ConfigError| e.to_string())?;
    let (base, ask) = tune::start_of(&p)?;
    let n = ask.candidates as usize;
    match ask.format_name() {
        Some(f) => pool_for(&base, f, n).map_err(|e| format!("tune_format: {e}")),
        None => Ok(tune::pool_where(&p, n, &|_| true)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The link's `tune_format` menu is the exporter's list of formats.
    #[test]
    fn the_tune_format_menu_is_the_exporters() {
        let menu: Vec<&str> = retry_model::tune::FORMATS[1..]
            .iter()
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(menu, crate::EXPORT_FORMATS.to_vec());
    }

    /// A gRPC service config writes no breaker and no per-attempt timeout: a pool kept to it
    /// has neither, and every policy in it exports with the notes the link's own needs.
    #[test]
    fn a_pool_kept_to_grpc_writes_back() {
        let link = "scenario=outage&deadline=none&attempt_timeout=86400s&attempts=4&fit=cut&backoff=exponential&base=10ms&cap=10ms&multiplier=1&jitter=mult&jitter_lo=0.8&jitter_hi=1.2&jitter_after_cap=true&classify=grpc&retry_on=503&budget=none&tune=on&tune_format=grpc";
        let pool = pool_of(link).unwrap();
        assert_eq!(pool.len(), 32);
        assert!(pool
            .iter()
            .all(|k| !k.contains("breaker") && !k.contains("attempt_timeout")));
        let all = pool_of(&link.replace("&tune_format=grpc", "")).unwrap();
        assert!(all.iter().any(|k| k.contains("breaker")));
        let bad = pool_of(&link.replace("tune=on&", "")).unwrap_err();
        assert!(bad.contains("tune"), "{bad}");
    }
}

//! `retrylab export`: a link's policy written as a format's configuration, the reverse of
//! `import`. What the format cannot say comes back as a note on the key (and, in YAML, as a
//! comment); a key with nothing close in the format is refused by name. For each format,
//! importing what is exported gives the link's schedule back (the same retries, ranges and
//! timeouts) whenever no note was needed.

use crate::formats::Format;
use crate::write::Notes;
use crate::{short, ImportError, Note};
use retry_model::{link_key, Micros, Params};

/// The formats written, by the name `--to` takes: every format read.
pub const EXPORT_FORMATS: &[&str] = &crate::FORMATS;

/// A configuration written from a link.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Exported {
    /// The format written.
    pub format: &'static str,
    /// The configuration, as a file holds it.
    pub text: String,
    /// What the format cannot express of the link, each on its key.
    pub notes: Vec<Note>,
}

/// Writes the policy of `link` as format `to` (one of [`EXPORT_FORMATS`]).
pub fn export(link: &str, to: &str) -> Result<Exported, ImportError> {
    let p: Params = link
        .parse()
        .map_err(|e: retry_model::ConfigError| ImportError::new("link", e.to_string()))?;
    // A file holds one policy: a comparison's two sides, or a stack's layers, are not one.
    if p.compare.is_some() {
        return Err(ImportError::new("b.", "this link compares two sides: a configuration holds one policy, so export each side's own link (side B's keys without their b.)"));
    }
    if p.sim.kind() == Some(retry_model::sim::ScenarioKind::Layers) {
        return Err(ImportError::new("layers", "this link stacks layers, each with its own attempts and lN. keys: a configuration holds one layer's policy, so export a link without scenario=layers for each"));
    }
    let format = Format::named(to).ok_or_else(|| {
        ImportError::new(
            "--to",
            format!(
                "'{}' is not a format written here: accepted {}",
                short(to),
                EXPORT_FORMATS.join(", ")
            ),
        )
    })?;
    let mut notes = Notes::new(format);
    if p.policy.backoff.whole_ms && !format.whole_ms() {
        notes.add(
            link_key!("whole_ms"),
            "the format draws finer than whole milliseconds: whole_ms is not written",
        );
    }
    // Polly and tenacity write a linear wait (equal steps summed) and note any other sum.
    if p.policy.backoff.ceiling_sum && !format.sums() {
        notes.add(
            link_key!("ceiling_sum"),
            "the format's waits grow by the multiplier, not as a sum of the steps so far: ceiling_sum is not written, so each wait is the last step alone",
        );
    }
    shaping_notes(&p, format, &mut notes);
    let text = match format {
        Format::Grpc => crate::grpc::export(&p, &mut notes),
        Format::Envoy => crate::envoy::export(&p, &mut notes),
        Format::Istio => crate::istio::export(&p, &mut notes),
        Format::Linkerd => crate::linkerd::export(&p, &mut notes),
        Format::GatewayApi => crate::gateway::export(&p, &mut notes),
        Format::SpringGateway => crate::spring_gateway::export(&p, &mut notes),
        Format::Resilience4j => crate::resilience4j::export(&p, &mut notes),
        Format::Polly => crate::polly::export(&p, &mut notes),
        Format::Aws => crate::aws::export(&p, &mut notes),
        Format::Tenacity => crate::tenacity::export(&p, &mut notes),
    }?;
    Ok(Exported {
        format: format.name(),
        text,
        notes: notes.into_notes(),
    })
}

/// Notes for the backoff's shaping keys no format here writes (or, for `floor`, only some):
/// named, never dropped, so the file's waits are known to differ.
fn shaping_notes(p: &Params, format: Format, notes: &mut Notes) {
    let b = &p.policy.backoff;
    if b.sorted {
        notes.add(link_key!("sorted"), "the format draws each wait when it is due, not up front smallest first: sorted is not written");
    }
    if b.first_wait_zero {
        notes.add(link_key!("first_wait"), "the format's first retry waits its backoff: first_wait=0 (a first retry at once) is not written");
    }
    if b.multiplier_from_base {
        notes.add(link_key!("multiplier_from_base"), "the format's growth is its own multiplier, not the base in milliseconds: multiplier_from_base is not written, so the waits grow by the link's multiplier");
    }
    if p.sim.server().is_some_and(|s| s.breaker.is_some()) {
        notes.add(
            link_key!("breaker"),
            "the export writes the retry policy alone: the circuit breaker beside it is not written (a library's own breaker is configured apart, and a proxy's outlier detection is another rule)",
        );
    }
    if let Some(why) = hedge_note(format).filter(|_| p.sim.server().is_some_and(|s| s.hedge.on)) {
        notes.add(link_key!("hedge"), why);
    }
    if b.floor != Micros::ZERO && !format.floor() {
        notes.add(
            link_key!("floor"),
            "the format has no least wait: floor is not written, so a wait may be shorter",
        );
    }
}

/// Why `format` does not write a link's hedging (`hedge=on`), or `None` where it does (a gRPC
/// service config's `hedgingPolicy`). Every other format writes the retry policy beside it.
fn hedge_note(format: Format) -> Option<&'static str> {
    Some(match format {
        Format::Grpc => return None,
        Format::Envoy | Format::Istio => "Envoy hedges only when an attempt's per-try timeout passes: the link's hedging is not written",
        Format::Linkerd => "Linkerd does not hedge: the link's hedging is not written",
        Format::GatewayApi => "an HTTPRoute's retry has no hedging: the link's hedging is not written",
        Format::SpringGateway => "the Retry filter does not hedge: the link's hedging is not written",
        Format::Resilience4j => "resilience4j's retry does not hedge: the link's hedging is not written",
        Format::Polly => "the pipeline's retry strategy is written; a hedging strategy is configured apart (AddHedging), so the link's hedging is not written",
        Format::Aws => "the AWS SDK does not hedge: not written",
        Format::Tenacity => "tenacity does not hedge: not written",
    })
}

#[cfg(test)]
mod tests;

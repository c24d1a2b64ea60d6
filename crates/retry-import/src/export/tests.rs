use crate::export::{export, EXPORT_FORMATS};
use crate::{import, Options};
use proptest::prelude::*;
use retry_model::{schedule, Micros, Params};

/// What a link's schedule is: its retries' ranges, its attempts, its deadline and timeout.
fn shape(link: &str) -> (Vec<(Micros, Micros)>, u32, Option<Micros>, Micros) {
    let p: Params = link.parse().unwrap_or_else(|e| panic!("{link}: {e}"));
    let s = schedule(&p).unwrap();
    let ranges = s.retries.iter().map(|r| (r.low, r.ceiling)).collect();
    (
        ranges,
        p.policy.max_attempts,
        p.policy.deadline,
        p.policy.attempt_timeout,
    )
}

/// `link` exported to `to` and imported back.
fn round_trip(link: &str, to: &str) -> (crate::export::Exported, String) {
    let e = export(link, to).unwrap_or_else(|e| panic!("{to}: {e}"));
    let opts = Options {
        from: Some(to.to_string()),
        ..Options::default()
    };
    let back =
        import(e.text.as_bytes(), &opts).unwrap_or_else(|err| panic!("{to}: {err}\n{}", e.text));
    (e, back.link)
}

#[test]
fn a_grpc_policy_goes_out_and_comes_back_with_its_schedule() {
    let link = "attempts=4&backoff=exponential&base=100ms&cap=1s&jitter=mult&jitter_lo=0.8&jitter_hi=1.2&jitter_after_cap=true&deadline=2500ms&attempt_timeout=2500ms&fit=cut&classify=grpc&retry_on=429,503&budget=grpc&grpc_max_tokens=10&grpc_token_ratio=0.1";
    let (e, back) = round_trip(link, "grpc");
    assert!(e.notes.is_empty(), "{:?}", e.notes);
    assert!(e.text.contains("\"retryableStatusCodes\": [\n          \"UNAVAILABLE\",\n          \"RESOURCE_EXHAUSTED\""), "{}", e.text);
    assert!(
        e.text.contains("\"maxTokens\": 10,") && e.text.contains("\"timeout\": \"2.5s\""),
        "{}",
        e.text
    );
    assert_eq!(shape(&back), shape(link));
    let imported = import(e.text.as_bytes(), &Options::default()).unwrap();
    assert_eq!(
        imported.link.parse::<Params>().unwrap().to_string(),
        link.parse::<Params>().unwrap().to_string()
    );
}

#[test]
fn what_a_format_cannot_say_is_a_note_and_nothing_close_is_refused() {
    let e = export("backoff=full&base=50ms&cap=1s&attempts=4", "grpc").unwrap();
    assert!(
        e.notes
            .iter()
            .any(|n| n.field == "backoff" && n.text.contains("not full jitter")),
        "{:?}",
        e.notes
    );
    let err = export("backoff=decorrelated&attempts=4", "grpc").unwrap_err();
    assert_eq!(err.field, "backoff");
    let err = export("backoff=none&attempts=4", "envoy").unwrap_err();
    assert_eq!(err.field, "backoff");
    let e = export(
        "backoff=exponential&base=50ms&cap=2s&attempts=3&budget=bucket",
        "envoy",
    )
    .unwrap();
    for key in ["backoff", "budget", "fit"] {
        assert!(
            e.notes.iter().any(|n| n.field == key),
            "{key}: {:?}",
            e.notes
        );
        assert!(
            e.text.contains(&format!("# not expressed: {key}: ")),
            "{}",
            e.text
        );
    }
    let e = export("backoff=full&base=50ms&cap=2s", "istio").unwrap();
    assert!(e.notes.iter().any(|n| n.field == "cap"), "{:?}", e.notes);
    let err = export("attempts=3", "yaml").unwrap_err();
    assert!(
        err.field == "--to" && err.rule.contains("grpc, envoy, istio"),
        "{err}"
    );
    let err = export("attempts=3000", "grpc").unwrap_err();
    assert_eq!(err.field, "link");
}

#[test]
fn envoy_and_istio_write_what_they_read() {
    // Envoy's cluster allows 3 retries in flight unless told otherwise: the link says so.
    let link = "attempts=4&backoff=full&base=50ms&cap=500ms&whole_ms=true&deadline=3s&attempt_timeout=500ms&fit=cut&retry_on=429,500-599&idempotent=true&ra_mode=envoy&ra_max=90s&budget=envoy";
    let (e, back) = round_trip(link, "envoy");
    assert!(e.notes.is_empty(), "{:?}", e.notes);
    assert!(
        e.text
            .contains("retry_on: \"5xx,connect-failure,refused-stream,retriable-status-codes\"")
            && e.text.contains("retriable_status_codes: [429]"),
        "{}",
        e.text
    );
    assert_eq!(shape(&back), shape(link));
    let back: Params = back.parse().unwrap();
    assert_eq!(back.policy.statuses.to_string(), "429,500-599");
    assert_eq!(back.get("ra_mode").as_deref(), Some("envoy"));
    assert_eq!(back.get("ra_max").as_deref(), Some("90s"));
    let (e, back) = round_trip(
        // Istio sets no limit on retries in flight.
        &link
            .replace("ra_mode=envoy&ra_max=90s", "ra_mode=ignore")
            .replace("&budget=envoy", ""),
        "istio",
    );
    assert!(e.notes.is_empty(), "{:?}", e.notes);
    assert!(
        e.text
            .contains("retryOn: \"5xx,connect-failure,refused-stream,429\"")
            && e.text.contains("perTryTimeout: 500ms"),
        "{}",
        e.text
    );
    assert_eq!(shape(&back), shape(link));
}

/// A random policy each format can express exactly: (link, format).
fn exact() -> impl Strategy<Value = (String, &'static str)> {
    let common = (2u32..6, 1u64..400, 1u64..12, 1u64..60, 1u64..5);
    let formats = prop::sample::select(EXPORT_FORMATS.to_vec());
    (common, formats).prop_map(|((n, base_ms, times, deadline_s, per_s), to)| {
        let cap_ms = base_ms * times;
        // gRPC has no per-attempt timeout: an attempt may take the whole deadline.
        let per_s = if to == "grpc" { deadline_s } else { per_s.min(deadline_s) };
        let timing = format!("attempts={n}&deadline={deadline_s}s&attempt_timeout={per_s}s&fit=cut");
        let link = match to {
            "grpc" => format!("{timing}&backoff=exponential&base={base_ms}ms&cap={cap_ms}ms&multiplier=2&jitter=mult&jitter_lo=0.8&jitter_hi=1.2&jitter_after_cap=true&classify=grpc&retry_on=503"),
            "istio" => format!("{timing}&backoff=full&base={base_ms}ms&cap={}ms&whole_ms=true&retry_on=503&ra_mode=ignore", base_ms * 10),
            // Envoy's cluster allows 3 retries in flight by default (no limit is not Envoy's).
            "envoy" => format!("{timing}&backoff=full&base={base_ms}ms&cap={cap_ms}ms&whole_ms=true&retry_on=503&ra_mode=ignore&budget=envoy"),
            // resilience4j: no deadline, no attempt timeout, a symmetric factor capped after it.
            "resilience4j" => format!("attempts={n}&deadline=none&attempt_timeout=24h&backoff=exponential&base={base_ms}ms&cap={cap_ms}ms&multiplier=2&jitter=mult&jitter_lo=0.75&jitter_hi=1.25&retry_on=400-599&idempotent=true&ra_mode=ignore"),
            // Polly: decorrelated jitter V2 under a total timeout.
            "polly" => format!("attempts={n}&deadline={deadline_s}s&attempt_timeout={}s&fit=cut&backoff=decorrelated-v2&base={base_ms}ms&cap={cap_ms}ms&retry_on=408,429,500-599&idempotent=true&ra_mode=server", per_s.min(deadline_s)),
            // Linkerd retries at once; a gateway waits a constant; Spring Cloud Gateway doubles.
            "linkerd" => format!("{timing}&backoff=none&retry_on=500-599&idempotent=true&ra_mode=ignore"),
            "gateway-api" => format!("{timing}&backoff=full&base={base_ms}ms&cap={}ms&whole_ms=true&retry_on=503&ra_mode=ignore", base_ms * 10),
            "spring-gateway" => format!("attempts={n}&deadline=none&attempt_timeout={per_s}s&backoff=exponential&base={base_ms}ms&cap={cap_ms}ms&multiplier=2&retry_on=500-599&idempotent=true&ra_mode=ignore"),
            // The SDK's modes are fixed: only the attempts vary.
            "aws" => format!("attempts={n}&deadline=none&attempt_timeout=60s&backoff=full&base=50ms&cap=20s&throttle_base=1s&classify=aws&ra_mode=clamp&budget=aws2026"),
            // tenacity has no attempt timeout: the lab's 24 h stands for none.
            "tenacity" => {
                let timing = format!("attempts={n}&deadline={deadline_s}s&attempt_timeout=24h&fit=cut");
                let wait = ["backoff=full", "backoff=exponential", "backoff=exponential&jitter=add&jitter_add=50ms", "backoff=exponential&jitter=add&jitter_add=50ms&jitter_after_cap=true"][(per_s % 4) as usize];
                format!("{timing}&{wait}&base={base_ms}ms&cap={cap_ms}ms&multiplier=3&retry_on=400-599&idempotent=true&ra_mode=ignore")
            }
            _ => format!("{timing}&backoff=full&base={base_ms}ms&cap={cap_ms}ms&whole_ms=true&retry_on=503&ra_mode=ignore"),
        };
        (link, to)
    })
}

proptest! {
    /// A policy a format can express goes out with no note and comes back with its schedule.
    #[test]
    fn an_exact_policy_round_trips((link, to) in exact()) {
        let (e, back) = round_trip(&link, to);
        prop_assert!(e.notes.is_empty(), "{:?}", e.notes);
        prop_assert_eq!(shape(&back), shape(&link));
    }

    /// Any policy is written, with its notes, or refused naming a link key; what is written
    /// imports.
    #[test]
    fn any_policy_is_written_or_refused_by_key(
        kind in prop::sample::select(vec!["none", "constant", "exponential", "full", "equal", "decorrelated", "decorrelated-v2"]),
        n in 1u32..8, base_ms in 0u64..500, to in prop::sample::select(EXPORT_FORMATS.to_vec()),
        budget in prop::sample::select(vec!["none", "grpc", "bucket"]),
    ) {
        let link = format!("attempts={n}&backoff={kind}&base={base_ms}ms&cap=2s&budget={budget}");
        if link.parse::<Params>().is_err() {
            return Ok(());
        }
        match export(&link, to) {
            Ok(e) => {
                let opts = Options { from: Some(to.to_string()), ..Options::default() };
                prop_assert!(import(e.text.as_bytes(), &opts).is_ok(), "{}", e.text);
            }
            Err(err) => prop_assert!(retry_model::all_keys().any(|k| k == err.field), "{}", err),
        }
    }
}

/// The backoff's shaping keys no format here writes are named in every export's notes, never
/// dropped (`floor=2s` to resilience4j once came back waiting 0 to 100 ms).
#[test]
fn shaping_keys_are_written_or_named() {
    for (extra, key) in [
        ("floor=200ms", "floor"),
        ("first_wait=0", "first_wait"),
        ("sorted=true", "sorted"),
        (
            "multiplier_from_base=true&base=10ms",
            "multiplier_from_base",
        ),
        ("ceiling_sum=true", "ceiling_sum"),
    ] {
        let base = if extra.contains("base=") {
            ""
        } else {
            "&base=100ms"
        };
        let link = format!("attempts=4&backoff=full&cap=2s{base}&{extra}");
        for to in crate::EXPORT_FORMATS {
            let out = crate::export(&link, to).unwrap_or_else(|e| panic!("{link} to {to}: {e}"));
            let written = *to == "tenacity" && key == "floor" && out.text.contains("min=0.2");
            assert!(
                written || out.notes.iter().any(|n| n.key == key),
                "{to} drops {key}: {:?}",
                out.notes.iter().map(|n| n.key).collect::<Vec<_>>()
            );
        }
    }
}

/// Hedging is written by the one format that has it (a gRPC service config's
/// `hedgingPolicy`) and named in every other export's notes: five formats once wrote the
/// retry policy beside it with no word.
#[test]
fn hedging_is_written_or_named() {
    let link = "scenario=outage&hedge=on&hedge_delay=50ms&hedge_max=3";
    for to in crate::EXPORT_FORMATS {
        let out = crate::export(link, to).unwrap_or_else(|e| panic!("{to}: {e}"));
        let noted = out.notes.iter().any(|n| n.key == "hedge");
        if *to == "grpc" {
            assert!(
                !noted && out.text.contains("\"hedgingDelay\": \"0.05s\""),
                "{}",
                out.text
            );
        } else {
            assert!(noted, "{to} drops hedge: {:?}", out.notes);
        }
    }
}

/// A link that is not one policy is refused by key; an export is always read back by its own
/// importer (Envoy with a cap under 1 ms, Istio with a base whose 10 x is over a day).
#[test]
fn exports_are_one_policy_and_read_back() {
    let e = crate::export("preset=layers-333", "grpc").unwrap_err();
    assert_eq!(e.field, "layers");
    let e = crate::export("preset=payments-none&b.preset=payments-jitter", "envoy").unwrap_err();
    assert_eq!(e.field, "b.");
    for (link, to) in [
        ("attempts=3&backoff=full&base=100us&cap=500us", "envoy"),
        ("attempts=3&backoff=full&base=3h&cap=24h", "istio"),
    ] {
        let out = crate::export(link, to).unwrap();
        let back = crate::import(out.text.as_bytes(), &crate::Options::default())
            .unwrap_or_else(|e| panic!("{link} to {to}, read back: {e}"));
        assert!(back.link.contains("backoff=full"), "{}", back.link);
    }
}

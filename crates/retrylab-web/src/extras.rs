//! The per-scenario charts beside the timeline: for `layers`, the calls that reach each layer
//! per user request (worst case, expected at the link's `p`, retrying at one layer only, and the
//! simulated bottom calls); for `lost`, the duplicate charges with and without an idempotency
//! key (the link, and its twin with the key switched). Pure, so it is tested natively: the
//! arithmetic is the core's (`amplify`, the runs' `Summary`).

use crate::charts::bars::{BarSeries, Bars};
use retry_model::sim::{ScenarioKind, Summary};
use retry_model::{amplify, Params};

fn has_key(p: &Params) -> bool {
    p.get("key").as_deref() == Some("true")
}

/// The link the lost-responses view runs beside this one: the same with the idempotency key
/// switched (switched off, the client still retries read timeouts: `idempotent=true`, so the
/// chart shows what the key prevents). `None` for other scenarios, comparisons and sweeps.
pub fn lost_twin(p: &Params) -> Option<Params> {
    if p.sim.kind() != Some(ScenarioKind::Lost) || p.compare.is_some() || p.sweep().is_some() {
        return None;
    }
    let mut twin = p.clone();
    if has_key(p) {
        twin.set("key", "false").ok()?;
        twin.set("idempotent", "true").ok()?;
    } else {
        twin.set("key", "true").ok()?;
    }
    twin.validate().ok()?;
    Some(twin)
}

fn per_100(s: &Summary) -> f64 {
    if s.originals == 0 {
        0.0
    } else {
        s.duplicates as f64 * 100.0 / s.originals as f64
    }
}

/// Duplicate charges per 100 checkouts, without and with the key (`this` is the link's run).
pub fn lost_bars(p: &Params, this: &Summary, twin: &Summary) -> Bars {
    let (without, with) = if has_key(p) {
        (twin, this)
    } else {
        (this, twin)
    };
    let bar = |s: &Summary| {
        Some((
            per_100(s),
            format!("{} duplicates in {} checkouts", s.duplicates, s.originals),
        ))
    };
    Bars {
        title: String::from("Duplicate charges: the same link without and with an idempotency key"),
        y_label: String::from("duplicate charges per 100 checkouts"),
        categories: vec![
            String::from("no key (key=false, idempotent=true)"),
            String::from("idempotency key (key=true)"),
        ],
        series: vec![BarSeries {
            name: String::from("charges beyond one per checkout (first run of each)"),
            bars: vec![bar(without), bar(with)],
        }],
    }
}

/// Calls reaching each layer, and the bottom dependency, per user request.
pub fn layers_bars(p: &Params, s: &Summary) -> Option<Bars> {
    if p.sim.kind() != Some(ScenarioKind::Layers) {
        return None;
    }
    // What each layer makes when every call below fails (its own policy may not retry 503).
    let layers = p.layer_attempts();
    let prob = retry_model::decimal_f64(&p.get("p")?)?;
    let a = amplify(&layers, prob).ok()?;
    let n = layers.len();
    let mut categories: Vec<String> = (1..=n)
        .map(|i| {
            if i == 1 {
                String::from("layer 1 (top)")
            } else {
                format!("layer {i}")
            }
        })
        .collect();
    categories.push(String::from("bottom dependency"));
    let worst: Vec<Option<(f64, String)>> = a
        .rows
        .iter()
        .map(|r| r.worst_calls_in)
        .chain(core::iter::once(a.worst_case))
        .map(|v| Some((v as f64, v.to_string())))
        .collect();
    let product: Vec<String> = layers.iter().map(u32::to_string).collect();
    let mut series = vec![BarSeries {
        name: format!(
            "worst case, every call fails ({} = {})",
            product.join(" x "),
            a.worst_case
        ),
        bars: worst,
    }];
    if prob < 1.0 {
        series.push(expected_series(&a, n, prob));
    }
    let fix: Vec<Option<(f64, String)>> = (0..=n)
        .map(|i| {
            let v = if i < n { 1 } else { a.fix_worst_case };
            Some((v as f64, v.to_string()))
        })
        .collect();
    series.push(BarSeries {
        name: format!(
            "retry at the bottom layer only, worst case ({})",
            a.fix_worst_case
        ),
        bars: fix,
    });
    let mut simulated: Vec<Option<(f64, String)>> = vec![None; n];
    simulated.push(Some((
        s.amplification,
        format!("{}x", retry_model::sig3(s.amplification)),
    )));
    series.push(BarSeries {
        name: String::from("simulated: bottom calls per user request (this run)"),
        bars: simulated,
    });
    Some(Bars {
        title: String::from("Calls per user request reaching each layer"),
        y_label: String::from("calls per user request"),
        categories,
        series,
    })
}

/// The expected calls reaching each layer when a bottom call fails with probability `prob`.
fn expected_series(a: &retry_model::Amplification, n: usize, prob: f64) -> BarSeries {
    let mut expected_in = vec![1.0];
    expected_in.extend(
        a.rows
            .iter()
            .take(n.saturating_sub(1))
            .map(|r| r.expected_calls_out),
    );
    expected_in.push(a.expected);
    BarSeries {
        name: format!("expected at p = {prob}"),
        bars: expected_in
            .into_iter()
            .map(|v| Some((v, format!("{v:.2}"))))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_layers_of_three_multiply_to_27_and_the_run_agrees() {
        let p: Params = "preset=layers-333".parse().unwrap();
        let s = retry_model::sim::simulate(&p).unwrap().summary;
        let b = layers_bars(&p, &s).unwrap();
        assert_eq!(b.categories.len(), 4);
        let worst: Vec<f64> = b.series[0]
            .bars
            .iter()
            .map(|x| x.as_ref().unwrap().0)
            .collect();
        assert_eq!(worst, [1.0, 3.0, 9.0, 27.0]);
        assert_eq!(b.series.len(), 3, "p = 1: no separate expected series");
        assert_eq!(
            b.series[1].bars[3].as_ref().unwrap().0,
            3.0,
            "the fix: 3 bottom calls"
        );
        let sim = b.series[2].bars[3].as_ref().unwrap();
        assert_eq!(sim.1, "27x", "the tile's words");
        assert!(b.series[2].bars[0].is_none());
        let q: Params = "preset=layers-333&p=0.5".parse().unwrap();
        assert_eq!(layers_bars(&q, &s).unwrap().series.len(), 4);
        let other: Params = "preset=payments-jitter".parse().unwrap();
        assert!(layers_bars(&other, &s).is_none());
    }

    #[test]
    fn the_lost_twin_switches_the_key_and_keeps_retrying() {
        let p: Params = "preset=lost-nokey".parse().unwrap();
        let t = lost_twin(&p).unwrap();
        assert_eq!(t.to_string(), "v=2&preset=lost-nokey&key=true");
        let k: Params = "preset=lost-key".parse().unwrap();
        assert_eq!(
            lost_twin(&k).unwrap().to_string(),
            "v=2&preset=lost-key&idempotent=true&key=false"
        );
        assert!(lost_twin(&"preset=layers-333".parse().unwrap()).is_none());
        let (a, b) = (
            Summary {
                originals: 1200,
                duplicates: 127,
                ..Summary::default()
            },
            Summary {
                originals: 1200,
                duplicates: 0,
                ..Summary::default()
            },
        );
        let bars = lost_bars(&p, &a, &b);
        let first = bars.series[0].bars[0].as_ref().unwrap();
        assert!((first.0 - 127.0 / 12.0).abs() < 1e-12);
        assert_eq!(first.1, "127 duplicates in 1200 checkouts");
        assert_eq!(
            lost_bars(&k, &b, &a).series[0].bars[0],
            bars.series[0].bars[0],
            "no key is always on the left"
        );
    }
}

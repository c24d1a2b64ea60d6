use crate::testing::corpus;
use crate::{stack, Options};
use retry_model::Params;

fn files(paths: &[&str]) -> Vec<(String, Vec<u8>)> {
    paths
        .iter()
        .map(|p| (format!("tests/configs/{p}"), corpus(p)))
        .collect()
}

#[test]
fn three_real_configurations_stack_into_their_product() {
    // A Python client (tenacity, 6 attempts), Istio's ratings route in front of the service,
    // and the service's own gRPC client (grpc-go's example).
    let s = stack(
        &files(&[
            "tenacity/openai-cookbook.py",
            "istio/ratings.yaml",
            "grpc/grpc-go-example.json",
        ]),
        &Options::default(),
    )
    .unwrap();
    let p: Params = s.link.parse().unwrap_or_else(|e| panic!("{}: {e}", s.link));
    let ks: Vec<u32> = s.layers.iter().map(|l| l.attempts).collect();
    assert_eq!(
        p.get("layers").unwrap(),
        ks.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
    );
    assert_eq!(
        p.get("layer_names").unwrap(),
        "openai-cookbook.py,ratings.yaml,grpc-go-example.json"
    );
    let product: u32 = ks.iter().product();
    assert!(
        s.warnings
            .iter()
            .any(|w| w.field == "layers" && w.text.contains(&format!("= {product} bottom calls"))),
        "{:?}",
        s.warnings
    );
    // Under total failure with no deadline cutting it short, one request makes the product.
    let r = retry_model::sim::simulate(
        &format!(
            "{}&deadline=none&requests=5",
            s.link.replace("&deadline=none", "")
        )
        .parse()
        .unwrap(),
    )
    .unwrap();
    assert_eq!(r.summary.attempts, 5 * u64::from(product));
    // Every layer runs its own file's policy: waits, timeouts, deadline and statuses.
    assert!(
        s.link.contains("&l2.") && s.link.contains("&l3."),
        "{}",
        s.link
    );
    for (n, layer) in s.layers.iter().enumerate() {
        let own: Params = layer.link.parse().unwrap();
        let got = p.layer_policy(n as u32 + 1).unwrap_or(p.policy);
        let want = own.policy;
        assert_eq!(got.backoff, want.backoff, "{}", layer.name);
        assert_eq!(got.attempt_timeout, want.attempt_timeout, "{}", layer.name);
        assert_eq!(got.deadline, want.deadline, "{}", layer.name);
        assert_eq!(got.statuses, want.statuses, "{}", layer.name);
        assert_eq!(got.classifier, want.classifier, "{}", layer.name);
        assert_eq!(ks[n], want.max_attempts, "{}", layer.name);
    }
    assert_eq!(p.layer_attempts(), ks, "each file retries the 503 below it");
    // Their warnings carry their file.
    assert!(
        !s.unsupported.iter().any(|u| u.text.contains("outermost")),
        "{:?}",
        s.unsupported
    );
    assert!(s
        .warnings
        .iter()
        .any(|w| w.field.starts_with("ratings.yaml: ")));
}

#[test]
fn what_cannot_stack_is_refused_naming_the_file() {
    let err = stack(&files(&["istio/ratings.yaml"]), &Options::default()).unwrap_err();
    assert_eq!(err.field, "files");
    let mut bad = files(&["istio/ratings.yaml", "grpc/a6-example.json"]);
    bad[1].1 = b"{\"methodConfig\": 3}".to_vec();
    let err = stack(&bad, &Options::default()).unwrap_err();
    assert!(err.field.starts_with("a6-example.json: "), "{err}");
    let many = vec![
        (
            String::from("loop.py"),
            b"from tenacity import *\n@retry(stop=stop_after_attempt(200))\ndef f(): pass\n"
                .to_vec()
        );
        2
    ];
    let err = stack(&many, &Options::default()).unwrap_err();
    assert!(
        err.field == "loop.py: attempts" && err.rule.contains("at most 100"),
        "{err}"
    );
}

/// Each layer of `s` runs the policy its file gives alone: waits, timeouts, deadline, statuses,
/// classification, the operation and the attempts.
fn layers_keep_their_files(s: &crate::Stack) -> Result<(), String> {
    let p: Params = s.link.parse().map_err(|e| format!("{}: {e}", s.link))?;
    for (n, layer) in s.layers.iter().enumerate() {
        let own: Params = layer.link.parse().map_err(|e| format!("{e}"))?;
        let mut got = p.layer_policy(n as u32 + 1).unwrap_or(p.policy);
        let mut want = own.policy;
        // A layer fails with 503, never 429: the base after a throttling answer never applies.
        (got.backoff.throttle_base, want.backoff.throttle_base) = (None, None);
        let same = got.backoff == want.backoff
            && got.attempt_timeout == want.attempt_timeout
            && got.deadline == want.deadline
            && got.statuses == want.statuses
            && got.classifier == want.classifier
            && got.operation == want.operation
            && got.fit == want.fit
            && p.layer_attempts().get(n).is_some()
            && s.layers[n].attempts == want.max_attempts;
        if !same {
            return Err(format!(
                "layer {} ({}) runs {got:?}, its file alone {want:?}",
                n + 1,
                layer.name
            ));
        }
    }
    Ok(())
}

/// Every configuration file of the tests, with its bytes.
fn every_corpus_file() -> Vec<(String, Vec<u8>)> {
    let root = format!("{}/../../tests/configs", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from(root)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let path = e.path();
            if path.is_dir() {
                dirs.push(path);
            } else if !matches!(
                path.extension().and_then(|x| x.to_str()),
                Some("md" | "toml")
            ) && path.file_name().is_some_and(|n| n != "check_exports.py")
            {
                out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A stack never loses a layer: for every ordered pair of the corpus's files that import alone
/// (at most 100 attempts each, the layers scenario's limit), both layers run their own file's
/// policy, whatever key the outer file sets that the inner policy cannot take.
#[test]
fn every_ordered_pair_keeps_both_layers_policies() {
    let opts = Options::default();
    let alone: Vec<(String, Vec<u8>)> = every_corpus_file()
        .into_iter()
        .filter(|(_, b)| {
            crate::import(b, &opts).is_ok_and(|i| {
                i.link
                    .parse::<Params>()
                    .is_ok_and(|p| p.policy.max_attempts <= 100)
            })
        })
        .collect();
    assert!(alone.len() >= 100, "{} files", alone.len());
    let mut pairs = 0;
    for a in &alone {
        for b in &alone {
            if a.0 == b.0 {
                continue;
            }
            let s = stack(&[a.clone(), b.clone()], &opts)
                .unwrap_or_else(|e| panic!("{} over {}: {e}", a.0, b.0));
            if let Err(why) = layers_keep_their_files(&s) {
                panic!("{} over {}: {why}", a.0, b.0);
            }
            assert!(
                !s.unsupported.iter().any(|u| u.text.contains("outermost")),
                "{} over {}: {:?}",
                a.0,
                b.0,
                s.unsupported
            );
            pairs += 1;
        }
    }
    assert!(pairs >= 100 * 99, "{pairs} pairs");
}

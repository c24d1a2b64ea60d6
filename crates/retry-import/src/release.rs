//! Which release's rules an import applies. A format's defaults change between releases (Istio
//! stopped retrying 503 by default in 1.24; resilience4j 2.0 removed `maxRetryAttempts`;
//! botocore 1.44 made standard mode the default and cut its base wait to 50 ms; Spring Cloud
//! Gateway's WebMVC filter counts attempts where WebFlux counts retries), so the same file runs a
//! different schedule under each. Every import names the release whose rules it applied, read
//! from the file's own shape where it shows (a removed key, a property prefix), else the current
//! one; `--version` (the page's Release menu) applies another where the rules differ.
//!
//! ```
//! use retry_import::{import, Options};
//! let vs = "apiVersion: networking.istio.io/v1\nkind: VirtualService\nspec:\n  http:\n  - route: [{destination: {host: a}}]\n";
//! let now = import(vs.as_bytes(), &Options::default()).unwrap();
//! assert_eq!(now.release, "Istio 1.24+");
//! let old = Options { release: Some("1.23".into()), ..Options::default() };
//! assert_eq!(import(vs.as_bytes(), &old).unwrap().release, "Istio 1.23 and earlier");
//! ```

use crate::formats::Format;
use crate::{short, ImportError};

/// One release whose rules differ from the others' for a format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    /// The format (one of [`crate::FORMATS`]).
    pub format: &'static str,
    /// The name `--version` takes.
    pub name: &'static str,
    /// How the import names it.
    pub label: &'static str,
    /// What its rules change, in one line.
    pub rules: &'static str,
}

/// Every release the importer knows, the current one of each format first.
pub const RELEASES: &[Release] = &[
    Release {
        format: Format::Grpc.name(),
        name: "a6",
        label: "gRFC A6 (2024 revision)",
        rules: "maxAttempts clamped to 5, backoff x U(0.8, 1.2) after the cap",
    },
    Release {
        format: Format::Envoy.name(),
        name: "v3",
        label: "Envoy v3 API",
        rules: "num_retries 1, 15 s route timeout, 25 ms base, whole-ms full jitter",
    },
    Release {
        format: Format::Istio.name(),
        name: "1.24",
        label: "Istio 1.24+",
        rules: "the default retry policy does not retry 503 (EXCLUDE_UNSAFE_503_FROM_DEFAULT_RETRY, on by default in 1.24, the only rule since)",
    },
    Release {
        format: Format::Istio.name(),
        name: "1.23",
        label: "Istio 1.23 and earlier",
        rules: "the default retry policy also retries 503 (or 1.24+ with compatibilityVersion 1.23)",
    },
    Release {
        format: Format::Linkerd.name(),
        name: "2.16",
        label: "Linkerd 2.16+",
        rules: "retry.linkerd.io annotations; a ServiceProfile, where one applies, takes over",
    },
    Release {
        format: Format::GatewayApi.name(),
        name: "istio",
        label: "Gateway API on Istio",
        rules: "retry {} is 2 retries on connection failures; a rule without retry gets Istio's default policy; backoff is the base of Envoy's full jitter",
    },
    Release {
        format: Format::GatewayApi.name(),
        name: "envoy-gateway",
        label: "Gateway API on Envoy Gateway",
        rules: "retry {} is 2 retries; a rule without retry is not retried; backoff is the base of Envoy's full jitter",
    },
    Release {
        format: Format::Resilience4j.name(),
        name: "2",
        label: "resilience4j 2.x",
        rules: "maxAttempts counts every attempt; maxRetryAttempts is no longer a property and is ignored",
    },
    Release {
        format: Format::Resilience4j.name(),
        name: "1",
        label: "resilience4j 1.x",
        rules: "maxRetryAttempts (deprecated, removed in 2.0) is read as maxAttempts",
    },
    Release {
        format: Format::Polly.name(),
        name: "8",
        label: "Polly 8 / Microsoft.Extensions.Http.Resilience",
        rules: "MaxRetryAttempts counts retries (3), 2 s base, Exponential with jitter by default in the HTTP handlers; the standard handler adds 10 s per attempt and 30 s in all",
    },
    Release {
        format: Format::Aws.name(),
        name: "1.44",
        label: "botocore 1.44+",
        rules: "standard mode by default; standard waits U(0, min(50 ms x 2^(n-1), 20 s))",
    },
    Release {
        format: Format::Aws.name(),
        name: "1.43",
        label: "botocore 1.43 and earlier",
        rules: "legacy mode by default (5 attempts, U(0, 1) x 2^(n-1) s); standard waits U(0, min(1 s x 2^(n-1), 20 s))",
    },
    Release {
        format: Format::Aws.name(),
        name: "go-v2",
        label: "AWS SDK for Go v2",
        rules: "standard mode, 3 attempts, waits U(0, min(1 s x 2^(n-1), 20 s))",
    },
    Release {
        format: Format::Tenacity.name(),
        name: "9",
        label: "tenacity 9",
        rules: "no stop: retries forever; no wait: retries at once",
    },
    Release {
        format: Format::SpringGateway.name(),
        name: "webflux",
        label: "Spring Cloud Gateway (WebFlux)",
        rules: "retries counts retries: 3 retries are 4 attempts",
    },
    Release {
        format: Format::SpringGateway.name(),
        name: "webmvc",
        label: "Spring Cloud Gateway Server MVC",
        rules: "retries is Spring Retry's maxAttempts: 3 is 3 attempts in all",
    },
];

/// The releases of `format`, the current first.
pub fn releases_of(format: &str) -> impl Iterator<Item = &'static Release> + '_ {
    RELEASES.iter().filter(move |r| r.format == format)
}

/// The release `--version` names for `format`, else the one `shape` found in the file, else the
/// current one. A name the format has no release of is refused, naming those it has.
pub(crate) fn choose(
    format: &'static str,
    wanted: Option<&str>,
    shape: Option<&'static str>,
) -> Result<&'static Release, ImportError> {
    let mut all = releases_of(format);
    let current = all.next().expect("every format has a release");
    let Some(want) = wanted.map(str::trim).filter(|w| !w.is_empty()) else {
        return Ok(shape
            .and_then(|s| releases_of(format).find(|r| r.name == s))
            .unwrap_or(current));
    };
    let want_l = want.to_ascii_lowercase();
    let bare = want_l.trim_end_matches(".x").trim_end_matches('+');
    releases_of(format)
        .find(|r| r.name == bare || r.label.eq_ignore_ascii_case(want))
        .ok_or_else(|| {
            let names: Vec<&str> = releases_of(format).map(|r| r.name).collect();
            ImportError::new(
                "--version",
                format!(
                    "'{}' is not a {format} release whose rules the importer knows: accepted {}",
                    short(want),
                    names.join(", ")
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_format_has_a_current_release_and_names_are_unique() {
        for f in crate::FORMATS {
            assert!(releases_of(f).next().is_some(), "{f}");
            let names: Vec<&str> = releases_of(f).map(|r| r.name).collect();
            let mut unique = names.clone();
            unique.dedup();
            assert_eq!(names, unique, "{f}");
        }
        assert!(RELEASES.iter().all(|r| crate::FORMATS.contains(&r.format)));
    }

    #[test]
    fn a_release_is_chosen_by_name_label_or_shape() {
        assert_eq!(choose("istio", None, None).unwrap().name, "1.24");
        assert_eq!(choose("istio", Some("1.23"), None).unwrap().name, "1.23");
        assert_eq!(choose("istio", Some("1.24+"), None).unwrap().name, "1.24");
        assert_eq!(choose("resilience4j", None, Some("1")).unwrap().name, "1");
        assert_eq!(
            choose("resilience4j", Some("2.x"), Some("1")).unwrap().name,
            "2"
        );
        let e = choose("istio", Some("1.5"), None).unwrap_err();
        assert_eq!(e.field, "--version");
        assert!(e.rule.contains("accepted 1.24, 1.23"), "{}", e.rule);
    }

    /// The page's Release menu offers every release of each format that has more than one,
    /// by the name `--version` takes, as the import labels it.
    #[test]
    fn the_pages_menu_holds_every_release() {
        let page = format!("{}/../../www/index.html", env!("CARGO_MANIFEST_DIR"));
        let page = std::fs::read_to_string(page).unwrap();
        let menu = page
            .split("<select id=\"import-release\">")
            .nth(1)
            .and_then(|m| m.split("</select>").next())
            .expect("the Import box has a Release menu");
        let mut offered = 0;
        for f in crate::FORMATS {
            if releases_of(f).count() < 2 {
                continue;
            }
            assert!(menu.contains(&format!("<optgroup label=\"{f}\">")), "{f}");
            for r in releases_of(f) {
                let option = format!("<option value=\"{}\">{}</option>", r.name, r.label);
                assert!(menu.contains(&option), "{option}");
                offered += 1;
            }
        }
        assert_eq!(menu.matches("<option value=").count(), offered + 1);
    }

    /// docs/import.md's table holds every release, as `--version` names it and the import
    /// labels it, and nothing else.
    #[test]
    fn the_docs_table_holds_every_release() {
        let doc = format!("{}/../../docs/import.md", env!("CARGO_MANIFEST_DIR"));
        let doc = std::fs::read_to_string(doc).unwrap();
        for r in RELEASES {
            let row = format!(
                "| {} | `{}` | {} | {} |",
                r.format, r.name, r.label, r.rules
            );
            assert!(doc.contains(&row), "docs/import.md lacks {row}");
        }
        let rows = doc
            .lines()
            .filter(|l| l.starts_with("| ") && l.contains(" | `"))
            .count();
        assert_eq!(rows, RELEASES.len());
    }
}

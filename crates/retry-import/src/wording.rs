//! The importer's messages name its options as the CLI spells them (`--route NAME`); the page
//! has fields with labels instead. One table turns the one into the other, so a note read on
//! the page points at something the reader can see.
//!
//! ```
//! let cli = "3 http routes: took the first; pick another with --route NAME";
//! assert_eq!(
//!     retry_import::for_page(cli),
//!     "3 http routes: took the first; pick another in the \"Method, route or name\" field"
//! );
//! ```

/// Each CLI option as the messages write it, longest form first, and what the page calls it.
const OPTIONS: [(&str, &str); 8] = [
    ("with --method service/method", "in the \"Method, route or name\" field (service/method)"),
    ("with --route NAME, or rules[i] for a rule without a name", "in the \"Method, route or name\" field (a rule's name, or rules[i] for a rule without one)"),
    ("with --instance NAME (the function or variable it is on)", "in the \"Method, route or name\" field (the function or variable it is on)"),
    ("with --instance NAME", "in the \"Method, route or name\" field"),
    ("with --route NAME", "in the \"Method, route or name\" field"),
    ("with --route ID", "in the \"Method, route or name\" field"),
    ("--version names another", "the \"Release whose rules apply\" menu names another"),
    ("name one with --from", "name one in the \"Format\" menu"),
];

/// The field names a message or a refusal gives (`--route`), as the page's labels.
const FIELDS: [(&str, &str); 5] = [
    ("--method", "Method, route or name"),
    ("--route", "Method, route or name"),
    ("--instance", "Method, route or name"),
    ("--version", "Release whose rules apply"),
    ("--from", "Format"),
];

/// A message with the CLI's options named as the page's fields.
pub fn for_page(text: &str) -> String {
    let mut out = String::from(text);
    for (cli, page) in OPTIONS {
        out = out.replace(cli, page);
    }
    out
}

/// A note's or a refusal's field (`--route`) as the page's label; other fields as they are.
pub fn field_for_page(field: &str) -> String {
    FIELDS
        .iter()
        .find(|(cli, _)| *cli == field)
        .map_or_else(|| String::from(field), |(_, page)| String::from(*page))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_a_message_names_reads_as_a_field() {
        // Every `--option` written in the importer's sources, outside tests, is one the
        // table turns into a page field, wherever a message puts it.
        let sources = [
            include_str!("aws.rs"),
            include_str!("envoy.rs"),
            include_str!("gateway.rs"),
            include_str!("grpc.rs"),
            include_str!("istio.rs"),
            include_str!("linkerd.rs"),
            include_str!("polly.rs"),
            include_str!("resilience4j.rs"),
            include_str!("spring_gateway.rs"),
            include_str!("tenacity.rs"),
            include_str!("common.rs"),
            include_str!("lib.rs"),
            include_str!("release.rs"),
        ];
        let mut seen = 0;
        for src in sources {
            let code = src.split("#[cfg(test)]").next().unwrap_or(src);
            for line in code
                .lines()
                .filter(|l| l.contains("\"") && l.contains(" --"))
            {
                let page = for_page(line);
                assert!(
                    !page.contains(" --"),
                    "a CLI option left for the page: {line}"
                );
                seen += 1;
            }
        }
        assert!(seen >= 12, "{seen} messages naming an option");
        for (cli, _) in FIELDS {
            assert_ne!(field_for_page(cli), cli);
        }
        assert_eq!(
            field_for_page("retryPolicy.maxAttempts"),
            "retryPolicy.maxAttempts"
        );
    }
}

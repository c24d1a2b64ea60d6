//! The formats, in one table: each format's name (what `--from`, `--to` and the page's menus
//! take), and what its writer can say of a link's backoff. Readers and writers name their
//! format by [`Format`], never by its text; the dispatch to them is an exhaustive `match` on
//! it (`crate::import` and `crate::export`), so a format added here without a reader and a
//! writer does not build.

/// A format read and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    /// A gRPC service config (gRFC A6).
    Grpc,
    /// An Envoy route configuration.
    Envoy,
    /// An Istio VirtualService.
    Istio,
    /// Linkerd's retry annotations or a ServiceProfile.
    Linkerd,
    /// A Gateway API HTTPRoute's `retry`.
    GatewayApi,
    /// A resilience4j `application.yml`.
    Resilience4j,
    /// Polly or Microsoft.Extensions.Http.Resilience options in `appsettings.json`.
    Polly,
    /// An AWS config file, environment or botocore `Config(retries=...)`.
    Aws,
    /// A tenacity `@retry(...)` or `Retrying(...)`, in Python.
    Tenacity,
    /// A Spring Cloud Gateway `Retry` filter.
    SpringGateway,
}

/// One format's row.
struct Row {
    /// The format, at its own position in [`TABLE`].
    format: Format,
    /// Its name.
    name: &'static str,
    /// Whether it draws waits in whole milliseconds, so that `whole_ms` is written.
    whole_ms: bool,
    /// Whether it has a least wait, so that `floor` is written.
    floor: bool,
    /// Whether it writes a linear wait as the sum of equal steps, so that `ceiling_sum` is.
    sums: bool,
}

const fn row(format: Format, name: &'static str, whole_ms: bool, floor: bool, sums: bool) -> Row {
    Row {
        format,
        name,
        whole_ms,
        floor,
        sums,
    }
}

/// Every format, in the order the menus list them.
const TABLE: [Row; 10] = [
    row(Format::Grpc, "grpc", false, true, false),
    row(Format::Envoy, "envoy", true, true, false),
    row(Format::Istio, "istio", true, true, false),
    row(Format::Linkerd, "linkerd", false, false, false),
    row(Format::GatewayApi, "gateway-api", true, false, false),
    row(Format::Resilience4j, "resilience4j", false, false, false),
    row(Format::Polly, "polly", false, false, true),
    row(Format::Aws, "aws", false, false, false),
    row(Format::Tenacity, "tenacity", false, true, true),
    row(Format::SpringGateway, "spring-gateway", false, false, false),
];

/// The formats' names, in the table's order.
pub const FORMATS: [&str; TABLE.len()] = {
    let mut out = [""; TABLE.len()];
    let mut i = 0;
    while i < TABLE.len() {
        out[i] = TABLE[i].name;
        i += 1;
    }
    out
};

impl Format {
    /// Its row.
    const fn row(self) -> &'static Row {
        &TABLE[self as usize]
    }

    /// Its name.
    pub(crate) const fn name(self) -> &'static str {
        self.row().name
    }

    /// The format named `name` (one of [`FORMATS`]).
    pub(crate) fn named(name: &str) -> Option<Format> {
        TABLE.iter().find(|r| r.name == name).map(|r| r.format)
    }

    /// Whether it draws waits in whole milliseconds.
    pub(crate) fn whole_ms(self) -> bool {
        self.row().whole_ms
    }

    /// Whether it has a least wait.
    pub(crate) fn floor(self) -> bool {
        self.row().floor
    }

    /// Whether it writes a linear wait as a sum of steps.
    pub(crate) fn sums(self) -> bool {
        self.row().sums
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_row_sits_at_its_formats_position_and_names_differ() {
        for (i, r) in TABLE.iter().enumerate() {
            assert_eq!(r.format as usize, i, "{}", r.name);
            assert_eq!(Format::named(r.name), Some(r.format));
            assert_eq!(r.format.name(), FORMATS[i]);
            assert_eq!(TABLE.iter().filter(|o| o.name == r.name).count(), 1);
        }
        assert_eq!(Format::named("Envoy"), None);
    }
}

//! The command line, declared with clap's derive: every subcommand has `--help`, the program has
//! `--version`. Parse errors are folded into the CLI's one-line form (`--format: ...`) with
//! exit status 2, like every other bad input.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Args, Parser, Subcommand};

/// Retry Lab on the command line: the same links as the page, the same numbers.
#[derive(Parser, Debug)]
#[command(name = "retrylab", version, about, long_about = None)]
#[command(
    after_help = "The link keys are listed by `retrylab keys` and documented in docs/link.md."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// One link (a query like 'preset=chapter&attempts=4', or a whole URL; quote it).
#[derive(Args, Debug)]
pub struct Query {
    /// The link: a query or a whole URL, in quotes so the shell keeps the `&`.
    pub query: String,
}

/// `retrylab sweep`'s part of a sharded sweep.
#[derive(Args, Debug)]
pub struct ShardFlags {
    /// Runs part i of n of the rows (1-based, as cargo-nextest's --partition) and writes a
    /// part file for `retrylab merge`.
    #[arg(long, value_name = "I/N", conflicts_with = "shard_index_env")]
    pub shard: Option<String>,
    /// Reads the part's 0-based index from this environment variable (SLURM_ARRAY_TASK_ID,
    /// JOB_COMPLETION_INDEX); with --shard-count.
    #[arg(long, value_name = "VAR", requires = "shard_count")]
    pub shard_index_env: Option<String>,
    /// How many parts, with --shard-index-env.
    #[arg(long, value_name = "N", requires = "shard_index_env")]
    pub shard_count: Option<u32>,
    /// Writes the output (a part file, or the table) to this file instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub out: Option<std::path::PathBuf>,
}

/// `retrylab tune`'s weathers, size and limits.
#[derive(Args, Debug)]
pub struct TuneFlags {
    /// A weather as NAME=KEYS (blip=outage=5s); repeat for several. Default: the link's
    /// `tune_weather` (blip, outage, spike and slow).
    #[arg(long = "weather", value_name = "NAME=KEYS")]
    pub weather: Vec<String>,
    /// Policies drawn to start the search, 4 to 8484 (all there are). Default: the link's
    /// `tune_candidates` (32).
    #[arg(long)]
    pub candidates: Option<usize>,
    /// The most runs a policy gets under each weather (the last round's), 1 to 100. Default:
    /// the link's `tune_runs` (8).
    #[arg(long)]
    pub runs: Option<u32>,
    /// A policy over this many attempts per original in any weather does not count.
    #[arg(long, value_name = "X")]
    pub max_amplification: Option<f64>,
    /// Search only the policies this format can write back (a format's name, such as envoy
    /// or grpc, or a configuration file, whose format is read from it): a policy whose export
    /// needs a note the link's own does not is left out. Default: the link's `tune_format`.
    #[arg(long, value_name = "FORMAT|FILE")]
    pub format_of: Option<String>,
    /// A policy whose p99 passes this in any weather does not count: a duration (1s, 250ms)
    /// or a number of ms. Default: the link's `tune_p99`.
    #[arg(long, value_name = "DURATION", value_parser = p99_ms)]
    pub p99: Option<f64>,
    /// A policy whose peak attempts a second pass this in any weather does not count.
    /// Default: the link's `tune_max_peak`.
    #[arg(long, value_name = "N")]
    pub max_peak: Option<u64>,
    /// A policy counts only if every run of every weather recovers. Default: the link's
    /// `tune_recover`.
    #[arg(long)]
    pub must_recover: bool,
}

/// `--p99`: a duration as the link writes one (`1s`, `250ms`), or a bare number of ms; the
/// milliseconds.
fn p99_ms(v: &str) -> Result<f64, String> {
    let ms = match v.parse::<f64>() {
        Ok(ms) => ms,
        Err(_) => v
            .parse::<retry_model::Micros>()
            .map(|d| d.as_millis_f64())
            .map_err(|_| format!("'{v}' is not a duration (1s, 250ms) or a number of ms"))?,
    };
    if ms.is_finite() && ms > 0.0 {
        Ok(ms)
    } else {
        Err(format!("'{v}': accepted a duration over 0 (1s, 250ms)"))
    }
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// One request, step by step: every number of its deadline arithmetic.
    Explain {
        #[command(flatten)]
        link: Query,
        /// Output format.
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
        /// Every duration to the microsecond, as the JSON always gives them (the text rounds to
        /// three significant figures, as the page's step view does until "Exact" is ticked).
        #[arg(long)]
        exact: bool,
    },
    /// The waits many clients draw before each retry.
    Schedule {
        #[command(flatten)]
        link: Query,
        /// Clients to draw for (overrides the link's `clients`).
        #[arg(long, allow_hyphen_values = true)]
        clients: Option<String>,
        /// Output format.
        #[arg(long, default_value = "table", value_parser = ["table", "json", "csv"])]
        format: String,
    },
    /// How retries at several layers multiply (e.g. 3,3,3 -> 27 bottom calls).
    Amplify {
        /// Attempts per layer, top first, e.g. 3,3,3.
        layers: String,
        /// Probability that a bottom call fails (the expected calls are shown beside the worst case).
        #[arg(long, allow_hyphen_values = true)]
        p: Option<String>,
        /// Output format.
        #[arg(long, default_value = "table", value_parser = ["table", "json"])]
        format: String,
    },
    /// Runs a link's scenario and prints its summary (and series).
    Run {
        #[command(flatten)]
        link: Query,
        /// Output format.
        #[arg(long, default_value = "table", value_parser = ["table", "json", "csv", "markdown"])]
        format: String,
    },
    /// Runs two links (or one link and its `b.` keys) and prints them side by side.
    Compare {
        /// The first link; with `b.` keys, both sides.
        a: String,
        /// The second link (not with `b.` keys in the first).
        b: Option<String>,
        /// Also the steps from A to B, one piece of the policy at a time (which piece solves
        /// which part).
        #[arg(long)]
        steps: bool,
        /// Output format.
        #[arg(long, default_value = "markdown", value_parser = ["markdown", "json"])]
        format: String,
    },
    /// Runs a link over a grid of values, one row per combination.
    Sweep {
        #[command(flatten)]
        link: Query,
        /// key=a..b/step or key=x,y,z; repeat for a grid.
        #[arg(long = "param", value_name = "KEY=VALUES", allow_hyphen_values = true)]
        param: Vec<String>,
        /// Output format.
        #[arg(long, default_value = "markdown", value_parser = ["markdown", "csv", "json"])]
        format: String,
        /// A part of the sweep, and where the output goes.
        #[command(flatten)]
        part: ShardFlags,
    },
    /// The retry policies on the frontier of success, load and latency for the link's system,
    /// over the weather it must survive (a 5 s outage, a 60 s outage, a load spike, a halved capacity).
    Tune {
        #[command(flatten)]
        link: Query,
        /// The weathers, the search's size and the limits.
        #[command(flatten)]
        flags: TuneFlags,
        /// Output format.
        #[arg(long, default_value = "markdown", value_parser = ["markdown", "json"])]
        format: String,
    },
    /// Joins the part files of a sharded sweep into the table the whole sweep prints, after
    /// checking that every part is there once and all come from the same link and arguments.
    Merge {
        /// The part files, in any order.
        #[arg(required = true)]
        parts: Vec<std::path::PathBuf>,
        /// Writes the table to this file instead of stdout.
        #[arg(long, value_name = "FILE")]
        out: Option<std::path::PathBuf>,
    },
    /// Solves the analytic twin of a link's queue server: a Markov chain over (attempts at the
    /// server, requests waiting to retry), its stationary figures, relaxation and drain time.
    Analyze {
        #[command(flatten)]
        link: Query,
        /// Output format.
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
    },
    /// What a link asks (its `ask` and `q`, or its lesson's question) and the lab's answer.
    Answer {
        #[command(flatten)]
        link: Query,
        /// Output format.
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
    },
    /// Checks an exercise sheet (a title, then one exercise a block, each a link with `ask`),
    /// prints its answer key and the one link that opens it on the page.
    Sheet {
        /// The sheet: a plain text or Markdown file, or - for standard input.
        file: String,
        /// The page's address to put before the sheet's query (e.g. `https://lab.example/`).
        #[arg(long, default_value = "")]
        base: String,
        /// Output format.
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
    },
    /// Reads a retry configuration as people write it (a gRPC service config, an Envoy route, an
    /// Istio VirtualService, tenacity code) and prints the
    /// link that behaves the same, with warnings where the configuration surprises and the
    /// fields read but not modelled.
    Import {
        /// The configuration file, or - for standard input; several (outermost first) stack
        /// into a `layers` link, one layer a file.
        /// (at most 8: more are refused naming the limit, before any is read).
        #[arg(required = true, num_args = 1..)]
        files: Vec<String>,
        /// The format, when it is not detected.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(retry_import::FORMATS))]
        from: Option<String>,
        /// gRPC: the method whose config to take, service/method (or service).
        #[arg(long, value_name = "SERVICE/METHOD")]
        method: Option<String>,
        /// Envoy and Istio: the route whose retry policy to take, by its name.
        #[arg(long, value_name = "NAME")]
        route: Option<String>,
        /// tenacity: the function (or variable) whose policy to take, by its name.
        #[arg(long, value_name = "NAME")]
        instance: Option<String>,
        /// The release whose rules apply where they differ (Istio 1.23, resilience4j 1,
        /// botocore 1.43, spring-gateway webmvc...); else the file's own shape, else the
        /// current release.
        #[arg(long, visible_alias = "release", value_name = "RELEASE")]
        version: Option<String>,
        /// Output format.
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
    },
    /// Writes a link's policy as a format's configuration (the reverse of import).
    Export {
        #[command(flatten)]
        link: Query,
        /// The format to write.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(retry_import::EXPORT_FORMATS))]
        to: String,
        /// Output format: the configuration (its notes on standard error), or JSON with
        /// `format`, `text` and `notes`.
        #[arg(long, default_value = "text", value_parser = ["text", "json"])]
        format: String,
    },
    /// Prints the canonical link.
    Link {
        #[command(flatten)]
        link: Query,
    },
    /// Prints the trace's 64-bit hash.
    Fingerprint {
        #[command(flatten)]
        link: Query,
    },
    /// Lists the presets.
    Presets {
        /// Output format.
        #[arg(long, default_value = "table", value_parser = ["table", "markdown", "json"])]
        format: String,
    },
    /// Lists the lessons: each a link, what to look for and the question it asks.
    Lessons {
        /// Output format.
        #[arg(long, default_value = "table", value_parser = ["table", "json"])]
        format: String,
    },
    /// Lists every link key with its default, accepted values and where it applies.
    Keys {
        /// Output format (`markdown` is the table docs/link.md holds).
        #[arg(long, default_value = "table", value_parser = ["table", "markdown", "json"])]
        format: String,
    },
}

/// What parsing the command line gave: a command, or text to print and exit 0 with (help,
/// version), or a one-line error.
pub enum Parsed {
    /// A command to run.
    Run(Cli),
    /// `--help` or `--version`.
    Print(String),
}

/// Parses `argv` (without the program name).
#[allow(clippy::wildcard_enum_match_arm)] // clap's ErrorKind is non-exhaustive
pub fn parse(argv: &[String]) -> Result<Parsed, String> {
    let all = std::iter::once("retrylab".to_string()).chain(argv.iter().cloned());
    match Cli::try_parse_from(all) {
        Ok(cli) => Ok(Parsed::Run(cli)),
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                Ok(Parsed::Print(e.render().to_string()))
            }
            _ => Err(one_line(&e)),
        },
    }
}

/// Whether a word on the command line is a flag (`--x`, `-x`) rather than a value: a bare `-`,
/// an empty word and a negative number are values.
fn is_flag(word: &str) -> bool {
    let rest = word.trim_start_matches('-');
    word.starts_with('-') && !rest.is_empty() && rest.parse::<f64>().is_err()
}

/// A clap error as one line naming the flag or argument: `--format: 'xml' is not accepted;
/// accepted text, json`.
#[allow(clippy::wildcard_enum_match_arm)] // clap's ErrorKind is non-exhaustive
fn one_line(e: &clap::Error) -> String {
    let text = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) => Some(v.join(", ")),
        _ => None,
    };
    let arg = text(ContextKind::InvalidArg)
        .map(|a| a.split_whitespace().next().unwrap_or("").to_string())
        .unwrap_or_default();
    match e.kind() {
        ErrorKind::InvalidValue => match text(ContextKind::ValidValue).filter(|v| !v.is_empty()) {
            Some(valid) => format!(
                "{arg}: '{}' is not accepted; accepted {valid}",
                text(ContextKind::InvalidValue).unwrap_or_default(),
            ),
            None => format!("{arg}: needs a value; see --help"),
        },
        ErrorKind::UnknownArgument if is_flag(&arg) => format!("{arg}: unknown flag; see --help"),
        ErrorKind::UnknownArgument => format!("unexpected argument '{arg}'; see --help"),
        ErrorKind::InvalidSubcommand => format!(
            "unknown command '{}'; accepted explain, schedule, amplify, run, compare, sweep, merge, tune, analyze, answer, sheet, import, export, link, fingerprint, presets, lessons, keys (see --help)",
            text(ContextKind::InvalidSubcommand).unwrap_or_default()
        ),
        ErrorKind::ArgumentConflict => format!("{arg}: given more than once"),
        _ => {
            // Anything else: clap's own words, folded into one line.
            let rendered = e.render().to_string();
            let lines: Vec<&str> = rendered
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more"))
                .collect();
            lines.join(" ").trim_start_matches("error: ").to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    /// `--p99` reads a duration as the link writes one, or a bare number of ms; nothing else.
    #[test]
    fn p99_reads_a_duration_or_ms() {
        assert_eq!(super::p99_ms("1s"), Ok(1000.0));
        assert_eq!(super::p99_ms("250ms"), Ok(250.0));
        assert_eq!(super::p99_ms("800"), Ok(800.0));
        assert!(super::p99_ms("fast")
            .unwrap_err()
            .contains("not a duration"));
        assert!(super::p99_ms("0").unwrap_err().contains("over 0"));
        assert!(super::p99_ms("NaN").is_err());
    }
}

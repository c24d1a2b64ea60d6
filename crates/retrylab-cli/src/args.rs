//! A small flag parser: positional arguments and `--flag value` / `--flag=value` pairs.

use std::collections::BTreeMap;

/// Parsed command line: positionals in order, flags by name.
pub struct Args {
    pub positional: Vec<String>,
    pub flags: BTreeMap<String, String>,
}

impl Args {
    /// Splits `argv`; every flag takes a value. `allowed` lists the flags the command knows.
    pub fn parse(argv: &[String], allowed: &[&str]) -> Result<Args, String> {
        let mut positional = Vec::new();
        let mut flags = BTreeMap::new();
        let mut i = 0;
        while i < argv.len() {
            let a = &argv[i];
            if let Some(name) = a.strip_prefix("--") {
                let (name, value) = match name.split_once('=') {
                    Some((n, v)) => (n.to_string(), v.to_string()),
                    None => {
                        i += 1;
                        let v = argv
                            .get(i)
                            .ok_or_else(|| format!("--{name}: needs a value"))?;
                        (name.to_string(), v.clone())
                    }
                };
                if !allowed.contains(&name.as_str()) {
                    let list: Vec<String> = allowed.iter().map(|f| format!("--{f}")).collect();
                    return Err(format!(
                        "--{name}: unknown flag; accepted {}",
                        if list.is_empty() {
                            "none".to_string()
                        } else {
                            list.join(", ")
                        }
                    ));
                }
                if flags.insert(name.clone(), value).is_some() {
                    return Err(format!("--{name}: given more than once"));
                }
            } else {
                positional.push(a.clone());
            }
            i += 1;
        }
        Ok(Args { positional, flags })
    }

    /// The value of `--format`, checked against `accepted`.
    pub fn format(&self, accepted: &[&'static str]) -> Result<&'static str, String> {
        match self.flags.get("format") {
            None => Ok(accepted[0]),
            Some(f) => accepted.iter().copied().find(|a| a == f).ok_or_else(|| {
                format!(
                    "--format: unknown format '{f}'; accepted {}",
                    accepted.join(", ")
                )
            }),
        }
    }
}

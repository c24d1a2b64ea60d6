//! Python call expressions, parsed and never run: what tenacity's `@retry(...)` and
//! `Retrying(...)` and botocore's `Config(retries={...})` are written in. The grammar is the part
//! of Python's expressions those calls use: names (dotted), numbers, strings, `True`, `False`,
//! `None`, calls with positional and keyword arguments, tuples, lists, dicts, unary minus and
//! the operators `|`, `&`, `+`, `-`, `*`, `/`. Hand-written because no maintained crate parses
//! Python expressions without a whole Python front end; nesting is bounded, so a hostile file
//! gets a one-line error, never a deep recursion.

use crate::{short, ImportError};

/// The deepest nesting read.
const MAX_DEPTH: usize = 64;
/// The most operators one parse reads: an operator chain is a tree as deep as it is long, so
/// a bound here keeps every walk of it (and its drop) shallow.
const MAX_OPS: usize = 1_000;

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    /// A number.
    Num(f64),
    /// A string literal's text.
    Str(String),
    /// A name, dotted or not (`tenacity.stop_after_attempt`, `True`).
    Name(String),
    /// A call: what is called, its positional and its keyword arguments.
    Call(PyCall),
    /// A tuple or a list.
    Seq(Vec<Expr>),
    /// A dict's entries.
    Dict(Vec<(Expr, Expr)>),
    /// A binary operator and its two sides.
    Bin(char, Box<Expr>, Box<Expr>),
}

/// A call.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PyCall {
    /// The name called, as written (`retry`, `tenacity.wait_fixed`).
    pub name: String,
    /// Positional arguments.
    pub args: Vec<Expr>,
    /// Keyword arguments, in order.
    pub kwargs: Vec<(String, Expr)>,
}

impl PyCall {
    /// The name without its module (`wait_fixed` for `tenacity.wait_fixed`).
    pub(crate) fn base(&self) -> &str {
        self.name.rsplit('.').next().unwrap_or(&self.name)
    }

    /// Argument `key`, given by keyword or at position `pos`.
    pub(crate) fn arg(&self, pos: usize, key: &str) -> Option<&Expr> {
        self.kwargs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .or_else(|| self.args.get(pos))
    }
}

impl Expr {
    /// The expression as a number, when it is one (arithmetic on numbers included, and
    /// `timedelta(...)` as seconds).
    pub(crate) fn number(&self) -> Option<f64> {
        match self {
            Expr::Num(v) => Some(*v),
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.number()?, b.number()?);
                let v = match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    '/' if b != 0.0 => a / b,
                    _ => return None,
                };
                v.is_finite().then_some(v)
            }
            Expr::Call(c) => (c.base() == "timedelta").then(|| timedelta(c)).flatten(),
            Expr::Str(_) | Expr::Name(_) | Expr::Seq(_) | Expr::Dict(_) => None,
        }
    }

    /// A string's text, a number's digits, else the expression as written.
    pub(crate) fn value(&self) -> String {
        if let Expr::Str(s) = self {
            return s.clone();
        }
        self.number()
            .map_or_else(|| self.text(), |n| format!("{n}"))
    }

    /// The expression as Python writes it, shortened, for messages.
    pub(crate) fn text(&self) -> String {
        let s = match self {
            Expr::Num(v) => format!("{v}"),
            Expr::Str(s) => format!("'{s}'"),
            Expr::Name(n) => n.clone(),
            Expr::Call(c) => format!("{}(...)", c.name),
            Expr::Seq(_) => String::from("(...)"),
            Expr::Dict(_) => String::from("{...}"),
            Expr::Bin(op, a, b) => format!("{} {op} {}", a.text(), b.text()),
        };
        short(&s)
    }
}

/// `timedelta(days, seconds, microseconds, milliseconds, minutes, hours, weeks)` in seconds.
fn timedelta(c: &PyCall) -> Option<f64> {
    const UNITS: [(&str, f64); 7] = [
        ("days", 86_400.0),
        ("seconds", 1.0),
        ("microseconds", 1e-6),
        ("milliseconds", 1e-3),
        ("minutes", 60.0),
        ("hours", 3_600.0),
        ("weeks", 604_800.0),
    ];
    let mut total = 0.0;
    for (i, (unit, secs)) in UNITS.iter().enumerate() {
        if let Some(v) = c.arg(i, unit) {
            total += v.number()? * secs;
        }
    }
    let known = c
        .kwargs
        .iter()
        .all(|(k, _)| UNITS.iter().any(|(u, _)| u == k));
    (known && c.args.len() <= UNITS.len()).then_some(total)
}

/// A call's positional and keyword arguments.
type Args = (Vec<Expr>, Vec<(String, Expr)>);

/// The parser's position in the text.
struct Parser<'t> {
    text: &'t str,
    at: usize,
    depth: usize,
    /// Operators read so far.
    ops: usize,
}

/// A module's constants: each `NAME = value` at the start of a line whose value is a number,
/// a string or a `timedelta`, in order, later ones seeing earlier ones (`DELAY = BASE * 2`).
/// A name assigned twice is dropped: which value a call sees depends on when it runs.
pub(crate) fn constants(text: &str) -> Consts {
    let mut out = Consts::new();
    let mut twice = std::collections::HashSet::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let Some((name, _)) = line.split_once('=') else {
            continue;
        };
        let name = name.trim_end();
        let simple = name.chars().all(|c| c.is_alphanumeric() || c == '_')
            && name.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && !line.starts_with([' ', '\t']);
        let rest = &line[name.len()..].trim_start()[1..];
        if !simple || rest.starts_with('=') {
            continue;
        }
        // The value is read on its own line, so no line's parse reads the rest of the file.
        let mut p = Parser {
            text: &text[..offset],
            at: at + line.len() - rest.len(),
            depth: 0,
            ops: 0,
        };
        let Ok(mut e) = p.expr() else { continue };
        e.resolve(&out);
        // Kept folded to its value, so constants built from constants stay one node each
        // (`B = A + A` a thousand times over is not a tree of 2^1000).
        let e = match e.number() {
            Some(n) => Expr::Num(n),
            None if matches!(e, Expr::Str(_)) => e,
            None => continue,
        };
        if out.insert(name.to_string(), e).is_some() {
            twice.insert(name.to_string());
        }
    }
    out.retain(|n, _| !twice.contains(n));
    out
}

/// A module's constants by name (see [`constants`]).
pub(crate) type Consts = std::collections::HashMap<String, Expr>;

impl Expr {
    /// Puts each module constant of `consts` in place of its name, everywhere under `self`.
    pub(crate) fn resolve(&mut self, consts: &Consts) {
        match self {
            Expr::Name(n) => {
                if let Some(v) = consts.get(n.as_str()) {
                    *self = v.clone();
                }
            }
            Expr::Call(c) => {
                c.args.iter_mut().for_each(|a| a.resolve(consts));
                c.kwargs.iter_mut().for_each(|(_, a)| a.resolve(consts));
            }
            Expr::Seq(items) => items.iter_mut().for_each(|a| a.resolve(consts)),
            Expr::Dict(entries) => entries.iter_mut().for_each(|(_, v)| v.resolve(consts)),
            Expr::Bin(_, a, b) => {
                a.resolve(consts);
                b.resolve(consts);
            }
            Expr::Num(_) | Expr::Str(_) => {}
        }
    }
}

/// The call that starts at byte `at` of `text` (at its name), and where it ends.
pub(crate) fn call_at(text: &str, at: usize) -> Result<(PyCall, usize), ImportError> {
    let mut p = Parser {
        text,
        at,
        depth: 0,
        ops: 0,
    };
    let e = p.postfix()?;
    let Expr::Call(c) = e else {
        return Err(p.error(&format!("expected a call, found {}", e.text())));
    };
    Ok((c, p.at))
}

impl<'t> Parser<'t> {
    fn rest(&self) -> &'t str {
        &self.text[self.at..]
    }

    /// An error at the current line.
    fn error(&self, what: &str) -> ImportError {
        let line = self.text[..self.at].matches('\n').count() + 1;
        ImportError::new(format!("line {line}"), what.to_string())
    }

    /// Skips spaces, newlines, comments and line continuations.
    fn skip(&mut self) {
        loop {
            let r = self.rest();
            let t = r.trim_start_matches([' ', '\t', '\r', '\n', '\\']);
            self.at += r.len() - t.len();
            if t.starts_with('#') {
                self.at += t.find('\n').unwrap_or(t.len());
            } else {
                return;
            }
        }
    }

    /// Takes `s` if it comes next.
    fn eat(&mut self, s: &str) -> bool {
        self.skip();
        if self.rest().starts_with(s) {
            self.at += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, s: &str) -> Result<(), ImportError> {
        if self.eat(s) {
            return Ok(());
        }
        let found: String = self
            .rest()
            .chars()
            .take_while(|c| *c != '\n')
            .take(12)
            .collect();
        Err(self.error(&format!("expected '{s}', found '{}'", found.trim())))
    }

    /// An expression: `|` binds loosest, then `&`, then `+` and `-`, then `*` and `/`.
    fn expr(&mut self) -> Result<Expr, ImportError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(&format!("nested deeper than {MAX_DEPTH}")));
        }
        let e = self.binary(0);
        self.depth -= 1;
        e
    }

    fn binary(&mut self, level: usize) -> Result<Expr, ImportError> {
        const LEVELS: [&[char]; 4] = [&['|'], &['&'], &['+', '-'], &['*', '/']];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            self.skip();
            let Some(op) = self
                .rest()
                .chars()
                .next()
                .filter(|c| LEVELS[level].contains(c))
            else {
                return Ok(left);
            };
            if self.rest().starts_with("**") || self.rest()[1..].starts_with('=') {
                return Err(self.error(&format!("'{op}{}' is not read here", &self.rest()[1..2])));
            }
            self.at += 1;
            self.ops += 1;
            if self.ops > MAX_OPS {
                return Err(self.error(&format!("more than {MAX_OPS} operators in one call")));
            }
            let right = self.binary(level + 1)?;
            left = Expr::Bin(op, Box::new(left), Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Expr, ImportError> {
        let mut negate = false;
        while self.eat("-") {
            negate = !negate;
        }
        let e = self.postfix()?;
        Ok(if negate {
            Expr::Bin('-', Box::new(Expr::Num(0.0)), Box::new(e))
        } else {
            e
        })
    }

    /// An atom and the calls, attributes and subscripts on it. An attribute or a subscript of
    /// something other than a name (`log(x).warning`, `levels[0]`) is kept as its text: a
    /// callback or a value the reader never needs to run.
    fn postfix(&mut self) -> Result<Expr, ImportError> {
        let start = self.at;
        let mut e = self.atom()?;
        loop {
            if self.eat("(") {
                let name = match e {
                    Expr::Name(name) => name,
                    Expr::Num(_)
                    | Expr::Str(_)
                    | Expr::Call(_)
                    | Expr::Seq(_)
                    | Expr::Dict(_)
                    | Expr::Bin(..) => self.text[start..self.at - 1].trim().to_string(),
                };
                let (args, kwargs) = self.arguments()?;
                e = Expr::Call(PyCall { name, args, kwargs });
            } else if self.eat("[") {
                self.sequence("]")?;
                e = Expr::Name(self.text[start..self.at].trim().to_string());
            } else if self.rest().starts_with('.') && !matches!(e, Expr::Num(_)) {
                self.at += 1;
                let attr = self.identifier();
                if attr.is_empty() {
                    return Err(self.error("a name expected after '.'"));
                }
                e = Expr::Name(self.text[start..self.at].trim().to_string());
            } else {
                return Ok(e);
            }
        }
    }

    /// `lambda args: body`, kept as its text: the body runs only when tenacity calls it.
    fn lambda(&mut self) -> Result<Expr, ImportError> {
        let start = self.at;
        self.expect(":")?;
        self.expr()?;
        Ok(Expr::Name(format!(
            "lambda{}",
            self.text[start..self.at].trim_end()
        )))
    }

    /// A call's arguments, after its `(` and through its `)`.
    fn arguments(&mut self) -> Result<Args, ImportError> {
        let (mut args, mut kwargs) = (Vec::new(), Vec::new());
        while !self.eat(")") {
            self.skip();
            let save = self.at;
            let key = self.identifier();
            if !key.is_empty() && self.eat("=") && !self.rest().starts_with('=') {
                kwargs.push((key.to_string(), self.expr()?));
            } else {
                self.at = save;
                if !kwargs.is_empty() {
                    return Err(self.error("a positional argument after a keyword argument"));
                }
                args.push(self.expr()?);
            }
            if !self.eat(",") {
                self.expect(")")?;
                break;
            }
        }
        Ok((args, kwargs))
    }

    /// The identifier (dotted) that starts here, possibly empty.
    fn identifier(&mut self) -> &'t str {
        let r = self.rest();
        let len = r
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(r.len());
        let len = if r.starts_with(|c: char| c.is_ascii_digit()) {
            0
        } else {
            len
        };
        self.at += len;
        &r[..len]
    }

    fn atom(&mut self) -> Result<Expr, ImportError> {
        self.skip();
        let r = self.rest();
        let Some(c) = r.chars().next() else {
            return Err(self.error("the file ends inside an expression"));
        };
        match c {
            '(' | '[' => {
                self.at += 1;
                self.sequence(if c == '(' { ")" } else { "]" })
            }
            '{' => {
                self.at += 1;
                self.dict()
            }
            '"' | '\'' => self.string(c),
            '0'..='9' | '.' => self.num(),
            _ => {
                let name = self.identifier();
                if name.is_empty() {
                    return Err(self.error(&format!("'{c}' is not read here")));
                }
                if name == "lambda" {
                    // Its parameters up to the colon, then its body.
                    let params = self.rest().find(':').unwrap_or(0);
                    self.at += params;
                    return self.lambda();
                }
                Ok(Expr::Name(name.to_string()))
            }
        }
    }

    /// A tuple or list through `close`; `(x)` is `x`.
    fn sequence(&mut self, close: &str) -> Result<Expr, ImportError> {
        let mut items = Vec::new();
        let mut comma = false;
        while !self.eat(close) {
            items.push(self.expr()?);
            comma = self.eat(",");
            if !comma {
                self.expect(close)?;
                break;
            }
        }
        if close == ")" && items.len() == 1 && !comma {
            return Ok(items.remove(0));
        }
        Ok(Expr::Seq(items))
    }

    fn dict(&mut self) -> Result<Expr, ImportError> {
        let mut entries = Vec::new();
        while !self.eat("}") {
            let key = self.expr()?;
            self.expect(":")?;
            entries.push((key, self.expr()?));
            if !self.eat(",") {
                self.expect("}")?;
                break;
            }
        }
        Ok(Expr::Dict(entries))
    }

    /// A string literal without escapes beyond `\'` and `\"`.
    fn string(&mut self, quote: char) -> Result<Expr, ImportError> {
        let body = &self.rest()[1..];
        let mut prev = ' ';
        let end = body
            .char_indices()
            .find(|&(_, ch)| {
                let hit = (ch == quote && prev != '\\') || ch == '\n';
                prev = ch;
                hit
            })
            .map(|(i, _)| i);
        match end {
            Some(i) if body[i..].starts_with(quote) => {
                self.at += i + 2;
                Ok(Expr::Str(
                    body[..i].replace(&format!("\\{quote}"), &quote.to_string()),
                ))
            }
            _ => Err(self.error("a string is not closed on its line")),
        }
    }

    /// A number: digits with `_`, a fraction and an exponent.
    fn num(&mut self) -> Result<Expr, ImportError> {
        let r = self.rest();
        let mut len = r
            .find(|c: char| !(c.is_ascii_digit() || c == '_' || c == '.'))
            .unwrap_or(r.len());
        if r[len..].starts_with(['e', 'E']) {
            let exp = &r[len + 1..];
            let sign = usize::from(exp.starts_with(['+', '-']));
            let digits = exp[sign..]
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(exp.len() - sign);
            len += 1 + sign + digits;
        }
        let written = &r[..len];
        self.at += len;
        written
            .replace('_', "")
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map(Expr::Num)
            .ok_or_else(|| self.error(&format!("'{}' is not a number", short(written))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> PyCall {
        call_at(s, 0).unwrap_or_else(|e| panic!("{s}: {e}")).0
    }

    #[test]
    fn calls_keywords_operators_and_timedeltas_are_read() {
        let c = parse("retry(stop=stop_after_attempt(5) | stop_after_delay(timedelta(minutes=1)),\n  # a comment\n  wait=wait_fixed(3) + wait_random(0, 2), reraise=True)");
        assert_eq!(c.name, "retry");
        let stop = c.arg(9, "stop").unwrap();
        let Expr::Bin('|', a, b) = stop else {
            panic!("{stop:?}")
        };
        let (Expr::Call(a), Expr::Call(b)) = (&**a, &**b) else {
            panic!()
        };
        assert_eq!(a.args, vec![Expr::Num(5.0)]);
        assert_eq!(b.args[0].number(), Some(60.0));
        assert_eq!(c.arg(9, "reraise"), Some(&Expr::Name("True".into())));
        let cfg = parse("Config(retries={'mode': \"standard\", 'total_max_attempts': 2 * 3}, read_timeout=1e-1)");
        let Some(Expr::Dict(d)) = cfg.arg(9, "retries") else {
            panic!()
        };
        assert_eq!(d[1].1.number(), Some(6.0));
        assert_eq!(cfg.arg(9, "read_timeout").unwrap().number(), Some(0.1));
    }

    #[test]
    fn bad_text_is_one_line_naming_the_line() {
        for (text, line) in [
            ("retry(stop=\n  stop_after_attempt(3", "line 2"),
            ("retry(wait='x\n)", "line 1"),
            ("retry(x=1, 2)", "line 1"),
            ("retry(wait=a ** 2)", "line 1"),
            ("retry(1e999)", "line 1"),
        ] {
            let e = call_at(text, 0).unwrap_err();
            assert_eq!(e.field, line, "{text}: {e}");
            assert!(!e.to_string().contains('\n'));
        }
        let deep = format!("retry({}1{})", "(".repeat(500), ")".repeat(500));
        assert!(call_at(&deep, 0)
            .unwrap_err()
            .rule
            .contains("nested deeper"));
    }
}

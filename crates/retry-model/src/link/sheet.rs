//! Exercise sheets: a teacher's title and a list of exercise links, handed out as one link.
//!
//! Why in the link? There is no server: a sheet a teacher writes as a plain text or Markdown file
//! (a title, then one exercise per block, each a link with its `ask` and `q`) becomes the
//! `sheet` key, which every exercise's link carries with `sheet_at`, the exercise on screen. A
//! link that holds only the sheet opens its first exercise, as a bare lesson link opens its
//! lesson. `retrylab sheet FILE` checks the file and prints the answer key and that link.
//!
//! ```
//! use retry_model::{Params, Sheet};
//! let sheet = Sheet::from_file("# Week 3\n\nHow many calls?\npreset=layers-333&ask=amplification\n").unwrap();
//! assert_eq!(sheet.title, "Week 3");
//! let p: Params = format!("sheet={}", sheet.value_encoded()).parse().unwrap();
//! assert_eq!(p.exercise().unwrap().question, "How many calls?");
//! assert_eq!(p.sheet_at, 1);
//! ```

use super::Params;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

/// The most exercises a sheet holds.
pub const MAX_EXERCISES: usize = 20;
/// The longest a sheet's title may be, in characters.
pub const MAX_TITLE: usize = 100;

/// A sheet: its title and its exercises' links, in order (each canonical, with its `ask`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sheet {
    /// The title.
    pub title: String,
    /// Each exercise's link, without the sheet.
    pub links: Vec<String>,
}

impl Sheet {
    /// Reads a teacher's file: the first line that is not blank is the title (a Markdown `#`
    /// heading or plain text); then blocks separated by blank lines, each an exercise whose one
    /// link line (a query, `?query` or a whole URL, perhaps in backticks or after a list marker)
    /// holds its `ask`, and whose other lines, if the link has no `q`, are its question. Text
    /// before the first link-holding block is the sheet's introduction and is skipped. The
    /// error names the line.
    pub fn from_file(text: &str) -> Result<Sheet, String> {
        // A byte-order mark (editors on Windows write one) is not part of the title.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut lines = text
            .lines()
            .enumerate()
            .skip_while(|(_, l)| l.trim().is_empty());
        let (_, title) = lines
            .next()
            .ok_or("the sheet is empty: write a title, then the exercises")?;
        let title = title.trim().trim_start_matches('#').trim().to_string();
        let mut links = Vec::new();
        let mut block: Vec<(usize, &str)> = Vec::new();
        for (n, line) in lines.chain(core::iter::once((usize::MAX, ""))) {
            if !line.trim().is_empty() {
                block.push((n + 1, line));
                continue;
            }
            if let Some(link) = exercise_of(&block)? {
                links.push(link);
            }
            block.clear();
        }
        let sheet = Sheet { title, links };
        sheet.check()?;
        Ok(sheet)
    }

    /// Checks the title, the number of exercises and every link (each must ask something and
    /// hold no sheet of its own); the error names the exercise.
    pub fn check(&self) -> Result<(), String> {
        let n = self.title.chars().count();
        if n == 0 || n > MAX_TITLE || self.title.chars().any(char::is_control) {
            return Err(format!(
                "the title: plain text of 1 to {MAX_TITLE} characters, got {n}"
            ));
        }
        if self.links.is_empty() || self.links.len() > MAX_EXERCISES {
            return Err(format!(
                "1 to {MAX_EXERCISES} exercises (blocks with a link that has ask=), got {}",
                self.links.len()
            ));
        }
        let carried = self.value_encoded().len();
        for (i, link) in self.links.iter().enumerate() {
            // Each exercise's link carries the whole sheet: it must stay under the lab's cap.
            let len = link.len() + carried + "&sheet=&sheet_at=20".len();
            if len > super::limits::MAX_LINK_LEN {
                return Err(format!(
                    "exercise {}: its link, which carries the whole sheet, would be {len} characters, over the {} a link may hold: fewer or shorter exercises",
                    i + 1,
                    super::limits::MAX_LINK_LEN
                ));
            }
            let p: Params = link
                .parse()
                .map_err(|e| format!("exercise {}: {e}", i + 1))?;
            if p.exercise().is_none() {
                return Err(format!(
                    "exercise {}: the link asks nothing; add ask=<metric> (and q=...) or lesson=<id>",
                    i + 1
                ));
            }
        }
        Ok(())
    }

    /// The exercise's link (from 1), `None` past the end.
    pub fn link(&self, at: u32) -> Option<&str> {
        self.links
            .get((at as usize).checked_sub(1)?)
            .map(String::as_str)
    }

    /// The link that opens exercise `at` (from 1) of this sheet, canonical; `None` past the end.
    pub fn open_link(&self, at: u32) -> Option<String> {
        let link = self.link(at)?;
        let p: Params = format!("{link}&sheet={}&sheet_at={at}", self.value_encoded())
            .parse()
            .ok()?;
        Some(p.to_string())
    }

    /// The `sheet` key's value, unencoded: the title, then one link a line.
    pub fn value(&self) -> String {
        let mut out = self.title.clone();
        for l in &self.links {
            out.push('\n');
            out.push_str(l);
        }
        out
    }

    /// [`Sheet::value`] encoded for a link.
    pub fn value_encoded(&self) -> String {
        super::encode(&self.value())
    }

    /// Reads [`Sheet::value`]; the error names what is wrong.
    pub fn from_value(v: &str) -> Result<Sheet, String> {
        let mut lines = v.split('\n');
        let title = lines.next().unwrap_or("").trim().to_string();
        let sheet = Sheet {
            title,
            links: lines.map(|l| l.trim().to_string()).collect(),
        };
        sheet.check()?;
        Ok(sheet)
    }
}

/// A block's exercise link, canonical, with the block's text as its `q` when it has none;
/// `None` for a block with no link (the introduction, a note).
fn exercise_of(block: &[(usize, &str)]) -> Result<Option<String>, String> {
    let mut link = None;
    let mut words: Vec<&str> = Vec::new();
    for (n, line) in block {
        match link_in(line) {
            Some(l) if link.is_some() => {
                return Err(format!(
                    "line {n}: a second link in one exercise ('{}'); leave a blank line between exercises",
                    short(l)
                ))
            }
            Some(l) => link = Some((*n, l)),
            None => words.push(strip_marker(line)),
        }
    }
    let Some((n, text)) = link else {
        return Ok(None);
    };
    let mut p: Params = text.parse().map_err(|e| format!("line {n}: {e}"))?;
    if p.ask.is_some() && p.question.is_none() && !words.is_empty() {
        let q = words.join(" ");
        p.set("q", &q).map_err(|e| format!("line {n}: {e}"))?;
    }
    if p.exercise().is_none() {
        return Err(format!(
            "line {n}: the link asks nothing; add ask=<metric> (and q=...) or lesson=<id>"
        ));
    }
    let text = p.to_string();
    Ok(Some(match text.split_once('&') {
        Some((v, rest)) if v.starts_with("v=") => rest.to_string(),
        _ => text,
    }))
}

/// A line without its list marker or heading mark (`1.`, `2)`, `-`, `*`, `#`).
fn strip_marker(line: &str) -> &str {
    line.trim()
        .trim_start_matches('#')
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['.', ')', '-', '*'])
        .trim()
}

/// The link on a line, if the line is one: a query with `=`, perhaps after `?`, a URL's path,
/// a list marker or inside backticks, with no spaces.
fn link_in(line: &str) -> Option<&str> {
    let t = strip_marker(line)
        .trim_matches('`')
        .trim_matches(['<', '>']);
    let query = match t.find('?') {
        Some(i) if !t[..i].contains(' ') => &t[i + 1..],
        _ => t,
    };
    (query.contains('=') && !query.contains(' ')).then_some(query)
}

fn short(s: &str) -> String {
    if s.chars().count() <= 40 {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(40).collect();
        out.push_str("...");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "# Retries, week 3\n\nWork through these in order.\n\n1. How many calls reach the bottom for one click?\n   `?preset=layers-333&ask=amplification`\n\n- https://lab.example/?preset=payments-none&ask=success_rate&q=What%20share%20succeeds%3F\n";

    #[test]
    fn a_teachers_file_becomes_a_sheet() {
        let s = Sheet::from_file(FILE).unwrap();
        assert_eq!(s.title, "Retries, week 3");
        assert_eq!(s.links.len(), 2, "the introduction is not an exercise");
        let first: Params = s.links[0].parse().unwrap();
        assert_eq!(
            first.exercise().unwrap().question,
            "How many calls reach the bottom for one click?"
        );
        let second: Params = s.links[1].parse().unwrap();
        assert_eq!(second.exercise().unwrap().question, "What share succeeds?");
        assert_eq!(Sheet::from_value(&s.value()).unwrap(), s);
        let second: Params = s.open_link(2).unwrap().parse().unwrap();
        assert_eq!((second.sheet_at, second.sheet.as_deref()), (2, Some(&s)));
        assert_eq!(second.exercise().unwrap().question, "What share succeeds?");
        assert_eq!(s.open_link(3), None);
    }

    /// A byte-order mark is not part of the title; a sheet whose exercise links, each carrying
    /// the whole sheet, would pass the link cap is refused naming the exercise.
    #[test]
    fn a_bom_is_dropped_and_a_sheet_past_the_link_cap_is_refused() {
        let s = Sheet::from_file(&format!("\u{feff}{FILE}")).unwrap();
        assert_eq!(s.title, "Retries, week 3");
        let q = "q=".to_string() + &"Why%20".repeat(45);
        let mut big = String::from("Long\n");
        for _ in 0..20 {
            big.push_str(&format!("\npreset=layers-333&ask=amplification&{q}\n"));
        }
        let e = Sheet::from_file(&big).unwrap_err();
        assert!(
            e.starts_with("exercise 1: its link, which carries the whole sheet, would be"),
            "{e}"
        );
        assert!(e.contains("over the 8192 a link may hold"), "{e}");
    }

    #[test]
    fn a_bad_sheet_names_the_line() {
        let e = Sheet::from_file("T\n\npreset=layers-333&ask=nope\n").unwrap_err();
        assert!(e.starts_with("line 3: ask:"), "{e}");
        let e = Sheet::from_file("T\n\npreset=layers-333\n").unwrap_err();
        assert!(e.contains("line 3: the link asks nothing"), "{e}");
        let e = Sheet::from_file("T\n\nintro only\n").unwrap_err();
        assert!(e.contains("got 0"), "{e}");
        let e = Sheet::from_file(
            "T\n\nq\npreset=layers-333&ask=amplification\nscenario=outage&ask=attempts\n",
        )
        .unwrap_err();
        assert!(e.starts_with("line 5: a second link"), "{e}");
    }
}

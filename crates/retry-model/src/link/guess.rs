//! Whether a reader's guess is the lab's answer, read as people write numbers: `195`, `195x`,
//! `3.6s`, `3.6 s`, `3600ms`, `91.7 %`, `0.917` for a share, `27 calls`, or a word (`yes`,
//! `none`). A number is right when it equals the answer at the precision the answer is shown
//! at (three significant figures, `sig3`), or lies within 5 % of it (half a unit for a whole
//! number), in the answer's unit.
//!
//! ```
//! use retry_model::judge;
//! assert!(judge("194.97612345678901", "attempts per checkout", "195"));
//! assert!(judge("3600", "ms", "3.6 s"));
//! assert!(judge("91.66666666666667", "%", "0.917"));
//! assert!(!judge("91.66666666666667", "%", "80"));
//! assert!(judge("yes", "", "Yes"));
//! ```

use alloc::string::String;

/// A guess's number and what follows it, lower-cased (`("3.6", "s")`).
fn split(guess: &str) -> Option<(f64, String)> {
    let g = guess.trim();
    let end = g
        .char_indices()
        .find(|&(i, c)| !(c.is_ascii_digit() || c == '.' || ((c == '-' || c == '+') && i == 0)))
        .map_or(g.len(), |(i, _)| i);
    let value: f64 = g[..end].parse().ok()?;
    value
        .is_finite()
        .then(|| (value, g[end..].trim().to_ascii_lowercase()))
}

/// Milliseconds in one of a time unit a person writes, if `u` is one.
fn millis_in(u: &str) -> Option<f64> {
    match u {
        "ms" | "msec" | "millisecond" | "milliseconds" => Some(1.0),
        "s" | "sec" | "secs" | "second" | "seconds" => Some(1_000.0),
        "min" | "mins" | "minute" | "minutes" => Some(60_000.0),
        "h" | "hour" | "hours" => Some(3_600_000.0),
        _ => None,
    }
}

/// The values a guess can stand for in the answer's `unit`; none when its unit does not fit.
fn candidates(value: f64, rest: &str, unit: &str) -> alloc::vec::Vec<f64> {
    let unit_lc = unit.to_ascii_lowercase();
    let answer_ms = millis_in(&unit_lc);
    if let (Some(per), Some(answer_per)) = (millis_in(rest), answer_ms) {
        return alloc::vec![value * per / answer_per];
    }
    match rest {
        "" | "x" | "×" => {
            // A share written as a fraction: 0.917 for 91.7 %.
            if unit == "%" && (0.0..=1.0).contains(&value) {
                alloc::vec![value, value * 100.0]
            } else {
                alloc::vec![value]
            }
        }
        "%" if unit == "%" => alloc::vec![value],
        // The unit's words, or their start: `27 calls`, `195 attempts`.
        words if !unit_lc.is_empty() && unit_lc.starts_with(words) => alloc::vec![value],
        words if unit_lc.split(' ').next() == words.split(' ').next() => alloc::vec![value],
        _ => alloc::vec![],
    }
}

/// `v` rounded to three significant figures, as the answer is shown.
fn round3(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let keep = libm::pow(10.0, libm::floor(libm::log10(libm::fabs(v))) - 2.0);
    libm::round(v / keep) * keep
}

/// Whether `guess` is `answer` (a number in `unit`, or a word).
pub fn judge(answer: &str, unit: &str, guess: &str) -> bool {
    let word = |s: &str| {
        let s = s.trim().trim_end_matches('.').to_ascii_lowercase();
        String::from(s.trim())
    };
    let Ok(a) = answer.trim().parse::<f64>() else {
        return word(answer) == word(guess);
    };
    let Some((value, rest)) = split(guess) else {
        return false;
    };
    let tolerance = if libm::trunc(a) == a {
        (a.abs() * 0.05).max(0.5)
    } else {
        a.abs() * 0.05
    };
    candidates(value, &rest, unit).into_iter().any(|c| {
        let same_shown = (round3(c) - round3(a)).abs() <= round3(a).abs() * 1e-9;
        same_shown || (c - a).abs() <= tolerance
    })
}

/// A typed guess as the link writes it: trimmed, and the word `none` (an answer some questions
/// have) as `None`, since `guess=none` is the link's "no guess yet".
pub fn link_value(typed: &str) -> String {
    let t = typed.trim();
    if t.eq_ignore_ascii_case("none") {
        String::from("None")
    } else {
        String::from(t)
    }
}

/// The line the page and `retrylab answer` give for a guess: the guess (with the question's
/// unit when it was written as a bare number) beside the lab's answer as shown, the verdict,
/// and whether it is right.
pub fn verdict(guess: &str, unit: &str, shown: &str, exact: &str) -> (String, bool) {
    let right = judge(exact, unit, guess);
    let bare = split(guess).is_some_and(|(_, rest)| rest.is_empty());
    let unit = if bare && !unit.is_empty() {
        alloc::format!(" {unit}")
    } else {
        String::new()
    };
    let says = if right {
        "Right."
    } else {
        "Not quite: look again at the view."
    };
    (
        alloc::format!(
            "Your guess: {}{unit}. The lab: {shown}. {says}",
            guess.trim()
        ),
        right,
    )
}

#[cfg(test)]
mod tests {
    use super::{judge, verdict};

    #[test]
    fn the_word_none_is_a_guess_in_the_link() {
        assert_eq!(super::link_value(" none "), "None");
        assert_eq!(super::link_value("3.6 s "), "3.6 s");
        let p: crate::Params = "lesson=burst-free-refusals&guess=None".parse().unwrap();
        assert_eq!(p.guess.as_deref(), Some("None"));
        assert!(judge("none", "", "None"));
    }

    #[test]
    fn the_verdict_line_keeps_the_unit_the_reader_wrote() {
        let (line, right) = verdict("3.6 s", "ms", "3600 ms", "3600");
        assert_eq!(line, "Your guess: 3.6 s. The lab: 3600 ms. Right.");
        assert!(right);
        let (line, right) = verdict("90", "%", "91.7 %", "91.66666666666667");
        assert_eq!(line, "Your guess: 90 %. The lab: 91.7 %. Right.");
        assert!(right);
        let (line, right) = verdict("no", "", "yes", "yes");
        assert_eq!(
            line,
            "Your guess: no. The lab: yes. Not quite: look again at the view."
        );
        assert!(!right);
    }

    /// A right answer written as the page shows it, or as people type it, is right; a guess in
    /// another unit or off by more than the precision shown and 5 % is not.
    #[test]
    fn a_guess_is_judged_as_a_person_writes_it() {
        let amp = "194.97612345678901";
        for g in ["195", "195x", "195 attempts", " 195 ", "194.98", "190"] {
            assert!(judge(amp, "attempts per checkout", g), "{g}");
        }
        for g in ["100", "195 ms", "lots", ""] {
            assert!(!judge(amp, "attempts per checkout", g), "{g}");
        }
        let share = "91.66666666666667";
        for g in ["91.7", "91.7 %", "91.7%", "0.917", "92"] {
            assert!(judge(share, "%", g), "{g}");
        }
        assert!(!judge(share, "%", "0.5"));
        assert!(!judge(share, "%", "9.17"));
        for g in ["3600", "3600ms", "3600 ms", "3.6s", "3.6 s", "3.6 seconds"] {
            assert!(judge("3600", "ms", g), "{g}");
        }
        assert!(!judge("3600", "ms", "3.6"), "3.6 without a unit is 3.6 ms");
        assert!(judge("2.5", "s", "2500ms"));
        assert!(judge("27", "calls", "27 calls"));
        assert!(
            judge("27", "calls", "27.4"),
            "half a unit of a whole answer"
        );
        assert!(!judge("1.08", "", "1"), "1.08 shown, 1 is 7 % off");
        assert!(judge("yes", "", "Yes."));
        assert!(judge("none", "", " NONE"));
        assert!(!judge("no", "", "yes"));
    }
}

//! The key table as `docs/link.md` prints it.

use super::*;

/// The key table as Markdown, the way `docs/link.md` holds it.
pub fn markdown() -> String {
    let mut out = String::from(
        "| key | default | accepted | unit | applies to | meaning |\n|---|---|---|---|---|---|\n",
    );
    for k in TABLE {
        let default = match k.default {
            "" => String::from("empty"),
            "none" | "full"
                if k.domain == Domain::Preset
                    || k.name == "budget_start"
                    || k.name == "tune_max_amp" =>
            {
                String::from(k.default)
            }
            d => format!("`{d}`"),
        };
        let applies = if k.applies == Applies::ALL {
            String::from("all")
        } else {
            k.applies.describe().replace("scenario=", "")
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} |\n",
            k.name,
            default,
            k.domain.accepted_md().replace('|', "\\|"),
            k.unit,
            applies,
            k.meaning.replace('|', "\\|")
        ));
    }
    out
}

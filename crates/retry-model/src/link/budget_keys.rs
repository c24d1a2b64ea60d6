//! The budget keys' text: which budget `budget` names, and each budget's own sizes read into
//! its config and written back (`bucket_max` under `budget=bucket`, `envoy_max_retries` under
//! `budget=envoy`, ...).

use super::*;

fn wrong_budget(k: &Key, kind: &str) -> ConfigError {
    k.error(format!("applies only with budget={kind}"))
}

/// The budget a `budget` choice names: its row of [`keys::BUDGET_ROWS`].
pub(super) fn budget_of(index: usize) -> BudgetConfig {
    keys::BUDGET_ROWS[index].2
}

/// A budget's detail key (`bucket_max`, `ratio_window`, ...), for the budget kind it belongs to.
pub(super) fn set_budget_detail(
    budget: &mut BudgetConfig,
    k: &'static Key,
    v: &str,
) -> Result<(), ConfigError> {
    match k.name {
        "bucket_max" | "bucket_refill" => {
            let BudgetConfig::Bucket(b) = &mut *budget else {
                return Err(wrong_budget(k, "bucket"));
            };
            if k.name == "bucket_max" {
                b.max_milli = k.dec(v)?;
            } else {
                b.refill_milli = k.dec(v)?;
            }
        }
        "ratio_percent" | "ratio_window" | "ratio_min_per_s" => {
            let BudgetConfig::Ratio(r) = &mut *budget else {
                return Err(wrong_budget(k, "ratio"));
            };
            match k.name {
                "ratio_percent" => r.per_mille = k.dec(v)? as u32,
                "ratio_window" => r.window = k.dur(v)?,
                _ => r.min_per_sec = k.int32(v)?,
            }
        }
        "grpc_max_tokens" | "grpc_token_ratio" => {
            let BudgetConfig::Grpc(g) = &mut *budget else {
                return Err(wrong_budget(k, "grpc"));
            };
            if k.name == "grpc_max_tokens" {
                g.max_milli = k.int(v)? * 1000;
            } else {
                g.ratio_milli = k.dec(v)?;
            }
        }
        "envoy_max_retries" => {
            let BudgetConfig::Envoy(e) = &mut *budget else {
                return Err(wrong_budget(k, "envoy"));
            };
            e.max = k.int32(v)?;
        }
        "envoy_budget_percent" | "envoy_min_retry_concurrency" => {
            let BudgetConfig::EnvoyBudget(e) = &mut *budget else {
                return Err(wrong_budget(k, "envoy_budget"));
            };
            if k.name == "envoy_budget_percent" {
                e.per_mille = k.dec(v)? as u32;
            } else {
                e.min = k.int32(v)?;
            }
        }
        "rate_per_window" | "rate_window" => {
            let BudgetConfig::Rate(r) = &mut *budget else {
                return Err(wrong_budget(k, "rate"));
            };
            if k.name == "rate_per_window" {
                r.per_window = k.int32(v)?;
            } else {
                r.window = k.dur(v)?;
            }
        }
        _ => {}
    }
    Ok(())
}

impl Params {
    /// A budget key's link text (see [`Params::get`]): `Some(None)` when the key belongs to
    /// another kind of budget, `None` when it is not a budget key.
    pub(super) fn budget_key(&self, key: &str) -> Option<Option<String>> {
        let pol = &self.policy;
        Some(Some(match key {
            // A budget as a row names it; one whose sizes were changed, by its kind.
            "budget" => keys::BUDGET_ROWS
                .iter()
                .find(|row| row.2 == pol.budget)
                .map_or(pol.budget.name(), |row| row.0)
                .to_string(),
            "budget_start" => milli_text(self.budget_start?),
            "budget_scope" => pol.scope.name().to_string(),
            "bucket_max" | "bucket_refill" => {
                let BudgetConfig::Bucket(b) = pol.budget else {
                    return Some(None);
                };
                milli_text(if key == "bucket_max" {
                    b.max_milli
                } else {
                    b.refill_milli
                })
            }
            "ratio_percent" | "ratio_window" | "ratio_min_per_s" => {
                let BudgetConfig::Ratio(r) = pol.budget else {
                    return Some(None);
                };
                match key {
                    "ratio_percent" => decimal(u64::from(r.per_mille), 10),
                    "ratio_window" => r.window.to_string(),
                    _ => r.min_per_sec.to_string(),
                }
            }
            "grpc_max_tokens" | "grpc_token_ratio" => {
                let BudgetConfig::Grpc(g) = pol.budget else {
                    return Some(None);
                };
                if key == "grpc_max_tokens" {
                    (g.max_milli / 1000).to_string()
                } else {
                    milli_text(g.ratio_milli)
                }
            }
            "envoy_max_retries" => {
                let BudgetConfig::Envoy(e) = pol.budget else {
                    return Some(None);
                };
                e.max.to_string()
            }
            "envoy_budget_percent" | "envoy_min_retry_concurrency" => {
                let BudgetConfig::EnvoyBudget(e) = pol.budget else {
                    return Some(None);
                };
                if key == "envoy_budget_percent" {
                    decimal(u64::from(e.per_mille), 10)
                } else {
                    e.min.to_string()
                }
            }
            "rate_per_window" | "rate_window" => {
                let BudgetConfig::Rate(r) = pol.budget else {
                    return Some(None);
                };
                if key == "rate_per_window" {
                    r.per_window.to_string()
                } else {
                    r.window.to_string()
                }
            }
            _ => return None,
        }))
    }
}

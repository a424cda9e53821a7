//! `validate`: check scenario files and say where the chariot may stop and who helps the
//! enemy there.

use super::*;

pub(super) fn validate(files: &[PathBuf]) -> Result<()> {
    let mut failed = None;
    for file in files {
        match load_any(Some(file)) {
            Ok(Loaded::Battle(s)) => out!("{}: {}", file.display(), battle::describe(&s)),
            Ok(Loaded::Mesbg(s)) => {
                let plan = plan::compile(&s);
                out!(
                    "{}: ok ({} models, {} on the chariot's path{})",
                    file.display(),
                    plan.models.len(),
                    plan.models_on_path(),
                    if plan.breakthrough_possible { ", breakthrough possible" } else { "" }
                );
                for line in support_lines(&plan) {
                    out!("  {line}");
                }
            }
            Err(e) => {
                eprintln!("{e}");
                failed = Some(e);
            }
        }
    }
    match failed {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

/// What helps the enemy at each place the chariot may stop, when every model it touches
/// there survives its Impact Hits: the supporting spears and pikes (by name) and a banner
/// in range. Empty when the scenario has none.
pub(super) fn support_lines(plan: &Plan) -> Vec<String> {
    if !plan.support.any() {
        return Vec::new();
    }
    plan.groups
        .iter()
        .enumerate()
        .map(|(g, group)| {
            let all = vec![plan::support::Presence { in_fight: true, rider: true, prone: false }; group.models.len()];
            let support = plan.foe_support(g, &all);
            let fighting: Vec<String> = group.models.iter().map(|&m| plan.model_label(m)).collect();
            let supporters: Vec<String> = support.supporters.iter().map(|s| plan.model_label(s.model)).collect();
            format!(
                "if it stops at {:.2}\" against {}: {}{}",
                group.distance,
                fighting.join(", "),
                if supporters.is_empty() {
                    "no supporters".to_string()
                } else {
                    format!("supported by {}", supporters.join(", "))
                },
                if support.banner { "; a banner within 3\" (one duel die may be re-rolled)" } else { "" }
            )
        })
        .collect()
}

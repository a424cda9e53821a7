//! `replay`: one trial again, with every event it rolled, in words or JSON.

use super::*;

/// The version of a replay's JSON object (`replay --json`, `replay-<trial>.json`).
pub(super) const REPLAY_SCHEMA: &str = "charioteer.replay/1";

pub(super) fn replay(file: Option<&Path>, trial: u64, seed: Option<u64>, output: &OutputOptions) -> Result<()> {
    on_system!(load_any(file)?, replay_of(trial, seed, output))
}

fn replay_of<S: System>(scenario: S::Scenario, trial: u64, seed: Option<u64>, output: &OutputOptions) -> Result<()> {
    S::replay(&scenario, trial, seed, output)
}

/// `replay` for a MESBG scenario.
pub(super) fn replay_mesbg(scenario: &Scenario, trial: u64, seed: Option<u64>, output: &OutputOptions) -> Result<()> {
    let seed = seed.unwrap_or(scenario.seed);
    let plan = plan::compile(scenario);
    let streams = Streams::new(seed, scenario.hash());
    let (outcome, events) = resolve::replay(&plan, streams, trial);
    let metrics: serde_json::Map<String, serde_json::Value> =
        Metric::ALL.iter().map(|m| (m.name().to_string(), outcome.get(*m).into())).collect();
    let value = serde_json::json!({
        "schema": REPLAY_SCHEMA,
        "system": "mesbg",
        "title": scenario.title,
        "trial": trial,
        "seed": seed,
        "events": events,
        "metrics": metrics,
    });
    if !finish_replay(&value, trial, output)? {
        return Ok(());
    }
    out!("{} - trial {trial}, seed {seed}", scenario.title);
    for event in &events {
        out!("  {}", describe_event(&plan, event));
    }
    for m in Metric::ALL {
        out!("  {:<22} {}", m.name(), outcome.get(m));
    }
    Ok(())
}

/// Writes a replay's JSON object into `--out` (as `replay-<trial>.json`) and prints it
/// under `--json`. Returns whether the text should still be printed.
pub(super) fn finish_replay(value: &serde_json::Value, trial: u64, output: &OutputOptions) -> Result<bool> {
    let text = serde_json::to_string_pretty(value)?;
    if let Some(dir) = &output.out {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = dir.join(format!("replay-{trial}.json"));
        report::write_atomic(&path, |f| std::io::Write::write_all(f, text.as_bytes()))?;
    }
    if output.json {
        out!("{text}");
    }
    Ok(!output.json && !output.quiet)
}

/// "2 Wounds", or with Wounds that Fate prevented, "1 Wound prevented by Fate" or "1 Wound
/// (1 more prevented by Fate)".
fn wounds_after_fate(wounds: u8, prevented: u8) -> String {
    let plural = |n: u8| if n == 1 { "" } else { "s" };
    match (wounds, prevented) {
        (w, 0) => format!("{w} Wound{}", plural(w)),
        (0, p) => format!("{p} Wound{} prevented by Fate", plural(p)),
        (w, p) => format!("{w} Wound{} ({p} more prevented by Fate)", plural(w)),
    }
}

pub(super) fn describe_event(plan: &Plan, event: &Event) -> String {
    match event {
        Event::Contact { distance, model, outcome: o } => {
            let plural = |n: u8| if n == 1 { "" } else { "s" };
            let mut text = format!(
                "at {distance:.2}\": touches {} - {} Impact Hit{}, {} Wound{}",
                plan.model_label(*model),
                o.hits,
                plural(o.hits),
                o.wounds,
                plural(o.wounds)
            );
            if o.fate_spent > 0 {
                text.push_str(&format!(" after {} Fate point{} spent", o.fate_spent, plural(o.fate_spent)));
            }
            if let Some((mh, mw)) = o.mount {
                text.push_str(&format!("; mount {mh} hit{}, {mw} Wound{}", plural(mh), plural(mw)));
            }
            if let Some(die) = o.thrown {
                let what = match die {
                    1 => "Knocked Flying",
                    6 => "Leaps into Action",
                    _ => "Rises from the Dust",
                };
                text.push_str(&format!("; Thrown Rider {die}: {what}"));
            }
            text.push_str(if o.passed {
                ", slain: the chariot drives on"
            } else if o.casualty {
                ", rider slain, the mount stands"
            } else {
                ", survives"
            });
            text
        }
        Event::KnockedFlying { model, wounded, slain } => format!(
            "{} is Knocked Flying (Strength 3 hit): {}",
            plan.model_label(*model),
            match (wounded, slain) {
                (_, true) => "wounded, slain",
                (true, false) => "wounded, Prone",
                (false, false) => "unhurt, Prone",
            }
        ),
        Event::Stopped { distance, by } => format!(
            "stops at {distance:.2}\" in base contact with {}",
            by.iter().map(|m| plan.model_label(*m)).collect::<Vec<_>>().join(", ")
        ),
        Event::DroveOn { breakthrough } => {
            format!(
                "drives its full Move{}",
                if *breakthrough { ", through every formation: breakthrough" } else { "" }
            )
        }
        Event::Support { supporters, banner } => {
            let mut parts = Vec::new();
            if !supporters.is_empty() {
                parts.push(format!(
                    "the enemy is supported by {} (a die each, a Strike each if they win)",
                    supporters.iter().map(|m| plan.model_label(*m)).collect::<Vec<_>>().join(", ")
                ));
            }
            if *banner {
                parts.push("a standing banner bearer within 3\" lets the enemy re-roll one duel die".to_string());
            }
            parts.join("; ")
        }
        Event::BannerReroll { from, to } => {
            format!("the banner's re-roll: the enemy gives up its lowest duel die ({from}) and rolls again: {to}")
        }
        Event::Duel { chariot_dice, enemy_dice, chariot_high, enemy_high, roll_off, chariot_won } => format!(
            "duel: chariot {chariot_dice} dice, high {chariot_high}; enemy {enemy_dice} dice, high {enemy_high}{}; {}",
            roll_off.map(|d| format!("; roll-off {d}")).unwrap_or_default(),
            if *chariot_won { "the chariot wins" } else { "the enemy wins" }
        ),
        Event::Fight { chariot_won, kills, wounds_lost } => format!(
            "fight result: {}, {kills} slain by its Strikes, {wounds_lost} Wound{} lost",
            if *chariot_won { "the chariot won" } else { "the chariot lost" },
            if *wounds_lost == 1 { "" } else { "s" }
        ),
        Event::Note { text } => format!("({text})"),
        Event::BacksAway { ours, roll } => format!(
            "chariot against chariot: {} Backs Away{}",
            if *ours { "our chariot" } else { "the enemy chariot" },
            roll.map(|d| format!(" (same size, D6 {d})")).unwrap_or_default()
        ),
        Event::TerrainTest { roll, might } => format!(
            "difficult-terrain test on entering: rolls {roll}{}",
            if *might > 0 {
                ", the Hero spends 1 Might to make it a 2: no harm"
            } else if *roll == 1 {
                ", the chariot suffers a Wound at once"
            } else {
                ", no harm"
            }
        ),
        Event::SlainByTerrain { distance } => {
            format!("the chariot is slain by the difficult terrain at {distance:.2}\" and stops there")
        }
        Event::StrikesDeclared { split } => format!(
            "the chariot declares its Strikes before rolling: {}",
            split.iter().map(|(m, k)| format!("{k} at {}", plan.model_label(*m))).collect::<Vec<_>>().join(", ")
        ),
        Event::Obstacle { wounding_hits } => {
            format!("drives into the obstacle: 3 hits at Strength 6 each way, {wounding_hits} wound the chariot")
        }
        Event::Grip { two_handed, chosen } => format!(
            "the chariot holds its hand-and-a-half weapon {}{}",
            if *two_handed {
                "two-handed (duel dice 1 lower unless a 6, To Wound rolls 1 higher)"
            } else {
                "one-handed"
            },
            if *chosen { ", the grip with more expected kills in this fight" } else { ", as the grip policy says" }
        ),
        Event::Might { points, on } => format!("the Hero spends {points} Might on the {on} roll"),
        Event::FoeMight { model, points, on } => {
            format!("{} spends {points} Might on the {on} roll", plan.model_label(*model))
        }
        Event::FoeFate { model, points, saved } => format!(
            "{} spends {points} Fate point{} against a Wound: {}",
            plan.model_label(*model),
            if *points == 1 { "" } else { "s" },
            if *saved { "prevented" } else { "no save" }
        ),
        Event::Fate { rolls, might, saved } => {
            format!(
                "the Hero spends {} Fate point{}: rolls {}{}, {}",
                rolls.len(),
                if rolls.len() == 1 { "" } else { "s" },
                rolls.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", "),
                if *might > 0 { format!(" (+{might} Might on the last)") } else { String::new() },
                if *saved { "the Wound is prevented" } else { "no save" }
            )
        }
        Event::Thrown { wounds, slain } => format!(
            "the chariot is slain: the Hero is thrown (Strength 3 hit): {wounds} Wound{}{}",
            if *wounds == 1 { "" } else { "s" },
            if *slain { ", slain" } else { ", Prone" }
        ),
        Event::Strike { by, target, rolls, wounds, prevented, slain, casualty } => match (by, target) {
            (_, Some(t)) => format!(
                "chariot strikes {} ({rolls} roll{}): {}{}",
                plan.model_label(*t),
                if *rolls == 1 { "" } else { "s" },
                wounds_after_fate(*wounds, *prevented),
                match (slain, casualty) {
                    (_, true) => ", slain",
                    (true, false) => ", its mount slain",
                    (false, _) => "",
                }
            ),
            (Some(b), None) => format!(
                "{} strikes the chariot: {}{}",
                plan.model_label(*b),
                wounds_after_fate(*wounds, *prevented),
                if *slain { ", the chariot is slain" } else { "" }
            ),
            (None, None) => String::from("strike"),
        },
        Event::TurnCharge { chariot, order } => {
            format!("--- chariot {chariot} charges ({} of the turn) ---", ordinal(*order))
        }
        Event::Blocked { by, distance } => {
            format!(
                "after {distance:.2}\" the drive ends just short of chariot {by} (models cannot move through friends)"
            )
        }
        Event::TurnFight { chariots, models } => format!(
            "--- fight: chariot{} {} against {} ---",
            if chariots.len() == 1 { "" } else { "s" },
            chariots.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" and "),
            models.iter().map(|&m| plan.model_label(m)).collect::<Vec<_>>().join(", ")
        ),
        Event::StrikesOf { chariot, striking } => {
            if *striking {
                format!("chariot {chariot} strikes:")
            } else {
                format!("at chariot {chariot}:")
            }
        }
    }
}

/// "1st", "2nd", "3rd", "4th", ...
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

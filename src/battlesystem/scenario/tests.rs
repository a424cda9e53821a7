//! BATTLESYSTEM scenario files' tests: parsing, defaults and refusals by field.

use super::*;

const ROUT: &str = r#"
title = "Elephant routs"
system = "battlesystem"
[board]
width = 48
depth = 48
[[units]]
name = "Elephant"
side = "a"
figures = 1
beast = true
at = [24.0, 24.0]
base = [2.0, 3.0]
stats = { ad = "d10", ar = 5, hits = 8, ml = 14, mv = 15 }
[[units]]
name = "Pikemen"
side = "b"
figures = 20
frontage = 10
at = [24.0, 34.0]
facing = 180
stats = { ad = "d6", ar = 6, hits = 1, ml = 12, mv = 6 }
[rout]
unit = "Elephant"
"#;

#[test]
fn a_rout_scenario_parses_with_the_defaults() {
    let s = parse(ROUT, "rout.toml").expect("valid");
    assert_eq!(s.units.len(), 2);
    assert_eq!(s.units[1].frontage, 10);
    assert!((s.units[1].block.depth - 2.0).abs() < 1e-12);
    assert_eq!(s.rules.max_rerolls, 3);
    assert_eq!(s.rout_distance(0), 15.0);
    assert_eq!(system_of(ROUT), SystemField::Battlesystem);
    assert!(
        s.rules.ruleset().iter().any(|o| o.name == "armour_roll" && o.value == "greater" && o.default == "greater")
    );
}

#[test]
fn what_is_not_simulated_is_refused() {
    // Only beasts rout in a d12 direction; an ordinary unit's rout is refused by name.
    let e = parse(&ROUT.replace("beast = true\n", ""), "r.toml").expect_err("refused").to_string();
    assert!(e.contains("rout.unit") && e.contains("not a battle beast"), "{e}");
    // Doubling the platform's own dice when it has none is refused, not a silent no-op.
    let with_rules = |rules: &str| format!("{ROUT}[rules]\n{rules}\n");
    let e = parse(&with_rules("charge_doubles = \"platform\""), "r.toml").expect_err("refused").to_string();
    assert!(e.contains("rules.charge_doubles") && e.contains("platform_attacks_alone"), "{e}");
    let ok = with_rules("charge_doubles = \"platform\"\nplatform_attacks_alone = true");
    assert!(parse(&ok, "r.toml").is_ok());
}

#[test]
fn bad_files_name_the_field_and_line() {
    let bad = ROUT.replace("ml = 12", "ml = 40").replace("at = [24.0, 34.0]", "at = [24.0, 25.0]");
    let e = parse(&bad, "bad.toml").expect_err("invalid").to_string();
    assert!(e.contains("units[1].stats.ml") && e.contains("ML 40 is out of range"), "{e}");
    let overlap = ROUT.replace("at = [24.0, 34.0]", "at = [24.0, 25.0]");
    let e = parse(&overlap, "bad.toml").expect_err("invalid").to_string();
    assert!(e.contains("overlaps \"Elephant\"") && e.contains("bad.toml:20"), "{e}");
    let off = ROUT.replace("at = [24.0, 34.0]", "at = [44.0, 34.0]");
    let e = parse(&off, "bad.toml").expect_err("invalid").to_string();
    assert!(e.contains("reaches off the 48\" x 48\" board"), "{e}");
    let die = ROUT.replace("ad = \"d10\"", "ad = \"d7\"");
    let e = parse(&die, "bad.toml").expect_err("invalid").to_string();
    assert!(e.contains("`d7` is not an attack die"), "{e}");
    let who = ROUT.replace("unit = \"Elephant\"", "unit = \"Oliphaunt\"");
    let e = parse(&who, "bad.toml").expect_err("invalid").to_string();
    assert!(e.contains("no unit is named \"Oliphaunt\""), "{e}");
}

#[test]
fn a_charge_needs_a_platform_with_a_rider_and_a_reachable_target() {
    let charge = ROUT.replace("[rout]\nunit = \"Elephant\"", "[charge]\nunit = \"Elephant\"\ntarget = \"Pikemen\"");
    let e = parse(&charge, "c.toml").expect_err("no crew").to_string();
    assert!(e.contains("carries no crew"), "{e}");
    let crewed = charge.replace(
        "stats = { ad = \"d10\", ar = 5, hits = 8, ml = 14, mv = 15 }",
        "stats = { ad = \"d10\", ar = 5, hits = 8, ml = 14, mv = 15 }\ncrew = [{ name = \"Archers\", role = \"archer\", count = 3, ad = \"d6\", range_bands = [[0, 7, 1.0], [7, 14, 0.5]] }]",
    );
    let e = parse(&crewed, "c.toml").expect_err("no rider").to_string();
    assert!(e.contains("role = \"rider\""), "{e}");
    let ridden = crewed.replace("crew = [", "crew = [{ name = \"Mahout\", role = \"rider\", ad = \"d4\" }, ");
    let s = parse(&ridden, "c.toml").expect("valid");
    match s.action {
        Action::Charge { gap, volleys, .. } => {
            // Elephant front at y = 25.5, the pikemen's near rank at 33.
            assert!((gap - 7.5).abs() < 1e-6, "{gap}");
            assert_eq!(volleys, 2);
        }
        other => panic!("{other:?}"),
    }
    let far = ridden.replace("mv = 15", "mv = 6");
    let e = parse(&far, "c.toml").expect_err("too far").to_string();
    assert!(e.contains("beyond its MV of 6"), "{e}");
}

/// Every field of the rules in force has a row in the `[rules]` table (`rule_options.rs`):
/// the fields the scenario hash holds (nested `morale` as its two options, and the two
/// hashed only when not their default), and the attack rules hashed beside them.
#[test]
fn every_rules_field_has_a_row() {
    let rules = BattlesystemRules {
        melee_contact: MeleeContact::WholeFrontRank,
        driver_only: DriverOnly::Refused,
        ..BattlesystemRules::default()
    };
    let hashed = serde_json::to_value(&rules).expect("serialises");
    let mut fields: Vec<String> = Vec::new();
    for (key, value) in hashed.as_object().expect("an object") {
        match key.as_str() {
            "morale" => {
                let morale = value.as_object().expect("the morale rule");
                assert_eq!(morale.len(), 2, "rout_margin and fall_back_inches: {morale:?}");
                fields.extend(["morale_rout_margin".to_string(), "fall_back_inches".to_string()]);
            }
            other => fields.push(other.to_string()),
        }
    }
    // `attack` (not hashed here: the scenario hashes its hits table and armour roll).
    let AttackRules { hits_table: _, armour: _ } = AttackRules::default();
    fields.extend(["hits_table".to_string(), "armour_roll".to_string()]);
    fields.sort();
    let mut rows: Vec<String> = BattlesystemRules::KEYS.iter().map(|k| k.to_string()).collect();
    rows.sort();
    assert_eq!(
        fields, rows,
        "a field of BattlesystemRules without its row in rule_options.rs, or a row without a field"
    );
    let shown: Vec<String> = rules.ruleset().into_iter().map(|o| o.name.into_owned()).collect();
    assert_eq!(shown, BattlesystemRules::KEYS, "the ruleset lists every row, in the table's order");
}

//! A hand-and-a-half weapon (2024, `../shared/rules/mesbg.md`, "Weapons"): held two-handed,
//! every duel die is 1 lower unless it is a natural 6, and every To Wound die 1 higher;
//! its player picks the grip before each Duel Roll. The expected values here are worked
//! out by hand (or by enumerating faces in the test), never read back from the engine.
//!
//! The fight by hand: the Khandish chariot charging (F4, one Attack and one for the
//! charge: 2 dice, Strength 3) against one F4 warrior with one die; the chariot is Evil, so
//! a tie at equal Fight is an even roll-off. Won, the warrior is knocked Prone and Trapped:
//! each of the two Strikes is two To Wound rolls, so four rolls in all.
//!
//! One-handed the chariot's score is its higher die: P(win) = 143/216. Two-handed the
//! higher die k shows 1,1,2,3,4,6 for k = 1..6, with P(k) = (2k - 1)/36, so the score is 1
//! with 4/36, 2 with 5/36, 3 with 7/36, 4 with 9/36, 6 with 11/36; against one die it wins
//! (s - 1)/6 + 1/12 for score s: P(win) = (4*1 + 5*3 + 7*5 + 9*7 + 11*11)/432 = 238/432.
//! - Against Defence 6 (S3 needs 6+, two-handed 5+): one-handed kills with
//!   143/216 * (1 - (5/6)^4) = 0.3428, two-handed with 238/432 * (1 - (2/3)^4) = 0.4421:
//!   a sensible player takes it two-handed.
//! - Against Defence 4 (S3 needs 5+, two-handed 4+): one-handed 143/216 * (1 - (2/3)^4) =
//!   0.5313, two-handed 238/432 * (1 - (1/2)^4) = 0.5165: he keeps it one-handed.

use charioteer::mesbg::exact;
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::rules::fight::{
    ChariotFighter, Combatant, FightRules, FoeSupport, Grip, HeroInFight, StrikeSplit, chosen_grip, fight_distribution,
};
use charioteer::mesbg::rules::{Side, StrikeAllocation, WoundRoll, to_wound, two_handed_duel_die};
use charioteer::mesbg::scenario::parse;
use charioteer::mesbg::tally::Metric;

const WIN_ONE_HANDED: f64 = 143.0 / 216.0;
const WIN_TWO_HANDED: f64 = 238.0 / 432.0;

/// P(at least one of four rolls succeeds), each with `p`.
fn any_of_four(p: f64) -> f64 {
    1.0 - (1.0 - p).powi(4)
}

fn warrior(defence: u8, strength_against: u8) -> Combatant {
    Combatant {
        fight: 4,
        attacks: 1,
        defence,
        wounds_left: 1,
        struck_by_chariot: to_wound(strength_against, defence),
        strikes_chariot: to_wound(3, 7),
        never_prone: false,
        chariot: false,
        mount: None,
        prone: false,
        strikes: true,
        knocked_flying: to_wound(3, defence),
        hero: None,
        cannot_back_away: false,
    }
}

const RULES: FightRules =
    FightRules { trapped: true, allocation: StrikeAllocation::MostWoundedFirst, split: StrikeSplit::Declared };

fn chariot(grip: Grip) -> ChariotFighter {
    ChariotFighter { fight: 4, attacks: 2, wounds_left: 3, side: Side::Evil, grip }
}

fn kill_chance(grip: Grip, defence: u8) -> f64 {
    fight_distribution(&chariot(grip), &[warrior(defence, 3)], RULES, HeroInFight::NONE, &FoeSupport::NONE)
        .into_iter()
        .filter(|(o, _)| o.kills == 1)
        .map(|(_, p)| p)
        .sum()
}

#[test]
fn two_handed_dice_read_as_the_reference_says() {
    // Duel dice: one lower, never below 1, a natural 6 kept.
    let shown: Vec<u8> = (1..=6).map(two_handed_duel_die).collect();
    assert_eq!(shown, vec![1, 1, 2, 3, 4, 6]);
    // To Wound: one lower on the natural face; "6 then 4" becomes "5 then 3"; a roll the
    // chart forbids stays forbidden.
    assert_eq!(to_wound(3, 6).plus_one(), WoundRoll::Needs(5));
    assert_eq!(to_wound(3, 3).plus_one(), WoundRoll::Needs(3));
    assert_eq!(to_wound(3, 8).plus_one(), WoundRoll::FiveThen(3));
    assert_eq!(to_wound(1, 10).plus_one(), WoundRoll::Impossible);
    // P("5 then 3"): a 5 or 6 (2/6), then 3 or more (4/6), counted face by face.
    let faces = (1..=6u8).flat_map(|a| (1..=6u8).map(move |b| (a, b)));
    let hits = faces.filter(|&(a, b)| (a + 1).min(6) == 6 && (b + 1).min(6) >= 4).count();
    assert_eq!(hits, 8);
    assert!((WoundRoll::FiveThen(3).probability() - 8.0 / 36.0).abs() < 1e-15);
}

#[test]
fn the_grip_is_chosen_by_hand_on_a_one_model_fight() {
    // Each grip's chance to kill, as worked out in the module's notes.
    let cases = [
        (6, WIN_ONE_HANDED * any_of_four(1.0 / 6.0), WIN_TWO_HANDED * any_of_four(1.0 / 3.0), Grip::TwoHanded),
        (4, WIN_ONE_HANDED * any_of_four(1.0 / 3.0), WIN_TWO_HANDED * any_of_four(1.0 / 2.0), Grip::OneHanded),
    ];
    for (defence, one, two, best) in cases {
        let d = kill_chance(Grip::OneHanded, defence);
        assert!((d - one).abs() < 1e-12, "D{defence} one-handed: {d} against {one} by hand");
        let d = kill_chance(Grip::TwoHanded, defence);
        assert!((d - two).abs() < 1e-12, "D{defence} two-handed: {d} against {two} by hand");
        let chosen =
            chosen_grip(&chariot(Grip::Choose), &[warrior(defence, 3)], RULES, HeroInFight::NONE, &FoeSupport::NONE);
        assert_eq!(chosen, best, "D{defence}");
        let d = kill_chance(Grip::Choose, defence);
        assert!((d - one.max(two)).abs() < 1e-12, "D{defence} chosen: {d} against {} by hand", one.max(two));
    }
}

/// The Khandish chariot (library name: it carries the weapon) 6" from one warrior of
/// `defence` who faces it, with `rules` under `[rules]`.
fn one_warrior(defence: u8, rules: &str) -> String {
    one_warrior_charged_by("profile = \"Khandish Charioteer\"", defence, rules)
}

/// The chariot written as `chariot` (its `[chariot]` keys and any `[chariot.hero]` table)
/// 6" from one warrior of `defence` who faces it, with `rules` under `[rules]`.
fn one_warrior_charged_by(chariot: &str, defence: u8, rules: &str) -> String {
    format!(
        r#"
title = "grip by hand"
system = "mesbg"
[chariot]
side = "evil"
at = [0.0, 0.0]
facing = 0
{chariot}
[charge]
pivots = []
[[formations]]
name = "Warrior"
count = 1
front_centre = [0.0, 6.0]
base = {{ round_mm = 25 }}
facing = 180
profile = {{ fight = 4, strength = 3, defence = {defence}, attacks = 1, wounds = 1, courage = "7+" }}
[rules]
{rules}
"#
    )
}

fn fight_kills(text: &str) -> f64 {
    let scenario = parse(text, "t").unwrap_or_else(|e| panic!("{e:?}"));
    let d = exact::exact(&compile(&scenario)).expect("exact");
    d.summary(Metric::FightKills).mean
}

#[test]
fn a_whole_charge_holds_the_weapon_as_the_grip_policy_says() {
    // The Impact Hits come first: 2 at Strength 4 leave a D6 warrior standing with (2/3)^2
    // (5+ to wound) and a D4 warrior with (1/2)^2 (4+); only then is there a fight.
    for (defence, stands, one, two) in [
        (6, 4.0 / 9.0, WIN_ONE_HANDED * any_of_four(1.0 / 6.0), WIN_TWO_HANDED * any_of_four(1.0 / 3.0)),
        (4, 1.0 / 4.0, WIN_ONE_HANDED * any_of_four(1.0 / 3.0), WIN_TWO_HANDED * any_of_four(1.0 / 2.0)),
    ] {
        for (rules, kill) in [
            ("grip = \"one_handed\"", one),
            ("grip = \"two_handed\"", two),
            ("", one.max(two)),
            ("grip = \"best\"", one.max(two)),
        ] {
            let got = fight_kills(&one_warrior(defence, rules));
            let want = stands * kill;
            assert!((got - want).abs() < 1e-12, "D{defence} [{rules}]: {got} against {want} by hand");
        }
    }
    // Without the weapon (written out, no hand_and_a_half) the grip policy changes nothing.
    let plain = one_warrior_charged_by(
        "name = \"Plain chariot\"\nfight = 4\nstrength = 3\ndefence = 7\nattacks = 1\nwounds = 3\ncourage = \"7+\"\n\
         move = 10\nimpact = { hits = \"2\", strength = 4 }\nbase = { round_mm = 60 }",
        6,
        "grip = \"two_handed\"",
    );
    let got = fight_kills(&plain);
    let want = 4.0 / 9.0 * WIN_ONE_HANDED * any_of_four(1.0 / 6.0);
    assert!((got - want).abs() < 1e-12, "no weapon: {got} against {want}");
}

#[test]
fn a_riding_heros_weapon_gives_the_chariot_its_grip() {
    // The King's chariot carries no weapon of its own; the King does. Chariot and Hero are
    // one model with one Duel Roll, so his weapon's grip is the chariot's: forced
    // two-handed, the fight differs from the same charge forced one-handed.
    let king = "profile = \"Khandish Chariot upgrade for a King\"\n[chariot.hero]\nprofile = \"Khandish King\"";
    let text = |grip: &str| one_warrior_charged_by(king, 7, &format!("grip = \"{grip}\""));
    let (one, two) = (fight_kills(&text("one_handed")), fight_kills(&text("two_handed")));
    assert!((one - two).abs() > 1e-3, "one-handed {one}, two-handed {two}");
}

#[test]
fn the_ruleset_names_the_grip_policy() {
    let scenario = parse(&one_warrior(6, "grip = \"two_handed\""), "t").expect("parses");
    let grip = scenario.rules.options().into_iter().find(|o| o.name == "grip").expect("a grip option");
    assert!(grip.reads.contains("always holds it two-handed"), "{}", grip.reads);
    let hash_before = parse(&one_warrior(6, ""), "t").expect("parses").hash();
    assert_eq!(hash_before, parse(&one_warrior(6, "grip = \"best\""), "t").expect("parses").hash());
}

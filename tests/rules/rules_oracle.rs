//! The exact engine's fight against an independent oracle (`tests/oracle/mod.rs`), which
//! shares no rule code with `src/`. The Monte Carlo-vs-exact checks elsewhere read the same
//! compiled tables as the sampler, so they check sampling; this checks the rules.
//!
//! Random fights come from proptest with a pinned seed, so CI is deterministic; set
//! `CHARIOTEER_FRESH_SEEDS=1` (and raise `PROPTEST_CASES`) for a long session with new ones.

use crate::oracle;
use crate::support;

use charioteer::mesbg::rules::duel::FoeHero;
use charioteer::mesbg::rules::fight::{
    ChariotFighter, Combatant, FatePolicy, FateRule, FightRules, FoeSupport, Grip, HeroInFight, MountCombatant, Saves,
    StrikeSplit, Supporter, fight_distribution,
};
use charioteer::mesbg::rules::{FightOutcome, Side, StrikeAllocation, to_wound};
use oracle::{Chariot, FateUse, Foe, Help, Hero, Horse, Prob, Ratio, Rules};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The engine's answer for a fight described in the oracle's terms.
fn engine(c: &Chariot, hero: Option<&Hero>, foes: &[Foe], rules: &Rules) -> BTreeMap<oracle::Result, f64> {
    let grip = if c.two_handed { oracle::Grip::TwoHanded } else { oracle::Grip::OneHanded };
    engine_with(c, hero, foes, &Help::default(), rules, grip)
}

/// The engine's answer for a fight with supporters and a banner, the chariot holding its
/// weapon by `grip` (the engine's own choice for [`oracle::Grip::Best`]), in the oracle's
/// terms.
fn engine_with(
    c: &Chariot,
    hero: Option<&Hero>,
    foes: &[Foe],
    help: &Help,
    rules: &Rules,
    grip: oracle::Grip,
) -> BTreeMap<oracle::Result, f64> {
    let chariot = ChariotFighter {
        fight: c.fight,
        attacks: c.dice,
        wounds_left: c.wounds,
        side: if c.evil { Side::Evil } else { Side::Good },
        grip: match grip {
            oracle::Grip::OneHanded => Grip::OneHanded,
            oracle::Grip::TwoHanded => Grip::TwoHanded,
            oracle::Grip::Best => Grip::Choose,
        },
    };
    let enemies: Vec<Combatant> = foes
        .iter()
        .map(|f| Combatant {
            fight: f.fight,
            attacks: f.attacks,
            defence: f.defence,
            wounds_left: f.wounds,
            struck_by_chariot: to_wound(c.strength, f.defence),
            strikes_chariot: to_wound(f.strength, c.defence),
            never_prone: f.monster || f.chariot,
            chariot: f.chariot,
            mount: f.horse.map(|h| MountCombatant {
                fight: h.fight,
                attacks: h.attacks,
                defence: h.defence,
                wounds_left: h.wounds,
                struck_by_chariot: to_wound(c.strength, h.defence),
                strikes_chariot: to_wound(h.strength, c.defence),
            }),
            prone: f.prone,
            strikes: !f.prone && !f.thrown,
            knocked_flying: to_wound(3, f.defence),
            hero: f.hero.map(|h| FoeHero {
                might: h.might,
                fate: h.fate,
                might_on_duel: h.might_in_duel,
                might_on_wounds: h.might_on_wounds,
                saves: Saves {
                    fate_rule: if h.fate_retry { FateRule::Retry } else { FateRule::Once },
                    fate_policy: if h.lethal_only { FatePolicy::LethalOnly } else { FatePolicy::ChariotThenHero },
                    might_on_fate: h.might_on_fate,
                    might_on_terrain: false,
                },
                bearer: f.minus_one,
            }),
            cannot_back_away: f.cannot_back_away,
        })
        .collect();
    let support = FoeSupport {
        supporters: help
            .supporters
            .iter()
            .enumerate()
            .map(|(i, s)| Supporter {
                model: 100 + i,
                fight: s.fight,
                strikes_chariot: to_wound(s.strength, c.defence),
                minus_one: s.minus_one,
            })
            .collect(),
        banner: help.banner,
        minus_one_dice: foes
            .iter()
            .filter(|f| f.wounds > 0 && f.minus_one && f.hero.is_none())
            .map(|f| u32::from(f.attacks))
            .sum(),
        supporter_fight_counts: help.supporter_fight_counts,
    };
    let fight_rules = FightRules {
        trapped: rules.knocked_down_are_trapped,
        allocation: if rules.easiest_first {
            StrikeAllocation::EasiestFirst
        } else {
            StrikeAllocation::MostWoundedFirst
        },
        split: if rules.declared { StrikeSplit::Declared } else { StrikeSplit::OneAtATime },
    };
    let hero_in_fight = hero.map_or(HeroInFight::NONE, |h| HeroInFight {
        might: h.might,
        fate: h.fate,
        might_on_duel: h.might_in_duel,
        might_on_wounds: h.might_on_wounds,
        saves: Saves {
            fate_rule: if h.fate_retry { FateRule::Retry } else { FateRule::Once },
            fate_policy: match h.fate_use {
                FateUse::Always => FatePolicy::ChariotThenHero,
                FateUse::LastWoundOnly => FatePolicy::LethalOnly,
                FateUse::NeverOnChariot => FatePolicy::HeroOnly,
            },
            might_on_fate: h.might_on_fate,
            might_on_terrain: true,
        },
    });
    fight_distribution(&chariot, &enemies, fight_rules, hero_in_fight, &support)
        .into_iter()
        .map(|(o, p): (FightOutcome, f64)| {
            let key = oracle::Result {
                won: o.won,
                kills: o.kills,
                wounds_lost: o.wounds_lost,
                might_spent: o.might_spent,
                fate_spent: o.fate_spent,
                foe_chariot_slain: o.foe_chariot_slain,
                foe_might_spent: o.foe_might_spent,
                foe_fate_spent: o.foe_fate_spent,
                foe_heroes_slain: o.foe_heroes_slain,
            };
            (key, p)
        })
        .collect()
}

/// Every outcome of either answer (a fight's, a whole charge's, a BATTLESYSTEM charge's)
/// agrees to `tol`, and the engine's probabilities add up to 1.
fn agree<K: Ord + std::fmt::Debug, P: Prob>(
    engine: &BTreeMap<K, f64>,
    oracle: &BTreeMap<K, P>,
    tol: f64,
) -> Result<(), String> {
    let keys: std::collections::BTreeSet<_> = engine.keys().chain(oracle.keys()).collect();
    for k in keys {
        let e = engine.get(k).copied().unwrap_or(0.0);
        let o = oracle.get(k).map_or(0.0, |p| p.to_f64());
        if (e - o).abs() > tol {
            return Err(format!("{k:?}: engine {e:.15}, oracle {o:.15}"));
        }
    }
    let total: f64 = engine.values().sum();
    if (total - 1.0).abs() > tol {
        return Err(format!("engine total {total}"));
    }
    Ok(())
}

/// Random fights compare floats: the oracle sums every face of every die one by one, so
/// its rounding differs from the engine's folded states by up to about 1e-12.
const FLOAT_TOLERANCE: f64 = 1e-10;

const DEFAULT_RULES: Rules = Rules { knocked_down_are_trapped: true, declared: true, easiest_first: false };

fn king(might: u8, fate: u8) -> Hero {
    Hero {
        might,
        fate,
        might_in_duel: true,
        might_on_wounds: true,
        might_on_fate: true,
        fate_retry: true,
        fate_use: FateUse::Always,
    }
}

fn warrior(wounds: u8) -> Foe {
    Foe::infantry(4, 3, 5, 1, wounds)
}

/// A Rider of Rohan on his horse (rider F3 S3 D5, horse F0 S1 D4 1 Attack).
fn rider() -> Foe {
    Foe {
        horse: Some(Horse { fight: 0, strength: 1, defence: 4, attacks: 1, wounds: 1 }),
        ..Foe::infantry(3, 3, 5, 1, 1)
    }
}

/// A Khandish King on his chariot (F5 S4 D7, 1 + 3 + 1 dice, 3 Wounds, Evil).
const KING_CHARIOT: Chariot =
    Chariot { fight: 5, strength: 4, defence: 7, dice: 5, wounds: 3, evil: true, two_handed: false };

#[test]
fn small_fights_agree_with_the_oracle_in_exact_fractions() {
    let cases: Vec<(Chariot, Option<Hero>, Vec<Foe>, Rules)> = vec![
        // A lone chariot into one warrior, and into two.
        (
            Chariot { fight: 4, strength: 3, defence: 7, dice: 2, wounds: 3, evil: true, two_handed: false },
            None,
            vec![warrior(1)],
            DEFAULT_RULES,
        ),
        (
            Chariot { fight: 4, strength: 3, defence: 7, dice: 2, wounds: 3, evil: true, two_handed: false },
            None,
            vec![warrior(1); 2],
            DEFAULT_RULES,
        ),
        // The King against two one-Wound warriors: Might on the duel and on Trapped Strikes.
        (KING_CHARIOT, Some(king(2, 1)), vec![warrior(1); 2], DEFAULT_RULES),
        // The same, Strikes aimed one at a time.
        (KING_CHARIOT, Some(king(2, 1)), vec![warrior(1); 2], Rules { declared: false, ..DEFAULT_RULES }),
        // A weaker chariot that usually loses: Fate retried, Might on the Fate roll.
        (
            Chariot { fight: 2, strength: 3, defence: 5, dice: 2, wounds: 2, evil: false, two_handed: false },
            Some(king(2, 2)),
            vec![Foe::infantry(5, 5, 5, 2, 2)],
            DEFAULT_RULES,
        ),
        // Cavalry: two riders on their horses; one rider thrown (no Strikes) beside a
        // riderless horse; a Prone rider.
        (KING_CHARIOT, Some(king(1, 1)), vec![rider(); 2], DEFAULT_RULES),
        (
            Chariot { fight: 3, strength: 3, defence: 7, dice: 2, wounds: 3, evil: false, two_handed: false },
            None,
            vec![Foe { horse: None, thrown: true, ..rider() }, Foe { wounds: 0, ..rider() }],
            DEFAULT_RULES,
        ),
        (KING_CHARIOT, None, vec![Foe { horse: None, prone: true, ..rider() }, warrior(1)], DEFAULT_RULES),
    ];
    for (i, (c, hero, foes, rules)) in cases.iter().enumerate() {
        let exact: BTreeMap<oracle::Result, Ratio> = oracle::fight(c, hero.as_ref(), foes, rules);
        let total = exact.values().fold(Ratio(0, 1), |a, b| a + *b);
        assert_eq!(total, Ratio(1, 1), "case {i}: the oracle's probabilities add up to exactly 1");
        agree(&engine(c, hero.as_ref(), foes, rules), &exact, 1e-12).unwrap_or_else(|e| panic!("case {i}: {e}"));
    }
}

#[test]
fn the_oracle_agrees_with_hand_derivations() {
    // A lone chariot, F4 with 2 dice, against one F4 warrior; Evil chariot, Good warrior.
    // P(win the duel) = P(2 dice beat 1) + P(tie) / 2: by hand 143/216. Won: 2 Strikes,
    // Trapped, S3 v D5 needs 5+: P(kill) = 1 - (2/3)^4 = 65/81.
    let c = Chariot { fight: 4, strength: 3, defence: 7, dice: 2, wounds: 3, evil: true, two_handed: false };
    let d: BTreeMap<oracle::Result, Ratio> = oracle::fight(&c, None, &[warrior(1)], &DEFAULT_RULES);
    let kill = d.iter().filter(|(r, _)| r.won && r.kills == 1).map(|x| *x.1).fold(Ratio(0, 1), |a, b| a + b);
    assert_eq!(kill, Ratio::frac(143, 216) * Ratio::frac(65, 81));
    // The declared split of 5 Strikes at two one-Wound warriors is 3 + 2.
    assert_eq!(oracle::declare(5, &[(1.0 / 3.0, 1, 1), (1.0 / 3.0, 1, 1)]), vec![3, 2]);
    // Fate retried: a Hero with 2 Fate and no Might saves a Wound with 1 - (1/2)^2 = 3/4.
    // A one-Wound chariot (F1, one die) against a F6 brute (one die, S9 v D9 wounds on 4+):
    // the chariot wins only when its die is strictly higher (ties go to the higher Fight),
    // 15/36; losing, it takes one Strike, a Wound with 1/2, and Fate leaves 1/4 of those.
    // It loses no Wound with 15/36 + 21/36 * (1 - 1/2 * 1/4) = 15/36 + 21/36 * 7/8.
    let weak = Chariot { fight: 1, strength: 1, defence: 9, dice: 1, wounds: 1, evil: true, two_handed: false };
    let brute = Foe { monster: true, ..Foe::infantry(6, 9, 10, 1, 3) };
    let hero = Hero { might_in_duel: false, might_on_wounds: false, ..king(0, 2) };
    let d: BTreeMap<oracle::Result, Ratio> = oracle::fight(&weak, Some(&hero), &[brute], &DEFAULT_RULES);
    let unhurt = d.iter().filter(|(r, _)| r.wounds_lost == 0).map(|x| *x.1).fold(Ratio(0, 1), |a, b| a + b);
    assert_eq!(unhurt, Ratio::frac(15, 36) + Ratio::frac(21, 36) * Ratio::frac(7, 8));
    // Once per Wound: 1/2 saved instead of 3/4.
    let once = Hero { fate_retry: false, ..hero };
    let d: BTreeMap<oracle::Result, Ratio> = oracle::fight(&weak, Some(&once), &[brute], &DEFAULT_RULES);
    let unhurt = d.iter().filter(|(r, _)| r.wounds_lost == 0).map(|x| *x.1).fold(Ratio(0, 1), |a, b| a + b);
    assert_eq!(unhurt, Ratio::frac(15, 36) + Ratio::frac(21, 36) * Ratio::frac(3, 4));
}

fn foe_hero(might: u8, fate: u8) -> oracle::FoeHero {
    oracle::FoeHero {
        might,
        fate,
        might_in_duel: true,
        might_on_wounds: true,
        might_on_fate: true,
        fate_retry: true,
        lethal_only: false,
    }
}

fn exactly(c: &Chariot, hero: Option<&Hero>, foes: &[Foe], help: &Help, what: &str) {
    let exact: BTreeMap<oracle::Result, Ratio> = oracle::fight_with(c, hero, foes, help, &DEFAULT_RULES);
    let total = exact.values().fold(Ratio(0, 1), |a, b| a + *b);
    assert_eq!(total, Ratio(1, 1), "{what}: the oracle's probabilities add up to exactly 1");
    agree(&engine_with(c, hero, foes, help, &DEFAULT_RULES, oracle::Grip::OneHanded), &exact, 1e-12)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
}

#[test]
fn banners_supporters_and_enemy_heroes_agree_with_the_oracle_in_exact_fractions() {
    let chariot = Chariot { fight: 4, strength: 4, defence: 7, dice: 2, wounds: 3, evil: true, two_handed: false };
    let banner = Help { banner: true, supporter_fight_counts: true, ..Help::default() };
    // A lone F5 warrior with a banner: his tie is won on Fight, so he keeps it.
    exactly(&chariot, None, &[Foe::infantry(5, 3, 5, 1, 1)], &banner, "a tie won on Fight");
    // Equal Fight: a tie is re-rolled only when a fresh die beats the roll-off.
    exactly(&chariot, None, &[warrior(1)], &banner, "a roll-off");
    // The bearer himself in the fight, at -1.
    exactly(&chariot, None, &[Foe { minus_one: true, ..warrior(1) }], &banner, "the bearer fights");
    // Two supporters behind (one a bearer at -1, with a higher Fight) and a banner.
    let help = Help {
        supporters: vec![
            oracle::Supporter { fight: 3, strength: 3, minus_one: false },
            oracle::Supporter { fight: 5, strength: 4, minus_one: true },
        ],
        banner: true,
        supporter_fight_counts: true,
    };
    exactly(&chariot, None, &[warrior(1)], &help, "supporters and a banner");
    exactly(
        &chariot,
        None,
        &[warrior(1)],
        &Help { supporter_fight_counts: false, ..help.clone() },
        "Fight not counted",
    );
    // An enemy Hero carrying the banner: his own two dice at -1, his Might on the duel and
    // his failed To Wound rolls, his Fate against the Strikes; the King answers with Might.
    let captain = Foe { hero: Some(foe_hero(2, 1)), minus_one: true, ..Foe::infantry(5, 4, 6, 2, 2) };
    exactly(&KING_CHARIOT, Some(&king(2, 1)), &[captain], &banner, "a Hero carrying the banner");
    exactly(&KING_CHARIOT, Some(&king(2, 1)), &[captain, warrior(1)], &Help::default(), "a Hero beside a warrior");
    // A one-Wound Hero with two Fate beside a warrior: the split counts his Fate.
    let lucky = Foe { hero: Some(foe_hero(0, 2)), ..Foe::infantry(3, 3, 4, 1, 1) };
    exactly(&chariot, None, &[lucky, warrior(1)], &Help::default(), "Fate counted in the split");
    // A Monster that cannot Back Away is Trapped when beaten; one that can is not.
    let troll = Foe { monster: true, ..Foe::infantry(4, 6, 6, 3, 3) };
    exactly(&KING_CHARIOT, None, &[Foe { cannot_back_away: true, ..troll }], &Help::default(), "troll against a wall");
    exactly(&KING_CHARIOT, None, &[troll], &Help::default(), "troll in the open");
}

#[test]
fn the_oracle_counts_fate_in_the_declared_split_by_hand() {
    // Two Strikes, not Trapped: a one-Wound Hero wounded on 4+ with two Fate (retried, each
    // 4+ saves), and a warrior wounded on 5+. By hand, P(Hero slain | 1 Wound) = 1/4 and
    // P(slain | 2 Wounds) = 3/4 (the first saved with 1/2 keeping one Fate, then the second
    // saved with 1/2; or saved with 1/4 using both, then slain; or not saved, 1/4). So:
    // [2, 0]: 1/2 * 1/4 + 1/4 * 3/4 = 5/16; [1, 1]: 1/2 * 1/4 + 1/3 = 11/24;
    // [0, 2]: 1 - (2/3)^2 = 5/9, the best. Counted as a warrior the Hero would draw [1, 1]
    // (1/2 + 1/3 = 5/6 against 3/4 and 5/9).
    let fate = |fate: u8| Some((foe_hero(0, 2), fate, 0));
    let hero = oracle::Aim { p: 0.5, per: 1, wounds: 1, is_kill: true, hero: fate(2) };
    let man = oracle::Aim { p: 1.0 / 3.0, per: 1, wounds: 1, is_kill: true, hero: None };
    assert_eq!(oracle::declare_saving(2, &[hero, man]), vec![0, 2]);
    assert_eq!(oracle::declare_saving(2, &[oracle::Aim { hero: None, ..hero }, man]), vec![1, 1]);
    // With no Fate left he is a warrior again.
    assert_eq!(oracle::declare_saving(2, &[oracle::Aim { hero: fate(0), ..hero }, man]), vec![1, 1]);
}

fn any_foe_hero() -> impl Strategy<Value = Option<oracle::FoeHero>> {
    prop::option::of(
        (0..=2u8, 0..=2u8, any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
            |(might, fate, duel, wounds, on_fate, retry, lethal)| oracle::FoeHero {
                might,
                fate,
                might_in_duel: duel,
                might_on_wounds: wounds,
                might_on_fate: on_fate,
                fate_retry: retry,
                lethal_only: lethal,
            },
        ),
    )
}

fn any_helped_foe() -> impl Strategy<Value = Foe> {
    (1..=6u8, 1..=6u8, 3..=8u8, 1..=2u8, 1..=3u8, any_foe_hero(), any::<bool>(), 0..4u8).prop_map(
        |(fight, strength, defence, attacks, wounds, hero, minus_one, kind)| {
            let foot = Foe { hero, minus_one, ..Foe::infantry(fight, strength, defence, attacks, wounds) };
            match kind {
                0 if hero.is_none() => Foe { monster: true, cannot_back_away: minus_one, minus_one: false, ..foot },
                _ => foot,
            }
        },
    )
}

fn any_help() -> impl Strategy<Value = Help> {
    (prop::collection::vec((1..=6u8, 1..=5u8, any::<bool>()), 0..=2), any::<bool>(), any::<bool>()).prop_map(
        |(supporters, banner, counts)| Help {
            supporters: supporters
                .into_iter()
                .map(|(fight, strength, minus_one)| oracle::Supporter { fight, strength, minus_one })
                .collect(),
            banner,
            supporter_fight_counts: counts,
        },
    )
}

proptest! {
    #![proptest_config(support::proptest_config(150, 20_261_202))]

    /// Random fights with enemy Heroes (Might both ways, Fate, a Hero carrying the banner),
    /// supporters, banners and Monsters that cannot Back Away, the chariot's weapon held by
    /// each `grip` reading (the best grip chosen by each side on its own): the exact engine
    /// equals the oracle to 1e-10.
    #[test]
    fn random_helped_fights_agree_with_the_oracle(
        c in any_chariot(),
        hero in any_hero(),
        foes in prop::collection::vec(any_helped_foe(), 1..=2),
        help in any_help(),
        rules in any_rules(),
        grip in any_grip(),
    ) {
        let held = Chariot { two_handed: oracle::holds_two_handed(grip, &c, hero.as_ref(), &foes, &help, &rules), ..c };
        let expected: BTreeMap<oracle::Result, f64> = oracle::fight_with(&held, hero.as_ref(), &foes, &help, &rules);
        let got = engine_with(&c, hero.as_ref(), &foes, &help, &rules, grip);
        prop_assert!(agree(&got, &expected, FLOAT_TOLERANCE).is_ok(), "{:?}", agree(&got, &expected, FLOAT_TOLERANCE));
    }
}

fn any_hero() -> impl Strategy<Value = Option<Hero>> {
    prop::option::of((0..=3u8, 0..=3u8, any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), 0..3u8).prop_map(
        |(might, fate, duel, wounds, on_fate, retry, usage)| Hero {
            might,
            fate,
            might_in_duel: duel,
            might_on_wounds: wounds,
            might_on_fate: on_fate,
            fate_retry: retry,
            fate_use: [FateUse::Always, FateUse::LastWoundOnly, FateUse::NeverOnChariot][usize::from(usage)],
        },
    ))
}

fn any_horse() -> impl Strategy<Value = Horse> {
    (0..=3u8, 1..=4u8, 3..=6u8, 0..=2u8, 1..=2u8).prop_map(|(fight, strength, defence, attacks, wounds)| Horse {
        fight,
        strength,
        defence,
        attacks,
        wounds,
    })
}

fn any_foe() -> impl Strategy<Value = Foe> {
    (1..=6u8, 1..=7u8, 3..=10u8, 0..=3u8, 1..=3u8, 0..9u8, any_horse()).prop_map(
        |(fight, strength, defence, attacks, wounds, kind, horse)| {
            let foot = Foe::infantry(fight, strength, defence, attacks, wounds);
            match kind {
                4 => Foe { monster: true, ..foot },
                5 => Foe { chariot: true, ..foot },
                // Cavalry: mounted; riderless horse; thrown (on foot, no Strikes); Prone.
                6 => Foe { horse: Some(horse), ..foot },
                7 => Foe { horse: Some(horse), wounds: 0, ..foot },
                8 if wounds % 2 == 0 => Foe { thrown: true, ..foot },
                8 => Foe { prone: true, ..foot },
                _ => foot,
            }
        },
    )
}

/// A chariot as it fights; how it holds its weapon is drawn apart ([`any_grip`]).
fn any_chariot() -> impl Strategy<Value = Chariot> {
    (1..=6u8, 1..=7u8, 5..=9u8, 1..=5u8, 1..=4u8, any::<bool>()).prop_map(
        |(fight, strength, defence, dice, wounds, evil)| Chariot {
            fight,
            strength,
            defence,
            dice,
            wounds,
            evil,
            two_handed: false,
        },
    )
}

/// How a chariot with a hand-and-a-half weapon holds it: `[rules] grip`'s three readings.
fn any_grip() -> impl Strategy<Value = oracle::Grip> {
    prop::sample::select(vec![oracle::Grip::OneHanded, oracle::Grip::TwoHanded, oracle::Grip::Best])
}

fn any_rules() -> impl Strategy<Value = Rules> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(trapped, declared, easiest)| Rules {
        knocked_down_are_trapped: trapped,
        declared,
        easiest_first: easiest,
    })
}

proptest! {
    #![proptest_config(support::proptest_config(400, 20_261_201))]

    /// Random fights (a chariot alone or with a Hero, 1-3 targets among infantry, Monsters,
    /// chariots, riders on horses, riderless horses, thrown and Prone riders; Trapped or
    /// not, Might and Fate 0-3, every policy and reading, the weapon one-handed, two-handed
    /// or held the way that expects more kills): the exact engine equals the oracle to 1e-10.
    #[test]
    fn random_fights_agree_with_the_oracle(
        c in any_chariot(),
        hero in any_hero(),
        foes in prop::collection::vec(any_foe(), 1..=3),
        rules in any_rules(),
        grip in any_grip(),
    ) {
        let none = Help::default();
        let held = Chariot { two_handed: oracle::holds_two_handed(grip, &c, hero.as_ref(), &foes, &none, &rules), ..c };
        let expected: BTreeMap<oracle::Result, f64> = oracle::fight(&held, hero.as_ref(), &foes, &rules);
        let got = engine_with(&c, hero.as_ref(), &foes, &none, &rules, grip);
        prop_assert!(agree(&got, &expected, FLOAT_TOLERANCE).is_ok(), "{:?}", agree(&got, &expected, FLOAT_TOLERANCE));
    }
}

// ---------------------------------------------------------------------------------------
// Whole charges: Impact Hits along a line, enemy Heroes' Fate, difficult terrain, a wall,
// a Hero thrown from a slain chariot and the Break Point, the oracle (`oracle::charge`)
// against the exact engine on scenarios written out as TOML.

use charioteer::mesbg::exact;
use charioteer::mesbg::plan::compile;
use charioteer::mesbg::scenario::parse;
use charioteer::mesbg::tally::Metric;
use oracle::charge::{Army, Charge, ChargeResult, ImpactDice, Riding};

/// A model profile in a contact group: F, S, D, A, W and, for an enemy Hero, (Might, Fate).
#[derive(Clone, Copy, Debug)]
struct Model {
    fight: u8,
    strength: u8,
    defence: u8,
    attacks: u8,
    wounds: u8,
    hero: Option<(u8, u8)>,
    /// Cavalry: the mount's F, S, D, A, W (the model on a 40 mm base).
    mount: Option<(u8, u8, u8, u8, u8)>,
}

impl Model {
    /// Its base's radius, inches.
    fn radius(&self) -> f64 {
        if self.mount.is_some() { CAVALRY_RADIUS } else { MODEL_RADIUS }
    }
}

/// A charge case: what both the oracle and the scenario are built from.
#[derive(Clone, Debug)]
struct ChargeCase {
    /// Impact Hits per model (`None`: D3) and their Strength.
    hits: Option<u8>,
    impact_strength: u8,
    /// The chariot's F, S, D, A, W.
    chariot: (u8, u8, u8, u8, u8),
    /// A riding Hero: F, S, A, W, D, Might, Fate.
    riding: Option<(u8, u8, u8, u8, u8, u8, u8)>,
    /// Contact groups along the drive: a profile and one, two or three models side by side
    /// (three: shielded, with Shieldwall, bases touching).
    groups: Vec<(Model, u8)>,
    terrain_before: Option<usize>,
    wall: bool,
    /// The army charged: models and casualties already.
    army: Option<(u32, u32)>,
    half_or_more: bool,
    fate_retry: bool,
    /// A hand-and-a-half weapon on the chariot and `[rules] grip` (`None`: no such weapon).
    weapon: Option<oracle::Grip>,
    /// An enemy banner bearer beside the drive, within 3" of every contact.
    banner: bool,
    /// `[rules] banner_reroll = "never"`.
    banner_never: bool,
    /// `[rules] difficult_terrain_measure = "centre"`.
    terrain_by_centre: bool,
    /// `[rules] cavalry_passed_when = "rider_slain_and_mount_gone"`.
    cavalry_mount_gone: bool,
    /// `[rules] cavalry_impact_hits = "roll_each"`.
    cavalry_roll_each: bool,
    /// `[rules] shieldwall = true`.
    shieldwall: bool,
}

/// The chariot's 80 x 60 mm base (a flat front, so it touches a row of three 25 mm bases
/// at once): half its length, inches.
const CHARIOT_HALF_LENGTH: f64 = 30.0 / 25.4;
/// A model's round 25 mm base: its radius, inches.
const MODEL_RADIUS: f64 = 12.5 / 25.4;
/// A cavalry model's round 40 mm base: its radius, inches.
const CAVALRY_RADIUS: f64 = 20.0 / 25.4;

/// Where group `i` stands (its front centre, inches up the board): 1.5" apart, so each
/// group is a contact of its own.
fn group_y(i: usize) -> f64 {
    3.0 + 1.5 * i as f64
}

impl ChargeCase {
    /// Where the band of difficult terrain starts, inches up the board: 0.1" past the back
    /// of the group before `terrain_before` (or 1.5" up, before the first), 0.2" deep.
    fn terrain_from(&self) -> Option<f64> {
        self.terrain_before.map(|g| if g == 0 { 1.5 } else { group_y(g - 1) + self.groups[g - 1].0.radius() + 0.1 })
    }

    /// Where the wall stands, 1.5" past the last group.
    fn wall_y(&self) -> f64 {
        group_y(self.groups.len() - 1) + 1.5
    }

    /// Whether the chariot's centre is still short of the band when its front touches
    /// the group after it (or the wall): the board's geometry, which the oracle is given.
    fn terrain_short_of_centre(&self) -> bool {
        let (Some(g), Some(from)) = (self.terrain_before, self.terrain_from()) else { return false };
        let front_stops = if g < self.groups.len() {
            Some(group_y(g) - self.groups[g].0.radius())
        } else {
            self.wall.then(|| self.wall_y())
        };
        front_stops.is_some_and(|front| front - CHARIOT_HALF_LENGTH < from)
    }

    /// The scenario: the chariot at the origin driving up the board at a column of groups;
    /// a thin band of difficult terrain ([`Self::terrain_from`]), a wall 1.5" past the last
    /// group, a banner bearer 2.2" to the side of the drive.
    fn toml(&self) -> String {
        let (f, s, d, a, w) = self.chariot;
        let hits = self.hits.map_or("D3".to_string(), |n| n.to_string());
        let grip = match self.weapon {
            None | Some(oracle::Grip::Best) => "best",
            Some(oracle::Grip::OneHanded) => "one_handed",
            Some(oracle::Grip::TwoHanded) => "two_handed",
        };
        let mut t = format!(
            "title = \"oracle charge\"\nsystem = \"mesbg\"\n[rules]\nbreak_point = \"{}\"\nfate = \"{}\"\n\
             grip = \"{grip}\"\nbanner_reroll = \"{}\"\ndifficult_terrain_measure = \"{}\"\n\
             cavalry_passed_when = \"{}\"\ncavalry_impact_hits = \"{}\"\nshieldwall = {}\n\n\
             [chariot]\nname = \"c\"\nside = \"evil\"\nmove = 16\nfight = {f}\nstrength = {s}\ndefence = {d}\n\
             attacks = {a}\nwounds = {w}\ncourage = \"7+\"\nimpact = {{ hits = \"{hits}\", strength = {} }}\n\
             base = {{ rect_mm = [80, 60] }}\nat = [0.0, 0.0]\nfacing = 0\nhand_and_a_half = {}\n",
            if self.half_or_more { "half_or_more" } else { "more_than_half" },
            if self.fate_retry { "retry" } else { "once" },
            if self.banner_never { "never" } else { "lowest_when_losing_or_tied" },
            if self.terrain_by_centre { "centre" } else { "any_part" },
            if self.cavalry_mount_gone { "rider_slain_and_mount_gone" } else { "rider_slain" },
            if self.cavalry_roll_each { "roll_each" } else { "one_roll" },
            self.shieldwall,
            self.impact_strength,
            self.weapon.is_some(),
        );
        if let Some((hf, hs, ha, hw, hd, might, fate)) = self.riding {
            t += &format!(
                "[chariot.hero]\nname = \"h\"\nfight = {hf}\nstrength = {hs}\nattacks = {ha}\nwounds = {hw}\n\
                 courage = \"7+\"\nmight = {might}\nwill = 0\nfate = {fate}\ndefence = {hd}\n"
            );
        }
        t += "[charge]\npivots = []\n";
        for (i, (m, n)) in self.groups.iter().enumerate() {
            let hero =
                m.hero.map_or(String::new(), |(might, fate)| format!(", might = {might}, will = 0, fate = {fate}"));
            let mount = m.mount.map_or(String::new(), |(f, s, d, a, w)| {
                format!(", mount = {{ fight = {f}, strength = {s}, defence = {d}, attacks = {a}, wounds = {w} }}")
            });
            let wall = if *n == 3 { ", shield = true, shieldwall = true" } else { "" };
            t += &format!(
                "[[formations]]\nname = \"g{i}\"\ncount = {n}\nranks = 1\nbase = {{ round_mm = {} }}\n\
                 front_centre = [0.0, {}]\nfacing = 180\nprofile = {{ fight = {}, strength = {}, defence = {}, \
                 attacks = {}, wounds = {}, courage = \"7+\"{hero}{mount}{wall} }}\n",
                if m.mount.is_some() { 40 } else { 25 },
                group_y(i),
                m.fight,
                m.strength,
                m.defence,
                m.attacks,
                m.wounds
            );
        }
        if self.banner {
            t += "[[formations]]\nname = \"banner\"\ncount = 1\nranks = 1\nbase = { round_mm = 25 }\n\
                  front_centre = [2.2, 4.5]\nfacing = 180\nbanner = true\nprofile = { fight = 3, strength = 3, \
                  defence = 4, attacks = 1, wounds = 1, courage = \"7+\" }\n";
        }
        if let Some(y0) = self.terrain_from() {
            t += &format!(
                "[[terrain]]\nname = \"mud\"\nkind = \"difficult\"\npolygon = [[-3.0, {y0}], [3.0, {y0}], [3.0, {}], [-3.0, {}]]\n",
                y0 + 0.2,
                y0 + 0.2
            );
        }
        if self.wall {
            let y = self.wall_y();
            t += &format!("[[terrain]]\nname = \"wall\"\nkind = \"obstacle\"\nfrom = [-3.0, {y}]\nto = [3.0, {y}]\n");
        }
        if let Some((models, casualties)) = self.army {
            t += &format!("[army]\nmodels = {models}\ncasualties = {casualties}\n");
        }
        t
    }

    /// The same charge in the oracle's terms.
    fn oracle(&self) -> Charge {
        let (f, s, d, a, w) = self.chariot;
        let riding = self.riding.map(|(_, _, _, wounds, defence, might, fate)| Riding {
            hero: Hero {
                might,
                fate,
                might_in_duel: true,
                might_on_wounds: true,
                might_on_fate: true,
                fate_retry: self.fate_retry,
                fate_use: FateUse::Always,
            },
            wounds,
            defence,
        });
        let (hf, hs, ha) = self.riding.map_or((0, 0, 0), |(hf, hs, ha, ..)| (hf, hs, ha));
        let foe = |m: &Model| Foe {
            hero: m.hero.map(|(might, fate)| oracle::FoeHero {
                might,
                fate,
                might_in_duel: true,
                might_on_wounds: true,
                might_on_fate: true,
                fate_retry: self.fate_retry,
                lethal_only: false,
            }),
            horse: m.mount.map(|(fight, strength, defence, attacks, wounds)| Horse {
                fight,
                strength,
                defence,
                attacks,
                wounds,
            }),
            ..Foe::infantry(m.fight, m.strength, m.defence, m.attacks, m.wounds)
        };
        Charge {
            // The Hero's Fight and Strength where better, his Attacks added, +1 for the charge.
            chariot: Chariot {
                fight: f.max(hf),
                strength: s.max(hs),
                defence: d,
                dice: a + ha + 1,
                wounds: w,
                evil: true,
                two_handed: false,
            },
            riding,
            impact: self.hits.map_or(ImpactDice::D3, ImpactDice::Fixed),
            impact_strength: self.impact_strength,
            groups: self.groups.iter().map(|(m, n)| vec![foe(m); usize::from(*n)]).collect(),
            terrain_before: self.terrain_before,
            terrain_short_of_centre: self.terrain_short_of_centre(),
            terrain_by_centre: self.terrain_by_centre,
            grip: self.weapon.unwrap_or(oracle::Grip::OneHanded),
            banner_nearby: self.banner,
            banner_rerolls: !self.banner_never,
            cavalry_roll_each: self.cavalry_roll_each,
            cavalry_passed_when_mount_gone: self.cavalry_mount_gone,
            walls: self.groups.iter().map(|(_, n)| *n == 3).collect(),
            shieldwall: self.shieldwall,
            wall: self.wall,
            // Move 16 carries the chariot past the last group even through the mud; the
            // wall 1.5" beyond it stops the chariot still over the last group's bases.
            ends_past_everything: !self.wall,
            army: self.army.map(|(models, casualties)| Army { models, casualties, half_or_more: self.half_or_more }),
            rules: DEFAULT_RULES,
        }
    }

    /// The exact engine's answer, in the oracle's terms.
    fn engine(&self) -> BTreeMap<ChargeResult, f64> {
        let text = self.toml();
        let scenario = parse(&text, "oracle-charge").unwrap_or_else(|e| panic!("{e}\n{text}"));
        let plan = compile(&scenario);
        let d = exact::exact(&plan).expect("small charges are exact");
        let mut out = BTreeMap::new();
        for (o, p) in d.outcomes {
            let v = |m: Metric| o.get(m) as u8;
            let r = ChargeResult {
                contacts: v(Metric::Contacts),
                impact_kills: v(Metric::ImpactKills),
                breakthrough: v(Metric::Breakthrough) == 1,
                terrain_wound: v(Metric::TerrainWound) == 1,
                obstacle_struck: v(Metric::ObstacleStruck) == 1,
                fought: v(Metric::FightFought) == 1,
                won: v(Metric::FightWon) == 1,
                fight_kills: v(Metric::FightKills),
                kills: v(Metric::Kills),
                chariot_wounds_lost: v(Metric::ChariotWoundsLost),
                chariot_slain: v(Metric::ChariotSlain) == 1,
                might_spent: v(Metric::MightSpent),
                fate_spent: v(Metric::FateSpent),
                hero_wounds_lost: v(Metric::HeroWoundsLost),
                foe_might_spent: v(Metric::FoeMightSpent),
                foe_fate_spent: v(Metric::FoeFateSpent),
                foe_heroes_slain: v(Metric::FoeHeroesSlain),
                army_broken: v(Metric::ArmyBroken) == 1,
            };
            *out.entry(r).or_default() += p;
        }
        out
    }
}

fn plain(defence: u8, wounds: u8) -> Model {
    Model { fight: 4, strength: 3, defence, attacks: 1, wounds, hero: None, mount: None }
}

/// A column of three groups (one, two, one) into an army of 9 with 2 lost: the whole
/// charge the exact-fraction cases vary.
fn column_charge() -> ChargeCase {
    ChargeCase {
        hits: Some(2),
        impact_strength: 4,
        chariot: (4, 3, 7, 1, 3),
        riding: None,
        groups: vec![(plain(5, 1), 1), (plain(5, 1), 2), (plain(4, 2), 1)],
        terrain_before: None,
        wall: false,
        army: Some((9, 2)),
        half_or_more: true,
        fate_retry: true,
        weapon: None,
        banner: false,
        banner_never: false,
        terrain_by_centre: false,
        cavalry_mount_gone: false,
        cavalry_roll_each: false,
        shieldwall: true,
    }
}

#[test]
fn whole_charges_agree_with_the_oracle_in_exact_fractions() {
    let base = column_charge();
    let cases = vec![
        ("a column and a pair", base.clone()),
        ("odd army, more than half", ChargeCase { half_or_more: false, ..base.clone() }),
        ("D3 hits into mud before the pair", ChargeCase { hits: None, terrain_before: Some(1), ..base.clone() }),
        (
            "mud before the first, a wall after the last",
            ChargeCase { terrain_before: Some(0), wall: true, ..base.clone() },
        ),
        (
            "a King riding into a wall past mud",
            ChargeCase { riding: Some((5, 4, 3, 2, 6, 2, 1)), terrain_before: Some(3), wall: true, ..base.clone() },
        ),
        (
            "a banner beside the drive, the weapon held the way that expects more kills",
            ChargeCase { banner: true, weapon: Some(oracle::Grip::Best), ..base.clone() },
        ),
        (
            "a banner that gives no re-roll, the weapon held two-handed",
            ChargeCase { banner: true, banner_never: true, weapon: Some(oracle::Grip::TwoHanded), ..base.clone() },
        ),
        (
            "mud before the pair, within it by the centre",
            ChargeCase { terrain_before: Some(1), terrain_by_centre: true, ..base.clone() },
        ),
        (
            "mud before a wall, within it by the centre",
            ChargeCase { terrain_before: Some(3), wall: true, terrain_by_centre: true, ..base.clone() },
        ),
        (
            "D3 hits rolled once at a Rider of Rohan behind the column",
            ChargeCase {
                hits: None,
                groups: vec![(plain(5, 1), 1), (Model { mount: Some((0, 1, 4, 1, 1)), ..plain(5, 1) }, 1)],
                ..base.clone()
            },
        ),
        (
            "D3 hits rolled for rider and mount apart; the chariot drives on only past a mount slain or fled",
            ChargeCase {
                hits: None,
                groups: vec![(Model { mount: Some((1, 3, 4, 1, 2)), ..plain(6, 1) }, 2)],
                cavalry_roll_each: true,
                cavalry_mount_gone: true,
                ..base.clone()
            },
        ),
        (
            "a shield wall of three behind the first model, Shieldwall played",
            ChargeCase { groups: vec![(plain(5, 1), 1), (plain(4, 1), 3)], ..base.clone() },
        ),
        (
            "the same wall, Shieldwall not played",
            ChargeCase { groups: vec![(plain(5, 1), 1), (plain(4, 1), 3)], shieldwall: false, ..base.clone() },
        ),
        (
            "an enemy Hero with Fate in the line",
            ChargeCase {
                groups: vec![
                    (plain(5, 1), 1),
                    (
                        Model {
                            fight: 5,
                            strength: 4,
                            defence: 6,
                            attacks: 2,
                            wounds: 2,
                            hero: Some((1, 2)),
                            mount: None,
                        },
                        1,
                    ),
                ],
                ..base.clone()
            },
        ),
    ];
    for (what, case) in cases {
        let exact: BTreeMap<ChargeResult, Ratio> = oracle::charge::charge(&case.oracle());
        let total = exact.values().fold(Ratio(0, 1), |a, b| a + *b);
        assert_eq!(total, Ratio(1, 1), "{what}: the oracle's probabilities add up to exactly 1");
        agree(&case.engine(), &exact, 1e-12).unwrap_or_else(|e| panic!("{what}: {e}\n{}", case.toml()));
    }
}

fn any_model() -> impl Strategy<Value = Model> {
    (1..=6u8, 1..=6u8, 3..=8u8, 1..=2u8, 1..=3u8, prop::option::weighted(0.25, (0..=2u8, 0..=2u8))).prop_map(
        |(fight, strength, defence, attacks, wounds, hero)| Model {
            fight,
            strength,
            defence,
            attacks,
            wounds,
            hero,
            mount: None,
        },
    )
}

fn any_charge() -> impl Strategy<Value = ChargeCase> {
    let chariot = (prop::option::of(1..=3u8), 3..=7u8, (2..=5u8, 2..=5u8, 5..=8u8, 1..=2u8, 1..=4u8));
    let riding = prop::option::weighted(0.4, (3..=6u8, 3..=5u8, 1..=3u8, 1..=3u8, 4..=7u8, 0..=2u8, 0..=2u8));
    // An enemy Hero stands alone in his group (two or three side by side share a profile;
    // three are a shield wall). The last group may be cavalry on 40 mm bases (never a Hero,
    // never three): 1.5" between group fronts leaves room for one such group behind
    // infantry, not for two. The oracle rolls every enemy duel die face by face, so a group
    // of several models has one Attack each (a banner's re-roll makes 6^dice branches).
    let mount = (0..=3u8, 1..=4u8, 3..=6u8, 0..=1u8, 1..=2u8);
    let groups = (prop::collection::vec((any_model(), 1..=3u8), 1..=3), prop::option::weighted(0.4, mount)).prop_map(
        |(gs, mount)| {
            let mut gs: Vec<(Model, u8)> =
                gs.into_iter().map(|(m, n)| (m, if m.hero.is_some() { 1 } else { n })).collect();
            if let (Some(mount), Some(last)) = (mount, gs.last_mut()) {
                *last = (Model { mount: Some(mount), hero: None, ..last.0 }, last.1.min(2));
            }
            for (m, n) in &mut gs {
                if *n > 1 {
                    m.attacks = 1;
                }
            }
            gs
        },
    );
    let setting = (0..=4usize, any::<bool>(), prop::option::of((4..=15u32, 0..=4u32)), any::<bool>(), any::<bool>());
    let readings = (
        prop::option::of(any_grip()),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    );
    (chariot, riding, groups, setting, readings).prop_map(
        |(
            (hits, impact_strength, chariot),
            riding,
            groups,
            (terrain, wall, army, half_or_more, fate_retry),
            (weapon, banner, banner_never, terrain_by_centre, cavalry_mount_gone, cavalry_roll_each, shieldwall),
        )| {
            let terrain_before = (terrain <= groups.len()).then_some(terrain);
            ChargeCase {
                shieldwall,
                cavalry_mount_gone,
                cavalry_roll_each,
                weapon,
                banner,
                banner_never,
                terrain_by_centre,
                hits,
                impact_strength,
                chariot,
                riding,
                groups,
                terrain_before,
                wall,
                army,
                half_or_more,
                fate_retry,
            }
        },
    )
}

proptest! {
    #![proptest_config(support::proptest_config(300, 20_261_203))]

    /// Random whole charges (1-3 contact groups of one or two models, enemy Heroes with
    /// Might and Fate, cavalry last, fixed or D3 Impact Hits, mud anywhere along the drive, a
    /// wall at the end, a riding Hero, a banner beside the drive, a hand-and-a-half weapon,
    /// every reading of the Break Point, Fate, the grip, the banner, the terrain measure and
    /// cavalry's hits and passing): the exact engine equals the oracle to 1e-10 on every joint
    /// outcome.
    #[test]
    fn random_whole_charges_agree_with_the_oracle(case in any_charge()) {
        let expected: BTreeMap<ChargeResult, f64> = oracle::charge::charge(&case.oracle());
        let got = case.engine();
        let verdict = agree(&got, &expected, FLOAT_TOLERANCE);
        prop_assert!(verdict.is_ok(), "{:?}\n{}", verdict, case.toml());
    }
}

// ---------------------------------------------------------------------------------------
// BATTLESYSTEM charges: volleys, the melee both ways and the target's morale, the oracle
// (`oracle::battlesystem`) against the exact joint distribution.

use oracle::battlesystem::{BsCharge, BsResult, BsRules, Crew, DRIVER, Doubles, Table};

/// A BATTLESYSTEM charge case: platforms 2" x 3" side by side (a quarter inch off the
/// target's centre line) 10" from a single rank of 1" bases, so the archers shoot at 10"
/// and 5" and the figures in contact can be counted from the layout.
#[derive(Clone, Debug)]
struct BsCase {
    platforms: u32,
    platform: (u32, u32, u32),
    /// Fighters (count, die) and archers (count, die) per platform.
    fighters: (u32, u32),
    archers: (u32, u32),
    /// Fighters' and archers' (AR, Hits).
    crew_armour: (u32, u32),
    /// The target: figures (one rank), die, AR, Hits, ML.
    target: (u32, u32, u32, u32, u32),
    rules: BsRules,
}

const BS_BANDS: [(f64, f64, u32); 2] = [(0.0, 7.0, 100), (7.0, 14.0, 50)];

impl BsCase {
    fn toml(&self) -> String {
        let (pd, par, ph) = self.platform;
        let (tf, td, tar, th, tml) = self.target;
        let mut crew = vec![format!(
            "{{ name = \"Driver\", role = \"rider\", ad = \"d4\", ar = {}, hits = {} }}",
            DRIVER.0, DRIVER.1
        )];
        let (car, chits) = self.crew_armour;
        if self.fighters.0 > 0 {
            crew.push(format!(
                "{{ name = \"Spears\", role = \"fighter\", count = {}, ad = \"d{}\", ar = {car}, hits = {chits} }}",
                self.fighters.0, self.fighters.1
            ));
        }
        if self.archers.0 > 0 {
            crew.push(format!(
                "{{ name = \"Bows\", role = \"archer\", count = {}, ad = \"d{}\", ar = {car}, hits = {chits}, range_bands = [[0, 7, 1.0], [7, 14, 0.5]] }}",
                self.archers.0, self.archers.1
            ));
        }
        let r = &self.rules;
        let doubles = match r.doubles {
            Doubles::Crew => "crew",
            Doubles::Platform => "platform",
            Doubles::Both => "both",
            Doubles::Nothing => "none",
        };
        format!(
            "title = \"oracle\"\nsystem = \"battlesystem\"\n[board]\nwidth = 48\ndepth = 48\n\
             [rules]\narmour_roll = \"{}\"\nplatform_roll = \"{}\"\ncharge_doubles = \"{doubles}\"\n\
             platform_attacks_alone = {}\nplatform_hits = \"{}\"\nmelee_contact = \"{}\"\ndriver_only = \"{}\"\n\
             hits_table = {:?}\nmorale_rout_margin = {}\n\
             [[units]]\nname = \"Chariots\"\nside = \"a\"\nfigures = {p}\nfrontage = {p}\nat = [24.25, 10.0]\nfacing = 0\n\
             base = [2.0, 3.0]\nstats = {{ ad = \"d{pd}\", ar = {par}, hits = {ph}, ml = 14, mv = 12 }}\ncrew = [{}]\n\
             [[units]]\nname = \"Line\"\nside = \"b\"\nfigures = {tf}\nfrontage = {tf}\nat = [24.0, 22.0]\nfacing = 180\n\
             stats = {{ ad = \"d{td}\", ar = {tar}, hits = {th}, ml = {tml}, mv = 6 }}\n\
             [charge]\nunit = \"Chariots\"\ntarget = \"Line\"\nvolleys = {}\n",
            if self.rules.armour_or_equal { "greater_or_equal" } else { "greater" },
            if self.rules.platform_per_die { "per_die" } else { "shared" },
            r.platform_attacks_alone,
            if r.crew_first { "crew_first" } else { "platform_first" },
            if r.whole_front_rank { "whole_front_rank" } else { "figures_in_contact" },
            if r.driver_only_refused { "refused" } else { "platform_ad" },
            r.table.bands(),
            r.rout_margin,
            crew.join(", "),
            if self.archers.0 > 0 { 2 } else { 0 },
            p = self.platforms,
        )
    }

    fn oracle(&self) -> BsCharge {
        let (pd, par, ph) = self.platform;
        let (tf, td, tar, th, tml) = self.target;
        // The contact stretch is the overlap of the two fronts (the chariots' block spans
        // 24.25 -/+ the platforms' width, the line 24 -/+ half its figures); the line puts in
        // as many 1" bases as cover it, a part of a base counting (docs/battlesystem.md, 2).
        let (lo, hi) = (24.25 - f64::from(self.platforms), 24.25 + f64::from(self.platforms));
        let half = f64::from(tf) / 2.0;
        let stretch = hi.min(24.0 + half) - lo.max(24.0 - half);
        let touching = (stretch - 1e-9).ceil() as u32;
        // The charger's platforms (2" wide) it takes to cover the same stretch.
        let platforms_touching = ((stretch - 1e-9) / 2.0).ceil() as u32;
        let (ar, hits) = self.crew_armour;
        let mut crew = Vec::new();
        if self.fighters.0 > 0 {
            crew.push(Crew { count: self.fighters.0, die: self.fighters.1, fights: true, ar, hits, bands: Vec::new() });
        }
        if self.archers.0 > 0 {
            let bands = BS_BANDS.to_vec();
            crew.push(Crew { count: self.archers.0, die: self.archers.1, fights: true, ar, hits, bands });
        }
        BsCharge {
            platforms: self.platforms,
            platform_die: pd,
            platform_ar: par,
            platform_hits: ph,
            crew,
            target_figures: tf,
            target_die: td,
            target_ar: tar,
            target_hits: th,
            target_ml: tml,
            volleys: if self.archers.0 > 0 { 2 } else { 0 },
            // The chariots' front at 11.5", the line's at 21.5".
            gap: 10.0,
            platforms_in_contact: platforms_touching.min(self.platforms),
            target_in_contact: touching.min(tf),
            rules: self.rules,
        }
    }

    /// The engine's exact joint distribution, or its refusal's message.
    fn engine(&self) -> Result<BTreeMap<BsResult, f64>, String> {
        let text = self.toml();
        let scenario = charioteer::battlesystem::scenario::parse(&text, "oracle.toml").map_err(|e| e.to_string())?;
        let plan = charioteer::battlesystem::resolve::compile(&scenario);
        let joint = charioteer::battlesystem::exact::charge_joint(&plan).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let at = |name: &str| plan.metrics.index(name).unwrap_or_else(|| panic!("no metric {name}"));
        let names = [
            "volley_hits",
            "volley_kills",
            "hits_on_target",
            "target_figures_lost",
            "hits_on_charger",
            "platform_figures_lost",
            "crew_lost",
            "target_morale",
            "charger_destroyed",
        ];
        let slots: Vec<usize> = names.iter().map(|n| at(n)).collect();
        let mut out = BTreeMap::new();
        for (values, p) in joint.outcomes {
            let v: Vec<u32> = slots.iter().map(|&s| u32::from(values[s])).collect();
            let r = BsResult {
                volley_hits: v[0],
                volley_kills: v[1],
                hits_on_target: v[2],
                target_figures_lost: v[3],
                hits_on_charger: v[4],
                platform_figures_lost: v[5],
                crew_lost: v[6],
                target_morale: v[7],
                charger_destroyed: v[8] == 1,
            };
            *out.entry(r).or_default() += p;
        }
        Ok(out)
    }

    /// The engine against the oracle: both refuse, or the distributions agree.
    fn check(&self) -> Result<(), String> {
        let oracle = self.oracle();
        match (self.rules.refuses(&oracle), self.engine()) {
            (Some(_), Err(_)) => Ok(()),
            (Some(why), Ok(_)) => Err(format!("the engine ran a charge the rules refuse ({why})")),
            (None, Err(e)) => Err(format!("the engine refused: {e}")),
            (None, Ok(got)) => {
                let expected = oracle::battlesystem::charge(&oracle);
                let total: f64 = expected.values().sum();
                if (total - 1.0).abs() > 1e-12 {
                    return Err(format!("the oracle's total {total}"));
                }
                agree(&got, &expected, FLOAT_TOLERANCE)
            }
        }
    }
}

const BS_DEFAULT: BsRules = BsRules {
    armour_or_equal: false,
    platform_per_die: false,
    doubles: Doubles::Both,
    platform_attacks_alone: false,
    crew_first: false,
    whole_front_rank: false,
    driver_only_refused: false,
    table: Table::DEFAULT,
    rout_margin: 5,
};

/// One chariot with a spearman and two bowmen charging eight spearmen, under the default
/// rules: the case the others vary.
const ONE_CHARIOT: BsCase = BsCase {
    platforms: 1,
    platform: (8, 6, 3),
    fighters: (1, 6),
    archers: (2, 6),
    crew_armour: (6, 1),
    target: (8, 6, 7, 1, 12),
    rules: BS_DEFAULT,
};

#[test]
fn battlesystem_charges_agree_with_the_oracle() {
    let base = ONE_CHARIOT;
    let cases = [
        ("one chariot, a spearman and two bowmen", base.clone()),
        ("two chariots abreast, two-Hit figures", BsCase { platforms: 2, target: (9, 8, 5, 2, 10), ..base.clone() }),
        (
            "no archers, armour on an equal roll",
            BsCase { archers: (0, 6), rules: BsRules { armour_or_equal: true, ..BS_DEFAULT }, ..base.clone() },
        ),
        (
            "a platform die per crew die, not doubled",
            BsCase {
                rules: BsRules { platform_per_die: true, doubles: Doubles::Nothing, ..BS_DEFAULT },
                ..base.clone()
            },
        ),
        (
            "the platform attacks on its own too, only its own dice doubled",
            BsCase {
                rules: BsRules { platform_attacks_alone: true, doubles: Doubles::Platform, ..BS_DEFAULT },
                ..base.clone()
            },
        ),
        (
            "hits on the chariots fall on the crew first",
            BsCase { crew_armour: (3, 2), rules: BsRules { crew_first: true, ..BS_DEFAULT }, ..base.clone() },
        ),
        (
            "two chariots at a two-figure line: one in contact, or the whole front rank",
            BsCase {
                platforms: 2,
                target: (2, 6, 5, 2, 12),
                archers: (0, 6),
                rules: BsRules { whole_front_rank: true, ..BS_DEFAULT },
                ..base.clone()
            },
        ),
        (
            "only the driver aboard, the platform's own die doubled",
            BsCase { fighters: (0, 6), archers: (0, 6), ..base.clone() },
        ),
        (
            "a hits table of threes from 4, a rout at a margin of 3",
            BsCase {
                rules: BsRules { table: Table { from: 4, step: 3 }, rout_margin: 3, ..BS_DEFAULT },
                ..base.clone()
            },
        ),
        (
            "three archers (a half multiplier rounds 1.5 up)",
            BsCase { fighters: (0, 6), archers: (3, 8), target: (7, 4, 9, 1, 15), ..base.clone() },
        ),
    ];
    for (what, case) in cases {
        assert!(case.rules.refuses(&case.oracle()).is_none(), "{what}: a case the rules allow");
        case.check().unwrap_or_else(|e| panic!("{what}: {e}\n{}", case.toml()));
    }
    // Refused by name: doubling a platform's own dice it does not roll, and a driver alone
    // where that is refused.
    let refused = [
        BsCase { rules: BsRules { doubles: Doubles::Platform, ..BS_DEFAULT }, ..base.clone() },
        BsCase {
            fighters: (0, 6),
            archers: (0, 6),
            rules: BsRules { driver_only_refused: true, ..BS_DEFAULT },
            ..base
        },
    ];
    for case in refused {
        assert!(case.rules.refuses(&case.oracle()).is_some());
        case.check().unwrap_or_else(|e| panic!("{e}\n{}", case.toml()));
    }
}

fn any_bs_case() -> impl Strategy<Value = BsCase> {
    let die = |options: &'static [u32]| prop::sample::select(options);
    let charger = (
        1..=2u32,
        (die(&[4, 6, 8, 10, 12]), 3..=8u32, 1..=6u32),
        (0..=2u32, die(&[4, 6, 8])),
        (0..=3u32, die(&[6, 8])),
        (3..=8u32, 1..=2u32),
    );
    let target = (1..=10u32, die(&[4, 6, 8]), 3..=9u32, 1..=2u32, 6..=18u32);
    let doubles = prop::sample::select(&[Doubles::Crew, Doubles::Platform, Doubles::Both, Doubles::Nothing][..]);
    // The reference's table half the time, else one of even steps; a rout margin of 2-8.
    let tables = prop::sample::select(
        &[
            Table::DEFAULT,
            Table::DEFAULT,
            Table { from: 4, step: 3 },
            Table { from: 6, step: 5 },
            Table { from: 3, step: 2 },
        ][..],
    );
    let flags = (any::<bool>(), any::<bool>(), doubles, any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>());
    let rules = (flags, tables, 2..=8u32).prop_map(
        |(
            (
                armour_or_equal,
                platform_per_die,
                doubles,
                platform_attacks_alone,
                crew_first,
                whole_front_rank,
                driver_only_refused,
            ),
            table,
            rout_margin,
        )| BsRules {
            armour_or_equal,
            platform_per_die,
            doubles,
            platform_attacks_alone,
            crew_first,
            whole_front_rank,
            driver_only_refused,
            table,
            rout_margin,
        },
    );
    (charger, target, rules).prop_map(|((platforms, platform, fighters, archers, crew_armour), target, rules)| BsCase {
        platforms,
        platform,
        fighters,
        archers,
        crew_armour,
        target,
        rules,
    })
}

proptest! {
    #![proptest_config(support::proptest_config(200, 20_261_204))]

    /// Random BATTLESYSTEM charges (one or two platforms; fighters, archers, or only the
    /// driver aboard; every armour, platform-roll and doubling reading; targets of one- and
    /// two-Hit figures): the exact joint distribution equals the oracle's to 1e-10.
    #[test]
    fn random_battlesystem_charges_agree_with_the_oracle(case in any_bs_case()) {
        let verdict = case.check();
        prop_assert!(verdict.is_ok(), "{:?}\n{}", verdict, case.toml());
    }
}

/// The routing example replayed: in each trial's first melee (both units still whole) the
/// figures in contact are what the geometry gave; given them, the hits and losses both ways
/// have the oracle's distribution, and the struck unit's morale check the oracle's odds.
/// Monte Carlo, since a rout has no exact engine: every mean within 5 of the oracle's
/// standard errors, on 40,000 pinned replays.
#[test]
fn a_routs_trampling_melee_and_the_struck_units_morale_agree_with_the_oracle() {
    routs_agree_with_the_oracle("", 4.0, None, 40_000);
}

/// The same routing example with a fall back of 3" and every rout 10" (the beasts' too),
/// so `fall_back_inches` and `rout_distance` are read from the file and not only at their
/// defaults.
#[test]
fn a_rout_under_other_distances_pushes_the_struck_units_as_far_as_the_file_says() {
    routs_agree_with_the_oracle("fall_back_inches = 3\nrout_distance = 10\n", 3.0, Some(10.0), 20_000);
}

/// Replays `trials` trials of the routing example with `rules` added to its `[rules]`: in
/// each first melee the hits and losses both ways have the oracle's means, the struck
/// unit's morale the oracle's odds, and its push is none when it held, `fall_back` when it
/// fell back and `rout` (default: its MV) when it routed, shorter only when something is
/// in the way.
fn routs_agree_with_the_oracle(rules: &str, fall_back: f64, rout: Option<f64>, trials: u64) {
    use charioteer::battlesystem::resolve::BattlesystemEvent as E;
    let file = "scenarios/battlesystem/routing-elephants-in-battle-line.toml";
    let text = std::fs::read_to_string(file)
        .expect("the example is readable")
        .replace("[rules]\n", &format!("[rules]\n{rules}"));
    let scenario = charioteer::battlesystem::scenario::parse(&text, file).expect("the example loads");
    let plan = charioteer::battlesystem::resolve::compile(&scenario);
    let streams = charioteer::mesbg::resolve::Streams::new(scenario.seed, scenario.hash());
    let units = &scenario.units;
    let side_of = |u: usize, in_contact: u32| oracle::battlesystem::Side {
        in_contact,
        figures: units[u].figures,
        die: units[u].stats.ad.pmf().len() as u32 - 1,
        ar: units[u].stats.ar,
        hits: units[u].stats.hits,
    };
    // (defender, beasts in contact, defenders in contact) -> the exchanges seen.
    let mut melees: BTreeMap<(usize, u32, u32), Vec<[u32; 4]>> = BTreeMap::new();
    // defender -> morale results after a first melee it survived.
    let mut checks: BTreeMap<usize, [u64; 3]> = BTreeMap::new();
    // Pushes cut short by another unit or the edge, and pushes of the whole distance.
    let mut pushes = [0u64; 2];
    for trial in 0..trials {
        let events = charioteer::battlesystem::resolve::replay(&plan, streams, trial).1;
        let Some(i) = events.iter().position(|e| matches!(e, E::Melee { .. })) else { continue };
        let E::Melee {
            attacker,
            defender,
            attacker_figures,
            defender_figures,
            hits_on_defender,
            hits_on_attacker,
            defender_lost,
            attacker_lost,
        } = events[i].clone()
        else {
            unreachable!()
        };
        assert_eq!(attacker, 0, "the elephants are the first unit");
        melees.entry((defender, attacker_figures, defender_figures)).or_default().push([
            hits_on_defender,
            defender_lost,
            hits_on_attacker,
            attacker_lost,
        ]);
        if defender_lost < units[defender].figures {
            let (j, result) = events[i + 1..]
                .iter()
                .enumerate()
                .find_map(|(j, e)| match e {
                    E::Morale { unit, result, .. } if *unit == defender => Some((i + 1 + j, *result as usize)),
                    _ => None,
                })
                .expect("a struck unit that survives checks its morale");
            checks.entry(defender).or_default()[result] += 1;
            // The push: none when it held; back `fall_back` when it fell back and its rout
            // distance (its MV unless the file says) when it routed, shorter only when
            // another unit or the edge is in the way; the gap to the beasts never shrinks.
            let before_the_next_move =
                events[j + 1..].iter().take_while(|e| !matches!(e, E::Move { .. } | E::Melee { .. }));
            let push = before_the_next_move.into_iter().find_map(|e| match e {
                E::Displaced { unit, distance, gap_before, gap_after, off_board, .. } if *unit == defender => {
                    Some((*distance, *gap_before, *gap_after, *off_board))
                }
                _ => None,
            });
            let full = [0.0, fall_back, rout.unwrap_or(units[defender].stats.mv)][result];
            match push {
                None => {
                    assert_eq!(result, 0, "trial {trial}: {} fell back or routed without moving", units[defender].name)
                }
                Some((distance, before, after, off_board)) => {
                    assert!(result > 0, "trial {trial}: {} held but moved", units[defender].name);
                    assert!(distance <= full + 1e-9, "trial {trial}: pushed {distance}\" of {full}\"");
                    assert!(off_board || after.is_some_and(|a| a >= before - 1e-9), "trial {trial}: the gap shrank");
                    pushes[usize::from((distance - full).abs() < 1e-9)] += 1;
                }
            }
        }
    }
    // Most pushes go their whole distance on this open board.
    assert!(pushes[1] > 9 * pushes[0], "whole pushes {} v shortened {}", pushes[1], pushes[0]);
    let mut compared = 0;
    for (&(defender, a, d), seen) in &melees {
        if seen.len() < 300 {
            continue;
        }
        let expected = oracle::battlesystem::rout_melee(side_of(0, a), side_of(defender, d), false);
        let n = seen.len() as f64;
        for (k, name) in
            ["hits on the struck unit", "its figures lost", "hits on the beasts", "beasts lost"].iter().enumerate()
        {
            let value = |e: &oracle::battlesystem::Exchange| {
                f64::from([e.hits_on_struck, e.struck_lost, e.hits_on_beasts, e.beasts_lost][k])
            };
            let mean: f64 = expected.iter().map(|(e, p)| value(e) * p).sum();
            let var: f64 = expected.iter().map(|(e, p)| (value(e) - mean).powi(2) * p).sum();
            let got = seen.iter().map(|s| f64::from(s[k])).sum::<f64>() / n;
            let bound = 5.0 * (var / n).sqrt() + 1e-9;
            assert!(
                (got - mean).abs() <= bound,
                "{} ({a} beasts v {d} in contact): {name} {got} v oracle {mean} (+/- {bound})",
                units[defender].name
            );
        }
        compared += 1;
    }
    assert!(compared >= 3, "at least three contact layouts met often enough: {compared}");
    for (&defender, counts) in &checks {
        let n = counts.iter().sum::<u64>() as f64;
        let odds = oracle::battlesystem::morale_odds(units[defender].stats.ml);
        for k in 0..3 {
            let se = (odds[k] * (1.0 - odds[k]) / n).sqrt();
            let got = counts[k] as f64 / n;
            assert!(
                (got - odds[k]).abs() <= 5.0 * se + 1e-9,
                "{}: morale result {k} {got} v oracle {} over {n}",
                units[defender].name,
                odds[k]
            );
        }
    }
}

/// A BATTLESYSTEM piece priced against a matchup set of two target units (#34 item 7): each
/// line's fair price is the reference's price x the ratio of the figures each slays there
/// (every figure of a line is worth the same), with the mean figures slain taken from the
/// oracle, not the engine.
#[test]
fn a_battlesystem_price_across_a_matchup_set_follows_the_oracles_means() {
    let with_points = |case: &BsCase, points: u32| {
        case.toml().replace("mv = 12 }\ncrew", &format!("mv = 12 }}\npoints = {points}\ncrew"))
    };
    // The priced piece: one chariot, a spearman and two bowmen; the reference: the same
    // chariot with a spearman only, at 40 points.
    let a = ONE_CHARIOT;
    let b = BsCase { archers: (0, 6), ..a.clone() };
    // Two lines where the case puts its own (the line's centre 12" ahead, a quarter inch to
    // the chariot's left), each one rank of 1" bases, as the case's oracle counts contact.
    let lines = [("Eight spearmen", (8, 6, 7, 1, 12), 6, 1.0), ("Nine veterans", (9, 8, 5, 2, 10), 10, 3.0)];
    let mut set = String::from("title = \"Two units\"\n");
    for (name, (figures, die, ar, hits, ml), points, weight) in lines {
        set.push_str(&format!(
            "\n[[lines]]\nname = \"{name}\"\nweight = {weight}\ntarget = \"Line\"\n[[lines.units]]\nname = \"Line\"\n\
             figures = {figures}\nfrontage = {figures}\nat = [-0.25, 12.0]\nfacing = 180\n\
             stats = {{ ad = \"d{die}\", ar = {ar}, hits = {hits}, ml = {ml}, mv = 6 }}\npoints = {points}\n"
        ));
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.toml"), with_points(&a, 50)).unwrap();
    std::fs::write(dir.path().join("b.toml"), with_points(&b, 40)).unwrap();
    std::fs::write(dir.path().join("set.toml"), &set).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["balance", "a.toml", "--against", "b.toml", "--matchups", "set.toml", "--trials", "400000", "--json"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mean_slain = |case: &BsCase, target| {
        let c = BsCase { target, ..case.clone() };
        oracle::battlesystem::charge(&c.oracle()).iter().map(|(r, p)| f64::from(r.target_figures_lost) * p).sum::<f64>()
    };
    let m = json["matchups"].as_array().expect("matchups");
    assert_eq!(m.len(), 2, "{json}");
    // The field priced as one: 40 x the piece's worth weighted over the lines, over the
    // reference's (each line's figures at its own points).
    let (mut piece, mut reference) = (0.0, 0.0);
    for (row, (name, target, points, weight)) in m.iter().zip(lines) {
        assert_eq!(row["reference"], name);
        let want = 40.0 * mean_slain(&a, target) / mean_slain(&b, target);
        let (got, se) = (row["fair"]["fair_price"].as_f64().unwrap(), row["fair"]["fair_price_se"].as_f64().unwrap());
        assert!((got - want).abs() < 5.0 * se, "{name}: {got:.3} (se {se:.3}), the oracle's {want:.3}");
        piece += weight * f64::from(points) * mean_slain(&a, target);
        reference += weight * f64::from(points) * mean_slain(&b, target);
    }
    let overall = 40.0 * piece / reference;
    let got = json["fair"]["fair_price"].as_f64().unwrap();
    let (lo, hi) =
        (json["spread"]["sampling_ci95"][0].as_f64().unwrap(), json["spread"]["sampling_ci95"][1].as_f64().unwrap());
    assert!((got - overall).abs() < 5.0 * (hi - lo) / 3.92, "overall {got:.3}, the oracle's {overall:.3}");
    // A MESBG chariot cannot charge a set of units, and says so.
    let mesbg = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/mesbg/khandish-vs-minas-tirith.toml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["balance", mesbg.to_str().unwrap(), "--against", mesbg.to_str().unwrap(), "--matchups", "set.toml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a set of BATTLESYSTEM units"), "{err}");
}

/// The BATTLESYSTEM `[rules]` options the oracle's random charges draw
/// (`random_battlesystem_charges_agree_with_the_oracle`), each written into every case's file.
const BS_DRAWN: [&str; 9] = [
    "hits_table",
    "morale_rout_margin",
    "armour_roll",
    "platform_roll",
    "platform_attacks_alone",
    "charge_doubles",
    "platform_hits",
    "melee_contact",
    "driver_only",
];

/// The BATTLESYSTEM options the rout tests set away from their defaults, checking the
/// struck units' pushes against them (`a_rout_under_other_distances_pushes_the_struck_units_as_far_as_the_file_says`).
const BS_ROUT_DRAWN: [&str; 2] = ["fall_back_inches", "rout_distance"];

/// The BATTLESYSTEM options the oracle does not draw yet, each with why. A new option must
/// join one of the two lists, so none is added without a word on its oracle.
const BS_NOT_DRAWN: [(&str, &str); 5] = [
    ("veer_degrees", "a rout's path: geometry the oracle does not follow"),
    ("veer_step_degrees", "a rout's path: geometry the oracle does not follow"),
    ("max_rerolls", "a rout's path: geometry the oracle does not follow"),
    ("veer", "a rout's path: geometry the oracle does not follow"),
    ("struck_unit_moves", "a rout's displacement: geometry the oracle does not follow"),
];

/// The MESBG `[rules]` options the oracle's random fights and charges draw
/// (`random_fights_agree_with_the_oracle`, `random_helped_fights_agree_with_the_oracle`,
/// `random_whole_charges_agree_with_the_oracle`).
const MESBG_DRAWN: [&str; 13] = [
    "shieldwall",
    "cavalry_passed_when",
    "cavalry_impact_hits",
    "grip",
    "banner_reroll",
    "difficult_terrain_measure",
    "fate",
    "might_on_fate",
    "strike_split",
    "strike_allocation",
    "prone_counts_as_trapped",
    "break_point",
    "supporter_fight_counts",
];

/// The MESBG options among [`MESBG_DRAWN`] the random fights draw in the fight's own terms.
const MESBG_FIGHT_DRAWN: [&str; 5] =
    ["might_on_fate", "strike_split", "strike_allocation", "prone_counts_as_trapped", "supporter_fight_counts"];

/// The MESBG options (`[rules]` and `[turn]`) the oracle does not draw yet, each with why.
const MESBG_NOT_DRAWN: [(&str, &str); 3] = [
    ("turn.fight_order", "the oracle follows a single charge; turns are checked by hand in tests/rules/turn.rs"),
    ("turn.strike_order", "the oracle follows a single charge; turns are checked by hand in tests/rules/turn.rs"),
    ("turn.corridor_width", "the oracle follows a single charge; turns are checked by hand in tests/rules/turn.rs"),
];

#[test]
fn every_rule_option_is_drawn_by_the_oracle_or_named_as_not_yet() {
    let check = |system: &str, names: Vec<String>, drawn: &[&str], not_drawn: &[(&str, &str)]| {
        for name in &names {
            let listed = drawn.contains(&name.as_str()) || not_drawn.iter().any(|(n, _)| n == name);
            assert!(listed, "{system} option `{name}` is neither drawn by the oracle's generator nor named as not yet");
        }
        for name in drawn.iter().chain(not_drawn.iter().map(|(n, _)| n)) {
            assert!(names.iter().any(|n| n == name), "{system}: `{name}` is listed but is no option: {names:?}");
        }
    };
    let bs: Vec<String> = charioteer::battlesystem::scenario::BattlesystemRules::default()
        .ruleset()
        .into_iter()
        .map(|o| o.name.to_string())
        .collect();
    let bs_drawn: Vec<&str> = BS_DRAWN.iter().chain(&BS_ROUT_DRAWN).copied().collect();
    check("BATTLESYSTEM", bs, &bs_drawn, &BS_NOT_DRAWN);
    let mesbg: Vec<String> = charioteer::mesbg::scenario::MesbgRules::default()
        .options()
        .into_iter()
        .chain(charioteer::mesbg::scenario::TurnRules::default().options())
        .map(|o| o.name.to_string())
        .collect();
    check("MESBG", mesbg, &MESBG_DRAWN, &MESBG_NOT_DRAWN);
    // Every option drawn for BATTLESYSTEM is written into a random case's file.
    let toml = ONE_CHARIOT.toml();
    for name in BS_DRAWN {
        assert!(toml.contains(&format!("{name} = ")), "`{name}` is not written into the case:\n{toml}");
    }
    // So is every MESBG option the whole charges draw (the rest reach the engine's fight in
    // its own terms, `engine_with`).
    let toml = column_charge().toml();
    for name in MESBG_DRAWN.iter().filter(|n| !MESBG_FIGHT_DRAWN.contains(n)) {
        assert!(toml.contains(&format!("\n{name} = ")), "`{name}` is not written into the charge:\n{toml}");
    }
}

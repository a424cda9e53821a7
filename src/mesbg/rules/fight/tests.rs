//! The fight's tests: strikes, prevention, declared splits and whole-fight distributions derived by hand.

use super::*;

fn saves(rule: FateRule, might_on_fate: bool) -> Saves {
    Saves { fate_rule: rule, fate_policy: FatePolicy::ChariotThenHero, might_on_fate, might_on_terrain: true }
}

fn p_prevented(d: &[(Prevention, f64)]) -> f64 {
    d.iter().filter(|(x, _)| x.prevented).map(|x| x.1).sum()
}

#[test]
fn fate_is_retried_until_it_saves_or_runs_out() {
    let on = WoundOn::Chariot { wounds_left: 3 };
    // By hand: each Fate roll saves with 1/2, so k points retried save 1 - (1/2)^k;
    // once, 1/2 whatever is left.
    for fate in 0..=3u8 {
        let retry = prevention_distribution(saves(FateRule::Retry, false), on, fate, 0);
        assert!((p_prevented(&retry) - (1.0 - 0.5f64.powi(i32::from(fate)))).abs() < 1e-15, "{fate}");
        let once = prevention_distribution(saves(FateRule::Once, false), on, fate, 0);
        let expect = if fate == 0 { 0.0 } else { 0.5 };
        assert!((p_prevented(&once) - expect).abs() < 1e-15);
    }
    // Two Fate points retried: one spent with 1/2, two with 1/2 (saved or not).
    let d = prevention_distribution(saves(FateRule::Retry, false), on, 2, 0);
    let spent = |k: u8| d.iter().filter(|(x, _)| x.fate_spent == k).map(|x| x.1).sum::<f64>();
    assert!((spent(1) - 0.5).abs() < 1e-15 && (spent(2) - 0.5).abs() < 1e-15);
}

#[test]
fn might_raises_the_last_failed_fate_roll() {
    let on = WoundOn::Chariot { wounds_left: 3 };
    // One Fate point, one Might: saved on 3+ (4/6); Might spent only on a 3 (1/6).
    let d = prevention_distribution(saves(FateRule::Retry, true), on, 1, 1);
    assert!((p_prevented(&d) - 4.0 / 6.0).abs() < 1e-15);
    let might: f64 = d.iter().filter(|(x, _)| x.might_spent == 1).map(|x| x.1).sum();
    assert!((might - 1.0 / 6.0).abs() < 1e-15);
    // Two Fate retried and 3 Might: the first roll fails (1/2), the second fails
    // (1/2), and Might covers any face: 1 - 0 = saved always.
    let d = prevention_distribution(saves(FateRule::Retry, true), on, 2, 3);
    assert!((p_prevented(&d) - 1.0).abs() < 1e-15);
    // Might is not spent on the first failure while Fate is left.
    assert!(d.iter().all(|(x, _)| x.might_spent == 0 || x.fate_spent == 2));
}

#[test]
fn fate_policies_pick_their_wounds() {
    let chariot = |w| WoundOn::Chariot { wounds_left: w };
    assert!(fate_allowed(FatePolicy::ChariotThenHero, chariot(3)));
    assert!(!fate_allowed(FatePolicy::LethalOnly, chariot(2)));
    assert!(fate_allowed(FatePolicy::LethalOnly, chariot(1)));
    assert!(!fate_allowed(FatePolicy::HeroOnly, chariot(1)));
    assert!(fate_allowed(FatePolicy::HeroOnly, WoundOn::Hero { wounds_left: 2 }));
    assert!(!fate_allowed(FatePolicy::LethalOnly, WoundOn::Hero { wounds_left: 2 }));
}

#[test]
fn a_trapped_strike_spends_might_only_where_it_matters() {
    // Needs 4+, Trapped, one Wound left, 2 Might. By hand over the 36 pairs of dice:
    // a Wound unless both dice fail beyond reach; Might is spent only when both fail,
    // on the higher die: cost 4 - max. P(both < 4) = 9/36; of those max = 3 (5 pairs,
    // cost 1), max = 2 (3 pairs, cost 2), max = 1 (1 pair, cost 3 > 2: no Wound).
    let d = strike_distribution(WoundRoll::Needs(4), true, 1, 2);
    let get = |w: u8, m: u8| d.iter().filter(|((x, y), _)| *x == w && *y == m).map(|x| x.1).sum::<f64>();
    assert!((get(1, 0) - 27.0 / 36.0).abs() < 1e-15);
    assert!((get(1, 1) - 5.0 / 36.0).abs() < 1e-15);
    assert!((get(1, 2) - 3.0 / 36.0).abs() < 1e-15);
    assert!((get(0, 0) - 1.0 / 36.0).abs() < 1e-15);
    // Two Wounds left: both failures may be turned, cheapest first.
    let mut faces = [3u8, 2].into_iter();
    assert_eq!(settle_strike(WoundRoll::Needs(4), true, 2, 3, || faces.next().unwrap()), (2, 3));
    let mut faces = [3u8, 2].into_iter();
    assert_eq!(settle_strike(WoundRoll::Needs(4), true, 2, 2, || faces.next().unwrap()), (1, 1));
    // A success on one die and a slain target: nothing spent on the other.
    let mut faces = [5u8, 1].into_iter();
    assert_eq!(settle_strike(WoundRoll::Needs(4), true, 1, 6, || faces.next().unwrap()), (1, 0));
}

#[test]
fn five_strikes_at_two_warriors_split_three_and_two() {
    let t = SplitTarget::plain(WoundRoll::Needs(5), false, 1, true);
    assert_eq!(declared_split(5, &[t, t]), vec![3, 2]);
    assert_eq!(declared_split(2, &[t, t, t]), vec![1, 1, 0]);
    // A target that cannot be wounded gets nothing while another can be.
    let rock = SplitTarget { roll: WoundRoll::Impossible, ..t };
    assert_eq!(declared_split(3, &[rock, t]), vec![0, 3]);
    // A model already slain gets none.
    let dead = SplitTarget { wounds_left: 0, ..t };
    assert_eq!(declared_split(3, &[dead, t]), vec![0, 3]);
    assert_eq!(declared_split(3, &[dead]), vec![0]);
    // A 3-Wound troll beside a warrior: kill chances decide. One Strike at a Needs(5)
    // troll never kills it; the warrior gets at least one.
    let troll = SplitTarget { wounds_left: 3, roll: WoundRoll::Needs(6), ..t };
    let split = declared_split(2, &[troll, t]);
    assert_eq!(split, vec![0, 2]);
    assert_eq!(declared_order(&[2, 1]), vec![0, 0, 1]);
}

#[test]
fn fight_distribution_of_a_single_warrior() {
    // By hand: chariot F4 with 2 dice against one F4 warrior (Good wins the roll-off
    // half the time): P(win) = 143/216. Won: 2 Strikes, Trapped, so 4 rolls needing 5+
    // (S3 against D5): P(kill) = 1 - (2/3)^4. Lost: one Strike at S3 against D7 needs
    // 6+: a Wound with 1/6.
    let chariot = ChariotFighter { fight: 4, attacks: 2, wounds_left: 3, side: Side::Evil, grip: Grip::OneHanded };
    let warrior = Combatant {
        fight: 4,
        attacks: 1,
        defence: 5,
        wounds_left: 1,
        struck_by_chariot: super::super::to_wound(3, 5),
        strikes_chariot: super::super::to_wound(3, 7),
        never_prone: false,
        chariot: false,
        mount: None,
        prone: false,
        strikes: true,
        knocked_flying: super::super::to_wound(3, 5),
        hero: None,
        cannot_back_away: false,
    };
    for split in [StrikeSplit::Declared, StrikeSplit::OneAtATime] {
        let rules = FightRules { trapped: true, allocation: StrikeAllocation::MostWoundedFirst, split };
        let d = fight_distribution(&chariot, &[warrior], rules, HeroInFight::NONE, &FoeSupport::NONE);
        let get = |won, kills, wounds_lost| {
            d.iter()
                .find(|(o, _)| *o == FightOutcome { won, kills, wounds_lost, ..FightOutcome::default() })
                .map_or(0.0, |x| x.1)
        };
        let win = 143.0 / 216.0;
        assert!((get(true, 1, 0) - win * (1.0 - (2.0f64 / 3.0).powi(4))).abs() < 1e-12);
        assert!((get(true, 0, 0) - win * (2.0f64 / 3.0).powi(4)).abs() < 1e-12);
        assert!((get(false, 0, 1) - (1.0 - win) / 6.0).abs() < 1e-12);
        assert!((d.iter().map(|x| x.1).sum::<f64>() - 1.0).abs() < 1e-12);
    }
}

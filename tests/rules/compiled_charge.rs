//! The common charge is played as sums over compiled tables (#19): every trial that can be
//! played so must come out exactly as the resolver plays it die by die, metric by metric,
//! for every MESBG example, the speed fixtures and variants that reach each case the sums
//! hand back (terrain, an obstacle, a slain chariot's Hero, an army's Break Point).

use charioteer::engine::Streams;
use charioteer::mesbg::plan::{Plan, compile};
use charioteer::mesbg::resolve::{Scratch, Silent, tally_trials, trial, trial_as_sums};
use charioteer::mesbg::scenario::parse;
use charioteer::mesbg::tally::Metric;

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The examples, the fixtures, and variants of the Hero fixture.
fn scenarios() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["scenarios/mesbg", "tests/scenarios"] {
        let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
            let name = path.display().to_string();
            // A turn of several chariots is played by its own resolver (tests/rules/turn.rs).
            if name.contains("/turn-") {
                continue;
            }
            out.push((name.clone(), read(&name)));
        }
    }
    let hero = read("tests/scenarios/hero-column-of-six.toml");
    // The column's last model stands at 8": a wall past it ends every drive-through.
    let wall = "\n[[terrain]]\nname = \"Wall\"\nkind = \"obstacle\"\nfrom = [-5.0, 9.5]\nto = [5.0, 9.5]\n";
    // A wood the chariot enters after the third model: stops before it need no test.
    let wood = "\n[[terrain]]\nname = \"Wood\"\nkind = \"difficult\"\npolygon = [[-3.0, 4.5], [3.0, 4.5], [3.0, 6.0], [-3.0, 6.0]]\n";
    let army = "\n[army]\nmodels = 12\ncasualties = 4\n";
    // A rider behind the column: the rare stop at him (a cavalry fight, tabulated too).
    let rider = "\n[[formations]]\nname = \"Rider\"\ncount = 1\nprofile = \"Rider of Rohan\"\nfront_centre = [0.0, 9.4]\nfacing = 180\n";
    // A one-Wound chariot against a hard-hitting column: often slain in the fight.
    let frail = hero.replace("wounds = 3", "wounds = 1").replace("defence = 7", "defence = 4").replace(
        "profile = { fight = 4, strength = 3, defence = 5, attacks = 1",
        "profile = { fight = 6, strength = 8, defence = 5, attacks = 3",
    );
    let no_hero = |text: &str| {
        text.replace("[chariot.hero]\nprofile = \"Khandish King\"\nmight_policy = \"win_duel_then_wound\"\n", "")
    };
    // A two-Wound chariot through the wood into the hard hitters: after a terrain Wound a
    // fight often slays it (drawn from the wounded chariot's own tables).
    let tough = no_hero(&frail.replace("wounds = 1\n", "wounds = 2\n"));
    for (name, text) in [
        ("hero column into a wall", format!("{hero}{wall}")),
        ("tough column through a wood, no Hero", format!("{tough}{wood}")),
        ("hero column through a wood", format!("{hero}{wood}")),
        ("hero column, an army's Break Point", format!("{hero}{army}")),
        ("hero column, then a rider", format!("{hero}{rider}")),
        ("frail chariot with its Hero", frail.clone()),
        // (the Hero's lines removed)
        ("frail chariot without a Hero", no_hero(&frail)),
    ] {
        out.push((name.to_string(), text));
    }
    out
}

fn plan_of(name: &str, text: &str) -> (Plan, Streams) {
    let scenario = parse(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    (compile(&scenario), Streams::new(scenario.seed, scenario.hash()))
}

#[test]
fn every_trial_played_as_sums_is_the_trial_played_die_by_die() {
    let mut total_sums = 0;
    for (name, text) in scenarios() {
        let (plan, streams) = plan_of(&name, &text);
        let mut scratch = Scratch::default();
        let (mut as_sums, mut handed_back, mut slain, mut broken, mut terrain_wounds) = (0, 0, 0, 0, 0);
        for t in 0..4_000 {
            match trial_as_sums(&plan, streams, t) {
                Some(sums) => {
                    assert_eq!(sums, trial(&plan, streams, t, &mut scratch, &mut Silent), "{name}: trial {t}");
                    as_sums += 1;
                    slain += sums.get(Metric::ChariotSlain);
                    broken += sums.get(Metric::ArmyBroken);
                    terrain_wounds += sums.get(Metric::TerrainWound);
                }
                None => handed_back += 1,
            }
        }
        println!("{name}: {as_sums} as sums, {handed_back} handed back");
        total_sums += as_sums;
        // Each case the sums cannot play is handed back, and the rest are played as sums.
        let expect_some_handed_back =
            ["into a wall", "hero column through a wood", "frail chariot with its Hero", "cave-trolls"];
        if expect_some_handed_back.iter().any(|k| name.contains(k)) {
            assert!(handed_back > 0, "{name}: nothing handed back");
        }
        if name.contains("column") || name.contains("Break Point") || name.contains("without a Hero") {
            assert!(as_sums > 2_000, "{name}: only {as_sums} as sums");
        }
        if name.contains("without a Hero") {
            assert!(slain > 500, "{name}: the chariot slain in {slain} trials played as sums");
        }
        if name.contains("Break Point") {
            assert!((500..3_500).contains(&broken), "{name}: Broken in {broken} trials played as sums");
        }
        // Enemy Heroes in the fight are played as sums too (#37): only a Hero driven past
        // hands a trial back.
        // So are cavalry, whose fights are tabulated by what the Impact Hits left of rider
        // and mount.
        if name.contains("spears-and-banner") || name.contains("wood") || name.contains("cavalry") {
            assert!(as_sums > 3_000, "{name}: only {as_sums} as sums");
        }
        // A chariot without a Hero that terrain cost a Wound fights by its own tables (#37):
        // nothing of the wood example is handed back, its 1s included.
        if name.contains("wood-into-shield-wall") || name.contains("tough column") {
            assert_eq!(handed_back, 0, "{name}");
            // (The tough column stops most charges before the wood.)
            let least = if name.contains("tough") { 50 } else { 300 };
            assert!(terrain_wounds > least, "{name}: a terrain Wound in {terrain_wounds} trials played as sums");
        }
        if name.contains("tough column") {
            assert!(slain > 500, "{name}: the chariot slain in {slain} trials played as sums");
        }
        if name.contains("chariot-vs-chariot") {
            assert_eq!(as_sums, 0, "{name}: an enemy chariot needs the full resolver");
        }
    }
    assert!(total_sums > 40_000, "{total_sums}");
}

#[test]
fn tallies_with_and_without_the_sums_are_equal() {
    for (name, text) in scenarios() {
        let (plan, streams) = plan_of(&name, &text);
        let mut without = plan.clone();
        without.fast = None;
        let range = 5_000..25_003; // batches of trials, then three alone
        assert_eq!(
            tally_trials(&plan, streams, range.clone(), &mut Scratch::default()),
            tally_trials(&without, streams, range, &mut Scratch::default()),
            "{name}"
        );
    }
}

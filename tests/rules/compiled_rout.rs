//! A rout's geometry is worked out once per step and remembered (#19): every trial must
//! come out exactly as when each step is worked out afresh, metric by metric and cell by
//! cell, for every BATTLESYSTEM example and the rout's variants.

use charioteer::battlesystem::resolve::{Scratch, compile, tally_trials};
use charioteer::battlesystem::scenario::parse;
use charioteer::engine::{RuleSystem, Streams};

fn variants() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("scenarios/battlesystem").unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        out.push((path.display().to_string(), text.clone()));
        if text.contains("[rout]") {
            // The other readings a rout can be played under, each with its own geometry.
            for (key, line) in
                [("veer =", "veer = \"avoid_what_it_can\""), ("struck_unit_moves =", "struck_unit_moves = \"aside\"")]
            {
                if text.contains("[rules]") && !text.contains(key) {
                    let varied = text.replacen("[rules]", &format!("[rules]\n{line}"), 1);
                    out.push((format!("{} with {line}", path.display()), varied));
                }
            }
        }
    }
    // Units met at the same instant (two archer companies side by side behind the
    // elephants), under both readings of who fights: a step the memo's graph does not
    // link, and melees that count the figures in contact from where the units stand.
    let routing = std::fs::read_to_string("scenarios/battlesystem/routing-elephants-in-battle-line.toml").unwrap();
    let archers = "name = \"Archers\"\nside = \"a\"\nfigures = 12\nfrontage = 12\nat = [30.0, 9.0]";
    assert!(routing.contains(archers), "the routing example's archers");
    let side_by_side = routing.replacen(
        archers,
        "name = \"Archers left\"\nside = \"a\"\nfigures = 6\nfrontage = 6\nat = [27.0, 12.0]\nstats = { ad = \"d6\", ar = 8, hits = 1, ml = 11, mv = 6 }\npoints = 8\n\n\
         [[units]]\nname = \"Archers right\"\nside = \"a\"\nfigures = 6\nfrontage = 6\nat = [33.0, 12.0]",
        1,
    );
    for rule in ["", "melee_contact = \"whole_front_rank\""] {
        let varied = side_by_side.replacen("[rules]", &format!("[rules]\n{rule}"), 1);
        out.push((format!("archers side by side {rule}"), varied));
    }
    assert!(out.len() >= 7, "the examples and the rout's variants: {}", out.len());
    out
}

#[test]
fn remembered_rout_steps_give_every_trial_exactly_as_worked_out_afresh() {
    for (name, text) in variants() {
        let scenario = parse(&text, &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let plan = compile(&scenario);
        let streams = Streams::new(scenario.seed, scenario.hash());
        let (mut remembered, mut afresh) = (Scratch::default(), Scratch::uncompiled());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut moved = 0;
        for t in 0..4_000 {
            plan.play_values(streams, t, &mut remembered, &mut a);
            plan.play_values(streams, t, &mut afresh, &mut b);
            assert_eq!(a, b, "{name}: trial {t} differs");
            assert_eq!(remembered.cells_crossed(), afresh.cells_crossed(), "{name}: trial {t}'s path differs");
            moved += usize::from(remembered.cells_crossed().len() > 1);
        }
        if text.contains("[rout]") {
            assert!(moved > 1_000, "{name}: the routs go somewhere ({moved})");
        }
        // And whole tallies, path map included.
        let range = 10_000..16_000;
        assert_eq!(
            tally_trials(&plan, streams, range.clone(), &mut Scratch::default()),
            tally_trials(&plan, streams, range, &mut Scratch::uncompiled()),
            "{name}"
        );
    }
}

//! A turn of several chariots as a user meets it (#33): every tool the README promises on
//! a turn (run, replay, validate with its map, compare, sweep, `--target-ci`, shards and
//! merge), what is refused by name (exact, balance, an enemy chariot in a turn, a bad
//! order), and the README's quoted numbers.

use std::path::Path;
use std::process::{Command, Output};

use crate::schema;

fn charioteer(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir).output().expect("binary runs")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

const THREE: &str = "scenarios/mesbg/turn-three-khandish-into-shield-wall.toml";
const TWO: &str = "scenarios/mesbg/turn-two-iron-hills-into-pike-block.toml";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_turn_runs_into_a_report_with_its_board_and_every_reading() {
    let out = tempfile::tempdir().expect("tmp");
    let dir = out.path().join("r");
    let o = charioteer(&["run", TWO, "--trials", "20000", "--out", dir.to_str().unwrap()], root());
    assert!(o.status.success(), "{}", text(&o));
    let printed = text(&o);
    for metric in ["line_breached", "line_halved", "army_broken", "breakthrough_any", "chariot2.fight_won", "turns in"]
    {
        assert!(printed.contains(metric), "the table names {metric}: {printed}");
    }
    for file in ["report.md", "board.png", "board.svg", "board.csv", "summary.csv", "distribution.csv", "run.json"] {
        assert!(dir.join(file).exists(), "{file} written");
    }
    let md = std::fs::read_to_string(dir.join("report.md")).expect("report.md");
    assert!(
        md.contains("## Did the line break?") && md.contains("turn.order") && md.contains("Where the chariots ended")
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).expect("run.json")).expect("json");
    assert_eq!(json["schema"], "charioteer.turn/1");
    let errors = schema::Schema::load("docs/turn.schema.json").errors(&json);
    assert!(errors.is_empty(), "run.json breaks docs/turn.schema.json:\n{}", errors.join("\n"));
    assert_eq!(json["turn"]["order"], serde_json::json!([1, 2]));
    assert!(json["metrics"]["line_breached"]["mean"].as_f64().is_some());
    // How each chariot's charge ended: its classes split every turn, and those that are one
    // flag each are that chariot's own flag in run.json.
    let alt = md
        .lines()
        .find_map(|l| l.strip_prefix("![Bar chart of how each chariot's charge ended: "))
        .expect("the how-charges-end chart")
        .split("](")
        .next()
        .unwrap()
        .trim_end_matches('.');
    for k in 1..=2 {
        let prefix = format!("chariot {k}: ");
        let shares: Vec<(&str, f64)> = alt
            .split("; ")
            .filter_map(|part| part.strip_prefix(prefix.as_str()))
            .map(|part| {
                let (words, share) = part.rsplit_once(' ').unwrap();
                (words, share.trim_end_matches('%').parse::<f64>().unwrap() / 100.0)
            })
            .collect();
        let total: f64 = shares.iter().map(|s| s.1).sum();
        assert!((total - 1.0).abs() < 0.001, "chariot {k}: {shares:?} sum to {total}");
        let mean = |what: &str| json["metrics"][format!("chariot{k}.{what}")]["mean"].as_f64().unwrap();
        for (words, metric) in [("broke through", "breakthrough"), ("stopped, won the fight", "fight_won")] {
            let share = shares.iter().find(|s| s.0 == words).expect(words).1;
            assert!((share - mean(metric)).abs() < 0.0001, "chariot {k} {words}: {share} vs {}", mean(metric));
        }
    }
}

#[test]
fn replay_tells_the_turn_chariot_by_chariot_and_fight_by_fight() {
    let o = charioteer(&["replay", THREE, "--trial", "0"], root());
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    for line in
        ["chariot 1 charges (1st of the turn)", "chariot 2 charges (2nd", "chariot 3 charges (3rd", "fight: chariot"]
    {
        assert!(t.contains(line), "replay says {line:?}: {t}");
    }
}

#[test]
fn validate_describes_the_turn_and_draws_its_map() {
    let out = tempfile::tempdir().expect("tmp");
    let map = out.path().join("turn.png");
    let o = charioteer(&["validate", THREE, "--map", map.to_str().unwrap()], root());
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("a turn of 3 chariots"), "{}", text(&o));
    assert!(std::fs::metadata(&map).map(|m| m.len() > 10_000).unwrap_or(false), "the map is drawn");
}

#[test]
fn compare_sweep_target_ci_and_shards_work_on_a_turn() {
    let out = tempfile::tempdir().expect("tmp");
    let o = out.path();
    let p = |name: &str| o.join(name).display().to_string();
    // Compared with itself: every difference exactly zero (paired streams).
    let c = charioteer(&["compare", TWO, TWO, "--trials", "5000", "--json", "--out", &p("cmp")], root());
    assert!(c.status.success(), "{}", text(&c));
    let v: serde_json::Value = serde_json::from_slice(&c.stdout).expect("compare json");
    let differences = v["differences"].as_object().expect("differences");
    assert!(differences.contains_key("line_breached") && differences.contains_key("chariot2.fight_won"));
    for (name, d) in differences {
        assert_eq!(d["diff"].as_f64(), Some(0.0), "{name}");
    }
    // A sweep over the second chariot's facing.
    let s = charioteer(
        &["sweep", TWO, "--set", "chariots[1].facing=0,10", "--trials", "4000", "--out", &p("sweep")],
        root(),
    );
    assert!(s.status.success(), "{}", text(&s));
    let csv = std::fs::read_to_string(o.join("sweep/sweep.csv")).expect("sweep.csv");
    assert_eq!(csv.lines().count(), 3, "{csv}");
    // --target-ci stops at the asked half-width.
    let t = charioteer(&["run", TWO, "--target-ci", "0.05", "--out", &p("ci"), "--json"], root());
    assert!(t.status.success(), "{}", text(&t));
    let run: serde_json::Value = serde_json::from_slice(&t.stdout).expect("run json");
    for (name, m) in run["metrics"].as_object().expect("metrics") {
        let half = (m["ci95_hi"].as_f64().unwrap_or(0.0) - m["ci95_lo"].as_f64().unwrap_or(0.0)) / 2.0;
        assert!(half < 0.05 + 1e-9, "{name}: half-width {half}");
    }
    // Two shards merged equal one run, byte for byte.
    for k in ["1/2", "2/2"] {
        let r = charioteer(&["run", TWO, "--trials", "6000", "--shard", k, "--out", &p("parts"), "-q"], root());
        assert!(r.status.success(), "{}", text(&r));
    }
    let whole = charioteer(&["run", TWO, "--trials", "6000", "--out", &p("whole"), "-q"], root());
    assert!(whole.status.success(), "{}", text(&whole));
    let m = charioteer(&["merge", &p("parts"), "--out", &p("merged"), "-q"], root());
    assert!(m.status.success(), "{}", text(&m));
    for file in ["summary.csv", "distribution.csv"] {
        let read = |d: &str| std::fs::read(o.join(d).join(file)).expect("file");
        assert_eq!(read("merged"), read("whole"), "{file}: merged shards are the single run");
    }
}

#[test]
fn what_a_turn_does_not_do_yet_is_refused_by_name() {
    let e = charioteer(&["exact", TWO], root());
    assert!(text(&e).contains("no exact values: spears, pikes or a banner"), "{}", text(&e));
    let e = charioteer(&["exact", THREE], root());
    assert!(text(&e).contains("a turn of 3 chariots"), "{}", text(&e));
    let b = charioteer(
        &["balance", THREE, "--target-efficiency", "0.1", "--trials", "1000", "--price", "chariot.wounds"],
        root(),
    );
    assert!(!b.status.success());
    assert!(text(&b).contains("a turn is priced by its chariots' points"), "{}", text(&b));
    let dir = tempfile::tempdir().expect("tmp");
    let bad = |body: &str| {
        let path = dir.path().join("bad.toml");
        std::fs::write(&path, body).expect("write");
        text(&charioteer(&["validate", path.to_str().unwrap()], root()))
    };
    let two = std::fs::read_to_string(root().join(TWO)).expect("example");
    let with_order = |order: &str| format!("{two}\n[turn]\norder = {order}\n");
    assert!(bad(&with_order("[1, 1]")).contains("turn.order"), "a repeated chariot");
    assert!(bad(&with_order("\"sideways\"")).contains("turn.order"));
    let chariot_foe = two.replace(
        "profile = \"Uruk-hai Warrior with pike\"",
        "base = { round_mm = 25 }\nprofile = { fight = 4, strength = 4, defence = 7, attacks = 1, wounds = 3, courage = \"7+\", chariot = true }",
    );
    assert!(bad(&chariot_foe).contains("enemy chariot in a turn"), "{}", bad(&chariot_foe));
    let both = format!("{two}\n[chariot]\nprofile = \"Iron Hills Chariot\"\nside = \"good\"\nat = [9.0, 0.0]\n");
    assert!(bad(&both).contains("not both"));
    let sides = two.replacen("side = \"good\"", "side = \"evil\"", 1);
    assert!(bad(&sides).contains("chariots[1].side"), "{}", bad(&sides));
    let overlap = two.replace("at = [2.2, 0.0]", "at = [-1.0, 0.0]");
    assert!(bad(&overlap).contains("overlaps chariot 1"), "{}", bad(&overlap));
}

#[test]
fn the_readmes_turn_numbers_are_what_the_example_gives() {
    // Every line the README quotes from the turn's run, and docs/pricing.md from its
    // balance, is a line they print today (a line cut short with "..." is the start of one).
    let out = tempfile::tempdir().expect("tmp");
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README")
        + &std::fs::read_to_string(root().join("docs/pricing.md")).expect("docs/pricing.md");
    let quoted_after = |command: &str| -> Vec<String> {
        let rest = readme.split(command).nth(1).unwrap_or_else(|| panic!("README shows {command}"));
        let block = rest.split("```text\n").nth(1).and_then(|b| b.split("```").next()).expect("its output block");
        block.lines().filter(|l| *l != "...").map(str::to_string).collect()
    };
    let o = charioteer(&["run", THREE, "--out", out.path().join("r").to_str().unwrap()], root());
    assert!(o.status.success(), "{}", text(&o));
    let b = charioteer(
        &["balance", THREE, "--target-efficiency", "0.25", "--out", out.path().join("b").to_str().unwrap()],
        root(),
    );
    assert!(b.status.success(), "{}", text(&b));
    for (command, printed) in [
        ("-- run scenarios/mesbg/turn-three-khandish-into-shield-wall.toml\n", text(&o)),
        ("-- balance scenarios/mesbg/turn-three-khandish-into-shield-wall.toml --target-efficiency 0.25\n", text(&b)),
    ] {
        let quoted = quoted_after(command);
        assert!(quoted.len() >= 3, "{command}: {quoted:?}");
        for line in quoted {
            let found = match line.strip_suffix(", ...") {
                Some(start) => printed.lines().any(|l| l.starts_with(start)),
                None => printed.lines().any(|l| l == line),
            };
            assert!(found, "README quotes {line:?}, which {command} no longer prints:\n{printed}");
        }
    }
}

#[test]
fn the_best_order_is_the_one_whose_objective_came_out_highest() {
    let dir = tempfile::tempdir().expect("tmp");
    let two = std::fs::read_to_string(root().join(TWO)).expect("example");
    let path = dir.path().join("best.toml");
    std::fs::write(&path, format!("{two}\n[turn]\norder = \"best\"\nobjective = \"kills\"\n")).expect("write");
    let o = charioteer(&["validate", path.to_str().unwrap()], root());
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    // "order tried k: [a, b] -> value", and "order: a, b" the chosen one.
    let tried: Vec<(String, f64)> = t
        .lines()
        .filter_map(|l| l.trim().strip_prefix("order tried "))
        .map(|l| {
            let (order, value) = l.split_once(" -> ").expect("arrow");
            let order = order.split_once(": ").expect("colon").1.trim_matches(['[', ']']).to_string();
            (order, value.split_whitespace().next().expect("a value").parse().expect("value"))
        })
        .collect();
    assert_eq!(tried.len(), 2, "both orders of two chariots tried: {t}");
    let chosen = t.lines().find_map(|l| l.trim().strip_prefix("order: ")).expect("the chosen order");
    let best = tried.iter().max_by(|a, b| a.1.total_cmp(&b.1)).expect("one");
    assert_eq!(chosen.trim(), best.0, "{t}");
}

/// Two Khandish chariots at one Warrior of Minas Tirith, the second from behind him.
pub(crate) const SMALL_TURN: &str = r#"title = "two chariots, one warrior"
system = "mesbg"
seed = 11

[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 0.0]
facing = 0

[[chariots]]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 14.0]
facing = 180

[[formations]]
name = "Warrior"
count = 1
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = "Warrior of Minas Tirith"
"#;

#[test]
fn a_small_turn_has_exact_values_in_run_and_exact() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("small.toml");
    std::fs::write(&file, SMALL_TURN).expect("write");
    let out = dir.path().join("r");
    let o = charioteer(&["run", file.to_str().unwrap(), "--trials", "200000", "--out", out.to_str().unwrap()], root());
    assert!(o.status.success(), "{}", text(&o));
    let printed = text(&o);
    assert!(printed.contains("exact: computed for this small turn"), "{printed}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).expect("run.json")).expect("json");
    let errors = schema::Schema::load("docs/turn.schema.json").errors(&json);
    assert!(errors.is_empty(), "run.json breaks docs/turn.schema.json:\n{}", errors.join("\n"));
    // P(slain by chariot 1's Impact Hits) = 1 - (2/3)^2, derived by hand.
    let exact = json["exact"]["metrics"]["chariot1.impact_kills"]["exact"].as_f64().expect("an exact value");
    assert!((exact - 5.0 / 9.0).abs() < 1e-12, "{exact}");
    let z = json["exact"]["metrics"]["kills"]["z"].as_f64().expect("a z");
    assert!(z.abs() < 5.0, "the estimate agrees: z {z}");
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(md.contains("| exact (z) |") && md.contains("computed by the exact engine"), "{md}");
    // `exact` writes the joint distribution.
    let ex = dir.path().join("x");
    let e = charioteer(&["exact", file.to_str().unwrap(), "--out", ex.to_str().unwrap()], root());
    assert!(e.status.success(), "{}", text(&e));
    assert!(text(&e).contains("exact joint distribution"), "{}", text(&e));
    assert!(ex.join("exact_joint.csv").exists() && ex.join("exact.json").exists());
    // `--no-exact` says so.
    let o = charioteer(
        &["run", file.to_str().unwrap(), "--trials", "1000", "--no-exact", "--out", out.to_str().unwrap()],
        root(),
    );
    assert!(text(&o).contains("skipped with --no-exact"), "{}", text(&o));
}

/// P(`ours` dice beat `theirs`, equal Fight, the roll-off even), enumerated face by face.
fn duel(ours: u32, theirs: u32) -> f64 {
    let n = ours + theirs;
    let mut win = 0.0;
    for code in 0..6u32.pow(n) {
        let faces: Vec<u32> = (0..n).map(|i| code / 6u32.pow(i) % 6 + 1).collect();
        let (a, b) = (faces[..ours as usize].iter().max(), faces[ours as usize..].iter().max());
        win += match a.cmp(&b) {
            std::cmp::Ordering::Greater => 1.0,
            std::cmp::Ordering::Equal => 0.5,
            std::cmp::Ordering::Less => 0.0,
        };
    }
    win / 6f64.powi(n as i32)
}

fn balance_json(file: &Path, trials: &str) -> serde_json::Value {
    let out = file.with_extension("balance");
    let args = ["balance", file.to_str().unwrap(), "--target-efficiency", "0.1", "--trials", trials, "--json"];
    let o = charioteer(&[&args[..], &["--out", out.to_str().unwrap()]].concat(), root());
    assert!(o.status.success(), "{}", text(&o));
    serde_json::from_str(&String::from_utf8_lossy(&o.stdout)).expect("balance --json")
}

#[test]
fn balance_prices_a_turn_and_one_more_chariot_in_it() {
    // Two Khandish chariots (40 points each) at one Warrior of Minas Tirith (8 points).
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("small.toml");
    std::fs::write(&file, SMALL_TURN).expect("write");
    let json = balance_json(&file, "400000");
    // Kills, by hand: Impact Hits (two at 5+) slay him with 5/9, else chariot 2's with 5/9;
    // if he survived both, the pooled duel (4 dice to 1) won, then Trapped Strikes (each
    // two rolls at 5+) from chariot 1 (two) and chariot 2 (two).
    let (slain, miss4) = (5.0 / 9.0, (2.0f64 / 3.0).powi(4));
    let both = (1.0 - slain) * (1.0 - slain);
    let kills = slain + (1.0 - slain) * slain + both * duel(4, 1) * (1.0 - miss4 * miss4);
    // Chariot 1 alone: its Impact Hits, then its own duel (2 dice to 1) and two Strikes.
    let alone = slain + (1.0 - slain) * duel(2, 1) * (1.0 - miss4);
    let fair = &json["fair"];
    assert_eq!(json["pricing"]["price"], 80.0);
    let (price, se) = (fair["fair_price"].as_f64().unwrap(), fair["fair_price_se"].as_f64().unwrap());
    let want = 8.0 * kills / 0.1;
    assert!((price - want).abs() < 5.0 * se, "fair price {price:.3}, derived {want:.3} (se {se:.4})");
    let split = &json["split"];
    assert_eq!(split["kind"], "last_chariot");
    assert!(split["hero"].as_str().unwrap().starts_with("chariot 2"), "{split}");
    let (share, share_se) = (split["chariot_share"].as_f64().unwrap(), split["chariot_share_se"].as_f64().unwrap());
    assert!(
        (share - alone / kills).abs() < 5.0 * share_se,
        "the turn without chariot 2 does {share:.4} of the work, derived {:.4}",
        alone / kills
    );

    // A model worth other points that no chariot reaches: the line is mixed, each model is
    // priced at its own points (`points_slain`), and the price is the same.
    let mixed = format!(
        "{SMALL_TURN}
[[formations]]
name = \"Captain far away\"
count = 1
base = {{ round_mm = 25 }}
front_centre = [30.0, 30.0]
facing = 180
profile = {{ fight = 5, strength = 4, defence = 6, attacks = 2, wounds = 2, courage = \"4+\", points = 50 }}
"
    );
    let file = dir.path().join("mixed.toml");
    std::fs::write(&file, mixed).expect("write");
    let json = balance_json(&file, "400000");
    assert_eq!(json["pricing"]["worth"][0][0], "points_slain", "{}", json["pricing"]);
    let price = json["fair"]["fair_price"].as_f64().unwrap();
    assert!((price - want).abs() < 5.0 * se, "mixed: fair price {price:.3}, derived {want:.3}");
    let per_100 = json["fair"]["scenario"]["kills_per_100_points"].as_f64().unwrap();
    assert!((per_100 - 100.0 * kills / 80.0).abs() < 0.05, "models, not points, per 100 points: {per_100}");
}

/// `order = "best"` on a turn the exact engine answers weighs each order by its exact mean:
/// both orders of [`SMALL_TURN`] slay the Warrior with the chance derived by hand.
#[test]
fn the_best_order_of_a_small_turn_is_weighed_exactly() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("best.toml");
    std::fs::write(&file, format!("{SMALL_TURN}\n[turn]\norder = \"best\"\nobjective = \"kills\"\n")).expect("write");
    let o = charioteer(&["validate", file.to_str().unwrap()], root());
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    // As in `balance_prices_a_turn_and_one_more_chariot_in_it`: either order, the same chance.
    let (slain, miss4) = (5.0 / 9.0, (2.0f64 / 3.0).powi(4));
    let both = (1.0 - slain) * (1.0 - slain);
    let kills = slain + (1.0 - slain) * slain + both * duel(4, 1) * (1.0 - miss4 * miss4);
    let tried: Vec<&str> = t.lines().filter_map(|l| l.trim().strip_prefix("order tried ")).collect();
    assert_eq!(tried.len(), 2, "{t}");
    for line in tried {
        assert!(line.ends_with("(exact)"), "weighed exactly: {line}");
        let value: f64 = line.split(" -> ").nth(1).and_then(|v| v.split_whitespace().next()).unwrap().parse().unwrap();
        assert!((value - kills).abs() < 5e-5, "{line}: derived {kills:.6}");
    }
    // The report says how the orders were weighed, and that the order is fixed in advance.
    let out = dir.path().join("r");
    let r = charioteer(&["run", file.to_str().unwrap(), "--trials", "2000", "--out", out.to_str().unwrap()], root());
    assert!(r.status.success(), "{}", text(&r));
    let md = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(md.contains("Orders tried (objective's exact mean)"), "{md}");
    assert!(md.contains("every order was weighed by its exact mean") && md.contains("adaptive"), "{md}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).expect("run.json")).expect("json");
    let errors = schema::Schema::load("docs/turn.schema.json").errors(&json);
    assert!(errors.is_empty(), "run.json breaks docs/turn.schema.json:\n{}", errors.join("\n"));
    assert_eq!(json["turn"]["orders_weighed_by"], "exact");
    let tried = json["turn"]["orders_tried"].as_array().expect("orders_tried");
    for v in tried {
        let value = v["objective"].as_f64().expect("a value");
        assert!((value - kills).abs() < 1e-9, "run.json: {value} against {kills}");
    }
}

/// Choosing the next chariot after seeing the last one's result is refused by name.
#[test]
fn an_adaptive_order_is_refused_by_name() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("adaptive.toml");
    std::fs::write(&file, format!("{SMALL_TURN}\n[turn]\norder = \"adaptive\"\n")).expect("write");
    let o = charioteer(&["validate", file.to_str().unwrap()], root());
    assert!(!o.status.success());
    let t = text(&o);
    assert!(t.contains("turn.order") && t.contains("\"adaptive\"") && t.contains("not implemented"), "{t}");
}

/// Past the exact engine, `order = "best"` plays every order on the same dice (common random
/// numbers): with a third chariot that reaches no one, every order of [`SMALL_TURN`] plays the
/// same trials, so every order's mean is the same number, near the chance derived by hand.
#[test]
fn the_best_order_past_the_exact_engine_plays_every_order_on_the_same_dice() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("best3.toml");
    let far = "[[chariots]]\nprofile = \"Khandish Charioteer\"\nside = \"evil\"\nat = [40.0, -20.0]\nfacing = 90\n\n[[formations]]";
    let board = SMALL_TURN.replacen("[[formations]]", far, 1);
    std::fs::write(&file, format!("{board}\n[turn]\norder = \"best\"\nobjective = \"kills\"\n")).expect("write");
    let out = dir.path().join("r");
    let r = charioteer(&["run", file.to_str().unwrap(), "--trials", "2000", "--out", out.to_str().unwrap()], root());
    assert!(r.status.success(), "{}", text(&r));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).expect("run.json")).expect("json");
    assert_eq!(json["turn"]["orders_weighed_by"], "common_random_numbers");
    let values: Vec<f64> = json["turn"]["orders_tried"]
        .as_array()
        .expect("orders_tried")
        .iter()
        .map(|v| v["objective"].as_f64().expect("a value"))
        .collect();
    assert_eq!(values.len(), 6, "every order of three chariots");
    assert!(values.iter().all(|v| *v == values[0]), "the same dice for every order: {values:?}");
    let (slain, miss4) = (5.0 / 9.0, (2.0f64 / 3.0).powi(4));
    let both = (1.0 - slain) * (1.0 - slain);
    let kills = slain + (1.0 - slain) * slain + both * duel(4, 1) * (1.0 - miss4 * miss4);
    let se = (kills * (1.0 - kills) / crate_trials()).sqrt();
    assert!((values[0] - kills).abs() < 5.0 * se, "{} against {kills:.4} (se {se:.4})", values[0]);
}

/// The trials each order of `order = "best"` is weighed on (`BEST_ORDER_TRIALS`).
fn crate_trials() -> f64 {
    charioteer::mesbg::turn::BEST_ORDER_TRIALS as f64
}

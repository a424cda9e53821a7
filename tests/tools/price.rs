//! Prices a designer can defend (#34): like for like across a matchup set, a mixed line
//! priced by each model's points, a reference that does nothing left out by name, and the
//! old `--against` form refused when the two pieces charge different lines. Every
//! expected price is derived by hand in the test from the wound chart.

use std::path::Path;
use std::process::Command;

fn charioteer(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir).output().expect("runs")
}

fn text(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// A chariot of Strength 1 (it cannot wound Defence 9 or 10 in the fight: the chart stops at
/// a difference of 7), with `hits` Impact Hits at Strength 7, priced at `points`.
fn piece(title: &str, hits: u32, points: u32, line: &str) -> String {
    piece_of_strength(title, hits, 7, points, line)
}

/// The same chariot with Impact Hits at `impact_strength`.
fn piece_of_strength(title: &str, hits: u32, impact_strength: u32, points: u32, line: &str) -> String {
    format!(
        r#"title = "{title}"
system = "mesbg"
trials = 1000
seed = 11

[chariot]
name = "{title}"
side = "evil"
move = 10
fight = 3
strength = 1
defence = 6
attacks = 1
wounds = 3
courage = "7+"
impact = {{ hits = "{hits}", strength = {impact_strength} }}
base = {{ round_mm = 60 }}
at = [0.0, 0.0]
facing = 0
points = {points}

[charge]
pivots = [0]
{line}"#
    )
}

fn warrior(name: &str, defence: u32, wounds: u32, points: u32, y: f64) -> String {
    format!(
        r#"
[[formations]]
name = "{name}"
count = 1
base = {{ round_mm = 25 }}
front_centre = [0.0, {y:.1}]
facing = 180
profile = {{ fight = 3, strength = 3, defence = {defence}, attacks = 1, wounds = {wounds}, courage = "7+", points = {points} }}
"#
    )
}

const SET: &str = r#"title = "Three lone warriors"

[[lines]]
name = "Defence 9"
[[lines.formations]]
name = "Warrior"
count = 1
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = { fight = 3, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = "7+", points = 10 }

[[lines]]
name = "Defence 10"
weight = 3
[[lines.formations]]
name = "Warrior"
count = 1
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = { fight = 3, strength = 3, defence = 10, attacks = 1, wounds = 1, courage = "7+", points = 10 }

[[lines]]
name = "Two Wounds"
[[lines.formations]]
name = "Warrior"
count = 1
base = { round_mm = 25 }
front_centre = [0.0, 6.0]
facing = 180
profile = { fight = 3, strength = 3, defence = 9, attacks = 1, wounds = 2, courage = "7+", points = 10 }
"#;

#[test]
fn a_matchup_set_prices_like_for_like_and_leaves_out_a_reference_that_does_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    // Each piece brings its own (different) line: the set replaces it.
    let a = piece("Two hits", 2, 40, &warrior("Own", 4, 1, 5, 7.0));
    let b = piece("One hit", 1, 30, &warrior("Other", 3, 1, 5, 9.0));
    std::fs::write(dir.path().join("a.toml"), a).unwrap();
    std::fs::write(dir.path().join("b.toml"), b).unwrap();
    std::fs::write(dir.path().join("set.toml"), SET).unwrap();
    let args = [
        "balance",
        "a.toml",
        "--against",
        "b.toml",
        "--matchups",
        "set.toml",
        "--trials",
        "300000",
        "--json",
        "--out",
        "bal",
    ];
    let o = charioteer(&args, dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    // By hand: Strength 7 against Defence 9 wounds on 5+ (1/3), against Defence 10 on 6+
    // (1/6); no fight Strike can wound. Two hits slay with 1 - (1 - p)^2, one hit with p, so
    // the fair price is 30 x (2 - p): 50 against Defence 9, 55 against Defence 10.
    let want = [50.0, 55.0];
    let m = json["matchups"].as_array().expect("matchups");
    assert_eq!(m.len(), 2, "{json}");
    for (row, want) in m.iter().zip(want) {
        let (price, se) = (row["fair"]["fair_price"].as_f64().unwrap(), row["fair"]["fair_price_se"].as_f64().unwrap());
        assert!((price - want).abs() < 5.0 * se, "{}: {price:.3} (se {se:.3}), derived {want}", row["reference"]);
        assert!(se < 1.0, "{row}");
    }
    // A lone hit never slays a two-Wound warrior: that line has no price of its own and is
    // named, but two hits slay him when both wound (1/9), so it counts in the field's totals.
    let left = json["left_out"].as_array().expect("left_out");
    assert_eq!(left.len(), 1, "{json}");
    assert_eq!(left[0]["line"], "Two Wounds");
    assert!(left[0]["reason"].as_str().unwrap().contains("destroys nothing"), "{}", left[0]);
    assert!(left[0]["reason"].as_str().unwrap().contains("counts in the overall"), "{}", left[0]);
    assert!(json["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("Two Wounds")));
    // The field priced as one, by hand (weights 1 : 3 : 1, 10 points a warrior): the piece
    // is worth (10 x 5/9 + 3 x 10 x 11/36 + 10 x 1/9) / 5 = 19/6 points a trial, the
    // reference (10 x 1/3 + 3 x 10 x 1/6 + 0) / 5 = 5/3 at 30 points, so the fair price is
    // 30 x (19/6) / (5/3) = 57 (the mean of the lines' prices would say 53.75).
    let price = |i: usize| m[i]["fair"]["fair_price"].as_f64().unwrap();
    let overall = json["fair"]["fair_price"].as_f64().unwrap();
    let spread = &json["spread"];
    let sampling = spread["sampling_se"].as_f64().unwrap();
    assert!(sampling > 0.0 && sampling < 0.5, "{spread}");
    assert!((overall - 57.0).abs() < 5.0 * sampling, "overall {overall:.3} (se {sampling:.3}), derived 57");
    assert!((json["fair"]["scenario"]["points_destroyed"].as_f64().unwrap() - 19.0 / 6.0).abs() < 0.05, "{json}");
    let lo = spread["sampling_ci95"][0].as_f64().unwrap();
    assert!((lo - (overall - 1.959_963_984_540_054 * sampling)).abs() < 1e-9, "{spread}");
    let mean = overall;
    let between = (0.25 * (price(0) - mean).powi(2) + 0.75 * (price(1) - mean).powi(2)).sqrt();
    assert!((spread["between_sd"].as_f64().unwrap() - between).abs() < 1e-9);
    assert_eq!(spread["lowest_against"], "Defence 9");
    assert_eq!(spread["highest_against"], "Defence 10");
    // The report says both intervals in words, draws the prices, and lists every line.
    let md = std::fs::read_to_string(dir.path().join("bal/report.md")).unwrap();
    assert!(md.contains("**Sampling**") && md.contains("**Across matchups**"), "{md}");
    assert!(md.contains("No price of its own, against Two Wounds"), "{md}");
    assert!(md.contains("the field priced as one"), "{md}");
    assert!(dir.path().join("bal/matchup-prices.png").is_file());
    let csv = std::fs::read_to_string(dir.path().join("bal/matchups.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4, "{csv}");
    // The same seed gives the same numbers.
    let again = charioteer(&args, dir.path());
    assert_eq!(again.stdout, o.stdout);
}

#[test]
fn a_reference_so_weak_the_ratio_runs_away_is_left_out_by_name() {
    let dir = tempfile::tempdir().expect("tmp");
    let a = piece_of_strength("Strength 8", 1, 8, 40, &warrior("Own", 9, 1, 10, 6.0));
    let b = piece_of_strength("Strength 3", 1, 3, 30, &warrior("Own", 9, 1, 10, 6.0));
    std::fs::write(dir.path().join("a.toml"), a).unwrap();
    std::fs::write(dir.path().join("b.toml"), b).unwrap();
    std::fs::write(dir.path().join("set.toml"), SET).unwrap();
    let args = ["balance", "a.toml", "--against", "b.toml", "--matchups", "set.toml", "--trials", "200000", "--json"];
    let o = charioteer(&args, dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    // By hand, one hit each (no fight Strike wounds Defence 9 or 10 at Strength 1):
    // Defence 9: S8 wounds on 5+ (1/3), S3 on 6 then 5+ (1/18): the ratio is 6, a fair
    // price of 30 x 6 = 180. Defence 10: S8 on 5+ (1/3), S3 on 6 then 6 (1/36): the ratio is
    // 12, more than the 10 a price may run to, so the line is left out by name.
    let m = json["matchups"].as_array().expect("matchups");
    assert_eq!(m.len(), 1, "{json}");
    assert_eq!(m[0]["reference"], "Defence 9");
    let (price, se) = (m[0]["fair"]["fair_price"].as_f64().unwrap(), m[0]["fair"]["fair_price_se"].as_f64().unwrap());
    assert!((price - 180.0).abs() < 5.0 * se, "{price:.2} (se {se:.2}), derived 180");
    let left = json["left_out"].as_array().expect("left_out");
    let ratio = left.iter().find(|l| l["line"] == "Defence 10").expect("Defence 10 left out");
    assert!(ratio["reason"].as_str().unwrap().contains("more than 10 times"), "{ratio}");
    assert!(ratio["reason"].as_str().unwrap().contains("counts in the overall"), "{ratio}");
    // One hit slays no two-Wound warrior, whichever piece: that line says nothing of either.
    let nothing = left.iter().find(|l| l["line"] == "Two Wounds").expect("Two Wounds left out");
    assert!(nothing["reason"].as_str().unwrap().contains("neither piece destroys anything"), "{nothing}");
    // The field as one, by hand, over Defence 9 and Defence 10 (1 : 3): the piece is worth
    // (10/3 + 3 x 10/3) / 4 = 10/3 a trial, the reference (10/18 + 3 x 10/36) / 4 = 25/72
    // at 30 points: 30 x (10/3) / (25/72) = 288.
    let overall = json["fair"]["fair_price"].as_f64().unwrap();
    let sampling = json["spread"]["sampling_se"].as_f64().unwrap();
    assert!((overall - 288.0).abs() < 5.0 * sampling, "overall {overall:.2} (se {sampling:.2}), derived 288");
}

#[test]
fn the_old_against_form_is_refused_when_the_pieces_charge_different_lines() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("a.toml"), piece("Two hits", 2, 40, &warrior("W", 9, 1, 10, 6.0))).unwrap();
    std::fs::write(dir.path().join("b.toml"), piece("One hit", 1, 30, &warrior("W", 10, 1, 10, 6.0))).unwrap();
    let o = charioteer(&["balance", "a.toml", "--against", "b.toml", "--trials", "1000", "--out", "x"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("charges another line") && text(&o).contains("--matchups"), "{}", text(&o));
    // The same line, written at another place on the board (the whole scene turned and
    // moved), is like for like.
    let turned = piece("One hit", 1, 30, &warrior("Other name", 9, 1, 10, 6.0))
        .replace("at = [0.0, 0.0]\nfacing = 0", "at = [10.0, 10.0]\nfacing = 90")
        .replace("front_centre = [0.0, 6.0]\nfacing = 180", "front_centre = [16.0, 10.0]\nfacing = 270");
    std::fs::write(dir.path().join("c.toml"), turned).unwrap();
    let o = charioteer(
        &["balance", "a.toml", "--against", "c.toml", "--trials", "20000", "--json", "--out", "y"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let (price, se) = (json["fair"]["fair_price"].as_f64().unwrap(), json["fair"]["fair_price_se"].as_f64().unwrap());
    assert!((price - 50.0).abs() < 5.0 * se, "{price} (se {se})");
}

#[test]
fn a_mixed_line_is_priced_by_each_models_points() {
    let dir = tempfile::tempdir().expect("tmp");
    // A 10-point warrior and, behind him on the path, a 30-point one, both Defence 9: the
    // first is slain by a hit at 5+ (1/3 a hit), and only then the chariot reaches the second.
    let line = format!("{}{}", warrior("Front", 9, 1, 10, 5.0), warrior("Behind", 9, 1, 30, 8.0));
    std::fs::write(dir.path().join("m.toml"), piece("One hit", 1, 30, &line)).unwrap();
    let o = charioteer(
        &["balance", "m.toml", "--target-efficiency", "0.1", "--trials", "300000", "--json", "--out", "z"],
        dir.path(),
    );
    assert!(o.status.success(), "{}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["pricing"]["worth"][0][0], "points_slain", "{}", json["pricing"]);
    // Worth 10/3 + 30/9 = 20/3 points a charge; at 0.1 a point the fair price is 66.67.
    let want = (10.0 / 3.0 + 30.0 / 9.0) / 0.1;
    let (price, se) = (json["fair"]["fair_price"].as_f64().unwrap(), json["fair"]["fair_price_se"].as_f64().unwrap());
    assert!((price - want).abs() < 5.0 * se, "{price:.3} (se {se:.3}), derived {want:.3}");
    assert!(json["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("own points")), "{json}");
}

#[test]
fn a_bad_matchup_set_is_refused_naming_its_file_field_and_line() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("a.toml"), piece("Two hits", 2, 40, &warrior("W", 9, 1, 10, 6.0))).unwrap();
    std::fs::write(dir.path().join("b.toml"), piece("One hit", 1, 30, &warrior("W", 9, 1, 10, 6.0))).unwrap();
    let bad = SET.replacen("defence = 9,", "defence = 12,", 1);
    std::fs::write(dir.path().join("set.toml"), bad).unwrap();
    let o = charioteer(
        &["balance", "a.toml", "--against", "b.toml", "--matchups", "set.toml", "--trials", "1000", "--out", "x"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("line \"Defence 9\" placed in front of a.toml"), "{t}");
    assert!(t.contains("set.toml:11: field `lines[0].formations[0].profile.defence`"), "{t}");
    assert!(!dir.path().join("x").exists(), "no partial report");
    // `validate` finds the same problem before any trial is played, and passes a good set.
    let o = charioteer(&["validate", "set.toml"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("set.toml:11: field `lines[0].formations[0].profile.defence`"), "{}", text(&o));
    std::fs::write(dir.path().join("set.toml"), SET).unwrap();
    let o = charioteer(&["validate", "set.toml"], dir.path());
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("3 lines to price a MESBG piece against"), "{}", text(&o));
    assert!(text(&o).contains("Defence 9: weight 1 (20% of the price), 1 model in 1 formation"), "{}", text(&o));
}

#[test]
fn the_readmes_price_of_the_khandish_chariot_is_what_the_command_gives() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    let start = readme.find("## For designers").expect("the designer's section");
    let section = &readme[start..start + 1 + readme[start + 1..].find("\n## ").expect("the next section")];
    // The README's price, then every price docs/pricing.md shows (the price, the cost
    // curve, a turn's price), each with the output quoted under it.
    let pricing = std::fs::read_to_string(root.join("docs/pricing.md")).expect("docs/pricing.md");
    let mut checked = 0;
    for (page, doc) in [("README.md", section), ("docs/pricing.md", pricing.as_str())] {
        let mut rest = doc;
        while let Some(at) = rest.find("```sh\n") {
            let block = &rest[at + 6..];
            let command = block.lines().next().expect("the command");
            let args: Vec<&str> = command.split_whitespace().skip_while(|w| *w != "balance").collect();
            let quoted = &block[block.find("```text\n").expect("its output") + 8..];
            let end = quoted.find("```").unwrap();
            let out = tempfile::tempdir().expect("tmp");
            let o = charioteer(&[&args[..], &["--out", out.path().to_str().unwrap()]].concat(), root);
            assert!(o.status.success(), "{}", text(&o));
            let printed = text(&o);
            for line in quoted[..end].lines() {
                assert!(
                    printed.lines().any(|p| p == line),
                    "{page} quotes a line `{command}` does not print:\n{line}\n---\n{printed}"
                );
            }
            checked += 1;
            rest = &quoted[end..];
        }
    }
    assert_eq!(checked, 4, "the README's price; the price, the cost curve and a turn's price in docs/pricing.md");
}

#[test]
fn a_cost_curve_prices_each_value_of_impact_hits_on_the_same_trials() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("a.toml"), piece("Two hits", 2, 40, &warrior("W", 9, 1, 10, 6.0))).unwrap();
    std::fs::write(dir.path().join("b.toml"), piece("One hit", 1, 30, &warrior("W", 9, 1, 10, 6.0))).unwrap();
    std::fs::write(dir.path().join("set.toml"), SET).unwrap();
    let base = ["balance", "a.toml", "--against", "b.toml", "--matchups", "set.toml", "--trials", "200000", "--json"];
    let curve = |set: &str, out: &str| {
        let o = charioteer(&[&base[..], &["--set", set, "--out", out]].concat(), dir.path());
        assert!(o.status.success(), "{}", text(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("json")
    };
    let json = curve("chariot.impact.hits=1,2,D3,3", "curve");
    assert_eq!(json["schema"], "charioteer.balance-curve/1");
    assert_eq!(json["field"], "chariot.impact.hits");
    // By hand, as above: n hits at Strength 7 slay a one-Wound warrior with 1 - (1 - p)^n
    // (p = 1/3 against Defence 9, 1/6 against Defence 10), the reference's one hit with p, so
    // the fair price is 30 x (1 - (1 - p)^n) / p; D3 is the mean over n = 1, 2, 3. Two Wounds
    // has no price of its own (the reference's one hit never slays him).
    let price = |n: f64, p: f64| 30.0 * (1.0 - (1.0 - p).powf(n)) / p;
    let line =
        |p: f64| [price(1.0, p), price(2.0, p), (price(1.0, p) + price(2.0, p) + price(3.0, p)) / 3.0, price(3.0, p)];
    let (d9, d10) = (line(1.0 / 3.0), line(1.0 / 6.0));
    let points = json["points"].as_array().expect("points");
    // One hit against a reference of one hit, on the same trials: the same kills every
    // trial, so exactly the reference's price with no sampling noise at all.
    assert_eq!(points[0]["balance"]["fair"]["fair_price"], 30.0);
    assert_eq!(points.iter().map(|p| p["value"].as_str().unwrap()).collect::<Vec<_>>(), ["1", "2", "D3", "3"]);
    for (i, point) in points.iter().enumerate() {
        let b = &point["balance"];
        let m = b["matchups"].as_array().unwrap();
        assert_eq!(m.len(), 2, "{}: {b}", point["value"]);
        for (row, want) in m.iter().zip([d9[i], d10[i]]) {
            let (got, se) =
                (row["fair"]["fair_price"].as_f64().unwrap(), row["fair"]["fair_price_se"].as_f64().unwrap());
            assert!(
                (got - want).abs() <= 5.0 * se + 1e-9,
                "{} {}: {got:.3} (se {se:.3}), derived {want:.3}",
                point["value"],
                row["reference"]
            );
        }
        // The field as one (weights 1 : 3 : 1): 30 x the piece's weighted worth over the
        // reference's, 36 x (k9 + 3 k10 + k2) with k the chance n hits slay (k2: two of them
        // wound the two-Wound warrior); with one hit neither slays him and that line is out.
        let kill = |n: f64, p: f64| 1.0 - (1.0 - p).powf(n);
        let two = |n: f64| 1.0 - (2.0f64 / 3.0).powf(n) - n / 3.0 * (2.0f64 / 3.0).powf(n - 1.0);
        let field = |n: f64| 36.0 * (kill(n, 1.0 / 3.0) + 3.0 * kill(n, 1.0 / 6.0) + two(n));
        let overall = match i {
            0 => 30.0,
            1 => field(2.0),
            2 => (field(1.0) + field(2.0) + field(3.0)) / 3.0,
            _ => field(3.0),
        };
        let got = b["fair"]["fair_price"].as_f64().unwrap();
        let (lo, hi) =
            (b["spread"]["sampling_ci95"][0].as_f64().unwrap(), b["spread"]["sampling_ci95"][1].as_f64().unwrap());
        let se = (hi - lo) / (2.0 * 1.959_963_984_540_054);
        assert!(
            (got - overall).abs() <= 5.0 * se + 1e-9,
            "{}: overall {got:.3} (se {se:.3}), derived {overall:.3}",
            point["value"]
        );
    }
    // The file's own value is played on the file's own trials: that point is the plain
    // balance, to the last digit.
    let o = charioteer(&[&base[..], &["--out", "plain"]].concat(), dir.path());
    assert!(o.status.success(), "{}", text(&o));
    let plain: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(points[1]["balance"]["fair"], plain["fair"]);
    assert_eq!(points[1]["balance"]["matchups"], plain["matchups"]);
    // The report: a table row per value, the curve drawn, the data as CSV.
    let md = std::fs::read_to_string(dir.path().join("curve/report.md")).unwrap();
    assert!(md.contains("| D3 |") && md.contains("common random numbers"), "{md}");
    assert!(dir.path().join("curve/cost-curve.png").is_file());
    let csv = std::fs::read_to_string(dir.path().join("curve/cost-curve.csv")).unwrap();
    assert_eq!(csv.lines().count(), 5, "{csv}");
    // One value, written as a number or as text, is the changed piece's own balance; at the
    // file's own value it is the plain balance again.
    for set in ["chariot.impact.hits=2", "chariot.impact.hits=\"2\""] {
        let one = curve(set, "one");
        assert_eq!(one["schema"], "charioteer.balance/2", "{set}");
        assert_eq!(one["fair"], plain["fair"], "{set}");
        assert!(one["command"].as_str().unwrap().contains("--set"), "{set}: {}", one["command"]);
    }
}

#[test]
fn a_cost_curve_refuses_two_swept_fields_and_leaves_out_a_flat_chart() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("a.toml"), piece("Two hits", 2, 40, &warrior("W", 9, 1, 10, 6.0))).unwrap();
    std::fs::write(dir.path().join("b.toml"), piece("One hit", 1, 30, &warrior("W", 9, 1, 10, 6.0))).unwrap();
    let run = |extra: &[&str]| {
        charioteer(
            &[&["balance", "a.toml", "--against", "b.toml", "--trials", "20000"][..], extra].concat(),
            dir.path(),
        )
    };
    let o = run(&["--set", "chariot.impact.hits=1,2", "--set", "chariot.move=9,10", "--out", "two"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--set chariot.impact.hits and --set chariot.move both take several values"),
        "{}",
        text(&o)
    );
    assert!(!dir.path().join("two").exists(), "no partial report");
    let many: Vec<String> = (0..51).map(|i| format!("{}", 30 + i)).collect();
    let o = run(&["--set", &format!("chariot.points={}", many.join(",")), "--out", "many"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("51 values; a cost curve takes at most 50"), "{}", text(&o));
    // The warrior stands 6" ahead: a Move of 9 or 10 meets him the same way on every trial,
    // so the curve is flat and a sentence says so instead of a chart of a constant.
    let o = run(&["--set", "chariot.move=9,10", "--out", "flat"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!dir.path().join("flat/cost-curve.png").exists());
    let md = std::fs::read_to_string(dir.path().join("flat/report.md")).unwrap();
    assert!(md.contains("No chart"), "{md}");
    // A bad value names the field and the forms that work, and says nothing contradictory.
    let o = run(&["--set", "chariot.impact.hits=2,D0", "--out", "bad"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("field `chariot.impact.hits`: `D0` is not a dice expression"), "{}", text(&o));
    let o = run(&["--set", "chariot.impact.hits=2.5", "--out", "bad"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("expected a whole number like 2 or a dice expression"), "{}", text(&o));
    assert!(!dir.path().join("bad").exists(), "no partial report");
}

#[test]
fn the_value_models_answer_to_their_designers_names_and_are_named_in_the_report() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("a.toml"), piece("Two hits", 2, 40, &warrior("W", 9, 1, 10, 6.0))).unwrap();
    for (given, model, words) in [
        ("points_removed", "kills", "Value model **points removed** (`--value kills`)"),
        ("points_traded", "net", "Value model **points traded** (`--value net`)"),
    ] {
        let o = charioteer(
            &["balance", "a.toml", "--target-efficiency", "0.1", "--value", given, "--trials", "2000", "--json"],
            dir.path(),
        );
        assert!(o.status.success(), "{given}: {}", text(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(json["pricing"]["model"], model, "{given}");
        let md = std::fs::read_to_string(dir.path().join("reports/balance--two-hits/report.md")).unwrap();
        assert!(md.contains(words), "{given}: {md}");
    }
}

#[test]
fn the_bundled_battlesystem_set_validates_and_a_bad_line_is_named() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = charioteer(&["validate", "scenarios/matchups/battlesystem-units.toml"], root);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("5 lines to price a BATTLESYSTEM charging unit against"), "{}", text(&o));
    assert!(text(&o).contains("Pike block: weight 2 (31% of the price), 20 figures in 1 unit, charged: Pikemen"));
    // The elephant (one 2" base) priced against the dragon (4" wide): unlike fronts, said.
    let out = tempfile::tempdir().expect("tmp");
    let o = charioteer(
        &[
            "balance",
            "scenarios/battlesystem/elephant-howdah-vs-pikemen.toml",
            "--against",
            "scenarios/battlesystem/dragon-with-crew.toml",
            "--matchups",
            "scenarios/matchups/battlesystem-units.toml",
            "--trials",
            "2000",
            "--out",
            out.path().to_str().unwrap(),
        ],
        root,
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("fronts differ (War elephant 2.0\" wide, Red dragon 4.0\")"), "{}", text(&o));
    let dir = tempfile::tempdir().expect("tmp");
    let good = std::fs::read_to_string(root.join("scenarios/matchups/battlesystem-units.toml")).unwrap();
    // A target that names no unit, a side given, and a unit placed off the board.
    for (bad, want) in [
        (
            good.replacen("target = \"Pikemen\"", "target = \"Pikes\"", 1),
            "field `lines[0].target`: \"Pikes\" names no unit",
        ),
        (
            good.replacen("figures = 20\n", "figures = 20\nside = \"b\"\n", 1),
            "field `lines[0].units[0].side`: leave the side out",
        ),
        (good.replacen("at = [0.0, 10.0]", "at = [0.0, 40.0]", 1), "field `lines[0].units[0].at`"),
        (good.replacen("[[lines.units]]", "[[lines.formations]]", 1), "so every line must be"),
    ] {
        std::fs::write(dir.path().join("set.toml"), bad).unwrap();
        let o = charioteer(&["validate", "set.toml"], dir.path());
        assert_eq!(o.status.code(), Some(2), "{want}: {}", text(&o));
        assert!(text(&o).contains(want), "{want}: {}", text(&o));
    }
}

#[test]
fn a_sweep_takes_impact_hits_as_a_constant_or_dice() {
    let dir = tempfile::tempdir().expect("tmp");
    // One hit at Strength 7 against Defence 9 slays on 5+ (1/3): n hits slay with
    // 1 - (2/3)^n, and D3 hits with the mean over n = 1, 2, 3 (by hand: 1/3, 5/9, 19/27;
    // D3: 43/81). A constant, written bare or quoted, is one point of the sweep.
    std::fs::write(dir.path().join("a.toml"), piece("Hits", 2, 40, &warrior("W", 9, 1, 10, 6.0))).unwrap();
    let sweep = |set: &str| {
        let o = charioteer(&["sweep", "a.toml", "--set", set, "--trials", "200000", "--json"], dir.path());
        assert!(o.status.success(), "{set}: {}", text(&o));
        serde_json::from_slice::<serde_json::Value>(&o.stdout).expect("json")
    };
    let kills = |point: &serde_json::Value| {
        let m = &point["metrics"]["kills"];
        (m["mean"].as_f64().expect("kills"), m["se"].as_f64().expect("kills"))
    };
    for set in ["chariot.impact.hits=2", "chariot.impact.hits=\"2\""] {
        let json = sweep(set);
        let points = json["points"].as_array().expect("points");
        assert_eq!(points.len(), 1, "{set}");
        let (mean, se) = kills(&points[0]);
        assert!((mean - 5.0 / 9.0).abs() < 5.0 * se, "{set}: {mean:.4} (se {se:.4}), derived 5/9");
    }
    // Written bare in the file (hits = 2), a constant reads as the same two hits.
    let bare = piece("Hits", 2, 40, &warrior("W", 9, 1, 10, 6.0)).replace("hits = \"2\"", "hits = 2");
    assert!(bare.contains("hits = 2,"), "{bare}");
    std::fs::write(dir.path().join("a.toml"), bare).unwrap();
    let json = sweep("chariot.impact.strength=7");
    let (mean, se) = kills(&json["points"][0]);
    assert!((mean - 5.0 / 9.0).abs() < 5.0 * se, "hits = 2 bare: {mean:.4} (se {se:.4}), derived 5/9");
    let json = sweep("chariot.impact.hits=1,2,3,D3");
    let want = [1.0 / 3.0, 5.0 / 9.0, 19.0 / 27.0, 43.0 / 81.0];
    for (point, want) in json["points"].as_array().expect("points").iter().zip(want) {
        let (mean, se) = kills(point);
        assert!((mean - want).abs() < 5.0 * se, "{}: {mean:.4} (se {se:.4}), derived {want:.4}", point["values"]);
    }
}

/// The price is a library procedure (#70): called without the command line, with a
/// progress count of its own, it gives the object `balance --json` prints, and counts
/// every trial of every line it played.
#[test]
fn the_balance_procedure_prices_without_the_command_line_as_the_command_does() {
    use charioteer::tools::balance::{BalanceRequest, Balanced, balance};
    use charioteer::tools::play::Player;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let piece = root.join("scenarios/mesbg/khandish-vs-minas-tirith.toml");
    let reference = root.join("scenarios/mesbg/iron-hills-into-pike-block.toml");
    let set = root.join("scenarios/matchups/mesbg-lines.toml");
    let request = BalanceRequest {
        file: piece.clone(),
        against: vec![reference.clone()],
        matchups: Some(set.clone()),
        trials: Some(3000),
        ..BalanceRequest::default()
    };
    let counted = AtomicU64::new(0);
    let progress = |n: u64| {
        counted.fetch_add(n, Ordering::Relaxed);
    };
    let cancel = AtomicBool::new(false);
    let player = Player { pool: None, progress: &progress, cancel: &cancel, plays: Default::default() };
    let Balanced::One { run, folder } = balance(&request, &player).expect("the procedure prices the piece") else {
        panic!("one price, not a curve")
    };
    assert_eq!(folder, "balance--khandish-charioteer-charges-a-minas-tirith-shield-wall", "named after the title");
    let lines = (run.matchups.len() + run.left_out.len()) as u64;
    assert!(lines >= 2, "the set's lines are priced: {lines}");
    assert_eq!(counted.load(Ordering::Relaxed), 3000 * lines, "every trial of every line is counted");

    let out = tempfile::tempdir().expect("temp dir");
    let path = |p: &Path| p.display().to_string();
    let printed = charioteer(
        &[
            "balance",
            &path(&piece),
            "--against",
            &path(&reference),
            "--matchups",
            &path(&set),
            "--trials",
            "3000",
            "--json",
            "--out",
            &path(out.path()),
        ],
        root,
    );
    assert!(printed.status.success(), "{}", text(&printed));
    let cli: serde_json::Value = serde_json::from_slice(&printed.stdout).expect("balance --json prints JSON");
    // Both read back from text, so the floats parse alike (serde_json's reading of a float
    // may differ from the value printed in its last bit).
    let library: serde_json::Value =
        serde_json::from_str(&run.to_json().to_string()).expect("the procedure's object reads back");
    assert_eq!(cli, library, "the command prints what the procedure returns");
}

/// A field priced as one agrees with itself: A priced against B, and B against A, give one
/// exchange rate (reciprocity), and A priced through a third piece C gives the rate A gets
/// against B directly (transitivity). Every price is derived by hand first.
#[test]
fn prices_over_a_field_are_reciprocal_and_transitive() {
    let dir = tempfile::tempdir().expect("tmp");
    let line = warrior("Own", 9, 1, 10, 6.0);
    std::fs::write(dir.path().join("a.toml"), piece("Two hits", 2, 40, &line)).unwrap();
    std::fs::write(dir.path().join("b.toml"), piece("One hit", 1, 30, &line)).unwrap();
    std::fs::write(dir.path().join("c.toml"), piece("Three hits", 3, 50, &line)).unwrap();
    std::fs::write(dir.path().join("set.toml"), SET).unwrap();
    let price = |piece: &str, reference: &str| -> (f64, f64) {
        let args = [
            "balance",
            piece,
            "--against",
            reference,
            "--matchups",
            "set.toml",
            "--trials",
            "400000",
            "--json",
            "--out",
            "b",
        ];
        let o = charioteer(&args, dir.path());
        assert!(o.status.success(), "{}", text(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        (json["fair"]["fair_price"].as_f64().unwrap(), json["spread"]["sampling_se"].as_f64().unwrap())
    };
    // By hand, at 10 points a warrior and weights 1 : 3 : 1 over Defence 9 (a Strength 7 hit
    // wounds on 5+, 1/3), Defence 10 (6+, 1/6) and a two-Wound Defence 9 warrior (two of
    // the hits must wound): n hits are worth (10 k9 + 30 k10 + 10 k2) / 5 a trial.
    let kill = |n: f64, p: f64| 1.0 - (1.0 - p).powf(n);
    let two = |n: f64| 1.0 - (2.0f64 / 3.0).powf(n) - n / 3.0 * (2.0f64 / 3.0).powf(n - 1.0);
    let worth = |n: f64| (10.0 * kill(n, 1.0 / 3.0) + 30.0 * kill(n, 1.0 / 6.0) + 10.0 * two(n)) / 5.0;
    let (wa, wb, wc) = (worth(2.0), worth(1.0), worth(3.0));
    assert!((wa - 19.0 / 6.0).abs() < 1e-12 && (wb - 5.0 / 3.0).abs() < 1e-12);
    let cases = [
        ("a.toml", "b.toml", 30.0 * wa / wb), // 57
        ("b.toml", "a.toml", 40.0 * wb / wa), // 21.05
        ("a.toml", "c.toml", 50.0 * wa / wc), // 35.55
        ("c.toml", "b.toml", 30.0 * wc / wb), // 80.17
    ];
    let mut got = Vec::new();
    for (piece, reference, want) in cases {
        let (p, se) = price(piece, reference);
        assert!((p - want).abs() < 5.0 * se, "{piece} against {reference}: {p:.3} (se {se:.3}), derived {want:.3}");
        got.push((p, se));
    }
    // Exchange rates (a price over its anchor's price) and their relative errors.
    let rate = |i: usize, anchor: f64| (got[i].0 / anchor, got[i].1 / got[i].0);
    let ((ab, e_ab), (ba, e_ba), (ac, e_ac), (cb, e_cb)) = (rate(0, 30.0), rate(1, 40.0), rate(2, 50.0), rate(3, 30.0));
    // Reciprocity: A is worth ab B's, and B is worth ba A's, so ab x ba is 1.
    let e = (e_ab.powi(2) + e_ba.powi(2)).sqrt();
    assert!((ab * ba - 1.0).abs() < 5.0 * e, "forward {ab:.4} x reverse {ba:.4} = {:.4}, not 1", ab * ba);
    // Transitivity: A in C's, times C in B's, is A in B's.
    let e = (e_ab.powi(2) + e_ac.powi(2) + e_cb.powi(2)).sqrt();
    assert!((ac * cb / ab - 1.0).abs() < 5.0 * e, "A via C {:.4}, A against B {ab:.4}", ac * cb);
}

/// A line placed out of the piece's reach is a warning when the set is validated (naming
/// the line), not a silent zero; priced, a line neither piece reaches is left out by name.
#[test]
fn a_line_out_of_reach_is_a_warning_in_validate_and_left_out_of_a_price() {
    let dir = tempfile::tempdir().expect("tmp");
    let far = SET.to_string()
        + r#"
[[lines]]
name = "Far away"
[[lines.formations]]
name = "Warrior"
count = 1
base = { round_mm = 25 }
front_centre = [30.0, 40.0]
facing = 180
profile = { fight = 3, strength = 3, defence = 9, attacks = 1, wounds = 1, courage = "7+", points = 10 }
"#;
    std::fs::write(dir.path().join("far.toml"), far).unwrap();
    let o = charioteer(&["validate", "far.toml", "--json"], dir.path());
    assert!(o.status.success(), "a warning, not a refusal: {}", text(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let warnings = json["files"][0]["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1, "{json}");
    assert_eq!(warnings[0]["field"], "lines[3]");
    assert!(warnings[0]["message"].as_str().unwrap().contains("\"Far away\" is out of its reach"), "{json}");
    let printed = text(&charioteer(&["validate", "far.toml"], dir.path()));
    assert!(printed.contains("warning: far.toml: field `lines[3]`"), "{printed}");
    // The bundled set's lines are all within the bundled chariot's reach.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let o = charioteer(&["validate", "scenarios/matchups/mesbg-lines.toml", "--json"], root);
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(json["files"][0]["warnings"], serde_json::json!([]), "{json}");
    // Priced, neither piece reaches it: left out by name, the same whichever is priced.
    let line = warrior("Own", 9, 1, 10, 6.0);
    std::fs::write(dir.path().join("a.toml"), piece("Two hits", 2, 40, &line)).unwrap();
    std::fs::write(dir.path().join("b.toml"), piece("One hit", 1, 30, &line)).unwrap();
    for (p, r) in [("a.toml", "b.toml"), ("b.toml", "a.toml")] {
        let args =
            ["balance", p, "--against", r, "--matchups", "far.toml", "--trials", "20000", "--json", "--out", "x"];
        let o = charioteer(&args, dir.path());
        assert!(o.status.success(), "{}", text(&o));
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        let far = json["left_out"].as_array().unwrap().iter().find(|l| l["line"] == "Far away").cloned();
        let far = far.unwrap_or_else(|| panic!("{p}: the far line is not named: {json}"));
        assert!(far["reason"].as_str().unwrap().contains("neither piece destroys anything"), "{far}");
    }
}

/// Every price report says what the price leaves out: what no price here counts, and each
/// piece's wargear and special rules the engine does not play, read from its profile (the
/// Iron Hills chariot's bolt thrower, the Khandish chariot's bow option).
#[test]
fn a_price_report_says_what_the_price_leaves_out() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().expect("tmp");
    let o = charioteer(
        &[
            "balance",
            "scenarios/mesbg/khandish-vs-minas-tirith.toml",
            "--against",
            "scenarios/mesbg/iron-hills-into-pike-block.toml",
            "--matchups",
            "scenarios/matchups/mesbg-lines.toml",
            "--trials",
            "5000",
            "--quiet",
            "--out",
            out.path().to_str().unwrap(),
        ],
        root,
    );
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    let at = md.find("## What this price leaves out").unwrap_or_else(|| panic!("no section:\n{md}"));
    let section = &md[at..at + md[at..].find("\n## ").unwrap_or(md.len() - at)];
    assert!(section.contains("Shoot phase") && section.contains("later turns"), "{section}");
    assert!(section.contains("- **Iron Hills Chariot**: ") && section.contains("Rapid-fire Bolt Thrower"), "{section}");
    assert!(
        section.contains("- **Khandish Charioteer**: ") && section.contains("bow for hand-and-a-half"),
        "{section}"
    );
}

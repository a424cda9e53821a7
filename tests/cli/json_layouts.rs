//! Every `--json` layout against its checked-in JSON Schema (`docs/<layout>.schema.json`),
//! on real output of every command, for MESBG charges, turns and BATTLESYSTEM: `run`
//! (run.schema.json and turn.schema.json, also checked in `report_content` and `turn_cli`),
//! `validate`, `replay`, `exact`, `compare`, `sweep` and `balance`, with the options that
//! change their shape (`--target-ci`, `--against` several references, a Hero riding, a turn's
//! last chariot). Each schema must also refuse that output with a required key taken away
//! or a number made a string, so none of them can pass everything; and every key a schema
//! declares must be written by some output here, so schema and records stay equal both ways.

use crate::schema;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

const MESBG: &str = "scenarios/mesbg/khandish-vs-minas-tirith.toml";
const HERO: &str = "scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml";
const TURN: &str = "scenarios/mesbg/turn-three-khandish-into-shield-wall.toml";
const CHARGE: &str = "scenarios/battlesystem/elephant-howdah-vs-pikemen.toml";
const ROUT: &str = "scenarios/battlesystem/routing-elephants-in-battle-line.toml";

fn path(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(file).to_string_lossy().into_owned()
}

/// Runs the command in `dir` and parses every line it prints as one JSON document.
fn json_of(args: &[&str], dir: &Path) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir).output().expect("runs");
    // `validate` of a file with problems answers in JSON too, with exit code 2.
    let refused = args[0] == "validate" && out.status.code() == Some(2);
    assert!(out.status.success() || refused, "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let docs: Vec<Value> = if text.trim_start().starts_with('{') && text.lines().count() > 1 && !text.contains("}\n{") {
        vec![serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}\n{text}"))]
    } else {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{args:?}: {e}\n{l}")))
            .collect()
    };
    assert!(!docs.is_empty(), "{args:?} printed nothing");
    docs
}

/// The schema file a document names (`charioteer.<layout>/N` is
/// `docs/<layout>.schema.json`), and the keys its root requires.
fn schema_for(doc: &Value) -> (String, Vec<String>) {
    let name = doc["schema"].as_str().unwrap_or_else(|| panic!("no schema field: {doc}"));
    let layout = name.strip_prefix("charioteer.").and_then(|s| s.split('/').next()).expect("charioteer.<layout>/N");
    let file = format!("docs/{layout}.schema.json");
    let root: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // The root's own, and those of each branch it chooses between (`oneOf` of two systems).
    let resolve = |v: &Value| match v["$ref"].as_str() {
        Some(r) => root.pointer(r.trim_start_matches('#')).cloned().unwrap_or(Value::Null),
        None => v.clone(),
    };
    let mut parts = vec![root.clone()];
    for key in ["oneOf", "anyOf", "allOf"] {
        parts.extend(root[key].as_array().into_iter().flatten().map(resolve));
    }
    let mut required: Vec<String> = parts
        .iter()
        .flat_map(|p| p["required"].as_array().cloned().unwrap_or_default())
        .filter_map(|k| k.as_str().map(str::to_string))
        .filter(|k| doc.get(k).is_some())
        .collect();
    required.sort();
    required.dedup();
    (file, required)
}

/// Copies of `doc` that must fail: without each key the schema requires, and with the first
/// number anywhere in it written as text.
fn broken_copies(doc: &Value, required: &[String]) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for key in required {
        let mut v = doc.clone();
        v.as_object_mut().unwrap().remove(key);
        out.push((format!("without {key:?}"), v));
    }
    fn first_number(v: &mut Value) -> bool {
        match v {
            Value::Number(n) => {
                *v = Value::String(n.to_string());
                true
            }
            Value::Array(a) => a.iter_mut().any(first_number),
            Value::Object(o) => o.iter_mut().filter(|(k, _)| *k != "schema").any(|(_, x)| first_number(x)),
            _ => false,
        }
    }
    let mut v = doc.clone();
    if first_number(&mut v) {
        out.push(("with a number as text".into(), v));
    }
    out
}

#[test]
fn every_json_layout_follows_its_schema_and_each_schema_refuses_a_broken_copy() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (mesbg, hero, turn, charge, rout) = (path(MESBG), path(HERO), path(TURN), path(CHARGE), path(ROUT));
    let sets = path("scenarios/matchups/mesbg-lines.toml");
    let units = path("scenarios/matchups/battlesystem-units.toml");
    let dragon = path("scenarios/battlesystem/dragon-with-crew.toml");
    // The same line, charged by a chariot with other Impact Hits: several like-for-like references.
    let alike = d.join("alike.toml");
    let text = std::fs::read_to_string(&mesbg).unwrap().replace("hits = \"2\"", "hits = \"D3\"");
    std::fs::write(&alike, text).unwrap();
    let alike = alike.to_str().unwrap().to_string();
    let wood = path("scenarios/mesbg/wood-into-shield-wall.toml");
    // A turn the exact engine answers, its order chosen: exact values and the orders tried.
    let small = d.join("small-turn.toml");
    let best = "\n[turn]\norder = \"best\"\nobjective = \"kills\"\n";
    std::fs::write(&small, format!("{}{best}", crate::turn_cli::SMALL_TURN)).unwrap();
    let small = small.to_str().unwrap().to_string();
    // A turn whose second chariot drives away from everything: a warning in run.json.
    let away = d.join("away-turn.toml");
    std::fs::write(
        &away,
        crate::turn_cli::SMALL_TURN.replace("at = [0.0, 14.0]\nfacing = 180", "at = [0.0, 14.0]\nfacing = 0"),
    )
    .unwrap();
    let away = away.to_str().unwrap().to_string();
    // A file with a problem, for validate's list of problems.
    let broken = d.join("broken.toml");
    std::fs::write(&broken, std::fs::read_to_string(&mesbg).unwrap().replace("seed = ", "seed = -")).unwrap();
    let broken = broken.to_str().unwrap().to_string();
    let runs: Vec<Vec<&str>> = vec![
        vec!["run", &hero, "--trials", "2000", "--json", "--out", "r4"],
        vec!["run", &wood, "--trials", "2000", "--json", "--out", "r5"],
        vec!["run", &mesbg, "--trials", "1000", "--target-ci", "0.2", "--json", "--out", "r6"],
        vec!["run", &rout, "--trials", "2000", "--json", "--out", "r7"],
        vec!["run", &small, "--trials", "2000", "--json", "--out", "r8"],
        vec!["run", &away, "--trials", "2000", "--json", "--out", "r9"],
        vec!["validate", &away, &broken, &sets, "--json"],
        vec!["run", &mesbg, "--trials", "2000", "--json", "--out", "r1"],
        vec!["run", &turn, "--trials", "2000", "--json", "--out", "r2"],
        vec!["run", &charge, "--trials", "2000", "--json", "--out", "r3"],
        vec!["validate", &mesbg, &turn, &charge, &rout, "--json"],
        vec!["replay", &mesbg, "--trial", "3", "--json"],
        vec!["replay", &hero, "--trial", "5", "--json"],
        vec!["replay", &turn, "--trial", "3", "--json"],
        vec!["replay", &rout, "--trial", "3", "--json"],
        vec!["exact", &mesbg, "--json", "--out", "e1"],
        vec!["exact", &hero, "--json", "--out", "e2"],
        vec!["exact", &charge, "--json", "--out", "e3"],
        vec!["compare", &mesbg, "--set", "chariot.impact.strength=5", "--trials", "2000", "--json", "--out", "c1"],
        vec!["compare", &rout, "--set", "rules.max_rerolls=1", "--trials", "2000", "--json", "--out", "c2"],
        vec![
            "compare",
            &mesbg,
            "--set",
            "chariot.move=8",
            "--target-ci",
            "0.2",
            "--trials",
            "1000",
            "--json",
            "--out",
            "c3",
        ],
        vec!["sweep", &mesbg, "--set", "chariot.impact.strength=4,5", "--trials", "2000", "--json", "--out", "s1"],
        vec![
            "sweep",
            &charge,
            "--set",
            "units[1].figures=16,20",
            "--target-ci",
            "0.5",
            "--trials",
            "1000",
            "--json",
            "--out",
            "s2",
        ],
        vec!["balance", &mesbg, "--target-efficiency", "0.25", "--trials", "2000", "--json", "--out", "b1"],
        vec!["balance", &hero, "--against", &mesbg, "--matchups", &sets, "--trials", "2000", "--json", "--out", "b2"],
        vec![
            "balance",
            &charge,
            "--against",
            &dragon,
            "--matchups",
            &units,
            "--trials",
            "2000",
            "--json",
            "--out",
            "b7",
        ],
        vec!["balance", &hero, "--target-efficiency", "0.25", "--trials", "2000", "--json", "--out", "b4"],
        vec!["balance", &mesbg, "--against", &mesbg, &alike, "--trials", "2000", "--json", "--out", "b5"],
        vec!["balance", &turn, "--target-efficiency", "0.25", "--trials", "2000", "--json", "--out", "b3"],
        vec![
            "balance",
            &mesbg,
            "--against",
            &mesbg,
            "--matchups",
            &sets,
            "--set",
            "chariot.impact.hits=1,D3",
            "--trials",
            "2000",
            "--json",
            "--out",
            "b6",
        ],
        vec![
            "balance",
            &charge,
            "--target-efficiency",
            "0.25",
            "--value",
            "net",
            "--trials",
            "2000",
            "--json",
            "--out",
            "b4",
        ],
    ];
    let mut layouts = std::collections::BTreeSet::new();
    let mut schemas = std::collections::BTreeMap::new();
    for args in &runs {
        for doc in json_of(args, d) {
            let (file, required) = schema_for(&doc);
            let schema = schemas.entry(file.clone()).or_insert_with(|| schema::Schema::load(&file));
            assert!(!required.is_empty(), "{args:?}: its schema requires nothing");
            let errors = schema.errors(&doc);
            assert!(errors.is_empty(), "{args:?} breaks its schema:\n{}\n{doc}", errors.join("\n"));
            for (how, broken) in broken_copies(&doc, &required) {
                assert!(!schema.errors(&broken).is_empty(), "{args:?}: the schema accepts the output {how}");
            }
            layouts.insert(doc["schema"].as_str().unwrap().to_string());
        }
    }
    let expected = [
        "charioteer.balance-curve/1",
        "charioteer.balance/2",
        "charioteer.exact/2",
        "charioteer.paired/2",
        "charioteer.replay/1",
        "charioteer.run/2",
        "charioteer.sweep/1",
        "charioteer.turn/1",
        "charioteer.validate/1",
    ];
    assert_eq!(layouts.iter().map(String::as_str).collect::<Vec<_>>(), expected);
    // The other way round: every key a schema declares is written by some output above, so
    // a schema cannot keep promising a key the records dropped or renamed.
    // (A cost curve's points are balance objects: `$defs.balance` is balance.schema.json,
    // held equal to it below, and its keys are written by the balances above.)
    let unused: Vec<String> = schemas
        .iter()
        .flat_map(|(file, s)| s.unused_properties().into_iter().map(move |p| (file, p)))
        .filter(|(file, p)| !(file.ends_with("balance-curve.schema.json") && p.starts_with("#/$defs/balance/")))
        .map(|(file, p)| format!("{file} {p}"))
        .collect();
    assert!(unused.is_empty(), "declared in a schema, written by no output:\n{}", unused.join("\n"));
}

#[test]
fn pairing_scenarios_of_two_kinds_names_both_kinds() {
    let dir = tempfile::tempdir().unwrap();
    let (hero, turn, charge) = (path(HERO), path(TURN), path(CHARGE));
    for (args, a_kind, b_kind) in [
        (
            vec!["balance", &hero, "--against", &turn],
            "a MESBG charge of one chariot",
            "a MESBG turn of several chariots",
        ),
        (vec!["compare", &turn, &charge], "a MESBG turn of several chariots", "a BATTLESYSTEM scenario"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_charioteer")).args(&args).current_dir(dir.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("is {a_kind}, ")) && err.contains(&format!("is {b_kind}")), "{args:?}: {err}");
    }
}

#[test]
fn the_cost_curve_schema_holds_the_balance_schema_unchanged() {
    // balance-curve.schema.json copies the balance layout into $defs.balance (the test's
    // schema reader follows only local $refs): a change to one must reach the other.
    let read = |f: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap() };
    let (curve, balance) = (read("docs/balance-curve.schema.json"), read("docs/balance.schema.json"));
    let mut root = balance.as_object().unwrap().clone();
    let defs = root.remove("$defs").unwrap();
    for k in ["$schema", "$id", "title", "description"] {
        root.remove(k);
    }
    assert_eq!(curve["$defs"]["balance"], Value::Object(root), "$defs.balance differs from balance.schema.json");
    for (name, def) in defs.as_object().unwrap() {
        assert_eq!(&curve["$defs"][name], def, "$defs.{name} differs from balance.schema.json");
    }
}

//! Fuzzing the scenario parsers and validators at scale with proptest: random byte and line
//! edits of every example scenario must never panic, only be accepted or refused with
//! problems; and whatever is accepted must compile and play without panicking.
//!
//! CI runs the same 256 cases per test every time (a pinned seed); for a long fuzzing
//! session with new ones: `CHARIOTEER_FRESH_SEEDS=1 PROPTEST_CASES=200000 cargo test
//! --release --test fuzz`.

use crate::support;

use charioteer::battlesystem;
use charioteer::mesbg::{plan, resolve, scenario};
use proptest::prelude::*;
use std::sync::atomic::AtomicBool;

fn examples() -> Vec<String> {
    let mut texts = Vec::new();
    for dir in ["scenarios/mesbg", "scenarios/battlesystem"] {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "toml") {
                texts.push(std::fs::read_to_string(path).unwrap());
            }
        }
    }
    texts
}

#[derive(Clone, Debug)]
enum Edit {
    Byte(usize, u8),
    Insert(usize, String),
    DeleteLine(usize),
    DuplicateLine(usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let junk = prop::sample::select(vec![
        "nan",
        "inf",
        "-1",
        "1e308",
        "\"\"",
        "[",
        "]",
        "{",
        "}",
        "=",
        "\"x\"",
        "[[formations]]",
        "[[units]]",
        "[chariot]",
        "[rout]",
        "9999999999999999999",
        "0",
        "true",
        "\n",
        "#",
        "'",
        "\\u0000",
        "[1, 2]",
        "{ a = 1 }",
    ]);
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Byte(i, b)),
        (any::<usize>(), junk).prop_map(|(i, s)| Edit::Insert(i, s.to_string())),
        any::<usize>().prop_map(Edit::DeleteLine),
        any::<usize>().prop_map(Edit::DuplicateLine),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for e in edits {
        let len = bytes.len().max(1);
        match e {
            Edit::Byte(i, b) => {
                if !bytes.is_empty() {
                    bytes[i % len] = *b;
                }
            }
            Edit::Insert(i, s) => {
                let at = i % (bytes.len() + 1);
                bytes.splice(at..at, s.bytes());
            }
            Edit::DeleteLine(i) | Edit::DuplicateLine(i) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let mut lines: Vec<&str> = text.split('\n').collect();
                let k = i % lines.len();
                if matches!(e, Edit::DeleteLine(_)) {
                    lines.remove(k);
                } else {
                    lines.insert(k, lines[k]);
                }
                bytes = lines.join("\n").into_bytes();
            }
            Edit::Truncate(i) => bytes.truncate(i % len),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

proptest! {
    #![proptest_config(support::proptest_config(256, 20_261_203))]

    #[test]
    fn edited_scenarios_never_panic(which in any::<usize>(), edits in prop::collection::vec(edit(), 1..6)) {
        let texts = examples();
        let text = apply(&texts[which % texts.len()], &edits);
        let never = AtomicBool::new(false);
        let range = resolve::TrialRange { first: 0, count: 200 };
        if let Ok(s) = scenario::parse(&text, "fuzz.toml") {
            let plan = plan::compile(&s);
            let streams = resolve::Streams::new(s.seed, s.hash());
            resolve::run(&plan, streams, range, &|_| {}, &never).unwrap();
            let _ = charioteer::mesbg::exact::exact(&plan);
        }
        if let Ok(s) = battlesystem::scenario::parse(&text, "fuzz.toml") {
            let plan = battlesystem::resolve::compile(&s);
            let streams = resolve::Streams::new(s.seed, s.hash());
            battlesystem::resolve::run(&plan, streams, range, &|_| {}, &never).unwrap();
            let _ = battlesystem::exact::charge_hits_on_target(&plan);
        }
    }
}

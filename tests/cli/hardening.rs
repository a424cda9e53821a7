//! Hostile input: every file of the corpus in `tests/bad-scenarios/` (written by
//! `scripts/make-bad-scenarios.py`) is refused by `validate` and by `run` with exit code 2,
//! no panic, no report, and a message holding every substring its `# expect:` line lists
//! (the line and the dotted field for every mutated field).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn charioteer(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir).output().expect("binary runs")
}

fn corpus() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("tests/bad-scenarios")
        .expect("the corpus folder")
        .map(|e| std::fs::canonicalize(e.expect("entry").path()).expect("path"))
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

fn expectations(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).expect("readable");
    let first = bytes.split(|b| *b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(first);
    let list = line.strip_prefix("# expect: ").unwrap_or_else(|| panic!("{}: no `# expect:` line", path.display()));
    list.split(" | ").map(str::to_string).collect()
}

#[test]
fn every_bad_scenario_is_refused_with_its_field_and_line() {
    let files = corpus();
    assert!(files.len() >= 200, "the corpus has {} files", files.len());
    let dir = tempfile::tempdir().expect("temp dir");
    let failures: Vec<String> = std::thread::scope(|scope| {
        let chunks: Vec<_> = files.chunks(files.len().div_ceil(4)).collect();
        let handles: Vec<_> = chunks
            .into_iter()
            .map(|chunk| {
                let dir = dir.path();
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for file in chunk {
                        let expect = expectations(file);
                        let name = file.to_str().expect("utf-8 path");
                        let out_dir = dir.join(file.file_stem().expect("stem"));
                        let out_arg = out_dir.to_str().expect("utf-8");
                        for args in [vec!["validate", name], vec!["run", name, "--out", out_arg, "--trials", "1000"]] {
                            let out = charioteer(&args, dir);
                            let err = String::from_utf8_lossy(&out.stderr);
                            let missing: Vec<&String> = expect.iter().filter(|e| !err.contains(e.as_str())).collect();
                            if out.status.code() != Some(2) || err.contains("panicked") || !missing.is_empty() {
                                failures.push(format!(
                                    "{} ({}): exit {:?}, missing {missing:?}: {err}",
                                    file.display(),
                                    args[0],
                                    out.status.code()
                                ));
                            }
                        }
                        if out_dir.exists() {
                            failures.push(format!("{}: `run` left a report folder", file.display()));
                        }
                    }
                    failures
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("worker")).collect()
    });
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_file_over_the_size_limit_is_refused_before_it_is_parsed() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = format!("title = \"big\"\nsystem = \"mesbg\"\n# {}\n", "x".repeat(1 << 20));
    std::fs::write(dir.path().join("big.toml"), text).expect("write");
    let out = charioteer(&["validate", "big.toml"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bytes; a scenario may be at most 1048576 bytes"));
}

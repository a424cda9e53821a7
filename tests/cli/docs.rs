//! The documents cite tests and code by name; a name that no longer exists (renamed,
//! removed) must fail the suite rather than leave a table pointing at nothing.

use std::path::Path;

/// Every Rust source under `dir`, concatenated.
fn sources(dir: &Path, into: &mut String) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push_str(&std::fs::read_to_string(&path).unwrap());
        }
    }
}

#[test]
fn every_test_the_coverage_documents_cite_exists() {
    let mut code = String::new();
    sources(Path::new("src"), &mut code);
    sources(Path::new("tests"), &mut code);
    for (file, least) in [("docs/seed-coverage.md", 20), ("docs/readme-coverage.md", 20), ("docs/maintaining.md", 10)] {
        check_citations(file, &code, least);
    }
}

/// The stems of the integration test modules (`choices` for `tests/rules/choices.rs`, a
/// module of the `rules` test crate, and `web_load` for the crate `tests/web_load.rs`): a
/// citation starting with one names a test.
fn test_file_stems() -> Vec<String> {
    let mut stems = Vec::new();
    for krate in std::fs::read_dir("tests").unwrap().filter_map(|e| e.ok()).map(|e| e.path()) {
        // A test crate of one file (`tests/web_load.rs`).
        if krate.extension().is_some_and(|e| e == "rs") {
            stems.extend(krate.file_stem().and_then(|s| s.to_str()).map(str::to_string));
            continue;
        }
        if !krate.join("main.rs").is_file() {
            continue; // fixtures (`tests/scenarios`, `tests/bad-scenarios`)
        }
        for entry in std::fs::read_dir(&krate).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("main.rs") {
                stems.extend(path.file_stem().and_then(|s| s.to_str()).map(str::to_string));
            }
        }
    }
    assert!(stems.len() > 20, "test modules found: {stems:?}");
    stems
}

/// Every source file under `src`, with its module path (`mesbg/rules/fight/mod.rs` is
/// `["mesbg", "rules", "fight"]`).
fn modules(dir: &Path, into: &mut Vec<(Vec<String>, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            modules(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let segments: Vec<String> = path
                .strip_prefix("src")
                .unwrap()
                .with_extension("")
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !matches!(s.as_str(), "mod" | "lib" | "main"))
                .collect();
            into.push((segments, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// Whether `name` stands in `text` as a whole word (defined, re-exported or a field there).
fn has_word(text: &str, name: &str) -> bool {
    let identifier = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(identifier)
            && !text[at + name.len()..].chars().next().is_some_and(identifier)
    })
}

/// The code the coverage documents cite (`plan::drive`, `resolve::ChariotState::terrain_test`,
/// `rules::fight::settle_strike`): its modules exist as one path of `src/` (a path's tail
/// may leave out `mesbg::` or `battlesystem::`), and its items are defined or re-exported in
/// a file of that path (as a whole word there: a name that moves or goes fails).
#[test]
fn every_piece_of_code_the_coverage_documents_cite_exists_where_they_say() {
    let mut files = Vec::new();
    modules(Path::new("src"), &mut files);
    let test_files = test_file_stems();
    // docs/readme-coverage.md cites tests only.
    for (file, least) in [("docs/seed-coverage.md", 20), ("docs/maintaining.md", 20)] {
        check_code_citations(file, &files, &test_files, least);
    }
}

/// Asserts every module path `file` cites (`mesbg::rules::saves`, `tools::balance::balance`)
/// is a module of `src/` holding the named items, and that it cites at least `least`.
fn check_code_citations(file: &str, files: &[(Vec<String>, String)], test_files: &[String], least: usize) {
    let doc = std::fs::read_to_string(file).unwrap();
    let mut cited = 0;
    for quoted in doc.split('`').skip(1).step_by(2) {
        let parts: Vec<&str> = quoted.split("::").collect();
        let identifiers = parts.len() >= 2
            && parts.iter().all(|p| {
                p.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            });
        // Tests (`...::tests::name`, `exact::z_tests::name`, `choices::name`) are checked by
        // `every_test_the_coverage_documents_cite_exists`.
        let a_test = parts.iter().any(|p| p.ends_with("tests")) || test_files.iter().any(|f| f == parts[0]);
        if !identifiers || a_test || !parts[0].starts_with(|c: char| c.is_ascii_lowercase()) {
            continue;
        }
        // The leading lower-case segments are modules; the rest are items.
        let modules_end = parts.iter().position(|p| !p.starts_with(|c: char| c.is_ascii_lowercase()));
        let (path, items) = match modules_end {
            Some(i) => (&parts[..i], &parts[i..]),
            // All lower-case: the last is a function, field or module.
            None => (&parts[..parts.len() - 1], &parts[parts.len() - 1..]),
        };
        // Files whose module path holds `path` (then perhaps deeper modules).
        let holds = |segments: &[String], path: &[&str]| segments.windows(path.len()).any(|w| w == path);
        let in_path: Vec<&String> =
            files.iter().filter(|(segments, _)| holds(segments, path)).map(|(_, text)| text).collect();
        assert!(!in_path.is_empty(), "{file} cites `{quoted}`: no module `{}` in src/", path.join("::"));
        for item in items {
            // Named in one of its files, or a module file of its own under the path.
            let path_and_item: Vec<&str> = path.iter().copied().chain([*item]).collect();
            let named = in_path.iter().any(|text| has_word(text, item))
                || files.iter().any(|(segments, _)| holds(segments, &path_and_item));
            assert!(named, "{file} cites `{quoted}`: `{item}` is not in `{}`", path.join("::"));
        }
        cited += 1;
    }
    assert!(cited >= least, "{file}: only {cited} code citations found: the pattern no longer matches the document");
}

/// Asserts every test `file` cites is a function in `code` (and that it cites at least
/// `least`, so a change of pattern cannot pass by matching nothing).
fn check_citations(file: &str, code: &str, least: usize) {
    let doc = std::fs::read_to_string(file).unwrap();
    let test_files = test_file_stems();
    let mut cited = 0;
    for quoted in doc.split('`').skip(1).step_by(2) {
        // Citations of tests: `file::name` or `module::tests::name` (lower-case paths).
        let parts: Vec<&str> = quoted.split("::").collect();
        let Some(name) = parts.last() else { continue };
        let is_path = parts.len() >= 2
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
        // A test file's stem (`choices::...`), or a module's unit tests (`...::tests::...`).
        let is_test = parts.contains(&"tests") || test_files.iter().any(|f| f == parts[0]);
        if !is_path || !is_test || name.is_empty() {
            continue;
        }
        cited += 1;
        assert!(code.contains(&format!("fn {name}(")), "{file} cites `{quoted}`, which does not exist");
    }
    assert!(cited >= least, "{file}: only {cited} citations found: the pattern no longer matches the document");
}

/// The TOML names of the fields of every `Raw*` struct (the file as written) in the Rust
/// sources under `dir`, serde renames applied.
fn raw_fields(dir: &Path) -> Vec<(String, String)> {
    let mut code = String::new();
    sources(dir, &mut code);
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    let mut rename: Option<String> = None;
    let mut rules_table = false;
    for line in code.lines() {
        let trimmed = line.trim_start();
        // The `[rules]` table is generated from the rows of `mesbg_rules! { ... }` (each
        // `field: Type = default, hash ...`), the file's RawRules included.
        if line.starts_with("mesbg_rules! {") {
            rules_table = true;
            continue;
        }
        if rules_table {
            if line.starts_with('}') {
                rules_table = false;
            } else if let Some((ident, rest)) = line.strip_prefix("    ").and_then(|l| l.split_once(": "))
                && rest.contains(", hash ")
                && ident.chars().all(|c| c.is_ascii_lowercase() || c == '_')
            {
                out.push(("RawRules".to_string(), ident.to_string()));
            }
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix("pub(super) struct Raw").or_else(|| trimmed.strip_prefix("struct Raw"))
        {
            current = Some(format!("Raw{}", rest.split([' ', '{', '<']).next().unwrap_or_default()));
            continue;
        }
        if line.starts_with('}') {
            current = None;
            continue;
        }
        let Some(name) = &current else { continue };
        if let Some(at) = trimmed.find("rename = \"") {
            rename = trimmed[at + 10..].split('"').next().map(str::to_string);
            continue;
        }
        let field = trimmed.strip_prefix("pub(super) ").unwrap_or(trimmed);
        if let Some((ident, _)) = field.split_once(':')
            && !ident.is_empty()
            && ident.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        {
            out.push((name.clone(), rename.take().unwrap_or_else(|| ident.to_string())));
        }
    }
    out
}

#[test]
fn the_scenario_reference_names_every_field_the_readers_accept() {
    let doc = std::fs::read_to_string("docs/scenario.md").unwrap();
    let (mesbg, battlesystem) = doc.split_once("## BATTLESYSTEM").expect("a BATTLESYSTEM section");
    // A field is named when it stands in backticks, alone or in an example (`kind = "..."`).
    let named = |part: &str, field: &str| {
        part.split('`')
            .skip(1)
            .step_by(2)
            .any(|code| code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|word| word == field))
    };
    for (part, dir, expected) in [(mesbg, "src/mesbg/scenario", 80), (battlesystem, "src/battlesystem/scenario", 40)] {
        let fields = raw_fields(Path::new(dir));
        assert!(fields.len() >= expected, "{dir}: only {} fields found: {fields:?}", fields.len());
        let missing: Vec<String> =
            fields.iter().filter(|(_, f)| !named(part, f)).map(|(s, f)| format!("{s}.{f}")).collect();
        assert!(missing.is_empty(), "docs/scenario.md does not name: {missing:?}");
    }
    // The command line points to it.
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_charioteer")).args(["run", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("docs/scenario.md"));
    let help =
        std::process::Command::new(env!("CARGO_BIN_EXE_charioteer")).args(["validate", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("docs/scenario.md"));
}

/// The "Start here" files of docs/scenario.md are the files in docs/examples, in order, and
/// what `charioteer new KIND` prints; each one runs (a few trials) as a new user would run
/// it, the matchup set through `balance`.
#[test]
fn the_starting_files_are_shown_printed_by_new_and_each_runs() {
    let doc = std::fs::read_to_string("docs/scenario.md").unwrap();
    let start = doc.split_once("## Start here").expect("a Start here section").1;
    let start = start.split_once("## MESBG").expect("the MESBG section follows").0;
    let blocks: Vec<&str> =
        start.split("```toml\n").skip(1).map(|b| b.split_once("```").expect("a closed block").0).collect();
    let files = [
        ("charge", "charge.toml"),
        ("turn", "turn.toml"),
        ("line", "captain-banner-spears.toml"),
        ("battlesystem-charge", "battlesystem-charge.toml"),
        ("rout", "battlesystem-rout.toml"),
        ("matchups", "matchups.toml"),
    ];
    assert_eq!(blocks.len(), files.len(), "one block per starting file");
    let dir = tempfile::tempdir().unwrap();
    let charioteer = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_charioteer"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    for ((kind, file), block) in files.iter().zip(&blocks) {
        let path = std::path::Path::new("docs/examples").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, *block, "docs/scenario.md shows {file} as it is");
        let printed = charioteer(&["new", kind]);
        assert!(printed.status.success());
        assert_eq!(String::from_utf8_lossy(&printed.stdout), text, "charioteer new {kind}");
        std::fs::write(dir.path().join(file), &text).unwrap();
    }
    for file in
        ["charge.toml", "turn.toml", "captain-banner-spears.toml", "battlesystem-charge.toml", "battlesystem-rout.toml"]
    {
        let out =
            charioteer(&["run", file, "--trials", "2000", "--quiet", "--no-exact", "--out", &format!("out-{file}")]);
        assert!(out.status.success(), "{file}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out = charioteer(&[
        "balance",
        "charge.toml",
        "--against",
        "charge.toml",
        "--matchups",
        "matchups.toml",
        "--trials",
        "2000",
        "--quiet",
        "--out",
        "priced",
    ]);
    assert!(out.status.success(), "matchups: {}", String::from_utf8_lossy(&out.stderr));
    let unknown = charioteer(&["new", "chariot-race"]);
    assert!(!unknown.status.success() && String::from_utf8_lossy(&unknown.stderr).contains("choose one of"));
}

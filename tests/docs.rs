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
    for file in ["docs/seed-coverage.md", "docs/readme-coverage.md"] {
        check_citations(file, &code);
    }
}

/// Asserts every test `file` cites is a function in `code`.
fn check_citations(file: &str, code: &str) {
    let doc = std::fs::read_to_string(file).unwrap();
    let test_files: Vec<String> = std::fs::read_dir("tests")
        .unwrap()
        .filter_map(|e| {
            let path = e.ok()?.path();
            (path.extension()? == "rs").then(|| path.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
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
    assert!(cited > 20, "{file}: only {cited} citations found: the pattern no longer matches the document");
}

/// The TOML names of the fields of every `Raw*` struct (the file as written) in the Rust
/// sources under `dir`, serde renames applied.
fn raw_fields(dir: &Path) -> Vec<(String, String)> {
    let mut code = String::new();
    sources(dir, &mut code);
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    let mut rename: Option<String> = None;
    for line in code.lines() {
        let trimmed = line.trim_start();
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

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
    let mut cited = 0;
    for quoted in doc.split('`').skip(1).step_by(2) {
        // Citations of tests: `file::name` or `module::tests::name` (lower-case paths).
        let parts: Vec<&str> = quoted.split("::").collect();
        let Some(name) = parts.last() else { continue };
        let is_path = parts.len() >= 2
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'));
        let is_test = parts.contains(&"tests")
            || [
                "statistics",
                "readings",
                "battlesystem",
                "properties",
                "exact",
                "rules_oracle",
                "cli",
                "cli_matrix",
                "examples",
                "report_content",
                "paired",
            ]
            .contains(&parts[0]);
        if !is_path || !is_test || name.is_empty() {
            continue;
        }
        cited += 1;
        assert!(code.contains(&format!("fn {name}(")), "{file} cites `{quoted}`, which does not exist");
    }
    assert!(cited > 20, "{file}: only {cited} citations found: the pattern no longer matches the document");
}

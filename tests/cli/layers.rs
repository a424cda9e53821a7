//! The code's layers stay one-way: no two files of `src/` name each other (a folder's
//! `mod.rs` and its own files aside), and the turn's folder stays in files a person can
//! read. Paths are read from the source text (`crate::`, `$crate::`, `super::`, `self::`),
//! inside inline modules (`mod tests { use super::... }`) as the compiler reads them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every `.rs` file under `dir`, by its path relative to `root`.
fn files(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).expect("src/ reads") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).expect("under src").to_string_lossy().replace('\\', "/");
            out.insert(rel, std::fs::read_to_string(&path).expect("a source reads"));
        }
    }
}

/// The module path of a file: `mesbg/turn/plan.rs` -> `[mesbg, turn, plan]`, a `mod.rs`
/// its folder's, `lib.rs` and `main.rs` the crate's.
fn module_of(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        parts.pop();
    }
    parts
}

/// The text with comments, string and character literals blanked (so a path in a comment
/// or a message is not read as an import).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'r' && (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#')) && !ident(b, i) {
            // A raw string: r"..." or r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&b'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(b[i] as char);
                i += 1;
                continue;
            }
            j += 1;
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            i = j + close.len();
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            i += 3;
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Whether the byte at `i` continues an identifier (so `r` there is not a raw string's).
fn ident(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// The module paths a file names, absolute (`crate` dropped), read as the compiler scopes
/// them: `super::` inside `mod tests { }` is the file's own module.
fn named_paths(rel: &str, text: &str) -> Vec<Vec<String>> {
    let code = code_only(text);
    let file_module = module_of(rel);
    let b = code.as_bytes();
    let mut out = Vec::new();
    // Inline modules open: (name, brace depth inside them).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let word_at = |i: usize| -> Option<&str> {
        if ident(b, i) {
            return None;
        }
        let end = (i..b.len()).find(|&j| !(b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'$'))?;
        (end > i).then(|| &code[i..end])
    };
    while i < b.len() {
        match b[i] {
            b'{' => {
                depth += 1;
                i += 1;
                continue;
            }
            b'}' => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
                continue;
            }
            _ => {}
        }
        let Some(word) = word_at(i) else {
            i += 1;
            continue;
        };
        if word == "mod" {
            // `mod name {` opens an inline module; `mod name;` names a file.
            let rest = code[i + 3..].trim_start();
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            let after = rest[name.len()..].trim_start();
            if !name.is_empty() && after.starts_with('{') {
                inline.push((name, depth + 1));
            }
            i += 3;
            continue;
        }
        if matches!(word, "crate" | "$crate" | "super" | "self") && code[i + word.len()..].starts_with("::") {
            let mut base: Vec<String> = file_module.clone();
            base.extend(inline.iter().map(|(n, _)| n.clone()));
            let mut j = i;
            // The path's leading keywords.
            while let Some(w) = word_at(j) {
                match w {
                    "crate" | "$crate" => base.clear(),
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                j += w.len();
                if code[j..].starts_with("::") {
                    j += 2;
                } else {
                    break;
                }
            }
            // The rest: segments, and a group's first segments.
            let mut path = base;
            loop {
                if b.get(j) == Some(&b'{') {
                    let close = matching(b, j);
                    for item in split_top(&code[j + 1..close]) {
                        let mut p = path.clone();
                        p.extend(item.split("::").map(|s| s.trim().to_string()).take_while(|s| is_ident(s)));
                        out.push(p);
                    }
                    break;
                }
                let Some(w) = word_at(j) else { break };
                if !is_ident(w) {
                    break;
                }
                path.push(w.to_string());
                j += w.len();
                if code[j..].starts_with("::") {
                    j += 2;
                } else {
                    break;
                }
            }
            out.push(path);
            i = j.max(i + 1);
            continue;
        }
        i += word.len();
    }
    out
}

fn is_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The index of the brace closing the one at `open`.
fn matching(b: &[u8], open: usize) -> usize {
    let mut depth = 0;
    for (k, &c) in b.iter().enumerate().skip(open) {
        match c {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    b.len()
}

/// A group's items at its top level (`a, b::{c, d}, e` -> `a`, `b::{c, d}`, `e`).
fn split_top(group: &str) -> Vec<String> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (k, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(group[start..k].trim().to_string());
                start = k + 1;
            }
            _ => {}
        }
    }
    items.push(group[start..].trim().to_string());
    items.into_iter().filter(|s| !s.is_empty()).collect()
}

/// Whether `a` and `b` are a folder's `mod.rs` and one of that folder's own files (or
/// sub-folders' `mod.rs`), or the crate root and a top module: a parent and its child.
fn parent_and_child(a: &str, b: &str) -> bool {
    let child_of = |parent: &str, child: &str| {
        let folder = match parent {
            "lib.rs" | "main.rs" => "",
            p if p.ends_with("/mod.rs") => &p[..p.len() - "mod.rs".len()],
            _ => return false,
        };
        let Some(rest) = child.strip_prefix(folder) else { return false };
        !rest.contains('/') || (rest.matches('/').count() == 1 && rest.ends_with("/mod.rs"))
    };
    child_of(a, b) || child_of(b, a)
}

/// Each file of `src/` and the files it names.
fn import_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut sources = BTreeMap::new();
    files(Path::new("src"), Path::new("src"), &mut sources);
    let modules: BTreeMap<Vec<String>, String> = sources.keys().map(|rel| (module_of(rel), rel.clone())).collect();
    let mut graph = BTreeMap::new();
    for (rel, text) in &sources {
        let mut names = BTreeSet::new();
        for path in named_paths(rel, text) {
            // The longest prefix of the path that is a file's module.
            let file = (0..=path.len()).rev().find_map(|k| modules.get(&path[..k]));
            if let Some(file) = file
                && file != rel
            {
                names.insert(file.clone());
            }
        }
        graph.insert(rel.clone(), names);
    }
    graph
}

#[test]
fn no_two_files_of_src_import_each_other() {
    let graph = import_graph();
    assert!(graph.len() > 50, "the sources were read: {} files", graph.len());
    let mut pairs = Vec::new();
    for (a, names) in &graph {
        for b in names {
            if a < b && graph.get(b).is_some_and(|n| n.contains(a)) && !parent_and_child(a, b) {
                pairs.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(
        pairs.is_empty(),
        "files that import each other (move the shared names down to where both can use them):\n{}",
        pairs.join("\n")
    );
}

#[test]
fn the_checker_reads_paths_as_the_compiler_scopes_them() {
    let text = "use super::a::{b, c::{d, e}};\nuse crate::x::y; // crate::comment::ignored\n\
                fn f() { let s = \"crate::in_string\"; $crate::m::n!(); }\n\
                mod tests { use super::z; }\n";
    let paths = named_paths("p/q.rs", text);
    let has = |p: &[&str]| paths.iter().any(|x| x.iter().map(String::as_str).eq(p.iter().copied()));
    assert!(has(&["p", "a", "b"]), "{paths:?}");
    assert!(has(&["p", "a", "c", "d"]) || has(&["p", "a", "c"]), "{paths:?}");
    assert!(has(&["x", "y"]), "{paths:?}");
    assert!(has(&["m", "n"]), "{paths:?}");
    assert!(has(&["p", "q", "z"]), "super inside `mod tests` is the file itself: {paths:?}");
    assert!(!paths.iter().flatten().any(|s| s == "comment" || s == "in_string"), "{paths:?}");
    assert!(parent_and_child("report/mod.rs", "report/record.rs"));
    assert!(parent_and_child("report/mod.rs", "report/charts/mod.rs"));
    assert!(!parent_and_child("report/document.rs", "report/record.rs"));
    assert!(!parent_and_child("mesbg/rules/duel.rs", "mesbg/rules/fight/mod.rs"));
}

#[test]
fn no_file_of_the_turn_is_over_600_lines() {
    let mut sources = BTreeMap::new();
    files(Path::new("src"), Path::new("src/mesbg/turn"), &mut sources);
    assert!(sources.len() >= 10, "the turn's folder was read");
    let long: Vec<String> = sources
        .iter()
        .filter(|(_, text)| text.lines().count() > 600)
        .map(|(rel, text)| format!("{rel}: {} lines", text.lines().count()))
        .collect();
    assert!(long.is_empty(), "split these by what they hold: {long:?}");
}

/// A test file is a module of its test crate (`tests/rules/turn.rs` of `tests/rules/main.rs`):
/// one left out of its `main.rs` would never run, and nothing else would say so.
#[test]
fn every_test_file_is_a_module_of_its_crate() {
    let mut crates = 0;
    for krate in std::fs::read_dir("tests").unwrap().map(|e| e.unwrap().path()) {
        let Ok(main) = std::fs::read_to_string(krate.join("main.rs")) else { continue };
        crates += 1;
        for entry in std::fs::read_dir(&krate).unwrap() {
            let path = entry.unwrap().path();
            let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else { continue };
            let module = path.extension().is_some_and(|e| e == "rs") || path.join("mod.rs").is_file();
            if !module || stem == "main" {
                continue;
            }
            assert!(
                main.lines().any(|l| l.trim() == format!("mod {stem};")),
                "{} is not declared in {}: add `mod {stem};` there, or it never runs",
                path.display(),
                krate.join("main.rs").display()
            );
        }
    }
    assert!(crates >= 4, "test crates found: {crates}");
}

//! Locating a dotted field path (`formations[1].profile.wounds`) in the TOML source, and
//! the field at a byte offset, so every message names its line.

/// The 1-based line holding byte `offset`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|b| **b == b'\n').count() + 1
}

enum Step<'p> {
    Key(&'p str),
    Index(usize),
}

fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, rest) = part.split_once('[').unwrap_or((part, ""));
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        for idx in rest.split('[') {
            if let Ok(i) = idx.trim_end_matches(']').parse() {
                out.push(Step::Index(i));
            }
        }
    }
    out
}

/// The line of a field given by its dotted path (the deepest part of it found).
pub fn locate(text: &str, field: &str) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    let doc = DeTable::parse(text).ok()?;
    let mut span = None;
    let mut table = Some(doc.get_ref());
    let mut array: Option<&toml::de::DeArray<'_>> = None;
    for step in steps(field) {
        let found = match (step, table, array) {
            (Step::Key(k), Some(t), _) => t.get(k).map(|v| {
                let key_span = t.get_key_value(k).map(|(key, _)| key.span());
                (v, key_span)
            }),
            (Step::Index(i), _, Some(a)) => a.get(i).map(|v| (v, None)),
            _ => None,
        };
        let Some((value, key_span)) = found else { break };
        span = key_span.or(Some(value.span())).or(span);
        table = None;
        array = None;
        match value.get_ref() {
            DeValue::Table(t) => table = Some(t),
            DeValue::Array(a) => array = Some(a),
            _ => {}
        }
    }
    span.map(|s| line_of(text, s.start))
}

/// The dotted path of the innermost field whose key or value covers byte `offset`.
///
/// Table spans cover only their headers, so the whole tree is searched, not just the
/// branch that seems to contain the offset.
pub(crate) fn field_at(text: &str, offset: usize) -> String {
    use toml::de::{DeTable, DeValue};
    fn walk(value: &DeValue<'_>, offset: usize, path: &str, best: &mut Option<String>) {
        let mut visit = |child: String, covers: bool, v: &DeValue<'_>| {
            if covers && best.as_ref().is_none_or(|b| child.len() > b.len()) {
                *best = Some(child.clone());
            }
            walk(v, offset, &child, best);
        };
        match value {
            DeValue::Table(t) => {
                for (k, v) in t.iter() {
                    let child =
                        if path.is_empty() { k.get_ref().to_string() } else { format!("{path}.{}", k.get_ref()) };
                    let covers = k.span().contains(&offset) || v.span().contains(&offset);
                    visit(child, covers, v.get_ref());
                }
            }
            DeValue::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    visit(format!("{path}[{i}]"), v.span().contains(&offset), v.get_ref());
                }
            }
            _ => {}
        }
    }
    let Ok(doc) = DeTable::parse(text) else { return String::new() };
    let mut best = None;
    walk(&DeValue::Table(doc.into_inner()), offset, "", &mut best);
    best.unwrap_or_default()
}

/// The deepest item of `text` (a key with its value, or an array element) whose key or
/// value covers byte `offset`: its dotted path and the bytes it takes (a `[table]` header's
/// whole section, up to the next header). `None` when no item covers it or the text does
/// not parse.
pub(crate) fn item_at(text: &str, offset: usize) -> Option<(String, std::ops::Range<usize>)> {
    use toml::de::{DeTable, DeValue};
    type Best = Option<(String, std::ops::Range<usize>)>;
    fn walk(value: &DeValue<'_>, offset: usize, path: &str, best: &mut Best) {
        match value {
            DeValue::Table(t) => {
                for (k, v) in t.iter() {
                    let child =
                        if path.is_empty() { k.get_ref().to_string() } else { format!("{path}.{}", k.get_ref()) };
                    if k.span().contains(&offset) || v.span().contains(&offset) {
                        let range = k.span().start.min(v.span().start)..k.span().end.max(v.span().end);
                        if best.as_ref().is_none_or(|b| child.len() > b.0.len()) {
                            *best = Some((child.clone(), range));
                        }
                    }
                    walk(v.get_ref(), offset, &child, best);
                }
            }
            DeValue::Array(a) => {
                for (i, v) in a.iter().enumerate() {
                    let child = format!("{path}[{i}]");
                    if v.span().contains(&offset) && best.as_ref().is_none_or(|b| child.len() > b.0.len()) {
                        *best = Some((child.clone(), v.span()));
                    }
                    walk(v.get_ref(), offset, &child, best);
                }
            }
            _ => {}
        }
    }
    let doc = DeTable::parse(text).ok()?;
    let mut best = None;
    walk(&DeValue::Table(doc.into_inner()), offset, "", &mut best);
    let (path, mut range) = best?;
    // A `[table]` or `[[table]]` header: its section runs to the next header.
    let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    if text[line_start..].trim_start().starts_with('[') {
        let after = text[range.start..].find('\n').map_or(text.len(), |i| range.start + i + 1);
        let mut end = after;
        for line in text[after..].split_inclusive('\n') {
            if line.trim_start().starts_with('[') {
                break;
            }
            end += line.len();
        }
        range = line_start..end.max(range.end);
    }
    Some((path, range))
}

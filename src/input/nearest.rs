//! "Did you mean": the known names nearest to one a user mistyped.

/// The edits (insert, delete, replace one character) that turn `a` into `b`, ignoring case.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let replaced = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = replaced.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// Up to three of `known` nearest to `name`, nearest first: a name within a third of its
/// length in edits (at least 3), or one holding every word typed, and no more than two
/// edits further than the nearest. Empty when none is near: a name far from all is better
/// answered by the whole list.
pub fn nearest_names<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let words: Vec<String> = name.split_whitespace().map(str::to_lowercase).filter(|w| w.len() > 2).collect();
    let bound = (name.chars().count() / 3).max(3);
    let mut near: Vec<(usize, &str)> = known
        .into_iter()
        .filter_map(|k| {
            let d = edit_distance(name, k);
            let lower = k.to_lowercase();
            let holds = !words.is_empty() && words.iter().all(|w| lower.contains(w.as_str()));
            (d <= bound || holds).then_some((d, k))
        })
        .collect();
    near.sort();
    // Only those about as near as the nearest: a typo's one match, not its neighbours.
    let best = near.first().map_or(0, |n| n.0);
    near.into_iter().filter(|n| n.0 <= best + 2).take(3).map(|(_, k)| k).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_are_counted_as_a_person_would() {
        assert_eq!(edit_distance("warrior", "Warrior"), 0);
        assert_eq!(edit_distance("Warior", "Warrior"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn a_typo_finds_the_name_and_a_stranger_finds_none() {
        let known = ["Warrior of Minas Tirith", "Warrior of Rohan", "Cave Troll", "Khandish Charioteer"];
        assert_eq!(nearest_names("Warior of Minas Tirth", known), vec!["Warrior of Minas Tirith"]);
        assert_eq!(nearest_names("warrior of rohan", known), vec!["Warrior of Rohan"]);
        assert_eq!(nearest_names("Kandish Chariot", known), vec!["Khandish Charioteer"]);
        // Every word typed, in a longer name.
        assert_eq!(nearest_names("troll", known), vec!["Cave Troll"]);
        assert!(nearest_names("Balrog", known).is_empty());
    }
}

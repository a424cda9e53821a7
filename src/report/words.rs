//! Numbers in words, as every report and the terminal print them: percentages, counts with
//! their nouns, digits in groups of three, where trials ran.

/// A probability as a percentage: two decimals from 1% up, two significant digits below
/// (so a rare event's interval still shows), and a plain "0%" for never.
pub fn percent(p: f64) -> String {
    let pct = p * 100.0;
    if pct == 0.0 {
        "0%".to_string()
    } else if pct.abs() >= 1.0 {
        format!("{pct:.2}%")
    } else {
        let decimals = (1 - pct.abs().log10().floor() as i32).clamp(2, 12) as usize;
        format!("{pct:.decimals$}%")
    }
}

/// A count with its noun, singular for one: "1 thread", "2 threads", "1,200 models".
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{} {noun}s", group_digits(n)) }
}

/// Where trials ran, in words: "1 thread", "2 threads", or "merged shards" (`threads` 0,
/// a merge of shards played elsewhere).
pub fn played_on(threads: usize) -> String {
    if threads == 0 { "merged shards".to_string() } else { counted(threads as u64, "thread") }
}

/// A name's possessive: "the Captain's", "the Knights'" (a plural ending in s).
pub fn possessive(name: &str) -> String {
    if name.ends_with('s') { format!("{name}'") } else { format!("{name}'s") }
}

/// 1234567 -> "1,234,567".
pub fn group_digits(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A mean of a count, to three decimals.
pub fn mean(value: f64) -> String {
    format!("{value:.3}")
}

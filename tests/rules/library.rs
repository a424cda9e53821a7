//! The bundled 2024 profile library: size, points and sources; Defence and points that follow
//! the wargear rules when options are chosen beside a name; and, per army, three profiles
//! checked against numbers typed here from the cited source (the 2024 army-builder data of
//! github.com/avcordaro/mesbg-list-builder-v2024, read 2026-12-07), not read back from the
//! library file.

use charioteer::mesbg::scenario::{LibraryProfile, bundled_library_profiles, parse};

fn find(name: &str) -> LibraryProfile {
    bundled_library_profiles().into_iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no profile named {name}"))
}

fn option(p: &LibraryProfile, name: &str) -> Option<i64> {
    p.options.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
}

/// A one-formation scenario of `count` models named `profile`, with `beside` written beside
/// the name (e.g. "shield = true").
fn line(profile: &str, beside: &str) -> String {
    format!(
        r#"
title = "library check"
system = "mesbg"
[chariot]
profile = "Khandish Charioteer"
side = "evil"
at = [0.0, 0.0]
[[formations]]
name = "Line"
count = 3
front_centre = [0.0, 6.0]
facing = 180
profile = "{profile}"
{beside}
"#
    )
}

#[test]
fn the_library_holds_150_profiles_each_with_points_a_source_and_an_army() {
    let all = bundled_library_profiles();
    assert!(all.len() >= 150, "{} profiles", all.len());
    for p in &all {
        assert!(p.points.is_some_and(|pts| pts > 0), "{} has no points", p.name);
        assert!(!p.source.trim().is_empty(), "{} has no source", p.name);
        assert!(!p.army.trim().is_empty(), "{} names no army list", p.name);
        let [f, s, d, a, w] = p.fsdaw;
        assert!((1..=10).contains(&f) && (1..=10).contains(&s) && (1..=10).contains(&d), "{}", p.name);
        assert!((0..=10).contains(&a) && (1..=20).contains(&w), "{}", p.name);
    }
    let chariots: Vec<&str> = all.iter().filter(|p| p.kind == "chariots").map(|p| p.name.as_str()).collect();
    assert!(chariots.contains(&"Khandish Charioteer") && chariots.contains(&"Iron Hills Chariot"), "{chariots:?}");
    assert!(all.iter().any(|p| p.legacy), "the Legacies profiles are marked");
}

/// Every model that can take a shield beside its name gains exactly 1 Defence and the list's
/// price for it; with a pike the shield gives no Defence. Checked through the scenario
/// loader, the path a user's file takes.
#[test]
fn a_shield_beside_a_name_adds_one_defence_and_its_points_unless_a_pike_is_carried() {
    let mut checked = 0;
    for p in bundled_library_profiles().iter().filter(|p| p.kind == "models") {
        let Some(price) = option(p, "shield") else { continue };
        if p.modelled.iter().any(|m| m.eq_ignore_ascii_case("shield")) {
            continue; // already carries one
        }
        let plain = parse(&line(&p.name, ""), "t").unwrap_or_else(|e| panic!("{}: {e}", p.name));
        let shielded = parse(&line(&p.name, "shield = true"), "t").unwrap_or_else(|e| panic!("{}: {e}", p.name));
        let (before, after) = (&plain.formations[0].profile, &shielded.formations[0].profile);
        let pike = before.pike;
        assert_eq!(u32::from(after.defence), u32::from(before.defence) + u32::from(!pike), "{}", p.name);
        assert_eq!(i64::from(after.points), i64::from(before.points) + price, "{}", p.name);
        assert_eq!(i64::from(before.defence), p.fsdaw[2], "{}: the library's Defence stands", p.name);
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} profiles take a shield");
}

/// A Warrior of Minas Tirith: D5 at 8 points; with a shield D6 at 9; with shield and spear D6
/// at 10 (the 2024 list's "shield and spear" at 2); a banner bearer costs 8 + 25. An Uruk-hai
/// with pike and shield stays D5 at 9 + 1 + 1.
#[test]
fn wargear_beside_a_library_name_follows_the_2024_list() {
    let s = parse(&line("Warrior of Minas Tirith", "shield = true\nspear = true\nbanner = true"), "t")
        .unwrap_or_else(|e| panic!("{e}"));
    let f = &s.formations[0];
    assert_eq!((f.profile.defence, f.profile.points, f.profile.spear, f.profile.shield), (6, 10, true, true));
    assert_eq!(f.bearer_points, 25, "the banner option");
    // Priced kills count the bearer at his model's points and the banner's: 3 x 10 + 25.
    let plan = charioteer::mesbg::plan::compile(&s);
    assert_eq!(plan.models.iter().map(|m| m.points).sum::<u32>(), 3 * 10 + 25);
    let s = parse(&line("Uruk-hai Warrior", "pike = true\nshield = true"), "t").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((s.formations[0].profile.defence, s.formations[0].profile.points), (5, 11));
    // A shield on a model whose list offers none is refused by name.
    let err = parse(&line("Galadhrim Warrior", "pike = true"), "t").unwrap_err().to_string();
    assert!(err.contains("formations[0].pike") && err.contains("takes no pike"), "{err}");
    // The convenience entry is the same model as the options written out.
    let named = parse(&line("Warrior of Minas Tirith with spear and shield", ""), "t").unwrap();
    let p = &named.formations[0].profile;
    assert_eq!((p.defence, p.points, p.spear, p.shield), (6, 10, true, true));
}

/// (name, F, S, D, A, W, Courage, points) typed from the source.
type Typed = (&'static str, i64, i64, i64, i64, i64, &'static str, i64);

fn check(army: &str, typed: &[Typed]) {
    for &(name, f, s, d, a, w, c, pts) in typed {
        let p = find(name);
        assert_eq!(p.fsdaw, [f, s, d, a, w], "{army}: {name}");
        assert_eq!(p.courage, c, "{army}: {name}");
        assert_eq!(p.points, Some(pts), "{army}: {name}");
    }
}

#[test]
fn three_profiles_per_army_match_the_source() {
    check(
        "Minas Tirith",
        &[
            ("Warrior of Minas Tirith", 4, 3, 5, 1, 1, "7+", 8),
            ("Captain of Minas Tirith", 5, 4, 7, 2, 2, "6+", 60),
            ("Knight of Minas Tirith", 4, 3, 6, 1, 1, "7+", 15),
        ],
    );
    check(
        "Rohan",
        &[
            ("Warrior of Rohan", 3, 3, 4, 1, 1, "7+", 6),
            ("Rider of Rohan", 3, 3, 5, 1, 1, "7+", 14),
            ("Theoden", 5, 4, 5, 2, 2, "5+", 75),
        ],
    );
    check(
        "Isengard",
        &[
            ("Uruk-hai Warrior", 4, 4, 5, 1, 1, "7+", 9),
            ("Uruk-hai Captain", 5, 5, 7, 2, 2, "6+", 65),
            ("Isengard Troll", 7, 7, 8, 3, 4, "6+", 100),
        ],
    );
    check(
        "Mordor",
        &[
            ("Mordor Orc Warrior", 3, 3, 4, 1, 1, "8+", 5),
            ("Morannon Orc Warrior", 3, 4, 5, 1, 1, "8+", 8),
            ("Gothmog", 5, 4, 6, 2, 3, "5+", 120),
        ],
    );
    check(
        "Moria",
        &[
            ("Moria Goblin Warrior", 2, 3, 4, 1, 1, "8+", 4),
            ("Cave Troll", 6, 6, 6, 3, 3, "6+", 75),
            ("Durburz, Goblin-King of Moria", 4, 4, 6, 2, 2, "6+", 75),
        ],
    );
    check(
        "Lothlorien",
        &[
            ("Galadhrim Warrior", 5, 3, 5, 1, 1, "5+", 9),
            ("Haldir, Galadhrim Captain", 6, 4, 4, 2, 2, "4+", 70),
            ("Galadhrim Knight", 5, 3, 5, 1, 1, "5+", 18),
        ],
    );
    check(
        "Rivendell",
        &[
            ("Rivendell Warrior", 5, 3, 5, 1, 1, "5+", 9),
            ("Elrond", 7, 4, 7, 3, 3, "3+", 170),
            ("Rivendell Captain", 6, 4, 6, 2, 2, "4+", 70),
        ],
    );
    check(
        "Mirkwood",
        &[
            ("Mirkwood Elf Warrior", 5, 3, 5, 1, 1, "5+", 9),
            ("Palace Guard", 5, 3, 5, 1, 1, "5+", 12),
            ("Thranduil, King of the Woodland Realm", 7, 4, 4, 3, 3, "4+", 130),
        ],
    );
    check(
        "Dwarves (Iron Hills, Khazad-dum)",
        &[
            ("Iron Hills Warrior", 4, 4, 6, 1, 1, "6+", 10),
            ("Iron Hills Captain", 5, 4, 8, 2, 2, "5+", 80),
            ("Dwarf Warrior", 4, 3, 6, 1, 1, "6+", 8),
        ],
    );
    check(
        "Easterlings",
        &[
            ("Easterling Warrior", 4, 3, 5, 1, 1, "7+", 8),
            ("Easterling Kataphrakt", 4, 3, 6, 1, 1, "7+", 15),
            ("Amdur, Lord of Blades", 7, 4, 6, 3, 3, "5+", 135),
        ],
    );
    check(
        "Khand (Legacies)",
        &[
            ("Khandish Charioteer", 4, 3, 7, 1, 3, "7+", 40),
            ("Khandish King", 5, 4, 6, 3, 2, "6+", 100),
            ("Khandish Warrior", 4, 3, 4, 1, 1, "7+", 8),
        ],
    );
    // Heroes carry the list's Might, Will and Fate.
    assert_eq!(find("Captain of Minas Tirith").mwf, Some([2, 1, 1]));
    assert_eq!(find("Elrond").mwf, Some([3, 3, 3]));
    assert_eq!(find("Boromir, Captain of the White Tower").mwf, Some([6, 3, 3]));
}

//! The board picture (#18 item 1): its counts agree with values derived apart from the
//! code that counts them, every report has it, and `validate --map` draws it.

use charioteer::mesbg::board::{BOARD_TRIALS, picture};
use charioteer::mesbg::exact;
use charioteer::mesbg::scenario::{DEFAULT_SCENARIO, parse};
use charioteer::mesbg::tally::Metric;
use std::process::Command;

/// One warrior (Defence 5, 1 Wound) in the chariot's path and one Impact Hit at
/// Strength 4: it wounds on a 5+, so by hand a third of the charges slay it and drive the
/// full Move, and two thirds stop there.
#[test]
fn stops_and_chances_match_a_charge_worked_by_hand() {
    let text = DEFAULT_SCENARIO.replacen("count = 12", "count = 1", 1).replacen("ranks = 2", "ranks = 1", 1).replacen(
        "hits = \"2\"",
        "hits = \"1\"",
        1,
    );
    let s = parse(&text, "lone").unwrap();
    let plan = charioteer::mesbg::plan::compile(&s);
    let p = picture(&s, &plan, 11, BOARD_TRIALS);
    let n = BOARD_TRIALS as f64;
    let five_se = |q: f64| 5.0 * (q * (1.0 - q) / n).sqrt();
    assert_eq!(p.stops.len(), 2, "{:?}", p.stops);
    let drove = p.stops.iter().find(|m| m.how == "drove on").unwrap();
    let stopped = p.stops.iter().find(|m| m.how == "stopped").unwrap();
    assert!((drove.p - 1.0 / 3.0).abs() < five_se(1.0 / 3.0), "{drove:?}");
    assert!((stopped.p - 2.0 / 3.0).abs() < five_se(2.0 / 3.0), "{stopped:?}");
    assert!((drove.distance - 10.0).abs() < 1e-9, "the full Move is 10 inches");
    // The stop is where the bases touch: 6" to the warrior less both radii (30 mm + 12.5 mm).
    let touch = 6.0 - 42.5 / 25.4;
    assert!((stopped.distance - touch).abs() < 0.01, "{stopped:?} against {touch}");
    assert!((stopped.at.1 - touch).abs() < 0.01 && stopped.at.0.abs() < 1e-9);
    // Slain by the hit, or later in the fight: never less than the hit alone.
    let warrior = &p.bases[0];
    assert!(warrior.p_slain > 1.0 / 3.0 - five_se(1.0 / 3.0), "{warrior:?}");
    assert_eq!((warrior.rank, warrior.file), (1, 1));
}

/// Every model slain is one kill: the chances summed over the bases are the mean number
/// of kills, which the exact engine computes without listening to any trial.
#[test]
fn the_chances_sum_to_the_exact_mean_kills() {
    for file in [
        "scenarios/mesbg/khandish-vs-minas-tirith.toml",
        "scenarios/mesbg/chariot-into-cavalry-screen.toml",
        "scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml",
        "scenarios/mesbg/iron-hills-vs-orcs-best.toml",
    ] {
        let text = std::fs::read_to_string(file).unwrap();
        let s = parse(&text, file).unwrap();
        let plan = charioteer::mesbg::plan::compile(&s);
        let p = picture(&s, &plan, s.seed, BOARD_TRIALS);
        let sum: f64 = p.bases.iter().map(|b| b.p_slain).sum();
        let exact = exact::exact(&plan).unwrap();
        let kills = exact.summary(Metric::Kills);
        let five_se = 5.0 * kills.sd / (BOARD_TRIALS as f64).sqrt();
        assert!((sum - kills.mean).abs() < five_se, "{file}: chances sum to {sum}, exact mean kills {}", kills.mean);
        let ends: f64 = p.stops.iter().map(|m| m.p).sum();
        assert!((ends - 1.0).abs() < 1e-12, "{file}: every trial ends somewhere once");
        // The picture holds everything it draws.
        let (x0, y0, x1, y1) = p.bounds;
        for b in &p.bases {
            assert!(b.centre.0 > x0 && b.centre.0 < x1 && b.centre.1 > y0 && b.centre.1 < y1, "{file}: {b:?}");
        }
    }
}

/// The picture is the same on any number of threads (it is counted in fixed chunks).
#[test]
fn the_picture_does_not_depend_on_the_thread_count() {
    let s = parse(DEFAULT_SCENARIO, "default").unwrap();
    let plan = charioteer::mesbg::plan::compile(&s);
    let on = |threads| {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap().install(|| picture(&s, &plan, 5, 30_001))
    };
    let (a, b) = (on(1), on(3));
    let slain = |p: &charioteer::mesbg::board::BoardPicture| p.bases.iter().map(|b| b.slain).collect::<Vec<_>>();
    assert_eq!(slain(&a), slain(&b));
    assert_eq!(format!("{:?}", a.stops), format!("{:?}", b.stops));
}

fn charioteer(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_charioteer")).args(args).current_dir(dir).output().unwrap()
}

#[test]
fn every_mesbg_report_has_the_board_and_validate_draws_it_on_request() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    let out = charioteer(dir.path(), &["run", "--trials", "20000", "--quiet", "--out", "r"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let png = std::fs::read(dir.path().join("r/board.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 20_000, "{} bytes", png.len());
    let csv = std::fs::read_to_string(dir.path().join("r/board.csv")).unwrap();
    assert!(csv.starts_with("model,formation,rank,file,role,x,y,p_slain,p_slain_lo,p_slain_hi,trials"), "{csv}");
    assert_eq!(csv.lines().count(), 13, "one row per model of the shield wall");
    let md = std::fs::read_to_string(dir.path().join("r/report.md")).unwrap();
    assert!(md.contains("![") && md.contains("board.png"), "report.md shows the board");

    let scenario = format!("{root}/scenarios/mesbg/iron-hills-vs-orcs-best.toml");
    let out = charioteer(dir.path(), &["validate", &scenario, "--map", "maps/iron.svg"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(dir.path().join("maps/iron.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("inches"), "an SVG with its inch axes");
    let rout = format!("{root}/scenarios/battlesystem/routing-elephants-in-battle-line.toml");
    let out = charioteer(dir.path(), &["validate", &rout, "--map", "rout.png", "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::metadata(dir.path().join("rout.png")).unwrap().len() > 10_000);

    // One picture, of one file, as PNG or SVG; anything else is refused before work.
    let out = charioteer(dir.path(), &["validate", &scenario, "--map", "board.jpg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(".png or .svg"));
    let out = charioteer(dir.path(), &["validate", &scenario, &rout, "--map", "two.png"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("one at a time"));
    assert!(!dir.path().join("two.png").exists() && !dir.path().join("board.jpg").exists());
}

fn png_size(bytes: &[u8]) -> (u32, u32) {
    let word = |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    (word(16), word(20))
}

/// Charts for print: `--png-scale` and `--dpi` draw PNGs larger (not enlarged), and SVG
/// text is glyph outlines unless `--svg-text text` asks for `<text>`.
#[test]
fn charts_print_at_scale_and_svgs_carry_their_text_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    let run = |extra: &[&str], out: &str| {
        let mut args = vec!["run", "--trials", "5000", "--quiet", "--out", out];
        args.extend_from_slice(extra);
        charioteer(dir.path(), &args)
    };
    assert!(run(&[], "one").status.success());
    assert!(run(&["--png-scale", "2"], "two").status.success());
    assert!(run(&["--dpi", "192", "--svg-text", "text"], "dpi").status.success());
    let read = |p: &str| std::fs::read(dir.path().join(p)).unwrap();
    for chart in ["board", "impact-chain", "distribution-kills"] {
        assert_eq!(png_size(&read(&format!("one/{chart}.png"))), (960, 560), "{chart}");
        assert_eq!(png_size(&read(&format!("two/{chart}.png"))), (1920, 1120), "{chart}");
        assert_eq!(png_size(&read(&format!("dpi/{chart}.png"))), (1920, 1120), "{chart}");
        // Drawn at twice the size, not blown up: the larger PNG has finer detail, so it
        // compresses to well over the single size.
        assert!(read(&format!("two/{chart}.png")).len() > 2 * read(&format!("one/{chart}.png")).len(), "{chart}");
        let paths = String::from_utf8(read(&format!("one/{chart}.svg"))).unwrap();
        assert!(!paths.contains("<text") && paths.contains("aria-label=\""), "{chart}: text as outlines");
        let text = String::from_utf8(read(&format!("dpi/{chart}.svg"))).unwrap();
        assert!(text.contains("<text") && !text.contains("aria-label"), "{chart}: text as <text>");
    }
    let svg = String::from_utf8(read("one/impact-chain.svg")).unwrap();
    assert!(svg.contains("aria-label=\"How far the charge gets\""), "the title's words are kept");

    for bad in [["--png-scale", "9"], ["--dpi", "20"], ["--svg-text", "fonts"]] {
        let out = run(&bad, "bad");
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(!dir.path().join("bad").exists(), "{bad:?}: refused before any work");
    }
    let both = run(&["--png-scale", "2", "--dpi", "192"], "bad");
    assert_eq!(both.status.code(), Some(2), "--png-scale and --dpi say the same thing once");
}

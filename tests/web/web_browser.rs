//! The page in a real browser: headless Chromium (Debian's `chromium` package) driven
//! through the DevTools protocol. A player's session: the page loads and checks the
//! example, a formation is added and dragged into place with the mouse (the path and
//! contacts update), a run plays with progress and its table is read from the page and
//! checked against the API's run of the same set-up, two set-ups are compared, a second
//! chariot is added (a turn of two, drawn by the server) and removed again, and a
//! BATTLESYSTEM example is loaded and run. Screenshots are saved for a person to look at.

use crate::web;

use serde_json::json;
use web::{Browser, Server, find_chromium};

fn screenshot_dir() -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots");
    std::fs::create_dir_all(&dir).expect("screenshot folder");
    dir
}

#[test]
fn a_player_places_a_formation_runs_compares_and_loads_battlesystem() {
    let Some(chromium) = find_chromium() else {
        assert!(
            std::env::var_os("CHARIOTEER_REQUIRE_BROWSER").is_none(),
            "CHARIOTEER_REQUIRE_BROWSER is set (as .ci/run sets it) but no Chromium was found: \
             install it with `apt-get install -y chromium` or set CHARIOTEER_CHROMIUM"
        );
        eprintln!(
            "SKIPPED: no Chromium found, so the page was not tested in a browser. Install it with \
             `sudo apt-get install -y chromium` (Debian/Ubuntu; .ci/run does this), or point \
             CHARIOTEER_CHROMIUM at a Chromium or Chrome binary."
        );
        return;
    };
    let server = Server::start(&[]);
    let mut browser = Browser::start(&chromium, 1400, 1000);
    browser.open(&server.url());
    let shots = screenshot_dir();

    // The first example is checked and drawn: 12 bases, the chariot, its path.
    assert_eq!(browser.eval("document.querySelectorAll('#board .formation .base').length"), json!(12));
    assert!(browser.eval("document.getElementById('status').className") == json!("ok"));
    assert!(
        browser
            .eval("document.getElementById('status').textContent")
            .as_str()
            .expect("status")
            .contains("4 contact groups")
    );

    // Add a formation of Uruk-hai from the library and drag it across the chariot's path.
    browser.set_value("#add-profile", "Uruk-hai Warrior");
    browser.click("#add-formation");
    browser.wait_for("document.querySelectorAll('#board .formation').length === 2", 30);
    let before = browser.eval("state.scenario.formations[1].front_centre");
    let from = browser.centre_of("#board .formation[data-index='1'] .base");
    // Where the chariot's path is, 10 inches ahead of the chariot, in screen pixels.
    let to = browser.eval(
        "(() => { const svg = document.getElementById('board'); const p = svg.createSVGPoint();
            p.x = 0; p.y = -10; const q = p.matrixTransform(svg.getScreenCTM()); return [q.x, q.y]; })()",
    );
    let to = (to[0].as_f64().expect("x"), to[1].as_f64().expect("y"));
    // Drag by the base's offset from the formation's front centre, so the front centre lands there.
    let base_centre = browser.eval(
        "(() => { const b = state.check.board.picture.bases.filter(b => b.formation === 1)[0]; return b.centre; })()",
    );
    let front = before.clone();
    let offset = (
        base_centre[0].as_f64().expect("x") - front[0].as_f64().expect("x"),
        base_centre[1].as_f64().expect("y") - front[1].as_f64().expect("y"),
    );
    let scale = browser.eval("document.getElementById('board').getScreenCTM().a").as_f64().expect("scale");
    browser.drag(from, (to.0 + offset.0 * scale, to.1 - offset.1 * scale));
    browser.wait_for(
        &format!("JSON.stringify(state.scenario.formations[1].front_centre) !== JSON.stringify({before})"),
        30,
    );
    browser.wait_for("document.getElementById('status').className === 'ok'", 30);
    let after = browser.eval("state.scenario.formations[1].front_centre");
    let (x, y) = (after[0].as_f64().expect("x"), after[1].as_f64().expect("y"));
    assert!(x.abs() < 0.6 && (y - 10.0).abs() < 0.6, "dropped at {after}, not on the path at [0, 10]");
    // The move is in the scenario file the page shows, and the board drew the new path.
    browser.wait_for("document.getElementById('toml').value.includes('Uruk-hai Warrior')", 10);
    let formations_on_path = browser.eval("state.check.board.plan.formations_on_path");
    assert!(formations_on_path.to_string().contains("Uruk-hai Warrior"), "{formations_on_path}");
    browser.screenshot(&shots.join("1-formation-placed.png"));

    // Click the shield wall to edit it, and put the Captain of Minas Tirith among them:
    // the board edges his base in gold.
    browser.click("#board .formation[data-index='0'] .base");
    browser.wait_for("document.getElementById('formation-hero')", 10);
    browser.set_value("#formation-hero", "Captain of Minas Tirith");
    browser.wait_for(
        "state.scenario.formations[0].hero && state.check.board.picture.bases.some(b => b.hero) \
         && document.getElementById('status').className === 'ok'",
        30,
    );
    assert_eq!(
        browser.eval("document.querySelectorAll('#board .formation .base[stroke=\"#c9a227\"]').length"),
        json!(1)
    );

    // Run 100,000 trials and read the table from the page.
    browser.set_value("#trials", "100000");
    browser.set_value("#seed", "21");
    browser.click("#run");
    browser.wait_for("document.querySelector('#metrics-table tr[data-metric=kills]')", 120);
    let shown = browser.eval("document.querySelector('#metrics-table tr[data-metric=kills] .mean').textContent");
    let exact = browser.eval("document.querySelector('#metrics-table tr[data-metric=kills] .exact').textContent");
    let charts = browser.eval("document.querySelectorAll('#charts img').length").as_u64().expect("charts");
    assert!(charts >= 5, "{charts} charts shown");
    // The same set-up through the API (same seed and trials) gives the numbers shown.
    let toml = browser.eval("state.check.toml").as_str().expect("toml").to_string();
    let api = server.post("/api/run?trials=100000&seed=21", "text/plain", toml.as_bytes()).json();
    let mean = api["metrics"]["kills"]["mean"].as_f64().expect("mean");
    assert_eq!(shown, json!(format!("{mean:.4}")));
    let exact_value = api["exact"]["kills"]["exact"].as_f64().expect("exact");
    assert_eq!(exact, json!(format!("{exact_value:.4}")));
    // The downloads include the report and the scenario file.
    let links = browser.eval("[...document.querySelectorAll('#downloads a')].map(a => a.textContent).join(' ')");
    assert!(
        links.as_str().expect("links").contains("report.md")
            && links.as_str().expect("links").contains("scenario.toml")
    );
    browser.eval("window.scrollTo(0, 0)");
    browser.screenshot(&shots.join("2-run.png"));
    // The README's picture: the board and the start of the results.
    browser.top_screenshot(&shots.join("2-run-top.png"), 1400, 1560);

    // Keep this as A, turn the chariot 15 degrees, compare A with it.
    browser.click("#keep-a");
    browser.set_value("#chariot-facing", "15");
    browser
        .wait_for("state.scenario.chariot.facing === 15 && document.getElementById('status').className === 'ok'", 30);
    browser.set_value("#trials", "50000");
    browser.click("#compare");
    browser.wait_for("document.querySelector('#comparison-table tr[data-metric=kills]')", 120);
    assert_eq!(browser.eval("document.getElementById('comparison').hidden"), json!(false));
    browser.screenshot(&shots.join("3-compared.png"));

    // Add a second chariot: the set-up becomes a turn of two, drawn by the server with both
    // paths numbered; remove it again and the page's own editor is back.
    browser.eval("window.scrollTo(0, 0)");
    browser.click("#add-chariot");
    browser.wait_for(
        "Array.isArray(state.scenario.chariots) && state.scenario.chariots.length === 2 \
         && document.getElementById('status').className === 'ok' && document.querySelector('#board-svg svg')",
        60,
    );
    let status = browser.eval("document.getElementById('status').textContent");
    assert!(status.as_str().expect("status").contains("a turn of 2 chariots"), "{status}");
    assert_eq!(browser.eval("document.getElementById('remove-chariot').disabled"), json!(false));
    assert!(browser.eval("document.getElementById('toml').value").as_str().expect("toml").contains("[[chariots]]"));
    browser.screenshot(&shots.join("3b-turn-of-two.png"));
    browser.click("#remove-chariot");
    browser.wait_for(
        "state.scenario.chariot && !state.scenario.chariots && document.getElementById('status').className === 'ok' \
         && state.check.board.kind === 'geometry'",
        60,
    );
    assert_eq!(browser.eval("document.getElementById('remove-chariot').disabled"), json!(true));
    assert_eq!(browser.eval("state.scenario.chariot.facing"), json!(15), "the first chariot is as it was");

    // A small turn (two chariots at one warrior) has exact values: the page shows them.
    let small = "title = \"two chariots, one warrior\"\nsystem = \"mesbg\"\nseed = 11\n\n\
        [[chariots]]\nprofile = \"Khandish Charioteer\"\nside = \"evil\"\nat = [0.0, 0.0]\n\n\
        [[chariots]]\nprofile = \"Khandish Charioteer\"\nside = \"evil\"\nat = [0.0, 14.0]\nfacing = 180\n\n\
        [[formations]]\nname = \"Warrior\"\ncount = 1\nbase = { round_mm = 25 }\nfront_centre = [0.0, 6.0]\n\
        facing = 180\nprofile = \"Warrior of Minas Tirith\"\n";
    browser.set_value("#toml", small);
    browser.click("#apply-toml");
    browser.wait_for(
        "state.scenario.title === 'two chariots, one warrior' && document.getElementById('status').className === 'ok'",
        30,
    );
    browser.set_value("#trials", "20000");
    browser.click("#run");
    browser.wait_for("document.querySelector('#metrics-table tr[data-metric=\"chariot1.impact_kills\"] .exact')", 120);
    let exact = browser
        .eval("document.querySelector('#metrics-table tr[data-metric=\"chariot1.impact_kills\"] .exact').textContent");
    assert_eq!(exact, json!("0.5556"), "5/9, the chance chariot 1's Impact Hits slay him");

    // A BATTLESYSTEM example: drawn by the server, run like any other.
    let index = browser.eval("state.library.examples.findIndex(e => e.file.includes('routing-elephants'))");
    browser.set_value("#examples", &index.to_string());
    browser.wait_for("state.system === 'battlesystem' && document.querySelector('#board-svg svg')", 30);
    browser.set_value("#trials", "20000");
    browser.click("#run");
    browser.wait_for("document.querySelector('#metrics-table tr[data-metric=units_contacted]')", 120);
    browser.eval("window.scrollTo(0, 0)");
    browser.screenshot(&shots.join("4-battlesystem.png"));

    // The last set-up is kept in the browser: a reload starts from it.
    browser.open(&server.url());
    browser.wait_for("state.system === 'battlesystem' && document.querySelector('#board-svg svg')", 30);
    assert_eq!(browser.eval("document.getElementById('examples').value"), json!(""));
    eprintln!("screenshots: {}", shots.display());
}

/// No edit breaks the page (#36 item 2): on every MESBG example, terrain and a wall can be
/// added; on the first, each box of a formation can be ticked; a pivot typed with a degree
/// sign is read, and one that is no number is refused by name while the set-up stays as
/// it was, so the next edit works.
#[test]
fn no_edit_breaks_the_page() {
    let Some((_server, mut browser, shots, _chromium)) = open_page() else { return };
    browser.eval(
        "window.__errors = []; window.addEventListener('error', (e) => __errors.push(e.message));
         window.addEventListener('unhandledrejection', (e) => __errors.push(String(e.reason)));",
    );
    let ok = "document.getElementById('status').className === 'ok'";
    let examples = browser.eval("state.library.examples.map((e) => e.system)");
    let examples: Vec<String> =
        examples.as_array().expect("examples").iter().map(|s| s.as_str().unwrap_or("").to_string()).collect();
    let mut tried = 0;
    for (i, system) in examples.iter().enumerate() {
        if system != "mesbg" {
            continue;
        }
        browser.set_value("#examples", &i.to_string());
        // The best-path example searches its path again on every check (#36 item 4).
        browser.wait_for(&format!("{ok} && state.library.examples[{i}].title === state.check.title"), 180);
        let before = browser.eval("(state.scenario.terrain || []).length").as_u64().expect("terrain count");
        for (n, button) in [(1, "#add-difficult"), (2, "#add-obstacle")] {
            browser.click(button);
            let settled = format!(
                "({ok} && (state.scenario.terrain || []).length === {}) || document.getElementById('status').className === 'bad'",
                before + n
            );
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            while browser.eval(&settled) != json!(true) {
                assert!(
                    std::time::Instant::now() < deadline,
                    "example {i}, {button}: status {:?} {:?}, terrain {}, errors {}",
                    browser.eval("document.getElementById('status').className"),
                    browser.eval("document.getElementById('status').textContent"),
                    browser.eval("JSON.stringify(state.scenario.terrain)"),
                    browser.eval("JSON.stringify(__errors)")
                );
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            let status = browser.eval("document.getElementById('status').textContent");
            assert_eq!(
                browser.eval("document.getElementById('status').className"),
                json!("ok"),
                "example {i} ({}), {button}: {status}",
                browser.eval(&format!("state.library.examples[{i}].file"))
            );
        }
        assert_eq!(browser.eval("__errors"), json!([]), "example {i}: the page threw");
        tried += 1;
    }
    assert!(tried >= 8, "{tried} MESBG examples tried");
    browser.screenshot(&shots.join("5-terrain-added.png"));

    // The first example: tick each box of its formation.
    browser.set_value("#examples", "0");
    browser.wait_for(&format!("{ok} && state.library.examples[0].title === state.check.title"), 60);
    browser.click("#board .formation[data-index='0'] .base");
    browser.wait_for("!document.getElementById('selected-card').hidden", 10);
    // (Pikes before the banner: a shielded pike carrying the banner is refused.)
    for label in ["Pikes", "Spears", "Banner bearer"] {
        let ticked = browser.eval(&format!(
            "(() => {{ const l = [...document.querySelectorAll('#selected-fields label')].find((l) => l.textContent.startsWith({label:?}));
                 const box = l.querySelector('input'); box.checked = !box.checked; box.dispatchEvent(new Event('change')); return box.checked; }})()"
        ));
        assert_eq!(ticked, json!(true), "{label}");
        browser.wait_for(&format!("{ok} || document.getElementById('status').className === 'bad'"), 30);
        let status = browser.eval("document.getElementById('status').textContent");
        assert_eq!(browser.eval("document.getElementById('status').className"), json!("ok"), "{label}: {status}");
        // The box did what it says: the banner on the formation, spears or pikes on its
        // profile (one or the other).
        let carried = match label {
            "Banner bearer" => "state.scenario.formations[0].banner === true",
            "Spears" => "profileOf(state.scenario.formations[0]).spear === true",
            _ => {
                "profileOf(state.scenario.formations[0]).pike === true && !profileOf(state.scenario.formations[0]).spear"
            }
        };
        assert_eq!(
            browser.eval(carried),
            json!(true),
            "{label}: {}",
            browser.eval("JSON.stringify(state.scenario.formations[0])")
        );
        browser.click("#board .formation[data-index='0'] .base");
        browser.wait_for("!document.getElementById('selected-card').hidden", 10);
    }
    assert_eq!(browser.eval("__errors"), json!([]), "ticking the boxes threw");

    // A player's own model: the library offers the main factions' profiles; one picked,
    // its numbers are shown and one is changed as a number.
    assert!(browser.eval("document.querySelectorAll('#add-profile option').length").as_u64().unwrap_or(0) >= 150);
    assert_eq!(
        browser.eval("document.querySelector('#add-profile option[value=\"Warrior of Minas Tirith\"]').textContent"),
        json!("Warrior of Minas Tirith (8 pts)"),
        "the page offers the library with its 2024 points"
    );
    browser.click("#board .formation[data-index='0'] .base");
    browser.wait_for("!document.getElementById('selected-card').hidden", 10);
    browser.eval(
        "(() => { const s = [...document.querySelectorAll('#selected-fields select')].find((s) => [...s.options].some((o) => o.value === 'Iron Hills Warrior'));
                  s.value = 'Iron Hills Warrior'; s.dispatchEvent(new Event('change')); })()",
    );
    browser.wait_for(&format!("{ok} && state.scenario.formations[0].profile === 'Iron Hills Warrior'"), 30);
    browser.click("#board .formation[data-index='0'] .base");
    browser.wait_for("!document.getElementById('selected-card').hidden", 10);
    assert_eq!(browser.eval("document.querySelector('#selected-fields input[data-stat=defence]').value"), json!("6"));
    browser.set_value("#selected-fields input[data-stat=defence]", "8");
    browser.wait_for(&format!("{ok} && state.scenario.formations[0].profile.defence === 8"), 30);
    assert_eq!(
        browser.eval("state.scenario.formations[0].profile.strength"),
        json!(4),
        "the rest of the Dwarf's numbers kept"
    );
    browser.screenshot(&shots.join("6b-own-numbers.png"));

    // Pivots typed as a player writes them are read; a word is refused by name and the
    // set-up is kept.
    browser.set_value("#pivots", "15°, -10");
    browser.wait_for(&format!("{ok} && JSON.stringify(state.scenario.charge.pivots) === '[15,-10]'"), 30);
    let kept = browser.eval("JSON.stringify(state.scenario)");
    browser.set_value("#pivots", "15, left");
    browser.wait_for("document.getElementById('status').className === 'bad'", 30);
    let said = browser.eval("document.getElementById('status').textContent").as_str().unwrap_or("").to_string();
    assert!(said.to_lowercase().contains("pivot") && said.contains("left"), "{said}");
    assert_eq!(browser.eval("JSON.stringify(state.scenario)"), kept, "the set-up was kept");
    browser.screenshot(&shots.join("6-bad-pivot.png"));
    // The next edit works from the kept set-up.
    browser.click("#add-difficult");
    browser.wait_for(ok, 60);
    assert_eq!(browser.eval("__errors"), json!([]), "the page threw");
}

/// The player's work is kept (#36 item 5): the title and question are edited on the page
/// and reach the set-up; results of an earlier set-up are marked once it changes; edits
/// typed in the file box and not applied survive changes on the board (until discarded);
/// the trials asked for and the set-up kept as A survive a reload.
#[test]
fn the_players_work_is_kept() {
    let Some((server, mut browser, shots, chromium)) = open_page() else { return };
    let ok = "document.getElementById('status').className === 'ok'";
    browser.wait_for(&format!("document.body.dataset.ready === 'yes' && {ok}"), 60);
    // Title and question.
    browser.set_value("#title", "My chariot against the wall");
    browser.wait_for(&format!("{ok} && state.check.title === 'My chariot against the wall'"), 30);
    browser.set_value("#question", "Does it get through?");
    browser.wait_for(&format!("{ok} && state.scenario.question === 'Does it get through?'"), 30);
    assert!(
        browser.eval("document.getElementById('toml').value.includes('My chariot against the wall')") == json!(true)
    );
    // The file keeps its comments and number formatting through edits that change values.
    browser.set_value("#chariot-facing", "10");
    browser.wait_for(&format!("{ok} && state.scenario.chariot.facing === 10"), 30);
    browser.wait_for(
        "(() => { const t = document.getElementById('toml').value;
                  return t.includes('# base centre, inches') && t.includes('trials = 1_000_000')
                      && /\\nfacing = 10 +# degrees/.test(t) && t.includes('title = \"My chariot against the wall\"'); })()",
        30,
    );
    // A run, then an edit: the results are marked as of an earlier set-up.
    browser.set_value("#trials", "2000");
    browser.click("#run");
    browser.wait_for("!document.getElementById('results').hidden && document.body.dataset.running === 'no'", 60);
    assert_eq!(browser.eval("document.getElementById('results').classList.contains('stale')"), json!(false));
    // The report downloads as one zip, charts as PNG included.
    assert_eq!(
        browser.eval("/^\\/api\\/jobs\\/[0-9a-f]{32}\\/report\\.zip$/.test(document.getElementById('report-zip').getAttribute('href'))"),
        json!(true)
    );
    assert_eq!(
        browser.eval("document.getElementById('results-title').textContent"),
        json!("My chariot against the wall")
    );
    // (The results scroll smoothly into view: buttons are pressed as a keyboard user does.)
    let press = |browser: &mut Browser, id: &str| browser.eval(&format!("document.getElementById('{id}').click()"));
    press(&mut browser, "add-difficult");
    browser.wait_for(&format!("{ok} && (state.scenario.terrain || []).length === 1"), 30);
    assert_eq!(browser.eval("document.getElementById('results').classList.contains('stale')"), json!(true));
    // Typed in the file box, not applied: a change on the board keeps it, and says so.
    let typed = browser.eval(
        "(() => { const box = document.getElementById('toml');
           const typed = box.value.replace('My chariot against the wall', 'Typed but not applied');
           Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, typed);
           box.dispatchEvent(new Event('input')); return typed; })()",
    );
    press(&mut browser, "add-obstacle");
    browser.wait_for(&format!("{ok} && (state.scenario.terrain || []).length === 2"), 30);
    assert_eq!(browser.eval("document.getElementById('toml').value"), typed, "the typed file was overwritten");
    assert_eq!(browser.eval("document.getElementById('toml-kept').hidden"), json!(false));
    browser.screenshot(&shots.join("7-work-kept.png"));
    browser.eval("document.getElementById('discard-toml').click()");
    assert_eq!(browser.eval("document.getElementById('toml').value === state.check.toml"), json!(true));
    assert_eq!(browser.eval("document.getElementById('toml-kept').hidden"), json!(true));
    // A and the trials survive a reload.
    press(&mut browser, "keep-a");
    browser.open(&server.url());
    browser.wait_for(&format!("document.body.dataset.ready === 'yes' && {ok}"), 60);
    assert_eq!(browser.eval("document.getElementById('trials').value"), json!("2000"));
    assert_eq!(browser.eval("state.a && state.a.title"), json!("My chariot against the wall"));
    assert_eq!(browser.eval("document.getElementById('compare').disabled"), json!(false));
    assert_eq!(browser.eval("document.getElementById('title').value"), json!("My chariot against the wall"));
    browser.screenshot(&shots.join("8-board-key-and-axes.png"));
    // At 800 px wide the page fits without sideways scrolling.
    let mut narrow = Browser::start(&chromium, 800, 1000);
    narrow.open(&server.url());
    narrow.wait_for(&format!("document.body.dataset.ready === 'yes' && {ok}"), 60);
    narrow.screenshot(&shots.join("9-800px.png"));
    assert_eq!(narrow.eval("document.documentElement.scrollWidth <= 800"), json!(true), "wider than 800 px");
}

/// The duel headline (#36 item 7): after a run, the chance to win the fight that follows
/// the charge; with a Hero with Might riding, a paired run without his Might.
#[test]
fn a_run_leads_with_the_chance_to_win_the_fight_and_what_might_is_worth() {
    let Some((_server, mut browser, shots, _chromium)) = open_page() else { return };
    let ok = "document.getElementById('status').className === 'ok'";
    browser.wait_for(&format!("document.body.dataset.ready === 'yes' && {ok}"), 60);
    let king = browser
        .eval("state.library.examples.findIndex((e) => e.file === 'mesbg/king-on-chariot-vs-uruk-hai.toml')")
        .as_i64()
        .expect("the King's example");
    assert!(king >= 0);
    browser.set_value("#examples", &king.to_string());
    browser.wait_for(&format!("{ok} && state.check.title === state.library.examples[{king}].title"), 60);
    browser.set_value("#trials", "20000");
    browser.eval("document.getElementById('run').click()");
    browser.wait_for("!document.getElementById('duel').hidden && document.body.dataset.running === 'no'", 60);
    let said = browser.eval("document.getElementById('duel').textContent").as_str().unwrap_or("").to_string();
    assert!(
        said.contains("wins the fight after its charge") && said.contains("of the charges that end in a fight"),
        "{said}"
    );
    // The headline's share is the run's own conditional rate, as the table has it.
    let rate = browser.eval(
        "(state.lastRun.conditional.find((c) => c.name === 'fight_won_given_fought').mean * 100).toFixed(1) + '%'",
    );
    assert!(said.contains(rate.as_str().expect("rate")), "{said} / {rate}");
    assert!(said.contains("Might"), "{said}");
    // The same charges without his Might follow by themselves, and the headline says
    // what his Might is worth.
    browser.wait_for("!document.getElementById('comparison').hidden && document.querySelector('#comparison-table tr[data-metric=fight_won]')", 120);
    browser.wait_for("document.getElementById('duel').textContent.includes('Without his Might it wins')", 30);
    let said = browser.eval("document.getElementById('duel').textContent").as_str().unwrap_or("").to_string();
    assert!(said.contains("his Might adds") && said.contains("points to the chance of winning"), "{said}");
    browser.screenshot(&shots.join("10-duel-and-might.png"));
    let names =
        browser.eval("document.getElementById('comparison-facts').textContent").as_str().unwrap_or("").to_string();
    assert!(names.starts_with("A: ") && names.contains("without his Might — B"), "{names}");
}

/// A fresh server's page open in a 1400 x 1000 headless Chromium, with the screenshot
/// folder and the Chromium found; `None` (and the skip said) when none is installed and
/// none is required.
fn open_page() -> Option<(Server, Browser, std::path::PathBuf, std::path::PathBuf)> {
    let Some(chromium) = find_chromium() else {
        assert!(std::env::var_os("CHARIOTEER_REQUIRE_BROWSER").is_none(), "no Chromium found");
        eprintln!("SKIPPED: no Chromium found (see a_player_places_a_formation_runs_compares_and_loads_battlesystem)");
        return None;
    };
    let server = Server::start(&[]);
    let mut browser = Browser::start(&chromium, 1400, 1000);
    browser.open(&server.url());
    Some((server, browser, screenshot_dir(), chromium))
}

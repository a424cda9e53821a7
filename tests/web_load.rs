//! The server shared by many players (#36 item 1), through real HTTP on 127.0.0.1 only,
//! bounded in count and time: twenty players edit their set-ups (each edit a check) and
//! now and then run them, while one more plays a long run. Checks must not wait behind
//! the runs: the 95th percentile of a check's time stays under a second.

#[path = "web/web.rs"]
mod web;

use serde_json::Value;
use std::time::{Duration, Instant};
use web::{Server, repo_file};

const PLAYERS: usize = 20;
const PLAYING_FOR: Duration = Duration::from_secs(15);

/// A small deterministic generator per player (the test's own; no shared state).
struct Dice(u64);
impl Dice {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// What one player saw: each check's time, and their runs (finished, refused as busy).
#[derive(Default)]
struct Played {
    checks: Vec<Duration>,
    failed_checks: Vec<String>,
    runs_done: usize,
    runs_refused: usize,
}

fn player(address: String, id: usize, start: Value) -> Played {
    let mut dice = Dice(id as u64 + 1);
    let mut played = Played::default();
    let client = format!("player-{id}");
    let until = Instant::now() + PLAYING_FOR;
    let mut scenario = start;
    while Instant::now() < until {
        // A drag: the line moved a little (as the page sends it: the JSON form).
        let x = 4.0 * (dice.next() - 0.5);
        let y = 5.0 + 3.0 * dice.next();
        scenario["formations"][0]["front_centre"] = serde_json::json!([x, y]);
        let body = scenario.to_string();
        let asked = Instant::now();
        let check = web::request_to(
            &address,
            "POST",
            "/api/validate",
            &[("Content-Type", "application/json"), ("X-Charioteer-Client", &client)],
            body.as_bytes(),
        );
        played.checks.push(asked.elapsed());
        if check.status != 200 {
            played.failed_checks.push(format!("{}: {}", check.status, String::from_utf8_lossy(&check.body)));
        }
        // One edit in eight is followed by a run of the set-up, polled as the page polls.
        if dice.next() < 0.125 {
            let run = web::request_to(
                &address,
                "POST",
                "/api/jobs/run?trials=200000",
                &[("Content-Type", "application/json"), ("X-Charioteer-Client", &client)],
                body.as_bytes(),
            );
            match run.status {
                202 => {
                    let url = run.json()["url"].as_str().expect("url").to_string();
                    loop {
                        std::thread::sleep(Duration::from_millis(150));
                        let s = web::request_to(&address, "GET", &url, &[], b"").json();
                        if s["state"] != "running" && s["state"] != "queued" {
                            assert_eq!(s["state"], "done", "{s}");
                            played.runs_done += 1;
                            break;
                        }
                        if Instant::now() > until + Duration::from_secs(60) {
                            panic!("a small run never finished: {s}");
                        }
                    }
                }
                429 => played.runs_refused += 1,
                other => panic!("run answered {other}: {}", String::from_utf8_lossy(&run.body)),
            }
        }
        // Thinking, then the next edit.
        std::thread::sleep(Duration::from_millis(200 + (600.0 * dice.next()) as u64));
    }
    played
}

#[test]
fn twenty_players_check_and_run_while_one_plays_a_long_run() {
    let server = Server::start(&["--max-trials", "2000000000"]);
    // The long run: the slowest example, far more trials than the test lasts.
    let screen = repo_file("scenarios/mesbg/chariot-into-cavalry-screen.toml");
    let long = server.request(
        "POST",
        "/api/jobs/run?trials=2000000000",
        &[("Content-Type", "text/plain"), ("X-Charioteer-Client", "long")],
        screen.as_bytes(),
    );
    assert_eq!(long.status, 202, "{}", String::from_utf8_lossy(&long.body));
    let long_url = long.json()["url"].as_str().expect("url").to_string();
    // Every player starts from the shield wall's JSON form, as the page holds it.
    let start = server.post(
        "/api/validate",
        "text/plain",
        repo_file("scenarios/mesbg/khandish-vs-minas-tirith.toml").as_bytes(),
    );
    assert_eq!(start.status, 200);
    let start = start.json()["scenario"].clone();
    let players: Vec<_> = (0..PLAYERS)
        .map(|id| {
            let (address, start) = (server.address.clone(), start.clone());
            std::thread::spawn(move || player(address, id, start))
        })
        .collect();
    let played: Vec<Played> = players.into_iter().map(|p| p.join().expect("a player failed")).collect();
    // The long run kept playing all along (it is cancelled here, not finished).
    let long = server.get(&long_url).json();
    assert_eq!(long["state"], "running", "{long}");
    assert!(long["done"].as_u64().expect("done") > 0, "{long}");
    assert_eq!(server.request("DELETE", &long_url, &[], b"").status, 200);

    let failed: Vec<&String> = played.iter().flat_map(|p| &p.failed_checks).collect();
    assert!(failed.is_empty(), "checks failed: {failed:?}");
    let mut checks: Vec<Duration> = played.iter().flat_map(|p| p.checks.iter().copied()).collect();
    checks.sort();
    let at = |q: f64| checks[((checks.len() as f64 * q).ceil() as usize).clamp(1, checks.len()) - 1];
    let (done, refused): (usize, usize) = played.iter().fold((0, 0), |(d, r), p| (d + p.runs_done, r + p.runs_refused));
    eprintln!(
        "{} checks by {PLAYERS} players in {} s beside a long run: median {:?}, 95th percentile {:?}, slowest {:?}; \
         {done} small runs finished, {refused} refused as busy; the long run played {} trials",
        checks.len(),
        PLAYING_FOR.as_secs(),
        at(0.5),
        at(0.95),
        checks[checks.len() - 1],
        long["done"]
    );
    assert!(checks.len() >= PLAYERS * 10, "only {} checks", checks.len());
    assert!(at(0.95) < Duration::from_secs(1), "95th percentile of a check: {:?}", at(0.95));
    assert!(done > 0, "no small run finished");
}

//! `charioteer serve`'s JSON API, through real HTTP: the same answers as the command line,
//! clear 4xx answers to bad requests (and a server that keeps serving), bounded and
//! cancellable runs, one at a time per client, and files written only under `reports/`.

use crate::web;

use serde_json::{Value, json};
use std::process::Command;
use web::{Server, repo_file};

const SHIELD_WALL: &str = "scenarios/mesbg/khandish-vs-minas-tirith.toml";
const ROUT: &str = "scenarios/battlesystem/routing-elephants-in-battle-line.toml";

/// `charioteer ARGS --json` run in the repository, its JSON answer.
fn cli_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(args)
        .args(["--json", "--out"])
        .arg(tempfile::tempdir().expect("folder").path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("binary runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// A run's object without what depends on the machine or the file's name.
fn comparable(mut v: Value) -> Value {
    for key in ["elapsed_s", "trials_per_second", "threads", "scenario_file", "command", "scenario_files"] {
        v.as_object_mut().expect("object").remove(key);
    }
    v
}

#[test]
fn the_page_and_the_library_are_served_and_every_example_is_offered() {
    let server = Server::start(&[]);
    let page = server.get("/");
    assert_eq!(page.status, 200);
    assert!(String::from_utf8_lossy(&page.body).contains("<script src=\"/app.js\">"));
    assert_eq!(server.get("/app.js").status, 200);
    assert_eq!(server.get("/style.css").status, 200);
    let library = server.get("/api/library").json();
    assert!(library["profiles"]["chariots"]["Khandish Charioteer"].is_object());
    // The page offers every example scenario of the repository, as it is on disk.
    let offered: Vec<(String, String)> = library["examples"]
        .as_array()
        .expect("examples")
        .iter()
        .map(|e| (e["file"].as_str().expect("file").to_string(), e["toml"].as_str().expect("toml").to_string()))
        .collect();
    let mut on_disk = 0;
    for system in ["mesbg", "battlesystem"] {
        for entry in std::fs::read_dir(format!("{}/scenarios/{system}", env!("CARGO_MANIFEST_DIR"))).expect("dir") {
            let path = entry.expect("entry").path();
            let name = format!("{system}/{}", path.file_name().expect("name").to_string_lossy());
            let text = std::fs::read_to_string(&path).expect("read");
            assert!(offered.contains(&(name.clone(), text)), "{name} is not offered as it is on disk");
            on_disk += 1;
        }
    }
    assert_eq!(offered.len(), on_disk);
}

#[test]
fn validate_answers_the_board_and_both_forms_or_the_problems_with_lines() {
    let server = Server::start(&[]);
    let text = repo_file(SHIELD_WALL);
    let ok = server.post("/api/validate", "text/plain", text.as_bytes());
    assert_eq!(ok.status, 200);
    let answer = ok.json();
    assert_eq!(answer["system"], "mesbg");
    // 12 Warriors of Minas Tirith on the board, with counted chances between 0 and 1.
    let bases = answer["board"]["picture"]["bases"].as_array().expect("bases");
    assert_eq!(bases.len(), 12);
    assert!(bases.iter().all(|b| (0.0..=1.0).contains(&b["p_slain"].as_f64().expect("p"))));
    assert_eq!(answer["board"]["plan"]["path_length"], 10.0);
    // The JSON form round-trips: sent back as JSON, it is the same scenario.
    let again = server.post("/api/validate", "application/json", answer["scenario"].to_string().as_bytes());
    assert_eq!(again.status, 200, "{}", String::from_utf8_lossy(&again.body));
    assert_eq!(again.json()["board"]["plan"], answer["board"]["plan"]);

    // A syntax error, with its line.
    let broken = text.replace("fight = 4\n", "fight = \n");
    let bad = server.post("/api/validate?name=mine.toml", "text/plain", broken.as_bytes());
    assert_eq!(bad.status, 400);
    let problems = bad.json()["problems"].as_array().expect("problems").clone();
    assert!(!problems.is_empty());
    assert_eq!(problems[0]["file"], "mine.toml");
    assert!(problems[0]["line"].as_u64().is_some(), "{problems:?}");
    // A value out of range names its field and line.
    let wrong = text.replace("count = 12", "count = 0");
    let bad = server.post("/api/validate", "text/plain", wrong.as_bytes()).json();
    let problem = &bad["problems"][0];
    assert_eq!(problem["field"], "formations[0].count", "{bad}");
    assert_eq!(problem["line"], 30);
    // A warning is answered with a valid scenario.
    let far = text.replace("front_centre = [0.0, 6.0]", "front_centre = [30.0, 6.0]");
    let warned = server.post("/api/validate", "text/plain", far.as_bytes());
    assert_eq!(warned.status, 200);
    assert!(!warned.json()["warnings"].as_array().expect("warnings").is_empty());
}

#[test]
fn a_run_answers_what_run_json_prints_for_both_systems() {
    let server = Server::start(&[]);
    for (file, trials) in [(SHIELD_WALL, "40000"), (ROUT, "20000")] {
        let web = server.post(&format!("/api/run?trials={trials}&seed=3"), "text/plain", repo_file(file).as_bytes());
        assert_eq!(web.status, 200, "{}", String::from_utf8_lossy(&web.body));
        let cli = cli_json(&["run", file, "--trials", trials, "--seed", "3"]);
        assert_eq!(comparable(web.json()), comparable(cli), "{file}");
    }
}

#[test]
fn a_comparison_answers_what_compare_json_prints() {
    let server = Server::start(&[]);
    let a = repo_file(SHIELD_WALL);
    let b = a.replace("impact = { hits = \"2\", strength = 4 }", "impact = { hits = \"2\", strength = 5 }");
    let b_file = tempfile::NamedTempFile::new().expect("file");
    std::fs::write(b_file.path(), &b).expect("write");
    let web = server.post(
        "/api/compare?trials=30000&seed=11",
        "application/json",
        json!({"a": a, "b": b}).to_string().as_bytes(),
    );
    assert_eq!(web.status, 200, "{}", String::from_utf8_lossy(&web.body));
    let b_path = b_file.path().to_string_lossy().to_string();
    let cli = cli_json(&["compare", SHIELD_WALL, &b_path, "--trials", "30000", "--seed", "11"]);
    let web = web.json();
    assert_eq!(web["differences"], cli["differences"]);
    assert!(web["differences"]["impact_kills"]["diff"].as_f64().expect("diff") > 0.0, "strength 5 kills more");
}

#[test]
fn bad_requests_get_clear_4xx_answers_and_the_server_keeps_serving() {
    let mut server = Server::start(&["--max-trials", "1000000"]);
    let text = repo_file(SHIELD_WALL);
    let too_many = server.post("/api/run?trials=1000000000000", "text/plain", text.as_bytes());
    assert_eq!(too_many.status, 400);
    assert!(too_many.json()["error"].as_str().expect("error").contains("1 to 1,000,000"));
    // The scenario's own 1,000,000 trials are within this server's bound; 0 is not.
    assert_eq!(server.post("/api/run?trials=0", "text/plain", text.as_bytes()).status, 400);
    assert_eq!(server.post("/api/run?trials=lots", "text/plain", text.as_bytes()).status, 400);
    // 10 MB: refused before it is read.
    let huge = vec![b'#'; 10 << 20];
    let answer = server.post("/api/validate", "text/plain", &huge);
    assert_eq!(answer.status, 413);
    assert!(answer.json()["error"].as_str().expect("error").contains("larger than a scenario"));
    assert_eq!(server.post("/api/validate", "text/plain", b"").status, 400);
    assert_eq!(server.post("/api/validate", "application/json", b"{not json").status, 400);
    assert_eq!(server.post("/api/validate", "application/json", b"[1, 2]").status, 400);
    assert_eq!(server.post("/api/validate", "text/plain", &[0xff, 0xfe, 0x00]).status, 400);
    assert_eq!(server.post("/api/validate?board_trials=100000000", "text/plain", text.as_bytes()).status, 400);
    // A comparison needs both sides, of one rule system.
    assert_eq!(server.post("/api/compare", "application/json", json!({"a": text}).to_string().as_bytes()).status, 400);
    let mixed = json!({"a": text, "b": repo_file(ROUT)}).to_string();
    let answer = server.post("/api/compare?trials=1000", "application/json", mixed.as_bytes());
    assert_eq!(answer.status, 400);
    let error = answer.json()["error"].as_str().expect("error").to_string();
    assert!(error.contains("A is a MESBG charge of one chariot, B is a BATTLESYSTEM scenario"), "{error}");
    assert_eq!(server.get("/api/jobs/999").status, 404);
    assert_eq!(server.get("/api/jobs/x").status, 404);
    assert_eq!(server.get("/no/such/page").status, 404);
    // Still serving.
    assert!(server.alive());
    assert_eq!(server.post("/api/validate", "text/plain", text.as_bytes()).status, 200);
}

#[test]
fn runs_are_one_at_a_time_per_client_cancellable_and_write_only_under_reports() {
    let server = Server::start(&["--max-trials", "2000000000"]);
    let rout = repo_file(ROUT);
    let start = |client: &str, trials: u64| {
        server.request(
            "POST",
            &format!("/api/jobs/run?trials={trials}"),
            &[("Content-Type", "text/plain"), ("X-Charioteer-Client", client)],
            rout.as_bytes(),
        )
    };
    // Long enough to be running when the next requests arrive.
    let long = start("player-1", 1_000_000_000);
    assert_eq!(long.status, 202);
    let id = long.json()["id"].as_str().expect("id").to_string();
    let second = start("player-1", 1000);
    assert_eq!(second.status, 409);
    assert!(second.json()["error"].as_str().expect("error").contains("one run at a time"));
    // Another client is not held up.
    let other = start("player-2", 1000);
    assert_eq!(other.status, 202);
    // Cancelled within a block or two.
    assert_eq!(server.request("DELETE", &format!("/api/jobs/{id}"), &[], b"").status, 200);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        let s = server.get(&format!("/api/jobs/{id}")).json();
        if s["state"] != "running" && s["state"] != "queued" {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "not cancelled: {s}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(status["state"], "cancelled", "{status}");
    assert!(status["done"].as_u64().expect("done") < 1_000_000_000);
    // Now player-1 may run again; the finished run's report is served.
    let again = start("player-1", 5000).json();
    let url = again["url"].as_str().expect("url").to_string();
    let done = loop {
        let s = server.get(&url).json();
        if s["state"] != "running" && s["state"] != "queued" {
            break s;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["result"]["trials"], 5000);
    let files = done["files"].as_array().expect("files");
    assert_eq!(files[0]["name"], "report.md");
    assert!(files.iter().any(|f| f["name"] == "scenario.toml"));
    let report = server.get(files[0]["url"].as_str().expect("url"));
    assert_eq!(report.status, 200);
    assert!(String::from_utf8_lossy(&report.body).contains("routing"));
    // A run's `name` is a plain *.toml name or ignored: it never overwrites the report's
    // own report.md, nor leaves a folder behind for `..`.
    for (name, kept) in [("report.md", "scenario.toml"), ("..", "scenario.toml"), ("my charge.toml", "my charge.toml")]
    {
        let run = server.request(
            "POST",
            &format!("/api/jobs/run?trials=2000&name={}", name.replace(' ', "%20")),
            &[("Content-Type", "text/plain"), ("X-Charioteer-Client", "player-3")],
            rout.as_bytes(),
        );
        assert_eq!(run.status, 202, "name={name}");
        let url = run.json()["url"].as_str().expect("url").to_string();
        let finished = loop {
            let s = server.get(&url).json();
            if s["state"] != "running" && s["state"] != "queued" {
                break s;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        };
        assert_eq!(finished["state"], "done", "name={name}: {finished}");
        let names: Vec<&str> =
            finished["files"].as_array().expect("files").iter().filter_map(|f| f["name"].as_str()).collect();
        assert!(names.contains(&kept), "name={name}: {names:?}");
        let report = server.get(finished["files"][0]["url"].as_str().expect("url"));
        assert!(String::from_utf8_lossy(&report.body).starts_with('#'), "name={name}: report.md is the report");
    }
    // Nothing but the files it wrote, by name.
    for sneaky in ["..%2F..%2Fscenario.toml", "..", "%2Fetc%2Fpasswd", "missing.csv"] {
        let id = done["id"].as_str().expect("id");
        assert_eq!(server.get(&format!("/api/jobs/{id}/files/{sneaky}")).status, 404, "{sneaky}");
    }
    // Every file the server wrote is under reports/.
    let mut stack = vec![server.dir.path().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(server.dir.path()).expect("inside");
                assert!(relative.starts_with("reports/web"), "{} written outside reports/web", relative.display());
            }
        }
    }
}

#[test]
fn a_run_whose_caller_goes_away_is_cancelled() {
    use std::io::Write;
    let server = Server::start(&["--max-trials", "2000000000"]);
    let rout = repo_file(ROUT);
    let mut stream = std::net::TcpStream::connect(&server.address).expect("connects");
    write!(
        stream,
        "POST /api/run?trials=1000000000 HTTP/1.1\r\nHost: {}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{rout}",
        server.address,
        rout.len()
    )
    .expect("sends");
    std::thread::sleep(std::time::Duration::from_millis(500));
    // While it plays, this caller (known by its address) may not start another.
    let small = "/api/run?trials=1000";
    let busy = server.post(small, "text/plain", rout.as_bytes());
    assert_eq!(busy.status, 409, "{}", String::from_utf8_lossy(&busy.body));
    assert!(busy.json()["error"].as_str().expect("error").contains("of 1,000,000,000 trials"));
    drop(stream);
    // Its id is known to its caller only: that it stopped shows in the next run being
    // allowed, long before a billion trials could have played.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let next = server.post(small, "text/plain", rout.as_bytes());
        if next.status == 200 {
            break;
        }
        assert_eq!(next.status, 409, "{}", String::from_utf8_lossy(&next.body));
        assert!(std::time::Instant::now() < deadline, "still running after its caller left");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn requests_another_site_could_make_a_browser_send_are_refused() {
    let server = Server::start(&[]);
    let text = repo_file(SHIELD_WALL);
    // A page reaching the server under another name (DNS rebinding).
    let rebound = server.request("GET", "/api/library", &[("Host", "evil.example:8080")], b"");
    assert_eq!(rebound.status, 403);
    // Another site's script posting a run.
    let foreign = server.request(
        "POST",
        "/api/run?trials=1000",
        &[("Content-Type", "text/plain"), ("Origin", "http://evil.example")],
        text.as_bytes(),
    );
    assert_eq!(foreign.status, 403);
    assert!(foreign.json()["error"].as_str().expect("error").contains("another site"));
    // The page's own origin, and localhost by name, are served.
    let own = format!("http://{}", server.address);
    let same =
        server.request("POST", "/api/validate", &[("Content-Type", "text/plain"), ("Origin", &own)], text.as_bytes());
    assert_eq!(same.status, 200);
    let port = server.address.rsplit(':').next().expect("port").to_string();
    let by_name = server.request("GET", "/api/library", &[("Host", &format!("localhost:{port}"))], b"");
    assert_eq!(by_name.status, 200);
}

/// Waits for a job's status to leave "running".
fn finished(server: &Server, url: &str) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let s = server.get(url).json();
        if s["state"] != "running" && s["state"] != "queued" {
            return s;
        }
        assert!(std::time::Instant::now() < deadline, "still running: {s}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn the_last_32_finished_jobs_are_kept_and_older_ones_forgotten_with_their_folders() {
    let server = Server::start(&[]);
    let rout = repo_file(ROUT);
    let mut urls = Vec::new();
    for _ in 0..34 {
        let job = server.request(
            "POST",
            "/api/jobs/run?trials=500",
            &[("Content-Type", "text/plain"), ("X-Charioteer-Client", "many")],
            rout.as_bytes(),
        );
        assert_eq!(job.status, 202, "{}", String::from_utf8_lossy(&job.body));
        let url = job.json()["url"].as_str().expect("url").to_string();
        assert_eq!(finished(&server, &url)["state"], "done");
        urls.push(url);
    }
    // The 34th job was started with 33 finished: the oldest one beyond 32 went then.
    let gone = server.get(&urls[0]);
    assert_eq!(gone.status, 404);
    assert!(gone.json()["error"].as_str().expect("error").contains("kept a while"));
    for url in &urls[1..] {
        assert_eq!(server.get(url).status, 200, "{url}");
    }
    let folders = std::fs::read_dir(server.dir.path().join("reports/web")).expect("reports/web").count();
    assert_eq!(folders, 33, "one folder per job kept");
}

#[test]
fn a_body_of_exactly_1_mib_is_read_and_one_byte_more_is_refused() {
    let server = Server::start(&[]);
    let text = repo_file(SHIELD_WALL);
    let padded = |size: usize| {
        let mut body = text.clone().into_bytes();
        body.push(b'\n');
        body.push(b'#');
        body.resize(size - 1, b'#');
        body.push(b'\n');
        assert_eq!(body.len(), size);
        body
    };
    let exactly = server.post("/api/validate", "text/plain", &padded(1 << 20));
    assert_eq!(exactly.status, 200, "{}", String::from_utf8_lossy(&exactly.body));
    let over = server.post("/api/validate", "text/plain", &padded((1 << 20) + 1));
    assert_eq!(over.status, 413);
    assert!(over.json()["error"].as_str().expect("error").contains("larger than a scenario"));
}

#[test]
fn the_host_option_chooses_who_may_call_and_says_so() {
    use std::io::{BufRead, BufReader, Read};
    // Default: this machine only, and every request must name it.
    let local = Server::start(&[]);
    assert!(local.address.starts_with("127.0.0.1:"), "{}", local.address);
    let foreign = local.request("GET", "/", &[("Host", "charioteer.example")], b"");
    assert_eq!(foreign.status, 403);
    // Another address serves the network, and says so at start; a request naming the
    // machine by another name is then answered (sent here to 127.0.0.1 only).
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_charioteer"))
        .args(["serve", "--port", "0", "--threads", "1", "--host", "0.0.0.0"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("address");
    // The address printed is one a browser on this machine can open.
    let printed = line.split("http://").nth(1).and_then(|rest| rest.split('/').next()).unwrap_or_default();
    assert!(printed.starts_with("127.0.0.1:"), "{line:?}");
    let port: u16 = printed.trim_start_matches("127.0.0.1:").parse().unwrap_or_else(|_| panic!("no port in {line:?}"));
    let address = format!("127.0.0.1:{port}");
    let answer = web::request_to(&address, "GET", "/", &[("Host", &format!("charioteer.example:{port}"))], b"");
    assert_eq!(answer.status, 200);
    // Another site's page still may not call it.
    let cross = web::request_to(
        &address,
        "POST",
        "/api/validate",
        &[
            ("Host", &format!("charioteer.example:{port}")),
            ("Origin", "http://elsewhere.example"),
            ("Content-Type", "text/plain"),
        ],
        repo_file(SHIELD_WALL).as_bytes(),
    );
    assert_eq!(cross.status, 403);
    let _ = child.kill();
    let _ = child.wait();
    let mut err = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut err).unwrap();
    assert!(err.contains("warning: serving 0.0.0.0 to the network, without any login"), "{err}");
}

/// Starts a job for `client` and answers its status (202) or the refusal.
fn start_job(server: &Server, client: &str, trials: u64, scenario: &str) -> web::Response {
    server.request(
        "POST",
        &format!("/api/jobs/run?trials={trials}"),
        &[("Content-Type", "text/plain"), ("X-Charioteer-Client", client)],
        scenario.as_bytes(),
    )
}

#[test]
fn runs_wait_their_turn_in_a_bounded_queue_and_only_their_page_knows_them() {
    // One run at a time, one waiting.
    let server = Server::start(&["--max-trials", "2000000000", "--max-jobs", "1", "--max-queue", "1"]);
    let rout = repo_file(ROUT);
    let long = start_job(&server, "player-1", 1_000_000_000, &rout);
    assert_eq!(long.status, 202, "{}", String::from_utf8_lossy(&long.body));
    let long = long.json();
    // The id is 128 random bits, not a count another page could guess.
    let id = long["id"].as_str().expect("id");
    assert_eq!(id.len(), 32, "{id}");
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{id}");
    assert_eq!(server.get("/api/jobs/1").status, 404);
    let long_url = long["url"].as_str().expect("url").to_string();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while server.get(&long_url).json()["state"] != "running" {
        assert!(std::time::Instant::now() < deadline, "the first run never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // The second waits its turn, and says where it stands.
    let second = start_job(&server, "player-2", 2000, &rout);
    assert_eq!(second.status, 202);
    let second_url = second.json()["url"].as_str().expect("url").to_string();
    let waiting = server.get(&second_url).json();
    assert_eq!(waiting["state"], "queued", "{waiting}");
    assert_eq!(waiting["position"], 1, "{waiting}");
    assert_eq!(waiting["done"], 0);
    // A third is refused with a clear message, not left hanging.
    let third = start_job(&server, "player-3", 2000, &rout);
    assert_eq!(third.status, 429, "{}", String::from_utf8_lossy(&third.body));
    let said = third.json()["error"].as_str().expect("error").to_string();
    assert!(
        said.contains("busy") && said.contains("1 run playing and 1 waiting") && said.contains("try again"),
        "{said}"
    );
    // A page's own second run is refused while its first waits.
    let again = start_job(&server, "player-2", 2000, &rout);
    assert_eq!(again.status, 409);
    assert!(again.json()["error"].as_str().expect("error").contains("waiting its turn"));
    // The first is cancelled the way a closing page does it (a beacon's POST); the second
    // then plays and finishes.
    let cancelled = server.post(&format!("{long_url}/cancel"), "text/plain", b"");
    assert_eq!(cancelled.status, 200);
    assert_eq!(finished(&server, &long_url)["state"], "cancelled");
    let done = finished(&server, &second_url);
    assert_eq!(done["state"], "done", "{done}");
    assert_eq!(done["result"]["trials"], 2000);
    assert!(done["waited_s"].as_f64().expect("waited") > 0.0);
    // A queued run can be cancelled too: it leaves the queue without playing.
    let long = start_job(&server, "player-1", 1_000_000_000, &rout).json();
    let queued = start_job(&server, "player-4", 2000, &rout).json();
    let queued_url = queued["url"].as_str().expect("url");
    assert_eq!(server.request("DELETE", queued_url, &[], b"").status, 200);
    let gone = finished(&server, queued_url);
    assert_eq!(gone["state"], "cancelled", "{gone}");
    assert!(gone["error"].as_str().expect("error").contains("waiting its turn"), "{gone}");
    assert_eq!(gone["done"], 0);
    assert_eq!(server.request("DELETE", long["url"].as_str().expect("url"), &[], b"").status, 200);
}

#[test]
fn a_run_its_page_stops_asking_after_is_cancelled() {
    let server = Server::start(&["--max-trials", "2000000000", "--abandon-after-s", "2"]);
    let rout = repo_file(ROUT);
    let job = start_job(&server, "gone", 1_000_000_000, &rout).json();
    std::thread::sleep(std::time::Duration::from_secs(5));
    let status = server.get(job["url"].as_str().expect("url")).json();
    assert_eq!(status["state"], "cancelled", "{status}");
    assert!(status["done"].as_u64().expect("done") < 1_000_000_000);
}

#[test]
fn half_sent_requests_are_cut_off_and_do_not_hold_the_server() {
    use std::io::{Read, Write};
    let server = Server::start(&["--request-time-s", "1"]);
    // Headers that never end: the connection is closed.
    let mut stalled = std::net::TcpStream::connect(&server.address).expect("connects");
    write!(stalled, "POST /api/validate HTTP/1.1\r\nHost: {}\r\n", server.address).expect("sends");
    stalled.set_read_timeout(Some(std::time::Duration::from_secs(10))).expect("timeout");
    let started = std::time::Instant::now();
    let mut rest = Vec::new();
    let _ = stalled.read_to_end(&mut rest);
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "held {:?}", started.elapsed());
    // A body that never comes: 408, said in words.
    let mut slow = std::net::TcpStream::connect(&server.address).expect("connects");
    write!(
        slow,
        "POST /api/validate HTTP/1.1\r\nHost: {}\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\ntitle",
        server.address
    )
    .expect("sends");
    slow.set_read_timeout(Some(std::time::Duration::from_secs(10))).expect("timeout");
    let mut answer = Vec::new();
    let _ = slow.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within"), "{answer}");
    // Many half-sent requests at once (more than the server keeps open) are all let go,
    // and a player's check is answered afterwards.
    let mut many = Vec::new();
    for _ in 0..300 {
        if let Ok(mut s) = std::net::TcpStream::connect(&server.address) {
            let _ = write!(s, "GET / HTTP/1.1\r\nHost: {}\r\n", server.address);
            many.push(s);
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let check = server.post("/api/validate", "text/plain", repo_file(SHIELD_WALL).as_bytes());
    assert_eq!(check.status, 200);
    drop(many);
}

#[test]
fn a_finished_run_downloads_as_one_zip_with_every_file_of_its_report() {
    let server = Server::start(&[]);
    let rout = repo_file(ROUT);
    let job = start_job(&server, "zipper", 3000, &rout).json();
    let url = job["url"].as_str().expect("url").to_string();
    let done = finished(&server, &url);
    assert_eq!(done["state"], "done", "{done}");
    let zip = server.get(&format!("{url}/report.zip"));
    assert_eq!(zip.status, 200);
    assert_eq!(zip.header("content-type"), Some("application/zip"));
    // Walk the archive's local headers by the ZIP format: every file of the report, the
    // PNGs included, each stored whole with its CRC-32.
    let bytes = &zip.body;
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]) as usize;
    let u32_at = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let mut at = 0;
    let mut names = Vec::new();
    while u32_at(at) == 0x0403_4b50 {
        let (crc, size, name_len, extra) =
            (u32_at(at + 14), u32_at(at + 18) as usize, u16_at(at + 26), u16_at(at + 28));
        assert_eq!(u16_at(at + 8), 0, "stored");
        let path = String::from_utf8(bytes[at + 30..at + 30 + name_len].to_vec()).expect("UTF-8 name");
        let data = &bytes[at + 30 + name_len + extra..at + 30 + name_len + extra + size];
        assert_eq!(crc32fast::hash(data), crc, "{path}");
        let (folder, name) = path.split_once('/').expect("in a folder");
        assert!(folder.starts_with("routing-elephants"), "{folder}");
        let served = server.get(&format!("{url}/files/{name}"));
        assert_eq!(served.status, 200, "{name}");
        assert_eq!(served.body, data, "{name} differs from the file served");
        names.push(name.to_string());
        at += 30 + name_len + extra + size;
    }
    let listed: Vec<&str> =
        done["files"].as_array().expect("files").iter().filter_map(|f| f["name"].as_str()).collect();
    assert_eq!(names, listed);
    assert!(names.iter().any(|n| n.ends_with(".png")), "{names:?}");
    assert_eq!(u32_at(bytes.len() - 22), 0x0605_4b50, "ends with the central directory's end");
    assert_eq!(u16_at(bytes.len() - 22 + 10), names.len());
    // Another reader agrees, where one is installed.
    let file = tempfile::NamedTempFile::new().expect("temp");
    std::fs::write(file.path(), bytes).expect("write");
    if let Ok(out) = Command::new("python3")
        .args(["-c", "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(len(z.namelist()))"])
        .arg(file.path())
        .output()
    {
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), names.len().to_string());
    }
    // A job still playing, or unknown, has no archive.
    assert_eq!(server.get("/api/jobs/0123456789abcdef0123456789abcdef/report.zip").status, 404);
}

#[test]
fn the_page_hears_when_no_path_breaks_through_and_when_a_path_only_grazes() {
    let server = Server::start(&[]);
    let warnings_of = |text: &str| -> Vec<Value> {
        let answer = server.post("/api/validate", "text/plain", text.as_bytes());
        assert_eq!(answer.status, 200, "{}", String::from_utf8_lossy(&answer.body));
        answer.json()["warnings"].as_array().expect("warnings").clone()
    };
    // Best path for breakthrough into a block ten ranks deep and twelve files wide, its near
    // file 4" aside: no path breaks through (neither past its last rank nor, along it, past
    // its far end), and the page is told so by field.
    let deep = "title = \"deep\"\nsystem = \"mesbg\"\n[chariot]\nprofile = \"Khandish Charioteer\"\nside = \"evil\"\n\
                at = [0.0, 0.0]\nfacing = 0\n[charge]\nplan = \"best\"\nobjective = \"breakthrough\"\n[[formations]]\n\
                name = \"Deep block\"\nprofile = \"Warrior of Minas Tirith\"\ncount = 120\nranks = 10\n\
                front_centre = [9.41, 5.0]\nfacing = 180\n";
    let said = warnings_of(deep);
    assert!(
        said.iter().any(|w| w["field"] == "charge.objective"
            && w["message"].as_str().unwrap_or("").contains("no path breaks through")),
        "{said:?}"
    );
    // The shield wall driven at 3.8" aside touches only its end file.
    let graze = repo_file(SHIELD_WALL).replace("at = [0.0, 0.0]      # base centre, inches", "at = [3.8, 0.0]");
    let said = warnings_of(&graze);
    assert!(
        said.iter()
            .any(|w| w["field"] == "formations[0]" && w["message"].as_str().unwrap_or("").contains("only grazes")),
        "{said:?}"
    );
}

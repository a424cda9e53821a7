//! `serve`: the page for players. An HTTP server (axum on tokio) bound to this machine by
//! default, serving one page compiled into the binary and a JSON API on the same engine
//! and validator as the command line:
//!
//! - `GET /api/library`: the profile library and the bundled example scenarios;
//! - `POST /api/validate`: a scenario (TOML text, or its JSON form) checked as `validate`
//!   checks a file, with its warnings, its canonical TOML and JSON forms and its board;
//! - `POST /api/run`, `POST /api/compare`: a run (`run --json`'s object) or a paired
//!   comparison (`compare --json`'s), answered when done;
//! - `POST /api/jobs/run`, `POST /api/jobs/compare`, `GET`/`DELETE /api/jobs/{id}`
//!   (`POST /api/jobs/{id}/cancel` for a page going away): the same as jobs the page
//!   polls for progress and may cancel.
//!
//! Bad input gets a 4xx answer naming the problems (file, line, field); runs are bounded
//! (trials, body size, one at a time per page) and write only under `reports/web/`.
//!
//! Many players share one server fairly: runs wait in a bounded queue for a few run
//! slots and play on threads of lower priority than checks, so a check never waits behind
//! a run; checks are bounded in number too; a request that is slow to arrive is cut off.

mod jobs;
mod listen;
mod zip;

use super::system::{Battlesystem, Mesbg, System};
use super::*;
use axum::Json;
use axum::Router;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{ConnectInfo, DefaultBodyLimit, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use jobs::{Job, JobKind, Jobs, Limits};
use serde::Deserialize;
use serde_json::{Value, json};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// The page, its script and its style, compiled into the binary.
const PAGE_HTML: &str = include_str!("page/index.html");
const PAGE_JS: &str = include_str!("page/app.js");
const PAGE_CSS: &str = include_str!("page/style.css");

/// The example scenarios a player can start from (the repository's `scenarios/`).
const EXAMPLES: &[(&str, &str)] = &[
    ("mesbg/khandish-vs-minas-tirith.toml", include_str!("../../../scenarios/mesbg/khandish-vs-minas-tirith.toml")),
    ("mesbg/wood-into-shield-wall.toml", include_str!("../../../scenarios/mesbg/wood-into-shield-wall.toml")),
    (
        "mesbg/chariot-into-cavalry-screen.toml",
        include_str!("../../../scenarios/mesbg/chariot-into-cavalry-screen.toml"),
    ),
    ("mesbg/chariot-vs-chariot.toml", include_str!("../../../scenarios/mesbg/chariot-vs-chariot.toml")),
    ("mesbg/iron-hills-into-pike-block.toml", include_str!("../../../scenarios/mesbg/iron-hills-into-pike-block.toml")),
    ("mesbg/iron-hills-vs-orcs-best.toml", include_str!("../../../scenarios/mesbg/iron-hills-vs-orcs-best.toml")),
    (
        "mesbg/khandish-into-spears-and-banner.toml",
        include_str!("../../../scenarios/mesbg/khandish-into-spears-and-banner.toml"),
    ),
    (
        "mesbg/king-on-chariot-vs-cave-trolls.toml",
        include_str!("../../../scenarios/mesbg/king-on-chariot-vs-cave-trolls.toml"),
    ),
    (
        "mesbg/king-on-chariot-vs-uruk-hai.toml",
        include_str!("../../../scenarios/mesbg/king-on-chariot-vs-uruk-hai.toml"),
    ),
    (
        "mesbg/turn-three-khandish-into-shield-wall.toml",
        include_str!("../../../scenarios/mesbg/turn-three-khandish-into-shield-wall.toml"),
    ),
    (
        "mesbg/turn-two-iron-hills-into-pike-block.toml",
        include_str!("../../../scenarios/mesbg/turn-two-iron-hills-into-pike-block.toml"),
    ),
    (
        "battlesystem/elephant-howdah-vs-pikemen.toml",
        include_str!("../../../scenarios/battlesystem/elephant-howdah-vs-pikemen.toml"),
    ),
    (
        "battlesystem/routing-elephants-in-battle-line.toml",
        include_str!("../../../scenarios/battlesystem/routing-elephants-in-battle-line.toml"),
    ),
    ("battlesystem/dragon-with-crew.toml", include_str!("../../../scenarios/battlesystem/dragon-with-crew.toml")),
];

/// The largest request body read: a scenario file's limit.
const MAX_BODY_BYTES: usize = crate::input::MAX_FILE_BYTES as usize;

/// Trials the board on the page counts each model's chance from (the report's board
/// counts [`BOARD_TRIALS`](crate::mesbg::board::BOARD_TRIALS)).
const PAGE_BOARD_TRIALS: u64 = 20_000;

/// The name a scenario sent to the server goes by in messages and reports.
const DEFAULT_NAME: &str = "scenario.toml";

/// Options of `serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port; the address is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on. The default serves this machine only; another address
    /// serves the network, without any login: only do that on a network you trust.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// Open the page in the default browser once the server listens.
    #[arg(long)]
    pub open: bool,
    /// The most trials one run or comparison may ask for.
    #[arg(long, default_value_t = 20_000_000, value_parser = clap::value_parser!(u64).range(1..=MAX_TRIALS))]
    pub max_trials: u64,
    /// Worker threads for runs (default: all cores, or RAYON_NUM_THREADS).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Runs and comparisons playing at once (they share the run threads); others wait
    /// their turn in a queue whose place the page shows.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub max_jobs: u64,
    /// Runs waiting their turn at most; one more is refused (429) until one starts.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(0..=10_000))]
    pub max_queue: u64,
    /// Seconds after which a job whose page stopped asking after it is cancelled (a
    /// background tab may poll only once a minute).
    #[arg(long, default_value_t = 180, value_parser = clap::value_parser!(u64).range(1..=86_400), hide = true)]
    pub abandon_after_s: u64,
    /// Seconds a request's headers, and then its body, may take to arrive.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=3600), hide = true)]
    pub request_time_s: u64,
}

/// Checks (validations) made at once; more wait their turn.
const CHECK_SLOTS: usize = 2;

/// Checks waiting their turn at most; one more is refused (429).
const CHECKS_WAITING: usize = 64;

/// How long a check may wait for its turn before it is refused (503).
const CHECK_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

/// Where the server writes its runs' reports, each in a folder of its own: the only place
/// it writes.
pub(super) const REPORTS: &str = "reports/web";

/// What every request handler shares.
struct Server {
    /// The worker threads of each run slot (of lower priority than checks).
    run_pools: Vec<rayon::ThreadPool>,
    /// The worker threads checks are made on (at normal priority).
    check_pool: rayon::ThreadPool,
    /// Turns for checks: [`CHECK_SLOTS`] at once.
    check_slots: tokio::sync::Semaphore,
    /// Checks waiting for a turn now.
    checks_waiting: std::sync::atomic::AtomicUsize,
    /// Runs and comparisons, queued, running and finished.
    jobs: Jobs,
    /// The most trials a request may ask for.
    max_trials: u64,
    /// Whether it listens on this machine only (then every request must name it).
    local_only: bool,
    /// How long a request's headers, and then its body, may take to arrive.
    request_time: std::time::Duration,
}

type Shared = Arc<Server>;

/// Starts the server and serves until Ctrl-C.
pub(super) fn serve(args: ServeArgs) -> Result<()> {
    // Each slot its own threads (no count: all cores, or RAYON_NUM_THREADS); the
    // operating system shares the cores between the slots playing.
    let run_pools = (0..args.max_jobs)
        .map(|slot| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(args.threads.map_or(0, |n| n as usize))
                .thread_name(move |i| format!("charioteer-run-{slot}-{i}"))
                .start_handler(|_| lower_this_threads_priority())
                .build()
                .context("cannot start the run threads")
        })
        .collect::<Result<Vec<_>>>()?;
    let check_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(CHECK_SLOTS)
        .thread_name(|i| format!("charioteer-check-{i}"))
        .build()
        .context("cannot start the check threads")?;
    let limits = Limits {
        running: args.max_jobs as usize,
        queued: args.max_queue as usize,
        abandon_after: std::time::Duration::from_secs(args.abandon_after_s),
    };
    let server = Arc::new(Server {
        run_pools,
        check_pool,
        check_slots: tokio::sync::Semaphore::new(CHECK_SLOTS),
        checks_waiting: Default::default(),
        jobs: Jobs::new(limits),
        max_trials: args.max_trials,
        local_only: args.host.is_loopback(),
        request_time: std::time::Duration::from_secs(args.request_time_s),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the web server's runtime")?;
    runtime.block_on(async move {
        let address = SocketAddr::new(args.host, args.port);
        let listener = tokio::net::TcpListener::bind(address).await.with_context(|| {
            format!("cannot listen on {address} (is another server using port {}? try --port 0)", args.port)
        })?;
        let bound = listener.local_addr()?;
        // Listening on every address (0.0.0.0, ::): a browser here reaches it at loopback;
        // others use this machine's address on their network.
        let reachable = if bound.ip().is_unspecified() {
            let loopback: std::net::IpAddr =
                if bound.is_ipv6() { std::net::Ipv6Addr::LOCALHOST.into() } else { std::net::Ipv4Addr::LOCALHOST.into() };
            SocketAddr::new(loopback, bound.port())
        } else {
            bound
        };
        let url = format!("http://{reachable}/");
        out!("charioteer serve: open {url} in a browser (Ctrl-C stops the server)");
        if !args.host.is_loopback() {
            eprintln!(
                "warning: serving {} to the network, without any login (others open http://<this machine's address>:{}/)",
                args.host,
                bound.port()
            );
        }
        if args.open {
            open_browser(&url);
        }
        let app = router(server.clone());
        // Jobs whose page went away without cancelling them are cancelled.
        let watching = server.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
                watching.jobs.cancel_abandoned();
            }
        });
        let stopping = server.clone();
        listen::serve(listener, app, server.request_time, async move {
            while !CANCEL.load(Ordering::Relaxed) {
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            stopping.jobs.cancel_all();
        })
        .await;
        anyhow::Ok(())
    })?;
    out!("charioteer serve: stopped");
    Ok(())
}

/// Lowers the priority of the calling thread (a run thread), so the operating system
/// gives the check threads the cores first whenever both want them.
fn lower_this_threads_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: plain system calls on this thread's own id; a failure only leaves the
    // priority as it was.
    unsafe {
        // On Linux a thread id names that thread alone for setpriority.
        let thread = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS as _, thread, 10);
    }
}

/// Asks the desktop to open `url` (a failure is only said: the address is printed).
fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") { "open" } else { "xdg-open" };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        eprintln!("warning: cannot open a browser ({opener}: {e}); open {url} yourself");
    }
}

/// Every route.
fn router(server: Shared) -> Router {
    Router::new()
        .route("/", get(|| async { page(PAGE_HTML, "text/html; charset=utf-8") }))
        .route("/app.js", get(|| async { page(PAGE_JS, "text/javascript; charset=utf-8") }))
        .route("/style.css", get(|| async { page(PAGE_CSS, "text/css; charset=utf-8") }))
        .route("/favicon.ico", get(|| async { StatusCode::NO_CONTENT }))
        .route("/api/library", get(library))
        .route("/api/validate", post(validate_request))
        .route("/api/run", post(play_now::<false>))
        .route("/api/compare", post(play_now::<true>))
        .route("/api/jobs/run", post(start_job::<false>))
        .route("/api/jobs/compare", post(start_job::<true>))
        .route("/api/jobs/{id}", get(job_status).delete(cancel_job))
        .route("/api/jobs/{id}/cancel", post(cancel_job))
        .route("/api/jobs/{id}/files/{name}", get(job_file))
        .route("/api/jobs/{id}/report.zip", get(job_zip))
        .fallback(|| async {
            ApiError::new(StatusCode::NOT_FOUND, "no such page or API route (the API is under /api/)")
        })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(server.request_time, listen::body_in_time))
        .layer(axum::middleware::from_fn_with_state(server.clone(), same_origin_only))
        .with_state(server)
}

/// Whether `host` (a `Host` header: name and port) names this machine.
fn names_this_machine(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) => name,
        _ => host,
    };
    matches!(name, "localhost" | "127.0.0.1" | "[::1]")
}

/// Refuses (403) what another web site could make a browser send: a request whose `Host`
/// does not name this machine while the server listens on this machine only (a page
/// reaching it through DNS rebinding), and one whose `Origin` is not the page's own
/// (another site's script posting runs). Clients that are not browsers (curl, scripts)
/// send no `Origin`.
async fn same_origin_only(
    State(server): State<Shared>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    // Read before the await: the request is handed on, and its headers are not `Sync`.
    let (host, origin) = {
        let header = |name| request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        (header(header::HOST).unwrap_or_default(), header(header::ORIGIN))
    };
    if server.local_only && !names_this_machine(&host) {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            format!("this server answers to localhost and 127.0.0.1 only, not to {host:?}"),
        )
        .into_response();
    }
    if let Some(origin) = origin
        && origin != format!("http://{host}")
    {
        return ApiError::new(
            StatusCode::FORBIDDEN,
            format!("requests from another site ({origin}) are refused: open the page at http://{host}/"),
        )
        .into_response();
    }
    next.run(request).await
}

fn page(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

/// A 4xx or 5xx answer: `{"error": ..., "problems": [{file, line, field, message}]}`.
#[derive(Debug)]
struct ApiError {
    status: StatusCode,
    error: String,
    problems: Vec<Value>,
}

impl ApiError {
    fn new(status: StatusCode, error: impl Into<String>) -> Self {
        Self { status, error: error.into(), problems: Vec::new() }
    }

    fn bad(error: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, error)
    }

    /// A scenario the validator refused: 400 with each problem's file, line and field.
    fn scenario(error: &ScenarioError) -> Self {
        let problems = match error {
            ScenarioError::Invalid { file, problems } => problems
                .iter()
                .map(|p| {
                    json!({"file": file, "line": p.line, "field": p.field, "message": p.message,
                           "text": p.located(file)})
                })
                .collect(),
            ScenarioError::Read { .. } => Vec::new(),
        };
        let headline = match error {
            ScenarioError::Invalid { file, problems } => format!(
                "{file} is not a valid scenario ({} problem{})",
                problems.len(),
                if problems.len() == 1 { "" } else { "s" }
            ),
            other => other.to_string(),
        };
        Self { status: StatusCode::BAD_REQUEST, error: headline, problems }
    }

    /// A failure of the server's own (not the request's).
    fn internal(error: &anyhow::Error) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, format!("{error:#}"))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({"error": self.error, "problems": self.problems}))).into_response()
    }
}

impl From<BytesRejection> for ApiError {
    fn from(rejection: BytesRejection) -> Self {
        let status = rejection.status();
        let error = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!("the request body is larger than a scenario may be ({} bytes)", MAX_BODY_BYTES)
        } else {
            rejection.body_text()
        };
        Self::new(status, error)
    }
}

impl From<QueryRejection> for ApiError {
    fn from(rejection: QueryRejection) -> Self {
        Self::bad(format!("bad query parameters: {} (trials and seed are whole numbers)", rejection.body_text()))
    }
}

/// Who a request comes from, for "one run at a time": the page's `X-Charioteer-Client`
/// id, or the caller's address.
fn client_of(headers: &HeaderMap, peer: SocketAddr) -> String {
    headers
        .get("x-charioteer-client")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 64)
        .map(|v| format!("id:{v}"))
        .unwrap_or_else(|| format!("ip:{}", peer.ip()))
}

/// The query of `validate`: the name messages give the scenario, and how many trials the
/// board counts.
#[derive(Debug, Deserialize)]
struct ValidateQuery {
    name: Option<String>,
    board_trials: Option<u64>,
}

/// The query of a run or comparison.
#[derive(Debug, Deserialize, Default)]
struct PlayQuery {
    trials: Option<u64>,
    seed: Option<u64>,
    name: Option<String>,
}

/// A scenario's TOML text from a request body: the text itself, or (with a JSON content
/// type) a JSON object written as TOML.
fn scenario_text_of(headers: &HeaderMap, body: &[u8]) -> Result<String, ApiError> {
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        let value: Value =
            serde_json::from_slice(body).map_err(|e| ApiError::bad(format!("the body is not valid JSON: {e}")))?;
        return toml_of(&value);
    }
    let text = std::str::from_utf8(body).map_err(|_| ApiError::bad("the scenario is not UTF-8 text"))?;
    if text.trim().is_empty() {
        return Err(ApiError::bad("the body is empty: send a scenario's TOML text"));
    }
    Ok(text.to_string())
}

/// A scenario's JSON form (an object, as a TOML table reads) written as TOML.
fn toml_of(value: &Value) -> Result<String, ApiError> {
    if !value.is_object() {
        return Err(ApiError::bad("a scenario in JSON is an object (the fields of its TOML file)"));
    }
    // Checked as a TOML table first (no nulls, nothing TOML cannot hold), then written in
    // the order a person writes a scenario.
    let _: toml::Table = serde_json::from_value(value.clone())
        .map_err(|e| ApiError::bad(format!("this JSON cannot be a TOML scenario: {e}")))?;
    toml::to_string(&in_file_order(value.clone()))
        .map_err(|e| ApiError::bad(format!("this JSON cannot be written as TOML: {e}")))
}

/// The fields a scenario file usually starts with, in the order the examples write them;
/// any other field follows them, alphabetically.
const FIELD_ORDER: &[&str] = &[
    "title",
    "question",
    "answer",
    "system",
    "trials",
    "seed",
    "name",
    "profile",
    "side",
    "kind",
    "count",
    "ranks",
    "move",
    "fight",
    "strength",
    "defence",
    "attacks",
    "wounds",
    "courage",
    "might",
    "will",
    "fate",
    "impact",
    "base",
    "at",
    "front_centre",
    "from",
    "to",
    "polygon",
    "facing",
    "points",
    "pivots",
    "aim",
    "plan",
    "objective",
    "chariot",
    "charge",
    "formations",
    "terrain",
    "army",
    "rules",
];

/// A scenario's JSON form with every table's fields in [`FIELD_ORDER`], so its TOML reads
/// like a file a person wrote (a TOML table read back comes alphabetical).
fn in_file_order(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut fields: Vec<(String, Value)> = map.into_iter().collect();
            let rank = |k: &str| FIELD_ORDER.iter().position(|f| *f == k).unwrap_or(FIELD_ORDER.len());
            fields.sort_by(|(a, _), (b, _)| rank(a).cmp(&rank(b)).then_with(|| a.cmp(b)));
            Value::Object(fields.into_iter().map(|(k, v)| (k, in_file_order(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(in_file_order).collect()),
        other => other,
    }
}

/// A scenario file's name as the request gives it: a plain file name, or the default.
/// The scenario's file name in a run's report folder: a plain `*.toml` name (letters,
/// digits, `-`, `_`, `.` and spaces, not starting with a dot, at most 100 bytes), so it can
/// never be one of the report's own files (`report.md`, the charts, the tables) nor reach
/// outside the folder (`..`); anything else is ignored for `scenario.toml`.
fn name_of(name: Option<&str>) -> String {
    match name {
        Some(n) if plain_toml_name(n) => n.to_string(),
        _ => DEFAULT_NAME.to_string(),
    }
}

fn plain_toml_name(n: &str) -> bool {
    let stem = n.strip_suffix(".toml").unwrap_or("");
    !stem.is_empty()
        && n.len() <= 100
        && !n.starts_with('.')
        && n.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ' '))
}

/// Makes a check on the check threads, in its turn ([`CHECK_SLOTS`] at once), without
/// holding up the server's threads. Refused (429) when too many wait already, and (503)
/// when its turn does not come in [`CHECK_WAIT`].
async fn on_check_pool<T: Send + 'static>(
    server: &Shared,
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let busy = |status, why: &str| {
        ApiError::new(status, format!("the server is busy checking other set-ups ({why}); try again in a moment"))
    };
    if server.checks_waiting.fetch_add(1, Ordering::Relaxed) >= CHECKS_WAITING {
        server.checks_waiting.fetch_sub(1, Ordering::Relaxed);
        return Err(busy(StatusCode::TOO_MANY_REQUESTS, &format!("{CHECKS_WAITING} checks are waiting")));
    }
    let turn = tokio::time::timeout(CHECK_WAIT, server.check_slots.acquire()).await;
    server.checks_waiting.fetch_sub(1, Ordering::Relaxed);
    let _turn = match turn {
        Ok(Ok(permit)) => permit,
        Ok(Err(_)) => return Err(busy(StatusCode::SERVICE_UNAVAILABLE, "it is shutting down")),
        Err(_) => {
            return Err(busy(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!("this check waited {} s for its turn", CHECK_WAIT.as_secs()),
            ));
        }
    };
    let pool_server = server.clone();
    tokio::task::spawn_blocking(move || pool_server.check_pool.install(work))
        .await
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the check failed: {e}")))?
}

/// `GET /api/library`: the profile library (MESBG) and the bundled examples.
async fn library() -> Json<Value> {
    let profiles: toml::Table = scenario::bundled_profile_tables();
    let examples: Vec<Value> = EXAMPLES
        .iter()
        .map(|(path, text)| {
            let title = toml::from_str::<toml::Table>(text)
                .ok()
                .and_then(|t| t.get("title").and_then(|v| v.as_str()).map(str::to_string))
                .unwrap_or_else(|| path.to_string());
            let system = if path.starts_with("battlesystem") { "battlesystem" } else { "mesbg" };
            json!({"file": path, "system": system, "title": title, "toml": text})
        })
        .collect();
    Json(json!({
        "profiles": profiles,
        "examples": examples,
        "default": scenario::DEFAULT_SCENARIO,
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

/// `POST /api/validate`: the scenario checked (400 with its problems), with its
/// description, warnings, rule options, canonical TOML and JSON forms, and its board.
async fn validate_request(
    State(server): State<Shared>,
    query: Result<Query<ValidateQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Result<axum::body::Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(query) = query?;
    let text = scenario_text_of(&headers, &body?)?;
    let name = name_of(query.name.as_deref());
    let board_trials = query.board_trials.unwrap_or(PAGE_BOARD_TRIALS);
    if board_trials > crate::mesbg::board::BOARD_TRIALS {
        return Err(ApiError::bad(format!(
            "board_trials may be at most {} (the report's board)",
            crate::mesbg::board::BOARD_TRIALS
        )));
    }
    on_check_pool(&server, move || {
        let loaded = load_text(&text, &name).map_err(|e| ApiError::scenario(&e))?;
        let table: toml::Table = toml::from_str(&text).map_err(|e| ApiError::bad(e.to_string()))?;
        let mut answer = on_system!(loaded, validated(board_trials)).map_err(|e| ApiError::internal(&e))?;
        if let Some(o) = answer.as_object_mut() {
            o.insert("toml".into(), text.clone().into());
            o.insert("scenario".into(), in_file_order(serde_json::to_value(&table).unwrap_or(Value::Null)));
        }
        Ok(answer)
    })
    .await
    .map(Json)
}

/// What `validate` says of a valid scenario of system `S`, with its board.
fn validated<S: WebSystem>(scenario: S::Scenario, board_trials: u64) -> Result<Value> {
    let facts = S::facts(&scenario);
    let plan = S::compile(&scenario);
    let (summary, details) = S::describe(&scenario, &plan);
    let warnings: Vec<Value> = S::warnings(&scenario, &plan)
        .iter()
        .map(|w| {
            json!({"file": facts.name, "line": w.line, "field": w.field, "message": w.message,
                         "text": w.located(&facts.name)})
        })
        .collect();
    Ok(json!({
        "ok": true,
        "system": S::NAME,
        "title": facts.title,
        "file": facts.name,
        "seed": facts.seed,
        "trials": facts.trials,
        "trial_word": facts.trial_word,
        "summary": summary,
        "details": details,
        "warnings": warnings,
        "ruleset": facts.ruleset,
        "metrics": jobs::metric_defs(&plan),
        "board": S::page_board(&scenario, &plan, board_trials)?,
    }))
}

/// What the page needs of a rule system beyond the command line's view.
pub(super) trait WebSystem: System {
    /// The system's name in answers (`mesbg`, `battlesystem`).
    const NAME: &'static str;
    /// The board as the page draws it: MESBG's geometry with each model's counted chance,
    /// or BATTLESYSTEM's board map as an SVG.
    fn page_board(scenario: &Self::Scenario, plan: &Self::Plan, trials: u64) -> Result<Value>;
}

impl WebSystem for Mesbg {
    const NAME: &'static str = "mesbg";
    fn page_board(s: &Scenario, plan: &Plan, trials: u64) -> Result<Value> {
        let picture = crate::mesbg::board::picture(s, plan, s.seed, trials);
        Ok(json!({"kind": "geometry", "picture": picture, "plan": report::PlanFacts::of(plan)}))
    }
}

impl WebSystem for Battlesystem {
    const NAME: &'static str = "battlesystem";
    fn page_board(s: &Self::Scenario, plan: &Self::Plan, _: u64) -> Result<Value> {
        let rendered = Battlesystem::board(s, plan)?;
        Ok(json!({"kind": "svg", "svg": rendered.svg}))
    }
}

impl WebSystem for super::turn::Turn {
    const NAME: &'static str = "mesbg";
    fn page_board(s: &Scenario, plan: &Self::Plan, _: u64) -> Result<Value> {
        // Every chariot's path, numbered, drawn as the report draws it.
        let rendered = <super::turn::Turn as System>::board(s, plan)?;
        Ok(json!({"kind": "svg", "svg": rendered.svg}))
    }
}

/// Reads the scenario of a run request and checks its trials against the server's bound.
fn run_request(
    server: &Server,
    headers: &HeaderMap,
    body: &[u8],
    query: &PlayQuery,
) -> Result<(Loaded, String, u64, u64), ApiError> {
    let text = scenario_text_of(headers, body)?;
    let loaded = load_text(&text, &name_of(query.name.as_deref())).map_err(|e| ApiError::scenario(&e))?;
    let (seed, trials) = own_seed_and_trials(&loaded);
    let trials = check_trials(server, query.trials, trials)?;
    Ok((loaded, text, query.seed.unwrap_or(seed), trials))
}

/// A scenario's own seed and trials.
fn own_seed_and_trials(loaded: &Loaded) -> (u64, u64) {
    match loaded {
        Loaded::Mesbg(s) | Loaded::Turn(s) => (s.seed, s.trials),
        Loaded::Battlesystem(s) => (s.seed, s.trials),
    }
}

/// The trials of a request: the query's or the scenario's, within the server's bound.
fn check_trials(server: &Server, asked: Option<u64>, scenario: u64) -> Result<u64, ApiError> {
    let trials = asked.unwrap_or(scenario);
    if trials == 0 || trials > server.max_trials {
        return Err(ApiError::bad(format!(
            "trials must be 1 to {} on this server (asked: {}{}): ask for fewer (the page's Trials box, the API's ?trials=N), or start the server with a larger --max-trials",
            group_digits(server.max_trials),
            group_digits(trials),
            if asked.is_none() { ", the scenario's own `trials`" } else { "" }
        )));
    }
    Ok(trials)
}

/// A comparison's body: the two scenarios, each as TOML text or its JSON form.
fn compare_request(
    server: &Server,
    body: &[u8],
    query: &PlayQuery,
) -> Result<(Loaded, Loaded, [String; 2], u64, u64), ApiError> {
    let value: Value = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad(format!("a comparison's body is JSON {{\"a\": scenario, \"b\": scenario}}: {e}")))?;
    let side = |key: &str| -> Result<(Loaded, String), ApiError> {
        let text = match value.get(key) {
            Some(Value::String(text)) => text.clone(),
            Some(object @ Value::Object(_)) => toml_of(object)?,
            _ => return Err(ApiError::bad(format!("the comparison has no scenario \"{key}\" (TOML text or JSON)"))),
        };
        let name = format!("{}.toml", key.to_uppercase());
        Ok((load_text(&text, &name).map_err(|e| ApiError::scenario(&e))?, text))
    };
    let ((a, text_a), (b, text_b)) = (side("a")?, side("b")?);
    if !jobs::same_system(&a, &b) {
        return Err(ApiError::bad(format!(
            "a comparison pairs two scenarios of one kind (their trials share random streams): A is {}, B is {}",
            a.kind(),
            b.kind()
        )));
    }
    let (seed, trials) = own_seed_and_trials(&a);
    let trials = check_trials(server, query.trials, trials)?;
    Ok((a, b, [text_a, text_b], query.seed.unwrap_or(seed), trials))
}

/// The work of a job, ready to play.
type Work = Box<dyn FnOnce(&Server, &Job) -> Result<Value, ApiError> + Send>;

/// A run (`COMPARE` false: the body is a scenario) or a comparison (`COMPARE` true: the
/// body is `{"a": ..., "b": ...}`) read from a request, registered as a job of its client
/// (`watched`: the request waits for it).
fn prepared<const COMPARE: bool>(
    server: &Server,
    watched: bool,
    peer: SocketAddr,
    query: Result<Query<PlayQuery>, QueryRejection>,
    headers: &HeaderMap,
    body: Result<axum::body::Bytes, BytesRejection>,
) -> Result<(Arc<Job>, Work), ApiError> {
    let Query(query) = query?;
    let body = body?;
    let client = client_of(headers, peer);
    if COMPARE {
        let (a, b, texts, seed, trials) = compare_request(server, &body, &query)?;
        let job = server.jobs.start(client, JobKind::Compare, trials, watched)?;
        Ok((job, Box::new(move |_, job| jobs::compare_job(job, a, b, &texts, seed, trials))))
    } else {
        let (loaded, text, seed, trials) = run_request(server, headers, &body, &query)?;
        let job = server.jobs.start(client, JobKind::Run, trials, watched)?;
        Ok((job, Box::new(move |_, job| jobs::run_job(job, loaded, &text, seed, trials))))
    }
}

/// `POST /api/run` and `POST /api/compare`: plays the run (`run --json`'s object) or the
/// comparison on common random numbers (`compare --json`'s) and answers when done. It
/// stops if the caller goes away.
async fn play_now<const COMPARE: bool>(
    State(server): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    query: Result<Query<PlayQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Result<axum::body::Bytes, BytesRejection>,
) -> Result<Json<Value>, ApiError> {
    let (job, work) = prepared::<COMPARE>(&server, true, peer, query, &headers, body)?;
    finish_now(&server, job, work).await
}

/// `POST /api/jobs/run` and `POST /api/jobs/compare`: the same, started and answered at
/// once (202) with the job's status.
async fn start_job<const COMPARE: bool>(
    State(server): State<Shared>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    query: Result<Query<PlayQuery>, QueryRejection>,
    headers: HeaderMap,
    body: Result<axum::body::Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (job, work) = prepared::<COMPARE>(&server, false, peer, query, &headers, body)?;
    let answer = server.jobs.status(&job);
    drop(jobs::spawn(server, job, work));
    Ok((StatusCode::ACCEPTED, Json(answer)).into_response())
}

/// Plays a job while the caller waits; cancels it if the caller goes away.
async fn finish_now(
    server: &Shared,
    job: Arc<Job>,
    work: impl FnOnce(&Server, &Job) -> Result<Value, ApiError> + Send + 'static,
) -> Result<Json<Value>, ApiError> {
    /// Cancels the job when the request is dropped before it finished.
    struct CancelOnDrop(Arc<Job>);
    impl Drop for CancelOnDrop {
        fn drop(&mut self) {
            self.0.stop();
        }
    }
    let guard = CancelOnDrop(job.clone());
    let result = jobs::spawn(server.clone(), job.clone(), work).await;
    drop(guard);
    let answer =
        result.map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, format!("the run failed: {e}")))?;
    answer.map(Json)
}

/// `GET /api/jobs/{id}`: a job's progress, and its result when done.
async fn job_status(
    State(server): State<Shared>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Result<Json<Value>, ApiError> {
    let job = server.jobs.find(&id)?;
    Ok(Json(server.jobs.status(&job)))
}

/// `DELETE /api/jobs/{id}` (or `POST .../cancel`, which a page going away can send):
/// stops a running job at its next block of trials, or takes it out of the queue.
async fn cancel_job(
    State(server): State<Shared>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Result<Json<Value>, ApiError> {
    let job = server.jobs.find(&id)?;
    job.stop();
    Ok(Json(server.jobs.status(&job)))
}

/// `GET /api/jobs/{id}/files/{name}`: a file of a finished run's report (only the files
/// it wrote, from its own folder under `reports/web/`).
async fn job_file(
    State(server): State<Shared>,
    axum::extract::Path((id, name)): axum::extract::Path<(String, String)>,
) -> Result<Response, ApiError> {
    let job = server.jobs.find(&id)?;
    let path = job
        .report_file(&name)
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("run {id} wrote no file {name:?}")))?;
    let bytes = tokio::fs::read(&path)
        .await
        .map_err(|e| ApiError::new(StatusCode::NOT_FOUND, format!("cannot read {}: {e}", path.display())))?;
    let kind = match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("md") => "text/markdown; charset=utf-8",
        Some("csv") => "text/csv; charset=utf-8",
        Some("json") => "application/json",
        Some("toml") => "application/toml",
        _ => "application/octet-stream",
    };
    let disposition =
        if kind.starts_with("image/") { "inline".to_string() } else { format!("attachment; filename=\"{name}\"") };
    Ok(([(header::CONTENT_TYPE, kind.to_string()), (header::CONTENT_DISPOSITION, disposition)], bytes).into_response())
}

/// `GET /api/jobs/{id}/report.zip`: every file of a finished run's or comparison's report
/// (charts as SVG and PNG, tables, report.md, the scenario files) in one archive, in a
/// folder named as the report's.
async fn job_zip(
    State(server): State<Shared>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Result<Response, ApiError> {
    let job = server.jobs.find(&id)?;
    let folder = job
        .report_folder()
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, "this job has written no report (yet)".to_string()))?;
    let mut files = Vec::new();
    for (name, path) in job.report_files() {
        let bytes = tokio::fs::read(&path)
            .await
            .map_err(|e| ApiError::new(StatusCode::NOT_FOUND, format!("cannot read {}: {e}", path.display())))?;
        files.push((name, bytes));
    }
    let archive = zip::stored(&folder, &files);
    Ok((
        [
            (header::CONTENT_TYPE, "application/zip".to_string()),
            (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{folder}.zip\"")),
        ],
        archive,
    )
        .into_response())
}

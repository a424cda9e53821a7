//! What the web tests share: a `charioteer serve` started in a folder of its own (stopped
//! when dropped), a small HTTP/1.1 client on std's sockets, and a DevTools-protocol client
//! driving headless Chromium.

#![allow(dead_code)] // each test file uses part of this

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `charioteer serve`, killed when dropped.
pub struct Server {
    child: Child,
    /// `127.0.0.1:port`.
    pub address: String,
    /// The folder it runs in (its `reports/web/` is there).
    pub dir: tempfile::TempDir,
}

impl Server {
    /// Starts the server on a free port with extra arguments, and waits for its address.
    pub fn start(args: &[&str]) -> Server {
        let dir = tempfile::tempdir().expect("temporary folder");
        let mut child = Command::new(env!("CARGO_BIN_EXE_charioteer"))
            .args(["serve", "--port", "0", "--threads", "2"])
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the server prints its address");
        let address = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Server { child, address, dir }
    }

    /// The page's URL.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Sends one request and answers its status, headers and body.
    pub fn request(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
        request_to(&self.address, method, path, headers, body)
    }

    /// POST with a body and content type.
    pub fn post(&self, path: &str, kind: &str, body: &[u8]) -> Response {
        self.request("POST", path, &[("Content-Type", kind)], body)
    }

    /// GET.
    pub fn get(&self, path: &str) -> Response {
        self.request("GET", path, &[], b"")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer.
#[derive(Debug)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// Body (de-chunked).
    pub body: Vec<u8>,
}

impl Response {
    fn parse(raw: &[u8]) -> Response {
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no HTTP answer in {:?}", String::from_utf8_lossy(raw)));
        let head = String::from_utf8_lossy(&raw[..split]).to_string();
        let mut lines = head.split("\r\n");
        let status = lines.next().and_then(|l| l.split(' ').nth(1)).and_then(|s| s.parse().ok()).expect("status");
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':').map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string())))
            .collect();
        let mut body = raw[split + 4..].to_vec();
        if headers.iter().any(|(k, v)| k == "transfer-encoding" && v.contains("chunked")) {
            body = dechunk(&body);
        }
        Response { status, headers, body }
    }

    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = body.windows(2).position(|w| w == b"\r\n") else { return out };
        let size = usize::from_str_radix(String::from_utf8_lossy(&body[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[end + 2..end + 2 + size]);
        body = &body[end + 2 + size + 2..];
    }
}

/// Sends one request to `address` (a server started elsewhere) and answers its status,
/// headers and body; `Host` defaults to the address.
pub fn request_to(address: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
    let mut stream = TcpStream::connect(address).expect("connects");
    stream.set_read_timeout(Some(Duration::from_secs(300))).expect("timeout");
    let host = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case("host")).map_or(address, |(_, v)| v);
    let mut head =
        format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers.iter().filter(|(k, _)| !k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    // A server may answer (413) before the whole body is sent and close: the answer is
    // still read.
    let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(body));
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    Response::parse(&raw)
}

/// The repository's file at `path`.
pub fn repo_file(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).expect("repository file")
}

/// Headless Chromium driven through the DevTools protocol, one page attached.
pub struct Browser {
    child: Child,
    socket: tungstenite::WebSocket<tungstenite::stream::MaybeTlsStream<TcpStream>>,
    session: String,
    next: u64,
    _profile: tempfile::TempDir,
}

/// The Chromium binary: `CHARIOTEER_CHROMIUM`, or the first of the usual names on PATH.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("CHARIOTEER_CHROMIUM") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

impl Browser {
    /// Starts Chromium headless with a fresh profile and attaches to a blank page.
    pub fn start(binary: &Path, width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir().expect("profile folder");
        let mut child = Command::new(binary)
            .args([
                "--headless",
                "--no-sandbox", // CI runs as root
                "--disable-gpu",
                "--no-first-run",
                "--disable-dev-shm-usage",
                "--remote-debugging-port=0",
                &format!("--window-size={width},{height}"),
                &format!("--user-data-dir={}", profile.path().display()),
                "about:blank",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", binary.display()));
        // Chromium says where its DevTools socket listens on standard error.
        let stderr = child.stderr.take().expect("stderr");
        let (found, wait) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(at) = line.find("ws://") {
                    let _ = found.send(line[at..].trim().to_string());
                }
            }
        });
        let ws = wait.recv_timeout(Duration::from_secs(60)).expect("Chromium prints its DevTools address");
        let (socket, _) = tungstenite::connect(ws.as_str()).expect("connects to DevTools");
        let mut browser = Browser { child, socket, session: String::new(), next: 0, _profile: profile };
        let target = browser.call_browser("Target.createTarget", json!({"url": "about:blank"}));
        let target = target["targetId"].as_str().expect("target id").to_string();
        let attached = browser.call_browser("Target.attachToTarget", json!({"targetId": target, "flatten": true}));
        browser.session = attached["sessionId"].as_str().expect("session id").to_string();
        browser.call("Page.enable", json!({}));
        browser.call("Runtime.enable", json!({}));
        browser.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}),
        );
        browser
    }

    fn send(&mut self, method: &str, params: Value, session: Option<String>) -> Value {
        self.next += 1;
        let id = self.next;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            message["sessionId"] = s.into();
        }
        self.socket.send(tungstenite::Message::Text(message.to_string().into())).expect("sends to DevTools");
        loop {
            let answer = self.socket.read().expect("reads from DevTools");
            let tungstenite::Message::Text(text) = answer else { continue };
            let value: Value = serde_json::from_str(text.as_str()).expect("DevTools answers JSON");
            if value["id"].as_u64() == Some(id) {
                if let Some(error) = value.get("error") {
                    panic!("{method} failed: {error}");
                }
                return value["result"].clone();
            }
        }
    }

    fn call_browser(&mut self, method: &str, params: Value) -> Value {
        self.send(method, params, None)
    }

    /// Calls a DevTools method on the page.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(method, params, Some(session))
    }

    /// Evaluates JavaScript in the page (awaiting a promise) and answers its value.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self
            .call("Runtime.evaluate", json!({"expression": expression, "returnByValue": true, "awaitPromise": true}));
        if let Some(e) = result.get("exceptionDetails") {
            panic!("{expression} threw: {e}");
        }
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is truthy (or panics after `seconds`, naming it).
    pub fn wait_for(&mut self, expression: &str, seconds: u64) -> Value {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        loop {
            let value = self.eval(expression);
            if !(value.is_null() || value == json!(false) || value == json!("") || value == json!(0)) {
                return value;
            }
            assert!(Instant::now() < deadline, "waited {seconds} s for {expression}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Opens `url` and waits for the page to say it is ready.
    pub fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
        self.wait_for("document.readyState === 'complete' && document.body.dataset.ready === 'yes'", 60);
    }

    /// The centre of the first element matching `selector`, in CSS pixels of the viewport
    /// (scrolled into view first).
    pub fn centre_of(&mut self, selector: &str) -> (f64, f64) {
        let v = self.eval(&format!(
            "(() => {{ const e = document.querySelector({s}); if (!e) return null; e.scrollIntoView({{block: 'center'}});
               const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
            s = serde_json::to_string(selector).expect("selector")
        ));
        let p = v.as_array().unwrap_or_else(|| panic!("no element {selector}"));
        (p[0].as_f64().expect("x"), p[1].as_f64().expect("y"))
    }

    fn mouse(&mut self, kind: &str, (x, y): (f64, f64), buttons: u32) {
        self.call(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "buttons": buttons, "clickCount": 1}),
        );
    }

    /// Clicks the element matching `selector` as a user would (press and release on it).
    pub fn click(&mut self, selector: &str) {
        let at = self.centre_of(selector);
        self.mouse("mouseMoved", at, 0);
        self.mouse("mousePressed", at, 1);
        self.mouse("mouseReleased", at, 0);
    }

    /// Drags from one point to another in steps, as a user's mouse would.
    pub fn drag(&mut self, from: (f64, f64), to: (f64, f64)) {
        self.mouse("mouseMoved", from, 0);
        self.mouse("mousePressed", from, 1);
        for step in 1..=10 {
            let t = f64::from(step) / 10.0;
            self.mouse("mouseMoved", (from.0 + (to.0 - from.0) * t, from.1 + (to.1 - from.1) * t), 1);
        }
        self.mouse("mouseReleased", to, 0);
    }

    /// Types into an input: sets its value and fires `change`, as leaving the field does.
    pub fn set_value(&mut self, selector: &str, value: &str) {
        self.eval(&format!(
            "(() => {{ const e = document.querySelector({s}); e.value = {v}; e.dispatchEvent(new Event('change')); }})()",
            s = serde_json::to_string(selector).expect("selector"),
            v = serde_json::to_string(value).expect("value")
        ));
    }

    /// A PNG of the whole page.
    pub fn screenshot(&mut self, path: &Path) {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png", "captureBeyondViewport": true}));
        std::fs::write(path, base64_decode(shot["data"].as_str().expect("screenshot data"))).expect("writes");
    }

    /// A PNG of the top `height` pixels of the page, `width` wide.
    pub fn top_screenshot(&mut self, path: &Path, width: u32, height: u32) {
        let clip = json!({"x": 0, "y": 0, "width": width, "height": height, "scale": 1});
        let shot =
            self.call("Page.captureScreenshot", json!({"format": "png", "captureBeyondViewport": true, "clip": clip}));
        std::fs::write(path, base64_decode(shot["data"].as_str().expect("screenshot data"))).expect("writes");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => 0,
        }
    };
    let bytes: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &c)| n | (value(c) << (18 - 6 * i)));
        let real = chunk.iter().filter(|&&c| c != b'=').count();
        let take = real.saturating_sub(1);
        out.extend_from_slice(&n.to_be_bytes()[1..1 + take]);
    }
    out
}

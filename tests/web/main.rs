//! The page's tests: its API and the page in headless Chromium, each file a module (one
//! test binary links the crate once). Many players at once (`tests/web_load.rs`) is a
//! binary of its own: it measures a check's time, so nothing else of ours plays beside it.

mod web;
mod web_api;
mod web_browser;

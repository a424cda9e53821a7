//! The server's accept loop: HTTP/1.1 connections served by hyper with the limits a
//! shared server needs and `axum::serve` does not set: a request's headers must arrive in
//! time (`serve --request-time-s`, 10 s) and its body in as long again, and at most
//! [`MAX_CONNECTIONS`] are open at once (more are closed at once), so half-sent requests
//! cannot hold the server.

use super::ApiError;
use axum::Router;
use axum::extract::ConnectInfo;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tower::ServiceExt;

/// Connections open at once; one more is closed unanswered until one ends.
pub(super) const MAX_CONNECTIONS: usize = 256;

/// Serves `app` on `listener` until `stop` completes, then lets the requests in flight
/// finish (connections close after their current request). A request's headers must
/// arrive within `header_time` (an idle kept-alive connection is closed after as long).
pub(super) async fn serve(
    listener: tokio::net::TcpListener,
    app: Router,
    header_time: Duration,
    stop: impl Future<Output = ()>,
) {
    let open = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
    let (stopping, stopped) = tokio::sync::watch::channel(false);
    let mut stop = std::pin::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors and the like: wait a little rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut stop => break,
        };
        let Ok(slot) = open.clone().try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let app = app.clone();
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                app.clone().oneshot(request.map(axum::body::Body::new))
            });
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_time)
                .serve_connection(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stopped.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(Duration::from_secs(5), connection).await;
                }
            }
            drop(slot);
        });
    }
    let _ = stopping.send(true);
    // Wait (a while) for the connections in flight to end.
    let _ = tokio::time::timeout(Duration::from_secs(5), open.acquire_many(MAX_CONNECTIONS as u32)).await;
}

/// Reads a request's whole body within `body_time` (408 otherwise) and the size limit
/// (413 otherwise) before any handler sees it.
pub(super) async fn body_in_time(
    axum::extract::State(body_time): axum::extract::State<Duration>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let (parts, body) = request.into_parts();
    let limit = super::MAX_BODY_BYTES;
    let bytes = match tokio::time::timeout(body_time, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(_)) => {
            return ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body is larger than a scenario may be ({limit} bytes), or was cut off"),
            )
            .into_response();
        }
        Err(_) => {
            return ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                format!("the request body did not arrive within {} s (the server's limit)", body_time.as_secs_f64()),
            )
            .into_response();
        }
    };
    next.run(axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes))).await
}

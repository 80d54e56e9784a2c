//! `plant-store-server [--port N] [--token T] [--test-routes] [--www DIR] [--pkg DIR] [--log]`
//!
//! Listens on 127.0.0.1 only. Prints `listening on http://127.0.0.1:PORT` once ready (tests read
//! that line to learn a port chosen with `--port 0`), with `--log` a line for each plant created,
//! and stops cleanly on Ctrl-C or SIGTERM.
//! Without `--token` it expects [`DEMO_TOKEN`], and says so on stderr.

use plant_store_server::{app, serve, Config};
use std::path::PathBuf;
use std::process::ExitCode;

/// The token the server expects when `--token` is not given.
const DEMO_TOKEN: &str = "demo-token";

const USAGE: &str =
    "usage: plant-store-server [--port N] [--token T] [--test-routes] [--www DIR] [--pkg DIR] [--log]";

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("plant-store-server: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let mut port: u16 = 4010;
    let mut config =
        Config { token: DEMO_TOKEN.into(), test_routes: false, static_dirs: vec![], log: false };
    let mut token_given = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        // A wrong argument is told with the usage; other failures are not about it.
        let usage = |problem: &str| format!("{problem}\n{USAGE}");
        let mut value = || args.next().ok_or_else(|| usage(&format!("{arg} needs a value")));
        match arg.as_str() {
            "--port" => {
                port =
                    value()?.parse().map_err(|_| usage("--port takes a number from 0 to 65535"))?
            }
            "--token" => (config.token, token_given) = (value()?, true),
            "--test-routes" => config.test_routes = true,
            "--log" => config.log = true,
            "--www" => config.static_dirs.push(("/".into(), PathBuf::from(value()?))),
            "--pkg" => config.static_dirs.push(("/pkg".into(), PathBuf::from(value()?))),
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => return Err(usage(&format!("unknown argument {other}"))),
        }
    }
    plant_store_model::check_bearer_token(&config.token).map_err(|e| e.to_string())?;
    if !token_given {
        eprintln!(
            "plant-store-server: no --token given: send `Authorization: Bearer {DEMO_TOKEN}`"
        );
    }
    let (router, _store) = app(config);
    let ready = |addr| {
        println!("listening on http://{addr}");
    };
    serve(router, port, ready, shutdown_signal()).await.map_err(|e| match e.kind() {
        std::io::ErrorKind::AddrInUse => format!(
            "port {port} on 127.0.0.1 is already in use (another server listens there): \
             choose another with --port N, or --port 0 for any free port"
        ),
        _ => format!("cannot listen on 127.0.0.1:{port}: {e}"),
    })
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { () = ctrl_c => {}, () = term => {} }
    println!("plant-store-server: stopped");
}

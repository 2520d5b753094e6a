//! Tokio's side of three lanes scenarios (docs/benchmarks.md), shaped like
//! lanes' own (bench/scenarios/s3_sleepers.cpp, s4_spawn.cpp,
//! s12_echo.cpp): a runtime with WORKERS worker threads, and the measured
//! code in a task spawned onto it, as lanes' block_on runs its task on a
//! worker. S3 and S4 print their numbers on one line, separated by spaces,
//! for the lanes tool to read; S12's echo server prints lanes-echo's first
//! line and serves until it is killed.
//!
//!   lanes-tokio-peer s3 WORKERS TASKS        -> wall_ms bytes_per_task
//!   lanes-tokio-peer s4 WORKERS SEQUENTIAL BATCH
//!                                            -> one_at_a_time_ns batch_ns
//!   lanes-tokio-peer echo WORKERS            -> listening on 127.0.0.1:PORT
use std::io::Write;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[path = "../../common/args.rs"]
mod args;
use args::{positive, usage_error};

/// A field of /proc/self/status in KiB ("VmRSS", "VmHWM").
fn status_kib(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// S3: TASKS tasks that each sleep 100 ms, spawned, then all joined.
async fn sleepers(tasks: usize) {
    let mut handles = Vec::with_capacity(tasks);
    for _ in 0..tasks {
        handles.push(tokio::spawn(async {
            tokio::time::sleep(Duration::from_millis(100)).await
        }));
    }
    for handle in handles {
        handle.await.expect("a sleeper failed");
    }
}

/// S4: spawn + await of a trivial task one at a time, then a batch spawned
/// and then awaited; ns per task for each.
async fn spawn_await(sequential: usize, batch: usize) -> (f64, f64) {
    let mut sum: u64 = 0;
    for _ in 0..1000 {
        sum += tokio::spawn(async { 1u64 }).await.unwrap(); // warm up
    }
    let start = Instant::now();
    for _ in 0..sequential {
        sum += tokio::spawn(async { 1u64 }).await.unwrap();
    }
    let one_at_a_time = start.elapsed().as_nanos() as f64 / sequential as f64;
    let start = Instant::now();
    let mut handles = Vec::with_capacity(batch);
    for _ in 0..batch {
        handles.push(tokio::spawn(async { 1u64 }));
    }
    for handle in handles {
        sum += handle.await.unwrap();
    }
    let batched = start.elapsed().as_nanos() as f64 / batch as f64;
    assert_eq!(sum, (1000 + sequential + batch) as u64, "lost a task");
    (one_at_a_time, batched)
}

/// S12: a TCP echo server on 127.0.0.1, as lanes-echo (examples/echo_server.cpp):
/// one task per connection, a 16 KiB buffer, TCP_NODELAY.
async fn echo_server() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
    println!("listening on {}", listener.local_addr().expect("local address"));
    std::io::stdout().flush().expect("flush stdout");
    loop {
        let (mut conn, _) = listener.accept().await.expect("accept");
        tokio::spawn(async move {
            let _ = conn.set_nodelay(true);
            let mut buffer = vec![0u8; 16 * 1024];
            loop {
                match conn.read(&mut buffer).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => {
                        if conn.write_all(&buffer[..n]).await.is_err() {
                            return;
                        }
                    }
                }
            }
        });
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let scenario = args.get(1).map(String::as_str).unwrap_or("");
    if scenario != "s3" && scenario != "s4" && scenario != "echo" {
        usage_error("usage: s3 WORKERS TASKS | s4 WORKERS SEQUENTIAL BATCH | echo WORKERS");
    }
    let workers = positive(&args, 2, "WORKERS");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .expect("build the runtime");
    rt.block_on(async {}); // started, as lanes' side warms its runtime first
    if scenario == "echo" {
        rt.block_on(rt.spawn(echo_server())).expect("the echo server failed");
    } else if scenario == "s3" {
        let tasks = positive(&args, 3, "TASKS");
        let base = status_kib("VmRSS");
        let start = Instant::now();
        rt.block_on(rt.spawn(sleepers(tasks)))
            .expect("the spawning task failed");
        let wall_ms = start.elapsed().as_secs_f64() * 1000.0;
        let bytes = status_kib("VmHWM").saturating_sub(base) as f64 * 1024.0 / tasks as f64;
        println!("{wall_ms} {bytes}");
    } else {
        let sequential = positive(&args, 3, "SEQUENTIAL");
        let batch = positive(&args, 4, "BATCH");
        let (one, batched) = rt
            .block_on(rt.spawn(spawn_await(sequential, batch)))
            .expect("the spawning task failed");
        println!("{one} {batched}");
    }
}

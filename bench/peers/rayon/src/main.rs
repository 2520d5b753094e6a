//! Rayon's side of S9 (docs/benchmarks.md), shaped like lanes' own
//! (bench/scenarios/s9_fork_join.cpp, kernels.cpp): the same kernels, the
//! same inputs, a pool of THREADS threads. Prints its numbers on one line,
//! separated by spaces, for the lanes tool to read.
//!
//!   lanes-rayon-peer fib N THREADS JOINS
//!       -> ns per task of fib(N) by join without cutoff, ms of fib(N) with a
//!          cutoff at n < 20, ns per join of two trivial closures
//!   lanes-rayon-peer data THREADS JOBS ELEMENTS
//!       -> ms of JOBS calls of S1's f, ms of the sum of squares of ELEMENTS
//!          u64, ms of sorting them, and the two sums modulo 1000003 (the
//!          lanes tool checks them against a sequential run)
use std::hint::black_box;
use std::time::Instant;

use rayon::prelude::*;

#[path = "../../common/args.rs"]
mod args;
use args::{positive, usage_error};

/// fib(n) by plain recursion: the leaves below the cutoff.
#[inline(never)]
fn fib_sequential(n: u32) -> u64 {
    if n < 2 {
        n as u64
    } else {
        fib_sequential(n - 1) + fib_sequential(n - 2)
    }
}

/// Calls made by the naive recursion of fib(n): 2 fib(n+1) - 1.
fn fib_calls(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n + 1 {
        let next = a + b;
        a = b;
        b = next;
    }
    2 * a - 1
}

fn fib_join(n: u32, cutoff: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    if n < cutoff {
        return fib_sequential(n);
    }
    let (a, b) = rayon::join(|| fib_join(n - 1, cutoff), || fib_join(n - 2, cutoff));
    a + b
}

/// S1's f: a fold of 20,000 multiply-adds (~20 us), one after another as
/// g++ compiles the C++ one. The empty asm keeps `a` opaque to LLVM, which
/// otherwise reassociates the chain (several steps per multiply) and ran
/// the fold ~10 times faster than the other sides: another kernel.
#[inline(never)]
fn s1_f(x: u64) -> u64 {
    let mut a = x;
    for i in 0..20000u64 {
        a = a.wrapping_mul(6364136223846793005).wrapping_add(i);
        opaque(&mut a);
    }
    a
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn opaque(a: &mut u64) {
    // SAFETY: no instructions (a comment naming the register); it only
    // claims to read and write the register holding `a`.
    unsafe {
        std::arch::asm!(
            "/* {0} */",
            inout(reg) * a,
            options(nomem, nostack, preserves_flags)
        )
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn opaque(a: &mut u64) {
    *a = black_box(*a);
}

/// S9's inputs (splitmix64), the same as every other side's.
fn s9_data(n: usize) -> Vec<u64> {
    let mut s: u64 = 0x9e3779b97f4a7c15;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e3779b97f4a7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
            z ^ (z >> 31)
        })
        .collect()
}

fn seconds_of(f: impl FnOnce()) -> f64 {
    let start = Instant::now();
    f();
    start.elapsed().as_secs_f64()
}

/// The fastest of five calls, as the other sides measure the short rows.
fn best_seconds_of(mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| seconds_of(&mut f))
        .fold(f64::INFINITY, f64::min)
}

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("build the pool")
}

fn fib(n: u32, threads: usize, joins: usize) {
    let pool = pool(threads);
    let expected = fib_sequential(n);
    pool.install(|| fib_join(n - 4, 0)); // warm: threads awake, deques grown
    let mut got = 0;
    let no_cutoff = seconds_of(|| got = pool.install(|| fib_join(n, 0)));
    assert_eq!(got, expected, "rayon fib wrong");
    let cutoff = seconds_of(|| got = pool.install(|| fib_join(n, 20)));
    assert_eq!(got, expected, "rayon fib (cutoff) wrong");
    let join_total = seconds_of(|| {
        pool.install(|| {
            for _ in 0..joins {
                let (a, b) = rayon::join(|| black_box(1u64), || black_box(2u64));
                got = got.wrapping_add(a + b);
            }
        })
    });
    black_box(got);
    println!(
        "{} {} {}",
        no_cutoff * 1e9 / fib_calls(n) as f64,
        cutoff * 1e3,
        join_total * 1e9 / joins as f64
    );
}

fn data(threads: usize, jobs: usize, elements: usize) {
    let pool = pool(threads);
    let mut jobs_sum = 0u64;
    let mut run_jobs = || {
        jobs_sum = pool.install(|| {
            (0..jobs as u64)
                .into_par_iter()
                .map(s1_f)
                .reduce(|| 0, u64::wrapping_add)
        })
    };
    run_jobs(); // warm
    let jobs_ms = best_seconds_of(run_jobs) * 1e3;
    let values = s9_data(elements);
    let mut squares = 0u64;
    let mut run_squares = || {
        squares = pool.install(|| {
            values
                .par_iter()
                .map(|&x| x.wrapping_mul(x))
                .reduce(|| 0, u64::wrapping_add)
        })
    };
    run_squares();
    let squares_ms = best_seconds_of(run_squares) * 1e3;
    let mut to_sort = values.clone();
    let sort_ms = seconds_of(|| pool.install(|| to_sort.par_sort_unstable())) * 1e3;
    assert!(to_sort.windows(2).all(|w| w[0] <= w[1]), "rayon sort wrong");
    println!(
        "{} {} {} {} {}",
        jobs_ms,
        squares_ms,
        sort_ms,
        jobs_sum % 1000003,
        squares % 1000003
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("fib") => {
            let n = positive(&args, 2, "N");
            if n < 5 {
                usage_error("N must be at least 5");
            }
            fib(
                n as u32,
                positive(&args, 3, "THREADS"),
                positive(&args, 4, "JOINS"),
            )
        }
        Some("data") => data(
            positive(&args, 2, "THREADS"),
            positive(&args, 3, "JOBS"),
            positive(&args, 4, "ELEMENTS"),
        ),
        _ => {
            usage_error("usage: fib N THREADS JOINS | data THREADS JOBS ELEMENTS");
        }
    }
}

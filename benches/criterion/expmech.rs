//! Criterion benchmarks of the exponential mechanism and log-sum-exp (`cargo bench`).
//!
//! Sizes follow the foundation issue's targets: 10 scores (call overhead), 10^6 integer
//! utilities (exact path), 10^7 float scores (fast path and log-sum-exp).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use privlearn_core::Rng;
use privlearn_core::expmech::{Numerics, exponential, exponential_int};
use privlearn_core::vmath::log_sum_exp;
use std::hint::black_box;

fn float_scores(n: usize) -> Vec<f64> {
    let mut rng = Rng::from_seed(1);
    (0..n).map(|_| rng.uniform_f64() * 10.0).collect()
}

fn int_scores(n: usize) -> Vec<i64> {
    let mut rng = Rng::from_seed(2);
    (0..n).map(|_| -(rng.below(1000) as i64)).collect()
}

fn bench_expmech(c: &mut Criterion) {
    let mut group = c.benchmark_group("exponential");
    let mut rng = Rng::from_seed(3);
    for &n in &[10usize, 1_000, 1_000_000] {
        let s = float_scores(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::new("exact_f64", n), &s, |b, s| {
            b.iter(|| exponential(black_box(s), 1.0, 1.0, Numerics::Exact, &mut rng).unwrap())
        });
        let si = int_scores(n);
        group.bench_with_input(BenchmarkId::new("exact_i64", n), &si, |b, s| {
            b.iter(|| exponential_int(black_box(s), 1.0, 1.0, Numerics::Exact, &mut rng).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("fast_f64", n), &s, |b, s| {
            b.iter(|| exponential(black_box(s), 1.0, 1.0, Numerics::Fast, &mut rng).unwrap())
        });
    }
    let big = float_scores(10_000_000);
    group.sample_size(20);
    group.throughput(Throughput::Elements(big.len() as u64));
    group.bench_function("fast_f64/10000000", |b| {
        b.iter(|| exponential(black_box(&big), 1.0, 1.0, Numerics::Fast, &mut rng).unwrap())
    });
    group.finish();

    let mut lse = c.benchmark_group("log_sum_exp");
    lse.sample_size(20);
    lse.throughput(Throughput::Elements(big.len() as u64));
    lse.bench_function("10000000", |b| b.iter(|| log_sum_exp(black_box(&big))));
    lse.finish();
}

criterion_group!(benches, bench_expmech);
criterion_main!(benches);

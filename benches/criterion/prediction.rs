//! Criterion benchmarks of stable and private prediction (`cargo bench --bench prediction`).
//!
//! The per-query pieces of the predictors of seed 003 on intervals (`n = 10^5`, a subset of 294
//! points: 43,366 representatives) and planar halfspaces (`n = 10^4`, 60 points: 3,542): the
//! cover's enumeration, scoring every representative on the whole sample, the exact exponential
//! mechanism over the scores, and whole predictions.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use privlearn_core::Rng;
use privlearn_core::dichotomy::Class;
use privlearn_core::dichotomy::represent::RepScorer;
use privlearn_core::expmech::exact::sample_i64;
use privlearn_core::prediction::cover::{Cover, RealCover};
use privlearn_core::prediction::stable::{StableConfig, predict};
use privlearn_core::prediction::{Flip, subset};
use std::hint::black_box;

fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::from_seed(seed);
    (0..n).map(|_| rng.uniform_f64()).collect()
}

fn labels(x: &[f64], dim: usize, seed: u64) -> Vec<bool> {
    let mut rng = Rng::from_seed(seed);
    x.chunks(dim)
        .map(|p| (p.iter().sum::<f64>() > 0.5 * dim as f64) ^ (rng.below(10) == 0))
        .collect()
}

fn bench_prediction(c: &mut Criterion) {
    let mut g = c.benchmark_group("prediction");
    g.sample_size(10);
    for (name, class, n, m, dim) in [
        (
            "intervals",
            Class::Intervals,
            100_000usize,
            294usize,
            1usize,
        ),
        ("halfspaces_2d", Class::Halfspaces(2), 10_000, 60, 2),
    ] {
        let x = uniform(n * dim, 1);
        let y = labels(&x, dim, 2);
        let cover = RealCover::new(class, &x, &y).unwrap();
        let idx = subset(n, m, &mut Rng::from_seed(3));
        let reps = cover.cover(&idx).unwrap();
        g.throughput(Throughput::Elements(reps.len() as u64));
        g.bench_function(format!("{name}/enumerate_cover"), |b| {
            b.iter(|| cover.cover(black_box(&idx)).unwrap())
        });
        g.bench_function(format!("{name}/score_representatives"), |b| {
            b.iter(|| cover.mistakes(black_box(&reps)).unwrap())
        });
        let scores: Vec<i64> = cover
            .mistakes(&reps)
            .unwrap()
            .iter()
            .map(|&e| -(e as i64))
            .collect();
        let mut rng = Rng::from_seed(4);
        g.bench_function(format!("{name}/exponential_mechanism"), |b| {
            b.iter(|| sample_i64(black_box(&scores), 1.0, 1.0, 1, &mut rng).unwrap())
        });
        g.throughput(Throughput::Elements(20));
        let cfg = StableConfig {
            m,
            epsilon0: 1.0,
            flip: Some(Flip::new(1, 64).unwrap()),
        };
        let queries = uniform(20 * dim, 5);
        g.bench_function(format!("{name}/predict_20_queries"), |b| {
            b.iter(|| predict(&cover, black_box(&queries), &cfg, &mut rng).unwrap())
        });
        g.bench_function(format!("{name}/build_scorer"), |b| {
            b.iter(|| RepScorer::new(class, black_box(&x), &y).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench_prediction);
criterion_main!(benches);

//! Criterion benchmarks of the query-release hot paths (`cargo bench --bench query_release`):
//! ensemble votes, the relabelling score, the sub-sample ERMs and index
//! sampling (seed 004).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use privlearn_core::Rng;
use privlearn_core::dichotomy::Class;
use privlearn_core::dichotomy::thresholds::Orientation;
use privlearn_core::query_release::{ensemble, relabel, sampling};
use std::hint::black_box;

fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::from_seed(seed);
    (0..n).map(|_| rng.uniform_f64()).collect()
}

fn bench_query_release(c: &mut Criterion) {
    let mut g = c.benchmark_group("query_release");
    g.sample_size(10);

    let k = 100_000;
    let cuts: Vec<f64> = uniform(k, 1).into_iter().flat_map(|t| [t, 1.0]).collect();
    let th = ensemble::Ensemble::new(Class::Thresholds(Orientation::Ge), &cuts).unwrap();
    let q = uniform(10_000, 2);
    g.throughput(Throughput::Elements(q.len() as u64));
    g.bench_function("votes_thresholds/100k_x_10k", |b| {
        b.iter(|| th.votes(black_box(&q)).unwrap())
    });

    let hs_params: Vec<f64> = uniform(3 * 10_000, 3).iter().map(|v| v - 0.5).collect();
    let hs = ensemble::Ensemble::new(Class::Halfspaces(2), &hs_params).unwrap();
    let q2: Vec<f64> = uniform(2 * 1000, 4).iter().map(|v| v - 0.5).collect();
    g.throughput(Throughput::Elements(10_000 * 1000));
    g.bench_function("votes_halfspaces_2d/10k_x_1k", |b| {
        b.iter(|| hs.votes(black_box(&q2)).unwrap())
    });

    let x = uniform(1_000_000, 5);
    let y: Vec<bool> = x.iter().map(|&v| v >= 0.3).collect();
    g.throughput(Throughput::Elements(x.len() as u64));
    g.bench_function("threshold_mistakes/1M", |b| {
        b.iter(|| relabel::threshold_mistakes(black_box(&x), &y, Orientation::Ge).unwrap())
    });
    let order: Vec<usize> = (0..x.len()).collect();
    g.bench_function("threshold_erm_blocks/10k_x_100", |b| {
        b.iter(|| {
            relabel::threshold_erm_blocks(black_box(&x), &y, &order, 100, Orientation::Ge).unwrap()
        })
    });

    g.throughput(Throughput::Elements(1_000_000));
    g.bench_function("sample_without_replacement/1M_of_10M", |b| {
        let mut rng = Rng::from_seed(7);
        b.iter(|| sampling::without_replacement(10_000_000, 1_000_000, &mut rng).unwrap())
    });
    g.bench_function("permutation/1M", |b| {
        let mut rng = Rng::from_seed(8);
        b.iter(|| sampling::permutation(1_000_000, &mut rng).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench_query_release);
criterion_main!(benches);

//! Criterion benchmarks of multi-concept learning (`cargo bench --bench multi`): seed 002's
//! `SearchParities` at issue 9's size (k = 1000 concepts, dim = 256, 119 subsamples), one
//! concept at a time (the basic strategy's inner loop), `LearnPoints`, and the mistake counts of
//! the per-concept exponential mechanisms.

use criterion::{Criterion, criterion_group, criterion_main};
use privlearn_core::Rng;
use privlearn_core::gf2::Matrix;
use privlearn_core::multi::{learn_points, mistakes_matrix, search_parities};
use std::hint::black_box;

fn bench_multi(c: &mut Criterion) {
    let mut rng = Rng::from_seed(9);
    let (d, k, t) = (256usize, 1000usize, 119usize);
    let n = t * (d + 3);
    let x = Matrix::random(n, d, &mut rng);
    let y = x.mul(&Matrix::random(d, k, &mut rng)).unwrap();
    let mut group = c.benchmark_group("search_parities");
    group.sample_size(10);
    group.bench_function("k1000_dim256_T119", |b| {
        b.iter(|| {
            search_parities(black_box(&x), black_box(&y), d + 3, 1.0, 1e-6, &mut rng).unwrap()
        })
    });
    let x8 = Matrix::random(4000, 8, &mut rng);
    let y1 = x8.mul(&Matrix::random(8, 1, &mut rng)).unwrap();
    group.bench_function("k1_dim8_n4000", |b| {
        b.iter(|| search_parities(black_box(&x8), black_box(&y1), 11, 1.0, 1e-6, &mut rng).unwrap())
    });
    group.finish();

    let ids: Vec<usize> = (0..20_000).map(|_| rng.below(64) as usize).collect();
    let mut labels = Matrix::zeros(ids.len(), 1000);
    for (r, &i) in ids.iter().enumerate() {
        for j in 0..1000 {
            labels.set(r, j, j % 100 == i);
        }
    }
    c.bench_function("learn_points/n20000_k1000", |b| {
        b.iter(|| {
            learn_points(
                black_box(&ids),
                64,
                black_box(&labels),
                0.02,
                1.0,
                1e-6,
                &mut rng,
            )
            .unwrap()
        })
    });

    let (h, words) = (256usize, 20_000usize / 64);
    let pred: Vec<u64> = (0..h * words).map(|_| rng.next_u64()).collect();
    let cols: Vec<u64> = (0..1000 * words).map(|_| rng.next_u64()).collect();
    c.bench_function("mistakes_matrix/256x1000_n20000", |b| {
        b.iter(|| mistakes_matrix(black_box(&pred), h, black_box(&cols), 1000, words).unwrap())
    });
}

criterion_group!(benches, bench_multi);
criterion_main!(benches);

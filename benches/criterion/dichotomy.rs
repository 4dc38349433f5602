//! Criterion benchmarks of dichotomy enumeration (`cargo bench --bench dichotomy`).
//!
//! Sizes follow issue 4's targets: halfspaces in the plane on 1000 random points (about 10^6
//! labelings), intervals on 2000 points (about 2 * 10^6), plus thresholds, rectangles and the
//! scoring of every labeling against labels.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use privlearn_core::Rng;
use privlearn_core::dichotomy::halfspaces::Prepared;
use privlearn_core::dichotomy::intervals::Intervals;
use privlearn_core::dichotomy::rectangles::Rectangles;
use privlearn_core::dichotomy::score::Scorer;
use privlearn_core::dichotomy::thresholds::{Orientation, Thresholds};
use privlearn_core::dichotomy::{Stream, collect};
use std::hint::black_box;

fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::from_seed(seed);
    (0..n).map(|_| rng.uniform_f64()).collect()
}

fn bench_dichotomy(c: &mut Criterion) {
    let mut g = c.benchmark_group("dichotomy");
    g.sample_size(10);

    let x2 = uniform(2000, 1);
    let p = Prepared::new(&x2, 2).unwrap();
    let count = p.count().unwrap() as u64;
    g.throughput(Throughput::Elements(count));
    g.bench_function("halfspaces_2d/1000", |b| {
        b.iter(|| {
            Prepared::new(black_box(&x2), 2)
                .unwrap()
                .collect(usize::MAX)
                .unwrap()
        })
    });
    g.bench_function("halfspaces_2d_count/1000", |b| {
        b.iter(|| Prepared::new(black_box(&x2), 2).unwrap().count().unwrap())
    });
    g.bench_function("halfspaces_2d_stream_64k/1000", |b| {
        b.iter(|| {
            let mut s = Stream::new(Prepared::new(black_box(&x2), 2).unwrap().planar().unwrap());
            let mut total = 0;
            while let Some(chunk) = s.next_chunk(1 << 16) {
                total += chunk.len();
            }
            total
        })
    });

    let x1 = uniform(2000, 2);
    g.throughput(Throughput::Elements(2000 * 2001 / 2 + 1));
    g.bench_function("intervals/2000", |b| {
        b.iter(|| {
            Intervals::new(black_box(&x1))
                .unwrap()
                .collect(usize::MAX)
                .unwrap()
        })
    });

    let xt = uniform(20_000, 3);
    g.throughput(Throughput::Elements(20_001));
    g.bench_function("thresholds/20000", |b| {
        b.iter(|| {
            collect(
                &mut Thresholds::new(black_box(&xt), Orientation::Ge).unwrap(),
                usize::MAX,
            )
            .unwrap()
        })
    });

    let xr = uniform(2 * 40, 4);
    g.throughput(Throughput::Elements(1));
    g.bench_function("rectangles_2d/40", |b| {
        b.iter(|| collect(&mut Rectangles::new(black_box(&xr), 2).unwrap(), usize::MAX).unwrap())
    });

    let d = Prepared::new(&x2, 2).unwrap().collect(usize::MAX).unwrap();
    let y: Vec<bool> = x2.chunks(2).map(|p| p[0] > p[1]).collect();
    let w: Vec<f64> = uniform(1000, 5);
    let unweighted = Scorer::new(&y, None).unwrap();
    let weighted = Scorer::new(&y, Some(&w)).unwrap();
    g.throughput(Throughput::Elements(d.len() as u64));
    g.bench_function("mistakes/halfspaces_2d_1000", |b| {
        b.iter(|| {
            unweighted
                .counts(black_box(d.labels_flat()), d.words())
                .unwrap()
        })
    });
    g.bench_function("mistakes_weighted/halfspaces_2d_1000", |b| {
        b.iter(|| {
            weighted
                .weighted(black_box(d.labels_flat()), d.words())
                .unwrap()
        })
    });
    g.bench_function("erm_weighted/halfspaces_2d_1000", |b| {
        b.iter(|| {
            weighted
                .argmin(black_box(d.labels_flat()), d.words())
                .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench_dichotomy);
criterion_main!(benches);

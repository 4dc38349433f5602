//! Criterion benchmarks of the fingerprinting codes (`cargo bench --bench tardos`).
//!
//! Sizes follow the fingerprinting-codes issue, scaled down tenfold in users so that a run stays
//! short: generation and tracing of a code with 10^4 users x 10^4 positions, the parameter
//! search of the symmetric variant, and a pirate word.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use privlearn_core::Rng;
use privlearn_core::tardos::score::{self, Kernel};
use privlearn_core::tardos::{Strategy, TardosCode, Variant, parameters, pirate};
use std::hint::black_box;

const USERS: usize = 10_000;
const LENGTH: usize = 10_000;

fn bench_tardos(c: &mut Criterion) {
    let params = parameters(USERS, 10, 1e-3, Variant::Symmetric, Some(LENGTH)).unwrap();
    let mut rng = Rng::from_seed(1);
    let mut group = c.benchmark_group("tardos");
    group.sample_size(10);
    group.throughput(Throughput::Elements((USERS * LENGTH) as u64));
    group.bench_function("generate/1e4x1e4", |b| {
        b.iter(|| TardosCode::generate(black_box(params.clone()), &mut rng).unwrap())
    });
    let code = TardosCode::generate(params.clone(), &mut rng).unwrap();
    let members: Vec<usize> = (0..10).collect();
    let rows = code.rows_of(&members).unwrap();
    let word = pirate(&rows, 10, LENGTH, Strategy::Majority, &mut rng).unwrap();
    group.bench_function("scores/1e4x1e4", |b| {
        b.iter(|| code.scores(black_box(&word)).unwrap())
    });
    let wt = score::weights(code.biases(), &word, Variant::Symmetric, params.cutoff);
    group.bench_function("products_byte_table/1e4x1e4", |b| {
        b.iter(|| {
            score::products(
                code.rows(),
                code.words_per_row(),
                black_box(&wt.w),
                Kernel::ByteTable,
            )
        })
    });
    group.finish();

    let mut other = c.benchmark_group("tardos_small");
    other.sample_size(10);
    other.bench_function("pirate_majority/c10_m1e4", |b| {
        b.iter(|| pirate(black_box(&rows), 10, LENGTH, Strategy::Majority, &mut rng).unwrap())
    });
    other.bench_function("parameters_symmetric/c20", |b| {
        b.iter(|| parameters(1000, black_box(20), 1e-3, Variant::Symmetric, None).unwrap())
    });
    other.finish();
}

criterion_group!(benches, bench_tardos);
criterion_main!(benches);

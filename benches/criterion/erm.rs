//! Criterion benchmarks of the seed-000 ERM kernels (`cargo bench --bench erm`): the fused 0-1
//! kernel over linear candidates (halfspaces in R^2), the threshold scoring, the real-valued
//! (logistic) kernel, and the exact continuous-threshold sampler.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use privlearn_core::Rng;
use privlearn_core::erm::risk::{LinearData, linear_risks, threshold_mistakes};
use privlearn_core::erm::threshold::sample_threshold;
use privlearn_core::erm::{Loss, Quantizer};
use std::hint::black_box;

fn uniform(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| lo + (hi - lo) * rng.uniform_f64()).collect()
}

fn bench_erm(c: &mut Criterion) {
    let mut rng = Rng::from_seed(7);
    let n = 10_000;
    let x = uniform(&mut rng, 2 * n, -1.0, 1.0);
    let y: Vec<f64> = (0..n)
        .map(|i| f64::from(u8::from(x[2 * i] > x[2 * i + 1])))
        .collect();
    let data = LinearData::new(&x, &y, 2).unwrap();
    let mut group = c.benchmark_group("erm_linear");
    group.sample_size(10);
    for &m in &[10_000usize, 100_000] {
        let coef = uniform(&mut rng, 2 * m, -2.0, 2.0);
        let b = uniform(&mut rng, m, -1.0, 1.0);
        group.throughput(Throughput::Elements((m * n) as u64));
        let q0 = Quantizer::new(1.0, 0).unwrap();
        group.bench_with_input(BenchmarkId::new("zero_one_d2", m), &m, |bch, _| {
            bch.iter(|| linear_risks(black_box(&coef), &b, &data, Loss::ZeroOne, &q0).unwrap())
        });
        if m == 10_000 {
            let q = Quantizer::new(3.0, 32).unwrap();
            group.bench_with_input(BenchmarkId::new("logistic_d2", m), &m, |bch, _| {
                bch.iter(|| linear_risks(black_box(&coef), &b, &data, Loss::Logistic, &q).unwrap())
            });
        }
    }
    group.finish();

    let mut th = c.benchmark_group("erm_thresholds");
    let x1 = uniform(&mut rng, n, 0.0, 1.0);
    let y1: Vec<bool> = x1.iter().map(|&v| v > 0.4).collect();
    let t = uniform(&mut rng, 1_000_000, -0.1, 1.1);
    let ge = vec![true; t.len()];
    th.sample_size(20);
    th.throughput(Throughput::Elements(t.len() as u64));
    th.bench_function("mistakes/1000000x10000", |bch| {
        bch.iter(|| threshold_mistakes(black_box(&t), &ge, &x1, &y1).unwrap())
    });
    th.throughput(Throughput::Elements(n as u64));
    th.bench_function("continuous_sample/10000", |bch| {
        bch.iter(|| {
            sample_threshold(0.0, 1.0, true, black_box(&x1), &y1, 1.0, 2.0, &mut rng).unwrap()
        })
    });
    th.finish();
}

criterion_group!(benches, bench_erm);
criterion_main!(benches);

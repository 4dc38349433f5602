//! Goodness-of-fit helpers for the statistical unit tests (test builds only).
//!
//! Every distribution test uses a fixed seed, a false-positive rate of at most `1e-6`, and a
//! power check: the *same* counts, under the *same* statistic and threshold, must be rejected
//! against a deliberately wrong law (a scale off by 30%, or epsilon halved), so a test that
//! cannot see a wrong calibration fails instead of passing vacuously.
//!
//! The statistic is Pearson's chi-square over the given cells, cells whose expected count under
//! the law tested is below 5 pooled into one. The threshold is Laurent and Massart's bound
//! (Annals of Statistics 2000, Lemma 1): for `X ~ χ²_k`,
//! `P(X >= k + 2 sqrt(k x) + 2x) <= e^{-x}`; with `x = ln(1e6)` the asymptotic false-positive
//! rate is at most `1e-6`.
//!
//! [`assert_rate`] checks a single Bernoulli frequency against its probability (six standard
//! deviations).

/// The false-positive rate of every distribution test.
pub const FALSE_POSITIVE_RATE: f64 = 1e-6;

/// Pearson's statistic of `counts` against `probs` (summing to 1) and its degrees of freedom,
/// cells with expected count below 5 pooled (by the law `probs`).
pub fn chi_square(counts: &[u64], probs: &[f64]) -> (f64, usize) {
    assert_eq!(counts.len(), probs.len());
    let total_p: f64 = probs.iter().sum();
    assert!(
        (total_p - 1.0).abs() < 1e-9,
        "probabilities sum to {total_p}"
    );
    let n: u64 = counts.iter().sum();
    let n = n as f64;
    let (mut stat, mut cells) = (0.0, 0usize);
    let (mut pool_c, mut pool_e) = (0.0, 0.0);
    for (&c, &p) in counts.iter().zip(probs) {
        let e = n * p;
        if e < 5.0 {
            pool_c += c as f64;
            pool_e += e;
        } else {
            stat += (c as f64 - e).powi(2) / e;
            cells += 1;
        }
    }
    if pool_e > 0.0 {
        stat += (pool_c - pool_e).powi(2) / pool_e;
        cells += 1;
    } else if pool_c > 0.0 {
        stat = f64::INFINITY; // observed where the law puts no mass
    }
    (stat, cells.saturating_sub(1).max(1))
}

/// The rejection threshold for `k` degrees of freedom at [`FALSE_POSITIVE_RATE`].
pub fn threshold(k: usize) -> f64 {
    let x = (1.0 / FALSE_POSITIVE_RATE).ln();
    let k = k as f64;
    k + 2.0 * (k * x).sqrt() + 2.0 * x
}

/// Asserts that `counts` fit `law` and that the same counts reject every law of `wrong`.
pub fn assert_law_with_power(counts: &[u64], law: &[f64], wrong: &[&[f64]], what: &str) {
    let (stat, k) = chi_square(counts, law);
    assert!(
        stat < threshold(k),
        "{what}: chi-square rejects the exact law ({stat} >= {} with {k} dof)",
        threshold(k)
    );
    for (i, w) in wrong.iter().enumerate() {
        let (stat, k) = chi_square(counts, w);
        assert!(
            stat >= threshold(k),
            "{what}: power check {i} failed, a wrong law is not rejected ({stat} < {} with {k} dof)",
            threshold(k)
        );
    }
}

/// Counts of `draws` in the cells `(-inf, e_0)`, `[e_0, e_1)`, ..., `[e_last, inf)` (`edges`
/// increasing); panics on a non-finite draw.
pub fn float_cells(draws: impl Iterator<Item = f64>, edges: &[f64]) -> Vec<u64> {
    let mut c = vec![0u64; edges.len() + 1];
    for x in draws {
        assert!(x.is_finite(), "a non-finite draw {x}");
        c[edges.partition_point(|&e| e <= x)] += 1;
    }
    c
}

/// The probabilities of the cells of [`float_cells`] under the law with cumulative distribution
/// function `cdf`.
pub fn float_law(edges: &[f64], cdf: impl Fn(f64) -> f64) -> Vec<f64> {
    let mut cuts = vec![0.0];
    cuts.extend(edges.iter().map(|&e| cdf(e)));
    cuts.push(1.0);
    cuts.windows(2).map(|w| w[1] - w[0]).collect()
}

/// Cell edges `-span, -span + step, ..., span` (`span` a multiple of `step`).
pub fn symmetric_edges(span: f64, step: f64) -> Vec<f64> {
    let k = (span / step).round() as i32;
    (-k..=k).map(|i| f64::from(i) * step).collect()
}

/// The standard normal cumulative distribution function scaled by `s`: `Φ(x / s)`.
pub fn normal_cdf(s: f64) -> impl Fn(f64) -> f64 {
    move |x| 0.5 * (1.0 + libm::erf(x / (s * std::f64::consts::SQRT_2)))
}

/// The Laplace cumulative distribution function of scale `b` (location 0).
pub fn laplace_cdf(b: f64) -> impl Fn(f64) -> f64 {
    move |x| {
        if x < 0.0 {
            0.5 * (x / b).exp()
        } else {
            1.0 - 0.5 * (-x / b).exp()
        }
    }
}

/// Asserts that `freq`, the frequency of ones in `draws` independent
/// Bernoulli(`p`) trials, is within six standard deviations of `p` (plus `slack`): a two-sided
/// false-positive rate of about `2e-9` per call.
pub fn assert_rate(freq: f64, p: f64, draws: usize, slack: f64, what: &str) {
    let sd = (p * (1.0 - p) / draws as f64).sqrt();
    assert!(
        (freq - p).abs() < 6.0 * sd + slack,
        "{what}: frequency {freq} vs probability {p} ({draws} draws)"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threshold_is_conservative_for_one_dof() {
        // chi2_1 upper 1e-6 quantile is 23.93 (z = 4.892): the bound must be above it.
        assert!(threshold(1) > 23.93);
        // and for 10 dof (exact quantile 46.86).
        assert!(threshold(10) > 46.86);
    }

    #[test]
    fn pooling_and_statistic() {
        let (s, k) = chi_square(&[50, 50], &[0.5, 0.5]);
        assert_eq!((s, k), (0.0, 1));
        let (s, _) = chi_square(&[60, 40], &[0.5, 0.5]);
        assert!((s - 4.0).abs() < 1e-12);
        // Mass where the law has none: infinite statistic.
        let (s, _) = chi_square(&[100, 1], &[1.0, 0.0]);
        assert!(s.is_infinite());
    }
}

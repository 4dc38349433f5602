//! Noise samplers.
//!
//! Exact integer samplers (used by every mechanism's default `numerics="exact"` path):
//! * [`discrete_laplace`]: `P(Z = z) ∝ exp(-|z| / scale)` for a rational scale;
//! * [`discrete_gaussian`]: `P(Z = z) ∝ exp(-z² / (2σ²))` for a rational `σ²`.
//!
//! Both follow Canonne, Kamath and Steinke, "The discrete Gaussian for differential privacy"
//! (NeurIPS 2020), Algorithms 2 and 3, built on the exact Bernoulli(`e^{-x}`) draws of
//! [`crate::exact`]: their output law is exactly the stated one.
//!
//! Floating-point samplers (explicit `numerics="fast"` opt-in, the continuous vector noise of
//! [`l2_laplace`] and the Langevin steps of Gibbs ERM) come from the `rand_distr` crate, drawn
//! through the ChaCha20 [`Rng`]: standard normal and standard exponential by the ziggurat method
//! (`StandardNormal`, `Exp1`; Doornik's ZIGNOR variant), Gamma by Marsaglia and Tsang (2000)
//! (`Gamma`), and Laplace as a random sign times `Exp1`. `rand_distr` is used for speed (the
//! ziggurat needs about one 64-bit word and no logarithm per draw) and because it is a widely
//! used, reviewed implementation; the exact samplers above stay ours, because exactness on the
//! grid needs integer arithmetic and exact Bernoulli draws that no float library provides. The
//! floating-point samplers are subject to rounding: the mechanisms that use them are documented
//! as not floating-point safe (Mironov 2012), whichever library samples.

use num_bigint::BigUint;
use rand_distr::{Distribution, Exp1, Gamma, StandardNormal};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::exact::{bernoulli_exp_minus_one, bernoulli_exp_neg, bernoulli_exp_neg_big};
use crate::grid::decompose;
use crate::rng::Rng;

/// A positive rational number `num / den`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ratio {
    /// Numerator (> 0).
    pub num: u128,
    /// Denominator (> 0).
    pub den: u128,
}

/// Largest numerator or denominator a [`Ratio`] used as a noise scale may have (keeps every
/// intermediate of the samplers inside 128 bits).
pub const RATIO_MAX: u128 = 1 << 100;

impl Ratio {
    /// `num / den`, both positive and at most [`RATIO_MAX`].
    pub fn new(num: u128, den: u128) -> Self {
        assert!(
            num > 0 && den > 0 && num <= RATIO_MAX && den <= RATIO_MAX,
            "invalid ratio"
        );
        let g = gcd(num, den);
        Ratio {
            num: num / g,
            den: den / g,
        }
    }

    /// The exact value of a finite double `x > 0`, or an error naming `name` if it does not fit.
    pub fn from_f64(x: f64, name: &'static str) -> Result<Self> {
        if !(x.is_finite() && x > 0.0) {
            return Err(Error::invalid(
                name,
                format!("must be a finite number > 0, got {x}"),
            ));
        }
        let (m, e) = decompose(x);
        let tz = m.trailing_zeros() as i32;
        let (m, e) = (m >> tz, e + tz);
        let fits = if e >= 0 {
            (m as f64) * 2f64.powi(e) <= RATIO_MAX as f64
        } else {
            -e <= 100
        };
        if !fits {
            return Err(Error::invalid(
                name,
                format!("must lie in [2^-100, 2^100) for an exact sampler, got {x:e}"),
            ));
        }
        Ok(if e >= 0 {
            Ratio::new(u128::from(m) << e, 1)
        } else {
            Ratio::new(u128::from(m), 1u128 << (-e))
        })
    }

    /// Approximate value (for messages and float paths).
    pub fn to_f64(self) -> f64 {
        self.num as f64 / self.den as f64
    }

    /// The smallest double `>= (num / den) 2^k`: a noise scale in a grid's value units, rounded
    /// up (so that a guarantee or an accuracy bound computed from it is on the safe side).
    /// `k` in `[-1000, 960]` (a [`crate::grid::Grid`] exponent).
    pub fn times_pow2_up(self, k: i32) -> f64 {
        let mut f = self.to_f64() * 2f64.powi(k);
        // Exact check f >= num 2^k / den, i.e. m 2^e den >= num 2^k with f = m 2^e.
        let at_least = |f: f64| {
            let (m, e) = decompose(f);
            let lo = e.min(k);
            let lhs = (BigUint::from(m) * BigUint::from(self.den)) << (e - lo) as u64;
            let rhs = BigUint::from(self.num) << (k - lo) as u64;
            lhs >= rhs
        };
        while !at_least(f) {
            f = f.next_up();
        }
        while f > 0.0 && at_least(f.next_down()) {
            f = f.next_down();
        }
        f
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Exact discrete Laplace noise: `P(Z = z) ∝ exp(-|z| / scale)` for `scale = t / s`.
///
/// Canonne–Kamath–Steinke (2020), Algorithm 2: `X = U + t V` with `U` uniform on `{0..t-1}`
/// accepted with probability `e^{-U/t}` and `V` geometric (counted Bernoulli(`e^-1`) successes)
/// is geometric with ratio `e^{-1/t}`; `floor(X / s)` is geometric with ratio `e^{-s/t}`; a
/// random sign with `-0` rejected gives the two-sided law.
pub fn discrete_laplace(rng: &mut Rng, scale: Ratio) -> i128 {
    let (t, s) = (scale.num, scale.den);
    let t64 = u64::try_from(t).ok();
    let shift = s.is_power_of_two().then(|| s.trailing_zeros());
    loop {
        let (u, accept) = match t64 {
            Some(t64) => {
                let u = rng.below(t64);
                (u128::from(u), bernoulli_exp_neg(rng, u128::from(u), t))
            }
            None => {
                let u = rng.below_u128(t);
                (u, bernoulli_exp_neg(rng, u, t))
            }
        };
        if !accept {
            continue;
        }
        let mut v: u128 = 0;
        while bernoulli_exp_minus_one(rng) {
            v += 1;
        }
        let x = u.saturating_add(t.saturating_mul(v));
        let y = match shift {
            Some(sh) => x >> sh,
            None => x / s,
        };
        let negative = rng.bit();
        if negative && y == 0 {
            continue;
        }
        let y = i128::try_from(y).unwrap_or(i128::MAX);
        return if negative { -y } else { y };
    }
}

/// The exact square `σ²` of a finite double `σ > 0` as `(a, b)` with `σ² = a / b`, or an error
/// naming `name` when a part would not fit in 127 bits (roughly `σ` outside `[1e-3, 1e18]`,
/// depending on its binary expansion).
pub fn sigma2_from_f64(sigma: f64, name: &'static str) -> Result<(u128, u128)> {
    if !(sigma.is_finite() && sigma > 0.0) {
        return Err(Error::invalid(
            name,
            format!("must be a finite number > 0, got {sigma}"),
        ));
    }
    let (m, e) = decompose(sigma);
    let tz = m.trailing_zeros() as i32;
    let (m, e) = (u128::from(m >> tz), e + tz);
    let m2 = m * m; // < 2^106
    let bits = 128 - m2.leading_zeros() as i32;
    let fits = if e >= 0 {
        bits + 2 * e <= 126
    } else {
        -2 * e <= 126
    };
    if !fits {
        return Err(Error::invalid(
            name,
            format!(
                "is outside the exact sampler's range (its square must be a ratio of 127-bit integers), got {sigma:e}"
            ),
        ));
    }
    Ok(if e >= 0 {
        (m2 << (2 * e), 1)
    } else {
        (m2, 1u128 << (-2 * e))
    })
}

/// Exact discrete Gaussian noise: `P(Z = z) ∝ exp(-z² / (2σ²))` for `σ² = a / b` (`a, b > 0`).
///
/// Canonne–Kamath–Steinke (2020), Algorithm 3: rejection from discrete Laplace with scale
/// `t = floor(σ) + 1`, accepting `Y` with probability `exp(-(|Y| - σ²/t)² / (2σ²))`.
pub fn discrete_gaussian(rng: &mut Rng, a: u128, b: u128) -> i128 {
    assert!(
        a > 0 && b > 0,
        "discrete_gaussian needs a positive variance"
    );
    let t = isqrt(a / b) + 1;
    let lap = Ratio::new(t, 1);
    loop {
        let y = discrete_laplace(rng, lap);
        let abs = y.unsigned_abs();
        // gamma = (|y| t b - a)^2 / (2 a b t^2)
        let fast = abs
            .checked_mul(t)
            .and_then(|v| v.checked_mul(b))
            .and_then(|ytb| {
                let diff = ytb.abs_diff(a);
                let num = diff.checked_mul(diff)?;
                let den = 2u128
                    .checked_mul(a)?
                    .checked_mul(b)?
                    .checked_mul(t)?
                    .checked_mul(t)?;
                Some((num, den))
            });
        let accept = match fast {
            Some((num, den)) => bernoulli_exp_neg(rng, num, den),
            None => {
                let ytb = BigUint::from(abs) * t * b;
                let a_big = BigUint::from(a);
                let diff = if ytb >= a_big {
                    &ytb - &a_big
                } else {
                    &a_big - &ytb
                };
                let num = &diff * &diff;
                let den = BigUint::from(2u32) * a * b * t * t;
                bernoulli_exp_neg_big(rng, &num, &den)
            }
        };
        if accept {
            return y;
        }
    }
}

/// `floor(sqrt(n))`, exactly.
pub fn isqrt(n: u128) -> u128 {
    if n < 2 {
        return n;
    }
    let mut x = (n as f64).sqrt() as u128;
    while x.checked_mul(x).is_none_or(|sq| sq > n) {
        x -= 1;
    }
    while (x + 1).checked_mul(x + 1).is_some_and(|sq| sq <= n) {
        x += 1;
    }
    x
}

/// A standard Laplace variate in floating point: `±E` with `E` a standard exponential variate
/// (`rand_distr::Exp1`, ziggurat) and the sign a fair bit from [`Rng::bit`]. `|L|` of a
/// standard Laplace `L` is standard exponential and independent of its sign, so this is the
/// Laplace law up to floating-point rounding. `rand_distr` draws `Exp1`'s tail as `R - ln U`
/// with `U` in `[0, 1)`, so an infinite variate has probability below `2^-61`.
#[inline]
pub fn standard_laplace_f64(rng: &mut Rng) -> f64 {
    let e: f64 = Exp1.sample(rng);
    if rng.bit() { -e } else { e }
}

/// A standard normal variate in floating point (`rand_distr::StandardNormal`, ziggurat).
#[inline]
pub fn standard_normal_f64(rng: &mut Rng) -> f64 {
    StandardNormal.sample(rng)
}

/// Vectors per parallel task of [`l2_laplace`]: fixed, so the output never depends on the
/// thread count.
const L2_CHUNK: usize = 512;

/// `count` vectors in `R^dim` with density proportional to `exp(-||k||_2 / scale)`, row-major.
///
/// The radius has density proportional to `r^{dim-1} e^{-r/scale}`, i.e. Gamma(shape `dim`,
/// scale `scale`), and the direction is uniform on the sphere (a normalised standard normal
/// vector, redrawn in the probability-`2^-52`-per-coordinate event that it is exactly zero).
/// Floating point throughout: the normals and the Gamma(`dim`, 1) radius (times `scale`) come
/// from `rand_distr` (see the module documentation). Parallel over blocks of [`L2_CHUNK`]
/// vectors, each with its own generator spawned in order from `rng`.
pub fn l2_laplace(rng: &mut Rng, dim: usize, scale: f64, count: usize) -> Result<Vec<f64>> {
    if dim == 0 {
        return Err(Error::invalid("dim", "must be an integer >= 1, got 0"));
    }
    if !(scale.is_finite() && scale > 0.0) {
        return Err(Error::invalid(
            "scale",
            format!("must be a finite number > 0, got {scale}"),
        ));
    }
    let total = dim
        .checked_mul(count)
        .ok_or_else(|| Error::invalid("size", "dim * size overflows"))?;
    let radius_law = Gamma::new(dim as f64, 1.0)
        .map_err(|e| Error::invalid("dim", format!("gives no Gamma law: {e}")))?;
    let mut out = vec![0.0f64; total];
    let blocks: Vec<(Rng, &mut [f64])> = out
        .chunks_mut((L2_CHUNK * dim).max(1))
        .map(|block| (rng.spawn(), block))
        .collect();
    let fill = |(mut r, block): (Rng, &mut [f64])| {
        for row in block.chunks_exact_mut(dim) {
            let mut norm2 = 0.0;
            while norm2 == 0.0 {
                for x in row.iter_mut() {
                    let z: f64 = StandardNormal.sample(&mut r);
                    *x = z;
                    norm2 += z * z;
                }
            }
            let radius = scale * radius_law.sample(&mut r);
            let f = radius / norm2.sqrt();
            for x in row.iter_mut() {
                *x *= f;
            }
        }
    };
    if total < (1 << 16) {
        blocks.into_iter().for_each(fill);
    } else {
        blocks.into_par_iter().for_each(fill);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::{
        assert_law_with_power, float_cells, float_law, laplace_cdf, normal_cdf, symmetric_edges,
    };

    /// Counts of `draws` in the cells `(-inf, -m)`, `-m, ..., m`, `(m, inf)`.
    fn cell_counts(draws: impl Iterator<Item = i128>, m: i128) -> Vec<u64> {
        let mut c = vec![0u64; 2 * m as usize + 3];
        for z in draws {
            let i = if z < -m {
                0
            } else if z > m {
                c.len() - 1
            } else {
                (z + m + 1) as usize
            };
            c[i] += 1;
        }
        c
    }

    /// The cell probabilities of a symmetric integer law with unnormalised weights `w(|z|)`
    /// (summed to `|z| = span`, beyond which the mass is negligible).
    fn cell_law(m: i128, span: i128, w: impl Fn(i128) -> f64) -> Vec<f64> {
        let z: f64 = (-span..=span).map(|y| w(y.abs())).sum();
        let tail: f64 = (m + 1..=span).map(&w).sum::<f64>() / z;
        let mut p = vec![tail];
        p.extend((-m..=m).map(|y| w(y.abs()) / z));
        p.push(tail);
        p
    }

    fn dlap_law(m: i128, scale: f64) -> Vec<f64> {
        // P(Z = z) = (1 - r)/(1 + r) r^|z|, r = e^{-1/scale}; P(Z > m) = r^{m+1}/(1 + r).
        let r = (-1.0 / scale).exp();
        let mut p = vec![r.powi(m as i32 + 1) / (1.0 + r)];
        p.extend((-m..=m).map(|z| (1.0 - r) / (1.0 + r) * r.powi(z.unsigned_abs() as i32)));
        p.push(p[0]);
        p
    }

    #[test]
    fn discrete_laplace_matches_pmf() {
        // Chi-square against the exact pmf; power: the same counts reject the laws with the
        // scale 30% larger and 30% smaller.
        let mut rng = Rng::from_seed(3);
        for &(num, den) in &[
            (1u128, 1u128),
            (5, 2),
            (1, 3),
            (7_000_000_001, 1_000_000_000),
        ] {
            let scale = num as f64 / den as f64;
            let n = 100_000;
            let m = (6.0 * scale).ceil() as i128;
            let counts = cell_counts(
                (0..n).map(|_| discrete_laplace(&mut rng, Ratio::new(num, den))),
                m,
            );
            assert_law_with_power(
                &counts,
                &dlap_law(m, scale),
                &[&dlap_law(m, scale * 1.3), &dlap_law(m, scale / 1.3)],
                &format!("discrete Laplace, scale {scale}"),
            );
        }
    }

    #[test]
    fn discrete_gaussian_matches_pmf() {
        // Chi-square against the exact pmf; power: sigma 30% larger and 30% smaller. The last
        // pair is sigma^2 = 4 with a and b so large that 2 a b t^2 overflows u128: every draw
        // takes the big-integer acceptance path.
        let mut rng = Rng::from_seed(4);
        for &(a, b) in &[
            (1u128, 1u128),
            (9, 4),
            (100, 1),
            (1_000_003, 1000),
            (1u128 << 127, 1u128 << 125),
        ] {
            let s2 = a as f64 / b as f64;
            let n = 60_000;
            let m = (4.0 * s2.sqrt()).ceil() as i128;
            let span = (40.0 * s2.sqrt()).ceil() as i128 + 40;
            let law = |f: f64| {
                let v = s2 * f * f;
                cell_law(m, span, move |y| (-((y * y) as f64) / (2.0 * v)).exp())
            };
            let counts = cell_counts((0..n).map(|_| discrete_gaussian(&mut rng, a, b)), m);
            assert_law_with_power(
                &counts,
                &law(1.0),
                &[&law(1.3), &law(1.0 / 1.3)],
                &format!("discrete Gaussian, sigma^2 {s2}"),
            );
        }
        // A vanishing variance is a point mass at 0 (no wrong law to tell apart).
        assert!((0..1000).all(|_| discrete_gaussian(&mut rng, 1, 1u128 << 90) == 0));
    }

    #[test]
    fn times_pow2_up_is_the_smallest_double_above() {
        // Exact check: f >= v and next_down(f) < v, v = num/den 2^k, by integer arithmetic.
        let ge = |f: f64, r: Ratio, k: i32| {
            let (m, e) = decompose(f);
            let lo = e.min(k);
            (BigUint::from(m) * BigUint::from(r.den)) << (e - lo) as u64
                >= BigUint::from(r.num) << (k - lo) as u64
        };
        for &(num, den, k) in &[
            (1u128, 3u128, 0i32),
            (10, 7, -20),
            (4_194_305, 1 << 22, -20),
            ((1 << 100) - 1, 3, -60),
            (5, (1 << 100) - 1, 40),
            (1, 1, -1000),
        ] {
            let r = Ratio::new(num, den);
            let f = r.times_pow2_up(k);
            assert!(ge(f, r, k), "{num}/{den} 2^{k}: {f} is below");
            assert!(
                !ge(f.next_down(), r, k),
                "{num}/{den} 2^{k}: {f} is not the smallest"
            );
        }
        assert_eq!(Ratio::new(3, 4).times_pow2_up(2), 3.0);
    }

    /// The smallest double `>= num 2^k / den`, built from its bits by exact integer arithmetic
    /// (no search, no float estimate): with `t = floor(log2(num 2^k / den))` it is `M 2^e`,
    /// `e = max(t - 52, -1074)` (subnormals below), `M = ceil(num 2^(k - e) / den) <= 2^53`.
    fn smallest_double_at_least(num: u128, den: u128, k: i32) -> f64 {
        let (n, d) = (BigUint::from(num), BigUint::from(den));
        let mut t = i64::try_from(n.bits()).unwrap() - i64::try_from(d.bits()).unwrap();
        let below = if t >= 0 {
            n < (&d << t as u64)
        } else {
            (&n << (-t) as u64) < d
        };
        if below {
            t -= 1;
        }
        let t = t + i64::from(k);
        assert!(t < 1023, "{num}/{den} 2^{k} overflows");
        let e = (t - 52).max(-1074);
        let s = i64::from(k) - e;
        let (a, b) = if s >= 0 {
            (n << s as u64, d)
        } else {
            (n, d << (-s) as u64)
        };
        let mant = u64::try_from((a + &b - 1u32) / b).unwrap();
        assert!((1..=1 << 53).contains(&mant));
        // Biased exponent e + 1075 for M in [2^52, 2^53); M = 2^53 carries into the exponent
        // and e = -1074 with M < 2^52 leaves a subnormal's bits equal to M.
        f64::from_bits((((e + 1075) as u64) << 52) + mant - (1 << 52))
    }

    #[test]
    fn times_pow2_up_is_exact_for_huge_numerators_and_denominators() {
        // Hand-derived values first (they also check the oracle above).
        let p60 = 2f64.powi(60);
        let one_ulp = 2f64.powi(-52);
        for &(num, den, k, want) in &[
            (1u128 << 60, 1u128, 0i32, p60),
            ((1 << 60) + 1, 1, 0, p60.next_up()),
            ((1 << 60) - 1, 1, 0, p60),
            ((1 << 60) + 1, 1, -3, p60.next_up() / 8.0),
            ((1 << 60) + 1, 1, 5, p60.next_up() * 32.0),
            ((1 << 60) + 1, 1 << 7, 0, p60.next_up() / 128.0),
            // to_f64 rounds num up (a tie to even: 2^53 + 4) and den down (2^53): the estimate
            // 1 + 2^-51 is a whole ulp above the answer 1 + 2^-52 (> (2^53+3)/(2^53+1) > 1).
            ((1 << 53) + 3, (1 << 53) + 1, 0, 1.0 + one_ulp),
            (
                (1 << 53) + 3,
                (1 << 53) + 1,
                -40,
                (1.0 + one_ulp) * 2f64.powi(-40),
            ),
            // The estimate rounds down here (2^53 / (2^53 - 1)): the answer is 1 + 2^-51.
            ((1 << 53) + 1, (1 << 53) - 1, 0, 1.0 + 2.0 * one_ulp),
            (RATIO_MAX, RATIO_MAX, 7, 128.0),
            (RATIO_MAX, 1, -100, 1.0),
            (RATIO_MAX, RATIO_MAX - 1, 0, 1.0 + one_ulp),
            (RATIO_MAX - 1, RATIO_MAX, 0, 1.0),
            (1, RATIO_MAX, -974, f64::from_bits(1)), // 2^-1074, the smallest subnormal
            (1, RATIO_MAX, -1000, f64::from_bits(1)), // below it: rounded up to it
        ] {
            assert_eq!(
                smallest_double_at_least(num, den, k),
                want,
                "{num}/{den} 2^{k}"
            );
            assert_eq!(
                Ratio::new(num, den).times_pow2_up(k),
                want,
                "{num}/{den} 2^{k}"
            );
        }

        // Pseudo-random ratios with numerators and denominators of 1 to 100 bits (mostly above
        // 53, where the u128 -> f64 conversions round) and grid exponents over the whole range.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            // splitmix64
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let mut draw = |bits: u32| -> u128 {
            let x = (u128::from(next()) << 64 | u128::from(next())) >> (128 - bits);
            (x | 1 << (bits - 1)).min(RATIO_MAX)
        };
        let (mut overshoots, mut undershoots) = (0, 0);
        for i in 0..3000u32 {
            let bits = |j: u32| {
                if (i + j).is_multiple_of(4) {
                    1 + (i * 7 + j) % 100
                } else {
                    54 + (i * 13 + j) % 47
                }
            };
            let (num, den) = (draw(bits(0)), draw(bits(1)));
            let k = -1000 + (i * 37 % 1901) as i32;
            let r = Ratio::new(num, den);
            let want = smallest_double_at_least(r.num, r.den, k);
            assert_eq!(r.times_pow2_up(k), want, "{num}/{den} 2^{k}");
            let estimate = r.to_f64() * 2f64.powi(k);
            overshoots += u32::from(estimate > want);
            undershoots += u32::from(estimate < want);
        }
        // Both search loops ran: the float estimate was often above the answer (stepped down)
        // and often below it (stepped up).
        assert!(
            overshoots >= 30 && undershoots >= 300,
            "{overshoots} {undershoots}"
        );
    }

    #[test]
    fn ratio_new_reduces_to_lowest_terms() {
        const M61: u128 = (1 << 61) - 1; // prime
        const M31: u128 = (1 << 31) - 1; // prime
        for &(num, den, want) in &[
            (6u128, 4u128, (3u128, 2u128)),
            (10, 7, (10, 7)),
            (RATIO_MAX, RATIO_MAX, (1, 1)),
            (3 << 98, 1 << 99, (3, 2)),
            (RATIO_MAX, 3 << 60, (1 << 40, 3)),
            (M61 * M31, M61 * 7, (M31, 7)),
            (M61 * 3, M61 * M31 * 5, (3, M31 * 5)),
        ] {
            let r = Ratio::new(num, den);
            assert_eq!((r.num, r.den), want, "{num}/{den}");
            assert_eq!(r, Ratio::new(want.0, want.1));
        }
    }

    #[test]
    fn ratio_from_f64_is_exact() {
        assert_eq!(
            Ratio::from_f64(0.75, "x").unwrap(),
            Ratio { num: 3, den: 4 }
        );
        assert_eq!(
            Ratio::from_f64(12.0, "x").unwrap(),
            Ratio { num: 12, den: 1 }
        );
        assert!(Ratio::from_f64(0.0, "x").is_err());
        assert!(Ratio::from_f64(1e-40, "x").is_err());
        assert!(Ratio::from_f64(1e40, "x").is_err());
        assert_eq!(isqrt(99), 9);
        assert_eq!(isqrt(100), 10);
        assert_eq!(isqrt(u128::MAX), (1u128 << 64) - 1);
    }

    #[test]
    fn standard_normal_matches_its_law() {
        // Chi-square over 0.25-wide cells on [-4, 4]; power: standard deviation 1.3 and 1/1.3.
        let edges = symmetric_edges(4.0, 0.25);
        let mut rng = Rng::from_seed(21);
        let counts = float_cells((0..200_000).map(|_| standard_normal_f64(&mut rng)), &edges);
        assert_law_with_power(
            &counts,
            &float_law(&edges, normal_cdf(1.0)),
            &[
                &float_law(&edges, normal_cdf(1.3)),
                &float_law(&edges, normal_cdf(1.0 / 1.3)),
            ],
            "standard normal (rand_distr)",
        );
    }

    #[test]
    fn standard_laplace_matches_its_law() {
        // Chi-square over 0.25-wide cells on [-8, 8] (both signs: a one-sided or biased sign
        // fails); power: scale 1.3 and 1/1.3.
        let edges = symmetric_edges(8.0, 0.25);
        let mut rng = Rng::from_seed(22);
        let counts = float_cells((0..200_000).map(|_| standard_laplace_f64(&mut rng)), &edges);
        assert_law_with_power(
            &counts,
            &float_law(&edges, laplace_cdf(1.0)),
            &[
                &float_law(&edges, laplace_cdf(1.3)),
                &float_law(&edges, laplace_cdf(1.0 / 1.3)),
            ],
            "standard Laplace (sign times rand_distr Exp1)",
        );
    }

    #[test]
    fn l2_laplace_radius_is_gamma_and_direction_uniform() {
        // Radius ~ Gamma(dim, scale): for an integer shape its CDF is
        // 1 - e^{-y} sum_{k < dim} y^k / k!, y = r / scale. Power: scale 1.3 and 1/1.3.
        let gamma_cdf = |dim: usize, scale: f64| {
            move |r: f64| {
                if r <= 0.0 {
                    return 0.0;
                }
                let y = r / scale;
                let (mut term, mut sum) = (1.0, 0.0);
                for k in 0..dim {
                    if k > 0 {
                        term *= y / k as f64;
                    }
                    sum += term;
                }
                1.0 - (-y).exp() * sum
            }
        };
        for &(dim, scale) in &[(1usize, 1.0f64), (3, 0.5), (8, 2.0)] {
            let n = 60_000;
            let mut rng = Rng::from_seed(23 + dim as u64);
            let v = l2_laplace(&mut rng, dim, scale, n).unwrap();
            let mean = dim as f64 * scale;
            let edges: Vec<f64> = (1..40).map(|i| f64::from(i) * mean / 10.0).collect();
            let radii = v
                .chunks_exact(dim)
                .map(|row| row.iter().map(|x| x * x).sum::<f64>().sqrt());
            assert_law_with_power(
                &float_cells(radii, &edges),
                &float_law(&edges, gamma_cdf(dim, scale)),
                &[
                    &float_law(&edges, gamma_cdf(dim, scale * 1.3)),
                    &float_law(&edges, gamma_cdf(dim, scale / 1.3)),
                ],
                &format!("l2-Laplace radius, dim {dim}"),
            );
            // Direction: each coordinate of the unit vector is symmetric about 0; in R^3 it is
            // uniform on [-1, 1] (Archimedes). Power: a law with density 1/2 + t/4 on [-1, 1].
            let edges = symmetric_edges(1.0, 0.1);
            let first = v
                .chunks_exact(dim)
                .map(|row| row[dim - 1] / row.iter().map(|x| x * x).sum::<f64>().sqrt());
            let counts = float_cells(first, &edges);
            if dim == 1 {
                // +-1 only, each with probability 1/2: the cells [-1, -0.9) and [1, inf).
                let half = counts[1] as f64 / n as f64;
                crate::testing::assert_rate(half, 0.5, n, 0.0, "l2-Laplace sign, dim 1");
                assert_eq!(counts[1] + counts[counts.len() - 1], n as u64);
            } else if dim == 3 {
                let uniform = |t: f64| ((t + 1.0) / 2.0).clamp(0.0, 1.0);
                let tilted = |t: f64| {
                    let t = t.clamp(-1.0, 1.0);
                    (t + 1.0) / 2.0 + (t * t - 1.0) / 8.0
                };
                assert_law_with_power(
                    &counts,
                    &float_law(&edges, uniform),
                    &[&float_law(&edges, tilted)],
                    "l2-Laplace direction, dim 3",
                );
            }
        }
    }

    #[test]
    fn l2_laplace_radius_and_determinism() {
        let mut a = Rng::from_seed(9);
        let v = l2_laplace(&mut a, 5, 2.0, 40_000).unwrap();
        let mean_norm: f64 = v
            .chunks_exact(5)
            .map(|r| r.iter().map(|x| x * x).sum::<f64>().sqrt())
            .sum::<f64>()
            / 40_000.0;
        assert!((mean_norm - 10.0).abs() < 0.1, "{mean_norm}"); // E[Gamma(5, 2)] = 10
        let mut b = Rng::from_seed(9);
        assert_eq!(v, l2_laplace(&mut b, 5, 2.0, 40_000).unwrap());
        assert!(l2_laplace(&mut b, 0, 1.0, 1).is_err());
    }
}

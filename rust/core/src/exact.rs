//! Exact samplers: every probability below is realised exactly from uniformly random bits, with
//! integer or rigorous interval arithmetic. No floating-point rounding can bias an outcome, which
//! is what makes the exponential mechanism built on them floating-point safe (Mironov 2012;
//! Ilvento 2020).
//!
//! * [`bernoulli_exp_neg_dyadic`]: Bernoulli(`e^{-f / 2^t}`) for `0 <= f < 2^t`, by the
//!   alternating-series algorithm of Canonne, Kamath and Steinke ("The discrete Gaussian for
//!   differential privacy", NeurIPS 2020, Algorithm 1).
//! * [`sample_exp_neg_groups`]: draws a group `j` with probability proportional to
//!   `count_j * e^{-j}` for integer `j` in `[0, MAX_GROUP]`. A fast path decides with rigorous
//!   floating-point interval bounds (each rounded result is stepped one ulp outward, so the
//!   intervals provably contain the true values) and 52 random bits; when the draw falls within
//!   the bounds' uncertainty (probability below about `2^-40`) it continues exactly with
//!   big-integer fixed-point bounds of any needed precision and further random bits.
//!
//! The bounds on `e^{-1}` come from its alternating Taylor series, so no library `exp` is
//! trusted anywhere on the exact path.

use std::sync::OnceLock;

use num_bigint::BigUint;

use crate::grid::pow2;
use crate::rng::Rng;

/// Largest group index handled by [`sample_exp_neg_groups`]. `e^{-MAX_GROUP}` is still a normal
/// double (about `1e-304`).
pub const MAX_GROUP: usize = 700;

/// Bernoulli(`p / 2^t`), exactly (`p <= 2^t`, `t <= 127`).
#[inline]
pub fn bernoulli_dyadic(rng: &mut Rng, p: u128, t: u32) -> bool {
    debug_assert!(t <= 127 && p <= (1u128 << t));
    rng.bits_u128(t) < p
}

/// Bernoulli(`e^{-f / 2^t}`), exactly, for `0 <= f < 2^t`, `t <= 127`.
///
/// Canonne–Kamath–Steinke (2020), Algorithm 1: with `g = f / 2^t in [0, 1)`, draw
/// `A_k ~ Bernoulli(g / k)` for `k = 1, 2, ...` until the first failure; the number of the
/// failing trial is odd with probability exactly `e^{-g}`. Each `Bernoulli(g / k)` is
/// `Bernoulli(1/k) AND Bernoulli(f / 2^t)`, both exact.
pub fn bernoulli_exp_neg_dyadic(rng: &mut Rng, f: u128, t: u32) -> bool {
    debug_assert!(t <= 127 && f < (1u128 << t).max(1));
    if f == 0 {
        return true;
    }
    let mut k: u64 = 1;
    loop {
        let success = rng.below(k) == 0 && bernoulli_dyadic(rng, f, t);
        if !success {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// Bernoulli(`e^{-1}`), exactly: Canonne–Kamath–Steinke Algorithm 1 with `γ = 1`, where trial
/// `k` succeeds with probability `1/k` (drawn from the bit reservoir).
#[inline]
pub fn bernoulli_exp_minus_one(rng: &mut Rng) -> bool {
    let mut k: u64 = 2;
    loop {
        let success = if k <= 1 << 32 {
            rng.small_below(k) == 0
        } else {
            rng.below(k) == 0
        };
        if !success {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// Bernoulli(`e^{-num / den}`) for `0 <= num < den` in 64 bits.
#[inline]
fn bernoulli_exp_neg_frac_u64(rng: &mut Rng, num: u64, den: u64) -> bool {
    if num == 0 {
        return true;
    }
    let mut k: u64 = 1;
    loop {
        let one_in_k = k == 1
            || if k <= 1 << 32 {
                rng.small_below(k) == 0
            } else {
                rng.below(k) == 0
            };
        if !(one_in_k && rng.below(den) < num) {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// Bernoulli(`e^{-num / den}`), exactly, for any rational `num / den >= 0` (`den > 0`).
///
/// The integer part `q` of `num / den` is realised as `q` independent Bernoulli(`e^{-1}`) draws
/// that must all succeed (stopping at the first failure), the fractional part by the
/// Canonne–Kamath–Steinke algorithm with `Bernoulli(g / k) = Bernoulli(1 / k) AND
/// Bernoulli(g)`, each part exact. 64-bit arithmetic when the parts fit.
pub fn bernoulli_exp_neg(rng: &mut Rng, num: u128, den: u128) -> bool {
    debug_assert!(den > 0);
    if let (Ok(n), Ok(d)) = (u64::try_from(num), u64::try_from(den)) {
        let mut q = n / d;
        while q > 0 {
            if !bernoulli_exp_minus_one(rng) {
                return false;
            }
            q -= 1;
        }
        return bernoulli_exp_neg_frac_u64(rng, n % d, d);
    }
    let mut q = num / den;
    while q > 0 {
        if !bernoulli_exp_minus_one(rng) {
            return false;
        }
        q -= 1;
    }
    bernoulli_exp_neg_unit(rng, num % den, den)
}

/// Bernoulli(`e^{-num / den}`) for `0 <= num <= den` (128-bit).
fn bernoulli_exp_neg_unit(rng: &mut Rng, num: u128, den: u128) -> bool {
    if num == 0 {
        return true;
    }
    let mut k: u64 = 1;
    loop {
        let success = rng.below(k) == 0 && (num == den || rng.below_u128(den) < num);
        if !success {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// Bernoulli(`e^{-num / den}`) for big-integer `num / den >= 0` (`den > 0`), exactly.
pub fn bernoulli_exp_neg_big(rng: &mut Rng, num: &BigUint, den: &BigUint) -> bool {
    let zero = BigUint::from(0u32);
    let mut q = num / den;
    while q > zero {
        if !bernoulli_exp_minus_one(rng) {
            return false;
        }
        q -= 1u32;
    }
    let r = num % den;
    if r == zero {
        return true;
    }
    let bits = den.bits();
    let below_den = |rng: &mut Rng| -> BigUint {
        loop {
            let mut v = BigUint::from(0u32);
            let mut left = bits;
            while left > 0 {
                let take = left.min(64) as u32;
                v = (v << take) | BigUint::from(rng.bits(take));
                left -= u64::from(take);
            }
            if &v < den {
                return v;
            }
        }
    };
    let mut k: u64 = 1;
    loop {
        let success = rng.below(k) == 0 && below_den(rng) < r;
        if !success {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// Lower and upper bounds on `2^prec * e^{-j}` for `j = 0..=jmax`, as integers.
///
/// `e^{-1}` is bracketed by the partial sums of `sum_k (-1)^k / k!` computed with floored terms:
/// with `N` terms kept until `floor(2^prec / (N+1)!) = 0`, the truncation and flooring errors
/// are below `N + 2` units, so `A - (N+2) <= 2^prec e^{-1} <= A + (N+2)`. Powers are then
/// bounded by floored (lower) and ceiled (upper) fixed-point products.
pub fn exp_neg_int_bounds(jmax: usize, prec: u64) -> (Vec<BigUint>, Vec<BigUint>) {
    let one = BigUint::from(1u32) << prec;
    // Alternating series for e^{-1}.
    let mut term = one.clone();
    let mut pos = one.clone();
    let mut neg = BigUint::from(0u32);
    let mut k: u32 = 0;
    loop {
        k += 1;
        term /= k;
        if term == BigUint::from(0u32) {
            break;
        }
        if k % 2 == 1 {
            neg += &term;
        } else {
            pos += &term;
        }
    }
    let a = pos - neg;
    let slack = BigUint::from(k + 2);
    let e_lo = &a - &slack;
    let e_hi = &a + &slack;
    let mut lo = Vec::with_capacity(jmax + 1);
    let mut hi = Vec::with_capacity(jmax + 1);
    lo.push(one.clone());
    hi.push(one.clone());
    let mask = &one - 1u32;
    for j in 1..=jmax {
        let l = (&lo[j - 1] * &e_lo) >> prec;
        let h_full = &hi[j - 1] * &e_hi;
        let round_up = (&h_full & &mask) != BigUint::from(0u32);
        let mut h = h_full >> prec;
        if round_up {
            h += 1u32;
        }
        lo.push(l);
        hi.push(h);
    }
    (lo, hi)
}

/// `x * 2^-prec` rounded toward zero (`up = false`) or away from zero (`up = true`); the result
/// must be a normal double.
fn fixed_to_f64(x: &BigUint, prec: u64, up: bool) -> f64 {
    let bits = x.bits();
    let (mant, shift) = if bits <= 53 {
        (u64::try_from(x).unwrap_or(u64::MAX), 0u64)
    } else {
        let shift = bits - 53;
        let m = x >> shift;
        let inexact = (x - (&m << shift)) != BigUint::from(0u32);
        let m = u64::try_from(&m).unwrap_or(u64::MAX) + u64::from(up && inexact);
        (m, shift)
    };
    let e = shift as i64 - prec as i64;
    // Two exact power-of-two scalings keep every intermediate a normal double.
    // |e| < 2^12 here (prec and the bit length are a few thousand at most), so the casts are
    // exact and both halves are in pow2's normal range.
    let e1 = e / 2;
    (mant as f64) * pow2(e1 as i32) * pow2((e - e1) as i32)
}

struct ExpNegTable {
    lo: Vec<f64>,
    hi: Vec<f64>,
}

fn table() -> &'static ExpNegTable {
    static TABLE: OnceLock<ExpNegTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let prec = 1152;
        let (lo, hi) = exp_neg_int_bounds(MAX_GROUP, prec);
        ExpNegTable {
            lo: lo.iter().map(|x| fixed_to_f64(x, prec, false)).collect(),
            hi: hi.iter().map(|x| fixed_to_f64(x, prec, true)).collect(),
        }
    })
}

/// Lower and upper double bounds on an integer.
#[inline]
fn u64_bounds(n: u64) -> (f64, f64) {
    let f = n as f64;
    let back = f as u128;
    let n128 = u128::from(n);
    if back > n128 {
        (f.next_down(), f)
    } else if back < n128 {
        (f, f.next_up())
    } else {
        (f, f)
    }
}

/// Exact sampler of a group `i` with probability proportional to `count_i * e^{-j_i}`, for
/// `(j_i, count_i)` pairs; the floating-point interval bounds of the fast path are computed once
/// and reused by every draw.
#[derive(Clone, Debug)]
pub struct ExpNegGroups {
    groups: Vec<(usize, u64)>,
    s_lo: Vec<f64>,
    s_hi: Vec<f64>,
}

impl ExpNegGroups {
    /// `groups` lists `(j, count)` pairs with `j <= MAX_GROUP` and `count > 0`, at least one.
    pub fn new(groups: Vec<(usize, u64)>) -> Self {
        assert!(!groups.is_empty(), "ExpNegGroups needs at least one group");
        let t = table();
        let mut s_lo = Vec::with_capacity(groups.len());
        let mut s_hi = Vec::with_capacity(groups.len());
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for &(j, count) in &groups {
            assert!(j <= MAX_GROUP && count > 0, "invalid group ({j}, {count})");
            let (nlo, nhi) = u64_bounds(count);
            let wlo = (nlo * t.lo[j]).next_down();
            let whi = (nhi * t.hi[j]).next_up();
            lo = (lo + wlo).next_down();
            hi = (hi + whi).next_up();
            s_lo.push(lo);
            s_hi.push(hi);
        }
        ExpNegGroups { groups, s_lo, s_hi }
    }

    /// The `(j, count)` pairs, in the order given.
    pub fn groups(&self) -> &[(usize, u64)] {
        &self.groups
    }

    /// Draws an index into [`groups`](Self::groups), exactly.
    pub fn sample(&self, rng: &mut Rng) -> usize {
        let len = self.groups.len();
        if len == 1 {
            return 0;
        }
        let (lo, hi) = (self.s_lo[len - 1], self.s_hi[len - 1]);
        let bits = rng.bits(52);
        let u_lo = bits as f64 * pow2(-52);
        let u_hi = (bits + 1) as f64 * pow2(-52);
        let x_lo = (u_lo * lo).next_down();
        let x_hi = (u_hi * hi).next_up();
        // The draw is U * T for U in [u_lo, u_hi) and T in [lo, hi]; it lies in [x_lo, x_hi].
        // Group i is certain when S_{i-1} <= x_lo and x_hi < S_i hold for every value in the
        // bounds (whatever index the search returns, this check alone makes it correct).
        let i = self.s_lo.partition_point(|&s| s <= x_hi);
        if i < len {
            let prev_hi = if i == 0 { 0.0 } else { self.s_hi[i - 1] };
            if prev_hi <= x_lo {
                return i;
            }
        }
        sample_groups_big(&self.groups, bits, rng)
    }
}

/// Draws `i` with probability proportional to `groups[i].1 * e^{-groups[i].0}`, exactly (one
/// draw of [`ExpNegGroups`]).
pub fn sample_exp_neg_groups(groups: &[(usize, u64)], rng: &mut Rng) -> usize {
    ExpNegGroups::new(groups.to_vec()).sample(rng)
}

/// The exact continuation of [`sample_exp_neg_groups`]: the same draw `U` (its first 52 bits
/// already fixed), resolved with big-integer bounds of growing precision and further bits.
fn sample_groups_big(groups: &[(usize, u64)], first_bits: u64, rng: &mut Rng) -> usize {
    let jmax = groups.iter().map(|g| g.0).max().unwrap_or(0);
    let mut prec: u64 = 2048;
    let mut u = BigUint::from(first_bits);
    let mut ell: u64 = 52;
    loop {
        let (elo, ehi) = exp_neg_int_bounds(jmax, prec);
        let mut s_lo = Vec::with_capacity(groups.len());
        let mut s_hi = Vec::with_capacity(groups.len());
        let (mut lo, mut hi) = (BigUint::from(0u32), BigUint::from(0u32));
        for &(j, count) in groups {
            lo += &elo[j] * count;
            hi += &ehi[j] * count;
            s_lo.push(lo.clone());
            s_hi.push(hi.clone());
        }
        loop {
            // Everything scaled by 2^(prec + ell): the draw lies in [u * T_lo, (u + 1) * T_hi].
            let x_lo = &u * &lo;
            let x_hi = (&u + 1u32) * &hi;
            let i = s_lo.partition_point(|s| (s << ell) <= x_hi);
            if i < groups.len() {
                let ok = i == 0 || (&s_hi[i - 1] << ell) <= x_lo;
                if ok {
                    return i;
                }
            }
            if ell >= prec {
                break;
            }
            u = (u << 64u32) | BigUint::from(rng.next_u64());
            ell += 64;
        }
        prec *= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e_inverse_bounds_bracket_the_true_value() {
        let (lo, hi) = exp_neg_int_bounds(3, 200);
        // e^-1 = 0.36787944117144233...
        let l = fixed_to_f64(&lo[1], 200, false);
        let h = fixed_to_f64(&hi[1], 200, true);
        assert!(l <= 0.367_879_441_171_442_33 && 0.367_879_441_171_442_33 <= h);
        assert!(h - l < 1e-15);
        assert!(lo[3] < hi[3]);
        let l3 = fixed_to_f64(&lo[3], 200, false);
        assert!((l3 - (-3.0f64).exp()).abs() < 1e-16);
    }

    #[test]
    fn table_is_ordered_and_tight() {
        let t = table();
        for j in 0..=MAX_GROUP {
            assert!(t.lo[j] <= t.hi[j]);
            assert!(t.lo[j] > 0.0 && t.lo[j].is_normal());
            assert!((t.hi[j] - t.lo[j]) / t.lo[j] < 1e-15, "j = {j}");
            let approx = (-(j as f64)).exp();
            assert!(((t.lo[j] - approx) / approx).abs() < 1e-13, "j = {j}");
        }
        assert_eq!(t.lo[0], 1.0);
        assert_eq!(t.hi[0], 1.0);
    }

    #[test]
    fn bernoulli_exp_neg_frequency() {
        let mut rng = Rng::from_seed(11);
        let t = 20;
        let f = (1u128 << t) * 7 / 10; // g = 0.7
        let n = 200_000;
        let hits = (0..n)
            .filter(|_| bernoulli_exp_neg_dyadic(&mut rng, f, t))
            .count();
        let p = (-0.7f64).exp();
        let sd = (p * (1.0 - p) / n as f64).sqrt();
        let phat = hits as f64 / n as f64;
        assert!((phat - p).abs() < 6.0 * sd, "phat {phat}, p {p}");
        assert!(bernoulli_exp_neg_dyadic(&mut rng, 0, 5));
    }

    #[test]
    fn rational_bernoulli_exp_neg_frequencies() {
        let mut rng = Rng::from_seed(12);
        let n = 200_000;
        for &(num, den) in &[(0u128, 1u128), (1, 3), (5, 2), (7, 7), (3, 1_000_000_007)] {
            let hits = (0..n)
                .filter(|_| bernoulli_exp_neg(&mut rng, num, den))
                .count();
            let p = (-(num as f64) / den as f64).exp();
            let sd = (p * (1.0 - p) / n as f64).sqrt().max(1e-9);
            assert!(
                (hits as f64 / n as f64 - p).abs() < 6.0 * sd + 1e-12,
                "{num}/{den}"
            );
        }
        let (nb, db) = (BigUint::from(5u32), BigUint::from(2u32));
        let hits = (0..n)
            .filter(|_| bernoulli_exp_neg_big(&mut rng, &nb, &db))
            .count();
        let p = (-2.5f64).exp();
        let sd = (p * (1.0 - p) / n as f64).sqrt();
        assert!((hits as f64 / n as f64 - p).abs() < 6.0 * sd);
    }

    #[test]
    fn group_sampler_frequencies_match() {
        let groups = [(0usize, 1u64), (1, 3), (4, 50), (700, 1)];
        let w: Vec<f64> = groups
            .iter()
            .map(|&(j, c)| c as f64 * (-(j as f64)).exp())
            .collect();
        let total: f64 = w.iter().sum();
        let mut rng = Rng::from_seed(5);
        let n = 200_000;
        let mut counts = [0usize; 4];
        for _ in 0..n {
            counts[sample_exp_neg_groups(&groups, &mut rng)] += 1;
        }
        for (i, &c) in counts.iter().enumerate() {
            let p = w[i] / total;
            let sd = (p * (1.0 - p) / n as f64).sqrt().max(1e-12);
            assert!(
                ((c as f64 / n as f64) - p).abs() < 6.0 * sd + 1e-9,
                "group {i}"
            );
        }
    }

    #[test]
    fn big_continuation_agrees_with_fast_path() {
        // Whenever the fast path decides, the exact continuation from the same first bits must
        // decide the same group: the fast path may only ever cut the computation short.
        let groups = [(0usize, 2u64), (1, 5), (2, 1), (9, 1000), (30, 7)];
        for seed in 0..300u64 {
            let mut a = Rng::from_seed(seed);
            let fast = sample_exp_neg_groups(&groups, &mut a);
            let mut b = Rng::from_seed(seed);
            let bits = b.bits(52);
            let exact = sample_groups_big(&groups, bits, &mut b);
            assert_eq!(fast, exact, "seed {seed}");
        }
    }
}

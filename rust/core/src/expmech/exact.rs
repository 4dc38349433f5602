//! The floating-point-safe exponential mechanism (`numerics="exact"`).
//!
//! ## Construction
//!
//! Let `c = ε / (2Δ)`. The ideal mechanism picks `i` with probability proportional to
//! `exp(c u_i)`. We sample, exactly, from the following mechanism, which is `ε`-DP for
//! utilities of sensitivity `Δ` (replace-one neighbours):
//!
//! 1. **Grid** (real-valued scores only). Each score is rounded to the nearest multiple of a
//!    power of two `γ` (ties to even): `γ` is about `Δ · 2^-20` (larger only when `ε` is below
//!    about `3e-7`, see [`grid_exponent`]). Rounding moves each score by at most `γ/2`, so the
//!    rounded utility has sensitivity at most `Δ' = Δ + γ`, and the rate used is
//!    `c' = ε γ / (2Δ')` per grid step: the mechanism is exactly `ε`-DP for the rounded
//!    utilities, hence for the original ones. Its distribution differs from the ideal one by a
//!    factor at most `exp(ε γ / Δ)` in any probability ratio (about `1 + ε · 2^-19`).
//!    Integer-typed scores are used as they are (`γ = 1`, `Δ' = Δ`).
//! 2. **Rate rounding.** `c'` is rounded *down* to a dyadic rational `m / 2^t` with a 64-bit `m`
//!    (relative error below `2^-63` whenever `c' >= 2^-55`), computed with integer arithmetic.
//!    A smaller rate is a smaller privacy loss. Rates above `2^40` per step are capped at `2^40`
//!    (no effect: see the clamp).
//! 3. **Clamp.** With `k_i` the distance of score `i` below the best score in grid steps, the
//!    exponent `x_i = min(c k_i, 700, c · 2^52)`. This is the mechanism run on the clamped utility
//!    `max(u_i, u_max - B)` for a constant `B`, whose sensitivity is still `Δ'` (a max of two
//!    `Δ'`-sensitive functions). Clamping changes the output distribution by at most
//!    `n e^-700` in total variation.
//! 4. **Exact sampling** of `i` with probability proportional to `e^{-x_i}`: write
//!    `x_i = j_i + f_i` with integer `j_i <= 700` and `f_i in [0, 1)` (both exact, `x_i` is
//!    dyadic). Draw a group `j` with probability proportional to `N_j e^{-j}` (`N_j` candidates in
//!    group `j`) with [`sample_exp_neg_groups`]; a uniform candidate of the group; and accept it
//!    with probability `e^{-f_i}` ([`bernoulli_exp_neg_dyadic`]), else start again. An accepted
//!    `i` has probability exactly proportional to `e^{-j_i} e^{-f_i}`; each round accepts with
//!    probability at least `1/e`.
//!
//! No step rounds a probability: every comparison is made on integers or on intervals that
//! provably contain the real value. The output for a given random stream is the same on every
//! machine. Running time is not constant (timing side channels are out of scope).

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::exact::{ExpNegGroups, MAX_GROUP, bernoulli_exp_neg, bernoulli_exp_neg_dyadic};
use crate::rng::Rng;
use crate::vmath::{CHUNK, PAR_MIN, max_and_check};

use super::{Scores, bad_scores};

/// Exponent cap in nats (step 3 of the construction).
const CLAMP_NATS: u128 = MAX_GROUP as u128;
/// Largest distance in grid steps kept unclamped: differences below `2^52` steps are exact.
const MAX_STEPS: u64 = 1 << 52;
/// Smallest and largest shift `t` of the dyadic rate `m / 2^t`.
const T_MIN: u32 = 23;
const T_MAX: u32 = 118;
const NO_GROUP: u16 = u16::MAX;

/// `x = m * 2^e` with `m < 2^53`, for a finite `x > 0`.
fn decompose(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    }
}

/// `floor(log2(x))` for a finite `x > 0`, exactly.
fn floor_log2(x: f64) -> i64 {
    let (m, e) = decompose(x);
    63 - i64::from(m.leading_zeros()) + e
}

/// `floor(num * 2^s / den)`, or `None` if it does not fit comfortably in a `u128`.
fn floor_scaled(num: u64, den: u64, s: i64) -> Option<u128> {
    if s >= 0 {
        if s > 74 {
            None
        } else {
            Some((u128::from(num) << s) / u128::from(den))
        }
    } else if -s > 74 {
        Some(0)
    } else {
        Some(u128::from(num) / (u128::from(den) << (-s)))
    }
}

/// The dyadic rate `m / 2^t <= ε · 2^g / (2 Δ')`, rounded down (step 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Numerator (`< 2^64`).
    pub m: u64,
    /// Shift (`T_MIN <= t <= T_MAX`).
    pub t: u32,
}

/// Computes the rounded-down rate `ε · 2^g / (2 Δ')` per grid step.
pub fn rate(epsilon: f64, g: i64, sensitivity: f64) -> Rate {
    let (me, ee) = decompose(epsilon);
    let (md, ed) = decompose(sensitivity);
    let base = ee + g - 1 - ed;
    let value = |t: u32| floor_scaled(me, md, base + i64::from(t));
    let big = 1u128 << 64;
    let half = 1u128 << 63;
    let cap = Rate {
        m: 1u64 << 63,
        t: T_MIN,
    };
    // Rate >= 2^40 (m >= 2^63 at t = T_MIN): cap.
    match value(T_MIN) {
        None => return cap,
        Some(v) if v >= half => return cap,
        _ => {}
    }
    let est = (64 - i64::from(me.leading_zeros())) - (64 - i64::from(md.leading_zeros())) + base;
    let mut t = (63 - est).clamp(i64::from(T_MIN), i64::from(T_MAX)) as u32;
    loop {
        match value(t) {
            None => t -= 1,
            Some(v) if v >= big => t -= 1,
            Some(v) if v < half && t < T_MAX => t += 1,
            Some(v) => return Rate { m: v as u64, t },
        }
    }
}

/// Clamp and exponent arithmetic (steps 3 and 4) for a rate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    rate: Rate,
    /// Distances (grid steps) at or beyond this are clamped.
    k_clamp: u64,
    /// The exponent of clamped candidates, in units of `2^-t` nats.
    clamp_exp: u128,
}

impl Plan {
    fn new(rate: Rate) -> Self {
        let m = u128::from(rate.m);
        let nats = CLAMP_NATS << rate.t;
        let k_raw = if m == 0 { u128::MAX } else { nats.div_ceil(m) };
        if k_raw <= u128::from(MAX_STEPS) {
            Plan {
                rate,
                k_clamp: k_raw as u64,
                clamp_exp: nats,
            }
        } else {
            Plan {
                rate,
                k_clamp: MAX_STEPS,
                clamp_exp: m * u128::from(MAX_STEPS),
            }
        }
    }

    /// Exponent of a candidate `k` steps below the best, in units of `2^-t` nats.
    #[inline]
    fn exponent(&self, k: u64) -> u128 {
        if k >= self.k_clamp {
            self.clamp_exp
        } else {
            u128::from(self.rate.m) * u128::from(k)
        }
    }

    #[inline]
    fn group(&self, k: u64) -> u16 {
        (self.exponent(k) >> self.rate.t) as u16
    }

    #[inline]
    fn fraction(&self, k: u64) -> u128 {
        self.exponent(k) & ((1u128 << self.rate.t) - 1)
    }
}

/// The grid exponent `g` (`γ = 2^g`) for real-valued scores (step 1): `γ <= Δ · 2^-20`, made
/// coarser only when needed so that the clamp distance `700 / c` stays below `2^52` steps
/// (`ε` below about `3e-7`), and never coarser than `Δ · 2^10`.
pub fn grid_exponent(epsilon: f64, sensitivity: f64) -> i64 {
    let g1 = floor_log2(sensitivity) - 20;
    let ratio = 1400.0 * sensitivity / epsilon;
    let g2 = if ratio.is_finite() {
        floor_log2(ratio) + 2 - 52
    } else {
        i64::MAX
    };
    g1.max(g2).min(g1 + 30)
}

/// `2^e` for `-1022 <= e <= 1023`.
fn pow2(e: i64) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// The range of sensitivities the exact real-valued path accepts.
pub const SENSITIVITY_RANGE: (f64, f64) = (1e-250, 1e250);

/// Something done with the clamped distances of a score vector: [`with_levels`] calls
/// `consume(n, level, plan)` where `level(i)` is candidate `i`'s distance below the best score in
/// grid steps (clamped; `None` for a `-inf` score).
pub(crate) trait LevelConsumer {
    type Output;
    fn consume<L: Fn(usize) -> Option<u64> + Sync>(
        self,
        n: usize,
        level: &L,
        plan: &Plan,
    ) -> Self::Output;
}

/// Validates `scores` and the parameters and hands the grid distances and the rate plan (steps
/// 1 to 3 of the construction) to `consumer`.
pub(crate) fn with_levels<C: LevelConsumer>(
    scores: Scores<'_>,
    epsilon: f64,
    sensitivity: f64,
    consumer: C,
) -> Result<C::Output> {
    match scores {
        Scores::Real(scores) => {
            let (lo, hi) = SENSITIVITY_RANGE;
            if !(lo..=hi).contains(&sensitivity) {
                return Err(Error::invalid(
                    "sensitivity",
                    format!(
                        "must lie in [{lo:e}, {hi:e}] for numerics='exact' with real-valued scores, \
                         got {sensitivity:e}; rescale the scores and the sensitivity together"
                    ),
                ));
            }
            let (umax, bad) = max_and_check(scores);
            if bad || umax == f64::NEG_INFINITY {
                return Err(bad_scores());
            }
            let g = grid_exponent(epsilon, sensitivity);
            let gamma = pow2(g);
            // Multiplying by a power of two is exact (no overflow or underflow in the ranges used).
            let inv_gamma = pow2(-g);
            let limit = gamma * MAX_STEPS as f64; // 2^(g+52): at or above, a double is on the grid.
            let round = move |s: f64| {
                if s.abs() >= limit {
                    s
                } else {
                    (s * inv_gamma).round_ties_even() * gamma
                }
            };
            let widened = (sensitivity + gamma).next_up();
            let plan = Plan::new(rate(epsilon, g, widened));
            let umax = round(umax);
            let k_clamp = plan.k_clamp;
            let clamp_dist = k_clamp as f64 * gamma;
            let level = move |i: usize| -> Option<u64> {
                let s = scores[i];
                if s == f64::NEG_INFINITY {
                    return None;
                }
                let d = umax - round(s);
                Some(if d >= clamp_dist {
                    k_clamp
                } else {
                    (d * inv_gamma) as u64
                })
            };
            Ok(consumer.consume(scores.len(), &level, &plan))
        }
        Scores::Int(scores) => {
            let umax = *scores.iter().max().ok_or_else(bad_scores)?;
            let plan = Plan::new(rate(epsilon, 0, sensitivity));
            let k_clamp = plan.k_clamp;
            let level = move |i: usize| -> Option<u64> {
                let d = (i128::from(umax) - i128::from(scores[i])) as u128;
                Some(if d >= u128::from(k_clamp) {
                    k_clamp
                } else {
                    d as u64
                })
            };
            Ok(consumer.consume(scores.len(), &level, &plan))
        }
    }
}

struct Draws<'r> {
    draws: usize,
    rng: &'r mut Rng,
}

impl LevelConsumer for Draws<'_> {
    type Output = Vec<usize>;
    fn consume<L: Fn(usize) -> Option<u64> + Sync>(
        self,
        n: usize,
        level: &L,
        plan: &Plan,
    ) -> Vec<usize> {
        run(n, level, plan, self.draws, self.rng)
    }
}

/// Exact exponential mechanism for real-valued scores (see the module documentation).
pub fn sample_f64(
    scores: &[f64],
    epsilon: f64,
    sensitivity: f64,
    draws: usize,
    rng: &mut Rng,
) -> Result<Vec<usize>> {
    with_levels(
        Scores::Real(scores),
        epsilon,
        sensitivity,
        Draws { draws, rng },
    )
}

/// Exact exponential mechanism for integer scores (no grid; see the module documentation).
pub fn sample_i64(
    scores: &[i64],
    epsilon: f64,
    sensitivity: f64,
    draws: usize,
    rng: &mut Rng,
) -> Result<Vec<usize>> {
    with_levels(
        Scores::Int(scores),
        epsilon,
        sensitivity,
        Draws { draws, rng },
    )
}

struct PermuteAndFlip<'r> {
    rng: &'r mut Rng,
}

impl LevelConsumer for PermuteAndFlip<'_> {
    type Output = usize;
    fn consume<L: Fn(usize) -> Option<u64> + Sync>(
        self,
        n: usize,
        level: &L,
        plan: &Plan,
    ) -> usize {
        let rng = self.rng;
        let mut order: Vec<usize> = (0..n).collect();
        for pos in 0..n {
            let j = pos + rng.below((n - pos) as u64) as usize;
            order.swap(pos, j);
            let i = order[pos];
            if let Some(k) = level(i)
                && bernoulli_exp_neg(rng, plan.exponent(k), 1u128 << plan.rate.t)
            {
                return i;
            }
        }
        unreachable!("the best candidate is accepted with probability 1")
    }
}

/// Exact permute-and-flip (McKenna and Sheldon, NeurIPS 2020): visit the candidates in a
/// uniformly random order and return the first one accepted, candidate `i` being accepted with
/// probability `exp(ε (u_i - u_max) / (2Δ))`. The scores go through the same grid, rate rounding
/// and clamp as the exponential mechanism (steps 1 to 3 of the module documentation), which keep
/// the guarantee exactly `ε`-DP; acceptances are exact Bernoulli(`e^{-x}`) draws.
pub fn permute_and_flip(
    scores: Scores<'_>,
    epsilon: f64,
    sensitivity: f64,
    rng: &mut Rng,
) -> Result<usize> {
    with_levels(scores, epsilon, sensitivity, PermuteAndFlip { rng })
}

/// Exact exponential mechanism with a base measure: returns `i` with probability proportional
/// to `weights[i] * exp(epsilon * scores[i] / (2 * sensitivity))` (McSherry and Talwar, FOCS
/// 2007, define the mechanism relative to a base measure; here a counting measure with
/// multiplicities). Candidates of weight 0 are never returned and take no part in the best
/// score. The scores go through the integer path's rate rounding and clamp (steps 2 and 3 of
/// the module documentation), so the guarantee is exactly `epsilon`-DP when every score moves
/// by at most `sensitivity` and the weights do not depend on the data.
///
/// Step 4 becomes: draw a group `j` with probability proportional to `W_j e^{-j}` (`W_j` the
/// total weight of the group), a candidate of the group with probability proportional to its
/// weight (an exact uniform integer below `W_j`), and accept it with probability `e^{-f_i}`.
///
/// Errors (before any random bit is drawn): `scores` and `weights` of different lengths, no
/// candidate of positive weight, a total weight above `2^64 - 1`, `epsilon` or `sensitivity`
/// not finite and `> 0`.
pub fn sample_i64_weighted(
    scores: &[i64],
    weights: &[u64],
    epsilon: f64,
    sensitivity: f64,
    rng: &mut Rng,
) -> Result<usize> {
    crate::error::check_epsilon(epsilon, "epsilon")?;
    crate::error::check_sensitivity(sensitivity)?;
    if scores.len() != weights.len() {
        return Err(Error::invalid(
            "weights",
            format!(
                "must have one weight per score ({} scores, {} weights)",
                scores.len(),
                weights.len()
            ),
        ));
    }
    let live = || scores.iter().zip(weights).filter(|&(_, &w)| w > 0);
    let Some(umax) = live().map(|(&s, _)| s).max() else {
        return Err(Error::invalid(
            "weights",
            "at least one candidate must have a positive weight",
        ));
    };
    let total: u128 = weights.iter().map(|&w| u128::from(w)).sum();
    if total > u128::from(u64::MAX) {
        return Err(Error::invalid(
            "weights",
            format!("the total weight must be below 2^64, got {total}"),
        ));
    }
    let plan = Plan::new(rate(epsilon, 0, sensitivity));
    let level = |s: i64| -> u64 {
        let d = (i128::from(umax) - i128::from(s)) as u128;
        if d >= u128::from(plan.k_clamp) {
            plan.k_clamp
        } else {
            d as u64
        }
    };
    let mut per_group = vec![0u64; MAX_GROUP + 1];
    for (&s, &w) in live() {
        per_group[usize::from(plan.group(level(s)))] += w;
    }
    let groups = ExpNegGroups::new(
        per_group
            .iter()
            .enumerate()
            .filter(|&(_, &w)| w > 0)
            .map(|(j, &w)| (j, w))
            .collect(),
    );
    loop {
        let (j, group_weight) = groups.groups()[groups.sample(rng)];
        let mut r = rng.below(group_weight);
        let mut chosen = None;
        for (i, (&s, &w)) in scores.iter().zip(weights).enumerate() {
            if w == 0 || usize::from(plan.group(level(s))) != j {
                continue;
            }
            if r < w {
                chosen = Some(i);
                break;
            }
            r -= w;
        }
        let i = chosen.expect("group weights and candidates disagree");
        if bernoulli_exp_neg_dyadic(rng, plan.fraction(level(scores[i])), plan.rate.t) {
            return Ok(i);
        }
    }
}

/// Group histogram of the candidates `start..start + len`, writing each one's group to `out`
/// when given.
fn group_chunk(
    start: usize,
    len: usize,
    mut out: Option<&mut [u16]>,
    level: &(impl Fn(usize) -> Option<u64> + Sync),
    plan: &Plan,
) -> Vec<u64> {
    let mut hist = vec![0u64; MAX_GROUP + 1];
    for o in 0..len {
        let j = match level(start + o) {
            None => NO_GROUP,
            Some(k) => {
                let j = plan.group(k);
                hist[usize::from(j)] += 1;
                j
            }
        };
        if let Some(out) = out.as_deref_mut() {
            out[o] = j;
        }
    }
    hist
}

/// Step 4 over `n` candidates whose clamped distances are given by `level`: `draws` exact draws.
///
/// One pass computes every candidate's group and a group histogram per chunk. A draw picks a
/// group, then the `r`-th candidate of that group: the chunk histograms locate its chunk, and
/// the chunk is scanned. For several draws the groups are stored (2 bytes per candidate); for a
/// single draw they are recomputed within the one chunk scanned, which saves the allocation.
fn run(
    n: usize,
    level: &(impl Fn(usize) -> Option<u64> + Sync),
    plan: &Plan,
    draws: usize,
    rng: &mut Rng,
) -> Vec<usize> {
    let n_chunks = n.div_ceil(CHUNK);
    let chunk_len = |ci: usize| CHUNK.min(n - ci * CHUNK);
    let mut group_of = if draws > 1 { vec![0u16; n] } else { Vec::new() };
    let chunk_hists: Vec<Vec<u64>> = match (draws > 1, n < PAR_MIN) {
        (true, true) => group_of
            .chunks_mut(CHUNK)
            .enumerate()
            .map(|(ci, out)| group_chunk(ci * CHUNK, out.len(), Some(out), level, plan))
            .collect(),
        (true, false) => group_of
            .par_chunks_mut(CHUNK)
            .enumerate()
            .map(|(ci, out)| group_chunk(ci * CHUNK, out.len(), Some(out), level, plan))
            .collect(),
        (false, true) => (0..n_chunks)
            .map(|ci| group_chunk(ci * CHUNK, chunk_len(ci), None, level, plan))
            .collect(),
        (false, false) => (0..n_chunks)
            .into_par_iter()
            .map(|ci| group_chunk(ci * CHUNK, chunk_len(ci), None, level, plan))
            .collect(),
    };
    let mut total = vec![0u64; MAX_GROUP + 1];
    for h in &chunk_hists {
        for (t, &c) in total.iter_mut().zip(h) {
            *t += c;
        }
    }
    let groups = ExpNegGroups::new(
        total
            .iter()
            .enumerate()
            .filter(|&(_, &c)| c > 0)
            .map(|(j, &c)| (j, c))
            .collect(),
    );
    let group_at = |i: usize| -> u16 {
        if group_of.is_empty() {
            level(i).map_or(NO_GROUP, |k| plan.group(k))
        } else {
            group_of[i]
        }
    };
    let mut one = || loop {
        let (j, count) = groups.groups()[groups.sample(rng)];
        let r = rng.below(count);
        let i = nth_in_group(&group_at, &chunk_hists, n, j, r);
        // `level` is a pure function of the scores, so `i` still has a level here.
        let Some(k) = level(i) else { continue };
        if bernoulli_exp_neg_dyadic(rng, plan.fraction(k), plan.rate.t) {
            return i;
        }
    };
    (0..draws).map(|_| one()).collect()
}

/// Index of the `r`-th (0-based) candidate in group `j`, using the per-chunk histograms to skip
/// whole chunks.
fn nth_in_group(
    group_at: &impl Fn(usize) -> u16,
    chunk_hists: &[Vec<u64>],
    n: usize,
    j: usize,
    mut r: u64,
) -> usize {
    for (ci, h) in chunk_hists.iter().enumerate() {
        if r >= h[j] {
            r -= h[j];
            continue;
        }
        let start = ci * CHUNK;
        for i in start..(start + CHUNK).min(n) {
            if usize::from(group_at(i)) == j {
                if r == 0 {
                    return i;
                }
                r -= 1;
            }
        }
    }
    unreachable!("group histogram and group labels disagree")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::assert_law_with_power;

    fn rate_value(r: Rate) -> f64 {
        r.m as f64 / 2f64.powi(r.t as i32)
    }

    #[test]
    fn rate_rounds_down_with_64_bit_precision() {
        for &(eps, g, d) in &[
            (1.0, 0, 1.0),
            (0.1, -20, 1.0),
            (3.7, 0, 2.5),
            (1e-3, -30, 7.0),
        ] {
            let r = rate(eps, g, d);
            let want = eps * 2f64.powi(g as i32) / (2.0 * d);
            let got = rate_value(r);
            assert!(got <= want * (1.0 + 1e-15));
            assert!((want - got) / want < 1e-15, "{eps} {g} {d}");
            assert!(r.m >= 1u64 << 63);
        }
        // Exact check with integers: eps = 1, delta = 1, g = 0 gives 1/2 = 2^63 / 2^64.
        assert_eq!(
            rate(1.0, 0, 1.0),
            Rate {
                m: 1u64 << 63,
                t: 64
            }
        );
        // Huge rates are capped at 2^40.
        assert_eq!(
            rate(1e300, 0, 1.0),
            Rate {
                m: 1u64 << 63,
                t: T_MIN
            }
        );
        // Tiny rates lose precision but never round up.
        let r = rate(1e-300, 0, 1.0);
        assert_eq!(r.t, T_MAX);
        assert_eq!(r.m, 0);
    }

    #[test]
    fn plan_clamps_at_700_nats() {
        let plan = Plan::new(rate(2.0, 0, 1.0)); // c = 1 nat per step
        assert_eq!(plan.k_clamp, 700);
        assert_eq!(plan.group(699), 699);
        assert_eq!(plan.group(700), 700);
        assert_eq!(plan.group(u64::MAX), 700);
        assert_eq!(plan.fraction(5), 0);
        let plan = Plan::new(rate(1.0, 0, 1.0)); // 1/2 nat per step
        assert_eq!(plan.group(3), 1);
        assert_eq!(plan.fraction(3), 1u128 << (plan.rate.t - 1));
    }

    #[test]
    fn grid_is_fine_for_ordinary_epsilon() {
        assert_eq!(grid_exponent(1.0, 1.0), -20);
        assert_eq!(grid_exponent(0.01, 3.0), -19);
        // Extremely small epsilon coarsens the grid.
        assert!(grid_exponent(1e-12, 1.0) > -20);
    }

    #[test]
    fn argmax_dominates_at_large_epsilon() {
        let mut rng = Rng::from_seed(1);
        let scores = [0.0, 5.0, 1.0, -3.0];
        for _ in 0..100 {
            assert_eq!(sample_f64(&scores, 1000.0, 1.0, 1, &mut rng).unwrap()[0], 1);
        }
        let ints = [0i64, 5, 1, -3];
        for _ in 0..100 {
            assert_eq!(sample_i64(&ints, 1000.0, 1.0, 1, &mut rng).unwrap()[0], 1);
        }
    }

    #[test]
    fn neg_inf_is_never_chosen_and_errors_are_reported() {
        let mut rng = Rng::from_seed(2);
        let scores = [f64::NEG_INFINITY, 0.0, f64::NEG_INFINITY, 0.0];
        for _ in 0..200 {
            let i = sample_f64(&scores, 0.1, 1.0, 1, &mut rng).unwrap()[0];
            assert!(i == 1 || i == 3);
        }
        assert!(sample_f64(&[f64::NEG_INFINITY], 1.0, 1.0, 1, &mut rng).is_err());
        assert!(sample_f64(&[0.0, f64::NAN], 1.0, 1.0, 1, &mut rng).is_err());
        assert!(sample_f64(&[0.0, f64::INFINITY], 1.0, 1.0, 1, &mut rng).is_err());
        assert!(sample_f64(&[0.0], 1.0, 1e-300, 1, &mut rng).is_err());
    }

    #[test]
    fn huge_magnitudes_do_not_overflow() {
        let mut rng = Rng::from_seed(3);
        let scores = [1e300, -1e300, 1e300 - 1e285, f64::MAX, -f64::MAX];
        for _ in 0..50 {
            assert_eq!(sample_f64(&scores, 1.0, 1.0, 1, &mut rng).unwrap()[0], 3);
        }
        let ints = [i64::MIN, i64::MAX, 0];
        for _ in 0..50 {
            assert_eq!(sample_i64(&ints, 1.0, 1.0, 1, &mut rng).unwrap()[0], 1);
        }
        // Equal huge scores: uniform between them.
        let tie = [1e300, 1e300];
        let ones = (0..2000)
            .filter(|_| sample_f64(&tie, 1.0, 1.0, 1, &mut rng).unwrap()[0] == 1)
            .count();
        assert!((800..1200).contains(&ones));
    }

    /// `P(i) ∝ w_i exp(ε s_i / (2Δ))`, the exponential mechanism's law (McSherry and Talwar
    /// 2007; Dwork and Roth, Definition 3.4), written out independently of the sampler.
    fn em_law(scores: &[f64], weights: &[f64], eps: f64, sens: f64) -> Vec<f64> {
        let top = scores.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let w: Vec<f64> = scores
            .iter()
            .zip(weights)
            .map(|(&s, &w)| w * (eps * (s - top) / (2.0 * sens)).exp())
            .collect();
        let z: f64 = w.iter().sum();
        w.iter().map(|v| v / z).collect()
    }

    fn histogram(draws: impl IntoIterator<Item = usize>, n: usize) -> Vec<u64> {
        let mut c = vec![0u64; n];
        for i in draws {
            c[i] += 1;
        }
        c
    }

    #[test]
    fn exact_sampler_follows_its_law() {
        // Integer and real scores, single and batched draws; power: the same counts reject the
        // laws at epsilon halved and at epsilon 1.3 times larger.
        let mut rng = Rng::from_seed(31);
        let n = 50_000;
        let ints = [0i64, -1, 3, 2, -5, 3];
        let as_f: Vec<f64> = ints.iter().map(|&v| v as f64).collect();
        let ones = vec![1.0; ints.len()];
        let (eps, sens) = (1.3, 1.0);
        let batched = sample_i64(&ints, eps, sens, n, &mut rng).unwrap();
        let single: Vec<usize> = (0..n)
            .map(|_| sample_i64(&ints, eps, sens, 1, &mut rng).unwrap()[0])
            .collect();
        for (what, draws) in [("batched", batched), ("single", single)] {
            assert_law_with_power(
                &histogram(draws, ints.len()),
                &em_law(&as_f, &ones, eps, sens),
                &[
                    &em_law(&as_f, &ones, eps / 2.0, sens),
                    &em_law(&as_f, &ones, eps * 1.3, sens),
                ],
                &format!("exact EM, integer scores, {what}"),
            );
        }
        let reals = [0.25, -1.5, 2.0, 1.75, 0.0];
        let ones = vec![1.0; reals.len()];
        let (eps, sens) = (0.9, 1.5);
        let draws = sample_f64(&reals, eps, sens, n, &mut rng).unwrap();
        assert_law_with_power(
            &histogram(draws, reals.len()),
            &em_law(&reals, &ones, eps, sens),
            &[
                &em_law(&reals, &ones, eps / 2.0, sens),
                &em_law(&reals, &ones, eps * 1.3, sens),
            ],
            "exact EM, real scores",
        );
    }

    #[test]
    fn tiny_rate_is_uniform() {
        // A rate below the sampler's precision is uniform; power: the same counts reject the
        // law at epsilon = 0.05 (where the scores 0, 10, 20 are visible).
        let mut rng = Rng::from_seed(4);
        let scores = [0.0, 10.0, 20.0];
        let ones = [1.0; 3];
        let draws =
            (0..3000).map(|_| sample_i64(&[0, 10, 20], 1e-300, 1.0, 1, &mut rng).unwrap()[0]);
        assert_law_with_power(
            &histogram(draws, 3),
            &[1.0 / 3.0; 3],
            &[&em_law(&scores, &ones, 0.05, 1.0)],
            "tiny rate",
        );
    }

    #[test]
    fn weighted_sampler_follows_its_law() {
        // P(i) ∝ w_i exp(eps s_i / 2): eps = 2 gives e^{s_i}.
        let scores = [0i64, -1, 7, 0, 1];
        let weights = [1u64, 3, 0, 2, 1];
        let probs: Vec<f64> = scores
            .iter()
            .zip(&weights)
            .map(|(&s, &w)| w as f64 * (s as f64).exp())
            .collect();
        let total: f64 = probs.iter().sum();
        let mut rng = Rng::from_seed(21);
        let draws = 40_000;
        let counts = histogram(
            (0..draws).map(|_| sample_i64_weighted(&scores, &weights, 2.0, 1.0, &mut rng).unwrap()),
            5,
        );
        assert_eq!(counts[2], 0, "weight 0 is never chosen");
        let s: Vec<f64> = scores.iter().map(|&v| v as f64).collect();
        let w: Vec<f64> = weights.iter().map(|&v| v as f64).collect();
        let law = em_law(&s, &w, 2.0, 1.0);
        for (p, q) in law.iter().zip(&probs) {
            assert!((p - q / total).abs() < 1e-12);
        }
        // Power: epsilon halved, and epsilon 1.3 times larger.
        assert_law_with_power(
            &counts,
            &law,
            &[&em_law(&s, &w, 1.0, 1.0), &em_law(&s, &w, 2.6, 1.0)],
            "weighted exact EM",
        );
        // Huge weights (a fine grid) and a clamp far below the best.
        let w = [1u64 << 62, 1, 3];
        let s = [0i64, 10, -100_000];
        let mut ones = 0;
        for _ in 0..2000 {
            ones += usize::from(sample_i64_weighted(&s, &w, 2.0, 1.0, &mut rng).unwrap() == 1);
        }
        // P(1) = e^10 / (2^62 + e^10) ~ 5e-15.
        assert_eq!(ones, 0);
    }

    #[test]
    fn weighted_sampler_rejects_bad_input() {
        let mut rng = Rng::from_seed(22);
        assert!(sample_i64_weighted(&[0, 1], &[1], 1.0, 1.0, &mut rng).is_err());
        assert!(sample_i64_weighted(&[0, 1], &[0, 0], 1.0, 1.0, &mut rng).is_err());
        assert!(sample_i64_weighted(&[0, 1], &[u64::MAX, 1], 1.0, 1.0, &mut rng).is_err());
        assert!(sample_i64_weighted(&[0], &[1], 0.0, 1.0, &mut rng).is_err());
        assert!(sample_i64_weighted(&[0], &[1], 1.0, f64::NAN, &mut rng).is_err());
        assert_eq!(
            sample_i64_weighted(&[3], &[5], 1.0, 1.0, &mut rng).unwrap(),
            0
        );
    }

    #[test]
    fn parallel_path_follows_its_law() {
        // Above PAR_MIN candidates the groups are computed in parallel. 50 score classes
        // s = 0, -1, ..., -49 of equal size: at epsilon 2, P(class d) ∝ e^{-d}. Power: the same
        // counts reject the law at epsilon halved.
        let n = PAR_MIN + 1000;
        let scores: Vec<i64> = (0..n as i64).map(|i| -(i % 50)).collect();
        let class_law = |eps: f64| {
            let s: Vec<f64> = (0..50).map(|d| -(d as f64)).collect();
            em_law(&s, &[1.0; 50], eps, 1.0)
        };
        let mut rng = Rng::from_seed(9);
        let single: Vec<usize> = (0..400)
            .map(|_| sample_i64(&scores, 2.0, 1.0, 1, &mut rng).unwrap()[0])
            .collect();
        let batched = sample_i64(&scores, 2.0, 1.0, 4000, &mut rng).unwrap();
        for (what, draws) in [("single", single), ("batched", batched)] {
            let classes = draws.into_iter().map(|i| (-scores[i]) as usize);
            assert_law_with_power(
                &histogram(classes, 50),
                &class_law(2.0),
                &[&class_law(1.0)],
                &format!("parallel exact EM, {what}"),
            );
        }
    }
}

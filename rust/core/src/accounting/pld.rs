//! Discretised privacy-loss distributions (PLDs), composed by FFT, read out on the safe side.
//!
//! # The object
//!
//! A dominating pair `(P, Q)` of a mechanism has privacy loss `L = ln(dP/dQ)` under `P`, and
//! hockey-stick curve `delta(eps) = E_P[(1 - e^{eps - L})_+] + P(L = +inf)`. A [`Pld`] is a
//! discrete privacy-loss distribution: masses `p_i` on the losses `(lo + i) * h` (real numbers:
//! the atoms are the exact multiples of the float `h`), a mass `inf_mass` on `+inf`, and an
//! absolute error bound `err`. Its invariant is: *there is a privacy-loss distribution `a*` of a
//! valid pair, on the same atoms, that dominates the mechanism (its hockey-stick curve is at
//! least the mechanism's at every `eps`), and whose l1 distance to the stored masses (the
//! `+inf` mass included) is at most `err`*. Since `|(1 - e^{eps - l})_+| <= 1`, every delta read
//! from the stored masses plus `err` is then an upper bound of the mechanism's delta.
//!
//! # Construction: connect-the-dots
//!
//! [`Pld::from_delta_grid`] takes upper bounds `delta_j >= delta(eps_j)` at `eps_j = (lo + j) h`,
//! `j = 0..=n`. Seen as a function of `x = e^eps`, `delta` is convex and decreasing, so the
//! piecewise-linear function through the points `(x_j, delta_j)` (made convex by raising the
//! slopes from the right, which only raises it) lies above the true curve: it is the hockey-stick
//! curve of the discrete PLD with atoms at the `eps_j` (Doroshenko et al., "Connect the Dots:
//! Tighter Discrete Approximations of Privacy Loss Distributions", PETS 2022, Section 3). With
//! `c = 1 - e^{-h}` and `d_j = delta_{j-1} - delta_j`, the scaled slopes `g_j = x_j S_j c`
//! satisfy `g_j = max(d_j, e^{-h} g_{j+1})` (the running max of the slopes `S_j` from the right)
//! and the masses are `p_j = (g_j - e^{-h} g_{j+1}) / c` for `j >= 1`, `p_inf = delta_n`,
//! `p_0 = 1 - p_inf - sum p_j`. This form never exponentiates large numbers and the float
//! error of every step is tracked (see the function).
//!
//! # Composition
//!
//! The PLD of an adaptive composition is the convolution of the PLDs (the losses add); the
//! `+inf` mass is that of "at least one is `+inf`". Convolutions run by real FFT (`realfft` over
//! `rustfft`) on power-of-two sizes, or directly when one side is short. After each product both
//! tails are truncated on the safe side: lower-tail mass (at most `tail` in total) moves *up* to
//! the lowest kept atom and upper-tail mass (at most `tail`) moves to `+inf`; both moves raise
//! the hockey-stick curve everywhere and keep the pair valid (Meiser and Mohammadi, CCS 2018;
//! Koskela, Jälkö and Honkela, AISTATS 2020, pessimistic truncation).
//!
//! # Error bound of an FFT convolution
//!
//! For the FFT of size `N = 2^t` Higham (Accuracy and Stability of Numerical Algorithms, 2nd
//! ed., Theorem 24.2) bounds the normwise error by `t * eta / (1 - t * eta) * ||y||_2` with
//! `eta = mu + gamma_4 (sqrt 2 + mu)` (`mu`: the error of the computed twiddle factors), about
//! `8u` for accurately computed twiddles (`u = 2^-53`). Following the product `C = A .* B` through
//! (with `||A||_inf <= ||a||_1` and `||A||_2 = sqrt(N) ||a||_2`) and the inverse transform gives
//! `||c_hat - c||_2 <= (2 t eta + 3u) (||a||_2 ||b||_1 + ||a||_1 ||b||_2)` to first order, about
//! `16 t u (...)`. The twiddles of `rustfft` and `realfft` are not that accurate: they are the
//! `f64` cosine and sine of `fl(fl(-2 pi / N) i)` with `i` up to about `N`, an angle of modulus
//! up to `2 pi` with a relative error up to `2.01u`, so up to `12.6u` off; with the cosine and
//! sine within 2 ulps, `mu <= 12.6u + 2 sqrt(2) u < 15.5u`, `eta < 21.2u` and the first-order
//! constant is `2 t eta + 3u < 42.4 t u + 3u`. We use
//! [`FFT_C`]` * (t + 2) * u * (||a||_2 ||b||_1 + ||a||_1 ||b||_2)` with `FFT_C = 64`, which covers
//! it with a factor of at least 1.5 for the higher-order terms (rustfft's radix-4 butterflies
//! count as two radix-2 levels, its radix-3 butterfly as the two levels `ceil(log2 3)`), with two
//! more levels for the real-to-complex pre- and post-processing of `realfft`; the l1 error over
//! the `len` kept outputs is at most `sqrt(len)` times the l2 error. (The constant was 32, below
//! this worst case for large `t`; it was raised once the dominant bins of a k-fold, where it
//! cost the most, were moved to an accurate direct DFT, see [`Pld::power_fft`]. It still
//! doubles the bound of every FFT convolution in [`Pld::compose`].) Negative outputs are clamped to 0,
//! which only brings them closer to the (non-negative) exact values.

use std::cell::RefCell;

use rayon::prelude::*;
use realfft::RealFftPlanner;
use realfft::num_complex::Complex;

use crate::error::{Error, Result};

/// The unit roundoff of `f64`, `2^-53`.
const U: f64 = f64::EPSILON / 2.0;

/// The constant of the FFT convolution error bound (module documentation).
pub const FFT_C: f64 = 64.0;

/// Default tail mass truncated on each side after a composition.
pub const DEFAULT_TAIL: f64 = 1e-15;

/// Largest absolute grid index: `(lo + i) as f64` is exact and `(lo + i) * h` has one rounding.
const MAX_INDEX: i64 = 1 << 40;

/// Largest number of atoms of one PLD (4 GiB of masses).
const MAX_LEN: usize = 1 << 29;

/// Below this product of lengths (or this shorter side) convolutions are direct.
const DIRECT_PRODUCT: usize = 1 << 15;
const DIRECT_SHORT: usize = 24;

/// How far below zero the computed lowest mass of a connect-the-dots PLD may fall before the
/// input is refused as not a privacy curve (a rounding-level deficit is moved to `+inf`).
const P0_TOLERANCE: f64 = 1e-9;

thread_local! {
    static PLANNER: RefCell<RealFftPlanner<f64>> = RefCell::new(RealFftPlanner::new());
}

/// A discretised privacy-loss distribution with an explicit error bound (module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct Pld {
    h: f64,
    lo: i64,
    masses: Vec<f64>,
    inf_mass: f64,
    err: f64,
}

fn check_h(h: f64) -> Result<()> {
    if h.is_finite() && h > 0.0 && h <= 1.0 {
        Ok(())
    } else {
        Err(Error::invalid(
            "value_discretization",
            format!("must be a finite number in (0, 1], got {h}"),
        ))
    }
}

fn check_index(lo: i64, len: usize, name: &'static str) -> Result<()> {
    let hi = lo.checked_add(len as i64);
    match hi {
        Some(hi) if lo.abs() <= MAX_INDEX && hi.abs() <= MAX_INDEX && len <= MAX_LEN => Ok(()),
        _ => Err(Error::invalid(
            name,
            format!(
                "the grid indices lo..lo+len must lie within +-2^40 and len <= 2^29; got lo = {lo}, len = {len}"
            ),
        )),
    }
}

impl Pld {
    /// Connect-the-dots PLD from upper bounds `deltas[j] >= delta((lo + j) * h)` of a hockey-stick
    /// curve (module documentation; Doroshenko et al., PETS 2022, Section 3).
    ///
    /// The values must be upper bounds at the *real* points `(lo + j) * h`; the caller adds the
    /// margins of its own formula. The atoms are the grid points; mass below `lo * h` in the
    /// mechanism's PLD ends up on the lowest atom and mass above the last grid point on `+inf`
    /// (both on the safe side).
    ///
    /// Float error: the running max takes its chain term rounded *up*, so the exact masses
    /// `p~_j = (g_j - e^{-h} g_{j+1}) / c` of the computed `g` are `>= 0` and their curve at the
    /// grid points, `delta_n + sum_{j > k} g_j`, is at least `delta_k` up to the rounding of the
    /// differences `d_j` (at most `u sum |d_j|`). The stored masses are computed as
    /// `g_{j+1} + (g_j - g_{j+1}) / c` (no cancellation), each within `4.1u |g_j - g_{j+1}| / c +
    /// 1.1u p_j` of `p~_j`; since `g_j ~ h |delta'|` these sum to a few `u`. The lowest mass is
    /// `1 - p_inf - sum p_j` by compensated summation. `err` is three times the sum of these
    /// bounds (covering also a rounding-level negative exact lowest mass, moved to `+inf`), a
    /// few `1e-15` in practice. A rounding-level negative lowest mass (margins that are not
    /// exactly convex make the chords overshoot 1 at `e^eps = 0`) is removed from the lowest
    /// atoms, lowering the curve by at most the removed mass times `1 - e^{-j h}`, also counted.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `h` is not in `(0, 1]`, `deltas` is empty, a value is not a
    /// finite number in `[0, 1]`, the indices are out of range, or the values are not (upper
    /// bounds of) a privacy curve (the chord through the two lowest points extended to `e^eps = 0`
    /// exceeds 1 by more than `1e-9`).
    pub fn from_delta_grid(h: f64, lo: i64, deltas: &[f64]) -> Result<Pld> {
        check_h(h)?;
        check_index(lo, deltas.len(), "lo")?;
        if let Some((j, &d)) = deltas
            .iter()
            .enumerate()
            .find(|&(_, &d)| !(d.is_finite() && (0.0..=1.0).contains(&d)))
        {
            return Err(Error::invalid(
                "deltas",
                format!("every value must be a finite number in [0, 1]; deltas[{j}] = {d}"),
            ));
        }
        // excess = delta - (1 - e^eps)_+, rounded up (the cancellation loses at most u).
        let excess: Vec<f64> = deltas
            .iter()
            .enumerate()
            .map(|(j, &d)| {
                let e = (lo + j as i64) as f64 * h;
                if e < 0.0 {
                    (d + (e.exp_m1())) + 4.0 * U
                } else {
                    d
                }
            })
            .map(|v| v.clamp(0.0, 1.0))
            .collect();
        Self::from_excess_grid(h, lo, &excess)
    }

    /// Connect-the-dots PLD from upper bounds `excess[j] >= delta(eps_j) - (1 - e^{eps_j})_+` at
    /// `eps_j = (lo + j) * h`: the hockey-stick curve above its trivial lower bound. For
    /// `eps_j > 0` this is `delta(eps_j)` itself; for `eps_j <= 0` it is `e^{eps} delta'(-eps)`,
    /// with `delta'` the curve of the swapped pair (`delta_{P,Q}(eps) = 1 - e^eps + e^eps
    /// delta_{Q,P}(-eps)`), which the caller computes without the cancellation that `delta`
    /// itself suffers there. The differences of the curve are then formed accurately: the
    /// trivial part exactly up to a relative `(4 + |eps|) u`, the rest from the small excesses.
    /// See [`Pld::from_delta_grid`] for the construction and its error bound.
    ///
    /// # Errors
    /// As [`Pld::from_delta_grid`] (the values are named `excess`).
    pub fn from_excess_grid(h: f64, lo: i64, excess: &[f64]) -> Result<Pld> {
        check_h(h)?;
        if excess.is_empty() {
            return Err(Error::invalid("deltas", "must hold at least one value"));
        }
        check_index(lo, excess.len(), "lo")?;
        if let Some((j, &d)) = excess
            .iter()
            .enumerate()
            .find(|&(_, &d)| !(d.is_finite() && (0.0..=1.0).contains(&d)))
        {
            return Err(Error::invalid(
                "deltas",
                format!("every value must be a finite number in [0, 1]; value [{j}] = {d}"),
            ));
        }
        let n = excess.len() - 1;
        let c = -(-h).exp_m1();
        let eps = |j: usize| (lo + j as i64) as f64 * h;
        // trivial(j) = (1 - x_j)_+ and its relative error bound.
        let trivial = |j: usize| -> (f64, f64) {
            let e = eps(j);
            if e < 0.0 {
                let t = -e.exp_m1();
                (t, (3.0 + e.abs()) * U * t)
            } else {
                (0.0, 0.0)
            }
        };
        // d_j = delta_{j-1} - delta_j = (trivial_{j-1} - trivial_j) + (v_{j-1} - v_j), with error.
        let mut d = vec![0.0f64; n + 1];
        let mut deficit = 0.0f64;
        for j in 1..=n {
            let e1 = eps(j);
            let (b, eb) = if e1 <= 0.0 {
                // x_j - x_{j-1} = x_j (1 - e^{-h})
                let b = e1.exp() * c;
                (b, (5.0 + e1.abs()) * U * b)
            } else {
                let (t0, e0) = trivial(j - 1);
                (t0, e0)
            };
            let dv = excess[j - 1] - excess[j];
            let dj = b + dv;
            d[j] = dj;
            deficit += eb + 1.01 * U * (dv.abs() + dj.abs());
        }
        // The true curve is convex in x = e^eps with delta(x = 0) = 1, so the chord from (0, 1)
        // to (x_1, delta_1) bounds it at x_0 too: d_1 <= c (1 - delta_1) (rounded up). This keeps
        // the lowest mass from going negative through the margins of the inputs.
        if n >= 1 {
            let e1 = eps(1);
            let one_minus = if e1 < 0.0 {
                e1.exp() - excess[1]
            } else {
                1.0 - excess[1]
            };
            let cap = (c * one_minus).max(0.0) * (1.0 + (8.0 + e1.abs()) * U) + 4.0 * U * c;
            if cap < d[1] {
                d[1] = cap;
            }
        }
        let (t_n, _) = trivial(n);
        let delta_n = (t_n + excess[n]).min(1.0);
        // c = 1 - e^{-h} (relative error <= 2u); c_lo <= c exactly.
        let c = -(-h).exp_m1();
        let c_lo = c * (1.0 - 4.0 * U);
        // g[j] for j = 1..=n, g[n + 1] = 0: g_j = max(d_j, e^{-h} g_{j+1}), the chain term
        // rounded *up* (>= e^{-h} g_{j+1} exactly: (g - c_lo g)(1 + 4u) in floats), so that the
        // exact masses from these g are >= 0.
        let mut g = vec![0.0f64; n + 2];
        for j in (1..=n).rev() {
            let next = g[j + 1];
            let chain = (next - c_lo * next) * (1.0 + 4.0 * U);
            g[j] = d[j].max(chain);
        }
        // Masses p_j = g_{j+1} + (g_j - g_{j+1}) / c (the same as (g_j - e^{-h} g_{j+1}) / c,
        // without cancellation against e^{-h}); error <= 4.1u |g_j - g_{j+1}| / c + 1.1u p_j.
        let mut masses = vec![0.0f64; n + 1];
        let mut mass_err = 0.0f64;
        let (mut total, mut comp) = (0.0f64, 0.0f64); // Neumaier summation
        for j in 1..=n {
            let diff = g[j] - g[j + 1];
            let p = (g[j + 1] + diff / c).max(0.0);
            masses[j] = p;
            mass_err += 4.1 * U * diff.abs() / c + 1.1 * U * p;
            let t = total + p;
            comp += if total.abs() >= p {
                (total - t) + p
            } else {
                (p - t) + total
            };
            total = t;
        }
        let total = total + comp;
        let inf_mass = delta_n;
        let mut p0 = (1.0 - inf_mass) - total;
        // |p0 - exact p0| <= mass_err + the rounding of the sums.
        let p0_err = mass_err + (4.0 * U + (n as f64) * U * U * 4.0) * (1.0 + total + inf_mass);
        // The curve of the exact masses from g is delta_n + sum_{j > k} g_j >= delta_k up to
        // the rounding of the differences d_j (`deficit`).
        // A rounding-level negative lowest mass (the margins of the inputs are not exactly
        // convex): the masses sum to 1 + |p0|. Remove the excess from the lowest atoms; removing
        // mass m from atom j lowers the curve by at most m (1 - e^{-j h}) (only below x_j),
        // which enters the error bound.
        let mut lowered = 0.0f64;
        if p0 < 0.0 {
            if p0 < -P0_TOLERANCE - p0_err {
                return Err(Error::invalid(
                    "deltas",
                    format!(
                        "not an upper bound of a privacy curve: the lowest atom would get mass {p0:e} < 0 \
                         (the chord through the two lowest points, extended to e^eps = 0, exceeds 1)"
                    ),
                ));
            }
            let mut excess = -p0;
            for (j, m) in masses.iter_mut().enumerate().skip(1) {
                if excess <= 0.0 {
                    break;
                }
                let take = excess.min(*m);
                *m -= take;
                excess -= take;
                lowered += take * -(-(j as f64) * h).exp_m1() * (1.0 + 4.0 * U);
            }
            if excess > 0.0 {
                return Err(Error::invalid(
                    "deltas",
                    "not an upper bound of a privacy curve (the finite masses sum above 1)",
                ));
            }
            p0 = 0.0;
        }
        let err_sum = mass_err + p0_err + deficit + lowered;
        masses[0] = p0;
        let mut pld = Pld {
            h,
            lo,
            masses,
            inf_mass,
            err: 3.0 * err_sum + 2.0 * U * inf_mass,
        };
        pld.trim_zeros();
        Ok(pld)
    }

    /// A PLD from its parts, checked: masses finite and `>= 0`, `inf_mass` and `err` in `[0, 1]`,
    /// total mass at most `1 + 1e-9`. The caller vouches for the invariant (module documentation).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the offending part.
    pub fn from_parts(h: f64, lo: i64, masses: Vec<f64>, inf_mass: f64, err: f64) -> Result<Pld> {
        check_h(h)?;
        if masses.is_empty() {
            return Err(Error::invalid("masses", "must hold at least one value"));
        }
        check_index(lo, masses.len(), "lo")?;
        if let Some((i, &m)) = masses
            .iter()
            .enumerate()
            .find(|&(_, &m)| !(m.is_finite() && m >= 0.0))
        {
            return Err(Error::invalid(
                "masses",
                format!("every mass must be a finite number >= 0; masses[{i}] = {m}"),
            ));
        }
        for (v, name) in [(inf_mass, "inf_mass"), (err, "err")] {
            if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
                return Err(Error::invalid(
                    name,
                    format!("must be a finite number in [0, 1], got {v}"),
                ));
            }
        }
        let total: f64 = masses.iter().sum::<f64>() + inf_mass;
        if total > 1.0 + 1e-9 {
            return Err(Error::invalid(
                "masses",
                format!("the total mass (with inf_mass) must be at most 1, got {total}"),
            ));
        }
        let mut pld = Pld {
            h,
            lo,
            masses,
            inf_mass,
            err,
        };
        pld.trim_zeros();
        Ok(pld)
    }

    /// The grid step `h` (the value discretisation).
    pub fn h(&self) -> f64 {
        self.h
    }

    /// The grid index of the first atom: `masses()[i]` sits at the loss `(lo + i) * h`.
    pub fn lo(&self) -> i64 {
        self.lo
    }

    /// The masses of the finite losses.
    pub fn masses(&self) -> &[f64] {
        &self.masses
    }

    /// The mass on the loss `+inf`.
    pub fn inf_mass(&self) -> f64 {
        self.inf_mass
    }

    /// The absolute error bound added to every reported delta (module documentation).
    pub fn err(&self) -> f64 {
        self.err
    }

    /// The loss of atom `i`, `(lo + i) * h` (one rounding).
    fn loss(&self, i: usize) -> f64 {
        (self.lo + i as i64) as f64 * self.h
    }

    /// Removes zero masses at both ends (keeps at least one atom).
    fn trim_zeros(&mut self) {
        let first = self.masses.iter().position(|&m| m != 0.0);
        match first {
            None => {
                self.masses.truncate(1);
            }
            Some(f) => {
                let last = self.masses.iter().rposition(|&m| m != 0.0).unwrap_or(f);
                self.masses.truncate(last + 1);
                self.masses.drain(..f);
                self.lo += f as i64;
            }
        }
    }

    /// Truncates both tails on the safe side (module documentation) and returns the added error
    /// bound of the float sums of the moved masses.
    fn truncate(&mut self, tail: f64) -> f64 {
        let m = &mut self.masses;
        let len = m.len();
        let mut low = 0.0;
        let mut i = 0;
        while i + 1 < len && low + m[i] <= tail {
            low += m[i];
            i += 1;
        }
        let mut high = 0.0;
        let mut j = len - 1;
        while j > i && high + m[j] <= tail {
            high += m[j];
            j -= 1;
        }
        m[i] += low;
        m.truncate(j + 1);
        m.drain(..i);
        self.lo += i as i64;
        self.inf_mass += high;
        2.0 * (len as f64 + 2.0) * U * (low + high)
    }

    fn check_same_grid(&self, other: &Pld) -> Result<()> {
        if self.h == other.h {
            Ok(())
        } else {
            Err(Error::invalid(
                "value_discretization",
                format!(
                    "cannot compose PLDs of different value discretisations ({} and {})",
                    self.h, other.h
                ),
            ))
        }
    }

    fn check_tail(tail: f64) -> Result<()> {
        if tail.is_finite() && (0.0..1e-3).contains(&tail) {
            Ok(())
        } else {
            Err(Error::invalid(
                "tail",
                format!("must be a finite number in [0, 1e-3), got {tail}"),
            ))
        }
    }

    /// The composition of `self` and `other` (the convolution of the PLDs), truncated on the safe
    /// side with at most `tail` mass per side.
    ///
    /// Error bound: with `a*`, `b*` the dominating PLDs of the invariant (total mass 1),
    /// `||a (x) b - a* (x) b*||_1 <= err_a ||b||_1 + err_b`, plus the float error of the
    /// convolution (module documentation) and of the `+inf` mass; truncation and clamping are
    /// l1 contractions and do not increase the distance.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if the grids differ (`h`), `tail` is not in `[0, 1e-3)` or the
    /// result would exceed the index range.
    pub fn compose(&self, other: &Pld, tail: f64) -> Result<Pld> {
        self.check_same_grid(other)?;
        Self::check_tail(tail)?;
        let lo = self.lo + other.lo;
        check_index(lo, self.masses.len() + other.masses.len() - 1, "lo")?;
        let (masses, conv_err) = convolve(&self.masses, &other.masses);
        let fin_a: f64 = self.masses.iter().sum();
        let fin_b: f64 = other.masses.iter().sum();
        let total_b = (fin_b + other.inf_mass) * (1.0 + (other.masses.len() as f64 + 2.0) * U);
        let inf_mass = self.inf_mass * (fin_b + other.inf_mass) + fin_a * other.inf_mass;
        let err = (self.err * total_b + other.err) * (1.0 + 4.0 * U)
            + conv_err
            + 4.0 * U * inf_mass
            + (self.masses.len() as f64 + 4.0) * U * self.inf_mass;
        let mut out = Pld {
            h: self.h,
            lo,
            masses,
            inf_mass: inf_mass.min(1.0),
            err,
        };
        out.trim_zeros();
        let moved = out.truncate(tail);
        out.err = (out.err + moved).min(1.0);
        Ok(out)
    }

    /// `self` composed with itself `k` times (`k >= 1`).
    ///
    /// For `k >= 2` the k-fold is computed by one FFT of a window that holds all but a proven
    /// tail of the result, a pointwise k-th power and one inverse FFT ([`Pld::power_fft`]); when
    /// that window would be too large or its error bound too weak, by repeated squaring with
    /// safe-side truncation after every product. Either way the result is truncated with at most
    /// `tail` mass per side.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `k == 0` or `tail` is out of range (as [`Pld::compose`]).
    pub fn self_compose(&self, k: u64, tail: f64) -> Result<Pld> {
        if k == 0 {
            return Err(Error::invalid("k", "must be an integer >= 1, got 0"));
        }
        Self::check_tail(tail)?;
        if k == 1 {
            return Ok(self.clone());
        }
        if let Some(p) = self.power_fft(k, tail) {
            return Ok(p);
        }
        self.self_compose_squaring(k, tail)
    }

    /// `self` composed with itself `k >= 1` times by repeated squaring, truncating on the safe
    /// side after every product.
    ///
    /// # Errors
    /// As [`Pld::self_compose`].
    pub fn self_compose_squaring(&self, k: u64, tail: f64) -> Result<Pld> {
        if k == 0 {
            return Err(Error::invalid("k", "must be an integer >= 1, got 0"));
        }
        Self::check_tail(tail)?;
        let mut result: Option<Pld> = None;
        let mut base = self.clone();
        let mut k = k;
        loop {
            if k & 1 == 1 {
                result = Some(match result {
                    None => base.clone(),
                    Some(r) => r.compose(&base, tail)?,
                });
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            base = base.compose(&base, tail)?;
        }
        Ok(result.unwrap_or_else(|| self.clone()))
    }

    /// The k-fold composition by one FFT (`None` when the window or the error bound is not
    /// acceptable; the caller then squares).
    ///
    /// Window: with `M(l) = sum_i p_i e^{l i}` (index units, the finite masses) the Chernoff bound
    /// `P(S >= T) <= e^{-l T} M(l)^k` (`l > 0`; `S` the sum of `k` offsets) holds for the
    /// sub-probability `p` too; minimising over `l` (golden section; `T(l)` is unimodal) gives an
    /// upper edge whose excess mass is at most `B = tail * 1e-3`, and the same on the reversed
    /// masses a lower edge. The window `[T_lo, T_hi]` has `W` offsets; the masses are folded
    /// cyclically onto `N = 2^t >= W` bins, so the cyclic k-fold equals the true one on the window
    /// plus the aliased mass outside it (at most `2B`). Mass above the window (at most `B`) is put
    /// on `+inf`; the l1 distance to the pessimistic k-fold is then at most `3 * 2B`.
    ///
    /// Error: the exact k-fold of the exact PLD is within `k err (1 + err)^(k-1)` (l1, times the
    /// total mass to the power `k - 1`) of the k-fold of the stored masses (telescoping). The FFT:
    /// each output of the forward transform is a tree of `t` butterfly levels over the inputs,
    /// and each level's rounding error is at most `eta` (module documentation) times the sum of
    /// the moduli feeding it, itself at most `||a||_1`, so every bin is within
    /// `eps_A = FFT_C (t + 2) u ||a||_1` of the exact one (a componentwise form of Higham's
    /// Theorem 24.2 argument). The k-th power of a bin then errs by at most
    /// `k m^(k-1) eps_A + 2.83 k u m^k` with `m = |A_j| + eps_A` (mean value theorem, and binary
    /// powering in complex floats: a relative `2.83u` per product, Higham Lemma 3.5, at most
    /// `k - 1` products' worth). This is tiny except on the few bins where `|A_j|` is near 1
    /// (the low frequencies), where the factor `k` makes it dominate everything else: those
    /// bins (the ones with `m^(k-1) eps_A >= 1e-3 eps_D`, typically a few tens) are recomputed
    /// from the unfolded masses by a direct DFT ([`direct_bins`]: twiddle index reduced in
    /// integers, octant table of `libm` cosines and sines, compensated summation) within
    /// `eps_D` ([`direct_bin_error`], about `7.1 u ||a||_1`, against `eps_A = 64 (t + 2) u
    /// ||a||_1`, 1500 u for `N = 2^18`) and raised to the k-th power in complex double-double
    /// ([`cdd_pow`]): their bound is `k m^(k-1) eps_D + (1.01 u + 8200 u^2) m^k`, `m` now from the
    /// accurate value and `eps_D`. Bins with `m^(k-1) < e^-60` are set to 0 (`|A_j|^k < e^-60`).
    /// These bounds are summed in l2 over the spectrum, and the inverse transform (norm
    /// `1/sqrt(N)`) adds `FFT_C (t + 2) u ||c||_2`, `||c||_2 <= ||a||_2`. The l1 error over the
    /// `W` kept entries is at most `sqrt(W)` times the l2 error.
    fn power_fft(&self, k: u64, tail: f64) -> Option<Pld> {
        let a = &self.masses;
        let n = a.len();
        let kf = k as f64;
        let span = (n as f64 - 1.0) * kf;
        if span.is_nan() || span >= MAX_INDEX as f64 {
            return None;
        }
        let target = (tail * 1e-3).max(1e-300);
        // The two edges are independent: computed in parallel.
        let (hi, lo_tail) = rayon::join(
            || chernoff_upper(a, kf, target),
            || {
                let reversed: Vec<f64> = a.iter().rev().copied().collect();
                chernoff_upper(&reversed, kf, target)
            },
        );
        let lo_edge = span - lo_tail;
        let (t_lo, t_hi) = (lo_edge.max(0.0), hi.min(span));
        if t_hi.is_nan() || t_lo.is_nan() || t_hi < t_lo {
            return None;
        }
        let b_up = if hi < span { target } else { 0.0 };
        let b_lo = if lo_edge > 0.0 { target } else { 0.0 };
        let width = (t_hi - t_lo) as usize + 1;
        if width > MAX_LEN / 2 {
            return None;
        }
        let size = fft_size(width);
        let t = levels(size);
        let mut buf = vec![0.0f64; size];
        for (i, &x) in a.iter().enumerate() {
            buf[i % size] += x;
        }
        let folds = n.div_ceil(size) as f64;
        let (l1_a, l2_a) = norms(&buf);
        // Componentwise bound on the forward transform's error per bin (see the doc comment).
        let eps_a = FFT_C * (t + 2.0) * U * l1_a;
        if kf * eps_a > 0.005 || l1_a > 1.0 + 1e-6 {
            return None;
        }
        let (r2c, c2r) = PLANNER.with(|p| {
            let mut p = p.borrow_mut();
            (p.plan_fft_forward(size), p.plan_fft_inverse(size))
        });
        let mut scratch = r2c.make_scratch_vec();
        if c2r.get_scratch_len() > scratch.len() {
            scratch.resize(c2r.get_scratch_len(), Complex::new(0.0, 0.0));
        }
        let mut spec = r2c.make_output_vec();
        r2c.process_with_scratch(&mut buf, &mut spec, &mut scratch)
            .expect("sizes from the plan");
        let scale = 1.0 / size as f64;
        let last = spec.len() - 1;
        // The few bins where |A_j| is near 1 dominate the bound: recompute them accurately.
        let accurate = accurate_bins(a, &spec, size, k, eps_a);
        let mut next_accurate = accurate.iter().peekable();
        // Sum over the full spectrum (bins 1..N/2-1 stand for two conjugate bins) of the squared
        // per-bin error bound of the k-th power.
        let mut dc2 = 0.0f64;
        // Bins with m below `skip` have m^(k-1) < e^-60 and |A_j|^k <= m^k < e^-60: they are set
        // to 0 (error at most e^-60 each).
        let skip = (-60.0 / (kf - 1.0)).exp();
        // |z|^2 below `skip_r2` implies m < skip (|z| <= sqrt(norm_sqr) (1 + 2u)): no square root
        // needed for most bins.
        let skip_r = ((skip - eps_a) / (1.0 + 8.0 * U)).max(0.0);
        let skip_r2 = skip_r * skip_r * (1.0 - 8.0 * U);
        let mut skipped = 0.0f64;
        for (j, z) in spec.iter_mut().enumerate() {
            let w = if j == 0 || j == last { 1.0 } else { 2.0 };
            if let Some(acc) = next_accurate.next_if(|b| b.index == j) {
                let log_m = acc.m.ln();
                if (kf - 1.0) * log_m > 30.0 {
                    return None;
                }
                let bound = kf * ((kf - 1.0) * log_m).exp() * acc.eps
                    + (1.01 * U + 8200.0 * U * U) * (kf * log_m).exp();
                dc2 += w * bound * bound;
                *z = acc.power * scale;
                continue;
            }
            if z.norm_sqr() < skip_r2 {
                skipped += 1.0;
                *z = Complex::new(0.0, 0.0);
                continue;
            }
            let m = z.norm() * (1.0 + 4.0 * U) + eps_a;
            if m < skip {
                skipped += 1.0;
                *z = Complex::new(0.0, 0.0);
                continue;
            }
            let log_m = m.ln();
            if (kf - 1.0) * log_m > 30.0 {
                return None;
            }
            let bound =
                kf * ((kf - 1.0) * log_m).exp() * eps_a + 2.83 * kf * U * (kf * log_m).exp();
            dc2 += w * bound * bound;
            *z = cpow(*z, k) * scale;
        }
        spec[0].im = 0.0;
        spec[last].im = 0.0;
        // The forward transform left `buf` as scratch: the inverse writes all of it.
        let out = &mut buf;
        c2r.process_with_scratch(&mut spec, out, &mut scratch)
            .expect("sizes from the plan");
        let start = t_lo as usize;
        let masses: Vec<f64> = (0..width)
            .map(|m| out[(start + m) % size].max(0.0))
            .collect();
        // ||dc||_2 <= ||dC||_2 / sqrt(N) (the normalised inverse transform has norm 1/sqrt(N))
        // plus the inverse transform's own error and the scaling.
        // Skipped bins (set to 0): |A_j|^k <= m^k < e^-60 each.
        let dc2 = dc2 + 2.0 * skipped * (-60f64).exp().powi(2);
        let l2_err =
            dc2.sqrt() * (1.0 + 1e-6) / (size as f64).sqrt() + (FFT_C * (t + 2.0) + 2.0) * U * l2_a;
        let fft_err = (width as f64).sqrt() * l2_err;
        // Rounding of the folding (each bin sums at most `folds` masses): like an input error.
        let fold_err = if folds > 1.0 { folds * U * l1_a } else { 0.0 };
        let total_a = l1_a + self.inf_mass;
        let growth = (kf - 1.0) * (total_a + self.err).max(1.0).ln();
        if growth > 0.01 {
            return None;
        }
        let input_err = kf * (self.err + fold_err) * growth.exp() * (1.0 + 4.0 * U);
        let inf_mass = -(kf * (-self.inf_mass).ln_1p()).exp_m1();
        let err = input_err + fft_err + 6.0 * (b_up + b_lo) + 8.0 * U * inf_mass + 16.0 * U;
        let mut res = Pld {
            h: self.h,
            lo: self.lo * k as i64 + start as i64,
            masses,
            inf_mass: (inf_mass + b_up).min(1.0),
            err,
        };
        res.trim_zeros();
        let moved = res.truncate(tail);
        res.err = (res.err + moved).min(1.0);
        Some(res)
    }

    /// The composition of all `plds` (at least one), smallest supports first (Huffman's order:
    /// the cost of a composition grows with the support of its result, so the sum of the merged
    /// supports is kept small, and the largest PLD, e.g. a merged Gaussian, is composed last).
    /// Each round takes the two smallest PLDs and, with them, every further pair of next-smallest
    /// PLDs that are no larger than the first pair's product (judged by untruncated sizes, the
    /// pairs Huffman's order would compose next anyway), and composes these pairs in parallel;
    /// each product is truncated on the safe side. Deterministic: ties keep the input order.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] if `plds` is empty, the grids differ, or `tail` is out of range.
    pub fn compose_all(plds: &[Pld], tail: f64) -> Result<Pld> {
        Self::check_tail(tail)?;
        let Some(first) = plds.first() else {
            return Err(Error::invalid("plds", "must hold at least one PLD"));
        };
        for p in plds {
            first.check_same_grid(p)?;
        }
        let mut pool: Vec<Pld> = plds.to_vec();
        while pool.len() > 1 {
            // Largest first (stable), so the smallest are at the end.
            pool.sort_by_key(|p| std::cmp::Reverse(p.masses.len()));
            let n = pool.len();
            let bound = pool[n - 1].masses.len() + pool[n - 2].masses.len();
            let mut take = 2;
            while take + 2 <= n && pool[n - take - 2].masses.len() <= bound {
                take += 2;
            }
            let batch = pool.split_off(n - take);
            let merged = batch
                .par_chunks(2)
                .map(|pair| pair[0].compose(&pair[1], tail))
                .collect::<Result<Vec<Pld>>>()?;
            pool.extend(merged);
        }
        Ok(pool.pop().expect("one PLD"))
    }

    /// An upper bound of the hockey-stick divergence at `eps`:
    /// `sum_i p_i (1 - e^{eps - l_i})_+ + inf_mass + err`, plus a bound on the float error of the
    /// sum, rounded up and capped at 1.
    ///
    /// The exponentials go by blocks of [`DELTA_BLOCK`] atoms: atom `b + r` of the block starting
    /// at atom `b` uses `E = e^{eps - l_b} T_r` with the table `T_r = e^{-r h}` (one `exp` per
    /// block instead of one per atom).
    ///
    /// Float error: the computed `E` is `e^{eps - l_i + D} (1 + t)` with `|D| <= u (|l_b| +
    /// |eps - l_b| + r h)` (the rounded loss `l_b`, the subtraction, the rounded `r h`) and
    /// `|t| <= 5u` (two `exp` within 2u each, one product), so `|E - e^{eps - l_i}| <= (2 L +
    /// |eps| + 64 h + 5) u` times `1.01` for `z <= 0` (`L` the largest `|l_i|`; `e^z <= 1`), and
    /// `1 - E` and the product with `p_i` add `2u`: each term errs by at most `p_i (2.02 L +
    /// 1.01 |eps| + 65 h + 8) u` (an atom on the wrong side of `eps` through rounding contributes
    /// at most the same: such an atom is among the first few of the first block, because
    /// `start` lies within about `2h` of `eps`, so there `|eps - l_b|` and `r h` are at most
    /// about `2h` and its exponent errs by far less than the bound), and the sum of `m`
    /// non-negative terms adds a relative `m u`.
    pub fn delta(&self, eps: f64) -> f64 {
        if eps.is_nan() {
            return 1.0;
        }
        let n = self.masses.len();
        // First atom that can lie above eps (one index of slack for the rounding of l_i).
        let start = if eps.is_finite() {
            let k = (eps / self.h).floor() - self.lo as f64 - 1.0;
            if k <= 0.0 { 0 } else { (k as usize).min(n) }
        } else if eps < 0.0 {
            0
        } else {
            n
        };
        let mut sum = 0.0;
        let mut mass = 0.0;
        // The losses are increasing in i: the largest |l_i| is at an end.
        let max_abs_l = if start < n {
            self.loss(start).abs().max(self.loss(n - 1).abs())
        } else {
            0.0
        };
        let h = self.h;
        let mut table = [0.0f64; DELTA_BLOCK];
        if start < n {
            for (r, t) in table.iter_mut().enumerate().take(n - start) {
                *t = (-(r as f64) * h).exp();
            }
        }
        let mut b = start;
        while b < n {
            let end = (b + DELTA_BLOCK).min(n);
            let eb = (eps - self.loss(b)).exp();
            for (i, &t) in (b..end).zip(&table) {
                let l = self.loss(i);
                let p = self.masses[i];
                // Atoms just below eps may lie above it in exact arithmetic: their mass enters
                // the margin too.
                mass += p;
                if l > eps {
                    sum += p * (1.0 - eb * t);
                }
            }
            b = end;
        }
        let count = (n - start) as f64;
        let margin = delta_margin(count, max_abs_l, eps, h, mass);
        let total = (sum + margin + self.inf_mass + self.err) * (1.0 + 4.0 * U);
        total.min(1.0)
    }

    /// The smallest `eps >= 0` (rounded up) with [`Pld::delta`]`(eps) <= delta`, or `+inf` when no
    /// finite `eps` reaches it (the `+inf` mass plus the error bound exceed `delta`).
    ///
    /// Between two atoms the curve is linear in `x = e^eps`; the segment is located by a scan from
    /// the top, the equation solved there, and the result checked with [`Pld::delta`] (and moved up
    /// until the check passes), so the answer never depends on the accuracy of the solve. The
    /// equation is solved for `delta` lowered by the margins of [`Pld::delta`] (its float-error
    /// margin over the atoms above the segment, and its final `(1 + 4u)`), so the first check
    /// usually passes. The answer `0` is tried first (as [`Pld::delta`]`(0) <= delta`) unless the
    /// scan's curve at the atom at loss `0` (a sum of non-negative terms, accurate to a relative
    /// `~n u`) exceeds `delta` by a relative `1e-6`, in which case `delta(0) > delta` and that
    /// check (a pass over every positive atom) is skipped.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `delta` is a finite number in `(0, 1)`.
    pub fn epsilon(&self, delta: f64) -> Result<f64> {
        if !(delta.is_finite() && delta > 0.0 && delta < 1.0) {
            return Err(Error::invalid(
                "delta",
                format!("must be a finite number in (0, 1), got {delta}"),
            ));
        }
        let n = self.masses.len();
        let top = self.loss(n - 1);
        let beyond = top.abs() * (1.0 + 1e-12) + self.h + 1.0;
        // No atom lies above `beyond`: delta(beyond) <= delta(0) (a smaller margin), so when it
        // exceeds `delta` so does delta(0), and the order of the two checks does not matter.
        if self.delta(beyond) > delta {
            return Ok(f64::INFINITY);
        }
        let h = self.h;
        let eh = (-h).exp();
        let em1 = h.exp_m1();
        let base = self.inf_mass + self.err;
        let max_abs_l = self.loss(0).abs().max(top.abs());
        // Delta's margin for `count` atoms of total mass `m` read at `e`.
        let margin =
            |count: usize, m: f64, e: f64| delta_margin(count as f64, max_abs_l, e, self.h, m);
        // The atom at loss 0, if any: the scan reads the curve there.
        let zero_k = (self.lo <= 0 && -self.lo < n as i64).then(|| (-self.lo) as usize);
        let mut curve0 = if self.lo + (n as i64) <= 0 {
            Some(0.0)
        } else {
            None
        };
        // Scan down: d_next = sum_{i > k+1} p_i (1 - e^{l_{k+1} - l_i}) (the curve at l_{k+1}
        // without base), v = sum_{i > k} p_i e^{-(i - k) h}, pm = sum_{i > k} p_i.
        let mut v = 0.0;
        let mut d_next = 0.0;
        let mut pm = 0.0;
        let mut guess = f64::NAN;
        for k in (0..n - 1).rev() {
            v = eh * (self.masses[k + 1] + v);
            pm += self.masses[k + 1];
            let d_here = d_next + em1 * v;
            if zero_k == Some(k) {
                curve0 = Some(d_here);
            }
            if guess.is_nan() && base + d_here > delta {
                // Solve base + d_next + (e^h - e^{t}) v = target, t = eps - l_k in [0, h], with
                // target below delta by the estimated margins of `delta()`.
                let lk = self.loss(k);
                let mass = pm + self.masses[k] + if k > 0 { self.masses[k - 1] } else { 0.0 };
                let target = delta * (1.0 - 8.0 * U) - margin(n - k + 2, mass, lk + h);
                let r = ((target - base - d_next) / v).max(0.0);
                let t = h + (-r * eh).max(-1.0).ln_1p();
                guess = lk + t.clamp(0.0, h);
            }
            // Done once the guess and (for lo <= 0) the curve at 0 are known.
            if !guess.is_nan() && (self.lo > 0 || curve0.is_some() || zero_k.is_none_or(|z| k <= z))
            {
                break;
            }
            d_next = d_here;
        }
        // (Every atom above 0, lo > 0: the scan does not read the curve at 0, which would be a
        // difference M - sum_i p_i e^{-l_i} with cancellation; delta(0) is then always tried.)
        let try_zero = match curve0 {
            Some(c) => base + c <= delta * (1.0 + 1e-6),
            None => true,
        };
        if try_zero && self.delta(0.0) <= delta {
            return Ok(0.0);
        }
        if guess.is_nan() {
            // Below the lowest atom: base + M - x W = delta with x relative to the lowest atom.
            let total: f64 = self.masses.iter().sum();
            let w = self.masses[0] + v;
            let ratio = (base + total - delta) / w;
            guess = self.loss(0) + if ratio > 0.0 { ratio.ln() } else { 0.0 };
        }
        let mut eps = guess.max(0.0);
        let mut step = (eps.abs() * 1e-12).max(h * 1e-9);
        for _ in 0..200 {
            if self.delta(eps) <= delta {
                return Ok(eps);
            }
            eps += step;
            step *= 2.0;
        }
        // Unreachable in practice (the scan and the check agree to ~1e-10 relative): fall back
        // to the first grid point that passes.
        let mut eps = beyond;
        for k in 0..n {
            let l = self.loss(k).max(0.0) * (1.0 + 1e-12) + 1e-300;
            if l < eps && self.delta(l) <= delta {
                eps = l;
                break;
            }
        }
        Ok(eps)
    }
}

/// Atoms per shared exponential in [`Pld::delta`].
const DELTA_BLOCK: usize = 64;

/// The float-error margin of [`Pld::delta`] for `count` atoms of total mass `mass` with losses
/// of modulus at most `max_abs_l`, read at `eps` on the grid step `h`.
fn delta_margin(count: f64, max_abs_l: f64, eps: f64, h: f64, mass: f64) -> f64 {
    (count + 8.0 + 2.02 * max_abs_l + 1.01 * eps.abs().min(1e300) + 65.0 * h) * U * mass
        + (mass > 0.0) as u8 as f64 * f64::MIN_POSITIVE
}

/// The FFT length used for `len` outputs: the smallest `2^a` or `3 * 2^a` (even, >= 2) that is
/// at least `len` (rustfft has fast radix-3 butterflies).
fn fft_size(len: usize) -> usize {
    let p2 = len.next_power_of_two().max(2);
    let p3 = 3 * len.div_ceil(3).next_power_of_two().max(1);
    if p3 < p2 && p3.is_multiple_of(2) {
        p3
    } else {
        p2
    }
}

/// Butterfly levels of an FFT of length `size` (`2^a` or `3 * 2^a`): `ceil(log2(size))`.
fn levels(size: usize) -> f64 {
    (size as f64).log2().ceil()
}

/// `z^k` by binary powering.
fn cpow(z: Complex<f64>, k: u64) -> Complex<f64> {
    let mut result = Complex::new(1.0, 0.0);
    let mut base = z;
    let mut e = k;
    loop {
        if e & 1 == 1 {
            result *= base;
        }
        e >>= 1;
        if e == 0 {
            return result;
        }
        base = base * base;
    }
}

/// Largest error of `libm`'s sine and cosine that the accurate bins allow, in ulps of the
/// exact value. The `libm` crate ports FreeBSD's msun kernels, documented below 1 ulp; we allow
/// twice that and do not assume correct rounding.
const LIBM_ULPS: f64 = 2.0;

/// Most multiply-adds (bins times input length) and most bins spent on accurate bins.
const ACCURATE_BUDGET: usize = 1 << 22;
const ACCURATE_MAX_BINS: usize = 64;

/// A spectral bin recomputed accurately by [`accurate_bins`].
#[derive(Debug, Clone, Copy)]
struct AccurateBin {
    /// Index of the bin in the half spectrum.
    index: usize,
    /// `A_j^k` (before the `1/N` scaling), rounded from double-double.
    power: Complex<f64>,
    /// `m >= max(|A_j computed|, |A_j exact|)`.
    m: f64,
    /// Error bound of the accurate `A_j` (double-double, before the power).
    eps: f64,
}

/// The per-bin error bound `eps_D` of [`direct_bins`] for `n` inputs of l1 norm at most `l1`.
///
/// Per component (real or imaginary part), for `A_j = sum_i a_i (cos t_i - i sin t_i)`:
/// * the twiddle: the angle `x = s (2 pi / N)` of the octant table (`s <= N/8`, `x <= pi/4`) is
///   a product of `s` (exact) and `fl(TAU / N)` (`TAU` within `0.04 u` of `2 pi` relative, one
///   rounding of the quotient, one of the product), within `2.1 u x <= 1.7 u` of the exact
///   angle; the cosine and sine (derivatives at most 1, exact values below 1 so an ulp is at
///   most `u`; `s = 0` is stored exactly) add [`LIBM_ULPS`]` u`. The octant symmetries are exact
///   (sign changes and swaps). So `tau = (LIBM_ULPS + 2) u` per component, and the sum over the
///   inputs errs by at most `tau ||a||_1`.
/// * the products `a_i c_i`: one rounding each, at most `u a_i |c_i| <= u (1 + tau) a_i`.
/// * the sum: `Sum2` (cascaded TwoSum, Ogita, Rump and Oishi, "Accurate sum and dot product",
///   SIAM J. Sci. Comput. 26(6), 2005, Algorithm 4.4 and Proposition 4.5) keeps `s + sigma`
///   with `s + sum q_i = sum p_i` exactly and `|sigma - sum q_i| <= gamma_{n-1} sum |q_i|`,
///   `sum |q_i| <= gamma_{n-1} sum |p_i|`; kept unevaluated (no final rounding) the error is at
///   most `gamma_{n-1}^2 sum |p_i|`.
///
/// Per component `e = ||a||_1 (tau + u (1 + tau) + gamma_{n-1}^2 (1 + u) (1 + tau))`; in modulus
/// `eps_D = sqrt(2) e`, about `7.1 u ||a||_1` (against `FFT_C (t + 2) u ||a||_1` for the
/// FFT's bins).
fn direct_bin_error(n: usize, l1: f64) -> f64 {
    let tau = (LIBM_ULPS + 2.0) * U;
    let nu = n as f64 * U;
    let gamma = nu / (1.0 - nu);
    let e = l1 * (tau + U * (1.0 + tau) + gamma * gamma * (1.0 + U) * (1.0 + tau));
    e * std::f64::consts::SQRT_2 * (1.0 + 8.0 * U)
}

/// Cosine and sine of `2 pi s / size` for `s = 0..=size/8` (`size` a multiple of 8), `s = 0`
/// exactly (error bound: [`direct_bin_error`]).
fn octant_twiddles(size: usize) -> Vec<(f64, f64)> {
    let q = size / 8;
    let step = std::f64::consts::TAU / size as f64;
    let mut tab = Vec::with_capacity(q + 1);
    tab.push((1.0, 0.0));
    for s in 1..=q {
        let (sin, cos) = libm::sincos(s as f64 * step);
        tab.push((cos, sin));
    }
    tab
}

/// `(a + b, error)` exactly (Knuth's TwoSum).
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `(a + b, error)` exactly when `|a| >= |b|` or `a == 0` (Dekker's Fast2Sum).
fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

/// `(a b, error)` exactly (barring underflow) by a fused multiply-add.
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

/// A double-double number `hi + lo`, `|lo| <= u |hi|`.
#[derive(Debug, Clone, Copy)]
struct Dd(f64, f64);

impl Dd {
    fn from_sum(s: f64, sigma: f64) -> Dd {
        let (h, l) = two_sum(s, sigma);
        Dd(h, l)
    }

    fn neg(self) -> Dd {
        Dd(-self.0, -self.1)
    }

    /// AccurateDWPlusDW (Joldes, Muller and Popescu, "Tight and rigorous error bounds for basic
    /// building blocks of double-word arithmetic", ACM TOMS 44(2), 2017, Algorithm 6): relative
    /// error below `3u^2 / (1 - 4u)`.
    fn add(self, y: Dd) -> Dd {
        let (sh, sl) = two_sum(self.0, y.0);
        let (th, tl) = two_sum(self.1, y.1);
        let (vh, vl) = fast_two_sum(sh, sl + th);
        let (zh, zl) = fast_two_sum(vh, tl + vl);
        Dd(zh, zl)
    }

    /// DWTimesDW1 (same paper, Algorithm 10): relative error below `7u^2`.
    fn mul(self, y: Dd) -> Dd {
        let (ch, cl1) = two_prod(self.0, y.0);
        let cl2 = self.0 * y.1 + self.1 * y.0;
        let (zh, zl) = fast_two_sum(ch, cl1 + cl2);
        Dd(zh, zl)
    }
}

/// A complex double-double number.
#[derive(Debug, Clone, Copy)]
struct Cdd {
    re: Dd,
    im: Dd,
}

impl Cdd {
    /// The product. Each real product errs by at most `7u^2` of its modulus and each sum by
    /// `3.01u^2` of the result, so a component errs by at most `10.02u^2 (|a c| + |b d|)` and the
    /// modulus by `10.02 sqrt(2) u^2 |x| |y| < 14.2u^2 |x| |y|` (`(|ac| + |bd|)^2 + (|ad| +
    /// |bc|)^2 <= 2 |x|^2 |y|^2`). [`cdd_pow`] counts `64u^2` per product.
    fn mul(self, y: Cdd) -> Cdd {
        Cdd {
            re: self.re.mul(y.re).add(self.im.mul(y.im).neg()),
            im: self.re.mul(y.im).add(self.im.mul(y.re)),
        }
    }
}

/// `z^k` by binary powering in complex double-double: at most `2 * 64` products, each with
/// relative error at most `64u^2` ([`Cdd::mul`]), so the result is within a relative
/// `(1 + 64u^2)^128 - 1 < 8200u^2` of the exact power of `z`, then rounded to `f64` parts (a
/// relative `u` in modulus). Underflow is excluded by the caller (`|z|^k > 1e-200`, products of
/// parts below `1e-290` err by less than `2^-1074`, far below the relative bound).
fn cdd_pow(z: Cdd, k: u64) -> Complex<f64> {
    let mut result = Cdd {
        re: Dd(1.0, 0.0),
        im: Dd(0.0, 0.0),
    };
    let mut base = z;
    let mut e = k;
    loop {
        if e & 1 == 1 {
            result = result.mul(base);
        }
        e >>= 1;
        if e == 0 {
            return Complex::new(result.re.0, result.im.0);
        }
        base = base.mul(base);
    }
}

/// Cosine and sine of `o pi/4 + 2 pi s / size` from the octant table (`q = size/8`, `s < q`),
/// by exact symmetries: odd octants through `psi = pi/4 - phi = 2 pi (q - s) / size`.
#[inline]
fn octant_twiddle(tab: &[(f64, f64)], q: usize, o: usize, s: usize) -> (f64, f64) {
    match o {
        0 => tab[s],
        1 => {
            let (c, sn) = tab[q - s];
            (sn, c)
        }
        2 => {
            let (c, sn) = tab[s];
            (-sn, c)
        }
        3 => {
            let (c, sn) = tab[q - s];
            (-c, sn)
        }
        4 => {
            let (c, sn) = tab[s];
            (-c, -sn)
        }
        5 => {
            let (c, sn) = tab[q - s];
            (-sn, -c)
        }
        6 => {
            let (c, sn) = tab[s];
            (sn, -c)
        }
        _ => {
            let (c, sn) = tab[q - s];
            (c, -sn)
        }
    }
}

/// Bins `js` of the forward DFT of `a` on `size` points (a multiple of 8),
/// `sum_i a_i e^{-2 pi i (i j mod size) / size}`, by direct sums (four bins per pass over `a`):
/// the twiddle index `r = i j mod size` is advanced in integers and split into its octant `o`
/// and offset `s` (`r = o size/8 + s`), the twiddle read from the octant table by exact
/// symmetries ([`octant_twiddle`]), and the products summed by `Sum2` (error bound:
/// [`direct_bin_error`]).
fn direct_bins(a: &[f64], js: &[usize], size: usize, tab: &[(f64, f64)]) -> Vec<Cdd> {
    const L: usize = 4;
    let q = size / 8;
    // The groups of four bins are independent: computed in parallel (same values).
    let groups: Vec<Vec<Cdd>> = js
        .par_chunks(L)
        .map(|group| {
            let mut out = Vec::with_capacity(L);
            let mut jo = [0usize; L];
            let mut js_ = [0usize; L];
            for (b, &j) in group.iter().enumerate() {
                let j = j % size;
                jo[b] = j / q;
                js_[b] = j % q;
            }
            let mut o = [0usize; L];
            let mut s = [0usize; L];
            let mut re = [0.0f64; L];
            let mut re_c = [0.0f64; L];
            let mut im = [0.0f64; L];
            let mut im_c = [0.0f64; L];
            if jo.iter().all(|&v| v == 0) {
                // Every bin below size/8: the octants change only when an offset wraps, so
                // the inputs go in runs over which every bin's octant is fixed and its table
                // index moves by a constant step (the same twiddles, products and sums).
                let mut i = 0;
                while i < a.len() {
                    let mut run = a.len() - i;
                    for b in 0..L {
                        if js_[b] > 0 {
                            run = run.min((q - s[b]).div_ceil(js_[b]));
                        }
                    }
                    let mut idx = [0usize; L];
                    let mut fwd = [true; L];
                    let mut swap = [false; L];
                    let mut sc = [1.0f64; L];
                    let mut ss = [1.0f64; L];
                    for b in 0..L {
                        // octant_twiddle: odd octants read tab[q - s] swapped, signs by octant.
                        fwd[b] = o[b] % 2 == 0;
                        idx[b] = if fwd[b] { s[b] } else { q - s[b] };
                        swap[b] = matches!(o[b], 1 | 2 | 5 | 6);
                        sc[b] = if matches!(o[b], 2..=5) { -1.0 } else { 1.0 };
                        ss[b] = if matches!(o[b], 4..=7) { -1.0 } else { 1.0 };
                    }
                    for &x in &a[i..i + run] {
                        for b in 0..L {
                            let (tc, ts) = tab[idx[b]];
                            let (c, sn) = if swap[b] { (ts, tc) } else { (tc, ts) };
                            let (t, e) = two_sum(re[b], x * (sc[b] * c));
                            re[b] = t;
                            re_c[b] += e;
                            let (t, e) = two_sum(im[b], x * (ss[b] * sn));
                            im[b] = t;
                            im_c[b] += e;
                            if fwd[b] {
                                idx[b] += js_[b];
                            } else {
                                idx[b] = idx[b].wrapping_sub(js_[b]);
                            }
                        }
                    }
                    for b in 0..L {
                        s[b] += run * js_[b];
                        if s[b] >= q {
                            s[b] -= q;
                            o[b] = (o[b] + 1) & 7;
                        }
                    }
                    i += run;
                }
            } else {
                for &x in a {
                    for b in 0..L {
                        let (c, sn) = octant_twiddle(tab, q, o[b], s[b]);
                        let (t, e) = two_sum(re[b], x * c);
                        re[b] = t;
                        re_c[b] += e;
                        let (t, e) = two_sum(im[b], x * sn);
                        im[b] = t;
                        im_c[b] += e;
                        s[b] += js_[b];
                        o[b] += jo[b];
                        if s[b] >= q {
                            s[b] -= q;
                            o[b] += 1;
                        }
                        o[b] &= 7;
                    }
                }
            }
            for b in 0..group.len() {
                out.push(Cdd {
                    re: Dd::from_sum(re[b], re_c[b]),
                    im: Dd::from_sum(im[b], im_c[b]).neg(),
                });
            }
            out
        })
        .collect();
    groups.into_iter().flatten().collect()
}

/// The bins of the half spectrum `spec` (the FFT of `a` folded onto `size` points) whose k-th
/// power error bound `k m^(k-1) eps_A` is not negligible, recomputed by [`direct_bins`] and raised
/// to the k-th power by [`cdd_pow`], sorted by index. A bin is taken when `m^(k-1) eps_A` is at
/// least `1e-3 eps_D` (`eps_D` from [`direct_bin_error`]), largest first, within
/// [`ACCURATE_BUDGET`] and [`ACCURATE_MAX_BINS`]; the choice only affects tightness and time,
/// every bound holds for any choice. Empty when `size` is not a multiple of 8, there is nothing
/// to gain, or the bound is spread over more than four times the bins allowed (small `k`).
fn accurate_bins(
    a: &[f64],
    spec: &[Complex<f64>],
    size: usize,
    k: u64,
    eps_a: f64,
) -> Vec<AccurateBin> {
    let kf = k as f64;
    let n = a.len();
    if !size.is_multiple_of(8) || n == 0 || kf < 2.0 {
        return Vec::new();
    }
    let (l1, _) = norms(a);
    let eps_d = direct_bin_error(n, l1);
    if eps_d.is_nan() || eps_d >= eps_a {
        return Vec::new();
    }
    let max_bins = (ACCURATE_BUDGET / n).min(ACCURATE_MAX_BINS);
    // m^(k-1) >= 1e-3 eps_D / eps_A, m = |A_j| + eps_A, compared in squares.
    let m_min = ((1e-3 * eps_d / eps_a).ln() / (kf - 1.0)).exp();
    let r_min = (m_min - eps_a).max(0.0);
    let r2_min = r_min * r_min;
    let mut chosen: Vec<(usize, f64)> = spec
        .iter()
        .enumerate()
        .filter(|(_, z)| z.norm_sqr() >= r2_min)
        .map(|(j, z)| (j, z.norm_sqr()))
        .collect();
    if chosen.len() > 4 * max_bins {
        // The bound is spread over many bins (small k): a few accurate ones gain little.
        return Vec::new();
    }
    if chosen.len() > max_bins {
        chosen.sort_by(|x, y| y.1.total_cmp(&x.1));
        chosen.truncate(max_bins);
    }
    chosen.sort_by_key(|c| c.0);
    if chosen.is_empty() {
        return Vec::new();
    }
    let tab = octant_twiddles(size);
    let js: Vec<usize> = chosen.iter().map(|c| c.0).collect();
    let values = direct_bins(a, &js, size, &tab);
    js.iter()
        .zip(values)
        .filter_map(|(&j, z)| {
            let r = z.re.0.hypot(z.im.0) * (1.0 + 4.0 * U) + z.re.1.abs() + z.im.1.abs();
            let m = r * (1.0 + 2.0 * U) + eps_d;
            // Keep clear of underflow in the double-double power (`cdd_pow`).
            if kf * r.ln() < -460.0 {
                return None;
            }
            Some(AccurateBin {
                index: j,
                power: cdd_pow(z, k),
                m,
                eps: eps_d,
            })
        })
        .collect()
}

/// `ln M(l)` for `M(l) = sum_i p_i e^{l i}` (`l >= 0`, `p_i >= 0`), rounded up: Horner's rule
/// with the non-negative terms has relative error below `2 n u`.
///
/// For `n >= 16` four interleaved chains (independent, so the loop runs at full speed) evaluate
/// `M = sum_{c<4} r^c sum_m p_{4m+c} (r^4)^m` with `r4 >= r^4` (each square rounded and then
/// raised by `4u`: `(1 - u)(1 + 4u)(1 - u) > 1`, so `r4` is an upper bound and the polynomial
/// with it is at least the one with `r^4`); each chain is a Horner of at most `n/4 + 1` steps
/// and the final combination one of 3 steps, so the computed value is at least the exact one
/// times `1 - gamma_{n/2 + 8}`, within the same margin `(2.1 n + 4) u`.
fn log_mgf_up(p: &[f64], l: f64) -> f64 {
    let r = l.exp() * (1.0 + 2.0 * U);
    let m = if p.len() < 16 {
        let mut m = 0.0f64;
        for &x in p.iter().rev() {
            m = m * r + x;
        }
        m
    } else {
        let r2 = (r * r) * (1.0 + 4.0 * U);
        let r4 = (r2 * r2) * (1.0 + 4.0 * U);
        let chunks = p.chunks_exact(4);
        let rem = chunks.remainder();
        let mut acc = [0.0f64; 4];
        for (c, &x) in rem.iter().enumerate() {
            acc[c] = x;
        }
        for ch in chunks.rev() {
            for c in 0..4 {
                acc[c] = acc[c] * r4 + ch[c];
            }
        }
        ((acc[3] * r + acc[2]) * r + acc[1]) * r + acc[0]
    };
    let n = p.len() as f64;
    m.ln() + (2.1 * n + 4.0) * U + 2.0 * U * m.ln().abs()
}

/// An offset `T` (in index units, from 0) with `P(S > T) <= target` for `S` the sum of `k`
/// independent offsets drawn from the sub-probability `p`: the Chernoff bound
/// `P(S >= T + 1) <= exp(k ln M(l) - l (T + 1))`, minimised over `l` by golden section on
/// `ln l` (`(k ln M(l) - ln target) / l` is unimodal in `l`). 24 steps narrow `ln l` to
/// `0.618^24 < 1e-5` of its range (a relative `~1e-4` in `l` near the minimum, where the bound
/// is flat: a negligible widening of the window); any `l` gives a valid bound.
fn chernoff_upper(p: &[f64], k: f64, target: f64) -> f64 {
    let n = p.len().max(1) as f64;
    let log_target = target.ln();
    let f = |l: f64| (k * log_mgf_up(p, l) - log_target) / l;
    let l_max = 600.0 / n;
    let (mut a, mut b) = ((1e-12f64).ln(), l_max.ln());
    let phi = 0.5 * (5f64.sqrt() - 1.0);
    let mut x1 = b - phi * (b - a);
    let mut x2 = a + phi * (b - a);
    let (mut f1, mut f2) = (f(x1.exp()), f(x2.exp()));
    let mut best = f1.min(f2);
    for _ in 0..24 {
        if f1 <= f2 {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - phi * (b - a);
            f1 = f(x1.exp());
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + phi * (b - a);
            f2 = f(x2.exp());
        }
        best = best.min(f1).min(f2);
    }
    // P(S >= T + 1) <= target for T + 1 >= best.
    let t = (best * (1.0 + 1e-12) + 1e-9).ceil() - 1.0;
    if t.is_finite() {
        t.max(0.0)
    } else {
        f64::INFINITY
    }
}

/// Sum and Euclidean norm of non-negative masses.
fn norms(a: &[f64]) -> (f64, f64) {
    let mut s = 0.0;
    let mut q = 0.0;
    for &x in a {
        s += x;
        q += x * x;
    }
    // Relative error of the float sums (<= len * u), generously absorbed.
    let grow = 1.0 + (a.len() as f64 + 2.0) * U;
    (s * grow, (q * grow).sqrt() * (1.0 + U))
}

/// The convolution of two non-negative vectors with an l1 error bound of the result against the
/// exact convolution of the same inputs. Negative outputs are clamped to 0.
fn convolve(a: &[f64], b: &[f64]) -> (Vec<f64>, f64) {
    let (na, nb) = (a.len(), b.len());
    let (l1a, l2a) = norms(a);
    let (l1b, l2b) = if std::ptr::eq(a, b) {
        (l1a, l2a)
    } else {
        norms(b)
    };
    if na.min(nb) <= DIRECT_SHORT || na.saturating_mul(nb) <= DIRECT_PRODUCT {
        let (short, long) = if na <= nb { (a, b) } else { (b, a) };
        let mut out = vec![0.0f64; na + nb - 1];
        for (i, &x) in short.iter().enumerate() {
            if x == 0.0 {
                continue;
            }
            for (o, &y) in out[i..].iter_mut().zip(long) {
                *o += x * y;
            }
        }
        // Each output is a sum of at most min(na, nb) non-negative products.
        let m = na.min(nb) as f64;
        let err = (m + 2.0) * U * 1.01 * l1a * l1b;
        return (out, err);
    }
    let len = na + nb - 1;
    let size = fft_size(len);
    let square = std::ptr::eq(a, b) || a == b;
    let (r2c, c2r) = PLANNER.with(|p| {
        let mut p = p.borrow_mut();
        (p.plan_fft_forward(size), p.plan_fft_inverse(size))
    });
    let mut scratch = r2c.make_scratch_vec();
    if c2r.get_scratch_len() > scratch.len() {
        scratch.resize(c2r.get_scratch_len(), Complex::new(0.0, 0.0));
    }
    // The forward transform of `x` and its input buffer (left as scratch, reused for the output).
    let forward = |x: &[f64], scratch: &mut Vec<Complex<f64>>| {
        let mut input = vec![0.0f64; size];
        input[..x.len()].copy_from_slice(x);
        let mut spec = r2c.make_output_vec();
        r2c.process_with_scratch(&mut input, &mut spec, scratch)
            .expect("sizes from the plan");
        (spec, input)
    };
    let scale = 1.0 / size as f64;
    let mut fa;
    let mut out;
    if square {
        (fa, out) = forward(a, &mut scratch);
        for z in fa.iter_mut() {
            *z = *z * *z * scale;
        }
    } else {
        // The two forward transforms are independent: computed in parallel (same values).
        let fb;
        ((fa, out), (fb, _)) = rayon::join(
            || forward(a, &mut scratch),
            || forward(b, &mut r2c.make_scratch_vec()),
        );
        for (z, w) in fa.iter_mut().zip(&fb) {
            *z = *z * *w * scale;
        }
    }
    // The spectrum of a real sequence has real first and last bins.
    fa[0].im = 0.0;
    let last = fa.len() - 1;
    fa[last].im = 0.0;
    c2r.process_with_scratch(&mut fa, &mut out, &mut scratch)
        .expect("sizes from the plan");
    out.truncate(len);
    for x in out.iter_mut() {
        if *x < 0.0 {
            *x = 0.0;
        }
    }
    let t = levels(size);
    let l2_err = FFT_C * (t + 2.0) * U * (l2a * l1b + l1a * l2b);
    let err = (len as f64).sqrt() * l2_err;
    (out, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact hockey-stick curve of a finite list of (loss, P-mass) atoms plus an inf mass.
    fn atoms_delta(atoms: &[(f64, f64)], inf: f64, eps: f64) -> f64 {
        atoms
            .iter()
            .map(|&(l, p)| {
                if l > eps {
                    p * -(eps - l).exp_m1()
                } else {
                    0.0
                }
            })
            .sum::<f64>()
            + inf
    }

    /// Randomized response with parameter `m * h` as a connect-the-dots PLD.
    fn rr(m: i64, h: f64) -> Pld {
        let eps = m as f64 * h;
        let p = eps.exp() / (1.0 + eps.exp());
        let atoms = [(eps, p), (-eps, 1.0 - p)];
        let deltas: Vec<f64> = (-m..=m)
            .map(|i| atoms_delta(&atoms, 0.0, i as f64 * h) * (1.0 + 1e-13) + 1e-17)
            .map(|d: f64| d.min(1.0))
            .collect();
        Pld::from_delta_grid(h, -m, &deltas).unwrap()
    }

    fn std_normal_cdf(x: f64) -> f64 {
        0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
    }

    /// Exact Gaussian delta with mu = sensitivity / sigma (Balle and Wang 2018, Theorem 8).
    fn gauss_delta(mu: f64, eps: f64) -> f64 {
        std_normal_cdf(-eps / mu + mu / 2.0) - eps.exp() * std_normal_cdf(-eps / mu - mu / 2.0)
    }

    fn gaussian(mu: f64, h: f64) -> Pld {
        let lo = ((mu * mu / 2.0 - 9.0 * mu) / h).floor() as i64;
        let hi = ((mu * mu / 2.0 + 9.0 * mu) / h).ceil() as i64;
        let deltas: Vec<f64> = (lo..=hi)
            .map(|i| {
                let eps = i as f64 * h;
                let a = std_normal_cdf(-eps / mu + mu / 2.0);
                let b = eps.exp() * std_normal_cdf(-eps / mu - mu / 2.0);
                ((a - b) + 1e-12 * (a + b) + 1e-300).clamp(0.0, 1.0)
            })
            .collect();
        Pld::from_delta_grid(h, lo, &deltas).unwrap()
    }

    #[test]
    fn accounting_rr_masses_are_recovered() {
        let h = 1e-3;
        let p = rr(500, h);
        let e: f64 = 0.5f64.exp();
        assert_eq!(p.lo(), -500);
        assert_eq!(p.masses().len(), 1001);
        assert!((p.masses()[1000] - e / (1.0 + e)).abs() < 1e-9);
        assert!((p.masses()[0] - 1.0 / (1.0 + e)).abs() < 1e-9);
        let middle: f64 = p.masses()[1..1000].iter().sum();
        assert!(middle < 1e-9, "{middle}");
        assert!(p.err() < 1e-9 && p.err() > 0.0);
    }

    #[test]
    fn accounting_two_rr_compose_to_two_fold_rr() {
        let h = 1e-3;
        let a = rr(500, h);
        let c = a.compose(&a, 0.0).unwrap();
        let e: f64 = 0.5f64.exp();
        let p = e / (1.0 + e);
        let exact = [
            (1.0, p * p),
            (0.0, 2.0 * p * (1.0 - p)),
            (-1.0, (1.0 - p) * (1.0 - p)),
        ];
        for (l, m) in exact {
            let i = ((l / h).round() as i64 - c.lo()) as usize;
            assert!(
                (c.masses()[i] - m).abs() < 1e-8,
                "{l}: {} vs {m}",
                c.masses()[i]
            );
        }
        for eps in [0.0, 0.2, 0.5, 0.9, 0.99] {
            let exact_d = atoms_delta(&exact, 0.0, eps);
            let d = c.delta(eps);
            assert!(
                d >= exact_d && d <= exact_d + 1e-8,
                "{eps}: {d} vs {exact_d}"
            );
        }
    }

    #[test]
    fn accounting_gaussian_never_below_exact() {
        for &mu in &[0.3, 1.0, 2.0] {
            let h = 1e-3;
            let g = gaussian(mu, h);
            for k in [1u64, 3, 16] {
                let gk = g.self_compose(k, DEFAULT_TAIL).unwrap();
                let muk = mu * (k as f64).sqrt();
                for i in 0..60 {
                    let eps = i as f64 * 0.1 * muk;
                    let exact = gauss_delta(muk, eps);
                    let d = gk.delta(eps);
                    assert!(d >= exact, "mu {mu} k {k} eps {eps}: {d} < {exact}");
                    // Tight: within a few discretisation steps' worth.
                    assert!(
                        d <= exact + 2e-3 * muk + 1e-9,
                        "mu {mu} k {k} eps {eps}: {d} vs {exact}"
                    );
                }
            }
        }
    }

    #[test]
    fn accounting_epsilon_inverts_delta() {
        let g = gaussian(1.0, 1e-3).self_compose(10, DEFAULT_TAIL).unwrap();
        for &target in &[1e-1, 1e-3, 1e-6, 1e-9] {
            let eps = g.epsilon(target).unwrap();
            assert!(g.delta(eps) <= target);
            assert!(g.delta(eps * (1.0 - 1e-6) - 1e-9) > target || eps == 0.0);
            let exact = gauss_delta(10f64.sqrt(), eps);
            assert!(exact <= target);
        }
        assert_eq!(g.epsilon(0.999).unwrap(), 0.0);
        assert!(g.epsilon(f64::NAN).is_err());
        assert!(g.epsilon(0.0).is_err());
    }

    #[test]
    fn accounting_self_compose_matches_repeated_composition() {
        let g = gaussian(0.5, 1e-3);
        let k = 7;
        let sq = g.self_compose(k, DEFAULT_TAIL).unwrap();
        let mut seq = g.clone();
        for _ in 1..k {
            seq = seq.compose(&g, DEFAULT_TAIL).unwrap();
        }
        let tol = sq.err() + seq.err() + 1e-13;
        for i in 0..50 {
            let eps = i as f64 * 0.1;
            assert!(
                (sq.delta(eps) - seq.delta(eps)).abs() <= tol + 1e-12,
                "{eps}"
            );
        }
    }

    #[test]
    fn accounting_composition_is_associative_within_err() {
        let h = 1e-3;
        let a = gaussian(0.7, h);
        let b = rr(300, h);
        let c = gaussian(1.3, h);
        let l = a
            .compose(&b, DEFAULT_TAIL)
            .unwrap()
            .compose(&c, DEFAULT_TAIL)
            .unwrap();
        let r = a
            .compose(&b.compose(&c, DEFAULT_TAIL).unwrap(), DEFAULT_TAIL)
            .unwrap();
        let all = Pld::compose_all(&[a, b, c], DEFAULT_TAIL).unwrap();
        for i in 0..60 {
            let eps = i as f64 * 0.1;
            let tol = l.err() + r.err() + 1e-12;
            assert!((l.delta(eps) - r.delta(eps)).abs() <= tol, "{eps}");
            assert!(
                (l.delta(eps) - all.delta(eps)).abs() <= tol + all.err(),
                "{eps}"
            );
        }
    }

    #[test]
    fn accounting_delta_is_monotone_in_k() {
        let g = gaussian(0.4, 1e-3);
        let mut prev = g.clone();
        for _ in 0..5 {
            let next = prev.compose(&g, DEFAULT_TAIL).unwrap();
            for i in 0..40 {
                let eps = i as f64 * 0.1;
                assert!(next.delta(eps) >= prev.delta(eps) - prev.err() - next.err());
            }
            prev = next;
        }
    }

    #[test]
    fn accounting_truncation_moves_mass_to_the_safe_side() {
        let raw = |p: &Pld, eps: f64| {
            let atoms: Vec<(f64, f64)> = (0..p.masses().len())
                .map(|i| (p.loss(i), p.masses()[i]))
                .collect();
            atoms_delta(&atoms, p.inf_mass(), eps)
        };
        let mut p =
            Pld::from_parts(0.5, -2, vec![1e-16, 0.3, 0.4, 0.3 - 2e-16, 1e-16], 0.0, 0.0).unwrap();
        let before: Vec<f64> = (0..12).map(|i| raw(&p, i as f64 * 0.25 - 1.5)).collect();
        p.truncate(1e-15);
        assert_eq!(p.lo(), -1);
        assert_eq!(p.masses().len(), 3);
        assert_eq!(p.inf_mass(), 1e-16);
        assert_eq!(p.masses()[0], 0.3 + 1e-16);
        for (i, b) in before.iter().enumerate() {
            assert!(raw(&p, i as f64 * 0.25 - 1.5) >= *b, "{i}");
        }
    }

    #[test]
    fn accounting_bad_input_is_refused() {
        assert!(Pld::from_delta_grid(0.0, 0, &[0.5]).is_err());
        assert!(Pld::from_delta_grid(f64::NAN, 0, &[0.5]).is_err());
        assert!(Pld::from_delta_grid(1e-3, 0, &[]).is_err());
        assert!(Pld::from_delta_grid(1e-3, 0, &[0.5, f64::NAN]).is_err());
        assert!(Pld::from_delta_grid(1e-3, 0, &[0.5, 1.5]).is_err());
        assert!(Pld::from_delta_grid(1e-3, 1 << 50, &[0.5]).is_err());
        // A curve that is flat, then drops at once, is not convex with delta(0) = 1.
        assert!(Pld::from_delta_grid(1e-3, 0, &[0.5, 0.5, 0.0]).is_err());
        assert!(Pld::from_parts(1e-3, 0, vec![0.6, 0.6], 0.0, 0.0).is_err());
        assert!(Pld::from_parts(1e-3, 0, vec![-0.1], 0.0, 0.0).is_err());
        let a = rr(10, 1e-3);
        let b = rr(10, 2e-3);
        assert!(a.compose(&b, DEFAULT_TAIL).is_err());
        assert!(a.compose(&a, f64::NAN).is_err());
        assert!(a.self_compose(0, DEFAULT_TAIL).is_err());
        assert!(Pld::compose_all(&[], DEFAULT_TAIL).is_err());
    }

    #[test]
    fn accounting_fft_and_direct_convolution_agree() {
        let a: Vec<f64> = (0..3000)
            .map(|i| ((i as f64) * 0.37).sin().abs() / 3000.0)
            .collect();
        let b: Vec<f64> = (0..2000)
            .map(|i| ((i as f64) * 0.11).cos().abs() / 2000.0)
            .collect();
        let (fast, err) = convolve(&a, &b);
        let mut direct = vec![0.0; a.len() + b.len() - 1];
        for (i, x) in a.iter().enumerate() {
            for (j, y) in b.iter().enumerate() {
                direct[i + j] += x * y;
            }
        }
        let l1: f64 = fast.iter().zip(&direct).map(|(x, y)| (x - y).abs()).sum();
        assert!(l1 <= err, "{l1} > {err}");
        assert!(err < 1e-9);
    }

    // ---- Issue 18, mutation survivors of the PLD core (rust-accounting sample 1/40) ----

    /// The unit roundoff of binary64, written independently of the module.
    const UNIT_ROUNDOFF: f64 = 1.0 / 9_007_199_254_740_992.0; // 2^-53

    /// Direct O(n m) convolution, skipping zero masses (the reference for the FFT paths).
    fn direct_convolution(a: &[f64], b: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0f64; a.len() + b.len() - 1];
        for (i, &x) in a.iter().enumerate() {
            if x == 0.0 {
                continue;
            }
            for (j, &y) in b.iter().enumerate() {
                out[i + j] += x * y;
            }
        }
        out
    }

    /// The k-fold of the stored masses by repeated direct convolution, as (loss, mass) atoms.
    fn direct_k_fold(p: &Pld, k: u64) -> Vec<(f64, f64)> {
        let mut m = p.masses().to_vec();
        for _ in 1..k {
            m = direct_convolution(&m, p.masses());
        }
        let lo = p.lo() * k as i64;
        m.iter()
            .enumerate()
            .map(|(i, &x)| ((lo + i as i64) as f64 * p.h(), x))
            .collect()
    }

    #[test]
    fn accounting_unit_roundoff_is_two_to_the_minus_53() {
        assert_eq!(U, UNIT_ROUNDOFF);
        assert_eq!(1.0 + 2.0 * U, 1.0 + f64::EPSILON);
        assert_eq!(1.0 + U, 1.0); // ties to even: u is half an ulp of 1
    }

    #[test]
    fn accounting_connect_the_dots_masses_sum_to_one_despite_tiny_atoms() {
        // Atoms: loss 0 (the rest), loss h: 0.5, and 2000 atoms of 1e-17 at 2h..2001h, each
        // below half an ulp of 0.5: a plain running sum of the masses would lose all of them.
        let h = 0.5;
        let n = 2001usize;
        let mut atoms: Vec<(f64, f64)> = vec![(h, 0.5)];
        atoms.extend((2..=n).map(|i| (i as f64 * h, 1e-17)));
        let excess: Vec<f64> = (0..=n)
            .map(|j| {
                let eps = j as f64 * h;
                // sum from the top (the small terms first)
                atoms
                    .iter()
                    .rev()
                    .filter(|&&(l, _)| l > eps)
                    .map(|&(l, p)| p * -(eps - l).exp_m1())
                    .sum::<f64>()
            })
            .collect();
        let p = Pld::from_excess_grid(h, 0, &excess).unwrap();
        assert_eq!(p.lo(), 0);
        let m = p.masses();
        assert_eq!(m.len(), n + 1);
        let tiny: f64 = m[2..].iter().rev().sum();
        assert!((tiny - 2e-14).abs() < 1e-20, "{tiny}");
        assert!((m[1] - 0.5).abs() < 1e-15, "{}", m[1]);
        // Total mass 1 to rounding: the lowest atom gives up exactly what the tiny ones hold.
        let total = ((tiny + p.inf_mass()) + m[1]) + m[0];
        assert!((total - 1.0).abs() <= 4.0 * UNIT_ROUNDOFF, "{total}");
    }

    #[test]
    fn accounting_connect_the_dots_tolerates_a_lowest_mass_deficit_of_exactly_1e_9() {
        // h = 1, lo = 0, excess = (e, e, 0): the chain of the convex hull gives g_1 = e^-1 g_2
        // and the lowest mass 1 - e / c with c = 1 - e^-1. Aim the deficit at the documented
        // tolerance 1e-9 (accepted, moved off the lowest atoms) and just beyond it (refused).
        let c = -(-1.0f64).exp_m1();
        for (extra, ok) in [
            (1e-9, true),
            (0.99e-9, true),
            (1.01e-9, false),
            (2e-9, false),
        ] {
            let e = c * (1.0 + extra);
            let r = Pld::from_excess_grid(1.0, 0, &[e, e, 0.0]);
            assert_eq!(r.is_ok(), ok, "deficit {extra}: {r:?}");
            if let Ok(p) = r {
                let total: f64 = p.masses().iter().sum::<f64>() + p.inf_mass();
                assert!(total <= 1.0 + 4.0 * UNIT_ROUNDOFF, "{total}");
                assert!(p.masses().iter().all(|&m| m >= 0.0));
                // the removed mass (1e-9 from the atom at loss 1 or 2) lowers the curve below
                // e^eps = x_j by at most 1e-9 (1 - e^-j): the error bound covers it
                assert!(p.err() >= 3.0 * extra * c * (1.0 - 1e-6), "{}", p.err());
            }
        }
    }

    #[test]
    fn accounting_truncation_adds_only_rounding_level_error() {
        let masses = vec![1e-16, 0.3, 0.4, 0.3 - 2e-16, 1e-16];
        let mut p = Pld::from_parts(0.5, -2, masses.clone(), 0.0, 0.0).unwrap();
        let moved = p.truncate(1e-15);
        // Both tails (1e-16 each) were moved: to the lowest kept atom and to +inf.
        assert_eq!(p.inf_mass(), 1e-16);
        // The returned bound covers the two float sums over at most len + 2 terms only; the
        // moved mass itself is not an error (it sits on the safe side, exactly).
        assert!(moved > 0.0);
        assert!(
            moved <= 2.0 * (masses.len() as f64 + 2.0) * UNIT_ROUNDOFF * 2e-16,
            "{moved}"
        );
        // Through compose: truncating 1e-10 per side adds no 1e-10 to err.
        let g = gaussian(1.0, 1e-2);
        let c = g.compose(&g, 1e-10).unwrap();
        let untruncated = g.compose(&g, 0.0).unwrap();
        assert!(c.masses().len() < untruncated.masses().len());
        assert!(
            c.err() <= untruncated.err() * (1.0 + 1e-9) + 1e-20,
            "{} {}",
            c.err(),
            untruncated.err()
        );
    }

    #[test]
    fn accounting_compose_error_bound_covers_the_inf_mass_rounding() {
        // a: ten atoms of 0.05 and +inf mass 0.5; b: a point mass at 0. The composition's +inf
        // mass is 0.5; its float error (the sums of a's finite masses, the products) is bounded by
        // 4u inf + (len_a + 4) u inf_a (pld.rs, Pld::compose), on top of the convolution's.
        let a = Pld::from_parts(0.1, 0, vec![0.05; 10], 0.5, 0.0).unwrap();
        let b = Pld::from_parts(0.1, 0, vec![1.0], 0.0, 0.0).unwrap();
        let c = a.compose(&b, 0.0).unwrap();
        assert_eq!(c.inf_mass(), 0.5);
        let conv = 3.0 * 1.01 * UNIT_ROUNDOFF * 0.5; // direct product: (1 + 2) u 1.01 |a|_1 |b|_1
        let inf_part = 4.0 * UNIT_ROUNDOFF * 0.5 + (10.0 + 4.0) * UNIT_ROUNDOFF * 0.5;
        assert!(
            c.err() >= conv + inf_part,
            "{} < {}",
            c.err(),
            conv + inf_part
        );
        assert!(c.err() <= 2.0 * (conv + inf_part), "{}", c.err());
    }

    #[test]
    fn accounting_power_fft_of_a_point_mass_covers_the_fft_bound() {
        // No privacy loss (P = Q): a point mass at 0; its k-fold is the same point mass. One atom
        // gives a 2-point FFT (one butterfly level, t = 1): each bin is within
        // eps_A = FFT_C (t + 2) u |a|_1 of the exact one and its k-th power within k eps_A
        // (pld.rs, Pld::power_fft), which err must cover.
        let p = Pld::from_parts(1e-3, 0, vec![1.0], 0.0, 0.0).unwrap();
        for k in [2u64, 5, 40] {
            let q = p.power_fft(k, DEFAULT_TAIL).expect("a one-atom window");
            assert_eq!(q.lo(), 0);
            assert_eq!(q.masses().len(), 1);
            assert!((q.masses()[0] - 1.0).abs() < 1e-12);
            assert_eq!(q.inf_mass(), 0.0);
            let eps_a = FFT_C * (1.0 + 2.0) * UNIT_ROUNDOFF;
            assert!(q.err() >= k as f64 * eps_a, "k {k}: {}", q.err());
            assert!(q.err() < 1e-12);
            assert!(q.delta(0.0) >= q.err() && q.delta(0.0) < 1e-12);
        }
    }

    #[test]
    fn accounting_power_fft_agrees_with_repeated_direct_convolution() {
        // A Gaussian (mu = 1, h = 0.01), without and with a +inf mass q: the one-FFT k-fold is
        // never below the k-fold of the stored masses by direct convolution, and above it by at
        // most its error bound (plus the truncated tails).
        let g = gaussian(1.0, 1e-2);
        for q in [0.0, 0.01] {
            let masses: Vec<f64> = g.masses().iter().map(|&m| m * (1.0 - q)).collect();
            let p = Pld::from_parts(g.h(), g.lo(), masses, q, g.err()).unwrap();
            for k in [2u64, 4] {
                let f = p
                    .power_fft(k, DEFAULT_TAIL)
                    .expect("the one-FFT window is accepted");
                let atoms = direct_k_fold(&p, k);
                let inf = 1.0 - (1.0 - q).powi(k as i32);
                assert!((f.inf_mass() - inf).abs() < 1e-12, "{} {inf}", f.inf_mass());
                assert!(f.err() < 1e-10, "q {q} k {k}: err {}", f.err());
                for i in 0..100 {
                    let eps = i as f64 * 0.08;
                    let exact = atoms_delta(&atoms, inf, eps);
                    let d = f.delta(eps);
                    assert!(d >= exact, "q {q} k {k} eps {eps}: {d} < {exact}");
                    assert!(
                        d <= exact + 2.0 * f.err() + 4.0 * DEFAULT_TAIL + 1e-14,
                        "q {q} k {k} eps {eps}: {d} vs {exact}"
                    );
                }
            }
        }
    }

    #[test]
    fn accounting_power_fft_folds_a_wide_support_onto_a_short_window() {
        // A bulk of 101 atoms in the middle of 4001, and 1e-200 on the two far atoms: the
        // Chernoff window of the 2-fold is far shorter than the support, so the masses are
        // folded onto it; the result stays tight and agrees with the direct 2-fold.
        let mut masses = vec![0.0f64; 4001];
        masses[0] = 1e-200;
        masses[4000] = 1e-200;
        let bulk: Vec<f64> = (0..101)
            .map(|i| {
                let x = (i as f64 - 50.0) / 15.0;
                (-0.5 * x * x).exp()
            })
            .collect();
        let s: f64 = bulk.iter().sum();
        for (i, b) in bulk.iter().enumerate() {
            masses[1950 + i] = b / s * (1.0 - 1e-12);
        }
        let p = Pld::from_parts(1e-2, -2000, masses, 0.0, 0.0).unwrap();
        let f = p
            .power_fft(2, DEFAULT_TAIL)
            .expect("the folded window is accepted");
        assert!(f.masses().len() < 1000, "{}", f.masses().len());
        assert!(f.err() < 1e-12, "{}", f.err());
        let atoms = direct_k_fold(&p, 2);
        for i in 0..40 {
            let eps = i as f64 * 0.05;
            let exact = atoms_delta(&atoms, 0.0, eps);
            let d = f.delta(eps);
            assert!(d >= exact && d <= exact + 2.0 * f.err() + 4.0 * DEFAULT_TAIL + 1e-14);
        }
    }

    // ---- Issue 18: accurate spectral bins of the k-fold (power_fft) ----

    /// Test-local double-double helpers (independent of the module's).
    fn t_two_sum(a: f64, b: f64) -> (f64, f64) {
        let s = a + b;
        let v = s - a;
        (s, (a - (s - v)) + (b - v))
    }

    fn t_add(x: (f64, f64), y: (f64, f64)) -> (f64, f64) {
        let (s, e) = t_two_sum(x.0, y.0);
        let e = e + x.1 + y.1;
        t_two_sum(s, e)
    }

    fn t_mul(x: (f64, f64), y: (f64, f64)) -> (f64, f64) {
        let p = x.0 * y.0;
        let e = x.0.mul_add(y.0, -p) + (x.0 * y.1 + x.1 * y.0);
        t_two_sum(p, e)
    }

    fn t_div_f64(x: (f64, f64), d: f64) -> (f64, f64) {
        let q1 = x.0 / d;
        let p = q1 * d;
        let pe = q1.mul_add(d, -p);
        let rem = ((x.0 - p) - pe) + x.1;
        t_two_sum(q1, rem / d)
    }

    /// cos and sin of `2 pi r / n` in double-double: the angle reduced to `[-pi, pi]` in
    /// integers, then Taylor series (60 terms, remainder below 1e-40).
    fn t_twiddle(r: u64, n: u64) -> ((f64, f64), (f64, f64)) {
        const TWO_PI: (f64, f64) = (std::f64::consts::TAU, 2.4492935982947064e-16);
        let r = r % n;
        let signed = if 2 * r > n {
            r as f64 - n as f64
        } else {
            r as f64
        };
        let theta = t_div_f64(t_mul(TWO_PI, (signed, 0.0)), n as f64);
        let (mut c, mut s) = ((0.0, 0.0), (0.0, 0.0));
        let mut term = (1.0, 0.0); // theta^i / i!
        for i in 0..60u32 {
            match i % 4 {
                0 => c = t_add(c, term),
                1 => s = t_add(s, term),
                2 => c = t_add(c, (-term.0, -term.1)),
                _ => s = t_add(s, (-term.0, -term.1)),
            }
            term = t_div_f64(t_mul(term, theta), (i + 1) as f64);
        }
        (c, s)
    }

    #[test]
    fn accounting_direct_bins_agree_with_a_double_double_dft_within_their_bound() {
        // Bins of the DFT of 3000 masses on sizes 4096 and 3072 (a fold of the input), at the
        // octant edges and across all octants: each within direct_bin_error (about 7.1 u |a|_1)
        // of the DFT computed in double-double with Taylor twiddles, while the FFT's own bins
        // may be off by far more.
        let a: Vec<f64> = (0..3000)
            .map(|i| {
                let x = (i as f64 - 1400.0) / 300.0;
                (-0.5 * x * x).exp() / 752.0 + 1e-9 * ((i * 7) % 13) as f64
            })
            .collect();
        let l1: f64 = a.iter().sum();
        for size in [4096usize, 3072, 8] {
            let q = size / 8;
            let tab = octant_twiddles(size);
            let bound = direct_bin_error(a.len(), l1 * (1.0 + 1e-12));
            assert!(bound < 8.0 * UNIT_ROUNDOFF * l1, "{bound}");
            let bins = [
                0,
                1,
                2,
                3,
                7,
                q - 1,
                q,
                q + 1,
                3 * q + 5,
                size / 2 - 1,
                size / 2,
            ];
            // All bins in one call: groups of four and a partial group.
            let bins: Vec<usize> = bins.into_iter().filter(|&j| j <= size / 2).collect();
            let zs = direct_bins(&a, &bins, size, &tab);
            assert_eq!(zs.len(), bins.len());
            for (&j, z) in bins.iter().zip(zs) {
                let (mut re, mut im) = ((0.0, 0.0), (0.0, 0.0));
                for (i, &x) in a.iter().enumerate() {
                    let (c, s) = t_twiddle((i as u64) * (j as u64), size as u64);
                    re = t_add(re, t_mul((x, 0.0), c));
                    im = t_add(im, t_mul((-x, 0.0), s));
                }
                let dre = t_add((z.re.0, z.re.1), (-re.0, -re.1)).0;
                let dim = t_add((z.im.0, z.im.1), (-im.0, -im.1)).0;
                let diff = dre.hypot(dim);
                assert!(diff <= bound, "size {size} bin {j}: {diff:e} > {bound:e}");
            }
        }
    }

    #[test]
    fn accounting_direct_bins_runs_match_the_per_input_octant_walk() {
        // A group of bins all below size/8 takes the run path (octants fixed per run); a group
        // with a bin >= size/8 walks the octants per input. Both must give the same bits.
        let a: Vec<f64> = (0..5000)
            .map(|i| ((i * 37) % 101) as f64 / 101.0 * 1e-3 + 1e-7)
            .collect();
        for size in [4096usize, 3072] {
            let q = size / 8;
            let tab = octant_twiddles(size);
            let low = [q - 1, 7, q / 2 + 3, 1, 0, q - 2];
            let runs = direct_bins(&a, &low, size, &tab);
            for (&j, z) in low.iter().zip(&runs) {
                let walk = direct_bins(&a, &[j, q, q + 1, 3 * q], size, &tab);
                assert_eq!((walk[0].re.0, walk[0].re.1), (z.re.0, z.re.1), "bin {j}");
                assert_eq!((walk[0].im.0, walk[0].im.1), (z.im.0, z.im.1), "bin {j}");
            }
        }
    }

    #[test]
    fn accounting_complex_double_double_power_is_accurate() {
        // z^k for |z| near 1 by cdd_pow against the same power by k repeated double-double
        // multiplications in the test's own arithmetic (k = 3000: relative error below ~1e-27
        // for both), far below the u the power is rounded to.
        let z = Cdd {
            re: Dd(0.9999, 1.3e-21),
            im: Dd(0.0123, -4.1e-20),
        };
        let k = 3000u64;
        let p = cdd_pow(z, k);
        let (mut re, mut im) = ((1.0, 0.0), (0.0, 0.0));
        for _ in 0..k {
            let nre = t_add(t_mul(re, (z.re.0, z.re.1)), {
                let t = t_mul(im, (z.im.0, z.im.1));
                (-t.0, -t.1)
            });
            let nim = t_add(t_mul(re, (z.im.0, z.im.1)), t_mul(im, (z.re.0, z.re.1)));
            re = nre;
            im = nim;
        }
        let m = re.0.hypot(im.0);
        let diff = (p.re - re.0).hypot(p.im - im.0);
        assert!(diff <= 1.01 * UNIT_ROUNDOFF * m, "{diff:e} vs {m:e}");
    }

    /// The exact masses of the k-fold of (1/2, 1/4, 1/4) on offsets 0, 1, 2: the coefficients
    /// of (2 + x + x^2)^k / 4^k by J. C. P. Miller's recurrence in big integers
    /// (f_0 = 2^k, f_n = (sum_{j=1,2} (k j - n + j) g_j f_{n-j}) / (2 n), exact), each
    /// converted to f64 within a relative 2^-59.
    fn exact_trinomial_k_fold(k: u64) -> Vec<f64> {
        use num_bigint::BigInt;
        let deg = 2 * k as usize;
        let mut f: Vec<BigInt> = Vec::with_capacity(deg + 1);
        f.push(BigInt::from(1u8) << k as usize);
        for n in 1..=deg {
            let mut acc = BigInt::from(0u8);
            for j in 1..=2usize {
                if n >= j {
                    let c = (k as i64) * j as i64 - n as i64 + j as i64;
                    acc += &f[n - j] * BigInt::from(c); // g_1 = g_2 = 1
                }
            }
            let q = acc / BigInt::from(2 * n as u64);
            f.push(q);
        }
        f.iter()
            .map(|v| {
                let bits = v.bits() as i64;
                let shift = (bits - 60).max(0);
                let top: BigInt = v >> shift as usize;
                let (_, digits) = top.to_u64_digits();
                let top = digits.first().copied().unwrap_or(0) as f64;
                let e = shift - 2 * k as i64; // divide by 4^k
                if e < -1074 - 64 {
                    0.0
                } else {
                    top * 2f64.powi((e / 2) as i32) * 2f64.powi((e - e / 2) as i32)
                }
            })
            .collect()
    }

    #[test]
    fn accounting_power_fft_with_accurate_bins_covers_the_exact_k_fold() {
        // The 10^4-fold of (1/2, 1/4, 1/4) (exact in binary): the result is within err (plus
        // the truncated tails) of the exact k-fold in l1, never below it in delta, err covers
        // the new per-bin bound (k eps_D on the DC bin: a mutation dropping it fails) and stays
        // far below the bound with the FFT's own bins (k FFT_C (t + 2) u, t >= 3): about
        // 2.2 k eps_D here, the l2 sum over the ~20 bins with |A_j|^k not small.
        let k = 10_000u64;
        let p = Pld::from_parts(0.01, 0, vec![0.5, 0.25, 0.25], 0.0, 0.0).unwrap();
        let f = p.power_fft(k, DEFAULT_TAIL).expect("one-FFT window");
        let exact = exact_trinomial_k_fold(k);
        let lo = f.lo() as usize;
        let mut l1 = 0.0f64;
        for (i, &m) in f.masses().iter().enumerate() {
            l1 += (m - exact[lo + i]).abs();
        }
        let outside: f64 =
            exact[..lo].iter().sum::<f64>() + exact[lo + f.masses().len()..].iter().sum::<f64>();
        assert!(outside < 1e-15, "{outside:e}");
        assert!(l1 > 1e-15, "the error is measurable: {l1:e}");
        assert!(l1 <= f.err() + outside, "{l1:e} > {:e}", f.err());
        let eps_d = direct_bin_error(3, 1.0);
        let kf = k as f64;
        // The bins' bound alone is about 2.4 k eps_D here; without it err would be ~2e-12
        // (the inverse transform's term), below k eps_D = 7.9e-12.
        assert!(f.err() >= kf * eps_d, "{:e}", f.err());
        // With the FFT's bins the DC bin alone would give at least 0.3 k FFT_C (3 + 2) u.
        assert!(5.0 * kf * eps_d < 0.3 * kf * FFT_C * 5.0 * UNIT_ROUNDOFF);
        assert!(
            f.err() <= 5.0 * kf * eps_d,
            "accurate bins in use: {:e}",
            f.err()
        );
        eprintln!("trinomial 10^4-fold: l1 error {l1:e}, err {:e}", f.err());
        let atoms: Vec<(f64, f64)> = exact
            .iter()
            .enumerate()
            .map(|(i, &m)| (i as f64 * 0.01, m))
            .collect();
        for i in 0..60 {
            let eps = 30.0 + i as f64 * 0.5;
            let e = atoms_delta(&atoms, 0.0, eps) * (1.0 - 1e-14);
            assert!(f.delta(eps) >= e, "eps {eps}: {} < {e}", f.delta(eps));
        }
    }

    #[test]
    fn accounting_two_coarse_rr_compose_directly_to_the_exact_three_atoms() {
        // Randomized response with epsilon 0.5 on the grid h = 0.25 (5 atoms): short enough for
        // the direct convolution. Two of them compose to the exact 3-atom distribution
        // p^2 at 1, 2 p (1 - p) at 0, (1 - p)^2 at -1 (p = e^0.5 / (1 + e^0.5)).
        let h = 0.25;
        let a = rr(2, h);
        assert_eq!(a.masses().len(), 5);
        let c = a.compose(&a, 0.0).unwrap();
        let e: f64 = 0.5f64.exp();
        let p = e / (1.0 + e);
        let exact = [
            (1.0, p * p),
            (0.0, 2.0 * p * (1.0 - p)),
            (-1.0, (1.0 - p) * (1.0 - p)),
        ];
        assert_eq!(c.lo(), -4);
        assert_eq!(c.masses().len(), 9);
        for (i, &m) in c.masses().iter().enumerate() {
            let l = (c.lo() + i as i64) as f64 * h;
            let want = exact
                .iter()
                .find(|&&(x, _)| x == l)
                .map_or(0.0, |&(_, q)| q);
            assert!((m - want).abs() < 1e-12, "loss {l}: {m} vs {want}");
        }
        // (the helper's margin of 1e-17 on the inputs' deltas ends on +inf)
        assert!(c.inf_mass() < 1e-16, "{}", c.inf_mass());
        assert!(c.err() < 1e-12);
        for i in 0..12 {
            let eps = i as f64 * 0.1;
            let exact_d = atoms_delta(&exact, 0.0, eps);
            let d = c.delta(eps);
            assert!(
                d >= exact_d && d <= exact_d + 1e-12,
                "{eps}: {d} vs {exact_d}"
            );
        }
    }
}

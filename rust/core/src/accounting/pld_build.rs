//! Constructors of the [`Pld`]s of common mechanisms, computed entirely in Rust (no per-grid-point
//! work in Python), for composing many mechanisms with distinct parameters quickly.
//!
//! * [`randomized_response`]: k-ary randomized response, pure DP (`k = 2`) and approximate DP
//!   (`k = 2` with a mass on `+inf`) from their finitely many atoms, each atom split between its
//!   two neighbouring grid points in closed form (connect-the-dots).
//! * [`laplace`] and [`laplace_many`]: the Laplace mechanism, its hockey-stick curve evaluated on
//!   the grid with a relative margin and handed to [`Pld::from_excess_grid`] (the same formula,
//!   margins and grid as `privlearn.accounting._pld`'s numpy evaluation); the batch builds many on
//!   all cores.
//!
//! All of them are symmetric dominating pairs (one PLD serves both orders) and hold for whichever
//! neighbouring relation the caller's parameters are for (the relation is recorded in Python).

use rayon::prelude::*;

use super::pld::Pld;
use crate::error::{Error, Result};

/// The unit roundoff of `f64`, `2^-53`.
const U: f64 = f64::EPSILON / 2.0;

/// Relative margin added to each grid value of a closed-form curve (as `_pld._REL` in Python).
const REL: f64 = 1e-12;

/// Largest absolute privacy loss handled (`e^700` is finite; as `_pld._MAX_LOSS`).
const MAX_LOSS: f64 = 700.0;

/// Largest number of grid points of one constructor (as `_pld._MAX_POINTS`).
const MAX_POINTS: i64 = 50_000_000;

fn check_h(h: f64) -> Result<()> {
    // A normal h: the residual `l - i h` of an atom is then exact or non-zero (no underflow).
    if h.is_finite() && (f64::MIN_POSITIVE..=1.0).contains(&h) {
        Ok(())
    } else {
        Err(Error::invalid(
            "value_discretization",
            format!("must be a finite number in (0, 1] (and not subnormal), got {h}"),
        ))
    }
}

fn check_loss(value: f64, name: &'static str) -> Result<()> {
    if value.is_finite() && value > 0.0 && value <= MAX_LOSS {
        Ok(())
    } else {
        Err(Error::invalid(
            name,
            format!("must be a finite number in (0, {MAX_LOSS}], got {value}"),
        ))
    }
}

/// Grid indices `lo..=hi` covering `[lo_loss, hi_loss]` (as `_pld._grid`).
fn grid(lo_loss: f64, hi_loss: f64, h: f64) -> Result<(i64, i64)> {
    let lo = (lo_loss / h).floor();
    let hi = (hi_loss / h).ceil().max(lo);
    if hi - lo + 1.0 > MAX_POINTS as f64 {
        return Err(Error::invalid(
            "value_discretization",
            format!(
                "{h} would need {} grid points for these parameters (at most {MAX_POINTS}); use a \
                 coarser discretisation",
                hi - lo + 1.0
            ),
        ));
    }
    Ok((lo as i64, hi as i64))
}

/// The grid cell of the real loss `l`: `(i, a)` with `i h <= l < (i + 1) h` and `a` the float
/// nearest to the residual `l - i h >= 0` (one rounding by `mul_add`, so `a == 0` exactly when
/// `l` is the grid point `i h`: with `h` normal the exact residual is a multiple of a power of two
/// at least `2^-1074` and cannot round to zero).
fn cell(l: f64, h: f64) -> (i64, f64) {
    let mut i = (l / h).floor() as i64;
    let residual = |i: i64| (-(i as f64)).mul_add(h, l);
    while residual(i) < 0.0 {
        i -= 1;
    }
    while residual(i + 1) >= 0.0 {
        i += 1;
    }
    (i, residual(i))
}

/// k-ary randomized response as a PLD: the true value reported with probability
/// `e^eps / (e^eps + k - 1)`, each other value with `1 / (e^eps + k - 1)` (Kairouz, Bonawitz and
/// Ramage, ICML 2016; Warner 1965 for `k = 2`), with a further mass `inf_mass` on `+inf` and the
/// rest scaled by `1 - inf_mass`. For `k = 2` this is the dominating pair of every `eps`-DP
/// mechanism (`inf_mass = 0`) and of every `(eps, inf_mass)`-DP mechanism (Kairouz, Oh and
/// Viswanath, ICML 2015, Theorem 2.1).
///
/// The pair `P = (e^eps, 1, 1, ...) / Z`, `Q = (1, e^eps, 1, ...) / Z` has the atoms `eps` (P-mass
/// `e^eps / Z`), `-eps` (`1 / Z`) and `0` (`(k - 2) / Z`). **Connect-the-dots in closed form**
/// (Doroshenko, Ghazi, Kamath, Kumar and Manurangsi, PETS 2022, Section 3): an atom of P-mass `p`
/// at `l = i h + a`, `0 < a < h`, is split into `p (1 - e^{-a}) / (1 - e^{-h})` at `(i + 1) h` and
/// the rest at `i h`, which keeps both its P-mass and its Q-mass `p e^{-l}`; the refined pair's
/// hockey-stick curve is at least the original one at every `eps` (`(x)_+ + (y)_+ >= (x + y)_+`),
/// and it is the piecewise-linear interpolation in `e^eps` of the curve at the grid points, the
/// PLD that `Pld::from_delta_grid` builds from exact grid values. An atom on a grid point stays.
///
/// Float error: `Z`, the masses and the split fractions are a few roundings each (glibc's `exp`
/// and `expm1` within one ulp, the residual `a` within `u`, which moves `1 - e^{-a}` by at most a
/// relative `u`), below `16 u` relative per stored mass; `err` is `64 u` (the masses sum to at
/// most 1), an upper bound of the l1 distance to the exact split of the exact atoms.
///
/// # Errors
/// [`Error::InvalidParameter`] if `h` is not a normal float in `(0, 1]`, `eps` not in
/// `(0, 700]`, `k < 2`, `inf_mass` not in `[0, 1)`, or the grid would exceed 5e7 points.
pub fn randomized_response(h: f64, eps: f64, k: u64, inf_mass: f64) -> Result<Pld> {
    check_h(h)?;
    check_loss(eps, "epsilon")?;
    if k < 2 {
        return Err(Error::invalid("k", format!("must be at least 2, got {k}")));
    }
    if !(inf_mass.is_finite() && (0.0..1.0).contains(&inf_mass)) {
        return Err(Error::invalid(
            "delta",
            format!("must be a finite number in [0, 1), got {inf_mass}"),
        ));
    }
    let ex = eps.exp();
    let z = ex + (k - 1) as f64;
    let w = 1.0 - inf_mass;
    let atoms = [
        (eps, w * (ex / z)),
        (-eps, w / z),
        (0.0, w * ((k - 2) as f64 / z)),
    ];
    // The grid spans the cells of the atoms exactly (`eps / h` in floats may round across a
    // grid point).
    grid(-eps, eps, h)?;
    let (lo, _) = cell(-eps, h);
    let (top, a_top) = cell(eps, h);
    let hi = if a_top > 0.0 { top + 1 } else { top };
    let c = -(-h).exp_m1();
    let mut masses = vec![0.0f64; (hi - lo + 1) as usize];
    for (l, p) in atoms {
        if p == 0.0 {
            continue;
        }
        let (i, a) = cell(l, h);
        let j = (i - lo) as usize;
        if a == 0.0 {
            masses[j] += p;
        } else {
            let up = (p * (-(-a).exp_m1() / c)).min(p);
            masses[j + 1] += up;
            masses[j] += p - up;
        }
    }
    Pld::from_parts(h, lo, masses, inf_mass, 64.0 * U + 4.0 * U * inf_mass)
}

/// The grid excess `delta(eps_i) - (1 - e^{eps_i})_+` of the Laplace mechanism with
/// `eps0 = sensitivity / scale`, raised by the margin, at `eps_i = i h`, `i = lo..=hi` (module
/// documentation of `privlearn.accounting._pld`, `_core_from`).
fn laplace_excess(e0: f64, h: f64, lo: i64, hi: i64) -> Vec<f64> {
    // delta(eps) = 1 - e^{(eps - e0)/2} on |eps| <= e0, 1 - e^eps below, 0 above; + margin.
    let f = |eps: f64| -> f64 {
        let t = if eps < -e0 {
            -eps.exp_m1()
        } else if eps >= e0 {
            0.0
        } else {
            -((eps - e0) / 2.0).exp_m1()
        };
        (t + REL * t.abs()).clamp(0.0, 1.0)
    };
    (lo..=hi)
        .map(|i| {
            let e = i as f64 * h;
            // delta is non-increasing: evaluate just below i h for i > 0; for i <= 0 the excess
            // e^eps delta(-eps) (symmetric pair) just above i h (increasing in eps), rounded up.
            let v = if i > 0 {
                f(e.next_down())
            } else {
                let en = e.next_up();
                en.exp() * f(-en) * (1.0 + 8.0 * U)
            };
            if v.is_nan() { 1.0 } else { v.clamp(0.0, 1.0) }
        })
        .collect()
}

/// The Laplace mechanism's PLD for `e0 = sensitivity / scale` (rounded up by the caller): the pair
/// `(Lap(0, b), Lap(Delta, b))`, whose loss lies in `[-e0, e0]`, with hockey-stick curve
/// `delta(eps) = 1 - e^{(eps - e0)/2}` for `|eps| <= e0`, `1 - e^eps` below and `0` above (direct
/// integration of the two densities; Koskela, Jälkö and Honkela, AISTATS 2020, Section 5).
/// Symmetric. The curve is evaluated at the grid `i h` covering `[-e0, e0]` at the float just
/// below `i h` (`i > 0`; `delta` is non-increasing) or, as the excess `e^eps delta(-eps)`, just
/// above it (`i <= 0`), raised by a relative margin `1e-12` and `8u`, and built by
/// connect-the-dots ([`Pld::from_excess_grid`], which tracks the float error of the
/// construction): the same values as `privlearn.accounting._pld`'s numpy evaluation.
///
/// # Errors
/// [`Error::InvalidParameter`] if `h` is not a normal float in `(0, 1]`, `e0` not in `(0, 700]`,
/// or the grid would exceed 5e7 points.
pub fn laplace(h: f64, e0: f64) -> Result<Pld> {
    check_h(h)?;
    check_loss(e0, "scale")?;
    let (lo, hi) = grid(-e0, e0, h)?;
    Pld::from_excess_grid(h, lo, &laplace_excess(e0, h, lo, hi))
}

/// [`laplace`] for each of `e0s`, built in parallel.
///
/// # Errors
/// As [`laplace`], for the first failing parameter.
pub fn laplace_many(h: f64, e0s: &[f64]) -> Result<Vec<Pld>> {
    e0s.par_iter().map(|&e0| laplace(h, e0)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact hockey-stick curve of finitely many (loss, P-mass) atoms.
    fn atoms_delta(atoms: &[(f64, f64)], eps: f64) -> f64 {
        atoms
            .iter()
            .filter(|&&(l, _)| l > eps)
            .map(|&(l, p)| p * -(eps - l).exp_m1())
            .sum()
    }

    #[test]
    fn accounting_rr_closed_form_dominates_and_is_tight() {
        let h = 1e-3;
        for &(eps, k) in &[
            (0.0123, 2u64),
            (0.5, 2),
            (0.3, 5),
            (2.0 * 1e-3, 3),
            (1e-4, 2),
        ] {
            let p = randomized_response(h, eps, k, 0.0).unwrap();
            let z = eps.exp() + (k - 1) as f64;
            let atoms = [
                (eps, eps.exp() / z),
                (-eps, 1.0 / z),
                (0.0, (k - 2) as f64 / z),
            ];
            let total: f64 = p.masses().iter().sum();
            assert!((total - 1.0).abs() < 1e-14, "{total}");
            assert!(p.masses().iter().filter(|&&m| m > 0.0).count() <= 5);
            for j in -200..=200 {
                let e = j as f64 * 0.37e-3;
                let exact = atoms_delta(&atoms, e);
                let d = p.delta(e);
                assert!(d >= exact, "eps {eps} k {k} at {e}: {d} < {exact}");
                // Connect-the-dots of an atom errs by at most h * its mass (chord vs. curve).
                assert!(
                    d <= exact + h + 1e-12,
                    "eps {eps} k {k} at {e}: {d} vs {exact}"
                );
            }
        }
    }

    #[test]
    fn accounting_rr_on_grid_atoms_stay_and_inf_mass_is_kept() {
        let h = 0.5f64.powi(10);
        let p = randomized_response(h, 8.0 * h, 2, 0.25).unwrap();
        assert_eq!(p.lo(), -8);
        assert_eq!(p.masses().len(), 17);
        let e = (8.0 * h).exp();
        assert!((p.masses()[16] - 0.75 * e / (1.0 + e)).abs() < 1e-15);
        assert!((p.masses()[0] - 0.75 / (1.0 + e)).abs() < 1e-15);
        assert_eq!(p.inf_mass(), 0.25);
    }

    #[test]
    fn accounting_rr_and_laplace_reject_bad_input() {
        assert!(randomized_response(0.0, 1.0, 2, 0.0).is_err());
        assert!(randomized_response(1e-3, 0.0, 2, 0.0).is_err());
        assert!(randomized_response(1e-3, 701.0, 2, 0.0).is_err());
        assert!(randomized_response(1e-3, 1.0, 1, 0.0).is_err());
        assert!(randomized_response(1e-3, 1.0, 2, 1.0).is_err());
        assert!(randomized_response(1e-3, 1.0, 2, f64::NAN).is_err());
        assert!(laplace(1e-3, f64::INFINITY).is_err());
        assert!(laplace(2.0, 1.0).is_err());
        assert!(laplace(1e-12, 1.0).is_err());
        assert!(laplace_many(1e-3, &[0.5, -1.0]).is_err());
    }

    #[test]
    fn accounting_laplace_dominates_exact_curve() {
        let h = 1e-3;
        let e0 = 0.3217;
        let exact = |eps: f64| -> f64 {
            if eps < -e0 {
                -eps.exp_m1()
            } else if eps >= e0 {
                0.0
            } else {
                -((eps - e0) / 2.0).exp_m1()
            }
        };
        let many = laplace_many(h, &[e0, 0.1]).unwrap();
        let p = &many[0];
        assert_eq!(p, &laplace(h, e0).unwrap());
        for j in -400..=400 {
            let e = j as f64 * 0.97e-3;
            let d = p.delta(e);
            assert!(d >= exact(e), "{e}: {d} < {}", exact(e));
            assert!(d <= exact(e) + h, "{e}: {d} vs {}", exact(e));
        }
    }
}

//! Private selection: report-noisy-max with its three noise laws, permute-and-flip, and the
//! Smith–Thakurta distance-based selection.
//!
//! Guarantees (replace-one neighbours, scores of sensitivity `Δ`):
//! * noisy max with Gumbel noise of scale `2Δ/ε` is *exactly* the exponential mechanism
//!   (`ε`-DP, and `ε²/8`-zCDP since it is `ε`-bounded-range); it is sampled with the exact
//!   exponential mechanism;
//! * noisy max with exponential noise of scale `2Δ/ε` has the same law as permute-and-flip
//!   (Ding, Kifer et al., "The permute-and-flip mechanism is identical to report-noisy-max with
//!   exponential noise", 2021): `ε`-DP, but its zCDP is `ε²/2`, not `ε²/8` (it is not
//!   `ε`-bounded-range; OpenDP issue #2911 claimed the exponential mechanism's value); it is
//!   sampled with exact permute-and-flip;
//! * noisy max with Laplace noise of scale `2Δ/ε` (Dwork and Roth, Claim 3.9, for scores that
//!   need not be monotone): `ε`-DP; sampled in floating point (not floating-point safe).
//!
//! [`stable_argmax`] is seed 002's `A_dist` (Smith and Thakurta 2013, as treated by Beimel,
//! Nissim and Stemmer 2013) in the safe parametrisation of the project's erratum 002-1/002-2: the
//! gap between the two best scores has sensitivity `2Δ` (the best can drop by `Δ` while the
//! runner-up gains `Δ`), so the noise is discrete Laplace of scale `2Δ_u/ε` in grid units and the
//! release threshold is `2Δ_u + t`, `t` the smallest integer with `e^{-t/b}/(1 + e^{-1/b}) <= δ/2`:
//! `(ε, δ)`-DP for every `ε`.

use crate::error::{Error, Result, check_epsilon, check_sensitivity};
use crate::expmech::{Numerics, Scores, exponential_draws};
use crate::grid::{Grid, floor_log2};
use crate::noise::{Ratio, discrete_laplace, standard_laplace_f64};
use crate::rng::Rng;

use super::{ceil_scale, check_delta_open};

/// The noise law of [`report_noisy_max`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoisyMaxNoise {
    /// Gumbel noise: the exponential mechanism.
    Gumbel,
    /// Laplace noise (floating point).
    Laplace,
    /// Exponential noise: permute-and-flip.
    Exponential,
}

impl std::str::FromStr for NoisyMaxNoise {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "gumbel" => Ok(NoisyMaxNoise::Gumbel),
            "laplace" => Ok(NoisyMaxNoise::Laplace),
            "exponential" => Ok(NoisyMaxNoise::Exponential),
            other => Err(Error::invalid(
                "noise",
                format!("must be 'gumbel', 'laplace' or 'exponential', got {other:?}"),
            )),
        }
    }
}

/// Report-noisy-max (see the module documentation for each noise law's guarantee).
pub fn report_noisy_max(
    scores: Scores<'_>,
    epsilon: f64,
    sensitivity: f64,
    noise: NoisyMaxNoise,
    rng: &mut Rng,
) -> Result<usize> {
    match noise {
        NoisyMaxNoise::Gumbel => {
            Ok(exponential_draws(scores, epsilon, sensitivity, Numerics::Exact, 1, rng)?[0])
        }
        NoisyMaxNoise::Exponential => permute_and_flip(scores, epsilon, sensitivity, rng),
        NoisyMaxNoise::Laplace => {
            check_epsilon(epsilon, "epsilon")?;
            check_sensitivity(sensitivity)?;
            let values: Vec<f64> = match scores {
                Scores::Real(s) => s.to_vec(),
                Scores::Int(s) => s.iter().map(|&v| v as f64).collect(),
            };
            if values.is_empty() {
                return Err(Error::invalid(
                    "scores",
                    "must hold at least one candidate, got none",
                ));
            }
            if values.iter().any(|v| v.is_nan() || *v == f64::INFINITY)
                || values.iter().all(|v| *v == f64::NEG_INFINITY)
            {
                return Err(crate::expmech::bad_scores());
            }
            let b = 2.0 * sensitivity / epsilon;
            let mut best = (f64::NEG_INFINITY, usize::MAX);
            for (i, &v) in values.iter().enumerate() {
                if v == f64::NEG_INFINITY {
                    continue;
                }
                let noisy = v + b * standard_laplace_f64(rng);
                if best.1 == usize::MAX || noisy > best.0 {
                    best = (noisy, i);
                }
            }
            Ok(best.1)
        }
    }
}

/// Exact permute-and-flip (McKenna and Sheldon, NeurIPS 2020): `ε`-DP.
pub fn permute_and_flip(
    scores: Scores<'_>,
    epsilon: f64,
    sensitivity: f64,
    rng: &mut Rng,
) -> Result<usize> {
    check_epsilon(epsilon, "epsilon")?;
    check_sensitivity(sensitivity)?;
    let n = match scores {
        Scores::Real(s) => s.len(),
        Scores::Int(s) => s.len(),
    };
    if n == 0 {
        return Err(Error::invalid(
            "scores",
            "must hold at least one candidate, got none",
        ));
    }
    crate::expmech::exact::permute_and_flip(scores, epsilon, sensitivity, rng)
}

/// Smith–Thakurta distance-based selection (`A_dist`): the index of the best score, or `None`
/// (the paper's ⊥) when the noisy gap to the runner-up is below the threshold. `(ε, δ)`-DP (see
/// the module documentation); returns the best index with probability at least `1 - β` when the
/// gap is at least `2Δ + (2Δ/ε) ln(1/(2βδ))` plus two grid steps.
pub fn stable_argmax(
    scores: Scores<'_>,
    epsilon: f64,
    delta: f64,
    sensitivity: f64,
    rng: &mut Rng,
) -> Result<Option<usize>> {
    check_epsilon(epsilon, "epsilon")?;
    check_delta_open(delta)?;
    check_sensitivity(sensitivity)?;
    // Best and runner-up in grid units, and the sensitivity in units.
    let (best, gap_units, du): (usize, i128, u128) = match scores {
        Scores::Int(s) => {
            if s.len() < 2 {
                return Err(Error::invalid(
                    "scores",
                    format!("must hold at least two candidates, got {}", s.len()),
                ));
            }
            let best = argmax_first(s.iter().map(|&v| v as f64));
            let top = s[best];
            let second = s
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != best)
                .map(|(_, &v)| v)
                .max()
                .unwrap_or(top);
            let gap = (i128::from(top) - i128::from(second)).min(1i128 << 100);
            (best, gap, sensitivity.ceil() as u128)
        }
        Scores::Real(s) => {
            if s.len() < 2 {
                return Err(Error::invalid(
                    "scores",
                    format!("must hold at least two candidates, got {}", s.len()),
                ));
            }
            if s.iter().any(|v| !v.is_finite()) {
                return Err(Error::invalid(
                    "scores",
                    "must be finite (no NaN or infinity)",
                ));
            }
            if !(1e-250..=1e250).contains(&sensitivity) {
                return Err(Error::invalid(
                    "sensitivity",
                    format!("must lie in [1e-250, 1e250], got {sensitivity:e}"),
                ));
            }
            let grid = Grid::new(floor_log2(sensitivity) - 20)?;
            let best = argmax_first(s.iter().copied());
            let top = grid.round(s[best]);
            let second = s
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != best)
                .map(|(_, &v)| grid.round(v))
                .fold(f64::NEG_INFINITY, f64::max);
            let gap = top - second; // an exact multiple of the step unless huge
            let units = if gap >= 2f64.powi(100) * grid.step() {
                1i128 << 100
            } else {
                (gap / grid.step()) as i128
            };
            (best, units, grid.floor_units(sensitivity)? + 1)
        }
    };
    let scale = ceil_scale(2 * du, epsilon)?;
    let threshold = 2 * du as i128 + release_threshold(scale, delta);
    let z = discrete_laplace(rng, scale);
    Ok(if gap_units.saturating_add(z) >= threshold {
        Some(best)
    } else {
        None
    })
}

/// Smallest integer `t >= 1` with `e^{-t/b} / (1 + e^{-1/b}) <= δ/2`, plus one for safety against
/// the floating-point evaluation (a larger threshold only lowers the release probability).
pub(crate) fn release_threshold(scale: Ratio, delta: f64) -> i128 {
    let b = scale.to_f64();
    let t = (b * (2.0 / (delta * (1.0 + (-1.0 / b).exp()))).ln())
        .ceil()
        .max(1.0);
    t as i128 + 1
}

/// Index of the first maximum.
fn argmax_first(values: impl Iterator<Item = f64>) -> usize {
    let mut best = (f64::NEG_INFINITY, 0usize);
    for (i, v) in values.enumerate() {
        if i == 0 || v > best.0 {
            best = (v, i);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::assert_law_with_power;

    #[test]
    fn permute_and_flip_law_on_three_candidates() {
        let s = [0.0f64, 1.0, 2.0];
        let eps = 1.5;
        let mut rng = Rng::from_seed(4);
        let n = 100_000;
        let mut counts = vec![0u64; 3];
        for _ in 0..n {
            counts[permute_and_flip(Scores::Real(&s), eps, 1.0, &mut rng).unwrap()] += 1;
        }
        // Power: the same counts reject the law at epsilon halved and 1.3 times larger.
        assert_law_with_power(
            &counts,
            &pf_law(&s, eps),
            &[&pf_law(&s, eps / 2.0), &pf_law(&s, eps * 1.3)],
            "permute-and-flip",
        );
        // Exponential noise is permute-and-flip (Ding et al. 2021): the same law.
        let mut counts = vec![0u64; 3];
        for _ in 0..n {
            let i = report_noisy_max(
                Scores::Real(&s),
                eps,
                1.0,
                NoisyMaxNoise::Exponential,
                &mut rng,
            )
            .unwrap();
            counts[i] += 1;
        }
        assert_law_with_power(
            &counts,
            &pf_law(&s, eps),
            &[&pf_law(&s, eps / 2.0), &pf_law(&s, eps * 1.3)],
            "noisy max, exponential noise",
        );
    }

    /// Permute-and-flip's law by enumerating every order of three candidates (McKenna and
    /// Sheldon 2020): candidate `i` is accepted with probability `exp(ε (s_i - max) / 2)`.
    fn pf_law(s: &[f64; 3], eps: f64) -> Vec<f64> {
        let top = s.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let p: Vec<f64> = s.iter().map(|v| (eps * (v - top) / 2.0).exp()).collect();
        let mut law = vec![0.0f64; 3];
        for o in [
            [0, 1, 2],
            [0, 2, 1],
            [1, 0, 2],
            [1, 2, 0],
            [2, 0, 1],
            [2, 1, 0],
        ] {
            let mut reach = 1.0 / 6.0;
            for &i in &o {
                law[i] += reach * p[i];
                reach *= 1.0 - p[i];
            }
        }
        law
    }

    #[test]
    fn gumbel_noisy_max_is_the_exponential_mechanism() {
        // P(i) ∝ exp(ε s_i / (2Δ)); power: epsilon halved and 1.3 times larger.
        let s = [0.0f64, 1.0, 2.5, -1.0];
        let (eps, sens) = (1.2, 1.5);
        let law = |e: f64| {
            let w: Vec<f64> = s.iter().map(|v| (e * v / (2.0 * sens)).exp()).collect();
            let z: f64 = w.iter().sum();
            w.iter().map(|v| v / z).collect::<Vec<f64>>()
        };
        let mut rng = Rng::from_seed(7);
        let mut counts = vec![0u64; 4];
        for _ in 0..60_000 {
            let i = report_noisy_max(Scores::Real(&s), eps, sens, NoisyMaxNoise::Gumbel, &mut rng)
                .unwrap();
            counts[i] += 1;
        }
        assert_law_with_power(
            &counts,
            &law(eps),
            &[&law(eps / 2.0), &law(eps * 1.3)],
            "noisy max, Gumbel noise",
        );
    }

    #[test]
    fn laplace_noisy_max_law_on_two_candidates() {
        // With noise b L_i (b = 2Δ/ε), candidate 1 wins iff L_0 - L_1 < a = (s_1 - s_0)/b; the
        // difference of two standard Laplace variables has P(D >= a) = (2 + a) e^{-a} / 4 for
        // a >= 0. Power: epsilon halved and 1.3 times larger.
        let s = [0.0f64, 1.0];
        let sens = 1.0;
        let law = |e: f64| {
            let a = (s[1] - s[0]) / (2.0 * sens / e);
            let lose = (2.0 + a) * (-a).exp() / 4.0;
            vec![lose, 1.0 - lose]
        };
        let eps = 1.0;
        let mut rng = Rng::from_seed(8);
        let mut counts = vec![0u64; 2];
        for _ in 0..60_000 {
            let i = report_noisy_max(
                Scores::Real(&s),
                eps,
                sens,
                NoisyMaxNoise::Laplace,
                &mut rng,
            )
            .unwrap();
            counts[i] += 1;
        }
        assert_law_with_power(
            &counts,
            &law(eps),
            &[&law(eps / 2.0), &law(eps * 1.3)],
            "noisy max, Laplace noise",
        );
    }

    #[test]
    fn stable_argmax_releases_clear_winners_only() {
        let mut rng = Rng::from_seed(5);
        let clear = [0i64, 1000, 3];
        assert!((0..200).all(|_| {
            stable_argmax(Scores::Int(&clear), 1.0, 1e-6, 1.0, &mut rng).unwrap() == Some(1)
        }));
        let tie = [5i64, 5, 0];
        let released = (0..2000)
            .filter(|_| {
                stable_argmax(Scores::Int(&tie), 1.0, 1e-3, 1.0, &mut rng)
                    .unwrap()
                    .is_some()
            })
            .count();
        assert!(released <= 5, "{released}"); // expected below delta/2 * 2000 = 1
        assert!(stable_argmax(Scores::Int(&[1]), 1.0, 1e-3, 1.0, &mut rng).is_err());
        let real = [0.0, 50.5, 3.0];
        assert_eq!(
            stable_argmax(Scores::Real(&real), 1.0, 1e-6, 1.0, &mut rng).unwrap(),
            Some(1)
        );
    }

    #[test]
    fn laplace_noisy_max_prefers_the_best() {
        let mut rng = Rng::from_seed(6);
        let s = [0.0, 10.0, 1.0];
        let wins = (0..1000)
            .filter(|_| {
                report_noisy_max(Scores::Real(&s), 5.0, 1.0, NoisyMaxNoise::Laplace, &mut rng)
                    .unwrap()
                    == 1
            })
            .count();
        assert!(wins > 950);
    }
}

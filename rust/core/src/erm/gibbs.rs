//! A Metropolis-adjusted Langevin (MALA) sampler of the Gibbs density of penalized ERM over a
//! ball, for convex objectives (Wang, Lei and Fienberg 2016, Proposition 26: the density
//! `exp(-beta F)` is log-concave when `F` is convex, so it can be sampled in polynomial time).
//!
//! Target: `pi(w) ∝ exp(-beta F(w))` on `{ ||w||_2 <= R }`, with
//! `F(w) = (1/n) sum_i min(loss(w . x_i, y_i), B) + (lambda / 2) ||w||^2`, the objective whose
//! exact exponential mechanism is Algorithm 1 (`beta = epsilon n / (4B)` with the paper's
//! sensitivity). A step proposes `w' = w - h beta grad F(w) + sqrt(2h) xi` (`xi` standard
//! normal) and accepts with the Metropolis–Hastings probability of that proposal kernel, so the
//! target is the chain's stationary law for any drift, including the subgradient of a
//! non-smooth loss (which only slows mixing); proposals outside the ball are rejected.
//!
//! **No privacy guarantee.** A Markov chain run for finitely many steps only approximates the
//! target. An `epsilon`-DP target sampled within total variation `tau` *for every dataset* is
//! `(epsilon, tau (1 + e^epsilon))`-DP, but `tau` must come from a proven, data-independent
//! mixing bound (ERRATA A7); the chain's diagnostics (acceptance, between-chain agreement) are
//! evidence of convergence, not a bound. Computation in floating point throughout.

use rayon::prelude::*;

use super::Loss;
use crate::error::{Error, Result};
use crate::noise::standard_normal_f64;
use crate::rng::Rng;

/// The objective: clipped mean loss of a linear model plus a ridge penalty.
#[derive(Clone, Debug)]
pub struct Objective<'a> {
    /// `n` rows of `d` features (row-major).
    pub x: &'a [f64],
    /// `n` labels.
    pub y: &'a [f64],
    /// Dimension.
    pub d: usize,
    /// The loss.
    pub loss: Loss,
    /// Clip bound `B` of the loss.
    pub bound: f64,
    /// Ridge coefficient `lambda >= 0` (a data-independent regularizer).
    pub ridge: f64,
}

impl Objective<'_> {
    fn n(&self) -> usize {
        self.y.len()
    }

    /// `F(w)` and, if `grad` is given, its (sub)gradient written into it.
    pub fn value(&self, w: &[f64], mut grad: Option<&mut [f64]>) -> f64 {
        let d = self.d;
        let n = self.n();
        if let Some(g) = grad.as_deref_mut() {
            g.fill(0.0);
        }
        let mut total = 0.0;
        for i in 0..n {
            let xi = &self.x[i * d..(i + 1) * d];
            let p: f64 = w.iter().zip(xi).map(|(a, b)| a * b).sum();
            let l = self.loss.value(p, self.y[i]);
            if l.is_nan() || l >= self.bound {
                total += self.bound;
            } else {
                total += l.max(0.0);
                if let Some(g) = grad.as_deref_mut() {
                    let dl = self.loss.derivative(p, self.y[i]);
                    for (gk, &xk) in g.iter_mut().zip(xi) {
                        *gk += dl * xk;
                    }
                }
            }
        }
        let inv_n = 1.0 / n as f64;
        let sq: f64 = w.iter().map(|v| v * v).sum();
        if let Some(g) = grad {
            for (gk, &wk) in g.iter_mut().zip(w) {
                *gk = *gk * inv_n + self.ridge * wk;
            }
        }
        total * inv_n + 0.5 * self.ridge * sq
    }
}

/// Settings of a MALA run.
#[derive(Clone, Debug)]
pub struct MalaSettings {
    /// Inverse temperature `beta`.
    pub beta: f64,
    /// Radius `R` of the ball.
    pub radius: f64,
    /// Step size `h`.
    pub step: f64,
    /// Steps per chain.
    pub steps: usize,
}

/// The outcome of independent MALA chains.
#[derive(Clone, Debug)]
pub struct MalaRun {
    /// Final state of each chain.
    pub states: Vec<Vec<f64>>,
    /// `F` after every step, per chain.
    pub traces: Vec<Vec<f64>>,
    /// Accepted proposals per chain.
    pub accepted: Vec<usize>,
}

fn norm2(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum()
}

/// Runs one chain per starting point in `starts` (each of length `d`, inside the ball), in
/// parallel, each with its own generator spawned from `rng`.
///
/// Errors: empty data, `beta`, `radius` or `step` not finite and `> 0`, a start outside the
/// ball or of the wrong length.
pub fn mala(
    objective: &Objective<'_>,
    settings: &MalaSettings,
    starts: &[Vec<f64>],
    rng: &mut Rng,
) -> Result<MalaRun> {
    let d = objective.d;
    if objective.n() == 0 || objective.x.len() != objective.n() * d {
        return Err(Error::invalid(
            "X",
            "must hold at least one record, with one label per row",
        ));
    }
    for (name, v) in [
        ("beta", settings.beta),
        ("radius", settings.radius),
        ("step", settings.step),
        ("loss_bound", objective.bound),
    ] {
        if !(v.is_finite() && v > 0.0) {
            return Err(Error::invalid(
                name,
                format!("must be finite and > 0, got {v}"),
            ));
        }
    }
    if !(objective.ridge.is_finite() && objective.ridge >= 0.0) {
        return Err(Error::invalid("ridge", "must be finite and >= 0"));
    }
    let r2 = settings.radius * settings.radius;
    for s in starts {
        if s.len() != d || norm2(s).partial_cmp(&r2).is_none_or(|o| o.is_gt()) {
            return Err(Error::invalid(
                "starts",
                "every start must have the model's dimension and lie in the ball",
            ));
        }
    }
    let rngs: Vec<Rng> = starts.iter().map(|_| rng.spawn()).collect();
    let results: Vec<(Vec<f64>, Vec<f64>, usize)> = starts
        .par_iter()
        .zip(rngs)
        .map(|(start, mut r)| chain(objective, settings, start, &mut r))
        .collect();
    let mut run = MalaRun {
        states: Vec::new(),
        traces: Vec::new(),
        accepted: Vec::new(),
    };
    for (s, t, a) in results {
        run.states.push(s);
        run.traces.push(t);
        run.accepted.push(a);
    }
    Ok(run)
}

fn chain(
    objective: &Objective<'_>,
    settings: &MalaSettings,
    start: &[f64],
    rng: &mut Rng,
) -> (Vec<f64>, Vec<f64>, usize) {
    let d = objective.d;
    let (beta, h) = (settings.beta, settings.step);
    let r2 = settings.radius * settings.radius;
    let noise = (2.0 * h).sqrt();
    let mut w = start.to_vec();
    let mut g = vec![0.0; d];
    let mut f = objective.value(&w, Some(&mut g));
    let mut w_new = vec![0.0; d];
    let mut g_new = vec![0.0; d];
    let mut trace = Vec::with_capacity(settings.steps);
    let mut accepted = 0;
    for _ in 0..settings.steps {
        for k in 0..d {
            w_new[k] = w[k] - h * beta * g[k] + noise * standard_normal_f64(rng);
        }
        if norm2(&w_new) <= r2 {
            let f_new = objective.value(&w_new, Some(&mut g_new));
            // log q(w | w') - log q(w' | w), q(b | a) = N(b; a - h beta grad F(a), 2h I).
            let mut back = 0.0;
            let mut fwd = 0.0;
            for k in 0..d {
                let b = w[k] - (w_new[k] - h * beta * g_new[k]);
                let f_ = w_new[k] - (w[k] - h * beta * g[k]);
                back += b * b;
                fwd += f_ * f_;
            }
            let log_alpha = -beta * (f_new - f) - (back - fwd) / (4.0 * h);
            // Accept with probability min(1, e^log_alpha).
            let u = rng.uniform_f64();
            if log_alpha >= 0.0 || u < log_alpha.exp() {
                std::mem::swap(&mut w, &mut w_new);
                std::mem::swap(&mut g, &mut g_new);
                f = f_new;
                accepted += 1;
            }
        }
        trace.push(f);
    }
    (w, trace, accepted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_matches_finite_differences() {
        let x = [0.3, -0.2, 0.9, 0.1, -0.5, 0.4];
        let y = [1.0, 0.0, 1.0];
        for loss in [Loss::Logistic, Loss::Squared] {
            let obj = Objective {
                x: &x,
                y: &y,
                d: 2,
                loss,
                bound: 10.0,
                ridge: 0.3,
            };
            let w = [0.4, -0.7];
            let mut g = [0.0; 2];
            obj.value(&w, Some(&mut g));
            for k in 0..2 {
                let mut a = w;
                let mut b = w;
                a[k] += 1e-6;
                b[k] -= 1e-6;
                let fd = (obj.value(&a, None) - obj.value(&b, None)) / 2e-6;
                assert!((fd - g[k]).abs() < 1e-6, "{loss:?} {k}: {fd} {}", g[k]);
            }
        }
    }

    #[test]
    fn quadratic_target_has_the_gibbs_scale() {
        // Squared loss with x = e_k and y = 0 in each coordinate: F(w) = ||w||^2 / d, a
        // quadratic with minimum 0; E[F - F*] = d / (2 beta) under exp(-beta F) (unconstrained;
        // the ball is far).
        let d = 3;
        let mut x = vec![0.0; d * d];
        for k in 0..d {
            x[k * d + k] = 1.0;
        }
        let y = vec![0.0; d];
        let obj = Objective {
            x: &x,
            y: &y,
            d,
            loss: Loss::Squared,
            bound: 100.0,
            ridge: 0.0,
        };
        let beta = 400.0;
        let settings = MalaSettings {
            beta,
            radius: 10.0,
            step: 1.0 / beta,
            steps: 20_000,
        };
        let mut rng = Rng::from_seed(12);
        let starts = vec![vec![0.0; d]; 4];
        let run = mala(&obj, &settings, &starts, &mut rng).unwrap();
        let tail: Vec<f64> = run
            .traces
            .iter()
            .flat_map(|t| t[5000..].iter().copied())
            .collect();
        let mean = tail.iter().sum::<f64>() / tail.len() as f64;
        let want = d as f64 / (2.0 * beta);
        assert!((mean - want).abs() < 0.1 * want, "{mean} vs {want}");
        for &a in &run.accepted {
            assert!(a > settings.steps / 2);
        }
    }

    #[test]
    fn rejects_bad_settings() {
        let x = [1.0];
        let y = [0.0];
        let obj = Objective {
            x: &x,
            y: &y,
            d: 1,
            loss: Loss::Squared,
            bound: 1.0,
            ridge: 0.0,
        };
        let mut rng = Rng::from_seed(1);
        let ok = MalaSettings {
            beta: 1.0,
            radius: 1.0,
            step: 0.1,
            steps: 10,
        };
        assert!(mala(&obj, &ok, &[vec![0.5]], &mut rng).is_ok());
        assert!(mala(&obj, &ok, &[vec![2.0]], &mut rng).is_err());
        assert!(mala(&obj, &ok, &[vec![0.0, 0.0]], &mut rng).is_err());
        let bad = MalaSettings {
            step: 0.0,
            ..ok.clone()
        };
        assert!(mala(&obj, &bad, &[vec![0.0]], &mut rng).is_err());
        let bad = MalaSettings {
            beta: f64::NAN,
            ..ok
        };
        assert!(mala(&obj, &bad, &[vec![0.0]], &mut rng).is_err());
    }
}

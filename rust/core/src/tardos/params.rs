//! Parameters of the Tardos codes: length, bias cut-off, accusation threshold and the error
//! rates they guarantee.
//!
//! # Error rates
//!
//! `false_accusation` is `ξ`, the probability that the tracer accuses *any* innocent user, for any
//! pirate word whatsoever (feasible or not). It is split over the users by a union bound: each
//! innocent is accused with probability at most `ε1 = ξ / n` (for `n < 4`,
//! `ε1 = min(ξ/n, ξ^(4/c))`, ERRATA 002-13, so that the miss rate `ε1^(c/4)` is at most `ξ`
//! even then). The *miss rate* `ε2` bounds the probability that no member of a coalition of at
//! most `c` users is accused, when the pirate word obeys the marking assumption. Both variants
//! guarantee `ε2 = ε1^(c/4)` at their default length: the Tardos variant by Tardos' theorem, the
//! symmetric one by the certificates below.
//!
//! # Variants
//!
//! * [`Variant::Tardos`] (Tardos, STOC 2003 / J. ACM 55(2) 2008, main theorem and the construction
//!   of its §2): `κ = ⌈ln(1/ε1)⌉` (natural log, ERRATA 002-8), `m = 100 c² κ`, `Z = 20 c κ`,
//!   biases arcsine on `[t, 1-t]` with `t = 1/(300 c)`, and the asymmetric score that counts only
//!   the positions where the pirate word is 1. Tardos proves soundness `ε1` and miss rate
//!   `ε1^(c/4)`.
//! * [`Variant::Symmetric`]: the symbol-symmetric score of Škorić, Katzenbeisser and Celik
//!   ("Symmetric Tardos fingerprinting codes for arbitrary alphabet sizes", Des. Codes Cryptogr.
//!   46, 2008), which also scores the positions where the word is 0; same bias law and cut-off.
//!   **Reconstructed constants**: the length and threshold are not transcribed from a paper.
//!   They are the smallest length, and the threshold, for which the two Chernoff (exponential
//!   Markov) bounds that Tardos' proof uses, written for the symmetric score and evaluated
//!   numerically instead of by Tardos' analytic inequalities, certify the same two rates as
//!   Tardos' theorem (soundness `ε1`, miss rate `ε1^(c/4)`). This gives `m ≈ 11.1 c² ln(1/ε1)`
//!   (about 9 times shorter than Tardos' `100 c² κ`; compare `π² c² ln(1/ε1)` in Škorić et al.
//!   and the Gaussian-approximation optimum `(9π²/8) c² ln(1/ε1)` for these two rates). The test
//!   suite checks both rates by experiment.
//!
//! # The certificates
//!
//! Let `p ~ f` be a position's bias, `σ = √(p(1-p))`, and write the score of user `j` at a
//! position as `U = (2y - 1)(X_j - p)/σ` (symmetric) or `y (X_j - p)/σ` (Tardos), where `y` is
//! the pirate's bit and `X_j` the user's.
//!
//! * **Soundness.** An innocent user's bits are independent of the pirate word given the biases,
//!   so for every `α > 0`, `P[S_j > Z] <= exp(-α Z) (E_p max_y E[e^{αU} | p, y])^m` whatever the
//!   pirate does. The threshold is the smallest `Z` this certifies at level `ε1` (minimised over
//!   `α`).
//! * **Completeness.** If no member of a coalition `C` of size `k` is accused, their total score
//!   is at most `k Z`. Given the coalition's bits, a position's bias depends only on the number
//!   `x` of ones among them, and the pirate's bit only on the coalition's bits, so
//!   `P[Σ_C S_j <= k Z] <= exp(β k Z) (Σ_x max_y E[e^{-β T} 1{x}])^m` for every `β > 0`, with
//!   `T = (2y-1)(x - k p)/σ` and `y` forced to the common bit when `x = 0` or `x = k` (marking
//!   assumption). The miss rate is the largest of these bounds over `k = 1..c`.
//!
//! The expectations over `p` are one-dimensional integrals over `r` (`p = sin² r`, `r` uniform on
//! `[t', π/2 - t']`), computed with composite 16-point Gauss–Legendre quadrature whose
//! resolution grows with `√c` (the unit tests check that doubling it changes nothing at the
//! `1e-9` level), with a safety margin of `1e-6` on every logarithmic bound. All arithmetic uses
//! the pure-Rust `libm` functions, so the parameters are the same on every platform.

use std::f64::consts::FRAC_PI_2;
use std::sync::OnceLock;

use crate::error::{Error, Result};

use super::score;
use super::variant::Variant;

/// Largest supported code length (positions).
pub const MAX_LENGTH: usize = 1 << 40;
/// Largest supported number of users.
pub const MAX_USERS: usize = 1 << 40;
/// Largest supported coalition size (the certificates cost about `c^2.5` operations).
pub const MAX_COALITION: usize = 1000;
/// Smallest supported per-user false-accusation rate `ε1`.
pub const MIN_PER_USER: f64 = 1e-300;
/// Safety margin on every certified logarithmic bound.
const LOG_MARGIN: f64 = 1e-6;

/// The parameters of a Tardos code and the rates they guarantee.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// Number of users `n`.
    pub n_users: usize,
    /// Largest coalition `c` the guarantees cover.
    pub coalition_size: usize,
    /// `ξ`: bound on the probability that any innocent user is accused.
    pub false_accusation: f64,
    /// `ε1`: bound on the probability that a given innocent user is accused.
    pub per_user: f64,
    /// `κ = ⌈ln(1/ε1)⌉`.
    pub kappa: u32,
    /// The score and constants.
    pub variant: Variant,
    /// Code length `m`.
    pub length: usize,
    /// Bias cut-off `t`: biases lie in `[t, 1 - t]`.
    pub cutoff: f64,
    /// `Z`: the threshold the guarantees are proven for (on exact scores).
    pub certified_threshold: f64,
    /// Bound `E` on the difference between a computed score and the exact score.
    pub score_error: f64,
    /// `Z + E`: a user is accused when their computed score exceeds it, which implies that the
    /// exact score exceeds `Z`.
    pub threshold: f64,
    /// `ε2`: bound on the probability that no member of a coalition of at most `c` users is
    /// accused, for pirate words obeying the marking assumption (1 if nothing is guaranteed).
    pub miss_rate: f64,
    /// Whether the length was given by the caller (then `Z` and `ε2` are certified for it).
    pub length_given: bool,
}

/// `ε1` from `ξ`: `ξ/n`, or `min(ξ/n, ξ^(4/c))` when `n < 4` (ERRATA 002-13).
pub fn per_user_rate(n_users: usize, coalition_size: usize, false_accusation: f64) -> f64 {
    let base = false_accusation / n_users as f64;
    if n_users >= 4 {
        base
    } else {
        base.min(libm::pow(false_accusation, 4.0 / coalition_size as f64))
    }
}

/// Validates the arguments shared by every parameter computation.
pub fn check_arguments(
    n_users: usize,
    coalition_size: usize,
    false_accusation: f64,
    length: Option<usize>,
) -> Result<()> {
    if n_users == 0 || n_users > MAX_USERS {
        return Err(Error::invalid(
            "n_users",
            format!("must be an integer in [1, 2**40], got {n_users}"),
        ));
    }
    if coalition_size == 0 || coalition_size > n_users {
        return Err(Error::invalid(
            "coalition_size",
            format!("must be an integer in [1, n_users] = [1, {n_users}], got {coalition_size}"),
        ));
    }
    if coalition_size > MAX_COALITION {
        return Err(Error::invalid(
            "coalition_size",
            format!("must be at most {MAX_COALITION}, got {coalition_size}"),
        ));
    }
    check_rate(false_accusation, "false_accusation")?;
    if per_user_rate(n_users, coalition_size, false_accusation) < MIN_PER_USER {
        return Err(Error::invalid(
            "false_accusation",
            format!("false_accusation / n_users must be at least 1e-300, got {false_accusation}"),
        ));
    }
    if let Some(m) = length
        && (m == 0 || m > MAX_LENGTH)
    {
        return Err(Error::invalid(
            "length",
            format!("must be None or an integer in [1, 2**40], got {m}"),
        ));
    }
    Ok(())
}

/// Checks a probability in the open interval `(0, 1)`.
pub fn check_rate(rate: f64, name: &'static str) -> Result<()> {
    if rate.is_finite() && rate > 0.0 && rate < 1.0 {
        Ok(())
    } else {
        Err(Error::invalid(
            name,
            format!("must be a probability in (0, 1), got {rate}"),
        ))
    }
}

/// Tardos' bias cut-off `t = 1/(300 c)`.
pub fn cutoff(coalition_size: usize) -> f64 {
    1.0 / (300.0 * coalition_size as f64)
}

/// Computes the parameters of a code (see the module documentation).
///
/// With `length = None` the variant's own length is used: Tardos' `100 c² κ`, or the smallest
/// certified length for the symmetric score. With a given length, the threshold is the
/// smallest one the soundness certificate allows for it, and the miss rate is the completeness
/// certificate's bound (capped at 1).
pub fn parameters(
    n_users: usize,
    coalition_size: usize,
    false_accusation: f64,
    variant: Variant,
    length: Option<usize>,
) -> Result<Params> {
    check_arguments(n_users, coalition_size, false_accusation, length)?;
    let c = coalition_size;
    let eps1 = per_user_rate(n_users, c, false_accusation);
    let ln_inv_eps1 = -libm::log(eps1);
    let kappa = libm::ceil(ln_inv_eps1) as u32;
    let t = cutoff(c);
    let ln_eps2 = 0.25 * c as f64 * -ln_inv_eps1;
    let base = |length: usize, z: f64, miss_rate: f64, given: bool| {
        let error = score::score_error_bound(length, t);
        Params {
            n_users,
            coalition_size: c,
            false_accusation,
            per_user: eps1,
            kappa,
            variant,
            length,
            cutoff: t,
            certified_threshold: z,
            score_error: error,
            threshold: z + error,
            miss_rate,
            length_given: given,
        }
    };
    match (variant, length) {
        (Variant::Tardos, None) => {
            let k = u64::from(kappa);
            let m = 100u64
                .checked_mul((c as u64).saturating_mul(c as u64))
                .and_then(|v| v.checked_mul(k))
                .filter(|&v| v <= MAX_LENGTH as u64)
                .ok_or_else(|| {
                    Error::invalid(
                        "coalition_size",
                        format!(
                            "Tardos' length 100 c^2 ceil(ln(1/eps1)) exceeds 2**40 positions for \
                             c = {c}"
                        ),
                    )
                })?;
            let z = 20.0 * c as f64 * f64::from(kappa);
            Ok(base(m as usize, z, libm::exp(ln_eps2), false))
        }
        (Variant::Symmetric, None) => {
            let cert = Certifier::new(variant, c, t, ln_inv_eps1);
            let (m, z) = cert.shortest_length(ln_eps2)?;
            Ok(base(m, z, libm::exp(ln_eps2), false))
        }
        (_, Some(m)) => {
            let cert = Certifier::new(variant, c, t, ln_inv_eps1);
            let z = cert.threshold(m);
            let e = score::score_error_bound(m, t);
            let ln_miss = cert.miss_log_bound(m, z + 2.0 * e);
            Ok(base(m, z, libm::exp(ln_miss.min(0.0)), true))
        }
    }
}

// ------------------------------------------------------------------------------------------
// Quadrature
// ------------------------------------------------------------------------------------------

const GL_POINTS: usize = 16;

/// Nodes and weights of 16-point Gauss–Legendre quadrature on `[-1, 1]` (Newton's method on the
/// Legendre polynomial, from the standard initial guesses).
fn gauss_legendre() -> &'static ([f64; GL_POINTS], [f64; GL_POINTS]) {
    static GL: OnceLock<([f64; GL_POINTS], [f64; GL_POINTS])> = OnceLock::new();
    GL.get_or_init(|| {
        let n = GL_POINTS;
        let mut x = [0.0; GL_POINTS];
        let mut w = [0.0; GL_POINTS];
        for i in 0..n.div_ceil(2) {
            let mut z = libm::cos(std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5));
            let mut dp = 1.0;
            for _ in 0..100 {
                let (mut p1, mut p2) = (1.0f64, 0.0f64);
                for j in 1..=n {
                    let p3 = p2;
                    p2 = p1;
                    p1 = ((2 * j - 1) as f64 * z * p2 - (j - 1) as f64 * p3) / j as f64;
                }
                dp = n as f64 * (z * p1 - p2) / (z * z - 1.0);
                let z_old = z;
                z = z_old - p1 / dp;
                if (z - z_old).abs() <= 1e-15 {
                    break;
                }
            }
            x[i] = -z;
            x[n - 1 - i] = z;
            let wi = 2.0 / ((1.0 - z * z) * dp * dp);
            w[i] = wi;
            w[n - 1 - i] = wi;
        }
        (x, w)
    })
}

/// One quadrature node in `r`, with everything the bounds need.
#[derive(Clone, Copy, Debug)]
struct Node {
    /// ln(weight), weights summing to 1 (the uniform density of `r` included).
    lw: f64,
    p: f64,
    lp: f64,
    lq: f64,
    /// `√((1-p)/p)`.
    cot: f64,
    /// `√(p/(1-p))`.
    tan: f64,
    /// `√(p(1-p))`.
    sigma: f64,
}

fn nodes(t: f64, panels: usize) -> Vec<Node> {
    let (gx, gw) = gauss_legendre();
    let a = libm::asin(libm::sqrt(t));
    let b = FRAC_PI_2 - a;
    let h = (b - a) / panels as f64;
    let mut out = Vec::with_capacity(panels * GL_POINTS);
    for k in 0..panels {
        let mid = a + (k as f64 + 0.5) * h;
        for i in 0..GL_POINTS {
            let r = mid + 0.5 * h * gx[i];
            let (s, c) = (libm::sin(r), libm::cos(r));
            let weight = 0.5 * h * gw[i] / (b - a);
            out.push(Node {
                lw: libm::log(weight),
                p: s * s,
                lp: 2.0 * libm::log(s),
                lq: 2.0 * libm::log(c),
                cot: c / s,
                tan: s / c,
                sigma: s * c,
            });
        }
    }
    out
}

/// Running `ln Σ exp(v)` in one pass.
#[derive(Clone, Copy)]
struct LogSum {
    max: f64,
    sum: f64,
}

impl LogSum {
    fn new() -> Self {
        Self {
            max: f64::NEG_INFINITY,
            sum: 0.0,
        }
    }
    #[inline]
    fn add(&mut self, v: f64) {
        if v == f64::NEG_INFINITY {
            return;
        }
        if v > self.max {
            self.sum = self.sum * libm::exp(self.max - v) + 1.0;
            self.max = v;
        } else {
            self.sum += libm::exp(v - self.max);
        }
    }
    fn value(self) -> f64 {
        if self.sum == 0.0 {
            f64::NEG_INFINITY
        } else {
            self.max + libm::log(self.sum)
        }
    }
}

fn log_add_exp(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        hi
    } else {
        hi + libm::log1p(libm::exp(lo - hi))
    }
}

/// Minimises `f` over `x > 0`, assumed unimodal, by a bracket search and golden-section search in
/// `ln x`, starting from `x0` and staying within `[lo, hi]`. Returns the best point seen and its
/// value (any point gives a valid bound, so the search only has to be good, not exact).
fn minimize_positive(mut f: impl FnMut(f64) -> f64, x0: f64, lo: f64, hi: f64) -> (f64, f64) {
    let (ulo, uhi) = (libm::log(lo), libm::log(hi));
    let mut best = (x0, f(x0));
    let mut eval = |u: f64, best: &mut (f64, f64)| {
        let x = libm::exp(u);
        let v = f(x);
        if v < best.1 {
            *best = (x, v);
        }
        v
    };
    let u0 = libm::log(x0);
    let f0 = best.1;
    // Find a bracket [a, c] around a point b with f(b) <= f(a), f(c).
    let step0 = 0.5;
    let up = eval((u0 + step0).min(uhi), &mut best);
    let (mut a, mut b, mut c, mut fb);
    if up < f0 {
        // Downhill upwards.
        a = u0;
        b = (u0 + step0).min(uhi);
        fb = up;
        let mut step = step0;
        loop {
            step *= 1.6;
            let u = (b + step).min(uhi);
            let v = eval(u, &mut best);
            if v >= fb || u >= uhi {
                c = u;
                break;
            }
            a = b;
            b = u;
            fb = v;
        }
    } else {
        c = (u0 + step0).min(uhi);
        b = u0;
        fb = f0;
        let mut step = step0;
        loop {
            step *= 1.6;
            let u = (b - step).max(ulo);
            let v = eval(u, &mut best);
            if v >= fb || u <= ulo {
                a = u;
                break;
            }
            c = b;
            b = u;
            fb = v;
        }
    }
    // Golden-section search on [a, c].
    let g = 0.381_966_011_250_105_1;
    let _ = fb;
    for _ in 0..80 {
        if c - a < 1e-10 {
            break;
        }
        let (x1, x2) = (a + g * (c - a), c - g * (c - a));
        let (f1, f2) = (eval(x1, &mut best), eval(x2, &mut best));
        if f1 <= f2 {
            c = x2;
        } else {
            a = x1;
        }
        b = 0.5 * (a + c);
    }
    let _ = b;
    best
}

/// The Chernoff certificates of one (variant, coalition size, cut-off, ε1).
struct Certifier {
    variant: Variant,
    c: usize,
    /// `ln(1/ε1)`.
    ln_inv_eps1: f64,
    nodes: Vec<Node>,
    t: f64,
}

/// Per-coalition-size tables of the completeness bound.
struct CoalitionTable {
    k: usize,
    /// `ln w + ln C(k, x) + x ln p + (k - x) ln(1-p)`, indexed `[x * N + i]`.
    lnb: Vec<f64>,
    /// `(x - k p)/σ`, same indexing.
    t1: Vec<f64>,
    /// `ln Σ_i exp(lnb)` per `x` (the `y = 0` term of the Tardos score, which does not depend on
    /// `β`).
    flat: Vec<f64>,
}

impl Certifier {
    fn new(variant: Variant, c: usize, t: f64, ln_inv_eps1: f64) -> Self {
        Self {
            variant,
            c,
            ln_inv_eps1,
            nodes: nodes(t, panels_for(c)),
            t,
        }
    }

    /// `ln E_p max_y E[e^{αU} | p, y]` for an innocent user.
    fn innocent_log_mgf(&self, alpha: f64) -> f64 {
        let mut acc = LogSum::new();
        for n in &self.nodes {
            let m1 = log_add_exp(n.lp + alpha * n.cot, n.lq - alpha * n.tan);
            let m = match self.variant {
                // y = 0 contributes exactly e^0 = 1 to the asymmetric score.
                Variant::Tardos => m1.max(0.0),
                Variant::Symmetric => {
                    m1.max(log_add_exp(n.lq + alpha * n.tan, n.lp - alpha * n.cot))
                }
            };
            acc.add(n.lw + m);
        }
        acc.value()
    }

    /// The smallest threshold the soundness certificate gives for length `m`:
    /// `min_α (m Λ(α) + ln(1/ε1) + margin)/α`. (The minimand is unimodal: its derivative has the
    /// sign of `m(αΛ' - Λ) - C`, which increases with `α` because `Λ` is convex.)
    fn threshold(&self, m: usize) -> f64 {
        let cst = self.ln_inv_eps1 + LOG_MARGIN;
        let mf = m as f64;
        let g = |alpha: f64| (mf * self.innocent_log_mgf(alpha) + cst) / alpha;
        let alpha0 = libm::sqrt(2.0 * cst / mf);
        let (_, z) = minimize_positive(g, alpha0, alpha0 * 1e-6, 50.0);
        z
    }

    fn table(&self, k: usize) -> CoalitionTable {
        let n = self.nodes.len();
        let mut lnb = Vec::with_capacity((k + 1) * n);
        let mut t1 = Vec::with_capacity((k + 1) * n);
        let mut flat = Vec::with_capacity(k + 1);
        let mut ln_binom = 0.0; // ln C(k, x), updated incrementally
        for x in 0..=k {
            if x > 0 {
                ln_binom += libm::log((k - x + 1) as f64 / x as f64);
            }
            let mut acc = LogSum::new();
            for nd in &self.nodes {
                let v = nd.lw + ln_binom + x as f64 * nd.lp + (k - x) as f64 * nd.lq;
                lnb.push(v);
                t1.push((x as f64 - k as f64 * nd.p) / nd.sigma);
                acc.add(v);
            }
            flat.push(acc.value());
        }
        CoalitionTable { k, lnb, t1, flat }
    }

    /// `ln Σ_x max_y E[e^{-βT} 1{x}]` for a coalition of size `k`.
    fn coalition_log_mgf(&self, tab: &CoalitionTable, beta: f64) -> f64 {
        let n = self.nodes.len();
        let k = tab.k;
        let mut total = LogSum::new();
        for x in 0..=k {
            let lnb = &tab.lnb[x * n..(x + 1) * n];
            let t1 = &tab.t1[x * n..(x + 1) * n];
            // y = 1 is allowed unless x = 0; y = 0 unless x = k.
            let one = if x > 0 {
                let mut acc = LogSum::new();
                for i in 0..n {
                    acc.add(lnb[i] - beta * t1[i]);
                }
                acc.value()
            } else {
                f64::NEG_INFINITY
            };
            let zero = if x < k {
                match self.variant {
                    Variant::Tardos => tab.flat[x],
                    Variant::Symmetric => {
                        let mut acc = LogSum::new();
                        for i in 0..n {
                            acc.add(lnb[i] + beta * t1[i]);
                        }
                        acc.value()
                    }
                }
            } else {
                f64::NEG_INFINITY
            };
            total.add(one.max(zero));
        }
        total.value()
    }

    /// `min_β β k Z + m ln G_k(β)` and the minimising `β`.
    fn coalition_bound(&self, tab: &CoalitionTable, m: usize, z: f64, beta0: f64) -> (f64, f64) {
        let mf = m as f64;
        let kz = tab.k as f64 * z;
        let h = |beta: f64| beta * kz + mf * self.coalition_log_mgf(tab, beta);
        minimize_positive(h, beta0, beta0 * 1e-8, 50.0)
    }

    /// A starting `β` for coalition size `k` (the Gaussian-approximation optimum, with the
    /// coalition's mean score per position taken as `2/π`).
    fn beta_guess(&self, k: usize, m: usize, z: f64) -> f64 {
        let mf = m as f64;
        let gap = (mf * std::f64::consts::FRAC_2_PI - k as f64 * z).max(1e-3 * mf);
        (gap / (mf * k as f64)).clamp(1e-9, 10.0)
    }

    /// `ln` of the largest completeness bound over coalition sizes `1..=c`, at threshold `z`.
    fn miss_log_bound(&self, m: usize, z: f64) -> f64 {
        let tab = self.table(self.c);
        let (beta_c, mut worst) = self.coalition_bound(&tab, m, z, self.beta_guess(self.c, m, z));
        for k in (1..self.c).rev() {
            worst = worst.max(self.size_bound(k, m, z, beta_c, worst));
        }
        worst
    }

    /// A completeness log-bound for coalition size `k`: the bound at `beta_c` (the optimum for
    /// size `c`) if that is at most `enough` (any `β` gives a valid bound, and one evaluation
    /// settles most sizes), else the minimum over `β`.
    fn size_bound(&self, k: usize, m: usize, z: f64, beta_c: f64, enough: f64) -> f64 {
        let tab = self.table(k);
        let quick = beta_c * k as f64 * z + m as f64 * self.coalition_log_mgf(&tab, beta_c);
        if quick <= enough {
            return quick;
        }
        let (_, v) = self.coalition_bound(&tab, m, z, self.beta_guess(k, m, z));
        v.min(quick)
    }

    /// Whether every coalition size `k < c` has a completeness bound `<= target` (log) at
    /// threshold `z`; stops at the first failure.
    fn all_sizes_certified(&self, m: usize, z: f64, target: f64, beta_c: f64) -> bool {
        (1..self.c)
            .rev()
            .all(|k| self.size_bound(k, m, z, beta_c, target) <= target)
    }

    /// The smallest length certified for miss rate `exp(ln_eps2)`, and its threshold.
    fn shortest_length(&self, ln_eps2: f64) -> Result<(usize, f64)> {
        let target = ln_eps2 - LOG_MARGIN;
        let tab_c = self.table(self.c);
        // (certified?, threshold Z, β at the optimum for k = c) for length m, coalition size c.
        let check = |m: usize| -> (bool, f64, f64) {
            let z = self.threshold(m);
            let e = score::score_error_bound(m, self.t);
            let zc = z + 2.0 * e;
            let (beta, v) = self.coalition_bound(&tab_c, m, zc, self.beta_guess(self.c, m, zc));
            (v <= target, z, beta)
        };
        let c2l = (self.c * self.c) as f64 * self.ln_inv_eps1;
        let guess = (libm::ceil(11.2 * c2l) as usize).clamp(1, MAX_LENGTH);
        let too_long = || {
            Error::invalid(
                "coalition_size",
                "the certified length exceeds 2**40 positions".to_string(),
            )
        };
        // Bracket: lo fails, hi passes.
        let mut hi = guess;
        while !check(hi).0 {
            if hi >= MAX_LENGTH {
                return Err(too_long());
            }
            hi = (hi * 2).min(MAX_LENGTH);
        }
        let mut lo = hi / 2;
        while lo >= 1 && check(lo).0 {
            hi = lo;
            lo /= 2;
        }
        // lo == 0 stands for "fails" (a code of length 0 traces nobody).
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if check(mid).0 {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        // The search used the largest coalition (always the hardest in practice); certify every
        // smaller size, lengthening the code if one fails.
        let mut m = hi;
        loop {
            let (ok, z, beta) = check(m);
            let e = score::score_error_bound(m, self.t);
            if ok && self.all_sizes_certified(m, z + 2.0 * e, target, beta) {
                return Ok((m, z));
            }
            if m >= MAX_LENGTH {
                return Err(too_long());
            }
            m = (m + m / 100 + 1).min(MAX_LENGTH);
        }
    }
}

/// Quadrature panels: enough to resolve the binomial weights of a coalition of `c` users, whose
/// width in `r` is about `1/(2√c)`.
/// The count is even, so that `r = π/4` (`p = 1/2`), where the symmetric score's `max(M_0, M_1)`
/// has its kink, is a panel edge.
fn panels_for(c: usize) -> usize {
    let p = (libm::ceil(2.0 * libm::sqrt(c as f64)) as usize).max(16);
    p + p % 2
}

/// Soundness and completeness log-bounds at given (length, threshold), for tests and
/// diagnostics: `(ln P[innocent accused] bound, ln miss-rate bound)`.
pub fn certificate_log_bounds(
    variant: Variant,
    coalition_size: usize,
    per_user: f64,
    length: usize,
    threshold: f64,
) -> (f64, f64) {
    let t = cutoff(coalition_size);
    let cert = Certifier::new(variant, coalition_size, t, -libm::log(per_user));
    let mf = length as f64;
    let g = |alpha: f64| -alpha * threshold + mf * cert.innocent_log_mgf(alpha);
    let alpha0 = (threshold / mf).max(1e-9);
    let (_, sound) = minimize_positive(g, alpha0, alpha0 * 1e-6, 50.0);
    (sound, cert.miss_log_bound(length, threshold))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauss_legendre_integrates_polynomials_exactly() {
        let (x, w) = gauss_legendre();
        let sum_w: f64 = w.iter().sum();
        assert!((sum_w - 2.0).abs() < 1e-14);
        // ∫ x^30 over [-1, 1] = 2/31.
        let v: f64 = x.iter().zip(w).map(|(x, w)| w * x.powi(30)).sum();
        assert!((v - 2.0 / 31.0).abs() < 1e-14, "{v}");
        let nd = nodes(cutoff(5), 16);
        let total: f64 = nd.iter().map(|n| n.lw.exp()).sum();
        assert!((total - 1.0).abs() < 1e-13);
    }

    #[test]
    fn quadrature_resolution_is_sufficient() {
        for &(variant, c) in &[
            (Variant::Symmetric, 1usize),
            (Variant::Symmetric, 2),
            (Variant::Symmetric, 7),
            (Variant::Tardos, 5),
            (Variant::Symmetric, 40),
        ] {
            let t = cutoff(c);
            let li = -libm::log(1e-4);
            let a = Certifier::new(variant, c, t, li);
            let mut b = Certifier::new(variant, c, t, li);
            b.nodes = nodes(t, 2 * panels_for(c) + 6);
            let m = 12 * c * c * 10;
            let za = a.threshold(m);
            let zb = b.threshold(m);
            assert!((za - zb).abs() < 1e-9 * za, "{variant:?} c={c}: {za} {zb}");
            let ma = a.miss_log_bound(m, za);
            let mb = b.miss_log_bound(m, za);
            assert!(
                (ma - mb).abs() < 1e-7 * ma.abs().max(1.0),
                "{variant:?} c={c}: {ma} {mb}"
            );
        }
    }

    #[test]
    fn per_user_rate_follows_errata_002_13() {
        assert_eq!(per_user_rate(100, 10, 0.01), 1e-4);
        assert_eq!(per_user_rate(4, 4, 0.1), 0.025);
        // n = 2, c = 2, ξ = 0.1: min(0.05, 0.01) = 0.01, and ε1^(c/4) = 0.1 <= ξ.
        let e = per_user_rate(2, 2, 0.1);
        assert!((e - 0.01).abs() < 1e-15);
        assert!(libm::pow(e, 0.5) <= 0.1 + 1e-15);
        let e = per_user_rate(3, 1, 0.2);
        assert!(libm::pow(e, 0.25) <= 0.2 + 1e-12);
    }

    #[test]
    fn tardos_constants() {
        let p = parameters(100, 5, 1e-3, Variant::Tardos, None).unwrap();
        // ε1 = 1e-5, κ = ⌈11.51⌉ = 12.
        assert_eq!(p.kappa, 12);
        assert_eq!(p.length, 100 * 25 * 12);
        assert_eq!(p.certified_threshold, 20.0 * 5.0 * 12.0);
        assert!(p.threshold > p.certified_threshold);
        assert!(p.threshold - p.certified_threshold < 1e-6);
        assert_eq!(p.cutoff, 1.0 / 1500.0);
        assert!((p.miss_rate - 1e-5f64.powf(1.25)).abs() < 1e-20);
    }

    #[test]
    fn tardos_theorem_is_consistent_with_the_certificates() {
        // Tardos' constants satisfy both numerical certificates, with room to spare.
        for &(n, c, xi) in &[(20usize, 2usize, 0.1f64), (50, 5, 1e-3), (10, 10, 0.5)] {
            let p = parameters(n, c, xi, Variant::Tardos, None).unwrap();
            let (s, miss) = certificate_log_bounds(
                Variant::Tardos,
                c,
                p.per_user,
                p.length,
                p.certified_threshold + 2.0 * p.score_error,
            );
            assert!(s < libm::log(p.per_user), "soundness c={c}");
            assert!(miss < libm::log(p.miss_rate), "completeness c={c}");
        }
    }

    #[test]
    fn symmetric_length_is_certified_and_shortest() {
        for &(n, c, xi) in &[(40usize, 5usize, 0.2f64), (100, 2, 1e-3), (30, 10, 0.5)] {
            let p = parameters(n, c, xi, Variant::Symmetric, None).unwrap();
            let ratio = p.length as f64 / ((c * c) as f64 * -libm::log(p.per_user));
            assert!(
                ratio > 10.0 && ratio < 16.0,
                "c={c}: m/(c² ln(1/ε1)) = {ratio}"
            );
            let (s, miss) = certificate_log_bounds(
                Variant::Symmetric,
                c,
                p.per_user,
                p.length,
                p.certified_threshold + 2.0 * p.score_error,
            );
            assert!(s <= libm::log(p.per_user), "soundness c={c}");
            assert!(miss <= libm::log(p.miss_rate), "miss c={c}");
            // One position shorter is not certified.
            let q = parameters(n, c, xi, Variant::Symmetric, Some(p.length - 1)).unwrap();
            assert!(
                q.miss_rate > p.miss_rate,
                "c={c}: {} vs {}",
                q.miss_rate,
                p.miss_rate
            );
        }
    }

    #[test]
    fn given_lengths_trade_miss_rate_for_length() {
        let full = parameters(40, 5, 0.2, Variant::Symmetric, None).unwrap();
        let part = parameters(40, 5, 0.2, Variant::Symmetric, Some(full.length * 3 / 4)).unwrap();
        let half = parameters(40, 5, 0.2, Variant::Symmetric, Some(full.length / 2)).unwrap();
        let tiny = parameters(40, 5, 0.2, Variant::Symmetric, Some(10)).unwrap();
        assert!(part.miss_rate > full.miss_rate && part.miss_rate < 1.0);
        assert!(part.certified_threshold < full.certified_threshold);
        // At half the length the completeness bound says nothing.
        assert_eq!(half.miss_rate, 1.0);
        assert_eq!(tiny.miss_rate, 1.0);
        let longer = parameters(40, 5, 0.2, Variant::Symmetric, Some(full.length * 2)).unwrap();
        assert!(longer.miss_rate < full.miss_rate);
    }

    #[test]
    fn bad_arguments_are_rejected() {
        let e = |r: Result<Params>| match r {
            Err(Error::InvalidParameter { name, .. }) => name.into_owned(),
            other => panic!("expected an error, got {other:?}"),
        };
        assert_eq!(e(parameters(0, 1, 0.1, Variant::Tardos, None)), "n_users");
        assert_eq!(
            e(parameters(5, 6, 0.1, Variant::Tardos, None)),
            "coalition_size"
        );
        assert_eq!(
            e(parameters(5, 0, 0.1, Variant::Tardos, None)),
            "coalition_size"
        );
        for bad in [0.0, 1.0, -0.1, f64::NAN, f64::INFINITY] {
            assert_eq!(
                e(parameters(5, 2, bad, Variant::Tardos, None)),
                "false_accusation"
            );
        }
        assert_eq!(e(parameters(5, 2, 0.1, Variant::Tardos, Some(0))), "length");
        assert_eq!(
            e(parameters(5000, 1001, 0.1, Variant::Tardos, None)),
            "coalition_size"
        );
        assert_eq!(
            e(parameters(1 << 30, 2, 1e-295, Variant::Tardos, None)),
            "false_accusation"
        );
        assert_eq!(
            e("majority".parse::<Variant>().map(|_| unreachable!())),
            "variant"
        );
    }
}

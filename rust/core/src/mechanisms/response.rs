//! Randomized response (Warner 1965; Dwork and Roth, Section 3.2), exactly sampled.
//!
//! Binary: each bit is reported truthfully with probability `e^ε / (1 + e^ε)` and flipped
//! otherwise: `ε`-DP per bit (local model; a dataset of bits under replace-one is `ε`-DP when
//! each record's bit is randomised). k-ary ("generalised randomized response"): the true value
//! with probability `e^ε / (e^ε + k - 1)`, otherwise one of the other `k - 1` values uniformly:
//! `ε`-DP.
//!
//! Exactness: with `q = e^{-ε}` sampled as an exact Bernoulli(`e^{-ε}`) (`ε` is a dyadic
//! rational, read exactly from its double), the loop "draw `C` uniform on `{0..k-1}`; if `C` is
//! the true value report it, else report `C` with probability `q` (else repeat)" reports the truth
//! with probability exactly `1 / (1 + (k - 1) q)` and each other value with `q / (1 + (k - 1) q)`.
//! `ε` above `2^40` is treated as `2^40` and below `2^-100` as 0 (both round it down: more
//! privacy, no visible change).

use crate::error::{Error, Result, check_epsilon};
use crate::exact::bernoulli_exp_neg;
use crate::grid::decompose;
use crate::rng::Rng;

/// `ε` as an exact dyadic `num / 2^den_log2`, rounded down as described in the module docs.
fn epsilon_ratio(epsilon: f64) -> (u128, u128) {
    let eps = epsilon.min(2f64.powi(40));
    let (m, e) = decompose(eps);
    if e >= 0 {
        (u128::from(m) << e, 1)
    } else if -e <= 100 {
        (u128::from(m), 1u128 << (-e))
    } else {
        let shift = (-e - 100) as u32;
        (u128::from(m >> shift.min(63)), 1u128 << 100)
    }
}

/// Randomised `k`-ary responses of `values` (each in `0..k`), `k >= 2`.
pub fn randomized_response_k(
    values: &[u64],
    k: u64,
    epsilon: f64,
    rng: &mut Rng,
) -> Result<Vec<u64>> {
    check_epsilon(epsilon, "epsilon")?;
    if k < 2 {
        return Err(Error::invalid(
            "k",
            format!("must be an integer >= 2, got {k}"),
        ));
    }
    // The values are private: the refusal names the declared domain, never an offending value.
    if values.iter().any(|&v| v >= k) {
        return Err(Error::invalid(
            "values",
            format!("must lie in 0..k = 0..{k} (the declared domain)"),
        ));
    }
    let (num, den) = epsilon_ratio(epsilon);
    Ok(values
        .iter()
        .map(|&v| {
            loop {
                let c = rng.below(k);
                if c == v || bernoulli_exp_neg(rng, num, den) {
                    return c;
                }
            }
        })
        .collect())
}

/// Randomised binary responses of `bits`.
pub fn randomized_response(bits: &[bool], epsilon: f64, rng: &mut Rng) -> Result<Vec<bool>> {
    let as_int: Vec<u64> = bits.iter().map(|&b| u64::from(b)).collect();
    Ok(randomized_response_k(&as_int, 2, epsilon, rng)?
        .into_iter()
        .map(|v| v == 1)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::assert_law_with_power;

    /// The k-ary law for true value `t`: `e^ε / (e^ε + k - 1)` on `t`, `1 / (e^ε + k - 1)` on
    /// each other value (Dwork and Roth, Section 3.2; generalised randomized response).
    fn law(k: u64, t: u64, eps: f64) -> Vec<f64> {
        let z = eps.exp() + (k - 1) as f64;
        (0..k)
            .map(|v| if v == t { eps.exp() / z } else { 1.0 / z })
            .collect()
    }

    #[test]
    fn truth_probabilities() {
        // Chi-square over the k reported values; power: the same counts reject the laws at
        // epsilon halved and epsilon 1.3 times larger.
        let mut rng = Rng::from_seed(1);
        let n = 100_000;
        for &(k, t, eps) in &[(2u64, 1u64, 1.0f64), (5, 3, 0.5), (3, 0, 3.0), (7, 6, 1.7)] {
            let out = randomized_response_k(&vec![t; n], k, eps, &mut rng).unwrap();
            let mut counts = vec![0u64; k as usize];
            for v in out {
                counts[v as usize] += 1;
            }
            assert_law_with_power(
                &counts,
                &law(k, t, eps),
                &[&law(k, t, eps / 2.0), &law(k, t, eps * 1.3)],
                &format!("k-ary randomized response k={k} eps={eps}"),
            );
        }
        // The binary mechanism: truth with probability e^eps / (1 + e^eps).
        let bits: Vec<bool> = (0..n).map(|i| i % 3 == 0).collect();
        let out = randomized_response(&bits, 0.8, &mut rng).unwrap();
        let kept = bits.iter().zip(&out).filter(|(a, b)| a == b).count() as u64;
        let keep = |e: f64| {
            let p = e.exp() / (1.0 + e.exp());
            vec![p, 1.0 - p]
        };
        assert_law_with_power(
            &[kept, n as u64 - kept],
            &keep(0.8),
            &[&keep(0.4), &keep(0.8 * 1.3)],
            "binary randomized response",
        );
        assert!(randomized_response_k(&[3], 3, 1.0, &mut rng).is_err());
        assert!(randomized_response_k(&[0], 1, 1.0, &mut rng).is_err());
        let (num, den) = epsilon_ratio(1.5);
        assert_eq!(num * 2, den * 3);
    }
}

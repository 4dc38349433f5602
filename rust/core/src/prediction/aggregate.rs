//! Private aggregation of `k` votes, the last step of subsample-and-aggregate and of the
//! realizable-case private predictor used inside Theorem 2 (Dagan and Feldman, COLT 2020, Lemma 6
//! after Dwork and Feldman, COLT 2018, and Bassily, Thakurta and Thakkar, NeurIPS 2018).
//!
//! `k` models are trained on the `k` disjoint blocks of a partition of the sample; replacing one
//! example changes one model, hence one vote. With `c` the number of models voting 1 at `x`:
//!
//! * [`noisy_vote`]: the exponential mechanism on the counts, `Pr[1] = e^{εc/2} / (e^{εc/2} +
//!   e^{ε(k-c)/2})`: `c` and `k - c` move by at most 1, so each answer is an ε-private
//!   prediction. Sampled exactly ([`crate::expmech::exact`] on the integer scores).
//! * [`randomized_response`]: the vote of a uniformly random model, flipped with probability
//!   `p`: `Pr[1] = p + (1 - 2p) c/k`. It is at least `p` for both labels and moves by at most
//!   `(1 - 2p)/k`, so each answer is `ln(1 + (1-2p)/(kp))`-private (the baseline of Dwork and
//!   Feldman 2018 with the flip of Corollary 1). Sampled exactly (uniform index, exact
//!   Bernoulli(`p`)).

use super::{Flip, per_query};
use crate::error::{Error, Result, check_epsilon};
use crate::expmech::exact::sample_i64;
use crate::rng::Rng;

/// One exact draw of the private vote: `true` with probability `e^{εc/2} / (e^{εc/2} +
/// e^{ε(k-c)/2})`.
pub fn vote(c: u64, k: u64, epsilon: f64, rng: &mut Rng) -> Result<bool> {
    debug_assert!(c <= k);
    Ok(sample_i64(&[(k - c) as i64, c as i64], epsilon, 1.0, 1, rng)?[0] == 1)
}

/// Checks a `q x k` vote matrix and returns `q`.
fn check_votes(votes: &[bool], k: usize) -> Result<usize> {
    if k == 0 || !votes.len().is_multiple_of(k) {
        return Err(Error::invalid(
            "n_teachers",
            format!(
                "the votes must form rows of k >= 1 teachers, got {} votes for k = {k}",
                votes.len()
            ),
        ));
    }
    Ok(votes.len() / k)
}

/// One private-vote answer per row of the `q x k` matrix `votes` (row `j` holds the `k` models'
/// labels at query `j`); each answer is an independent release.
pub fn noisy_vote(votes: &[bool], k: usize, epsilon: f64, rng: &mut Rng) -> Result<Vec<bool>> {
    check_epsilon(epsilon, "epsilon")?;
    let q = check_votes(votes, k)?;
    let counts: Vec<f64> = (0..q)
        .map(|j| votes[j * k..(j + 1) * k].iter().filter(|&&v| v).count() as f64)
        .collect();
    per_query(&counts, 1, rng, |c, r| {
        vote(c[0] as u64, k as u64, epsilon, r)
    })
}

/// One randomized-response answer per row of `votes`: a uniformly random model's vote, flipped
/// with probability `p`.
pub fn randomized_response(
    votes: &[bool],
    k: usize,
    flip: Flip,
    rng: &mut Rng,
) -> Result<Vec<bool>> {
    let q = check_votes(votes, k)?;
    let rows: Vec<f64> = (0..q).map(|j| j as f64).collect();
    per_query(&rows, 1, rng, |j, r| {
        let j = j[0] as usize;
        let t = r.below(k as u64) as usize;
        Ok(flip.apply(votes[j * k + t], r))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::assert_rate;

    fn rate(v: &[bool]) -> f64 {
        v.iter().filter(|&&b| b).count() as f64 / v.len() as f64
    }

    #[test]
    fn vote_probabilities() {
        let mut rng = Rng::from_seed(9);
        let k = 5;
        let draws = 20_000;
        for c in 0..=k {
            let row: Vec<bool> = (0..k).map(|i| i < c).collect();
            let votes: Vec<bool> = row.iter().copied().cycle().take(k * draws).collect();
            let eps = 0.8;
            let p = 1.0 / (1.0 + (eps * (k as f64 - 2.0 * c as f64) / 2.0).exp());
            let got = rate(&noisy_vote(&votes, k, eps, &mut rng).unwrap());
            assert_rate(got, p, draws, 0.0, &format!("noisy vote, {c} ones"));
            let f = Flip::new(1, 10).unwrap();
            let p = 0.1 + 0.8 * c as f64 / k as f64;
            let got = rate(&randomized_response(&votes, k, f, &mut rng).unwrap());
            assert_rate(
                got,
                p,
                draws,
                1e-9,
                &format!("randomized response, {c} ones"),
            );
        }
        assert!(noisy_vote(&[true; 3], 2, 1.0, &mut rng).is_err());
        assert!(noisy_vote(&[true; 2], 0, 1.0, &mut rng).is_err());
        assert!(noisy_vote(&[true; 2], 2, -1.0, &mut rng).is_err());
    }
}

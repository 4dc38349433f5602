//! The robust Boneh–Shaw code (seed 002 note §4.2, "robust variant").
//!
//! Boneh and Shaw ("Collusion-secure fingerprinting for digital data", IEEE Trans. Inf. Theory
//! 44(5), 1998) repeat each column type `R` times and hide the columns under a secret random
//! permutation. A column of *type* `t` has a 1 exactly for users `1..t` (a threshold labelling,
//! which is what makes the code compatible with THRESH in seed 002 Lemma 4.5). The robust variant
//! uses types `0..n` (including the all-zero and all-one columns) and the trace below, which is
//! sound for *any* word, feasible or not (the literal Boneh–Shaw trace accuses user 1 on seeing a
//! 1 in a type-0 column, which an infeasible word can fake).
//!
//! * `L = ln(2n/ξ)` (natural log, ERRATA 002-8; the code uses the double just above it),
//!   `R = ⌊2 n² L⌋ + 1`, length `(n + 1) R`.
//! * Trace: with `w_t` the number of 1s of the word in the columns of type `t` and
//!   `K_s = w_{s-1} + w_s`, accuse user `s` (1-based) iff `w_{s-1} < K_s/2 - √(K_s L / 2)`.
//!   The comparison is made exactly in integers: `K_s - 2 w_{s-1} > 0` and
//!   `(K_s - 2 w_{s-1})² > 2 K_s L`.
//!
//! Guarantees (proofs in the note; restated):
//! * **Soundness, any word:** for an innocent `s`, types `s-1` and `s` differ only in user `s`'s
//!   bit, so the coalition cannot tell them apart and `w_{s-1}` is hypergeometric with mean
//!   `K_s/2` given everything it sees; Hoeffding's bound (valid without replacement) gives
//!   probability at most `e^{-L} = ξ/(2n)`, and `ξ/2` over all innocents.
//! * **Completeness, deterministic for feasible words:** `w_0 = 0` and `w_n = R`; if nobody were
//!   accused, `√w_s - √w_{s-1} <= √(2L)` for every `s`, so `√R <= n √(2L)`, contradicting
//!   `R > 2 n² L`. The miss rate is 0.

use crate::error::{Error, Result};
use crate::rng::Rng;

use super::bits::{word_mask, words_for};
use super::params::{MAX_LENGTH, check_rate};
use super::try_zeroed;

/// Parameters of the robust Boneh–Shaw code.
#[derive(Clone, Debug, PartialEq)]
pub struct BonehShawParams {
    /// Number of users `n`.
    pub n_users: usize,
    /// `ξ`: bound on the probability of accusing any innocent (the code achieves `ξ/2`).
    pub false_accusation: f64,
    /// `L >= ln(2n/ξ)`, the double the code uses.
    pub log_term: f64,
    /// Repetitions `R = ⌊2 n² L⌋ + 1` of each column type.
    pub repetitions: usize,
    /// Length `(n + 1) R`.
    pub length: usize,
}

/// `L`: a double at least `ln(2n/ξ)` (the rounded logarithm, stepped up past its error).
fn log_term(n: usize, xi: f64) -> f64 {
    let l = libm::log(2.0 * n as f64 / xi);
    // The double computations above are within a few ulps; step well above them.
    l * (1.0 + libm::ldexp(1.0, -48))
}

fn split(x: f64) -> (u128, i32) {
    // x > 0, normal: x = mantissa * 2^exp exactly.
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    let mantissa = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    (u128::from(mantissa), e - 1075)
}

/// Parameters for `n_users` users and false-accusation bound `false_accusation`.
pub fn boneh_shaw_parameters(n_users: usize, false_accusation: f64) -> Result<BonehShawParams> {
    if n_users == 0 || n_users > 1 << 20 {
        return Err(Error::invalid(
            "n_users",
            format!("must be an integer in [1, 2**20], got {n_users}"),
        ));
    }
    check_rate(false_accusation, "false_accusation")?;
    let l = log_term(n_users, false_accusation);
    let (mant, exp) = split(l);
    let n = n_users as u128;
    // ⌊2 n² L⌋ exactly: L = mant 2^exp with exp < 0 (L < 2^52).
    let prod = 2 * n * n * mant;
    let floor = if exp >= 0 {
        prod << exp
    } else {
        prod >> (-exp)
    };
    let repetitions = floor + 1;
    let length = repetitions
        .checked_mul(n + 1)
        .filter(|&v| v <= MAX_LENGTH as u128)
        .ok_or_else(|| {
            Error::invalid(
                "n_users",
                format!(
                    "the Boneh-Shaw code for {n_users} users would have more than 2**40 positions"
                ),
            )
        })?;
    Ok(BonehShawParams {
        n_users,
        false_accusation,
        log_term: l,
        repetitions: repetitions as usize,
        length: length as usize,
    })
}

/// A robust Boneh–Shaw code: the secret column types (a uniformly random arrangement of `R`
/// columns of each type `0..=n`). User `u` (0-based) has a 1 in column `j` iff `u < type_j`.
#[derive(Clone, Debug)]
pub struct BonehShawCode {
    params: BonehShawParams,
    types: Vec<u32>,
}

impl BonehShawCode {
    /// Draws a code (a Fisher–Yates shuffle of the column types with `rng`).
    pub fn new(n_users: usize, false_accusation: f64, rng: &mut Rng) -> Result<Self> {
        let params = boneh_shaw_parameters(n_users, false_accusation)?;
        let mut types = try_zeroed::<u32>(params.length, "n_users")?;
        for (j, t) in types.iter_mut().enumerate() {
            *t = (j / params.repetitions) as u32;
        }
        for i in (1..types.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            types.swap(i, j);
        }
        Ok(Self { params, types })
    }

    /// The parameters.
    pub fn params(&self) -> &BonehShawParams {
        &self.params
    }

    /// The type of every column.
    pub fn types(&self) -> &[u32] {
        &self.types
    }

    /// The packed codewords of `users` (0-based), concatenated (errors name `coalition`).
    pub fn rows_of(&self, users: &[usize]) -> Result<Vec<u64>> {
        let m = self.params.length;
        let words = words_for(m);
        let mut out = try_zeroed::<u64>(users.len() * words, "coalition")?;
        for (r, &u) in users.iter().enumerate() {
            super::check_user(u, self.params.n_users)?;
            let row = &mut out[r * words..(r + 1) * words];
            for (j, &t) in self.types.iter().enumerate() {
                if (u as u32) < t {
                    row[j / 64] |= 1u64 << (j % 64);
                }
            }
        }
        Ok(out)
    }

    /// `w_t`, the number of 1s of the packed `word` in the columns of each type `t = 0..=n`.
    pub fn counts(&self, word: &[u64]) -> Result<Vec<u64>> {
        super::check_packed_word(word, self.params.length)?;
        let mut counts = vec![0u64; self.params.n_users + 1];
        for (k, &w) in word.iter().enumerate() {
            let mut x = w & word_mask(self.params.length, k);
            while x != 0 {
                let j = 64 * k + x.trailing_zeros() as usize;
                counts[self.types[j] as usize] += 1;
                x &= x - 1;
            }
        }
        Ok(counts)
    }

    /// The accused users (0-based, ascending) for the packed `word`.
    pub fn trace(&self, word: &[u64]) -> Result<Vec<usize>> {
        let w = self.counts(word)?;
        let (mant, exp) = split(self.params.log_term);
        let mut accused = Vec::new();
        for s in 1..=self.params.n_users {
            let (prev, cur) = (u128::from(w[s - 1]), u128::from(w[s]));
            let k = prev + cur;
            if k <= 2 * prev {
                continue; // K - 2 w_{s-1} <= 0
            }
            let d = k - 2 * prev;
            // d² > 2 K L  with  L = mant 2^exp, exp < 0:  d² > floor(2 K mant / 2^-exp).
            let rhs = (2 * k * mant) >> (-exp);
            if d * d > rhs {
                accused.push(s - 1);
            }
        }
        Ok(accused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tardos::pirate::{Strategy, is_feasible, pirate};

    #[test]
    fn parameters_match_the_note() {
        let p = boneh_shaw_parameters(8, 0.1).unwrap();
        // R = ⌊2 · 64 · ln(160)⌋ + 1 = ⌊649.6⌋ + 1 = 650 (note §7.0: R = 650).
        assert_eq!(p.repetitions, 650);
        assert_eq!(p.length, 9 * 650);
        assert!(p.log_term >= (160f64).ln());
        assert!(boneh_shaw_parameters(0, 0.1).is_err());
        assert!(boneh_shaw_parameters(5, 1.0).is_err());
        assert!(boneh_shaw_parameters(100_000, 0.1).is_err());
    }

    #[test]
    fn structure_and_compatibility() {
        let code = BonehShawCode::new(6, 0.2, &mut Rng::from_seed(1)).unwrap();
        let p = code.params().clone();
        let mut per_type = [0usize; 7];
        for &t in code.types() {
            per_type[t as usize] += 1;
        }
        assert!(per_type.iter().all(|&c| c == p.repetitions));
        let users: Vec<usize> = (0..6).collect();
        let rows = code.rows_of(&users).unwrap();
        let words = words_for(p.length);
        for (j, &t) in code.types().iter().enumerate() {
            // Column j is the threshold labelling of users 1..=6 at t: 1 iff user (1-based) <= t.
            for u in 0..6 {
                let bit = (rows[u * words + j / 64] >> (j % 64)) & 1 == 1;
                assert_eq!(bit, u < t as usize);
            }
        }
    }

    #[test]
    fn feasible_words_are_always_traced_and_innocents_never() {
        let n = 8;
        let mut rng = Rng::from_seed(2);
        for trial in 0..40 {
            let code = BonehShawCode::new(n, 0.1, &mut rng).unwrap();
            let size = 1 + trial % n;
            let mut members: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                members.swap(i, rng.below(i as u64 + 1) as usize);
            }
            members.truncate(size);
            let rows = code.rows_of(&members).unwrap();
            for s in Strategy::ALL {
                let w = pirate(&rows, size, code.params().length, s, &mut rng).unwrap();
                assert!(is_feasible(&w, &rows, size, code.params().length).unwrap());
                let accused = code.trace(&w).unwrap();
                assert!(!accused.is_empty(), "{s:?}: nobody accused");
                assert!(
                    accused.iter().all(|u| members.contains(u)),
                    "{s:?}: {accused:?}"
                );
            }
        }
    }

    #[test]
    fn the_framing_word_does_not_frame_user_one() {
        // All ones: infeasible for a coalition without user 1 (type-0 columns are 0-marked). The
        // literal Boneh–Shaw trace would accuse user 1; the robust one does not.
        let code = BonehShawCode::new(8, 0.1, &mut Rng::from_seed(3)).unwrap();
        let m = code.params().length;
        let words = words_for(m);
        let word: Vec<u64> = (0..words).map(|k| word_mask(m, k)).collect();
        assert!(code.trace(&word).unwrap().is_empty());
    }
}

//! Fingerprinting codes: Tardos codes (original and symmetric score) and the robust Boneh–Shaw
//! code, with pirate strategies that obey the marking assumption.
//!
//! Seed 002 (Bun, Nissim and Stemmer) turns a fingerprinting code into a lower bound for private
//! multi-learning: a coalition's codewords are the labels, an accurate learner's output rounds to
//! a *feasible* pirate word, and tracing that word identifies a member, which differential privacy
//! forbids. This module is the fast, certified primitive behind that reduction.
//!
//! * [`TardosCode`]: `n` users, length `m`. Biases `p_i` arcsine-distributed on `[t, 1-t]`,
//!   codeword bits `X_ui ~ Bernoulli(p_i)` (exactly: each bit compares an infinite-precision
//!   uniform with `p_i`), stored bit-packed user-major (one row of `⌈m/64⌉` words per user).
//!   Tracing computes every user's score, one exact integer bit-matrix x vector product, and
//!   accuses the users above the threshold. Parameters and guarantees: [`params`].
//! * [`boneh_shaw::BonehShawCode`]: the robust variant of the Boneh–Shaw code (seed 002 note
//!   §4.2), sound for arbitrary words and complete (deterministically) for feasible ones.
//! * [`mod@pirate`]: the coalition strategies of the experiments, and the feasibility check.
//!
//! # Generation and the random stream
//!
//! Everything comes from the caller's [`Rng`] (ChaCha20): first the `m` biases (one 53-bit
//! uniform each, `r = t' + u (π/2 - 2t')`, `p = sin² r`), then a 256-bit key for the codewords.
//! Users are generated in blocks of 64, block `b` from the ChaCha20 stream number `b` under that
//! key, so blocks are independent and run in parallel while the output depends only on the seed,
//! never on the number of threads. Within a block, the 64 users' bits at one position form one
//! word, drawn by comparing 64 uniforms with the binary expansion of `p_i` most significant bit
//! first, spending fresh random bits only on the lanes still undecided (BMI2 `pdep`, or its
//! portable equivalent): 128 random bits per 64 codeword bits on average, against 4096 for a
//! 64-bit uniform per bit. Four positions advance level by level together (independent dependency
//! chains), and the 64 x 64 tiles are then transposed to rows. On one core of the project's
//! machine a codeword bit costs about 0.55 ns, of which ChaCha20 (about 4.5 ns per 64-bit output)
//! takes about a fifth; a cryptographic generator is kept because the secrecy of the code (its
//! biases) is what makes tracing sound, and a seeded fast generator would make it predictable.

pub mod bits;
pub mod boneh_shaw;
pub mod params;
pub mod pirate;
pub mod score;
pub mod variant;

use std::f64::consts::FRAC_PI_2;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::rng::{Rng, RngState};

pub use boneh_shaw::{BonehShawCode, BonehShawParams};
pub use params::{Params, parameters};
pub use pirate::{Strategy, is_feasible, pirate};
pub use variant::Variant;

use bits::{
    BitStream, Deposit, SoftDeposit, bernoulli_words, fixed_point_128, transpose64, words_for,
};

/// A Tardos fingerprinting code (see the module documentation).
#[derive(Clone, Debug)]
pub struct TardosCode {
    params: Params,
    biases: Vec<f64>,
    /// `n_users` rows of `words` words.
    rows: Vec<u64>,
    words: usize,
}

/// Allocates a zeroed vector, turning allocation failure into an error naming `what`.
pub(crate) fn try_zeroed<T: Clone + Default>(len: usize, what: &'static str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        Error::invalid(
            what,
            format!(
                "the code needs {len} elements of {} bytes, which cannot be allocated",
                std::mem::size_of::<T>()
            ),
        )
    })?;
    v.resize(len, T::default());
    Ok(v)
}

impl TardosCode {
    /// Computes the parameters ([`params::parameters`]) and generates a code.
    pub fn new(
        n_users: usize,
        coalition_size: usize,
        false_accusation: f64,
        variant: Variant,
        length: Option<usize>,
        rng: &mut Rng,
    ) -> Result<Self> {
        let params = parameters(n_users, coalition_size, false_accusation, variant, length)?;
        Self::generate(params, rng)
    }

    /// Generates a code with the given parameters (biases, then codewords, from `rng`).
    pub fn generate(params: Params, rng: &mut Rng) -> Result<Self> {
        let n = params.n_users;
        let m = params.length;
        let words = words_for(m);
        let total = n
            .checked_mul(words)
            .ok_or_else(|| Error::invalid("n_users", "n_users x length is too large"))?;
        let mut rows = try_zeroed::<u64>(total, "n_users")?;
        let mut biases = try_zeroed::<f64>(m, "length")?;

        let t = params.cutoff;
        let t0 = libm::asin(libm::sqrt(t));
        let span = FRAC_PI_2 - 2.0 * t0;
        for p in biases.iter_mut() {
            let u = (rng.next_u64() >> 11) as f64 * libm::ldexp(1.0, -53);
            let s = libm::sin(t0 + u * span);
            *p = (s * s).clamp(t, 1.0 - t);
        }
        let fixed: Vec<u128> = biases.iter().map(|&p| fixed_point_128(p)).collect();
        let mut key = [0u8; 32];
        for chunk in key.chunks_exact_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }

        rows.par_chunks_mut(64 * words)
            .enumerate()
            .for_each(|(b, block)| {
                let mut stream = Rng::from_state(&RngState {
                    key,
                    stream: b as u64,
                    word_pos: 0,
                    reservoir: 0,
                    reservoir_bits: 0,
                });
                generate_block(block, words, m, &fixed, &mut stream);
            });
        Ok(Self {
            params,
            biases,
            rows,
            words,
        })
    }

    /// The parameters and guarantees.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The biases `p_1..p_m`.
    pub fn biases(&self) -> &[f64] {
        &self.biases
    }

    /// The packed codewords, user-major: `n_users` rows of [`Self::words_per_row`] words.
    pub fn rows(&self) -> &[u64] {
        &self.rows
    }

    /// Words per packed row, `⌈m/64⌉`.
    pub fn words_per_row(&self) -> usize {
        self.words
    }

    /// The packed codeword of user `u`.
    pub fn row(&self, u: usize) -> &[u64] {
        &self.rows[u * self.words..(u + 1) * self.words]
    }

    /// The packed rows of `users`, concatenated (errors name `coalition`).
    pub fn rows_of(&self, users: &[usize]) -> Result<Vec<u64>> {
        let mut out = Vec::with_capacity(users.len() * self.words);
        for &u in users {
            check_user(u, self.params.n_users)?;
            out.extend_from_slice(self.row(u));
        }
        Ok(out)
    }

    fn check_word(&self, word: &[u64]) -> Result<()> {
        check_packed_word(word, self.params.length)
    }

    /// Every user's score for the packed pirate word `word`.
    pub fn scores(&self, word: &[u64]) -> Result<Vec<f64>> {
        self.check_word(word)?;
        let wt = score::weights(&self.biases, word, self.params.variant, self.params.cutoff);
        let prod = score::products(&self.rows, self.words, &wt.w, score::best_kernel());
        Ok(score::scores_from_products(&prod, &wt))
    }

    /// The users (ascending) whose score exceeds `threshold` (default: the code's
    /// [`Params::threshold`]).
    pub fn trace(&self, word: &[u64], threshold: Option<f64>) -> Result<Vec<usize>> {
        let z = threshold.unwrap_or(self.params.threshold);
        if z.is_nan() {
            return Err(Error::invalid("threshold", "must be a number, got NaN"));
        }
        let s = self.scores(word)?;
        Ok(s.iter()
            .enumerate()
            .filter(|&(_, &v)| v > z)
            .map(|(u, _)| u)
            .collect())
    }
}

/// Checks a user index of a coalition (errors name `coalition`).
pub(crate) fn check_user(u: usize, n_users: usize) -> Result<()> {
    if u < n_users {
        Ok(())
    } else {
        Err(Error::invalid(
            "coalition",
            format!("user indices must lie in [0, n_users) = [0, {n_users}), got {u}"),
        ))
    }
}

/// Checks a packed word of `length` bits: the right number of words, zero padding.
pub fn check_packed_word(word: &[u64], length: usize) -> Result<()> {
    let words = words_for(length);
    if word.len() != words {
        return Err(Error::invalid(
            "word",
            format!(
                "must have one bit per position ({length} bits in {words} words), got {} words",
                word.len()
            ),
        ));
    }
    if words > 0 && word[words - 1] & !bits::word_mask(length, words - 1) != 0 {
        return Err(Error::invalid(
            "word",
            "has bits set beyond its length (padding must be zero)",
        ));
    }
    Ok(())
}

/// Generates the rows of one block of at most 64 users.
fn generate_block(block: &mut [u64], words: usize, m: usize, fixed: &[u128], rng: &mut Rng) {
    #[cfg(target_arch = "x86_64")]
    if bits::has_bmi2() {
        // SAFETY: BMI2 was detected at run time.
        unsafe { generate_block_bmi2(block, words, m, fixed, rng) };
        return;
    }
    generate_block_with::<SoftDeposit>(block, words, m, fixed, rng);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,popcnt")]
fn generate_block_bmi2(block: &mut [u64], words: usize, m: usize, fixed: &[u128], rng: &mut Rng) {
    generate_block_with::<bits::HardDeposit>(block, words, m, fixed, rng);
}

#[inline(always)]
fn generate_block_with<D: Deposit>(
    block: &mut [u64],
    words: usize,
    m: usize,
    fixed: &[u128],
    rng: &mut Rng,
) {
    let users = block.len() / words;
    let lanes = if users == 64 {
        u64::MAX
    } else {
        (1u64 << users) - 1
    };
    let mut stream = BitStream::new(rng);
    let mut tile = [0u64; 64];
    for pb in 0..words {
        let first = 64 * pb;
        let count = (m - first).min(64);
        for (g, quad) in tile.chunks_exact_mut(4).enumerate() {
            // Positions past the end get a zero expansion (no draws, zero bits).
            let p: [u128; 4] = std::array::from_fn(|i| {
                let j = 4 * g + i;
                if j < count { fixed[first + j] } else { 0 }
            });
            quad.copy_from_slice(&bernoulli_words::<D>(p, [lanes; 4], &mut stream));
        }
        transpose64(&mut tile);
        for (u, &w) in tile.iter().take(users).enumerate() {
            block[u * words + pb] = w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(variant: Variant, seed: u64) -> TardosCode {
        TardosCode::new(50, 3, 0.1, variant, None, &mut Rng::from_seed(seed)).unwrap()
    }

    #[test]
    fn same_seed_same_code_and_padding_is_zero() {
        let a = small(Variant::Symmetric, 1);
        let b = small(Variant::Symmetric, 1);
        let c = small(Variant::Symmetric, 2);
        assert_eq!(a.rows(), b.rows());
        assert_eq!(a.biases(), b.biases());
        assert_ne!(a.rows(), c.rows());
        let m = a.params().length;
        let w = a.words_per_row();
        for u in 0..50 {
            assert_eq!(a.row(u)[w - 1] & !bits::word_mask(m, w - 1), 0);
        }
    }

    #[test]
    fn generation_does_not_depend_on_the_thread_count() {
        let p = parameters(300, 4, 0.1, Variant::Symmetric, Some(777)).unwrap();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let three = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap();
        let a = one.install(|| TardosCode::generate(p.clone(), &mut Rng::from_seed(5)).unwrap());
        let b = three.install(|| TardosCode::generate(p.clone(), &mut Rng::from_seed(5)).unwrap());
        assert_eq!(a.rows(), b.rows());
    }

    #[test]
    fn software_and_hardware_deposit_give_the_same_code() {
        let p = parameters(130, 4, 0.1, Variant::Symmetric, Some(200)).unwrap();
        let code = TardosCode::generate(p.clone(), &mut Rng::from_seed(8)).unwrap();
        // Regenerate block by block with the portable deposit.
        let mut rng = Rng::from_seed(8);
        for _ in 0..p.length {
            rng.next_u64();
        }
        let mut key = [0u8; 32];
        for chunk in key.chunks_exact_mut(8) {
            chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        let fixed: Vec<u128> = code.biases().iter().map(|&b| fixed_point_128(b)).collect();
        let words = code.words_per_row();
        let mut rows = vec![0u64; 130 * words];
        for (b, block) in rows.chunks_mut(64 * words).enumerate() {
            let mut s = Rng::from_state(&RngState {
                key,
                stream: b as u64,
                word_pos: 0,
                reservoir: 0,
                reservoir_bits: 0,
            });
            generate_block_with::<SoftDeposit>(block, words, p.length, &fixed, &mut s);
        }
        assert_eq!(rows, code.rows());
    }

    #[test]
    fn biases_follow_the_cutoff() {
        let code = small(Variant::Tardos, 3);
        let t = code.params().cutoff;
        assert!(code.biases().iter().all(|&p| p >= t && p <= 1.0 - t));
    }

    #[test]
    fn column_frequencies_match_the_biases() {
        let p = parameters(4000, 2, 0.1, Variant::Symmetric, Some(64)).unwrap();
        let code = TardosCode::generate(p, &mut Rng::from_seed(12)).unwrap();
        for (i, &bias) in code.biases().iter().enumerate() {
            let ones = (0..4000).filter(|&u| bits::get_bit(code.row(u), i)).count() as f64;
            let sd = (4000.0 * bias * (1.0 - bias)).sqrt();
            assert!(
                (ones - 4000.0 * bias).abs() < 6.0 * sd + 1.0,
                "position {i}"
            );
        }
    }

    #[test]
    fn words_are_validated() {
        let code = small(Variant::Symmetric, 4);
        let m = code.params().length;
        let w = code.words_per_row();
        assert!(code.scores(&vec![0; w + 1]).is_err());
        if !m.is_multiple_of(64) {
            let mut word = vec![0u64; w];
            word[w - 1] = 1 << 63;
            assert!(code.scores(&word).is_err());
        }
        assert!(code.trace(&vec![0; w], Some(f64::NAN)).is_err());
    }

    #[test]
    fn a_lone_pirate_is_traced_and_only_him() {
        let code = small(Variant::Symmetric, 6);
        for u in [0usize, 17, 49] {
            let accused = code.trace(code.row(u), None).unwrap();
            assert_eq!(accused, vec![u]);
        }
    }
}

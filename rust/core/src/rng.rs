//! The random number generator every privlearn sampler draws from (DESIGN principle 4).
//!
//! [`Rng`] is ChaCha20 (`rand_chacha`), a cryptographically secure generator.
//!
//! * [`Rng::from_entropy`] keys it with 32 bytes from the operating system. This is the only
//!   construction under which the privacy guarantees of privlearn's mechanisms hold: the
//!   adversary must not be able to predict the noise.
//! * [`Rng::from_seed`] keys it with a caller-chosen `u64` for reproducible experiments and tests.
//!   **A known seed voids every privacy guarantee**: anyone who knows it can regenerate the noise.
//!
//! The seeded construction is part of the public contract and is stable across releases: the
//! ChaCha20 key is the seed's 8 little-endian bytes followed by 24 zero bytes, on stream 0 from
//! word 0. The Python API (`rng=<int>`) uses exactly this construction, so the same seed gives the
//! same output from Python and from Rust.
//!
//! The exact samplers (every mechanism's default `numerics="exact"` path) only use
//! [`Rng::next_u64`] and the exact helpers defined here, never a third-party distribution, so their
//! output for a given seed does not change when dependencies are upgraded. The floating-point
//! samplers of [`crate::noise`] (normal, exponential, Gamma: the `numerics="fast"` paths, l2-Laplace
//! noise, the Langevin steps of Gibbs ERM) draw from `rand_distr` through this generator (it
//! implements `rand_core`'s traits); their seeded output is fixed by the `rand_distr` version that
//! `Cargo.lock` pins, and an upgrade that changes it is a seeded-output change to be listed in the
//! changelog (its version policy).

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng as _, SeedableRng};

use crate::error::{Error, Result};

/// A ChaCha20 random number generator (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    inner: ChaCha20Rng,
    /// Unused low-order bits of the last word drawn by [`Rng::bit`] / [`Rng::small_below`].
    reservoir: u64,
    /// How many bits of `reservoir` are unused.
    reservoir_bits: u32,
}

/// Serialisable position of an [`Rng`]: key, stream and word position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RngState {
    /// The 32-byte ChaCha20 key.
    pub key: [u8; 32],
    /// The stream (nonce) number.
    pub stream: u64,
    /// Position in the stream, in 32-bit words.
    pub word_pos: u128,
    /// Unused bits kept by [`Rng::bit`] and [`Rng::small_below`].
    pub reservoir: u64,
    /// Number of unused bits in `reservoir`.
    pub reservoir_bits: u32,
}

impl Rng {
    /// A generator keyed from the operating system's entropy source (private use).
    pub fn from_entropy() -> Result<Self> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| Error::Entropy(e.to_string()))?;
        Ok(Self::from_key(key))
    }

    /// A reproducible generator from a 64-bit seed (tests and experiments only: a known seed voids
    /// privacy). Key = `seed.to_le_bytes()` followed by 24 zero bytes.
    pub fn from_seed(seed: u64) -> Self {
        let mut key = [0u8; 32];
        key[..8].copy_from_slice(&seed.to_le_bytes());
        Self::from_key(key)
    }

    /// A generator from a full 32-byte ChaCha20 key.
    pub fn from_key(key: [u8; 32]) -> Self {
        Self {
            inner: ChaCha20Rng::from_seed(key),
            reservoir: 0,
            reservoir_bits: 0,
        }
    }

    /// The generator's current position, for serialisation.
    pub fn state(&self) -> RngState {
        RngState {
            key: self.inner.get_seed(),
            stream: self.inner.get_stream(),
            word_pos: self.inner.get_word_pos(),
            reservoir: self.reservoir,
            reservoir_bits: self.reservoir_bits,
        }
    }

    /// Restores a generator saved with [`Rng::state`].
    pub fn from_state(state: &RngState) -> Self {
        let mut inner = ChaCha20Rng::from_seed(state.key);
        inner.set_stream(state.stream);
        inner.set_word_pos(state.word_pos);
        Self {
            inner,
            reservoir: state.reservoir,
            reservoir_bits: state.reservoir_bits.min(64),
        }
    }

    /// An independent child generator keyed with 32 bytes of this generator's output.
    pub fn spawn(&mut self) -> Self {
        let mut key = [0u8; 32];
        for chunk in key.chunks_exact_mut(8) {
            chunk.copy_from_slice(&self.next_u64().to_le_bytes());
        }
        Self::from_key(key)
    }

    /// 64 uniformly random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// `bits` uniformly random bits (`bits <= 64`) in the low bits of the result.
    #[inline]
    pub fn bits(&mut self, bits: u32) -> u64 {
        debug_assert!(bits <= 64);
        if bits == 0 {
            0
        } else {
            self.next_u64() >> (64 - bits)
        }
    }

    /// `bits` uniformly random bits (`bits <= 128`) in the low bits of the result.
    #[inline]
    pub fn bits_u128(&mut self, bits: u32) -> u128 {
        debug_assert!(bits <= 128);
        match bits {
            0 => 0,
            1..=64 => u128::from(self.bits(bits)),
            _ => (u128::from(self.bits(bits - 64)) << 64) | u128::from(self.next_u64()),
        }
    }

    /// `w <= 32` uniformly random bits, taken from a reservoir refilled one 64-bit word at a time
    /// (the cheap source for the many small draws of the exact samplers).
    #[inline]
    pub fn small_bits(&mut self, w: u32) -> u64 {
        debug_assert!(w <= 32);
        if self.reservoir_bits < w {
            self.reservoir = self.next_u64();
            self.reservoir_bits = 64;
        }
        let v = self.reservoir & ((1u64 << w) - 1);
        self.reservoir >>= w;
        self.reservoir_bits -= w;
        v
    }

    /// One uniformly random bit (from the reservoir).
    #[inline]
    pub fn bit(&mut self) -> bool {
        self.small_bits(1) == 1
    }

    /// An exactly uniform integer in `[0, n)` for `0 < n <= 2^32`, from the reservoir (rejection
    /// sampling on the fewest bits that cover `n`).
    #[inline]
    pub fn small_below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0 && n <= 1 << 32);
        if n == 1 {
            return 0;
        }
        let w = 64 - (n - 1).leading_zeros();
        loop {
            let v = self.small_bits(w);
            if v < n {
                return v;
            }
        }
    }

    /// An exactly uniform integer in `[0, n)` (rejection sampling; `n > 0`).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        if n.is_power_of_two() {
            return self.next_u64() & (n - 1);
        }
        let bits = 64 - (n - 1).leading_zeros();
        loop {
            let v = self.bits(bits);
            if v < n {
                return v;
            }
        }
    }

    /// An exactly uniform integer in `[0, n)` for 128-bit `n > 0` (rejection sampling).
    #[inline]
    pub fn below_u128(&mut self, n: u128) -> u128 {
        debug_assert!(n > 0);
        if let Ok(small) = u64::try_from(n) {
            return u128::from(self.below(small));
        }
        let bits = 128 - (n - 1).leading_zeros();
        loop {
            let v = self.bits_u128(bits);
            if v < n {
                return v;
            }
        }
    }

    /// A uniform double in `[0, 1)` on the grid of multiples of `2^-53`. Float helper for the
    /// explicitly non-exact (`numerics="fast"`) paths only.
    #[inline]
    pub fn uniform_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// An exact Bernoulli(`num / den`) draw (`num <= den`, `den > 0`).
    #[inline]
    pub fn bernoulli_ratio(&mut self, num: u64, den: u64) -> bool {
        debug_assert!(den > 0 && num <= den);
        self.below(den) < num
    }
}

/// The generator as a `rand_core` source (infallible), for the `rand_distr` samplers of the
/// floating-point paths: 64-bit draws are [`Rng::next_u64`]; 32-bit draws and byte fills take
/// the next ChaCha20 words. The bit reservoir of [`Rng::small_bits`] is not touched.
impl rand_core::TryRng for Rng {
    type Error = core::convert::Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> core::result::Result<u32, Self::Error> {
        Ok(self.inner.next_u32())
    }

    #[inline]
    fn try_next_u64(&mut self) -> core::result::Result<u64, Self::Error> {
        Ok(self.next_u64())
    }

    #[inline]
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> core::result::Result<(), Self::Error> {
        self.inner.fill_bytes(dst);
        Ok(())
    }
}

/// ChaCha20 is a cryptographically secure generator.
impl rand_core::TryCryptoRng for Rng {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_streams_are_reproducible_and_distinct() {
        let mut a = Rng::from_seed(7);
        let mut b = Rng::from_seed(7);
        let mut c = Rng::from_seed(8);
        let xa: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        let xb: Vec<u64> = (0..4).map(|_| b.next_u64()).collect();
        let xc: Vec<u64> = (0..4).map(|_| c.next_u64()).collect();
        assert_eq!(xa, xb);
        assert_ne!(xa, xc);
    }

    #[test]
    fn state_round_trip_resumes_the_stream() {
        let mut a = Rng::from_seed(1);
        a.next_u64();
        let saved = a.state();
        let next = a.next_u64();
        let mut b = Rng::from_state(&saved);
        assert_eq!(b.next_u64(), next);
    }

    #[test]
    fn entropy_generators_differ() {
        let mut a = Rng::from_entropy().unwrap();
        let mut b = Rng::from_entropy().unwrap();
        assert_ne!(a.next_u64(), b.next_u64());
    }

    #[test]
    fn below_stays_in_range_and_hits_every_value() {
        let mut r = Rng::from_seed(3);
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let v = r.below(7);
            assert!(v < 7);
            seen[v as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(r.below(1), 0);
    }

    #[test]
    fn below_u128_stays_in_range() {
        let mut r = Rng::from_seed(6);
        let n = (1u128 << 100) + 12_345;
        for _ in 0..200 {
            assert!(r.below_u128(n) < n);
            assert!(r.below_u128(3) < 3);
        }
    }

    #[test]
    fn reservoir_draws_are_uniform_and_survive_serialisation() {
        let mut r = Rng::from_seed(8);
        let mut counts = [0usize; 5];
        for _ in 0..50_000 {
            counts[r.small_below(5) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
        let ones = (0..10_000).filter(|_| r.bit()).count();
        assert!((4_700..5_300).contains(&ones));
        r.small_bits(7);
        let saved = r.state();
        let a: Vec<u64> = (0..20).map(|_| r.small_bits(5)).collect();
        let mut s = Rng::from_state(&saved);
        let b: Vec<u64> = (0..20).map(|_| s.small_bits(5)).collect();
        assert_eq!(a, b);
    }

    #[test]
    fn rand_core_interface_reads_the_same_chacha_stream() {
        use rand_core::Rng as _;
        // 64-bit draws are the generator's own; a 32-bit draw is the next ChaCha20 word (the low
        // half of the 64-bit draw at the same position); bytes are the words little-endian.
        let (mut a, mut b) = (Rng::from_seed(5), Rng::from_seed(5));
        let w: Vec<u64> = (0..4).map(|_| a.next_u64()).collect();
        assert_eq!(
            (0..4)
                .map(|_| rand_core::Rng::next_u64(&mut b))
                .collect::<Vec<_>>(),
            w
        );
        let (mut c, mut d) = (Rng::from_seed(6), Rng::from_seed(6));
        let first = c.next_u64();
        assert_eq!(rand_core::Rng::next_u32(&mut d), first as u32);
        assert_eq!(rand_core::Rng::next_u32(&mut d), (first >> 32) as u32);
        let mut bytes = [0u8; 24];
        Rng::from_seed(7).fill_bytes(&mut bytes);
        let mut e = Rng::from_seed(7);
        let want: Vec<u8> = (0..3).flat_map(|_| e.next_u64().to_le_bytes()).collect();
        assert_eq!(bytes.to_vec(), want);
    }

    #[test]
    fn bits_respects_width() {
        let mut r = Rng::from_seed(4);
        for _ in 0..100 {
            assert!(r.bits(5) < 32);
            assert!(r.bits_u128(70) < (1u128 << 70));
        }
        assert_eq!(r.bits(0), 0);
    }
}

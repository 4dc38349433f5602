//! Bit-level building blocks of the codes: exact Bernoulli words by lazy comparison, bit
//! deposit (`pdep`), a buffered bit stream over the generator, and the 64 x 64 bit-matrix
//! transpose.
//!
//! Bit-packing convention of the whole project: element `j` of a bit vector is bit `j % 64` of
//! little-endian `u64` word `j / 64`; padding bits beyond the length are zero.

use crate::rng::Rng;

/// Number of `u64` words holding `bits` bits.
#[inline]
pub fn words_for(bits: usize) -> usize {
    bits.div_ceil(64)
}

/// Mask of the valid bits of word `w` of a vector of `len` bits.
#[inline]
pub fn word_mask(len: usize, w: usize) -> u64 {
    let rem = len.saturating_sub(64 * w);
    if rem >= 64 {
        u64::MAX
    } else {
        (1u64 << rem) - 1
    }
}

/// Packs booleans into words (project convention).
pub fn pack_bools(bits: &[bool]) -> Vec<u64> {
    let mut out = vec![0u64; words_for(bits.len())];
    for (j, &b) in bits.iter().enumerate() {
        out[j / 64] |= u64::from(b) << (j % 64);
    }
    out
}

/// Unpacks the first `len` bits of `words`.
pub fn unpack_bools(words: &[u64], len: usize) -> Vec<bool> {
    (0..len)
        .map(|j| (words[j / 64] >> (j % 64)) & 1 == 1)
        .collect()
}

/// Bit `j` of a packed vector.
#[inline]
pub fn get_bit(words: &[u64], j: usize) -> bool {
    (words[j / 64] >> (j % 64)) & 1 == 1
}

/// Software parallel bit deposit: the low bits of `src` go, in order, to the set bits of `mask`
/// (LSB first). Identical to the BMI2 `pdep` instruction.
#[inline]
pub fn pdep_soft(mut src: u64, mut mask: u64) -> u64 {
    let mut out = 0u64;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        if src & 1 == 1 {
            out |= low;
        }
        src >>= 1;
        mask &= mask - 1;
    }
    out
}

/// A way of computing `pdep` (hardware or software; both give the same result).
pub(crate) trait Deposit {
    fn pdep(src: u64, mask: u64) -> u64;
}

/// Portable `pdep`.
pub(crate) struct SoftDeposit;

impl Deposit for SoftDeposit {
    #[inline(always)]
    fn pdep(src: u64, mask: u64) -> u64 {
        pdep_soft(src, mask)
    }
}

/// BMI2 `pdep`: only call inside code compiled with `target_feature(enable = "bmi2")`, after
/// run-time detection.
#[cfg(target_arch = "x86_64")]
pub(crate) struct HardDeposit;

#[cfg(target_arch = "x86_64")]
impl Deposit for HardDeposit {
    #[inline(always)]
    fn pdep(src: u64, mask: u64) -> u64 {
        // SAFETY: `HardDeposit` is only used by functions compiled with BMI2 enabled, which are
        // only called after `is_x86_feature_detected!("bmi2")`.
        unsafe { std::arch::x86_64::_pdep_u64(src, mask) }
    }
}

/// Whether the CPU has a hardware `pdep` (BMI2) and `popcnt`, detected once (always false
/// off x86-64, where no caller asks).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn has_bmi2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::OnceLock;
        static BMI2: OnceLock<bool> = OnceLock::new();
        *BMI2.get_or_init(|| {
            std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("popcnt")
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Random bits handed out a few at a time, in stream order, without waste: the bits of each
/// 64-bit output of the generator are used LSB first, and a request that straddles two outputs
/// takes the rest of the first and the start of the second. Outputs are buffered so that a
/// request is a branch-free read at a bit cursor.
pub(crate) struct BitStream<'a> {
    rng: &'a mut Rng,
    buf: Vec<u64>,
    /// Bit position of the next unread bit in `buf`.
    cursor: usize,
}

/// Words in the buffer; a refill keeps at least [`BitStream::RESERVE`] of them unread.
const STREAM_WORDS: usize = 1024;

impl<'a> BitStream<'a> {
    /// Unread words guaranteed after [`Self::reserve`]: enough for four Bernoulli words (at most
    /// 128 levels of at most 64 bits each).
    pub(crate) const RESERVE: usize = 4 * 128;

    pub(crate) fn new(rng: &'a mut Rng) -> Self {
        // One spare zero word at the end: a read may touch the word after the last bit it uses.
        let mut buf = vec![0u64; STREAM_WORDS + 1];
        for w in buf.iter_mut().take(STREAM_WORDS) {
            *w = rng.next_u64();
        }
        Self {
            rng,
            buf,
            cursor: 0,
        }
    }

    /// Makes sure at least [`Self::RESERVE`] whole words are unread.
    #[inline(always)]
    pub(crate) fn reserve(&mut self) {
        let word = self.cursor / 64;
        if STREAM_WORDS - word < Self::RESERVE + 1 {
            self.buf.copy_within(word..STREAM_WORDS, 0);
            let kept = STREAM_WORDS - word;
            for w in self.buf[kept..STREAM_WORDS].iter_mut() {
                *w = self.rng.next_u64();
            }
            self.cursor %= 64;
        }
    }

    /// `k <= 64` uniform bits in the low bits of the result (call [`Self::reserve`] often enough
    /// that the cursor stays inside the buffer).
    #[inline(always)]
    pub(crate) fn take(&mut self, k: u32) -> u64 {
        debug_assert!(k <= 64);
        let i = self.cursor / 64;
        let off = (self.cursor % 64) as u32;
        let lo = self.buf[i] >> off;
        // `<< 1 << (63 - off)` is `<< (64 - off)` without the undefined shift by 64.
        let hi = (self.buf[i + 1] << 1) << (63 - off);
        self.cursor += k as usize;
        let v = lo | hi;
        if k == 64 { v } else { v & ((1u64 << k) - 1) }
    }
}

/// The exact binary expansion of a probability `p` in `(0, 1)` as a 128-bit fixed-point number
/// `floor(p * 2^128)`. Exact (no rounding) for `p >= 2^-75`, which covers every bias the codes
/// use (their cut-off is at least `1/(300 c)`).
pub fn fixed_point_128(p: f64) -> u128 {
    debug_assert!(p > 0.0 && p < 1.0);
    let bits = p.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let mantissa = if exp == 0 {
        bits & ((1u64 << 52) - 1)
    } else {
        (bits & ((1u64 << 52) - 1)) | (1u64 << 52)
    };
    // p = mantissa * 2^(exp - 1075) (subnormals: exp field 0 means 2^(1 - 1075)).
    let e = if exp == 0 { 1 - 1075 } else { exp - 1075 };
    let shift = 128 + e; // p * 2^128 = mantissa * 2^shift
    if shift >= 0 {
        u128::from(mantissa) << shift
    } else if shift > -64 {
        u128::from(mantissa >> (-shift))
    } else {
        0
    }
}

/// Four words of 64 independent Bernoulli bits: word `g` has Bernoulli(`p[g]`) bits on the lanes
/// of `lanes[g]` (other bits zero), where each `p[g]` is given by its 128-bit expansion
/// [`fixed_point_128`] (a zero expansion gives a zero word).
///
/// Exact: lane `i` of word `g` is 1 iff an infinite-precision uniform `U` in `[0, 1)` is below
/// `p[g]`. All lanes' uniforms are compared with the bits of `p[g]` together, most significant
/// first; at each level fresh random bits are drawn only for the lanes still undecided
/// (`pdep` spreads `popcount(undecided)` bits onto them), so a word costs 128 random bits on
/// average (each level halves the undecided lanes). The four words advance level by level in
/// lock step (independent dependency chains for the CPU), drawing in the order
/// level 0 of words 0..4, level 1 of words 0..4, and so on.
#[inline(always)]
pub(crate) fn bernoulli_words<D: Deposit>(
    p: [u128; 4],
    lanes: [u64; 4],
    stream: &mut BitStream<'_>,
) -> [u64; 4] {
    stream.reserve();
    let mut rest = p;
    let mut und = lanes;
    let mut res = [0u64; 4];
    loop {
        // Lanes whose comparison reached the end of p's (finite) expansion equal p on every bit
        // so far: U >= p almost surely, so they are decided as 0.
        for g in 0..4 {
            und[g] &= u64::from(rest[g] != 0).wrapping_neg();
        }
        if (und[0] | und[1] | und[2] | und[3]) == 0 {
            return res;
        }
        for g in 0..4 {
            let one = ((rest[g] >> 127) as u64).wrapping_neg(); // all ones iff p's bit is 1
            rest[g] <<= 1;
            let r = D::pdep(stream.take(und[g].count_ones()), und[g]);
            // p-bit 1: U-bit 0 decides U < p (result 1), U-bit 1 stays undecided.
            // p-bit 0: U-bit 1 decides U > p (result 0), U-bit 0 stays undecided.
            res[g] |= und[g] & !r & one;
            und[g] &= !(r ^ one);
        }
    }
}

/// In-place transpose of a 64 x 64 bit matrix: bit `c` of `a[r]` moves to bit `r` of `a[c]`.
pub fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32usize;
    let mut m: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        let mut k = 0usize;
        while k < 64 {
            for i in k..k + j {
                // Swap the high j-bit half of row i with the low half of row i + j.
                let t = ((a[i] >> j) ^ a[i + j]) & m;
                a[i] ^= t << j;
                a[i + j] ^= t;
            }
            k += 2 * j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_matches_naive() {
        let mut rng = Rng::from_seed(11);
        let mut a = [0u64; 64];
        for w in a.iter_mut() {
            *w = rng.next_u64();
        }
        let orig = a;
        transpose64(&mut a);
        for (r, &row) in orig.iter().enumerate() {
            for (c, &col) in a.iter().enumerate() {
                assert_eq!((row >> c) & 1, (col >> r) & 1, "r={r} c={c}");
            }
        }
        transpose64(&mut a);
        assert_eq!(a, orig);
    }

    #[test]
    fn soft_pdep_matches_definition_and_hardware() {
        let mut rng = Rng::from_seed(5);
        for _ in 0..2000 {
            let src = rng.next_u64();
            let mask = rng.next_u64() & rng.next_u64();
            let got = pdep_soft(src, mask);
            // Definition: the i-th set bit of mask receives bit i of src.
            let mut want = 0u64;
            let mut i = 0;
            for b in 0..64 {
                if (mask >> b) & 1 == 1 {
                    want |= ((src >> i) & 1) << b;
                    i += 1;
                }
            }
            assert_eq!(got, want);
            #[cfg(target_arch = "x86_64")]
            if has_bmi2() {
                // SAFETY: BMI2 detected.
                assert_eq!(unsafe { std::arch::x86_64::_pdep_u64(src, mask) }, want);
            }
        }
    }

    #[test]
    fn bit_stream_hands_out_the_stream_in_order() {
        let mut a = Rng::from_seed(3);
        let words: Vec<u64> = (0..3000).map(|_| a.next_u64()).collect();
        let mut b = Rng::from_seed(3);
        let mut pool = BitStream::new(&mut b);
        let mut bits = Vec::new();
        let sizes = [1u32, 7, 64, 13, 0, 33, 64, 50, 2, 64];
        for i in 0..4000 {
            if i % 50 == 0 {
                pool.reserve();
            }
            let k = sizes[i % sizes.len()];
            let v = pool.take(k);
            for i in 0..k {
                bits.push((v >> i) & 1);
            }
        }
        for (i, &bit) in bits.iter().enumerate() {
            assert_eq!(bit, (words[i / 64] >> (i % 64)) & 1, "bit {i}");
        }
    }

    #[test]
    fn fixed_point_is_exact() {
        for &p in &[0.5, 0.25, 0.75, 1.0 / 3.0, 1e-3, 1.0 - 1e-3, 2f64.powi(-70)] {
            let fp = fixed_point_128(p);
            // Back to f64: p has at most 53 significant bits, all inside the 128-bit window.
            let back = (fp as f64) * 2f64.powi(-128);
            assert_eq!(back, p);
        }
        assert_eq!(fixed_point_128(0.5), 1u128 << 127);
    }

    #[test]
    fn bernoulli_words_have_the_right_frequency() {
        let mut rng = Rng::from_seed(9);
        let mut pool = BitStream::new(&mut rng);
        let ps = [0.5f64, 0.1, 1.0 / 3.0, 0.001];
        let fp = ps.map(fixed_point_128);
        let n_words = 20_000u64;
        let mut ones = [0u64; 4];
        for _ in 0..n_words {
            let w = bernoulli_words::<SoftDeposit>(fp, [u64::MAX; 4], &mut pool);
            for g in 0..4 {
                ones[g] += u64::from(w[g].count_ones());
            }
        }
        for g in 0..4 {
            let (p, n) = (ps[g], (n_words * 64) as f64);
            let sd = (n * p * (1.0 - p)).sqrt();
            assert!(
                (ones[g] as f64 - n * p).abs() < 6.0 * sd,
                "p={p}: {} of {n}",
                ones[g]
            );
        }
        // Lanes outside the masks stay zero; a zero expansion gives zero.
        let w = bernoulli_words::<SoftDeposit>(
            [
                fixed_point_128(0.999),
                0,
                fixed_point_128(0.5),
                fixed_point_128(0.999),
            ],
            [0xF0F0, u64::MAX, 0, u64::MAX],
            &mut pool,
        );
        assert_eq!(w[0] & !0xF0F0, 0);
        assert_eq!(w[1], 0);
        assert_eq!(w[2], 0);
        assert!(w[3].count_ones() > 50);
    }
}

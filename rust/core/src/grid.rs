//! Power-of-two grids for floating-point-safe noise (DESIGN principle 3).
//!
//! Naive floating-point noise leaks through the pattern of representable outputs (Mironov 2012).
//! The exact mechanisms instead round the input to the grid `2^k Z` (a deterministic function of
//! the input, so the rounded query's sensitivity grows by at most one grid step per coordinate),
//! add exactly sampled *integer* noise in units of `2^k`, and return the exact sum rounded once
//! to the nearest double. That last rounding is a function of the exact noisy value alone, hence
//! post-processing, so the guarantee of the integer mechanism carries over unchanged.

use num_bigint::{BigInt, Sign};

use crate::error::{Error, Result};

/// The grid `2^k Z`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    k: i32,
    step: f64,
    inv_step: f64,
}

/// `2^e` as a double for `-1022 <= e <= 1023` (exact).
pub fn pow2(e: i32) -> f64 {
    debug_assert!((-1022..=1023).contains(&e));
    f64::from_bits(((i64::from(e) + 1023) as u64) << 52)
}

/// `floor(log2(x))` for a finite `x > 0`, exactly.
pub fn floor_log2(x: f64) -> i32 {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        let frac = bits & ((1u64 << 52) - 1);
        -1011 - frac.leading_zeros() as i32
    } else {
        exp - 1023
    }
}

impl Grid {
    /// The grid of step `2^k`, for `-1000 <= k <= 960` (so that every quantity used stays a
    /// normal double).
    pub fn new(k: i32) -> Result<Self> {
        if !(-1000..=960).contains(&k) {
            return Err(Error::invalid(
                "sensitivity",
                format!("leads to a noise grid 2^{k} outside [2^-1000, 2^960]; rescale the data"),
            ));
        }
        Ok(Grid {
            k,
            step: pow2(k),
            inv_step: pow2(-k),
        })
    }

    /// The exponent `k`.
    pub fn k(&self) -> i32 {
        self.k
    }

    /// The step `2^k`.
    pub fn step(&self) -> f64 {
        self.step
    }

    /// The multiple of `2^k` nearest to a finite `x` (ties to even). Doubles of magnitude at least
    /// `2^(k+52)` are already on the grid.
    #[inline]
    pub fn round(&self, x: f64) -> f64 {
        if x.abs() >= self.step * 4_503_599_627_370_496.0 {
            x
        } else {
            (x * self.inv_step).round_ties_even() * self.step
        }
    }

    /// `floor(x / 2^k)` for a finite `x >= 0`, as an integer (exact). An error when it is `2^127`
    /// or more: sensitivities are widened from this value, so it must never be truncated.
    pub fn floor_units(&self, x: f64) -> Result<u128> {
        debug_assert!(x >= 0.0 && x.is_finite());
        let (m, e) = decompose(x);
        let shift = i64::from(e) - i64::from(self.k);
        if shift > 74 {
            return Err(Error::invalid(
                "sensitivity",
                "is more than 2^127 noise-grid steps (epsilon too large for numerics='exact')",
            ));
        }
        Ok(if shift >= 0 {
            u128::from(m) << shift
        } else if -shift >= 64 {
            0
        } else {
            u128::from(m >> (-shift))
        })
    }

    /// The double nearest to `v + z * 2^k` (ties to even), computed exactly: a function of the
    /// exact sum alone. `v` must be a finite multiple of `2^k` or a larger double.
    pub fn add_units(&self, v: f64, z: i128) -> f64 {
        if z.unsigned_abs() < (1u128 << 53) {
            // Both terms are exact doubles; IEEE addition rounds their exact sum once.
            return v + (z as f64) * self.step;
        }
        let (mv, ev) = decompose(v.abs());
        let v_int = BigInt::from(mv) * if v < 0.0 { -1 } else { 1 };
        let e0 = ev.min(self.k);
        let sum = (v_int << (ev - e0) as usize) + (BigInt::from(z) << (self.k - e0) as usize);
        big_to_f64(&sum, e0)
    }
}

impl Grid {
    /// `x / 2^k` as an exact integer, for a finite `x` on the grid (a multiple of `2^k`, which
    /// every result of [`Grid::round`] is).
    pub fn units_big(&self, x: f64) -> BigInt {
        let (m, e) = decompose(x.abs());
        let mag = if e >= self.k {
            BigInt::from(m) << (e - self.k) as usize
        } else {
            BigInt::from(m >> (self.k - e).min(63))
        };
        if x < 0.0 { -mag } else { mag }
    }
}

/// `x = m * 2^e` with `m < 2^53`, for a finite `x >= 0`.
pub fn decompose(x: f64) -> (u64, i32) {
    let bits = x.to_bits() & !(1u64 << 63);
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    }
}

/// The double nearest to `n * 2^e` (ties to even).
pub fn big_to_f64(n: &BigInt, e: i32) -> f64 {
    let (sign, mag) = n.clone().into_parts();
    if sign == Sign::NoSign {
        return 0.0;
    }
    let bits = mag.bits() as i64;
    // Keep 53 significant bits (fewer for subnormal results), rounding the rest to nearest even.
    let lowest_exp = -1074i64;
    let top_exp = bits - 1 + i64::from(e);
    let keep = if top_exp - 52 < lowest_exp {
        (top_exp - lowest_exp + 1).max(0)
    } else {
        53
    };
    let drop = bits - keep;
    let (mut mant, mut exp) = if drop > 0 {
        let d = drop as u64;
        let mant = &mag >> d;
        let rem = &mag - (&mant << d);
        let half = num_bigint::BigUint::from(1u32) << (d - 1);
        let mut mant = u64::try_from(&mant).unwrap_or(u64::MAX);
        if rem > half || (rem == half && mant % 2 == 1) {
            mant += 1;
        }
        (mant, i64::from(e) + drop)
    } else {
        (u64::try_from(&mag).unwrap_or(u64::MAX), i64::from(e))
    };
    if mant == 1u64 << 53 {
        mant >>= 1;
        exp += 1;
    }
    let value = if exp > 971 {
        f64::INFINITY
    } else {
        // mant < 2^53 is exact; scale in two exact steps.
        let e1 = (exp / 2) as i32;
        let e2 = (exp - i64::from(e1)) as i32;
        (mant as f64) * scale2(e1) * scale2(e2)
    };
    if sign == Sign::Minus { -value } else { value }
}

/// `2^e` for `-1074 <= e <= 1023`.
fn scale2(e: i32) -> f64 {
    if e >= -1022 {
        pow2(e)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_and_units() {
        let g = Grid::new(-3).unwrap();
        assert_eq!(g.round(0.0625), 0.0); // tie to even
        assert_eq!(g.round(0.1875), 0.25);
        assert_eq!(g.round(-1.3), -1.25);
        assert_eq!(g.round(1e300), 1e300);
        assert_eq!(g.floor_units(1.3).unwrap(), 10);
        assert_eq!(g.floor_units(0.0).unwrap(), 0);
        // Never truncated: 2^126 steps is exact, 2^127 is refused.
        assert_eq!(g.floor_units(2f64.powi(123)).unwrap(), 1u128 << 126);
        assert!(g.floor_units(2f64.powi(124)).is_err());
        assert_eq!(floor_log2(1.0), 0);
        assert_eq!(floor_log2(0.75), -1);
        assert_eq!(floor_log2(f64::MIN_POSITIVE), -1022);
        assert_eq!(floor_log2(5e-324), -1074);
    }

    #[test]
    fn add_units_rounds_the_exact_sum_once() {
        let g = Grid::new(-10).unwrap();
        assert_eq!(g.add_units(1.0, 3), 1.0 + 3.0 / 1024.0);
        // Large z: compare with an exact computation in i128 where the result is exact.
        let z: i128 = (1i128 << 60) + 12345;
        let got = g.add_units(2.0, z);
        let exact = (2i128 * 1024 + z) as f64 / 1024.0; // i128 -> f64 rounds once
        assert_eq!(got, exact);
        let got = g.add_units(-2.0, -z);
        assert_eq!(got, -exact);
        // Ties to even on a huge z.
        let g0 = Grid::new(0).unwrap();
        let z = (1i128 << 54) + 2; // representable? 2^54 + 2 is even: exact
        assert_eq!(g0.add_units(1.0, z), ((1i128 << 54) + 3) as f64);
    }
}

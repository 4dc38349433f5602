//! Pirate strategies and the marking assumption.
//!
//! A coalition sees its members' codewords. At a *marked* position all members have the same bit,
//! and the marking assumption (Boneh and Shaw 1998; seed 002 Def. 4.1's feasible set
//! `F(C_S) = {c' : ∀j ∃i∈S, c'_j = c_ij}`) says the pirate word carries that common bit there; at
//! the other (*free*) positions it is arbitrary. Every strategy here produces a feasible word:
//!
//! | strategy | free positions |
//! |---|---|
//! | `majority` | the bit most members have (ties broken by a fair coin) |
//! | `minority` | the bit fewest members have among the two present (ties by a fair coin) |
//! | `random` | a fair coin |
//! | `interleave` | the bit of a uniformly random member (per position) |
//! | `all-zeros-where-free` | 0 |
//! | `all-ones-where-free` | 1 |
//!
//! Words are packed (project convention). Randomness comes from the caller's [`Rng`], positions
//! in increasing order.

use crate::error::{Error, Result};
use crate::rng::Rng;

use super::bits::{word_mask, words_for};

/// A coalition strategy (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Majority vote, ties at random.
    Majority,
    /// Minority vote among the present bits, ties at random.
    Minority,
    /// A fair coin on free positions.
    Random,
    /// A random member's bit per position.
    Interleave,
    /// 0 on free positions.
    ZerosWhereFree,
    /// 1 on free positions.
    OnesWhereFree,
}

impl Strategy {
    /// All strategies, in the documented order.
    pub const ALL: [Strategy; 6] = [
        Strategy::Majority,
        Strategy::Minority,
        Strategy::Random,
        Strategy::Interleave,
        Strategy::ZerosWhereFree,
        Strategy::OnesWhereFree,
    ];

    /// The public name.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Majority => "majority",
            Strategy::Minority => "minority",
            Strategy::Random => "random",
            Strategy::Interleave => "interleave",
            Strategy::ZerosWhereFree => "all-zeros-where-free",
            Strategy::OnesWhereFree => "all-ones-where-free",
        }
    }
}

impl std::str::FromStr for Strategy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Strategy::ALL
            .iter()
            .copied()
            .find(|st| st.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Strategy::ALL.iter().map(|s| s.name()).collect();
                Error::invalid(
                    "strategy",
                    format!("must be one of {}, got {s:?}", names.join(", ")),
                )
            })
    }
}

fn check_rows(rows: &[u64], members: usize, length: usize) -> Result<usize> {
    let words = words_for(length);
    if members == 0 {
        return Err(Error::invalid("coalition", "must have at least one member"));
    }
    if length == 0 || rows.len() != members * words {
        return Err(Error::invalid(
            "codewords",
            format!(
                "expected {members} packed rows of {words} words for {length} positions, got {} \
                 words",
                rows.len()
            ),
        ));
    }
    Ok(words)
}

/// Uniform index in `[0, k)`.
#[inline]
fn uniform_below(rng: &mut Rng, k: usize) -> usize {
    if k as u64 <= 1 << 32 {
        rng.small_below(k as u64) as usize
    } else {
        rng.below(k as u64) as usize
    }
}

/// The word the coalition with packed codewords `rows` (`members` rows of `⌈length/64⌉` words)
/// forges with `strategy`.
pub fn pirate(
    rows: &[u64],
    members: usize,
    length: usize,
    strategy: Strategy,
    rng: &mut Rng,
) -> Result<Vec<u64>> {
    let words = check_rows(rows, members, length)?;
    let row = |i: usize| &rows[i * words..(i + 1) * words];
    let mut out = vec![0u64; words];
    let mut counts = [0usize; 64];
    for (k, o) in out.iter_mut().enumerate() {
        let valid = word_mask(length, k);
        let (mut all, mut any) = (u64::MAX, 0u64);
        for i in 0..members {
            all &= row(i)[k];
            any |= row(i)[k];
        }
        all &= valid;
        let free = any & !all;
        *o = match strategy {
            Strategy::ZerosWhereFree => all,
            Strategy::OnesWhereFree => any,
            Strategy::Random => all | (free & rng.next_u64()),
            Strategy::Interleave => {
                let mut w = all;
                let mut f = free;
                while f != 0 {
                    let j = f.trailing_zeros();
                    w |= row(uniform_below(rng, members))[k] & (1u64 << j);
                    f &= f - 1;
                }
                w
            }
            Strategy::Majority | Strategy::Minority => {
                counts.iter_mut().for_each(|c| *c = 0);
                for i in 0..members {
                    let mut x = row(i)[k] & free;
                    while x != 0 {
                        counts[x.trailing_zeros() as usize] += 1;
                        x &= x - 1;
                    }
                }
                let mut w = all;
                let mut f = free;
                while f != 0 {
                    let j = f.trailing_zeros();
                    let ones = counts[j as usize];
                    let zeros = members - ones;
                    let bit = if ones == zeros {
                        rng.bit()
                    } else {
                        (ones > zeros) == (strategy == Strategy::Majority)
                    };
                    w |= u64::from(bit) << j;
                    f &= f - 1;
                }
                w
            }
        };
    }
    Ok(out)
}

/// Whether the packed `word` obeys the marking assumption for the coalition `rows`: it carries
/// the common bit at every position where all members agree.
pub fn is_feasible(word: &[u64], rows: &[u64], members: usize, length: usize) -> Result<bool> {
    let words = check_rows(rows, members, length)?;
    super::check_packed_word(word, length)?;
    for (k, &w) in word.iter().enumerate() {
        let (mut all, mut any) = (u64::MAX, 0u64);
        for i in 0..members {
            all &= rows[i * words + k];
            any |= rows[i * words + k];
        }
        all &= word_mask(length, k);
        // 1-marked positions must be 1; 0-marked (no member has a 1) must be 0.
        if (all & !w) != 0 || (w & !any) != 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coalition(members: usize, length: usize, seed: u64) -> Vec<u64> {
        let mut rng = Rng::from_seed(seed);
        let words = words_for(length);
        let mut rows = vec![0u64; members * words];
        for i in 0..members {
            for k in 0..words {
                // Biased bits so that marked positions of both kinds occur.
                let r = rng.next_u64() & rng.next_u64();
                let v = if i % 2 == 0 { r } else { !r & rng.next_u64() };
                rows[i * words + k] = v & word_mask(length, k);
            }
        }
        rows
    }

    #[test]
    fn every_strategy_is_feasible() {
        for &(members, length) in &[(1usize, 10usize), (2, 64), (3, 130), (7, 1000), (20, 77)] {
            let rows = coalition(members, length, (members * 100 + length) as u64);
            let mut rng = Rng::from_seed(1);
            for s in Strategy::ALL {
                let w = pirate(&rows, members, length, s, &mut rng).unwrap();
                assert!(is_feasible(&w, &rows, members, length).unwrap(), "{s:?}");
            }
        }
    }

    #[test]
    fn strategies_do_what_they_say() {
        let length = 3;
        // Three members: position 0 has ones 2/3, position 1 ones 1/3, position 2 all ones.
        let rows = vec![0b111u64, 0b101, 0b100];
        let mut rng = Rng::from_seed(2);
        let get = |s, rng: &mut Rng| pirate(&rows, 3, length, s, rng).unwrap()[0];
        assert_eq!(get(Strategy::Majority, &mut rng), 0b101);
        assert_eq!(get(Strategy::Minority, &mut rng), 0b110);
        assert_eq!(get(Strategy::ZerosWhereFree, &mut rng), 0b100);
        assert_eq!(get(Strategy::OnesWhereFree, &mut rng), 0b111);
    }

    #[test]
    fn infeasible_words_are_detected() {
        let rows = vec![0b011u64, 0b001];
        assert!(is_feasible(&[0b001], &rows, 2, 3).unwrap());
        assert!(is_feasible(&[0b011], &rows, 2, 3).unwrap());
        assert!(!is_feasible(&[0b000], &rows, 2, 3).unwrap()); // position 0 is 1-marked
        assert!(!is_feasible(&[0b101], &rows, 2, 3).unwrap()); // position 2 is 0-marked
    }

    #[test]
    fn names_round_trip_and_bad_input_is_rejected() {
        for s in Strategy::ALL {
            assert_eq!(s.name().parse::<Strategy>().unwrap(), s);
        }
        assert!("median".parse::<Strategy>().is_err());
        let mut rng = Rng::from_seed(0);
        assert!(pirate(&[], 0, 5, Strategy::Random, &mut rng).is_err());
        assert!(pirate(&[0, 0], 1, 5, Strategy::Random, &mut rng).is_err());
    }
}

//! Property tests of the exponential mechanism (proptest).

use privlearn_core::Rng;
use privlearn_core::expmech::{Numerics, exponential, exponential_int};
use proptest::prelude::*;

fn numerics() -> impl Strategy<Value = Numerics> {
    prop_oneof![Just(Numerics::Exact), Just(Numerics::Fast)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The index is in range and never points at a `-inf` score, whatever the magnitudes.
    #[test]
    fn index_in_range_and_selectable(
        scores in prop::collection::vec(
            prop_oneof![-1e300f64..1e300, -10.0f64..10.0, Just(f64::NEG_INFINITY)], 1..60),
        eps in 1e-6f64..1e6,
        sens in 1e-3f64..1e3,
        num in numerics(),
        seed in any::<u64>(),
    ) {
        prop_assume!(scores.iter().any(|s| s.is_finite()));
        let i = exponential(&scores, eps, sens, num, &mut Rng::from_seed(seed)).unwrap();
        prop_assert!(i < scores.len());
        prop_assert!(scores[i].is_finite());
    }

    /// Adding a constant to every integer score changes nothing, draw for draw.
    #[test]
    fn integer_shift_invariance(
        scores in prop::collection::vec(-1000i64..1000, 1..40),
        shift in -1_000_000i64..1_000_000,
        eps in 0.01f64..10.0,
        seed in any::<u64>(),
    ) {
        let shifted: Vec<i64> = scores.iter().map(|s| s + shift).collect();
        let a = exponential_int(&scores, eps, 1.0, Numerics::Exact, &mut Rng::from_seed(seed)).unwrap();
        let b = exponential_int(&shifted, eps, 1.0, Numerics::Exact, &mut Rng::from_seed(seed)).unwrap();
        prop_assert_eq!(a, b);
    }

    /// Adding a constant to dyadic real scores (exact in floating point) changes nothing.
    #[test]
    fn real_shift_invariance(
        ticks in prop::collection::vec(-4096i64..4096, 1..40),
        shift_ticks in -1_000_000i64..1_000_000,
        eps in 0.01f64..10.0,
        num in numerics(),
        seed in any::<u64>(),
    ) {
        let scores: Vec<f64> = ticks.iter().map(|&t| t as f64 / 64.0).collect();
        let shifted: Vec<f64> = ticks.iter().map(|&t| (t + shift_ticks) as f64 / 64.0).collect();
        let a = exponential(&scores, eps, 1.0, num, &mut Rng::from_seed(seed)).unwrap();
        let b = exponential(&shifted, eps, 1.0, num, &mut Rng::from_seed(seed)).unwrap();
        prop_assert_eq!(a, b);
    }

    /// With a gap of at least one sensitivity and a large epsilon, the best score always wins
    /// (the failure probability is below n e^-100).
    #[test]
    fn dominant_score_wins(
        scores in prop::collection::vec(-100.0f64..0.0, 1..50),
        best in 0usize..50,
        num in numerics(),
        seed in any::<u64>(),
    ) {
        let mut scores = scores;
        let best = best % scores.len();
        scores[best] = 1.0;
        let i = exponential(&scores, 200.0, 1.0, num, &mut Rng::from_seed(seed)).unwrap();
        prop_assert_eq!(i, best);
    }

    /// A NaN or `+inf` score is refused on both paths. (These properties check invariants, not
    /// the sampling law: the law, with power checks, is tested in `expmech::exact`.)
    #[test]
    fn bad_inputs_are_rejected(
        mut scores in prop::collection::vec(-10.0f64..10.0, 1..20),
        pos in 0usize..20,
        bad in prop_oneof![Just(f64::NAN), Just(f64::INFINITY)],
        num in numerics(),
    ) {
        let pos = pos % scores.len();
        scores[pos] = bad;
        prop_assert!(exponential(&scores, 1.0, 1.0, num, &mut Rng::from_seed(0)).is_err());
    }
}

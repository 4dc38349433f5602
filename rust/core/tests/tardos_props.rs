//! Property tests of the fingerprinting codes (proptest).

use privlearn_core::Rng;
use privlearn_core::tardos::bits::{pack_bools, transpose64, unpack_bools, words_for};
use privlearn_core::tardos::score::{self, Kernel};
use privlearn_core::tardos::{
    BonehShawCode, Strategy as Pirate, TardosCode, Variant, is_feasible, parameters, pirate,
};
use proptest::prelude::*;

fn strategy() -> impl Strategy<Value = Pirate> {
    prop::sample::select(Pirate::ALL.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Every strategy obeys the marking assumption, and flipping a marked position breaks it.
    #[test]
    fn pirate_words_are_feasible(
        members in 1usize..8,
        length in 1usize..300,
        density in 0.0f64..1.0,
        s in strategy(),
        seed in any::<u64>(),
    ) {
        let mut rng = Rng::from_seed(seed);
        let words = words_for(length);
        let mut rows = Vec::with_capacity(members * words);
        for _ in 0..members {
            let bits: Vec<bool> = (0..length).map(|_| rng.uniform_f64() < density).collect();
            rows.extend(pack_bools(&bits));
        }
        let word = pirate(&rows, members, length, s, &mut rng).unwrap();
        prop_assert!(is_feasible(&word, &rows, members, length).unwrap());
        let bits = unpack_bools(&word, length);
        for j in 0..length {
            let col: Vec<bool> =
                (0..members).map(|i| unpack_bools(&rows[i * words..(i + 1) * words], length)[j]).collect();
            if col.iter().all(|&b| b == col[0]) {
                prop_assert_eq!(bits[j], col[0]);
                let mut flipped = bits.clone();
                flipped[j] = !flipped[j];
                prop_assert!(!is_feasible(&pack_bools(&flipped), &rows, members, length).unwrap());
                break;
            }
        }
    }

    /// The exact integer kernels agree bit for bit with the one-bit-at-a-time reference.
    #[test]
    fn kernels_agree(n in 1usize..40, length in 1usize..700, seed in any::<u64>()) {
        let p = parameters(n, 1, 0.5, Variant::Symmetric, Some(length)).unwrap();
        let code = TardosCode::generate(p.clone(), &mut Rng::from_seed(seed)).unwrap();
        let word = code.row(0).to_vec();
        for variant in [Variant::Symmetric, Variant::Tardos] {
            let wt = score::weights(code.biases(), &word, variant, p.cutoff);
            let naive = score::products(code.rows(), code.words_per_row(), &wt.w, Kernel::Naive);
            for k in [Kernel::ByteTable, Kernel::Avx512, score::best_kernel()] {
                prop_assert_eq!(
                    &score::products(code.rows(), code.words_per_row(), &wt.w, k), &naive);
            }
        }
    }

    /// Transposing twice is the identity.
    #[test]
    fn transpose_is_an_involution(seed in any::<u64>()) {
        let mut rng = Rng::from_seed(seed);
        let mut a = [0u64; 64];
        for w in a.iter_mut() {
            *w = rng.next_u64();
        }
        let orig = a;
        transpose64(&mut a);
        transpose64(&mut a);
        prop_assert_eq!(a, orig);
    }

    /// The robust Boneh–Shaw trace accuses a member, and only members, for every feasible word.
    #[test]
    fn boneh_shaw_is_complete_and_sound_on_feasible_words(
        n in 2usize..7,
        mask in 1u32..127,
        s in strategy(),
        seed in any::<u64>(),
    ) {
        let members: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
        prop_assume!(!members.is_empty());
        let mut rng = Rng::from_seed(seed);
        let code = BonehShawCode::new(n, 0.2, &mut rng).unwrap();
        let rows = code.rows_of(&members).unwrap();
        let word = pirate(&rows, members.len(), code.params().length, s, &mut rng).unwrap();
        let accused = code.trace(&word).unwrap();
        prop_assert!(!accused.is_empty());
        // Soundness is probabilistic (ξ/2 = 0.1 per code), so only completeness is exact here;
        // the statistical tests bound the innocent accusations.
        prop_assert!(accused.iter().any(|u| members.contains(u)));
    }
}

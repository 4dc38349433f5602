//! Property tests of the multi-concept learners' core (proptest).

use privlearn_core::Rng;
use privlearn_core::gf2::Matrix;
use privlearn_core::multi::{learn_points, mistakes_matrix, search_parities, stability_histogram};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// With labels of k parities, every candidate is the target vector, so whatever the noise
    /// the release is the targets or nothing; with a large epsilon it is the targets.
    #[test]
    fn search_parities_releases_the_targets_or_nothing(
        d in 1usize..90, k in 1usize..80, extra in 0usize..4, t in 1usize..40, seed in any::<u64>(),
    ) {
        let mut rng = Rng::from_seed(seed);
        let m = d + extra;
        let x = Matrix::random(t * m, d, &mut rng);
        let s = Matrix::random(d, k, &mut rng);
        let y = x.mul(&s).unwrap();
        let out = search_parities(&x, &y, m, 1.0, 1e-3, &mut rng).unwrap();
        prop_assert_eq!(out.subsamples, t);
        prop_assert!(out.solution.as_ref().is_none_or(|got| got == &s));
        if extra == 3 && t >= 30 {
            // Each subsample has full rank with probability above 7/8, so at least 5 of 30 do
            // except with probability below 1e-15; at epsilon = 50 the noise scale is 0.04 and
            // the threshold 4, so a gap of 5 is released except with probability about e^-25.
            let out = search_parities(&x, &y, m, 50.0, 1e-3, &mut rng).unwrap();
            prop_assert_eq!(out.solution.as_ref(), Some(&s));
        }
    }

    /// The histogram releases support points only, in increasing order.
    #[test]
    fn histogram_releases_support_points_in_order(
        counts in prop::collection::vec(0u64..40, 1..60), seed in any::<u64>(),
    ) {
        let mut rng = Rng::from_seed(seed);
        let out = stability_histogram(&counts, 2.0, 0.2, &mut rng).unwrap();
        prop_assert!(out.iter().all(|&(i, _)| counts[i] > 0));
        prop_assert!(out.windows(2).all(|p| p[0].0 < p[1].0));
    }

    /// LearnPoints' heavy points are support points in increasing order, and a released label
    /// vector of a point is one its rows carry (realizable data: the one they all carry).
    #[test]
    fn learn_points_releases_data_label_vectors(
        keys in 1usize..12, k in 1usize..70, n in 50usize..600, seed in any::<u64>(),
    ) {
        let mut rng = Rng::from_seed(seed);
        let ids: Vec<usize> = (0..n).map(|_| rng.below(keys as u64) as usize).collect();
        let per_key = Matrix::random(keys, k, &mut rng);
        let mut labels = Matrix::zeros(n, k);
        for (r, &i) in ids.iter().enumerate() {
            for j in 0..k {
                labels.set(r, j, per_key.get(i, j));
            }
        }
        let out = learn_points(&ids, keys, &labels, 0.5, 4.0, 1e-3, &mut rng).unwrap();
        prop_assert!(out.heavy.windows(2).all(|p| p[0] < p[1]));
        prop_assert!(out.heavy.iter().all(|h| ids.contains(h)));
        if let Some(released) = out.labels {
            for (row, &key) in out.heavy.iter().enumerate() {
                prop_assert_eq!(released.row(row), per_key.row(key));
            }
        }
    }

    /// Disagreements are symmetric, vanish on the diagonal and obey the triangle inequality.
    #[test]
    fn mistakes_form_a_metric(h in 1usize..6, words in 1usize..5, seed in any::<u64>()) {
        let mut rng = Rng::from_seed(seed);
        let a: Vec<u64> = (0..h * words).map(|_| rng.next_u64()).collect();
        let ab = mistakes_matrix(&a, h, &a, h, words).unwrap();
        for i in 0..h {
            prop_assert_eq!(ab[i * h + i], 0);
            for j in 0..h {
                prop_assert_eq!(ab[i * h + j], ab[j * h + i]);
                for l in 0..h {
                    prop_assert!(ab[i * h + j] <= ab[i * h + l] + ab[l * h + j]);
                }
            }
        }
    }
}

//! Property tests of dichotomy enumeration (proptest): on small random inputs with ties and
//! duplicates, every class's output equals an independent brute force, has no repeated
//! labeling, and every representative reproduces its labeling.

use std::collections::BTreeSet;

use privlearn_core::dichotomy::halfspaces::{Prepared, predict};
use privlearn_core::dichotomy::parities::Parities;
use privlearn_core::dichotomy::rectangles::Rectangles;
use privlearn_core::dichotomy::thresholds::{Orientation, Thresholds};
use privlearn_core::dichotomy::{Class, Dichotomies, Stream, collect};
use proptest::prelude::*;

fn labels<P: Copy>(d: &Dichotomies<P>) -> Vec<Vec<bool>> {
    (0..d.len())
        .map(|i| (0..d.n_points()).map(|j| d.bit(i, j)).collect())
        .collect()
}

fn as_set(l: &[Vec<bool>]) -> BTreeSet<Vec<bool>> {
    l.iter().cloned().collect()
}

/// Exact brute force for halfspaces on integer points of the plane: the constants, and for
/// every line through two distinct points, its two sides with every prefix or suffix of the
/// points on it (in their order along the line) added.
fn brute_halfspaces(pts: &[(i64, i64)]) -> BTreeSet<Vec<bool>> {
    let n = pts.len();
    let mut out = BTreeSet::new();
    out.insert(vec![false; n]);
    out.insert(vec![true; n]);
    let mut distinct: Vec<(i64, i64)> = pts.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    for (ia, &a) in distinct.iter().enumerate() {
        for &b in &distinct[ia + 1..] {
            let (dx, dy) = (b.0 - a.0, b.1 - a.1);
            let side: Vec<i64> = pts
                .iter()
                .map(|p| dx * (p.1 - a.1) - dy * (p.0 - a.0))
                .collect();
            let mut on: Vec<(i64, i64)> = distinct
                .iter()
                .copied()
                .filter(|p| dx * (p.1 - a.1) - dy * (p.0 - a.0) == 0)
                .collect();
            on.sort_by_key(|p| dx * p.0 + dy * p.1);
            for k in 0..=on.len() {
                for chosen in [&on[..k], &on[k..]] {
                    for sgn in [1, -1] {
                        out.insert(
                            (0..n)
                                .map(|i| {
                                    sgn * side[i] > 0 || (side[i] == 0 && chosen.contains(&pts[i]))
                                })
                                .collect(),
                        );
                    }
                }
            }
        }
    }
    out
}

fn points2() -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop::collection::vec((-3i64..=3, -3i64..=3), 0..9)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn halfspaces_in_the_plane(pts in points2()) {
        let x: Vec<f64> = pts.iter().flat_map(|&(a, b)| [a as f64, b as f64]).collect();
        let p = Prepared::new(&x, 2).unwrap();
        let d = p.collect(usize::MAX).unwrap();
        let l = labels(&d);
        prop_assert_eq!(as_set(&l).len(), l.len());
        prop_assert_eq!(as_set(&l), brute_halfspaces(&pts));
        prop_assert_eq!(p.count().unwrap(), l.len() as u128);
        for (i, lab) in l.iter().enumerate() {
            prop_assert_eq!(&predict(d.params(i), &x).unwrap(), lab);
        }
    }

    #[test]
    fn halfspaces_lifted_to_space_agree(pts in points2(), c in -2i64..=2) {
        // The same points on the plane z = c x + 1 of R^3 have the same labelings.
        let x2: Vec<f64> = pts.iter().flat_map(|&(a, b)| [a as f64, b as f64]).collect();
        let x3: Vec<f64> = pts.iter().flat_map(|&(a, b)| [a as f64, b as f64, (c * a + 1) as f64]).collect();
        let d2 = Prepared::new(&x2, 2).unwrap().collect(usize::MAX).unwrap();
        let d3 = Prepared::new(&x3, 3).unwrap().collect(usize::MAX).unwrap();
        prop_assert_eq!(as_set(&labels(&d2)), as_set(&labels(&d3)));
        for (i, lab) in labels(&d3).iter().enumerate() {
            prop_assert_eq!(&predict(d3.params(i), &x3).unwrap(), lab);
        }
    }

    #[test]
    fn thresholds_and_streams(xs in prop::collection::vec(-4i64..=4, 0..12), o in 0usize..3, chunk in 1usize..9) {
        let x: Vec<f64> = xs.iter().map(|&v| v as f64).collect();
        let o = [Orientation::Ge, Orientation::Le, Orientation::Both][o];
        let d = collect(&mut Thresholds::new(&x, o).unwrap(), usize::MAX).unwrap();
        let mut brute = BTreeSet::new();
        for t in -5..=5 {
            let t = t as f64 + 0.5;
            for v in [t, -100.0, 100.0] {
                if o != Orientation::Le { brute.insert(x.iter().map(|&a| a >= v).collect::<Vec<_>>()); }
                if o != Orientation::Ge { brute.insert(x.iter().map(|&a| a <= v).collect::<Vec<_>>()); }
            }
        }
        let l = labels(&d);
        prop_assert_eq!(as_set(&l).len(), l.len());
        prop_assert_eq!(as_set(&l), brute);
        let mut s = Stream::new(Thresholds::new(&x, o).unwrap());
        let mut again = Vec::new();
        while let Some(c) = s.next_chunk(chunk) {
            prop_assert!(c.len() <= chunk);
            again.extend(labels(&c));
        }
        prop_assert_eq!(again, l);
    }

    #[test]
    fn rectangles_in_the_plane(pts in points2()) {
        let x: Vec<f64> = pts.iter().flat_map(|&(a, b)| [a as f64, b as f64]).collect();
        let d = collect(&mut Rectangles::new(&x, 2).unwrap(), usize::MAX).unwrap();
        let n = pts.len();
        let mut brute = BTreeSet::new();
        for mask in 0u32..(1 << n) {
            let sel: Vec<(i64, i64)> = (0..n).filter(|&i| mask >> i & 1 == 1).map(|i| pts[i]).collect();
            if sel.is_empty() { brute.insert(vec![false; n]); continue; }
            let (x0, x1) = (sel.iter().map(|p| p.0).min().unwrap(), sel.iter().map(|p| p.0).max().unwrap());
            let (y0, y1) = (sel.iter().map(|p| p.1).min().unwrap(), sel.iter().map(|p| p.1).max().unwrap());
            brute.insert(pts.iter().map(|p| x0 <= p.0 && p.0 <= x1 && y0 <= p.1 && p.1 <= y1).collect());
        }
        let l = labels(&d);
        prop_assert_eq!(as_set(&l).len(), l.len());
        prop_assert_eq!(as_set(&l), brute);
        prop_assert_eq!(Class::Rectangles(2).count(&x).unwrap(), l.len() as u128);
    }

    #[test]
    fn parities_span(rows in prop::collection::vec(prop::collection::vec(any::<bool>(), 5), 0..8)) {
        let x: Vec<bool> = rows.iter().flatten().copied().collect();
        let p = Parities::new(&x, 5).unwrap();
        let d = p.collect(usize::MAX).unwrap();
        let brute: BTreeSet<Vec<bool>> = (0u32..32)
            .map(|a| rows.iter().map(|r| r.iter().enumerate().filter(|&(j, &b)| b && a >> j & 1 == 1).count() % 2 == 1).collect())
            .collect();
        let l = labels(&d);
        prop_assert_eq!(l.len(), 1usize << p.rank());
        prop_assert_eq!(as_set(&l), brute);
    }
}

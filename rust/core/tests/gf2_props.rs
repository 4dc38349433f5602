//! Property tests of `privlearn_core::gf2` against an independent oracle: Gauss–Jordan
//! elimination on `Vec<Vec<bool>>`, written here without any of the crate's code.

use privlearn_core::Rng;
use privlearn_core::gf2::{Matrix, learn_parity, reference};
use proptest::prelude::*;

type Bools = Vec<Vec<bool>>;

fn to_bools(m: &Matrix) -> Bools {
    (0..m.rows())
        .map(|i| (0..m.cols()).map(|j| m.get(i, j)).collect())
        .collect()
}

fn from_bools(rows: usize, cols: usize, b: &Bools) -> Matrix {
    let flat: Vec<bool> = b.iter().flatten().copied().collect();
    Matrix::from_bools(rows, cols, &flat).unwrap()
}

/// Reduced row echelon form and pivots of a boolean matrix (the oracle).
fn oracle_rref(mut a: Bools, cols: usize) -> (Bools, Vec<usize>) {
    let rows = a.len();
    let mut pivots = vec![];
    let mut r = 0;
    for c in 0..cols {
        if r == rows {
            break;
        }
        if let Some(p) = (r..rows).find(|&i| a[i][c]) {
            a.swap(r, p);
            for i in 0..rows {
                if i != r && a[i][c] {
                    let pr = a[r].clone();
                    for (x, y) in a[i].iter_mut().zip(pr) {
                        *x ^= y;
                    }
                }
            }
            pivots.push(c);
            r += 1;
        }
    }
    (a, pivots)
}

fn oracle_mul(a: &Bools, b: &Bools, inner: usize, cols: usize) -> Bools {
    a.iter()
        .map(|ra| {
            (0..cols)
                .map(|j| (0..inner).fold(false, |acc, k| acc ^ (ra[k] & b[k][j])))
                .collect()
        })
        .collect()
}

/// A matrix of a given shape with a chosen structure: uniform, sparse, low-rank, zero,
/// identity-like, or with duplicated rows.
fn structured(rows: usize, cols: usize, kind: u8, seed: u64) -> Matrix {
    let mut rng = Rng::from_seed(seed);
    match kind % 6 {
        0 => Matrix::random(rows, cols, &mut rng),
        1 => {
            let mut m = Matrix::zeros(rows, cols);
            for i in 0..rows {
                for j in 0..cols {
                    if rng.below(16) == 0 {
                        m.set(i, j, true);
                    }
                }
            }
            m
        }
        2 => {
            // Rank at most r: a product of rows x r and r x cols random matrices.
            let r = (rng.below(4) as usize).min(rows.min(cols));
            let l = Matrix::random(rows, r, &mut rng);
            let q = Matrix::random(r, cols, &mut rng);
            reference::mul(&l, &q)
        }
        3 => Matrix::zeros(rows, cols),
        4 => {
            let mut m = Matrix::zeros(rows, cols);
            for i in 0..rows.min(cols) {
                m.set(i, i, true);
            }
            m
        }
        _ => {
            let mut m = Matrix::random(rows, cols, &mut rng);
            for i in 1..rows {
                if rng.bit() {
                    let src = rng.below(i as u64) as usize;
                    for j in 0..cols {
                        let v = m.get(src, j);
                        m.set(i, j, v);
                    }
                }
            }
            m
        }
    }
}

fn shape() -> impl Strategy<Value = (usize, usize)> {
    let dim = prop_oneof![0usize..5, 60usize..70, 120usize..135, 1usize..200];
    (dim.clone(), dim)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn rref_matches_oracle((rows, cols) in shape(), kind in 0u8..6, seed in any::<u64>()) {
        let a = structured(rows, cols, kind, seed);
        let (want, want_piv) = oracle_rref(to_bools(&a), cols);
        let mut r = a.clone();
        let piv = r.rref();
        prop_assert_eq!(&piv, &want_piv);
        prop_assert_eq!(to_bools(&r), want);
        prop_assert_eq!(a.rank(), want_piv.len());
        let mut again = r.clone();
        prop_assert_eq!(again.rref(), piv);
        prop_assert_eq!(again, r);
    }

    #[test]
    fn transpose_and_roundtrips((rows, cols) in shape(), seed in any::<u64>()) {
        let a = Matrix::random(rows, cols, &mut Rng::from_seed(seed));
        let t = a.transpose();
        prop_assert_eq!((t.rows(), t.cols()), (cols, rows));
        for i in 0..rows {
            for j in 0..cols {
                prop_assert_eq!(a.get(i, j), t.get(j, i));
            }
        }
        prop_assert_eq!(&t.transpose(), &a);
        prop_assert_eq!(&Matrix::from_bools(rows, cols, &a.to_bools()).unwrap(), &a);
        prop_assert_eq!(&Matrix::from_rows_words(rows, cols, &a.to_rows_words()).unwrap(), &a);
        prop_assert_eq!(from_bools(rows, cols, &to_bools(&a)), a);
    }

    #[test]
    fn mul_matches_oracle(n in 0usize..150, k in 0usize..150, m in 0usize..150, seed in any::<u64>()) {
        let mut rng = Rng::from_seed(seed);
        let a = Matrix::random(n, k, &mut rng);
        let b = Matrix::random(k, m, &mut rng);
        let c = a.mul(&b).unwrap();
        prop_assert_eq!(to_bools(&c), oracle_mul(&to_bools(&a), &to_bools(&b), k, m));
        prop_assert_eq!(c, reference::mul(&a, &b));
    }

    #[test]
    fn solve_properties((rows, cols) in shape(), k in 1usize..5, kind in 0u8..6, seed in any::<u64>()) {
        let a = structured(rows, cols, kind, seed);
        let mut rng = Rng::from_seed(seed ^ 1);
        // Half of the right-hand sides are in the column space by construction.
        let b = if rng.bit() {
            a.mul(&Matrix::random(cols, k, &mut rng)).unwrap()
        } else {
            Matrix::random(rows, k, &mut rng)
        };
        let rank_a = a.rank();
        let consistent_oracle: Vec<bool> = (0..k)
            .map(|j| a.hstack(&b.submatrix(0, rows, j, j + 1)).unwrap().rank() == rank_a)
            .collect();
        let (x, consistent) = a.solve_each(&b).unwrap();
        prop_assert_eq!(&consistent, &consistent_oracle);
        let ax = a.mul(&x).unwrap();
        for (j, &ok) in consistent.iter().enumerate() {
            if ok {
                prop_assert_eq!(ax.submatrix(0, rows, j, j + 1), b.submatrix(0, rows, j, j + 1));
            }
        }
        match a.solve(&b).unwrap() {
            Some(x2) => {
                prop_assert!(consistent.iter().all(|&c| c));
                prop_assert_eq!(a.mul(&x2).unwrap(), b.clone());
            }
            None => prop_assert!(consistent.iter().any(|&c| !c)),
        }
        prop_assert_eq!(learn_parity(&a, &b).unwrap(), a.solve(&b).unwrap());
    }

    #[test]
    fn nullspace_properties((rows, cols) in shape(), kind in 0u8..6, seed in any::<u64>()) {
        let a = structured(rows, cols, kind, seed);
        let n = a.nullspace();
        let rank = a.rank();
        prop_assert_eq!((n.rows(), n.cols()), (cols, cols - rank));
        prop_assert!(a.mul(&n).unwrap().is_zero());
        prop_assert_eq!(n.rank(), cols - rank); // a basis: independent columns
    }

    #[test]
    fn inverse_properties(n in 0usize..140, kind in 0u8..6, seed in any::<u64>()) {
        let a = structured(n, n, kind, seed);
        let inv = a.inverse().unwrap();
        prop_assert_eq!(inv.is_some(), a.rank() == n);
        if let Some(inv) = inv {
            prop_assert_eq!(a.mul(&inv).unwrap(), Matrix::identity(n));
            prop_assert_eq!(inv.mul(&a).unwrap(), Matrix::identity(n));
        }
    }
}

#[test]
fn shape_errors() {
    assert!(Matrix::from_bools(2, 3, &[true; 5]).is_err());
    assert!(Matrix::from_rows_words(2, 3, &[0; 3]).is_err());
    // A padding bit set beyond column 2.
    assert!(Matrix::from_rows_words(1, 3, &[0b1000]).is_err());
    assert!(Matrix::from_rows_words(1, 64, &[!0]).is_ok());
    let a = Matrix::zeros(3, 4);
    assert!(a.mul(&Matrix::zeros(3, 4)).is_err());
    assert!(a.solve(&Matrix::zeros(4, 1)).is_err());
    assert!(a.inverse().is_err());
    assert!(learn_parity(&a, &Matrix::zeros(2, 1)).is_err());
}

#[test]
fn rref_of_identity_zero_and_edges() {
    for n in [0, 1, 63, 64, 65, 200] {
        let mut i = Matrix::identity(n);
        assert_eq!(i.rref(), (0..n).collect::<Vec<_>>());
        assert_eq!(i, Matrix::identity(n));
        let mut z = Matrix::zeros(n, n + 3);
        assert!(z.rref().is_empty());
        assert!(z.is_zero());
    }
    // 1 x n and n x 1.
    let mut row = Matrix::zeros(1, 130);
    row.set(0, 129, true);
    row.set(0, 70, true);
    assert_eq!(row.rref(), vec![70]);
    let mut col = Matrix::zeros(130, 1);
    col.set(100, 0, true);
    col.set(7, 0, true);
    assert_eq!(col.rref(), vec![0]);
    assert!(col.get(0, 0));
    assert_eq!((1..130).filter(|&i| col.get(i, 0)).count(), 0);
}

/// Rank of random m x d matrices against the exact law
/// P(rank = d) = prod_{i<d} (1 - 2^{i-m}) (spec 002, test 20): a structural check of rank on
/// many small matrices with a fixed seed, at six standard deviations (false-positive rate about
/// 2e-9), with a power check: a rank that drops the last row must be rejected.
#[test]
fn full_rank_frequency_is_plausible() {
    let (m, d, trials) = (12usize, 10usize, 4000usize);
    let mut rng = Rng::from_seed(20);
    let mats: Vec<Matrix> = (0..trials)
        .map(|_| Matrix::random(m, d, &mut rng))
        .collect();
    let p: f64 = (0..d)
        .map(|i| 1.0 - 2f64.powi(i as i32 - m as i32))
        .product();
    // Binomial(4000, p ~ 0.77): standard deviation ~ 27.
    let sd = (trials as f64 * p * (1.0 - p)).sqrt();
    let plausible = |full: usize| (full as f64 - trials as f64 * p).abs() < 6.0 * sd;
    let full = mats.iter().filter(|a| a.rank() == d).count();
    assert!(plausible(full), "{full} vs {}", trials as f64 * p);
    let broken = mats
        .iter()
        .filter(|a| a.submatrix(0, m - 1, 0, d).rank() == d)
        .count();
    assert!(!plausible(broken), "power check: {broken} not rejected");
}

/// Larger matrices (several strips of the blocked elimination) against the textbook
/// elimination of `reference`.
#[test]
fn blocked_rref_matches_reference() {
    let shapes = [
        (300, 700),
        (513, 513),
        (1000, 300),
        (260, 2000),
        (640, 640),
        (129, 1030),
        (2000, 129),
    ];
    for (s, &(rows, cols)) in shapes.iter().enumerate() {
        for kind in 0..6u8 {
            let a = structured(rows, cols, kind, 1000 + s as u64);
            let mut fast = a.clone();
            let mut slow = a.clone();
            let pf = fast.rref();
            let ps = reference::rref(&mut slow);
            assert_eq!(pf, ps, "pivots differ for {rows} x {cols}, kind {kind}");
            assert_eq!(fast, slow, "forms differ for {rows} x {cols}, kind {kind}");
            assert_eq!(a.rank(), ps.len());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Medium sizes with structure mixed into random matrices: duplicated and zero columns,
    /// rank deficiency spread over several strips.
    #[test]
    fn blocked_rref_props(rows in 128usize..600, cols in 128usize..600, kind in 0u8..6, seed in any::<u64>(),
                          dup_cols in 0usize..40) {
        let mut a = structured(rows, cols, kind, seed);
        let mut rng = Rng::from_seed(seed ^ 7);
        for _ in 0..dup_cols {
            let (src, dst) = (rng.below(cols as u64) as usize, rng.below(cols as u64) as usize);
            let zero = rng.bit();
            for i in 0..rows {
                let v = !zero && a.get(i, src);
                a.set(i, dst, v);
            }
        }
        let mut fast = a.clone();
        let mut slow = a.clone();
        prop_assert_eq!(fast.rref(), reference::rref(&mut slow));
        prop_assert_eq!(fast, slow);
    }
}

/// Products with several 256-row blocks of the inner dimension against the definition.
#[test]
fn blocked_mul_matches_reference() {
    let mut rng = Rng::from_seed(77);
    for &(n, k, m) in &[
        (300, 700, 333),
        (64, 1030, 70),
        (513, 257, 1),
        (40, 600, 1100),
    ] {
        let a = Matrix::random(n, k, &mut rng);
        let b = Matrix::random(k, m, &mut rng);
        assert_eq!(
            a.mul(&b).unwrap(),
            reference::mul(&a, &b),
            "{n} x {k} x {m}"
        );
    }
}

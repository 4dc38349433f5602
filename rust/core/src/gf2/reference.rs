//! Simple, obviously correct implementations used as test oracles for the fast paths.
//!
//! They work on the same [`Matrix`] type but use nothing of the fast code: row operations are
//! whole-row XORs found by scanning one column at a time (textbook Gauss–Jordan elimination),
//! and the product is computed entry by entry from the definition.

use super::matrix::Matrix;

/// Reduced row echelon form by textbook Gauss–Jordan elimination, in place; returns the pivot
/// columns in increasing order.
pub fn rref(a: &mut Matrix) -> Vec<usize> {
    let (rows, cols) = (a.rows(), a.cols());
    let mut pivots = Vec::new();
    let mut r = 0;
    for c in 0..cols {
        if r == rows {
            break;
        }
        let Some(p) = (r..rows).find(|&i| a.get(i, c)) else {
            continue;
        };
        a.swap_rows(r, p);
        let pivot_row: Vec<u64> = a.row(r).to_vec();
        for i in 0..rows {
            if i != r && a.get(i, c) {
                for (x, y) in a.row_mut(i).iter_mut().zip(&pivot_row) {
                    *x ^= y;
                }
            }
        }
        pivots.push(c);
        r += 1;
    }
    pivots
}

/// The product `a * b` from the definition: entry `(i, j)` is the parity of
/// `a[i, :] AND b[:, j]`.
///
/// # Panics
/// If `a.cols() != b.rows()`.
pub fn mul(a: &Matrix, b: &Matrix) -> Matrix {
    assert_eq!(a.cols(), b.rows(), "inner dimensions differ");
    let bt = b.transpose();
    let mut c = Matrix::zeros(a.rows(), b.cols());
    for i in 0..a.rows() {
        for j in 0..b.cols() {
            let dot = a
                .row(i)
                .iter()
                .zip(bt.row(j))
                .fold(0u32, |acc, (x, y)| acc ^ (x & y).count_ones());
            c.set(i, j, dot & 1 == 1);
        }
    }
    c
}

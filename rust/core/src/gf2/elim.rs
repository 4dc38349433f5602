//! Gaussian elimination: reduced row echelon form.

use super::matrix::Matrix;

/// Reduces `a` in place to reduced row echelon form, choosing pivots only among the first
/// `limit` columns (row operations act on whole rows, so columns `limit..` are carried along as
/// right-hand sides). Returns the pivot columns in increasing order.
pub(crate) fn rref_limited(a: &mut Matrix, limit: usize) -> Vec<usize> {
    let limit = limit.min(a.cols());
    let rows = a.rows();
    let (stride, wpr) = (a.stride(), a.words_per_row());
    let mut pivots = Vec::new();
    let mut r = 0;
    for c in 0..limit {
        if r == rows {
            break;
        }
        let (w, bit) = (c / 64, 1u64 << (c % 64));
        let words = a.words_mut();
        let Some(p) = (r..rows).find(|&i| words[i * stride + w] & bit != 0) else {
            continue;
        };
        a.swap_rows(r, p);
        let words = a.words_mut();
        let pivot: Vec<u64> = words[r * stride + w..r * stride + wpr].to_vec();
        for i in 0..rows {
            let row = &mut words[i * stride + w..i * stride + wpr];
            if i != r && row[0] & bit != 0 {
                for (x, y) in row.iter_mut().zip(&pivot) {
                    *x ^= y;
                }
            }
        }
        pivots.push(c);
        r += 1;
    }
    pivots
}

impl Matrix {
    /// Reduces the matrix in place to its reduced row echelon form and returns the pivot
    /// columns in increasing order; their number is the rank.
    ///
    /// The form is unique: row `r < rank` has its leading one in column `pivots[r]`, every
    /// other row has a zero there, and rows `rank..` are zero.
    pub fn rref(&mut self) -> Vec<usize> {
        rref_limited(self, self.cols())
    }

    /// The rank (dimension of the row space).
    pub fn rank(&self) -> usize {
        self.clone().rref().len()
    }
}

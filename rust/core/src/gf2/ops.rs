//! Products, linear systems, null spaces, inverses and parity learning on top of elimination.

use super::elim::{pack_bits, rref_limited};
use super::kernel::{AddMul, Dest, NONE, Scratch, addmul};
use super::matrix::Matrix;
use crate::error::{Error, Result};

/// Products with fewer rows or a shorter inner dimension than this add rows of `B` directly.
const MUL_M4RM_MIN: usize = 32;

/// Inner dimension handled per pass of the M4RM kernel (32 tables of 8 bits).
const MUL_BLOCK: usize = 256;

/// `c ^= a * b` by adding, for every one in row `i` of `a` at column `k`, row `k` of `b` to row
/// `i` of `c` (textbook; for small products).
fn mul_rows(a: &Matrix, b: &Matrix, c: &mut Matrix) {
    for i in 0..a.rows() {
        let dst = c.row_mut(i);
        for (w, &word) in a.row(i).iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let k = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                for (x, y) in dst.iter_mut().zip(b.row(k)) {
                    *x ^= y;
                }
            }
        }
    }
}

/// `c ^= a * b` by the Method of the Four Russians for multiplication (Albrecht, Bard and Hart,
/// arXiv:0811.1714, Algorithm 1 with 8-bit tables): for each block of 256 rows of `b`, the
/// tables of its 32 groups of eight rows are combined into every row of `c`, the index bytes
/// read from the matching 256 columns of `a` (see [`super::kernel`]).
fn mul_m4rm(a: &Matrix, b: &Matrix, c: &mut Matrix) {
    let k = a.cols();
    let mut scratch = Scratch::default();
    let (cs, cw) = (c.stride(), c.words_per_row());
    let n = c.rows();
    for kb in (0..k).step_by(MUL_BLOCK) {
        let width = (k - kb).min(MUL_BLOCK);
        let src_rows: Vec<u32> = (0..MUL_BLOCK)
            .map(|j| if j < width { (kb + j) as u32 } else { NONE })
            .collect();
        let op = AddMul {
            idx: &a.words()[kb / 64..],
            idx_stride: a.stride(),
            chunks: width.div_ceil(8),
            src: b.words(),
            src_stride: b.stride(),
            src_rows: &src_rows,
            src_w0: 0,
        };
        let dst = Dest {
            words: c.words_mut(),
            stride: cs,
            nrows: n,
            w0: 0,
            w1: cw,
        };
        addmul(dst, &op, &mut scratch);
    }
}

impl Matrix {
    /// The product `self * other`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`other`) if `self.cols() != other.rows()`.
    pub fn mul(&self, other: &Matrix) -> Result<Matrix> {
        if self.cols() != other.rows() {
            return Err(Error::invalid(
                "other",
                format!(
                    "cannot multiply a {} x {} matrix by a {} x {} matrix (inner dimensions differ)",
                    self.rows(),
                    self.cols(),
                    other.rows(),
                    other.cols()
                ),
            ));
        }
        let (n, k) = (self.rows(), self.cols());
        let mut c = Matrix::zeros(n, other.cols());
        if n < MUL_M4RM_MIN || k < MUL_M4RM_MIN {
            mul_rows(self, other, &mut c);
        } else {
            mul_m4rm(self, other, &mut c);
        }
        Ok(c)
    }

    /// `[self | other]`: the columns of `other` appended to those of `self`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`other`) if the row counts differ.
    pub fn hstack(&self, other: &Matrix) -> Result<Matrix> {
        if self.rows() != other.rows() {
            return Err(Error::invalid(
                "other",
                format!(
                    "cannot join a matrix with {} rows to one with {} rows",
                    other.rows(),
                    self.rows()
                ),
            ));
        }
        let (c0, c1) = (self.cols(), other.cols());
        let mut m = Matrix::zeros(self.rows(), c0 + c1);
        let (q, s) = (c0 / 64, c0 % 64);
        for i in 0..self.rows() {
            let dst = m.row_mut(i);
            dst[..self.words_per_row()].copy_from_slice(self.row(i));
            for (w, &v) in other.row(i).iter().enumerate() {
                dst[q + w] |= v << s;
                if s != 0 && q + w + 1 < dst.len() {
                    dst[q + w + 1] |= v >> (64 - s);
                }
            }
        }
        Ok(m)
    }

    /// A solution `X` of `self * X = b` for every column of `b` at once, or `None` if some
    /// column of `b` is inconsistent (not in the column space of `self`).
    ///
    /// `b` has `self.rows()` rows and any number `k` of columns (right-hand sides); `X` is
    /// `self.cols() x k`. When the system is underdetermined the solution returned is the one
    /// whose free variables (the non-pivot columns of the reduced echelon form of `self`) are
    /// zero, so it is supported on the pivot columns.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`b`) if `b.rows() != self.rows()`.
    pub fn solve(&self, b: &Matrix) -> Result<Option<Matrix>> {
        let (x, consistent) = self.solve_each(b)?;
        Ok(if consistent.iter().all(|&c| c) {
            Some(x)
        } else {
            None
        })
    }

    /// Like [`Matrix::solve`], column by column: returns `X` and, for each column `j` of `b`,
    /// whether `self * X[:, j] = b[:, j]` holds (when it does not, column `j` of `X` is
    /// meaningless; it is then the free-variables-zero solution of a subsystem).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`b`) if `b.rows() != self.rows()`.
    pub fn solve_each(&self, b: &Matrix) -> Result<(Matrix, Vec<bool>)> {
        if b.rows() != self.rows() {
            return Err(Error::invalid(
                "b",
                format!(
                    "must have as many rows as the matrix ({}), got {}",
                    self.rows(),
                    b.rows()
                ),
            ));
        }
        let (m, k) = (self.cols(), b.cols());
        let mut aug = self.hstack(b)?;
        let pivots = rref_limited(&mut aug, m);
        let rank = pivots.len();
        // Column j is consistent iff no row below the rank (zero on the left) has a one at m + j.
        let mut below = Matrix::zeros(1, m + k);
        for i in rank..aug.rows() {
            for (x, y) in below.row_mut(0).iter_mut().zip(aug.row(i)) {
                *x |= y;
            }
        }
        let below = below.submatrix(0, 1, m, m + k);
        let consistent = (0..k).map(|j| !below.get(0, j)).collect();
        let rhs = aug.submatrix(0, rank, m, m + k);
        let mut x = Matrix::zeros(m, k);
        for (r, &p) in pivots.iter().enumerate() {
            x.row_mut(p).copy_from_slice(rhs.row(r));
        }
        Ok((x, consistent))
    }

    /// A basis of the null space `{x : self * x = 0}`, as the columns of a
    /// `self.cols() x (self.cols() - rank)` matrix `N` (so `self * N = 0`).
    ///
    /// Column `t` of `N` corresponds to the `t`-th free (non-pivot) column `f` of the reduced
    /// echelon form `R`: it has a one at `f`, zeros at the other free columns, and `R[r, f]` at
    /// pivot column `pivots[r]`.
    pub fn nullspace(&self) -> Matrix {
        let mut r = self.clone();
        let pivots = r.rref();
        let m = self.cols();
        let mut free_mask = vec![0u64; self.words_per_row()];
        for j in 0..m {
            free_mask[j / 64] |= 1u64 << (j % 64);
        }
        for &p in &pivots {
            free_mask[p / 64] &= !(1u64 << (p % 64));
        }
        // Row i of N is the coefficient of variable i in each basis vector: the free part of
        // row r of R for pivot column pivots[r], the unit vector e_t for the t-th free column.
        let nfree = m - pivots.len();
        let mut n = Matrix::zeros(m, nfree);
        for (i, &p) in pivots.iter().enumerate() {
            pack_bits(r.row(i), &free_mask, n.row_mut(p));
        }
        let mut t = 0;
        for (w, &mask) in free_mask.iter().enumerate() {
            let mut bits = mask;
            while bits != 0 {
                let f = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                n.set(f, t, true);
                t += 1;
            }
        }
        n
    }

    /// The inverse of a square matrix, or `None` if it is singular.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] (`a`) if the matrix is not square.
    pub fn inverse(&self) -> Result<Option<Matrix>> {
        let n = self.rows();
        if self.cols() != n {
            return Err(Error::invalid(
                "a",
                format!(
                    "must be square to be inverted, got {} x {}",
                    self.rows(),
                    self.cols()
                ),
            ));
        }
        let mut aug = self.hstack(&Matrix::identity(n))?;
        let pivots = rref_limited(&mut aug, n);
        if pivots.len() < n {
            return Ok(None);
        }
        Ok(Some(aug.submatrix(0, n, n, 2 * n)))
    }
}

/// A parity consistent with labelled examples, or `None` if there is none.
///
/// `x` holds one example per row (`n x d`), `y` the labels (`n x k`: `k` labellings at once).
/// Returns `S` (`d x k`) with `x * S = y`: column `j` of `S` is the indicator vector of a
/// parity `h(v) = <s_j, v> mod 2` that agrees with label column `j` on every example. When
/// several parities are consistent, the one supported on the pivot columns of the reduced
/// echelon form of `x` is returned (the canonical representative; see
/// [`Matrix::solve`]). `None` if some label column is consistent with no parity.
///
/// This is the non-private step of Bun–Nissim–Stemmer's `SearchParities` (spec 002, Alg 4):
/// Gaussian elimination over GF(2) on one subsample.
///
/// # Errors
/// [`Error::InvalidParameter`] (`y`) if `y.rows() != x.rows()`.
pub fn learn_parity(x: &Matrix, y: &Matrix) -> Result<Option<Matrix>> {
    if y.rows() != x.rows() {
        return Err(Error::invalid(
            "y",
            format!(
                "must have one label per example ({} rows), got {}",
                x.rows(),
                y.rows()
            ),
        ));
    }
    x.solve(y)
}

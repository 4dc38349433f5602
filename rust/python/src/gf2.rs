//! Bindings of GF(2) linear algebra (`privlearn.gf2`).
//!
//! Matrices cross the boundary as packed `uint64` arrays of shape `(rows, ceil(cols / 64))`
//! (LSB-first, zero padding bits: the layout of `privlearn.gf2.GF2Matrix`) plus the column
//! count. Each binding copies its inputs into core matrices, releases the GIL, calls one core
//! function, and returns packed arrays.

use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2};
use privlearn_core::Error as CoreError;
use privlearn_core::gf2::Matrix;
use pyo3::prelude::*;

use crate::errors::{detach_guarded, invalid};
use crate::rng::RngArg;

pub(crate) type Words<'py> = Bound<'py, PyArray2<u64>>;

/// Copies a packed array into a core matrix; errors name the parameter `name`.
pub(crate) fn read(
    words: &PyReadonlyArray2<'_, u64>,
    cols: usize,
    name: &'static str,
) -> PyResult<Matrix> {
    let arr = words.as_array();
    let (rows, wpr) = arr.dim();
    if wpr != cols.div_ceil(64) {
        return Err(invalid(
            name,
            format!(
                "packed rows of {cols} columns need {} words each, got {wpr}",
                cols.div_ceil(64)
            ),
        ));
    }
    // The core matrix is the owned copy (with its own row stride); a non-contiguous array is
    // gathered first.
    let made = match arr.as_slice() {
        Some(s) => Matrix::from_rows_words(rows, cols, s),
        None => Matrix::from_rows_words(rows, cols, &arr.iter().copied().collect::<Vec<u64>>()),
    };
    made.map_err(|e| match e {
        CoreError::InvalidParameter { message, .. } => invalid(name, message),
        other => crate::errors::to_py(other),
    })
}

/// The packed rows of a matrix as a new `(rows, words_per_row)` array.
pub(crate) fn write<'py>(py: Python<'py>, m: &Matrix) -> PyResult<Words<'py>> {
    let shape = [m.rows(), m.words_per_row()];
    m.to_rows_words().into_pyarray(py).reshape(shape)
}

/// Reduced row echelon form: ``(packed R, pivot columns)``.
#[pyfunction]
pub fn gf2_rref<'py>(
    py: Python<'py>,
    words: PyReadonlyArray2<'py, u64>,
    cols: usize,
) -> PyResult<(Words<'py>, Bound<'py, PyArray1<i64>>)> {
    let mut m = read(&words, cols, "A")?;
    let (m, pivots) = detach_guarded(py, move || {
        let p = m.rref();
        Ok((m, p))
    })?;
    let piv: Vec<i64> = pivots.into_iter().map(|p| p as i64).collect();
    Ok((write(py, &m)?, piv.into_pyarray(py)))
}

/// Rank.
#[pyfunction]
pub fn gf2_rank(py: Python<'_>, words: PyReadonlyArray2<'_, u64>, cols: usize) -> PyResult<usize> {
    let m = read(&words, cols, "A")?;
    detach_guarded(py, move || Ok(m.rank()))
}

/// Product of two packed matrices.
#[pyfunction]
pub fn gf2_mul<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, u64>,
    a_cols: usize,
    b: PyReadonlyArray2<'py, u64>,
    b_cols: usize,
) -> PyResult<Words<'py>> {
    let a = read(&a, a_cols, "A")?;
    let b = read(&b, b_cols, "B")?;
    let c = detach_guarded(py, move || a.mul(&b))?;
    write(py, &c)
}

/// Transpose.
#[pyfunction]
pub fn gf2_transpose<'py>(
    py: Python<'py>,
    words: PyReadonlyArray2<'py, u64>,
    cols: usize,
) -> PyResult<Words<'py>> {
    let m = read(&words, cols, "A")?;
    let t = detach_guarded(py, move || Ok(m.transpose()))?;
    write(py, &t)
}

/// A solution of ``A X = B`` (all columns of ``B``), or None if some column is inconsistent.
#[pyfunction]
pub fn gf2_solve<'py>(
    py: Python<'py>,
    a: PyReadonlyArray2<'py, u64>,
    a_cols: usize,
    b: PyReadonlyArray2<'py, u64>,
    b_cols: usize,
) -> PyResult<Option<Words<'py>>> {
    let a = read(&a, a_cols, "A")?;
    let b = read(&b, b_cols, "b")?;
    let x = detach_guarded(py, move || a.solve(&b))?;
    x.map(|x| write(py, &x)).transpose()
}

/// Basis of the null space as the columns of a packed matrix: ``(packed N, columns of N)``.
#[pyfunction]
pub fn gf2_nullspace<'py>(
    py: Python<'py>,
    words: PyReadonlyArray2<'py, u64>,
    cols: usize,
) -> PyResult<(Words<'py>, usize)> {
    let m = read(&words, cols, "A")?;
    let n = detach_guarded(py, move || Ok(m.nullspace()))?;
    Ok((write(py, &n)?, n.cols()))
}

/// Inverse of a square matrix, or None if it is singular.
#[pyfunction]
pub fn gf2_inverse<'py>(
    py: Python<'py>,
    words: PyReadonlyArray2<'py, u64>,
    cols: usize,
) -> PyResult<Option<Words<'py>>> {
    let m = read(&words, cols, "A")?;
    let inv = detach_guarded(py, move || m.inverse())?;
    inv.map(|x| write(py, &x)).transpose()
}

/// A uniformly random packed ``rows x cols`` matrix (64 bits per draw of ``rng``).
#[pyfunction]
#[pyo3(signature = (rows, cols, rng=None))]
pub fn gf2_random<'py>(
    py: Python<'py>,
    rows: usize,
    cols: usize,
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<Words<'py>> {
    if rows
        .checked_mul(cols.div_ceil(64))
        .is_none_or(|w| w > isize::MAX as usize / 8)
    {
        return Err(invalid("shape", format!("{rows} x {cols} is too large")));
    }
    let mut rng = RngArg::from_py(rng)?;
    let m = detach_guarded(py, move || Ok(rng.with(|r| Matrix::random(rows, cols, r))))?;
    write(py, &m)
}

//! Bindings of `privlearn_core::tardos` (fingerprinting codes): thin wrappers that convert,
//! release the GIL, call the core and map errors. The public API is
//! ``privlearn.attacks`` (``python/privlearn/attacks/codes.py``), which packs words and unpacks
//! codewords with numpy.

use numpy::{IntoPyArray, PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArrayMethods};
use privlearn_core::tardos::boneh_shaw::{BonehShawCode, BonehShawParams, boneh_shaw_parameters};
use privlearn_core::tardos::{self, Params, Strategy, TardosCode, Variant};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::as_ndarray;
use crate::errors::{detach_guarded, invalid, to_py};
use crate::rng::RngArg;

/// A non-negative count from a Python int.
fn count(v: i64, name: &'static str) -> PyResult<usize> {
    usize::try_from(v).map_err(|_| invalid(name, format!("must be an integer >= 1, got {v}")))
}

/// A packed bit array (``uint64``, 1-D or 2-D, C-contiguous), copied: (words, shape).
fn packed(obj: &Bound<'_, PyAny>, name: &'static str) -> PyResult<(Vec<u64>, Vec<usize>)> {
    let arr = as_ndarray(obj)?;
    let dtype = arr.dtype();
    let is_words = dtype.kind() == b'u' && dtype.itemsize() == 8;
    if !(is_words && (1..=2).contains(&arr.ndim())) {
        return Err(invalid(
            name,
            "must be a 1-D or 2-D array of packed uint64 words",
        ));
    }
    let shape = arr.shape().to_vec();
    let flat = arr.call_method0("ravel")?;
    let typed = flat.cast::<PyArray1<u64>>()?.readonly();
    Ok((typed.as_array().iter().copied().collect(), shape))
}

fn users(indices: Vec<i64>) -> PyResult<Vec<usize>> {
    indices
        .into_iter()
        .map(|u| {
            usize::try_from(u)
                .map_err(|_| invalid("coalition", format!("user indices must be >= 0, got {u}")))
        })
        .collect()
}

fn matrix<'py>(py: Python<'py>, data: Vec<u64>, rows: usize, cols: usize) -> PyResult<Py<PyAny>> {
    Ok(data
        .into_pyarray(py)
        .reshape([rows, cols])?
        .into_any()
        .unbind())
}

/// Parameters of a Tardos code. See ``privlearn.attacks.tardos_parameters``.
#[pyclass(frozen, module = "privlearn._core", name = "TardosParams")]
#[derive(Clone)]
pub struct TardosParams {
    inner: Params,
}

#[pymethods]
impl TardosParams {
    #[getter]
    fn n_users(&self) -> usize {
        self.inner.n_users
    }
    #[getter]
    fn coalition_size(&self) -> usize {
        self.inner.coalition_size
    }
    #[getter]
    fn false_accusation(&self) -> f64 {
        self.inner.false_accusation
    }
    #[getter]
    fn per_user_false_accusation(&self) -> f64 {
        self.inner.per_user
    }
    #[getter]
    fn kappa(&self) -> u32 {
        self.inner.kappa
    }
    #[getter]
    fn variant(&self) -> &'static str {
        self.inner.variant.name()
    }
    #[getter]
    fn length(&self) -> usize {
        self.inner.length
    }
    #[getter]
    fn cutoff(&self) -> f64 {
        self.inner.cutoff
    }
    #[getter]
    fn certified_threshold(&self) -> f64 {
        self.inner.certified_threshold
    }
    #[getter]
    fn score_error(&self) -> f64 {
        self.inner.score_error
    }
    #[getter]
    fn threshold(&self) -> f64 {
        self.inner.threshold
    }
    #[getter]
    fn miss_rate(&self) -> f64 {
        self.inner.miss_rate
    }
    #[getter]
    fn length_given(&self) -> bool {
        self.inner.length_given
    }
}

/// Computes the parameters of a Tardos code. See ``privlearn.attacks.tardos_parameters``.
#[pyfunction]
#[pyo3(signature = (n_users, coalition_size, false_accusation, variant="symmetric", length=None))]
pub fn tardos_parameters(
    py: Python<'_>,
    n_users: i64,
    coalition_size: i64,
    false_accusation: f64,
    variant: &str,
    length: Option<i64>,
) -> PyResult<TardosParams> {
    let variant: Variant = variant.parse().map_err(to_py)?;
    let n = count(n_users, "n_users")?;
    let c = count(coalition_size, "coalition_size")?;
    let length = length.map(|m| count(m, "length")).transpose()?;
    let inner = detach_guarded(py, move || {
        tardos::parameters(n, c, false_accusation, variant, length)
    })?;
    Ok(TardosParams { inner })
}

/// A generated Tardos code (packed codewords and biases). See ``privlearn.attacks.TardosCode``.
#[pyclass(frozen, module = "privlearn._core", name = "TardosCodeCore")]
pub struct TardosCodeCore {
    inner: TardosCode,
}

/// Generates a Tardos code with the given parameters.
#[pyfunction]
#[pyo3(signature = (params, rng=None))]
pub fn tardos_generate(
    py: Python<'_>,
    params: &TardosParams,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<TardosCodeCore> {
    let params = params.inner.clone();
    let mut rng = RngArg::from_py(rng)?;
    let inner = detach_guarded(py, move || rng.with(|r| TardosCode::generate(params, r)))?;
    Ok(TardosCodeCore { inner })
}

#[pymethods]
impl TardosCodeCore {
    /// The parameters.
    #[getter]
    fn params(&self) -> TardosParams {
        TardosParams {
            inner: self.inner.params().clone(),
        }
    }

    /// Words per packed row.
    #[getter]
    fn words_per_row(&self) -> usize {
        self.inner.words_per_row()
    }

    /// The biases (float64, length m).
    fn biases<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        self.inner.biases().to_vec().into_pyarray(py)
    }

    /// All packed codewords (uint64, n_users x words).
    fn packed(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let n = self.inner.params().n_users;
        matrix(
            py,
            self.inner.rows().to_vec(),
            n,
            self.inner.words_per_row(),
        )
    }

    /// The packed codewords of the given users (uint64, k x words).
    fn rows(&self, py: Python<'_>, users_: Vec<i64>) -> PyResult<Py<PyAny>> {
        let idx = users(users_)?;
        let k = idx.len();
        let data = self.inner.rows_of(&idx).map_err(to_py)?;
        matrix(py, data, k, self.inner.words_per_row())
    }

    /// Scores of every user for a packed word.
    fn scores<'py>(
        &self,
        py: Python<'py>,
        word: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (w, _) = packed(word, "word")?;
        let s = detach_guarded(py, || self.inner.scores(&w))?;
        Ok(s.into_pyarray(py))
    }

    /// Accused users (ascending) for a packed word.
    #[pyo3(signature = (word, threshold=None))]
    fn trace<'py>(
        &self,
        py: Python<'py>,
        word: &Bound<'py, PyAny>,
        threshold: Option<f64>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let (w, _) = packed(word, "word")?;
        let acc = detach_guarded(py, || self.inner.trace(&w, threshold))?;
        Ok(acc
            .into_iter()
            .map(|u| u as i64)
            .collect::<Vec<i64>>()
            .into_pyarray(py))
    }
}

/// The word a coalition forges. See ``privlearn.attacks.pirate``.
#[pyfunction]
#[pyo3(signature = (rows, length, strategy, rng=None))]
pub fn pirate_packed<'py>(
    py: Python<'py>,
    rows: &Bound<'py, PyAny>,
    length: i64,
    strategy: &str,
    rng: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let strategy: Strategy = strategy.parse().map_err(to_py)?;
    let length = count(length, "length")?;
    let (data, shape) = packed(rows, "codewords")?;
    let members = if shape.len() == 2 { shape[0] } else { 1 };
    let mut rng = RngArg::from_py(rng)?;
    let word = detach_guarded(py, move || {
        rng.with(|r| tardos::pirate(&data, members, length, strategy, r))
    })?;
    Ok(word.into_pyarray(py))
}

/// The marking assumption. See ``privlearn.attacks.is_feasible``.
#[pyfunction]
pub fn is_feasible_packed(
    py: Python<'_>,
    word: &Bound<'_, PyAny>,
    rows: &Bound<'_, PyAny>,
    length: i64,
) -> PyResult<bool> {
    let length = count(length, "length")?;
    let (w, _) = packed(word, "word")?;
    let (data, shape) = packed(rows, "coalition_codewords")?;
    let members = if shape.len() == 2 { shape[0] } else { 1 };
    detach_guarded(py, move || tardos::is_feasible(&w, &data, members, length))
}

fn bs_dict<'py>(py: Python<'py>, p: &BonehShawParams) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("n_users", p.n_users)?;
    d.set_item("false_accusation", p.false_accusation)?;
    d.set_item("log_term", p.log_term)?;
    d.set_item("repetitions", p.repetitions)?;
    d.set_item("length", p.length)?;
    Ok(d)
}

/// Parameters of the robust Boneh–Shaw code, as a dict. See
/// ``privlearn.attacks.boneh_shaw_parameters``.
#[pyfunction]
pub fn boneh_shaw_params<'py>(
    py: Python<'py>,
    n_users: i64,
    false_accusation: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let n = count(n_users, "n_users")?;
    let p = boneh_shaw_parameters(n, false_accusation).map_err(to_py)?;
    bs_dict(py, &p)
}

/// A robust Boneh–Shaw code. See ``privlearn.attacks.BonehShawCode``.
#[pyclass(frozen, module = "privlearn._core", name = "BonehShawCore")]
pub struct BonehShawCore {
    inner: BonehShawCode,
}

/// Draws a robust Boneh–Shaw code.
#[pyfunction]
#[pyo3(signature = (n_users, false_accusation, rng=None))]
pub fn boneh_shaw_generate(
    py: Python<'_>,
    n_users: i64,
    false_accusation: f64,
    rng: Option<&Bound<'_, PyAny>>,
) -> PyResult<BonehShawCore> {
    let n = count(n_users, "n_users")?;
    // Validate before resolving `rng` (no entropy is drawn for bad input).
    boneh_shaw_parameters(n, false_accusation).map_err(to_py)?;
    let mut rng = RngArg::from_py(rng)?;
    let inner = detach_guarded(py, move || {
        rng.with(|r| BonehShawCode::new(n, false_accusation, r))
    })?;
    Ok(BonehShawCore { inner })
}

#[pymethods]
impl BonehShawCore {
    /// The parameters, as a dict.
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        bs_dict(py, self.inner.params())
    }

    /// The column types (uint32, length ℓ).
    fn types<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        self.inner.types().to_vec().into_pyarray(py)
    }

    /// The packed codewords of the given users (uint64, k x words).
    fn rows(&self, py: Python<'_>, users_: Vec<i64>) -> PyResult<Py<PyAny>> {
        let idx = users(users_)?;
        let k = idx.len();
        let words = self.inner.params().length.div_ceil(64);
        let data = detach_guarded(py, || self.inner.rows_of(&idx))?;
        matrix(py, data, k, words)
    }

    /// Number of 1s of a packed word per column type.
    fn counts<'py>(
        &self,
        py: Python<'py>,
        word: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let (w, _) = packed(word, "word")?;
        let c = detach_guarded(py, || self.inner.counts(&w))?;
        Ok(c.into_pyarray(py))
    }

    /// Accused users (ascending) for a packed word.
    fn trace<'py>(
        &self,
        py: Python<'py>,
        word: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let (w, _) = packed(word, "word")?;
        let acc = detach_guarded(py, || self.inner.trace(&w))?;
        Ok(acc
            .into_iter()
            .map(|u| u as i64)
            .collect::<Vec<i64>>()
            .into_pyarray(py))
    }
}

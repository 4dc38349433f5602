r"""A differentially private ``PCA``: the top eigenvectors of the second-moment matrix of the
centred, norm-clipped rows, released with symmetric Gaussian noise ("Analyze Gauss").

The release
-----------
This is the Analyze Gauss algorithm of Dwork, Talwar, Thakurta and Zhang, "Analyze Gauss:
optimal bounds for privacy-preserving principal component analysis", STOC 2014: perturb the
second-moment matrix ``A = sum_i x_i x_i^T`` with a symmetric Gaussian matrix and take the top
eigenvectors of the noisy matrix (post-processing). The paper bounds rows by 1 and uses
add/remove neighbours and the classic Gaussian calibration; here rows are clipped to a declared
norm, neighbours replace one row, and the noise is calibrated through zCDP (below).

Every row is first centred at ``c`` (the declared ``centering``, or a private mean released
first, see *Centring*) and divided by the declared ``data_norm = C``, then clipped to norm 1::

    y_i = (x_i - c) / C,     y_i <- y_i / max(1, ||y_i||)

(a row whose squared norm overflows, or that holds an infinite entry after the division,
becomes the zero row). This is a fixed map of each row given ``c``. The released query is
``A = sum_i y_i y_i^T`` in its *Frobenius coordinates*: the vector ``v(A)`` of the ``d (d + 1)
/ 2`` entries ``A_jj`` and ``sqrt(2) A_jk`` (``j < k``), an isometry from the symmetric
matrices with the Frobenius norm onto R^(d(d+1)/2) with the Euclidean norm. The release is
``v~ = v(A) + N(0, s^2 I)`` (exact discrete Gaussian, below); mapped back, ``A~ = A + E`` with
``E`` symmetric, ``E_jj ~ N(0, s^2)`` and ``E_jk ~ N(0, s^2 / 2)`` independent: a scaled
Gaussian orthogonal ensemble, whose law is invariant under rotations (no basis is favoured).
``second_moment_ = C^2 A~``; ``components_`` are its top ``k`` eigenvectors (sign fixed by
the rule of scikit-learn's ``svd_flip``: the largest-magnitude entry of each component is
positive), ``explained_variance_`` its top eigenvalues clipped at 0 and divided by ``n - 1`` (1
when ``n = 1``) as scikit-learn does, ``explained_variance_ratio_`` those over the sum of all
``d`` clipped eigenvalues. All of these are post-processing of the release (``n`` public).

Sensitivity (replace-one, ``n`` public), derived
------------------------------------------------
Replacing row ``y`` by ``y'`` (both of norm at most 1 after clipping) moves ``A`` by
``y y^T - y' y'^T``, whose squared Frobenius norm is::

    ||y y^T - y' y'^T||_F^2 = ||y||^4 + ||y'||^4 - 2 (y . y')^2 <= 2.

So ``v(A)`` moves by at most ``sqrt(2)`` in L2 (``sqrt(2) C^2`` in the data's units), and this is
attained, by two orthogonal rows at the norm bound (``y = e_1``, ``y' = e_2``): the bound is
tight. Why the Frobenius coordinates rather than the plain upper triangle (diagonal included,
each off-diagonal entry once), the vector the paper perturbs: that vector's squared norm is
``sum_j (y_j^2 - y'_j^2)^2 + sum_{j<k} (y_j y_k - y'_j y'_k)^2``, the diagonal part plus *half*
the off-diagonal part of the Frobenius norm, so it is at most the Frobenius norm, but the same
orthogonal pair (whose change is diagonal) attains ``sqrt(2)`` there too. Both vectors have the
same tight sensitivity ``sqrt(2)``, and the Frobenius one gets the off-diagonal entries with
noise ``s / sqrt(2)`` instead of ``s``: less noise, for the same guarantee.

Calibration and guarantee
-------------------------
``rho = zcdp_rho_for(epsilon, delta)`` (:mod:`privlearn.accounting._calibrate`): the largest
``rho`` whose ``rho``-zCDP converts to at most ``(epsilon, delta)``-DP by Canonne, Kamath and
Steinke, NeurIPS 2020, Corollary 13. With a declared centre the whole ``rho`` goes to the one
release; with ``centering="private"`` a fixed public share :data:`MEAN_SHARE` of it goes to the
mean and the rest to the matrix. Each release of L2 sensitivity ``D_i`` (with the
floating-point margins below) and zCDP share ``rho_i`` is drawn by
:func:`privlearn.mechanisms.gaussian_noise` with ``s_i = D_i / sqrt(2 rho_i)``, enlarged by the
relative :data:`GRID_MARGIN` that covers the exact sampler's grid: the release is
``D_u^2 / (2 s_u^2)``-zCDP in grid units (discrete Gaussian, CKS20 Theorem 4), at most
``rho_i`` (checked on the events before anything is drawn). zCDP composes adaptively by adding
(Bun and Steinke, TCC 2016, Lemma 1.7), so the fit is ``rho``-zCDP and therefore
``(epsilon, delta)``-DP, **replace-one, ``n`` public**. One fit charges the accountant once,
label ``"PCA"``, with the native discrete-Gaussian events composed into one
:class:`~privlearn.accounting.PrivacyEvent` whose budget is ``(epsilon, delta)`` (a zCDP or RDP
accountant composes the events by their own curves). The guarantee holds only with
``rng=None`` or an unseeded generator.

*Why not* :func:`privlearn.mechanisms.gaussian` (the brief's first choice): for a vector, its
exact path also calibrates through zCDP but converts with Bun and Steinke's Proposition 1.3,
which needs a smaller ``rho``: at ``(1, 1e-5)`` its noise is 21% larger than with CKS20's
conversion, at ``(1, 1e-6)`` 18%. The Balle-Wang analytic calibration is exact only for the
continuous Gaussian; privlearn's exact (discrete) sampler has no such analysis for vectors.

*Pure DP* (``delta = 0``) is refused: a Laplace release of the matrix needs its L1 sensitivity,
``max ||y y^T - y' y'^T||_1`` over the Frobenius coordinates, which grows like ``d`` (rows
spread over all coordinates), against the L2 sensitivity ``sqrt(2)`` for every ``d``.

Centring
--------
scikit-learn's ``PCA`` centres the data at its mean. ``centering`` offers two private ways:

* a declared centre ``c`` (a number or an array of length ``d``, a parameter, never computed
  from the data): the default is ``0.0``, the right centre after privlearn's private
  :class:`~privlearn.preprocessing.StandardScaler`, the usual step before a PCA in a private
  pipeline. It costs no budget. Away from the data's mean, the second moment about ``c`` is the
  covariance plus ``n (mean - c)(mean - c)^T``, so the first component leans toward the mean;
* ``"private"`` with declared per-feature ``bounds = (lower, upper)``: the mean is released
  first, as the private ``StandardScaler`` releases it (values clipped to the bounds, centred at
  the midpoints ``m_j``, the sums ``S_j = sum_i (clip(x_ij) - m_j)`` released with Gaussian
  noise; L2 sensitivity ``sqrt(sum_j (u_j - l_j)^2)``, attained by rows at opposite corners),
  ``mean_ = m + clip(S~ / n, -r, r)`` (``r`` the half-ranges). The rows are then centred at the
  *released* ``mean_``: given the released value this is a fixed map of each row, so the
  matrix release is ``rho_2``-zCDP for every value of the first release, and adaptive zCDP
  composition gives the total. The rows are clipped to ``data_norm`` *after* centring, which
  is what makes the matrix's sensitivity ``sqrt(2) C^2`` whatever the released mean. The share
  of the mean (:data:`MEAN_SHARE` of ``rho``) is fixed and public.

``transform(X) = (X - mean_) @ components_.T`` and ``inverse_transform(Z) = Z @ components_ +
mean_``, as scikit-learn's (no clipping, no whitening).

Floating point
--------------
The noise-free vector is computed in floating point, and two neighbours' computed vectors must
differ by at most the sensitivity the noise is calibrated to. With ``u = 2^-53``,
``gamma_k = k u / (1 - k u)`` (Higham, *Accuracy and stability of numerical algorithms*, 2nd
ed., Lemma 3.1 and eq. (3.5): a computed inner product or sum of ``k`` terms, in any order, is
within ``gamma_k`` times the sum of the terms' magnitudes of the exact one):

* *Clipping.* The computed norm is ``||y|| (1 + t)`` with ``|t| <= gamma_d / 2 + u``; a scaled
  row has norm at most ``(1 + u)^2 / ((1 - gamma_d)^(1/2) (1 - u))``, an unscaled one at most
  ``1 / ((1 - gamma_d)^(1/2) (1 - u))``: both below ``R = 1 + 2^-30`` for ``d < 2^20`` (larger
  ``d`` is refused). Underflow in the squares adds at most ``d 2^-1074`` to a squared norm,
  negligible against ``2^-29``. So every clipped row has norm at most ``R``.
* *The sums.* Rows are processed in blocks of :data:`BLOCK` rows: each block's ``Y_b^T Y_b``
  (a BLAS product: inner products of at most ``BLOCK`` terms) and column sums, then the ``m``
  block results are added in order. Each entry is within ``g = gamma_B + gamma_(m-1) (1 +
  gamma_B)`` times the sum of its terms' magnitudes of the exact sum; the code uses the larger
  ``g = 1.02 (B + m) u`` (valid while ``(B + m) u < 1/100``: any ``n`` that fits in memory).
  For the matrix, the entrywise error is at most ``g |Y|^T |Y|``, a positive semi-definite
  matrix whose Frobenius norm is at most its trace ``sum_i ||y_i||^2 <= n R^2``; the Frobenius
  coordinates add a relative ``2.01 u`` on the off-diagonal entries (the rounded ``sqrt(2)`` and
  the product), at most ``2.01 u (1 + g) n R^2`` in L2. So each computed vector is within ``(g +
  3u) n R^2`` of the exact one, and two neighbours' within ``R^2 (sqrt(2) + 2 n (g + 3u))``: the
  sensitivity used, times ``1 + 2^-30`` (:data:`SUM_MARGIN`, for the evaluation of these
  formulas). For ``n = 10^5`` rows this is a relative ``7e-8``; for ``n = 10^8``, ``5e-4``.
  Products that underflow add an absolute error far below the ``u n`` left over in the margin.
* *The private mean.* Each centred value satisfies ``|c_ij| <= r_j`` exactly (clipping and
  rounding are monotone, as in the scaler); the blocked column sums are within ``g n r_j`` of
  the exact ones, so feature ``j`` moves by at most ``r_j (2 + 2 g n)``; the L2 total is
  enlarged by :data:`SUM_MARGIN`.
* The exact sampler rounds the value to its grid and widens the sensitivity by the grid's steps
  (:func:`privlearn.mechanisms.gaussian_noise`). A value too large for the grid (``|value| /
  step >= 2^62``) is refused before anything is drawn or charged, from the public bound
  ``|value| <= 4 n`` (matrix: entries at most ``n R^2 (1 + g)``) or ``2 n max_j r_j`` (mean):
  whether a fit succeeds depends on the parameters, ``n`` and ``d`` only.

The eigendecomposition (:func:`numpy.linalg.eigh`) runs on the released matrix in units of
``C^2`` and the eigenvalues are scaled afterwards; a ``data_norm`` for which ``4 n C^2``
overflows is refused before anything is drawn (parameters and ``n`` only).

Comparison: diffprivlib's and OpenDP's private PCAs were not installed here and were not
compared.

Which library does what: the products and the eigendecomposition are NumPy's (BLAS, LAPACK);
the noise is privlearn's exact discrete Gaussian (Rust core, through
:func:`privlearn.mechanisms.gaussian_noise`); the calibration is privlearn's accounting; input
checks, ``feature_names_in_`` and the transformer plumbing are scikit-learn's.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, NamedTuple, Optional, Tuple, Union

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin

from .._validate import check_delta, check_epsilon, check_integer, check_real
from ..accounting._accountant import check_accountant
from ..accounting._numerics import split_down
from ..errors import InvalidParameterError
from ._base import PrivateTransformerMixin
from ._scaler import SUM_MARGIN, _bounds_arg, _centre, per_feature_bounds

__all__ = ["PCA"]

LABEL = "PCA"
#: Share of the zCDP budget spent on the private mean (``centering="private"``); the matrix
#: gets the rest. Fixed and public; chosen on synthetic data (d = 20, k = 3, bounds five times
#: the data's spread): shares 0.2 to 0.6 captured within 0.01-0.05 of one another, 0.4 best.
MEAN_SHARE = 0.4
#: Rows per block of the second-moment and column sums (module docstring, *The sums*).
BLOCK = 4096
#: Relative enlargement of the noise scales covering the exact sampler's grid (the grid raises
#: a release's zCDP by a relative ``2^-18`` at most; ``privlearn.mechanisms.gaussian_noise``).
GRID_MARGIN = 2.0**-16
#: Bound on the norm of a clipped row in units of ``data_norm`` (module docstring, *Clipping*).
ROW_BOUND = 1.0 + 2.0**-30
#: Bound on the number of features (below it ``gamma_d <= 2^-32``: the clipping analysis).
MAX_FEATURES = 2**20
_U = 2.0**-53
_SQRT2 = math.sqrt(2.0)


def _float_slack(n: int) -> float:
    """``g = 1.02 (B + m) u``: the relative error bound of the blocked sums of ``n`` rows
    (module docstring), an upper bound of ``gamma_B + gamma_(m-1) (1 + gamma_B)``."""
    b = min(BLOCK, n)
    m = -(-n // BLOCK)
    return 1.02 * (b + m) * _U


def _triu(d: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row and column indices of the upper triangle (diagonal included, row-major) and the
    Frobenius weights (1 on the diagonal, ``sqrt(2)`` off it)."""
    rows, cols = np.triu_indices(d)
    weights = np.where(rows == cols, 1.0, _SQRT2)
    return rows, cols, weights


def _to_vec(A: np.ndarray) -> np.ndarray:
    """The Frobenius coordinates of the upper triangle of ``A``: ``A_jj``, ``sqrt(2) A_jk``."""
    rows, cols, weights = _triu(A.shape[0])
    return A[rows, cols] * weights


def _from_vec(v: np.ndarray, d: int) -> np.ndarray:
    """The symmetric matrix whose Frobenius coordinates are ``v``."""
    rows, cols, weights = _triu(d)
    M = np.zeros((d, d))
    M[rows, cols] = v / weights
    M[cols, rows] = M[rows, cols]
    return M


class _Calibration(NamedTuple):
    sigmas: Tuple[float, ...]  # noise scales: (mean, matrix) or (matrix,)
    sensitivities: Tuple[float, ...]
    dims: Tuple[int, ...]
    event: Any  # the composed PrivacyEvent charged


@lru_cache(maxsize=128)
def _calibration(
    epsilon: float, delta: float, n: int, d: int, mean_sensitivity: Optional[float]
) -> _Calibration:
    """Noise scales, sensitivities, dimensions and the composed event for the public
    parameters (module docstring); ``mean_sensitivity`` is ``None`` without the private mean.
    Cached: the zCDP calibration is a search."""
    from ..accounting import Budget
    from ..accounting._calibrate import zcdp_rho_for
    from ..accounting._event import PrivacyEvent
    from ..mechanisms import gaussian_noise_event

    rho = zcdp_rho_for(epsilon, delta)
    g = _float_slack(n)
    r2 = ROW_BOUND * ROW_BOUND
    sens_matrix = r2 * (_SQRT2 + 2.0 * n * (g + 3.0 * _U)) * (1.0 + SUM_MARGIN)
    dim_matrix = d * (d + 1) // 2
    if mean_sensitivity is None:
        sens: Tuple[float, ...] = (sens_matrix,)
        dims: Tuple[int, ...] = (dim_matrix,)
        shares: Tuple[float, ...] = (rho,)
    else:
        sens = (mean_sensitivity, sens_matrix)
        dims = (d, dim_matrix)
        shares = split_down(rho, (MEAN_SHARE, 1.0 - MEAN_SHARE))
    budget = Budget(epsilon, delta)
    margin = 1.0 + GRID_MARGIN
    for _ in range(8):
        sigmas = tuple(s / math.sqrt(2.0 * r) * margin for s, r in zip(sens, shares))
        parts = tuple(gaussian_noise_event(s, dl, m) for s, dl, m in zip(sigmas, sens, dims))
        event = PrivacyEvent.composed(parts, budget=budget)
        if event.to_zcdp().rho <= rho:
            break
        margin *= 1.0 + GRID_MARGIN  # pragma: no cover - the first margin suffices
    else:  # pragma: no cover
        raise AssertionError("PCA calibration exceeds its zCDP budget")
    return _Calibration(sigmas, sens, dims, event)


def _check_grid(cal: _Calibration, value_bounds: Tuple[float, ...]) -> None:
    """Refuse (before anything is drawn) a release whose public value bound exceeds the exact
    sampler's grid range."""
    from ..mechanisms import _noise_grid

    for s, dl, m, vmax in zip(cal.sigmas, cal.sensitivities, cal.dims, value_bounds):
        step, _units = _noise_grid(s, dl, m)
        if not vmax / step < 2.0**62:
            raise InvalidParameterError(
                "epsilon: with this many rows and features the noise is too small for the exact "
                "sampler's grid (a noise-free value could exceed 2^62 grid steps); use a "
                "smaller epsilon",
                "epsilon",
            )


def _centering_arg(value: object) -> Union[str, np.ndarray]:
    """``"private"`` or the declared centre as a float array (0-d or 1-d), finite."""
    if isinstance(value, str):
        if value != "private":
            raise InvalidParameterError(
                f"centering: must be a number, an array of length n_features, or 'private'; "
                f"got {value!r}",
                "centering",
            )
        return value
    if value is None or isinstance(value, (bool, np.bool_)):
        raise InvalidParameterError(
            f"centering: must be a number, an array of length n_features, or 'private'; got "
            f"{value!r}",
            "centering",
        )
    try:
        c = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"centering: must be a number, an array of length n_features, or 'private'; got "
            f"{value!r}",
            "centering",
        ) from None
    if c.ndim > 1 or c.size == 0:
        raise InvalidParameterError(
            f"centering: must be a number or a 1-d array; got shape {c.shape}", "centering"
        )
    if not np.all(np.isfinite(c)):
        raise InvalidParameterError("centering: must be finite", "centering")
    return c


def _clipped_rows(X: np.ndarray, centre: np.ndarray, data_norm: float) -> np.ndarray:
    """``(x_i - centre) / data_norm`` clipped to norm 1, a new array (a row whose squared norm
    is not finite, through overflow, becomes the zero row)."""
    with np.errstate(over="ignore", invalid="ignore"):
        Y = X - centre
        Y /= data_norm
        sq = np.einsum("ij,ij->i", Y, Y)
        bad = ~np.isfinite(sq)
        if np.any(bad):
            Y[bad] = 0.0
            sq[bad] = 0.0
        scale = 1.0 / np.maximum(np.sqrt(sq), 1.0)  # exactly 1 for rows within the bound
    Y *= scale[:, None]
    return Y


def _second_moment(X: np.ndarray, centre: np.ndarray, data_norm: float) -> np.ndarray:
    """``sum_i y_i y_i^T`` of the clipped rows (:func:`_clipped_rows`), as the in-order sum of
    the products of blocks of :data:`BLOCK` rows (module docstring)."""
    d = X.shape[1]
    G = np.zeros((d, d))
    for start in range(0, X.shape[0], BLOCK):
        Yb = _clipped_rows(X[start : start + BLOCK], centre, data_norm)
        G += Yb.T @ Yb
    return G


def _centred_sums(X: np.ndarray, lo: np.ndarray, hi: np.ndarray, mid: np.ndarray) -> np.ndarray:
    """``sum_i (clip(x_i, lo, hi) - mid)`` as the in-order sum of the column sums of blocks of
    :data:`BLOCK` rows; every term satisfies ``|clip(x_ij) - mid_j| <= r_j`` exactly."""
    s = np.zeros(X.shape[1])
    for start in range(0, X.shape[0], BLOCK):
        s += (np.clip(X[start : start + BLOCK], lo, hi) - mid).sum(axis=0)
    return s


def _svd_flip(components: np.ndarray) -> np.ndarray:
    """Each row's largest-magnitude entry made positive (the first such entry on ties)."""
    idx = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(components.shape[0]), idx])
    signs[signs == 0] = 1.0
    return components * signs[:, None]


class PCA(  # type: ignore[misc]
    PrivateTransformerMixin, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    r"""Principal component analysis with differentially private components (Analyze Gauss).

    A drop-in for :class:`sklearn.decomposition.PCA` whose fitted ``components_`` and
    explained variances are differentially private: they are the top eigenvectors and
    eigenvalues of the second-moment matrix of the centred rows, clipped to the declared
    ``data_norm``, released with symmetric Gaussian noise (the Analyze Gauss algorithm of Dwork,
    Talwar, Thakurta and Zhang, "Analyze Gauss: optimal bounds for privacy-preserving principal
    component analysis", STOC 2014). Derivation of the replace-one sensitivity ``sqrt(2)
    data_norm^2`` (tight), calibration and floating-point treatment: the source module
    ``privlearn.preprocessing._pca`` and the guarantees page.

    **Guarantee.** ``fit`` is ``(epsilon, delta)``-differentially private, replace-one
    neighbours (one row replaced), ``n`` public: the release is exact discrete Gaussian noise
    (:func:`privlearn.mechanisms.gaussian_noise`) calibrated in zCDP to
    ``rho = zcdp_rho_for(epsilon, delta)`` (the largest ``rho`` whose conversion by Canonne,
    Kamath and Steinke, NeurIPS 2020, Corollary 13, is at most ``(epsilon, delta)``). With
    ``centering="private"`` the mean is released first with a fixed share 0.4 of ``rho``, the
    rows are centred at the released mean, and the two releases compose in zCDP (Bun and
    Steinke, TCC 2016, Lemma 1.7). Every fitted attribute is post-processing. The guarantee
    holds with ``rng=None`` or an unseeded generator. ``transform`` reads only its own input and
    the released attributes. ``delta = 0`` is refused: the Gaussian mechanism needs ``delta >
    0``, and a pure-DP (Laplace) release of the matrix would need noise growing with ``d``.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of one fit, finite and > 0. Required.
    n_components : int or None, default None
        Number of components kept, in ``[1, n_features]``; ``None`` keeps ``min(n_samples,
        n_features)``. (scikit-learn's fractional and ``"mle"`` choices depend on the data and
        are not offered.)
    data_norm : float
        Declared bound on the L2 norm of a centred row, finite and > 0; rows are clipped to it
        after centring. Required, no default: choose it from domain knowledge, not from the data.
    delta : float, default 1e-6
        In ``(0, 1)``.
    centering : float, array of length n_features, or "private", default 0.0
        A declared centre (a parameter: free, and the right choice after privlearn's private
        ``StandardScaler``), or ``"private"``: release the mean with part of the budget, from
        declared ``bounds``.
    bounds : (lower, upper), optional
        Per-feature declared range for ``centering="private"`` (numbers or arrays of length
        ``n_features``, ``upper > lower``); only with ``centering="private"``.
    accountant : Accountant, optional
        Charged once per fit (label ``"PCA"``) only if the fit succeeds; a spend that does not
        fit raises ``BudgetExceededError`` before the data are read. Clones share it.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`); an integer seed is reproducible, not private.

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Private principal axes (orthonormal rows), by decreasing noisy eigenvalue; the
        largest-magnitude entry of each row is positive.
    explained_variance_ : ndarray of shape (n_components,)
        The noisy eigenvalues, clipped at 0, divided by ``n - 1`` (private estimates).
    explained_variance_ratio_ : ndarray of shape (n_components,)
        ``explained_variance_`` over the sum of all ``n_features`` clipped noisy eigenvalues
        (private estimates; 0 when that sum is 0).
    singular_values_ : ndarray of shape (n_components,)
        Square roots of the clipped noisy eigenvalues of ``second_moment_``.
    noise_variance_ : float
        Mean of the other clipped noisy eigenvalues, divided by ``n - 1`` (0 when every
        component is kept).
    mean_ : ndarray of shape (n_features,)
        The centre: the declared one, or the private mean (in ``[lower, upper]``).
    second_moment_ : ndarray of shape (n_features, n_features)
        The release itself: the symmetric noisy sum of the outer products of the centred,
        clipped rows, in the data's units.
    n_components_ : int
    n_samples_seen_ : int
        Number of rows (public).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a DataFrame input.

    Raises
    ------
    InvalidParameterError
        From ``fit``, before anything is drawn or charged: a missing or bad parameter
        (``data_norm``, ``delta = 0``, ``n_components`` not an integer in ``[1,
        n_features]``, ``bounds`` missing with ``centering="private"``...) or bad data (NaN,
        inf, not 2-d, empty, a centre or bounds of another length than the number of columns).

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.preprocessing import PCA
    >>> g = np.random.default_rng(0)
    >>> X = g.normal(size=(20_000, 5)) * [3.0, 1.0, 0.3, 0.3, 0.3]
    >>> pca = PCA(1.0, n_components=2, data_norm=8.0, rng=3).fit(X)  # seeded: not private
    >>> pca.components_.shape, pca.transform(X).shape
    ((2, 5), (20000, 2))
    >>> bool(abs(pca.components_[0, 0]) > 0.99)
    True
    """

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        n_components: Optional[int] = None,
        data_norm: Optional[float] = None,
        delta: float = 1e-6,
        centering: Any = 0.0,
        bounds: Any = None,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.n_components = n_components
        self.data_norm = data_norm
        self.delta = delta
        self.centering = centering
        self.bounds = bounds
        self.accountant = accountant
        self.rng = rng

    # -- parameters (checked before any data are read) -------------------------------------------

    def _params(
        self,
    ) -> Tuple[
        float,
        float,
        float,
        Optional[int],
        Union[str, np.ndarray],
        Optional[Tuple[np.ndarray, np.ndarray]],
    ]:
        eps = check_epsilon(self.epsilon, exact=True)
        delta = check_delta(self.delta, zero_ok=True, exact=True)
        if delta == 0.0:
            raise InvalidParameterError(
                "delta: must be > 0: PCA releases the second-moment matrix with the Gaussian "
                "mechanism, whose guarantee is (epsilon, delta) with delta > 0 (a pure-DP "
                "release would need Laplace noise on the L1 sensitivity of the d(d+1)/2 "
                "entries, which grows with d, and is not offered); got 0",
                "delta",
            )
        if self.data_norm is None:
            raise InvalidParameterError(
                "data_norm: a declared bound on the L2 norm of a centred row is required and "
                "has no default: every row is clipped to it, so it changes the result, and it "
                "must not be read from the data; got None",
                "data_norm",
            )
        data_norm = check_real(self.data_norm, "data_norm", 0.0, lo_open=True)
        k = None if self.n_components is None else check_integer(self.n_components, "n_components")
        centering = _centering_arg(self.centering)
        bounds: Optional[Tuple[np.ndarray, np.ndarray]] = None
        if isinstance(centering, str):
            bounds = _bounds_arg(self.bounds)
        elif self.bounds is not None:
            raise InvalidParameterError(
                "bounds: used only with centering='private' (the declared centre needs none); "
                "got bounds with a declared centering",
                "bounds",
            )
        check_accountant(self.accountant)
        return eps, delta, data_norm, k, centering, bounds

    def privacy_guarantee(self, n_samples: int) -> Any:
        """``Budget(epsilon, delta)``: what one fit on ``n_samples`` rows charges (replace-one
        neighbours, ``n`` public), from the parameters only.

        Raises
        ------
        InvalidParameterError
            If a parameter is missing or invalid.
        """
        from ..accounting import Budget

        check_integer(n_samples, "n_samples", 1)
        eps, delta = self._params()[:2]
        return Budget(eps, delta)

    @property
    def _n_features_out(self) -> int:
        """Number of output features (``get_feature_names_out``: ``pca0``, ``pca1``, ...)."""
        return int(self.components_.shape[0])

    # -- fit ----------------------------------------------------------------------------------

    def fit(self, X: Any, y: Any = None) -> "PCA":
        """Release the private components of ``X`` (``y`` is ignored), charging the guarantee
        of the class docstring once.

        Raises
        ------
        InvalidParameterError
            On a bad or missing parameter (before ``X`` is read), or bad data or shapes (NaN,
            inf, not 2-d, empty, ``n_components`` above the number of features, a centre or
            bounds of another length); nothing is drawn or charged.
        BudgetExceededError
            If the accountant cannot pay; nothing is drawn.
        """
        from ..mechanisms import _charged, gaussian_noise
        from ..random import as_generator

        eps, delta, C, k, centering, bounds = self._params()
        Xv = self._validate(X, reset=True)
        n, d = int(Xv.shape[0]), int(Xv.shape[1])
        if d >= MAX_FEATURES:
            raise InvalidParameterError(
                f"X: at most {MAX_FEATURES - 1} features are supported; got {d}", "X"
            )
        if not math.isfinite(C * C * (4.0 * n)):  # the attributes in units of C^2 must be finite
            raise InvalidParameterError(
                f"data_norm: too large for n = {n} rows: the released matrix in the data's units "
                f"(entries up to about 4 n data_norm^2) would overflow; got {C!r}",
                "data_norm",
            )
        n_comp = min(n, d) if k is None else k
        if n_comp > d:
            raise InvalidParameterError(
                f"n_components: must be at most n_features = {d}; got {n_comp}", "n_components"
            )
        private_mean = isinstance(centering, str)
        if private_mean:
            assert bounds is not None
            lo, hi = per_feature_bounds(*bounds, d)
            mid, r = _centre(lo, hi)
            g = _float_slack(n)
            per_feature = r * (2.0 + 2.0 * g * n)
            mean_sens: Optional[float] = float(np.sqrt(np.sum(per_feature * per_feature))) * (
                1.0 + SUM_MARGIN
            )
            value_bounds: Tuple[float, ...] = (2.0 * n * float(np.max(r)), 2.0 * n * 2.0)
        else:
            assert isinstance(centering, np.ndarray)
            if centering.ndim == 1 and centering.shape[0] != d:
                raise InvalidParameterError(
                    f"centering: has length {centering.shape[0]}, but X has {d} features",
                    "centering",
                )
            declared = np.broadcast_to(centering, (d,)).astype(np.float64)
            mean_sens = None
            value_bounds = (2.0 * n * 2.0,)
        cal = _calibration(eps, delta, n, d, mean_sens)
        _check_grid(cal, value_bounds)
        gen = as_generator(self.rng)

        def release() -> Tuple[np.ndarray, np.ndarray]:
            if private_mean:
                sums = _centred_sums(Xv, lo, hi, mid)
                noisy_sums, _ = gaussian_noise(sums, cal.sigmas[0], cal.sensitivities[0], rng=gen)
                centre = mid + np.clip(np.asarray(noisy_sums, dtype=np.float64) / n, -r, r)
            else:
                centre = declared
            v = _to_vec(_second_moment(Xv, centre, C))
            # The events gaussian_noise returns are cal.event's parts (same sigma, sensitivity
            # and dimension): the charge made before the draws is this release's.
            noisy, _ = gaussian_noise(v, cal.sigmas[-1], cal.sensitivities[-1], rng=gen)
            return centre, np.asarray(noisy, dtype=np.float64)

        centre, noisy = _charged(
            self.accountant, eps, delta, LABEL, release, event=lambda: cal.event
        )

        # Post-processing (n public).
        M = _from_vec(noisy, d)  # in units of C^2
        evals, evecs = np.linalg.eigh(M)
        order = np.argsort(evals)[::-1]
        evals = evals[order]
        evecs = evecs[:, order]
        scale2 = C * C
        clipped = np.clip(evals, 0.0, None) * scale2
        denom = float(max(n - 1, 1))
        total = float(np.sum(clipped))
        self.mean_ = np.array(centre, dtype=np.float64)
        self.second_moment_ = M * scale2
        self.components_ = _svd_flip(evecs[:, :n_comp].T.copy())
        self.explained_variance_ = clipped[:n_comp] / denom
        self.explained_variance_ratio_ = clipped[:n_comp] / total if total > 0 else np.zeros(n_comp)
        self.singular_values_ = np.sqrt(clipped[:n_comp])
        rest = clipped[n_comp:]
        self.noise_variance_ = float(np.mean(rest)) / denom if rest.size else 0.0
        self.n_components_ = n_comp
        self.n_samples_seen_ = n
        return self

    # -- transform ------------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "components_")

    def transform(self, X: Any) -> np.ndarray:
        """``(X - mean_) @ components_.T``, as scikit-learn's ``PCA`` (no clipping)."""
        self._check_fitted()
        Xv = self._validate(X, reset=False)
        return np.asarray((Xv - self.mean_) @ self.components_.T)

    def inverse_transform(self, X: Any) -> np.ndarray:
        """``X @ components_ + mean_``: back to the original space (``X`` holds transformed
        data, ``n_components_`` columns)."""
        from sklearn.utils import check_array

        self._check_fitted()
        try:
            Z = check_array(X, dtype=np.float64)
        except (TypeError, ValueError) as err:
            raise InvalidParameterError(f"X: {err}", "X") from None
        if Z.shape[1] != self.n_components_:
            raise InvalidParameterError(
                f"X: has {Z.shape[1]} columns, but PCA has {self.n_components_} components",
                "X",
            )
        return np.asarray(Z @ self.components_ + self.mean_)

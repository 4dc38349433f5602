r"""A differentially private ``StandardScaler``: per-feature mean and standard deviation from
noisy sums of the data clipped to declared bounds.

The release
-----------
Every feature ``j`` has declared bounds ``l_j < u_j`` (parameters, never statistics of the
data). Let ``m_j = l_j/2 + u_j/2`` be the midpoint and ``r_j`` the half-range (computed as
``max(fl(u_j - m_j), fl(m_j - l_j))``). Each value is clipped to ``[l_j, u_j]`` and centred,
``c_ij = fl(clip(x_ij) - m_j)``, so ``|c_ij| <= r_j`` exactly (rounding is monotone), and
``c_ij^2 <= fl(r_j r_j) =: q_j``. Two vectors of sums are released:

* ``S1_j = sum_i c_ij`` (the centred first moment), and
* ``S2_j = sum_i c_ij^2`` (the second moment about the midpoint).

From the noisy ``S1~`` and ``S2~`` (post-processing, ``n`` public)::

    mean_   = m + clip(S1~ / n, -r, r)
    var_    = clip(S2~ / n - (S1~ / n)^2, 0, r^2)   # the variance of values in [l, u] is <= r^2
    scale_  = sqrt(var_), and 1 where var_ = 0 (scikit-learn's convention for a constant feature)

``transform`` and ``inverse_transform`` are scikit-learn's: ``(x - mean_) / scale_`` (the
subtraction only with ``with_mean``, the division only with ``with_std``), without clipping.

Sensitivities (replace-one, ``n`` public)
-----------------------------------------
Replacing one row ``x`` by ``x'`` replaces one summand of every sum. Per feature:
``|c_j - c'_j| <= 2 r_j = u_j - l_j`` and ``|c_j^2 - c'^2_j| <= q_j = ((u_j - l_j)/2)^2`` (both
squares lie in ``[0, q_j]``). These are attained: a row at ``l_j`` against one at ``u_j`` moves
``S1_j`` by ``u_j - l_j``; a row at ``m_j`` against one at a bound moves ``S2_j`` by ``q_j``.
Over all ``d`` features, since one row moves every feature at once, the L1 sensitivities are
``Delta1 = sum_j (u_j - l_j)`` and ``Delta2 = sum_j q_j`` (Laplace), the L2 sensitivities
``sqrt(sum_j (u_j - l_j)^2)`` and ``sqrt(sum_j q_j^2)`` (Gaussian).

*Floating point.* Each sum is computed exactly and rounded once (``math.fsum``, Shewchuk's
algorithm), so a computed sum is within ``2^-53 |S|`` of the exact one, with ``|S1_j| <= n
r_j`` and ``|S2_j| <= n q_j``. Two neighbours' computed sums therefore differ by at most the
exact sensitivity plus ``2^-52 n r_j`` (``S1``) or ``2^-52 n q_j`` (``S2``): the per-feature
sensitivities used are ``r_j (2 + 2^-52 n)`` and ``q_j (1 + 2^-52 n)``, and the L1 / L2
totals are multiplied by ``1 + 2^-30`` (:data:`SUM_MARGIN`), which covers the rounding of their
own evaluation (a relative ``(d + 3) 2^-53`` at most, ``d < 2^22``). All of this depends on the
bounds, ``n`` and ``d`` only.

Calibration and guarantee
-------------------------
``delta = 0`` (**Laplace**): each sum vector is released by privlearn's Laplace mechanism
(:func:`privlearn.mechanisms.laplace`, exact sampler; Dwork and Roth, *The algorithmic
foundations of differential privacy*, Theorem 3.6) with its L1 sensitivity, ``S1`` with
``epsilon / 2`` and ``S2`` with ``epsilon / 2`` (exact halves); by basic composition (Dwork and
Roth, Theorem 3.14) the fit is ``epsilon``-DP (pure). ``delta > 0`` (**Gaussian**): each sum
vector is released by privlearn's Gaussian mechanism (:func:`privlearn.mechanisms.gaussian`,
exact discrete Gaussian, analytic calibration as that function documents it) with its L2
sensitivity and ``(epsilon / 2, delta / 2)``; by basic composition the fit is ``(epsilon,
delta)``-DP. With ``with_std=False`` only ``S1`` is released, with the whole ``(epsilon,
delta)``. The split (half and half) is fixed and public.

The neighbouring notion is **replace-one** (one row replaced, ``n`` public), privlearn's
default. The guarantee holds only with ``rng=None`` or an unseeded generator. One fit charges
the accountant once, label ``"StandardScaler"``, with the native events of the releases
composed into one :class:`~privlearn.accounting.PrivacyEvent` whose budget is ``(epsilon,
delta)``. Whether a fit succeeds, what it charges and the shapes of its attributes depend on the
parameters, ``n`` and ``d`` only.

*Not tight.* Because ``S2`` is centred at the midpoint, no single neighbouring pair moves both
sums by their full sensitivities (the pair ``l_j`` / ``u_j`` leaves ``S2_j`` unchanged): with
the equal split the largest privacy loss of one feature is about ``0.78 epsilon`` (a row at
``u_j`` against one at ``m_j - r_j / 4``). The claim is the composition bound, which is valid.

Comparison: diffprivlib's ``StandardScaler`` releases each feature's mean and variance with its
own mechanisms from declared bounds (it warns and reads the range from the data when the bounds
are missing); this one releases two sums with privlearn's exact samplers, refuses missing
bounds, and charges a ledger shared by scikit-learn clones.

Which library does what: the sums are Python's ``math.fsum`` (exactly rounded); the noise is
privlearn's exact samplers (Rust core, through :mod:`privlearn.mechanisms`); the input checks,
``feature_names_in_`` and the transformer plumbing are scikit-learn's.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin

from .._certified import SharedCloneMixin, validate_X
from .._validate import check_boolean, check_delta, check_epsilon, check_integer
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError

__all__ = ["StandardScaler"]

LABEL = "StandardScaler"
#: Relative margin on the L1 / L2 totals of the per-feature sensitivities (module docstring).
SUM_MARGIN = 2.0**-30
#: Rounding slack of one exactly-rounded sum of ``n`` terms, relative to its per-term bound.
FSUM_SLACK = 2.0**-52


def _bounds_arg(value: object) -> Tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` as float arrays (0-d for scalars, 1-d per feature), checked before any
    data are read: required, finite, and every range ``upper - lower`` finite and > 0."""
    if value is None:
        raise InvalidParameterError(
            "bounds: a declared (lower, upper) is required and has no default: every value is "
            "clipped to it, so it changes the result, and it must not be read from the data. "
            "Choose it from domain knowledge (the range the feature can take, not the range "
            "observed); got None",
            "bounds",
        )
    lo_hi: Tuple[Any, ...]
    try:
        lo_hi = tuple(value)  # type: ignore[arg-type]
    except TypeError:
        lo_hi = ()
    if len(lo_hi) != 2:
        raise InvalidParameterError(
            f"bounds: must be a pair (lower, upper) of numbers or per-feature arrays; got "
            f"{value!r}",
            "bounds",
        )
    try:
        lo = np.asarray(lo_hi[0], dtype=np.float64)
        hi = np.asarray(lo_hi[1], dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"bounds: lower and upper must be numbers or 1-d arrays of numbers; got {value!r}",
            "bounds",
        ) from None
    if lo.ndim > 1 or hi.ndim > 1 or (lo.ndim == hi.ndim == 1 and lo.shape != hi.shape):
        raise InvalidParameterError(
            "bounds: lower and upper must be scalars or 1-d arrays of the same length; got "
            f"shapes {lo.shape} and {hi.shape}",
            "bounds",
        )
    if lo.size == 0 or hi.size == 0:
        raise InvalidParameterError("bounds: lower and upper must not be empty", "bounds")
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi))):
        raise InvalidParameterError("bounds: lower and upper must be finite", "bounds")
    with np.errstate(over="ignore"):
        width = hi - lo
    if not np.all(width > 0):
        raise InvalidParameterError(
            "bounds: every feature needs upper > lower (a zero or negative range leaves "
            "nothing to scale); got a range <= 0",
            "bounds",
        )
    if not np.all(np.isfinite(width)):
        raise InvalidParameterError("bounds: every range upper - lower must be finite", "bounds")
    return lo, hi


class StandardScaler(  # type: ignore[misc]
    SharedCloneMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    r"""Standardise features by a private mean and a private standard deviation.

    A drop-in for :class:`sklearn.preprocessing.StandardScaler` whose fitted ``mean_``,
    ``var_`` and ``scale_`` are differentially private: they are post-processing of noisy sums
    of the data clipped to the declared per-feature ``bounds`` (details, replace-one
    sensitivities and floating-point treatment in the source module
    ``privlearn.preprocessing._scaler``, and on the guarantees page).

    **Guarantee.** ``delta = 0``: ``fit`` is ``epsilon``-differentially private (pure; Laplace
    mechanism, Dwork and Roth, Theorem 3.6, and basic composition, Dwork and Roth, Theorem 3.14,
    of the two sums at ``epsilon / 2`` each). ``delta > 0``: ``(epsilon, delta)``-differentially
    private (the Gaussian mechanism of :func:`privlearn.mechanisms.gaussian` on each sum at
    ``(epsilon / 2, delta / 2)``, basic composition). ``with_std=False`` releases only the
    first sum, at the whole budget. Neighbours replace one row, ``n`` public; the guarantee
    holds with ``rng=None`` or an unseeded generator. ``transform`` reads only its own input
    and the released statistics.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of one fit, finite and > 0. Required.
    bounds : (lower, upper)
        Declared range of every feature: two numbers (the same range for all features) or two
        arrays of length ``n_features``; ``upper > lower`` everywhere. Values are clipped to
        it before the sums. Required, no default.
    delta : float, default 0.0
        ``0``: Laplace noise, pure DP. In ``(0, 1)``: Gaussian noise, ``(epsilon, delta)``-DP.
    with_mean : bool, default True
        Subtract ``mean_`` in ``transform`` (the mean is released either way).
    with_std : bool, default True
        Release the second moment and divide by ``scale_`` in ``transform``; ``False`` spends the
        whole budget on the mean and leaves ``var_`` and ``scale_`` as ``None``.
    accountant : Accountant, optional
        Charged once per fit (label ``"StandardScaler"``) only if the fit succeeds; a spend that
        does not fit raises ``BudgetExceededError`` before the data are read. Clones share it.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`); an integer seed is reproducible, not private.

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
        Private mean, in ``[lower, upper]``.
    var_ : ndarray of shape (n_features,) or None
        Private variance, in ``[0, ((upper - lower) / 2)^2]`` (``None`` with ``with_std=False``).
    scale_ : ndarray of shape (n_features,) or None
        ``sqrt(var_)``, 1 where ``var_`` is 0 (``None`` with ``with_std=False``).
    n_samples_seen_ : int
        Number of rows (public).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a DataFrame input.

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.preprocessing import StandardScaler
    >>> X = np.random.default_rng(0).uniform(0, 10, size=(50_000, 2))
    >>> sc = StandardScaler(1.0, bounds=(0.0, 10.0), rng=3).fit(X)  # seeded: not private
    >>> bool(np.allclose(sc.mean_, 5.0, atol=0.05)), bool(np.allclose(sc.scale_, 2.89, atol=0.05))
    (True, True)
    >>> sc.transform(X).shape
    (50000, 2)
    """

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        bounds: Any = None,
        delta: float = 0.0,
        with_mean: bool = True,
        with_std: bool = True,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.bounds = bounds
        self.delta = delta
        self.with_mean = with_mean
        self.with_std = with_std
        self.accountant = accountant
        self.rng = rng

    # -- parameters (checked before any data are read) -------------------------------------------

    def _params(self) -> Tuple[float, float, bool, bool, np.ndarray, np.ndarray]:
        eps = check_epsilon(self.epsilon, exact=True)
        delta = check_delta(self.delta, zero_ok=True, exact=True)
        with_mean = check_boolean(self.with_mean, "with_mean")
        with_std = check_boolean(self.with_std, "with_std")
        lo, hi = _bounds_arg(self.bounds)
        check_accountant(self.accountant)
        return eps, delta, with_mean, with_std, lo, hi

    def privacy_guarantee(self, n_samples: int) -> Any:
        """``Budget(epsilon)`` (``delta = 0``) or ``Budget(epsilon, delta)``: what one fit on
        ``n_samples`` rows charges (replace-one neighbours, ``n`` public), from the parameters
        only.

        Raises
        ------
        InvalidParameterError
            If a parameter is missing or invalid.
        """
        from ..accounting import Budget

        check_integer(n_samples, "n_samples", 1)
        eps, delta = self._params()[:2]
        return Budget(eps, delta) if delta > 0 else Budget(eps)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        rng = self.rng
        seeded = (isinstance(rng, (int, np.integer)) and not isinstance(rng, bool)) or isinstance(
            rng, np.random.SeedSequence
        )
        tags.non_deterministic = not seeded
        tags.input_tags.allow_nan = False
        return tags

    # -- fit ----------------------------------------------------------------------------------

    def _validate(self, X: Any, *, reset: bool) -> np.ndarray:
        try:
            return validate_X(self, X, reset=reset)
        except InvalidParameterError as err:  # the message names its parameter first
            raise InvalidParameterError(f"X: {err}", "X") from None

    def fit(self, X: Any, y: Any = None) -> "StandardScaler":
        """Release the private statistics of ``X`` (``y`` is ignored), charging the guarantee
        of the class docstring once.

        Raises
        ------
        InvalidParameterError
            On a bad or missing parameter (``bounds`` first, before ``X`` is read), or bad data
            (NaN, inf, not 2-d, empty, per-feature bounds of another length than the number of
            columns); nothing is drawn or charged.
        BudgetExceededError
            If the accountant cannot pay; nothing is drawn.
        """
        from ..accounting._event import PrivacyEvent
        from ..mechanisms import _charged, _gaussian_event, gaussian, laplace
        from ..random import as_generator

        eps, delta, _with_mean, with_std, lo, hi = self._params()
        Xv = self._validate(X, reset=True)
        n, d = int(Xv.shape[0]), int(Xv.shape[1])
        for b in (lo, hi):
            if b.ndim == 1 and b.shape[0] != d:
                raise InvalidParameterError(
                    f"bounds: per-feature bounds have length {b.shape[0]}, but X has {d} features",
                    "bounds",
                )
        lo = np.broadcast_to(lo, (d,)).astype(np.float64)
        hi = np.broadcast_to(hi, (d,)).astype(np.float64)
        mid = lo / 2.0 + hi / 2.0
        r = np.maximum(hi - mid, mid - lo)
        q = r * r
        gaussian_noise = delta > 0
        sens1_j = r * (2.0 + FSUM_SLACK * n)
        sens2_j = q * (1.0 + FSUM_SLACK * n)
        if gaussian_noise:
            s1 = float(np.sqrt(np.sum(sens1_j * sens1_j))) * (1.0 + SUM_MARGIN)
            s2 = float(np.sqrt(np.sum(sens2_j * sens2_j))) * (1.0 + SUM_MARGIN)
        else:
            s1 = float(np.sum(sens1_j)) * (1.0 + SUM_MARGIN)
            s2 = float(np.sum(sens2_j)) * (1.0 + SUM_MARGIN)
        # The budget split (exact halves: eps/2 + eps/2 == eps in floating point).
        parts = [(s1, eps / 2.0 if with_std else eps, delta / 2.0 if with_std else delta)]
        if with_std:
            parts.append((s2, eps / 2.0, delta / 2.0))
        gen = as_generator(self.rng)
        shape = np.zeros(d)

        def event() -> Any:
            from ..accounting import Budget

            if gaussian_noise:
                events = [
                    _gaussian_event(shape, s, e, dl, "exact", "analytic") for s, e, dl in parts
                ]
            else:
                events = [PrivacyEvent.pure(e) for _s, e, _dl in parts]
            budget = Budget(eps, delta) if gaussian_noise else Budget(eps)
            return PrivacyEvent.composed(events, budget=budget)

        def release() -> List[np.ndarray]:
            C = np.clip(Xv, lo, hi) - mid  # |C_ij| <= r_j exactly (module docstring)
            sums = [np.array([math.fsum(C[:, j]) for j in range(d)])]
            if with_std:
                sq = C * C
                sums.append(np.array([math.fsum(sq[:, j]) for j in range(d)]))
            out = []
            for value, (s, e, dl) in zip(sums, parts):
                if gaussian_noise:
                    noisy = gaussian(value, s, e, dl, rng=gen)
                else:
                    noisy = laplace(value, s, e, rng=gen)
                out.append(np.asarray(noisy, dtype=np.float64).reshape(d))
            return out

        noisy = _charged(self.accountant, eps, delta, LABEL, release, event=event)

        # Post-processing (n public).
        m1 = np.clip(noisy[0] / n, -r, r)
        self.mean_ = mid + m1
        self.var_: Optional[np.ndarray]
        self.scale_: Optional[np.ndarray]
        if with_std:
            var = noisy[1] / n - (noisy[0] / n) ** 2
            self.var_ = np.clip(var, 0.0, q)
            scale = np.sqrt(self.var_)
            self.scale_ = np.where(scale == 0.0, 1.0, scale)
        else:
            self.var_ = None
            self.scale_ = None
        self.n_samples_seen_ = n
        return self

    # -- transform ------------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "mean_")

    def transform(self, X: Any) -> np.ndarray:
        """``(X - mean_) / scale_`` (subtraction with ``with_mean``, division with
        ``with_std``), as scikit-learn's scaler; no clipping."""
        self._check_fitted()
        Xv = np.array(self._validate(X, reset=False), copy=True)
        if self.with_mean:
            Xv -= self.mean_
        if self.scale_ is not None:
            Xv /= self.scale_
        return Xv

    def inverse_transform(self, X: Any) -> np.ndarray:
        """``X * scale_ + mean_``: undo :meth:`transform` (``X`` is transformed data: its
        column names are not checked, as in scikit-learn)."""
        from sklearn.utils import check_array

        self._check_fitted()
        try:
            Xv = np.array(check_array(X, dtype=np.float64), copy=True)
        except (TypeError, ValueError) as err:
            raise InvalidParameterError(f"X: {err}", "X") from None
        if Xv.shape[1] != self.n_features_in_:
            raise InvalidParameterError(
                f"X: has {Xv.shape[1]} features, but StandardScaler was fitted with "
                f"{self.n_features_in_}",
                "X",
            )
        if self.scale_ is not None:
            Xv *= self.scale_
        if self.with_mean:
            Xv += self.mean_
        return Xv

"""Differentially private mechanisms.

All mechanisms take ``rng`` as described in :mod:`privlearn.random` (their guarantees hold only
for ``rng=None`` or an unseeded :class:`~privlearn.random.Generator`: a known seed lets anyone
regenerate the noise) and default to floating-point-safe numerics (DESIGN principle 3); the
plain floating-point path is an explicit opt-in, ``numerics="fast"``.

Neighbouring datasets differ by replacing one record (the dataset size is public).

How the exact numerics work
---------------------------
Naive floating-point noise leaks the input through the pattern of reachable outputs (Mironov,
CCS 2012). The exact mechanisms round the input to a power-of-two grid ``2^k Z`` (a
deterministic function of the input: the rounded query's sensitivity grows by at most one grid
step per coordinate, and the mechanism is calibrated for that widened sensitivity), add integer
noise in grid units drawn *exactly* from the discrete Laplace or discrete Gaussian law
(Canonne, Kamath and Steinke, NeurIPS 2020, from random bits with rational arithmetic), and
return the exact noisy value rounded once to the nearest double, a post-processing of the exact
output. The grid is at most ``2^-20`` times the sensitivity (and the noise scale), so the
widening costs at most about one part in a million of accuracy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, TypeVar, Union

from . import _core
from ._validate import check_integer, check_number
from .accounting._accountant import check_accountant
from .random import _core_rng

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import ArrayLike

    from .accounting import Accountant
    from .accounting._event import PrivacyEvent
    from .random import RngLike

T = TypeVar("T")


def _charged(
    accountant: "Optional[Accountant]",
    epsilon: float,
    delta: float,
    label: str,
    call: Callable[[], T],
    *,
    times: int = 1,
    event: "Optional[Callable[[], PrivacyEvent]]" = None,
) -> T:
    """Runs ``call`` (which validates, then draws), charging ``(epsilon, delta)`` to
    ``accountant`` if one is given: the spend is committed only if ``call`` returns, so invalid
    input (an error raised before anything is drawn) spends nothing, and a spend that does not
    fit raises :class:`~privlearn.errors.BudgetExceededError` before anything is drawn.

    ``event`` (optional) builds the release's guarantee in its native form
    (:class:`~privlearn.accounting.PrivacyEvent`, whose ``budget`` must be ``(epsilon,
    delta)``): that event is charged, so that a zCDP, RDP or PLD accountant composes the
    mechanism by its own curve; a basic accountant charges its ``budget``, the same as without
    it. It is called only when an accountant is given; if it raises on invalid parameters,
    ``Budget(epsilon, delta)`` is charged instead and ``call`` reports the invalid input
    (nothing is charged then).

    ``times`` (a plain ``int`` >= 0, already normalised by the caller with
    :func:`privlearn._validate.check_integer`, and the same ``int`` the draws use) charges the
    ``times``-fold composition: ``times * Budget(epsilon, delta)`` (exact, rounded up), or the
    event repeated ``times`` times."""
    if accountant is None:
        return call()
    from .accounting import Budget
    from .accounting._event import PrivacyEvent
    from .errors import InvalidParameterError

    check_accountant(accountant)
    charge: "Union[Budget, PrivacyEvent]"
    try:
        charge = event() if event is not None else Budget(epsilon, delta)
    except (InvalidParameterError, ValueError, TypeError, OverflowError):
        charge = Budget(epsilon, delta)
    if times != 1:
        if not isinstance(charge, PrivacyEvent):
            charge = times * charge
        elif times == 0:
            charge = PrivacyEvent.pure(0.0, neighbours=charge.neighbours)
        else:
            charge = PrivacyEvent.repeated(charge, times)
    with accountant.transaction(charge, label):
        return call()


def _numbers(**values: object) -> None:
    """A wrong *type* for a numeric argument (a string, ``None``, a list...) raises
    :class:`~privlearn.errors.InvalidParameterError` naming it, before the compiled core sees
    it (the core checks the ranges and reports them by name)."""
    for name, value in values.items():
        check_number(value, name)


def _event() -> "type[PrivacyEvent]":
    from .accounting._event import PrivacyEvent

    return PrivacyEvent


def _gaussian_event(
    value: object,
    sensitivity: float,
    epsilon: float,
    delta: float,
    numerics: str,
    calibration: str,
) -> "PrivacyEvent":
    """The native guarantee of :func:`gaussian` with these parameters: for the exact path, the
    discrete Gaussian on the grid (integer sensitivity and variance in grid units, from the
    sampler's own plan, :func:`privlearn._core.gaussian_plan`); for the fast path, the
    continuous Gaussian of :func:`gaussian_sigma`. Its budget is ``(epsilon, delta)``."""
    import math
    from fractions import Fraction

    import numpy as np

    from .accounting import Budget

    dim = max(1, int(np.size(np.asarray(value, dtype=float))))
    budget = Budget(epsilon, delta)
    if numerics == "exact":
        _step, du, s2 = _core.gaussian_plan(sensitivity, epsilon, delta, dim, calibration)
        sigma = math.sqrt(s2)
        while Fraction(sigma) ** 2 > s2:  # round the noise parameter down (safe side)
            sigma = math.nextafter(sigma, 0.0)
        return _event().discrete_gaussian(sigma, sensitivity=du, dim=dim, budget=budget)
    sigma = gaussian_sigma(
        sensitivity, epsilon, delta, dim=dim, numerics=numerics, calibration=calibration
    )
    return _event().gaussian(sigma, sensitivity=sensitivity, budget=budget)


__all__ = [
    "exponential",
    "log_sum_exp",
    "laplace",
    "gaussian",
    "gaussian_sigma",
    "gaussian_noise",
    "gaussian_noise_event",
    "gaussian_noise_sigma",
    "discrete_laplace",
    "discrete_gaussian",
    "randomized_response",
    "randomized_response_k",
    "l2_laplace_noise",
    "report_noisy_max",
    "permute_and_flip",
    "stable_argmax",
    "SparseVector",
]


def exponential(
    scores: "ArrayLike",
    epsilon: float,
    sensitivity: float = 1.0,
    *,
    size: Optional[int] = None,
    rng: "RngLike" = None,
    accountant: "Optional[Accountant]" = None,
    numerics: str = "exact",
) -> Union[int, "np.ndarray"]:
    r"""The exponential mechanism: a private choice of the highest-scoring candidate.

    Returns index ``i`` with probability proportional to
    :math:`\exp(\varepsilon \, u_i / (2 \Delta))`, where ``u = scores`` and
    ``Δ = sensitivity``.

    **Privacy guarantee.** If every score changes by at most ``sensitivity`` when one record of
    the dataset is replaced, the returned index is ``epsilon``-differentially private (pure DP,
    replace-one neighbours). McSherry and Talwar, "Mechanism design via differential privacy"
    (FOCS 2007), Theorem 6. The guarantee holds only with ``rng=None`` (or an unseeded
    :class:`~privlearn.random.Generator`): a known seed lets anyone regenerate the draw.

    **Numerics.** ``numerics="exact"`` (default) is floating-point safe: no rounding error can
    change an output probability (Ilvento, CCS 2020, shows that naive floating-point sampling can
    break the guarantee). Integer scores (an integer or bool dtype) are used exactly. Real scores
    are rounded to a grid of spacing ``γ`` (a power of two near ``sensitivity * 2**-20``) and the
    mechanism runs with sensitivity ``sensitivity + γ``, so the guarantee is still exactly
    ``epsilon``-DP; probabilities differ from the ideal ones by a factor at most
    ``exp(epsilon * γ / sensitivity)``. The rate is rounded down to 64 significant bits and scores
    more than 700 nats below the best are clamped there (a total-variation change of at most
    ``n * e**-700``); both keep the guarantee exact. Details: ``privlearn_core::expmech::exact``.

    ``numerics="fast"`` samples in plain floating point (a fused log-sum-exp and inverse-CDF pass,
    one uniform per draw; Gumbel-max, one Gumbel variate per candidate, measured several times
    slower): faster, but not floating-point safe; candidates whose probability is below about
    ``1e-16`` relative to the total are never returned.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Utility of each candidate (higher is better). Finite numbers, or ``-inf`` for a candidate
        that may never be chosen (it must be ``-inf`` whatever the data). NaN and ``+inf`` are
        errors.
    epsilon : float
        Privacy parameter, finite and > 0. (``epsilon = 0`` is not allowed: a uniform choice is
        not a call to a privacy mechanism.)
    sensitivity : float, default 1.0
        Largest change of any score when one record is replaced; finite and > 0.
    size : int, optional
        Number of independent draws. ``None`` (default) returns one index; an integer returns an
        array of that many. **Each draw is a separate** ``epsilon``**-DP release**: together they
        are ``size * epsilon``-DP (basic composition), and that is what ``accountant`` is
        charged: the exact product, rounded up to the next float. Any integer is accepted
        (``int``, ``np.int64``, ...: :func:`operator.index`); bools and floats such as ``10.0``
        are refused. The scores are validated and grouped once for all draws.
    rng : None, int or Generator, optional
        Randomness; see :mod:`privlearn.random`.
    accountant : Accountant, optional
        If given, this release is charged to it (see :mod:`privlearn.accounting`) before anything
        is drawn: a spend that does not fit raises ``BudgetExceededError`` and draws nothing, and
        invalid input charges nothing.
    numerics : {"exact", "fast"}, default "exact"
        Floating-point-safe sampling, or plain floating point.

    Returns
    -------
    int or numpy.ndarray of int64
        The index of the chosen candidate (or ``size`` indices).

    Raises
    ------
    InvalidParameterError
        On an empty or non-1-D ``scores``, NaN or ``+inf`` scores, all scores ``-inf``, or an
        ``epsilon`` or ``sensitivity`` that is not finite and > 0, or a negative ``size``.
        Nothing is drawn.

    Notes
    -----
    Arrays of 65,536 or more float64 or int64 scores are read in place while the GIL is
    released, as numpy's own ufunc loops do: do not modify them from another thread during the
    call. Shorter arrays, and arrays of other dtypes, are copied first.

    Examples
    --------
    >>> from privlearn.mechanisms import exponential
    >>> exponential([0.0, 10.0, 2.0], epsilon=5.0, rng=0)  # seeded: reproducible, not private
    1
    """
    _numbers(epsilon=epsilon, sensitivity=sensitivity)
    count = None if size is None else check_integer(size, "size", 0)
    return _charged(
        accountant,
        epsilon,
        0.0,
        "exponential mechanism",
        lambda: _core.exponential(scores, epsilon, sensitivity, count, _core_rng(rng), numerics),
        times=1 if count is None else count,
        event=lambda: _event().bounded_range(epsilon),
    )


def log_sum_exp(x: "ArrayLike") -> float:
    r"""``log(sum(exp(x)))`` over all elements of ``x``, computed stably.

    No overflow or underflow for any finite input (the maximum is factored out); ``-inf`` entries
    contribute nothing. An empty or all-``-inf`` input gives ``-inf``; any ``+inf`` gives ``+inf``
    and any NaN gives NaN, as ``numpy.logaddexp.reduce`` would. Vectorised and parallel in Rust;
    the result is accurate to a few units in the last place.

    Parameters
    ----------
    x : array_like
        Real numbers (any shape; all elements are reduced).

    Returns
    -------
    float
    """
    return _core.log_sum_exp(x)


def laplace(
    value: "ArrayLike",
    sensitivity: float,
    epsilon: float,
    *,
    rng: "RngLike" = None,
    accountant: "Optional[Accountant]" = None,
    numerics: str = "exact",
) -> Union[float, "np.ndarray"]:
    r"""The Laplace mechanism: ``value`` plus Laplace noise of scale ``sensitivity / epsilon``.

    **Privacy guarantee.** If ``value`` (a scalar or an array) changes by at most
    ``sensitivity`` in L1 norm when one record is replaced, the result is ``epsilon``-DP (pure,
    replace-one). Dwork, McSherry, Nissim and Smith (TCC 2006); Dwork and Roth, *The algorithmic
    foundations of differential privacy*, Theorem 3.6.

    **Numerics.** ``"exact"`` (default): the value is rounded to a grid ``2^k Z`` with
    ``2^k <= min(Δ, Δ/ε) 2^-20 / d`` (d the number of coordinates), whose L1 sensitivity in grid
    units is at most ``Δ_u = floor(Δ/2^k) + d``; discrete Laplace noise of scale ``Δ_u / ε``
    (rounded up to a multiple of ``2^-30`` steps) is sampled exactly, so the result is exactly
    ``epsilon``-DP; the noise is larger than ``Δ/ε`` by a relative ``2^-20`` at most. Supported
    for ``sensitivity`` in ``[1e-250, 1e250]`` and ``epsilon`` down to about ``1e-18 d``.
    ``"fast"``: ``value + (Δ/ε) L`` with ``L`` a random sign times a standard exponential
    variate from the Rust ``rand_distr`` crate (ziggurat, in floating point): not floating-point
    safe. (``rand_distr`` samples the float paths for speed and as a reviewed implementation;
    the exact samplers are privlearn's own, since exactness on the grid needs them.)

    Parameters
    ----------
    value : float or array_like
        The query's true value(s). Finite.
    sensitivity : float
        L1 sensitivity of ``value`` under replacing one record; finite and > 0.
    epsilon : float
        Privacy parameter; finite and > 0.
    rng : None, int or Generator, optional
        Randomness; see :mod:`privlearn.random`.
    accountant : Accountant, optional
        If given, this release is charged to it (see :mod:`privlearn.accounting`) before anything
        is drawn: a spend that does not fit raises ``BudgetExceededError`` and draws nothing, and
        invalid input charges nothing.
    numerics : {"exact", "fast"}, default "exact"

    Returns
    -------
    float or numpy.ndarray
        The noisy value, with the shape of ``value``.

    Raises
    ------
    InvalidParameterError
        On a non-finite value, or ``sensitivity``/``epsilon`` not finite and > 0 (or outside the
        exact sampler's range). Nothing is drawn.

    Examples
    --------
    >>> from privlearn.mechanisms import laplace
    >>> noisy_count = laplace(42, sensitivity=1, epsilon=1.0, rng=0)  # seeded: not private
    >>> abs(noisy_count - 42) < 30
    True
    """
    _numbers(sensitivity=sensitivity, epsilon=epsilon)
    return _charged(
        accountant,
        epsilon,
        0.0,
        "laplace",
        lambda: _core.laplace(value, sensitivity, epsilon, _core_rng(rng), numerics),
        event=lambda: _event().pure(epsilon),
    )


def gaussian(
    value: "ArrayLike",
    sensitivity: float,
    epsilon: float,
    delta: float,
    *,
    rng: "RngLike" = None,
    accountant: "Optional[Accountant]" = None,
    numerics: str = "exact",
    calibration: str = "analytic",
) -> Union[float, "np.ndarray"]:
    r"""The Gaussian mechanism: ``value`` plus Gaussian noise calibrated to ``(epsilon, delta)``.

    **Privacy guarantee.** If ``value`` changes by at most ``sensitivity`` in L2 norm when one
    record is replaced, the result is ``(epsilon, delta)``-DP (replace-one).

    **Calibration.** ``"analytic"`` (default): the smallest noise meeting ``(epsilon, delta)``
    (Balle and Wang, "Improving the Gaussian mechanism for differential privacy", ICML 2018,
    Theorem 8), valid for every ``epsilon > 0``. ``"classic"``:
    ``σ = Δ sqrt(2 ln(1.25/δ)) / ε`` (Dwork and Roth, Theorem A.1), for ``epsilon < 1`` only.

    **Numerics.** ``"exact"`` (default): discrete Gaussian noise (Canonne, Kamath and Steinke,
    NeurIPS 2020), sampled exactly on a grid ``2^k Z`` (``2^k`` at most ``min(Δ, σ) 2^-20 /
    sqrt(d)``) and calibrated for the rounded query's sensitivity. For a scalar the discrete
    Gaussian's own privacy profile (CKS20 Theorem 7, the discrete form of Balle–Wang's) is bounded
    rigorously and the analytic calibration gives essentially the continuous ``σ``; for an array
    the calibration goes through zero-concentrated DP (CKS20 Theorem 4 and Bun–Steinke's
    conversion), which costs some extra noise. ``"fast"``: continuous Gaussian noise (the Rust
    ``rand_distr`` crate's ziggurat standard normal, times ``σ``) with the continuous
    calibration, not floating-point safe. Use
    :func:`gaussian_sigma` to see the noise standard deviation.

    Parameters
    ----------
    value : float or array_like
        The true value(s). Finite.
    sensitivity : float
        L2 sensitivity; finite and > 0.
    epsilon : float
        Finite and > 0 (< 1 for ``calibration="classic"``).
    delta : float
        In ``(0, 1)``.
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        If given, this release is charged to it (see :mod:`privlearn.accounting`) before anything
        is drawn: a spend that does not fit raises ``BudgetExceededError`` and draws nothing, and
        invalid input charges nothing.
    numerics : {"exact", "fast"}, default "exact"
    calibration : {"analytic", "classic"}, default "analytic"

    Returns
    -------
    float or numpy.ndarray
        The noisy value, with the shape of ``value``.
    """
    _numbers(sensitivity=sensitivity, epsilon=epsilon, delta=delta)
    return _charged(
        accountant,
        epsilon,
        delta,
        "gaussian",
        lambda: _core.gaussian(
            value, sensitivity, epsilon, delta, _core_rng(rng), numerics, calibration
        ),
        event=lambda: _gaussian_event(value, sensitivity, epsilon, delta, numerics, calibration),
    )


def gaussian_sigma(
    sensitivity: float,
    epsilon: float,
    delta: float,
    *,
    dim: int = 1,
    numerics: str = "exact",
    calibration: str = "analytic",
) -> float:
    """The standard deviation of the noise :func:`gaussian` adds for these parameters.

    ``dim`` is the number of coordinates of the value (the exact path calibrates scalars and
    arrays differently; see :func:`gaussian`). For ``numerics="exact"`` this is the discrete
    Gaussian's parameter ``σ`` (its variance is within a relative ``1e-10`` of ``σ²`` on the grids
    used).
    """
    _numbers(sensitivity=sensitivity, epsilon=epsilon, delta=delta)
    dim = check_integer(dim, "dim", 1)
    return _core.gaussian_sigma(sensitivity, epsilon, delta, dim, numerics, calibration)


def _noise_grid(sigma: float, sensitivity: float, dim: int) -> "tuple[float, int]":
    """The grid step ``2^k <= min(Δ, σ) 2^-20 / sqrt(dim)`` of :func:`gaussian_noise` and the
    L2 sensitivity in grid units of the rounded value, ``ceil(Δ / 2^k) + ceil(sqrt(dim))`` (each
    coordinate's rounding moves it by at most half a step on each side, so at most one step per
    coordinate and ``sqrt(dim)`` steps in L2; ``ceil(a + b) <= ceil(a) + ceil(b)``)."""
    import math

    bound = min(sensitivity, sigma) * 2.0**-20 / math.sqrt(dim)
    step = 2.0 ** math.floor(math.log2(bound))
    while step > bound:  # log2 rounding: keep the step at most the bound
        step /= 2.0
    root = math.isqrt(dim)
    root_up = root if root * root == dim else root + 1
    return step, math.ceil(sensitivity / step) + root_up


def gaussian_noise_event(sigma: float, sensitivity: float, dim: int = 1) -> "PrivacyEvent":
    """The native event :func:`gaussian_noise` returns for a release of ``dim`` coordinates with
    these parameters (its grid rule), known before anything is drawn: the discrete Gaussian of
    parameter ``sigma / 2^k`` on an integer query of L2 sensitivity ``ceil(Δ/2^k) +
    ceil(sqrt(dim))`` (replace-one)."""
    _numbers(sigma=sigma, sensitivity=sensitivity)
    step, units = _noise_grid(sigma, sensitivity, dim)
    return _event().discrete_gaussian(sigma / step, sensitivity=units, dim=dim)


def gaussian_noise_sigma(sensitivity: float, rho: float, dim: int = 1) -> float:
    """The ``sigma`` for which :func:`gaussian_noise`'s release of L2 ``sensitivity`` in ``dim``
    coordinates is ``rho``-zCDP on its grid (``Δ_u² / (2 (σ/2^k)²) <= ρ``, CKS20 Theorem 4):
    ``σ = Δ_u 2^k / sqrt(2ρ)`` with the grid of that ``σ`` (a fixed point, found in a few
    steps), rounded up to the next double until the inequality holds in exact rationals. Its
    event is :func:`gaussian_noise_event`."""
    _numbers(sensitivity=sensitivity, rho=rho)
    import math
    from fractions import Fraction

    step, units = _noise_grid(sensitivity / math.sqrt(2.0 * rho), sensitivity, dim)
    for _ in range(64):
        sigma = units / math.sqrt(2.0 * rho) * step
        while Fraction(units) ** 2 * Fraction(step) ** 2 > 2 * Fraction(rho) * Fraction(sigma) ** 2:
            sigma = math.nextafter(sigma, math.inf)
        grid = _noise_grid(sigma, sensitivity, dim)
        if grid == (step, units):
            return sigma
        step, units = grid  # pragma: no cover - only when sigma is below the sensitivity
    raise AssertionError("Gaussian calibration did not converge")  # pragma: no cover


def gaussian_noise(
    value: "ArrayLike", sigma: float, sensitivity: float, *, rng: "RngLike" = None
) -> "tuple[Union[float, np.ndarray], PrivacyEvent]":
    r"""``value`` plus exact Gaussian noise of a given standard deviation ``sigma``, and the
    release's native privacy event (not charged: for composites that charge their total once).

    The building block of iterative and multi-release algorithms (DP gradient descent, boosted
    sufficient-statistics perturbation), which fix the noise of each release and account for the
    composition as a whole (zCDP, RDP or PLD), instead of calibrating each release to its own
    ``(epsilon, delta)`` as :func:`gaussian` does.

    **Numerics (exact).** ``value`` is rounded to the grid ``2^k Z``, ``2^k <= min(Δ, σ) 2^-20 /
    sqrt(d)`` (d coordinates), and discrete Gaussian noise of parameter ``σ / 2^k`` in grid units is
    added, sampled exactly (Canonne, Kamath and Steinke, NeurIPS 2020, Algorithm 3); the exact
    noisy value is rounded once to a double (post-processing).

    **Privacy guarantee.** If ``value`` moves by at most ``sensitivity`` in L2 norm when one
    record is replaced, the release is ``Δ_u² / (2 (σ/2^k)²)``-zCDP with the integer grid
    sensitivity ``Δ_u = ceil(Δ/2^k) + ceil(sqrt(d))`` (CKS20 Theorem 4), which exceeds the
    continuous mechanism's ``Δ²/(2σ²)`` by a relative ``2^-18`` at most. The returned event is
    :meth:`~privlearn.accounting.PrivacyEvent.discrete_gaussian` with exactly these parameters
    (replace-one), and has no ``(epsilon, delta)`` of its own.

    Parameters
    ----------
    value : float or array_like
        Finite.
    sigma : float
        The noise standard deviation (of the continuous Gaussian the discrete one approximates);
        finite and > 0.
    sensitivity : float
        L2 sensitivity of ``value``; finite and > 0.
    rng : None, int or Generator, optional

    Returns
    -------
    noisy : float or numpy.ndarray
        With the shape of ``value``.
    event : PrivacyEvent
        The release's guarantee.

    Raises
    ------
    InvalidParameterError
        On a non-finite value, or ``sigma``/``sensitivity`` not finite and > 0, or a value too
        large for the grid (``|value| / 2^k >= 2^62``). Nothing is drawn.
    """
    _numbers(sigma=sigma, sensitivity=sensitivity)
    import numpy as np

    from ._validate import check_positive
    from .errors import InvalidParameterError

    s = check_positive(sigma, "sigma")
    delta_l2 = check_positive(sensitivity, "sensitivity")
    v = np.asarray(value, dtype=np.float64)
    if not np.all(np.isfinite(v)):
        raise InvalidParameterError("value: must be finite", "value")
    dim = max(1, int(v.size))
    step, units = _noise_grid(s, delta_l2, dim)
    scaled = v / step  # exact: a power-of-two step
    if v.size and float(np.max(np.abs(scaled))) >= 2.0**62:
        raise InvalidParameterError(
            "value: too large for the noise grid of this sigma and sensitivity", "value"
        )
    sigma_units = s / step
    ints = np.rint(scaled).astype(np.int64)
    noisy = (
        np.asarray(_core.discrete_gaussian(ints, sigma_units, _core_rng(rng)), dtype=np.float64)
        * step
    )
    event = gaussian_noise_event(s, delta_l2, dim)
    if v.ndim == 0:
        return float(noisy), event
    return noisy.reshape(v.shape), event


def discrete_laplace(
    value: "ArrayLike", scale: float, *, rng: "RngLike" = None
) -> Union[int, "np.ndarray"]:
    r"""Integer ``value`` plus exact discrete Laplace noise: ``P(Z = z) ∝ exp(-|z| / scale)``.

    Sampled exactly (Canonne, Kamath and Steinke, NeurIPS 2020, Algorithm 2) from random bits,
    with ``scale`` read exactly from its double. **Privacy guarantee:** for an integer-valued
    query of L1 sensitivity ``Δ`` (an integer), ``scale = Δ / epsilon`` gives ``epsilon``-DP
    (pure, replace-one) (Ghosh, Roughgarden and Sundararajan, STOC 2009: the geometric
    mechanism).

    Parameters
    ----------
    value : int or array_like of int
        Integers (int or bool dtype).
    scale : float
        In ``[2^-100, 2^100)``.
    rng : None, int or Generator, optional

    Returns
    -------
    int or numpy.ndarray of int64
    """
    _numbers(scale=scale)
    return _core.discrete_laplace(value, scale, _core_rng(rng))


def discrete_gaussian(
    value: "ArrayLike", sigma: float, *, rng: "RngLike" = None
) -> Union[int, "np.ndarray"]:
    r"""Integer ``value`` plus exact discrete Gaussian noise: ``P(Z = z) ∝ exp(-z² / (2σ²))``.

    Sampled exactly (Canonne, Kamath and Steinke, NeurIPS 2020, Algorithm 3). **Privacy
    guarantee:** for an integer-valued query of L2 sensitivity ``Δ``, the result is
    ``Δ²/(2σ²)``-zCDP (CKS20, Theorem 4), hence ``(ε, δ)``-DP by the usual conversions;
    :func:`gaussian` does this calibration for you.

    Parameters
    ----------
    value : int or array_like of int
    sigma : float
        Finite and > 0, with ``sigma**2`` a ratio of 127-bit integers (roughly ``[1e-3, 1e18]``).
    rng : None, int or Generator, optional

    Returns
    -------
    int or numpy.ndarray of int64
    """
    _numbers(sigma=sigma)
    return _core.discrete_gaussian(value, sigma, _core_rng(rng))


def randomized_response(
    bits: "ArrayLike",
    epsilon: float,
    *,
    rng: "RngLike" = None,
    accountant: "Optional[Accountant]" = None,
) -> Union[bool, "np.ndarray"]:
    r"""Binary randomized response: each bit kept with probability ``e^ε / (1 + e^ε)``.

    **Privacy guarantee:** each output bit is an ``epsilon``-DP release of its input bit (Warner
    1965; Dwork and Roth, Section 3.2), so a dataset whose records each contribute one bit is
    ``epsilon``-DP under replace-one. Sampled exactly: ``e^{-ε}`` is an exact Bernoulli draw and
    a rejection loop gives the flip probability ``1 / (1 + e^ε)`` exactly (``epsilon`` above
    ``2^40`` is treated as ``2^40``).

    Parameters
    ----------
    bits : bool or array_like of bool (or 0/1 integers)
    epsilon : float
        Finite and > 0.
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        If given, this release is charged to it (see :mod:`privlearn.accounting`) before anything
        is drawn: a spend that does not fit raises ``BudgetExceededError`` and draws nothing, and
        invalid input charges nothing.

    Returns
    -------
    bool or numpy.ndarray of bool
    """
    _numbers(epsilon=epsilon)
    return _charged(
        accountant,
        epsilon,
        0.0,
        "randomized response",
        lambda: _core.randomized_response(bits, epsilon, _core_rng(rng)),
        event=lambda: _event().randomized_response(epsilon, 2),
    )


def randomized_response_k(
    values: "ArrayLike",
    k: int,
    epsilon: float,
    *,
    rng: "RngLike" = None,
    accountant: "Optional[Accountant]" = None,
) -> Union[int, "np.ndarray"]:
    r"""k-ary randomized response: the true value with probability ``e^ε / (e^ε + k - 1)``, else
    one of the other ``k - 1`` values uniformly at random.

    **Privacy guarantee:** ``epsilon``-DP per value (Kairouz, Bonawitz and Ramage, ICML 2016:
    "k-RR"), sampled exactly as :func:`randomized_response`.

    Parameters
    ----------
    values : int or array_like of int
        Each in ``0..k-1``.
    k : int
        At least 2.
    epsilon : float
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        If given, this release is charged to it (see :mod:`privlearn.accounting`) before anything
        is drawn: a spend that does not fit raises ``BudgetExceededError`` and draws nothing, and
        invalid input charges nothing.

    Returns
    -------
    int or numpy.ndarray of int64
    """
    _numbers(epsilon=epsilon)
    k = check_integer(k, "k", 2)
    return _charged(
        accountant,
        epsilon,
        0.0,
        "k-ary randomized response",
        lambda: _core.randomized_response_k(values, k, epsilon, _core_rng(rng)),
        event=lambda: _event().randomized_response(epsilon, k),
    )


def l2_laplace_noise(
    dim: int, scale: float, *, size: Optional[int] = None, rng: "RngLike" = None
) -> "np.ndarray":
    r"""Vector noise with density proportional to ``exp(-||k||_2 / scale)`` in ``R^dim``.

    The radius is Gamma(shape ``dim``, scale ``scale``) and the direction uniform on the sphere.
    Output perturbation (seed paper 001, Wu et al., Algorithms 1 and 2; Chaudhuri, Monteleoni and
    Sarwate, JMLR 2011) adds it with ``scale = Δ₂/ε`` for an ``ε``-DP release of a vector of L2
    sensitivity ``Δ₂`` (the density ratio at any output is at most ``exp(Δ₂/scale)``; see
    :mod:`privlearn.learners.output_perturbation`). Sampled in floating point (continuous vector noise; not
    floating-point safe): the Gamma radius and the Gaussian direction come from the Rust
    ``rand_distr`` crate (``Gamma``, ``StandardNormal``), chosen for speed and as a reviewed
    implementation. Parallel over blocks of vectors, reproducible for a seed.

    Parameters
    ----------
    dim : int
        At least 1.
    scale : float
        Finite and > 0.
    size : int, optional
        Number of vectors; ``None`` returns one vector of shape ``(dim,)``, an integer an array
        of shape ``(size, dim)``.
    rng : None, int or Generator, optional

    Returns
    -------
    numpy.ndarray
    """
    _numbers(scale=scale)
    dim = check_integer(dim, "dim", 1)
    count = None if size is None else check_integer(size, "size", 0)
    return _core.l2_laplace_noise(dim, scale, count, _core_rng(rng))


def report_noisy_max(
    scores: "ArrayLike",
    epsilon: float,
    sensitivity: float = 1.0,
    *,
    noise: str = "gumbel",
    rng: "RngLike" = None,
    accountant: "Optional[Accountant]" = None,
) -> int:
    r"""Report-noisy-max: the index of the largest score after adding noise of scale
    ``2 sensitivity / epsilon``.

    **Privacy guarantee:** ``epsilon``-DP (pure, replace-one) for scores of sensitivity
    ``sensitivity`` with each noise law; they differ beyond pure DP:

    * ``"gumbel"`` (default): identical in law to the exponential mechanism
      (:func:`exponential`), sampled exactly by it; ``epsilon``-bounded-range, hence
      ``epsilon²/8``-zCDP (Cesar and Rogers, ALT 2021).
    * ``"exponential"``: identical in law to permute-and-flip (Ding, Kifer, Steinke et al. 2021),
      sampled exactly by :func:`permute_and_flip`; its zCDP is ``epsilon²/2``, **not**
      ``epsilon²/8``: it is not bounded-range (OpenDP issue #2911 mis-stated this).
    * ``"laplace"``: Laplace noise (Dwork and Roth, Claim 3.9, with the factor 2 needed for
      scores that are not monotone), sampled in floating point: not floating-point safe.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Finite, or ``-inf`` for excluded candidates.
    epsilon : float
    sensitivity : float, default 1.0
    noise : {"gumbel", "exponential", "laplace"}
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        If given, this release is charged to it (see :mod:`privlearn.accounting`) before anything
        is drawn: a spend that does not fit raises ``BudgetExceededError`` and draws nothing, and
        invalid input charges nothing.

    Returns
    -------
    int
    """
    _numbers(epsilon=epsilon, sensitivity=sensitivity)
    return _charged(
        accountant,
        epsilon,
        0.0,
        "report-noisy-max",
        lambda: _core.report_noisy_max(scores, epsilon, sensitivity, noise, _core_rng(rng)),
        # Gumbel noise is the exponential mechanism in law (bounded range); the other noises
        # are only known to be pure epsilon-DP.
        event=lambda: (
            _event().bounded_range(epsilon) if noise == "gumbel" else _event().pure(epsilon)
        ),
    )


def permute_and_flip(
    scores: "ArrayLike",
    epsilon: float,
    sensitivity: float = 1.0,
    *,
    rng: "RngLike" = None,
    accountant: "Optional[Accountant]" = None,
) -> int:
    r"""Permute-and-flip (McKenna and Sheldon, NeurIPS 2020): visit the candidates in a random
    order and stop at the first accepted, candidate ``i`` being accepted with probability
    ``exp(epsilon (s_i - max s) / (2 sensitivity))``.

    **Privacy guarantee:** ``epsilon``-DP (pure, replace-one); never less accurate in expectation
    than the exponential mechanism, and sometimes twice as accurate. Equal in law to
    report-noisy-max with exponential noise; its zCDP is ``epsilon²/2`` (not the exponential
    mechanism's ``epsilon²/8``). Sampled exactly: scores go through the same grid and rate
    rounding as :func:`exponential` and each acceptance is an exact Bernoulli draw.

    Parameters
    ----------
    scores : array_like, shape (n,)
    epsilon : float
    sensitivity : float, default 1.0
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        If given, this release is charged to it (see :mod:`privlearn.accounting`) before anything
        is drawn: a spend that does not fit raises ``BudgetExceededError`` and draws nothing, and
        invalid input charges nothing.

    Returns
    -------
    int
    """
    _numbers(epsilon=epsilon, sensitivity=sensitivity)
    return _charged(
        accountant,
        epsilon,
        0.0,
        "permute-and-flip",
        lambda: _core.permute_and_flip(scores, epsilon, sensitivity, _core_rng(rng)),
        event=lambda: _event().pure(epsilon),  # not known to be bounded-range
    )


def stable_argmax(
    scores: "ArrayLike",
    epsilon: float,
    delta: float,
    *,
    sensitivity: float = 1.0,
    rng: "RngLike" = None,
    accountant: "Optional[Accountant]" = None,
) -> Optional[int]:
    r"""Distance-based stable selection (Smith and Thakurta, COLT 2013; seed paper 002's
    ``A_dist``): the index of the best score if its noisy gap to the runner-up clears a
    threshold, else ``None``.

    **Privacy guarantee:** ``(epsilon, delta)``-DP (replace-one) for scores of sensitivity
    ``sensitivity``, for every ``epsilon``. The gap between the two best scores has sensitivity
    ``2 sensitivity`` (the best can drop while the runner-up rises), so the noise is discrete
    Laplace of scale ``2Δ/ε`` (in grid units; integer scores are used as they are) and the
    threshold is ``2Δ + t`` with ``t`` the smallest integer whose discrete Laplace tail is at most
    ``δ/2`` (the project's errata 002-1 and 002-2: the paper's ``1/ε`` parametrisation is not
    private). If the best index differs between neighbours both gaps are at most ``2Δ`` and
    either side releases with probability at most ``δ/2``; otherwise the decision is an
    ``ε``-DP test.

    **Utility:** returns the best index with probability at least ``1 - β`` when the gap is at
    least ``2Δ + (2Δ/ε) ln(1/(2βδ))`` (plus a grid step or two).

    Parameters
    ----------
    scores : array_like, shape (n,), n >= 2
        Finite scores (ties: the first best index).
    epsilon : float
    delta : float
        In ``(0, 1)``.
    sensitivity : float, default 1.0
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        If given, this release is charged to it (see :mod:`privlearn.accounting`) before anything
        is drawn: a spend that does not fit raises ``BudgetExceededError`` and draws nothing, and
        invalid input charges nothing.

    Returns
    -------
    int or None
    """
    _numbers(epsilon=epsilon, delta=delta, sensitivity=sensitivity)
    return _charged(
        accountant,
        epsilon,
        delta,
        "stable argmax",
        lambda: _core.stable_argmax(scores, epsilon, delta, sensitivity, _core_rng(rng)),
    )


class SparseVector:
    r"""The sparse vector technique: answers a stream of (adaptively chosen) queries with "above"
    or "below" a threshold, stopping after ``max_positives`` "above" answers.

    It runs AboveThreshold ``c = max_positives`` times, each with budget ``epsilon / c`` and fresh
    threshold noise ``Lap(2Δc/ε)`` (redrawn after every positive answer), adding ``Lap(4Δc/ε)``
    to each query and answering "above" iff ``q + ν >= T + ρ`` (Dwork and Roth, Algorithms 1 and
    2, Theorems 3.23 and 3.25).

    **Privacy guarantee:** the whole interaction is ``epsilon``-DP (pure, replace-one) for
    queries of sensitivity ``sensitivity``, however many "below" answers it gives. Lyu, Su and Li
    (VLDB 2017) show that several published variants are not private; this is the analysed one.
    The noise is exact discrete Laplace on a grid ``2^k Z`` (``2^k ≈ Δ 2^-20``) with the
    sensitivity widened by one grid step, and the comparison is exact.

    Parameters
    ----------
    threshold : float
        The public threshold ``T``.
    epsilon : float
        Budget of the whole interaction.
    sensitivity : float, default 1.0
    max_positives : int, default 1
        Number of "above" answers before it halts.
    rng : None, int or Generator, optional
    accountant : Accountant, optional
        If given, the whole interaction's ``epsilon`` is charged to it when the instance is
        created (before anything is drawn).

    Raises
    ------
    HaltedError
        On a query after ``max_positives`` positive answers.
    """

    __slots__ = ("_inner",)

    def __init__(
        self,
        threshold: float,
        epsilon: float,
        sensitivity: float = 1.0,
        *,
        max_positives: int = 1,
        rng: "RngLike" = None,
        accountant: "Optional[Accountant]" = None,
    ) -> None:
        _numbers(threshold=threshold, epsilon=epsilon, sensitivity=sensitivity)
        c = check_integer(max_positives, "max_positives", 1)
        self._inner = _charged(
            accountant,
            epsilon,
            0.0,
            "sparse vector",
            lambda: _core.SparseVector(threshold, epsilon, sensitivity, c, _core_rng(rng)),
        )

    def query(self, value: float) -> bool:
        """Answers one query: ``True`` if its noisy value is above the noisy threshold."""
        return self._inner.query(value)

    def query_many(self, values: "ArrayLike") -> "np.ndarray":
        """Answers queries in order until the instance halts; returns the answers given (shorter
        than ``values`` if it halted)."""
        return self._inner.query_many(values)

    @property
    def halted(self) -> bool:
        """Whether ``max_positives`` positive answers were given (no more queries)."""
        return bool(self._inner.halted)

    @property
    def positives(self) -> int:
        """Number of positive answers so far."""
        return int(self._inner.positives)

    @property
    def answered(self) -> int:
        """Number of queries answered so far."""
        return int(self._inner.answered)

    @property
    def max_positives(self) -> int:
        """Positive answers after which the instance halts."""
        return int(self._inner.max_positives)

    def __repr__(self) -> str:
        return (
            f"SparseVector(answered={self.answered}, positives={self.positives}, "
            f"max_positives={self.max_positives}, halted={self.halted})"
        )

r"""A differentially private ``StandardScaler``: per-feature mean and standard deviation from
noisy sums of the data clipped to declared or privately released bounds.

The release
-----------
Every feature ``j`` has bounds ``l_j < u_j``: declared (parameters, never statistics of the
data), or released privately first (section "Private bounds" below; the released numbers are
then used exactly as declared ones, so everything in this section and the next holds for them,
conditionally on their release). Let ``m_j = l_j/2 + u_j/2`` be the midpoint and ``r_j`` the half-range (computed as
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

Private bounds
--------------
``bounds="private"``, or ``"private"`` for some sides: ``bounds=(0.0, "private")`` declares
every lower side and releases every upper side, and per-feature sequences mix numbers and
``"private"`` (``(["private", 0.0], ["private", 1.0])``). Let ``k`` be the number of features
with at least one private side. Each of them gets **one** private quantile, at level ``q =
bounds_quantile`` (default :data:`BOUNDS_QUANTILE` = 0.98), of a per-record value:

* both sides private: ``v_ij = |x_ij|``; released ``G_j``, the bounds are ``[-G_j, G_j]``
  (symmetric about 0);
* lower ``l_j`` declared, upper private: ``v_ij = max(x_ij - l_j, 0)``, ``u_j = l_j + G_j``;
* upper ``u_j`` declared, lower private: ``v_ij = max(u_j - x_ij, 0)``, ``l_j = u_j - G_j``.

``G_j`` is :func:`privlearn._private_quantile.private_quantile_bound` ``(v_j, quantile=q,
epsilon=epsilon_b)``: the exponential mechanism (McSherry and Talwar, "Mechanism design via
differential privacy", FOCS 2007, Theorem 6) with the guarded quantile utility of that module,
whose candidates are the public grid ``2^(k/8)`` in ``[1e-4, 1e8]``. ``v_ij`` is a fixed
function of row ``i`` alone (``l_j``, ``u_j`` are parameters), so replacing one row replaces
one value and the utility's replace-one sensitivity stays 1 (that module's proof): each
release is ``epsilon_b``-DP, more precisely ``epsilon_b``-bounded-range (Durfee and Rogers,
NeurIPS 2019). Values beyond ``1e8`` from the reference point all count alike (an overflow of
``x - l_j`` is clamped to the largest float, which changes no count).

*Always a positive range.* ``G_j >= 1e-4 > 0``, so ``[-G_j, G_j]`` has width ``>= 2e-4``; a
one-sided release is ``max(fl(l_j + G_j), nextafter(l_j, +inf))`` (``min(fl(u_j - G_j),
nextafter(u_j, -inf))``), strictly beyond the declared side even when ``G_j`` is below its
ulp. A declared side next to a private one must be at most :data:`DECLARED_MAX` = ``1e100`` in
magnitude, so that the range and its square stay finite and within the samplers' limits.
Whether the release is defined and what it charges never depends on the data.

*Budget.* A public fraction ``f`` of ``epsilon`` goes to the ``k`` quantiles together:
``bounds_fraction`` if given, else the plan ``f = min(0.5, max(0.1, 32 k / (n epsilon)))``
(:func:`bounds_share_plan`; ``n epsilon_b`` about 32 when the fraction allows). The shares
are :func:`privlearn._private_quantile.split_epsilon`'s: ``epsilon_b`` is the largest float
at most ``f epsilon / k`` and ``rest`` the largest float at most ``epsilon - k epsilon_b``
(exact rationals, so ``k epsilon_b + rest <= epsilon`` exactly). The sums are then released as
in "Calibration and guarantee" with ``rest`` in place of ``epsilon`` (``rest / 2`` each, and
``delta / 2`` each with Gaussian noise), their sensitivities computed from the released
bounds. Clipping to a released value is post-processing of it.

*Guarantee.* The ``k`` quantile releases and then the sums (chosen adaptively: their clipping
and noise depend on the released bounds) compose by adaptive basic composition (Dwork and
Roth, Theorem 3.16; each later mechanism is ``(epsilon_i, delta_i)``-DP for every value of the
earlier outputs): the fit is ``(k epsilon_b + rest, delta) <= (epsilon, delta)``-DP,
replace-one, ``n`` public. It is charged once, label ``"StandardScaler"``, as one composed
event: ``k`` ``bounded_range(epsilon_b)`` events, then the sums' events, with budget
``(epsilon, delta)``.

*Gaussian noise with private bounds.* The native event of the exact Gaussian sampler depends
on the sensitivity it is given (its grid), and the sensitivity now depends on the released
bounds, but the charge must be fixed before anything is drawn. So each sum vector ``S`` is
released normalised: ``gaussian(S / s, 1, rest / 2, delta / 2)`` times ``s``, ``s`` its L2
sensitivity from the released bounds, whose event is that of sensitivity 1 whatever ``s``.
The division adds a rounding of at most ``2^-53`` relative per coordinate (at most ``2^-53 n
r_j (1 + 2^-53) / s`` on each side), so the per-feature sensitivities are taken with four times
the sums' slack, ``r_j (2 + 2^-50 n)`` and ``q_j (1 + 2^-50 n)`` (the rounding of both sums and
both divisions is at most ``2^-51 n`` times the per-term bound, with room to spare), and the L2
total times ``1 + 2^-30``: the normalised vector moves by at most 1 in L2. The noise law is that of the declared-bounds release, ``s`` times the noise of
sensitivity 1 (up to the sampler's grid). Laplace noise needs nothing of this (its event,
``pure(rest / 2)``, does not depend on the sensitivity).

*Why symmetric bounds for a feature with both sides private.* The two-sided alternative, ``u_j``
the quantile of ``max(x, 0)`` and ``l_j`` of ``max(-x, 0)`` (two releases per feature), fails
whenever one side holds few values: a feature that is mostly positive leaves the lower side's
values almost all at 0, below the grid, where the utility is flat, and the released bound is
then nearly uniform over the grid (up to ``1e8``). Measured with a prototype of both designs
on the synthetic data of ``benches/scaler_private_bounds.py`` (30 fits per setting, quantile
0.9 to 0.99, fraction 0.2 or 0.5): median error of ``mean_`` 0.4 to 1.6 standard deviations
for the two-sided design (9 to 440 at ``epsilon = 0.5`` with the fraction 0.2), against 0.03 to
0.15 for the symmetric one, at ``epsilon``
0.5 to 2. The symmetric bound costs at most a factor 2 in range on a one-signed feature;
declaring its known side removes that cost.

*When private bounds are refused.* ``fit`` raises :class:`~privlearn.errors.InvalidParameterError`
(``bounds``) before anything is drawn when ``n epsilon_b <`` :data:`BOUNDS_MIN` ``= 16``: a
grid point far from the data then has a probability within ``e^-8`` of the quantile's, and
with 319 grid points a bound far off becomes likely (the far-tail bound of
:mod:`privlearn._private_quantile` is ``K e^(-epsilon_b (n - r) / 2)``). ``n``, ``epsilon``,
the fraction and ``k`` (a function of ``bounds`` and ``d``) are public, so the refusal reveals
nothing.

*Known weaknesses.* (1) **Features with a point mass** (0/1 indicators, one-hot columns,
counts, a side with few values): their quantile is ill-posed (a rare indicator's ``|x|`` is 0
for most rows, its quantile below the grid, and the bound lands anywhere on the grid), and a
large range of one feature raises every feature's noise (the L1 / L2 sensitivities sum over
features). Declare their bounds (``(0, 1)``). On warfarin with every side private the
median error of ``mean_`` is 11 to 150 standard deviations; with the indicators declared it is
at or below that of declared bounds (table below). (2) The bounds are symmetric about 0 (or
measured from the declared side): a feature far from 0 compared with its spread (a location of
1000, a spread of 10) gets a range of about twice its location; shift it by a declared offset
first (a ``FunctionTransformer(lambda X: X - offset)`` step, stateless, allowed in
:func:`privlearn.pipeline.make_private_pipeline`). (3) The grid spans ``1e-4`` to ``1e8``:
rescale features outside that range. (4) The guard of the quantile mechanism moves extreme
quantiles towards the bulk of the data (a 0.98 quantile may come out lower): more clipping,
not a privacy issue. (5) With ``d`` large and ``n`` small (scikit-learn's breast cancer data,
``d = 30``, ``n = 569``) every private scaler is poor at ``epsilon <= 2``; private bounds are
refused there below ``epsilon = 2`` by the rule above.

*Measured defaults.* ``benches/scaler_private_bounds.py --grid`` (30 seeded fits per
setting; data described in that script): the quantile in ``{0.9, 0.95, 0.98, 0.99}`` and the
fraction in ``{plan, 0.1, 0.2, 0.3, 0.5}``. On warfarin with the indicators declared (three
private features) and on the synthetic continuous features (all private), the plan was the
best or within noise of the best fraction at every ``epsilon`` in ``{0.5, 1, 2}`` (a fixed 0.1
is refused on the synthetic data at ``epsilon = 0.5``, a fixed 0.5 is worse by 15% to a factor
2); the quantiles differed by about the run-to-run noise, 0.98 being the best or second best in
9 of the 12 (setting, statistic) pairs. Median relative errors (``|mean_ - mean| / sd`` and ``|scale_ - sd| / sd``,
scikit-learn's ``mean``, ``sd``) with the defaults:

=================================  ==============  ==============  ==============
median error (mean_ / scale_)      epsilon = 0.5   epsilon = 1     epsilon = 2
=================================  ==============  ==============  ==============
warfarin, declared                 0.069 / 0.21    0.038 / 0.11    0.019 / 0.055
warfarin, indicators declared      0.058 / 0.16    0.031 / 0.081   0.018 / 0.055
warfarin, all private              148 / 3.8       11 / 3.4        14 / 3.8
cancer, declared                   5.0 / 7.9       4.4 / 7.8       3.8 / 7.7
cancer, lower side 0 declared      refused         refused         2.2 / 4.1
cancer, all private                refused         refused         5.4 / 7.8
synthetic, declared                0.13 / 0.21     0.066 / 0.12    0.033 / 0.063
synthetic, all private             0.11 / 0.18     0.061 / 0.17    0.038 / 0.14
=================================  ==============  ==============  ==============

("declared" bounds are taken around the data, so optimistic: see the script.) On the
continuous features private bounds match declared ones for the mean and are 1.5 to 2 times
worse for the scale at ``epsilon >= 1`` (a symmetric range about 0 is up to twice the data's);
with warfarin's indicators declared they match or beat the declared integer box.

*Not tight.* Because ``S2`` is centred at the midpoint, no single neighbouring pair moves both
sums by their full sensitivities (the pair ``l_j`` / ``u_j`` leaves ``S2_j`` unchanged): with
the equal split the largest privacy loss of one feature is about ``0.78 epsilon`` (a row at
``u_j`` against one at ``m_j - r_j / 4``). The claim is the composition bound, which is valid.

Comparison: diffprivlib's ``StandardScaler`` releases each feature's mean and variance with its
own mechanisms from declared bounds (it warns and reads the range from the data when the bounds
are missing); this one releases two sums with privlearn's exact samplers, refuses missing
bounds, offers private bounds paid from the same budget, and charges a ledger shared by
scikit-learn clones.

Which library does what: the sums are Python's ``math.fsum`` (exactly rounded); the noise is
privlearn's exact samplers (Rust core, through :mod:`privlearn.mechanisms`); the private bounds
and the epsilon split are :mod:`privlearn._private_quantile`'s (exponential mechanism on the
Rust core; exact rationals); the input checks, ``feature_names_in_`` and the transformer
plumbing are scikit-learn's.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin

from .._certified import SharedCloneMixin, validate_X
from .._validate import check_boolean, check_delta, check_epsilon, check_integer, check_real
from ..accounting._accountant import check_accountant
from ..errors import InvalidParameterError

__all__ = ["StandardScaler"]

LABEL = "StandardScaler"
#: Relative margin on the L1 / L2 totals of the per-feature sensitivities (module docstring).
SUM_MARGIN = 2.0**-30
#: Rounding slack of one exactly-rounded sum of ``n`` terms, relative to its per-term bound.
FSUM_SLACK = 2.0**-52

#: The string that asks for a privately chosen bound.
PRIVATE = "private"
#: Default quantile of the private bounds (measured; module docstring, "Private bounds").
BOUNDS_QUANTILE = 0.98
#: The plan of the share of ``epsilon`` spent on the private bounds when ``bounds_fraction`` is
#: ``None``: the fraction ``k BOUNDS_TARGET / (n epsilon)`` for ``k`` private quantiles, kept
#: within ``[BOUNDS_FRACTION_MIN, BOUNDS_FRACTION_MAX]`` (measured; module docstring).
BOUNDS_FRACTION_MIN = 0.1
BOUNDS_FRACTION_MAX = 0.5
BOUNDS_TARGET = 32.0
#: A fit with private bounds is refused when ``n`` times one quantile's share of ``epsilon`` is
#: below this (module docstring, "When private bounds are refused").
BOUNDS_MIN = 16.0
#: A declared side next to a private one must be at most this in magnitude, so that the released
#: side (at most ``1e8`` away) and its range stay finite.
DECLARED_MAX = 1e100


def _side_arg(value: object, side: str) -> Tuple[np.ndarray, np.ndarray]:
    """One side of ``bounds`` as ``(values, private)``: float values (NaN where private) and a
    boolean mask of the same shape (0-d for one entry for every feature, 1-d per feature).
    Accepts a number, ``"private"``, or a 1-d sequence of numbers and ``"private"``."""
    if isinstance(value, str):
        if value != PRIVATE:
            raise InvalidParameterError(
                f"bounds: {side} must be a number, 'private' or a 1-d sequence of them; got "
                f"{value!r}",
                "bounds",
            )
        return np.array(np.nan), np.array(True)
    try:
        out = np.asarray(value, dtype=np.float64)
        return out, np.zeros(out.shape, dtype=bool)
    except (TypeError, ValueError):
        pass
    try:
        items = list(value)  # type: ignore[call-overload]
    except TypeError:
        items = None
    if items is None or not items or not all(isinstance(v, str) or np.ndim(v) == 0 for v in items):
        raise InvalidParameterError(
            f"bounds: lower and upper must be numbers, 'private' or 1-d sequences of them; got "
            f"{value!r}",
            "bounds",
        )
    vals = np.empty(len(items))
    mask = np.zeros(len(items), dtype=bool)
    for j, v in enumerate(items):
        if isinstance(v, str):
            if v != PRIVATE:
                raise InvalidParameterError(
                    f"bounds: a per-feature {side} entry must be a number or 'private'; got {v!r}",
                    "bounds",
                )
            vals[j], mask[j] = np.nan, True
        else:
            try:
                vals[j] = float(v)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise InvalidParameterError(
                    f"bounds: a per-feature {side} entry must be a number or 'private'; got {v!r}",
                    "bounds",
                ) from None
    return vals, mask


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


def _mentions_private(side: object) -> bool:
    """Whether one side of ``bounds`` is a string or a sequence holding one."""
    if isinstance(side, str):
        return True
    if isinstance(side, np.ndarray) and side.dtype.kind in "biuf":
        return False
    try:
        return any(isinstance(v, str) for v in side)  # type: ignore[attr-defined]
    except TypeError:
        return False


def _bounds_spec(value: object) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(lower, upper, lower private, upper private)`` (0-d for scalars, 1-d per feature), checked
    before any data are read: required; every declared value finite; where a feature has both
    sides declared, ``upper - lower`` finite and > 0; a declared side next to a private one at
    most :data:`DECLARED_MAX` in magnitude. Without any ``"private"`` this is
    :func:`_bounds_arg` (the declared bounds of every private transformer) with no private side."""
    if value is None:
        raise InvalidParameterError(
            "bounds: a declared (lower, upper) or 'private' is required and has no default: "
            "every value is clipped to the bounds, so they change the result, and they must not "
            "be read from the data. Choose them from domain knowledge (the range the feature "
            "can take, not the range observed), or pass 'private' to release them privately "
            "with part of the budget; got None",
            "bounds",
        )
    lo_hi: Tuple[Any, ...]
    if isinstance(value, str):
        lo_hi = (value, value) if value == PRIVATE else ()
    else:
        try:
            lo_hi = tuple(value)  # type: ignore[arg-type]
        except TypeError:
            lo_hi = ()
    if len(lo_hi) != 2:
        raise InvalidParameterError(
            f"bounds: must be 'private' or a pair (lower, upper) of numbers, 'private' or "
            f"per-feature arrays; got {value!r}",
            "bounds",
        )
    if not (_mentions_private(lo_hi[0]) or _mentions_private(lo_hi[1])):
        lo, hi = _bounds_arg(value)
        return lo, hi, np.zeros(lo.shape, dtype=bool), np.zeros(hi.shape, dtype=bool)
    lo, plo = _side_arg(lo_hi[0], "lower")
    hi, phi = _side_arg(lo_hi[1], "upper")
    if lo.ndim > 1 or hi.ndim > 1 or (lo.ndim == hi.ndim == 1 and lo.shape != hi.shape):
        raise InvalidParameterError(
            "bounds: lower and upper must be scalars or 1-d arrays of the same length; got "
            f"shapes {lo.shape} and {hi.shape}",
            "bounds",
        )
    if lo.size == 0 or hi.size == 0:
        raise InvalidParameterError("bounds: lower and upper must not be empty", "bounds")
    if not (np.all(np.isfinite(lo[~plo])) and np.all(np.isfinite(hi[~phi]))):
        raise InvalidParameterError("bounds: lower and upper must be finite", "bounds")
    lo_b, hi_b, plo_b, phi_b = np.broadcast_arrays(lo, hi, plo, phi)
    both = ~plo_b & ~phi_b
    with np.errstate(over="ignore", invalid="ignore"):
        width = hi_b[both] - lo_b[both]
    if not np.all(width > 0):
        raise InvalidParameterError(
            "bounds: every feature needs upper > lower (a zero or negative range leaves "
            "nothing to scale); got a range <= 0",
            "bounds",
        )
    if not np.all(np.isfinite(width)):
        raise InvalidParameterError("bounds: every range upper - lower must be finite", "bounds")
    one = plo_b ^ phi_b
    anchor = np.where(plo_b, hi_b, lo_b)[one]
    if np.any(np.abs(anchor) > DECLARED_MAX):
        raise InvalidParameterError(
            f"bounds: a declared side next to a private one must be at most {DECLARED_MAX:g} in "
            "magnitude (the private side is released at most 1e8 away from it)",
            "bounds",
        )
    return lo, hi, plo, phi


def bounds_share_plan(epsilon: float, n: int, k: int, fraction: Optional[float]) -> float:
    """The fraction of ``epsilon`` spent on ``k >= 1`` private quantiles: ``fraction`` when
    declared, else ``k BOUNDS_TARGET / (n epsilon)`` kept within ``[BOUNDS_FRACTION_MIN,
    BOUNDS_FRACTION_MAX]``. Public values only."""
    if fraction is not None:
        return fraction
    want = k * BOUNDS_TARGET / (n * epsilon)
    return min(BOUNDS_FRACTION_MAX, max(BOUNDS_FRACTION_MIN, want))


def _sensitivities(
    lo: np.ndarray, hi: np.ndarray, n: int, gaussian_noise: bool, slack: float
) -> Tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """``(mid, r, q, s1, s2)``: the midpoints, half-ranges, their squares and the L1 (Laplace) /
    L2 (Gaussian) sensitivities of the two sum vectors with the rounding slack ``slack`` per
    rounding of a sum (module docstring). A function of the bounds and ``n`` only."""
    mid = lo / 2.0 + hi / 2.0
    r = np.maximum(hi - mid, mid - lo)
    q = r * r
    sens1_j = r * (2.0 + slack * n)
    sens2_j = q * (1.0 + slack * n)
    if gaussian_noise:
        s1 = float(np.sqrt(np.sum(sens1_j * sens1_j))) * (1.0 + SUM_MARGIN)
        s2 = float(np.sqrt(np.sum(sens2_j * sens2_j))) * (1.0 + SUM_MARGIN)
    else:
        s1 = float(np.sum(sens1_j)) * (1.0 + SUM_MARGIN)
        s2 = float(np.sum(sens2_j)) * (1.0 + SUM_MARGIN)
    return mid, r, q, s1, s2


def _release_bounds(
    X: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    plo: np.ndarray,
    phi: np.ndarray,
    quantile: float,
    share: float,
    gen: Any,
) -> Tuple[np.ndarray, np.ndarray]:
    """The bounds with every private side released (module docstring, "Private bounds"): one
    private quantile per feature with a private side, in feature order."""
    from .._private_quantile import private_quantile_bound

    big = np.finfo(np.float64).max
    lo, hi = lo.copy(), hi.copy()
    for j in range(X.shape[1]):
        if not (plo[j] or phi[j]):
            continue
        x = X[:, j]
        with np.errstate(over="ignore"):
            if plo[j] and phi[j]:
                v = np.abs(x)
            elif phi[j]:
                v = np.minimum(np.maximum(x - lo[j], 0.0), big)  # x - l may overflow to inf
            else:
                v = np.minimum(np.maximum(hi[j] - x, 0.0), big)
        g, _event = private_quantile_bound(v, quantile=quantile, epsilon=share, rng=gen)
        if plo[j] and phi[j]:
            lo[j], hi[j] = -g, g
        elif phi[j]:
            hi[j] = max(lo[j] + g, math.nextafter(lo[j], math.inf))
        else:
            lo[j] = min(hi[j] - g, math.nextafter(hi[j], -math.inf))
    return lo, hi


class StandardScaler(  # type: ignore[misc]
    SharedCloneMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    r"""Standardise features by a private mean and a private standard deviation.

    A drop-in for :class:`sklearn.preprocessing.StandardScaler` whose fitted ``mean_``,
    ``var_`` and ``scale_`` are differentially private: they are post-processing of noisy sums
    of the data clipped to per-feature ``bounds``, each side declared or released privately
    (details, replace-one sensitivities and floating-point treatment in the source module
    ``privlearn.preprocessing._scaler``, and on the guarantees page).

    **Guarantee.** ``delta = 0``: ``fit`` is ``epsilon``-differentially private (pure; Laplace
    mechanism, Dwork and Roth, Theorem 3.6, and basic composition, Dwork and Roth, Theorem 3.14,
    of the two sums at ``epsilon / 2`` each). ``delta > 0``: ``(epsilon, delta)``-differentially
    private (the Gaussian mechanism of :func:`privlearn.mechanisms.gaussian` on each sum at
    ``(epsilon / 2, delta / 2)``, basic composition). ``with_std=False`` releases only the
    first sum, at the whole budget. **Private bounds**: with ``k`` features having a
    ``"private"`` side, each such feature's bound is first released by the exponential
    mechanism over a public grid (:mod:`privlearn._private_quantile`; McSherry and Talwar,
    Theorem 6) at ``epsilon_b``, the largest float at most ``bounds_fraction * epsilon / k``,
    and the sums above are released from the clipped data with the rest
    ``epsilon - k epsilon_b`` in place of ``epsilon``; adaptive basic composition (Dwork and
    Roth, Theorem 3.16) gives ``epsilon`` (and ``delta``) in total. Neighbours replace one row,
    ``n`` public; the guarantee holds with ``rng=None`` or an unseeded generator.
    ``transform`` reads only its own input and the released statistics.

    **Private bounds** (``bounds="private"``, or ``"private"`` for some sides): a feature with
    both sides private is clipped to ``[-B_j, B_j]``, ``B_j`` a private ``bounds_quantile`` of
    ``|x_ij|`` rounded to a grid point (ratio ``2^(1/8)``) in ``[1e-4, 1e8]``: **the bounds are
    symmetric about 0**, so a feature far from 0 compared with its spread should be shifted
    first by a declared offset (a ``FunctionTransformer`` step; see the Examples). A feature
    with one side declared, say ``lower = l``, gets ``upper = l + G_j``, ``G_j`` the private
    quantile of ``max(x_ij - l, 0)`` (symmetrically for a declared upper side). **Declare the
    bounds of binary, one-hot, count and other features with many values at one point**
    (``(0, 1)`` for a 0/1 feature): a quantile of such a feature is ill-posed (a bound
    anywhere on the grid is nearly as likely), and one feature's large range raises the noise
    of every feature. A fit with private bounds is refused before anything is drawn when ``n
    epsilon_b < 16``.

    Parameters
    ----------
    epsilon : float
        Privacy parameter of one fit, finite and > 0. Required.
    bounds : "private" or (lower, upper)
        Range of every feature: ``"private"`` (every side released privately), or a pair whose
        entries are each a number (the same for all features), ``"private"``, or a sequence
        of length ``n_features`` of numbers and ``"private"``. Where both sides of a feature
        are declared, ``upper > lower``. Values are clipped to the bounds before the sums.
        Required, no default.
    delta : float, default 0.0
        ``0``: Laplace noise, pure DP. In ``(0, 1)``: Gaussian noise, ``(epsilon, delta)``-DP.
    with_mean : bool, default True
        Subtract ``mean_`` in ``transform`` (the mean is released either way).
    with_std : bool, default True
        Release the second moment and divide by ``scale_`` in ``transform``; ``False`` spends the
        whole budget on the mean and leaves ``var_`` and ``scale_`` as ``None``.
    bounds_quantile : float, default 0.98
        Quantile of the private bounds, in (0, 1) (used only with a private side).
    bounds_fraction : float or None, default None
        Share of ``epsilon`` spent on the private bounds together, in (0, 1); ``None``: the
        public plan ``32 k / (n epsilon)`` kept within ``[0.1, 0.5]`` (measured, see the
        module). Used only with a private side.
    accountant : Accountant, optional
        Charged once per fit (label ``"StandardScaler"``, one composed event: the bounds'
        bounded-range events and the sums' events) only if the fit succeeds; a spend that
        does not fit raises ``BudgetExceededError`` before the data are read. Clones share it.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`); an integer seed is reproducible, not private.

    Attributes
    ----------
    mean_ : ndarray of shape (n_features,)
        Private mean, in ``[lower, upper]`` of ``bounds_``.
    var_ : ndarray of shape (n_features,) or None
        Private variance, in ``[0, ((upper - lower) / 2)^2]`` (``None`` with ``with_std=False``).
    scale_ : ndarray of shape (n_features,) or None
        ``sqrt(var_)``, 1 where ``var_`` is 0 (``None`` with ``with_std=False``).
    bounds_ : tuple of two ndarrays of shape (n_features,)
        The ``(lower, upper)`` bounds the data were clipped to: the declared values and the
        released private ones (public: part of the release).
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

    Private bounds. These features are non-negative (known without looking at the data), so
    the lower side is declared and only the upper one is released:

    >>> sc = StandardScaler(1.0, bounds=(0.0, "private"), rng=3).fit(X)
    >>> lower, upper = sc.bounds_
    >>> bool(np.all(lower == 0.0) and np.all((upper > 8.0) & (upper < 11.0)))
    True

    A feature far from 0 (here around 1000, spread 10) is shifted by a declared offset before
    a scaler with both sides private:

    >>> from sklearn.preprocessing import FunctionTransformer
    >>> from privlearn.pipeline import make_private_pipeline
    >>> Z = np.random.default_rng(1).normal(1000.0, 10.0, size=(20_000, 1))
    >>> pipe = make_private_pipeline(
    ...     FunctionTransformer(lambda A: A - 1000.0),
    ...     StandardScaler(1.0, bounds="private", rng=3),
    ... ).fit(Z)
    >>> bool(abs(pipe[-1].mean_[0]) < 1.0 and abs(pipe[-1].scale_[0] - 10.0) < 1.0)
    True
    """

    def __init__(
        self,
        epsilon: Optional[float],
        *,
        bounds: Any = None,
        delta: float = 0.0,
        with_mean: bool = True,
        with_std: bool = True,
        bounds_quantile: float = BOUNDS_QUANTILE,
        bounds_fraction: Optional[float] = None,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.bounds = bounds
        self.delta = delta
        self.with_mean = with_mean
        self.with_std = with_std
        self.bounds_quantile = bounds_quantile
        self.bounds_fraction = bounds_fraction
        self.accountant = accountant
        self.rng = rng

    # -- parameters (checked before any data are read) -------------------------------------------

    def _params(
        self,
    ) -> Tuple[
        float,
        float,
        bool,
        bool,
        Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
        float,
        Optional[float],
    ]:
        from .._private_quantile import check_quantile

        eps = check_epsilon(self.epsilon, exact=True)
        delta = check_delta(self.delta, zero_ok=True, exact=True)
        with_mean = check_boolean(self.with_mean, "with_mean")
        with_std = check_boolean(self.with_std, "with_std")
        bounds = _bounds_spec(self.bounds)
        try:
            quantile = check_quantile(self.bounds_quantile)
        except InvalidParameterError as err:
            raise InvalidParameterError(
                str(err).replace("quantile:", "bounds_quantile:", 1), "bounds_quantile"
            ) from None
        fraction = (
            None
            if self.bounds_fraction is None
            else check_real(
                self.bounds_fraction, "bounds_fraction", 0.0, 1.0, lo_open=True, hi_open=True
            )
        )
        check_accountant(self.accountant)
        return eps, delta, with_mean, with_std, bounds, quantile, fraction

    def privacy_guarantee(self, n_samples: int) -> Any:
        """``Budget(epsilon)`` (``delta = 0``) or ``Budget(epsilon, delta)``: what one fit on
        ``n_samples`` rows charges (replace-one neighbours, ``n`` public), from the parameters
        only. With private bounds the budget is the same (the bounds take their share of it);
        whether such a fit is refused for a small ``n`` depends also on the number of features
        (see ``fit``).

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
        """Release the private statistics of ``X`` (``y`` is ignored), and first the private
        bounds if any side of ``bounds`` is ``"private"``, charging the guarantee of the class
        docstring once.

        Raises
        ------
        InvalidParameterError
            On a bad or missing parameter (``bounds`` first, before ``X`` is read), or bad data
            (NaN, inf, not 2-d, empty, per-feature bounds of another length than the number of
            columns); with private bounds, when ``n`` times one quantile's share of
            ``epsilon`` is below ``BOUNDS_MIN = 16`` (a function of the parameters, ``n`` and
            ``d``). Nothing is drawn or charged.
        BudgetExceededError
            If the accountant cannot pay; nothing is drawn.
        """
        from .._private_quantile import split_epsilon
        from ..accounting._event import PrivacyEvent
        from ..mechanisms import _charged, _gaussian_event, gaussian, laplace
        from ..random import as_generator

        eps, delta, _with_mean, with_std, (lo, hi, plo, phi), quantile, fraction = self._params()
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
        plo = np.broadcast_to(plo, (d,)).copy()
        phi = np.broadcast_to(phi, (d,)).copy()
        k = int(np.count_nonzero(plo | phi))  # one private quantile per such feature
        gaussian_noise = delta > 0
        shares: Tuple[float, ...] = ()
        rest = eps
        if k:
            f = bounds_share_plan(eps, n, k, fraction)
            try:
                shares, rest = split_epsilon(eps, f, k)
            except InvalidParameterError:  # a share that rounds to 0 (public values only)
                raise InvalidParameterError(
                    f"bounds_fraction: {f:g} of epsilon = {eps:g} over {k} private quantiles "
                    "leaves a share that rounds to 0",
                    "bounds_fraction",
                ) from None
            if n * shares[0] < BOUNDS_MIN:
                raise InvalidParameterError(
                    f"bounds: private bounds need n * epsilon_b >= {BOUNDS_MIN:g} for each of "
                    f"the {k} private quantiles (one per feature with a private side), where "
                    f"epsilon_b = bounds_fraction * epsilon / {k}; here n = {n}, epsilon = "
                    f"{eps:g}, bounds_fraction = {f:g} give {n * shares[0]:.3g}: the quantiles "
                    "would be too unreliable. Declare the bounds (or some sides of them), raise "
                    "bounds_fraction, or use more rows or a larger epsilon",
                    "bounds",
                )
            # Sums on released bounds: normalised Gaussian release (module docstring).
            slack = 4.0 * FSUM_SLACK if gaussian_noise else FSUM_SLACK
        else:
            slack = FSUM_SLACK
        # Declared bounds: the sums' sensitivities are known before the data are read.
        sums_plan = None if k else _sensitivities(lo, hi, n, gaussian_noise, slack)
        e_sum = rest / 2.0 if with_std else rest  # exact halves
        dl_sum = delta / 2.0 if with_std else delta
        n_sums = 2 if with_std else 1
        gen = as_generator(self.rng)
        shape = np.zeros(d)

        def event() -> Any:
            from ..accounting import Budget

            events = [PrivacyEvent.bounded_range(s) for s in shares]
            if gaussian_noise:
                # With private bounds the sums are released normalised (sensitivity 1).
                sens = (1.0, 1.0) if sums_plan is None else sums_plan[3:]
                events += [
                    _gaussian_event(shape, s, e_sum, dl_sum, "exact", "analytic")
                    for s in sens[:n_sums]
                ]
            else:
                events += [PrivacyEvent.pure(e_sum)] * n_sums
            budget = Budget(eps, delta) if gaussian_noise else Budget(eps)
            return PrivacyEvent.composed(events, budget=budget)

        def release() -> Tuple[List[np.ndarray], np.ndarray, np.ndarray]:
            b_lo, b_hi, plan = lo, hi, sums_plan
            if plan is None:
                b_lo, b_hi = _release_bounds(Xv, lo, hi, plo, phi, quantile, shares[0], gen)
                plan = _sensitivities(b_lo, b_hi, n, gaussian_noise, slack)
            mid, _r, _q, s1, s2 = plan
            C = np.clip(Xv, b_lo, b_hi) - mid  # |C_ij| <= r_j exactly (module docstring)
            sums = [np.array([math.fsum(C[:, j]) for j in range(d)])]
            if with_std:
                sq = C * C
                sums.append(np.array([math.fsum(sq[:, j]) for j in range(d)]))
            out = []
            for value, s in zip(sums, (s1, s2)):
                noisy: Any
                if gaussian_noise and k:  # normalised release (module docstring)
                    noisy = np.asarray(gaussian(value / s, 1.0, e_sum, dl_sum, rng=gen)) * s
                elif gaussian_noise:
                    noisy = gaussian(value, s, e_sum, dl_sum, rng=gen)
                else:
                    noisy = laplace(value, s, e_sum, rng=gen)
                out.append(np.asarray(noisy, dtype=np.float64).reshape(d))
            return out, b_lo, b_hi

        released, b_lo, b_hi = _charged(self.accountant, eps, delta, LABEL, release, event=event)

        # Post-processing (n public; the bounds are public parameters or released values).
        mid, r, q, _s1, _s2 = _sensitivities(b_lo, b_hi, n, gaussian_noise, slack)
        m1 = np.clip(released[0] / n, -r, r)
        self.mean_ = mid + m1
        self.var_: Optional[np.ndarray]
        self.scale_: Optional[np.ndarray]
        if with_std:
            var = released[1] / n - (released[0] / n) ** 2
            self.var_ = np.clip(var, 0.0, q)
            scale = np.sqrt(self.var_)
            self.scale_ = np.where(scale == 0.0, 1.0, scale)
        else:
            self.var_ = None
            self.scale_ = None
        self.bounds_ = (b_lo, b_hi)
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

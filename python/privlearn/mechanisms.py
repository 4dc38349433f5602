"""Differentially private mechanisms.

All mechanisms take ``rng`` as described in :mod:`privlearn.random` and default to
floating-point-safe numerics (DESIGN principle 3); the plain floating-point path is an explicit
opt-in, ``numerics="fast"``.

Neighbouring datasets differ by replacing one record (the dataset size is public).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Union

from . import _core

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import ArrayLike

    from .random import RngLike

__all__ = ["exponential", "log_sum_exp"]


def exponential(
    scores: "ArrayLike",
    epsilon: float,
    sensitivity: float = 1.0,
    *,
    size: Optional[int] = None,
    rng: "RngLike" = None,
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

    ``numerics="fast"`` samples in plain floating point (a fused log-sum-exp and inverse-CDF pass):
    faster, but not floating-point safe; candidates whose probability is below about ``1e-16``
    relative to the total are never returned.

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
        are ``size * epsilon``-DP (basic composition). The scores are validated and grouped once
        for all draws.
    rng : None, int or Generator, optional
        Randomness; see :mod:`privlearn.random`.
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
    return _core.exponential(scores, epsilon, sensitivity, size, rng, numerics)


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



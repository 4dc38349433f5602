r"""The distance-to-instability test ``A_stab`` (Smith and Thakurta, COLT 2013; Nandi and
Bassily, ALT 2020, Alg. 6): release a value only when a Laplace-noised distance to instability
clears a threshold, with its exact ``(ε, δ)`` read from the core's plan of the exact Laplace
sampler.

Internal module of :mod:`privlearn.query_release` (see its documentation).
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from typing import Any, Optional

from .. import _core
from .._validate import check_epsilon, check_real
from ..accounting import Accountant, Budget
from ..accounting._accountant import check_accountant
from ..accounting._numerics import _context, _float_up, _up
from ..errors import InvalidParameterError
from ..mechanisms import _charged, laplace
from ..random import RngLike

__all__ = ["DistanceToInstability"]


class DistanceToInstability:
    r"""The distance-to-instability test ``A_stab`` (Smith and Thakurta, COLT 2013; Nandi and
    Bassily, Alg. 6): release ``f(S)`` if ``dist(S) + Lap(1/ε) > Γ``, else ⊥ (``None``).

    **Privacy guarantee.** Suppose ``dist`` has sensitivity 1 (replace-one) and ``dist(S) >= 1``
    implies ``f(S') = f(S)`` for every neighbour ``S'``. Then the output is ``(ε, δ)``-DP with
    ``δ = P(release | dist = 0) <= ½ e^{−ε Γ}`` (ST13's stability argument): the test itself is the
    Laplace mechanism, and the value can differ between neighbours only when ``dist = 0``. The
    noise is exact discrete Laplace on a grid (:func:`privlearn.mechanisms.laplace`), so
    :attr:`privacy` evaluates the tail at ``Γ − 2γ`` with the noise scale the sampler uses
    (slightly above ``1/ε``; ``γ`` its grid step, at most ``2^-20 min(1, 1/ε)``), both read
    from the core's plan of the sampler (``privlearn._core.laplace_plan``).

    Parameters
    ----------
    epsilon : float
        > 0.
    threshold : float
        ``Γ`` >= 0 (a smaller one gives ``δ >= 1/2``: refused).
    """

    def __init__(self, epsilon: float, threshold: float) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.threshold = check_real(threshold, "threshold", 0.0)
        self._privacy = self._guarantee()

    def _guarantee(self) -> Budget:
        # The grid step and noise scale the exact Laplace sampler uses for this call (the core's
        # own plan, rounded up; nothing restated here).
        grid, scale = _core.laplace_plan(1.0, self.epsilon)
        shifted = self.threshold - 2 * grid
        if shifted <= 0.0:
            raise InvalidParameterError(
                f"threshold: must be > 0 (about ln(1/(2 delta)) / epsilon), got {self.threshold!r}",
                "threshold",
            )
        with decimal.localcontext(_context(50)):
            d = _up((-(Decimal(shifted) / Decimal(scale))).exp() / 2)
        return Budget(self.epsilon, _float_up(d))

    @property
    def privacy(self) -> Budget:
        """The guarantee ``(ε, δ)`` of one call."""
        return self._privacy

    def release_probability(self, distance: float) -> float:
        """``P(dist + Lap(1/ε) > Γ) = 1 − F_Lap(Γ − dist; 1/ε)`` for continuous Laplace noise
        (the exact sampler matches it up to its grid)."""
        z = (self.threshold - float(distance)) * self.epsilon
        return 0.5 * math.exp(-z) if z >= 0 else 1.0 - 0.5 * math.exp(z)

    def __call__(
        self,
        value: Any,
        distance: float,
        *,
        rng: RngLike = None,
        accountant: Optional[Accountant] = None,
    ) -> Any:
        """``value`` if the noisy distance clears the threshold, else ``None``.

        Parameters
        ----------
        value : object
            ``f(S)``.
        distance : float
            ``dist(S)`` >= 0 (an integer for the guarantee above).
        rng : None, int or Generator, optional
        accountant : Accountant, optional
            Charged :attr:`privacy` before anything is drawn.
        """
        dist = check_real(distance, "distance", 0.0)
        check_accountant(accountant)
        noisy = _charged(
            accountant,
            self._privacy.epsilon,
            self._privacy.delta,
            "distance to instability",
            lambda: laplace(dist, 1.0, self.epsilon, rng=rng),
        )
        return value if noisy > self.threshold else None

    def __repr__(self) -> str:
        return f"DistanceToInstability(epsilon={self.epsilon!r}, threshold={self.threshold!r})"

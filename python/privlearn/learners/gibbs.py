r"""Approximate sampling of the Gibbs density of penalized ERM for convex objectives.

Wang, Lei and Fienberg (JMLR 2016), Proposition 26: when :math:`F(Z, \cdot)` is convex and
:math:`H` is convex, Algorithm 1's density :math:`\propto \exp(-\beta F(Z, h))` is log-concave
and can be sampled to any total-variation accuracy in polynomial time (Applegate and Kannan
1991; Bassily, Smith and Thakurta 2014). :class:`ApproximateGibbsERM` runs Metropolis-adjusted
Langevin chains (``privlearn_core::erm::gibbs``) over the ball :math:`\|w\|_2 \le R`.

**What it guarantees: nothing, by default.** A sampler whose output law is within total
variation :math:`\tau` of the exact exponential mechanism's *for every dataset* is
:math:`(\varepsilon, \tau(1 + e^{\varepsilon}))`-DP. But :math:`\tau` must come from a proven,
data-independent mixing bound for the step size and number of steps used (ERRATA A7); the
diagnostics kept here (acceptance rates, the Gelman–Rubin statistic of the objective across
chains) are evidence of convergence, not a bound, and they are computed from the data (they are
not private: private state, ``_diagnostics``, not a fitted attribute). So the learner reports
**no** privacy guarantee (:attr:`privacy_` is ``None``) and
refuses an accountant, unless you pass ``tv_bound`` — a worst-case bound that *you* have proven
for the fixed ``step`` and ``steps`` — in which case it reports and charges
:math:`(\varepsilon, \tau(1 + e^\varepsilon))`. Prefer the exact grid or continuous samplers of
:class:`~privlearn.learners.erm.ExponentialMechanismERM` whenever the dimension allows.
"""

from __future__ import annotations

import decimal
import math
from decimal import Decimal
from typing import Any, Dict, Optional

import numpy as np
from sklearn.base import BaseEstimator

from .. import _core
from .._certified import check_feature_names
from .._validate import check_choice, check_epsilon, check_integer, check_positive, check_real
from ..accounting import Budget
from ..accounting._numerics import _DIGITS, _context, _expm1, _float_up, _up
from ..errors import InvalidParameterError
from ..mechanisms import _charged
from ..random import as_generator
from ._base import PrivateEstimatorMixin
from ._erm_inputs import SENSITIVITIES, _features, _sensitivity_factor, _targets
from ._erm_losses import _resolve_loss

__all__ = ["ApproximateGibbsERM", "gelman_rubin"]

_TARGET_ACCEPTANCE = 0.574  # optimal MALA acceptance (Roberts and Rosenthal 1998)
_ADAPT_ROUND = 100


def gelman_rubin(traces: Any) -> float:
    r"""The Gelman–Rubin potential scale reduction :math:`\hat R` of ``traces`` (chains x
    draws): near 1 when the chains agree, well above 1 (say > 1.1) when they have not mixed."""
    t = np.asarray(traces, dtype=np.float64)
    if t.ndim != 2 or t.shape[0] < 2 or t.shape[1] < 2:
        raise InvalidParameterError("traces: need at least 2 chains of 2 draws", "traces")
    m, k = t.shape
    means = t.mean(axis=1)
    within = t.var(axis=1, ddof=1).mean()
    between = k * means.var(ddof=1)
    if within == 0.0:
        return 1.0 if between == 0.0 else math.inf
    var_plus = (k - 1) / k * within + between / k
    return float(math.sqrt(var_plus / within))


class ApproximateGibbsERM(PrivateEstimatorMixin, BaseEstimator):  # type: ignore[misc]
    r"""MALA chains for :math:`\exp(-\beta F)` over a ball: **approximate**, no DP guarantee by
    default (see the module documentation).

    :math:`F(w) = \frac1n\sum_i \min(\ell(w \cdot x_i, y_i), B) + \frac{\lambda}{2}\|w\|^2`,
    :math:`\beta = \varepsilon n/(4B)` (``sensitivity="paper"``) or :math:`\varepsilon n/(2B)`
    (``"tight"``): the exact mechanism would be ``epsilon``-DP (Proposition 26's target).

    Parameters
    ----------
    loss : str
        ``"logistic"``, ``"squared"``, ``"hinge"`` or their ``"clipped_"`` forms (a subgradient
        drift for the hinge: still a valid Metropolis–Hastings chain, slower to mix).
    epsilon : float
    radius : float
        :math:`R`; the chains stay in the ball.
    loss_bound : float, optional
    ridge : float, default 0.0
        :math:`\lambda` (data-independent).
    sensitivity : {"paper", "tight"}, default "paper"
    fit_intercept : bool, default False
        Append a constant feature 1 (its weight is the intercept, inside the ball).
    step : float, optional
        Fixed MALA step size. Default: adapted during warm-up towards acceptance 0.574 (a
        data-dependent choice: incompatible with ``tv_bound``).
    steps, warmup : int, default 2000, 1000
    chains : int, default 4
        Independent chains (>= 2 for the diagnostic); chain 0's final state is released.
    tv_bound : float, optional
        Your proven worst-case total-variation bound for the fixed ``step``/``steps``; enables
        the :math:`(\varepsilon, \tau(1 + e^\varepsilon))` claim (replace-one neighbours,
        ``n`` public; delta rounded up), reported by :meth:`privacy_guarantee`. Without it the
        learner certifies nothing: :meth:`privacy_guarantee` raises, an accountant is refused,
        and so is every composite that needs a certified base (e.g.
        :class:`~privlearn.learners.SubsampledERM`).
    accountant, rng : optional

    Attributes
    ----------
    coef_ : numpy.ndarray
    intercept_ : float
    privacy_ : Budget or None
    dp_certified_ : bool

    Notes
    -----
    The chains' diagnostics (acceptance rates, r_hat, step, mean objective per chain) are
    computed from the data by every chain, not only the released one: they are **not private**
    (outside any certified guarantee) and are kept as private state, ``_diagnostics`` (a dict),
    for inspection by whoever may see the data.
    """

    def __init__(
        self,
        loss: str = "logistic",
        epsilon: float = 1.0,
        *,
        radius: float = 1.0,
        loss_bound: Optional[float] = None,
        ridge: float = 0.0,
        sensitivity: str = "paper",
        fit_intercept: bool = False,
        step: Optional[float] = None,
        steps: int = 2000,
        warmup: int = 1000,
        chains: int = 4,
        tv_bound: Optional[float] = None,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.loss = loss
        self.epsilon = epsilon
        self.radius = radius
        self.loss_bound = loss_bound
        self.ridge = ridge
        self.sensitivity = sensitivity
        self.fit_intercept = fit_intercept
        self.step = step
        self.steps = steps
        self.warmup = warmup
        self.chains = chains
        self.tv_bound = tv_bound
        self.accountant = accountant
        self.rng = rng

    def _certified_budget(self, eps: float) -> Budget:
        r"""``(eps, tau (1 + e^eps))`` for the declared ``tv_bound`` (delta computed in high
        precision and rounded up); refuses a configuration that certifies nothing."""
        if self.tv_bound is None:
            raise InvalidParameterError(
                "tv_bound: ApproximateGibbsERM certifies no privacy guarantee without a proven "
                "worst-case total-variation bound for a fixed step (ERRATA A7); pass tv_bound "
                "and step, or use ExponentialMechanismERM",
                "tv_bound",
            )
        tv = check_real(self.tv_bound, "tv_bound", 0.0)
        if self.step is None:
            raise InvalidParameterError(
                "tv_bound: a total-variation certificate needs a fixed, data-independent "
                "step (the adaptive warm-up depends on the data)",
                "tv_bound",
            )
        check_positive(self.step, "step")
        with decimal.localcontext(_context(_DIGITS)):
            exact = Decimal(tv) * (2 + _expm1(Decimal(eps)))
            delta = _float_up(_up(exact))
        if not delta < 1.0:
            raise InvalidParameterError(
                f"tv_bound: gives delta = tv (1 + e^eps) = {delta:.3g} >= 1 (no guarantee)",
                "tv_bound",
            )
        return Budget(eps, delta)

    def privacy_guarantee(self, n_samples: int) -> Budget:
        r"""The guarantee of one fit on ``n_samples`` records, from the parameters only:
        :math:`(\varepsilon, \tau(1 + e^\varepsilon))`-DP (replace-one neighbours, ``n``
        public) with :math:`\tau` the declared ``tv_bound`` (a sampler within total variation
        :math:`\tau` of the :math:`\varepsilon`-DP exponential mechanism on every dataset);
        this is what :meth:`fit` charges and reports as :attr:`privacy_`.

        Raises
        ------
        InvalidParameterError
            Without ``tv_bound`` (or without a fixed ``step``): nothing is certified.
        """
        check_integer(n_samples, "n_samples", 1)
        return self._certified_budget(check_epsilon(self.epsilon))

    def fit(self, X: Any, y: Any) -> "ApproximateGibbsERM":
        """Run the chains on ``(X, y)`` and keep chain 0's final state."""
        eps = check_epsilon(self.epsilon)
        mode = check_choice(self.sensitivity, "sensitivity", SENSITIVITIES)
        loss = _resolve_loss(self.loss, self.loss_bound)
        if loss.fn is not None or loss.core == "zero_one":
            raise InvalidParameterError(
                "loss: the Gibbs sampler needs 'logistic', 'squared' or 'hinge' (clipped or not)",
                "loss",
            )
        R = check_positive(self.radius, "radius")
        ridge = check_real(self.ridge, "ridge", 0.0)
        steps = check_integer(self.steps, "steps", 1)
        warmup = check_integer(self.warmup, "warmup", 0)
        chains = check_integer(self.chains, "chains", 2)
        step = None if self.step is None else check_positive(self.step, "step")
        if self.tv_bound is None and self.accountant is not None:
            raise InvalidParameterError(
                "accountant: ApproximateGibbsERM has no certified privacy guarantee to charge "
                "(pass a proven tv_bound with a fixed step, or use ExponentialMechanismERM)",
                "accountant",
            )
        budget = None if self.tv_bound is None else self._certified_budget(eps)
        check_feature_names(self, X, reset=True)
        Xa = _features(X)
        if self.fit_intercept:
            Xa = np.ascontiguousarray(np.hstack([Xa, np.ones((Xa.shape[0], 1))]))
        n, d = Xa.shape
        ya = _targets(y, n, loss.classification).astype(np.float64)
        beta = eps * n / (2.0 * _sensitivity_factor(mode) * loss.bound)
        gen = as_generator(self.rng)

        def run() -> Dict[str, Any]:
            # Data-independent starts: the origin, and uniform points of the ball.
            g = np.random.default_rng(np.asarray(gen.random_raw(4), dtype=np.uint64))
            starts = np.zeros((chains, d))
            for c in range(1, chains):
                v = g.standard_normal(d)
                starts[c] = v / np.linalg.norm(v) * R * g.random() ** (1.0 / d)
            h = (
                step
                if step is not None
                else 1.0 / (beta * max(1.0, float(np.mean(np.sum(Xa * Xa, axis=1)))))
            )
            done = 0
            while step is None and done < warmup:
                rounds = min(_ADAPT_ROUND, warmup - done)
                states, _, acc = _core.erm_mala(
                    Xa, ya, loss.core, loss.bound, ridge, beta, R, h, rounds, starts, gen
                )
                rate = sum(acc) / (rounds * chains)
                h *= math.exp(2.0 * (rate - _TARGET_ACCEPTANCE))
                starts = np.ascontiguousarray(states)
                done += rounds
            if step is not None and warmup:
                starts = np.ascontiguousarray(
                    _core.erm_mala(
                        Xa, ya, loss.core, loss.bound, ridge, beta, R, h, warmup, starts, gen
                    )[0]
                )
            states, traces, acc = _core.erm_mala(
                Xa, ya, loss.core, loss.bound, ridge, beta, R, h, steps, starts, gen
            )
            return {"states": states, "traces": traces, "accepted": acc, "step": h}

        if budget is None:
            out = run()
        else:
            out = _charged(
                self.accountant, budget.epsilon, budget.delta, "approximate Gibbs ERM", run
            )
        w = np.asarray(out["states"][0], dtype=np.float64)
        self.coef_ = w[:-1].copy() if self.fit_intercept else w.copy()
        self.intercept_ = float(w[-1]) if self.fit_intercept else 0.0
        traces = np.asarray(out["traces"])
        half = traces[:, traces.shape[1] // 2 :] if traces.shape[1] >= 4 else traces
        self._diagnostics = {  # not private: see the class Notes
            "acceptance": [a / steps for a in out["accepted"]],
            "r_hat": gelman_rubin(half) if half.shape[1] >= 2 else float("nan"),
            "step": float(out["step"]),
            "mean_objective": [float(v) for v in half.mean(axis=1)],
            "beta": beta,
        }
        self.privacy_ = budget
        self.dp_certified_ = budget is not None
        self.guarantee_ = (
            f"(epsilon, delta) = ({budget.epsilon:.4g}, {budget.delta:.3g}) from the given tv_bound"
            if budget is not None
            else "none: approximate MCMC sampler, mixing not certified (ERRATA A7)"
        )
        self.n_features_in_ = Xa.shape[1] - (1 if self.fit_intercept else 0)
        self._classification = loss.classification
        return self

    def predict(self, X: Any) -> np.ndarray:
        """``1[w . x + b >= 0]`` (classification losses) or ``w . x + b``."""
        if not hasattr(self, "coef_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this ApproximateGibbsERM is not fitted yet; call fit first")
        check_feature_names(self, X, reset=False)
        Xa = _features(X, n_features=self.n_features_in_)
        p = Xa @ self.coef_ + self.intercept_
        return (p >= 0).astype(np.int64) if self._classification else p

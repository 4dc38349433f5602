r"""Bounds and theory settings of the exponential-mechanism ERM (Wang, Lei and Fienberg, 2016).

:func:`excess_risk_bound` (the per-dataset bound of a finite candidate set, the paper's Lemma
37 and Theorem 19 rates), the privacy schedules of Examples 20 and 21
(:func:`example20_epsilon`, :func:`example21_epsilon`) and the loss bound of a linear
predictor on bounded data (:func:`linear_loss_bound`). Functions of public constants only:
they read no data.
"""

from __future__ import annotations

import math
from typing import Optional

from .._validate import check_choice, check_epsilon, check_integer, check_positive, check_real
from ..errors import InvalidParameterError
from ._erm_inputs import SENSITIVITIES, _sensitivity_factor

__all__ = ["excess_risk_bound", "example20_epsilon", "example21_epsilon", "linear_loss_bound"]


def excess_risk_bound(
    n: int,
    epsilon: float,
    n_candidates: Optional[int] = None,
    *,
    kind: str = "per-dataset",
    loss_bound: float = 1.0,
    sensitivity: str = "paper",
    regularizer_sup: float = 0.0,
    log_K: Optional[float] = None,
    rho: float = 0.0,
    lipschitz: Optional[float] = None,
    spacing: Optional[float] = None,
    dim: int = 1,
    p: float = math.inf,
) -> float:
    r"""Bounds on the excess risk of the exponential mechanism over (penalized) ERM.

    ``kind="per-dataset"`` (default; [derived] in the notes, sharper than the paper): for a
    finite candidate set of size :math:`N`, sensitivity :math:`\Delta` (``2B/n`` or ``B/n``)
    and **every** dataset :math:`Z`,

    .. math:: E_h F(Z, h) - \min_h F(Z, h) \le \frac{2\Delta (\ln N + 1)}{\varepsilon}

    (from :math:`P[F(h) - F^* > s] \le N e^{-\varepsilon s / (2\Delta)}`). Plus ``2 *
    regularizer_sup`` for the excess empirical risk without the regularizer, and with
    ``lipschitz``, ``spacing`` (a :class:`Grid`'s) and ``dim`` the discretisation term
    :math:`L d^{1/p} \alpha / 2` relative to the best point of the box (an :math:`\ell_p`
    Lipschitz objective).

    ``kind="lemma37"``: the paper's Lemma 37 (always-AERM rate of Algorithm 1), an expectation
    over :math:`Z \sim D^n` under assumption A2 with constants :math:`K, \rho`:

    .. math:: E_Z[E_h \hat R(h, Z) - \hat R^*(Z)] \le
              \frac{9[(\rho + 2)\ln n + \ln K]}{n \varepsilon} + 2\zeta,

    with :math:`\zeta = \sup|g_n|` (the statement writes :math:`\log(1/K)` and :math:`\zeta`;
    the proof gives :math:`\log K` and :math:`2\zeta`), valid for :math:`\varepsilon < \ln n`
    (and :math:`t < t_0`, ERRATA A8). For finite :math:`H` use :math:`K = N`, :math:`\rho = 0`;
    for Example 21 :math:`\ln K = \ln(\mu(H)/\beta_p) + d \ln L`, :math:`\rho = d`. Scaled by
    ``loss_bound`` (the paper has :math:`B = 1`).

    ``kind="theorem19"``: the consistency rate (excess *population* risk) of Theorem 19, the
    Lemma 37 term plus the stability term of Lemma 8, :math:`2\varepsilon` for
    :math:`\varepsilon \le 1` and :math:`e^\varepsilon - 1` otherwise (times ``loss_bound``).

    Parameters
    ----------
    n : int
        Sample size (>= 1).
    epsilon : float
        Privacy parameter (> 0).
    n_candidates : int, optional
        :math:`N` (finite sets; required for "per-dataset", or as :math:`K` when ``log_K`` is
        not given).
    kind : {"per-dataset", "lemma37", "theorem19"}
    loss_bound : float, default 1.0
    sensitivity : {"paper", "tight"}, default "paper"
        Only for "per-dataset" (the paper's bounds use ``2/n``).
    regularizer_sup : float, default 0.0
        :math:`\sup_h |g_n(h)|`.
    log_K, rho : float, optional
        Assumption A2's constants (natural log of :math:`K`).
    lipschitz, spacing, dim, p : optional
        Discretisation term of a grid (per-dataset kind).

    Returns
    -------
    float

    Examples
    --------
    >>> round(excess_risk_bound(1000, 1.0, 441), 4)      # 4 (ln 441 + 1) / 1000
    0.0284
    """
    n = check_integer(n, "n", 1)
    eps = check_epsilon(epsilon)
    B = check_positive(loss_bound, "loss_bound")
    zeta = check_real(regularizer_sup, "regularizer_sup", 0.0)
    if kind == "per-dataset":
        if n_candidates is None:
            raise InvalidParameterError(
                "n_candidates: required for kind='per-dataset'", "n_candidates"
            )
        N = check_integer(n_candidates, "n_candidates", 1)
        mode = check_choice(sensitivity, "sensitivity", SENSITIVITIES)
        delta = _sensitivity_factor(mode) * B / n
        bound = 2.0 * delta * (math.log(N) + 1.0) / eps + 2.0 * zeta
        if lipschitz is not None or spacing is not None:
            if lipschitz is None or spacing is None:
                raise InvalidParameterError(
                    "lipschitz: give both lipschitz and spacing for the discretisation term",
                    "lipschitz",
                )
            L = check_real(lipschitz, "lipschitz", 0.0)
            a = check_real(spacing, "spacing", 0.0)
            d = check_integer(dim, "dim", 1)
            pp = float(p)
            if not pp >= 1.0:
                raise InvalidParameterError(f"p: must be >= 1 (or inf), got {p!r}", "p")
            root = 1.0 if math.isinf(pp) else d ** (1.0 / pp)
            bound += L * root * a / 2.0
        return bound
    if kind not in ("lemma37", "theorem19"):
        raise InvalidParameterError(
            f"kind: must be 'per-dataset', 'lemma37' or 'theorem19', got {kind!r}", "kind"
        )
    if log_K is None:
        if n_candidates is None:
            raise InvalidParameterError("log_K: give log_K or n_candidates", "log_K")
        lk = math.log(check_integer(n_candidates, "n_candidates", 1))
    else:
        lk = float(log_K)
        if not math.isfinite(lk):
            raise InvalidParameterError(f"log_K: must be finite, got {log_K!r}", "log_K")
    r = check_real(rho, "rho", 0.0)
    aerm = B * 9.0 * ((r + 2.0) * math.log(n) + lk) / (n * eps) + 2.0 * zeta
    if kind == "lemma37":
        return aerm
    stability = 2.0 * eps if eps <= 1.0 else math.expm1(eps)
    return aerm + B * stability


def example20_epsilon(n: int, M: float) -> float:
    r"""Example 20's privacy schedule for a finite class of :math:`2^M` hypotheses:
    :math:`\varepsilon(n) = \sqrt{(M + \ln n)/n}`, which makes Algorithm 1 consistent at the
    rate :math:`O(\sqrt{(M + \ln n)/n})` (plugging into Theorem 19)."""
    n = check_integer(n, "n", 1)
    M = check_real(M, "M", 0.0)
    return math.sqrt((M + math.log(n)) / n) if n > 1 or M > 0 else 1.0


def example21_epsilon(n: int, dim: int, lipschitz: float, log_volume_ratio: float = 0.0) -> float:
    r"""Example 21's privacy schedule for an :math:`L`-Lipschitz problem on a compact
    :math:`\beta_p`-regular :math:`H \subset \mathbb{R}^d`:
    :math:`\varepsilon(n) = \sqrt{(d(\ln L + \ln n) + \ln(\mu(H)/\beta_p))/n}`
    (``log_volume_ratio`` is :math:`\ln(\mu(H)/\beta_p)`)."""
    n = check_integer(n, "n", 1)
    d = check_integer(dim, "dim", 1)
    L = check_positive(lipschitz, "lipschitz")
    val = (d * (math.log(L) + math.log(n)) + float(log_volume_ratio)) / n
    if not val > 0:
        raise InvalidParameterError(
            "n: the schedule is not positive for these constants (too small n or L)", "n"
        )
    return math.sqrt(val)


def linear_loss_bound(
    loss: str, coef_radius: float, x_radius: float, y_radius: float = 1.0
) -> float:
    r"""The largest value of a loss of a linear predictor on bounded data.

    For :math:`\|w\|_2 \le` ``coef_radius`` (including an intercept folded into :math:`w` and
    :math:`x`), :math:`\|x\|_2 \le` ``x_radius`` and :math:`|y| \le` ``y_radius``: hinge
    :math:`1 + Rr`, logistic :math:`\ln(1 + e^{Rr})`, squared :math:`(Rr + y)^2`. These are
    the normalisations of the notes' E2-E4 (Example 21); pass the result as ``loss_bound``.
    """
    R = check_real(coef_radius, "coef_radius", 0.0)
    r = check_real(x_radius, "x_radius", 0.0)
    yr = check_real(y_radius, "y_radius", 0.0)
    m = R * r
    if loss == "hinge":
        return 1.0 + m
    if loss == "logistic":
        return m + math.log1p(math.exp(-m))
    if loss == "squared":
        return (m + yr) ** 2
    raise InvalidParameterError(
        f"loss: must be 'hinge', 'logistic' or 'squared', got {loss!r}", "loss"
    )

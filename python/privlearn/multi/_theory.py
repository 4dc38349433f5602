"""Sample-size formulas of the multi-concept learners (seed 002).

Functions of public parameters only: the number of subsamples and the sample size for which
``SearchParities`` recovers every parity (Theorem 3.12), the sample size of ``LearnPoints``
(Theorem 3.13) and that of the exponential-mechanism learner (Kasiviswanathan et al. 2011,
Theorem 3.4), each with the explicit constants of this implementation and the derivation in its
docstring.
"""

from __future__ import annotations

import math

from .. import _core
from .._search import first_true
from .._validate import check_delta, check_epsilon, check_integer, check_probability


def parity_subsamples(epsilon: float, delta: float, beta: float = 0.05) -> int:
    r"""The number of subsamples ``T`` for which :class:`ParityMultiLearner` recovers every
    target exactly with probability at least ``1 - beta`` (Bun, Nissim and Stemmer,
    Theorem 3.12, with explicit constants for the safe discrete-Laplace ``A_dist``).

    ``T = ceil(max(32 ln(2/beta), (4/3) (5 + (2/epsilon) ln(4/(beta delta)))))``. Derivation:
    with subsamples of ``dim + 3`` uniform examples, each has rank ``dim`` with probability above
    ``7/8`` and then yields exactly the target vector, so by Hoeffding at least ``3T/4`` do,
    except with probability ``e^{-T/32} <= beta/2``; every other vector appears 0 times, so the
    gap is at least ``3T/4``; the selection (noise of scale ``b = 2/epsilon``, threshold at most
    ``4 + b ln(2/delta)``) releases the best vector except with probability ``beta/2`` once the
    gap exceeds ``5 + b ln(4/(beta delta))``. Independent of ``k`` and of ``dim``.

    Examples
    --------
    >>> from privlearn.multi import parity_subsamples
    >>> parity_subsamples(1.0, 1e-6)
    119
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, zero_ok=False)
    beta = check_probability(beta, "beta")
    chernoff = 32.0 * math.log(2.0 / beta)
    selection = (4.0 / 3.0) * (5.0 + (2.0 / epsilon) * math.log(4.0 / (beta * delta)))
    return int(math.ceil(max(chernoff, selection)))


def parity_sample_size(dim: int, epsilon: float, delta: float, beta: float = 0.05) -> int:
    """``parity_subsamples(epsilon, delta, beta) * (dim + 3)``: a sample size for which
    :class:`ParityMultiLearner` (default subsamples of ``dim + 3`` rows) recovers all ``k``
    targets exactly with probability at least ``1 - beta``, whatever ``k`` (Theorem 3.12).

    Examples
    --------
    >>> from privlearn.multi import parity_sample_size
    >>> parity_sample_size(20, 1.0, 1e-6)
    2737
    """
    dim = check_integer(dim, "dim", 1)
    return parity_subsamples(epsilon, delta, beta) * (dim + 3)


def points_sample_size(alpha: float, epsilon: float, delta: float, beta: float = 0.05) -> int:
    r"""A sample size for which :class:`PointMultiLearner` is ``(alpha, beta)``-accurate for every
    realizable distribution, every domain and every ``k`` (Bun, Nissim and Stemmer,
    Theorem 3.13, with explicit constants for this implementation).

    The smallest ``n`` with (natural logarithms; ``b = 4/epsilon``, the noise scale of each
    half of the budget):

    1. ``n >= (8/alpha) ln(3/(alpha beta))``: by a Chernoff bound and a union bound over the at
       most ``1/alpha`` points of mass ``>= alpha``, each appears at least ``alpha n / 2`` times,
       except with probability ``beta/3``;
    2. ``2 n e^{-alpha n / (8 b)} <= beta/3``: every noisy count of the histogram is within
       ``alpha n / 8`` of the count (at most ``n`` points in the data);
    3. ``alpha n / 8 >= 5 + b ln(12/(beta delta))``: every heavy point (noisy count
       ``>= alpha n / 4``, hence count ``>= alpha n / 8``) carries a single label vector, so the
       gap of the stable selection is at least ``alpha n / 8``, which releases it except with
       probability ``beta/3``; this also makes every point of count ``>= alpha n / 2`` clear the
       histogram's threshold.

    Then a concept whose point is heavy is learned exactly, and any other has mass below
    ``alpha`` and gets the all-zero hypothesis. Independent of ``k`` and of the domain.

    Examples
    --------
    >>> from privlearn.multi import points_sample_size
    >>> points_sample_size(0.1, 1.0, 1e-6)
    6575
    """
    alpha = check_probability(alpha, "alpha", one_ok=True)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, zero_ok=False)
    beta = check_probability(beta, "beta")
    b = _core.multi_points_noise_scale(epsilon)  # the scale the sampler uses (rounded up)
    n1 = math.ceil((8.0 / alpha) * math.log(3.0 / (alpha * beta)))
    n3 = math.ceil((8.0 / alpha) * (5.0 + b * math.log(12.0 / (beta * delta))))

    def noise_ok(n: int) -> bool:
        return math.log(2.0 * n) - alpha * n / (8.0 * b) <= math.log(beta / 3.0)

    # noise_ok is monotone once n exceeds 8b/alpha, and n3 > 8b/alpha.
    n = first_true(noise_ok, max(n1, n3, 1))
    assert n is not None
    return n


def exponential_sample_size(
    n_candidates: int, alpha: float, epsilon: float, beta: float = 0.05, k: int = 1
) -> int:
    r"""A sample size for which ``k`` runs of :class:`ExponentialLearner` over ``n_candidates``
    hypotheses, each with budget ``epsilon``, are all agnostically ``alpha``-accurate (excess
    population error at most ``alpha`` over the best candidate) with probability ``1 - beta``
    (Kasiviswanathan et al. 2011, Theorem 3.4; the constants of erratum 002-6):
    ``n >= max((4/(alpha epsilon)) ln(2 k |C| / beta), (8/alpha^2) ln(4 k |C| / beta))``.

    Pass the per-concept epsilon of the composition (:func:`per_concept_budget`).

    Examples
    --------
    >>> from privlearn.multi import exponential_sample_size
    >>> exponential_sample_size(256, 0.1, 1.0)
    7942
    """
    c = check_integer(n_candidates, "n_candidates", 1)
    alpha = check_probability(alpha, "alpha", one_ok=True)
    epsilon = check_epsilon(epsilon)
    beta = check_probability(beta, "beta")
    k = check_integer(k, "k", 1)
    em = (4.0 / (alpha * epsilon)) * math.log(2.0 * k * c / beta)
    uniform = (8.0 / alpha**2) * math.log(4.0 * k * c / beta)
    return int(math.ceil(max(em, uniform)))

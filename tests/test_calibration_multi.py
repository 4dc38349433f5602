"""Calibration tests of the multi-concept learners (issue 16, section 2; seed 002).

Laws derived **here** from Bun, Nissim and Stemmer (2019) with the project's errata 002-1, 002-2
and 002-4, never from ``privlearn.multi``'s attributes or helpers:

* the exponential mechanism over a finite candidate set with weights
  ``exp(-eps_j mistakes / 2)`` (sensitivity 1), ``eps_j = epsilon / k`` by basic composition;
* the stability histogram with discrete Laplace noise of scale ``b = 2/eps``: a count ``c`` is
  released iff ``c + Z >= 1 + t``, ``t`` the smallest integer with
  ``e^{-t/b} / (1 + e^{-1/b}) <= delta/2`` (errata 002-2);
* ``A_dist`` (safe parametrisation, errata 002-1/002-2): released iff ``gap + Z >= 2 + t``;
* the budget splits: GenericLearner's sanitizer ``(eps/2, delta)`` and mechanisms ``eps/2``
  (basic); LearnPoints ``(eps/2, delta/2)`` per step (errata 002-4).

The released output of the public ``fit`` (many fits, one seeded generator) is tested with a
chi-square test at 1e-6, and the real learner at twice the epsilon (half the noise) must be
rejected against the law of the claimed epsilon.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from privlearn.accounting import Accountant, Budget
from privlearn.hypotheses import Points
from privlearn.multi import (
    IndependentMultiLearner,
    ParityMultiLearner,
    PointMultiLearner,
    SanitizerMultiLearner,
)
from privlearn.random import Generator
from stats_helpers import assert_fits, assert_power_check, assert_rejects, chi_square_pvalue


def _em(mistakes, eps):
    z = -eps * np.asarray(mistakes, float) / 2.0
    w = np.exp(z - z.max())
    return w / w.sum()


def _dlap_ge(s, b):
    """P(Z >= s) for the discrete Laplace law P(Z = z) ∝ e^{-|z|/b}, s integer."""
    a = math.exp(-1.0 / b)
    if s >= 1:
        return a**s / (1 + a)
    return 1.0 - a ** (1 - s) / (1 + a)


def _threshold(eps, delta):
    """The errata's smallest integer t with e^{-t/b}/(1 + e^{-1/b}) <= delta/2, b = 2/eps, plus
    the one step of safety margin the library states it adds (``privlearn_core`` rounds the
    float logarithm up and adds 1): a larger t is only more private, a smaller one is caught."""
    b = 2.0 / eps
    t = 0
    while math.exp(-t / b) / (1 + math.exp(-1 / b)) > delta / 2:
        t += 1
    return t + 1


def _histogram_release(count, eps, delta):
    return _dlap_ge(1 + _threshold(eps, delta) - count, 2.0 / eps)


# --------------------------------------------------------------------------------------------


def test_independent_multi_learner_calibration():
    """Points on {0..3}, k = 2 concepts, basic composition: each concept's released point has
    law exp(-(eps/2) mistakes / 2); the two concepts are independent."""
    X = np.array([0, 0, 1, 1, 1, 2, 3, 3])
    Y = np.array([[1, 0], [1, 0], [0, 1], [0, 1], [0, 0], [0, 0], [0, 1], [1, 0]])
    k, dom = 2, 4
    mist = np.array(
        [[np.sum((X == p).astype(int) != Y[:, j]) for p in range(dom)] for j in range(k)]
    )

    def law(eps):
        return np.outer(_em(mist[0], eps / k), _em(mist[1], eps / k)).ravel()

    def draws(eps, seed, n):
        gen = Generator(seed)
        out = np.zeros(dom * dom, int)
        for _ in range(n):
            h = IndependentMultiLearner(Points(domain_size=dom), eps, rng=gen).fit(X, Y).hypotheses_
            out[h[0].p * dom + h[1].p] += 1
        return out

    eps = 4.0
    counts = draws(eps, 40, 2500)
    assert_power_check(
        lambda f: chi_square_pvalue(counts, law(f * eps)), "independent multi-learner"
    )
    assert_rejects(draws(2 * eps, 41, 1000), law(eps), "independent multi-learner (half the noise)")
    acct = Accountant(Budget(10.0))
    est = IndependentMultiLearner(Points(domain_size=dom), eps, accountant=acct, rng=1).fit(X, Y)
    assert est.privacy_ == Budget(eps, 0.0) and acct.spent == Budget(eps, 0.0)


def test_sanitizer_multi_learner_calibration():
    """Points sanitizer, epsilon = 4, delta = 0.2: the histogram runs with (2, 0.2), b = 1, t = 2 + 1;
    point 1 (count 4) and point 2 (count 3) are released with probabilities 0.73 and 0.27, point
    0 (count 12) almost surely. Candidates: the representatives of the labelings of the
    released points (post-processing of a public enumeration); each concept then gets the
    exponential mechanism with eps/2/k = 1 on its mistakes. The joint law of (released set,
    concept 0's predictions on {0, 1, 2}) is enumerated."""
    eps, delta, k = 4.0, 0.2, 1
    X = np.array([0] * 12 + [1] * 4 + [2] * 3, dtype=float)
    Y = np.zeros((len(X), k), int)
    Y[12:16, 0] = 1  # concept 0 is the point function of 1
    H = Points(domain_size=3)
    assert _threshold(eps / 2, delta) == 3
    counts_of = {0.0: 12, 1.0: 4, 2.0: 3}

    def law(e):
        cells = {}
        rel = {x: _histogram_release(c, e / 2, delta) for x, c in counts_of.items()}
        for mask in itertools.product((0, 1), repeat=3):
            pts = [x for x, on in zip((0.0, 1.0, 2.0), mask) if on]
            pr = math.prod(rel[x] if on else 1 - rel[x] for x, on in zip((0.0, 1.0, 2.0), mask))
            if not pts:
                continue  # probability ~1e-7 (point 0 missing); pooled by the chi-square
            cands = H.dichotomies(np.array(pts)).hypotheses()
            preds = [tuple(H.predict(h, np.array([0.0, 1.0, 2.0])).astype(int)) for h in cands]
            mist = [int(np.sum(H.predict(h, X).astype(int) != Y[:, 0])) for h in cands]
            for pv, pe in zip(preds, _em(mist, e / 2 / k)):
                key = (mask, pv)
                cells[key] = cells.get(key, 0.0) + pr * pe
        return cells

    def draws(e, seed, n):
        gen = Generator(seed)
        out = {}
        for _ in range(n):
            est = SanitizerMultiLearner(H, e, delta, rng=gen).fit(X, Y)
            mask = tuple(
                int(x in set(np.ravel(est.sanitized_points_).tolist())) for x in (0.0, 1.0, 2.0)
            )
            pv = tuple(est.predict(np.array([0.0, 1.0, 2.0]))[:, 0].astype(int))
            out[(mask, pv)] = out.get((mask, pv), 0) + 1
        return out

    def vectors(obs, cells):
        keys = sorted(set(cells) | set(obs))
        return [obs.get(c, 0) for c in keys], [cells.get(c, 0.0) for c in keys]

    obs = draws(eps, 42, 1500)
    c, p = vectors(obs, law(eps))
    assert_fits(c, p, "sanitizer multi-learner")
    c, p = vectors(draws(2 * eps, 43, 1500), law(eps))
    assert_rejects(c, p, "sanitizer multi-learner (half the noise)")
    acct = Accountant(Budget(10.0, 0.5))
    est = SanitizerMultiLearner(H, eps, delta, accountant=acct, rng=1).fit(X, Y)
    assert est.privacy_ == Budget(eps, delta) and acct.spent == Budget(eps, delta)


def test_parity_multi_learner_release_calibration():
    """dim = 2, subsamples of dim + 3 = 5 rows each holding e1 and e2 (full rank), labels of the
    parity x1 xor x2 for every concept: all T = 5 subsamples give the same vector (gap 5).
    A_dist with epsilon = 2 (b = 1), delta = 0.1 (t = 3 + 1) releases iff 5 + Z >= 6."""
    eps, delta, T = 2.0, 0.1, 5
    block = np.array([[1, 0], [0, 1], [1, 1], [0, 0], [1, 0]], dtype=np.uint8)
    X = np.tile(block, (T, 1))
    Y = np.column_stack([(X[:, 0] ^ X[:, 1]), (X[:, 0] ^ X[:, 1])]).astype(np.uint8)

    def prob(e):
        return _dlap_ge(2 + _threshold(e, delta) - T, 2.0 / e)

    def draws(e, seed, n):
        gen = Generator(seed)
        ok = 0
        for _ in range(n):
            est = ParityMultiLearner(2, e, delta, rng=gen).fit(X, Y)
            if est.released_:
                assert est.coefficients_.tolist() == [[1, 1], [1, 1]]
                ok += 1
        return np.array([n - ok, ok])

    assert 0.2 < prob(eps) < 0.8
    counts = draws(eps, 44, 3000)
    assert_power_check(
        lambda f: chi_square_pvalue(counts, [1 - prob(f * eps), prob(f * eps)]),
        "parity multi-learner",
    )
    assert_rejects(
        draws(2 * eps, 45, 3000),
        [1 - prob(eps), prob(eps)],
        "parity multi-learner (half the noise)",
    )


def test_point_multi_learner_histogram_calibration():
    """LearnPoints' histogram runs with (eps/2, delta/2): eps = 4, delta = 0.2 gives b = 1 and
    t = (smallest with e^{-t}/(1 + e^{-1}) <= 0.05, i.e. 3) + 1; with alpha tiny every released
    point is heavy. Point 1 (count 4) is heavy with probability P(Z >= 1), point 2 (count 3) with
    P(Z >= 2), independently."""
    eps, delta = 4.0, 0.2
    X = np.array([0] * 12 + [1] * 4 + [2] * 3, dtype=float)
    Y = np.zeros((len(X), 1), int)
    Y[12:16, 0] = 1

    def law(e):
        r1 = _histogram_release(4, e / 2, delta / 2)
        r2 = _histogram_release(3, e / 2, delta / 2)
        return np.outer([1 - r1, r1], [1 - r2, r2]).ravel()

    def draws(e, seed, n):
        gen = Generator(seed)
        out = np.zeros(4, int)
        for _ in range(n):
            heavy = set(
                np.ravel(
                    PointMultiLearner(e, delta, alpha=1e-9, rng=gen).fit(X, Y).heavy_points_
                ).tolist()
            )
            out[2 * int(1.0 in heavy) + int(2.0 in heavy)] += 1
        return out

    counts = draws(eps, 46, 2000)
    assert_power_check(
        lambda f: chi_square_pvalue(counts, law(f * eps)), "point multi-learner histogram"
    )
    assert_rejects(draws(2 * eps, 47, 1000), law(eps), "point multi-learner (half the noise)")

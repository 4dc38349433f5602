"""Privacy audits of the private learners (DESIGN principle 8).

Each learner runs on two neighbouring datasets (one row replaced) built to make its privacy loss
as large as its calibration allows; :func:`privlearn.audit.audit` turns a one-dimensional
statistic of the released coefficients into a Clopper-Pearson lower confidence bound on epsilon
(alpha = 1e-6: a correct learner fails with probability at most 1e-6), which must stay at or
below the claim. The same audit must catch a deliberately broken variant: the learner with half
its noise (twice the claimed epsilon).

Sampling 10^6 fits per side through ``fit`` would take minutes, so most audits sample the
learner's *release map* vectorised: the exact noise-free solution computed by the learner's own
code plus the noise drawn by the same sampler, or (objective perturbation) an independent
vectorised 1-D solver applied to the same noise. Tests pin each map to the estimator: ``fit``
with a seed returns exactly the map applied to the noise of that seed. One end-to-end audit runs
through ``fit`` itself (slow).

Where a paper's constant is loose, halving its noise is still private and cannot be caught: the
power checks then target the tight calibration (output perturbation, ``sensitivity_bound="tight"``,
whose bound ``2R`` is attained to 99.5%) or a quarter of the noise (the functional mechanism,
whose constant ``2(d+1)^2`` is twice the largest L1 change in ``d = 1``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from privlearn import _core
from privlearn.audit import audit
from privlearn.learners import (
    FunctionalMechanismRegressor,
    ObjectivePerturbationClassifier,
    ObjectivePerturbationRegressor,
    OutputPerturbationClassifier,
    OutputPerturbationRegressor,
)
from privlearn.learners._solvers import Loss
from privlearn.learners.functional import _minimise, functional_sensitivity, polynomial_coefficients
from privlearn.learners.objective_perturbation import objective_perturbation_parameters
from privlearn.mechanisms import exponential
from privlearn.random import Generator

ALPHA = 1e-6
N = 1_000_000
N_OBJ = 400_000  # objective perturbation: each sample is a (vectorised) bisection
EPS = 1.0


def _seed(g):
    return int(g.integers(2**63))


def _statistic(u, v):
    """The exact privacy-loss direction of L2-Laplace noise around ``u`` vs ``v``:
    ``||o - v|| - ||o - u||`` (a 1-D statistic of the coefficients), rounded to 1e-9 so that
    the last bits of the subtraction (which depend on the size of ``o``) are not events."""
    return lambda o: np.round(np.linalg.norm(o - v, axis=1) - np.linalg.norm(o - u, axis=1), 9)


# --------------------------------------------------------------------------------------------
# Output perturbation
# --------------------------------------------------------------------------------------------


def _op_map(est, X, y, scale_factor=1.0):
    """The regressor's release map on (X, y): its exact solution plus its noise (scaled)."""
    data = est._prepare(X, y)
    alpha, radius, delta, eps = est._calibrate(data.n, data.d)
    w_bar = est._noise_free(data, alpha, radius)
    scale = scale_factor * delta / eps

    def run(g, size):
        return w_bar + _core.l2_laplace_noise(data.d, scale, size, _seed(g))

    return run, w_bar


def _op_neighbours(d):
    """One row x = e1, label +1 vs -1: minimisers +-e1/(1 + lam/2), 99.5% of 2R apart."""
    X = np.zeros((1, d))
    X[0, 0] = 1.0
    return X, np.ones(1), -np.ones(1)


@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("variant", ["strongly_convex", "general_convex", "rls_out"])
def test_output_perturbation_regressor_audit(d, variant):
    X, ya, yb = _op_neighbours(d)
    est = OutputPerturbationRegressor(
        EPS,
        alpha=0.01,
        radius=1.0,
        variant=variant,
        sensitivity_bound="tight",
        data_norm=1.0,
        label_bound=1.0,
    )
    run_a, u = _op_map(est, X, ya)
    run_b, v = _op_map(est, X, yb)
    assert np.linalg.norm(u - v) > 0.99 * 2.0
    stat = _statistic(u, v)
    ok = audit(run_a, run_b, claimed=EPS, n=N, statistic=stat, alpha=ALPHA, rng=1)
    assert ok.passed, ok
    # Tightness: over audit seeds 1..8 the bound for d = 3 averaged 0.885 (range 0.864 to 0.904)
    # with both the former polar/Marsaglia-Tsang samplers and rand_distr's (issue 20), so the
    # margin is 0.85, not a value that only some seeds reach.
    assert ok.bound > 0.85 * EPS, f"the worst pair should come close to the claim: {ok}"
    broken_a, _ = _op_map(est, X, ya, 0.5)
    broken_b, _ = _op_map(est, X, yb, 0.5)
    caught = audit(broken_a, broken_b, claimed=EPS, n=N, statistic=stat, alpha=ALPHA, rng=2)
    assert not caught.passed, caught


@pytest.mark.parametrize("variant", ["strongly_convex", "general_convex", "rls_out"])
def test_output_perturbation_paper_constants_audit(variant):
    """The paper's constants (default) pass; they are at least twice the tight bound, so half
    their noise is still private (the power check is the tight calibration's, above)."""
    X, ya, yb = np.ones((1, 1)), np.ones(1), -np.ones(1)
    est = OutputPerturbationRegressor(
        EPS, alpha=0.5, radius=1.0, variant=variant, data_norm=1.0, label_bound=1.0
    )
    run_a, u = _op_map(est, X, ya)
    run_b, v = _op_map(est, X, yb)
    res = audit(
        run_a, run_b, claimed=EPS, n=200_000, statistic=_statistic(u, v), alpha=ALPHA, rng=3
    )
    assert res.passed, res


def test_output_perturbation_release_map_is_fit():
    X, ya, _ = _op_neighbours(3)
    est = OutputPerturbationRegressor(
        EPS,
        alpha=0.01,
        radius=1.0,
        sensitivity_bound="tight",
        rng=77,
        data_norm=1.0,
        label_bound=1.0,
    )
    _, u = _op_map(est, X, ya)
    noise = _core.l2_laplace_noise(3, est.fit(X, ya).noise_scale_, None, 77)
    assert np.array_equal(est.coef_, u + noise)


@pytest.mark.slow
def test_output_perturbation_regressor_end_to_end_audit():
    """Through ``fit`` itself (one fit per sample), d = 2."""
    X, ya, yb = _op_neighbours(2)

    def through_fit(y):
        def run(g, size):
            est = OutputPerturbationRegressor(
                EPS,
                alpha=0.01,
                radius=1.0,
                sensitivity_bound="tight",
                rng=Generator(_seed(g)),
                data_norm=1.0,
                label_bound=1.0,
            )
            return np.array([est.fit(X, y).coef_ for _ in range(size)])

        return run

    u = np.array([1 / 1.005, 0.0])
    res = audit(
        through_fit(ya),
        through_fit(yb),
        claimed=EPS,
        n=15_000,
        statistic=_statistic(u, -u),
        alpha=ALPHA,
        rng=4,
    )
    assert res.passed, res
    assert res.bound > 0.5, res


def _classifier_map(est, X, y, scale_factor=1.0):
    """The classifier's release map via a seeded fit (its noise-free part is ``coef - noise``)."""
    seeded = est.set_params(rng=12345).fit(X, y)
    noise = _core.l2_laplace_noise(X.shape[1], seeded.noise_scale_, None, 12345)
    w_bar = seeded.coef_[0] - noise
    scale = scale_factor * seeded.noise_scale_

    def run(g, size):
        return w_bar + _core.l2_laplace_noise(X.shape[1], scale, size, _seed(g))

    return run, w_bar


def test_output_perturbation_classifier_audit():
    """Smoothed hinge, one row x = 1 with label +1 vs -1, lam = 4: the minimisers +-1/lam sit in
    the loss's linear zone, exactly 2/(lam n) apart: the tight bound (times 1 + 1e-6)."""
    X = np.ones((1, 1))
    est = OutputPerturbationClassifier(
        EPS,
        alpha=4.0,
        loss="smoothed_hinge",
        sensitivity_bound="tight",
        classes=[0, 1],
        data_norm=1.0,
    )
    run_a, u = _classifier_map(est, X, np.ones(1, dtype=int))
    run_b, v = _classifier_map(est, X, np.zeros(1, dtype=int))
    assert u[0] == pytest.approx(0.25) and v[0] == pytest.approx(-0.25)
    stat = _statistic(u, v)
    ok = audit(run_a, run_b, claimed=EPS, n=N, statistic=stat, alpha=ALPHA, rng=5)
    assert ok.passed and ok.bound > 0.9 * EPS, ok
    broken_a, _ = _classifier_map(est, X, np.ones(1, dtype=int), 0.5)
    broken_b, _ = _classifier_map(est, X, np.zeros(1, dtype=int), 0.5)
    assert not audit(
        broken_a, broken_b, claimed=EPS, n=N, statistic=stat, alpha=ALPHA, rng=6
    ).passed


def test_output_perturbation_logistic_audit():
    """Logistic loss, paper constant: passes (its gradient never reaches 1, so no power check)."""
    X = np.ones((2, 1))
    est = OutputPerturbationClassifier(EPS, alpha=0.5, classes=[0, 1], data_norm=1.0)
    run_a, u = _classifier_map(est, X, np.array([1, 1]))
    run_b, v = _classifier_map(est, X, np.array([1, 0]))
    res = audit(
        run_a, run_b, claimed=EPS, n=200_000, statistic=_statistic(u, v), alpha=ALPHA, rng=7
    )
    assert res.passed, res


# --------------------------------------------------------------------------------------------
# Objective perturbation: an independent vectorised 1-D solver applied to the learner's noise
# --------------------------------------------------------------------------------------------


def _solve_1d(loss, x, y, total_reg, lin):
    """argmin_w mean_i loss(x_i w, y_i) + (total_reg/2) w^2 + lin w for an array of ``lin``,
    by bisection on the (increasing) derivative."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    bound = (np.abs(lin) + loss.lipschitz) / total_reg + 1.0
    lo, hi = -bound, bound
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        grad = np.mean(
            loss.derivatives(np.outer(mid, x), np.broadcast_to(y, (mid.size, x.size)))[1] * x,
            axis=1,
        )
        grad = grad + total_reg * mid + lin
        lo, hi = np.where(grad < 0, mid, lo), np.where(grad < 0, hi, mid)
    return 0.5 * (lo + hi)


def _objective_map(loss, scale, alpha, x, y, eps, beta_factor=1.0):
    """CMS11's release in 1-D: b ~ exp(-(eps'/2)|b|) from the learner's sampler, then the
    minimiser of (1/n) sum phi + (alpha/2 + scale Delta/2) w^2 + scale b w / n."""
    n = len(x)
    eps1, extra = objective_perturbation_parameters(eps, n, alpha / scale, loss.curvature / scale)
    beta = beta_factor * eps1 / 2.0

    def run(g, size):
        b = _core.l2_laplace_noise(1, 1.0 / beta, size, _seed(g))[:, 0]
        return _solve_1d(loss, x, y, alpha + scale * extra, scale * b / n)

    return run


OBJECTIVE_CASES = [
    # (id, estimator factory, loss, scale, x, label a, label b): one row, opposite labels.
    (
        "smoothed-hinge",
        lambda: ObjectivePerturbationClassifier(
            EPS, alpha=100.0, loss="smoothed_hinge", classes=[-1, 1], data_norm=1.0
        ),
        Loss("smoothed_hinge", 0.5),
        1.0,
        [1.0],
        [1.0],
        [-1.0],
    ),
    (
        "pseudo-huber",
        lambda: ObjectivePerturbationRegressor(
            EPS, alpha=100.0, huber_delta=0.05, data_norm=1.0, label_bound=1.0
        ),
        Loss("pseudo_huber", 0.05),
        0.05,
        [1.0],
        [1.0],
        [-1.0],
    ),
]


@pytest.mark.parametrize("case", OBJECTIVE_CASES, ids=[c[0] for c in OBJECTIVE_CASES])
def test_objective_perturbation_release_map_is_fit(case):
    _, make, loss, scale, x, ya, _ = case
    for seed in (1, 2, 3):
        est = make().set_params(rng=seed).fit(np.array([x]).T, np.array(ya))
        b = _core.l2_laplace_noise(1, 2.0 / est.epsilon_noise_, None, seed)
        ref = _solve_1d(
            loss, x, ya, est.alpha_ + scale * est.extra_regularization_, scale * b / len(x)
        )
        # Equal up to the learner's certified solver residual (relative 1e-6 of the noise).
        assert np.ravel(est.coef_)[0] == pytest.approx(ref[0], rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("case", OBJECTIVE_CASES, ids=[c[0] for c in OBJECTIVE_CASES])
def test_objective_perturbation_audit(case):
    """Both rows sit in the losses' linear zone (gradient +-1, no curvature), so the noise
    shifts by 2 between neighbours: the privacy loss reaches eps' (~0.98 eps here)."""
    _, _, loss, scale, x, ya, yb = case
    run_a = _objective_map(loss, scale, 100.0, x, ya, EPS)
    run_b = _objective_map(loss, scale, 100.0, x, yb, EPS)
    ok = audit(run_a, run_b, claimed=EPS, n=N_OBJ, alpha=ALPHA, rng=8)
    assert ok.passed and ok.bound > 0.85 * EPS, ok
    broken_a = _objective_map(loss, scale, 100.0, x, ya, EPS, beta_factor=2.0)
    broken_b = _objective_map(loss, scale, 100.0, x, yb, EPS, beta_factor=2.0)
    assert not audit(broken_a, broken_b, claimed=EPS, n=N_OBJ, alpha=ALPHA, rng=9).passed


def test_objective_perturbation_logistic_and_fallback_branch_audit():
    """Logistic loss in the fallback branch (eps' <= 0: eps' = eps/2 and extra regularisation):
    passes.

    No half-noise power check here: the fallback's privacy loss is split between the noise
    density (at most eps'/2 times the gradient change) and the Jacobian factor, and the logistic
    loss reaches neither bound (|l'| < 1, l'' < 1/4 away from 0), so half the noise is not
    guaranteed to exceed eps on any pair and a failed audit would prove nothing. The branch's
    calibration (eps' = eps/2, Delta = c/(n(e^{eps/4} - 1)) - Lam) is pinned at half the noise
    by tests/test_calibration_learners.py (the noise reconstructed from the first-order
    condition, ``logistic-0.002``)."""
    loss = Loss("logistic")
    x, ya, yb = [1.0, 1.0], [1.0, 1.0], [1.0, -1.0]
    eps1, extra = objective_perturbation_parameters(EPS, 2, 0.05, 0.25)
    assert eps1 == EPS / 2 and extra > 0
    res = audit(
        _objective_map(loss, 1.0, 0.05, x, ya, EPS),
        _objective_map(loss, 1.0, 0.05, x, yb, EPS),
        claimed=EPS,
        n=200_000,
        alpha=ALPHA,
        rng=10,
    )
    assert res.passed, res


# --------------------------------------------------------------------------------------------
# Functional mechanism
# --------------------------------------------------------------------------------------------


def _fm_map(y_value, eps, noise_factor=1.0, release="coef"):
    """The functional mechanism on one row (x = 1, y = y_value), d = 1, vectorised: the exact
    Laplace sampler on the coefficient vector, then Zhang et al.'s post-processing."""
    X = np.ones((1, 1))
    coeffs = polynomial_coefficients(X, np.array([y_value]))
    delta = functional_sensitivity(1)
    reg = 5 * math.sqrt(2) * delta / eps

    def run(g, size):
        noisy = _core.laplace(
            np.tile(coeffs, (size, 1)), noise_factor * delta, eps, _seed(g), "exact"
        )
        if release == "linear":
            return noisy[:, 1]
        m = noisy[:, 2] + reg
        return np.where(m > 1e-8, -noisy[:, 1] / (2 * np.where(m > 1e-8, m, 1.0)), 0.0)

    return run


def test_functional_mechanism_release_map_is_fit():
    for seed in (1, 2):
        est = FunctionalMechanismRegressor(EPS, rng=seed, data_norm=1.0, label_bound=1.0).fit(
            np.ones((1, 1)), np.ones(1)
        )
        noisy = _core.laplace(
            polynomial_coefficients(np.ones((1, 1)), np.ones(1)),
            functional_sensitivity(1),
            EPS,
            seed,
            "exact",
        )
        assert est.coef_[0] == _minimise(noisy, 1, 5 * math.sqrt(2) * 8 / EPS, 1e-8)[0]
        m = noisy[2] + 5 * math.sqrt(2) * 8 / EPS
        assert est.coef_[0] == pytest.approx(-noisy[1] / (2 * m), rel=1e-12)


def test_functional_mechanism_audit():
    """Rows (1, 1) and (1, -1) change only the linear coefficient, by 4 of the L1 budget 8: the
    coefficients pass at 0.5 eps, and so does the released coefficient; with a quarter of the
    noise (true epsilon 2) the linear coefficient is caught."""
    for release in ("linear", "coef"):
        res = audit(
            _fm_map(1.0, EPS, release=release),
            _fm_map(-1.0, EPS, release=release),
            claimed=EPS,
            n=N,
            alpha=ALPHA,
            rng=11,
        )
        assert res.passed, res
    half = audit(
        _fm_map(1.0, EPS, release="linear"),
        _fm_map(-1.0, EPS, release="linear"),
        claimed=EPS / 2,
        n=N,
        alpha=ALPHA,
        rng=12,
    )
    assert half.passed and half.bound > 0.4 * EPS, half
    caught = audit(
        _fm_map(1.0, EPS, 0.25, "linear"),
        _fm_map(-1.0, EPS, 0.25, "linear"),
        claimed=EPS,
        n=N,
        alpha=ALPHA,
        rng=13,
    )
    assert not caught.passed, caught


# --------------------------------------------------------------------------------------------
# Private tuning: the selection step
# --------------------------------------------------------------------------------------------


def _selection(predictions, y_val, eps, mode="strict", bound=1.0, sens_factor=1.0):
    """PrivateTuning's choice among fixed candidates with the given validation predictions
    (one validation row): strict (clipped score, sensitivity 4 B^2/|S'|) or the paper's rule
    (unclipped, 'sensitivity' R^2 = 1)."""
    p = np.asarray(predictions, float)
    if mode == "strict":
        scores = -((np.clip(p, -bound, bound) - np.clip(y_val, -bound, bound)) ** 2)
        sens = sens_factor * 4 * bound * bound
    else:
        scores = -(((p - y_val) / bound) ** 2)
        sens = 1.0

    def run(g, size):
        return exponential(scores, eps, sens, size=size, rng=_seed(g))

    return run


def test_private_tuning_selection_audit():
    """One candidate predicts +1 and fifty predict -1 on the validation row, whose label flips
    from +1 to -1: every strict score moves by the full 4 B^2, the first against all the others,
    which is the exponential mechanism's worst case (privacy loss -> eps as the others
    multiply). Halving the sensitivity is caught, and so is the paper's unclipped rule on wild
    candidates (errata B1)."""
    cands = [1.0] + [-1.0] * 50
    ok = audit(
        _selection(cands, 1.0, EPS),
        _selection(cands, -1.0, EPS),
        claimed=EPS,
        n=N,
        alpha=ALPHA,
        rng=14,
    )
    assert ok.passed and ok.bound > 0.9 * EPS, ok
    half = audit(
        _selection(cands, 1.0, EPS, sens_factor=0.5),
        _selection(cands, -1.0, EPS, sens_factor=0.5),
        claimed=EPS,
        n=N,
        alpha=ALPHA,
        rng=15,
    )
    assert not half.passed, half
    wild = [3.0, -3.0]
    paper = audit(
        _selection(wild, 1.0, EPS, "paper"),
        _selection(wild, -1.0, EPS, "paper"),
        claimed=EPS,
        n=N,
        alpha=ALPHA,
        rng=16,
    )
    assert not paper.passed and paper.bound > 5 * EPS, paper
    strict_wild = audit(
        _selection(wild, 1.0, EPS),
        _selection(wild, -1.0, EPS),
        claimed=EPS,
        n=N,
        alpha=ALPHA,
        rng=17,
    )
    assert strict_wild.passed, strict_wild

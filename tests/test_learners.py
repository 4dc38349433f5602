"""privlearn.learners (seed 001): API, errors, declared bounds, accounting, exact solvers,
sensitivity constants against brute-force neighbour pairs, utility monotone in epsilon, private
tuning and the oracle. Privacy audits are in test_learner_audits.py; scikit-learn conformance
in test_learners_sklearn.py."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from privlearn import BudgetExceededError, InvalidParameterError, _core
from privlearn.accounting import Accountant, Budget
from privlearn.learners import (
    FunctionalMechanismRegressor,
    ObjectivePerturbationClassifier,
    ObjectivePerturbationRegressor,
    OutputPerturbationClassifier,
    OutputPerturbationRegressor,
    PrivateTuning,
    _base,
    data_independent_parameters,
    oracle_parameters,
    rls_out,
)
from privlearn.learners._solvers import Loss, RidgeSpectrum, newton, newton_ball, ridge_ball
from privlearn.learners.functional import functional_sensitivity, polynomial_coefficients
from privlearn.learners.objective_perturbation import objective_perturbation_parameters
from privlearn.learners.output_perturbation import output_sensitivity
from privlearn.learners.tuning import PAPER_LAMBDA_GRID, tuning_score_sensitivity
from privlearn.random import Generator

#: The declared bounds of the test data (required parameters: there is no default bound).
BOUNDS = {"data_norm": 1.0, "label_bound": 1.0}
CLF = {"classes": [0, 1], "data_norm": 1.0}  # the classes are declared too (never read from y)
REGRESSORS = [
    lambda **kw: OutputPerturbationRegressor(1.0, **{**BOUNDS, **kw}),
    lambda **kw: OutputPerturbationRegressor(1.0, variant="general_convex", **{**BOUNDS, **kw}),
    lambda **kw: OutputPerturbationRegressor(1.0, variant="rls_out", alpha=0.5, **{**BOUNDS, **kw}),
    lambda **kw: ObjectivePerturbationRegressor(1.0, **{**BOUNDS, **kw}),
    lambda **kw: FunctionalMechanismRegressor(1.0, **{**BOUNDS, **kw}),
]
CLASSIFIERS = [
    lambda **kw: OutputPerturbationClassifier(1.0, **{**CLF, **kw}),
    lambda **kw: OutputPerturbationClassifier(
        1.0,
        loss="smoothed_hinge",
        radius=2.0,
        variant="general_convex",
        **{**CLF, **kw},
    ),
    lambda **kw: ObjectivePerturbationClassifier(1.0, **{**CLF, **kw}),
    lambda **kw: ObjectivePerturbationClassifier(1.0, loss="smoothed_hinge", **{**CLF, **kw}),
]


def _regression(n=400, d=3, seed=0, noise=0.05):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d)) / math.sqrt(d)
    w = np.linspace(0.8, -0.5, d)
    y = np.clip(X @ w + noise * rng.normal(size=n), -1, 1)
    return X, y


def _classification(n=400, d=3, seed=0):
    X, y = _regression(n, d, seed)
    return X, (y > 0).astype(int)


def _unit_rows(rng, n, d):
    X = rng.normal(size=(n, d))
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None] * rng.uniform(0, 1, size=(n, 1))


# --------------------------------------------------------------------------------------------
# Basic behaviour
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", REGRESSORS + CLASSIFIERS)
def test_fit_predict_shapes_and_determinism(make):
    classifier = make in CLASSIFIERS
    X, y = _classification() if classifier else _regression()
    a = make(rng=5).fit(X, y)
    b = make(rng=5).fit(X, y)
    c = make(rng=6).fit(X, y)
    assert a.n_features_in_ == 3
    assert np.array_equal(a.coef_, b.coef_), "same seed, same model"
    assert not np.array_equal(a.coef_, c.coef_), "another seed, another model"
    pred = a.predict(X)
    assert pred.shape == (X.shape[0],)
    if classifier:
        assert set(np.unique(pred)) <= {0, 1}
        assert a.coef_.shape == (1, 3) and a.intercept_.shape == (1,)
    else:
        assert a.coef_.shape == (3,) and isinstance(a.intercept_, float)


def test_fit_equals_noise_free_plus_l2_noise():
    """The estimator's release map: exact minimiser plus the l2-Laplace draw of the same seed."""
    X, y = _regression(d=4)
    est = OutputPerturbationRegressor(
        0.7, alpha=0.05, radius=0.5, rng=11, data_norm=1.0, label_bound=1.0
    ).fit(X, y)
    data = _base.normalise(X, y, data_norm=1.0, label_bound=1.0, fit_intercept=False)
    w_bar, _ = ridge_ball(RidgeSpectrum.from_data(data.X, data.y), 0.05, 0.5)
    noise = _core.l2_laplace_noise(4, est.noise_scale_, None, 11)
    assert np.array_equal(est.coef_, w_bar + noise)
    assert est.noise_scale_ == pytest.approx(
        4 * 2 * (0.5 + 1) / (0.05 * X.shape[0] * 0.7), rel=1e-15
    )


def test_large_epsilon_recovers_the_noise_free_solution():
    X, y = _regression(n=2000)
    ridge = OutputPerturbationRegressor(
        1e9, alpha=1e-3, radius=None, rng=0, data_norm=1.0, label_bound=1.0
    ).fit(X, y)
    target = np.linalg.solve(2 * X.T @ X / X.shape[0] + 1e-3 * np.eye(3), 2 * X.T @ y / X.shape[0])
    assert np.allclose(ridge.coef_, target, atol=1e-6)
    fm = FunctionalMechanismRegressor(1e9, rng=0, data_norm=1.0, label_bound=1.0).fit(X, y)
    assert np.allclose(fm.coef_, np.linalg.lstsq(X, y, rcond=None)[0], atol=1e-3)
    obj = ObjectivePerturbationRegressor(
        1e9, alpha=1e-6, huber_delta=10.0, rng=0, data_norm=1.0, label_bound=1.0
    ).fit(X, y)
    assert np.allclose(obj.coef_, np.linalg.lstsq(X, y, rcond=None)[0], atol=1e-3)


def test_declared_bounds_clip_rows_and_labels_and_rescale():
    """Coefficients come back in the original units; rows beyond data_norm and labels beyond
    label_bound are clipped (so scaling the data and the bounds together changes nothing but
    the units)."""
    X, y = _regression(n=1000)
    a = OutputPerturbationRegressor(
        2.0, alpha=0.01, radius=2.0, rng=1, data_norm=1.0, label_bound=1.0
    ).fit(X, y)
    b = OutputPerturbationRegressor(
        2.0, alpha=0.01, radius=2.0, data_norm=10.0, label_bound=3.0, rng=1
    ).fit(10 * X, 3 * y)
    assert np.allclose(b.coef_, a.coef_ * 3 / 10, rtol=1e-12)
    # Rows far outside the bound are clipped: the fit equals the fit on the clipped rows.
    Xbig = X.copy()
    Xbig[:10] *= 50
    clipped = Xbig / np.maximum(1.0, np.linalg.norm(Xbig, axis=1))[:, None]
    ybig = y.copy()
    ybig[:5] = 40.0
    c = OutputPerturbationRegressor(2.0, alpha=0.01, rng=3, data_norm=1.0, label_bound=1.0).fit(
        Xbig, ybig
    )
    d = OutputPerturbationRegressor(2.0, alpha=0.01, rng=3, data_norm=1.0, label_bound=1.0).fit(
        clipped, np.clip(ybig, -1, 1)
    )
    assert np.allclose(c.coef_, d.coef_, rtol=1e-12)
    data = _base.normalise(Xbig, ybig, data_norm=1.0, label_bound=1.0, fit_intercept=True)
    assert np.all(np.linalg.norm(data.X, axis=1) <= 1.0) and np.all(np.abs(data.y) <= 1.0)


def test_intercept():
    X, y = _regression(n=3000)
    y = np.clip(y + 0.4, -1, 1)
    model = OutputPerturbationRegressor(
        1e6, alpha=1e-4, radius=None, fit_intercept=True, rng=0, data_norm=1.0, label_bound=1.0
    ).fit(X, y)
    assert model.intercept_ == pytest.approx(0.4, abs=0.05)
    clf = OutputPerturbationClassifier(
        1e6, alpha=1e-4, fit_intercept=True, classes=[0, 1], rng=0, data_norm=1.0
    ).fit(X, (y > 0.4).astype(int))
    assert clf.score(X, (y > 0.4).astype(int)) > 0.9


def test_classifiers_learn_and_predict_proba():
    X, y = _classification(n=3000)
    for make in CLASSIFIERS:
        model = make(rng=2).set_params(epsilon=50.0, alpha=1e-3).fit(X, y)
        assert model.score(X, y) > 0.85, make
    lr = OutputPerturbationClassifier(50.0, classes=[0, 1], rng=0, data_norm=1.0).fit(X, y)
    proba = lr.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(proba.argmax(axis=1), lr.predict(X))
    assert not hasattr(
        OutputPerturbationClassifier(1.0, loss="smoothed_hinge", data_norm=1.0), "predict_proba"
    )
    # Labels of any type; classes_[1] is the positive class.
    labels = np.where(y == 1, "yes", "no")
    assert set(
        OutputPerturbationClassifier(50.0, classes=["no", "yes"], rng=0, data_norm=1.0)
        .fit(X, labels)
        .predict(X)
    ) <= {"yes", "no"}


def test_data_independent_parameters_and_auto_alpha():
    p = data_independent_parameters(3000, 14, 0.1)
    assert p == {"alpha": pytest.approx(0.216024689947), "radius": 1.0}
    assert data_independent_parameters(3000, 14, 100.0)["alpha"] == pytest.approx(0.006831300511)
    X, y = _regression(n=500, d=3)
    model = OutputPerturbationRegressor(2.0, rng=0, data_norm=1.0, label_bound=1.0).fit(X, y)
    assert model.alpha_ == pytest.approx(math.sqrt(3 / (500 * 2.0)))
    with_intercept = OutputPerturbationRegressor(
        2.0, fit_intercept=True, rng=0, data_norm=1.0, label_bound=1.0
    ).fit(X, y)
    assert with_intercept.alpha_ == pytest.approx(math.sqrt(4 / (500 * 2.0)))


def test_rls_out_is_algorithm_4():
    X, y = _regression(n=800)
    coef = rls_out(X, y, 0.5, alpha=0.1, radius=1.0, rng=4, data_norm=1.0, label_bound=1.0)
    model = OutputPerturbationRegressor(
        0.5, alpha=0.1, radius=1.0, variant="rls_out", rng=4, data_norm=1.0, label_bound=1.0
    ).fit(X, y)
    assert np.array_equal(coef, model.coef_)
    assert model.sensitivity_ == pytest.approx((12 * 1 + 8) / (0.1 * 800))
    with pytest.raises(InvalidParameterError, match="alpha <= 1") as err:
        rls_out(X, y, 0.5, alpha=1.5, radius=1.0, rng=4, data_norm=1.0, label_bound=1.0)
    assert err.value.parameter == "alpha"


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------

BAD_PARAMS = [
    ("epsilon", dict(epsilon=None)),
    ("epsilon", dict(epsilon=0.0)),
    ("epsilon", dict(epsilon=-1.0)),
    ("epsilon", dict(epsilon=math.inf)),
    ("epsilon", dict(epsilon=math.nan)),
    ("epsilon", dict(epsilon="1")),
    ("data_norm", dict(data_norm=None)),
    ("data_norm", dict(data_norm=0.0)),
    ("label_bound", dict(label_bound=None)),
    ("label_bound", dict(label_bound=-2.0)),
    ("alpha", dict(alpha=0.0)),
    ("alpha", dict(alpha="theory")),
    ("radius", dict(radius=-1.0)),
    ("radius", dict(radius=None, variant="general_convex")),
    ("variant", dict(variant="convex")),
    ("sensitivity_bound", dict(sensitivity_bound="loose")),
    ("fit_intercept", dict(fit_intercept="yes")),
    ("accountant", dict(accountant="acct")),
]


@pytest.mark.parametrize(
    "name,params", BAD_PARAMS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BAD_PARAMS)]
)
def test_bad_parameters_name_the_parameter(name, params):
    X, y = _regression()
    acct = Accountant(Budget(10.0))
    est = OutputPerturbationRegressor(
        1.0, rng=0, accountant=acct, data_norm=1.0, label_bound=1.0
    ).set_params(**params)
    if name == "accountant":
        est.set_params(accountant="acct")
    with pytest.raises(InvalidParameterError) as err:
        est.fit(X, y)
    assert err.value.parameter == name
    assert str(err.value).startswith(name)
    assert not hasattr(est, "coef_")
    assert acct.spent == Budget(0.0), "a refused fit spends nothing"


BAD_DATA = [
    ("X", lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 7, np.nan, X), y), "NaN"),
    (
        "X",
        lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 7, np.inf, X), y),
        "infinity",
    ),
    ("y", lambda X, y: (X, np.where(np.arange(y.size) == 3, np.nan, y)), "NaN"),
    ("y", lambda X, y: (X, y[:-1]), "inconsistent numbers of samples"),
    ("X", lambda X, y: (X[:, 0], y), "2D array"),
    ("X", lambda X, y: (X[:0], y[:0]), "0 sample"),
    ("y", lambda X, y: (X, None), "requires y"),
]


@pytest.mark.parametrize("make", REGRESSORS + CLASSIFIERS)
@pytest.mark.parametrize("name,corrupt,message", BAD_DATA, ids=[f"{n}-{m}" for n, _, m in BAD_DATA])
def test_bad_data_gives_clear_errors(make, name, corrupt, message):
    classifier = make in CLASSIFIERS
    X, y = _classification(n=30) if classifier else _regression(n=30)
    if classifier:
        y = y.astype(float)
    acct = Accountant(Budget(5.0))
    est = make(rng=0, accountant=acct)
    Xb, yb = corrupt(X, y)
    with pytest.raises(InvalidParameterError, match=message) as err:
        est.fit(Xb, yb)
    assert err.value.parameter == name
    assert acct.spent == Budget(0.0)


def test_predict_checks_features_and_fit_state():
    X, y = _regression()
    est = OutputPerturbationRegressor(1.0, rng=0, data_norm=1.0, label_bound=1.0)
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        est.predict(X)
    est.fit(X, y)
    with pytest.raises(InvalidParameterError, match="features") as err:
        est.predict(X[:, :2])
    assert err.value.parameter == "X"


def test_classifier_target_errors():
    X, y = _classification(n=60)
    with pytest.raises(
        InvalidParameterError, match="Only binary classification is supported"
    ) as err:
        OutputPerturbationClassifier(1.0, classes=[0, 1], data_norm=1.0).fit(X, np.arange(60) % 3)
    assert err.value.parameter == "y"
    with pytest.raises(InvalidParameterError, match="classes=") as err:
        ObjectivePerturbationClassifier(1.0, data_norm=1.0).fit(X, y)
    assert err.value.parameter == "classes"
    with pytest.raises(InvalidParameterError, match="two distinct labels") as err:
        ObjectivePerturbationClassifier(1.0, classes=[1, 1], data_norm=1.0).fit(X, y)
    assert err.value.parameter == "classes"
    # One declared class only in y: fitted like any other sample of the declared domain.
    assert ObjectivePerturbationClassifier(1.0, classes=[0, 1], rng=0, data_norm=1.0).fit(
        X, np.ones(60)
    ).classes_.tolist() == [0, 1]
    with pytest.raises(InvalidParameterError, match="continuous"):
        OutputPerturbationClassifier(1.0, classes=[0, 1], data_norm=1.0).fit(
            X, np.linspace(0, 1, 60)
        )
    with pytest.raises(InvalidParameterError) as err:
        OutputPerturbationClassifier(1.0, variant="rls_out", data_norm=1.0).fit(X, y)
    assert err.value.parameter == "variant"
    with pytest.raises(InvalidParameterError) as err:
        OutputPerturbationClassifier(1.0, loss="hinge", data_norm=1.0).fit(X, y)
    assert err.value.parameter == "loss"
    with pytest.raises(InvalidParameterError) as err:
        ObjectivePerturbationClassifier(
            1.0, loss="smoothed_hinge", smoothing=0.0, data_norm=1.0
        ).fit(X, y)
    assert err.value.parameter == "smoothing"
    with pytest.raises(InvalidParameterError) as err:
        OutputPerturbationClassifier(1.0, variant="general_convex", data_norm=1.0).fit(X, y)
    assert err.value.parameter == "radius"


def test_other_estimator_parameter_errors():
    X, y = _regression(n=50)
    for est, name in [
        (
            ObjectivePerturbationRegressor(1.0, huber_delta=0.0, data_norm=1.0, label_bound=1.0),
            "huber_delta",
        ),
        (
            FunctionalMechanismRegressor(1.0, reg_multiplier=-1.0, data_norm=1.0, label_bound=1.0),
            "reg_multiplier",
        ),
        (
            FunctionalMechanismRegressor(1.0, trim_threshold=0.0, data_norm=1.0, label_bound=1.0),
            "trim_threshold",
        ),
        (FunctionalMechanismRegressor(1.0, label_bound=None, data_norm=1.0), "label_bound"),
        (ObjectivePerturbationRegressor(None, data_norm=1.0, label_bound=1.0), "epsilon"),
    ]:
        with pytest.raises(InvalidParameterError) as err:
            est.fit(X, y)
        assert err.value.parameter == name


# --------------------------------------------------------------------------------------------
# Accounting and cloning
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", REGRESSORS + CLASSIFIERS)
def test_fit_spends_epsilon_and_refuses_overspend(make):
    classifier = make in CLASSIFIERS
    X, y = _classification() if classifier else _regression()
    acct = Accountant(Budget(2.5))
    est = make(rng=0, accountant=acct).set_params(epsilon=1.0)
    est.fit(X, y)
    est.fit(X, y)
    assert acct.spent == Budget(2.0)
    assert [e.label for e in acct.ledger] == [type(est).__name__] * 2
    coef = est.coef_.copy()
    with pytest.raises(BudgetExceededError):
        est.fit(X, y)
    assert acct.spent == Budget(2.0)
    assert np.array_equal(est.coef_, coef), "a refused fit changes nothing"


def test_clones_share_accountant_and_generator():
    X, y = _regression(n=200)
    acct = Accountant(Budget(10.0))
    gen = Generator(1)
    est = OutputPerturbationRegressor(1.0, accountant=acct, rng=gen, data_norm=1.0, label_bound=1.0)
    copy = clone(est)
    assert copy.accountant is acct and copy.rng is gen
    a = est.fit(X, y).coef_.copy()
    b = copy.fit(X, y).coef_.copy()
    assert not np.array_equal(a, b), "a shared generator gives fresh noise to each clone"
    assert acct.spent == Budget(2.0)
    # cross-validation fits 3 clones: each spends from the same accountant.
    cross_val_score(est, X, y, cv=3)
    assert acct.spent == Budget(5.0)
    pipe = make_pipeline(
        FunctionTransformer(),
        OutputPerturbationRegressor(1.0, accountant=acct, rng=gen, data_norm=1.0, label_bound=1.0),
    )
    clone(pipe).fit(X, y)
    assert acct.spent == Budget(6.0)


# --------------------------------------------------------------------------------------------
# Solvers
# --------------------------------------------------------------------------------------------


def _qp(objective, d, radius):
    cons = [] if radius is None else [{"type": "ineq", "fun": lambda w: radius**2 - w @ w}]
    res = minimize(
        objective,
        np.zeros(d),
        constraints=cons,
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 1000},
    )
    return res.x


@pytest.mark.parametrize("seed", range(6))
def test_ridge_ball_is_exact(seed):
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(1, 40)), int(rng.integers(1, 6))
    X = _unit_rows(rng, n, d)
    y = rng.uniform(-1, 1, n)
    lam = float(10 ** rng.uniform(-3, 0))
    radius = [None, 0.05, 0.3, 2.0][seed % 4]
    spec = RidgeSpectrum.from_data(X, y)
    w, mu = ridge_ball(spec, lam, radius)
    grad = 2 * X.T @ (X @ w - y) / n + lam * w
    # KKT: stationary with multiplier mu >= 0; mu > 0 only on the sphere.
    assert np.linalg.norm(grad + mu * w) <= 1e-12
    assert mu >= 0
    if mu > 0:
        assert np.linalg.norm(w) == pytest.approx(radius, rel=1e-13)
    else:
        assert radius is None or np.linalg.norm(w) <= radius
    ref = _qp(lambda v: np.mean((X @ v - y) ** 2) + lam / 2 * v @ v, d, radius)
    assert np.allclose(w, ref, atol=1e-6)
    f = lambda v: np.mean((X @ v - y) ** 2) + lam / 2 * v @ v  # noqa: E731
    assert f(w) <= f(ref) + 1e-13


@pytest.mark.parametrize(
    "loss",
    [
        Loss("logistic"),
        Loss("smoothed_hinge", 0.5),
        Loss("smoothed_hinge", 0.05),
        Loss("pseudo_huber", 0.3),
    ],
)
@pytest.mark.parametrize("radius", [None, 0.2, 1.5])
def test_newton_certifies_its_residual(loss, radius):
    rng = np.random.default_rng(7)
    n, d = 60, 3
    X = _unit_rows(rng, n, d)
    y = np.sign(rng.normal(size=n)) if loss.name != "pseudo_huber" else rng.uniform(-1, 1, n)
    lam, tol = 0.01, 1e-11
    w, res = newton_ball(loss, X, y, lam, radius, tol=tol)
    assert res <= tol
    f = lambda v: np.mean(loss.value(X @ v, y)) + lam / 2 * v @ v  # noqa: E731
    ref = _qp(f, d, radius)
    assert f(w) <= f(ref) + 1e-12
    # The residual bounds the distance to the exact minimiser: ||w - w*|| <= res / lam.
    assert np.linalg.norm(w - ref) <= res / lam + 1e-6
    # A linear tilt (objective perturbation) is honoured too.
    lin = rng.normal(size=d) * 0.1
    w2, r2 = newton(loss, X, y, lam, lin=lin, tol=tol)
    grad = X.T @ loss.derivatives(X @ w2, y)[1] / n + lam * w2 + lin
    assert np.linalg.norm(grad) == pytest.approx(r2) and r2 <= tol


@pytest.mark.parametrize(
    "loss",
    [
        Loss("logistic"),
        Loss("smoothed_hinge", 0.5),
        Loss("smoothed_hinge", 0.1),
        Loss("pseudo_huber", 0.25),
        Loss("pseudo_huber", 2.0),
    ],
)
def test_loss_derivatives_and_bounds(loss):
    """Finite differences agree with the derivatives; |l'| <= lipschitz and 0 <= l'' <= curvature
    everywhere (the conditions of Theorem 14 and of CMS11's Theorem 9)."""
    z = np.linspace(-50, 50, 200_001)
    for label in (-1.0, 1.0) if loss.name != "pseudo_huber" else (-1.0, 0.0, 0.7):
        y = np.full_like(z, label)
        v, d1, d2 = loss.derivatives(z, y)
        assert np.all(np.abs(d1) <= loss.lipschitz * (1 + 1e-15))
        assert np.all(d2 >= 0) and np.all(d2 <= loss.curvature * (1 + 1e-15))
        h = 1e-6
        num = (loss.value(z + h, y) - loss.value(z - h, y)) / (2 * h)
        assert np.allclose(num, d1, atol=1e-5)
        assert np.max(np.abs(d1)) > 0.99 * loss.lipschitz, "the Lipschitz constant is attained"


# --------------------------------------------------------------------------------------------
# Sensitivity constants against brute-force neighbour pairs
# --------------------------------------------------------------------------------------------


def _neighbour_rows(rng, d, x):
    """Adversarial replacements of a row: signed unit vectors, the row's direction, zero, random."""
    cands = [np.zeros(d)]
    for j in range(d):
        for s in (1.0, -1.0):
            e = np.zeros(d)
            e[j] = s
            cands.append(e)
    if np.linalg.norm(x) > 0:
        cands += [x / np.linalg.norm(x), -x / np.linalg.norm(x)]
    cands += list(
        _unit_rows(rng, 3, d)
        / np.maximum(1e-12, np.linalg.norm(_unit_rows(rng, 3, d), axis=1))[:, None]
    )
    return cands


@pytest.mark.parametrize("seed", range(8))
def test_output_perturbation_sensitivity_brute_force(seed):
    """max ||w_bar(S) - w_bar(S')|| over replace-one neighbours stays below the tight bound
    min(2 rho/(lam n), 2R), hence below every variant's constant."""
    rng = np.random.default_rng(seed)
    n, d = [1, 2, 5, 20][seed % 4], [1, 2, 3][seed % 3]
    lam = float(10 ** rng.uniform(-2.5, 0))
    radius = [0.3, 1.0, 3.0, None][seed % 4]
    X = _unit_rows(rng, n, d)
    y = rng.uniform(-1, 1, n)
    ball = math.sqrt(2 / lam) if radius is None else radius
    rho = 2 * (ball + 1)
    bounds = {
        v: output_sensitivity(n, lam, ball, rho, variant=v)
        for v in ("strongly_convex", "general_convex")
    }
    tight = output_sensitivity(n, lam, ball, rho, sensitivity_bound="tight")
    if lam <= 1:
        bounds["rls_out"] = output_sensitivity(n, lam, ball, rho, variant="rls_out")
    assert all(tight <= b for b in bounds.values())
    base = ridge_ball(RidgeSpectrum.from_data(X, y), lam, radius)[0]
    worst = 0.0
    for i in range(n):
        for x2 in _neighbour_rows(rng, d, X[i]):
            for y2 in (-1.0, 1.0, 0.0, -y[i]):
                X2, y2v = X.copy(), y.copy()
                X2[i], y2v[i] = x2, y2
                w2 = ridge_ball(RidgeSpectrum.from_data(X2, y2v), lam, radius)[0]
                worst = max(worst, float(np.linalg.norm(w2 - base)))
    assert worst <= tight * (1 + 1e-9)


def test_output_perturbation_tight_bound_is_attained():
    """One row, x = 1, y = +-1, small lam: the minimisers are +-1/(1 + lam/2), at distance
    2/(1 + lam/2) of each other, 99.5% of the tight bound 2R (lam = 0.01)."""
    lam = 0.01
    a = ridge_ball(RidgeSpectrum.from_data(np.ones((1, 1)), np.ones(1)), lam, 1.0)[0]
    b = ridge_ball(RidgeSpectrum.from_data(np.ones((1, 1)), -np.ones(1)), lam, 1.0)[0]
    gap = float(abs(a[0] - b[0]))
    assert gap == pytest.approx(2 / (1 + lam / 2), rel=1e-14)
    assert gap / output_sensitivity(1, lam, 1.0, 4.0, sensitivity_bound="tight") > 0.99


@pytest.mark.parametrize("loss", [Loss("logistic"), Loss("smoothed_hinge", 0.5)])
@pytest.mark.parametrize("radius", [None, 0.5])
def test_classifier_sensitivity_brute_force(loss, radius):
    rng = np.random.default_rng(3)
    worst_ratio = 0.0
    for n, d in [(1, 1), (3, 2), (10, 2)]:
        lam = 0.05
        X = _unit_rows(rng, n, d)
        y = np.sign(rng.normal(size=n))
        base = newton_ball(loss, X, y, lam, radius, tol=1e-12)[0]
        tight = output_sensitivity(n, lam, radius, 1.0, sensitivity_bound="tight")
        for i in range(n):
            for x2 in _neighbour_rows(rng, d, X[i]):
                for y2 in (-1.0, 1.0):
                    X2, y2v = X.copy(), y.copy()
                    X2[i], y2v[i] = x2, y2
                    w2 = newton_ball(loss, X2, y2v, lam, radius, tol=1e-12)[0]
                    worst_ratio = max(worst_ratio, float(np.linalg.norm(w2 - base)) / tight)
    assert worst_ratio <= 1 + 1e-9
    assert worst_ratio > 0.3, "the bound is not vacuous"


def test_functional_mechanism_sensitivity_brute_force():
    """L1 distance of the polynomial coefficients of neighbouring datasets <= 2(d+1)^2, over rows
    at the corners of the box [-1, 1]^d and of the ball, for every pair of replacements."""
    rng = np.random.default_rng(0)
    for d in (1, 2, 3):
        corners = [np.array(c, dtype=float) for c in itertools.product((-1.0, 0.0, 1.0), repeat=d)]
        rows = corners + list(_unit_rows(rng, 5, d))
        X = _unit_rows(rng, 4, d)
        y = rng.uniform(-1, 1, 4)
        worst = 0.0
        for (xa, ya), (xb, yb) in itertools.product(
            itertools.product(rows, (-1.0, 0.0, 1.0)), repeat=2
        ):
            Xa, Xb = X.copy(), X.copy()
            yav, ybv = y.copy(), y.copy()
            Xa[0], yav[0], Xb[0], ybv[0] = xa, ya, xb, yb
            diff = np.abs(polynomial_coefficients(Xa, yav) - polynomial_coefficients(Xb, ybv)).sum()
            worst = max(worst, float(diff))
        assert worst <= functional_sensitivity(d) + 1e-9
        assert worst >= functional_sensitivity(d) / 2 - 1e-9, "the box corners reach half the bound"


def test_polynomial_coefficients_define_the_objective():
    rng = np.random.default_rng(1)
    X, y = _unit_rows(rng, 7, 3), rng.uniform(-1, 1, 7)
    c = polynomial_coefficients(X, y)
    w = rng.normal(size=3)
    iu = np.triu_indices(3)
    value = c[0] + c[1:4] @ w + c[4:] @ (w[iu[0]] * w[iu[1]])
    assert value == pytest.approx(np.sum((y - X @ w) ** 2), rel=1e-12)


def test_objective_perturbation_gradient_shift_brute_force():
    """CMS11's proof: the noise of neighbouring datasets that produce the same output differs by
    the difference of two per-example gradients, of norm <= 2 for the normalised losses."""
    rng = np.random.default_rng(2)
    for loss, scale in [
        (Loss("logistic"), 1.0),
        (Loss("smoothed_hinge", 0.5), 1.0),
        (Loss("pseudo_huber", 0.3), 0.3),
    ]:
        worst = 0.0
        for _ in range(200):
            w = rng.normal(size=3) * rng.uniform(0, 5)
            x1, x2 = _unit_rows(rng, 2, 3)
            y1, y2 = (
                np.sign(rng.normal(size=2))
                if loss.name != "pseudo_huber"
                else rng.uniform(-1, 1, 2)
            )
            g1 = loss.derivatives(np.array([x1 @ w]), np.array([y1]))[1][0] * x1 / scale
            g2 = loss.derivatives(np.array([x2 @ w]), np.array([y2]))[1][0] * x2 / scale
            worst = max(worst, float(np.linalg.norm(g1 - g2)))
        assert worst <= 2.0


def test_objective_perturbation_parameters():
    # eps' > 0: no extra regularisation.
    eps1, extra = objective_perturbation_parameters(1.0, 1000, 0.01, 0.25)
    assert extra == 0.0 and eps1 == pytest.approx(1.0 - 2 * math.log1p(0.25 / 10))
    # eps' <= 0: eps' = eps/2 and Lam + Delta = c / (n (e^{eps/4} - 1)).
    eps1, extra = objective_perturbation_parameters(0.1, 100, 0.001, 0.25)
    assert eps1 == 0.05
    assert 0.001 + extra == pytest.approx(0.25 / (100 * math.expm1(0.025)), rel=1e-14)
    # The two parts of the privacy loss add up to eps in both branches.
    for eps, n, lam, c in [(1.0, 1000, 0.01, 0.25), (0.1, 100, 0.001, 0.25), (0.5, 50, 0.02, 1.0)]:
        eps1, extra = objective_perturbation_parameters(eps, n, lam, c)
        assert eps1 + 2 * math.log1p(c / (n * (lam + extra))) <= eps * (1 + 1e-12)
    est = ObjectivePerturbationRegressor(
        0.3, alpha=0.002, huber_delta=0.5, rng=0, data_norm=1.0, label_bound=1.0
    ).fit(*_regression(n=50))
    assert est.epsilon_noise_ == 0.15 and est.extra_regularization_ > 0


def test_tuning_score_sensitivity_brute_force():
    """The strict score of any model (however wild) moves by <= 4 B^2 / |S'| when one validation
    row is replaced; the paper's unclipped score does not have bounded sensitivity."""
    rng = np.random.default_rng(4)
    B, m = 2.0, 7
    Xs = _unit_rows(rng, m, 2) * 3
    ys = rng.uniform(-B, B, m)
    bound = tuning_score_sensitivity(m, classifier=False, label_bound=B)
    worst = worst_paper = 0.0
    for w in [rng.normal(size=2) * s for s in (0.1, 1, 100, 1e6)]:

        def strict(X, y):
            return -np.mean((np.clip(X @ w, -B, B) - np.clip(y, -B, B)) ** 2)  # noqa: B023

        for x2, y2 in itertools.product(
            list(_unit_rows(rng, 4, 2) * 3) + [np.array([3.0, 0.0])], (-5.0, 0.0, 5.0)
        ):
            X2, y2v = Xs.copy(), ys.copy()
            X2[0], y2v[0] = x2, y2
            worst = max(worst, abs(strict(Xs, ys) - strict(X2, y2v)))
            worst_paper = max(
                worst_paper, abs(np.mean((X2 @ w - y2v) ** 2) - np.mean((Xs @ w - ys) ** 2))
            )
    assert worst <= bound * (1 + 1e-12)
    assert worst_paper > 100 * bound
    assert tuning_score_sensitivity(8, classifier=True) == 1 / 8


# --------------------------------------------------------------------------------------------
# Utility grows with epsilon (fixed seeds)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make", REGRESSORS + CLASSIFIERS)
def test_utility_monotone_in_epsilon(make):
    """Mean validation loss over 80 fits (squared error, or logistic loss of the decision
    function for classifiers) at eps = 0.2, 2, 20: it falls from 0.2 to 20 by at least 4 standard
    errors and never rises significantly (z > -3) between neighbouring epsilons (seeded)."""
    classifier = make in CLASSIFIERS
    X, y = _classification(n=300, seed=1) if classifier else _regression(n=300, seed=1)
    Xv, yv = _classification(n=2000, seed=2) if classifier else _regression(n=2000, seed=2)
    gen = Generator(12345)
    means, ses = [], []
    for eps in (0.2, 2.0, 20.0):
        losses = []
        for _ in range(80):
            model = make(rng=gen).set_params(epsilon=eps)
            if model.get_params().get("alpha") == "auto":
                model.set_params(alpha=0.02)
            model.fit(X, y)
            if classifier:
                margin = np.where(yv == 1, 1.0, -1.0) * model.decision_function(Xv)
                losses.append(np.mean(np.logaddexp(0.0, -margin)))
            else:
                losses.append(np.mean((model.predict(Xv) - yv) ** 2))
        losses = np.array(losses)
        means.append(losses.mean())
        ses.append(losses.std(ddof=1) / math.sqrt(losses.size))
    z = [(means[i] - means[j]) / math.hypot(ses[i], ses[j]) for i, j in ((0, 1), (1, 2), (0, 2))]
    assert z[2] >= 4 and min(z[:2]) > -3, (means, ses, z)


# --------------------------------------------------------------------------------------------
# Private tuning and the oracle
# --------------------------------------------------------------------------------------------


def test_private_tuning_partition_and_selection():
    X, y = _regression(n=1250, seed=3)
    base = OutputPerturbationRegressor(None, variant="rls_out", data_norm=1.0, label_bound=1.0)
    grid = {"radius": [0.25, 0.5, 1.0], "alpha": PAPER_LAMBDA_GRID}
    acct = Accountant(Budget(1.0))
    tuned = PrivateTuning(base, grid, 1.0, accountant=acct, rng=3).fit(X, y)
    assert acct.spent == Budget(1.0), "the whole tuning costs epsilon once (parallel composition)"
    assert tuned.epsilon_ == 1.0 and tuned.chunk_size_ == 50
    assert tuned.best_params_ in list(__import__("sklearn").model_selection.ParameterGrid(grid))
    assert tuned.best_estimator_.get_params()["epsilon"] == 1.0
    assert tuned.best_estimator_.get_params()["accountant"] is None
    assert np.array_equal(tuned.predict(X), tuned.best_estimator_.predict(X))
    assert np.array_equal(tuned.coef_, tuned.best_estimator_.coef_)
    again = PrivateTuning(base, grid, 1.0, rng=3).fit(X, y)
    assert np.array_equal(again.coef_, tuned.coef_)
    from privlearn.learners.tuning import _split

    chunks = _split(1250, 25, Generator(0))
    allrows = np.concatenate(chunks)
    assert np.array_equal(np.sort(allrows), np.arange(1250)), (
        "the chunks partition the rows (disjoint)"
    )
    assert {c.size for c in chunks} == {50}


def test_private_tuning_prefers_good_candidates():
    """With a large budget the exponential mechanism picks the candidate that predicts best."""
    X, y = _regression(n=2000, seed=5)
    base = OutputPerturbationRegressor(None, radius=None, data_norm=1.0, label_bound=1.0)
    tuned = PrivateTuning(base, {"alpha": [1e-3, 100.0]}, 1e4, rng=0).fit(X, y)
    assert tuned.best_params_ == {"alpha": 1e-3}
    clf = PrivateTuning(
        OutputPerturbationClassifier(None, classes=[0, 1], data_norm=1.0),
        {"alpha": [1e-3, 1e3]},
        1e4,
        rng=0,
    )
    Xc, yc = _classification(n=2000, seed=5)
    assert clf.fit(Xc, yc).best_params_ == {"alpha": 1e-3}
    assert clf.score(Xc, yc) > 0.85


def test_private_tuning_errors_and_paper_mode():
    X, y = _regression(n=100)
    base = OutputPerturbationRegressor(None, data_norm=1.0, label_bound=1.0)
    with pytest.raises(InvalidParameterError, match="not differentially private") as err:
        PrivateTuning(
            base,
            {"alpha": [0.1]},
            1.0,
            selection="paper_not_dp",
            accountant=Accountant(Budget(1.0)),
        ).fit(X, y)
    assert err.value.parameter == "accountant"
    paper = PrivateTuning(base, {"alpha": [0.1, 1.0]}, 1.0, selection="paper_not_dp", rng=0).fit(
        X, y
    )
    assert paper.epsilon_ == math.inf
    for kwargs, name in [
        (dict(param_grid={"epsilon": [1.0]}), "param_grid"),
        (dict(param_grid={"alpha": []}), "param_grid"),
        (dict(param_grid={"alpha": [0.1]}, selection="loose"), "selection"),
        (dict(param_grid={"alpha": [0.1]}, epsilon=0.0), "epsilon"),
        (
            dict(
                param_grid={"alpha": [0.1]},
                estimator=OutputPerturbationRegressor(
                    1.0, accountant=Accountant(Budget(1.0)), data_norm=1.0, label_bound=1.0
                ),
            ),
            "estimator",
        ),
        (
            dict(param_grid={"alpha": [0.1]}, estimator=__import__("sklearn").linear_model.Ridge()),
            "estimator",
        ),
        (dict(param_grid={"alpha": list(np.linspace(0.1, 1, 100))}), "X"),
        (dict(param_grid={"alpha": [-1.0]}), "alpha"),
    ]:
        params = dict(estimator=base, epsilon=1.0)
        params.update(kwargs)
        est = PrivateTuning(
            params.pop("estimator"), params.pop("param_grid"), params.pop("epsilon"), **params
        )
        with pytest.raises(InvalidParameterError) as err:
            est.fit(X, y)
        assert err.value.parameter == name, kwargs


def test_oracle_expected_mse_is_exact():
    """The oracle's closed-form expectation over the noise (normalised units) matches a Monte
    Carlo average over the estimator's release map, and the oracle picks the smallest."""
    X, y = _regression(n=300, d=3, seed=8)
    est = OutputPerturbationRegressor(2.0, variant="rls_out", rng=0, data_norm=1.0, label_bound=1.0)
    grid = {"alpha": [0.01, 0.1, 0.9], "radius": [0.5, 1.0]}
    best, scores = oracle_parameters(est, grid, X, y, return_scores=True)
    points = list(__import__("sklearn").model_selection.ParameterGrid(grid))
    assert best == points[int(np.argmin(scores))]
    for point, score in zip(points, scores):
        model = clone(est).set_params(**point).fit(X, y)
        w_bar = ridge_ball(RidgeSpectrum.from_data(X, y), point["alpha"], point["radius"])[0]
        draws = w_bar + _core.l2_laplace_noise(3, model.noise_scale_, 20_000, 1)
        mc = np.mean((draws @ X.T - y) ** 2)
        assert mc == pytest.approx(score, rel=0.04)
    with pytest.raises(InvalidParameterError):
        oracle_parameters(
            FunctionalMechanismRegressor(1.0, data_norm=1.0, label_bound=1.0), grid, X, y
        )
    with pytest.raises(InvalidParameterError):
        oracle_parameters(est, {"data_norm": [1.0]}, X, y)


# --------------------------------------------------------------------------------------------
# Documentation
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls,source",
    [
        (OutputPerturbationRegressor, "Wu et al."),
        (OutputPerturbationClassifier, "Chaudhuri"),
        (ObjectivePerturbationClassifier, "Theorem 9"),
        (ObjectivePerturbationRegressor, "Theorem 9"),
        (FunctionalMechanismRegressor, "Zhang et al."),
        (PrivateTuning, "Algorithm 5"),
    ],
)
def test_learners_state_guarantee_source_and_bounds(cls, source):
    import inspect

    doc = inspect.getdoc(cls)
    assert "differentially private" in doc and "replace-one" in doc
    assert source in doc
    assert "seed" in doc or "rng" in doc
    if cls is not PrivateTuning:
        assert "clipped" in doc, "the declared bounds are documented"

"""No silent defaults for the declared data bounds (issue 19).

A bound that changes the result (rows clipped to ``data_norm``, labels to ``label_bound``) is a
required parameter: the estimators keep the keyword default ``None`` that scikit-learn needs
and refuse it at ``fit``; the function :func:`privlearn.learners.rls_out` takes them as required
keyword-only arguments. A missing bound is refused

* with an :class:`~privlearn.errors.InvalidParameterError` naming the parameter and saying how to
  choose it;
* from the parameters alone: the data passed here raise if anything reads them, or hold NaN, or
  have the wrong shape, and the bound error still comes first;
* charging nothing, and before a budget error (an exhausted accountant still gets the bound
  error);
* with a message that holds no data-dependent value (the same text for different data).
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import clone

import privlearn.learners as learners
from privlearn.accounting import Accountant, Budget
from privlearn.errors import InvalidParameterError
from privlearn.learners import (
    FunctionalMechanismRegressor,
    ObjectivePerturbationClassifier,
    ObjectivePerturbationRegressor,
    OutputPerturbationClassifier,
    OutputPerturbationRegressor,
    PrivateTuning,
    rls_out,
)
from privlearn.learners.tuning import tuning_score_sensitivity

BOUND_PARAMS = ("data_norm", "label_bound", "bounds")
SECRET = 424242.125  # a data value that must never appear in a message

REGRESSORS = [
    OutputPerturbationRegressor,
    ObjectivePerturbationRegressor,
    FunctionalMechanismRegressor,
]
CLASSIFIERS = [OutputPerturbationClassifier, ObjectivePerturbationClassifier]


class ReadGuard:
    """Stands for ``X`` or ``y``; any attempt to read it fails the test."""

    def _fail(self, *args, **kwargs):
        raise AssertionError("the data were read before the missing bound was refused")

    __array__ = __len__ = __iter__ = __getitem__ = _fail

    @property
    def shape(self):
        return self._fail()


def _guarded():
    return ReadGuard(), ReadGuard()


def _nan_data():
    X = np.full((20, 3), np.nan)
    return X, np.zeros(20)


def _wrong_shapes():
    return np.ones(7), np.ones(3)  # 1-D X, and y of another length


def _secret_data(value):
    g = np.random.default_rng(0)
    X = g.uniform(-1, 1, size=(30, 3))
    X[0, 0] = value
    y = (g.uniform(size=30) > 0.5).astype(int)
    y_reg = y.astype(float)
    y_reg[1] = value
    return X, y, y_reg


DATA = {"guarded": _guarded, "nan": _nan_data, "wrong_shapes": _wrong_shapes}


def _cases():
    """``(id, factory(**bounds), names of its bounds)`` for every seed estimator."""
    out = []
    for cls in REGRESSORS:
        out.append(
            (cls.__name__, lambda cls=cls, **kw: cls(1.0, **kw), ("data_norm", "label_bound"))
        )
    for cls in CLASSIFIERS:
        out.append(
            (cls.__name__, lambda cls=cls, **kw: cls(1.0, classes=[0, 1], **kw), ("data_norm",))
        )
    return out


MISSING = [
    pytest.param(make, names, missing, id=f"{name}-{missing}")
    for name, make, names in _cases()
    for missing in names
]


def _exported_bound_classes():
    out = []
    for name in learners.__all__:
        obj = getattr(learners, name)
        if inspect.isclass(obj):
            params = inspect.signature(obj.__init__).parameters
            if any(p in params for p in BOUND_PARAMS):
                out.append(obj)
    return out


# --------------------------------------------------------------------------------------------
# No default bound in any signature
# --------------------------------------------------------------------------------------------


def test_every_seed_estimator_is_covered():
    found = set(_exported_bound_classes())
    assert set(REGRESSORS + CLASSIFIERS) <= found


@pytest.mark.parametrize("cls", _exported_bound_classes(), ids=lambda c: c.__name__)
def test_no_exported_estimator_has_a_numeric_default_bound(cls):
    """A bound defaults to ``None`` (refused at fit) or to the private choice, never to a
    number (which would clip silently)."""
    params = inspect.signature(cls.__init__).parameters
    for name in BOUND_PARAMS:
        if name in params:
            default = params[name].default
            assert (
                default is None
                or default is inspect.Parameter.empty
                or (isinstance(default, str) and default == "private")
            ), f"{cls.__name__}.{name} defaults to {default!r}"


def test_rls_out_bounds_are_required_keyword_only():
    params = inspect.signature(rls_out).parameters
    for name in ("data_norm", "label_bound"):
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY
        assert params[name].default is inspect.Parameter.empty
    with pytest.raises(TypeError, match="data_norm"):
        rls_out(*_guarded(), 1.0, alpha=0.5, radius=1.0, label_bound=1.0)  # type: ignore[call-arg]


@pytest.mark.parametrize("cls", REGRESSORS + CLASSIFIERS, ids=lambda c: c.__name__)
def test_estimators_without_bounds_construct_clone_and_report_none(cls):
    """scikit-learn's contract: the constructor validates nothing; ``get_params`` and ``clone``
    work with the bound still undeclared."""
    est = cls(1.0)
    assert est.get_params()["data_norm"] is None
    assert clone(est).get_params()["data_norm"] is None
    if cls in REGRESSORS:
        assert est.get_params()["label_bound"] is None


# --------------------------------------------------------------------------------------------
# A missing bound: refused before the data are read, charging nothing
# --------------------------------------------------------------------------------------------


def _check_bound_error(err, missing):
    assert err.parameter == missing
    message = str(err)
    assert message.startswith(f"{missing}:")
    assert "required" in message and "no default" in message
    assert "domain knowledge" in message and "'private'" in message


@pytest.mark.parametrize("data", sorted(DATA))
@pytest.mark.parametrize("omit", [True, False], ids=["omitted", "None"])
@pytest.mark.parametrize("make, names, missing", MISSING)
def test_missing_bound_is_refused_before_the_data_and_charges_nothing(
    make, names, missing, omit, data
):
    bounds = {name: 1.0 for name in names if name != missing}
    if not omit:
        bounds[missing] = None
    acct = Accountant(Budget(10.0))
    X, y = DATA[data]()
    with pytest.raises(InvalidParameterError) as err:
        make(**bounds, accountant=acct, rng=0).fit(X, y)
    _check_bound_error(err.value, missing)
    assert acct.spent == Budget(0.0)


@pytest.mark.parametrize("make, names, missing", MISSING)
def test_missing_bound_comes_before_a_budget_error(make, names, missing):
    acct = Accountant(Budget(0.5))  # cannot pay epsilon = 1
    bounds = {name: 1.0 for name in names if name != missing}
    with pytest.raises(InvalidParameterError) as err:
        make(**bounds, accountant=acct).fit(*_guarded())
    _check_bound_error(err.value, missing)
    assert acct.spent == Budget(0.0)


@pytest.mark.parametrize("make, names, missing", MISSING)
def test_missing_bound_message_holds_no_data_dependent_value(make, names, missing):
    bounds = {name: 1.0 for name in names if name != missing}
    classifier = "label_bound" not in names
    messages = []
    for value in (SECRET, -SECRET / 3):
        X, y, y_reg = _secret_data(value)
        with pytest.raises(InvalidParameterError) as err:
            make(**bounds, rng=0).fit(X, y if classifier else y_reg)
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert "424242" not in messages[0] and "141414" not in messages[0]


@pytest.mark.parametrize("missing", ["data_norm", "label_bound"])
def test_rls_out_none_bound_is_refused_before_the_data(missing):
    bounds = {"data_norm": 1.0, "label_bound": 1.0, missing: None}
    acct = Accountant(Budget(10.0))
    with pytest.raises(InvalidParameterError) as err:
        rls_out(*_guarded(), 1.0, alpha=0.5, radius=1.0, accountant=acct, **bounds)
    _check_bound_error(err.value, missing)
    assert acct.spent == Budget(0.0)


TUNED = [
    pytest.param(
        lambda: OutputPerturbationRegressor(None, label_bound=1.0), "data_norm", id="reg-data_norm"
    ),
    pytest.param(
        lambda: OutputPerturbationRegressor(None, data_norm=1.0),
        "label_bound",
        id="reg-label_bound",
    ),
    pytest.param(lambda: ObjectivePerturbationRegressor(None), "data_norm", id="obj-reg-both"),
    pytest.param(
        lambda: OutputPerturbationClassifier(None, classes=[0, 1]), "data_norm", id="clf-data_norm"
    ),
]


@pytest.mark.parametrize("selection", ["strict", "paper_not_dp"])
@pytest.mark.parametrize("base, missing", TUNED)
def test_private_tuning_refuses_a_base_without_bounds_before_the_data(base, missing, selection):
    acct = Accountant(Budget(10.0)) if selection == "strict" else None
    tuner = PrivateTuning(
        base(), {"alpha": [0.1, 1.0]}, 1.0, selection=selection, accountant=acct, rng=0
    )
    with pytest.raises(InvalidParameterError) as err:
        tuner.fit(*_guarded())
    _check_bound_error(err.value, missing)
    if acct is not None:
        assert acct.spent == Budget(0.0)


def test_tuning_score_sensitivity_needs_the_label_bound_of_a_regressor():
    with pytest.raises(InvalidParameterError) as err:
        tuning_score_sensitivity(10, classifier=False)
    _check_bound_error(err.value, "label_bound")
    assert tuning_score_sensitivity(10, classifier=False, label_bound=2.0) == pytest.approx(1.6)
    assert tuning_score_sensitivity(10, classifier=True) == pytest.approx(0.1)


# --------------------------------------------------------------------------------------------
# A declared bound is used as declared
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, make, names", _cases(), ids=[c[0] for c in _cases()])
def test_declared_bounds_fit_and_charge_once(name, make, names):
    g = np.random.default_rng(1)
    X = g.uniform(-4, 4, size=(200, 3))  # rows of norm up to ~7: clipped to the declared 8
    y = X @ np.array([0.5, -0.25, 0.0])
    if "label_bound" not in names:
        y = (y > 0).astype(int)
    acct = Accountant(Budget(10.0))
    model = make(**{n: 8.0 for n in names}, accountant=acct, rng=0).fit(X, y)
    assert model.get_params()["data_norm"] == 8.0
    assert acct.spent == Budget(1.0)

"""privlearn.pipeline: private pipelines refuse non-private steps before reading data, allow
stateless ones, and report the composition of their private steps' guarantees."""

from __future__ import annotations

import doctest
from fractions import Fraction

import numpy as np
import pytest
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.decomposition import PCA
from sklearn.feature_extraction.image import PatchExtractor
from sklearn.feature_selection import SelectKBest, f_regression
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import Binarizer, FunctionTransformer, Normalizer, StandardScaler

import privlearn.pipeline as pipeline_module
import privlearn.preprocessing as pp
from privlearn._certified import SharedCloneMixin
from privlearn.accounting import Accountant, Budget
from privlearn.errors import InvalidParameterError
from privlearn.learners import (
    AdaSSPRegressor,
    BoostedAdaSSPRegressor,
    OutputPerturbationRegressor,
    PrivateLogisticRegression,
)
from privlearn.mechanisms import laplace
from privlearn.pipeline import PrivatePipeline, make_private_pipeline


class Untouchable:
    """Training data that must not be read: a shape (public) but no readable values."""

    shape = (30, 3)

    def __len__(self) -> int:
        return 30

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data were read")

    def __getitem__(self, item):
        raise AssertionError("the data were read")


def _data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X @ np.array([0.5, -0.25, 0.1]) + 0.05 * rng.normal(size=n)
    return X, y


def _adassp(acct=None, eps=1.0, delta=1e-6, rng=0):
    return AdaSSPRegressor(
        eps, delta=delta, data_norm=3.0, label_bound=2.0, accountant=acct, rng=rng
    )


def _outpert(acct=None, eps=0.5, rng=1):
    return OutputPerturbationRegressor(
        eps, data_norm=3.0, label_bound=2.0, accountant=acct, rng=rng
    )


class NoisyCentre(SharedCloneMixin, TransformerMixin, BaseEstimator):
    """A private transformer for these tests only (privlearn.preprocessing is written
    separately): subtract the column means of X clipped to [-bound, bound], released by the
    Laplace mechanism (replace-one: each clipped mean moves by at most 2 bound / n, so the
    vector by 2 bound d / n in L1), pure epsilon-DP."""

    def __init__(self, epsilon, bound, accountant=None, rng=None):
        self.epsilon = epsilon
        self.bound = bound
        self.accountant = accountant
        self.rng = rng

    def privacy_guarantee(self, n_samples):
        return Budget(self.epsilon)

    def fit(self, X, y=None):
        X = np.clip(np.asarray(X, dtype=float), -self.bound, self.bound)
        n, d = X.shape
        self.mean_ = laplace(
            X.mean(axis=0),
            2 * self.bound * d / n,
            self.epsilon,
            rng=self.rng,
            accountant=self.accountant,
        )
        return self

    def transform(self, X):
        return np.asarray(X, dtype=float) - self.mean_


# ------------------------------------------------------------------------------------------
# Refusals
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "step, hint",
    [
        (StandardScaler(), "privlearn.preprocessing.StandardScaler"),
        (SimpleImputer(), "FunctionTransformer"),
        (SelectKBest(f_regression, k=2), "privacy_guarantee"),
        (PCA(n_components=2), "PCA"),
    ],
)
def test_non_private_preprocessing_is_refused_when_built(step, hint):
    acct = Accountant(Budget(10.0, 1e-3))
    with pytest.raises(InvalidParameterError) as info:
        make_private_pipeline(step, _adassp(acct))
    msg = str(info.value)
    assert info.value.parameter == "steps"
    assert type(step).__name__ in msg and repr(type(step).__name__.lower()) in msg
    assert "without a certified privacy guarantee" in msg and hint in msg
    assert acct.spent == Budget(0.0) and acct.ledger == ()


def test_non_private_final_estimator_is_refused():
    with pytest.raises(InvalidParameterError, match="LinearRegression.*without a certified"):
        make_private_pipeline(Normalizer(), LinearRegression())


@pytest.mark.parametrize(
    "steps",
    [
        [StandardScaler(), "_adassp"],
        [Normalizer(), LinearRegression()],
        [PCA(), "_adassp"],
    ],
)
def test_refusal_in_constructor_reads_no_data(steps):
    acct = Accountant(Budget(10.0, 1e-3))
    built = [_adassp(acct) if s == "_adassp" else s for s in steps]
    named = make_pipeline(*built).steps
    with pytest.raises(InvalidParameterError, match="steps: step"):
        PrivatePipeline(named)
    assert acct.ledger == ()


def test_set_params_swap_is_refused_at_fit_before_data_are_read():
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(Normalizer(), _adassp(acct))
    pipe.set_params(normalizer=StandardScaler())
    for method in ("fit", "fit_predict"):
        with pytest.raises(InvalidParameterError, match="'normalizer' \\(StandardScaler\\)"):
            getattr(pipe, method)(Untouchable(), np.zeros(30))
    assert acct.ledger == ()
    # A non-private final estimator swapped in, too:
    pipe = make_private_pipeline(Normalizer(), _adassp(acct))
    pipe.set_params(adasspregressor=LinearRegression())
    with pytest.raises(InvalidParameterError, match="LinearRegression"):
        pipe.fit(Untouchable(), np.zeros(30))
    # and a non-private step through `steps` itself:
    pipe = make_private_pipeline(Normalizer(), _adassp(acct))
    pipe.set_params(steps=[("scale", StandardScaler()), ("model", _adassp(acct))])
    with pytest.raises(InvalidParameterError, match="'scale'"):
        pipe.fit_transform(Untouchable(), np.zeros(30))
    assert acct.ledger == ()


def test_uncertified_configuration_is_refused_at_fit_before_data_are_read():
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(Normalizer(), AdaSSPRegressor(None, accountant=acct))
    with pytest.raises(InvalidParameterError, match="'adasspregressor'.*certifies no privacy"):
        pipe.fit(Untouchable(), np.zeros(30))
    assert acct.ledger == ()


def test_other_refusals():
    with pytest.raises(InvalidParameterError, match="no private step"):
        make_private_pipeline(Normalizer(), "passthrough")
    with pytest.raises(InvalidParameterError, match="no private step"):
        PrivatePipeline([("n", Normalizer())]).fit(Untouchable())
    with pytest.raises(InvalidParameterError, match="class AdaSSPRegressor, not an instance"):
        make_private_pipeline(Normalizer(), AdaSSPRegressor)
    with pytest.raises(InvalidParameterError, match="scikit-learn Pipeline"):
        make_private_pipeline(make_pipeline(Normalizer()), _adassp())
    with pytest.raises(InvalidParameterError, match="PatchExtractor"):
        make_private_pipeline(PatchExtractor(), _adassp())
    with pytest.raises(InvalidParameterError, match="check_inverse=False"):
        make_private_pipeline(FunctionTransformer(np.log1p, np.expm1), _adassp())
    with pytest.raises(InvalidParameterError, match="non-empty list"):
        PrivatePipeline([])
    # A non-private step nested in a private pipeline is found (and named by its path).
    inner = PrivatePipeline([("n", Normalizer()), ("m", _adassp())])
    inner.steps[0] = ("n", StandardScaler())
    with pytest.raises(InvalidParameterError, match="'privatepipeline__n' \\(StandardScaler\\)"):
        make_private_pipeline(Normalizer(), inner).fit(Untouchable(), np.zeros(30))
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(Normalizer(), _adassp(acct), memory="/tmp/never-used")
    with pytest.raises(InvalidParameterError, match="memory: must be None"):
        pipe.fit(Untouchable(), np.zeros(30))
    assert acct.ledger == ()


# ------------------------------------------------------------------------------------------
# Stateless steps allowed; fitting, predicting, cross-validating
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "stateless",
    [
        Normalizer(),
        FunctionTransformer(),
        FunctionTransformer(np.tanh),
        FunctionTransformer(np.log1p, np.expm1, check_inverse=False),
        Binarizer(),
        "passthrough",
        None,
    ],
)
def test_stateless_steps_are_allowed(stateless):
    X, y = _data()
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(stateless, _adassp(acct))
    pipe.fit(np.abs(X), y)
    assert pipe.predict(np.abs(X)).shape == (X.shape[0],)
    assert pipe.privacy_ == Budget(1.0, 1e-6)
    assert acct.spent == Budget(1.0, 1e-6)


def test_privacy_is_the_composition_of_the_private_steps():
    X, y = _data()
    acct = Accountant(Budget(10.0, 1e-3))
    inner = make_private_pipeline(Normalizer(), _outpert(acct, eps=0.5))
    pipe = make_private_pipeline(
        FunctionTransformer(np.tanh),
        _adassp(acct, eps=0.75, delta=1e-7),
        "passthrough",
        Normalizer(),
        inner,
    )
    # AdaSSPRegressor is no transformer: as a middle step it cannot be fitted; check the
    # stated guarantee only, computed here independently: (0.75 + 0.5, 1e-7 + 0).
    assert pipe.privacy_guarantee(len(X)) == Budget(1.25, 1e-7)
    # A fitted composition of three private steps (two private transformers, one of them in
    # a nested pipeline, and a private regressor), with stateless steps between them.
    acct2 = Accountant(Budget(10.0, 1e-3))
    outer = make_private_pipeline(
        NoisyCentre(0.25, 4.0, accountant=acct2, rng=3),
        Normalizer(),
        make_private_pipeline(
            NoisyCentre(0.5, 1.0, accountant=acct2, rng=4), FunctionTransformer(np.tanh)
        ),
        _adassp(acct2, 0.125, 2e-7),
    )
    outer.fit(X, y)
    assert outer.privacy_ == Budget(0.875, 2e-7)  # 0.25 + 0.5 + 0.125, exact in floats
    assert outer.privacy_guarantee(len(X)) == Budget(0.875, 2e-7)
    assert acct2.spent == outer.privacy_ and len(acct2.ledger) == 3
    assert outer.predict(X).shape == (len(X),)


def test_privacy_guarantee_sums_epsilons_and_deltas_exactly():
    # Two private steps (the first used only for its guarantee): the sum, rounded up.
    pipe = PrivatePipeline.__new__(PrivatePipeline)
    Pipeline.__init__(pipe, [("a", _adassp(eps=0.1, delta=1e-7)), ("b", _outpert(eps=0.2))])
    total = pipe.privacy_guarantee(50)
    exact = Fraction(0.1) + Fraction(0.2)
    up = float(exact)  # the smallest float >= the exact sum
    if Fraction(up) < exact:
        up = float(np.nextafter(up, np.inf))
    assert total.epsilon == up and Fraction(total.epsilon) >= exact
    assert total.delta == 1e-7


def test_fit_predict_and_cross_validation_charge_each_fit():
    X, y = _data(n=150)
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(Normalizer(), _adassp(acct, rng=None))
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,)
    assert len(acct.ledger) == 3
    assert acct.spent == Budget(3.0, 3e-6)
    fitted = pipe.fit(X, y)
    assert fitted is pipe and pipe.privacy_ == Budget(1.0, 1e-6)
    assert len(acct.ledger) == 4


def test_clone_and_get_params():
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(Normalizer(), _adassp(acct), verbose=False)
    params = pipe.get_params()
    assert params["adasspregressor__epsilon"] == 1.0
    assert params["adasspregressor__accountant"] is acct
    copy = clone(pipe)
    assert isinstance(copy, PrivatePipeline)
    assert copy.get_params()["adasspregressor__accountant"] is acct  # shared, not copied
    assert copy.named_steps["adasspregressor"] is not pipe.named_steps["adasspregressor"]
    X, y = _data()
    copy.fit(X, y)
    assert acct.spent == Budget(1.0, 1e-6)
    assert not hasattr(pipe, "privacy_")
    # Slicing a fitted pipeline (a stateless prefix) still works.
    assert copy[:-1].transform(X).shape == X.shape


def test_docstring_examples():
    result = doctest.testmod(
        pipeline_module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 0 and result.failed == 0


def test_a_private_preprocessing_pipeline_may_end_with_a_stateless_step():
    X, _ = _data()
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(NoisyCentre(0.5, 4.0, accountant=acct, rng=5), Normalizer())
    out = pipe.fit_transform(X)
    assert out.shape == X.shape and pipe.privacy_ == Budget(0.5) == acct.spent
    # No privacy_ is claimed by a fit that failed (invalid data: refused by the step).
    fresh = clone(pipe)
    with pytest.raises(ValueError):
        fresh.fit(np.full((4, 3), np.nan))
    assert not hasattr(fresh, "privacy_")


# ------------------------------------------------------------------------------------------
# One charge for the whole pipeline (a pipeline accountant)
# ------------------------------------------------------------------------------------------


class Overcharging(NoisyCentre):
    """A broken private step: it states ``Budget(epsilon)`` but charges twice that."""

    def fit(self, X, y=None):
        self.epsilon, stated = 2 * self.epsilon, self.epsilon
        try:
            return super().fit(X, y)
        finally:
            self.epsilon = stated


def test_a_pipeline_accountant_is_charged_once_with_the_composition():
    from privlearn.preprocessing import StandardScaler as PrivateScaler

    X, y = _data(n=200)
    acct = Accountant(Budget(10.0, 1e-3))
    scaler = PrivateScaler(0.5, bounds=(-4.0, 4.0), rng=1)
    model = _adassp(eps=0.75, delta=1e-7)
    pipe = make_private_pipeline(scaler, Normalizer(), model, accountant=acct, label="mine")
    pipe.fit(X, y)
    # One entry; its budget is the sum written here: (0.5 + 0.75, 0 + 1e-7).
    assert len(acct.ledger) == 1
    (entry,) = acct.ledger
    assert entry.label == "mine"
    assert acct.spent == Budget(1.25, 1e-7) == pipe.privacy_
    # The steps' accountant parameters are None again, and the fit released what it should.
    assert scaler.accountant is None and model.accountant is None
    assert pipe.predict(X).shape == (len(X),)
    # fit_transform of a transformer pipeline charges once as well; the default label.
    acct2 = Accountant(Budget(1.0))
    tpipe = make_private_pipeline(NoisyCentre(0.5, 4.0, rng=2), accountant=acct2)
    assert tpipe.fit_transform(X).shape == X.shape
    assert [e.label for e in acct2.ledger] == ["PrivatePipeline"]
    assert acct2.spent == Budget(0.5)


def test_nested_pipelines_under_one_accountant_charge_once():
    X, y = _data()
    acct = Accountant(Budget(10.0, 1e-3))
    outer = make_private_pipeline(
        NoisyCentre(0.25, 4.0, rng=3),
        make_private_pipeline(NoisyCentre(0.5, 1.0, rng=4), FunctionTransformer(np.tanh)),
        _adassp(eps=0.125, delta=2e-7),
        accountant=acct,
    )
    outer.fit(X, y)
    assert len(acct.ledger) == 1 and acct.spent == Budget(0.875, 2e-7)
    assert outer[1].accountant is None


def test_a_step_with_its_own_accountant_is_refused_under_a_pipeline_accountant():
    acct, own = Accountant(Budget(10.0, 1e-3)), Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(Normalizer(), _adassp(own), accountant=acct)
    with pytest.raises(InvalidParameterError, match="'adasspregressor'.*own accountant"):
        pipe.fit(Untouchable(), np.zeros(30))
    nested = make_private_pipeline(
        make_private_pipeline(NoisyCentre(0.5, 1.0, accountant=own)), _adassp(), accountant=acct
    )
    with pytest.raises(
        InvalidParameterError, match="'privatepipeline__noisycentre'.*own accountant"
    ):
        nested.fit(Untouchable(), np.zeros(30))
    assert acct.ledger == () and own.ledger == ()


def test_a_pipeline_accountant_that_cannot_pay_reads_nothing():
    from privlearn.errors import BudgetExceededError

    acct = Accountant(Budget(1.0, 1e-3))
    pipe = make_private_pipeline(NoisyCentre(0.5, 4.0), _adassp(eps=0.75), accountant=acct)
    with pytest.raises(BudgetExceededError):
        pipe.fit(Untouchable(), np.zeros(30))
    assert acct.ledger == ()
    assert pipe[0].accountant is None and pipe[1].accountant is None


def test_bad_input_before_any_release_charges_nothing():
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(Normalizer(), _adassp(), accountant=acct)
    X, y = _data()
    X[3, 1] = np.nan
    with pytest.raises((ValueError, InvalidParameterError)):
        pipe.fit(X, y)
    assert acct.ledger == () and not hasattr(pipe, "privacy_")
    assert pipe[-1].accountant is None


def test_a_failure_after_a_release_is_charged():
    # The first step releases its noisy means; the model then refuses the NaN labels. The
    # fitted first step stays in the pipeline, so the whole composed charge is committed.
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(NoisyCentre(0.5, 4.0, rng=6), _adassp(), accountant=acct)
    X, y = _data()
    y[0] = np.nan
    with pytest.raises(InvalidParameterError):
        pipe.fit(X, y)
    assert len(acct.ledger) == 1 and acct.spent == Budget(1.5, 1e-6)
    assert hasattr(pipe[0], "mean_") and not hasattr(pipe, "privacy_")


def test_a_step_that_charges_more_than_it_states_fails_before_drawing():
    from privlearn.errors import BudgetExceededError

    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(Overcharging(0.5, 4.0, rng=7), _adassp(), accountant=acct)
    X, y = _data()
    with pytest.raises(BudgetExceededError):
        pipe.fit(X, y)
    assert acct.ledger == () and not hasattr(pipe[0], "mean_")


def test_cross_validation_under_a_pipeline_accountant_charges_each_fit_once():
    X, y = _data(n=150)
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(Normalizer(), _adassp(rng=None), accountant=acct)
    assert clone(pipe).accountant is acct  # shared, not copied
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,)
    assert len(acct.ledger) == 3 and acct.spent == Budget(3.0, 3e-6)


def test_bad_pipeline_accountant_or_label_is_refused_before_data():
    pipe = make_private_pipeline(_adassp(), accountant="not an accountant")
    with pytest.raises(InvalidParameterError, match="accountant"):
        pipe.fit(Untouchable(), np.zeros(30))
    pipe = make_private_pipeline(_adassp(), accountant=Accountant(Budget(2.0, 1e-3)), label="")
    with pytest.raises(InvalidParameterError, match="label"):
        pipe.fit(Untouchable(), np.zeros(30))


class Interrupting(NoisyCentre):
    """A private transformer whose fit is interrupted (Ctrl-C) after it released."""

    def fit(self, X, y=None):
        super().fit(X, y)
        raise KeyboardInterrupt


def test_an_interrupt_after_a_release_is_charged():
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(Interrupting(0.5, 4.0, rng=8), _adassp(), accountant=acct)
    X, y = _data()
    with pytest.raises(KeyboardInterrupt):
        pipe.fit(X, y)
    assert len(acct.ledger) == 1 and acct.spent == Budget(1.5, 1e-6)
    assert pipe[0].accountant is None


def test_a_slice_keeps_the_pipeline_accountant():
    X, y = _data()
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(
        NoisyCentre(0.5, 4.0, rng=9), Normalizer(), _adassp(), accountant=acct, label="p"
    )
    pipe.fit(X, y)
    head = pipe[:2]
    assert head.accountant is acct and head.label == "p"
    head.fit(X)  # refits the shared first step: charged again
    assert [e.label for e in acct.ledger] == ["p", "p"]
    assert acct.spent == Budget(2.0, 1e-6)


def test_a_non_basic_pipeline_accountant_is_refused_before_data():
    from privlearn.accounting import ZcdpBudget

    acct = Accountant(ZcdpBudget(1.0), "zcdp")
    pipe = make_private_pipeline(NoisyCentre(0.5, 4.0), accountant=acct)
    with pytest.raises(InvalidParameterError, match="basic composition"):
        pipe.fit(Untouchable())
    assert acct.ledger == ()


def test_a_failed_refit_leaves_no_stale_guarantee():
    acct = Accountant(Budget(10.0, 1e-3))
    pipe = make_private_pipeline(NoisyCentre(0.5, 4.0, rng=10), _adassp(), accountant=acct)
    X, y = _data()
    pipe.fit(X, y)
    assert pipe.privacy_ == Budget(1.5, 1e-6)
    y[0] = np.nan
    with pytest.raises(InvalidParameterError):
        pipe.fit(X, y)
    assert not hasattr(pipe, "privacy_")


@pytest.mark.parametrize(
    "make",
    [
        lambda: pp.StandardScaler(1.0, bounds=(0.0, 1.0)),
        lambda: pp.Clipper(data_norm=1.0),
        lambda: pp.MinMaxScaler(1.0, bounds=(0.0, 1.0)),
        lambda: pp.PCA(1.0, data_norm=1.0),
    ],
    ids=["StandardScaler", "Clipper", "MinMaxScaler", "PCA"],
)
def test_a_non_numeric_value_is_not_quoted_in_the_error(make):
    X = np.array([[0.5, 0.25], [0.1, "secret-value-123"]], dtype=object)
    with pytest.raises(InvalidParameterError) as info:
        make().fit(X)
    assert "secret" not in str(info.value)
    assert "numbers" in str(info.value)


def test_a_one_dimensional_x_is_not_quoted_in_the_error():
    X = np.array([0.123456789, 0.987654321])
    with pytest.raises(InvalidParameterError) as info:
        pp.StandardScaler(1.0, bounds=(0.0, 1.0)).fit(X)
    assert "0.123" not in str(info.value) and "Reshape your data" in str(info.value)


class NoisyLabeller(NoisyCentre):
    """A private 'clusterer' for these tests: labels each row by the sign of its first
    coordinate minus the released noisy mean (fit_predict exists only on such final steps)."""

    def fit_predict(self, X, y=None):
        self.fit(X, y)
        return (np.asarray(X, dtype=float)[:, 0] > self.mean_[0]).astype(int)


def test_fit_predict_runs_on_the_data_and_charges_once():
    X, _ = _data()
    acct = Accountant(Budget(1.0))
    pipe = make_private_pipeline(Normalizer(), NoisyLabeller(0.5, 4.0, rng=11), accountant=acct)
    labels = pipe.fit_predict(X)
    assert labels.shape == (len(X),) and set(np.unique(labels)) <= {0, 1}
    assert pipe.privacy_ == Budget(0.5) == acct.spent and len(acct.ledger) == 1


def test_constructor_keeps_transform_input_and_privacy_guarantee_checks_n():
    pipe = PrivatePipeline([("m", _adassp())], transform_input=["X"])
    assert pipe.get_params()["transform_input"] == ["X"]
    with pytest.raises(InvalidParameterError, match="n_samples"):
        pipe.privacy_guarantee(0)


@pytest.mark.parametrize(
    "model",
    [
        lambda: AdaSSPRegressor(0.05, delta=1e-6, data_norm="private", label_bound=2.0),
        lambda: BoostedAdaSSPRegressor(0.05, delta=1e-6, data_norm="private", label_bound=2.0),
        lambda: PrivateLogisticRegression(0.05, delta=0.0, classes=[0, 1]),
    ],
    ids=["AdaSSP", "BoostedAdaSSP", "PrivateLogisticRegression"],
)
def test_private_bounds_refused_at_small_n_epsilon_before_any_step_reads_data(model):
    """A learner that refuses private bounds at this n epsilon says so in privacy_guarantee,
    so the pipeline refuses before the scaler (an earlier step) reads or releases anything."""
    acct = Accountant(Budget(10.0, 1e-3))
    est = model()
    with pytest.raises(InvalidParameterError):
        est.privacy_guarantee(30)
    pipe = make_private_pipeline(NoisyCentre(0.5, 4.0, rng=12), est, accountant=acct)
    with pytest.raises(InvalidParameterError):
        pipe.fit(Untouchable(), np.zeros(30))
    assert acct.ledger == ()

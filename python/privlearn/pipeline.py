r"""Pipelines that stay private end to end: :func:`make_private_pipeline`.

A scikit-learn :class:`~sklearn.pipeline.Pipeline` fits each step on the output of the steps
before it, and everything a step learns in ``fit`` is part of the released model. A
non-private :class:`sklearn.preprocessing.StandardScaler` in front of a private regressor
stores the exact mean and standard deviation of the private data in the model the user
publishes: the regressor is private, the pipeline is not, and nothing says so.
:func:`make_private_pipeline` builds a :class:`PrivatePipeline`, which refuses such a step,
from the parameters alone, before any data are read and before anything is charged.

**The rule.** Every step must be one of

(a) *private*: a privlearn release with a certified guarantee, that is an instance with a
    ``privacy_guarantee(n_samples)`` method (:class:`privlearn._certified.CertifiedRelease`):
    the private learners of :mod:`privlearn.learners`, the private transformers of
    ``privlearn.preprocessing`` (e.g. its ``StandardScaler``), or a nested
    :class:`PrivatePipeline`;
(b) *stateless*: ``"passthrough"`` or ``None``, or a scikit-learn transformer whose tags say
    that it needs no fit (``sklearn.utils.get_tags(step).requires_fit`` is false and it has
    transformer tags): :class:`~sklearn.preprocessing.Normalizer`,
    :class:`~sklearn.preprocessing.Binarizer`,
    :class:`~sklearn.preprocessing.FunctionTransformer`,
    :class:`~sklearn.kernel_approximation.AdditiveChi2Sampler`,
    :class:`~sklearn.feature_extraction.FeatureHasher` and
    :class:`~sklearn.feature_extraction.text.HashingVectorizer` in scikit-learn 1.9.
    Two exceptions are refused: :class:`~sklearn.feature_extraction.image.PatchExtractor`
    (one input record becomes many rows, so a replaced record replaces many rows of the next
    step's input), and a ``FunctionTransformer`` with both ``func`` and ``inverse_func`` and
    ``check_inverse=True`` (its ``fit`` evaluates both on a sample of the private data and
    warns depending on the result: set ``check_inverse=False``).

Anything else is refused with an :class:`~privlearn.errors.InvalidParameterError` naming the
step, saying why and what to use instead: a scaler, imputer, feature selector or
decomposition of scikit-learn (they fit statistics of the data without noise), a
non-private final estimator, a plain :class:`~sklearn.pipeline.Pipeline`, a
:class:`~sklearn.compose.ColumnTransformer` or :class:`~sklearn.pipeline.FeatureUnion`
(not supported in this version), a class instead of an instance, and the private
predictors of :mod:`privlearn.prediction` (their answers are charged by ``predict``, not by
``fit``, so a fit's guarantee would not cover them; not supported in this version). A pipeline must also hold
at least one private step: one of stateless steps only is a fixed function of each record,
which reads nothing that needs privacy accounting, and is refused as a likely mistake (use
:func:`sklearn.pipeline.make_pipeline`). The last step may be stateless when a private step
precedes it (post-processing).

The rule is checked when the pipeline is built (:func:`make_private_pipeline` and the
:class:`PrivatePipeline` constructor, which checks each step; the "at least one private
step" part is left to ``fit`` so that slicing a fitted pipeline, ``pipe[:-1]``, still works)
and again at the start of ``fit``, ``fit_transform`` and ``fit_predict``, because
``set_params`` can swap a step after the pipeline was built. At fit the private steps'
guarantees are computed for the number of records of ``X`` (read from its shape or length,
never from its values); a step that certifies nothing as configured is refused there, still
before the data are read.

**What the user asserts.** Whether a transformer is stateless and maps each record to one
record is taken from its tags and its documentation: a third-party transformer whose tags say
``requires_fit=False`` is trusted, and ``FunctionTransformer(func)`` is allowed although
privlearn cannot check that ``func`` is a fixed function of each row (``lambda X: X -
X.mean(axis=0)`` is not: it reads every row). Passing one asserts that it is.

**Guarantee.** Let the private steps be :math:`M_1, \dots, M_k`, each
:math:`(\varepsilon_i, \delta_i)`-DP for replace-one neighbours with ``n`` public (their
``privacy_guarantee(n)``). Step :math:`j` is fitted on :math:`T_{j-1}(X)`, where
:math:`T_{j-1}` applies the transforms of the steps before it. Given what those steps
released, :math:`T_{j-1}` is a fixed map of each record to one record, so neighbouring
inputs (one record replaced, same ``n``) stay neighbours: the step's guarantee holds
conditionally on the earlier outputs, and adaptive basic composition (Dwork and Roth, "The
Algorithmic Foundations of Differential Privacy", 2014, Theorem 3.16, via
:func:`~privlearn.accounting.compose_basic`) makes the fitted pipeline
:math:`(\sum_i \varepsilon_i, \sum_i \delta_i)`-DP. The stateless steps are fixed functions of
each record and ``predict``/``transform`` of the fitted pipeline are post-processing. The
labels ``y`` are passed unchanged to every step, as scikit-learn does. Like every privlearn
guarantee it holds with ``rng=None`` in each private step (fresh entropy).

Which library does what: the pipeline machinery (step naming, parameter routing,
``clone``, ``get_params``/``set_params``, caching is refused) is scikit-learn's
:class:`~sklearn.pipeline.Pipeline`; privlearn adds the refusal rule and the guarantee.
"""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

from sklearn.pipeline import Pipeline, make_pipeline

from ._certified import public_n_samples
from ._validate import check_integer
from .accounting import Budget, compose_basic
from .accounting._accountant import check_accountant
from .errors import InvalidParameterError

__all__ = ["PrivatePipeline", "make_private_pipeline"]

#: The ledger label of a pipeline's single charge (its ``label`` parameter's default).
LABEL = "PrivatePipeline"

#: What to use instead of a refused scikit-learn step, by class name (the rest get a generic hint).
_INSTEAD = {
    "StandardScaler": "privlearn.preprocessing.StandardScaler (private means and variances)",
    "MinMaxScaler": "privlearn.preprocessing.MinMaxScaler (private low and high quantiles)",
    "RobustScaler": "privlearn.preprocessing.RobustScaler (private median and quantile range)",
    "MaxAbsScaler": "privlearn.preprocessing.MinMaxScaler, or declared bounds in the learner",
    "SimpleImputer": "impute with constants chosen without the data, e.g. "
    "FunctionTransformer(lambda X: numpy.nan_to_num(X, nan=0.0))",
    "PCA": "privlearn.preprocessing.PCA (private components from a declared data_norm)",
    "Pipeline": "privlearn.pipeline.make_private_pipeline for the nested pipeline",
}

_GENERIC = (
    "use a privlearn private estimator or transformer (one with privacy_guarantee), or a "
    "stateless transformer (scikit-learn tags requires_fit=False, e.g. Normalizer, "
    "FunctionTransformer, 'passthrough')"
)


def _step_kind(name: str, step: Any) -> str:
    """``"private"`` or ``"stateless"`` for an admissible step; raise otherwise (no data read)."""
    where = f"steps: step {name!r}"
    if step is None or (isinstance(step, str) and step == "passthrough"):
        return "stateless"
    if isinstance(step, type):
        raise InvalidParameterError(
            f"{where} is the class {step.__name__}, not an instance; pass {step.__name__}(...)",
            "steps",
        )
    if isinstance(step, PrivatePipeline):
        for sub_name, sub in step.steps:
            _step_kind(f"{name}__{sub_name}", sub)
        return "private"
    if callable(getattr(step, "privacy_guarantee", None)):
        return "private"
    cls = type(step).__name__
    if isinstance(step, Pipeline):
        raise InvalidParameterError(
            f"{where} ({cls}) is a scikit-learn Pipeline, whose steps are not checked; use "
            f"{_INSTEAD['Pipeline']}",
            "steps",
        )
    if cls == "PatchExtractor":
        raise InvalidParameterError(
            f"{where} (PatchExtractor) turns one input record into many rows, so replacing one "
            "record replaces many rows of the next step's input and the next step's guarantee "
            "no longer applies; it cannot be part of a private pipeline",
            "steps",
        )
    from sklearn.utils import get_tags

    try:
        tags = get_tags(step)
    except (AttributeError, TypeError, ValueError):
        tags = None
    if tags is not None and not tags.requires_fit and tags.transformer_tags is not None:
        if (
            cls == "FunctionTransformer"
            and getattr(step, "check_inverse", False)
            and getattr(step, "func", None) is not None
            and getattr(step, "inverse_func", None) is not None
        ):
            raise InvalidParameterError(
                f"{where} (FunctionTransformer with func and inverse_func) has "
                "check_inverse=True: its fit evaluates both functions on a sample of the "
                "private data and warns depending on the result; set check_inverse=False",
                "steps",
            )
        return "stateless"
    instead = _INSTEAD.get(cls, _GENERIC)
    raise InvalidParameterError(
        f"{where} ({cls}) fits on the data without a certified privacy guarantee: what it "
        f"learns in fit (statistics, a model) is released with the pipeline without noise; "
        f"instead, {instead}",
        "steps",
    )


def _check_steps(steps: Any, *, require_private: bool) -> List[Tuple[str, Any]]:
    """The ``(name, step)`` pairs of a pipeline, each admissible; with ``require_private`` also
    refuse a pipeline without a private step. Reads no data."""
    if not isinstance(steps, (list, tuple)) or not steps:
        raise InvalidParameterError(
            f"steps: must be a non-empty list of (name, estimator) pairs; got {steps!r}", "steps"
        )
    private: List[Tuple[str, Any]] = []
    for pair in steps:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not isinstance(pair[0], str):
            raise InvalidParameterError(
                f"steps: each step must be a (name, estimator) pair; got {pair!r}", "steps"
            )
        name, step = pair
        if _step_kind(name, step) == "private":
            private.append((name, step))
    if require_private and not private:
        raise InvalidParameterError(
            "steps: the pipeline has no private step: a pipeline of stateless steps only is a "
            "fixed function of each record and releases nothing that needs privacy accounting; "
            "add a privlearn private estimator or transformer, or use "
            "sklearn.pipeline.make_pipeline",
            "steps",
        )
    return private


def _private_steps(steps: Any) -> List[Tuple[str, Any]]:
    """The private steps of checked ``steps`` (a nested pipeline counts as one)."""
    return [(name, step) for name, step in steps if _step_kind(name, step) == "private"]


class PrivatePipeline(Pipeline):
    r"""A scikit-learn :class:`~sklearn.pipeline.Pipeline` whose every step is private or
    stateless, checked without data when built and again at every fit.

    See the module documentation (:mod:`privlearn.pipeline`) for the rule, what the user
    asserts by passing a stateless transformer, and the derivation of the guarantee. Build it
    with :func:`make_private_pipeline` (which names the steps).

    **Guarantee.** A fit is :math:`(\sum_i \varepsilon_i, \sum_i \delta_i)`-DP, the basic
    composition of its private steps' ``privacy_guarantee(n)`` (adaptive composition, Dwork
    and Roth, Theorem 3.16): replace-one neighbours with ``n`` public, with ``rng=None`` in
    every private step; the stateless steps are per-record maps and ``predict`` /
    ``transform`` are post-processing.

    Parameters
    ----------
    steps : list of (str, estimator) tuples
        As for :class:`~sklearn.pipeline.Pipeline`; each step private or stateless.
    transform_input : list of str or None, default None
        As for :class:`~sklearn.pipeline.Pipeline` (metadata routing).
    memory : None, default None
        Must be ``None``: caching fitted steps is refused at fit (a cache hit would return a
        private step fitted earlier without a new charge, and hashing a shared accountant is
        not supported).
    verbose : bool, default False
        As for :class:`~sklearn.pipeline.Pipeline`.
    accountant : Accountant, optional
        If given, charged once per fit for the whole pipeline (see Notes); every private step
        must then have ``accountant=None``. Clones share it.
    label : str, default "PrivatePipeline"
        The ledger label of that charge.

    Attributes
    ----------
    privacy_ : Budget
        After fit: the basic composition (:func:`~privlearn.accounting.compose_basic`) of the
        private steps' ``privacy_guarantee(n_samples)``, replace-one neighbours, ``n`` public.

    Raises
    ------
    InvalidParameterError
        When a step is neither private nor stateless (from the constructor, and from ``fit``
        after ``set_params``), when no step is private (at fit), when a private step certifies
        nothing as configured (at fit), or when ``memory`` is not ``None`` (at fit). Always
        before the data are read and before anything is charged.

    Notes
    -----
    **Charging.** With ``accountant=None`` each private step charges its own accountant (if it
    has one) as it does outside a pipeline, once per fit. With a pipeline ``accountant``, the
    pipeline is charged **once per fit**: one ledger entry, labelled ``label``, whose event is
    the composition (:meth:`PrivacyEvent.composed <privlearn.accounting.PrivacyEvent.composed>`)
    of the private steps' guarantees, each as an ``(epsilon, delta)`` event
    (:meth:`PrivacyEvent.from_budget <privlearn.accounting.PrivacyEvent.from_budget>`); its
    budget is :attr:`privacy_`. Every private step must then have ``accountant=None`` (a step
    with its own accountant would be charged twice, so it is refused before the data are read)
    and an ``accountant`` parameter (every privlearn release has one). During the fit each
    private step charges a recording accountant whose cap is exactly its
    ``privacy_guarantee(n)`` (a step that would charge more fails before it draws), and its
    ``accountant`` parameter is restored to ``None`` afterwards. The charge is reserved before
    the data are read (a spend that does not fit raises
    :class:`~privlearn.errors.BudgetExceededError` and nothing is read or drawn), and
    committed when the fit returns, **or when it raises after a step has released something**
    (the fitted earlier steps stay in the pipeline, so their releases count); an error before
    any release (bad input, NaN) charges nothing. The pipeline accountant must use basic
    composition (a zCDP, RDP or PLD one is refused before the data are read: the steps'
    ``(epsilon, delta)`` guarantees have no such form in general; give each step that
    accountant instead, so that it composes their native events). A slice ``pipe[a:b]``
    keeps the accountant, since it shares the fitted steps; a step refitted on its own
    (``pipe[0].fit(...)``) has ``accountant=None`` and is charged nowhere, as outside a
    pipeline.

    Either way cross-validation with ``k`` folds charges ``k`` fits, and clones share the
    accountants (scikit-learn's ``clone`` copies neither).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.preprocessing import Normalizer, StandardScaler
    >>> from privlearn.accounting import Accountant, Budget
    >>> from privlearn.learners import AdaSSPRegressor
    >>> from privlearn.pipeline import make_private_pipeline
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> y = X @ np.array([0.5, -0.25, 0.1])
    >>> acct = Accountant(Budget(2.0, 1e-5))
    >>> pipe = make_private_pipeline(
    ...     Normalizer(),
    ...     AdaSSPRegressor(1.0, delta=1e-6, data_norm=1.0, label_bound=1.0, accountant=acct),
    ... )
    >>> pipe.fit(X, y).privacy_
    Budget(epsilon=1.0, delta=1e-06)
    >>> acct.spent
    Budget(epsilon=1.0, delta=1e-06)
    >>> make_private_pipeline(StandardScaler(), AdaSSPRegressor(1.0, data_norm=1.0))
    Traceback (most recent call last):
    ...
    privlearn.errors.InvalidParameterError: steps: step 'standardscaler' (StandardScaler) ...
    """

    def __init__(
        self,
        steps: Any,
        *,
        transform_input: Optional[List[str]] = None,
        memory: Any = None,
        verbose: bool = False,
        accountant: Any = None,
        label: str = LABEL,
    ) -> None:
        _check_steps(steps, require_private=False)
        super().__init__(steps, transform_input=transform_input, memory=memory, verbose=verbose)
        self.accountant = accountant
        self.label = label

    def __sklearn_clone__(self) -> Any:
        """Clone as scikit-learn does (the steps cloned unfitted), sharing the accountant: it
        must see the charges of every copy (cross-validation, grid search)."""
        from sklearn.base import clone

        params = self.get_params(deep=False)
        return type(self)(
            **{k: v if k == "accountant" else clone(v, safe=False) for k, v in params.items()}
        )

    def __getitem__(self, ind: Any) -> Any:
        """As :meth:`sklearn.pipeline.Pipeline.__getitem__`; a slice keeps the pipeline's
        ``accountant`` and ``label`` (it shares the step objects, so refitting it must be
        charged like refitting the pipeline)."""
        out = super().__getitem__(ind)
        if isinstance(ind, slice):
            out.accountant = self.accountant
            out.label = self.label
        return out

    def privacy_guarantee(self, n_samples: int) -> Budget:
        """The guarantee of one ``fit`` on ``n_samples`` records: the basic composition of the
        private steps' ``privacy_guarantee(n_samples)`` (replace-one neighbours, ``n`` public),
        from the parameters only, so that a pipeline nests in another like an estimator.

        Parameters
        ----------
        n_samples : int
            The number of records (public), >= 1.

        Returns
        -------
        Budget

        Raises
        ------
        InvalidParameterError
            If a step is neither private nor stateless, no step is private, or a private step
            certifies nothing as configured (its reason is quoted).
        """
        n = check_integer(n_samples, "n_samples", 1)
        private = _check_steps(self.steps, require_private=True)
        budgets = []
        for name, step in private:
            try:
                budget = step.privacy_guarantee(n)
            except InvalidParameterError as err:
                raise InvalidParameterError(
                    f"steps: step {name!r} ({type(step).__name__}) certifies no privacy "
                    f"guarantee as configured ({err})",
                    "steps",
                ) from None
            if not isinstance(budget, Budget):
                raise InvalidParameterError(
                    f"steps: step {name!r} ({type(step).__name__}).privacy_guarantee must "
                    f"return a privlearn.accounting.Budget, got {type(budget).__name__}",
                    "steps",
                )
            budgets.append(budget)
        return compose_basic(budgets)

    def _before_fit(self, X: Any) -> Budget:
        """The checks of every fit and the guarantee it will have, from the parameters and the
        number of records only."""
        if self.memory is not None:
            raise InvalidParameterError(
                "memory: must be None for a private pipeline: a cached step would be reused "
                "without a new charge, and the shared accountant cannot be hashed; got "
                f"{type(self.memory).__name__}",
                "memory",
            )
        _check_steps(self.steps, require_private=True)  # before X is looked at
        check_accountant(self.accountant)
        if not isinstance(self.label, str) or not self.label:
            raise InvalidParameterError(
                f"label: must be a non-empty str; got {self.label!r}", "label"
            )
        if self.accountant is not None:
            if self.accountant.composition != "basic":
                raise InvalidParameterError(
                    "accountant: a pipeline accountant must use basic composition (it is "
                    "charged the steps' (epsilon, delta) guarantees, which have no zCDP, RDP or "
                    f"PLD form in general); got composition={self.accountant.composition!r}. "
                    "To compose the steps' native events, give the pipeline no accountant and "
                    "each private step this accountant",
                    "accountant",
                )
            _refuse_own_accountants(self.steps, "")
        return self.privacy_guarantee(public_n_samples(X))

    def _fit_charged(self, method: str, X: Any, y: Any, params: Any) -> Any:
        """Run scikit-learn's ``Pipeline.<method>(X, y, **params)`` after the checks of
        :meth:`_before_fit`, charging the pipeline's accountant once (class Notes); set
        :attr:`privacy_`."""
        privacy = self._before_fit(X)
        fit = getattr(super(), method)  # after the checks: fit_predict may not exist
        self.__dict__.pop("privacy_", None)  # a failed refit leaves no stale guarantee
        if self.accountant is None:
            out = fit(X, y, **params)
            self.privacy_ = privacy
            return out
        from .accounting import Accountant
        from .accounting._event import PrivacyEvent

        n = public_n_samples(X)
        private = _private_steps(self.steps)
        budgets = [step.privacy_guarantee(n) for _name, step in private]
        event = PrivacyEvent.composed(
            [PrivacyEvent.from_budget(b) for b in budgets], budget=privacy
        )
        recorders = [Accountant(b) for b in budgets]
        failure: Optional[BaseException] = None
        try:
            for (_name, step), recorder in zip(private, recorders):
                step.set_params(accountant=recorder)
            with self.accountant.transaction(event, self.label):
                try:
                    out = fit(X, y, **params)
                except BaseException as err:  # also KeyboardInterrupt, SystemExit
                    if not any(r.ledger for r in recorders):
                        raise  # nothing was released: nothing is charged
                    failure = err  # something was released: commit the charge, then re-raise
        finally:
            for _name, step in private:
                step.set_params(accountant=None)
        if failure is not None:
            raise failure
        self.privacy_ = privacy
        return out

    def fit(self, X: Any, y: Any = None, **params: Any) -> "PrivatePipeline":
        """Check the steps (no data read), then fit as :meth:`sklearn.pipeline.Pipeline.fit`
        and set :attr:`privacy_`; with a pipeline ``accountant``, charge it once (class Notes).

        Raises
        ------
        InvalidParameterError
            See the class documentation; raised before the data are read.
        BudgetExceededError
            If the pipeline's accountant cannot pay :attr:`privacy_`; nothing is read.
        """
        self._fit_charged("fit", X, y, params)
        return self

    def fit_transform(self, X: Any, y: Any = None, **params: Any) -> Any:
        """Check the steps (no data read), then as
        :meth:`sklearn.pipeline.Pipeline.fit_transform`; sets :attr:`privacy_` and charges as
        :meth:`fit`."""
        return self._fit_charged("fit_transform", X, y, params)

    def fit_predict(self, X: Any, y: Any = None, **params: Any) -> Any:
        """Check the steps (no data read), then as
        :meth:`sklearn.pipeline.Pipeline.fit_predict`; sets :attr:`privacy_` and charges as
        :meth:`fit`."""
        return self._fit_charged("fit_predict", X, y, params)


def _refuse_own_accountants(steps: Any, prefix: str) -> None:
    """Under a pipeline accountant: refuse a private step (at any depth of nested pipelines)
    that has its own accountant or no ``accountant`` parameter. Reads no data."""
    for name, step in _private_steps(steps):
        where = f"steps: step {prefix + name!r} ({type(step).__name__})"
        params = step.get_params(deep=False) if hasattr(step, "get_params") else {}
        if "accountant" not in params:
            raise InvalidParameterError(
                f"{where} has no accountant parameter, so the pipeline's accountant cannot "
                "see what it charges; give the pipeline no accountant",
                "steps",
            )
        if params["accountant"] is not None:
            raise InvalidParameterError(
                f"{where} has its own accountant, but the pipeline's accountant charges the "
                "whole pipeline once: it would be charged twice; pass accountant=None to the "
                "step, or give the pipeline no accountant",
                "steps",
            )
        if isinstance(step, PrivatePipeline):
            _refuse_own_accountants(step.steps, f"{prefix}{name}__")


def make_private_pipeline(
    *steps: Any,
    memory: Any = None,
    verbose: bool = False,
    accountant: Any = None,
    label: str = LABEL,
) -> PrivatePipeline:
    r"""Build a :class:`PrivatePipeline` from estimators, naming the steps as
    :func:`sklearn.pipeline.make_pipeline` does (the lower-cased class name, numbered when
    repeated).

    Every step must be private (a privlearn release with ``privacy_guarantee``, or a nested
    :class:`PrivatePipeline`) or stateless (``"passthrough"``/``None``, or a transformer whose
    scikit-learn tags say ``requires_fit=False``), and at least one must be private; see the
    module documentation (:mod:`privlearn.pipeline`) for the rule and the guarantee. The check
    reads no data and charges nothing.

    Parameters
    ----------
    *steps : estimators
        The steps, in order.
    memory : None, default None
        Must be ``None`` (caching is refused at fit; see :class:`PrivatePipeline`).
    verbose : bool, default False
        Print the time of each step's fit.
    accountant : Accountant, optional
        Charged once per fit for the whole pipeline; the private steps must then have
        ``accountant=None`` (see :class:`PrivatePipeline`, Notes).
    label : str, default "PrivatePipeline"
        The ledger label of that charge.

    Returns
    -------
    PrivatePipeline
        Unfitted; after ``fit``, ``privacy_`` is the basic composition of the private steps'
        guarantees.

    Raises
    ------
    InvalidParameterError
        If a step is neither private nor stateless (naming the step, why, and what to use
        instead), or no step is private.

    Notes
    -----
    Without ``accountant`` each private step charges its own accountant on every fit; with it
    the pipeline is charged once per fit, as one composed event.

    Examples
    --------
    >>> from sklearn.preprocessing import FunctionTransformer
    >>> from privlearn.learners import OutputPerturbationRegressor
    >>> from privlearn.pipeline import make_private_pipeline
    >>> pipe = make_private_pipeline(
    ...     FunctionTransformer(),  # the identity: a fixed function of each row
    ...     OutputPerturbationRegressor(0.5, data_norm=1.0, label_bound=1.0),
    ... )
    >>> [name for name, _ in pipe.steps]
    ['functiontransformer', 'outputperturbationregressor']
    >>> pipe.privacy_guarantee(100)
    Budget(epsilon=0.5, delta=0.0)
    """
    named = make_pipeline(*steps).steps  # scikit-learn's naming; its Pipeline checks nothing
    _check_steps(named, require_private=True)
    return PrivatePipeline(
        named, memory=memory, verbose=verbose, accountant=accountant, label=label
    )

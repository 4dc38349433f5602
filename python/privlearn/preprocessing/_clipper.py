r"""A row-norm and label ``Clipper`` whose bounds are declared or released privately.

What it does
------------
At ``fit`` the clipper fixes a bound ``C`` on the rows' L2 norms (``data_norm``) and/or a bound
``B`` on the absolute labels (``label_bound``). Each is either **declared** (a number: a
parameter, nothing is read and nothing is charged) or ``"private"``: then it is the private
``q``-quantile of the row norms ``||x_i||_2`` (``q = norm_quantile``) or of the absolute labels
``|y_i|`` (``q = label_quantile``), released by the exponential mechanism over a public grid,
:func:`privlearn._private_quantile.private_quantile_bound` (its module documents the mechanism,
the guarded utility, the replace-one sensitivity 1, the far-tail bound and the accuracy; the
numbers below are not repeated there). ``transform`` maps each row on its own,

.. math:: x \mapsto x \cdot \min\left(1, \frac{C}{\|x\|_2}\right)
          \qquad (\text{with } \texttt{rescale=True}: \; x \mapsto \frac{x}{\max(\|x\|_2, C)}),

so every output row has norm at most ``C`` (at most 1 with ``rescale``), up to rounding.
``clip_labels(y)`` returns ``clip(y, -B, B)``.

Guarantee
---------
Let ``k`` be the number of bounds that are ``"private"`` (0, 1 or 2). ``k = 0``: ``fit`` reads
``X`` only to check it (finite numbers, its shape and column names) and releases nothing about
the data; it charges
nothing and ``privacy_guarantee(n)`` is ``Budget(0)`` (``epsilon``, if given, is not spent).
``k >= 1``: each private bound is released at the share ``epsilon / k`` (``k = 2``: two exact
halves, ``epsilon / 2 + epsilon / 2 == epsilon`` in floating point; the split is fixed and
public). Each release is the exponential mechanism (McSherry and Talwar, "Mechanism design via
differential privacy", FOCS 2007, Theorem 6) with a utility of replace-one sensitivity 1 (the
row norm and the absolute label are functions of one record each: replacing a record replaces
one value), so it is ``epsilon / k``-DP and ``epsilon / k``-bounded-range (Durfee and Rogers,
"Practical differentially private top-k selection with pay-what-you-get composition", NeurIPS
2019). By basic composition (Dwork and Roth, *The algorithmic foundations of differential
privacy*, Theorem 3.14) ``fit`` is ``epsilon``-DP, **pure**, for **replace-one** neighbours
(one record ``(x_i, y_i)`` replaced, ``n`` public). One fit charges the accountant once, label
``"Clipper"``, with ``PrivacyEvent.composed`` of the ``k`` bounded-range events and the budget
``Budget(epsilon)`` (a zCDP or RDP accountant composes the bounded-range forms, tighter than
pure DP). The guarantee holds with ``rng=None`` or an unseeded generator.

``transform`` and ``clip_labels`` read only their own input and the released bounds
(post-processing). Given the released ``C``, ``transform`` is a fixed map of each row to one
row, so a later pipeline step fitted on ``transform(X)`` sees replace-one neighbours whenever
the raw data are replace-one neighbours: this is why the clipper can precede a private learner
in :func:`privlearn.pipeline.make_private_pipeline` (whose documentation derives the composed
guarantee).

Whether ``fit`` succeeds, what it charges and the shapes of what it stores depend only on the
parameters, ``n`` and ``d``: every refusal is raised from the parameters, the shapes, and the
finiteness of the inputs (NaN and infinities are refused, in messages without a value).

Labels and pipelines
--------------------
A scikit-learn transformer cannot change ``y`` inside a :class:`~sklearn.pipeline.Pipeline`:
the labels reach the next step as they were. **``transform`` never touches ``y``.** A label
bound is used in one of two ways:

* read ``label_bound_`` after ``fit`` and pass it to the learner you fit next (it clips the
  labels itself), or call ``clip_labels(y)``; the two fits compose (Dwork and Roth, Theorem
  3.14), see the example of :class:`Clipper`;
* a learner in a pipeline takes its own declared ``label_bound`` (or its own ``"private"``
  option). A clipper with ``label_bound="private"`` **inside** a pipeline spends its share on a
  bound that no later step uses: do not do that.

A private row bound inside a pipeline has the same problem unless the learner's declared
``data_norm`` matches the clipper's output, which is what ``rescale=True`` is for: rows leave
the clipper in the unit ball, so the learner declares ``data_norm=1.0`` and clips nothing
more (for a linear model, fitting on ``x / C`` is fitting on ``x`` with the bound ``C`` and the
coefficients multiplied by ``C``; predictions go through the same ``transform``).

Defaults
--------
``norm_quantile = 0.25`` and ``label_quantile = 0.75`` are the values measured for the learners'
private bounds in issue 19 (``privlearn.learners._private_bounds``: sufficient-statistics
perturbation, AdaSSP-style, on warfarin and synthetic data); they were not re-measured for
other downstream learners. The grid is the public :data:`~privlearn._private_quantile.DEFAULT_GRID`
(``2^(k/8)`` from ``1e-4`` to ``1e8``). No plan of the learners is applied here: the user
chooses ``epsilon`` and the quantiles, and the accuracy of each bound is the mechanism's (the
released point's rank is within ``2 (ln K + ln(1/beta)) / (epsilon / k)`` of ``q n`` beyond
the guard's slack ``r`` with probability ``1 - beta``, ``K = 319`` grid points; see the
mechanism's "Accuracy and the grid"), so a small ``n epsilon`` gives a poor bound. Nothing
refuses a small ``n epsilon``: the guarantee holds regardless.

Numerics
--------
The row norms are computed as ``sqrt(sum x_j^2)`` (numpy); rows whose sum of squares overflows
or is below ``2^-900`` are recomputed scaled by their largest ``|x_j|``, and a norm above the
largest float is taken as the largest float (a value above the grid's top counts the same
wherever it lies). The privacy analysis needs nothing of this: each released count depends on
one record through one value, whatever function of the row it is. ``transform`` multiplies
each row by ``C / max(||x||, C)`` (``1 / max(||x||, C)`` with ``rescale``; no division by zero,
and a row inside the ball is unchanged without ``rescale``); a row whose norm overflows is
first divided by its largest ``|x_j|``. An output norm can exceed ``C`` (or 1) by a few units
in the last place,
which a downstream learner's own clipping to its declared bound absorbs (the privlearn learners
clip every row to ``data_norm``, and their guarantee rests on that clipping, not on this one).

Which library does what: the row norms are numpy; the quantile release is
:mod:`privlearn._private_quantile` (counting by ``numpy.searchsorted``, the draw by privlearn's
exact exponential-mechanism sampler in the Rust core); the input checks, ``feature_names_in_``
and the transformer plumbing are scikit-learn's.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin

from .._private_quantile import check_grid, private_quantile_bound
from .._validate import check_boolean, check_epsilon, check_integer, check_real
from ..accounting._accountant import check_accountant
from ..accounting._numerics import split_down
from ..errors import InvalidParameterError
from ._base import PrivateTransformerMixin

__all__ = ["Clipper"]

LABEL = "Clipper"
#: The string that asks for a privately released bound.
PRIVATE = "private"
#: Default quantile of the row norms (the learners' measured default, issue 19).
NORM_QUANTILE = 0.25
#: Default quantile of the absolute labels (the learners' measured default, issue 19).
LABEL_QUANTILE = 0.75

# Sums of squares outside [2^-900, largest float) are recomputed with scaling.
_TINY_SQUARES = 2.0**-900
_BIG = float(np.finfo(np.float64).max)

Bound = Union[None, float, str]


def _bound_arg(value: object, name: str) -> Bound:
    """``None``, ``"private"`` or a finite number > 0 (checked before any data are read)."""
    if value is None:
        return None
    if isinstance(value, str):
        if value != PRIVATE:
            raise InvalidParameterError(
                f"{name}: must be None, a finite number > 0 or 'private'; got {value!r}", name
            )
        return PRIVATE
    try:
        return check_real(value, name, 0.0, lo_open=True, exact=True)
    except InvalidParameterError:
        raise InvalidParameterError(
            f"{name}: must be None, a finite number > 0 or 'private'; got {value!r}", name
        ) from None


def _quantile_arg(value: object, name: str) -> float:
    return check_real(value, name, 0.0, 1.0, lo_open=True, hi_open=True)


def row_norms(X: np.ndarray) -> np.ndarray:
    """L2 norms of the rows of a finite 2-D float64 array, without spurious overflow or
    underflow (see the module's "Numerics"); a norm above the largest float is the largest
    float."""
    ss = np.einsum("ij,ij->i", X, X)
    norms = np.sqrt(ss)
    bad = ~(ss < np.inf) | (ss < _TINY_SQUARES)
    if np.any(bad):
        rows = np.abs(X[bad])
        top = rows.max(axis=1)
        scale = np.where(top > 0, top, 1.0)
        with np.errstate(over="ignore"):
            fixed = top * np.sqrt(
                np.einsum("ij,ij->i", rows / scale[:, None], rows / scale[:, None])
            )
        norms[bad] = np.minimum(fixed, _BIG)
    return norms


class Clipper(  # type: ignore[misc]
    PrivateTransformerMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    r"""Clip every row to an L2-norm bound, and provide a label bound, each declared or chosen
    privately.

    ``fit`` fixes ``data_norm_`` (the row-norm bound ``C``) and/or ``label_bound_`` (the
    label bound ``B``): a declared number is taken as it is; ``"private"`` releases the
    ``norm_quantile`` of the row norms (the ``label_quantile`` of ``|y|``) with the exponential
    mechanism over a public grid (:mod:`privlearn._private_quantile`). ``transform`` maps each
    row ``x`` to ``x * min(1, C / ||x||)`` (``rescale=True``: ``x / max(||x||, C)``, inside the
    unit ball). **``transform`` never changes ``y``**: use ``label_bound_`` or
    :meth:`clip_labels` (details, the pipeline pattern and the numerics in the source module
    ``privlearn.preprocessing._clipper``).

    **Guarantee.** With ``k`` bounds ``"private"`` (``k >= 1``), each is released at
    ``epsilon / k`` (exact halves for ``k = 2``) by the exponential mechanism (McSherry and
    Talwar 2007, Theorem 6) with a utility of replace-one sensitivity 1, which is
    ``epsilon / k``-bounded-range (Durfee and Rogers 2019); by basic composition (Dwork and
    Roth, Theorem 3.14) ``fit`` is ``epsilon``-differentially private (pure), neighbours
    replace one record ``(x_i, y_i)``, ``n`` public. It charges the accountant once (label
    ``"Clipper"``, the composed bounded-range events, ``Budget(epsilon)``). With only declared
    bounds ``fit`` releases nothing about the data and charges nothing
    (``privacy_guarantee(n)`` is ``Budget(0)``). The guarantee holds with ``rng=None`` or an
    unseeded generator; ``transform`` and ``clip_labels`` are post-processing.

    Parameters
    ----------
    epsilon : float, optional
        Privacy parameter of one fit, finite and > 0; required when a bound is ``"private"``
        (and then all of it is spent on the private bounds). With declared bounds only it may be
        ``None``; if given, it is checked and not spent.
    data_norm : None, float or "private", default None
        Bound on the rows' L2 norm: a declared number > 0, ``"private"``, or ``None`` (rows are
        not clipped; then ``label_bound`` must be set).
    label_bound : None, float or "private", default None
        Bound on ``|y|``: a declared number > 0, ``"private"`` (``fit`` then needs ``y``), or
        ``None``.
    norm_quantile : float, default 0.25
        Quantile of the row norms released as ``data_norm_`` (with ``data_norm="private"``).
    label_quantile : float, default 0.75
        Quantile of ``|y|`` released as ``label_bound_`` (with ``label_bound="private"``).
    rescale : bool, default False
        Also divide every clipped row by ``data_norm_``, so that the output lies in the unit
        ball and a downstream learner declares ``data_norm=1.0`` (the pattern for a private
        row bound in a pipeline). Requires ``data_norm``.
    grid : array_like, optional
        The public candidate grid of the private quantiles (strictly increasing, > 0; default
        ``DEFAULT_GRID``, ``2^(k/8)`` from ``1e-4`` to ``1e8``). Must not be chosen from the
        data.
    accountant : Accountant, optional
        Charged once per fit with a private bound, only if the fit succeeds; a spend that does
        not fit raises ``BudgetExceededError`` before anything is drawn. Clones share it.
    rng : None, int or Generator, optional
        Randomness (:mod:`privlearn.random`); an integer seed is reproducible, not private.

    Attributes
    ----------
    data_norm_ : float or None
        The row-norm bound used by ``transform`` (declared or released; ``None`` without one).
    label_bound_ : float or None
        The label bound (declared or released; ``None`` without one).
    n_samples_seen_ : int
        Number of rows (public).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Column names of a DataFrame input.

    Raises
    ------
    InvalidParameterError
        From ``fit``, before anything is drawn or charged: a bad parameter (a bound that is not
        ``None``, a number > 0 or ``"private"``; both bounds ``None``; ``"private"`` without
        ``epsilon``; a quantile outside (0, 1); ``rescale`` without ``data_norm``; a bad grid),
        checked before the data are read; ``y`` missing with ``label_bound="private"``; bad
        data (NaN or infinite values in ``X`` or in ``y`` when it is read, shapes, lengths).

    Examples
    --------
    A private row bound in front of a private learner, in one private pipeline: the clipper
    spends 0.25 on the 0.25-quantile of the row norms and rescales the rows into the unit ball,
    so the learner declares ``data_norm=1.0``; the pipeline's guarantee is the sum.

    >>> import numpy as np
    >>> from privlearn.accounting import Accountant, Budget
    >>> from privlearn.learners import AdaSSPRegressor
    >>> from privlearn.pipeline import make_private_pipeline
    >>> from privlearn.preprocessing import Clipper
    >>> rs = np.random.default_rng(0)
    >>> X = rs.normal(size=(5000, 3)) * 40.0  # units unknown in advance
    >>> y = np.clip(X @ np.array([0.01, -0.02, 0.005]), -1.0, 1.0)
    >>> acct = Accountant(Budget(1.0, 1e-6))
    >>> pipe = make_private_pipeline(
    ...     Clipper(0.25, data_norm="private", rescale=True, accountant=acct, rng=1),
    ...     AdaSSPRegressor(0.75, delta=1e-6, data_norm=1.0, label_bound=1.0,
    ...                     accountant=acct, rng=2),
    ... )  # seeded: reproducible, not private
    >>> pipe.fit(X, y).privacy_
    Budget(epsilon=1.0, delta=1e-06)
    >>> [entry.label for entry in acct.ledger]
    ['Clipper', 'AdaSSPRegressor']
    >>> c = pipe[0].data_norm_
    >>> bool(40.0 < c < 50.0)  # the true 0.25-quantile of the norms is 44.5
    True
    >>> bool(np.linalg.norm(pipe[0].transform(X), axis=1).max() <= 1.0 + 1e-12)
    True

    A private label bound is used outside a pipeline (``transform`` leaves ``y`` alone): fit
    the clipper, then pass the released bounds to the learner; the two fits compose.

    >>> acct = Accountant(Budget(1.0))
    >>> clip = Clipper(0.25, data_norm="private", label_bound="private",
    ...                accountant=acct, rng=3).fit(X, y)
    >>> model = AdaSSPRegressor(0.75, noise="laplace", data_norm=clip.data_norm_,
    ...                         label_bound=clip.label_bound_, accountant=acct, rng=4)
    >>> _ = model.fit(clip.transform(X), clip.clip_labels(y))
    >>> acct.spent
    Budget(epsilon=1.0, delta=0.0)
    """

    def __init__(
        self,
        epsilon: Optional[float] = None,
        *,
        data_norm: Any = None,
        label_bound: Any = None,
        norm_quantile: float = NORM_QUANTILE,
        label_quantile: float = LABEL_QUANTILE,
        rescale: bool = False,
        grid: Any = None,
        accountant: Any = None,
        rng: Any = None,
    ) -> None:
        self.epsilon = epsilon
        self.data_norm = data_norm
        self.label_bound = label_bound
        self.norm_quantile = norm_quantile
        self.label_quantile = label_quantile
        self.rescale = rescale
        self.grid = grid
        self.accountant = accountant
        self.rng = rng

    # -- parameters (checked before any data are read) -------------------------------------------

    def _params(self) -> Dict[str, Any]:
        data_norm = _bound_arg(self.data_norm, "data_norm")
        label_bound = _bound_arg(self.label_bound, "label_bound")
        if data_norm is None and label_bound is None:
            raise InvalidParameterError(
                "data_norm: a Clipper needs data_norm or label_bound (a number > 0 or "
                "'private'); both are None, so it would do nothing",
                "data_norm",
            )
        private: List[str] = [
            name
            for name, value in (("data_norm", data_norm), ("label_bound", label_bound))
            if value == PRIVATE
        ]
        if private and self.epsilon is None:
            raise InvalidParameterError(
                f"epsilon: {private[0]}='private' releases a private quantile and needs the "
                "privacy parameter epsilon (finite and > 0); got None",
                "epsilon",
            )
        eps = None if self.epsilon is None else check_epsilon(self.epsilon, exact=True)
        shares: Tuple[float, ...] = ()
        if private:
            assert eps is not None
            shares = split_down(eps, (1.0,) * len(private))  # exact sum <= eps
            if shares[0] <= 0.0:
                raise InvalidParameterError(
                    f"epsilon: too small to split between {len(private)} private bounds; got "
                    f"{eps!r}",
                    "epsilon",
                )
        norm_q = _quantile_arg(self.norm_quantile, "norm_quantile")
        label_q = _quantile_arg(self.label_quantile, "label_quantile")
        rescale = check_boolean(self.rescale, "rescale")
        if rescale and data_norm is None:
            raise InvalidParameterError(
                "rescale: dividing the rows by the row-norm bound needs data_norm (a number > 0 "
                "or 'private'); got data_norm=None",
                "rescale",
            )
        try:
            grid = check_grid(self.grid)
        except InvalidParameterError as err:
            raise InvalidParameterError(str(err), "grid") from None
        check_accountant(self.accountant)
        return {
            "epsilon": eps,
            "data_norm": data_norm,
            "label_bound": label_bound,
            "private": private,
            "shares": shares,
            "quantiles": {"data_norm": norm_q, "label_bound": label_q},
            "rescale": rescale,
            "grid": grid,
        }

    def privacy_guarantee(self, n_samples: int) -> Any:
        """``Budget(epsilon)`` when a bound is ``"private"``, else ``Budget(0)``: what one fit on
        ``n_samples`` rows charges (replace-one neighbours, ``n`` public), from the parameters
        only.

        Raises
        ------
        InvalidParameterError
            If a parameter is missing or invalid.
        """
        from ..accounting import Budget

        check_integer(n_samples, "n_samples", 1)
        p = self._params()
        return Budget(p["epsilon"]) if p["private"] else Budget(0.0)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()  # seeds and NaN: PrivateTransformerMixin
        private = PRIVATE in (self.data_norm, self.label_bound)
        tags.non_deterministic = private and tags.non_deterministic  # declared bounds: no draw
        tags.target_tags.required = self.label_bound == PRIVATE
        return tags

    # -- fit ----------------------------------------------------------------------------------

    @staticmethod
    def _labels(y: Any, n: int) -> np.ndarray:
        """``y`` as a finite 1-D float array of length ``n`` (a column ``(n, 1)`` is flattened);
        the messages carry shapes only."""
        try:
            yv = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError("y: must be an array of numbers", "y") from None
        if yv.ndim == 2 and yv.shape[1] == 1:
            yv = yv[:, 0]
        if yv.ndim != 1:
            raise InvalidParameterError(
                f"y: must be 1-d (or one column); got shape {yv.shape}", "y"
            )
        if yv.shape[0] != n:
            raise InvalidParameterError(f"y: has {yv.shape[0]} labels, but X has {n} rows", "y")
        if not np.all(np.isfinite(yv)):
            raise InvalidParameterError("y: must be finite (no NaN or infinity)", "y")
        return yv

    def fit(self, X: Any, y: Any = None) -> "Clipper":
        """Fix the bounds: declared ones as given, private ones released from ``X`` (row norms)
        and ``y`` (absolute labels), charging the guarantee of the class docstring once.

        ``y`` is read only with ``label_bound="private"`` (and ignored otherwise).

        Raises
        ------
        InvalidParameterError
            On a bad or missing parameter (before ``X`` is read), ``y`` missing with
            ``label_bound="private"``, or bad data (NaN, inf, not 2-d, empty, ``y`` of another
            length); nothing is drawn or charged.
        BudgetExceededError
            If the accountant cannot pay; nothing is drawn.
        """
        from ..accounting import Budget
        from ..accounting._event import PrivacyEvent
        from ..mechanisms import _charged
        from ..random import as_generator

        p = self._params()
        private: List[str] = p["private"]
        if p["label_bound"] == PRIVATE and y is None:
            raise InvalidParameterError(
                "y: label_bound='private' releases a quantile of |y|, so fit needs the labels; "
                "got y=None",
                "y",
            )
        gen = as_generator(self.rng) if private else None
        Xv = self._validate(X, reset=True)
        n = int(Xv.shape[0])
        yv = self._labels(y, n) if p["label_bound"] == PRIVATE else None
        bounds: Dict[str, Optional[float]] = {
            name: (None if p[name] in (None, PRIVATE) else float(p[name]))
            for name in ("data_norm", "label_bound")
        }
        if private:
            shares: Tuple[float, ...] = p["shares"]
            eps: float = p["epsilon"]

            def release() -> Dict[str, float]:
                out: Dict[str, float] = {}
                for name, share in zip(private, shares):
                    if name == "data_norm":
                        values = row_norms(Xv)
                    else:
                        assert yv is not None  # read above when label_bound is private
                        values = np.abs(yv)
                    out[name], _event = private_quantile_bound(
                        values,
                        quantile=p["quantiles"][name],
                        epsilon=share,
                        rng=gen,
                        grid=p["grid"],
                    )
                return out

            def event() -> Any:
                events = [PrivacyEvent.bounded_range(s) for s in shares]
                return PrivacyEvent.composed(events, budget=Budget(eps))

            bounds.update(_charged(self.accountant, eps, 0.0, LABEL, release, event=event))
        self.data_norm_ = bounds["data_norm"]
        self.label_bound_ = bounds["label_bound"]
        self.n_samples_seen_ = n
        return self

    # -- transform ------------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "n_samples_seen_")

    def transform(self, X: Any) -> np.ndarray:
        """Each row ``x`` times ``min(1, data_norm_ / ||x||)`` (``rescale=True``: divided by
        ``max(||x||, data_norm_)``); ``X`` unchanged (a copy) without ``data_norm``. Reads only
        ``X`` and the fitted bound; never changes labels."""
        self._check_fitted()
        Xv = np.array(self._validate(X, reset=False), copy=True)
        c = self.data_norm_
        if c is None:
            return Xv
        norms = row_norms(Xv)
        huge = norms >= _BIG  # the norm overflowed: divide by the largest entry first
        if np.any(huge):
            rows = Xv[huge]
            rows /= np.abs(rows).max(axis=1)[:, None]
            Xv[huge] = rows
            norms[huge] = row_norms(rows)
        target = 1.0 if self.rescale else c
        denom = np.maximum(norms, c)
        # a row whose norm overflowed is far outside the ball (its norm exceeds every finite
        # c): divided by its largest entry above, it is now scaled to the norm target
        denom[huge] = norms[huge]
        Xv *= (target / denom)[:, None]
        return Xv

    def clip_labels(self, y: Any) -> np.ndarray:
        """``clip(y, -label_bound_, label_bound_)`` as a float array (any shape; finite).

        Raises
        ------
        InvalidParameterError
            Without a label bound, or on non-numeric or non-finite ``y``.
        """
        self._check_fitted()
        b = self.label_bound_
        if b is None:
            raise InvalidParameterError(
                "label_bound: this Clipper has no label bound (label_bound=None); set "
                "label_bound to a number > 0 or 'private'",
                "label_bound",
            )
        try:
            yv = np.asarray(y, dtype=np.float64)
        except (TypeError, ValueError):
            raise InvalidParameterError("y: must be an array of numbers", "y") from None
        if not np.all(np.isfinite(yv)):
            raise InvalidParameterError("y: must be finite (no NaN or infinity)", "y")
        return np.clip(yv, -b, b)

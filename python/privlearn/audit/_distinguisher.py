r"""Learned distinguishers: a classifier or a density ratio, fitted on one part of each side's
samples, turns vector and structured outputs into one real score per held-out sample, on which
the scalar audit (threshold events of the score) runs.

**Why the audit stays valid.** :func:`learned_scores` fits the score function ``s`` on the
*training part* of each side (the first ``floor(train_fraction * n)`` samples) and nothing else:
every preprocessing step fitted on data (standardisation, the range used for infinite values,
category vocabularies, kernel support points) sees only the training part. ``s`` is therefore a
fixed function, independent of the held-out samples, which are i.i.d. draws of ``M(D_a)`` and
``M(D_b)``. For any fixed ``s`` and threshold ``t``, ``{x : s(x) > t}`` is an event (a set of
outputs) like any other: ``s(x_i)`` for the held-out ``x_i`` are i.i.d. draws whose counts in
threshold sets are binomial with the true probabilities ``P_a(S)`` and ``P_b(S)``, and the
Clopper--Pearson bounds computed on them (with the thresholds chosen on the audit's own
selection split, see :func:`~privlearn.audit.epsilon_lower_bound`) hold with the stated
confidence. Formally the bounds hold conditionally on the training part (given it, the held-out
samples are still independent draws of the two laws, and ``s`` is fixed), hence also
unconditionally. Two things make ``s`` a function of one sample at a time: the subsets of
rows used for training and kernel support are drawn from ``rng`` and the sample sizes only,
and the score of a row depends on that row alone (the encoding is row-wise with fitted
constants; a user classifier must score rows independently, as scikit-learn's
``decision_function`` and ``predict_proba`` do). A poor classifier costs power, never
validity. This is the principle of DP-Sniper
(Bichsel, Steffen, Bogunovic, Vechev, "DP-Sniper: Black-Box Discovery of Differential Privacy
Violations using Classifiers", IEEE S&P 2021: a classifier trained on one sample set defines
the threshold attack, whose probabilities are estimated on fresh samples) and of the
classifier-based divergence testers of DP-Auditorium (Kong, Munoz Medina, Ribero, Syed,
"DP-Auditorium: a Large Scale Library for Auditing Differential Privacy", IEEE S&P 2024:
train on one split, estimate the hockey-stick divergence on another).

**Who does what.** scikit-learn fits the classifiers
(:class:`~sklearn.linear_model.LogisticRegression`,
:class:`~sklearn.ensemble.HistGradientBoostingClassifier`, or the user's estimator, cloned with
:func:`sklearn.base.clone`): they are well tested, deterministic for a fixed ``random_state``
and fast at 10^5 training samples; ``threadpoolctl`` (a scikit-learn dependency) keeps the
boosting on one OpenMP thread. The feature encoding, the sample bookkeeping and the Gaussian
kernel density ratio are ours (numpy): the kernel sums are a ``float32`` matrix product and a
log-sum-exp, about three times faster than :class:`sklearn.neighbors.KernelDensity` (and
faster still than :class:`scipy.stats.gaussian_kde`) at 10^5 points and 500 support points,
and, with one bandwidth in standardised coordinates, they accept constant or collinear
coordinates, on which :class:`scipy.stats.gaussian_kde` fails (singular covariance).
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections import Counter
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .._validate import check_probability
from ..errors import InvalidParameterError
from ..random import RngLike, as_generator, spawn_seeds
from ._samples import _check_samples, _hashable, _object_array

#: The built-in distinguishers.
KINDS = ("logistic", "boosting", "kde")
# Training samples per side at most (a random subset of the training part beyond it).
_MAX_TRAIN = 100_000
# ... and at most this many feature values per side (wide outputs train on fewer rows).
_MAX_TRAIN_VALUES = 4_000_000
# Rows per side kept in any case when the cap on values bites.
_MIN_TRAIN = 1_000
# "logistic" adds the squares and pairwise products of the numeric features up to this many.
_QUADRATIC_MAX_D = 8
# "kde" accepts numeric outputs of at most this many dimensions.
_KDE_MAX_D = 5
# Kernel support points per side for "kde" (a random subset of the training rows).
_KDE_SUPPORT = 500
# "boosting": iterations (no early stopping: a fixed, data-independent schedule), learning
# rate and leaves per tree; small trees keep scoring 10^6 held-out samples to a few seconds.
_BOOSTING_ITER = 50
_BOOSTING_RATE = 0.2
_BOOSTING_LEAVES = 15
# Most frequent values of a categorical position (in the training part) with a column each;
# the others share one "other" column.
_MAX_CATEGORIES = 256
# Held-out rows scored per block at most (fewer for wide features: at most
# _MAX_TRAIN_VALUES feature values per block, which bounds the memory).
_CHUNK = 65_536
# Standardised numeric features are clipped to this magnitude (keeps every score finite).
_CLIP = 1e6


def check_distinguisher(distinguisher: Any) -> Any:
    """Validate a ``distinguisher`` argument, before any sample is drawn.

    Parameters
    ----------
    distinguisher : None, {"logistic", "boosting", "kde"} or scikit-learn classifier
        ``None`` (no distinguisher), a built-in kind, or an unfitted scikit-learn classifier
        instance (anything :func:`sklearn.base.clone` accepts with ``fit`` and
        ``decision_function`` or ``predict_proba``; a fitted one is cloned, i.e. refitted).

    Returns
    -------
    None, str or estimator
        The validated spec: ``None``, the kind string, or the estimator as given (it is
        cloned, never modified, when used). ``check_distinguisher(check_distinguisher(d))``
        is ``check_distinguisher(d)``.

    Raises
    ------
    InvalidParameterError
        Naming ``distinguisher``: an unknown string, a class instead of an instance, or an
        object that is not a cloneable classifier.
    """
    if distinguisher is None:
        return None
    if isinstance(distinguisher, str):
        if distinguisher not in KINDS:
            raise InvalidParameterError(
                f"distinguisher: must be one of {', '.join(repr(k) for k in KINDS)}, a "
                f"scikit-learn classifier or None; got {distinguisher!r}",
                "distinguisher",
            )
        return distinguisher
    if isinstance(distinguisher, type):
        raise InvalidParameterError(
            f"distinguisher: pass an instance, e.g. {distinguisher.__name__}(), not the class",
            "distinguisher",
        )
    has_fit = callable(getattr(distinguisher, "fit", None))
    scores = any(
        callable(getattr(distinguisher, m, None)) for m in ("decision_function", "predict_proba")
    )
    if not (has_fit and scores and callable(getattr(distinguisher, "get_params", None))):
        raise InvalidParameterError(
            f"distinguisher: must be one of {', '.join(repr(k) for k in KINDS)}, None, or a "
            f"scikit-learn classifier (with fit, get_params and decision_function or "
            f"predict_proba); got {type(distinguisher).__name__}",
            "distinguisher",
        )
    from sklearn.base import clone

    try:
        clone(distinguisher)
    except Exception as err:  # noqa: BLE001 - any failure of clone is a bad argument
        raise InvalidParameterError(
            f"distinguisher: scikit-learn cannot clone this {type(distinguisher).__name__} "
            f"({type(err).__name__}: {err})",
            "distinguisher",
        ) from None
    return distinguisher


# --------------------------------------------------------------------------------------------
# Features: an encoding fitted on the training rows only


def _is_real(v: Any) -> bool:
    return isinstance(v, numbers.Real)


# Stands for the positions of an output that does not have the training records' length.
_MISSING = object()


def _floats(col: Sequence[Any]) -> np.ndarray:
    """Values as floats, NaN for those that are not real numbers."""
    seq = col.tolist() if isinstance(col, np.ndarray) else col
    try:
        arr = np.array(seq) if len(seq) else np.zeros(0)
    except ValueError:  # e.g. tuples of different lengths
        arr = np.zeros(0, dtype=object)
    if arr.ndim == 1 and arr.dtype.kind in "biuf":
        return arr.astype(np.float64)
    return np.array([float(u) if _is_real(u) else np.nan for u in col], dtype=np.float64)


class _Encoder:
    """Map outputs to a float matrix: numeric columns standardised (training mean and standard
    deviation; infinities replaced just beyond the training range), then one 0/1 column per
    frequent value of each categorical position and one "other" column.

    Numeric arrays give their flattened values as numeric columns. Other outputs are records:
    tuples of one length ``L`` in the training part are split into ``L`` positions; otherwise
    the whole value is one position (plus the tuple length as a numeric column when some
    training outputs are tuples). A position is numeric when every training value in it is a
    real number, else categorical. A held-out output without the training structure gets the
    training mean in the numeric positions and "other" in the categorical ones.
    """

    def __init__(self, train: List[Any], numeric_array: bool) -> None:
        self.numeric_array = numeric_array
        self.record_len: Optional[int] = None
        self.numeric_pos: List[int] = []
        self.vocab: List[Tuple[int, Dict[Any, int]]] = []
        self.with_length = False
        if numeric_array:
            raw = np.concatenate([t.reshape(len(t), -1) for t in train]).astype(np.float64)
        else:
            items = np.concatenate(train)
            lengths = {len(v) if type(v) is tuple else -1 for v in items}
            if len(lengths) == 1 and min(lengths) >= 0:
                self.record_len = lengths.pop()
            self.with_length = self.record_len is None and any(type(v) is tuple for v in items)
            columns = self._positions(items)
            self.numeric_pos = [j for j, col in enumerate(columns) if all(map(_is_real, col))]
            for j, col in enumerate(columns):
                if j not in self.numeric_pos:
                    top = Counter(col).most_common(_MAX_CATEGORIES)  # ties: first seen first
                    self.vocab.append((j, {v: i for i, (v, _) in enumerate(top)}))
            raw = self._numeric_raw(items, columns)
        finite = np.where(np.isfinite(raw), raw, np.nan)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-infinite columns
            lo, hi = np.nanmin(finite, axis=0), np.nanmax(finite, axis=0)
        self.lo = np.nan_to_num(lo, nan=0.0)
        self.hi = np.nan_to_num(hi, nan=0.0)
        filled = self._fill_inf(raw)
        with np.errstate(over="ignore", invalid="ignore"):
            mean, std = filled.mean(axis=0), filled.std(axis=0)
        self.mean = np.nan_to_num(mean, nan=0.0, posinf=0.0, neginf=0.0)
        self.std = np.where(np.isfinite(std) & (std > 0), std, 1.0)
        self.n_numeric = raw.shape[1]
        self.n_categorical = sum(len(v) + 1 for _, v in self.vocab)
        self.width = self.n_numeric + self.n_categorical

    def _positions(self, items: np.ndarray) -> List[Sequence[Any]]:
        """The values of every position of record items."""
        L = self.record_len
        if L is None:
            return [items.tolist()]
        rows: Sequence[Any] = items.tolist()
        if not all(type(v) is tuple and len(v) == L for v in items):
            rows = [v if type(v) is tuple and len(v) == L else (_MISSING,) * L for v in items]
        return list(zip(*rows)) if len(rows) else [()] * L

    def _numeric_raw(self, items: np.ndarray, columns: List[Sequence[Any]]) -> np.ndarray:
        """The numeric positions (and the tuple length) of record items, as floats (NaN for a
        value that does not fit the training structure)."""
        parts = [_floats(columns[j]) for j in self.numeric_pos]
        if self.with_length:
            parts.append(_floats([len(v) if type(v) is tuple else -1 for v in items]))
        return np.stack(parts, axis=1) if parts else np.zeros((len(items), 0))

    def _fill_inf(self, raw: np.ndarray) -> np.ndarray:
        span = self.hi - self.lo + 1.0
        return np.where(
            raw == np.inf, self.hi + span, np.where(raw == -np.inf, self.lo - span, raw)
        )

    def transform(self, x: np.ndarray) -> np.ndarray:
        if self.numeric_array:
            raw = x.reshape(len(x), -1).astype(np.float64)
        else:
            columns = self._positions(x)
            raw = self._numeric_raw(x, columns)
        with np.errstate(over="ignore", invalid="ignore"):
            z = (self._fill_inf(raw) - self.mean) / self.std
        z = np.clip(np.nan_to_num(z, nan=0.0), -_CLIP, _CLIP)
        if not self.vocab:
            return z
        onehot = np.zeros((len(x), self.n_categorical))
        rows = np.arange(len(x))
        offset = 0
        for j, index in self.vocab:
            other = len(index)
            codes = np.fromiter(
                (index.get(u, other) for u in columns[j]), dtype=np.int64, count=len(x)
            )
            onehot[rows, offset + codes] = 1.0
            offset += other + 1
        return np.hstack([z, onehot])


_PLAIN = (str, int, float, bool, bytes, type(None))


def _plain(v: Any) -> Any:
    """``v`` if it is a hashable plain value, else its hashable form (tuples for arrays and
    lists)."""
    if type(v) in _PLAIN:
        return v
    if type(v) is tuple:
        try:
            hash(v)
            return v
        except TypeError:
            pass
    return _hashable(v)


def _records(x: np.ndarray) -> np.ndarray:
    """Outputs as a 1-D object array of hashable values (rows of multi-dimensional arrays as
    tuples)."""
    if x.ndim == 1:
        if x.dtype == object:
            return _object_array([_plain(v) for v in x])
        return _object_array(x.tolist())
    return _object_array([tuple(r) for r in x.reshape(len(x), -1).tolist()])


def _quadratic(z: np.ndarray, d: int) -> np.ndarray:
    """``z`` with the squares and pairwise products of its first ``d`` columns appended."""
    i, j = np.triu_indices(d)
    return np.hstack([z, z[:, i] * z[:, j]])


# --------------------------------------------------------------------------------------------
# The score functions


def _kde_logpdf(x: np.ndarray, support: np.ndarray, h: float) -> np.ndarray:
    """``log sum_j exp(-|x - s_j|^2 / (2 h^2))`` for every row of ``x`` (the Gaussian kernel
    density up to a constant), by a float32 matrix product and a stable log-sum-exp."""
    s = (support / h).astype(np.float32)
    half = 0.5 * np.einsum("ij,ij->i", s, s, dtype=np.float32)
    xs = x / h
    out = np.empty(len(x))
    for k in range(0, len(x), 8192):
        blk = xs[k : k + 8192]
        D = blk.astype(np.float32) @ s.T
        D -= half
        top = D.max(axis=1, keepdims=True)
        D -= top
        np.exp(D, out=D)
        out[k : k + 8192] = (
            np.log(D.sum(axis=1, dtype=np.float64))
            + top[:, 0]
            - 0.5 * np.einsum("ij,ij->i", blk, blk)
        )
    return out


def _fit_score_function(
    spec: Any, za: np.ndarray, zb: np.ndarray, enc: _Encoder, seed: int, sub: np.random.Generator
) -> Tuple[Callable[[np.ndarray], np.ndarray], str]:
    """Fit the distinguisher on encoded training rows; return the score of encoded rows and a
    description. Labels: a = 1, b = 0; higher scores are more ``a``-like."""
    y = np.concatenate([np.ones(len(za)), np.zeros(len(zb))])
    rs = int(seed % 2**32)
    if enc.width == 0:  # zero-size outputs: nothing to learn
        return (lambda z: np.zeros(len(z))), f"{_spec_name(spec)}: no features (empty outputs)"
    if spec == "kde":
        if enc.n_categorical or enc.n_numeric > _KDE_MAX_D:
            raise InvalidParameterError(
                f"distinguisher: 'kde' needs numeric outputs of at most {_KDE_MAX_D} dimensions, "
                f"got {enc.n_numeric} numeric and {enc.n_categorical} categorical features; use "
                f"'logistic' or 'boosting'",
                "distinguisher",
            )
        d = enc.n_numeric
        sa = za[np.sort(sub.permutation(len(za))[:_KDE_SUPPORT])]
        sb = zb[np.sort(sub.permutation(len(zb))[:_KDE_SUPPORT])]
        m = min(len(sa), len(sb))
        h = float(m ** (-1.0 / (d + 4)))  # Scott's factor, in standardised units
        shift = math.log(len(sb)) - math.log(len(sa))

        def kde_score(z: np.ndarray) -> np.ndarray:
            return _kde_logpdf(z, sa, h) - _kde_logpdf(z, sb, h) + shift

        return kde_score, (
            f"kde: log density ratio of Gaussian kernel densities (bandwidth {h:.3g} in "
            f"standardised units, {len(sa)} + {len(sb)} support points) on {d} features"
        )
    X = np.vstack([za, zb])
    if spec == "logistic":
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import LogisticRegression

        d = enc.n_numeric
        quad = 0 < d <= _QUADRATIC_MAX_D
        if quad:
            X = _quadratic(X, d)
        mu = X.mean(axis=0)
        sd = X.std(axis=0)
        sd = np.where(sd > 0, sd, 1.0)
        model = LogisticRegression(max_iter=1000)
        with warnings.catch_warnings():
            # a fit stopped early is still a fixed score function: validity is unaffected
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit((X - mu) / sd, y)

        def logistic_score(z: np.ndarray) -> np.ndarray:
            f = _quadratic(z, d) if quad else z
            return np.asarray(model.decision_function((f - mu) / sd), dtype=float)

        what = f"{d} numeric features" + (" with their squares and products" if quad else "")
        if enc.n_categorical:
            what += f" and {enc.n_categorical} one-hot columns"
        return logistic_score, f"logistic: logistic regression on {what}"
    if spec == "boosting":
        from sklearn.ensemble import HistGradientBoostingClassifier
        from threadpoolctl import threadpool_limits

        model = HistGradientBoostingClassifier(
            max_iter=_BOOSTING_ITER,
            learning_rate=_BOOSTING_RATE,
            max_leaf_nodes=_BOOSTING_LEAVES,
            early_stopping=False,
            random_state=rs,
        )
        # one OpenMP thread: the many short parallel regions of scikit-learn's boosting ran
        # up to 20x slower on a loaded machine (busy-waiting threads), see learned_scores
        with threadpool_limits(limits=1, user_api="openmp"):
            model.fit(X, y)

        def boosting_score(z: np.ndarray) -> np.ndarray:
            with threadpool_limits(limits=1, user_api="openmp"):
                return np.asarray(model.decision_function(z), dtype=float)

        return boosting_score, (
            f"boosting: gradient-boosted trees ({_BOOSTING_ITER} trees of {_BOOSTING_LEAVES} leaves) "
            f"on {X.shape[1]} features"
        )
    from sklearn.base import clone

    est = clone(spec)
    params = est.get_params()
    seeds = {
        k: rs
        for k, v in params.items()
        if (k == "random_state" or k.endswith("__random_state")) and v is None
    }
    if seeds:
        est.set_params(**seeds)
    est.fit(X, y.astype(np.int64))
    classes = list(np.asarray(getattr(est, "classes_", [0, 1])).tolist())
    if callable(getattr(est, "decision_function", None)):
        sign = 1.0 if classes[-1] == 1 else -1.0

        def user_score(z: np.ndarray) -> np.ndarray:
            s = np.asarray(est.decision_function(z), dtype=float)
            return sign * s.reshape(len(z))

    else:
        col = classes.index(1)

        def user_score(z: np.ndarray) -> np.ndarray:
            return np.asarray(est.predict_proba(z), dtype=float)[:, col]

    return user_score, f"{_spec_name(spec)} on {X.shape[1]} features"


def _spec_name(spec: Any) -> str:
    return spec if isinstance(spec, str) else type(spec).__name__


def _train_rows(m: int, cap: int, sub: np.random.Generator) -> np.ndarray:
    """Indices (sorted) of at most ``cap`` of the first ``m`` rows, chosen at random."""
    if m <= cap:
        return np.arange(m)
    return np.sort(sub.choice(m, size=cap, replace=False))


def learned_scores(
    xa: Any,
    xb: Any,
    distinguisher: Any,
    rng: RngLike,
    *,
    train_fraction: float = 0.5,
) -> Tuple[np.ndarray, np.ndarray, str]:
    r"""Fit a distinguisher on the first part of each side's samples and score the rest.

    The first ``floor(train_fraction * n)`` samples of each side train the distinguisher
    (labels ``a = 1``, ``b = 0``); the returned scores are those of the remaining samples of
    each side, in their order. **The held-out samples never reach the fit**, nor any
    preprocessing fitted on data, so the score function is fixed before the held-out samples
    are looked at, and threshold events of it are valid events for :func:`~privlearn.audit.epsilon_lower_bound`
    and the other bounds of :mod:`privlearn.audit` (module documentation: DP-Sniper, Bichsel et
    al., IEEE S&P 2021; DP-Auditorium, Kong et al., IEEE S&P 2024).

    Parameters
    ----------
    xa, xb : array_like
        The outputs drawn on the two inputs, in the order drawn: numeric or boolean arrays of
        shape ``(n,)``, ``(n, d)`` or more dimensions (flattened per sample), or 1-D object
        arrays of hashable values (tuples, strings; ragged tuples). Sizes may differ.
    distinguisher : {"logistic", "boosting", "kde"} or scikit-learn classifier
        See :func:`check_distinguisher`.

        * ``"logistic"``: :class:`~sklearn.linear_model.LogisticRegression` on the
          standardised features, with the squares and pairwise products of the numeric ones
          when there are at most 8 (so that differences in variance or correlation, not only
          in mean, are learnable; the optimal test between two Gaussians is quadratic);
          linear beyond 8.
        * ``"boosting"``: :class:`~sklearn.ensemble.HistGradientBoostingClassifier`, 50
          trees of at most 15 leaves, learning rate 0.2, no early stopping (a schedule fixed
          in advance); its decision function is the score.
        * ``"kde"``: the log density ratio ``log p_a(x) - log p_b(x)`` of two Gaussian kernel
          density estimates, each on (at most) 500 random training points of its side, in
          standardised coordinates with Scott's bandwidth ``m^(-1/(d+4))``; numeric outputs
          of at most 5 dimensions.
        * a scikit-learn classifier: cloned and fitted on the encoded features (those of
          ``"logistic"``, without the products); its ``decision_function`` is the score, or
          ``predict_proba[:, 1]``. Unset (``None``) ``random_state`` parameters, also of
          pipeline steps, are seeded from ``rng``.

        Features: numeric columns standardised with the training part's mean and standard
        deviation (infinities replaced just beyond the training range); categorical positions
        of records (non-numeric values) one-hot over their 256 most frequent training values
        plus an "other" column, which unseen values map to.
    rng : None, int or Generator
        Seeds the classifier (``random_state``) and the subsampling (two 64-bit words are
        drawn from it). For a fixed seed the scores are deterministic.
    train_fraction : float, default 0.5
        Fraction of each side's samples used for training, in (0, 1).

    Returns
    -------
    scores_a, scores_b : numpy.ndarray
        Finite float scores of the held-out samples of each side (higher: more like ``a``).
    description : str
        The distinguisher and its training set, for reports.

    Raises
    ------
    InvalidParameterError
        On a bad ``distinguisher`` or ``train_fraction`` (before anything is fitted), NaN or
        complex outputs, a side with no training or no held-out sample, or ``"kde"`` on
        outputs that are not numeric vectors of at most 5 dimensions.

    Notes
    -----
    At most 100 000 training samples per side are used (a random subset of the training
    part beyond it), and at most 4 * 10^6 feature values per side (wider outputs train on
    fewer rows, at least 1 000); the rest of the training part is discarded, never scored.

    Cost of this function at 10^6 samples per side (500 000 scored per side), measured on the
    project's 2-core machine under a load of 3.5 to 5 (other jobs running), ranges over three
    runs: 2-D real outputs, ``"logistic"`` 0.6-0.9 s, a scikit-learn ``LogisticRegression()``
    0.2-0.3 s, ``"boosting"`` 4.5-6 s, ``"kde"`` 10-19 s (10^9 kernel evaluations);
    ``(str, int)`` tuples, ``"logistic"`` 6-8 s and ``"boosting"`` 11-14 s (records are
    encoded in Python). ``"boosting"`` runs scikit-learn's OpenMP code on one thread
    (``threadpoolctl``): on the loaded machine its default two threads took 83 s instead of
    4.5 s.

    Examples
    --------
    >>> import numpy as np
    >>> from privlearn.audit import epsilon_lower_bound
    >>> from privlearn.audit._distinguisher import learned_scores
    >>> g = np.random.default_rng(0)
    >>> a = g.normal(0.0, 1.0, size=(200_000, 2))              # neighbours differ along (1, -1):
    >>> b = g.normal(0.0, 1.0, size=(200_000, 2)) + [1.0, -1.0]  # the sum of the outputs is blind
    >>> sa, sb, what = learned_scores(a, b, "logistic", rng=0)
    >>> len(sa), len(sb)
    (100000, 100000)
    >>> epsilon_lower_bound(sa, sb, delta=1e-5) > 1.0
    True

    The same through :func:`~privlearn.audit.audit`, which calls this function:

    >>> from privlearn.audit import audit
    >>> def gauss(mean):
    ...     return lambda g, size: mean + g.normal(0.0, 1.0, size=(size, 2))
    >>> res = audit(gauss(0.0), gauss(np.array([1.0, -1.0])), 1.0, n=200_000, rng=0,
    ...             distinguisher="logistic")
    >>> res.passed, res.distinguisher.split(":")[0]
    (False, 'logistic')
    """
    spec = check_distinguisher(distinguisher)
    if spec is None:
        raise InvalidParameterError(
            "distinguisher: learned_scores needs a distinguisher, got None", "distinguisher"
        )
    train_fraction = check_probability(train_fraction, "train_fraction")
    xa = _check_samples(xa, "samples_a")
    xb = _check_samples(xb, "samples_b")
    na, nb = len(xa), len(xb)
    ta, tb = int(math.floor(train_fraction * na)), int(math.floor(train_fraction * nb))
    if min(ta, tb) < 1 or ta >= na or tb >= nb:
        raise InvalidParameterError(
            f"train_fraction: {train_fraction:g} of {na} and {nb} samples leaves a side without "
            f"training or held-out samples",
            "train_fraction",
        )
    seed_fit, seed_sub = spawn_seeds(as_generator(rng), 2)
    sub = np.random.default_rng(int(seed_sub))
    numeric = xa.dtype.kind in "biuf" and xb.dtype.kind in "biuf" and xa.shape[1:] == xb.shape[1:]
    if not numeric:
        xa, xb = _records(xa), _records(xb)
    ia = _train_rows(ta, _MAX_TRAIN, sub)
    ib = _train_rows(tb, _MAX_TRAIN, sub)
    enc = _Encoder([xa[ia], xb[ib]], numeric)
    cap = max(_MIN_TRAIN, _MAX_TRAIN_VALUES // max(1, enc.width))
    if len(ia) > cap:
        ia = ia[np.sort(sub.choice(len(ia), size=cap, replace=False))]
    if len(ib) > cap:
        ib = ib[np.sort(sub.choice(len(ib), size=cap, replace=False))]
    score, what = _fit_score_function(
        spec, enc.transform(xa[ia]), enc.transform(xb[ib]), enc, int(seed_fit), sub
    )

    chunk = max(256, min(_CHUNK, _MAX_TRAIN_VALUES // max(1, enc.width)))

    def held_out(x: np.ndarray, start: int) -> np.ndarray:
        parts = [score(enc.transform(x[k : k + chunk])) for k in range(start, len(x), chunk)]
        s = np.concatenate(parts) if parts else np.zeros(0)
        big = np.finfo(np.float64).max
        return np.nan_to_num(s.astype(np.float64), nan=0.0, posinf=big, neginf=-big)

    description = f"{what}; fitted on {len(ia)} + {len(ib)} samples"
    return held_out(xa, ta), held_out(xb, tb), description

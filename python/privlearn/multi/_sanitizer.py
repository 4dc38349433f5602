"""The generic multi-learner: sanitize once, then one exponential mechanism per concept (seed 002).

:class:`SanitizerMultiLearner` (Bun, Nissim and Stemmer, Algorithm 2 ``GenericLearner``)
sanitizes the unlabeled examples with the stability histogram or MWEM, takes the class's
dichotomies on the sanitized points as candidates, and selects one per concept; with the helpers
that build MWEM's queries ``C^⊕`` and index the examples in the finite domain.
"""

from __future__ import annotations

import math
from typing import Any, List, Optional, Tuple

import numpy as np

from .. import _core
from .._validate import check_choice, check_delta, check_epsilon, check_integer, check_probability
from ..accounting import Accountant, Budget, compose_basic
from ..accounting._event import PrivacyEvent
from ..gf2 import _pack
from ..hypotheses import FiniteClass, HypothesisClass, Parities, Points, check_hypothesis_class
from ..random import Generator, RngLike
from ._base import _MultiLearner
from ._budget import COMPOSITIONS, _basic_split, _resolve
from ._hypotheses import Hypothesis, _grouped, _predictions
from ._inputs import _error, _unpack_words
from ._sanitizers import _support, mwem, mwem_event
from ._single import _em_columns, _mistakes


class SanitizerMultiLearner(_MultiLearner):
    r"""The generic multi-learner (Bun, Nissim and Stemmer, Algorithm 2 ``GenericLearner``,
    Lemmas 3.6 and 3.7, Theorem 3.1 and Corollary 3.9).

    1. Sanitize the *unlabeled* examples once with ``(epsilon/2, delta_san)``:

       * ``sanitizer="points"`` (class :class:`~privlearn.hypotheses.Points`): the stability
         histogram (:func:`stability_histogram`, Proposition 2.20); the sanitized points are the
         released ones;
       * ``sanitizer="mwem"`` (any class on a finite ``domain``): MWEM (:func:`mwem`, pure) for
         the queries ``C^⊕ = {f xor g}`` restricted to the domain (the queries whose answers are
         the disagreements between two hypotheses), then ``sample_size`` points drawn from the
         synthetic distribution (post-processing; by default enough for every query within
         ``alpha/2`` with probability ``1 - beta/2`` by Hoeffding and a union bound).

    2. The candidates are one representative per dichotomy of the class on the sanitized
       points (:meth:`~privlearn.hypotheses.HypothesisClass.dichotomies`: representatives
       depend on the point set only, never on the data).
    3. For each concept, the exponential mechanism over the candidates with score minus the
       mistakes on the whole sample (sensitivity 1), with the per-concept budget of
       :func:`per_concept_budget` applied to ``(epsilon/2, delta_em)``: ``delta_em = 0`` for
       ``"basic"`` (the points sanitizer keeps all of ``delta``), else ``delta/2`` after the
       points sanitizer (which keeps the other half) and ``delta`` after MWEM (pure).

    ``composition`` (default ``"auto"``) composes the ``k`` exponential mechanisms: each is
    one exponential mechanism that is ``eps_0``-DP, hence ``eps_0``-bounded-range (Durfee and
    Rogers, NeurIPS 2019), so ``"bounded-range"`` (Dong, Durfee and Rogers, ICML 2020, adaptive
    composition) is valid; ``"optimal"`` is Kairouz, Oh and Viswanath's (ICML 2015, Theorem
    3.3), ``"advanced"`` and ``"basic"`` as in :func:`per_concept_budget`. ``"auto"`` takes
    ``"bounded-range"`` when it gives each mechanism a larger epsilon than ``"basic"`` and
    ``k > 1`` and ``delta > 0``, else ``"basic"``: a choice from public parameters only, and,
    with ``k = 1`` or ``delta = 0``, the former default. The candidates depend on the data only
    through the sanitizer's output, so the mechanisms are adaptively chosen given it, which the
    compositions allow.

    **Privacy:** ``privacy_`` = :func:`~privlearn.accounting.compose_basic` of the sanitizer's
    budget and the composed exponential mechanisms, at most ``(epsilon, delta)``, for
    replace-one neighbours. The candidates are a post-processing of the sanitizer's output.
    It is charged as the native event of :meth:`_native_event` (the sanitizer's, then ``k``
    ``per_concept_.epsilon``-bounded-range mechanisms, declared budget ``privacy_``).

    **Accuracy** (three events, Lemma 3.7): if the sanitizer is ``alpha``-accurate for ``C^⊕``,
    some candidate is within ``alpha`` of each concept's best hypothesis, and each concept's
    error is at most ``OPT_j + 4 alpha``; the exponential mechanisms cost ``k ln|H|`` (basic) or
    ``sqrt(k) ln|H|`` (advanced) instead of ``k ln|C|``.

    Parameters
    ----------
    hypothesis_class : HypothesisClass
    epsilon : float
    delta : float, default 0.0
        Required ``> 0`` for the points sanitizer or advanced composition (with ``0`` every
        composition is basic composition).
    sanitizer : {"auto", "points", "mwem"}, default "auto"
        ``"auto"``: the points sanitizer for :class:`~privlearn.hypotheses.Points` with
        ``delta > 0``, else MWEM.
    alpha, beta : float, default 0.1, 0.05
        Accuracy knobs of the MWEM sample (and nothing else).
    domain : array_like, optional
        The finite domain for MWEM, in the class's layout (default: ``range(M)`` for a
        :class:`~privlearn.hypotheses.FiniteClass` matrix or ``Points(domain_size=M)``, all of
        ``{0,1}^dim`` for ``Parities(dim)`` with ``dim <= 12``). Every example must lie in it.
    rounds : int, default 10
        MWEM's rounds (an accuracy knob).
    sample_size : int, optional
        Points drawn from MWEM's distribution.
    composition : {"auto", "basic", "advanced", "optimal", "bounded-range"}, default "auto"
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    sanitized_points_ : numpy.ndarray
        The distinct sanitized points (a DP output).
    candidates_ : list
        The representatives of the dichotomies on them.
    per_concept_ : Budget
        Each exponential mechanism's budget.
    composition_ : str
        The composition of the exponential mechanisms used (``"auto"`` resolved).
    privacy_ : Budget
    """

    _params = (
        "hypothesis_class",
        "epsilon",
        "delta",
        "sanitizer",
        "alpha",
        "beta",
        "domain",
        "rounds",
        "sample_size",
        "composition",
        "accountant",
        "rng",
    )
    _label = "SanitizerMultiLearner (GenericLearner)"
    _guarantee_needs_k = True

    def __init__(
        self,
        hypothesis_class: HypothesisClass,
        epsilon: float,
        delta: float = 0.0,
        *,
        sanitizer: str = "auto",
        alpha: float = 0.1,
        beta: float = 0.05,
        domain: Any = None,
        rounds: int = 10,
        sample_size: Optional[int] = None,
        composition: str = "auto",
        accountant: Optional[Accountant] = None,
        rng: RngLike = None,
    ) -> None:
        self.hypothesis_class = hypothesis_class
        self.epsilon = epsilon
        self.delta = delta
        self.sanitizer = sanitizer
        self.alpha = alpha
        self.beta = beta
        self.domain = domain
        self.rounds = rounds
        self.sample_size = sample_size
        self.composition = composition
        self.accountant = accountant
        self.rng = rng

    def _class(self) -> HypothesisClass:
        return check_hypothesis_class(self.hypothesis_class)

    def _kind(self) -> str:
        cls = self._class()
        if self.sanitizer not in ("auto", "points", "mwem"):
            raise _error("sanitizer", f"must be 'auto', 'points' or 'mwem', got {self.sanitizer!r}")
        if self.sanitizer == "auto":
            return "points" if isinstance(cls, Points) and check_delta(self.delta) > 0 else "mwem"
        if self.sanitizer == "points" and not isinstance(cls, Points):
            raise _error("sanitizer", f"'points' sanitizes for point functions only, not {cls!r}")
        return str(self.sanitizer)

    def _domain(self) -> np.ndarray:
        cls = self._class()
        if self.domain is not None:
            return cls._check_X(self.domain)
        if isinstance(cls, FiniteClass) and cls.domain_size is not None:
            return cls._check_X(np.arange(cls.domain_size))
        if isinstance(cls, Points) and cls.domain_size is not None:
            return cls._check_X(np.arange(cls.domain_size))
        if isinstance(cls, Parities) and cls.dim <= 12:
            grid = (np.arange(2**cls.dim)[:, None] >> np.arange(cls.dim)) & 1
            return cls._check_X(grid.astype(np.uint8))
        raise _error("domain", f"MWEM needs a finite domain for {cls!r}; pass domain=")

    def _check_X(self, X: Any) -> np.ndarray:
        return self._class()._check_X(X)

    def fit(self, X: Any, Y: Any) -> "SanitizerMultiLearner":
        """Learn ``k`` concepts (see the class documentation); returns ``self``. With MWEM every
        example must lie in the domain: checked with the rest of the input, before anything is
        charged or drawn."""
        if self._kind() == "mwem":
            self._domain_points = self._domain()
            self._domain_ids = _domain_index(self._domain_points, self._check_X(X))
        super().fit(X, Y)
        return self

    def _budget(self, k: int, n: int) -> Optional[Budget]:
        kind = self._kind()
        epsilon = check_epsilon(self.epsilon)
        composition = str(check_choice(self.composition, "composition", COMPOSITIONS))
        delta = check_delta(self.delta, zero_ok=not (kind == "points" or composition == "advanced"))
        check_probability(self.alpha, "alpha", one_ok=True)
        check_probability(self.beta, "beta")
        check_integer(self.rounds, "rounds", 1)
        if self.sample_size is not None:
            check_integer(self.sample_size, "sample_size", 1)
        half = epsilon / 2.0

        def split(comp: str) -> Tuple[Budget, str, Budget, Budget]:
            if kind == "points":
                d_san = delta if comp == "basic" else delta / 2.0
            else:
                d_san = 0.0
            name, per, em_total = _resolve(half, delta - d_san, k, comp, True, True)
            return Budget(half, d_san), name, per, em_total

        if composition == "auto":
            # The tighter split only when it gives each mechanism more (public parameters).
            use = "basic"
            if k > 1 and delta > 0.0:
                tight = split("bounded-range")
                if tight[2].epsilon > _basic_split(half, 0.0, k)[0].epsilon:
                    use = "bounded-range"
        else:
            use = composition
        san, name, per, em_total = split(use)
        self._san_budget = san
        self.per_concept_ = per
        self.composition_ = name
        return compose_basic([san, em_total])

    _has_native_event = True

    def _native_event(self, k: int, budget: Budget) -> PrivacyEvent:
        """The sanitizer then the ``k`` exponential mechanisms as one event: MWEM's own event
        (:func:`~privlearn.multi._sanitizers.mwem_event`) or the stability histogram's
        ``(epsilon, delta)`` (no native curve), then ``k`` mechanisms each
        ``per_concept_.epsilon``-bounded-range (Durfee and Rogers, NeurIPS 2019), with
        ``privacy_`` as the declared budget."""
        san = self._san_budget
        first = (
            mwem_event(san.epsilon, check_integer(self.rounds, "rounds", 1))
            if self._kind() == "mwem"
            else PrivacyEvent.approx(san.epsilon, san.delta)
        )
        ems = PrivacyEvent.repeated(PrivacyEvent.bounded_range(self.per_concept_.epsilon), k)
        return PrivacyEvent.composed([first, ems], budget=budget)

    def _sanitize_points(self, X: np.ndarray, gen: Generator) -> np.ndarray:
        keys, _, counts = _support(X)
        b = self._san_budget
        idx, _ = _core.multi_stability_histogram(counts, b.epsilon, b.delta, gen)
        return keys[idx]

    def _sanitize_mwem(self, X: np.ndarray, gen: Generator) -> np.ndarray:
        cls = self._class()
        dom = self._domain_points
        labels = cls.dichotomies(dom).to_numpy()  # (|Pi|, |domain|), data-independent
        queries = _xor_queries(labels)
        counts = np.bincount(self._domain_ids, minlength=dom.shape[0])
        rounds = check_integer(self.rounds, "rounds", 1)
        dist = mwem(counts, queries, self._san_budget.epsilon, rounds=rounds, rng=gen)
        m = self.sample_size
        if m is None:
            alpha, beta = float(self.alpha), float(self.beta)
            m = int(math.ceil((2.0 / alpha**2) * math.log(4.0 * len(queries) / beta)))
        draws = np.random.default_rng(np.asarray(gen.random_raw(4), dtype=np.uint64)).choice(
            dom.shape[0], size=int(m), p=dist
        )
        return dom[np.unique(draws)]

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> List[Hypothesis]:
        cls = self._class()
        pts = (
            self._sanitize_points(X, gen)
            if self._kind() == "points"
            else self._sanitize_mwem(X, gen)
        )
        self.sanitized_points_ = pts
        cands = cls.dichotomies(pts).hypotheses()
        self.candidates_ = cands
        pred = _predictions(cls, cands, X)
        return _em_columns(cands, _mistakes(pred, Y), self.per_concept_.epsilon, gen)

    def _predict(self, X: np.ndarray) -> np.ndarray:
        cls = self._class()
        return _grouped(self.hypotheses_, lambda h: cls.predict(h, X), X.shape[0])


def _xor_queries(labels: np.ndarray) -> np.ndarray:
    """The distinct non-zero rows ``labels[a] XOR labels[b]`` (``C^⊕`` on the domain)."""
    packed = _pack(labels.astype(np.uint8))
    rows = []
    for a in range(packed.shape[0]):
        rows.append(packed[a] ^ packed[a + 1 :])
    allq = np.concatenate(rows, axis=0) if rows else packed[:0]
    allq = allq[np.any(allq != 0, axis=1)]
    if allq.shape[0] == 0:
        return np.zeros((1, labels.shape[1]), dtype=np.uint8)
    uniq = np.unique(allq, axis=0)
    return _unpack_words(uniq, labels.shape[1])


def _domain_index(domain: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Each example's index in the domain (refused if it is not in the domain)."""
    d2 = domain.reshape(domain.shape[0], -1)
    x2 = X.reshape(X.shape[0], -1)
    lookup = {row.tobytes(): i for i, row in enumerate(np.ascontiguousarray(d2))}
    x2 = np.ascontiguousarray(x2.astype(d2.dtype))
    out = np.empty(x2.shape[0], dtype=np.int64)
    for r in range(x2.shape[0]):
        i = lookup.get(x2[r].tobytes())
        if i is None:
            raise _error("X", "every example must lie in the declared domain")
        out[r] = i
    return out

"""Synthetic labelled samples for every hypothesis class of :mod:`privlearn.hypotheses`.

:func:`make_concept_sample` draws points from a fixed, documented distribution for the class,
labels them with a target concept (drawn by :func:`random_concept` unless given), optionally with
several targets at once (the label matrix of a multi-concept task, seed 002) and with independent
label noise (the agnostic setting). Experiments and tests use it so that every learner sees the
same data model.

The distributions (chosen to make every class's learning problem non-trivial, not taken from a
paper):

===================  ==============================================  ================================
class                points                                          random concept
===================  ==============================================  ================================
Thresholds           uniform on [0, 1]                               t uniform on [0.25, 0.75]; the
                                                                     class's orientation ("both":
                                                                     either, with probability 1/2)
Intervals            uniform on [0, 1]                               a uniform on [0.1, 0.5],
                                                                     b = a + uniform on [0.2, 0.4]
Rectangles(dim)      uniform on [0, 1]^dim                           per axis lo uniform on [0.1,
                                                                     0.4], hi = lo + uniform on
                                                                     [0.3, 0.5]
Halfspaces(dim)      uniform on [-1, 1]^dim                          w uniform on the unit sphere,
                                                                     the boundary through a point
                                                                     uniform on [-0.3, 0.3]^dim
Parities(dim)        uniform on {0, 1}^dim (uint8)                   a uniform on {0, 1}^dim \\ {0}
Points(dim, M)       uniform on a support of min(M, 8) domain        uniform on that support
                     elements (M = domain_size; without one, 8
                     points of the integer grid {0..7}^dim)
FiniteClass(matrix)  uniform on the domain {0, ..., M - 1}           a uniform member
===================  ==============================================  ================================

A :class:`~privlearn.hypotheses.FiniteClass` of callables has no known domain: pass the points as
``X``. Randomness comes from ``rng`` (privlearn's one RNG story): a seed gives the same sample on
every platform.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Optional, Union

import numpy as np

from .._validate import check_integer as _count
from .._validate import check_probability
from ..errors import InvalidParameterError
from ..hypotheses import (
    FiniteClass,
    FiniteMember,
    Halfspace,
    Halfspaces,
    HypothesisClass,
    Interval,
    Intervals,
    Parities,
    Parity,
    Point,
    Points,
    Rectangle,
    Rectangles,
    Threshold,
    Thresholds,
    check_hypothesis_class,
)
from ..random import RngLike, as_generator

__all__ = ["ConceptSample", "make_concept_sample", "random_concept", "sample_points"]

Hypothesis = Any

# Points(): the support the distribution puts its mass on.
_POINT_SUPPORT = 8


@dataclass(frozen=True, eq=False)
class ConceptSample:
    """A labelled sample drawn by :func:`make_concept_sample`.

    Attributes
    ----------
    X : numpy.ndarray
        The points, in the layout the class takes (``(n,)`` for one-dimensional classes,
        ``(n, dim)`` otherwise, domain indices for finite domains).
    y : numpy.ndarray of bool
        The (noisy) labels: shape ``(n,)``, or ``(n, k)`` for ``n_concepts=k``.
    targets : list
        The target concepts, one per label column.
    noise : float
        The probability with which each label was flipped.
    clean : numpy.ndarray of bool
        The labels before the noise (the targets' predictions).
    """

    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    targets: List[Hypothesis]
    noise: float
    clean: np.ndarray = field(repr=False)

    @property
    def target(self) -> Hypothesis:
        """The target concept of a single-concept sample."""
        if len(self.targets) != 1:
            raise InvalidParameterError(
                f"target: this sample has {len(self.targets)} targets; use .targets", "target"
            )
        return self.targets[0]

    def __repr__(self) -> str:
        shape = "x".join(str(s) for s in self.y.shape)
        return f"ConceptSample(labels={shape}, noise={self.noise}, targets={len(self.targets)})"


def _numpy_rng(rng: RngLike) -> np.random.Generator:
    """A numpy generator keyed by four words of privlearn's stream (deterministic under a seed)."""
    words = as_generator(rng).random_raw(4)
    return np.random.default_rng(np.asarray(words, dtype=np.uint64))


def _check_class(hypothesis_class: Any) -> HypothesisClass:
    return check_hypothesis_class(hypothesis_class)


def _point_support(cls: Points) -> np.ndarray:
    """The elements Points' distribution puts its mass on."""
    if cls.domain_size is not None:
        return np.arange(min(cls.domain_size, _POINT_SUPPORT), dtype=np.int64)
    dim = cls.dim
    grid = np.arange(_POINT_SUPPORT, dtype=np.float64)
    # Eight distinct points of {0..7}^dim: (i, (3 i) mod 8, (5 i) mod 8, ...).
    cols = [(grid * (2 * k + 1)) % _POINT_SUPPORT for k in range(dim)]
    return np.stack(cols, axis=1)


def _finite_domain(cls: FiniteClass) -> int:
    if cls.domain_size is None:
        raise InvalidParameterError(
            "X: a FiniteClass of callables has no known domain; pass the points as X", "X"
        )
    return cls.domain_size


def _rng_draw(rng: np.random.Generator, cls: HypothesisClass) -> Hypothesis:
    if isinstance(cls, Thresholds):
        orientation = cls.orientation
        if orientation == "both":
            orientation = "ge" if rng.random() < 0.5 else "le"
        return Threshold(float(rng.uniform(0.25, 0.75)), orientation)
    if isinstance(cls, Intervals):
        a = float(rng.uniform(0.1, 0.5))
        return Interval(a, a + float(rng.uniform(0.2, 0.4)))
    if isinstance(cls, Rectangles):
        lo = rng.uniform(0.1, 0.4, size=cls.dim)
        hi = lo + rng.uniform(0.3, 0.5, size=cls.dim)
        return Rectangle(tuple(float(v) for v in lo), tuple(float(v) for v in hi))
    if isinstance(cls, Halfspaces):
        w = rng.standard_normal(cls.dim)
        while not np.any(w):  # pragma: no cover - probability zero
            w = rng.standard_normal(cls.dim)
        w /= np.linalg.norm(w)
        c = rng.uniform(-0.3, 0.3, size=cls.dim)
        return Halfspace(tuple(float(v) for v in w), float(-w @ c))
    if isinstance(cls, Parities):
        dim = cls.dim
        bits = np.zeros(dim, dtype=np.uint8)
        while not bits.any():
            bits = rng.integers(0, 2, size=dim, dtype=np.uint8)
        return Parity(tuple(int(i) for i in np.flatnonzero(bits)), dim)
    if isinstance(cls, Points):
        support = _point_support(cls)
        p = support[int(rng.integers(len(support)))]
        return Point(int(p) if support.ndim == 1 else tuple(float(v) for v in p))
    if isinstance(cls, FiniteClass):
        return FiniteMember(int(rng.integers(cls.size)))
    raise InvalidParameterError(  # pragma: no cover - every class is listed above
        f"hypothesis_class: no synthetic distribution for {cls!r}", "hypothesis_class"
    )


def _rng_points(rng: np.random.Generator, cls: HypothesisClass, n: int) -> np.ndarray:
    if isinstance(cls, (Thresholds, Intervals)):
        return rng.random(n)
    if isinstance(cls, Rectangles):
        return rng.random((n, cls.dim))
    if isinstance(cls, Halfspaces):
        return rng.uniform(-1.0, 1.0, size=(n, cls.dim))
    if isinstance(cls, Parities):
        return rng.integers(0, 2, size=(n, cls.dim), dtype=np.uint8)
    if isinstance(cls, Points):
        support = _point_support(cls)
        return support[rng.integers(len(support), size=n)]
    if isinstance(cls, FiniteClass):
        return rng.integers(_finite_domain(cls), size=n, dtype=np.int64)
    raise InvalidParameterError(  # pragma: no cover
        f"hypothesis_class: no synthetic distribution for {cls!r}", "hypothesis_class"
    )


def random_concept(hypothesis_class: HypothesisClass, *, rng: RngLike = None) -> Hypothesis:
    """A concept of ``hypothesis_class`` drawn from the module's documented distribution."""
    cls = _check_class(hypothesis_class)
    return _rng_draw(_numpy_rng(rng), cls)


def sample_points(hypothesis_class: HypothesisClass, n: int, *, rng: RngLike = None) -> np.ndarray:
    """``n`` points from the class's documented distribution, in the layout the class takes."""
    cls = _check_class(hypothesis_class)
    return _rng_points(_numpy_rng(rng), cls, _count(n, "n"))


def make_concept_sample(
    hypothesis_class: HypothesisClass,
    n: Optional[int] = None,
    *,
    X: Any = None,
    targets: Union[None, Hypothesis, List[Hypothesis]] = None,
    n_concepts: Optional[int] = None,
    noise: float = 0.0,
    rng: RngLike = None,
) -> ConceptSample:
    """A sample labelled by one or several concepts of ``hypothesis_class``.

    Parameters
    ----------
    hypothesis_class : HypothesisClass
        A class from :mod:`privlearn.hypotheses`.
    n : int, optional
        The number of points to draw from the class's distribution (see the module docstring).
        Give either ``n`` or ``X``.
    X : array-like, optional
        Points to label instead of drawn ones.
    targets : hypothesis or list of hypotheses, optional
        The target concept(s). By default ``n_concepts`` (or one) are drawn with
        :func:`random_concept`.
    n_concepts : int, optional
        The number of targets to draw (a multi-concept task). With it, ``y`` has shape
        ``(n, n_concepts)``; without it, and with a single target, ``y`` has shape ``(n,)``.
    noise : float, default 0.0
        Each label is flipped independently with this probability, in ``[0, 0.5]``.
    rng : None, int or Generator
        The randomness (points, targets and noise).

    Returns
    -------
    ConceptSample
    """
    cls = _check_class(hypothesis_class)
    noise = check_probability(noise, "noise", zero_ok=True, one_ok=True, hi=0.5)
    if (n is None) == (X is None):
        raise InvalidParameterError("n: give exactly one of n and X", "n")
    k = None if n_concepts is None else _count(n_concepts, "n_concepts")
    explicit: Optional[List[Hypothesis]] = None
    if targets is not None:
        explicit = list(targets) if isinstance(targets, (list, tuple)) else [targets]
        if not explicit:
            raise InvalidParameterError("targets: must not be empty", "targets")
        if k is not None and k != len(explicit):
            raise InvalidParameterError(
                f"n_concepts: {k} does not match the {len(explicit)} targets given", "n_concepts"
            )
    g = _numpy_rng(rng)
    points = _rng_points(g, cls, _count(n, "n")) if X is None else np.asarray(X)
    chosen = explicit if explicit is not None else [_rng_draw(g, cls) for _ in range(k or 1)]
    clean = np.stack([np.asarray(cls.predict(h, points), dtype=bool) for h in chosen], axis=1)
    flips = g.random(clean.shape) < noise if noise > 0 else np.zeros(clean.shape, dtype=bool)
    y = clean ^ flips
    if k is None and len(chosen) == 1:
        y, clean = y[:, 0], clean[:, 0]
    return ConceptSample(X=points, y=y, targets=chosen, noise=noise, clean=clean)

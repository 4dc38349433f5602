r"""The fingerprinting attack on multi-concept learners (seed 002, §4).

Bun, Nissim and Stemmer's lower bounds for private multi-learning (Theorems 4.3 and 4.7,
Corollary 4.10) are reductions from fingerprinting codes, and run as an attack:

1. draw a Tardos code for ``n`` users with ``k`` positions (``k`` = the number of concepts);
2. build the coalition's ``k``-labelled database: user ``i``'s row is ``(x, C_i)``, every row at
   the same example ``x`` on which two hypotheses of the class differ (the agnostic
   construction of Theorem 4.7; every class with two distinct concepts has such an ``x``);
3. train the multi-learner and round the averages of its ``k`` hypotheses over the database at
   ``1/2``: the pirate word. If the learner is accurate, the word is feasible (it agrees with
   every column where all users agree), and tracing identifies a user;
4. trace the word.

For a non-private learner (column-wise ERM = the column majority) the word is feasible and a user
is identified with probability at least ``1 - miss_rate``. For an ``(epsilon, delta)``-DP learner
this cannot happen often: the database with user ``i``'s row replaced by a nonce row ``(x, 0^k)``
is a neighbour, on which ``i`` is innocent and accused with probability at most ``ε1 = ξ/n``, so
``P[i accused] <= e^epsilon ε1 + delta`` and ``P[some user identified] <= e^epsilon ξ + n delta``
(the ``dp_bound`` of the result). The attack measures both sides for a random target user, which
also gives an empirical lower bound on the learner's epsilon.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any, Optional, Tuple

import numpy as np

from .._validate import check_choice, check_integer, check_probability
from ..audit import epsilon_lower_bound
from ..audit._intervals import _cp_lower, _cp_upper
from ..errors import InvalidParameterError
from ..hypotheses import (
    FiniteClass,
    Halfspaces,
    HypothesisClass,
    Intervals,
    Parities,
    Points,
    Rectangles,
    Thresholds,
)
from ..random import RngLike, as_generator
from .codes import VARIANTS, TardosCode, is_feasible, tardos_parameters

__all__ = ["fingerprinting_attack", "FingerprintingAttackResult", "distinguishing_point"]


@dataclass(frozen=True)
class FingerprintingAttackResult:
    """What :func:`fingerprinting_attack` measured.

    Attributes
    ----------
    learner : str
        The learner attacked (its repr).
    n_users, code_length, trials : int
        ``n``, ``k`` (the number of concepts) and the number of fresh codes.
    identified : int
        Trials in which some user was accused (on the full database, every user is a member).
    feasible : int
        Trials in which the pirate word was feasible (the learner was accurate on every column
        where all users agree).
    target_accused_in, target_accused_out : int
        Trials in which a uniformly random target user was accused on the full database, and on
        the neighbouring database with the target's row replaced by ``(x, 0^k)`` (0 when the
        neighbours were not run).
    neighbours : bool
        Whether the neighbouring databases were run.
    false_accusation, per_user_false_accusation : float
        ``ξ`` and ``ε1 = ξ/n``: the code's soundness (any innocent accused with probability at
        most ``ξ``, a given one with at most ``ε1``, for every pirate word).
    miss_rate : float
        The code's bound on the probability that a feasible word identifies nobody.
    claimed : Budget or None
        The learner's stated guarantee (``privacy_`` after fitting; ``None``: none).
    alpha : float
        Confidence level of the bounds below (each fails with probability at most ``alpha``).
    """

    learner: str
    n_users: int
    code_length: int
    trials: int
    identified: int
    feasible: int
    target_accused_in: int
    target_accused_out: int
    neighbours: bool
    false_accusation: float
    per_user_false_accusation: float
    miss_rate: float
    claimed: Any
    alpha: float

    @property
    def identification_rate(self) -> float:
        """Fraction of trials in which a user was identified."""
        return self.identified / self.trials

    @property
    def identification_interval(self) -> Tuple[float, float]:
        """One-sided Clopper–Pearson lower and upper bounds (each at level ``alpha``) on the
        identification probability."""
        k, n = np.array([self.identified]), np.array([self.trials])
        return float(_cp_lower(k, n, self.alpha)[0]), float(_cp_upper(k, n, self.alpha)[0])

    @property
    def dp_bound(self) -> Optional[float]:
        """The largest identification probability the claimed ``(epsilon, delta)`` allows:
        ``min(1, n (e^epsilon ε1 + delta))``; ``None`` without a claim."""
        if self.claimed is None:
            return None
        eps, delta = float(self.claimed.epsilon), float(self.claimed.delta)
        if eps > 700:
            return 1.0
        return min(1.0, self.n_users * (math.exp(eps) * self.per_user_false_accusation + delta))

    @property
    def refutes_claim(self) -> bool:
        """Whether the identification rate's lower confidence bound exceeds :attr:`dp_bound`
        (a correct ``(epsilon, delta)``-DP learner does this with probability at most
        ``alpha``, given the code's soundness)."""
        bound = self.dp_bound
        return bound is not None and self.identification_interval[0] > bound

    @property
    def epsilon_lower_bound(self) -> float:
        """A lower confidence bound (level ``alpha``) on the learner's epsilon at its claimed
        delta (0 without a claim) from the target's accusation rates on the two neighbouring
        databases (:func:`privlearn.audit.epsilon_lower_bound`; 0 without neighbours)."""
        if not self.neighbours or self.trials == 0:
            return 0.0
        delta = 0.0 if self.claimed is None else float(self.claimed.delta)
        a = np.zeros(self.trials, dtype=bool)
        a[: self.target_accused_in] = True
        b = np.zeros(self.trials, dtype=bool)
        b[: self.target_accused_out] = True
        return epsilon_lower_bound(a, b, alpha=self.alpha, delta=delta, events=[lambda x: x])

    def __str__(self) -> str:
        lo, hi = self.identification_interval
        claim = (
            "no privacy claim"
            if self.claimed is None
            else f"claimed {self.claimed}, allows <= {self.dp_bound:.3g}"
        )
        return (
            f"fingerprinting attack on {self.learner}: {self.identified}/{self.trials} identified "
            f"(rate in [{lo:.3g}, {hi:.3g}]; {claim}); feasible words {self.feasible}/{self.trials}; "
            f"k = {self.code_length} concepts, n = {self.n_users} users"
        )


def distinguishing_point(hypothesis_class: HypothesisClass) -> Any:
    """An example on which two hypotheses of the class differ (in the class's layout for one
    row), for the all-rows-at-one-point database of Theorem 4.7: ``e_1`` for parities, the first
    domain element (or the origin) for points, ``0.5`` for thresholds and intervals, the centre of
    the unit cube for boxes, the origin for halfspaces, and for a finite class the first domain
    element where its members disagree."""
    cls = hypothesis_class
    if isinstance(cls, Parities):
        e = np.zeros(cls.dim, dtype=np.uint8)
        e[0] = 1
        return e
    if isinstance(cls, Points):
        return 0 if cls.domain_size is not None or cls.dim == 1 else np.zeros(cls.dim)
    if isinstance(cls, (Thresholds, Intervals)):
        return 0.5
    if isinstance(cls, Rectangles):
        return np.full(cls.dim, 0.5)
    if isinstance(cls, Halfspaces):
        return np.zeros(cls.dim)
    if isinstance(cls, FiniteClass) and cls.domain_size is not None:
        m = cls._matrix
        assert m is not None
        differs = np.flatnonzero(m.any(axis=0) & ~m.all(axis=0))
        if differs.size:
            return int(differs[0])
    raise InvalidParameterError(
        f"point: no default example for {cls!r}; pass one on which two hypotheses differ", "point"
    )


def _fresh(learner: Any, seed: int) -> Any:
    """A copy of the learner with its own randomness and no accountant (it trains on the
    attack's synthetic data, not on anyone's)."""
    if hasattr(learner, "_clone"):
        params = learner.get_params()
        overrides = {
            name: value for name, value in (("rng", seed), ("accountant", None)) if name in params
        }
        return learner._clone(**overrides)
    return copy.deepcopy(learner)


def _word(learner: Any, X: np.ndarray, Y: np.ndarray) -> Tuple[np.ndarray, Any]:
    """The pirate word: the hypotheses' averages over the database rounded at 1/2 (and the
    learner's stated guarantee)."""
    learner.fit(X, Y)
    pred = np.asarray(learner.predict(X), dtype=float)
    return pred.mean(axis=0) >= 0.5, getattr(learner, "privacy_", None)


def fingerprinting_attack(
    learner: Any,
    n_users: int = 8,
    *,
    trials: int = 50,
    false_accusation: float = 0.1,
    point: Any = None,
    variant: str = "symmetric",
    length: Optional[int] = None,
    neighbours: bool = True,
    alpha: float = 1e-6,
    rng: RngLike = None,
) -> FingerprintingAttackResult:
    r"""Run Bun, Nissim and Stemmer's fingerprinting reduction (Theorem 4.7; Theorem 4.3's
    argument) against a multi-learner, and report how often it identifies a member of the data.

    Each trial draws a fresh Tardos code (:class:`~privlearn.attacks.TardosCode` with
    ``coalition_size = n_users``), trains the learner on the database whose row ``i`` is
    ``(point, codeword_i)`` (``k = code length`` concepts), rounds the hypotheses' averages at
    ``1/2`` into a pirate word and traces it. With ``neighbours``, it also trains on the
    neighbouring database where a uniformly random target's row is ``(point, 0^k)`` and records
    whether the target is accused on each side.

    Parameters
    ----------
    learner : multi-learner
        A privlearn multi-learner (:mod:`privlearn.multi`); each fit uses a copy with its own
        seed and no accountant. Any object with ``fit(X, Y)`` and ``predict(X) -> (m, k)`` also
        works (refitted as it is).
    n_users : int, default 8
        ``n``, the number of rows (the code's users).
    trials : int, default 50
    false_accusation : float, default 0.1
        The code's ``ξ``.
    point : example, optional
        The example of every row; by default :func:`distinguishing_point` of the learner's
        ``hypothesis_class``.
    variant : {"symmetric", "tardos"}, default "symmetric"
    length : int, optional
        Code length (= number of concepts); by default the code's own.
    neighbours : bool, default True
    alpha : float, default 1e-6
        Level of the confidence bounds in the result.
    rng : None, int or Generator, optional
        Randomness of the codes, the targets and the learner's fits.

    Returns
    -------
    FingerprintingAttackResult

    Examples
    --------
    >>> from privlearn.attacks import fingerprinting_attack
    >>> from privlearn.hypotheses import Points
    >>> from privlearn.multi import NonPrivateMultiLearner
    >>> res = fingerprinting_attack(NonPrivateMultiLearner(Points(domain_size=4)), trials=5, rng=0)
    >>> res.identified, res.feasible       # every trial identifies a member
    (5, 5)
    """
    n_users = check_integer(n_users, "n_users")
    trials = check_integer(trials, "trials")
    check_choice(variant, "variant", VARIANTS)
    check_probability(alpha, "alpha")
    if not (
        callable(getattr(learner, "fit", None)) and callable(getattr(learner, "predict", None))
    ):
        raise InvalidParameterError("learner: must have fit(X, Y) and predict(X)", "learner")
    if point is None:
        cls = getattr(learner, "hypothesis_class", None)
        if not isinstance(cls, HypothesisClass):
            raise InvalidParameterError(
                "point: the learner has no hypothesis class; pass point=", "point"
            )
        point = distinguishing_point(cls)
    row = np.asarray(point)
    n = int(n_users)
    X = np.repeat(row[None, ...], n, axis=0) if row.ndim else np.full(n, row.item())
    tardos_parameters(n, n, false_accusation, variant=variant, length=length)  # validates first
    gen = as_generator(rng)
    picker = np.random.default_rng(np.asarray(gen.random_raw(4), dtype=np.uint64))
    counts = dict(identified=0, feasible=0, target_in=0, target_out=0)
    claimed: Any = None
    code: Optional[TardosCode] = None
    for _ in range(int(trials)):
        code = TardosCode(n, n, false_accusation, variant=variant, length=length, rng=gen)
        C = code.codewords
        word, claimed = _word(_fresh(learner, int(gen.random_raw())), X, C)
        accused = code.trace(word)
        counts["identified"] += int(accused.size > 0)
        counts["feasible"] += int(is_feasible(word, C))
        if neighbours:
            target = int(picker.integers(n))
            C2 = C.copy()
            C2[target] = False
            word2, _ = _word(_fresh(learner, int(gen.random_raw())), X, C2)
            counts["target_in"] += int(target in accused)
            counts["target_out"] += int(target in code.trace(word2))
    assert code is not None
    return FingerprintingAttackResult(
        learner=repr(learner),
        n_users=n,
        code_length=code.length,
        trials=int(trials),
        identified=counts["identified"],
        feasible=counts["feasible"],
        target_accused_in=counts["target_in"],
        target_accused_out=counts["target_out"],
        neighbours=bool(neighbours),
        false_accusation=code.false_accusation,
        per_user_false_accusation=code.per_user_false_accusation,
        miss_rate=code.miss_rate,
        claimed=claimed,
        alpha=float(alpha),
    )

"""``SearchParities``: the multi-learner for parities (seed 002, Theorem 3.12).

:class:`ParityMultiLearner` learns ``k`` parities under the uniform distribution with a sample
size independent of ``k``: one GF(2) elimination per subsample (in Rust) and one stable
selection of the most frequent vector of ``k`` parities.
"""

from __future__ import annotations

from typing import Any, List, Optional

import numpy as np

from .. import _core
from .._validate import check_delta, check_epsilon, check_integer
from ..accounting import Accountant, Budget
from ..gf2 import _pack
from ..hypotheses import Parities
from ..random import Generator, RngLike
from ._base import _MultiLearner
from ._hypotheses import Hypothesis, _parities
from ._inputs import _binary_points, _unpack_words


class ParityMultiLearner(_MultiLearner):
    r"""``SearchParities``: private learning of ``k`` parities under the uniform distribution
    with a sample size independent of ``k`` (Bun, Nissim and Stemmer, Algorithm 4 and
    Theorem 3.12).

    The rows are split by index into ``T = floor(n / subsample_size)`` subsamples (leftover rows
    are unused). On each, one GF(2) elimination of ``[A_t | B_t]`` (the examples and all ``k``
    label columns, in Rust) finds the vector of ``k`` parities consistent with the subsample
    when the examples have rank ``dim`` and every column is consistent; otherwise the subsample
    gives no candidate. The most frequent vector is then released by the Smith–Thakurta stable
    selection (``A_dist``, Proposition 3.11, in the safe parametrisation of errata 002-1/002-2:
    discrete Laplace noise of scale ``2/epsilon`` on the gap between the two best counts and a
    threshold ``2 + t``), or nothing (⊥: :attr:`released_` is false and every hypothesis is
    the zero parity).

    **Privacy:** ``(epsilon, delta)``-DP for replace-one neighbours (one row's example and all
    ``k`` labels replaced; ``n`` public): a row lies in one subsample, so it changes at most one
    candidate and every count by at most one, and the selection is ``(epsilon, delta)``-DP for
    such counts. With fewer than ``subsample_size`` rows nothing is computed from the data
    (``privacy_`` is zero and nothing is charged).

    **Accuracy:** proper and exact: with :func:`parity_sample_size` examples from the uniform
    distribution labelled by ``k`` parities, all ``k`` are recovered exactly with probability
    ``1 - beta``, whatever ``k``.

    Parameters
    ----------
    dim : int
        The cube ``{0, 1}^dim``.
    epsilon : float
    delta : float
        In ``(0, 1)``.
    subsample_size : int, optional
        Rows per subsample, at least ``dim`` (default ``dim + 3``: each subsample then has full
        rank with probability above ``7/8``). An accuracy knob.
    accountant : Accountant, optional
    rng : None, int or Generator, optional

    Attributes
    ----------
    hypotheses_ : list of Parity
    coefficients_ : numpy.ndarray of uint8, shape (dim, k)
        Column ``j`` is the indicator vector of parity ``j``.
    released_ : bool
        Whether the selection released a vector (false: ⊥).
    n_subsamples_ : int
    privacy_ : Budget
    """

    _params = ("dim", "epsilon", "delta", "subsample_size", "accountant", "rng")
    _label = "ParityMultiLearner (SearchParities)"

    def __init__(
        self,
        dim: int,
        epsilon: float,
        delta: float,
        *,
        subsample_size: Optional[int] = None,
        accountant: Optional[Accountant] = None,
        rng: RngLike = None,
    ) -> None:
        self.dim = dim
        self.epsilon = epsilon
        self.delta = delta
        self.subsample_size = subsample_size
        self.accountant = accountant
        self.rng = rng

    @property
    def hypothesis_class(self) -> Parities:
        """``Parities(dim)``."""
        return Parities(check_integer(self.dim, "dim", 1))

    def _m(self) -> int:
        dim = check_integer(self.dim, "dim", 1)
        return (
            dim + 3
            if self.subsample_size is None
            else check_integer(self.subsample_size, "subsample_size", dim)
        )

    def _check_X(self, X: Any) -> np.ndarray:
        return _binary_points(X, check_integer(self.dim, "dim", 1))

    def _budget(self, k: int, n: int) -> Optional[Budget]:
        b = Budget(check_epsilon(self.epsilon), check_delta(self.delta, zero_ok=False))
        return b if n >= self._m() else Budget(0.0)

    def _learn(self, X: np.ndarray, Y: np.ndarray, gen: Generator) -> Optional[List[Hypothesis]]:
        dim, k, m = X.shape[1], Y.shape[1], self._m()
        if X.shape[0] < m:
            sol: Optional[np.ndarray] = None
            t = 0
        else:
            sol, t = _core.multi_search_parities(
                _pack(X), dim, _pack(Y), k, m, float(self.epsilon), float(self.delta), gen
            )
        self.released_ = sol is not None
        self.n_subsamples_ = int(t)
        self.coefficients_ = np.zeros((dim, k), np.uint8) if sol is None else _unpack_words(sol, k)
        return None  # built on demand from coefficients_

    def _build_hypotheses(self) -> List[Hypothesis]:
        return _parities(self.coefficients_)

    def _predict(self, X: np.ndarray) -> np.ndarray:
        k = self.coefficients_.shape[1]
        out = _core.gf2_mul(_pack(X), X.shape[1], _pack(self.coefficients_), k)
        return _unpack_words(out, k).astype(bool)

"""Reference mechanisms for the privacy-audit tests: correct ones and known-broken ones.

Test-only code, written with numpy noise and vectorised over samples: every sampler has the
signature ``run(g, size) -> array`` (``g`` a numpy Generator), the form ``privlearn.audit.audit``
calls once per side. Sensitivity is 1 throughout; neighbouring query or score vectors differ by at
most 1 in every coordinate (the "all differ" neighbours of StatDP).

Sparse-vector variants follow Lyu, Su and Li, "Understanding the Sparse Vector Technique for
Differential Privacy" (VLDB 2017), Algorithms 1 to 6, and StatDP (Ding et al., CCS 2018), whose
``iSVT1``..``iSVT4`` are Algorithms 5, 6, 4 and 3 of Lyu-Su-Li:

=================  ==========================================================  ===============
name               what it does                                                true guarantee
=================  ==========================================================  ===============
``above_threshold``  AboveThreshold (c = 1): rho ~ Lap(2/eps), nu ~ Lap(4/eps)   eps-DP
``svt1``           Lyu-Su-Li Alg. 1: rho ~ Lap(2/eps), nu ~ Lap(4c/eps), halts  eps-DP
                   after c positives
``svt2``           Lyu-Su-Li Alg. 2 (Dwork-Roth): rho ~ Lap(2c/eps), nu ~       eps-DP
                   Lap(4c/eps), rho re-drawn after each positive
``isvt1``          no noise on the queries, never halts (Alg. 5, Stoddard et    not private
                   al.)
``isvt2``          nu ~ Lap(2/eps) not scaled with c, never halts (Alg. 6,      not private
                   Chen et al.)
``isvt3``          rho ~ Lap(4/eps), nu ~ Lap(4/(3 eps)) not scaled with c      (1 + 6c)/4 eps
                   (Alg. 4, Lee-Clifton)
``isvt4``          outputs the noisy query value for a positive (Alg. 3,        not private
                   Roth's notes)
``svt_refresh_     re-draws the threshold noise after each positive but keeps   c eps
unsplit``          each round's noise at the c = 1 scales: the threshold noise
                   is re-used as if each round had the whole budget
=================  ==========================================================  ===============

SVT outputs are integer matrices, one row per run: 1 = above, 0 = below, -1 = not answered
(halted). ``isvt4`` returns a float matrix: the noisy value for a positive, -1000 for a negative,
-2000 after halting.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

Sampler = Callable[[np.random.Generator, int], np.ndarray]


# ------------------------------------------------------------------------------------------------
# Laplace and report-noisy-max
# ------------------------------------------------------------------------------------------------


def laplace(value: float, epsilon: float, scale_factor: float = 1.0) -> Sampler:
    """The Laplace mechanism on a sensitivity-1 value; ``scale_factor < 1`` is the broken one."""

    def run(g: np.random.Generator, size: int) -> np.ndarray:
        return value + g.laplace(0.0, scale_factor / epsilon, size=size)

    return run


def report_noisy_max(scores: Sequence[float], epsilon: float, noise_scale: float) -> Sampler:
    """argmax(scores + Lap(noise_scale)). ``noise_scale = 2 / epsilon`` is epsilon-DP for
    sensitivity-1 scores that may move in opposite directions; ``1 / epsilon`` is not."""
    s = np.asarray(scores, dtype=float)

    def run(g: np.random.Generator, size: int) -> np.ndarray:
        return np.argmax(s + g.laplace(0.0, noise_scale, size=(size, len(s))), axis=1)

    return run


# ------------------------------------------------------------------------------------------------
# Sparse vector
# ------------------------------------------------------------------------------------------------


def _svt(
    g: np.random.Generator,
    size: int,
    queries: np.ndarray,
    threshold: float,
    rho_scale: float,
    nu_scale: float,
    c: int | None,
    refresh: bool = False,
) -> np.ndarray:
    """Shared SVT loop, vectorised over runs. ``c=None``: never halts."""
    k = len(queries)
    rho = g.laplace(0.0, rho_scale, size=size)
    nu = g.laplace(0.0, nu_scale, size=(size, k)) if nu_scale > 0 else np.zeros((size, k))
    out = np.empty((size, k), dtype=np.int8)
    count = np.zeros(size, dtype=np.int64)
    halted = np.zeros(size, dtype=bool)
    for j in range(k):
        above = queries[j] + nu[:, j] >= threshold + rho
        out[:, j] = above
        out[halted, j] = -1
        above &= ~halted
        count += above
        if refresh:
            fresh = g.laplace(0.0, rho_scale, size=size)
            rho = np.where(above, fresh, rho)
        if c is not None:
            halted |= count >= c
    return out


def svt(
    queries: Sequence[float],
    epsilon: float,
    threshold: float,
    variant: str,
    c: int = 1,
) -> Sampler:
    """One of the sparse-vector variants of the module docstring, on fixed ``queries``."""
    q = np.asarray(queries, dtype=float)
    e = epsilon
    if variant == "above_threshold":
        params = dict(rho_scale=2 / e, nu_scale=4 / e, c=1)
    elif variant == "svt1":
        params = dict(rho_scale=2 / e, nu_scale=4 * c / e, c=c)
    elif variant == "svt2":
        params = dict(rho_scale=2 * c / e, nu_scale=4 * c / e, c=c, refresh=True)
    elif variant == "isvt1":
        params = dict(rho_scale=2 / e, nu_scale=0.0, c=None)
    elif variant == "isvt2":
        params = dict(rho_scale=2 / e, nu_scale=2 / e, c=None)
    elif variant == "isvt3":
        params = dict(rho_scale=4 / e, nu_scale=4 / (3 * e), c=c)
    elif variant == "svt_refresh_unsplit":
        params = dict(rho_scale=2 / e, nu_scale=4 / e, c=c, refresh=True)
    elif variant == "svt_reuse_threshold":
        params = dict(rho_scale=2 / e, nu_scale=4 / e, c=c)
    elif variant == "isvt4":
        return _isvt4(q, e, threshold, c)
    else:
        raise ValueError(variant)

    def run(g: np.random.Generator, size: int) -> np.ndarray:
        return _svt(g, size, q, threshold, **params)  # type: ignore[arg-type]

    return run


def _isvt4(q: np.ndarray, epsilon: float, threshold: float, c: int) -> Sampler:
    """Lyu-Su-Li Alg. 3 / StatDP iSVT4: a positive releases its noisy value q + nu."""

    def run(g: np.random.Generator, size: int) -> np.ndarray:
        k = len(q)
        rho = g.laplace(0.0, 2 / epsilon, size=size)
        noisy = q + g.laplace(0.0, 2 * c / epsilon, size=(size, k))
        out = np.where(noisy >= (threshold + rho)[:, None], noisy, -1000.0)
        count = np.zeros(size, dtype=np.int64)
        halted = np.zeros(size, dtype=bool)
        for j in range(k):
            out[halted, j] = -2000.0
            count += (out[:, j] > -1000.0) & ~halted
            halted |= count >= c
        return out

    return run

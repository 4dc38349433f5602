"""
Learning parities over GF(2)
============================

A parity ``x -> <s, x> mod 2`` on ``{0, 1}^d`` is learned exactly by Gaussian elimination over
GF(2) (:func:`privlearn.gf2.learn_parity`), the non-private learner that Bun, Nissim and
Stemmer's private parity learners run on subsamples. With ``n`` uniform examples the learned
parity is the target once the examples span ``{0, 1}^d``, which happens with probability
``prod_{i < d} (1 - 2^(i - n))``: about ``d`` examples suffice.
"""

import matplotlib.pyplot as plt
import numpy as np

from privlearn.gf2 import learn_parity

d, trials = 10, 100
rng = np.random.default_rng(0)
sizes = np.arange(4, 21)
rate = []
for n in sizes:
    hits = 0
    for _ in range(trials):
        s = rng.integers(0, 2, d)
        X = rng.integers(0, 2, (n, d))
        y = X @ s % 2
        found = learn_parity(X, y)
        # Any parity consistent with the sample is returned; it is the target only when the
        # sample determines it.
        hits += found is not None and bool(np.array_equal(np.asarray(found).ravel() % 2, s))
    rate.append(hits / trials)

theory = [np.prod([1 - 2.0 ** (i - n) for i in range(d)]) if n >= d else 0.0 for n in sizes]

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(sizes, rate, "o", label="learned parity = target")
ax.plot(sizes, theory, "-", label="P(examples span {0,1}^d)")
ax.set_xlabel("examples n")
ax.set_ylabel("fraction of trials")
ax.set_title(f"Exact parity learning, d = {d}")
ax.legend()
fig.tight_layout()
print(dict(zip(sizes.tolist(), rate)))

"""
Auditing a privacy claim, with its power check
==============================================

:func:`privlearn.audit.audit` runs a mechanism on two neighbouring inputs many times and
computes a lower confidence bound on epsilon; a claim below the bound is refuted. Here the
exponential mechanism on neighbouring score vectors passes at its true epsilon and a "forgot the
factor 2" bug is caught. A distribution test is only trusted with a power check
(:func:`privlearn.audit.power_check`): the Laplace noise must fit its law and must *not* fit the
law with the scale 30% off.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

from privlearn.audit import audit, ks_pvalue, power_check
from privlearn.mechanisms import exponential, laplace


def em(scores, epsilon):
    # A vectorised sampler: audit calls it with a numpy Generator and a sample size.
    return lambda g, size: exponential(scores, epsilon, size=size, rng=int(g.integers(2**63)))


a, b = [0, 3, 3, 3], [1, 2, 2, 2]  # neighbours: every score moves by at most 1
correct = audit(em(a, 1.0), em(b, 1.0), claimed=1.0, n=100_000, rng=0)
broken = audit(em(a, 2.0), em(b, 2.0), claimed=1.0, n=100_000, rng=0)
print(f"correct mechanism: passed={correct.passed}, epsilon >= {correct.bound:.2f}")
print(f"broken mechanism:  passed={broken.passed}, epsilon >= {broken.bound:.2f}")

# %%
# The power check of a goodness-of-fit test on the Laplace mechanism's noise (scale 2).

x = laplace(np.zeros(20_000), sensitivity=1.0, epsilon=0.5, rng=1)
check = power_check(lambda f: ks_pvalue(x, stats.laplace(scale=2.0 * f)))
print(f"power check: passed={check.passed}")

fig, ax = plt.subplots(figsize=(6, 4))
t = np.linspace(-10, 10, 400)
ax.hist(x, bins=120, range=(-10, 10), density=True, color="#cccccc", label="noise drawn")
for f, style in [(1.0, "-"), (0.7, "--"), (1.3, ":")]:
    ax.plot(t, stats.laplace(scale=2.0 * f).pdf(t), style, label=f"Laplace, scale x {f}")
ax.set_xlabel("noise")
ax.set_title("The exact law fits; 30% off is rejected")
ax.legend()
fig.tight_layout()

"""
A private median of the warfarin doses
======================================

The exponential mechanism (McSherry and Talwar, FOCS 2007) picks a candidate with probability
proportional to ``exp(epsilon * u / (2 * sensitivity))``. For a median over a data-independent
grid the utility ``u(c) = -|2 #{i : y_i <= c} - n|`` changes by at most 2 when one record is
replaced, so ``sensitivity=2``. This example draws the private median of the IWPC warfarin
cohort's (z-scored) weekly doses many times at each epsilon and plots the error against the
non-private median: it decays like ``1 / (epsilon n)``.
"""

import matplotlib.pyplot as plt
import numpy as np

from privlearn.datasets import load_warfarin
from privlearn.mechanisms import exponential

dose = load_warfarin().y
n = len(dose)
grid = np.linspace(-4.0, 10.0, 1401)  # chosen without looking at the data
below = np.searchsorted(np.sort(dose), grid, side="right")
utility = -np.abs(2 * below - n)  # integer scores: sampled exactly

epsilons = np.array([0.003, 0.01, 0.03, 0.1, 0.3, 1.0])
draws = 200
errors = []
for k, eps in enumerate(epsilons):
    idx = exponential(utility, epsilon=eps, sensitivity=2, size=draws, rng=k)
    errors.append(np.abs(grid[idx] - np.median(dose)))
errors = np.array(errors)

# %%
# The median absolute error and its 90% quantile over the draws, against epsilon.

fig, ax = plt.subplots(figsize=(6, 4))
ax.loglog(epsilons, np.median(errors, axis=1), "o-", label="median error")
ax.loglog(epsilons, np.quantile(errors, 0.9, axis=1), "s--", label="90% quantile")
ax.axhline(grid[1] - grid[0], color="grey", lw=0.8, label="grid spacing")
ax.set_xlabel("epsilon")
ax.set_ylabel("|private median - median| (z-scored dose)")
ax.set_title(f"Exponential mechanism, n = {n}")
ax.legend()
fig.tight_layout()

print(f"non-private median: {np.median(dose):.3f}")
for eps, e in zip(epsilons, np.median(errors, axis=1)):
    print(f"epsilon {eps:<6}: median error {e:.4f}")

"""
Private linear regression that beats a constant
===============================================

:class:`~privlearn.learners.PrivateLinearRegression` fits an ``(epsilon, delta)``-DP linear
model (AdaSSP, Wang 2018), choosing its clipping bound privately. At ``epsilon = 1`` on the
warfarin data (3,000 training and 1,819 test patients) it is compared with the best constant
predictor and with ordinary least squares, over a few random splits. (The quick version of the
``practical-regression`` experiment, ``privlearn reproduce practical-regression --quick``, runs
the full comparison.)
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LinearRegression

from privlearn.datasets import load_warfarin
from privlearn.learners import PrivateLinearRegression

X, y = load_warfarin(return_X_y=True)
mse = {"constant (train mean)": [], "private, epsilon = 1": [], "least squares": []}
for seed in range(5):
    perm = np.random.default_rng(seed).permutation(len(y))
    tr, te = perm[:3000], perm[3000:]
    model = PrivateLinearRegression(epsilon=1.0, delta=1e-6, rng=seed).fit(X[tr], y[tr])
    mse["private, epsilon = 1"].append(np.mean((model.predict(X[te]) - y[te]) ** 2))
    mse["constant (train mean)"].append(np.mean((y[tr].mean() - y[te]) ** 2))
    ols = LinearRegression().fit(X[tr], y[tr])
    mse["least squares"].append(np.mean((ols.predict(X[te]) - y[te]) ** 2))

# %%
# Mean test MSE over the splits (lower is better); the bars show the range.

names = list(mse)
means = [np.mean(mse[k]) for k in names]
spread = np.array([[m - np.min(mse[k]), np.max(mse[k]) - m] for k, m in zip(names, means)]).T
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.barh(names, means, xerr=spread, color=["#bbbbbb", "#4477aa", "#228833"])
ax.set_xlabel("test MSE (z-scored weekly dose)")
ax.set_title("Warfarin: private regression at epsilon = 1")
fig.tight_layout()
for k, m in zip(names, means):
    print(f"{k:<24} {m:.3f}")

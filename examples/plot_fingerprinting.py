"""
A fingerprinting attack on multi-learners
=========================================

Bun, Nissim and Stemmer's lower bound for private multi-learning (Theorem 4.7) runs as an
attack: users' Tardos codewords become the labels of their rows, the learner's hypotheses
rounded form a pirate word, and tracing it accuses users. A non-private learner (column
majority) exposes a member almost every time; a differentially private learner can do so only
with probability at most ``e^epsilon xi + n delta``.
"""

import matplotlib.pyplot as plt

from privlearn.attacks import TardosCode, fingerprinting_attack, pirate
from privlearn.hypotheses import Points
from privlearn.multi import NonPrivateMultiLearner

res = fingerprinting_attack(NonPrivateMultiLearner(Points(domain_size=4)), trials=10, rng=0)
print(f"non-private learner: a member identified in {res.identified} of {res.trials} trials")

# %%
# The code behind it: a coalition of 10 of 1,000 users forges a word from its codewords, and
# the tracing scores single out the coalition.

code = TardosCode(n_users=1000, coalition_size=10, false_accusation=1e-3, rng=0)
coalition = [3, 14, 15, 92, 65, 358, 979, 323, 846, 264]
word = pirate(code, coalition, "majority", rng=0)
scores = code.scores(word)
accused = code.trace(word)
print(f"{code.length} positions; accused: {sorted(int(i) for i in accused)}")

fig, ax = plt.subplots(figsize=(6, 4))
ax.hist(scores, bins=60, color="#bbbbbb", label="all users")
ax.plot(scores[coalition], [1] * len(coalition), "rv", ms=8, label="coalition")
ax.set_xlabel("tracing score")
ax.set_ylabel("users")
ax.set_title("Tardos tracing of a majority-vote pirate word")
ax.legend()
fig.tight_layout()

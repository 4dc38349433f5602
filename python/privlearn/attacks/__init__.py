"""Attacks on learners and the primitives they rest on.

Fingerprinting codes (seed 002: Bun, Nissim and Stemmer, "Simultaneous private learning of
multiple concepts", §4): a coalition's codewords used as the labels of a multi-learner turn an
accurate learner's output into a *feasible* pirate word, and tracing that word identifies a
coalition member, which differential privacy forbids. :mod:`privlearn.attacks.codes` provides
the codes and the coalition strategies:

* :class:`TardosCode` (Tardos 2003, and the symmetric score of Škorić et al. 2008) and
  :func:`tardos_parameters`;
* :class:`BonehShawCode` (the robust variant of Boneh and Shaw 1998, compatible with
  thresholds) and :func:`boneh_shaw_parameters`;
* :func:`pirate` (the strategies in :data:`PIRATE_STRATEGIES`) and :func:`is_feasible` (the
  marking assumption).

Model inversion (seed 001: Wu et al., after Fredrikson et al., USENIX Security 2014):
:func:`model_inversion` (:mod:`privlearn.attacks.inversion`) infers a sensitive attribute
(VKORC1 on the warfarin data) from a released regression model and returns its accuracy.

Each kind of attack lives in its own submodule and is re-exported here.

:mod:`privlearn.attacks.multi_attack` runs seed 002's lower-bound reduction as an attack on a
multi-concept learner: :func:`fingerprinting_attack` (and :func:`distinguishing_point`).
"""

from __future__ import annotations

from . import codes, inversion, multi_attack
from .codes import *  # noqa: F401,F403  (the names of codes.__all__)
from .inversion import model_inversion  # noqa: F401  (in inversion.__all__)
from .multi_attack import *  # noqa: F401,F403  (the names of multi_attack.__all__)

__all__ = list(codes.__all__) + list(inversion.__all__) + list(multi_attack.__all__)

"""Private preprocessing: scikit-learn transformers whose fitted statistics are differentially
private, so that a pipeline of a private transformer and a private estimator releases nothing
about the training data beyond the composed guarantee of its steps.

Each transformer takes ``accountant=`` and ``rng=`` like the private learners of
:mod:`privlearn.learners`, charges one fit as one ledger entry, states its guarantee in its
docstring (replace-one neighbours, ``n`` public) and answers
``privacy_guarantee(n_samples)`` (the certified-release protocol of the learners).

* :class:`StandardScaler`: private mean and standard deviation per feature, from declared
  per-feature bounds (Laplace or Gaussian mechanism).
* :class:`MinMaxScaler` and :class:`RobustScaler`: private per-feature quantiles (exponential
  mechanism on a public grid inside declared bounds) as the minimum / maximum, or the median
  and interquantile range.
* :class:`Clipper`: clips every row to an L2-norm bound (and provides a label bound), each
  declared or released as a private quantile (exponential mechanism on a public grid).
* :class:`PCA`: private principal components (Analyze Gauss: the second-moment matrix of the
  centred rows clipped to a declared norm, with symmetric Gaussian noise; zCDP calibration).
"""

from __future__ import annotations

from ._clipper import Clipper
from ._pca import PCA
from ._quantile_scalers import MinMaxScaler, RobustScaler
from ._scaler import StandardScaler

__all__ = ["Clipper", "MinMaxScaler", "PCA", "RobustScaler", "StandardScaler"]

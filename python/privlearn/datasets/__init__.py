"""Built-in data sets.

:func:`load_warfarin` loads the IWPC warfarin cohort (4,819 patients) shipped with privlearn, so
that the tests, the examples and ``privlearn reproduce`` need nothing from outside the package.
:func:`make_concept_sample` draws synthetic samples labelled by concepts of every hypothesis
class of :mod:`privlearn.hypotheses` (see :mod:`privlearn.datasets.synthetic`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, List, Literal, Tuple, Union, overload

import numpy as np

from .synthetic import ConceptSample, make_concept_sample, random_concept, sample_points

__all__ = [
    "Dataset",
    "load_warfarin",
    "ConceptSample",
    "make_concept_sample",
    "random_concept",
    "sample_points",
]

_PACKAGE = "privlearn.datasets"
_CSV_NAME = "iwpc-scaled.csv"
_LICENSE_NAME = "iwpc-scaled.LICENSE"

_RAW_COLUMNS = ("race", "age", "height", "weight", "amiodarone", "decr", "cyp2c9", "vkorc1", "dose")
_STRING_COLUMNS = ("race", "cyp2c9", "vkorc1")
_NUMERIC_FEATURES = ("age", "height", "weight", "amiodarone", "decr")

# (raw column, reference level, one-hot levels in feature order). The reference level of each
# categorical is encoded as all zeros in its block.
_CATEGORICALS: Tuple[Tuple[str, str, Tuple[str, ...]], ...] = (
    ("race", "white", ("asian", "black")),
    ("cyp2c9", "11", ("12", "13", "22", "23", "33")),
    ("vkorc1", "CC", ("CT", "TT")),
)

_FEATURE_NAMES: Tuple[str, ...] = _NUMERIC_FEATURES + tuple(
    f"{col}_{level}" for col, _ref, levels in _CATEGORICALS for level in levels
)

_DESCR = """\
IWPC warfarin dosing data (scaled)
==================================

4,819 patients of the International Warfarin Pharmacogenetics Consortium (IWPC), as preprocessed
and scaled in the public repository samuel-yeom/ml-privacy-csf18 (file data/iwpc-scaled.csv,
commit 7b302fb, MIT License, copyright (c) 2019 Samuel Yeom; the licence text ships beside the
data and is in ``Dataset.license``). The underlying data come from PharmGKB's IWPC release.
privlearn ships an unmodified copy as privlearn/datasets/data/iwpc-scaled.csv.

Raw columns (``Dataset.frame``)
-------------------------------
race        categorical: white, asian, black
age         scaled numeric (age decade, z-scored)
height      scaled numeric (z-scored)
weight      scaled numeric (z-scored)
amiodarone  0/1: takes amiodarone
decr        0/1: takes an enzyme inducer
cyp2c9      CYP2C9 genotype code: 11, 12, 13, 22, 23, 33 (e.g. 13 = *1/*3)
vkorc1      VKORC1 genotype: CC, CT, TT
dose        stable weekly warfarin dose, z-scored (the regression target)

Encoding (``Dataset.X``, d = 14)
--------------------------------
The five numerics as they are, then one-hot blocks with one reference level per categorical
(the reference level is the all-zeros row of its block):

columns 0-4    age, height, weight, amiodarone, decr
columns 5-6    race_asian, race_black                                   (reference: white)
columns 7-11   cyp2c9_12, cyp2c9_13, cyp2c9_22, cyp2c9_23, cyp2c9_33    (reference: 11)
columns 12-13  vkorc1_CT, vkorc1_TT                                     (reference: CC)

This is the d = 14 encoding of Wu et al. and of Fredrikson et al.'s model-inversion attack on
VKORC1: a patient's VKORC1 genotype is CC when columns 12 and 13 are both 0, CT when column 12 is
1, TT when column 13 is 1. The most common genotype, CT, covers 36.4% of the patients (the
prior-guess baseline of that attack).

Counts: race white 2,900 / asian 1,462 / black 457; amiodarone 230; enzyme inducer 47;
VKORC1 CC 1,435 / CT 1,756 / TT 1,628; CYP2C9 11 3,630 / 12 643 / 13 430 / 22 41 / 23 60 / 33 15.

The file is a stand-in for the exact IWPC train/test split of the papers, which is not public.
"""


@dataclass(frozen=True, eq=False)
class Dataset:
    """A data set with its design matrix, target, raw columns and provenance.

    Attributes
    ----------
    X : numpy.ndarray of float64, shape (n_samples, n_features)
        The encoded features.
    y : numpy.ndarray of float64, shape (n_samples,)
        The regression target.
    feature_names : list of str
        Names of the columns of ``X``, in order.
    frame : dict of str to numpy.ndarray
        The raw columns of the source file, by name (categoricals as ``str`` arrays).
    target_name : str
        Name of the target column.
    DESCR : str
        Description: provenance, licence, columns and encoding.
    license : str
        The text of the data's licence.
    """

    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    feature_names: List[str] = field(repr=False)
    frame: Dict[str, np.ndarray] = field(repr=False)
    target_name: str
    DESCR: str = field(repr=False)
    license: str = field(repr=False)

    def __repr__(self) -> str:
        n, d = self.X.shape
        return f"Dataset(n_samples={n}, n_features={d}, target_name={self.target_name!r})"


def _read_resource(name: str) -> str:
    from importlib.resources import files

    return (files(_PACKAGE) / "data" / name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _load_warfarin_cached() -> Tuple[np.ndarray, np.ndarray, Dict[str, np.ndarray], str]:
    """Parse the packaged CSV once; the arrays returned are read-only (callers get copies)."""
    reader = csv.reader(io.StringIO(_read_resource(_CSV_NAME)))
    header = next(reader)
    if tuple(header) != _RAW_COLUMNS:
        raise RuntimeError(f"{_CSV_NAME}: unexpected header {header!r}")
    rows = [row for row in reader if row]
    columns = list(zip(*rows))
    frame: Dict[str, np.ndarray] = {}
    for name, values in zip(_RAW_COLUMNS, columns):
        if name in _STRING_COLUMNS:
            frame[name] = np.array(values, dtype=str)
        else:
            frame[name] = np.array(values, dtype=np.float64)

    n = len(rows)
    blocks = [frame[name].reshape(n, 1) for name in _NUMERIC_FEATURES]
    for name, reference, levels in _CATEGORICALS:
        known = set(levels) | {reference}
        unknown = sorted(set(frame[name].tolist()) - known)
        if unknown:
            raise RuntimeError(f"{_CSV_NAME}: unexpected {name} levels {unknown!r}")
        blocks.append((frame[name][:, None] == np.array(levels)[None, :]).astype(np.float64))
    X = np.hstack(blocks)
    y = frame["dose"].copy()

    license_text = _read_resource(_LICENSE_NAME)
    for arr in (X, y, *frame.values()):
        arr.setflags(write=False)
    return X, y, frame, license_text


@overload
def load_warfarin(*, return_X_y: Literal[False] = ...) -> Dataset: ...


@overload
def load_warfarin(*, return_X_y: Literal[True]) -> Tuple[np.ndarray, np.ndarray]: ...


def load_warfarin(*, return_X_y: bool = False) -> Union[Dataset, Tuple[np.ndarray, np.ndarray]]:
    """Load the IWPC warfarin dosing data (4,819 patients, 14 features, regression).

    The data of the International Warfarin Pharmacogenetics Consortium as preprocessed and scaled
    in samuel-yeom/ml-privacy-csf18 (MIT License; see ``Dataset.DESCR`` and ``Dataset.license``),
    shipped inside privlearn. The target is the stable weekly warfarin dose, z-scored.

    Features (columns of ``X``, in this order)::

        0 age         1 height      2 weight      3 amiodarone  4 decr
        5 race_asian  6 race_black                                 (reference: race = white)
        7 cyp2c9_12   8 cyp2c9_13   9 cyp2c9_22  10 cyp2c9_23  11 cyp2c9_33  (reference: 11)
        12 vkorc1_CT  13 vkorc1_TT                                 (reference: vkorc1 = CC)

    ``age``, ``height`` and ``weight`` are scaled numerics; ``amiodarone`` and ``decr`` (enzyme
    inducer) are 0/1. Each categorical is one-hot encoded with one reference level, whose rows are
    all zeros in the block: VKORC1 is CC when ``vkorc1_CT`` and ``vkorc1_TT`` are both 0.

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(X, y)`` instead of a :class:`Dataset`.

    Returns
    -------
    Dataset or tuple of numpy.ndarray
        ``Dataset`` with ``X`` (float64, shape (4819, 14)), ``y`` (float64, shape (4819,)),
        ``feature_names``, ``frame`` (the raw columns: ``race``, ``cyp2c9`` and ``vkorc1`` as str
        arrays, the others float64), ``target_name = "dose"``, ``DESCR`` and ``license``; or
        ``(X, y)``. Every call returns fresh, writable copies.

    Examples
    --------
    >>> from privlearn.datasets import load_warfarin
    >>> data = load_warfarin()
    >>> data.X.shape
    (4819, 14)
    >>> data.feature_names[12:]
    ['vkorc1_CT', 'vkorc1_TT']
    """
    X, y, frame, license_text = _load_warfarin_cached()
    if return_X_y:
        return X.copy(), y.copy()
    return Dataset(
        X=X.copy(),
        y=y.copy(),
        feature_names=list(_FEATURE_NAMES),
        frame={name: col.copy() for name, col in frame.items()},
        target_name="dose",
        DESCR=_DESCR,
        license=license_text,
    )

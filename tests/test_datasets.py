"""privlearn.datasets.load_warfarin: shape, encoding, counts, copies, provenance."""

from __future__ import annotations

import numpy as np
import pytest

from privlearn.datasets import Dataset, load_warfarin

FEATURES = [
    "age",
    "height",
    "weight",
    "amiodarone",
    "decr",
    "race_asian",
    "race_black",
    "cyp2c9_12",
    "cyp2c9_13",
    "cyp2c9_22",
    "cyp2c9_23",
    "cyp2c9_33",
    "vkorc1_CT",
    "vkorc1_TT",
]


@pytest.fixture(scope="module")
def data() -> Dataset:
    return load_warfarin()


def test_shape_and_dtypes(data):
    assert data.X.shape == (4819, 14)
    assert data.y.shape == (4819,)
    assert data.X.dtype == np.float64 and data.y.dtype == np.float64
    assert np.all(np.isfinite(data.X)) and np.all(np.isfinite(data.y))
    assert data.target_name == "dose"


def test_feature_names_and_order(data):
    assert data.feature_names == FEATURES


def test_frame_columns_and_types(data):
    assert set(data.frame) == {
        "race",
        "age",
        "height",
        "weight",
        "amiodarone",
        "decr",
        "cyp2c9",
        "vkorc1",
        "dose",
    }
    for name in ("race", "cyp2c9", "vkorc1"):
        assert data.frame[name].dtype.kind == "U", name
    for name in ("age", "height", "weight", "amiodarone", "decr", "dose"):
        assert data.frame[name].dtype == np.float64, name
    assert all(col.shape == (4819,) for col in data.frame.values())


def test_category_counts_match_the_readme(data):
    race = data.frame["race"]
    assert (race == "white").sum() == 2900
    assert (race == "asian").sum() == 1462
    assert (race == "black").sum() == 457
    assert data.frame["amiodarone"].sum() == 230
    assert data.frame["decr"].sum() == 47
    vkorc1 = data.frame["vkorc1"]
    assert (vkorc1 == "CT").sum() == 1756
    assert (vkorc1 == "TT").sum() == 1628
    assert (vkorc1 == "CC").sum() == 1435
    assert round(100 * np.mean(vkorc1 == "CT"), 1) == 36.4
    assert set(np.unique(data.frame["cyp2c9"])) == {"11", "12", "13", "22", "23", "33"}


def test_numeric_columns_are_the_raw_ones(data):
    for j, name in enumerate(["age", "height", "weight", "amiodarone", "decr"]):
        np.testing.assert_array_equal(data.X[:, j], data.frame[name])
    np.testing.assert_array_equal(data.y, data.frame["dose"])
    # The file's numerics and target are z-scored.
    assert abs(data.y.mean()) < 1e-3 and abs(data.y.std() - 1) < 1e-3


@pytest.mark.parametrize(
    "raw, reference, levels",
    [
        ("race", "white", ["asian", "black"]),
        ("cyp2c9", "11", ["12", "13", "22", "23", "33"]),
        ("vkorc1", "CC", ["CT", "TT"]),
    ],
)
def test_one_hot_blocks_match_the_frame(data, raw, reference, levels):
    cols = [data.feature_names.index(f"{raw}_{level}") for level in levels]
    block = data.X[:, cols]
    assert set(np.unique(block)) <= {0.0, 1.0}
    assert np.all(block.sum(axis=1) <= 1)
    for k, level in enumerate(levels):
        np.testing.assert_array_equal(block[:, k] == 1, data.frame[raw] == level)
    # The reference level is exactly the all-zeros rows of the block.
    np.testing.assert_array_equal(block.sum(axis=1) == 0, data.frame[raw] == reference)


def test_vkorc1_decodes_from_the_one_hot_block(data):
    ct = data.X[:, data.feature_names.index("vkorc1_CT")]
    tt = data.X[:, data.feature_names.index("vkorc1_TT")]
    decoded = np.where(ct == 1, "CT", np.where(tt == 1, "TT", "CC"))
    np.testing.assert_array_equal(decoded, data.frame["vkorc1"])


def test_return_X_y():
    X, y = load_warfarin(return_X_y=True)
    full = load_warfarin()
    np.testing.assert_array_equal(X, full.X)
    np.testing.assert_array_equal(y, full.y)


def test_copies_are_independent():
    first = load_warfarin()
    X0 = first.X.copy()
    first.X[:] = -99.0
    first.y[:] = -99.0
    first.frame["vkorc1"][:] = "XX"
    first.feature_names.append("junk")
    X, y = load_warfarin(return_X_y=True)
    X[:] = 7.0
    second = load_warfarin()
    np.testing.assert_array_equal(second.X, X0)
    assert not np.any(second.y == -99.0)
    assert (second.frame["vkorc1"] == "CT").sum() == 1756
    assert second.feature_names == FEATURES
    assert second.X.flags.writeable and second.y.flags.writeable


def test_dataset_is_frozen(data):
    with pytest.raises(AttributeError):
        data.X = None  # type: ignore[misc]


def test_license_and_description(data):
    assert data.license.startswith("MIT License")
    assert "Samuel Yeom" in data.license
    for needle in (
        "4,819",
        "ml-privacy-csf18",
        "7b302fb",
        "MIT",
        "PharmGKB",
        "vkorc1_CT",
        "reference",
    ):
        assert needle in data.DESCR, needle
    assert "4819" in repr(data) and "14" in repr(data)

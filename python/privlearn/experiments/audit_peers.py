"""Audit peer libraries' mechanisms and models at their claimed privacy (issue 21).

Registered as ``audit-peers``. Each *case* is a mechanism on datasets (rows of numbers inside
declared bounds) with the privacy its library claims for it. The case is audited with
:func:`privlearn.audit.search_neighbours`: every candidate pair of replace-one neighbouring
datasets of the search's family (the extremes of the declared bounds, per-column extremes and
corners, duplicated rows, seeded random pairs) is audited on a few *pilot* samples, and the worst
pair is audited again on fresh samples by :func:`privlearn.audit.audit`. A bound above the claim
refutes it with confidence ``1 - alpha`` (``alpha = 1e-3`` per case): the pilot and the final
samples are independent, so the choice of the pair does not bias the final verdict. A bound
below the claim proves nothing (a finite family of pairs, finitely many samples).

Cases (each a replace-one claim; the query's sensitivity is declared to the library):

* **privlearn (controls, always run; they must pass)**: :func:`~privlearn.mechanisms.laplace`,
  :func:`~privlearn.mechanisms.gaussian` and :func:`~privlearn.mechanisms.exponential` on column
  sums of data in ``[0, 1]`` (sensitivity 1); :class:`~privlearn.learners.PrivateLinearRegression`
  (pure and ``(epsilon, delta)``) and :class:`~privlearn.learners.PrivateLogisticRegression` on
  one feature and a label in ``[0, 1]``.
* **diffprivlib** (optional): ``Laplace`` (pure and relaxed ``delta > 0``), ``Gaussian``
  (classical calibration, ``epsilon <= 1``), ``GaussianAnalytic``, ``Exponential`` on the same
  sums; ``LinearRegression`` with ``bounds_X = bounds_y = (0, 1)`` (a lower bound of 0) with and
  without an intercept; ``LogisticRegression`` with ``data_norm = 1``, on private labels and on
  private rows next to two public rows (one of each class).
* **OpenDP** (optional): ``make_laplace`` and ``make_gaussian`` on ``f64`` and ``i64`` atoms
  (``dp.enable_features("contrib")``); the Gaussian's zCDP claim is converted to
  ``(epsilon, delta)`` by OpenDP's own ``make_zCDP_to_approxDP``.

Models cost one fit per sample (milliseconds, and up to a second for diffprivlib's linear
regression when its optimiser diverges), so their audits use a few hundred to a few thousand
samples and the first pairs of the family only: they have much less power than the mechanisms'
(10^5 samples per side) and can refute only gross violations. The report says so per row.

Outputs are made finite before they are counted (``nan`` and ``+-inf`` become fixed values far
outside every other output), and model coefficients are compressed with ``arcsinh`` (monotone,
so the threshold events are the same).

Peers are optional, benchmark-only dependencies (``pip install privlearn[bench]``): a peer that
does not import is skipped and the report says so. OpenDP draws from its own generator, so its
rows are not reproducible from the seed; everything else is.
"""

from __future__ import annotations

import importlib
import math
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..random import spawn_seeds
from ._framework import ExperimentResult, RunConfig, Table, register

NAME = "audit-peers"
ALPHA = 1e-3
ROWS = 10
# Final and pilot samples per side: (full, quick).
N_MECHANISM = (200_000, 20_000)
PILOT_MECHANISM = (20_000, 2_000)
N_MODEL = (1_000, 300)
PILOT_MODEL = (200, 50)
# diffprivlib's LinearRegression: (n full, n quick, pilot full, pilot quick); its optimiser
# diverges on the worst pairs and then takes up to a second per fit.
N_DIVERGING = (250, 100, 40, 20)
# With an intercept the optimiser diverges on about half of the fits on the worst dataset; the
# automatic events need about 1000 samples per side to pick that event on their 10% selection
# split (at 250 the bound was 0.905, below the claim).
N_DIVERGING_INTERCEPT = (1_000, 100, 40, 20)
# Slow models: the first pairs of the search's family only (the extremes of the bounds).
MODEL_PAIRS = 4
# Finite stand-ins for non-finite outputs (after arcsinh every finite double is below 711).
_NAN_VALUE = 1000.0
_INF_VALUE = 900.0


# --------------------------------------------------------------------------------------------
# Cases and peers
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One mechanism or model with its library's claim.

    ``mechanism(data, rng, size)`` returns ``size`` outputs on ``data`` (rows, columns), with
    ``rng`` a :class:`numpy.random.Generator`. ``model`` marks a slow per-fit sampler (fewer
    samples, :data:`MODEL_PAIRS` pairs); ``samples`` overrides the sample sizes as ``(n full,
    n quick, pilot full, pilot quick)``; ``statistic`` and ``distinguisher`` go to the audit.
    ``refutation`` explains (by source reading) why the claim fails, for the report when the
    audit refutes it.
    """

    peer: str
    name: str
    claim: str
    claimed: Any
    lower: Any
    upper: Any
    mechanism: Callable[..., Any]
    rows: int = ROWS
    columns: int = 1
    integer: bool = False
    statistic: Optional[Callable[[np.ndarray], Any]] = None
    model: bool = False
    samples: Optional[Tuple[int, int, int, int]] = None
    distinguisher: Optional[str] = None
    refutation: str = ""


@dataclass(frozen=True)
class Peer:
    """A library under audit: the modules that must import, its version and its cases."""

    name: str
    modules: Tuple[str, ...]
    version: Callable[[], str]
    cases: Callable[[], List[Case]]
    control: bool = False
    notes: List[str] = field(default_factory=list)


def _finite(values: Any) -> np.ndarray:
    """Outputs as finite floats: arcsinh (monotone), ``nan`` and ``+-inf`` mapped far out."""
    x = np.asarray(values, dtype=float)
    with np.errstate(all="ignore"):
        y = np.arcsinh(x)
    y = np.where(np.isnan(x), _NAN_VALUE, y)
    y = np.where(np.isposinf(x), _INF_VALUE, y)
    return np.where(np.isneginf(x), -_INF_VALUE, y)


def _first_column(outputs: np.ndarray) -> np.ndarray:
    """The statistic of model outputs: the size of the (finite, compressed) first coefficient,
    ``|arcsinh(coef_0)|`` (fixed before any sample is drawn; a diverging fit lands far out on
    one side whatever its sign)."""
    arr = np.asarray(outputs, dtype=float)
    return np.abs(arr[:, 0] if arr.ndim == 2 else arr)


def _per_call(one: Callable[[np.ndarray, np.random.Generator], Any]) -> Callable[..., Any]:
    """A vectorised mechanism from a one-output sampler ``one(data, g)``."""

    def mechanism(data: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        out = [one(data, rng) for _ in range(size)]
        return np.asarray(out)

    return mechanism


def _legacy_seed(g: np.random.Generator) -> int:
    return int(g.integers(2**32))


def _version(dist: str) -> str:
    from importlib.metadata import version

    try:
        return version(dist)
    except Exception:  # pragma: no cover - metadata missing
        return "unknown"


# ---- privlearn (controls) ------------------------------------------------------------------


def _privlearn_cases() -> List[Case]:
    from .. import mechanisms as M
    from ..learners import PrivateLinearRegression, PrivateLogisticRegression

    def laplace(data: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        total = float(data[:, 0].sum())
        return np.asarray(M.laplace(np.full(size, total), 1.0, 1.0, rng=rng), dtype=float)

    def gaussian(data: np.ndarray, g: np.random.Generator) -> float:
        return float(M.gaussian(float(data[:, 0].sum()), 1.0, 1.0, 1e-5, rng=g))

    def exponential(data: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        return np.asarray(M.exponential(data.sum(axis=0), 1.0, 1.0, size=size, rng=rng))

    def linear(delta: float) -> Callable[[np.ndarray, np.random.Generator], np.ndarray]:
        def fit(data: np.ndarray, g: np.random.Generator) -> np.ndarray:
            model = PrivateLinearRegression(1.0, delta=delta, bounds=(1.0, 1.0), rng=g)
            model.fit(data[:, :1], data[:, 1])
            return _finite(np.r_[np.ravel(model.coef_), model.intercept_])

        return fit

    def logistic(data: np.ndarray, g: np.random.Generator) -> np.ndarray:
        model = PrivateLogisticRegression(1.0, delta=0.0, bounds=1.0, classes=(0, 1), rng=g)
        model.fit(data[:, :1], (data[:, 1] > 0.5).astype(int))
        return _finite(np.r_[np.ravel(model.coef_), np.ravel(model.intercept_)])

    sums = "sum of a column in [0, 1], sensitivity 1"
    return [
        Case("privlearn", "laplace", "eps=1 (" + sums + ")", 1.0, 0.0, 1.0, laplace),
        Case(
            "privlearn",
            "gaussian (analytic)",
            "(eps, delta)=(1, 1e-5) (" + sums + ")",
            (1.0, 1e-5),
            0.0,
            1.0,
            _per_call(gaussian),
        ),
        Case(
            "privlearn",
            "exponential",
            "eps=1 (scores: 3 column sums, sensitivity 1)",
            1.0,
            0.0,
            1.0,
            exponential,
            rows=ROWS,
            columns=3,
        ),
        Case(
            "privlearn",
            "PrivateLinearRegression (AdaSSP, Laplace)",
            "eps=1, delta=0; bounds (data_norm, label_bound)=(1, 1)",
            1.0,
            0.0,
            1.0,
            _per_call(linear(0.0)),
            statistic=_first_column,
            model=True,
            columns=2,
        ),
        Case(
            "privlearn",
            "PrivateLinearRegression (AdaSSP, Gaussian)",
            "(eps, delta)=(1, 1e-5); bounds (1, 1)",
            (1.0, 1e-5),
            0.0,
            1.0,
            _per_call(linear(1e-5)),
            statistic=_first_column,
            model=True,
            columns=2,
        ),
        Case(
            "privlearn",
            "PrivateLogisticRegression (objective perturbation)",
            "eps=1, delta=0; data_norm=1, classes=(0, 1) declared; label = y > 0.5",
            1.0,
            0.0,
            1.0,
            _per_call(logistic),
            distinguisher="boosting",
            model=True,
            columns=2,
        ),
    ]


# ---- diffprivlib ---------------------------------------------------------------------------

_DPL_LINEAR = (
    "diffprivlib/models/linear_regression.py (0.6.6), `_construct_regression_obj`, line 144: "
    "the sensitivity of each diagonal coefficient sum_i x_ij^2 is "
    "`np.max(np.abs([bounds_X[0][i], bounds_X[0][i]])) ** 2`, the LOWER bound twice (the upper "
    "bound is never read). With fit_intercept=True the bounds passed there are shifted by the "
    "noisy mean (lines 302-303: bounds_X - X_offset), and the mean is a LaplaceTruncated release "
    "clipped to [lower, upper] (tools/utils.py `_mean`), so when the rows sit at the lower bound "
    "the offset is exactly the lower bound with probability about 1/2, the shifted lower bound "
    "is 0 and the noise scale of sum_i (x_i - offset)^2 is 0: it is released exactly. Its true "
    "replace-one sensitivity is max over the shifted box of t^2 = max((l-o)^2, (u-o)^2) = 1 here "
    "(l=0, u=1, o=0). On the worst pair (all x = 0 against one x = 1) the exact quadratic term is "
    "0 on one side (the objective -2 b w has no minimum: the optimiser diverges, |coef| ~ 1e152) "
    "and 1 on the other (a finite fit): an event of probability ~1/2 against ~0, so no finite "
    "epsilon holds. Without an intercept (no shift) the bound used is lower^2 = 0 for bounds "
    "(0, 1), so sum_i x_i^2 is always released without noise."
)

_DPL_LOGISTIC_CLASSES = (
    "diffprivlib/models/logistic_regression.py (0.6.6), `fit`: `self.classes_ = np.unique(y)` "
    "reads the classes from the private labels, and a dataset whose labels are all one class "
    "raises ValueError('This solver needs samples of at least 2 classes...'). Replacing one row "
    "turns a one-class dataset into a two-class one, so whether the fit succeeds (and "
    "`classes_`) is a deterministic function of one row: epsilon = infinity on that pair. "
    "(privlearn declares the classes: `classes=`.)"
)


def _diffprivlib_cases() -> List[Case]:
    import diffprivlib.mechanisms as dm
    from diffprivlib.models import LinearRegression, LogisticRegression

    def scalar(factory: Callable[[], Any]) -> Callable[..., Any]:
        def mechanism(data: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
            mech = factory()
            mech.random_state = None
            mech._rng = np.random.RandomState(_legacy_seed(rng))
            total = float(data[:, 0].sum())
            return np.fromiter((mech.randomise(total) for _ in range(size)), float, size)

        return mechanism

    def exponential(data: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
        mech = dm.Exponential(
            epsilon=1.0,
            sensitivity=1.0,
            utility=[float(v) for v in data.sum(axis=0)],
            random_state=_legacy_seed(rng),
        )
        return np.fromiter((mech.randomise() for _ in range(size)), np.int64, size)

    def linear(fit_intercept: bool) -> Callable[[np.ndarray, np.random.Generator], np.ndarray]:
        def fit(data: np.ndarray, g: np.random.Generator) -> np.ndarray:
            model = LinearRegression(
                epsilon=1.0,
                bounds_X=(0.0, 1.0),
                bounds_y=(0.0, 1.0),
                fit_intercept=fit_intercept,
                random_state=_legacy_seed(g),
            )
            model.fit(data[:, :1], data[:, 1])
            return _finite(np.r_[np.ravel(model.coef_), model.intercept_])

        return fit

    def logistic(anchors: bool) -> Callable[[np.ndarray, np.random.Generator], np.ndarray]:
        def fit(data: np.ndarray, g: np.random.Generator) -> np.ndarray:
            X = data[:, :1]
            y = (data[:, 1] > 0.5).astype(int)
            if anchors:  # two public rows, one of each class
                X = np.vstack([X, [[0.0], [0.0]]])
                y = np.r_[y, 0, 1]
            model = LogisticRegression(epsilon=1.0, data_norm=1.0, random_state=_legacy_seed(g))
            try:
                model.fit(X, y)
            except ValueError:  # a one-class dataset: the failure is an output too
                return _finite([math.nan, math.nan])
            return _finite(np.r_[np.ravel(model.coef_), np.ravel(model.intercept_)])

        return fit

    sums = "sum of a column in [0, 1], sensitivity 1"
    return [
        Case(
            "diffprivlib",
            "Laplace",
            "eps=1 (" + sums + ")",
            1.0,
            0.0,
            1.0,
            scalar(lambda: dm.Laplace(epsilon=1.0, sensitivity=1.0)),
        ),
        Case(
            "diffprivlib",
            "Laplace (relaxed, delta > 0)",
            "(eps, delta)=(1, 0.1) (scale 1/(eps - ln(1 - delta)); " + sums + ")",
            (1.0, 0.1),
            0.0,
            1.0,
            scalar(lambda: dm.Laplace(epsilon=1.0, delta=0.1, sensitivity=1.0)),
        ),
        Case(
            "diffprivlib",
            "Gaussian (classical)",
            "(eps, delta)=(1, 1e-5) (sigma = sqrt(2 ln(1.25/delta))/eps; " + sums + ")",
            (1.0, 1e-5),
            0.0,
            1.0,
            scalar(lambda: dm.Gaussian(epsilon=1.0, delta=1e-5, sensitivity=1.0)),
        ),
        Case(
            "diffprivlib",
            "GaussianAnalytic",
            "(eps, delta)=(2, 1e-5) (" + sums + ")",
            (2.0, 1e-5),
            0.0,
            1.0,
            scalar(lambda: dm.GaussianAnalytic(epsilon=2.0, delta=1e-5, sensitivity=1.0)),
        ),
        Case(
            "diffprivlib",
            "Exponential",
            "eps=1 (utility: 3 column sums, sensitivity 1)",
            1.0,
            0.0,
            1.0,
            exponential,
            columns=3,
        ),
        Case(
            "diffprivlib",
            "LinearRegression (fit_intercept=True)",
            "eps=1; bounds_X=(0, 1), bounds_y=(0, 1)",
            1.0,
            0.0,
            1.0,
            _per_call(linear(True)),
            statistic=_first_column,
            model=True,
            samples=N_DIVERGING_INTERCEPT,
            refutation=_DPL_LINEAR,
            columns=2,
        ),
        Case(
            "diffprivlib",
            "LinearRegression (fit_intercept=False)",
            "eps=1; bounds_X=(0, 1), bounds_y=(0, 1)",
            1.0,
            0.0,
            1.0,
            _per_call(linear(False)),
            statistic=_first_column,
            model=True,
            samples=N_DIVERGING,
            refutation=_DPL_LINEAR,
            columns=2,
        ),
        Case(
            "diffprivlib",
            "LogisticRegression (two public rows, one per class)",
            "eps=1; data_norm=1; label = y > 0.5",
            1.0,
            0.0,
            1.0,
            _per_call(logistic(True)),
            distinguisher="boosting",
            model=True,
            columns=2,
        ),
        Case(
            "diffprivlib",
            "LogisticRegression (labels all private)",
            "eps=1; data_norm=1; label = y > 0.5",
            1.0,
            0.0,
            1.0,
            _per_call(logistic(False)),
            distinguisher="boosting",
            model=True,
            refutation=_DPL_LOGISTIC_CLASSES,
            columns=2,
        ),
    ]


# ---- OpenDP --------------------------------------------------------------------------------


def _opendp_cases() -> List[Case]:
    import opendp.prelude as dp

    dp.enable_features("contrib")
    delta = 1e-5

    def measurement(kind: str, T: type, size: Optional[int], scale: float) -> Any:
        atom = dp.atom_domain(T=T, nan=False) if T is float else dp.atom_domain(T=T)
        if size is None:
            domain, metric = atom, dp.absolute_distance(T=T)
        else:
            domain = dp.vector_domain(atom, size=size)
            metric = (dp.l1_distance if kind == "laplace" else dp.l2_distance)(T=T)
        make = dp.m.make_laplace if kind == "laplace" else dp.m.make_gaussian
        return make(domain, metric, scale=scale)

    def sampler(kind: str, T: type, scale: float) -> Callable[..., Any]:
        cache: Dict[int, Any] = {}

        def mechanism(data: np.ndarray, rng: np.random.Generator, size: int) -> np.ndarray:
            # One vector release of `size` copies of the query: OpenDP adds independent noise
            # from the same sampler to each coordinate, so each coordinate is one output of
            # the scalar measurement (whose map gives the claim).
            if size not in cache:
                cache[size] = measurement(kind, T, size, scale)
            total = T(round(data[:, 0].sum())) if T is int else float(data[:, 0].sum())
            return np.asarray(cache[size]([total] * size), dtype=float)

        return mechanism

    cases = []
    for T, label in ((float, "f64"), (int, "i64")):
        lap = measurement("laplace", T, None, 1.0)
        eps_lap = float(lap.map(T(1)))
        cases.append(
            Case(
                "opendp",
                f"make_laplace ({label}, scale 1)",
                f"eps={eps_lap:g} (measurement.map(1); query: sum of a column in [0, 1])",
                eps_lap,
                0.0,
                1.0,
                sampler("laplace", T, 1.0),
                integer=T is int,
            )
        )
        gauss = measurement("gaussian", T, None, 2.0)
        rho = float(gauss.map(T(1)))
        approx = dp.c.make_zCDP_to_approxDP(gauss)
        eps_g = float(approx.map(T(1)).epsilon(delta))
        cases.append(
            Case(
                "opendp",
                f"make_gaussian ({label}, scale 2)",
                f"rho={rho:g}-zCDP -> (eps, delta)=({eps_g:.4g}, {delta:g}) by "
                "make_zCDP_to_approxDP",
                (eps_g, delta),
                0.0,
                1.0,
                sampler("gaussian", T, 2.0),
                integer=T is int,
            )
        )
    return cases


def _privlearn_version() -> str:
    from .. import __version__

    return str(__version__)


def _peers() -> List[Peer]:
    return [
        Peer("privlearn", (), _privlearn_version, _privlearn_cases, control=True),
        Peer(
            "diffprivlib",
            ("diffprivlib", "diffprivlib.models"),
            lambda: _version("diffprivlib"),
            _diffprivlib_cases,
        ),
        Peer("opendp", ("opendp.prelude",), lambda: _version("opendp"), _opendp_cases),
    ]


# Replaced by tests (a fake peer); `run` reads it at call time.
PEERS: Callable[[], List[Peer]] = _peers


def _missing(peer: Peer) -> Optional[str]:
    """Why ``peer`` cannot run (an import error), or ``None``."""
    for module in peer.modules:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                importlib.import_module(module)
        except Exception as exc:  # ImportError, or a peer broken by its dependencies
            return f"{type(exc).__name__}: {exc}".splitlines()[0]
    return None


# --------------------------------------------------------------------------------------------
# Running a case
# --------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """A case's audit: the search's verdict, or why it did not run."""

    case: Case
    n: int = 0
    pair: str = ""
    quantity: str = "epsilon"
    bound: float = math.nan
    claimed_value: float = math.nan
    passed: Optional[bool] = None
    event: str = ""
    pilot: Tuple[Tuple[str, float], ...] = ()
    error: str = ""

    @property
    def verdict(self) -> str:
        if self.error:
            return "error: " + self.error
        return "passed" if self.passed else "REFUTED"


def _sizes(case: Case, quick: bool) -> Tuple[int, int]:
    i = 1 if quick else 0
    if case.samples is not None:
        return case.samples[i], case.samples[2 + i]
    if case.model:
        return N_MODEL[i], PILOT_MODEL[i]
    return N_MECHANISM[i], PILOT_MECHANISM[i]


def audit_case(case: Case, *, quick: bool, seed: Any) -> Outcome:
    """Run the neighbour search on one case; errors of the mechanism become the outcome."""
    from ..audit import _neighbours as nb

    n, pilot_n = _sizes(case, quick)
    domain = nb.Domain(
        np.full(case.columns, float(case.lower)),
        np.full(case.columns, float(case.upper)),
        case.rows,
        integer=case.integer,
    )
    candidates = None
    if case.model:
        candidates = nb.neighbour_candidates(domain, rng=seed)[:MODEL_PAIRS]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            found = nb.search_neighbours(
                case.mechanism,
                domain,
                case.claimed,
                n=n,
                pilot_n=pilot_n,
                alpha=ALPHA,
                rng=seed,
                statistic=case.statistic,
                distinguisher=case.distinguisher,
                candidates=candidates,
            )
    except Exception as exc:
        if case.peer == "privlearn":
            raise
        return Outcome(case, n=n, error=f"{type(exc).__name__}: {exc}".splitlines()[0][:200])
    res = found.result
    quantity = str(getattr(res, "quantity", "epsilon"))
    claimed_value = {
        "epsilon": res.claimed_epsilon,
        "delta": res.claimed_delta,
        "mu": getattr(res, "claimed_mu", None),
    }.get(quantity, res.claimed_epsilon)
    return Outcome(
        case,
        n=n,
        pair=found.pair,
        quantity=quantity,
        bound=float(res.bound),
        claimed_value=float(claimed_value) if claimed_value is not None else math.nan,
        passed=bool(res.passed),
        event=str(res.event) if res.event is not None else "",
        pilot=tuple(found.pilot),
    )


# --------------------------------------------------------------------------------------------
# The experiment
# --------------------------------------------------------------------------------------------

_COLUMNS = [
    "mechanism",
    "claim",
    "neighbours",
    "n",
    "quantity",
    "bound",
    "claimed",
    "verdict",
    "event",
]


def _table(peer: Peer, outcomes: Sequence[Outcome], version: str) -> Table:
    rows = [
        [
            o.case.name + (" (model: reduced power)" if o.case.model else ""),
            o.case.claim,
            o.pair,
            o.n,
            o.quantity,
            o.bound,
            o.claimed_value,
            o.verdict,
            o.event,
        ]
        for o in outcomes
    ]
    role = "controls (must pass)" if peer.control else "peer"
    return Table(
        _COLUMNS,
        rows,
        description=(
            f"{peer.name} {version}, {role}. Replace-one neighbours from the neighbour search "
            f"(the worst pilot pair, audited again on fresh samples); n = samples per side of "
            f"that final audit; bound: lower confidence bound (confidence 1 - {ALPHA:g}) on the "
            f"quantity; REFUTED when it exceeds the claimed value; event: the set of outputs (of "
            f"the statistic, or of the distinguisher's held-out score) that attained the bound."
        ),
    )


_DESCRIPTION = """
Audits diffprivlib's and OpenDP's mechanisms and models, and privlearn's own as controls, at their
claimed privacy, on replace-one neighbouring datasets chosen by privlearn's neighbour search over
the declared bounds. A refuted claim is proven false at confidence 1 - 1e-3; a pass proves nothing
(finite pairs, finite samples). Model audits use few samples and can refute only gross
violations. Peers not installed are skipped (pip install privlearn[bench]).
""".strip()


@register(
    NAME,
    title="Auditing peer libraries at their claimed privacy (neighbour search, privlearn.audit)",
    paper="Issue 21 (DP-Sniper, Bichsel et al. 2021; DP-Auditorium, Kong et al. 2024)",
    description=_DESCRIPTION,
)
def run(config: RunConfig) -> ExperimentResult:
    """Run the experiment (see the module docstring)."""
    peers = PEERS()
    seeds = spawn_seeds(config.seed, len(peers))
    tables: Dict[str, Table] = {}
    notes: List[str] = []
    refuted: List[str] = []
    for peer, peer_seed in zip(peers, seeds):
        why = _missing(peer)
        if why is not None:
            notes.append(
                f"{peer.name}: not installed or does not import ({why}); skipped "
                f"(install the optional peers with `pip install privlearn[bench]`)."
            )
            continue
        version = peer.version()
        cases = peer.cases()
        outcomes = [
            audit_case(case, quick=config.quick, seed=s)
            for case, s in zip(cases, spawn_seeds(peer_seed, len(cases)))
        ]
        tables[peer.name] = _table(peer, outcomes, version)
        for o in outcomes:
            if o.passed is False:
                text = (
                    f"REFUTED: {peer.name} {version} {o.case.name} ({o.case.claim}) on pair "
                    f"{o.pair}: {o.quantity} >= {o.bound:.4g} > {o.claimed_value:.4g} "
                    f"(n = {o.n} per side; event: {o.event})."
                )
                if o.case.refutation:
                    text += " Source: " + o.case.refutation
                refuted.append(text)
            elif o.error:
                notes.append(f"{peer.name} {o.case.name}: did not run ({o.error}).")
        if peer.control:
            failed = [o.case.name for o in outcomes if o.passed is not True]
            notes.append(
                "privlearn controls: all passed."
                if not failed
                else f"privlearn controls FAILED: {', '.join(failed)}."
            )
    notes.extend(refuted if refuted else ["No claim was refuted."])
    i = 1 if config.quick else 0
    notes.append(
        f"Samples per side ({'quick' if config.quick else 'full'} run): mechanisms "
        f"{N_MECHANISM[i]} (pilot {PILOT_MECHANISM[i]} per pair), models {N_MODEL[i]} (pilot "
        f"{PILOT_MODEL[i]}, the first {MODEL_PAIRS} pairs of the family only; diffprivlib's "
        f"LinearRegression, whose fits diverge on the worst pairs and then take up to a second: "
        f"n as in its rows, pilot {N_DIVERGING[2 + i]})."
    )
    return ExperimentResult(tables=tables, figures={}, notes=notes)

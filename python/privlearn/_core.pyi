# Type stubs of the compiled extension privlearn._core (checked by `python -m mypy.stubtest`).
from typing import List, Optional, Union, final, overload

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "Generator",
    "SparseVector",
    "exponential",
    "log_sum_exp",
    "laplace",
    "gaussian",
    "gaussian_sigma",
    "gaussian_plan",
    "laplace_plan",
    "sparse_vector_plan",
    "discrete_laplace",
    "discrete_gaussian",
    "randomized_response",
    "randomized_response_k",
    "l2_laplace_noise",
    "report_noisy_max",
    "permute_and_flip",
    "stable_argmax",
    "__version__",
    "build_profile",
]

__version__: str
build_profile: str

_RngArg = Union[None, int, "Generator"]

@final
class Generator:
    def __new__(cls, seed: Optional[int] = None) -> Generator: ...
    @property
    def seeded(self) -> bool: ...
    def spawn(self, n: int) -> List[Generator]: ...
    @overload
    def random_raw(self, size: None = None) -> int: ...
    @overload
    def random_raw(self, size: int) -> List[int]: ...
    def __reduce__(self) -> tuple[object, ...]: ...
    @staticmethod
    def _from_state(
        key: bytes, stream: int, word_pos: int, reservoir: int, reservoir_bits: int, seeded: bool
    ) -> Generator: ...

@overload
def exponential(
    scores: ArrayLike,
    epsilon: float,
    sensitivity: float = 1.0,
    size: None = None,
    rng: _RngArg = None,
    numerics: str = "exact",
) -> int: ...
@overload
def exponential(
    scores: ArrayLike,
    epsilon: float,
    sensitivity: float,
    size: int,
    rng: _RngArg = None,
    numerics: str = "exact",
) -> np.ndarray: ...
def log_sum_exp(x: ArrayLike) -> float: ...
def laplace(
    value: ArrayLike,
    sensitivity: float,
    epsilon: float,
    rng: _RngArg = None,
    numerics: str = "exact",
) -> Union[float, np.ndarray]: ...
def gaussian(
    value: ArrayLike,
    sensitivity: float,
    epsilon: float,
    delta: float,
    rng: _RngArg = None,
    numerics: str = "exact",
    calibration: str = "analytic",
) -> Union[float, np.ndarray]: ...
def gaussian_sigma(
    sensitivity: float,
    epsilon: float,
    delta: float,
    dim: int = 1,
    numerics: str = "exact",
    calibration: str = "analytic",
) -> float: ...
def gaussian_plan(
    sensitivity: float,
    epsilon: float,
    delta: float,
    dim: int = 1,
    calibration: str = "analytic",
) -> tuple[float, int, int]: ...
def laplace_plan(sensitivity: float, epsilon: float, dim: int = 1) -> tuple[float, float]: ...
def sparse_vector_plan(
    epsilon: float, sensitivity: float = 1.0, max_positives: int = 1
) -> tuple[float, float, float]: ...
def discrete_laplace(
    value: ArrayLike, scale: float, rng: _RngArg = None
) -> Union[int, np.ndarray]: ...
def discrete_gaussian(
    value: ArrayLike, sigma: float, rng: _RngArg = None
) -> Union[int, np.ndarray]: ...
def randomized_response(
    bits: ArrayLike, epsilon: float, rng: _RngArg = None
) -> Union[bool, np.ndarray]: ...
def randomized_response_k(
    values: ArrayLike, k: int, epsilon: float, rng: _RngArg = None
) -> Union[int, np.ndarray]: ...
def l2_laplace_noise(
    dim: int, scale: float, size: Optional[int] = None, rng: _RngArg = None
) -> np.ndarray: ...
def report_noisy_max(
    scores: ArrayLike,
    epsilon: float,
    sensitivity: float = 1.0,
    noise: str = "gumbel",
    rng: _RngArg = None,
) -> int: ...
def permute_and_flip(
    scores: ArrayLike, epsilon: float, sensitivity: float = 1.0, rng: _RngArg = None
) -> int: ...
def stable_argmax(
    scores: ArrayLike,
    epsilon: float,
    delta: float,
    sensitivity: float = 1.0,
    rng: _RngArg = None,
) -> Optional[int]: ...

@final
class SparseVector:
    def __new__(
        cls,
        threshold: float,
        epsilon: float,
        sensitivity: float = 1.0,
        max_positives: int = 1,
        rng: _RngArg = None,
    ) -> SparseVector: ...
    def query(self, value: float) -> bool: ...
    def query_many(self, values: ArrayLike) -> np.ndarray: ...
    @property
    def halted(self) -> bool: ...
    @property
    def positives(self) -> int: ...
    @property
    def answered(self) -> int: ...
    @property
    def max_positives(self) -> int: ...

# --- Fingerprinting codes (privlearn.attacks) -----------------------------------------------

from typing import Any, Dict

__all__ += [
    "TardosParams",
    "TardosCodeCore",
    "BonehShawCore",
    "tardos_parameters",
    "tardos_generate",
    "pirate_packed",
    "is_feasible_packed",
    "boneh_shaw_params",
    "boneh_shaw_generate",
]

@final
class TardosParams:
    @property
    def n_users(self) -> int: ...
    @property
    def coalition_size(self) -> int: ...
    @property
    def false_accusation(self) -> float: ...
    @property
    def per_user_false_accusation(self) -> float: ...
    @property
    def kappa(self) -> int: ...
    @property
    def variant(self) -> str: ...
    @property
    def length(self) -> int: ...
    @property
    def cutoff(self) -> float: ...
    @property
    def certified_threshold(self) -> float: ...
    @property
    def score_error(self) -> float: ...
    @property
    def threshold(self) -> float: ...
    @property
    def miss_rate(self) -> float: ...
    @property
    def length_given(self) -> bool: ...

def tardos_parameters(
    n_users: int,
    coalition_size: int,
    false_accusation: float,
    variant: str = "symmetric",
    length: Optional[int] = None,
) -> TardosParams: ...

@final
class TardosCodeCore:
    @property
    def params(self) -> TardosParams: ...
    @property
    def words_per_row(self) -> int: ...
    def biases(self) -> np.ndarray: ...
    def packed(self) -> np.ndarray: ...
    def rows(self, users_: List[int]) -> np.ndarray: ...
    def scores(self, word: np.ndarray) -> np.ndarray: ...
    def trace(self, word: np.ndarray, threshold: Optional[float] = None) -> np.ndarray: ...

def tardos_generate(params: TardosParams, rng: _RngArg = None) -> TardosCodeCore: ...
def pirate_packed(
    rows: np.ndarray, length: int, strategy: str, rng: _RngArg = None
) -> np.ndarray: ...
def is_feasible_packed(word: np.ndarray, rows: np.ndarray, length: int) -> bool: ...
def boneh_shaw_params(n_users: int, false_accusation: float) -> Dict[str, Any]: ...

@final
class BonehShawCore:
    def params(self) -> Dict[str, Any]: ...
    def types(self) -> np.ndarray: ...
    def rows(self, users_: List[int]) -> np.ndarray: ...
    def counts(self, word: np.ndarray) -> np.ndarray: ...
    def trace(self, word: np.ndarray) -> np.ndarray: ...

def boneh_shaw_generate(
    n_users: int, false_accusation: float, rng: _RngArg = None
) -> BonehShawCore: ...

# GF(2) linear algebra (privlearn.gf2). Matrices are packed uint64 arrays of shape
# (rows, ceil(cols / 64)) with the column count passed alongside.
from typing import Tuple

__all__ += [
    "gf2_rref",
    "gf2_rank",
    "gf2_mul",
    "gf2_transpose",
    "gf2_solve",
    "gf2_nullspace",
    "gf2_inverse",
    "gf2_random",
]

def gf2_rref(words: np.ndarray, cols: int) -> Tuple[np.ndarray, np.ndarray]: ...
def gf2_rank(words: np.ndarray, cols: int) -> int: ...
def gf2_mul(a: np.ndarray, a_cols: int, b: np.ndarray, b_cols: int) -> np.ndarray: ...
def gf2_transpose(words: np.ndarray, cols: int) -> np.ndarray: ...
def gf2_solve(a: np.ndarray, a_cols: int, b: np.ndarray, b_cols: int) -> Optional[np.ndarray]: ...
def gf2_nullspace(words: np.ndarray, cols: int) -> Tuple[np.ndarray, int]: ...
def gf2_inverse(words: np.ndarray, cols: int) -> Optional[np.ndarray]: ...
def gf2_random(rows: int, cols: int, rng: _RngArg = None) -> np.ndarray: ...

# --- dichotomy enumeration (privlearn.hypotheses) ---

__all__ += [
    "DichotomySource",
    "dichotomies",
    "dichotomy_count",
    "dichotomy_erm",
    "dichotomy_mistakes",
    "dichotomy_argmin",
    "finite_dichotomies",
    "finite_vc_dimension",
    "halfspace_predict",
]

_Spec = tuple[str, int, str, Optional[int]]

def dichotomies(
    spec: _Spec, x: np.ndarray, max_count: Optional[int]
) -> tuple[np.ndarray, np.ndarray]: ...
def dichotomy_count(spec: _Spec, x: np.ndarray) -> int: ...
def dichotomy_erm(
    spec: _Spec, x: np.ndarray, y: np.ndarray, sample_weight: Optional[np.ndarray] = None
) -> tuple[int, List[float]]: ...

@final
class DichotomySource:
    def __new__(cls, spec: _Spec, x: np.ndarray) -> DichotomySource: ...
    @staticmethod
    def parities(x: np.ndarray) -> DichotomySource: ...
    @property
    def streamed(self) -> bool: ...
    def next_chunk(self, size: int) -> Optional[tuple[np.ndarray, np.ndarray]]: ...

def finite_dichotomies(
    labels: np.ndarray, max_count: Optional[int]
) -> tuple[np.ndarray, np.ndarray]: ...
def finite_vc_dimension(labels: np.ndarray) -> int: ...
def halfspace_predict(params: List[float], x: np.ndarray) -> np.ndarray: ...
def dichotomy_mistakes(
    packed: np.ndarray, y: np.ndarray, sample_weight: Optional[np.ndarray] = None
) -> np.ndarray: ...
def dichotomy_argmin(
    packed: np.ndarray, y: np.ndarray, sample_weight: Optional[np.ndarray] = None
) -> Optional[int]: ...

__all__ += ["parity_dichotomies", "parity_rank", "parity_erm"]

def parity_dichotomies(
    x: np.ndarray, max_count: Optional[int]
) -> tuple[np.ndarray, np.ndarray]: ...
def parity_rank(x: np.ndarray) -> tuple[int, List[int]]: ...
def parity_erm(
    x: np.ndarray, y: np.ndarray, sample_weight: Optional[np.ndarray] = None
) -> tuple[int, List[int]]: ...

# --- stable and private prediction (privlearn.prediction) ---

__all__ += [
    "representative_mistakes",
    "prediction_stable",
    "prediction_stable_proba",
    "prediction_theorem2",
    "prediction_noisy_vote",
    "prediction_randomized_response",
]

def representative_mistakes(
    spec: _Spec, params: np.ndarray, x: np.ndarray, y: np.ndarray
) -> np.ndarray: ...
def prediction_stable(
    spec: _Spec,
    finite_labels: Optional[np.ndarray],
    x: np.ndarray,
    y: np.ndarray,
    queries: np.ndarray,
    m: int,
    epsilon0: float,
    flip_ratio: Optional[tuple[int, int]] = None,
    rng: _RngArg = None,
) -> np.ndarray: ...
def prediction_stable_proba(
    spec: _Spec,
    finite_labels: Optional[np.ndarray],
    x: np.ndarray,
    y: np.ndarray,
    queries: np.ndarray,
    m: int,
    epsilon0: float,
    n_subsets: int,
    rng: _RngArg = None,
) -> np.ndarray: ...
def prediction_theorem2(
    spec: _Spec,
    finite_labels: Optional[np.ndarray],
    x: np.ndarray,
    y: np.ndarray,
    queries: np.ndarray,
    m: int,
    epsilon1: float,
    block_of: np.ndarray,
    n_blocks: int,
    flip_ratio: Optional[tuple[int, int]] = None,
    rng: _RngArg = None,
) -> np.ndarray: ...
def prediction_noisy_vote(votes: np.ndarray, epsilon: float, rng: _RngArg = None) -> np.ndarray: ...
def prediction_randomized_response(
    votes: np.ndarray, flip_ratio: tuple[int, int], rng: _RngArg = None
) -> np.ndarray: ...

# --- multi-concept learners (privlearn.multi) ---

__all__ += [
    "multi_search_parities",
    "multi_stability_histogram",
    "multi_learn_points",
    "multi_mistakes",
    "multi_points_noise_scale",
]

def multi_search_parities(
    x: np.ndarray,
    dim: int,
    y: np.ndarray,
    k: int,
    subsample_size: int,
    epsilon: float,
    delta: float,
    rng: _RngArg = None,
) -> tuple[Optional[np.ndarray], int]: ...
def multi_stability_histogram(
    counts: np.ndarray, epsilon: float, delta: float, rng: _RngArg = None
) -> tuple[np.ndarray, np.ndarray]: ...
def multi_learn_points(
    ids: np.ndarray,
    n_keys: int,
    y: np.ndarray,
    k: int,
    alpha: float,
    epsilon: float,
    delta: float,
    rng: _RngArg = None,
) -> tuple[np.ndarray, Optional[np.ndarray]]: ...
def multi_mistakes(pred: np.ndarray, labels: np.ndarray) -> np.ndarray: ...
def multi_points_noise_scale(epsilon: float) -> float: ...

# --- private classification-query release (privlearn.query_release) ---

__all__ += [
    "HypothesisEnsemble",
    "sample_indices",
    "permutation",
    "threshold_labeling_mistakes",
    "threshold_labeling",
    "threshold_erm_blocks",
]

@final
class HypothesisEnsemble:
    def __new__(cls, spec: _Spec, params: np.ndarray) -> HypothesisEnsemble: ...
    def __len__(self) -> int: ...
    def votes(self, x: np.ndarray) -> np.ndarray: ...

def sample_indices(n: int, k: int, replacement: bool, rng: _RngArg = None) -> np.ndarray: ...
def permutation(n: int, rng: _RngArg = None) -> np.ndarray: ...
def threshold_labeling_mistakes(x: np.ndarray, y: np.ndarray, orientation: str) -> np.ndarray: ...
def threshold_labeling(x: np.ndarray, orientation: str, index: int) -> np.ndarray: ...
def threshold_erm_blocks(
    x: np.ndarray, y: np.ndarray, order: np.ndarray, size: int, orientation: str
) -> np.ndarray: ...

# ---- erm (privlearn.learners.erm) ----------------------------------------------------------

__all__ += [
    "erm_linear_risks",
    "erm_threshold_mistakes",
    "erm_threshold_grid",
    "erm_threshold_pieces",
    "erm_sample_threshold",
    "erm_mala",
    "erm_quantize",
]

def erm_linear_risks(
    coef: np.ndarray,
    intercept: np.ndarray,
    x: np.ndarray,
    y: np.ndarray,
    loss: str,
    loss_bound: float,
    frac_bits: int,
) -> np.ndarray: ...
def erm_quantize(losses: np.ndarray, loss_bound: float, frac_bits: int) -> np.ndarray: ...
def erm_threshold_mistakes(
    t: np.ndarray, ge: np.ndarray, x: np.ndarray, y: np.ndarray
) -> np.ndarray: ...
def erm_threshold_grid(low: float, high: float) -> tuple[int, int, int]: ...
def erm_threshold_pieces(
    low: float, high: float, ge: bool, x: np.ndarray, y: np.ndarray
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]: ...
def erm_sample_threshold(
    low: float,
    high: float,
    ge: bool,
    x: np.ndarray,
    y: np.ndarray,
    epsilon: float,
    sensitivity: float,
    rng: _RngArg = None,
) -> float: ...
def erm_mala(
    x: np.ndarray,
    y: np.ndarray,
    loss: str,
    loss_bound: float,
    ridge: float,
    beta: float,
    radius: float,
    step: float,
    steps: int,
    starts: np.ndarray,
    rng: _RngArg = None,
) -> tuple[np.ndarray, np.ndarray, List[int]]: ...

# ---- exact sufficient statistics (privlearn.learners._suffstats) ----------------------------
__all__ += [
    "suffstats_abs_counts",
    "suffstats_gram",
    "suffstats_norm_counts",
    "suffstats_round",
]

def suffstats_gram(
    x: np.ndarray,
    y: np.ndarray,
    d: int,
    data_norm: float,
    label_bound: float,
    intercept: Optional[float],
    exps: List[int],
    threads: int = 1,
) -> tuple[List[int], List[int], int, int, int]: ...
def suffstats_round(hi: List[int], lo: List[int], exponents: List[int]) -> np.ndarray: ...
def suffstats_norm_counts(x: np.ndarray, d: int, grid: List[float]) -> tuple[np.ndarray, int]: ...
def suffstats_abs_counts(y: np.ndarray, grid: List[float]) -> tuple[np.ndarray, int]: ...

@final
class PldCore:
    @staticmethod
    def from_deltas(h: float, lo: int, deltas: np.ndarray) -> PldCore: ...
    @staticmethod
    def from_excess(h: float, lo: int, excess: np.ndarray) -> PldCore: ...
    @staticmethod
    def from_parts(
        h: float, lo: int, masses: np.ndarray, inf_mass: float, err: float
    ) -> PldCore: ...
    @staticmethod
    def randomized_response(h: float, epsilon: float, k: int, inf_mass: float) -> PldCore: ...
    @staticmethod
    def laplace(h: float, e0: float) -> PldCore: ...
    @staticmethod
    def laplace_many(h: float, e0s: list[float]) -> list[PldCore]: ...
    @staticmethod
    def compose_all(plds: list[PldCore], tail: float) -> PldCore: ...
    def compose(self, other: PldCore, tail: float) -> PldCore: ...
    def self_compose(self, k: int, tail: float) -> PldCore: ...
    def delta(self, epsilon: float) -> float: ...
    def epsilon(self, delta: float) -> float: ...
    @property
    def h(self) -> float: ...
    @property
    def lo(self) -> int: ...
    @property
    def inf_mass(self) -> float: ...
    @property
    def err(self) -> float: ...
    @property
    def masses(self) -> np.ndarray: ...
    def __len__(self) -> int: ...

__all__ += ["PldCore"]

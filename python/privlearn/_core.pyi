# Type stubs of the compiled extension privlearn._core (checked by `python -m mypy.stubtest`).
from typing import List, Optional, Union, final, overload

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["Generator", "exponential", "log_sum_exp", "_panic_for_tests", "__version__", "build_profile"]

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
    def _from_state(key: bytes, stream: int, word_pos: int, seeded: bool) -> Generator: ...

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
def _panic_for_tests() -> None: ...

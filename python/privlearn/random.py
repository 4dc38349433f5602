"""Random number generation (DESIGN principle 4: one RNG story).

Every random privlearn function takes ``rng``:

* ``None`` (the default): a fresh ChaCha20 generator keyed with 32 bytes from the operating
  system. This is the only choice under which the privacy guarantees hold.
* an ``int`` seed in ``[0, 2**64)``: a reproducible ChaCha20 stream for tests and experiments.
  **A known seed voids every privacy guarantee**, since anyone who knows it can regenerate the
  noise. The same seed gives the same output from Python and from the Rust core.
* a :class:`Generator`: a stateful stream shared by several calls (each call advances it).

Use :func:`spawn_seeds` or :meth:`Generator.spawn` to give independent streams to parallel work.
"""

from __future__ import annotations

from typing import List, Union

from . import _core
from .errors import InvalidParameterError

Generator = _core.Generator

RngLike = Union[None, int, "_core.Generator"]

__all__ = ["Generator", "RngLike", "as_generator", "spawn_seeds"]


def as_generator(rng: RngLike = None) -> "_core.Generator":
    """Resolve an ``rng`` argument into a :class:`Generator`.

    ``None`` gives a fresh OS-entropy generator, an int a seeded one, and a generator is
    returned as it is (so that successive calls continue its stream).
    """
    if isinstance(rng, Generator):
        return rng
    if rng is None:
        return Generator()
    if isinstance(rng, bool):
        raise InvalidParameterError(
            "rng: must be None, an integer seed in [0, 2**64), or a Generator, got a bool", "rng"
        )
    try:
        return Generator(rng)
    except InvalidParameterError as err:
        raise InvalidParameterError(str(err).replace("seed:", "rng:", 1), "rng") from None


def spawn_seeds(rng: RngLike, n: int) -> List[int]:
    """``n`` integer seeds for independent child streams (e.g. experiment repetitions).

    Deterministic when ``rng`` is a seed: the seeds are the first ``n`` raw outputs of
    ``Generator(rng)``'s stream. With ``rng=None`` they come from OS entropy.
    """
    if n < 0:
        raise InvalidParameterError(f"n: must be >= 0, got {n}", "n")
    gen = as_generator(rng)
    return list(gen.random_raw(n)) if n else []

"""Random number generation (DESIGN principle 4: one RNG story).

Every random privlearn function takes ``rng``:

* ``None`` (the default): a fresh ChaCha20 generator keyed with 32 bytes from the operating
  system. This is the only choice under which the privacy guarantees hold unconditionally.
* an ``int`` seed in ``[0, 2**64)``: a reproducible ChaCha20 stream for tests and experiments.
  **A known seed voids every privacy guarantee**, since anyone who knows it can regenerate the
  noise. The same seed gives the same output from Python and from the Rust core.
* a :class:`Generator`: a stateful stream shared by several calls (each call advances it). It
  is *seeded* (:attr:`Generator.seeded`) when it was built from a seed, and then no more private
  than the seed.
* a :class:`numpy.random.Generator` (as scikit-learn's ``random_state`` and SciPy's ``rng``
  accept): privlearn's samplers do not draw from it directly; each call takes **four raw
  64-bit words** from its bit generator (``bit_generator.random_raw(4)``) and keys a ChaCha20
  stream with those 32 bytes (little-endian). The result is deterministic given the numpy
  generator's state, and the numpy generator advances by four words per call, so successive
  calls get different noise, as with a shared :class:`Generator`.
* a :class:`numpy.random.SeedSequence`: the ChaCha20 key is ``generate_state(8, uint32)``
  (32 bytes, little-endian). A seed sequence is not advanced: every call with the same one
  draws the same noise, exactly like an integer seed.
* a legacy :class:`numpy.random.RandomState`: four words from
  ``randint(0, 2**64, size=4, dtype=uint64)``, advancing it.

**Privacy of the numpy forms.** They are treated as seeds: the generator privlearn builds is
marked seeded (``Generator.seeded`` is ``True``), since privlearn cannot know where the numpy
state came from. A seed sequence's entropy is stored in it, and a numpy generator's state can be
read (``bit_generator.state``) and replayed, so the guarantee holds only if that state is
unpredictable to anyone who sees the output: the generator was seeded from OS entropy
(``numpy.random.default_rng()`` with no argument) and its state is never revealed or reused.
Numpy's bit generators (PCG64 by default) are not cryptographic. For a private release, pass
``rng=None`` or an unseeded :class:`Generator`.

Use :func:`spawn_seeds` or :meth:`Generator.spawn` to give independent streams to parallel work.
"""

from __future__ import annotations

import numbers
from typing import Any, List, Union

import numpy as np

from . import _core
from .errors import InvalidParameterError

Generator = _core.Generator

RngLike = Union[
    None,
    int,
    "_core.Generator",
    np.random.Generator,
    np.random.SeedSequence,
    np.random.RandomState,
]

__all__ = ["Generator", "RngLike", "as_generator", "spawn_seeds"]


_RNG_KINDS = (
    "None (fresh OS entropy), an integer seed in [0, 2**64), a privlearn.random.Generator, "
    "a numpy.random.Generator, a numpy.random.SeedSequence or a numpy.random.RandomState"
)


def _from_key_words(words: Any) -> "_core.Generator":
    """A seeded ChaCha20 :class:`Generator` keyed with 32 little-endian bytes of ``words``."""
    key = np.ascontiguousarray(words).astype("<u8" if words.dtype.itemsize == 8 else "<u4")
    raw = key.tobytes()
    if len(raw) != 32:  # pragma: no cover - the callers draw exactly 32 bytes
        raise AssertionError("a generator key must be 32 bytes")
    return Generator._from_state(raw, 0, 0, 0, 0, True)


def _from_numpy(rng: object) -> "Union[_core.Generator, None]":
    """The seeded :class:`Generator` for a numpy random object, or ``None`` if ``rng`` is not
    one (see the module documentation for how each kind is keyed)."""
    if isinstance(rng, np.random.Generator):
        return _from_key_words(rng.bit_generator.random_raw(4))
    if isinstance(rng, np.random.SeedSequence):
        return _from_key_words(rng.generate_state(8, dtype=np.uint32))
    if isinstance(rng, np.random.RandomState):
        return _from_key_words(rng.randint(0, 2**64, size=4, dtype=np.uint64))
    return None


def reproducible(rng: object) -> bool:
    """Whether ``rng`` makes every fit of an estimator draw the same noise (reproducible, not
    private): an integer seed (not a bool) or a :class:`numpy.random.SeedSequence`. A
    generator advances between fits; ``None`` draws fresh entropy. (scikit-learn's
    ``non_deterministic`` tag of the private estimators and transformers.)"""
    return (isinstance(rng, numbers.Integral) and not isinstance(rng, bool)) or isinstance(
        rng, np.random.SeedSequence
    )


def as_generator(rng: RngLike = None) -> "_core.Generator":
    """Resolve an ``rng`` argument into a :class:`Generator`.

    ``None`` gives a fresh OS-entropy generator, an int a seeded one, and a generator is
    returned as it is (so that successive calls continue its stream). A numpy
    :class:`~numpy.random.Generator`, :class:`~numpy.random.SeedSequence` or
    :class:`~numpy.random.RandomState` gives a seeded generator keyed from it (a numpy
    generator is advanced by four 64-bit words; see the module documentation, also for why
    these count as seeds for privacy).
    """
    if isinstance(rng, Generator):
        return rng
    if rng is None:
        return Generator()
    if isinstance(rng, (bool, np.bool_)):
        raise InvalidParameterError(f"rng: must be {_RNG_KINDS}; got a bool", "rng")
    derived = _from_numpy(rng)
    if derived is not None:
        return derived
    if not hasattr(type(rng), "__index__"):
        raise InvalidParameterError(
            f"rng: must be {_RNG_KINDS}; got {rng!r} of type {type(rng).__name__}", "rng"
        )
    try:
        return Generator(rng)  # type: ignore[arg-type]
    except InvalidParameterError as err:
        raise InvalidParameterError(str(err).replace("seed:", "rng:", 1), "rng") from None


def _core_rng(rng: RngLike) -> Union[None, int, "_core.Generator"]:
    """``rng`` in a form the compiled core accepts: ``None``, a Python ``int`` and a
    :class:`Generator` are passed through unchanged (the core makes its own OS-entropy or
    seeded generator, with the same stream as :func:`as_generator`'s); anything else goes
    through :func:`as_generator` (numpy random objects become a seeded :class:`Generator`, bad
    values raise its error). Every public function that hands ``rng`` to
    :mod:`privlearn._core` calls this first."""
    if rng is None or isinstance(rng, Generator):
        return rng
    if isinstance(rng, int) and not isinstance(rng, bool):
        return rng
    return as_generator(rng)


def spawn_seeds(rng: RngLike, n: int) -> List[int]:
    """``n`` integer seeds for independent child streams (e.g. experiment repetitions).

    Deterministic when ``rng`` is a seed: the seeds are the first ``n`` raw outputs of
    ``Generator(rng)``'s stream. With ``rng=None`` they come from OS entropy.
    """
    if n < 0:
        raise InvalidParameterError(f"n: must be >= 0, got {n}", "n")
    gen = as_generator(rng)
    return list(gen.random_raw(n)) if n else []

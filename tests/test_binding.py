"""The Rust/Python boundary: panics, threads, the GIL, typed errors, the package surface."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import privlearn
from privlearn import _core
from privlearn.errors import EntropyError, InternalError, InvalidParameterError, PrivlearnError
from privlearn.mechanisms import exponential, log_sum_exp
from privlearn.random import Generator


def test_error_hierarchy():
    assert issubclass(InvalidParameterError, PrivlearnError)
    assert issubclass(InvalidParameterError, ValueError)
    assert issubclass(InternalError, PrivlearnError)
    assert issubclass(EntropyError, PrivlearnError)
    assert privlearn.PrivlearnError is PrivlearnError
    err = InvalidParameterError("epsilon: bad", "epsilon")
    import pickle

    again = pickle.loads(pickle.dumps(err))
    assert again.parameter == "epsilon" and str(again) == "epsilon: bad"


# Test hooks exist only in extensions built with the `test-hooks` cargo feature (the developer and
# CI test builds); installed wheels never contain them.
_panic_for_tests = getattr(_core, "_panic_for_tests", None)


@pytest.mark.skipif(
    _panic_for_tests is None,
    reason="privlearn._core was built without the 'test-hooks' cargo feature (wheels never have "
    "it); build it with 'maturin develop --features test-hooks' to run this test",
)
def test_a_rust_panic_becomes_internal_error_not_panic_exception():
    assert _panic_for_tests is not None
    with pytest.raises(InternalError, match="deliberate panic"):
        _panic_for_tests()
    # The interpreter and the module keep working afterwards.
    assert exponential([0.0, 1.0], 1.0, rng=1) in (0, 1)


def test_version_and_profile():
    assert privlearn.__version__ == _core.__version__
    assert _core.build_profile in ("debug", "release")


def test_concurrent_calls_from_many_threads_share_a_generator_safely():
    scores = np.linspace(0, 5, 200_000)  # long enough to be read in place, GIL released
    small = np.array([0, 1, 2], dtype=np.int64)
    gen = Generator(17)
    results: list = []
    errors: list = []

    def work(k):
        try:
            local = []
            for _ in range(20):
                local.append(exponential(scores, 1.0, rng=gen))
                local.append(exponential(small, 1.0, rng=k, numerics="fast"))
                local.append(log_sum_exp(scores))
            results.append(local)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 8
    expected_lse = log_sum_exp(scores)
    for local in results:
        assert all(0 <= i < len(scores) for i in local[0::3])
        assert all(v == expected_lse for v in local[2::3])
    # 8 threads x 20 draws consumed the shared stream exactly 160 times, in some order: the
    # multiset of draws equals that of 160 sequential draws from the same seed.
    drawn = sorted(i for local in results for i in local[0::3])
    seq_gen = Generator(17)
    sequential = sorted(exponential(scores, 1.0, rng=seq_gen) for _ in range(160))
    assert drawn == sequential


def _longest_python_stall(call, repeats=4):
    """Runs ``call`` ``repeats`` times while a pure-Python thread records timestamps; returns the
    longest gap between them and the duration of one call run alone."""
    call()  # warm up
    t0 = time.perf_counter()
    call()
    alone = time.perf_counter() - t0
    stamps: list = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    t = threading.Thread(target=ticker)
    t.start()
    time.sleep(0.02)
    start = time.perf_counter()
    for _ in range(repeats):
        call()
    end = time.perf_counter()
    stop.set()
    t.join()
    during = [s for s in stamps if start <= s <= end]
    return float(np.diff([start] + during + [end]).max()), alone


def _lets_python_run(call, repeats=4, attempts=3):
    """Whether a pure-Python thread kept running while ``call`` ran: in some attempt, its longest
    stall was under half of one call. A call that holds the GIL stalls the thread for a whole call
    in every attempt; a call that releases it stalls it only for scheduling gaps, which a loaded
    machine can stretch to tens of milliseconds now and then, hence the repeated attempts and a
    call long enough (about 0.1 s or more) that such a gap stays under half of it."""
    for _ in range(attempts):
        stall, alone = _longest_python_stall(call, repeats)
        assert alone > 0.05, "the workload is too short to tell"
        if stall < 0.5 * alone:
            return True
    return False


def test_the_gil_is_released_during_rust_work():
    # While one thread runs a long exact draw, a pure-Python thread must keep running. If the GIL
    # were held, the Python thread would stall for a whole call (the default switch interval is
    # 5 ms, far below one call).
    scores = np.random.default_rng(0).random(30_000_000)
    assert _lets_python_run(lambda: exponential(scores, 1.0, rng=0))


def test_gil_check_detects_a_call_that_holds_the_gil():
    # Power check of the test above: sorting a Python list holds the GIL for the whole call.
    data = list(range(10_000_000))[::-1]
    assert not _lets_python_run(lambda: sorted(data), repeats=2)

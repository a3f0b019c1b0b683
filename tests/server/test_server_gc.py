"""``ddz serve``'s garbage-collector schedule (ddz.server.gc_policy, docs/server.md): the young
generations collected on its clock, full collections only on its clock, Python's settings
given back by ``stop``; bad settings refused with a message naming them."""
from __future__ import annotations

import asyncio
import gc

import pytest

from ddz.cli import main as cli_main
from ddz.server.gc_policy import GcPolicy, GcPolicyError, GcPolicyTypeError


def _collections_while(policy: GcPolicy, seconds: float, garbage: int = 0, kept: int = 0):
    """The generations collected (callbacks' "stop") while ``policy`` runs ``seconds``, making
    ``garbage`` reference cycles and ``kept`` lists that stay alive a millisecond meanwhile;
    the thresholds during the run."""
    seen = []

    def cb(phase, info):
        if phase == "stop":
            seen.append(info["generation"])

    async def main():
        policy.start()
        during = gc.get_threshold()
        gc.callbacks.append(cb)
        alive: list = []
        try:
            end = asyncio.get_running_loop().time() + seconds
            while asyncio.get_running_loop().time() < end:
                for _ in range(garbage):
                    a: list = []
                    a.append(a)
                alive.extend([] for _ in range(kept))
                await asyncio.sleep(0.001)
        finally:
            gc.callbacks.remove(cb)
            policy.stop()
        return during

    before = gc.get_threshold()
    try:
        during = asyncio.run(main())
    finally:
        gc.unfreeze()  # start() froze this test process's objects
    assert gc.get_threshold() == before  # stop() gave Python's settings back
    return seen, during


def test_young_and_full_collections_run_on_the_clock():
    seen, during = _collections_while(GcPolicy(young_s=0.05, full_s=0.3), 1.0)
    # about 20 collections of the young generations and 3 full ones in a second; none full
    # otherwise: the count rule for the oldest generation is off
    assert seen.count(1) >= 10 and 2 <= seen.count(2) <= 4
    assert during[:2] == gc.get_threshold()[:2] and during[2] == 2 ** 31 - 1


def test_no_full_collection_but_its_own_while_objects_pile_up():
    """Objects that stay alive (200 a millisecond) and cycles (10): Python's own rule runs
    full collections (a quarter more objects in the oldest generation than after the last
    one); the policy none in that second (its full clock is 600 s), and its young
    collections free the cycles."""
    python, _ = _collections_while(GcPolicy(young_s=0, full_s=0), 1.0, kept=200)
    assert python.count(2) >= 1
    gc.collect()
    freed_before = sum(s["collected"] for s in gc.get_stats())
    seen, during = _collections_while(GcPolicy(young_s=0.02, full_s=600, threshold0=100), 1.0, garbage=10,
                                      kept=200)
    assert seen.count(2) == 0 and seen.count(1) >= 20
    assert during[0] == 100
    assert sum(s["collected"] for s in gc.get_stats()) - freed_before > 1000


def test_zero_leaves_python_its_own_schedule():
    seen, during = _collections_while(GcPolicy(young_s=0, full_s=0), 0.3)
    assert during == gc.get_threshold()


@pytest.mark.parametrize("kwargs, cls, text", [
    ({"young_s": -1}, GcPolicyError, "young_s must be ≥ 0 seconds, not -1"),
    ({"full_s": float("nan")}, GcPolicyError, "full_s must be ≥ 0 seconds, not nan"),
    ({"threshold0": 0}, GcPolicyError, "threshold0 must be a positive number of objects, not 0"),
    ({"young_s": "1"}, GcPolicyTypeError, "young_s must be a number of seconds, not str"),
    ({"threshold0": 1.5}, GcPolicyTypeError, "threshold0 must be an int (objects), not float"),
])
def test_bad_settings_are_refused(kwargs, cls, text):
    before = gc.get_threshold()
    with pytest.raises(cls, match=text.replace("(", r"\(").replace(")", r"\)")):
        GcPolicy(**kwargs)
    assert issubclass(cls, ValueError) and gc.get_threshold() == before


def test_serve_refuses_negative_intervals(capsys):
    assert cli_main(["serve", "--gc-young", "-1"]) == 2
    assert "--gc-young and --gc-full are seconds ≥ 0" in capsys.readouterr().err
    assert cli_main(["serve", "--gc-full", "-0.5"]) == 2
    assert "--gc-young and --gc-full are seconds ≥ 0" in capsys.readouterr().err

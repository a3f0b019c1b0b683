"""Writes the frozen version-1 snapshots of tests/test_snapshot.py: each hand's snapshot
(NAME.bin) beside its record (NAME.json). Run once, when the format's version changed, to add
the new version's files; never rewrite a committed file (later versions must read them)."""
from __future__ import annotations

import random
from pathlib import Path

import ddz

HERE = Path(__file__).parent


def hands():
    rng = random.Random(2026)
    cases = {
        "classic-played": (ddz.Rules.classic(), {}),
        "classic-stakes-escape": (ddz.Rules.classic(classic_rob_cap=4), dict(base=10**12, initial_multiplier=7)),
        "classic-douzero": (ddz.Rules.classic_douzero(), {}),
        "twop-fractional": (ddz.Rules.two_player(twop_initial_multiplier=0.5, twop_fanshen_point="before_lead"), {}),
        "bengbu-played": (ddz.Rules.bengbu(), {}),
        "bengbu-cycle-timeout": (ddz.Rules.bengbu(bengbu_trio_chain_order="cycle", timeout_policy="bot"), {}),
    }
    for name, (rules, kw) in cases.items():
        g = ddz.Game(rules, seed=rng.randrange(2**64), **kw)
        steps = 0
        while not g.is_over and steps < 60:
            if name == "classic-stakes-escape" and steps == 10:
                g.escape(1)
            elif name == "bengbu-cycle-timeout" and steps == 5:
                g.elapsed(g.move_timeout_s)
            else:
                g.apply(rng.choice(g.legal_actions()))
            steps += 1
        yield name, g
    g = ddz.Game(ddz.Rules.classic(), hands=["33334444555566667", "77788889999TTTTJJ", "JJQQQQKKKKAAAA222"],
                 first_bidder=2)
    g.apply("CALL")
    yield "classic-injected", g


if __name__ == "__main__":
    for name, g in hands():
        for suffix, data in ((".bin", g.snapshot()), (".json", g.to_json().encode())):
            path = HERE / (name + suffix)
            if path.exists():
                raise SystemExit(f"{path} exists: frozen files are never rewritten")
            path.write_bytes(data)
        print(name, len(g.snapshot()), "bytes")

"""Frozen hands (tests/data/frozen/, written by tests/data/make_frozen.py): one ddz-game v1
record per variant and phase path (re-deals, void hands, robs and the final rob, shows before
and after the kitty, springs, timeouts, escapes, show-start, 翻身/压迫 at both points, bids,
grabs, open and closed play, bomb limits reached, missiles, 天炸/天尊 at the deal). Each must
replay to the same result and write back the same record, so a rebuilt whole-hand pipeline
keeps today's behaviour (RULES.md §2.1–§2.3, §3.6, §4)."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

import ddz
import ddz.record

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
import make_frozen  # noqa: E402

FROZEN = Path(__file__).resolve().parent / "data" / "frozen"
FILES = sorted(FROZEN.glob("*.json"))


def test_every_path_has_a_record():
    names = {f.stem for f in FILES}
    assert names == set(make_frozen.PATHS) | set(make_frozen.SPECIAL)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_frozen_record_replays_exactly(path):
    text = path.read_text(encoding="utf-8")
    g = ddz.Game.from_json(text)          # checks every action and the stored result
    assert g.is_over
    again, stored = json.loads(g.to_json()), json.loads(text)
    # an option added since the record was written comes back with its default; every stored
    # option, and everything else, comes back exactly
    new_options = again["rules"]["options"]
    assert all(new_options[k] == v for k, v in stored["rules"]["options"].items())
    # likewise a result field added since (GameResult.terms) is new; every stored field comes back exactly
    later = ddz.record._LATER_RESULT_FIELDS - set(stored["result"])
    assert set(again["result"]) - set(stored["result"]) == later
    again["result"] = {k: v for k, v in again["result"].items() if k not in later}
    assert {k: v for k, v in again.items() if k != "rules"} == {k: v for k, v in stored.items() if k != "rules"}
    need = make_frozen.PATHS[path.stem][2] if path.stem in make_frozen.PATHS else make_frozen.SPECIAL[path.stem][1]
    assert need <= make_frozen.features(g), path.stem

"""The models shipped with ddz (``ddz.learn.SHIPPED``, src/ddz/learn/models/): each is at most
8 MiB, is the file its index lists, loads (this build's action space and encoder), records its
rules preset and feature set, and beats RandomBot on duplicate deals; a variant without one is a
clear ``ModelError``; the wheel carries them (checked by building one: slow)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import ddz
from ddz.bots import RandomBot, RuleBot
from ddz.learn import SHIPPED, ModelError, NeuralBot, NeuralModel, shipped_model
from ddz.learn.features import ENCODER_VERSION, HAND_ENCODER_VERSION, action_space_fingerprint, encoder_fingerprint
from ddz.learn.shipped import INDEX_FILE, MAX_MODEL_BYTES, MODELS_DIR, shipped_path

ROOT = Path(__file__).resolve().parent.parent
VARIANTS = ("classic", "two_player", "bengbu")
# duplicate deals per shipped model against RandomBot (every seat rotation: players × deals hands)
GAMES = {"classic": 200, "two_player": 300, "bengbu": 150}


def test_the_index_lists_the_files_in_the_folder():
    index = json.loads((MODELS_DIR / INDEX_FILE).read_text(encoding="utf-8"))
    assert set(index["models"]) == set(SHIPPED) and set(SHIPPED) <= set(VARIANTS)
    files = {p.name for p in MODELS_DIR.iterdir() if p.suffix == ".npz"}
    assert files == {e["file"] for e in SHIPPED.values()}
    assert "classic" in SHIPPED


@pytest.mark.parametrize("variant", sorted(SHIPPED))
def test_a_shipped_model_loads_and_records_what_it_is(variant):
    entry = SHIPPED[variant]
    path = shipped_path(variant)
    assert entry["file"] == f"{variant}.npz"
    assert os.path.getsize(path) == entry["bytes"] <= MAX_MODEL_BYTES
    m = shipped_model(variant)
    assert NeuralModel.load(path).rules == m.rules      # loads as any model file does
    assert m.rules.variant == variant and m.meta["rules"]["preset"] == entry["preset"] == m.rules.preset
    assert m.meta["action_space"] == action_space_fingerprint(m.rules) == entry["action_space"]
    assert m.meta["encoder"] == encoder_fingerprint(m.rules, m.whole) == entry["encoder"]
    assert m.meta["encoder"].startswith((HAND_ENCODER_VERSION if m.whole else ENCODER_VERSION) + ":")
    assert m.whole == entry["whole"] and m.net == entry["net"] and m.num_params == entry["params"]
    assert entry["frames"] == m.meta["frames"] > 0 and entry["train_command"].startswith("ddz train --variant ")
    assert shipped_model(getattr(ddz.Rules, variant)()) is m   # by its rules too, loaded once


@pytest.mark.parametrize("variant", sorted(SHIPPED))
def test_a_shipped_model_beats_random_bot(variant):
    rules = getattr(ddz.Rules, variant)()
    n = rules.players
    agents = [NeuralBot.shipped(variant)] + [RandomBot(seed) for seed in range(1, n)]
    res = ddz.evaluate(agents, rules, games=GAMES[variant], seed=7)
    me = res["NeuralBot"].overall
    assert me.hands == GAMES[variant] * n
    others = [a.overall for a in res.agents if a.name != "NeuralBot"]
    assert me.win_rate > max(o.win_rate for o in others) and me.mean_score > 0, res.table()
    assert me.win_rate_ci[0] > 0.5, res.table()


def test_evaluate_takes_the_shipped_bot_beside_rule_bots():
    res = ddz.evaluate([NeuralBot.shipped("classic"), RuleBot(), RuleBot()], ddz.Rules.classic(), games=4, seed=1)
    assert res["NeuralBot"].overall.hands == 12


def without_model(monkeypatch, variant):
    """The package as if no model were shipped for ``variant`` (an index without its entry)."""
    import ddz.learn.shipped as S
    monkeypatch.setattr(S, "SHIPPED", {v: e for v, e in S.SHIPPED.items() if v != variant})
    S._load.cache_clear()  # models loaded before: loaded again from the real index afterwards
    return S


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_variant_without_a_model_is_a_clear_error(variant, monkeypatch):
    S = without_model(monkeypatch, variant)
    try:
        with pytest.raises(ModelError, match=f"no model is shipped for {variant}"):
            shipped_model(variant)
        with pytest.raises(ModelError, match=f"no model is shipped for {variant}"):
            NeuralBot.shipped(getattr(ddz.Rules, variant)())
    finally:
        S._load.cache_clear()


def test_names_rules_and_stakes():
    assert shipped_model("classic3") is shipped_model("CLASSIC")
    with pytest.raises(ddz.ArgumentError, match="unknown rules name"):
        shipped_model("chess")
    with pytest.raises(ddz.ArgumentTypeError):
        shipped_model(3)
    # a model plays its rules up to the stakes and the clock, not other play or auction options
    m = shipped_model("classic")
    assert m.plays(ddz.Rules.classic(move_timeout_s=10, timeout_policy="bot"))
    for other in (ddz.Rules.classic_douzero(), ddz.Rules.classic(classic_rob_cap=2), ddz.Rules.two_player()):
        assert not m.plays(other)
        with pytest.raises(ModelError, match="plays Rules.classic()"):
            shipped_model(other) if other.variant == "classic" else m.check_rules(other)
    twop = ddz.Rules.two_player()
    from test_learn_bot import random_model
    tm = random_model(twop, hidden=[8])
    assert tm.plays(ddz.Rules.two_player(twop_initial_multiplier=3, twop_room_coefficient=50))
    assert not tm.plays(ddz.Rules.two_player(twop_zero_sum=True))


def test_a_changed_file_is_refused(tmp_path, monkeypatch):
    """The index's size and SHA-256 are checked at load: a damaged install says to reinstall."""
    import ddz.learn.shipped as S
    src = shipped_path("classic")
    copy = tmp_path / "classic.npz"
    data = bytearray(src.read_bytes())
    data[len(data) // 2] ^= 0xFF  # one byte of the weights
    copy.write_bytes(bytes(data))
    monkeypatch.setattr(S, "MODELS_DIR", tmp_path)
    S._load.cache_clear()
    try:
        with pytest.raises(ModelError, match="reinstall"):
            S.shipped_model("classic")
    finally:
        S._load.cache_clear()


@pytest.mark.slow
def test_the_wheel_carries_the_models(tmp_path):
    """``pip wheel .``: every shipped model and the index are in the wheel (scikit-build-core's
    ``wheel.packages`` ships everything under src/ddz)."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "-w", str(tmp_path), "--no-deps", "-q"],
                   check=True, capture_output=True, timeout=3600)
    (wheel,) = tmp_path.glob("ddz-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "ddz/learn/models/index.json" in names
    for e in SHIPPED.values():
        assert f"ddz/learn/models/{e['file']}" in names

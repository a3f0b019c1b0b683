"""The match script (benchmarks/match.py) runs: two agents under every seat assignment of each deal, each variant."""
from __future__ import annotations

import json

import pytest

import ddz

import match


MEASURES = ("role_balanced_wp", "score_margin", "landlord_share", "seat_wp", "mean_score")


@pytest.mark.parametrize("variant,hands,seat_games,configs", [
    ("classic", 6, 9, ["ABB", "BAA"]), ("twop", 2, 2, ["AB"]), ("bengbu", 14, 28, ["ABBB", "AABB", "BAAA"])])
def test_match_runs_every_variant(variant, hands, seat_games, configs, tmp_path, capsys):
    """Every assignment of A to 1 <= k < n seats (BENGBU4: 1 + 3, 2 + 2 and 3 + 1); every measure
    with its interval, in the text and the JSON."""
    out = tmp_path / "m.json"
    assert match.main(["--variant", variant, "--a", "rule", "--b", "random", "--deals", "3", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["games"] == 3 * hands and res["games_per_deal"] == hands and res["a_seat_games"] == 3 * seat_games
    assert list(res["by_configuration"]) == configs
    assert sum(c["seat_games"] for c in res["by_configuration"].values()) == res["a_seat_games"]
    for m in MEASURES:
        assert isinstance(res[m], float) and len(res[m + "_ci"]) == 2
    text = capsys.readouterr().out
    for line in ("role-balanced WP", "score margin", "landlord share", "seat WP"):
        assert line in text


@pytest.mark.parametrize("variant", ["classic", "twop", "bengbu"])
def test_match_of_equal_agents_is_at_parity_and_a_better_one_above(variant, tmp_path):
    """RuleBot against RuleBot: every assignment of a deal is the same hand, so the role-balanced
    WP and the landlord share are exactly 0.5 and the margin 0; RuleBot against RandomBot is above."""
    out = tmp_path / "m.json"
    assert match.main(["--variant", variant, "--a", "rule", "--b", "rule", "--deals", "4", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["role_balanced_wp"] == 0.5 and res["landlord_share"] == 0.5 and res["score_margin"] == 0.0
    assert res["score_margin_ci"] == [0.0, 0.0] and res["roles_seen"] == ["landlord", "farmers"]
    assert match.main(["--variant", variant, "--a", "rule", "--b", "random", "--deals", "6", "--out", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["role_balanced_wp"] > 0.5 and res["score_margin_ci"][0] > 0


def test_douzero_protocol_runs_in_douzero_s_harness(tmp_path):
    """benchmarks/douzero_protocol.py: each deal twice in DouZero's GameEnv (A the landlord, then
    B); RuleBot against RandomBot wins most, and swapping A and B mirrors every figure."""
    pytest.importorskip("douzero.env.game")
    import douzero_protocol as dp

    out, back = tmp_path / "ab.json", tmp_path / "ba.json"
    assert dp.main(["--a", "rule", "--b", "random", "--deals", "6", "--out", str(out)]) == 0
    assert dp.main(["--a", "random", "--b", "rule", "--deals", "6", "--out", str(back)]) == 0
    ab, ba = json.loads(out.read_text()), json.loads(back.read_text())
    assert ab["wp"] > 0.5 and ab["wp"] == pytest.approx(1.0 - ba["wp"]) and ab["adp"] == pytest.approx(-ba["adp"])
    assert ab["a_landlord"]["wp"] == pytest.approx(1.0 - ba["a_farmers"]["wp"])
    d = dp.deals(3, 1)
    assert all(len(x["landlord"]) == 20 and len(x["landlord_up"]) == 17 and len(x["landlord_down"]) == 17
               and all(c in x["landlord"] for c in x["three_landlord_cards"]) for x in d)
    assert d == dp.deals(3, 1)


def test_match_seats_the_search_over_the_network_and_resumes_from_its_chunks(tmp_path, capsys):
    """``nsearch:...`` seats NeuralSearchBot with its keyword arguments; every decision with a choice
    is timed; with --chunks a second run reads the saved chunks instead of playing them again and
    gives the same measures."""
    out, chunks = tmp_path / "m.json", tmp_path / "chunks"
    argv = ["--a", "nsearch:64:topk=2:bid_worlds=32:call_at=0.7", "--b", "rule", "--deals", "3",
            "--chunks", str(chunks), "--chunk-size", "2", "--out", str(out)]
    assert match.main(argv) == 0
    first = json.loads(out.read_text())
    assert capsys.readouterr().out.count("played") == 2 and len(list(chunks.iterdir())) == 2
    assert first["a"] == argv[1] and first["deals"] == 3 and first["games"] == 18
    assert first["cpu_a"]["decisions"] > 50 and first["cpu_a"]["median_ms"] > 0
    assert match.main(argv) == 0
    again = json.loads(out.read_text())
    assert "played" not in capsys.readouterr().out
    for m in MEASURES + ("cpu_a", "cpu_b"):
        assert again[m] == first[m]
    # two shares side by side give the same chunks; the join reads them
    split = tmp_path / "split"
    for share in ("0/2", "1/2"):
        assert match.main(argv[:6] + ["--chunks", str(split), "--chunk-size", "2", "--share", share]) == 0
    assert sorted(p.name for p in split.iterdir()) == sorted(p.name for p in chunks.iterdir())
    assert match.main(argv[:6] + ["--chunks", str(split), "--chunk-size", "2", "--out", str(out)]) == 0
    assert all(json.loads(out.read_text())[m] == first[m] for m in MEASURES)
    bot = match.make_agent("nsearch:64:topk=2:bids=rule:blend=0.25", ddz.Rules.classic())
    assert (bot.rollout_worlds, bot.topk, bot.bids, bot.blend) == (64, 2, "rule", 0.25)
    from pathlib import Path
    twop = Path(ddz.learn.__file__).parent / "models" / "two_player.npz"
    bot = match.make_agent(f"nsearch@{twop}", ddz.Rules.two_player())
    assert bot.rules == ddz.Rules.two_player() and bot.rollout_worlds == 500


def test_round_robin_plays_every_pair_once_and_resumes(tmp_path, capsys):
    """benchmarks/round_robin.py: each pair once, every bot's CPU time over all its matches; a
    second run reads the saved pairs."""
    import round_robin
    argv = ["--bots", "random,rule,search:200", "--deals", "2", "--dir", str(tmp_path)]
    assert round_robin.main(argv) == 0
    res = json.loads((tmp_path / "summary.json").read_text())
    assert [(p["a"], p["b"]) for p in res["pairs"]] == [("random", "rule"), ("random", "search:200"),
                                                        ("rule", "search:200")]
    assert res["pairs"][0]["role_balanced_wp"] < 0.5 and all(c["decisions"] > 0 for c in res["cpu"].values())
    first = capsys.readouterr().out
    assert first.count(" against ") == 3
    assert round_robin.main(argv) == 0 and " against " not in capsys.readouterr().out
    assert json.loads((tmp_path / "summary.json").read_text()) == res


def test_peek_plays_a_proven_win():
    """``peek`` (hybrid_agents.Peek, a bound): in a position the open-hand solver proves won for
    its side, the action it plays keeps the win (a solve of the position after it agrees), whether
    SearchBot's choice or the solver's."""
    import hybrid_agents as H

    rules = ddz.Rules.two_player()
    peek = match.make_agent("peek:100000", rules)
    assert isinstance(peek, H.Peek) and peek.node_limit == 100000
    checked = 0
    for seed in range(10):
        g = ddz.Game(rules, seed=seed)
        while not g.is_over:
            s = g.current_seat
            a = peek.act(g, s)
            ps = g.play_state
            if ps is not None and len(g.legal_actions()) > 1 and sum(ps.cards_left(x) for x in range(2)) <= 14 and ddz.solve(ps).win:
                after = g.clone()
                after.apply(a, seat=s)
                if after.play_state is not None and not after.is_over:
                    ours = (after.current_seat == ps.landlord) == (s == ps.landlord)
                    assert ddz.solve(after.play_state).win == ours, (seed, a)
                checked += 1
            g.apply(a, seat=s)
    assert checked >= 10 and peek.stats["solver's win"] + peek.stats["searchbot wins"] >= checked

"""Table policy (issue #10 item 7; docs/rules.md §9): the timer, bot seats and escapes
live in ddz.hand.table, around the hand's state machine, and act only through its actions."""
from pathlib import Path

import ddz
from ddz.hand import game, table


def test_policy_lives_in_its_own_module():
    for name in ("elapsed", "timeout", "timeout_action", "set_bot", "clear_bot", "step_bots", "escape",
                 "time_left", "move_timeout_s", "bot_seats"):
        owner = next(k for k in type(ddz.Game(ddz.Rules.classic(), 1)).__mro__ if name in vars(k))
        assert owner is table.TablePolicy, name
    # the module's source (beside its compiled extension in an installed ddz: docs/architecture.md)
    src = (Path(game.__file__).parent / "game.py").read_text(encoding="utf-8")
    assert "def elapsed" not in src and "def set_bot" not in src


def test_a_timeout_is_recorded_and_applies_the_default_action():
    g = ddz.Game(ddz.Rules.classic(), 3)
    seat = g.current_seat
    assert g.elapsed(10) is None and g.time_left == 20
    assert g.elapsed(25) == "NO_CALL"                      # §3.6: the non-escalating choice
    assert g.history[-2:] == [(seat, "TIMEOUT"), (seat, "NO_CALL")]
    assert g.time_left == g.move_timeout_s                 # the next decision has its own time


def test_bots_play_their_seats_through_apply():
    g = ddz.Game(ddz.Rules.two_player(), 5)
    for s in range(2):
        g.set_bot(s)
    tokens = g.step_bots()
    assert g.is_over and [t for _, t in g.history if t not in ("TIMEOUT",)] == tokens
    again = ddz.Game.from_json(g.to_json())               # every bot action is an ordinary action
    assert again.result == g.result

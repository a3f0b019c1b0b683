"""Table policy (docs/rules.md §9): the timer, bot seats and escapes live in ddz.hand.table, an
object each Game holds, around the hand's state machine, and act only through its actions."""
from pathlib import Path

import ddz
from ddz.hand import game, table


POLICY = ("elapsed", "timeout", "timeout_action", "set_bot", "clear_bot", "step_bots", "escape",
          "time_left", "move_timeout_s", "bot_seats")


def test_policy_lives_in_its_own_object():
    """The policy is an object of ddz.hand.table that a Game holds (composition, not a mixin):
    it defines every policy method and holds the policy's state; Game's methods of the same
    names only ask it (one statement each, through ``self.table_policy``)."""
    import ast
    import inspect
    import textwrap

    g = ddz.Game(ddz.Rules.classic(), 1)
    assert type(g.table_policy) is table.TablePolicy and g.table_policy.game is g
    assert table.TablePolicy not in type(g).__mro__
    assert not {"_bots", "_clock", "_clock_at"} & set(type(g).__slots__)
    for name in POLICY:
        assert name in vars(table.TablePolicy), name
    # the module's source (beside its compiled extension in an installed ddz: docs/architecture.md)
    src = (Path(game.__file__).parent / "game.py").read_text(encoding="utf-8")
    cls = next(n for n in ast.parse(src).body if isinstance(n, ast.ClassDef) and n.name == "Game")
    methods = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
    for name in POLICY:
        body = [st for st in methods[name].body
                if not (isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant))]  # the docstring
        assert len(body) == 1 and "self.table_policy." in ast.unparse(body[0]), (name, ast.unparse(body[0]))


def test_a_clone_has_its_own_policy_and_a_pickle_keeps_it():
    g = ddz.Game(ddz.Rules.classic(), 2)
    g.set_bot(1)
    g.elapsed(5)
    c = g.clone()
    assert c.table_policy is not g.table_policy and c.table_policy.game is c
    assert c.bot_seats == [1] and c.time_left == g.time_left == 25
    c.clear_bot(1)
    assert g.bot_seats == [1]
    import pickle
    p = pickle.loads(pickle.dumps(g))
    assert p.table_policy.game is p and p.bot_seats == [1] and p.time_left == 25


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

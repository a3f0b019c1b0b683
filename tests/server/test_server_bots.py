"""The bot that plays a server's bot seats, chosen per variant (``ServerConfig.bot``, ``ddz serve
--bot [VARIANT=]rules|neural``, ``--model PATH``): NeuralBot plays the seats it is given, with the
shipped model or a model file loaded once; the rooms say which bot they seat; a model that is
missing, unreadable or of other rules stops the start in one line."""
from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("websockets")

import ddz  # noqa: E402
from ddz.learn import SHIPPED, ModelError, NeuralBot  # noqa: E402
from ddz.server import Server, ServerConfig  # noqa: E402
from ddz.server.bots import parse_bot  # noqa: E402
from ddz.bots import Bot, RuleBot, SearchBot  # noqa: E402

from _client import Client, eager, play_out, running  # noqa: E402
from _util import SERVE, free_port, run  # noqa: E402
from test_learn_bot import random_model  # noqa: E402


def _replays_by(table, bot):
    """Every action of the table's bot seats is the one ``bot`` chooses on the same state."""
    g = table.game
    replay = ddz.Game(g.rules, seed=g.seed)
    bot_moves = 0
    for seat, token in g.history:
        if seat in table.robots:
            assert replay.apply(bot.act(replay, seat), seat=seat) == token
            bot_moves += 1
        else:
            assert replay.apply(token, seat=seat) == token
    assert replay.is_over and replay.result == g.result
    return bot_moves


@pytest.mark.parametrize("room", ["novice", "score"])
def test_neural_bots_play_the_bot_seats(room, tmp_path):
    """CLASSIC3 by the shipped model, TWOP by a model file (a whole-hand one: it bids too)."""
    twop = random_model(ddz.Rules.two_player(), hidden=[16], whole=True, seed=1)
    twop.save(tmp_path / "twop.npz")

    async def main():
        async with running(str(tmp_path / "db.sqlite3"), bot={"classic": "neural", "twop": "neural"},
                           models=(str(tmp_path / "twop.npz"),)) as srv:
            assert isinstance(srv.bots["novice"], NeuralBot) and isinstance(srv.bots["score"], NeuralBot)
            assert srv.bots["novice"] is srv.bots["advanced"]            # one bot, one model per variant
            assert type(srv.bots["bengbu"]).__name__ == "RuleBot"
            c = await Client.connect(srv.port)
            welcome = await c.hello("ann")
            kinds = {r["name"]: r["bot"] for r in welcome["rooms"]}
            assert kinds["novice"] == kinds["score"] == "neural" and kinds["bengbu"] == "rules"
            await c.send({"type": "join", "room": room, "bots": True})
            await c.expect("matched")
            table = srv.tables[c.table]
            assert table.bot is srv.bots[room]
            (result,) = await play_out([c])
            assert result["type"] == "result"
            assert _replays_by(srv.tables.finished[c.table], srv.bots[room]) > 0
            await c.close()
    run(main())


def test_rule_bots_by_default_and_bot_choices():
    srv = Server(ServerConfig(db=":memory:"))
    assert {type(b).__name__ for b in srv.bots.values()} == {"RuleBot"}
    assert set(srv.bot_kinds.values()) == {"rules"}
    assert parse_bot([]) == {}
    assert parse_bot(["neural", "bengbu4=rules", "twop=rules"]) == {
        "classic": "neural", "two_player": "rules", "bengbu": "rules"}
    for bad in (["smart"], ["chess=neural"], ["classic=smart"]):
        with pytest.raises(ddz.ArgumentError):
            parse_bot(bad)


def test_models_that_cannot_serve_are_refused_at_construction(tmp_path):
    random_model(ddz.Rules.two_player(), hidden=[8]).save(tmp_path / "twop.npz")
    random_model(ddz.Rules.classic_douzero(), hidden=[8]).save(tmp_path / "dz.npz")
    (tmp_path / "junk.npz").write_bytes(b"junk")
    cases = [
        (dict(bot={"twop": "rules", "classic": "neural"}, models=(str(tmp_path / "twop.npz"),)),
         "whose bots play rules"),
        (dict(bot={"classic": "neural"}, models=(str(tmp_path / "dz.npz"),)), "plays Rules.classic_douzero()"),
        (dict(bot="neural", models=(str(tmp_path / "junk.npz"),)), "cannot read model"),
        (dict(bot={"twop": "neural"}, models=(str(tmp_path / "twop.npz"), str(tmp_path / "twop.npz"))),
         "two models"),
    ]
    if "bengbu" not in SHIPPED:
        cases.append((dict(bot={"bengbu": "neural"}), "no model is shipped for bengbu"))
    for config, words in cases:
        with pytest.raises(ModelError, match=words.replace("(", r"\(").replace(")", r"\)")):
            Server(ServerConfig(db=":memory:", **config))


def _one_line(err):
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_serve_with_a_model_it_cannot_play_is_one_line(tmp_path):
    random_model(ddz.Rules.classic_douzero(), hidden=[8]).save(tmp_path / "dz.npz")

    async def fails(*args):
        p = await asyncio.create_subprocess_exec(*SERVE, "--db", str(tmp_path / "db.sqlite3"), "--port",
                                                 str(free_port()), *args, stdout=asyncio.subprocess.PIPE,
                                                 stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await asyncio.wait_for(p.communicate(), 60)
        except asyncio.TimeoutError:
            p.kill()
            await p.wait()
            raise AssertionError(f"ddz serve {args} started")
        return p.returncode, _one_line(err.decode())

    async def main():
        code, line = await fails("--bot", "classic=neural", "--model", str(tmp_path / "dz.npz"))
        assert code == 2 and line.startswith("ddz serve: ") and "classic_douzero" in line, line
        code, line = await fails("--bot", "classic=genius")
        assert code == 2 and line.startswith("ddz serve: --bot: ") and "genius" in line, line
        assert not (tmp_path / "db.sqlite3").exists()      # nothing was touched
    run(main())


class SlowBot(Bot):
    """RuleBot's decisions, each after ``delay`` seconds of (sleeping) thought: a bot that takes
    long, as a SearchBot or a model may. ``spans``: when each decision began and ended."""

    def __init__(self, delay):
        self.delay = delay
        self.rule = RuleBot()
        self.spans = []

    def act(self, game, seat):
        t0 = time.monotonic()
        time.sleep(self.delay)
        self.spans.append((t0, time.monotonic()))
        return self.rule.act(game, seat)


async def _quick_hands(c, stop, answered):
    """``c`` plays hands with RuleBots in ``score`` until ``stop`` is set, acting at once on each
    decision; ``answered``: (sent, answered) of each action, the answer being the update that
    shows it."""
    while not stop.is_set():
        await c.send({"type": "join", "room": "score", "bots": True})
        await c.expect("matched")
        m = await c._recv(10)
        while m["type"] != "result":
            if m["type"] != "obs" or m["obs"]["current_seat"] != c.seat or not m["obs"]["legal_actions"]:
                m = await c._recv(10)
                continue
            n = len(m["obs"]["history"])
            t0 = time.monotonic()
            await c.act(eager(m["obs"]["legal_actions"]), m["seq"])
            m = await c._recv(10)
            while m["type"] != "obs" or len(m["obs"]["history"]) <= n:  # the update that shows it
                assert m["type"] not in ("illegal", "error", "result"), m
                m = await c._recv(10)
            answered.append((t0, time.monotonic()))


def test_a_slow_bot_does_not_hold_up_another_tables_player(tmp_path):
    """A bot that thinks 200 ms per decision (CLASSIC3's two bot seats) thinks off the event
    loop: meanwhile another table's player is answered within milliseconds, never after the
    bot's 200 ms (inline, every table waited for it); its table plays on to the end."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), rate=1000, burst=1000) as srv:
            slow = srv.bots["novice"] = SlowBot(0.2)
            a, b = await Client.connect(srv.port), await Client.connect(srv.port)
            await a.hello("ann")
            await b.hello("bob")
            await a.send({"type": "join", "room": "novice", "bots": True})
            await a.expect("matched")
            stop, answered = asyncio.Event(), []
            quick = asyncio.ensure_future(_quick_hands(b, stop, answered))
            (result,) = await play_out([a], timeout=120)
            stop.set()
            await asyncio.wait_for(quick, 30)
            assert result["type"] == "result"
            # the actions sent while the bot thought, 100 ms or more before it answered (the client runs
            # on the server's loop: with the bot on the loop, none is sent then)
            during = [t1 - t0 for t0, t1 in answered if any(s0 < t0 < s1 - 0.1 for s0, s1 in slow.spans)]
            assert len(slow.spans) >= 3 and len(during) >= 5, (len(slow.spans), len(during))
            assert max(during) < 0.1, sorted(during)[-5:]
            t = srv.tables.finished[a.table]
            assert t.bot_stale == t.bot_late == 0
            await a.close()
            await b.close()
    run(main())


def test_a_bot_past_the_move_clock_times_out_and_its_late_answer_is_dropped(tmp_path):
    """A bot's thinking is bounded by the move clock: past it, its seat times out (§3.6) as a
    person's would, and the answer that comes after is stale and dropped: nothing is applied
    twice, the hand plays to its end and replays from its record."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3"), move_timeout_s=0.15) as srv:
            slow = srv.bots["novice"] = SlowBot(0.4)
            a = await Client.connect(srv.port)
            await a.hello("ann")
            await a.send({"type": "join", "room": "novice", "bots": True})
            await a.expect("matched")
            (result,) = await play_out([a], timeout=120)
            assert result["type"] == "result"
            t = srv.tables.finished[a.table]
            await asyncio.sleep(0.5)  # the last bot's answer, if any, comes back
            assert t.bot_late >= 1 and t.bot_stale >= 1 and len(slow.spans) >= t.bot_stale
            g = ddz.Game.from_json(t.game.to_json())
            assert g.is_over and g.result == t.game.result
            await a.close()
    run(main())


def test_search_bots_play_the_bot_seats():
    srv = Server(ServerConfig(db=":memory:", bot={"classic": "search"}, search_nodes=500))
    assert isinstance(srv.bots["novice"], SearchBot) and srv.bots["novice"].node_limit == 500
    assert srv.bot_kinds["novice"] == "search" and srv.bot_kinds["score"] == "rules"

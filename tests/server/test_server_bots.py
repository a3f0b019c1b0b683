"""The bot that plays a server's bot seats, chosen per variant (``ServerConfig.bot``, ``ddz serve
--bot [VARIANT=]rules|neural|search``, ``--model PATH``): NeuralBot plays the seats it is given,
with the shipped model or a model file loaded once; the rooms say which bot they seat; a model
that is missing, unreadable or of other rules stops the start in one line. A bot other than
RuleBot thinks off the event loop: no other table waits for it, the move clock bounds it, an
answer to a decision closed since is dropped, a bot that fails has RuleBot play for it, and a
stop does not wait for it."""
from __future__ import annotations

import asyncio
import json
import logging
import threading
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
            logged, append = [], srv.journal.append

            def log_op(hand_id, n, text, *rest):
                logged.append(json.loads(text))
                return append(hand_id, n, text, *rest)
            srv.journal.append = log_op
            await c.send({"type": "join", "room": room, "bots": True})
            await c.expect("matched")
            table = srv.tables[c.table]
            assert table.bot is srv.bots[room]
            (result,) = await play_out([c])
            assert result["type"] == "result"
            assert _replays_by(srv.tables.finished[c.table], srv.bots[room]) > 0
            # NeuralBot answers action ids: the hand log keeps the tokens played, which a resume replays
            assert logged and all(isinstance(op, str) for _, op in logged), logged[:5]
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
        code, line = await fails("--bot", "search", "--search-nodes", "0")
        assert code == 2 and line == "ddz serve: --search-nodes must be a positive count of nodes, not 0", line
        code, line = await fails("--bot-threads", "65")
        assert code == 2 and line == "ddz serve: --bot-threads must be a count of 1 to 64 threads, not 65", line
        assert not (tmp_path / "db.sqlite3").exists()      # nothing was touched
    run(main())


class SlowBot(Bot):
    """RuleBot's decisions, each after ``delay`` seconds of (sleeping) thought: a bot that takes
    long, as a SearchBot or a model may. ``calls``: when each decision began; ``spans``: when
    each began and ended. ``release``: set, the decisions under way end at once."""

    def __init__(self, delay):
        self.delay = delay
        self.rule = RuleBot()
        self.calls = []
        self.spans = []
        self.release = threading.Event()

    def act(self, game, seat):
        t0 = time.monotonic()
        self.calls.append(t0)
        self.release.wait(self.delay)
        self.spans.append((t0, time.monotonic()))
        return self.rule.act(game, seat)


async def _until(cond, limit=10.0):
    t_end = time.monotonic() + limit
    while not cond():
        assert time.monotonic() < t_end, "waited in vain"
        await asyncio.sleep(0.01)


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
            # the actions sent while the bot thought, 100 ms or more before it answered: with the bot
            # on the loop (the client runs on the server's loop) none is sent then, and each would be
            # answered only once the bot had; off the loop they are answered at once (each answer
            # waits for its log row on the disk: a rare one may take longer on a busy machine)
            during = sorted(t1 - t0 for t0, t1 in answered if any(s0 < t0 < s1 - 0.1 for s0, s1 in slow.spans))
            assert len(slow.spans) >= 3 and len(during) >= 5, (len(slow.spans), len(during))
            assert during[len(during) // 2] < 0.03 and during[(len(during) * 3) // 4] < 0.1, during
            t = srv.tables.finished[a.table]
            assert t.bot_stale == t.bot_late == t.bot_failed == 0
            await a.close()
            await b.close()
    run(main())


def test_a_bot_past_the_move_clock_times_out_and_its_late_answer_is_dropped(tmp_path, caplog):
    """A bot's thinking is bounded by the move clock: past it, its seat times out (the clock's
    default, as a person's would) and the answer that comes after is stale and dropped:
    nothing is applied twice, the hand plays to its end and replays from its record."""
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
            await _until(lambda: len(slow.spans) == len(slow.calls))  # the last bot's answer comes back
            await asyncio.sleep(0.05)
            assert t.bot_late >= 1 and t.bot_stale >= 1 and len(slow.spans) >= t.bot_stale
            timeouts = [s for s, op in t.game.history if op == "TIMEOUT"]
            assert len(timeouts) >= t.bot_late and set(timeouts) <= t.robots | {a.seat}
            g = ddz.Game.from_json(t.game.to_json())
            assert g.is_over and g.result == t.game.result
            await a.close()
    with caplog.at_level(logging.WARNING, logger="ddz.server"):
        run(main())
    assert any("did not answer within the move clock" in r.getMessage() for r in caplog.records)


def test_a_bot_answer_after_its_player_came_back_is_dropped(tmp_path):
    """A player's seat goes to the room's bot while they are away; they come back while it
    thinks: the decision is theirs again, they act, and the bot's answer, when it comes, is
    dropped (it answers a decision that is no longer the bot's)."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            slow = srv.bots["novice"] = SlowBot(0.5)
            a = await Client.connect(srv.port)
            await a.hello("ann")
            await a.send({"type": "join", "room": "novice", "bots": True})
            await a.expect("matched")
            tid, seat, seat_token, token = a.table, a.seat, a.seat_token, a.token
            t = srv.tables[tid]
            # the bots' first decisions (each 0.5 s) until it is ann's turn
            await _until(lambda: t.game.current_seat == seat and t.stored == t.logged)
            calls = len(slow.calls)
            await a.ws.close()
            await _until(lambda: len(slow.calls) > calls)  # the room's bot thinks for ann's seat
            n = len(t.game.history)
            b = await Client.connect(srv.port)
            w = await b.hello("ann", token)
            assert w["table"]["table"] == tid
            b.table, b.seat, b.seat_token = tid, seat, seat_token
            await b.send({"type": "resume", "table": tid, "seat_token": seat_token})
            m = await b.latest_obs(0.1)
            assert m["obs"]["current_seat"] == seat and len(m["obs"]["history"]) == n
            action = eager(m["obs"]["legal_actions"])
            await b.act(action, m["seq"])
            await _until(lambda: len(slow.spans) > calls)  # the bot's answer came
            await asyncio.sleep(0.05)
            assert t.bot_stale == 1 and t.bot_late == 0
            assert t.game.history[n] == (seat, action)  # ann's own action, once
            (result,) = await play_out([b], timeout=120)
            assert result["type"] == "result"
            g = ddz.Game.from_json(t.game.to_json())
            assert g.is_over and g.result == t.game.result
            await b.close()
    run(main())


class FaultyBot(Bot):
    """A bot of the host's that fails every decision (``fault``: raises, answers an action that
    is not legal, answers no action). ``expected``: by history index, the token RuleBot plays
    in its place."""

    def __init__(self, fault):
        self.fault = fault
        self.expected = {}

    def act(self, game, seat):
        rule = RuleBot().act(game, seat)
        self.expected[len(game.history)] = (seat, game.clone().apply(rule, seat=seat))
        if self.fault == "raises":
            raise RuntimeError("the model's file went away")
        if self.fault == "illegal":
            return "CALL" if game.phase == "PLAY" else "PASS"
        return None


@pytest.mark.parametrize("fault", ["raises", "illegal", "none"])
def test_a_failing_bot_is_replaced_by_rule_bot(fault, tmp_path, caplog):
    """A bot that raises, or answers an illegal action or no action, does not stop its table:
    RuleBot plays that decision, the error is logged, the hand plays to its end."""
    async def main():
        async with running(str(tmp_path / "db.sqlite3")) as srv:
            bot = srv.bots["novice"] = FaultyBot(fault)
            a = await Client.connect(srv.port)
            await a.hello("ann")
            await a.send({"type": "join", "room": "novice", "bots": True})
            await a.expect("matched")
            (result,) = await play_out([a], timeout=120)
            assert result["type"] == "result"
            t = srv.tables.finished[a.table]
            assert len(bot.expected) >= 2 and t.bot_failed == len(bot.expected) and t.bot_stale == t.bot_late == 0
            for i, (seat, token) in bot.expected.items():
                assert t.game.history[i] == (seat, token), i
            assert all(s == a.seat for i, (s, _) in enumerate(t.game.history)
                       if i not in bot.expected and s is not None)
            metrics = srv.metrics.exposition()
            if metrics is not None:
                assert f'ddz_bot_answers_total{{outcome="failed"}} {float(len(bot.expected))}' in metrics.decode()
            await a.close()
    with caplog.at_level(logging.ERROR, logger="ddz.server"):
        run(main())
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors and all("RuleBot plays its decision" in e for e in errors), errors[:3]
    assert ("RuntimeError: the model's file went away" if fault == "raises" else "answered") in errors[0]


def test_a_stop_does_not_wait_for_a_thinking_bot_and_the_hand_resumes_with_the_pool(tmp_path):
    """A server stops at once while a bot thinks (its pool is shut down, the decision under
    way not waited for: its answer is dropped); the next server on the database resumes the
    hand, and its bots think on its own pool until the hand ends."""
    db = str(tmp_path / "db.sqlite3")

    async def main():
        stuck = SlowBot(60)
        srv = Server(ServerConfig(db=db, bot_delay_s=0.0))
        srv.bots["novice"] = stuck
        await srv.start("127.0.0.1", 0)
        try:
            a = await Client.connect(srv.port)
            await a.hello("ann")
            await a.send({"type": "join", "room": "novice", "bots": True})
            await a.expect("matched")
            tid, token = a.table, a.token
            t = srv.tables[tid]
            while not stuck.calls:  # ann bids until a bot seat is to decide
                m = await a.latest_obs(0.05)
                if m["obs"]["current_seat"] == a.seat and m["seq"] == t.seq:
                    await a.act(eager(m["obs"]["legal_actions"]), m["seq"])
            t0 = time.monotonic()
            await srv.stop()
            assert time.monotonic() - t0 < 5 and not stuck.spans   # the bot still thinks
            with pytest.raises(RuntimeError):
                srv.bot_pool.submit(int)
            n = len(t.game.history)
            stuck.release.set()
            await _until(lambda: stuck.spans)
            await asyncio.sleep(0.05)
            assert len(t.game.history) == n and t.bot_stale == 1      # dropped with its frozen table
        finally:
            stuck.release.set()
            await srv.stop()

        slow = SlowBot(0.02)
        srv2 = Server(ServerConfig(db=db, bot_delay_s=0.0))
        srv2.bots["novice"] = slow
        await srv2.start("127.0.0.1", 0)
        try:
            b = await Client.connect(srv2.port)
            w = await b.hello("ann", token)
            assert w["table"]["table"] == tid and not w["table"]["over"]
            b.table, b.seat, b.seat_token = tid, w["table"]["seat"], w["table"]["seat_token"]
            await b.send({"type": "resume", "table": tid, "seat_token": b.seat_token})
            t2 = srv2.tables[tid]
            assert t2.pool is srv2.bot_pool and t2.game.history[:n] == t.game.history[:n]
            (result,) = await play_out([b], timeout=120)
            assert result["type"] == "result"
            assert slow.calls and t2.bot_failed == t2.bot_late == 0
            g = ddz.Game.from_json(t2.game.to_json())
            assert g.is_over and g.result == t2.game.result
            await b.close()
        finally:
            await srv2.stop()
    run(main())


def test_search_bots_play_the_bot_seats(tmp_path):
    """``bot="search"``: SearchBot with the node limit given plays the bot seats (off the event
    loop), the rooms say so, and a hand with them plays to its end."""
    srv = Server(ServerConfig(db=":memory:", bot={"classic": "search"}, search_nodes=500))
    assert isinstance(srv.bots["novice"], SearchBot) and srv.bots["novice"].node_limit == 500
    assert srv.bots["novice"].time_per_move is None
    assert srv.bot_kinds["novice"] == "search" and srv.bot_kinds["score"] == "rules"

    async def main():
        async with running(str(tmp_path / "db.sqlite3"), bot="search", search_nodes=1000, bot_threads=2) as srv:
            c = await Client.connect(srv.port)
            welcome = await c.hello("ann")
            assert {r["bot"] for r in welcome["rooms"]} == {"search"}
            await c.send({"type": "join", "room": "score", "bots": True})
            await c.expect("matched")
            t = srv.tables[c.table]
            (result,) = await play_out([c], timeout=120)
            assert result["type"] == "result"
            assert any(s in t.robots for s, _ in t.game.history)
            assert t.bot_failed == t.bot_late == t.bot_stale == 0
            g = ddz.Game.from_json(t.game.to_json())
            assert g.is_over and g.result == t.game.result
            await c.close()  # every message as the schema says ("bot": "search" included)
    run(main())


def test_nsearch_bots_play_the_bot_seats(tmp_path):
    """``bot="nsearch"``: NeuralSearchBot over the variant's model (the shipped one, or a model
    file), its exact search within the node limit given, plays the bot seats off the event loop;
    the rooms say so; every bot decision with a choice was its own (none failed, none timed out),
    and a model is accepted for an nsearch variant as for a neural one."""
    from ddz.learn import NeuralSearchBot
    twop = random_model(ddz.Rules.two_player(), hidden=[16], whole=True, seed=1)
    twop.save(tmp_path / "twop.npz")
    srv = Server(ServerConfig(db=":memory:", bot={"classic": "nsearch", "twop": "nsearch"}, search_nodes=500,
                              models=(str(tmp_path / "twop.npz"),)))
    assert isinstance(srv.bots["novice"], NeuralSearchBot) and srv.bots["novice"].node_limit == 500
    # the variant's strongest measured settings but the node limit given
    from ddz.learn.nsearch import STRONGEST
    assert all(getattr(srv.bots["novice"], k) == v for k, v in STRONGEST["classic"].items() if k != "node_limit")
    assert srv.bots["novice"] is srv.bots["advanced"]                                # one bot a variant
    assert srv.bots["novice"].net.model is ddz.learn.shipped_model("classic")
    twop_room = next(n for n, r in srv.rooms.items() if r.variant == "two_player")
    assert srv.bots[twop_room].net.model.arrays.keys() == twop.arrays.keys()         # the file given
    assert srv.bot_kinds["novice"] == "nsearch" and srv.bot_kinds["bengbu"] == "rules"
    with pytest.raises(ModelError, match="choose neural or nsearch for two_player"):
        Server(ServerConfig(db=":memory:", bot={"classic": "nsearch"}, models=(str(tmp_path / "twop.npz"),)))
    assert parse_bot(["nsearch", "bengbu=rules"]) == {"classic": "nsearch", "two_player": "nsearch",
                                                      "bengbu": "rules"}

    async def main():
        async with running(str(tmp_path / "db.sqlite3"), bot={"classic": "nsearch"}, search_nodes=1000,
                           bot_threads=2) as srv:
            bot = srv.bots["novice"]
            seen = []
            act = bot.act

            def noted(game, seat):
                a = act(game, seat)
                seen.append(dict(bot.last))
                return a
            bot.act = noted
            c = await Client.connect(srv.port)
            welcome = await c.hello("ann")
            assert {r["bot"] for r in welcome["rooms"] if r["variant"] == "classic"} == {"nsearch"}
            await c.send({"type": "join", "room": "novice", "bots": True})
            await c.expect("matched")
            t = srv.tables[c.table]
            (result,) = await play_out([c], timeout=180)
            assert result["type"] == "result"
            assert any(s in t.robots for s, _ in t.game.history)
            assert t.bot_failed == t.bot_late == t.bot_stale == 0
            # it searched: play decisions by rollouts or the exact solver, within the node limit
            hows = {d.get("how") for d in seen}
            assert hows & {"rollouts", "exact", "probe"}, hows
            assert all(d.get("probe_nodes", 0) <= 1001 and d.get("most_nodes", 0) <= 1001 for d in seen)
            g = ddz.Game.from_json(t.game.to_json())
            assert g.is_over and g.result == t.game.result
            await c.close()  # every message as the schema says ("bot": "nsearch" included)
    run(main())

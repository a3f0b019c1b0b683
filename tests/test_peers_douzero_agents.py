"""``ddz.peers.douzero_agents``: a DouZero checkpoint playing in ddz (``DouZeroAgent``), ddz bots
playing in DouZero's ``GameEnv`` (``as_douzero_agent``), and the two harnesses agreeing.

The checkpoints are made here as DouZero's trainer saves them: DouZero's own model classes
(``douzero.dmc.models``) with a fixed torch seed, their state dicts written as
``<position>_weights_0.ckpt``. ``DouZeroAgent``'s Q values (ddz's network on ddz's encoder) are
checked against DouZero's ``DeepAgent`` (DouZero's network on DouZero's ``get_obs``) on a few
hundred states of random games played in both engines at once; then whole deals are played
with a ddz bot against the checkpoint in ddz (``DouZeroAgent``) and in DouZero's ``GameEnv``
(``DeepAgent`` beside ``as_douzero_agent(bot)``), and every play, the winner and the bombs must
be the same. Everything is deterministic (argmax agents, seeded fills)."""
from __future__ import annotations

import copy
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("douzero.env.game")
dz_models = pytest.importorskip("douzero.dmc.models")  # needs GitPython: douzero.dmc imports git

import ddz  # noqa: E402
from douzero.env.env import get_obs  # noqa: E402
from douzero.env.game import GameEnv  # noqa: E402
from douzero.evaluation.deep_agent import DeepAgent  # noqa: E402
from ddz.peers import DouZeroAgent, as_douzero_agent, fixed_auction_action  # noqa: E402
from ddz.peers.douzero_agents import DOUZERO_POSITIONS, ddz_ranks, douzero_cards  # noqa: E402
from ddz.learn import NeuralBot, NeuralModel, features_for  # noqa: E402
from ddz.learn.nets import net_config, param_shapes  # noqa: E402

R = ddz.Rules.classic_douzero()
BOMBS = [[c] * 4 for c in (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17)] + [[20, 30]]


@pytest.fixture(scope="module", autouse=True)
def one_torch_thread():
    """For DouZero's DeepAgent (DouZeroAgent runs on one thread by itself): small products, far
    faster on one thread on a loaded machine."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def ckpt_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("douzero_ckpt")
    torch.manual_seed(20210701)
    for p in DOUZERO_POSITIONS:
        torch.save(dz_models.model_dict[p]().state_dict(), d / f"{p}_weights_0.ckpt")
    return d


@pytest.fixture(scope="module")
def agent(ckpt_dir):
    return DouZeroAgent(ckpt_dir)


@pytest.fixture(scope="module")
def deep_agents(ckpt_dir):
    return {p: DeepAgent(p, str(ckpt_dir / f"{p}_weights_0.ckpt")) for p in DOUZERO_POSITIONS}


class _Told:
    """A DouZero player that plays what it is told."""

    action: list = []

    def act(self, infoset):
        return self.action


def _random_states(n, seed):
    """(ddz play state, DouZero infoset) pairs of random games played in both engines at once."""
    rng = random.Random(seed)
    out, game = [], 0
    while len(out) < n:
        hands, landlord = ddz.deal(R, seed, game)
        game += 1
        ps = ddz.PlayState(hands, landlord, R)
        seats = {p: _Told() for p in DOUZERO_POSITIONS}
        env = GameEnv(seats)
        pos_of = {(landlord + k) % 3: DOUZERO_POSITIONS[k] for k in range(3)}
        env.card_play_init({pos_of[s]: douzero_cards(str(hands[s])) for s in range(3)}
                           | {"three_landlord_cards": douzero_cards(str(hands[landlord]))[:3]})
        while not ps.is_over:
            out.append((ps.clone(), env.game_infoset))
            move = rng.choice(ps.legal_moves())
            seats[env.acting_player_position].action = [] if move.is_pass else douzero_cards(str(move))
            env.step()
            ps.apply(move)
    return out[:n]


def test_q_values_and_choices_equal_douzero_deep_agent(agent, deep_agents):
    compared = chosen = 0
    for ps, info in _random_states(300, seed=3):
        theirs = get_obs(info)
        deep = deep_agents[info.player_position]
        with torch.no_grad():
            y = deep.model.forward(torch.from_numpy(theirs["z_batch"]).float(), torch.from_numpy(theirs["x_batch"]).float(),
                                   return_value=True)["values"].numpy()[:, 0]
        # DouZero's network on DouZero's features: the same function
        np.testing.assert_allclose(agent.q_values_obs(theirs), y, rtol=0, atol=1e-5)
        # ddz's encoder, in ddz's legal order: the same values action by action
        ids, acts, q = agent.q_values(ps)
        assert len(ids) == len(acts) == len(q)
        q_of = {tuple(a): v for a, v in zip(acts, q)}
        y_of = {tuple(a): v for a, v in zip(info.legal_actions, y)}
        common = set(q_of) & set(y_of)
        assert len(common) >= len(q_of) - 1  # DouZero's defects (docs/peers.md) change a set rarely
        for a in common:
            assert abs(q_of[a] - y_of[a]) <= 1e-5, (ps, a)
        compared += len(common)
        if set(q_of) == set(y_of):  # the choice: DeepAgent's act against DouZeroAgent's
            game_choice = acts[int(np.argmax(q))] if len(ids) > 1 else acts[0]
            assert deep.act(info) == game_choice, ps
            chosen += 1
    assert compared > 1500 and chosen > 280, (compared, chosen)


def _deal(seed):
    """A deal as (the landlord's 17 cards, the kitty, landlord_down's, landlord_up's): rank strings."""
    deck = list("3456789TJQKA2" * 4 + "BR")
    random.Random(seed).shuffle(deck)
    return "".join(deck[:17]), "".join(deck[17:20]), "".join(deck[20:37]), "".join(deck[37:])


def _play_in_ddz(deal, agents):
    """Plays ``deal`` in a ddz.Game: the landlord is seat 0 (fixed auction); ``agents[seat]``."""
    ll, kitty, down, up = deal
    g = ddz.Game(R, 0, hands=[ll, down, up], kitty=kitty, first_bidder=0)
    while g.phase != "PLAY":
        g.apply(fixed_auction_action(g.legal_actions()))
    assert g.landlord == 0
    plays = []
    while not g.is_over:
        seat = g.current_seat
        before = str(g.hand(seat))
        g.apply(agents[seat].act(g, seat), seat)
        after = list(str(g.hand(seat)))
        gone = list(before)
        for c in after:
            gone.remove(c)
        plays.append("".join(gone))
    bombs = sum(1 for p in plays if douzero_cards(p) in BOMBS)
    return plays, g.result.winner_side.rstrip("s"), bombs, g.result


def _play_in_douzero(deal, players):
    ll, kitty, down, up = deal
    env = GameEnv(players)
    env.card_play_init({"landlord": douzero_cards(ll + kitty), "landlord_down": douzero_cards(down),
                        "landlord_up": douzero_cards(up), "three_landlord_cards": douzero_cards(kitty)})
    while not env.game_over:
        env.step()
    return [ddz_ranks(a) for a in env.card_play_action_seq], env.get_winner(), env.get_bomb_num()


def _random_neural_bot(seed=0):
    f = features_for(R)
    net = net_config("small", [32])
    rng = np.random.default_rng(seed)
    arrays = {f"p{p}.{k}": (rng.standard_normal(s) * 0.1).astype(np.float32)
              for p in range(3) for k, s in param_shapes(net, f.state_dim, f.action_dim, 3 * f.move_dim).items()}
    return NeuralBot(NeuralModel(R, net, arrays, meta={"frames": 0}))


@pytest.mark.parametrize("ddz_side", ["landlord", "farmers"])
@pytest.mark.parametrize("bot", ["RuleBot", "NeuralBot"])
def test_ddz_and_douzero_harnesses_agree(agent, deep_agents, ddz_side, bot):
    """The same deals, a ddz bot against the checkpoint: every play, the winner and the bombs are
    the same in ddz's Game and in DouZero's GameEnv."""
    make = (lambda: ddz.bots.RuleBot()) if bot == "RuleBot" else (lambda: _random_neural_bot())
    for k in range(6):
        deal = _deal(100 * k + len(ddz_side) + len(bot))
        if ddz_side == "landlord":
            ours = [make(), agent, agent]
            seats = [as_douzero_agent(make()), deep_agents["landlord_down"], deep_agents["landlord_up"]]
        else:
            ours = [agent, make(), make()]
            seats = [deep_agents["landlord"], as_douzero_agent(make(), seed=1), as_douzero_agent(make(), seed=2)]
        for s in seats:  # the kitty is public; DouZero's farmers see only its unplayed cards
            if hasattr(s, "tell_kitty"):
                s.tell_kitty(douzero_cards(deal[1]))
        plays, winner, bombs, _ = _play_in_ddz(deal, ours)
        theirs = _play_in_douzero(deal, dict(zip(DOUZERO_POSITIONS, seats)))
        assert (plays, winner, bombs) == theirs, deal
        assert all(getattr(s, "fallbacks", 0) == 0 for s in seats)


def test_douzero_evaluator_loop_counts_as_ddz(agent, deep_agents, monkeypatch):
    """DouZero's evaluator loop itself (``simulation.mp_simulate``: one GameEnv, reset between
    deals, its win and score counts), its agents given as objects, against ddz's count of the
    same deals: the checkpoint as landlord, RuleBot farmers."""
    from douzero.evaluation import simulation

    deals = [_deal(500 + k) for k in range(5)]
    players = {"landlord": deep_agents["landlord"], "landlord_down": as_douzero_agent(ddz.bots.RuleBot()),
               "landlord_up": as_douzero_agent(ddz.bots.RuleBot())}
    monkeypatch.setattr(simulation, "load_card_play_models", lambda paths: players)

    class Queue(list):
        put = list.append

    q = Queue()
    data = [{"landlord": douzero_cards(ll + kitty), "landlord_down": douzero_cards(down),
             "landlord_up": douzero_cards(up), "three_landlord_cards": douzero_cards(kitty)}
            for ll, kitty, down, up in deals]
    simulation.mp_simulate(data, {}, q)
    wins = {"landlord": 0, "farmer": 0}
    scores = {"landlord": 0, "farmer": 0}
    for deal in deals:
        _, winner, bombs, _ = _play_in_ddz(deal, [agent, ddz.bots.RuleBot(), ddz.bots.RuleBot()])
        wins[winner] += 1
        for side, base in (("landlord", 2), ("farmer", 1)):
            scores[side] += (base if side == winner else -base) * 2 ** bombs
    assert q == [(wins["landlord"], wins["farmer"], scores["landlord"], scores["farmer"])]


def test_search_bot_random_bot_and_callables_play_in_douzero(agent, deep_agents):
    players = {"landlord": as_douzero_agent(ddz.bots.SearchBot(time_per_move=0.002, worlds=4, rollout_worlds=20)),
               "landlord_down": as_douzero_agent(ddz.bots.RandomBot(seed=1)),
               "landlord_up": as_douzero_agent(lambda obs: obs["legal_action_ids"][0], name="first")}
    plays, winner, bombs = _play_in_douzero(_deal(7), players)
    assert winner in ("landlord", "farmer") and plays
    # the DouZero agent itself, wrapped back: the same plays as DouZero's DeepAgent
    deal = _deal(8)
    a = _play_in_douzero(deal, {p: as_douzero_agent(agent) for p in DOUZERO_POSITIONS})
    b = _play_in_douzero(deal, dict(deep_agents))
    assert a == b


def test_rebuilt_game_keeps_what_the_seat_sees():
    deal = _deal(11)
    ll, kitty, down, up = deal
    seen = {}

    class Spy:
        def __init__(self, position):
            self.position, self.seat = position, as_douzero_agent(ddz.bots.RuleBot())

        def act(self, infoset):
            g, s = self.seat.game(infoset)
            obs = g.observation(s)
            seen.setdefault(self.position, []).append((obs, infoset))
            assert g.current_seat == s == DOUZERO_POSITIONS.index(self.position)
            assert str(g.hand(s)) == ddz_ranks(infoset.player_hand_cards)
            assert [len(g.hand(x)) for x in range(3)] == [infoset.num_cards_left_dict[p] for p in DOUZERO_POSITIONS]
            return self.seat.act(infoset)

    _play_in_douzero(deal, {p: Spy(p) for p in DOUZERO_POSITIONS})
    # the landlord remembers the whole kitty from its first decision
    for obs, info in seen["landlord"]:
        assert "".join(sorted(c[0] for c in obs["kitty"])) == "".join(sorted(kitty))


def test_evaluate_copies_share_the_weights(agent):
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:  # a decision runs on agent.threads (1) and puts torch's setting back
        agent.q_values(ddz.PlayState(["33345", "66", "BR"], 0, R))
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    clone = copy.deepcopy(agent)
    assert clone._nets is agent._nets and clone.bidder is not agent.bidder
    res = ddz.evaluate([agent, ddz.bots.RuleBot(), ddz.bots.RuleBot()], R, games=1, seed=4)
    assert res["DouZeroAgent"].overall.hands == 3


def test_checkpoint_errors(tmp_path, ckpt_dir):
    with pytest.raises(ddz.ArgumentError, match="no DouZero checkpoint folder"):
        DouZeroAgent(tmp_path / "nowhere")
    with pytest.raises(ddz.ArgumentError, match="landlord_up"):
        DouZeroAgent({"landlord": ckpt_dir / "landlord_weights_0.ckpt",
                      "landlord_down": ckpt_dir / "landlord_down_weights_0.ckpt"})
    (tmp_path / "landlord_weights_5.ckpt").write_bytes(b"not a torch file")
    for p in ("landlord_down", "landlord_up"):
        (tmp_path / f"{p}_weights_5.ckpt").write_bytes((ckpt_dir / f"{p}_weights_0.ckpt").read_bytes())
    with pytest.raises(ddz.ArgumentError, match="landlord_weights_5.ckpt.*is not a DouZero checkpoint"):
        DouZeroAgent(tmp_path)
    paths = {p: ckpt_dir / f"{p}_weights_0.ckpt" for p in DOUZERO_POSITIONS}
    with pytest.raises(ddz.ArgumentError, match="landlord_up_weights_0.ckpt.*not a DouZero landlord checkpoint"):
        DouZeroAgent(paths | {"landlord": paths["landlord_up"]})  # a farmer's network has a wider input
    torch.save({"x": torch.zeros(2)}, tmp_path / "other.ckpt")
    with pytest.raises(ddz.ArgumentError, match="other.ckpt.*has no 'lstm"):
        DouZeroAgent(paths | {"landlord_up": tmp_path / "other.ckpt"})
    with pytest.raises(ddz.ArgumentError, match="missing.ckpt"):
        DouZeroAgent(paths | {"landlord_up": tmp_path / "missing.ckpt"})
    with pytest.raises(ddz.ArgumentTypeError):
        DouZeroAgent(3)
    with pytest.raises(ddz.ArgumentError, match="unknown DouZero position"):
        DouZeroAgent(paths | {"dealer": paths["landlord"]})
    with pytest.raises(ddz.ArgumentTypeError):
        DouZeroAgent(ckpt_dir, bidder="RuleBot")
    with pytest.raises(ddz.ArgumentTypeError, match="threads"):
        DouZeroAgent(ckpt_dir, threads=0)
    # the folder picks the latest frames
    newer = tmp_path / "newer"
    newer.mkdir()
    for p in DOUZERO_POSITIONS:
        for frames in (100, 2000):
            (newer / f"{p}_weights_{frames}.ckpt").write_bytes(paths[p].read_bytes())
    assert DouZeroAgent(newer).paths["landlord"].name == "landlord_weights_2000.ckpt"


def test_other_rules_and_bad_input(agent):
    g = ddz.Game(ddz.Rules.classic(), 1)
    while g.phase != "PLAY":
        g.apply(fixed_auction_action(g.legal_actions()))
    with pytest.raises(ddz.ArgumentError, match=r"only under Rules.classic_douzero\(\)"):
        agent.act(g, g.current_seat)
    with pytest.raises(ddz.ArgumentTypeError):
        agent.q_values("33")
    with pytest.raises(ddz.ArgumentTypeError):
        as_douzero_agent(42)
    with pytest.raises(ddz.ArgumentTypeError, match="InfoSet"):
        as_douzero_agent(ddz.bots.RuleBot()).act(object())


def test_douzero_s_plane_defect_falls_back():
    """DouZero lets 333444555KKK beat 6667778889TJ (docs/peers.md); ddz cannot replay that, so
    the next seat plays its fallback (pass) and counts it."""
    deck = list("3456789TJQKA2" * 4 + "BR")
    landlord, down = "6667778889TJQQQAA22B", "333444555KKK99TTJ"
    for c in landlord + down:
        deck.remove(c)
    told = {"landlord": _Told(), "landlord_down": _Told()}
    up = as_douzero_agent(ddz.bots.RuleBot())
    env = GameEnv(told | {"landlord_up": up})
    env.card_play_init({"landlord": douzero_cards(landlord), "landlord_down": douzero_cards(down),
                        "landlord_up": douzero_cards("".join(deck)), "three_landlord_cards": douzero_cards("QQQ")})
    told["landlord"].action = douzero_cards("6667778889TJ")
    env.step()
    told["landlord_down"].action = douzero_cards("333444555KKK")
    env.step()
    assert env.acting_player_position == "landlord_up"
    with pytest.raises(ddz.IllegalAction):
        up.game(env.game_infoset)
    assert up.act(env.game_infoset) == [] and up.fallbacks == 1


def test_without_torch_the_error_names_the_learn_extra(ckpt_dir, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(ImportError, match=r"ddz\[learn\]"):
        DouZeroAgent(ckpt_dir)

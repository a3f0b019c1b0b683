"""ddz's games registered with OpenSpiel (ddz.peers.openspiel_game): OpenSpiel's own checks
(random_sim_test), its MCTS bot and evaluation helper playing whole hands, and the states
against the ddz.Game they wrap (legal actions, returns, observations, clones, serialization).
Skipped where open_spiel is not installed."""
from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import ddz  # noqa: E402
from ddz.core.errors import ArgumentError, ArgumentTypeError  # noqa: E402
from ddz.learn.encode import compact, compact_layout  # noqa: E402
from ddz.peers import openspiel_game as og  # noqa: E402

NAMES = list(og.GAME_NAMES.values())
VARIANTS = list(og.GAME_NAMES)
# a BENGBU4 seed whose first deal holds 天炸/天尊: the hand ends at the deal
BENGBU_SPECIAL_SEED = 313
# a BENGBU4 seed whose re-deal (after four NO_CALLs) holds 天炸/天尊
BENGBU_SPECIAL_REDEAL_SEED = 62


def _play_random(state, rng: random.Random):
    """Plays ``state`` to its end with uniform random actions (chance by its outcomes)."""
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.randrange(len(state.chance_outcomes())))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


_REIMPORT = """
import importlib, pyspiel
calls = []
real = pyspiel.register_game
pyspiel.register_game = lambda *a: (calls.append(a[0].short_name), real(*a))
import ddz.peers.openspiel_game as og
assert sorted(calls) == sorted(og.GAME_NAMES.values()), calls
importlib.reload(og)            # importing the module again registers nothing twice
import ddz.peers.openspiel_game
og.register(); og.register()
assert len(calls) == 3, calls
assert pyspiel.load_game("python_ddz_bengbu").num_players() == 4
print("ok")
"""


def test_registered_and_idempotent():
    names = set(pyspiel.registered_names())
    assert set(NAMES) <= names
    assert og.register() == NAMES
    assert set(pyspiel.registered_names()) == names
    out = subprocess.run([sys.executable, "-c", _REIMPORT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    for name in NAMES:
        game = pyspiel.load_game(name)
        assert game.get_type().short_name == name
        assert game.get_type().provides_information_state_string


@pytest.mark.parametrize("name", NAMES)
def test_random_sim_test(name):
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    # a handful of deals, no re-deal allowed
    small = pyspiel.load_game(name, {"deals": 5, "seed_offset": 100, "max_redeals": 1})
    pyspiel.random_sim_test(small, num_sims=3, serialize=True, verbose=False)


def test_random_sim_test_compat_preset():
    game = pyspiel.load_game("python_ddz_classic(rules=classic_openspiel)")
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_game_info():
    for variant, name in og.GAME_NAMES.items():
        game = pyspiel.load_game(name)
        rules = game.rules
        assert rules.variant == variant and rules.options["max_redeals"] == og.DEFAULT_MAX_REDEALS
        assert game.num_distinct_actions() == rules.num_actions
        assert game.num_players() == rules.players
        assert game.max_chance_outcomes() == og.DEFAULT_DEALS
        assert game.observation_tensor_size() == compact_layout(rules)["auction"].stop
        assert game.information_state_tensor_shape() == game.observation_tensor_shape()
        assert game.min_utility() == -game.max_utility() < 0
        assert game.max_game_length() == og.max_game_length(rules)
    classic = pyspiel.load_game("python_ddz_classic")
    # rob 8 × show 2 × kitty 4 × 2**14 bombs × spring 2, and the landlord's 2X
    assert classic.max_utility() == 2 * 8 * 2 * 4 * 2 ** 14 * 2
    assert classic.max_game_length() == 3 * 2 + 7 + 3 * 54
    assert pyspiel.load_game("python_ddz_bengbu").max_utility() == 108
    assert pyspiel.load_game("python_ddz_bengbu(bengbu_special_per_instance=True)").max_utility() == 288
    assert classic.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert pyspiel.load_game("python_ddz_two_player").get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM


def test_rules_parameter():
    game = pyspiel.load_game("python_ddz_classic(rules=classic_openspiel,classic_rob_cap=4)")
    preset = ddz.Rules.classic_openspiel().options
    assert {k: v for k, v in game.rules.options.items() if k not in ("max_redeals", "classic_rob_cap")} == \
        {k: v for k, v in preset.items() if k not in ("max_redeals", "classic_rob_cap")}
    assert game.rules.options["classic_rob_cap"] == 4
    rl = pyspiel.load_game("python_ddz_classic", {"rules": "classic_rlcard"}).rules
    assert rl.action_id("PASS") == ddz.Rules.classic_rlcard().action_id("PASS")
    twop = og.load("twop", twop_initial_multiplier=2, max_redeals=5)
    assert twop.rules.options["twop_initial_multiplier"] == 2.0 and twop.rules.options["max_redeals"] == 5


@pytest.mark.parametrize("preset", og.PRESETS["classic"][1:])
def test_a_preset_game_names_the_preset_and_its_real_options(preset):
    """The game's string, its parameters and its rules name the preset and the play options the
    hands are played with (not the variant's defaults), and the string loads the same game."""
    game = pyspiel.load_game("python_ddz_classic", {"rules": preset})
    real = getattr(ddz.Rules, preset)()
    assert game.rules.preset == preset and game.rules.options == {**real.options, "max_redeals": og.DEFAULT_MAX_REDEALS}
    params = game.get_parameters()
    assert params["rules"] == preset
    for name in og.GAME_OPTIONS["classic"]:
        assert params[name] == real.options[name], name
        assert f"{name}={str(real.options[name])}" in str(game), name
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game) and again.rules == game.rules and again.rules.preset == preset
    with pytest.raises(ArgumentError, match="fixes the play options"):
        pyspiel.load_game("python_ddz_classic", {"rules": preset, "single_kicker_rank_cap": 2})


@pytest.mark.parametrize("params", [{"deals": 0}, {"deals": 2_000_000}, {"seed_offset": -1}, {"max_redeals": 0},
                                    {"rules": "bengbu"}, {"classic_rob_cap": 0}, {"classic_rob_winner": "middle"},
                                    {"rules": "classic_openspiel", "single_kicker_rank_cap": 2}])
def test_bad_parameters(params):
    with pytest.raises(ArgumentError):
        pyspiel.load_game("python_ddz_classic", params)
    with pytest.raises(ValueError):  # a ddz ArgumentError is a ValueError
        og.load("classic", **params)


def test_bad_parameter_types_and_names():
    with pytest.raises(ArgumentTypeError, match="deals must be an int"):
        og.load("classic", deals="many")
    with pytest.raises(ArgumentTypeError):
        og.load("bengbu", bengbu_joker_pairs=1)
    with pytest.raises(ArgumentTypeError):
        og.ClassicGame({"max_redeals": 1.5})
    with pytest.raises(ArgumentError, match="unknown game parameter"):
        og.load("classic", classic_landlord_loss_factor=1)
    with pytest.raises(ArgumentError):
        og.load("poker")
    with pytest.raises(pyspiel.SpielError):  # OpenSpiel checks names and types before ddz sees them
        pyspiel.load_game("python_ddz_classic(no_such_option=1)")


@pytest.mark.parametrize("variant", VARIANTS)
def test_state_follows_the_ddz_game(variant):
    """Legal actions, players, returns and observations equal those of the ddz.Game played alongside."""
    game = pyspiel.load_game(og.GAME_NAMES[variant], {"deals": 50})
    rules = game.rules
    rng = random.Random(7)
    for _ in range(3):
        state = game.new_initial_state()
        assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
        outcomes = state.chance_outcomes()
        assert [a for a, _ in outcomes] == list(range(50)) and sum(p for _, p in outcomes) == pytest.approx(1)
        assert not np.any(state.observation_tensor(0))
        k = rng.randrange(50)
        assert state.action_to_string(pyspiel.PlayerId.CHANCE, k) == f"Deal seed {k}"
        state.apply_action(k)
        twin = ddz.Game(rules, k)
        assert state.seed == k and state.ddz_game is not None
        while not state.is_terminal():
            seat = twin.current_seat
            assert state.current_player() == seat
            assert state.legal_actions() == sorted(twin.legal_action_ids())
            assert state.legal_actions((seat + 1) % rules.players) == []
            for p in range(rules.players):
                want = compact(twin, p).astype(np.float32)
                assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), want)
                assert np.array_equal(np.asarray(state.information_state_tensor(p), np.float32), want)
            assert state.returns() == [0.0] * rules.players
            action = rng.choice(state.legal_actions())
            assert state.action_to_string(seat, action) == rules.action_token(action)
            state.apply_action(action)
            twin.apply(action)
        assert twin.is_over and state.returns() == [float(s) for s in twin.result.scores]
        assert state.current_player() == pyspiel.PlayerId.TERMINAL
        decisions = [h for h in twin.history if h[0] is not None]  # the REDEAL entries are the dealer's
        assert state.history()[0] == k and len(state.history()) == 1 + len(decisions)


def test_bengbu_hand_that_ends_at_the_deal():
    game = pyspiel.load_game("python_ddz_bengbu", {"deals": 1, "seed_offset": BENGBU_SPECIAL_SEED})
    state = game.new_initial_state()
    state.apply_action(0)
    assert state.is_terminal() and state.legal_actions() == []
    result = ddz.Game(game.rules, BENGBU_SPECIAL_SEED).result
    assert result.kind == "special" and state.returns() == [float(s) for s in result.scores]
    assert len(state.observation_tensor(0)) == game.observation_tensor_size()
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    # a re-deal that deals 天炸/天尊 ends the hand after the four NO_CALLs
    game = pyspiel.load_game("python_ddz_bengbu", {"deals": 1, "seed_offset": BENGBU_SPECIAL_REDEAL_SEED})
    state = game.new_initial_state()
    state.apply_action(0)
    no_call = game.rules.action_id("NO_CALL")
    for _ in range(4):
        assert not state.is_terminal()
        state.apply_action(no_call)
    assert state.is_terminal() and state.ddz_game.result.kind == "special" and state.ddz_game.redeals == 1
    assert state.returns() == [float(s) for s in state.ddz_game.result.scores]


def test_clone_is_independent():
    game = pyspiel.load_game("python_ddz_classic", {"deals": 10})
    rng = random.Random(3)
    state = game.new_initial_state()
    state.apply_action(4)
    for _ in range(6):
        state.apply_action(rng.choice(state.legal_actions()))
    copy = state.clone()
    assert str(copy) == str(state) and copy.history() == state.history()
    before = str(state)
    _play_random(copy, rng)
    assert str(state) == before and not state.is_terminal()
    assert copy.ddz_game is not state.ddz_game


@pytest.mark.parametrize("name", NAMES)
def test_serialization_round_trip(name):
    game = pyspiel.load_game(name, {"deals": 20, "seed_offset": 5})
    rng = random.Random(11)
    state = game.new_initial_state()
    for steps in range(40):
        text = pyspiel.serialize_game_and_state(game, state)
        game2, state2 = pyspiel.deserialize_game_and_state(text)
        assert str(game2) == str(game) and str(state2) == str(state)
        assert state2.history() == state.history() and state2.legal_actions() == state.legal_actions()
        if state.is_terminal():
            break
        if state.is_chance_node():
            action = rng.randrange(20)
        else:
            action = rng.choice(state.legal_actions())
            for p in range(game.num_players()):
                assert state2.information_state_string(p) == state.information_state_string(p)
        state.apply_action(action)
        state2.apply_action(action)
        assert str(state2) == str(state)
    assert len(pyspiel.serialize_game_and_state(game, state)) < 20_000  # the hand's record, not the outcomes
    # the deserialized state plays on as the original does
    tail = random.Random(5)
    a, b = state.clone(), pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    while not a.is_terminal():
        action = tail.choice(a.legal_actions())
        a.apply_action(action)
        b.apply_action(action)
    assert b.is_terminal() and a.returns() == b.returns()


def test_strings():
    game = pyspiel.load_game("python_ddz_classic", {"deals": 10})
    state = game.new_initial_state()
    state.apply_action(1)
    g = state.ddz_game
    seat = state.current_player()
    state.apply_action(state.legal_actions()[0])
    infos = [state.information_state_string(p) for p in range(3)]
    assert len(set(infos)) == 3  # each seat sees its own cards
    for p in range(3):
        assert f'"hand":"{g.hand(p)}"' in state.observation_string(p)
        others = [str(g.hand(q)) for q in range(3) if q != p]
        assert all(f'"hand":"{h}"' not in infos[p] for h in others)
    assert game.rules.action_token(state.history()[1]) in ("CALL", "NO_CALL")
    assert f"{seat}:" in str(state)


@pytest.mark.parametrize("name", NAMES)
def test_mcts_plays_whole_hands(name):
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game(name)
    rng = np.random.RandomState(1)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bots = [mcts.MCTSBot(game, uct_c=2.0, max_simulations=6, evaluator=evaluator, random_state=rng)
            for _ in range(game.num_players())]
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            action = bots[state.current_player()].step(state)
            assert action in state.legal_actions()
            state.apply_action(action)
    result = state.ddz_game.result
    assert state.returns() == [float(s) for s in result.scores]
    assert game.min_utility() <= min(state.returns()) <= max(state.returns()) <= game.max_utility()


@pytest.mark.parametrize("name", NAMES)
def test_evaluate_bots(name):
    from open_spiel.python.algorithms import evaluate_bots, mcts
    from open_spiel.python.bots import uniform_random

    game = pyspiel.load_game(name)
    rng = np.random.RandomState(2)
    n = game.num_players()
    bots = [uniform_random.UniformRandomBot(p, rng) for p in range(n)]
    bots[0] = mcts.MCTSBot(game, uct_c=2.0, max_simulations=4,
                           evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng), random_state=rng)
    for _ in range(2):
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
        assert len(returns) == n
        if name != "python_ddz_two_player":  # CLASSIC3 and BENGBU4 are zero-sum
            assert sum(returns) == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_random_sim_test_many(name):
    for params in ({}, {"max_redeals": 1}, {"deals": 3}):
        pyspiel.random_sim_test(pyspiel.load_game(name, params), num_sims=40, serialize=False, verbose=False)
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=10, serialize=True, verbose=False)


def test_rl_environment():
    from open_spiel.python import rl_environment

    env = rl_environment.Environment("python_ddz_two_player")
    rng = np.random.RandomState(3)
    step = env.reset()
    while not step.last():
        seat = step.observations["current_player"]
        step = env.step([rng.choice(step.observations["legal_actions"][seat])])
    assert len(step.observations["info_state"][0]) == compact_layout(ddz.Rules.two_player())["auction"].stop
    assert len(step.rewards) == 2

"""The registry of named, seeded speed workloads (one per speed target of an issue).

Each ``Workload`` says what is timed, on which seeded deals (seed, hand size, count) and
under which rules; ``measure()`` runs it (best of ``repeat`` runs, after one warm-up) and
returns its rate, its moves per hand and, for a workload with a ``vs`` entry, the ratio
against that other workload measured in the same run. ``python benchmarks/run_all.py``
prints them all as one table. To add a target, append a ``Workload`` to ``WORKLOADS``
(or a new ``kind`` to ``_RUNNERS``); names are stable identifiers, ``--only`` selects by
prefix.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

import ddz

ONE_DECK = "3456789TJQKA2" * 4 + "BR"
TWO_DECKS = "3456789TJQKA2" * 8 + "BBRR"

# seeded random option sets (RULES.md §7) for the "random option combinations" targets
RANDOM_OPTIONS = {
    "random_a": ("classic", dict(single_kicker_rank_cap=4, kicker_may_share_main_rank=True,
                                 kicker_pairs_distinct=False, rocket_as_kickers=True)),
    "random_b": ("two_player", dict(single_kicker_rank_cap=3, kicker_pairs_distinct=False, four_with_two=False)),
    "random_c": ("bengbu", dict(single_kicker_rank_cap=5, bengbu_four_with_two=True, kicker_may_share_main_rank=True,
                                bengbu_trio_chain_order="cycle")),
}


def make_rules(name: str) -> ddz.Rules:
    """A preset (``classic_openspiel``) or one of ``RANDOM_OPTIONS`` (``rlcard_peer``: RLCard's
    own rules, run by RLCard)."""
    if name == "rlcard_peer":
        return ddz.Rules.classic_rlcard()
    if name in RANDOM_OPTIONS:
        variant, opts = RANDOM_OPTIONS[name]
        return getattr(ddz.Rules, variant)(**opts)
    return getattr(ddz.Rules, name)()


def deals(decks: int, size: int, n: int, seed: int) -> List[str]:
    rng = random.Random(seed)
    cards = list(TWO_DECKS if decks == 2 else ONE_DECK)
    out = []
    for _ in range(n):
        rng.shuffle(cards)
        out.append("".join(cards[:size]))
    return out


@dataclass(frozen=True)
class Workload:
    name: str
    kind: str          # a key of _RUNNERS: what is timed
    rules: str         # make_rules() name
    hand_size: int = 20
    hands: int = 20_000
    seed: int = 2026
    target: str = ""   # the issue's target, for the reader
    vs: Optional[str] = None  # ratio = this rate / that workload's rate (same run)
    issue: int = 9
    long: bool = False  # minutes, not seconds: run_all takes it with --long or when --only names it


@dataclass
class Result:
    workload: Workload
    rate: float            # hands (or games) per second
    moves_per_hand: float  # distinct plays per hand (0 for simulate)
    unit: str
    ratio: Optional[float] = None
    extra: Dict[str, float] = field(default_factory=dict)

    @property
    def ns_per_move(self) -> Optional[float]:
        return 1e9 / (self.rate * self.moves_per_hand) if self.moves_per_hand else None


# Wall time by default; use_cpu_clock() switches to this process's CPU time, which on a shared
# machine leaves out the time another process held the core (a run of a few milliseconds can
# otherwise lose half its rate to one preemption).
CLOCK: Callable[[], float] = time.perf_counter
_CLOCKED = ("bench_game", "bench_envs", "bench_vector_env")  # helper modules with their own CLOCK


def use_cpu_clock() -> None:
    """Time every workload (and the helper modules' loops) by this process's CPU time."""
    import importlib

    global CLOCK
    CLOCK = time.process_time
    for name in _CLOCKED:
        importlib.import_module(name).CLOCK = time.process_time  # type: ignore[attr-defined]


def _best(fn: Callable[[], object], repeat: int) -> float:
    fn()  # warm-up: first-touch pages, lazy tables
    best = float("inf")
    for _ in range(repeat):
        t = CLOCK()
        fn()
        best = min(best, CLOCK() - t)
    return best


def _moves(r, hands) -> float:
    return float(np.mean([ddz.count_moves(h, r) for h in hands[:2000]]))


def _run_batch(w: Workload, repeat: int) -> Tuple[float, float, str]:
    r = make_rules(w.rules)
    hands = deals(r.decks, w.hand_size, w.hands, w.seed)
    words = ddz.hand_words(hands, r)
    out = np.empty(int(_moves(r, hands) * 1.5 + 64) * len(hands) + 4096, dtype=np.uint64)
    t = _best(lambda: ddz.legal_moves_batch(words, r, None, False, out), repeat)
    off, _ = ddz.legal_moves_batch(words, r, None, False, out)
    return len(hands) / t, off[-1] / len(hands), "hands/s"


def _run_count(w: Workload, repeat: int) -> Tuple[float, float, str]:
    r = make_rules(w.rules)
    hands = deals(r.decks, w.hand_size, w.hands, w.seed)
    words = ddz.hand_words(hands, r)
    t = _best(lambda: ddz.legal_moves_batch(words, r, None, True), repeat)
    _, counts = ddz.legal_moves_batch(words, r, None, True)
    return len(hands) / t, float(counts.mean()), "hands/s"


def _per_call(fn_name: str):
    def run(w: Workload, repeat: int) -> Tuple[float, float, str]:
        r = make_rules(w.rules)
        hands = [ddz.Cards(h, decks=r.decks) for h in deals(r.decks, w.hand_size, w.hands, w.seed)]
        f = getattr(ddz, fn_name)
        t = _best(lambda: [f(h, r) for h in hands], repeat)
        return len(hands) / t, _moves(r, hands), "hands/s"
    return run


def _run_legal_actions(w: Workload, repeat: int) -> Tuple[float, float, str]:
    """PlayState.legal_actions() (action ids) on each hand's opening lead."""
    r = make_rules(w.rules)
    full = deals(r.decks, len(TWO_DECKS if r.decks == 2 else ONE_DECK), w.hands, w.seed)
    hands = [d[:w.hand_size] for d in full]
    rest = (len(full[0]) - w.hand_size) // (r.players - 1)
    states = [ddz.PlayState([d[:w.hand_size]] + [d[w.hand_size + i * rest:w.hand_size + (i + 1) * rest]
                                                  for i in range(r.players - 1)], 0, r) for d in full]
    t = _best(lambda: [s.legal_actions() for s in states], repeat)
    return len(hands) / t, _moves(r, hands), "hands/s"


def _run_simulate(w: Workload, repeat: int) -> Tuple[float, float, str]:
    r = make_rules(w.rules)
    t = _best(lambda: ddz.simulate(r, w.hands, "random", w.seed), repeat)
    return w.hands / t, 0.0, "games/s"


def _run_openspiel(w: Workload, repeat: int) -> Tuple[float, float, str]:
    """OpenSpiel's state.legal_actions() on states dealt, bid and played to the lead."""
    from ddz.peers import adapters as P

    if not P.OPENSPIEL.available():
        raise RuntimeError("open_spiel is not installed")
    hands = deals(1, w.hand_size, w.hands, w.seed)
    states = [P.OPENSPIEL.lead_state(P.canon(h)) for h in hands]
    t = _best(lambda: [s.legal_actions() for s in states], repeat)
    plays = float(np.mean([len(P.OPENSPIEL.legal_plays(s)) for s in states[:500]]))
    return len(hands) / t, plays, "hands/s"


_STATES: Dict[Tuple[int, int], object] = {}


def _encode_states(w: Workload):
    """Random classic_douzero() play states (with DouZero's infosets when douzero is installed),
    built once per (count, seed) for every encoder workload of a run."""
    import bench_encode as BE

    key = (w.hands, w.seed)
    if key not in _STATES:
        _STATES[key] = BE.make_states(w.hands, w.seed)
    return _STATES[key]


def _run_douzero_obs(w: Workload, repeat: int) -> Tuple[float, float, str]:
    """The peer: douzero.env.env.get_obs on DouZero's own infosets."""
    import bench_encode as BE

    s = _encode_states(w)
    if s.infosets is None:
        raise RuntimeError("douzero is not installed")
    return BE.douzero_rate(s, repeat), 0.0, "states/s"


def _run_douzero_batch(w: Workload, repeat: int) -> Tuple[float, float, str]:
    import bench_encode as BE

    rate, _ = BE.factored_rate(_encode_states(w), repeat)
    return rate, 0.0, "states/s"


def _run_douzero_expand(w: Workload, repeat: int) -> Tuple[float, float, str]:
    import bench_encode as BE

    gbs, _ = BE.expand_rate(_encode_states(w), repeat)
    return gbs * 1e3, 0.0, "MB/s"


def _run_compact(w: Workload, repeat: int) -> Tuple[float, float, str]:
    import bench_encode as BE

    return BE.compact_rate(_encode_states(w), repeat), 0.0, "states/s"


def _run_vector_env(w: Workload, repeat: int) -> Tuple[float, float, str]:
    import bench_vector_env as BV

    return BV.vector_env_rate(make_rules(w.rules), tables=w.hands, seed=w.seed, repeat=repeat), 0.0, "steps/s"


def _run_vector_whole(w: Workload, repeat: int) -> Tuple[float, float, str]:
    import bench_vector_env as BV

    rate = BV.vector_env_rate(make_rules(w.rules), tables=w.hands, seed=w.seed, repeat=repeat, auction=True)
    return rate, 0.0, "steps/s"


def _run_vector_rule(w: Workload, repeat: int) -> Tuple[float, float, str]:
    import bench_vector_env as BV

    rate = BV.vector_env_rate(make_rules(w.rules), tables=w.hands, seed=w.seed, repeat=repeat, auction=True, rule=True)
    return rate, 0.0, "steps/s"


def _run_playstate_loop(w: Workload, repeat: int) -> Tuple[float, float, str]:
    import bench_vector_env as BV

    return max(BV.play_state_loop_rate(make_rules(w.rules), w.hands, w.seed) for _ in range(repeat)), 0.0, "actions/s"


def _bench_game():
    import bench_game as BG

    return BG


def _run_game(w: Workload, repeat: int) -> Tuple[float, float, str]:
    rate, per_hand = _bench_game().game_rate(make_rules(w.rules), w.hands, w.seed, repeat)
    return rate, per_hand, "hands/s"


def _run_game_tokens(w: Workload, repeat: int) -> Tuple[float, float, str]:
    rate, per_hand = _bench_game().game_rate(make_rules(w.rules), w.hands, w.seed, repeat, ids=False)
    return rate, per_hand, "hands/s"


def _run_openspiel_game(w: Workload, repeat: int) -> Tuple[float, float, str]:
    rate, per_hand = _bench_game().openspiel_game_rate(w.hands, w.seed, repeat)
    return rate, per_hand, "hands/s"


def _run_play_loop(w: Workload, repeat: int) -> Tuple[float, float, str]:
    return _bench_game().playstate_loop_rate(w.hands, w.seed, repeat), 0.0, "actions/s"


def _run_openspiel_play(w: Workload, repeat: int) -> Tuple[float, float, str]:
    _bench_game()._pyspiel()
    return _bench_game().openspiel_play_rate(w.hands, w.seed, repeat), 0.0, "actions/s"


def _run_clone(after: int, apply: bool):
    def run(w: Workload, repeat: int) -> Tuple[float, float, str]:
        return _bench_game().clone_apply_rate(after, w.hands, w.seed, repeat, apply), 0.0, "per s"
    return run


def _run_clone_point(engine: str, point: str):
    def run(w: Workload, repeat: int) -> Tuple[float, float, str]:
        if engine == "openspiel":
            _bench_game()._pyspiel()
        return _bench_game().clone_point_rate(engine, point, w.hands, w.seed, repeat), 0.0, "clones/s"
    return run


def _run_save(engine: str, way: str):
    def run(w: Workload, repeat: int) -> Tuple[float, float, str]:
        if engine == "openspiel":
            _bench_game()._pyspiel()
        return _bench_game().save_restore_rate(engine, way, "play40", w.hands, w.seed, repeat), 0.0, "round trips/s"
    return run


def _run_openspiel_clone(w: Workload, repeat: int) -> Tuple[float, float, str]:
    return _bench_game().openspiel_clone_apply_rate(40, w.hands, w.seed, repeat), 0.0, "per s"


def _run_rlcard(w: Workload, repeat: int) -> Tuple[float, float, str]:
    import bench_envs as BE

    env_id = "doudizhu" if w.rules == "rlcard_peer" else "ddz-classic"
    return BE.rlcard_rate(w.hands, w.seed, repeat, env_id=env_id), 0.0, "actions/s"


def _run_pettingzoo(w: Workload, repeat: int) -> Tuple[float, float, str]:
    import bench_envs as BE

    return BE.pettingzoo_rate(make_rules(w.rules), w.hands, w.seed, repeat), 0.0, "actions/s"


def _run_pettingzoo_mask(w: Workload, repeat: int) -> Tuple[float, float, str]:
    import bench_envs as BE

    return BE.pettingzoo_rate(make_rules(w.rules), w.hands, w.seed, repeat, pick="mask"), 0.0, "actions/s"


def neural_leads(rules: ddz.Rules, deals_: int, seed: int) -> Tuple[object, List[ddz.Game]]:
    """The shipped model's ``NeuralBot`` and the first ``deals_`` hands from seed ``seed`` on
    (``Game(rules, seed=seed + k)``) whose auction, played by the bot (a play-phase model bids as
    RuleBot), made a landlord: each at the landlord's first lead."""
    from ddz.learn import NeuralBot

    bot = NeuralBot.shipped(rules)
    games: List[ddz.Game] = []
    k = 0
    while len(games) < deals_:
        g = ddz.Game(rules, seed=seed + k)
        k += 1
        while not g.is_over and g.phase != "PLAY":
            g.apply(bot.act(g, g.current_seat))
        if not g.is_over:
            games.append(g)
    return bot, games


def _run_neural_lead(w: Workload, repeat: int) -> Tuple[float, float, str]:
    """NeuralBot.act at the first lead of each hand, timed one by one: the rate is 1 / the median
    decision time (best of ``repeat`` medians); moves = the legal leads it scored, on average."""
    bot, games = neural_leads(make_rules(w.rules), w.hands, w.seed)
    act = bot.act  # type: ignore[attr-defined]

    def median() -> float:
        times = []
        for g in games:
            seat = g.current_seat
            t = CLOCK()
            act(g, seat)
            times.append(CLOCK() - t)
        return float(np.median(times))

    median()  # warm-up: the model's tables, first-touch pages
    best = min(median() for _ in range(repeat))
    return 1.0 / best, float(np.mean([len(g.legal_action_ids()) for g in games])), "dec/s"


def _run_trainer(which: str):
    """A trainer for ``w.hands`` seconds of wall time (``bench_train_vs_douzero``: its frames
    after the first fifth, at most a minute, of the run; one run, ``repeat`` ignored: a run is
    minutes long, five at least). Needs torch, and DouZero's package for the peer's."""
    def run(w: Workload, repeat: int) -> Tuple[float, float, str]:
        import importlib.util
        import tempfile

        import bench_train_vs_douzero as T
        for mod in ("torch",) + (("douzero",) if which == "douzero" else ()):
            if importlib.util.find_spec(mod) is None:
                raise RuntimeError(f"{mod} is not installed")
        seconds = max(float(w.hands), 300.0)  # DouZero's learner steps come a minute apart here
        with tempfile.TemporaryDirectory(prefix="ddz-train-wl-") as work:
            if which == "ddz":  # its fastest setting here: int8 actors, a two-thread learner
                r = T.ddz(seconds / 60.0, min(60.0, seconds / 5), work, 2, True, 2)
            else:
                r = T.douzero(seconds / 60.0, min(60.0, seconds / 5), work, 2)
        if r["frames_per_s"] <= 0:
            raise RuntimeError(f"{which}'s trainer trained no frame in {seconds:.0f} s")
        return float(r["frames_per_s"]), 0.0, "frames/s"
    return run


_RUNNERS: Dict[str, Callable[[Workload, int], Tuple[float, float, str]]] = {
    "game": _run_game,                    # ddz.Game hands, random legal action ids (issue 10)
    "game_tokens": _run_game_tokens,      # the same with tokens: legal_actions(), apply(str)
    "openspiel_game": _run_openspiel_game,  # the peer's full game: chance deal, bidding, play
    "play_loop": _run_play_loop,          # Python loop over PlayState from a 20-card lead
    "openspiel_play": _run_openspiel_play,  # the peer's play phase from the same leads
    "clone_apply": _run_clone(40, True),  # PlayState.clone() + apply, 40 actions in
    "clone_start": _run_clone(0, False),  # PlayState.clone() at the start
    "clone_40": _run_clone(40, False),    # PlayState.clone() after 40 actions
    "openspiel_clone": _run_openspiel_clone,  # the peer's clone() + apply_action, 40 actions in
    # Game.clone() and OpenSpiel's state.clone() at three points of a hand (bench_game.CLONE_POINTS)
    **{f"{e}_clone_{p}": _run_clone_point(e, p) for e in ("game", "openspiel") for p in ("deal", "bid", "play40")},
    # save + restore 40 plays into a hand: pickle, or each engine's own bytes (bench_game.SAVE_WAYS)
    **{f"{e}_save_{w}": _run_save(e, w) for e in ("ddz", "openspiel") for w in ("pickle", "bytes")},
    "batch": _run_batch,                  # legal_moves_batch into a reused out= buffer (GIL released)
    "count": _run_count,                  # legal_moves_batch(count_only=True)
    "array": _per_call("legal_moves_array"),   # one call per hand, numpy array
    "moves": _per_call("legal_moves"),         # one call per hand, every Move object built
    "legal_actions": _run_legal_actions,  # PlayState.legal_actions(), action ids
    "simulate": _run_simulate,            # random self-play games, one thread
    "openspiel": _run_openspiel,          # the peer, for ratios
    "douzero_obs": _run_douzero_obs,      # the peer: DouZero's get_obs
    "douzero_batch": _run_douzero_batch,  # ddz.encode.douzero_arrays, factored int8, reused buffers
    "douzero_expand": _run_douzero_expand,  # DouZeroBatch.expand into reused float32 buffers
    "compact": _run_compact,              # ddz.encode.compact_arrays, reused buffer
    "vector_env": _run_vector_env,        # ddz.VectorEnv.step (play phase), numpy random choice in the loop
    "vector_whole": _run_vector_whole,    # the same in whole hands (auction=True)
    "vector_rule": _run_vector_rule,      # whole hands, every table playing VectorEnv.rule_choices()
    "playstate_loop": _run_playstate_loop,  # Python loop over PlayState, for the ratio
    "rlcard_env": _run_rlcard,            # RLCard env.step: RLCard's doudizhu (the peer) or ddz-classic
    "pettingzoo": _run_pettingzoo,        # ddz's PettingZoo AEC env: last() + random id from the info + step()
    "pettingzoo_mask": _run_pettingzoo_mask,  # the same loop picking from the action mask
    "neural_lead": _run_neural_lead,      # NeuralBot (the shipped model, numpy) at the first lead: 1 / median
    "train_douzero": _run_trainer("douzero"),  # DouZero's own trainer, CPU mode, 2 one-thread actors (peer)
    "train_ddz": _run_trainer("ddz"),     # ddz train on DouZero's network, rules and batch, 2 actor processes
}

WHAT = {
    "game": "ddz.Game whole hands, random action ids",
    "game_tokens": "ddz.Game whole hands, random tokens",
    "openspiel_game": "OpenSpiel full game (peer)",
    "play_loop": "Python loop over PlayState",
    "openspiel_play": "OpenSpiel play phase (peer)",
    "clone_apply": "PlayState.clone()+apply, 40 in",
    "clone_start": "PlayState.clone() at the start",
    "clone_40": "PlayState.clone() after 40 actions",
    "openspiel_clone": "OpenSpiel clone()+apply (peer)",
    **{f"game_clone_{p}": f"Game.clone() at {p}" for p in ("deal", "bid", "play40")},
    "ddz_save_pickle": "pickle.dumps + loads of a Game, 40 plays in",
    "ddz_save_bytes": "Game.snapshot() + from_snapshot(), 40 plays in",
    "openspiel_save_pickle": "pickle.dumps + loads of OpenSpiel's state (peer)",
    "openspiel_save_bytes": "OpenSpiel serialize() + deserialize_state() (peer)",
    **{f"openspiel_clone_{p}": f"OpenSpiel state.clone() at {p} (peer)" for p in ("deal", "bid", "play40")},
    "batch": "legal_moves_batch into out= (leads)",
    "count": "legal_moves_batch count_only (leads)",
    "array": "legal_moves_array, one call per hand",
    "moves": "legal_moves, every Move built",
    "legal_actions": "PlayState.legal_actions() ids",
    "simulate": "simulate random, 1 thread",
    "openspiel": "OpenSpiel state.legal_actions()",
    "douzero_obs": "douzero.env.env.get_obs (peer)",
    "douzero_batch": "encode.douzero_arrays factored int8",
    "douzero_expand": "DouZeroBatch.expand float32",
    "compact": "encode.compact_arrays",
    "vector_env": "VectorEnv.step play phase, 1 thread",
    "vector_whole": "VectorEnv.step whole hands, 1 thread",
    "vector_rule": "VectorEnv.rule_choices + step, whole hands, 1 thread",
    "playstate_loop": "Python loop over PlayState ids",
    "rlcard_env": "RLCard env.step, random legal id",
    "pettingzoo": "PettingZoo AEC last()+step(), id from info",
    "pettingzoo_mask": "PettingZoo AEC last()+step(), id from the mask",
    "neural_lead": "NeuralBot.act at the first lead, 1/median, numpy",
    "train_douzero": "DouZero's trainer, frames trained per wall second (peer)",
    "train_ddz": "ddz train --actor-int8 --learner-threads 2, DouZero's network, frames per wall second",
}

COMPAT = ("classic_openspiel", "classic_douzero", "classic_rlcard")


def _registry() -> List[Workload]:
    w: List[Workload] = []
    w.append(Workload("openspiel.lead20", "openspiel", "classic_openspiel", hands=2000, target="(peer)"))
    for rules in ("classic",) + COMPAT + ("two_player",):
        w.append(Workload(f"gen.lead20.{rules}", "batch", rules, target="<= 2.0 ns/move (C++)"))
    for rules in RANDOM_OPTIONS:
        size = 33 if RANDOM_OPTIONS[rules][0] == "bengbu" else 20
        w.append(Workload(f"gen.lead{size}.{rules}", "batch", rules, hand_size=size, hands=5000,
                          target="<= 2.5 ns/move (C++)"))
    w.append(Workload("gen.lead33.bengbu", "batch", "bengbu", hand_size=33, hands=5000, target="<= 2.5 ns/move (C++)"))
    for rules in ("classic",) + COMPAT + ("two_player", "bengbu"):
        size = 33 if rules == "bengbu" else 20
        # the hands/s target is the 20-card one; a 33-card BENGBU4 lead has about 3x the plays
        w.append(Workload(f"count.lead{size}.{rules}", "count", rules, hand_size=size,
                          target="<= 0.6 ns/move" if size == 33 else ">= 20M hands/s, <= 0.6 ns/move"))
    for rules in COMPAT:
        w.append(Workload(f"batch.lead20.{rules}", "batch", rules,
                          target=">= 5M hands/s" + (", >= 40x OpenSpiel" if rules == "classic_openspiel" else ""),
                          vs="openspiel.lead20" if rules == "classic_openspiel" else None))
    w.append(Workload("array.lead20.classic_openspiel", "array", "classic_openspiel", hands=5000,
                      target=">= 12x OpenSpiel", vs="openspiel.lead20"))
    w.append(Workload("moves.lead20.classic_openspiel", "moves", "classic_openspiel", hands=2000,
                      target=">= 1.5x OpenSpiel", vs="openspiel.lead20"))
    w.append(Workload("actions.lead20.classic_openspiel", "legal_actions", "classic_openspiel", hands=2000,
                      target=">= 1.5x OpenSpiel", vs="openspiel.lead20"))
    for rules in ("classic",) + COMPAT:
        w.append(Workload(f"simulate.random.{rules}", "simulate", rules, hands=20_000,
                          target=">= 250k games/s" if rules != "classic" else "(reference)"))
    # issue 12: observation encoders on the same random classic_douzero() states, the vector env
    w.append(Workload("encode.douzero.peer", "douzero_obs", "classic_douzero", hands=2000, target="(peer)", issue=12))
    w.append(Workload("encode.douzero.factored", "douzero_batch", "classic_douzero", hands=2000,
                      target=">= 100x get_obs", vs="encode.douzero.peer", issue=12))
    w.append(Workload("encode.douzero.expand", "douzero_expand", "classic_douzero", hands=2000,
                      target="as fast as memory allows (MB/s written)", issue=12))
    w.append(Workload("encode.compact", "compact", "classic_douzero", hands=2000, target="(C++)", issue=12))
    w.append(Workload("env.playstate_loop.classic", "playstate_loop", "classic", hands=100_000, target="(reference)",
                      issue=12))
    w.append(Workload("env.vector.classic", "vector_env", "classic", hands=4096, target=">= 2M steps/s per core",
                      vs="env.playstate_loop.classic", issue=12))
    # whole hands in the vector env: 1,024 tables, one thread, against the play phase alone in the same run
    for rules in ("classic", "two_player", "bengbu"):
        w.append(Workload(f"env.vector1024.play.{rules}", "vector_env", rules, hands=1024, target="(reference)",
                          issue=24))
        w.append(Workload(f"env.vector1024.whole.{rules}", "vector_whole", rules, hands=1024,
                          target=">= 1M steps/s, >= 0.25x the play phase" if rules == "classic" else "(reported)",
                          vs=f"env.vector1024.play.{rules}", issue=24))
        # issue 25: rule players chosen in the core (the trainer's --rule-tables), against random picks
        w.append(Workload(f"env.vector1024.rule.{rules}", "vector_rule", rules, hands=1024, target="(reported)",
                          vs=f"env.vector1024.whole.{rules}", issue=25))
    # issue 10: the whole hand, the play loop and clones, against OpenSpiel in the same run
    w.append(Workload("game.full.openspiel", "openspiel_game", "classic", hands=500, target="(peer)", issue=10))
    w.append(Workload("game.full.classic", "game", "classic", hands=500, target=">= 1.5x OpenSpiel full game",
                      vs="game.full.openspiel", issue=10))
    w.append(Workload("game.full.classic.tokens", "game_tokens", "classic", hands=500, target="(tokens API)",
                      vs="game.full.openspiel", issue=10))
    w.append(Workload("play.loop.openspiel", "openspiel_play", "classic_openspiel", hands=500, target="(peer)",
                      issue=10))
    w.append(Workload("play.loop.classic_openspiel", "play_loop", "classic_openspiel", hands=500,
                      target=">= 1.3x OpenSpiel play phase", vs="play.loop.openspiel", issue=10))
    w.append(Workload("clone.apply.openspiel", "openspiel_clone", "classic_openspiel", hands=300, target="(peer)",
                      issue=10))
    w.append(Workload("clone.apply.classic_openspiel", "clone_apply", "classic_openspiel", hands=300,
                      target=">= 2x OpenSpiel clone+apply", vs="clone.apply.openspiel", issue=10))
    w.append(Workload("clone.start", "clone_start", "classic_openspiel", hands=300, target="(reference)", issue=10))
    w.append(Workload("clone.after40", "clone_40", "classic_openspiel", hands=300,
                      target="within 10 % of clone.start", vs="clone.start", issue=10))
    # issue 24 item 12: Game.clone() (the whole hand) against OpenSpiel's clone, at three points defined
    # for both: the deal done before the first bid, after the first bid, 40 actions into the play
    for point in ("deal", "bid", "play40"):
        w.append(Workload(f"clone.game.{point}.openspiel", f"openspiel_clone_{point}", "classic_openspiel",
                          hands=300, target="(peer)", issue=24))
        w.append(Workload(f"clone.game.{point}.classic_openspiel", f"game_clone_{point}", "classic_openspiel",
                          hands=300, target="clone time <= 1.5x OpenSpiel's (ratio >= 0.67x)",
                          vs=f"clone.game.{point}.openspiel", issue=24))
    # issue 39 item 5: a hand saved and restored at core speed, 40 plays in, against OpenSpiel's state
    for way in ("pickle", "bytes"):
        w.append(Workload(f"save.{way}.openspiel", f"openspiel_save_{way}", "classic_openspiel", hands=300,
                          target="(peer)", issue=39))
        w.append(Workload(f"save.{way}.classic_openspiel", f"ddz_save_{way}", "classic_openspiel", hands=300,
                          target="time <= 1.5x OpenSpiel's (ratio >= 0.67x)" if way == "pickle" else "(reported)",
                          vs=f"save.{way}.openspiel", issue=39))
    w.append(Workload("env.rlcard.peer", "rlcard_env", "rlcard_peer", hands=2000, target="(peer)", issue=12))
    w.append(Workload("env.rlcard.ddz_classic", "rlcard_env", "classic_rlcard", hands=2000,
                      target="(RLCard-compatible)", vs="env.rlcard.peer", issue=12))
    for rules in ("classic", "two_player", "bengbu"):
        w.append(Workload(f"env.pettingzoo.{rules}", "pettingzoo", rules, hands=2000,
                          target=">= 20x RLCard env.step", vs="env.rlcard.peer", issue=12))
        w.append(Workload(f"env.pettingzoo_mask.{rules}", "pettingzoo_mask", rules, hands=2000,
                          target="(the loop scans the mask)", vs="env.rlcard.peer", issue=12))
    # issue 25: a NeuralBot decision (the shipped CLASSIC3 model, numpy, no torch, one thread) at
    # the landlord's first lead of 300 seeded deals; the rate is 1 / the median decision time
    w.append(Workload("neural.lead.classic", "neural_lead", "classic", hands=300, seed=2026,
                      target="<= 2 ms median (>= 500 dec/s)", issue=25))
    # issue 25: training throughput on DouZero's network and rules, 10 minutes of wall time each
    # (``hands`` = seconds) on an idle machine; long: only with run_all --long or --only train.
    w.append(Workload("train.douzero_net.douzero", "train_douzero", "classic_douzero", hands=600,
                      target="(peer)", issue=25, long=True))
    w.append(Workload("train.douzero_net.ddz", "train_ddz", "classic_douzero", hands=600,
                      target=">= 10x DouZero's trainer", vs="train.douzero_net.douzero", issue=25, long=True))
    return w


WORKLOADS: List[Workload] = _registry()


def measure(workloads: List[Workload], repeat: int = 3, scale: float = 1.0) -> List[Result]:
    """Run each workload (hands scaled by ``scale``); ratios use the rates of this run."""
    results: Dict[str, Result] = {}
    for w in workloads:
        if scale != 1.0:
            w = Workload(**{**w.__dict__, "hands": max(10, int(w.hands * scale))})
        try:
            rate, mph, unit = _RUNNERS[w.kind](w, repeat)
        except RuntimeError as e:  # a peer that is not installed
            print(f"skip {w.name}: {e}")
            continue
        results[w.name] = Result(w, rate, mph, unit)
    for res in results.values():
        if res.workload.vs and res.workload.vs in results and results[res.workload.vs].rate > 0:
            res.ratio = res.rate / results[res.workload.vs].rate
    return list(results.values())

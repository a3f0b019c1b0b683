"""``ddz.VectorEnv``: many tables stepped by one call in C++ (the GIL released, the tables split over
``threads``), for learning agents (docs/learning.md, "VectorEnv"): whole hands, the auction
included, or the play phase alone."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from .. import _core
from ..core.rules import Rules
from .encode import compact_layout
from ..core.args import int_arg, is_int, number_arg
from ..core.errors import ArgumentError, ArgumentTypeError, shown
from ..core.variants import VARIANT
from .rewards import REWARD_SCALE, check_reward

__all__ = ["VectorEnv", "VectorStep", "Terminal", "RESULT_KINDS", "hand_seed"]

# The options that change how the play phase scores; the play-phase mode's rewards follow their
# defaults (the rocket doubles in TWOP, every missile unit counts, the symmetric CLASSIC3 ±2X / ∓X).
# Whole hands are scored under every option, as ddz.Game scores them.
_REWARD_OPTIONS = {"twop_rocket_doubles": True, "bengbu_missiles_once_per_player": False,
                   "classic_landlord_loss_factor": 2}

#: ``Terminal.kind`` codes: how a hand ended (``GameResult.kind``).
RESULT_KINDS = ("", "normal", "special", "void")

def hand_seed(seed: int, game: int) -> int:
    """The ``ddz.Game`` seed of game ``game`` of a whole-hand ``VectorEnv`` seeded ``seed``: table i's
    k-th hand (counting from the last ``reset(seed)``) is game ``k * num_envs + i``, and it replays
    ``ddz.Game(rules, seed=hand_seed(seed, k * num_envs + i))`` action for action."""
    return int(_core._hand_seed(seed, game))


@dataclass(frozen=True)
class Terminal:
    """The hands that ended on a step (before the table dealt itself the next one), one row per
    such table: ``tables`` int64 (k,) which tables; ``scores`` float32 (k, seats) the hand's scores
    as the variant scores them (the step's reward rows under ``reward="score"``); ``landlord`` int8
    (k,) (-1 when the hand ended without one: a void hand, a BENGBU4 天炸/天尊 after a re-deal);
    ``winner`` int8 (k,): 0 the landlord's side won, 1 the farmers', -1 neither (void, special);
    ``kind`` int8 (k,) an index into
    ``RESULT_KINDS`` (``"normal"``, ``"special"``, ``"void"``; the play-phase mode: always normal);
    ``obs`` int8 (k, seats, width): each seat's compact row of the final position, by absolute seat."""

    tables: npt.NDArray[np.int64]
    scores: npt.NDArray[np.float32]
    landlord: npt.NDArray[np.int8]
    winner: npt.NDArray[np.int8]
    kind: npt.NDArray[np.int8]
    obs: npt.NDArray[np.int8]


@dataclass(frozen=True)
class VectorStep:
    """What ``reset`` and ``step`` return, one row per table (fresh arrays every call).

    * ``obs`` int8 (tables, width): the compact encoding (``ddz.encode.compact_layout``) of the
      seat to act; after a table finished, that of its new hand. In whole hands it equals
      ``ddz.encode.compact(game, seat)`` of the same ``Game``.
    * ``legal_offsets`` int64 (tables + 1,) and ``legal_ids`` int32: table i may play
      ``legal_ids[legal_offsets[i]:legal_offsets[i+1]]`` (``Move.id``, PASS ``rules.pass_id``,
      decision k ``rules.pass_id + 1 + k``; the order of ``Game.legal_action_ids()``).
    * ``reward`` float32 (tables, seats): zero except on the step that ends a table's hand, where
      it is that hand's score by absolute seat (see ``VectorEnv`` for the two modes).
    * ``done`` bool (tables,): the table's hand ended on this step (it has been dealt a new one).
    * ``seat`` int8 (tables,): the absolute seat to act; ``role`` int8: 0 landlord, 1 farmer, -1
      while the auction has not made a landlord.
    * ``terminal``: the ended hands' scores, landlords, kinds and final rows (``Terminal``).
    * ``deal_ends`` int16 (tables,) and ``deal_scores`` float32 (tables, seats): hands that ended
      at the deal in this call (BENGBU4 天炸/天尊: no decision was taken, so they are not in
      ``reward``), and the sum of their scores.
    * ``mask`` bool (tables, num_actions) when asked for (``mask=True``), else None.
    """

    obs: npt.NDArray[np.int8]
    legal_offsets: npt.NDArray[np.int64]
    legal_ids: npt.NDArray[np.int32]
    reward: npt.NDArray[np.float32]
    done: npt.NDArray[np.bool_]
    seat: npt.NDArray[np.int8]
    role: npt.NDArray[np.int8]
    terminal: Terminal
    deal_ends: npt.NDArray[np.int16]
    deal_scores: npt.NDArray[np.float32]
    mask: Optional[npt.NDArray[np.bool_]] = None


class VectorEnv:
    """``num_envs`` tables of ``rules``, stepped together.

    **Whole hands** (``auction=True``, the default): every table plays the variant's hand from
    the deal: CLASSIC3's call / rob / show, TWOP's 明牌开始 (PRE_DEAL) and its 翻身 / 压迫
    decisions, BENGBU4's bids, grab and 明打 / 暗打, re-deals, then the play. Table i's k-th hand
    (from the last ``reset(seed)``) is ``ddz.Game(rules, seed=hand_seed(seed, k * num_envs + i))``:
    the same deals, the same legal ids in the same order, the same observation rows
    (``ddz.encode.compact``), and the same scores. The reward is the hand's ``GameResult.scores``
    as the variant scores them (auction factors included; CLASSIC3 with base 1 and initial
    multiplier 1; TWOP's are zero-sum only under ``twop_zero_sum``). A BENGBU4 hand that ends at the
    deal (天炸/天尊) has no decision: the table deals again in the same call, and its scores go to
    ``deal_ends`` / ``deal_scores``, not to ``reward``.

    **The play phase alone** (``auction=False``): by default table i's k-th hand is
    ``ddz.deal(rules, seed, k * num_envs + i)`` (a random landlord, the kitty in its hand and
    revealed). Or pass ``deals`` (games, seats) rank-count words with ``landlords`` (games,) and
    optionally ``bomb_limits`` (games, seats) (BENGBU4, 255 = unlimited) and ``kitty`` (games,)
    words (each within the landlord's hand, which holds the kitty in the play phase): table i's
    k-th hand is entry ``(k * num_envs + i) % games``. Rewards (units): CLASSIC3, the landlord wins
    or loses ``2u`` and each farmer ``u``; TWOP, ``u`` each (the zero-sum reading), with
    ``u = 2 ** (bomb-class plays, ROCKET included)``, doubled by a spring or anti-spring
    (docs/rules.md §3 "Spring and anti-spring", and "The multiplier" of §6 and §7): the play
    phase's part of the score, without the auction's factors. BENGBU4: the points of
    docs/rules.md §8 ("Scoring, in points") with base 1 in closed play, missile units shifting
    each transfer. Every row sums to zero. The Game blocks of the observation (factors, auction) are zero.

    ``reward`` (``ddz.learn.rewards``): ``"score"`` (the default: the scores above), ``"win"`` (+1
    for each seat of the winning side, -1 for the others, 0 for all in a hand without a winner) or
    ``"normalized"`` (the score over the variant's ``REWARD_SCALE``); ``Terminal.scores`` keep the
    scores.

    Results depend only on the seed (or the deals) and each table's game counter, never on
    ``threads``. ``step`` takes one action id per table (a numpy integer array or a list of ints);
    an illegal id raises ``ddz.IllegalAction`` naming the table, and no table moves.
    """

    #: ``Terminal.kind`` codes (the module's ``RESULT_KINDS``)
    RESULT_KINDS = RESULT_KINDS

    def __init__(self, rules: Rules, num_envs: int, seed: int = 0, *, threads: int = 1, auction: bool = True,
                 deals: Optional[npt.NDArray[Any]] = None, landlords: Optional[npt.NDArray[Any]] = None,
                 bomb_limits: Optional[npt.NDArray[Any]] = None, kitty: Optional[npt.NDArray[Any]] = None,
                 reward: str = "score") -> None:
        if not isinstance(rules, Rules):
            raise ArgumentTypeError(f"rules must be a ddz.Rules, not {type(rules).__name__}")
        if not isinstance(auction, bool):
            raise ArgumentTypeError(f"auction must be True or False, not {shown(auction)}")
        if auction and any(a is not None for a in (deals, landlords, bomb_limits, kitty)):
            raise ArgumentError("deals=, landlords=, bomb_limits= and kitty= give play-phase deals: "
                                "pass auction=False with them")
        options: Optional[dict] = None
        if auction:
            options = dict(rules.options)  # the core reads the auction's and the score's options
        else:
            for option, supported in _REWARD_OPTIONS.items():
                if option in rules.options and rules.options[option] != supported:
                    raise ArgumentError(f"VectorEnv's play-phase rewards need {option}={supported!r} (the core "
                                        f"scores the play phase that way), not {rules.options[option]!r}; whole "
                                        f"hands (auction=True) score every option")
        self.reward = check_reward(reward)
        self.rules = rules
        self.auction = auction
        self._core = _core._VectorEnv(rules, len(VARIANT[rules.variant].decisions), num_envs, seed, threads,
                                      deals, landlords, bomb_limits, kitty, options)
        self.layout = compact_layout(rules)

    @property
    def num_envs(self) -> int:
        return int(self._core.num_envs)

    @property
    def num_actions(self) -> int:
        """The ids a step may name: ``rules.num_actions`` for whole hands (plays, PASS, the
        decisions), ``rules.pass_id + 1`` for the play phase alone."""
        return int(self._core.num_ids)

    def games(self) -> npt.NDArray[np.uint64]:
        """The game number each table plays now (play phase: ``ddz.deal(rules, seed, game)``; whole
        hands: ``ddz.Game(rules, seed=hand_seed(seed, game))``)."""
        return self._core.games()

    def hand_seeds(self) -> npt.NDArray[np.uint64]:
        """The ``ddz.Game`` seed of the hand each table plays now (whole hands)."""
        return self._core.hand_seeds()

    def rule_choices(self) -> npt.NDArray[np.int64]:
        """What a rule-based player would do on every table now: int64 (tables,), each an index
        into the table's legal ids of the last ``reset`` / ``step`` (table i plays
        ``legal_ids[legal_offsets[i] + k[i]]``). In the auction it is ``RuleBot``'s decision; in
        the play, the rollout policy of ``SearchBot``'s PIMC (``RuleBot``'s play: the lowest
        lead, the longest of those, the lowest beating play, a partner's trick passed, the
        weakest bomb only against an opponent with 5 cards or fewer; it also goes out whenever
        it can and prefers the kickers that break fewest groups). For seating rule opponents
        at the core's speed (``ddz.learn`` trains against them: ``TrainConfig.rule_tables``)."""
        return self._core.rule_choices()

    def oracle(self, max_cards: int = 20, node_limit: int = 20000, table_mb: float = 2.0) -> npt.NDArray[np.int8]:
        """The perfect-information value of every table's position now, for training only: int8
        (tables,), 1 when the landlord's side wins it with best play by every seat seeing every
        hand (``ddz.solve``'s exact search, the landlord against the farmers), 0 when the farmers'
        side does, -1 when unknown: the auction is still on, more than ``max_cards`` cards are
        left in all hands together, or the search passed ``node_limit`` nodes. A trainer uses it
        as a lower-variance target than the hand's outcome (``TrainConfig.oracle_cards``); a
        seat's policy must never see it. ``table_mb`` (MiB, in (0, 4096]) bounds each thread's
        transposition table. The GIL is released while searching."""
        from ..search.solver import MAX_TABLE_MB
        cards = int_arg(max_cards, "max_cards", 0, 216)
        nodes = int_arg(node_limit, "node_limit", 1, 2**63 - 1)
        mb = number_arg(table_mb, "table_mb", 0, MAX_TABLE_MB)
        return self._core.oracle(cards, nodes, mb)

    def _wrap(self, res: Any, mask: bool) -> VectorStep:
        obs, offsets, ids, reward, done, seat, role, terminal, (deal_ends, deal_scores) = res
        term = Terminal(*terminal)
        if self.reward == "normalized":
            reward /= REWARD_SCALE[self.rules.variant]
        elif self.reward == "win" and len(term.tables):
            seats = np.arange(self.rules.players)
            on_landlord_side = (seats[None, :] == term.landlord[:, None]) == (term.winner[:, None] == 0)
            reward[term.tables] = np.where(term.winner[:, None] < 0, 0.0, np.where(on_landlord_side, 1.0, -1.0))
        step = VectorStep(obs, offsets, ids, reward, done, seat, role, term, deal_ends, deal_scores)
        if not mask:
            return step
        m = np.zeros((self.num_envs, self.num_actions), dtype=bool)
        counts = np.diff(step.legal_offsets)
        m[np.repeat(np.arange(self.num_envs), counts), step.legal_ids] = True
        return dataclasses.replace(step, mask=m)

    def reset(self, seed: Optional[int] = None, *, mask: bool = False) -> VectorStep:
        """Deals a new hand on every table (``seed``: re-seeds and restarts the game counters)."""
        return self._wrap(self._core.reset(seed), mask)

    def step(self, actions: Union[npt.NDArray[Any], Sequence[int]], *, mask: bool = False) -> VectorStep:
        """Plays one action id per table (an integer array of shape (num_envs,), or a list of ints).
        An id that is not legal for its table raises ``ddz.IllegalAction`` naming the table, and no
        table moves."""
        return self._wrap(self._core.step(_id_array(actions)), mask)


def _id_array(actions: Any) -> Any:
    """A list or tuple of action ids as an int64 array (numpy integers taken; bools, floats and
    other values refused with ``ArgumentTypeError``); arrays go to the core as they are."""
    if isinstance(actions, np.ndarray) or not isinstance(actions, (list, tuple)):
        return actions
    for k, a in enumerate(actions):
        if not is_int(a):
            raise ArgumentTypeError(f"actions[{k}] is {shown(a)}: an action id is an int")
    try:
        return np.array(actions, dtype=np.int64)
    except OverflowError:
        raise ArgumentError("an action id does not fit in 64 bits") from None

"""RLCard environments on ddz rules: ``ddz-classic``, ``ddz-two-player``, ``ddz-bengbu``.

``ddz.envs.register_rlcard()`` registers them; then::

    env = rlcard.make("ddz-classic", config={"seed": 0, "rules": ddz.Rules.classic_rlcard()})
    env.set_agents([RandomAgent(env.num_actions)] * env.num_players)
    trajectories, payoffs = env.run()

They play the play phase the way RLCard's own ``doudizhu`` does: a deal drawn with the
environment's ``np_random`` (RLCard's seeding; the deal itself is the core's, ``ddz.deal``'s
dealer, for the series it draws), player 0 the landlord holding the kitty and
leading, players numbered in the order of play; payoffs 1 for each player of the winning
side, 0 otherwise (``config["reward"]``, default ``"rlcard"``; ``"score"``, ``"win"`` and
``"normalized"`` follow ``ddz.learn.rewards``, the score being the variant's score of the play with
every auction factor at 1 — no robs, shows or doubling, a bid of 1 in closed play — since these
environments have no auction). ``config["rules"]`` picks the rules (a ``ddz.Rules``; default: the
variant's defaults).
Action ids are ``Move.id`` with PASS at ``rules.pass_id`` (``env.num_actions =
rules.pass_id + 1``): under ``Rules.classic_rlcard()`` they are RLCard's ids, and
``ddz-classic`` gives the same observation arrays (``obs``, 790 wide for the landlord, 901
for a farmer), the same ``legal_actions`` (id -> the 54-wide cards array) and the same raw
observation as RLCard's ``doudizhu`` on the same deal, so RLCard-trained models run
unchanged. ``env.reset(hands=[...])`` starts from given hands (player 0's includes the
kitty; ``kitty=`` names it).

The observation is RLCard 1.2.0's layout, including what it does (facts of that version):
a farmer's "last landlord action" and "last teammate action" are each one's *first*
action of the hand (``'pass'``, all zeros, before the teammate has acted), and a count of
0 cards left sets the last entry of its one-hot. TWOP and BENGBU4 use the same layout
widened: cards arrays of ``54 * decks`` (a rank's ``4 * decks`` slots filled up to its
count, then the jokers' ``decks`` slots each), "others' cards" = every card the player has
not seen (TWOP's 11 set-aside cards included), then per other player in order of play
its played cards and a one-hot of its cards left (``max_hand + 1`` wide, at the count),
then a one-hot of the player's own number (player 0 is the landlord).
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
from rlcard.envs import Env
from rlcard.envs.registration import registry

from ... import _core
from ..._core import Cards, PlayState
from ...core.rules import Rules
from ...core.cards import RANKS, ranks_of
from ...core.errors import ArgumentError, ArgumentTypeError, IllegalCode, illegal, shown
from ..rewards import check_reward, seat_rewards
from ...hand.outcome import result_of
from ...core.variants import VARIANT
from ._common import action_id, rules_from

__all__ = ["ENV_IDS", "DdzRLCardEnv", "ClassicEnv", "TwoPlayerEnv", "BengbuEnv", "register", "card_array"]

ENV_IDS = {"ddz-classic": "ClassicEnv", "ddz-two-player": "TwoPlayerEnv", "ddz-bengbu": "BengbuEnv"}

_HISTORY = 9  # RLCard's last-actions window


def card_array(counts: Sequence[int], decks: int) -> np.ndarray:
    """RLCard's cards array widened to ``decks``: rank r (3..2) fills slots
    ``4*decks*r ..`` up to its count, then ``decks`` slots for B and ``decks`` for R."""
    out = np.zeros(54 * decks, dtype=np.int8)
    width = 4 * decks
    for r in range(13):
        if counts[r]:
            out[width * r:width * r + counts[r]] = 1
    jokers = 52 * decks
    out[jokers:jokers + counts[13]] = 1
    out[jokers + decks:jokers + decks + counts[14]] = 1
    return out


def _counts(cards: str) -> List[int]:
    c = [0] * 15
    for ch in cards:
        c[RANKS.index(ch)] += 1
    return c


class _Table:
    """The game object RLCard's ``Env`` drives: a ddz ``PlayState`` with player 0 the
    landlord, and the trace RLCard's observation reads."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.n = rules.players
        self.decks = rules.decks
        self.allow_step_back = False
        self.np_random = np.random.RandomState()
        self.ps: Optional[PlayState] = None
        self.deck = "".join(r * (4 * self.decks) for r in RANKS[:13]) + "B" * self.decks + "R" * self.decks

    # ---- RLCard's game protocol ----
    def get_num_players(self) -> int:
        return self.n

    def get_num_actions(self) -> int:
        return self.rules.pass_id + 1

    def init_game(self, hands: Optional[Sequence[str]] = None, kitty: Optional[str] = None) -> Tuple[Dict, int]:
        v = VARIANT[self.rules.variant]
        if hands is None:  # the core's dealer (ddz.deal's), game 0 of a series drawn from np_random
            order, _, _ = _core.deal_order(self.rules, int(self.np_random.randint(0, 2**62)), 0)
            dealt = [ranks_of(order[p * v.hand:(p + 1) * v.hand]) for p in range(self.n)]
            kitty = ranks_of(order[self.n * v.hand:self.n * v.hand + v.kitty])
            dealt[0] = str(Cards(dealt[0] + kitty, decks=self.decks))
        else:
            if isinstance(hands, str) or len(hands) != self.n:
                raise ArgumentError(f"hands must list {self.n} hands, player 0 (the landlord) first")
            dealt = [str(Cards(h, decks=self.decks)) for h in hands]
            if len(Cards(dealt[0], decks=self.decks)) != v.max_hand or any(
                    len(Cards(h, decks=self.decks)) != v.hand for h in dealt[1:]):
                raise ArgumentError(f"player 0 holds {v.max_hand} cards (the kitty included), the others {v.hand}")
            kitty = kitty or ""
        self.ps = PlayState(dealt, 0, self.rules)
        self.kitty = str(Cards(kitty, decks=self.decks))
        self.seen = self.kitty
        self.trace: List[Tuple[int, str]] = []
        self.played = [[0] * 15 for _ in range(self.n)]
        return self.get_state(0), 0

    def step(self, action: Union[int, str]) -> Tuple[Dict, int]:
        ps = self._ps()
        p = ps.current_seat
        if isinstance(action, str):  # a raw RLCard action: 'pass' or ranks
            action = "PASS" if action == "pass" else action
        move = ps.apply(action)
        text = "pass" if move.is_pass else str(move)
        self.trace.append((p, text))
        if not move.is_pass:
            for ch in text:
                self.played[p][RANKS.index(ch)] += 1
                if p == 0 and ch in self.seen:  # RLCard drops every copy of a kitty rank the landlord plays
                    self.seen = self.seen.replace(ch, "")
        nxt = (p + 1) % self.n
        return self.get_state(nxt), nxt

    def step_back(self) -> bool:
        if not self.trace:
            return False
        p, text = self.trace.pop()
        self._ps().undo()
        if text != "pass":
            for ch in text:
                self.played[p][RANKS.index(ch)] -= 1
        return True

    def get_player_id(self) -> int:
        ps = self._ps()
        return (self.trace[-1][0] + 1) % self.n if ps.is_over else ps.current_seat

    def is_over(self) -> bool:
        return self._ps().is_over

    def _ps(self) -> PlayState:
        if self.ps is None:
            raise ArgumentError("the environment has not been reset")
        return self.ps

    def get_state(self, p: int) -> Dict[str, Any]:
        ps = self._ps()
        hand = ps.hand(p)
        own = hand.counts()
        played_all = [sum(c[r] for c in self.played) for r in range(15)]
        full = _counts(self.deck)
        unseen = [full[r] - own[r] - played_all[r] for r in range(15)]
        moves = [] if ps.is_over or ps.current_seat != p else ps.legal_moves()
        return {
            "seen_cards": self.seen, "landlord": 0, "trace": list(self.trace),
            "played_cards": ["".join(RANKS[r] * c[r] for r in range(15)) for c in self.played],
            "self": p, "current_hand": str(hand), "others_hand": "".join(RANKS[r] * unseen[r] for r in range(15)),
            "num_cards_left": [ps.cards_left(s) for s in range(self.n)],
            "actions": ["pass" if m.is_pass else str(m) for m in moves],
            "_moves": moves,
        }


class DdzRLCardEnv(Env):
    """An RLCard ``Env`` over ddz's play phase (see the module docstring)."""

    variant = "classic"

    def __init__(self, config: Dict[str, Any]) -> None:
        rules = config.get("rules") or Rules(self.variant)
        if not isinstance(rules, Rules):  # RLCard's config takes the Rules themselves
            raise ArgumentTypeError(f"config['rules'] must be a ddz.Rules, not {shown(rules)}")
        self.rules = rules_from(rules, self.variant)
        self.reward = check_reward(config.get("reward", "rlcard"), extra=("rlcard",))
        self.name = {"classic": "ddz-classic", "two_player": "ddz-two-player", "bengbu": "ddz-bengbu"}[self.variant]
        self.game = _Table(rules)
        self._memo: Dict[str, np.ndarray] = {}
        super().__init__(config)
        n = rules.players
        # CLASSIC3 is RLCard's own doudizhu: its state layout, seat by seat; the others get one layout
        self._rlcard_layout = self.variant == "classic"
        if self._rlcard_layout:
            self.state_shape = [[790], [901], [901]]
        else:
            d = 54 * rules.decks
            width = d * (3 + _HISTORY + n - 1) + (n - 1) * (rules.max_hand + 1) + n
            self.state_shape = [[width] for _ in range(n)]
        self.action_shape = [[54 * rules.decks] for _ in range(n)]

    def reset(self, hands: Optional[Sequence[str]] = None, kitty: Optional[str] = None) -> Tuple[Dict, int]:
        """A new hand: shuffled with ``np_random``, or from ``hands`` (player 0, the
        landlord, first, holding the kitty; ``kitty`` names the kitty for the raw observation)."""
        state, player = self.game.init_game(hands, kitty)
        self.action_recorder: List[Tuple[int, int]] = []
        return self._extract_state(state), player

    # ---- encoding ----
    def _cards(self, text: str) -> np.ndarray:
        """The cards array of a rank string ('pass' and '' are empty), memoised: the same
        plays recur all the time (the arrays are only read, never written)."""
        got = self._memo.get(text)
        if got is None:
            if len(self._memo) > 200_000:  # hands are many: keep the memo bounded
                self._memo.clear()
            got = self._memo[text] = card_array(_counts(text) if text != "pass" else [0] * 15, self.rules.decks)
        return got

    def _last_action(self, trace: List[Tuple[int, str]]) -> str:
        if not trace:
            return ""
        return trace[-2][1] if trace[-1][1] == "pass" else trace[-1][1]

    def _history(self, trace: List[Tuple[int, str]]) -> np.ndarray:
        seq = [a for _, a in trace[-_HISTORY:]]
        rows = [self._cards("")] * (_HISTORY - len(seq)) + [self._cards(a) for a in seq]
        return np.concatenate(rows)

    @staticmethod
    def _one_hot(n_left: int, width: int, at: int) -> np.ndarray:
        v = np.zeros(width, dtype=np.int8)
        v[at] = 1
        return v

    def _extract_state(self, state: Dict[str, Any]) -> "OrderedDict[str, Any]":
        rules = self.rules
        n = rules.players
        p = state["self"]
        trace = state["trace"]
        left = state["num_cards_left"]
        head = [self._cards(state["current_hand"]), self._cards(state["others_hand"]),
                self._cards(self._last_action(trace)),
                self._history(trace)]
        if self._rlcard_layout:
            played = state["played_cards"]
            if p == 0:
                tail = [self._cards(played[2]), self._cards(played[1]),
                        self._one_hot(left[2], 17, left[2] - 1), self._one_hot(left[1], 17, left[1] - 1)]
            else:
                mate = 3 - p
                first_landlord = next((a for s, a in trace if s == 0), "pass")
                first_mate = next((a for s, a in trace if s == mate), "pass")
                tail = [self._cards(played[0]), self._cards(played[mate]), self._cards(first_landlord),
                        self._cards(first_mate), self._one_hot(left[0], 20, left[0] - 1),
                        self._one_hot(left[mate], 17, left[mate] - 1)]
        else:
            others = [(p + k) % n for k in range(1, n)]
            width = rules.max_hand + 1
            tail = ([self._cards(state["played_cards"][q]) for q in others]
                    + [self._one_hot(left[q], width, left[q]) for q in others] + [self._one_hot(p, n, p)])
        obs = np.concatenate(head + tail)
        legal = OrderedDict((m.id, self._cards(text)) for m, text in zip(state["_moves"], state["actions"]))
        raw = {k: v for k, v in state.items() if not k.startswith("_")}
        extracted: "OrderedDict[str, Any]" = OrderedDict({"obs": obs, "legal_actions": legal})
        extracted["raw_obs"] = raw
        extracted["raw_legal_actions"] = list(raw["actions"])
        extracted["action_record"] = self.action_recorder
        return extracted

    # ---- RLCard's Env protocol ----
    def get_payoffs(self) -> np.ndarray:
        ps = self.game._ps()
        if self.reward != "rlcard":
            if not ps.is_over:
                return np.zeros(self.rules.players, dtype=np.float64)
            return np.array(seat_rewards(self._result(ps), self.variant, self.reward), dtype=np.float64)
        payoffs = np.zeros(self.rules.players, dtype=np.int64)
        if ps.is_over:
            if ps.winner_side == "landlord":
                payoffs[0] = 1
            else:
                payoffs[1:] = 1
        return payoffs

    def _result(self, ps: PlayState) -> Any:
        """The finished play's GameResult as the variant scores it, every auction factor at 1
        (player 0 the landlord)."""
        return result_of(_core._play_outcome(self.rules, dict(self.rules.options), ps), self.rules)

    def step(self, action: Any, raw_action: bool = False) -> Tuple[Dict, int]:
        """RLCard's ``Env.step``, the action checked first: an id (an int or numpy integer,
        not a bool) or, with ``raw_action``, RLCard's raw action (``'pass'`` or ranks); an
        action that is not legal, or any step once the hand is over, raises ``ddz.IllegalAction``
        (``IllegalActionTypeError`` for a wrong type) and changes nothing (RLCard's step counter
        and action record included)."""
        ps = self.game._ps()
        if ps.is_over:
            raise illegal(IllegalCode.HAND_OVER, "the hand is over: call reset() to deal the next one")
        if raw_action:
            if not isinstance(action, str):
                raise illegal(IllegalCode.MALFORMED, f"a raw action is 'pass' or ranks (a str), not {shown(action)}",
                              type_error=True)
            why = ps.check("PASS" if action == "pass" else action)
        else:
            action = action_id(action, self.num_actions)
            why = ps.check(action)
        if why is not None:
            raise why
        return super().step(action, raw_action)

    def _decode_action(self, action_id: int) -> int:
        return action_id  # step has checked it

    def _get_legal_actions(self) -> "OrderedDict[int, np.ndarray]":
        return self._extract_state(self.game.get_state(self.game.get_player_id()))["legal_actions"]

    def get_action_feature(self, action: int) -> np.ndarray:
        m = self.rules.move_from_id(int(action))
        return card_array(m.cards.counts() if not m.is_pass else [0] * 15, self.rules.decks)

    def get_perfect_information(self) -> Dict[str, Any]:
        ps = self.game._ps()
        state = self.game.get_state(self.game.get_player_id())
        return {"hand_cards": [str(ps.hand(s)) for s in range(self.rules.players)], "trace": list(self.game.trace),
                "current_player": self.game.get_player_id(), "legal_actions": state["actions"]}


class ClassicEnv(DdzRLCardEnv):
    """``ddz-classic``: CLASSIC3's play phase (RLCard's ``doudizhu`` under ``classic_rlcard()``)."""

    variant = "classic"


class TwoPlayerEnv(DdzRLCardEnv):
    """``ddz-two-player``: TWOP's play phase."""

    variant = "two_player"


class BengbuEnv(DdzRLCardEnv):
    """``ddz-bengbu``: BENGBU4's play phase (no bidding, so no bomb limits)."""

    variant = "bengbu"


def register() -> Any:
    for env_id, cls in ENV_IDS.items():
        if env_id not in registry.env_specs:
            registry.register(env_id, f"ddz.envs.rlcard_env:{cls}")
    return registry

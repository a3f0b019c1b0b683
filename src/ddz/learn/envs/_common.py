"""What the PettingZoo and Gymnasium environments share: the rules from a name, a hand's
start, the action check, the observation (``ddz.encode.compact`` and the action mask) and its
space with each block's bounds, the text rendering, sampled worlds."""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from .. import encode
from ...core.rules import RULES_NAMES, Rules
from ...core.errors import ArgumentError, ArgumentTypeError, IllegalCode, illegal, shown
from ...hand.game import Game
from ...search.sample import sample_deals
from ...core.variants import VARIANT

__all__ = ["new_game", "observe", "spaces_for", "observation_bounds", "sample_worlds", "rules_from", "action_id",
           "no_hand", "render_text", "check_render", "RULES_NAMES", "RENDER_VIEWS"]

MAX_SKIPPED = 10_000  # special deals in a row: never reached (about 1 in 30 BENGBU4 deals is one)


#: ``render_view`` values: the agent to act's view (what it may see), or a spectator's (public
#: information only: no hidden hand).
RENDER_VIEWS = ("agent", "spectator")


def rules_from(rules: Any, variant: Optional[str] = None) -> Rules:
    """A ``Rules`` from a ``Rules`` or a name ``Rules.named`` takes (``"classic"``, ``"twop"``,
    ``"classic_rlcard"``, ...); with ``variant``, the rules must be of that variant."""
    if isinstance(rules, str):
        rules = Rules.named(rules)
    elif not isinstance(rules, Rules):
        raise ArgumentTypeError(f"rules must be a ddz.Rules or a variant name, not {shown(rules)}")
    if variant is not None and rules.variant != variant:
        raise ArgumentError(f"this environment plays {variant}, not {rules!r}")
    return rules



def action_id(action: Any, num_actions: int) -> int:
    """``action`` as an int id, checked as ``Game.apply`` checks an id: an int or a numpy integer
    (never a bool) in ``0..num_actions - 1``; anything else raises ``IllegalAction``
    (``IllegalActionTypeError`` for a wrong type), code ``MALFORMED``."""
    if type(action) is int:
        aid = action
    elif isinstance(action, np.integer) or (isinstance(action, int) and not isinstance(action, bool)):
        aid = int(action)
    else:
        raise illegal(IllegalCode.MALFORMED, f"an action is an action id (an int in 0..{num_actions - 1}), "
                                             f"not {shown(action)}", type_error=True)
    if not 0 <= aid < num_actions:
        raise illegal(IllegalCode.MALFORMED, f"action id {shown(aid)} is out of range 0..{num_actions - 1}")
    return aid


def no_hand(ended: bool) -> Any:
    """The error of a step with no hand to play: before the first ``reset()`` or after the
    episode has ended (an ``IllegalAction``, code ``HAND_OVER``)."""
    if ended:
        return illegal(IllegalCode.HAND_OVER, "the episode has ended: call reset() to start the next hand")
    return illegal(IllegalCode.HAND_OVER, "no hand is in progress: call reset() first")


def new_game(rules: Rules, rng: np.random.Generator) -> Game:
    """A new hand seeded from ``rng``. A BENGBU4 deal that ends at the deal (天炸/天尊,
    docs/rules.md §8 "Special deals") leaves nobody a decision, which a hand of these
    frameworks must have: it is skipped (the next seed is dealt), so the hands played are those
    without one."""
    for _ in range(MAX_SKIPPED):
        g = Game(rules, int(rng.integers(2**63)))
        if not g.is_over:
            return g
    raise RuntimeError("no playable deal found")  # pragma: no cover - see MAX_SKIPPED


def observation_bounds(rules: Rules) -> Tuple[np.ndarray, np.ndarray]:
    """(low, high) of every entry of ``ddz.encode.compact`` for ``rules``, block by block
    (docs/encodings.md): rank counts up to the decks' copies of each rank, cards left up to
    the largest hand, flags and one-hots 0..1, bombs up to half a hand (a bomb-class play
    takes two cards at least), BENGBU4's bombs left −1 (unlimited) .. 2, each factor slot
    up to its largest code; an entry that never changes (−1 or 0) is given a range of one."""
    layout = encode.compact_layout(rules)
    width = max(s.stop for s in layout.values())
    low = np.zeros(width, dtype=np.int8)
    high = np.ones(width, dtype=np.int8)
    d = rules.decks
    v = VARIANT[rules.variant]
    per_rank = np.array([4 * d] * 13 + [d, d], dtype=np.int8)
    deck_bombs = min(54 * d // 2, 127)  # every bomb-class play of the hand, all seats
    factor_high = {
        "classic": [3, 1, 2, deck_bombs, 1],   # log2: rob (≤ 3 robs), show, kitty (1/2/4), bomb, spring
        "two_player": [1, 2, deck_bombs, 1],   # show-start flag; log2: 翻身/压迫 (1/2/4), bomb, spring
        "bengbu": [3, 1],                      # base bid, open flag
    }[rules.variant]
    for name, sl in layout.items():
        w = sl.stop - sl.start
        if name in ("hand", "unseen", "played", "last_action", "top", "shown"):
            high[sl] = np.tile(per_rank, w // 15)
        elif name == "kitty":
            high[sl] = np.minimum(per_rank, v.kitty)
        elif name == "cards_left":
            high[sl] = v.max_hand
        elif name == "bombs":
            high[sl] = v.max_hand // 2
        elif name == "bombs_left":
            low[sl] = -1
            high[sl] = 2 if v.bomb_limits else -1
        elif name == "factors":
            high[sl] = (factor_high + [0] * w)[:w]
    # an entry that never changes (bombs_left outside BENGBU4, unused factor slots) gets a range
    # of one: a zero-width range divides by zero in a normalising wrapper (Gymnasium warns of it)
    high[low == high] += 1
    return low, high


def spaces_for(rules: Rules) -> Any:
    """(observation space, action space): a Dict of ``observation`` (the compact int8 row,
    bounded block by block: ``observation_bounds``) and ``action_mask`` (int8,
    ``rules.num_actions``), and Discrete(``rules.num_actions``)."""
    from gymnasium import spaces
    low, high = observation_bounds(rules)
    obs = spaces.Dict({
        "observation": spaces.Box(low=low, high=high, dtype=np.int8),
        "action_mask": spaces.Box(low=0, high=1, shape=(rules.num_actions,), dtype=np.int8),
    })
    return obs, spaces.Discrete(rules.num_actions)


def observe(game: Game, seat: int) -> Dict[str, np.ndarray]:
    """The seat's observation: ``compact(game, seat)`` (only what the seat may see) and a
    mask of its legal action ids (all zeros when another seat is to act)."""
    return encode._observation(game, seat)  # one core call writes both


def sample_worlds(game: Game, seat: int, n: int, seed: int = 0) -> np.ndarray:
    """``ddz.sample_deals`` for ``seat``: ``n`` deals of the hidden cards consistent with
    what the seat has seen (rows of rank-count words, one column per seat), for search."""
    return sample_deals(game.observation(seat), n, seed)


def bot_action(bot: Any, game: Game, seat: int) -> Any:
    """A bot's (``act(game, seat)``) or a callable's (``f(observation)``) action."""
    if callable(getattr(bot, "act", None)):
        return bot.act(game, seat)
    obs = game.observation(seat)
    obs["legal_action_ids"] = game.legal_action_ids()
    return bot(obs)


def check_render(render_mode: Any, render_view: Any, modes: Sequence[str]) -> None:
    """Refuses, at construction, a render mode the environment does not have and an
    unknown ``render_view``."""
    if render_mode is not None and (not isinstance(render_mode, str) or render_mode not in modes):
        raise ArgumentError(f"render_mode must be None or one of {', '.join(map(repr, modes))}, "
                            f"not {shown(render_mode)}")
    if not isinstance(render_view, str) or render_view not in RENDER_VIEWS:
        raise ArgumentError(f"render_view must be one of {', '.join(map(repr, RENDER_VIEWS))}, "
                            f"not {shown(render_view)}")


def render_text(game: Game, seat: Optional[int], names: Sequence[str]) -> str:
    """The text of what ``seat`` sees (``Game.observation(seat)``; ``None``: a spectator, who
    sees only what is public): the phase, who acts, the landlord and multiplier, each seat's
    cards left and face-up hand, the kitty once revealed, the play to beat, the last actions
    and the viewer's own hand."""
    o = game.observation(seat)
    landlord = o["landlord"]
    lines = [f"{game.rules.variant} · phase {o['phase']}"
             + (f" · to act {names[o['current_seat']]}" if o["current_seat"] is not None else "")
             + (f" · landlord {names[landlord]}" if landlord is not None else "")
             + f" · multiplier {o['multiplier']}"]
    for s, name in enumerate(names):
        tag = " (landlord)" if s == landlord else ""
        face_up = o["shown"].get(s)
        held = f": {' '.join(face_up)} (face up)" if face_up else ""
        if s == seat:
            held = f": {o['hand'] or '-'}"
        lines.append(f"  {name}{tag}{' (you)' if s == seat else ''}: {o['cards_left'][s]} cards{held}")
    if o["kitty"]:
        lines.append(f"  kitty: {' '.join(o['kitty'])}")
    if o["top"] is not None:
        lines.append(f"  to beat: {o['top'][1]} by {names[o['top'][0]]}")
    recent = o["history"][-6:]
    if recent:
        # the dealer's entries (REDEAL) have no seat
        lines.append("  last: " + ", ".join(f"{'dealer' if s is None else names[s]} {t}" for s, t in recent))
    if game.is_over and game.result is not None:
        lines.append(f"  over: {game.result.kind}, winner {game.result.winner_side}, scores {list(game.result.scores)}")
    return "\n".join(lines)


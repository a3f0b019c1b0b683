"""DouZero's agents and ddz's agents, each playing in the other's harness.

* ``DouZeroAgent(checkpoints)`` plays a DouZero checkpoint (the per-position torch state dicts
  DouZero's trainer writes, ``landlord_weights_<frames>.ckpt`` and so on) as a ddz bot
  (``act(game, seat)``) under ``Rules.classic_douzero()``. At a play decision it builds
  DouZero's observation with ddz's C++ encoder (``ddz.learn.encode.douzero_batch``: the same
  numbers as ``douzero.env.env.get_obs``), scores every legal action with the position's
  network and plays the highest, as DouZero's ``DeepAgent`` does. DouZero does not bid: the
  auction is left to ``bidder`` (``RuleBot()`` by default). The network is defined here, with
  DouZero's parameter names and shapes, so playing a checkpoint needs torch but not DouZero.
* ``as_douzero_agent(bot)`` is the other way round: an object with DouZero's ``act(infoset)``
  that seats any ddz bot (``RuleBot``, ``SearchBot``, ``NeuralBot``, ``DouZeroAgent``, or a
  callable ``agent(observation)`` as ``ddz.evaluate`` takes) in DouZero's ``GameEnv`` and so
  in DouZero's own evaluator (``douzero.evaluation.simulation``). Each decision rebuilds a
  ``ddz.Game`` from what the infoset shows the seat (see ``DouZeroSeat.game``).

DouZero's positions are named from the landlord: ``landlord``, ``landlord_down`` (plays after
the landlord) and ``landlord_up`` (plays before it). ddz seats play in increasing order, so a
game whose landlord is seat ``L`` has ``landlord_down`` at ``(L + 1) % 3``. DouZero's cards are
ints: 3..14 for 3..A, 17 for 2, 20 for the black joker, 30 for the red one.

torch is imported when a checkpoint is loaded (``pip install "ddz[learn]"``); importing this
module imports neither torch nor DouZero. See docs/peers.md.
"""
from __future__ import annotations

import copy
import os
import random
import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

from .._core import PlayState
from ..core.errors import ArgumentError, ArgumentTypeError, IllegalAction, shown
from ..core.rules import Rules
from ..hand.game import Game
from ..learn import encode
from ..search.bots import Bot, RuleBot
from ..search.evaluate import agent_observation
from .adapters import fixed_auction_action

__all__ = ["DouZeroAgent", "DouZeroSeat", "as_douzero_agent", "find_douzero_checkpoints", "DOUZERO_POSITIONS",
           "douzero_cards", "ddz_ranks"]

#: DouZero's positions, by seat offset from the landlord (ddz's seats play in increasing order).
DOUZERO_POSITIONS: Tuple[str, str, str] = ("landlord", "landlord_down", "landlord_up")
_SEAT_OF = {p: k for k, p in enumerate(DOUZERO_POSITIONS)}
_RANKS = "3456789TJQKA2BR"
_DZ_INT = dict(zip(_RANKS, (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 20, 30)))
_DZ_RANK = {i: r for r, i in _DZ_INT.items()}
_FULL_DECK = "3456789TJQKA2" * 4 + "BR"
_LSTM_IN, _LSTM_OUT, _WIDTH, _DENSE = 162, 128, 512, 6
#: The width of DouZero's ``x`` per position (the state features and the 54 of the action).
_X_WIDTH = {"landlord": 373, "landlord_down": 484, "landlord_up": 484}
_CKPT = re.compile(r"^(landlord|landlord_up|landlord_down)(?:_weights_(\d+))?\.ckpt$")

Checkpoints = Union[str, "os.PathLike[str]", Mapping[str, Union[str, "os.PathLike[str]"]]]


def douzero_cards(ranks: str) -> List[int]:
    """A rank string of ddz's notation (``"33TB"``) as DouZero's sorted card ints (``[3, 3, 10, 20]``)."""
    try:
        return sorted(_DZ_INT[c] for c in ranks)
    except KeyError as e:
        raise ArgumentError(f"{shown(e.args[0])} is not a rank of {_RANKS}") from None


def ddz_ranks(cards: Sequence[int]) -> str:
    """DouZero's card ints as a ddz rank string in rank order (``[20, 3, 3]`` -> ``"33B"``)."""
    try:
        return "".join(sorted((_DZ_RANK[int(c)] for c in cards), key=_RANKS.index))
    except (KeyError, TypeError, ValueError):
        raise ArgumentError(f"{shown(cards)} are not DouZero cards (3..14, 17, 20, 30)") from None


# --------------------------------------------------------------------------- torch, lazily
def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise ImportError("playing a DouZero checkpoint needs torch: pip install \"ddz[learn]\" "
                          "(the CPU build: pip install torch --index-url https://download.pytorch.org/whl/cpu)") from None
    return torch


_NET: Dict[str, Any] = {}


def _net_class() -> Any:
    """DouZero's Q network for one position, written for ddz: a one-layer LSTM (162 -> 128) over
    the last 15 plays (5 steps of 3), whose last output is put before ``x`` (the state and the
    action), then six dense layers (512 wide, ReLU between, 1 out). The parameter names are
    DouZero's (``lstm.*``, ``dense1`` .. ``dense6``), so its state dicts load as they are."""
    if "cls" in _NET:
        return _NET["cls"]
    torch = _torch()
    nn = torch.nn

    class DouZeroNet(nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self, x_width: int) -> None:
            super().__init__()
            self.lstm = nn.LSTM(_LSTM_IN, _LSTM_OUT, batch_first=True)
            widths = [x_width + _LSTM_OUT] + [_WIDTH] * (_DENSE - 1) + [1]
            for k in range(_DENSE):
                setattr(self, f"dense{k + 1}", nn.Linear(widths[k], widths[k + 1]))

        def forward(self, z: Any, x: Any) -> Any:
            """Q values (rows,) of ``x`` (rows, x_width); ``z`` (5, 162) is the state's history,
            the same for every row, so the LSTM runs once."""
            out, _ = self.lstm(z[None])
            h = out[:, -1].expand(x.shape[0], -1)
            y = torch.cat([h, x], dim=1)
            for k in range(1, _DENSE):
                y = torch.relu(getattr(self, f"dense{k}")(y))
            return self.dense6(y)[:, 0]

    _NET["cls"] = DouZeroNet
    return DouZeroNet


def find_douzero_checkpoints(source: Checkpoints) -> Dict[str, Path]:
    """The checkpoint file of each DouZero position. ``source`` is a folder or a mapping
    ``{position: file}`` naming all three positions. In a folder, a position's file is
    ``<position>.ckpt`` (the name of DouZero's published baselines) or else the
    ``<position>_weights_<frames>.ckpt`` with the most frames (what DouZero's trainer saves)."""
    if isinstance(source, Mapping):
        unknown = sorted(str(k) for k in source if k not in _SEAT_OF)
        if unknown:
            raise ArgumentError(f"unknown DouZero position {shown(unknown[0])}: use {', '.join(DOUZERO_POSITIONS)}")
        missing = [p for p in DOUZERO_POSITIONS if p not in source]
        if missing:
            raise ArgumentError(f"no checkpoint given for DouZero position {missing[0]!r}")
        out = {}
        for p in DOUZERO_POSITIONS:
            if not isinstance(source[p], (str, os.PathLike)):
                raise ArgumentTypeError(f"the checkpoint of {p!r} must be a path, not {shown(source[p])}")
            out[p] = Path(source[p])
        return out
    if not isinstance(source, (str, os.PathLike)):
        raise ArgumentTypeError(f"checkpoints must be a folder or a mapping {{position: file}}, not {shown(source)}")
    folder = Path(source)
    if not folder.is_dir():
        raise ArgumentError(f"no DouZero checkpoint folder {str(folder)!r}")
    best: Dict[str, Tuple[int, Path]] = {}
    for f in folder.iterdir():
        m = _CKPT.match(f.name)
        if m and f.is_file():
            rank = 1 << 62 if m.group(2) is None else int(m.group(2))  # <position>.ckpt first
            if m.group(1) not in best or rank > best[m.group(1)][0]:
                best[m.group(1)] = (rank, f)
    for p in DOUZERO_POSITIONS:
        if p not in best:
            raise ArgumentError(f"no checkpoint of DouZero position {p!r} in {str(folder)!r} "
                                f"(looked for {p}.ckpt and {p}_weights_<frames>.ckpt)")
    return {p: best[p][1] for p in DOUZERO_POSITIONS}


def _load_net(position: str, path: Path) -> Any:
    torch = _torch()
    if not path.is_file():
        raise ArgumentError(f"no DouZero checkpoint {str(path)!r} (position {position!r})")
    try:
        state = torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as e:  # a truncated file, not a torch file, a pickle of other objects, ...
        raise ArgumentError(f"{str(path)!r} is not a DouZero checkpoint (torch.load: {shown(str(e))})") from None
    if not isinstance(state, Mapping) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ArgumentError(f"{str(path)!r} is not a DouZero checkpoint: it holds {type(state).__name__}, "
                            "not a state dict of tensors")
    net = _net_class()(_X_WIDTH[position])
    want = net.state_dict()
    missing = [k for k in want if k not in state]
    if missing:
        raise ArgumentError(f"{str(path)!r} is not a DouZero {position} checkpoint: it has no {missing[0]!r}")
    for k, v in want.items():
        if tuple(state[k].shape) != tuple(v.shape):
            raise ArgumentError(f"{str(path)!r} is not a DouZero {position} checkpoint: {k} has shape "
                                f"{tuple(state[k].shape)}, not {tuple(v.shape)}")
    # Other keys are left out, as DouZero's evaluator does.
    net.load_state_dict({k: state[k].float() for k in want})
    net.eval()
    for p in net.parameters():
        p.requires_grad_(False)
    return net


# --------------------------------------------------------------------------- a checkpoint as a ddz bot
class DouZeroAgent(Bot):
    """A DouZero checkpoint playing a ddz seat under ``Rules.classic_douzero()``.

    ``checkpoints``: a folder holding one checkpoint per position (``landlord.ckpt`` or
    ``landlord_weights_<frames>.ckpt``, the latest; the same for ``landlord_down`` and
    ``landlord_up``) or a mapping ``{position: file}``. The files are DouZero's own: torch state
    dicts, read with ``torch.load(..., weights_only=True, map_location="cpu")``. A missing,
    unreadable or wrongly shaped file raises ``ArgumentError`` naming it.

    At a play decision the seat's DouZero observation is encoded by ddz
    (``ddz.learn.encode.douzero_batch``) and the position's network scores each legal action;
    the agent plays the highest (the first in ddz's legal order among equal values). With one
    legal action it plays it without the network, as DouZero's ``DeepAgent`` does. The auction
    is played by ``bidder`` (default ``RuleBot()``). Any other rules than
    ``Rules.classic_douzero()`` raise ``ArgumentError``.

    The networks are read-only: ``ddz.evaluate``'s per-hand copies share them (only the bidder
    is copied), so one agent can sit at every seat. ``threads`` is torch's number of threads
    during a decision (torch's setting is put back after it; ``None`` leaves it alone): a
    decision's products are small, and on a busy machine one thread is many times faster than
    several.
    """

    rules: Rules

    def __init__(self, checkpoints: Checkpoints, *, bidder: Optional[Bot] = None, name: Optional[str] = None,
                 threads: Optional[int] = 1) -> None:
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ArgumentTypeError(f"threads must be a positive int or None, not {shown(threads)}")
        self.threads = threads
        if bidder is not None and not callable(getattr(bidder, "act", None)):
            raise ArgumentTypeError(f"bidder must be a bot (act(game, seat)), not {shown(bidder)}")
        self.paths: Dict[str, Path] = find_douzero_checkpoints(checkpoints)
        self._nets: Dict[str, Any] = {p: _load_net(p, f) for p, f in self.paths.items()}
        self.rules = Rules.classic_douzero()
        self.bidder: Bot = bidder if bidder is not None else RuleBot()
        self.name = name or "DouZeroAgent"

    def __deepcopy__(self, memo: Dict[int, Any]) -> "DouZeroAgent":
        new = copy.copy(self)  # the networks are shared: nothing in them changes
        new.bidder = copy.deepcopy(self.bidder, memo)
        return new

    def reseed(self, seed: int) -> None:
        """Reseeds the bidder when it has random numbers (``ddz.evaluate`` calls this per hand);
        the play itself is deterministic."""
        if callable(getattr(self.bidder, "reseed", None)):
            self.bidder.reseed(seed)  # type: ignore[attr-defined]

    def _state(self, game: Any) -> PlayState:
        if isinstance(game, PlayState):
            ps = game
        elif isinstance(game, Game):
            if game.phase != "PLAY" or game.play_state is None:
                raise ArgumentError(f"DouZeroAgent scores play decisions only; the game is in phase {game.phase}")
            ps = game.play_state
        else:
            raise ArgumentTypeError(f"expected a ddz.Game or a ddz.PlayState, not {shown(game)}")
        if ps.rules != self.rules:
            raise ArgumentError(f"DouZeroAgent plays only under Rules.classic_douzero() (DouZero's rules), "
                                f"not {shown(ps.rules)}")
        if ps.is_over:
            raise ArgumentError("the play is over: there is no decision to score")
        return ps

    def q_values(self, state: Any) -> Tuple[npt.NDArray[np.int32], List[List[int]], npt.NDArray[np.float32]]:
        """The legal actions of the seat to act of ``state`` (a ``ddz.Game`` in its play phase or
        a ``ddz.PlayState``) and the network's Q value of each: (action ids, the same actions as
        DouZero card lists, Q values), in ddz's legal order."""
        ps = self._state(state)
        b = encode.douzero_batch([ps])
        obs = b.obs(0)
        return b.legal_ids.copy(), obs["legal_actions"], self.q_values_obs(obs)

    def q_values_obs(self, obs: Mapping[str, Any]) -> npt.NDArray[np.float32]:
        """Q values of the rows of a DouZero observation dict (``position``, ``x_batch`` and ``z``
        or ``z_batch``: what ``ddz.learn.encode.douzero`` or ``douzero.env.env.get_obs`` return)."""
        torch = _torch()
        position = obs.get("position")
        if position not in self._nets:
            raise ArgumentError(f"obs['position'] must be one of {', '.join(DOUZERO_POSITIONS)}, not {shown(position)}")
        x = np.asarray(obs["x_batch"], dtype=np.float32)
        z = np.asarray(obs["z"] if "z" in obs else obs["z_batch"][0], dtype=np.float32)
        if x.ndim != 2 or x.shape[1] != _X_WIDTH[position] or z.shape != (5, _LSTM_IN):
            raise ArgumentError(f"a {position} observation has x_batch (rows, {_X_WIDTH[position]}) and z (5, 162), "
                                f"not {x.shape} and {z.shape}")
        before = torch.get_num_threads()
        if self.threads is not None and self.threads != before:
            torch.set_num_threads(self.threads)
        try:
            with torch.inference_mode():
                q = self._nets[position](torch.from_numpy(z), torch.from_numpy(x))
        finally:
            if torch.get_num_threads() != before:
                torch.set_num_threads(before)
        return np.asarray(q.numpy(), dtype=np.float32)

    def act(self, game: Any, seat: int) -> Any:
        """The action of ``seat`` in ``game``: in the auction the bidder's; in the play the
        action id of the legal action with the highest Q value (one legal action: that one)."""
        if game.phase != "PLAY":
            return self.bidder.act(game, seat)
        ps = self._state(game)
        if ps.current_seat != seat:
            raise ArgumentError(f"seat {shown(seat)} has no play decision to make now")
        b = encode.douzero_batch([ps])
        ids = b.legal_ids
        if len(ids) == 1:
            return int(ids[0])
        q = self.q_values_obs(b.obs(0, []))
        return int(ids[int(np.argmax(q))])


# --------------------------------------------------------------------------- a ddz bot in DouZero's harness
def _minus(whole: str, part: str) -> str:
    rest = list(whole)
    for c in part:
        rest.remove(c)
    return "".join(rest)


def _within(part: str, whole: str) -> bool:
    rest = list(whole)
    for c in part:
        if c not in rest:
            return False
        rest.remove(c)
    return True


def _pass_or_first(infoset: Any) -> List[int]:
    """The default fallback: pass when DouZero allows it, else its first legal action."""
    legal = infoset.legal_actions
    return [] if [] in legal else list(legal[0])


class DouZeroSeat:
    """A ddz agent with DouZero's agent API, ``act(infoset) -> action`` (a list of DouZero card
    ints): what ``as_douzero_agent`` returns. Put it in the ``players`` dict of DouZero's
    ``GameEnv`` (or of ``douzero.evaluation.simulation``'s loop) like a ``DeepAgent``.

    Each decision rebuilds a ``ddz.Game`` under ``Rules.classic_douzero()`` from what the
    infoset shows the seat (``game(infoset)``), asks the ddz agent, and maps its answer back to
    DouZero's cards. DouZero and ddz differ in two documented defects of DouZero's
    (docs/peers.md): when the play cannot be rebuilt in ddz (DouZero allowed a plane that ddz's
    rules refuse) or the agent's answer is not among DouZero's legal actions (after a play that
    DouZero's detector rejects, DouZero allows only bombs and pass), ``fallback(infoset)`` plays
    instead (default: pass when allowed, else DouZero's first legal action) and ``fallbacks``
    counts it.
    """

    def __init__(self, agent: Any, *, seed: int = 0, fallback: Optional[Callable[[Any], List[int]]] = None,
                 name: Optional[str] = None) -> None:
        is_bot = callable(getattr(agent, "act", None))
        if not is_bot and not callable(agent):
            raise ArgumentTypeError(f"agent must be a ddz bot (act(game, seat)) or a callable agent(observation), "
                                    f"not {shown(agent)}")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ArgumentTypeError(f"seed must be an int in 0..2**64-1, not {shown(seed)}")
        self.agent = agent
        self.seed = seed
        self.fallback = fallback or _pass_or_first
        self.fallbacks = 0
        self._kitty: Optional[str] = None  # the deal's whole kitty, when known (tell_kitty)
        self.rules = Rules.classic_douzero()
        self.name = name or getattr(agent, "name", None) or type(agent).__name__

    def tell_kitty(self, cards: Sequence[int]) -> None:
        """Tells the seat the next deal's kitty (DouZero's ``three_landlord_cards`` of the deal,
        card ints), which is public in Dou Dizhu but which DouZero's infosets keep only in part:
        bots that read the kitty then see the real one (``game``). Used while consistent with
        the infosets; the landlord's seat learns it by itself at its first decision."""
        kitty = ddz_ranks(cards)
        if len(kitty) != 3:
            raise ArgumentError(f"a kitty has 3 cards, not {len(kitty)}")
        self._kitty = kitty

    def game(self, infoset: Any) -> Tuple[Game, int]:
        """A ``ddz.Game`` in its play phase consistent with ``infoset``, and the seat to act.

        The landlord is seat 0, ``landlord_down`` seat 1, ``landlord_up`` seat 2. What the seat
        sees is kept exactly: its own hand, every play in order (``card_play_action_seq``), the
        cards left per seat and the kitty cards the landlord has not played
        (``three_landlord_cards``). What it cannot see is filled in:

        * the other seats' hands: the unseen cards dealt uniformly at random (seeded by ``seed``
          and the number of plays so far), the landlord's share holding its unplayed kitty
          cards, the distribution ``ddz.sample_deals`` draws from;
        * the kitty cards the landlord already played: DouZero's infoset keeps only the kitty
          cards not played yet (its ``three_landlord_cards`` loses a card each time the
          landlord plays one of that rank). A ``DouZeroSeat`` playing the landlord remembers
          the whole kitty from its first decision, and any seat uses the kitty it was told by
          ``tell_kitty``; otherwise the played ones are taken from the landlord's earliest played
          cards. The kitty is public in ddz, so a bot that reads it (``NeuralBot``'s encoding
          has a kitty block) may then see another kitty than the real one (DouZero's own agents
          see only the unplayed kitty cards).

        The auction is the fixed one of ``ddz.peers.fixed_auction_action`` (seat 0 calls, nobody
        robs or shows): DouZero's deals have no auction.

        A bot that reads only its seat's observation (every ddz bot does) sees the same thing
        whatever the fill; ``NeuralBot`` and ``DouZeroAgent`` encode only public information
        and the seat's own hand, so their answers do not depend on it at all. The infoset's
        other fields that show hidden cards (``all_handcards``, ``other_hand_cards``) are never
        read.
        """
        try:
            position = infoset.player_position
            own = ddz_ranks(infoset.player_hand_cards)
            seq = [ddz_ranks(a) for a in infoset.card_play_action_seq]
            left = {_SEAT_OF[p]: int(n) for p, n in infoset.num_cards_left_dict.items()}
            kitty_left = ddz_ranks(infoset.three_landlord_cards or [])
        except (AttributeError, KeyError, TypeError):
            raise ArgumentTypeError(f"expected a DouZero InfoSet, not {shown(infoset)}") from None
        if position not in _SEAT_OF:
            raise ArgumentError(f"unknown DouZero position {shown(position)}")
        seat = _SEAT_OF[position]
        if len(seq) % 3 != seat:
            raise ArgumentError(f"the infoset is not {position}'s turn: {len(seq)} plays were made")
        played = ["", "", ""]
        for i, a in enumerate(seq):
            played[i % 3] += a
        if left.get(seat) != len(own):
            raise ArgumentError(f"the infoset's hand has {len(own)} cards, its num_cards_left_dict says {left.get(seat)}")
        for s in range(3):
            if len(played[s]) + left.get(s, -1) != (20 if s == 0 else 17):
                raise ArgumentError(f"the infoset's plays and cards left do not add up for {DOUZERO_POSITIONS[s]}")
        unseen = list(_FULL_DECK)
        for c in own + "".join(played):
            if c not in unseen:
                raise ArgumentError(f"the infoset holds more {c!r} than one deck")
            unseen.remove(c)
        hidden: Dict[int, str] = {seat: own}
        if seat != 0:  # the landlord's unplayed kitty cards are public
            for c in kitty_left:
                if c not in unseen:
                    raise ArgumentError("the infoset's three_landlord_cards are not among the unseen cards")
                unseen.remove(c)
        rng = random.Random(self.seed * 1_000_003 + len(seq))
        rng.shuffle(unseen)
        for s in range(3):
            if s != seat:
                need = left[s] - (len(kitty_left) if s == 0 else 0)
                hidden[s], unseen = (kitty_left if s == 0 else "") + "".join(unseen[:need]), unseen[need:]
        starts = [hidden[s] + played[s] for s in range(3)]
        if seat == 0 and not seq:  # the landlord's first decision: the whole kitty is still there
            self._kitty = kitty_left
        known = self._kitty
        if known is not None and len(known) == 3 and _within(kitty_left, known) and \
                _within(_minus(known, kitty_left), played[0]) and _within(known, starts[0]):
            kitty = known
        else:  # DouZero forgets which kitty cards were played: the landlord's earliest played cards stand in
            kitty = kitty_left
            for c in played[0]:
                if len(kitty) == 3:
                    break
                kitty += c
        landlord17 = list(starts[0])
        for c in kitty:
            landlord17.remove(c)
        g = Game(self.rules, 0, hands=["".join(landlord17), starts[1], starts[2]], kitty=kitty, first_bidder=0)
        while g.phase != "PLAY":
            g.apply(fixed_auction_action(g.legal_actions()))
        assert g.landlord == 0
        for i, a in enumerate(seq):
            g.apply(f"PLAY {a}" if a else "PASS", i % 3)
        return g, seat

    def act(self, infoset: Any) -> List[int]:
        """DouZero's agent API: the action (a sorted list of DouZero card ints, ``[]`` to pass)
        the ddz agent plays at ``infoset``; always one of ``infoset.legal_actions``."""
        try:
            g, seat = self.game(infoset)
        except IllegalAction:  # a play DouZero allowed and ddz's rules refuse (its plane defect)
            self.fallbacks += 1
            return list(self.fallback(infoset))
        before = str(g.hand(seat))
        if callable(getattr(self.agent, "act", None)):
            answer = self.agent.act(g, seat)
        else:
            answer = self.agent(agent_observation(g, seat, self.agent, self.seed * 1_000_003 + len(g.history)))
        g.apply(answer, seat)
        after = list(str(g.hand(seat)))
        rest = list(before)
        for c in after:
            rest.remove(c)
        action = douzero_cards("".join(rest))
        if action not in infoset.legal_actions:
            self.fallbacks += 1
            return list(self.fallback(infoset))
        return action


def as_douzero_agent(agent: Any, *, seed: int = 0, fallback: Optional[Callable[[Any], List[int]]] = None,
                     name: Optional[str] = None) -> DouZeroSeat:
    """``agent`` (a ddz bot with ``act(game, seat)``, or a callable ``agent(observation)`` as
    ``ddz.evaluate`` takes) as a DouZero agent: an object with ``act(infoset)`` for DouZero's
    ``GameEnv`` and evaluator. ``seed`` seeds the fill of the hidden hands (``DouZeroSeat.game``);
    ``fallback(infoset)`` plays where DouZero's defects leave no ddz answer (``DouZeroSeat``)."""
    return DouZeroSeat(agent, seed=seed, fallback=fallback, name=name)

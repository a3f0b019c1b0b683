"""The acting side of the Deep Monte-Carlo trainer (``ddz.learn.dmc``): an ``Actor`` steps many
tables of a ``ddz.VectorEnv`` at once, scores every table's legal actions with one batched forward
pass per position (``score_actions``), chooses ε-greedily (``greedy``), seats rule players where
asked (``rule_tables``), and hands back the frames of the hands that ended with their Monte-Carlo
returns. ``int8_copy`` is the quantised acting copy of the networks the actor threads and
processes may use."""
from __future__ import annotations

from typing import Any, List, Optional, Tuple

import numpy as np
import numpy.typing as npt
import torch

from ..core.rules import Rules
from .features import HISTORY, Features
from .rewards import REWARD_SCALE

#: The score head's targets are clipped to this (``ddz.learn.dmc.SCORE_LOSS_WEIGHT`` says why).
SCORE_CLIP = 16.0
from .torch_nets import QModel
from .vector_env import VectorEnv

__all__ = ["Actor", "score_actions", "greedy", "int8_copy"]


def score_actions(model: QModel, feats: Features, obs: npt.NDArray[np.int8], ids: npt.NDArray[np.integer],
                  offsets: npt.NDArray[np.int64], hist: Optional[npt.NDArray[np.integer]],
                  lstm: bool, pos: Optional[npt.NDArray[np.int64]] = None) -> npt.NDArray[np.float32]:
    """Q of every legal action of every table (rows as ``ids``), one forward pass per position
    (``pos``: each table's network; by default its seat's play position)."""
    counts = np.diff(offsets)
    seg = np.repeat(np.arange(len(obs)), counts)
    if pos is None:
        pos = feats.position(obs)
    q = np.empty(len(ids), dtype=np.float32)
    sf = feats.state(obs)
    af = feats.actions(ids)
    hf = feats.history(hist) if lstm and hist is not None else None
    first = next(model.parameters(), None)  # none in an int8 copy (int8_copy), which runs on the CPU
    dev = first.device if first is not None else torch.device("cpu")

    def t(a: Any) -> torch.Tensor:
        return torch.from_numpy(a).to(dev)

    with torch.no_grad():
        for p in range(len(model.nets)):
            tables = np.flatnonzero(pos == p)
            if len(tables) == 0:
                continue
            local = np.cumsum(pos == p) - 1
            rows = np.flatnonzero(pos[seg] == p)
            out = model.nets[p](t(sf[tables]), t(af[rows]), t(local[seg[rows]]), None if hf is None else t(hf[tables]))
            q[rows] = out.cpu().numpy()
    return q


def greedy(q: npt.NDArray[np.float32], offsets: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Per table the row of its highest Q (the first of equal ones)."""
    starts = offsets[:-1]
    seg_max = np.maximum.reduceat(q, starts)
    counts = np.diff(offsets)
    seg = np.repeat(np.arange(len(starts)), counts)
    best = np.flatnonzero(q >= seg_max[seg])
    _, first = np.unique(seg[best], return_index=True)
    return best[first]


class Actor:
    """``tables`` tables of a VectorEnv (whole hands when ``feats.whole``) played ε-greedily;
    ``step`` returns the frames of the hands that ended, by position.

    ``rule_tables``: the share of hands in which some seats are played by the rule policy
    (``VectorEnv.rule_choices``: RuleBot's bids, the rollout policy's play) instead of the
    networks: each hand, with that probability, the networks keep k seats (k uniform in
    1..players-1, the seats at random) and the rule policy plays the others, as the seat-rotation
    matches seat two agents. Only the networks' seats make frames, each with its own seat's return
    (a network seat on the other side of another is its opponent, as in self-play).

    ``oracle_cards`` (0: off): the perfect-information target. After every step the exact solver
    judges each table's new position once no more than that many cards are left in all hands
    (``VectorEnv.oracle``, at most ``oracle_nodes`` nodes); a frame then learns, as its win, the
    first verdict at or after its own action (the hand's outcome when none came). The outcome of
    a hand is the verdict on its last position, so this only replaces the random part of it,
    how the rest was played, by best play with every hand seen: a lower-variance target, biased
    towards what an all-seeing player would make of the position. ``oracle_play_only``: the
    decisions' frames (the decision network's) learn the outcome all the same.

    ``deal_filter`` (0: off; objective ``wp``): a coach against lopsided deals, after DouZero+'s.
    At the landlord's first play of a hand the landlord's network estimates its win
    (``(1 + max Q) / 2``); when that is at least ``deal_filter`` or at most ``1 - deal_filter``
    the hand is lopsided, and all but ``filter_keep`` of such hands are finished by the rule
    policy (``VectorEnv.rule_choices``) without making frames of their play. Their auction
    frames stay, with the hand's outcome: a lopsided outcome hardly depends on who plays it
    out, and the bidding must still learn to take a sure hand and leave a hopeless one.
    ``filtering`` turns it off and on (the trainer's warm-up, ``TrainConfig.filter_after``)."""

    def __init__(self, rules: Rules, feats: Features, tables: int, objective: str, epsilon: float,
                 lstm: bool, rule_tables: float = 0.0, bid_epsilon: Optional[float] = None,
                 oracle_cards: int = 0, oracle_nodes: int = 20000, deal_filter: float = 0.0,
                 filter_keep: float = 0.1, oracle_play_only: bool = False) -> None:
        self.rules, self.feats, self.n = rules, feats, tables
        self.objective, self.epsilon, self.lstm = objective, epsilon, lstm
        # the decision network's exploration (bids, shows, ...): epsilon unless given; the trainer's
        # schedule may change both between steps
        self.bid_epsilon = epsilon if bid_epsilon is None else bid_epsilon
        self.rule_tables = float(rule_tables)
        self.env: Optional[VectorEnv] = None
        self.players = rules.players
        self.whole = feats.whole
        self.positions = self.players + (1 if self.whole else 0)
        self.pass_id = rules.pass_id
        self.scale = float(REWARD_SCALE[rules.variant]) if self.whole else 1.0
        self.frames_made = 0
        self.oracle_cards, self.oracle_nodes = int(oracle_cards), int(oracle_nodes)
        self.oracle_play_only = bool(oracle_play_only)
        self.deal_filter, self.filter_keep = float(deal_filter), float(filter_keep)
        self.filtering = True  # the trainer holds the filter off during its warm-up (filter_after)
        self.hands_done = self.hands_filtered = 0  # hands ended, and those the filter finished

    def reset(self, seed: int) -> None:
        """New hands on every table (partial hands are dropped), the env and exploration seeded."""
        n = self.n
        if self.env is None:
            self.env = VectorEnv(self.rules, n, seed=seed % 2**63, auction=self.whole)
        self.st = self.env.reset(seed % 2**63)
        self.rng = np.random.default_rng(seed)
        self.cap = 64
        w = self.feats.width
        self.t_obs = np.zeros((n, self.cap, w), dtype=np.int8)
        self.t_act = np.zeros((n, self.cap), dtype=np.int32)
        self.t_hist = np.zeros((n, self.cap, HISTORY), dtype=np.int16)
        self.t_seat = np.zeros((n, self.cap), dtype=np.int8)
        self.t_pos = np.zeros((n, self.cap), dtype=np.int8)
        self.t_keep = np.zeros((n, self.cap), dtype=bool)
        self.t_orc = np.full((n, self.cap), -1, dtype=np.int8)  # the verdict after each action
        self.length = np.zeros(n, dtype=np.int64)
        self.bombs = np.zeros(n, dtype=np.int64)
        self.hist = np.full((n, HISTORY), -1, dtype=np.int16)
        self.rule_seat = np.zeros((n, self.players), dtype=bool)
        self.filtered = np.zeros(n, dtype=bool)  # the rule policy finishes this hand (deal_filter)
        self.judged = np.zeros(n, dtype=bool)    # the filter has seen this hand's first play
        self.best_q = np.full(n, np.nan, dtype=np.float32)
        self._seat_rules(np.arange(n))

    def _seat_rules(self, tables: npt.NDArray[np.int64]) -> None:
        """Draws which seats the rule policy plays in the new hands of ``tables``."""
        if self.rule_tables <= 0 or len(tables) == 0:
            return
        k = len(tables)
        mixed = self.rng.random(k) < self.rule_tables
        keep = self.rng.integers(1, self.players, size=k)  # the networks' seats in a mixed hand
        rank = np.argsort(self.rng.random((k, self.players)), axis=1)  # a random seat order per table
        self.rule_seat[tables] = mixed[:, None] & (rank >= keep[:, None])

    def _grow(self) -> None:
        extra = self.cap
        self.t_obs = np.concatenate([self.t_obs, np.zeros_like(self.t_obs[:, :extra])], axis=1)
        for name in ("t_act", "t_hist", "t_seat", "t_pos", "t_keep"):
            a = getattr(self, name)
            setattr(self, name, np.concatenate([a, np.zeros_like(a[:, :extra])], axis=1))
        self.t_orc = np.concatenate([self.t_orc, np.full_like(self.t_orc[:, :extra], -1)], axis=1)
        self.cap += extra

    def step(self, model: QModel) -> List[Tuple[int, Any, Any, Any, Any]]:
        st, n = self.st, self.n
        ar = np.arange(n)
        pos = self._positions(st)
        ruled = self.rule_seat[ar, st.seat] | self.filtered
        if ruled.any():
            rows = st.legal_offsets[:-1] + self.env.rule_choices()  # type: ignore[union-attr]
            mine = np.flatnonzero(~ruled)
            if len(mine):
                rows[mine] = self._choose(model, st, pos, mine)
        else:
            rows = self._choose(model, st, pos, None)
        if self.deal_filter and self.filtering:
            ruled = ruled | self._judge(st, pos, ruled)
        actions = st.legal_ids[rows]
        if int(self.length.max()) >= self.cap:
            self._grow()
        j = self.length
        self.t_obs[ar, j] = st.obs
        self.t_act[ar, j] = actions
        self.t_hist[ar, j] = self.hist
        self.t_seat[ar, j] = st.seat
        self.t_pos[ar, j] = pos
        self.t_keep[ar, j] = ~ruled
        self.length += 1
        self.bombs += self.feats.is_bomb[actions]
        plays = actions <= self.pass_id  # the history holds plays and passes, not decisions
        self.hist[plays, :-1] = self.hist[plays, 1:]
        self.hist[plays, -1] = actions[plays]
        nxt = self.env.step(actions)  # type: ignore[union-attr]
        if self.oracle_cards:  # the verdict on each table's position after this action (its frame j)
            self.t_orc[ar, self.length - 1] = self.env.oracle(self.oracle_cards, self.oracle_nodes)  # type: ignore[union-attr]
        out: List[Tuple[int, Any, Any, Any, Any]] = []
        done = np.flatnonzero(nxt.done)
        if len(done):
            t = nxt.terminal  # rows in the order of done (both list the finished tables ascending)
            out = self._finish(done, t.landlord.astype(np.int64), t.winner.astype(np.int64), nxt.reward[done])
            self.length[done] = 0
            self.bombs[done] = 0
            self.hist[done] = -1
            self._seat_rules(done)
            self.hands_done += len(done)
            self.hands_filtered += int(self.filtered[done].sum())
            self.filtered[done] = False
            self.judged[done] = False
        self.st = nxt
        return out

    def _choose(self, model: QModel, st: Any, pos: npt.NDArray[np.int64],
                tables: Optional[npt.NDArray[np.int64]]) -> npt.NDArray[np.int64]:
        """The networks' ε-greedy rows (indices into ``st.legal_ids``) for ``tables`` (None: all)."""
        offsets, ids, obs, hist = st.legal_offsets, st.legal_ids, st.obs, self.hist
        if tables is not None:  # the legal-id segments of those tables only
            counts = np.diff(offsets)[tables]
            sub = np.zeros(len(tables) + 1, dtype=np.int64)
            np.cumsum(counts, out=sub[1:])
            at = np.repeat(offsets[tables] - sub[:-1], counts) + np.arange(int(sub[-1]))
            offsets, ids, obs, hist, pos = sub, ids[at], obs[tables], hist[tables], pos[tables]
        q = score_actions(model, self.feats, obs, ids, offsets, hist, self.lstm, pos)
        rows = greedy(q, offsets)
        self.best_q[:] = np.nan
        self.best_q[slice(None) if tables is None else tables] = q[rows]
        if self.epsilon > 0 or self.bid_epsilon > 0:
            k = len(offsets) - 1
            eps = np.where(pos == self.players, self.bid_epsilon, self.epsilon) if self.whole else self.epsilon
            explore = self.rng.random(k) < eps
            counts = np.diff(offsets)
            rand = offsets[:-1] + (self.rng.random(k) * counts).astype(np.int64)
            rows = np.where(explore, rand, rows)
        return rows if tables is None else at[rows]

    def _judge(self, st: Any, pos: npt.NDArray[np.int64], ruled: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """The deal filter at the landlord's first play: marks the lopsided hands the rule policy
        finishes (``filtered``) and returns the tables whose frame of this step is dropped."""
        first = ~self.judged & ~ruled & (st.role == 0) & (pos == 0)
        if self.whole:
            first &= st.legal_ids[st.legal_offsets[:-1]] <= self.pass_id  # a play, not a decision
        tables = np.flatnonzero(first)
        drop = np.zeros(self.n, dtype=bool)
        if len(tables) == 0:
            return drop
        self.judged[tables] = True
        p = (1.0 + self.best_q[tables]) / 2.0
        lopsided = (p >= self.deal_filter) | (p <= 1.0 - self.deal_filter)
        cut = tables[lopsided & (self.rng.random(len(tables)) >= self.filter_keep)]
        self.filtered[cut] = True
        drop[cut] = True
        return drop

    def _verdicts(self, done: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64], cut: int,
                  winner: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
        """(len(done), cut): for each frame of the ended hands, the first verdict on a position at
        or after its action, the hand's outcome (1 the landlord's side won, 0 the farmers', -1
        neither) standing as the verdict on its last position. Clears those tables' verdicts."""
        v = self.t_orc[done, :cut].copy()
        last = lengths - 1
        v[np.arange(len(done)), last] = _verdict_of(winner)
        nxt = np.full(len(done), -1, dtype=np.int8)
        for j in range(cut - 1, -1, -1):  # backward: a column takes the next verdict where its own is unknown
            col = v[:, j]
            nxt = np.where((col >= 0) | (j == last), col, nxt).astype(np.int8)
            v[:, j] = nxt
        self.t_orc[done] = -1
        return v

    def _positions(self, st: Any) -> npt.NDArray[np.int64]:
        """Each table's network: the decision network where the seat chooses among decisions."""
        if not self.whole:
            return self.feats.position(st.obs)
        return self.feats.positions(st.obs, st.legal_ids[st.legal_offsets[:-1]] > self.pass_id)

    def _finish(self, done: npt.NDArray[np.int64], landlord: npt.NDArray[np.int64], winner: npt.NDArray[np.int64],
                reward: npt.NDArray[np.float32]) -> List[Tuple[int, Any, Any, Any, Any]]:
        """The frames of the hands of tables ``done`` with their returns (``winner``: 0 the
        landlord's side won, 1 the farmers', -1 neither)."""
        lengths = self.length[done]
        mask = np.arange(int(lengths.max()))[None, :] < lengths[:, None]
        cut = mask.shape[1]
        lead = self._verdicts(done, lengths, cut, winner)[mask & self.t_keep[done, :cut]] if self.oracle_cards else None
        mask &= self.t_keep[done, :cut]
        lengths = mask.sum(axis=1)
        obs = self.t_obs[done, :cut][mask]
        act = self.t_act[done, :cut][mask]
        hist = self.t_hist[done, :cut][mask]
        seat = self.t_seat[done, :cut][mask].astype(np.int64)
        pos = self.t_pos[done, :cut][mask]
        table = np.repeat(np.arange(len(done)), lengths)
        if lead is not None and self.oracle_play_only:  # the decisions learn the outcome, the play the verdict
            lead = np.where(pos == self.feats.decision_position, _verdict_of(winner)[table], lead)
        if lead is None:
            won = (seat == landlord[table]) == (winner[table] == 0)
            sign = np.where(winner[table] < 0, 0.0, np.where(won, 1.0, -1.0)).astype(np.float32)
        else:  # the verdict each frame learns: 1 the landlord's side wins, 0 the farmers', -1 neither
            won = (seat == landlord[table]) == (lead == 1)
            sign = np.where(lead < 0, 0.0, np.where(won, 1.0, -1.0)).astype(np.float32)
        if self.objective == "wp":
            ret = sign
        elif self.objective == "adp":
            ret = sign * np.exp2(self.bombs[done][table]).astype(np.float32)
        elif self.objective == "wp+score":  # a two-headed network's targets: (win, score)
            score = np.clip(reward[table, seat] / self.scale, -SCORE_CLIP, SCORE_CLIP).astype(np.float32)
            ret = np.stack([sign, score], axis=1)
        else:
            ret = (reward[table, seat] / self.scale).astype(np.float32)
        self.frames_made += len(act)
        return [(p, obs[pos == p], act[pos == p], hist[pos == p], ret[pos == p]) for p in range(self.positions)]


def _verdict_of(winner: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
    """Hands' outcomes (``winner``: 0 the landlord's side won, 1 the farmers', -1 neither) written
    as verdicts are: 1 the landlord's side wins, 0 the farmers', -1 neither."""
    return np.where(winner < 0, -1, np.where(winner == 0, 1, 0)).astype(np.int8)


def int8_copy(model: QModel) -> QModel:
    """An acting copy of ``model`` whose linear layers and LSTM compute in int8 (torch's dynamic
    quantisation: weights int8 per tensor, activations quantised per batch): about 2.5x faster on
    a CPU for the actors' forward passes, Q values within about 1e-3 of float32's (the learner
    trains the float32 networks; only the behaviour policy is computed this way)."""
    import warnings
    with warnings.catch_warnings():  # torch's notice that eager quantisation moves to torchao
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear, torch.nn.LSTM},
                                                      dtype=torch.qint8)

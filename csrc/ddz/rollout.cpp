// PIMC: rollouts of candidate first actions over sampled worlds (see rollout.hpp).
#include "rollout.hpp"
#include "solver.hpp"  // deadline_after

#include <algorithm>
#include <chrono>

namespace ddz {

namespace {

using Clock = std::chrono::steady_clock;

void play(const Rules& r, PlayState& s, Enc e) {
  if (e == kPass) apply_action(r, s, 0, true, Interp());
  else apply_action(r, s, enc_cards(e), false, reading_of(r, e));
}

/// Weakest first: bombs by kind (size with two decks), then rank; the rocket and 天尊 last.
int bomb_power(const Rules& r, Enc e, const Interp& it) {
  int kind = enc_kind(e);
  if (kind == ROCKET || kind == JOKER_BOMB) return 1000;
  return (kind - (r.two_decks ? BOMB4 : BOMB)) * 16 + it.key;
}

}  // namespace

uint32_t kicker_cost(Counts hand, Counts cards) {
  uint32_t cost = 0;
  for (int v = 0; v < kRanks; ++v) {
    int used = count_of(cards, v);
    if (used == 0) continue;
    if (used < count_of(hand, v)) cost += 32;
    cost += uint32_t(used * v);
  }
  return cost;
}

size_t rollout_pick(const Rules& r, const PlayState& s, const uint8_t* sides, const Enc* moves, size_t n) {
  const Counts hand = s.hand[s.seat];
  const bool following = !s.leading();
  for (size_t i = 0; i < n; ++i)
    if (moves[i] != kPass && enc_cards(moves[i]) == hand) return i;
  if (following && sides[s.owner] == sides[s.seat]) return n - 1;  // a partner's trick: the pass is last
  size_t best = n, best_bomb = n;
  int best_key = 1 << 20, best_cards = -1, best_power = 1 << 20;
  uint32_t best_cost = 0;
  for (size_t i = 0; i < n; ++i) {
    const Enc e = moves[i];
    if (e == kPass) continue;
    const Interp it = reading_of(r, e);
    if (is_bomb_kind(enc_kind(e))) {
      int power = bomb_power(r, e, it);
      if (power < best_power) { best_power = power; best_bomb = i; }
      continue;
    }
    const int cards = total_cards(enc_cards(e));
    // Leading: lowest key, then most cards; following: lowest key (the card count is the
    // trick's). Then the cheaper kickers.
    bool better;
    uint32_t cost = ~0u;
    if (best == n) better = true;
    else if (it.key != best_key) better = it.key < best_key;
    else if (!following && cards != best_cards) better = cards > best_cards;
    else better = (cost = kicker_cost(hand, enc_cards(e))) < best_cost;
    if (better && cost == ~0u) cost = kicker_cost(hand, enc_cards(e));
    if (better) { best = i; best_key = it.key; best_cards = cards; best_cost = cost; }
  }
  if (best < n) return best;
  if (!following) return best_bomb;  // only bombs left
  if (best_bomb < n && total_cards(s.hand[s.owner]) <= 5) return best_bomb;
  return n - 1;
}

int rollout(const Rules& r, PlayState s, const uint8_t* sides, MoveBuffer& buf,
            std::vector<std::pair<uint8_t, Enc>>* trace) {
  while (!s.over()) {
    buf.clear();
    legal_actions(r, s, buf);
    const Enc e = buf.data[rollout_pick(r, s, sides, buf.data, buf.size)];
    if (trace) trace->emplace_back(s.seat, e);
    play(r, s, e);
  }
  return s.out;
}

void pimc_candidates(const Rules& r, const PlayState& s, std::vector<Enc>& out) {
  out.clear();
  MoveBuffer buf;
  legal_actions(r, s, buf);
  const Counts hand = s.hand[s.seat];
  // (kind, key, cards) of each kept play, and its kicker cost.
  std::vector<uint32_t> shape, cost;
  for (size_t i = 0; i < buf.size; ++i) {
    const Enc e = buf.data[i];
    if (e == kPass) {
      out.push_back(e);
      shape.push_back(~0u);
      cost.push_back(0);
      continue;
    }
    const Interp it = reading_of(r, e);
    const uint32_t sh = uint32_t(enc_kind(e)) << 16 | uint32_t(it.key) << 8 | uint32_t(total_cards(enc_cards(e)));
    const uint32_t c = kicker_cost(hand, enc_cards(e));
    auto at = std::find(shape.begin(), shape.end(), sh);
    if (at == shape.end()) {
      out.push_back(e);
      shape.push_back(sh);
      cost.push_back(c);
    } else if (c < cost[size_t(at - shape.begin())]) {
      const size_t j = size_t(at - shape.begin());
      out[j] = e;
      cost[j] = c;
    }
  }
}

PimcResult pimc(const Rules& r, const PlayState& s, const uint8_t* sides, const Counts* worlds, size_t n_worlds,
                const Enc* cands, size_t n_cands, const PimcLimits& lim) {
  const auto t0 = Clock::now();
  Clock::time_point deadline;
  const bool timed = deadline_after(t0, lim.seconds, deadline);
  const uint64_t total = lim.worlds ? std::min<uint64_t>(lim.worlds, n_worlds) : n_worlds;
  PimcResult res;
  res.wins.assign(n_cands, 0);
  MoveBuffer buf;
  buf.reserve(1 << 12);
  const uint8_t side = sides[s.seat];
  for (uint64_t w = 0; w < total; ++w) {
    if (timed && w > 0 && Clock::now() >= deadline) break;
    PlayState base = s;
    for (int i = 0; i < s.n; ++i) base.hand[i] = worlds[w * s.n + size_t(i)];
    for (size_t c = 0; c < n_cands; ++c) {
      PlayState p = base;
      play(r, p, cands[c]);
      const int out = p.over() ? p.out : rollout(r, p, sides, buf);
      res.wins[c] += sides[out] == side;
    }
    res.worlds = w + 1;
    // Stop when the leader is unique and no other candidate can reach it in the worlds left.
    const uint64_t left = total - res.worlds;
    uint32_t lead = 0, second = 0;
    for (uint32_t x : res.wins) {
      if (x > lead) { second = lead; lead = x; }
      else if (x > second) second = x;
    }
    if (n_cands > 1 && lead > second && uint64_t(second) + left < lead) break;
  }
  res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return res;
}

}  // namespace ddz

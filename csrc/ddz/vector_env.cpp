// The vectorized environment (vector_env.hpp; whole hands: hand.cpp; the play phase: docs/rules.md
// §3 play, spring and anti-spring, "The multiplier" of §6 / §7 bomb doubling, §8 "Bomb limits",
// "Missiles" and "Scoring, in points").
#include "vector_env.hpp"

#include <cstring>
#include <system_error>
#include <thread>

#include "physical.hpp"
#include "rollout.hpp"
#include "rule_policy.hpp"

namespace ddz {

VectorEnv::VectorEnv(const Rules& r, const ActionIndex& index, int decisions, size_t tables, uint64_t seed,
                     int threads, DealPool pool, const HandOptions* auction)
    : r_(r), index_(index), layout_(compact_layout(r, decisions)), seed_(seed), threads_(threads < 1 ? 1 : threads),
      pool_(std::move(pool)), auction_(auction != nullptr), opts_(auction ? *auction : HandOptions()), tables_(tables),
      legal_start_(tables), legal_count_(tables), chunk_of_(tables) {
  const size_t chunks = size_t(threads_) < tables ? size_t(threads_) : (tables ? tables : 1);
  bounds_.resize(chunks + 1);
  for (size_t c = 0; c <= chunks; ++c) bounds_[c] = tables * c / chunks;
  legal_.resize(chunks);
  bufs_ = std::vector<MoveBuffer>(chunks);
  for (size_t c = 0; c < chunks; ++c)
    for (size_t i = bounds_[c]; i < bounds_[c + 1]; ++i) chunk_of_[i] = c;
}

uint64_t VectorEnv::game_of(size_t i) const { return tables_[i].played * tables_.size() + i; }

template <class F>
void VectorEnv::parallel(F&& fn) {
  const size_t chunks = legal_.size();
  std::vector<std::thread> pool;
  for (size_t c = 1; c < chunks; ++c) {
    try {
      pool.emplace_back([&fn, this, c] { fn(c, bounds_[c], bounds_[c + 1]); });
    } catch (const std::system_error&) {
      fn(c, bounds_[c], bounds_[c + 1]);  // no thread to be had: this one does the chunk
    }
  }
  if (chunks) fn(size_t(0), bounds_[0], bounds_[1]);
  for (auto& th : pool) th.join();
}

void VectorEnv::deal(size_t i) {
  Table& tb = tables_[i];
  const uint64_t g = game_of(i);
  tb.t = Tracked();
  if (pool_.size() == 0) {  // the one dealer's deal of game g, as ddz.deal gives it, the kitty known
    PhysicalDeal d;
    deal_physical(r_, seed_, g, d);
    PhysicalHands h = physical_hands(r_, d);
    h.take_kitty(d.first_seat);
    Counts hands[4];
    for (int p = 0; p < r_.players(); ++p) hands[p] = counts_of_ids(h.held[p]);
    tb.t.s = start_play(r_.players(), hands, d.first_seat, nullptr);
    tb.kitty = counts_of_ids(h.kitty);
    return;
  }
  const size_t e = size_t(g % pool_.size());
  const size_t n = size_t(r_.players());
  tb.t.s = start_play(int(n), &pool_.hands[e * n], pool_.landlords[e], &pool_.limits[e * n]);
  tb.kitty = pool_.kitty[e];
}

void VectorEnv::deal_hand(size_t i) {
  Table& tb = tables_[i];
  hand_start(r_, opts_, tb.h, hand_seed(seed_, game_of(i)));
  while (tb.h.over()) {  // BENGBU4 天炸/天尊: the hand ends at the deal, with no decision to learn from
    ++tb.deal_ends;
    for (int p = 0; p < r_.players(); ++p) tb.deal_scores[p] += float(double(tb.h.scores[p]) * opts_.stake);
    ++tb.played;
    hand_start(r_, opts_, tb.h, hand_seed(seed_, game_of(i)));
  }
}

void VectorEnv::after(size_t i, const StepOut& out, size_t chunk) {
  std::vector<int32_t>& legal = legal_[chunk];
  MoveBuffer& buf = bufs_[chunk];
  const Table& tb = tables_[i];
  if (auction_) {
    const HandState& h = tb.h;
    legal_start_[i] = int64_t(legal.size());
    if (h.phase == HP_PLAY) {
      buf.clear();
      legal_actions(r_, h.t.s, buf);
      for (size_t k = 0; k < buf.size; ++k) legal.push_back(index_.id_of(buf.data[k]));
    } else {
      uint8_t toks[6];
      const int k = hand_decisions(r_, h, toks);
      for (int j = 0; j < k; ++j) legal.push_back(pass_id() + 1 + toks[j]);
    }
    legal_count_[i] = int64_t(legal.size()) - legal_start_[i];
    out.counts[i] = legal_count_[i];
    const int to_act = h.to_act();
    hand_encode(r_, opts_, layout_, h, to_act, out.obs + i * size_t(layout_.total));
    out.seat[i] = int8_t(to_act);
    out.role[i] = int8_t(h.landlord == kNone ? -1 : to_act == h.landlord ? 0 : 1);
    return;
  }
  const PlayState& s = tb.t.s;
  buf.clear();
  legal_actions(r_, s, buf);
  legal_start_[i] = int64_t(legal.size());
  legal_count_[i] = int64_t(buf.size);
  out.counts[i] = int64_t(buf.size);
  for (size_t k = 0; k < buf.size; ++k) legal.push_back(index_.id_of(buf.data[k]));
  CompactView v;
  v.seat = s.seat;
  v.kitty = tb.kitty;
  v.kitty_known = tb.kitty != 0;
  encode_compact(r_, layout_, tb.t, v, out.obs + i * size_t(layout_.total));
  out.seat[i] = int8_t(s.seat);
  out.role[i] = int8_t(s.seat == s.landlord ? 0 : 1);
}

namespace {
// The play phase's units: the hand's own score with every auction factor at 1 (no robs, shows or
// doubling, a bid of 1, closed play) and TWOP zero-sum, so that every variant's units sum to zero
const HandOptions kPlayUnits = [] {
  HandOptions o;
  o.zero_sum = true;
  return o;
}();
}  // namespace

void VectorEnv::score(const Table& tb, float* reward) const {
  HandState h;  // the neutral auction the play-only tables start from
  h.in_play = true;
  h.landlord = tb.t.s.landlord;
  h.base = 1;
  h.result = HR_NORMAL;
  HandOutcome out;
  hand_outcome(r_, kPlayUnits, h, &tb.t.s, out);  // the hand's one scorer (hand.cpp)
  for (int p = 0; p < r_.players(); ++p) reward[p] = float(out.coef[p]) / float(out.den[p]);
}

void VectorEnv::reset(const uint64_t* seed, StepOut out) {
  if (seed) {
    seed_ = *seed;
    for (Table& tb : tables_) tb.played = 0;
  } else if (started_) {
    for (Table& tb : tables_) ++tb.played;
  }
  started_ = true;
  const size_t n = size_t(r_.players());
  parallel([&](size_t c, size_t a, size_t b) {
    legal_[c].clear();
    for (size_t i = a; i < b; ++i) {
      Table& tb = tables_[i];
      tb.deal_ends = 0;
      std::memset(tb.deal_scores, 0, sizeof tb.deal_scores);
      if (auction_) deal_hand(i);
      else deal(i);
      std::memset(out.reward + i * n, 0, n * sizeof(float));
      out.done[i] = 0;
      after(i, out, c);
    }
  });
}

int64_t VectorEnv::check(const int32_t* ids, Illegal& why) const {
  for (size_t i = 0; i < tables_.size(); ++i) {
    const int32_t id = ids[i];
    const int32_t* l = legal_[chunk_of_[i]].data() + legal_start_[i];
    bool ok = false;
    for (int64_t k = 0; k < legal_count_[i] && !ok; ++k) ok = l[k] == id;
    if (ok) continue;
    why = Illegal::NotOffered;
    if (auction_ && tables_[i].h.phase != HP_PLAY) {  // a play or PASS during the auction
      if (id >= 0 && id <= pass_id()) why = Illegal::WrongPhase;
      return int64_t(i);
    }
    if (id > pass_id()) {  // a decision during the play
      why = Illegal::WrongPhase;
      return int64_t(i);
    }
    if (id >= 0 && id <= pass_id()) {
      const bool pass = id == pass_id();
      const Enc e = pass ? kPass : index_.plays()[size_t(id)];
      Interp it;
      Illegal w = check_action(r_, auction_ ? tables_[i].h.t.s : tables_[i].t.s, pass ? 0 : enc_cards(e), pass, pass ? -1 : enc_kind(e), it);
      if (w != Illegal::None) why = w;
    }
    return int64_t(i);
  }
  return -1;
}

void VectorEnv::step_hand(size_t i, int32_t id, float* reward, uint8_t& done) {
  Table& tb = tables_[i];
  const int pass = pass_id();
  if (id > pass) {
    hand_decide(r_, opts_, tb.h, id - pass - 1);
  } else if (id == pass) {
    hand_play(r_, opts_, tb.h, 0, true, Interp());
  } else {
    const Enc e = index_.plays()[size_t(id)];
    hand_play(r_, opts_, tb.h, enc_cards(e), false, reading_of(r_, e));
  }
  if (!tb.h.over()) return;
  for (int p = 0; p < r_.players(); ++p) reward[p] = tb.fin_scores[p] = float(double(tb.h.scores[p]) * opts_.stake);
  done = 1;
  tb.fin_h = tb.h;
  ++tb.played;
  deal_hand(i);
}

void VectorEnv::step(const int32_t* ids, StepOut out) {
  const size_t n = size_t(r_.players());
  const int pass = pass_id();
  parallel([&](size_t c, size_t a, size_t b) {
    legal_[c].clear();
    for (size_t i = a; i < b; ++i) {
      Table& tb = tables_[i];
      float* rw = out.reward + i * n;
      std::memset(rw, 0, n * sizeof(float));
      out.done[i] = 0;
      if (tb.deal_ends) {
        tb.deal_ends = 0;
        std::memset(tb.deal_scores, 0, sizeof tb.deal_scores);
      }
      if (auction_) {
        step_hand(i, ids[i], rw, out.done[i]);
        after(i, out, c);
        continue;
      }
      if (ids[i] == pass) {
        track_apply(r_, tb.t, 0, true, Interp());
      } else {
        const Enc e = index_.plays()[size_t(ids[i])];
        track_apply(r_, tb.t, enc_cards(e), false, reading_of(r_, e));
      }
      if (tb.t.s.over()) {
        score(tb, rw);
        std::memcpy(tb.fin_scores, rw, n * sizeof(float));
        tb.fin_t = tb.t;
        tb.fin_kitty = tb.kitty;
        out.done[i] = 1;
        ++tb.played;
        deal(i);
      }
      after(i, out, c);
    }
  });
}

void VectorEnv::final_info(size_t i, float* scores, int8_t& landlord, int8_t& winner, int8_t& kind,
                           int8_t* rows) const {
  const Table& tb = tables_[i];
  const int n = r_.players();
  std::memcpy(scores, tb.fin_scores, size_t(n) * sizeof(float));
  if (auction_) {
    landlord = int8_t(tb.fin_h.landlord == kNone ? -1 : tb.fin_h.landlord);
    kind = int8_t(tb.fin_h.result);
    winner = int8_t(tb.fin_h.result != HR_NORMAL ? -1 : tb.fin_h.t.s.landlord_won() ? 0 : 1);
    for (int p = 0; p < n; ++p) hand_encode(r_, opts_, layout_, tb.fin_h, p, rows + size_t(p) * size_t(layout_.total));
    return;
  }
  landlord = int8_t(tb.fin_t.s.landlord);
  kind = int8_t(HR_NORMAL);
  winner = int8_t(tb.fin_t.s.landlord_won() ? 0 : 1);
  for (int p = 0; p < n; ++p) {
    CompactView v;
    v.seat = p;
    v.kitty = tb.fin_kitty;
    v.kitty_known = tb.fin_kitty != 0;
    encode_compact(r_, layout_, tb.fin_t, v, rows + size_t(p) * size_t(layout_.total));
  }
}

int VectorEnv::deal_ends(size_t i, float* scores) const {
  const Table& tb = tables_[i];
  std::memcpy(scores, tb.deal_scores, size_t(r_.players()) * sizeof(float));
  return tb.deal_ends;
}

void VectorEnv::rule_choices(int64_t* out) const {
  std::vector<Enc> moves;
  for (size_t i = 0; i < tables_.size(); ++i) {
    const Table& tb = tables_[i];
    if (auction_ && tb.h.phase != HP_PLAY) {
      uint8_t toks[6];
      const int k = hand_decisions(r_, tb.h, toks);
      out[i] = rule_decision(r_, tb.h, toks, k);
      continue;
    }
    const PlayState& s = auction_ ? tb.h.t.s : tb.t.s;
    uint8_t sides[4];
    for (int p = 0; p < s.n; ++p) sides[p] = p == s.landlord ? 0 : 1;
    // the legal ids in legal_actions order (the pass last when following), as rollout_pick reads them
    const int32_t* l = legal_[chunk_of_[i]].data() + legal_start_[i];
    moves.resize(size_t(legal_count_[i]));
    for (int64_t k = 0; k < legal_count_[i]; ++k)
      moves[size_t(k)] = l[k] == pass_id() ? kPass : index_.plays()[size_t(l[k])];
    out[i] = int64_t(rollout_pick(r_, s, sides, moves.data(), moves.size()));
  }
}

void VectorEnv::oracle(int max_cards, uint64_t node_limit, size_t table_bytes, int8_t* out) {
  SolveLimits lim;
  lim.nodes = node_limit;
  lim.table_bytes = table_bytes;
  parallel([&](size_t, size_t a, size_t b) {
    for (size_t i = a; i < b; ++i) {
      out[i] = -1;
      const Table& tb = tables_[i];
      if (auction_ && tb.h.phase != HP_PLAY) continue;
      const PlayState& s = auction_ ? tb.h.t.s : tb.t.s;
      if (s.over()) continue;
      int left = 0;
      for (int p = 0; p < s.n; ++p) left += total_cards(s.hand[p]);
      if (left > max_cards) continue;
      uint8_t sides[4];
      for (int p = 0; p < s.n; ++p) sides[p] = p == s.landlord ? 0 : 1;
      const SolveResult res = solve(r_, s, sides, false, lim);
      if (!res.complete) continue;
      const bool mover_is_landlord_side = sides[s.seat] == 0;
      out[i] = int8_t(res.win == mover_is_landlord_side ? 1 : 0);
    }
  });
}

void VectorEnv::copy_legal(int32_t* dst) const {
  for (const auto& l : legal_) {
    if (!l.empty()) std::memcpy(dst, l.data(), l.size() * sizeof(int32_t));
    dst += l.size();
  }
}

}  // namespace ddz

// Exact open-hand solver: depth-first AND/OR search over play states with a transposition
// table keyed by the whole position, move ordering and the one provably safe cut (a play
// that empties the hand ends the hand, so it decides its node).
#include "solver.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace ddz {

namespace {

/// A position's identity. What is not in it cannot change the rest of the hand: the play
/// counters (plays, kinds, missiles) only feed scoring, and bomb plays matter only
/// through the plays a seat has left (capped: no hand holds 15 bombs).
struct Key {
  uint64_t h[4];
  uint64_t top;
  uint32_t meta;
};

uint32_t bombs_left(const PlayState& s, int p) {
  if (s.limit[p] == kUnlimited) return 15;
  int left = int(s.limit[p]) - int(s.bombs[p]);
  return uint32_t(left < 0 ? 0 : left > 15 ? 15 : left);
}

Key key_of(const PlayState& s) {
  Key k;
  for (int i = 0; i < 4; ++i) k.h[i] = i < s.n ? s.hand[i] : 0;
  k.top = s.top;
  // Leading: who owned the last trick and how many passed no longer matter. (Following,
  // the pass count follows from the seat and the owner; it is kept for a plain key.)
  uint32_t owner = s.leading() ? 0 : s.owner, passes = s.leading() ? 0 : s.passes;
  k.meta = uint32_t(s.seat) | owner << 2 | passes << 4;
  for (int i = 0; i < s.n; ++i) k.meta |= bombs_left(s, i) << (8 + 4 * i);
  return k;
}

uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

uint64_t hash_of(const Key& k) {
  uint64_t x = mix(k.h[0] ^ 0x9E3779B97F4A7C15ULL);
  x = mix(x ^ k.h[1]);
  x = mix(x ^ k.h[2] ^ (k.h[3] << 1));
  return mix(x ^ k.top ^ (uint64_t(k.meta) << 5));
}

/// One table slot: the full key (no false hits), the value for the side to move, the
/// search generation that wrote it and the log2 of the nodes it took (the replacement
/// priority).
struct Entry {
  uint64_t h[4];
  uint64_t top;
  uint32_t meta;
  uint16_t gen;
  uint8_t value;
  uint8_t work;
};
static_assert(sizeof(Entry) == 48, "table entries are 48 bytes");

/// A two-way bucketed table, owned by one thread and reused by its solves: a new solve
/// bumps the generation instead of clearing the memory.
struct Table {
  std::vector<Entry> slots;
  size_t mask = 0;
  uint16_t gen = 0;

  void prepare(size_t bytes) {
    // The largest power of two of slots (at least 2) that fits in `bytes`; comparing against
    // the slot count (not the bytes) keeps the doubling from overflowing for any `bytes`.
    const size_t fit = bytes / sizeof(Entry);
    size_t want = 2;
    while (want <= fit / 2) want *= 2;
    if (want != slots.size()) {
      slots.assign(want, Entry{});
      mask = want - 1;
      gen = 0;
    }
    if (++gen == 0) {  // the generation wrapped: stale entries could look current
      std::fill(slots.begin(), slots.end(), Entry{});
      gen = 1;
    }
  }
  static bool same(const Entry& e, const Key& k) {
    return e.h[0] == k.h[0] && e.h[1] == k.h[1] && e.h[2] == k.h[2] && e.h[3] == k.h[3] && e.top == k.top &&
           e.meta == k.meta;
  }
  bool probe(const Key& k, uint64_t hash, bool& value) const {
    size_t i = hash & mask & ~size_t(1);
    for (size_t j = i; j < i + 2; ++j)
      if (slots[j].gen == gen && same(slots[j], k)) {
        value = slots[j].value;
        return true;
      }
    return false;
  }
  void store(const Key& k, uint64_t hash, bool value, uint64_t nodes) {
    size_t i = hash & mask & ~size_t(1);
    uint8_t work = uint8_t(63 - __builtin_clzll(nodes | 1));
    size_t victim = i;
    for (size_t j = i; j < i + 2; ++j) {
      if (slots[j].gen != gen) { victim = j; break; }
      if (slots[j].work < slots[victim].work) victim = j;
    }
    Entry& e = slots[victim];
    std::memcpy(e.h, k.h, sizeof e.h);
    e.top = k.top;
    e.meta = k.meta;
    e.gen = gen;
    e.value = value;
    e.work = work;
  }
};

thread_local Table tl_table;

using Clock = std::chrono::steady_clock;

/// Ordering: long non-bomb plays first (they empty hands soonest), lower cards first
/// among equals (keep the high ones), then the pass, then bombs (they spend power).
uint32_t order_score(Enc e) {
  if (e == kPass) return 1u << 23;
  Counts c = enc_cards(e);
  uint32_t low = uint32_t(__builtin_ctzll(c) >> 2);
  uint32_t cards = uint32_t(total_cards(c));
  if (is_bomb_kind(enc_kind(e))) return (cards << 8) | (15 - low);
  return (1u << 24) | (cards << 16) | (15 - low);
}

/// The legal actions of `s` into `mv` and their search order into `ord` (best first, each
/// entry score << 32 | index): a play that empties the hand, then order_score. The root
/// and the principal variation order by it; inner nodes cut at a finisher instead.
void ordered_actions(const Rules& r, const PlayState& s, MoveBuffer& mv, std::vector<uint64_t>& ord) {
  mv.clear();
  legal_actions(r, s, mv);
  ord.clear();
  for (size_t i = 0; i < mv.size; ++i) {
    Enc e = mv.data[i];
    bool fin = e != kPass && enc_cards(e) == s.hand[s.seat];
    ord.push_back(uint64_t(fin ? ~0u : order_score(e)) << 32 | i);
  }
  std::sort(ord.begin(), ord.end(), std::greater<uint64_t>());
}

struct Search {
  const Rules& r;
  const uint8_t* sides;
  Table& table;
  MoveBuffer moves;
  std::vector<uint64_t> order;
  uint64_t nodes = 0;
  uint64_t node_limit;
  Clock::time_point deadline;
  bool timed;
  bool aborted = false;

  Search(const Rules& rules, const uint8_t* sd, Table& t, const SolveLimits& lim)
      : r(rules), sides(sd), table(t), node_limit(lim.nodes) {
    timed = deadline_after(Clock::now(), lim.seconds, deadline);
    moves.reserve(1 << 14);
    order.reserve(1 << 14);
  }

  bool out_of_budget() {
    if (node_limit && nodes >= node_limit) return true;
    if (timed && (nodes & 1023) == 0 && Clock::now() >= deadline) return true;
    return false;
  }

  static void play(const Rules& r, PlayState& s, Enc e) {
    if (e == kPass) apply_action(r, s, 0, true, Interp());
    else apply_action(r, s, enc_cards(e), false, reading_of(r, e));
  }

  /// Does the side of the seat to move win after `e`? (s is the position before it.)
  bool wins_with(const PlayState& s, Enc e) {
    PlayState c = s;
    play(r, c, e);
    if (c.over()) return sides[c.out] == sides[s.seat];
    bool child = win(c);
    return sides[c.seat] == sides[s.seat] ? child : !child;
  }

  /// The moves of `s` appended to `moves` and their order (best first) to `order`;
  /// returns the start index in `moves`, or sets `finisher` (and orders nothing) when a
  /// move empties the hand.
  size_t expand(const PlayState& s, bool& finisher) {
    const size_t base = moves.size;
    legal_actions(r, s, moves);
    const size_t end = moves.size;
    const Counts hand = s.hand[s.seat];
    finisher = false;
    const size_t obase = order.size();
    for (size_t i = base; i < end; ++i) {
      Enc e = moves.data[i];
      if (e != kPass && enc_cards(e) == hand) {
        finisher = true;
        order.resize(obase);
        return base;
      }
      order.push_back(uint64_t(order_score(e)) << 32 | uint64_t(i - base));
    }
    std::sort(order.begin() + std::ptrdiff_t(obase), order.end(), std::greater<uint64_t>());
    return base;
  }

  /// True when the side of the seat to move wins with best play.
  bool win(const PlayState& s) {
    ++nodes;
    if (aborted || out_of_budget()) {
      aborted = true;
      return false;
    }
    const Key k = key_of(s);
    const uint64_t hash = hash_of(k);
    bool value;
    if (table.probe(k, hash, value)) return value;
    const uint64_t start = nodes;
    bool finisher;
    const size_t obase = order.size();
    const size_t base = expand(s, finisher);
    bool result = finisher;  // going out wins for the mover's side at once
    if (!finisher) {
      const size_t count = order.size() - obase;
      for (size_t j = 0; j < count && !result; ++j) {
        Enc e = moves.data[base + (order[obase + j] & 0xFFFFFFFFu)];
        result = wins_with(s, e);
        if (aborted) break;
      }
    }
    order.resize(obase);
    moves.size = base;
    if (aborted) return false;
    table.store(k, hash, result, nodes - start + 1);
    return result;
  }
};

}  // namespace

SolveResult solve(const Rules& r, const PlayState& root, const uint8_t* sides, bool all_moves, const SolveLimits& limits) {
  const auto t0 = Clock::now();
  Table& table = tl_table;
  table.prepare(limits.table_bytes);
  Search S(r, sides, table, limits);
  SolveResult res;

  // The root: every action when all_moves, else until the first winning one.
  MoveBuffer first;
  std::vector<uint64_t> ord;
  ordered_actions(r, root, first, ord);
  ++S.nodes;
  for (uint64_t o : ord) {
    Enc e = first.data[o & 0xFFFFFFFFu];
    bool w = S.wins_with(root, e);
    if (S.aborted) break;
    if (w) {
      res.moves.push_back(e);
      if (!all_moves) break;
    }
  }
  res.complete = !S.aborted;
  res.win = res.complete && !res.moves.empty();
  if (!res.complete) res.moves.clear();

  // A principal variation: the winning side plays a winning move, the losing side the
  // first move of the ordering; each step is a search that mostly hits the table.
  if (res.complete) {
    PlayState s = root;
    const uint8_t winner = res.win ? sides[root.seat] : uint8_t(1 - sides[root.seat]);
    bool at_root = true;
    MoveBuffer mv;
    std::vector<uint64_t> o2;
    while (!s.over()) {
      Enc pick = 0;
      if (at_root && res.win) {
        pick = res.moves.front();
      } else {
        ordered_actions(r, s, mv, o2);
        pick = mv.data[o2.front() & 0xFFFFFFFFu];
        if (sides[s.seat] == winner) {
          for (uint64_t o : o2) {
            Enc e = mv.data[o & 0xFFFFFFFFu];
            if (S.wins_with(s, e)) { pick = e; break; }
            if (S.aborted) break;
          }
        }
        if (S.aborted) break;
      }
      at_root = false;
      res.pv_seats.push_back(s.seat);
      res.pv_moves.push_back(pick);
      Search::play(r, s, pick);
    }
  }
  res.nodes = S.nodes;
  res.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return res;
}

}  // namespace ddz

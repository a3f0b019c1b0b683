// Generation entry points: ISA dispatch, batches, the action space.
#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "core.hpp"

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define DDZ_HAVE_FAST 1
#include <immintrin.h>
#endif

namespace ddz {

namespace scalar {
#include "movegen_impl.inc"
}  // namespace scalar

#ifdef DDZ_HAVE_FAST
#pragma GCC push_options
#pragma GCC target("avx2,bmi,bmi2,popcnt,lzcnt")
namespace fast {
#define DDZ_FAST 1
#include "movegen_impl.inc"
#undef DDZ_FAST
}  // namespace fast
#pragma GCC pop_options
#endif

bool cpu_has_fast_isa() {
#ifdef DDZ_HAVE_FAST
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
#else
  return false;
#endif
}

// Read on every generation call from any thread: atomic, so that first use from several
// threads at once is no data race (each computes the same value).
static std::atomic<int> g_level{-1};

int dispatch_level() {
  int level = g_level.load(std::memory_order_relaxed);
  if (level < 0) {
    const char* env = std::getenv("DDZ_DISPATCH");
    bool want_scalar = env && std::string(env) == "scalar";
    level = (!want_scalar && cpu_has_fast_isa()) ? 1 : 0;
    g_level.store(level, std::memory_order_relaxed);
  }
  return level;
}

void set_dispatch_level(int level) {
  g_level.store((level >= 1 && cpu_has_fast_isa()) ? 1 : 0, std::memory_order_relaxed);
}

static void raw_generate(const Rules& r, Counts hand, const Interp* top, MoveBuffer& out) {
#ifdef DDZ_HAVE_FAST
  if (dispatch_level() == 1) return fast::gen_impl(r, hand, top, out);
#endif
  scalar::gen_impl(r, hand, top, out);
}

void generate(const Rules& r, Counts hand, const Interp* top, MoveBuffer& out) { raw_generate(r, hand, top, out); }

uint64_t count(const Rules& r, Counts hand, const Interp* top) {
#ifdef DDZ_HAVE_FAST
  if (dispatch_level() == 1) return fast::count_impl(r, hand, top);
#endif
  return scalar::count_impl(r, hand, top);
}

Enc select_move(const Rules& r, Counts hand, const Interp* top, uint64_t i, MoveBuffer& scratch) {
#ifdef DDZ_HAVE_FAST
  if (dispatch_level() == 1) return fast::select_impl(r, hand, top, i, scratch);
#endif
  return scalar::select_impl(r, hand, top, i, scratch);
}

// The per-hand generator is a template argument (a lambda type per ISA), so each loop calls
// it directly and may inline it; a batch of leads (tops null) has no per-hand branch on it.
template <class Gen1>
static void batch_loop(const Rules& r, const Counts* hands, const Interp* const* tops, size_t n, MoveBuffer& out,
                       int64_t* offsets, Gen1 gen1) {
  offsets[0] = int64_t(out.size);
  if (!tops) {
    for (size_t i = 0; i < n; ++i) {
      gen1(r, hands[i], nullptr, out);
      offsets[i + 1] = int64_t(out.size);
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    gen1(r, hands[i], tops[i], out);
    offsets[i + 1] = int64_t(out.size);
  }
}

void generate_batch(const Rules& r, const Counts* hands, const Interp* const* tops, size_t n, MoveBuffer& out,
                    int64_t* offsets) {
#ifdef DDZ_HAVE_FAST
  if (dispatch_level() == 1)
    return batch_loop(r, hands, tops, n, out, offsets,
                      [](const Rules& q, Counts h, const Interp* t, MoveBuffer& o) { fast::gen_impl(q, h, t, o); });
#endif
  batch_loop(r, hands, tops, n, out, offsets,
             [](const Rules& q, Counts h, const Interp* t, MoveBuffer& o) { scalar::gen_impl(q, h, t, o); });
}

template <class Count1>
static void count_loop(const Rules& r, const Counts* hands, const Interp* const* tops, size_t n, int64_t* offsets,
                       Count1 count1) {
  int64_t total = 0;
  offsets[0] = 0;
  if (!tops) {
    for (size_t i = 0; i < n; ++i) offsets[i + 1] = total += int64_t(count1(r, hands[i], nullptr));
    return;
  }
  for (size_t i = 0; i < n; ++i) offsets[i + 1] = total += int64_t(count1(r, hands[i], tops[i]));
}

void count_batch(const Rules& r, const Counts* hands, const Interp* const* tops, size_t n, int64_t* offsets) {
#ifdef DDZ_HAVE_FAST
  if (dispatch_level() == 1)
    return count_loop(r, hands, tops, n, offsets,
                      [](const Rules& q, Counts h, const Interp* t) { return fast::count_impl(q, h, t); });
#endif
  count_loop(r, hands, tops, n, offsets,
             [](const Rules& q, Counts h, const Interp* t) { return scalar::count_impl(q, h, t); });
}

/// Nibble 8-bits set where the nibble is >= k (1 <= k <= 8), for any nibble values 0..15: the
/// low three bits are added apart from the 8-bit, so no carry reaches the next nibble (the
/// at_least_nibbles of core.hpp assumes counts <= 8 and lets a 13 carry over).
static inline uint64_t at_least_any(uint64_t w, int k) {
  return (w | ((w & ~kHighs) + uint64_t(8 - k) * kOnes)) & kHighs;
}

/// Nonzero when w is no valid word: a nibble past R, a rank above max_per_rank (4 or 8) or a
/// joker above max_joker (1 or 2). Branch-free, so a batch check is one tight loop.
static inline uint64_t word_excess(bool two_decks, int max_joker, Counts w) {
  constexpr uint64_t kRanksOnly = (uint64_t(1) << 52) - 1;
  const uint64_t rank_over = two_decks ? (w & kHighs) & ((w & ~kHighs) + 7 * kOnes)  // >= 9: the 8-bit and a low bit
                                       : at_least_any(w, 5);
  const uint64_t joker_over = at_least_any(w, max_joker + 1) & ~kRanksOnly;
  return (w >> 60) | (rank_over & kRanksOnly) | joker_over;
}

bool valid_word(const Rules& r, Counts w) { return !word_excess(r.two_decks, r.max_joker(), w); }

size_t first_invalid_word(const Rules& r, const Counts* w, size_t n) {
  const bool two = r.two_decks;
  const int mj = r.max_joker();
  // OR-reduce blocks of words; only a block with a bad word is searched word by word
  constexpr size_t kBlock = 64;
  for (size_t b = 0; b < n; b += kBlock) {
    const size_t e = b + kBlock < n ? b + kBlock : n;
    uint64_t bad = 0;
    for (size_t i = b; i < e; ++i) bad |= word_excess(two, mj, w[i]);
    if (bad)
      for (size_t i = b; i < e; ++i)
        if (word_excess(two, mj, w[i])) return i;
  }
  return n;
}

void generate_universe(const Rules& r, MoveBuffer& out) {
  Counts deck = 0;
  for (int rk = 0; rk < 13; ++rk) deck += Counts(r.max_per_rank()) * unit(rk);
  deck += Counts(r.max_joker()) * (unit(kB) + unit(kR));
  // the leads give each multiset's lead reading; a follow of every non-bomb kind and length
  // from below every key gives each reading of that kind (the ids cover every reading)
  MoveBuffer all;
  raw_generate(r, deck, nullptr, all);
  for (int kind = 0; kind < kNumKinds; ++kind) {
    if (is_bomb_kind(kind)) continue;
    const int lo = kind == STRAIGHT ? 5 : kind == PAIR_STRAIGHT ? 3 : is_chain_kind(kind) ? 2 : 1;
    for (int len = lo; len <= (is_chain_kind(kind) ? 12 : 1); ++len) {
      Interp top;
      top.kind = kind;
      top.key = -1;
      top.length = len;
      raw_generate(r, deck, &top, all);
    }
  }
  std::sort(all.data, all.data + all.size);
  all.size = size_t(std::unique(all.data, all.data + all.size) - all.data);
  struct Item { int kind, n, key; Enc e; };
  std::vector<Item> items;
  for (size_t i = 0; i < all.size; ++i) {
    Counts c = enc_cards(all.data[i]);
    int n = total_cards(c);
    if (n > r.max_cards) continue;
    Interp it = classify_as(r, c, enc_kind(all.data[i]));
    items.push_back({it.kind, n, it.key, all.data[i]});
  }
  // kind, card count, key, then the kickers as an ascending list of ranks compared
  // lexicographically (the body is the same): the first rank, upwards, where two plays
  // differ comes first in the one holding more of it. This is RLCard's order.
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.n != b.n) return a.n < b.n;
    if (a.key != b.key) return a.key < b.key;
    const Counts ca = enc_cards(a.e), cb = enc_cards(b.e);
    for (int rk = 0; rk < kRanks; ++rk)
      if (count_of(ca, rk) != count_of(cb, rk)) return count_of(ca, rk) > count_of(cb, rk);
    return false;
  });
  out.reserve(out.size + items.size());
  for (const Item& it : items) out.data[out.size++] = it.e;
}

}  // namespace ddz

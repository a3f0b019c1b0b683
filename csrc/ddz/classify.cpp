// Classification and comparison of one multiset (docs/rules.md §4 "Combinations", §5 "How
// plays compare").
// Written for clarity, not speed: the generator never calls it per move.
#include "core.hpp"

namespace ddz {
namespace {

int popcount(uint32_t x) { return bit_count(x); }

uint32_t present(Counts c) { return ranks_at_least(c, 1); }

/// Does `mask` (ranks of one count) form a contiguous run inside 3..A? Returns the top rank or -1.
int std_chain_top(uint32_t mask) {
  if (!mask || (mask & ~kChainRanks)) return -1;
  int lo = __builtin_ctz(mask);
  uint32_t run = mask >> lo;
  if (run & (run + 1)) return -1;  // not contiguous
  return lo + popcount(mask) - 1;
}

/// Trio-chain key of a rank set under the rules' trio domain (docs/rules.md §4.1 "Chains"), or -1.
int trio_chain_key(const Rules& r, uint32_t mask) {
  int n = popcount(mask);
  if (n < 2 || n > 12 || (mask & ~kPlainRanks)) return -1;
  if (r.trio_chain == 0) return std_chain_top(mask);
  if (r.trio_chain == 1) {
    // line positions: A=1, 2=2, 3=3 … K=13, A=14; A is low only next to 2.
    bool has2 = mask & (1u << 12), hasA = mask & (1u << 11);
    uint32_t line = (mask & 0x7FF) << 2;  // 3..K at positions 3..13 (bit p-1)
    if (has2) line |= 1u << 1;
    if (hasA) line |= has2 ? 1u : (1u << 13);
    int lo = __builtin_ctz(line);
    uint32_t run = line >> lo;
    if (run & (run + 1)) return -1;
    return lo + n;  // top position (bit index + 1)
  }
  // cycle 3→4→…→A→2→3: an arc; key = v of its last rank
  if (n >= 13) return -1;
  for (int last = 0; last < 13; ++last) {
    if (!(mask & (1u << last)) || (mask & (1u << ((last + 1) % 13)))) continue;
    // walk back n-1 steps; all must be set
    for (int i = 0; i < n; ++i)
      if (!(mask & (1u << ((last - i + 13) % 13)))) return -1;
    return last;
  }
  return -1;
}

/// Kicker check for `kick` (the cards beside the body) under K1–K4.
/// pairs: kickers are `npieces` pairs, else `npieces` single cards.
bool kickers_ok(const Rules& r, Counts kick, uint32_t body_ranks, int npieces, bool pairs) {
  uint32_t ranks = present(kick);
  if (!r.share && (ranks & body_ranks)) return false;                      // K1
  int jb = count_of(kick, kB), jr = count_of(kick, kR);
  if (!r.rocket_kickers && jb == r.max_joker() && jr == r.max_joker()) return false;  // K4
  if (pairs) {
    int pieces = 0;
    for (uint32_t m = ranks; m; m &= m - 1) {
      int rk = __builtin_ctz(m), k = count_of(kick, rk);
      if (rk >= kB && !(r.two_decks && r.joker_pairs)) return false;
      if (k == 2) pieces += 1;
      else if (k == 4 && !r.pairs_distinct) pieces += 2;                    // K3
      else return false;
    }
    return pieces == npieces;
  }
  for (uint32_t m = ranks; m; m &= m - 1)
    if (count_of(kick, __builtin_ctz(m)) > r.cap) return false;            // K2
  return total_cards(kick) == npieces;
}

/// kicker_trio_beside_chain = false (RLCard): no rank next to a plane's chain on 3..A
/// holds three or more of its single wings (a 2 is never next to the chain).
bool wings_beside_ok(const Rules& r, Counts kick, uint32_t chain) {
  if (r.trio_beside) return true;
  const uint32_t next = ((chain << 1) | (chain >> 1)) & ~chain & kChainRanks;
  return !(ranks_at_least(kick, 3) & next);
}

uint32_t ranks_with_exactly(Counts c, int k) {
  return ranks_at_least(c, k) & ~(k < 8 ? ranks_at_least(c, k + 1) : 0u);
}

}  // namespace

int body_cards(int kind, int n) {
  switch (kind) {
    case SOLO: return 1;
    case PAIR: return 2;
    case TRIO: case TRIO_SOLO: case TRIO_PAIR: return 3;
    case PLANE_SOLO: return 3 * n / 4;
    case PLANE_PAIR: return 3 * n / 5;
    case FOUR_TWO_SOLO: case FOUR_TWO_PAIR: return 4;
    default: return n;  // chains without kickers, bombs
  }
}

Interp classify_as(const Rules& r, Counts c, int kind) {
  Interp res;
  const int n = total_cards(c);
  const uint32_t pres = present(c);
  if (n == 0) return res;
  const bool one_rank = popcount(pres) == 1;
  const int r0 = __builtin_ctz(pres);
  auto set = [&](int key, int len) {
    if (res.kind < 0 || key > res.key) { res.kind = kind; res.key = key; res.length = len; res.body = body_cards(kind, n); }
  };
  switch (kind) {
    case SOLO: if (n == 1) set(r0, 1); break;
    case PAIR:
      if (n == 2 && one_rank && (r0 < kB || (r.two_decks && r.joker_pairs))) set(r0, 1);
      break;
    case TRIO: if (n == 3 && one_rank && r0 < kB) set(r0, 1); break;
    case BOMB: if (!r.two_decks && n == 4 && one_rank && r0 < kB) set(r0, 1); break;
    case BOMB4: case BOMB5: case BOMB6: case BOMB7: case BOMB8:
      if (r.two_decks && one_rank && r0 < kB && n == 4 + (kind - BOMB4)) set(r0, 1);
      break;
    case ROCKET:
      if (!r.two_decks && n == 2 && pres == ((1u << kB) | (1u << kR))) set(kR, 1);
      break;
    case JOKER_BOMB:
      if (r.two_decks && n == 4 && count_of(c, kB) == 2 && count_of(c, kR) == 2) set(kR, 1);
      break;
    case STRAIGHT:
      if (r.straight && n >= 5 && ranks_with_exactly(c, 1) == pres) {
        int top = std_chain_top(pres);
        if (top >= 0) set(top, n);
      }
      break;
    case PAIR_STRAIGHT:
      if (n >= 6 && ranks_with_exactly(c, 2) == pres) {
        int top = std_chain_top(pres);
        if (top >= 0) set(top, n / 2);
      }
      break;
    case TRIO_STRAIGHT:
      if (n >= 6 && ranks_with_exactly(c, 3) == pres) {
        int key = trio_chain_key(r, pres);
        if (key >= 0) set(key, n / 3);
      }
      break;
    case TRIO_SOLO: case TRIO_PAIR: case FOUR_TWO_SOLO: case FOUR_TWO_PAIR: {
      if (one_rank) break;  // a set of one rank is only a bomb / trio (docs/rules.md §4.3)
      bool four = kind == FOUR_TWO_SOLO || kind == FOUR_TWO_PAIR;
      bool pairs = kind == TRIO_PAIR || kind == FOUR_TWO_PAIR;
      if (four ? !r.four_two : (kind == TRIO_SOLO && !r.trio_solo)) break;
      int need = four ? (pairs ? 8 : 6) : (pairs ? 5 : 4);
      if (n != need) break;
      int bsize = four ? 4 : 3;
      for (uint32_t m = ranks_at_least(c, bsize) & kPlainRanks; m; m &= m - 1) {
        int b = __builtin_ctz(m);
        Counts kick = c - Counts(bsize) * unit(b);
        if (kickers_ok(r, kick, 1u << b, four ? 2 : 1, pairs)) set(b, 1);
      }
      break;
    }
    case PLANE_SOLO: case PLANE_PAIR: {
      bool pairs = kind == PLANE_PAIR;
      if (!pairs && !r.trio_solo) break;
      int per = pairs ? 5 : 4;
      if (n % per || n / per < 2) break;
      int k = n / per;
      uint32_t trios = ranks_at_least(c, 3) & kPlainRanks;
      // enumerate subsets of `trios` of size k (trios has at most 13 bits)
      uint32_t bits[13]; int nb = 0;
      for (uint32_t m = trios; m; m &= m - 1) bits[nb++] = __builtin_ctz(m);
      if (nb < k) break;
      int idx[13];
      for (int i = 0; i < k; ++i) idx[i] = i;
      while (true) {
        uint32_t body = 0;
        for (int i = 0; i < k; ++i) body |= 1u << bits[idx[i]];
        int key = trio_chain_key(r, body);
        if (key >= 0) {
          Counts kick = c - 3 * spread_mask(body);
          if (kickers_ok(r, kick, body, k, pairs) && (pairs || wings_beside_ok(r, kick, body))) set(key, k);
        }
        int i = k - 1;
        while (i >= 0 && idx[i] == nb - k + i) --i;
        if (i < 0) break;
        ++idx[i];
        for (int j = i + 1; j < k; ++j) idx[j] = idx[j - 1] + 1;
      }
      break;
    }
    default: break;
  }
  return res;
}

int interpretations(const Rules& r, Counts c, Interp* out) {
  int n = 0;
  for (int k = 0; k < kNumKinds; ++k) {
    Interp it = classify_as(r, c, k);
    if (it.kind >= 0) out[n++] = it;
  }
  return n;
}

Interp classify(const Rules& r, Counts c) {
  Interp all[kNumKinds];
  int n = interpretations(r, c, all);
  Interp best;
  for (int i = 0; i < n; ++i)
    if (best.kind < 0 || all[i].body > best.body || (all[i].body == best.body && all[i].key > best.key))
      best = all[i];
  return best;
}

static int bomb_power(const Rules& r, const Interp& b) {
  if (!r.two_decks) return b.kind == ROCKET ? 1000 : b.key;
  if (b.kind == JOKER_BOMB) return 1000;
  return (b.kind - BOMB4) * 16 + b.key;  // card count first, then rank
}

bool beats(const Rules& r, const Interp& p, const Interp& t) {
  if (p.kind < 0 || t.kind < 0) return false;
  bool pb = is_bomb_kind(p.kind), tb = is_bomb_kind(t.kind);
  if (pb != tb) return pb;
  if (pb) return bomb_power(r, p) > bomb_power(r, t);
  return p.kind == t.kind && p.length == t.length && p.key > t.key;
}

/// The highest-key PLANE_SOLO body of c (standard 3..A domain, where single wings live):
/// with single_kicker_rank_cap >= 3 wing trios may stand beside the chain, so the chain is
/// the highest run of k trio ranks whose remaining cards are legal wings.
static Interp plane_solo_reading(const Rules& r, Counts c, int n) {
  const int k = n / 4;
  const uint32_t trios = ranks_at_least(c, 3) & kChainRanks;
  Interp it;
  it.kind = PLANE_SOLO;
  it.length = k;
  it.body = 3 * k;
  for (int lo = 12 - k; lo >= 0; --lo) {
    const uint32_t chain = ((1u << k) - 1) << lo;
    if ((trios & chain) != chain) continue;
    const Counts kick = c - 3 * spread_mask(chain);
    if (kickers_ok(r, kick, chain, k, false) && wings_beside_ok(r, kick, chain)) {
      it.key = lo + k - 1;
      return it;
    }
  }
  return classify_as(r, c, PLANE_SOLO);  // not a generated move (a caller's word): read it the slow way
}

Interp reading_of(const Rules& r, Enc e) {
  // The generator emits every play from its canonical reading (movegen_impl.inc), so the
  // kind is fixed and the key is the highest of that kind: the body follows from the counts.
  Counts c = enc_cards(e);
  int kind = enc_kind(e);
  Interp it;
  it.kind = kind;
  const int n = total_cards(c);
  it.body = body_cards(kind, n);
  switch (kind) {
    case ROCKET: case JOKER_BOMB: it.key = kR; break;
    case STRAIGHT: case PAIR_STRAIGHT: {
      uint32_t pres = present(c);
      it.key = 31 - __builtin_clz(pres);
      it.length = popcount(pres);
      break;
    }
    case TRIO_STRAIGHT: {
      uint32_t body = ranks_at_least(c, 3) & kPlainRanks;
      it.key = trio_chain_key(r, body);
      it.length = popcount(body);
      break;
    }
    case PLANE_SOLO:
      // below the cap of 3 no wing rank holds 3 cards: the trio ranks are the chain
      if (r.cap >= 3) return plane_solo_reading(r, c, n);
      {
        uint32_t body = ranks_at_least(c, 3) & kPlainRanks;
        it.key = trio_chain_key(r, body);
        it.length = popcount(body);
      }
      break;
    case PLANE_PAIR: {
      // a chain rank holds 3 + an even number of cards, a wing rank an even number
      uint32_t body = ranks_at_least(c, 3) & gather_nibbles((c & kOnes) << 3) & kPlainRanks;
      it.key = trio_chain_key(r, body);
      it.length = popcount(body);
      break;
    }
    case TRIO_SOLO: case TRIO_PAIR: it.key = __builtin_ctz(ranks_at_least(c, 3)); break;
    case FOUR_TWO_SOLO: case FOUR_TWO_PAIR:  // 4q + 4p (pairs not distinct) reads from the higher quad
      it.key = 31 - __builtin_clz(ranks_at_least(c, 4) & kPlainRanks);
      break;
    default: it.key = __builtin_ctz(present(c)); break;  // SOLO, PAIR, TRIO, bombs: one rank
  }
  return it;
}

Interp classify_follow(const Rules& r, Counts c, const Interp& top) {
  Interp all[kNumKinds];
  int n = interpretations(r, c, all);
  Interp best;
  for (int i = 0; i < n; ++i)
    if (beats(r, all[i], top) && (best.kind < 0 || all[i].key > best.key)) best = all[i];
  return best;
}

}  // namespace ddz

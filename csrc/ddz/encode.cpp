// Observation encoders (docs/encodings.md, "Observation tensors"; what each seat may see:
// docs/rules.md §3, with the kitty and the shown hands of §6, §7 and §8).
#include "encode.hpp"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ddz {

void track_apply(const Rules& r, Tracked& t, Counts cards, bool pass, const Interp& reading) {
  const int a = t.s.actions;
  const int seat = t.s.seat;
  t.recent[a % kHistory] = pass ? kPass : encode(cards, reading.kind);
  if (!pass) t.played[seat] += cards;
  apply_action(r, t.s, cards, pass, reading);
}

Illegal replay(const Rules& r, Tracked& t, const Enc* actions, size_t n, size_t& bad) {
  for (size_t i = 0; i < n; ++i) {
    const Enc e = actions[i];
    const bool pass = e == kPass;
    const int kind = pass ? -1 : enc_kind(e);
    Counts cards = pass ? 0 : enc_cards(e);
    Interp it;
    Illegal why = (!pass && (kind >= kNumKinds || !cards || !valid_word(r, cards)))
                      ? Illegal::Malformed
                      : check_action(r, t.s, cards, pass, kind, it);
    if (why != Illegal::None) {
      bad = i;
      return why;
    }
    track_apply(r, t, cards, pass, it);
  }
  return Illegal::None;
}

Enc last_action_of(const Tracked& t, int seat) {
  const int n = t.s.n, acts = t.s.actions;
  for (int a = acts - 1; a >= 0 && a >= acts - n; --a)
    if ((t.s.landlord + a) % n == seat) return t.recent[a % kHistory];
  return 0;
}

// ---- compact ---------------------------------------------------------------------------

const char* const kCompactBlockNames[kCompactBlocks] = {
    "hand", "unseen", "cards_left", "played", "last_action", "last_pass", "top", "top_kind", "top_owner",
    "shown", "shown_flag", "kitty", "kitty_known", "landlord", "to_act", "bombs", "bombs_left",
    "factors", "auction"};

CompactLayout compact_layout(const Rules& r, int decisions) {
  const int n = r.players();
  const int w[kCompactBlocks] = {kRanks, kRanks, n, kRanks * n, kRanks * n, n, kRanks, kNumKinds, n,
                                 kRanks * n, n, kRanks, 1, n, n, n, n,
                                 kFactorSlots, kAuctionSteps * (decisions + n)};
  CompactLayout L;
  int off = 0;
  for (int b = 0; b < kCompactBlocks; ++b) {
    L.offset[b] = off;
    L.width[b] = w[b];
    off += w[b];
  }
  L.total = off;
  return L;
}

namespace {

/// The 15 rank counts of a word as bytes (this runs for every block of every observation):
/// the even and the odd nibbles, interleaved.
void put_counts(Counts c, int8_t* out) {
  const uint64_t even = c & 0x0F0F0F0F0F0F0F0FULL, odd = (c >> 4) & 0x0F0F0F0F0F0F0F0FULL;
#if defined(__SSE2__)
  alignas(16) int8_t tmp[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(tmp),
                  _mm_unpacklo_epi8(_mm_cvtsi64_si128(int64_t(even)), _mm_cvtsi64_si128(int64_t(odd))));
  std::memcpy(out, tmp, kRanks);
#else
  for (int k = 0; k < 8; ++k) {
    out[2 * k] = int8_t((even >> (8 * k)) & 15);
    if (2 * k + 1 < kRanks) out[2 * k + 1] = int8_t((odd >> (8 * k)) & 15);
  }
#endif
}

/// Every card of the rules' decks: 4 (8) of each rank, 1 (2) of each joker.
Counts full_deck(const Rules& r) { return r.two_decks ? 0x228888888888888ULL : 0x114444444444444ULL; }

/// The blocks both phases share: own hand, unseen cards, counts left, shown hands, kitty,
/// landlord, seat to act. `played` may be null (nothing played yet).
void encode_common(const Rules& r, const CompactLayout& L, const Counts* hands, const Counts* played, int landlord,
                   int to_act, const CompactView& v, int8_t* out) {
  const int n = r.players();
  std::memset(out, 0, size_t(L.total));
  Counts unseen = full_deck(r) - hands[v.seat];
  put_counts(hands[v.seat], out + L.offset[CB_HAND]);
  for (int k = 0, s = v.seat; k < n; ++k, s = s + 1 == n ? 0 : s + 1) {
    out[L.offset[CB_CARDS_LEFT] + k] = int8_t(total_cards(hands[s]));
    if (played) unseen -= played[s];
    if (s != v.seat && (v.shown >> s & 1)) {
      put_counts(hands[s], out + L.offset[CB_SHOWN] + kRanks * k);
      out[L.offset[CB_SHOWN_FLAG] + k] = 1;
      unseen -= hands[s];
    }
    if (s == landlord) out[L.offset[CB_LANDLORD] + k] = 1;
    if (s == to_act) out[L.offset[CB_TO_ACT] + k] = 1;
    out[L.offset[CB_BOMBS_LEFT] + k] = -1;
  }
  put_counts(unseen, out + L.offset[CB_UNSEEN]);
  if (v.kitty_known) {
    put_counts(v.kitty, out + L.offset[CB_KITTY]);
    out[L.offset[CB_KITTY_KNOWN]] = 1;
  }
}

}  // namespace

void encode_compact(const Rules& r, const CompactLayout& L, const Tracked& t, const CompactView& v, int8_t* out) {
  const PlayState& s = t.s;
  const int n = s.n;
  encode_common(r, L, s.hand, t.played, s.landlord, s.over() ? -1 : s.seat, v, out);
  for (int k = 0, p = v.seat; k < n; ++k, p = p + 1 == n ? 0 : p + 1) {
    put_counts(t.played[p], out + L.offset[CB_PLAYED] + kRanks * k);
    out[L.offset[CB_BOMBS] + k] = int8_t(s.bombs[p]);
    if (s.limit[p] != kUnlimited)
      out[L.offset[CB_BOMBS_LEFT] + k] = int8_t(s.limit[p] > s.bombs[p] ? s.limit[p] - s.bombs[p] : 0);
  }
  // each seat's latest action is among the last n: walk them back once
  const int acts = s.actions;
  int a = acts - 1, slot = a % kHistory, seat = (s.landlord + a) % n;
  for (int j = 0; j < n && a >= 0; ++j, --a) {
    const int k = seat >= v.seat ? seat - v.seat : seat - v.seat + n;
    const Enc e = t.recent[slot];
    if (e == kPass) out[L.offset[CB_LAST_PASS] + k] = 1;
    else put_counts(enc_cards(e), out + L.offset[CB_LAST] + kRanks * k);
    slot = slot ? slot - 1 : kHistory - 1;
    seat = seat ? seat - 1 : n - 1;
  }
  if (!s.leading()) {
    put_counts(enc_cards(s.top), out + L.offset[CB_TOP]);
    out[L.offset[CB_TOP_KIND] + enc_kind(s.top)] = 1;
    out[L.offset[CB_TOP_OWNER] + (s.owner - v.seat + n) % n] = 1;
  }
}

void encode_compact_deal(const Rules& r, const CompactLayout& L, const Counts* hands, int landlord, int to_act,
                         const CompactView& v, int8_t* out) {
  encode_common(r, L, hands, nullptr, landlord, to_act, v, out);
}

// ---- DouZero ---------------------------------------------------------------------------

int dz_position(const PlayState& s) { return (s.seat - s.landlord + 3) % 3; }

namespace {

/// Byte b of a word (the counts of two ranks) -> the two 4-byte thermometers of DouZero's card
/// matrix (count >= 1, 2, 3, 4), as the 8 bytes to store. Counts above 4 do not occur in one deck.
struct Thermometers {
  uint8_t v[256][8];
  constexpr Thermometers() : v() {
    for (int b = 0; b < 256; ++b)
      for (int j = 0; j < 4; ++j) {
        v[b][j] = uint8_t((b & 15) > j);
        v[b][4 + j] = uint8_t((b >> 4) > j);
      }
  }
};
constexpr Thermometers kTherm;

}  // namespace

void dz_cards(Counts c, int8_t* out) {
  for (int k = 0; k < 6; ++k) std::memcpy(out + 8 * k, kTherm.v[(c >> (8 * k)) & 255], 8);  // ranks 3..A
  std::memcpy(out + 48, kTherm.v[(c >> 48) & 15], 4);                                        // rank 2
  out[52] = int8_t(count_of(c, kB) > 0);
  out[53] = int8_t(count_of(c, kR) > 0);
}

namespace {

/// DouZero's "cards left" one-hot: entry count-1 of `width`.
void dz_one_hot(int count, int width, int8_t* out) {
  std::memset(out, 0, size_t(width));
  out[(count - 1 + width) % width] = 1;  // count 0 (a finished hand) marks the last entry, as numpy's [-1]
}

Counts cards_of(Enc e) { return (e == 0 || e == kPass) ? 0 : enc_cards(e); }

}  // namespace

void dz_state(const Tracked& t, int8_t* out) {
  const PlayState& s = t.s;
  const int me = s.seat, L = s.landlord, down = (L + 1) % 3, up = (L + 2) % 3;
  Counts others = 0;
  for (int p = 0; p < 3; ++p)
    if (p != me) others += s.hand[p];
  const Counts last = s.leading() ? 0 : enc_cards(s.top);  // DouZero's last_move: the play to beat
  const int bombs = s.kind_plays[BOMB] + s.kind_plays[ROCKET];
  dz_cards(s.hand[me], out);
  dz_cards(others, out + 54);
  if (me == L) {
    dz_cards(last, out + 108);
    dz_cards(t.played[up], out + 162);
    dz_cards(t.played[down], out + 216);
    dz_one_hot(total_cards(s.hand[up]), 17, out + 270);
    dz_one_hot(total_cards(s.hand[down]), 17, out + 287);
    dz_one_hot(bombs + 1, 15, out + 304);
    return;
  }
  const int mate = me == up ? down : up;
  dz_cards(t.played[L], out + 108);
  dz_cards(t.played[mate], out + 162);
  dz_cards(last, out + 216);
  dz_cards(cards_of(last_action_of(t, L)), out + 270);
  dz_cards(cards_of(last_action_of(t, mate)), out + 324);
  dz_one_hot(total_cards(s.hand[L]), 20, out + 378);
  dz_one_hot(total_cards(s.hand[mate]), 17, out + 398);
  dz_one_hot(bombs + 1, 15, out + 415);
}

void dz_history(const Tracked& t, int8_t* out) {
  const int acts = t.s.actions;
  for (int row = 0; row < kHistory; ++row) {
    const int a = acts - kHistory + row;  // oldest first
    if (a < 0) std::memset(out + kDzCards * row, 0, kDzCards);
    else dz_cards(cards_of(t.recent[a % kHistory]), out + kDzCards * row);
  }
}

void dz_history_after(const Tracked& t, const int8_t* prev, int delta, int8_t* out) {
  if (delta <= 0 || delta >= kHistory) return dz_history(t, out);
  std::memmove(out, prev + kDzCards * delta, size_t(kDzCards * (kHistory - delta)));
  const int acts = t.s.actions;
  for (int row = kHistory - delta; row < kHistory; ++row) {
    const int a = acts - kHistory + row;
    if (a < 0) std::memset(out + kDzCards * row, 0, kDzCards);
    else dz_cards(cards_of(t.recent[a % kHistory]), out + kDzCards * row);
  }
}

}  // namespace ddz

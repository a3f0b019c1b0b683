// Trick play, legality and self-play (docs/rules.md §3; §8 "Bomb limits", "Missiles").
#include "play.hpp"

#include "deal.hpp"

namespace ddz {

static bool is_missile(int kind) { return kind == BOMB7 || kind == BOMB8 || kind == JOKER_BOMB; }

int PlayState::bombs_total() const {
  int t = 0;
  for (int k = 0; k < kNumKinds; ++k)
    if (is_bomb_kind(k)) t += kind_plays[k];
  return t;
}

bool PlayState::spring(const Rules& r) const {
  if (!r.spec().springs || !over() || !landlord_won()) return false;
  for (int i = 0; i < n; ++i)
    if (i != landlord && plays[i]) return false;
  return true;
}

bool PlayState::anti_spring(const Rules& r) const {
  return r.spec().springs && over() && !landlord_won() && plays[landlord] == 1;
}

PlayState start_play(int players, const Counts* hands, int landlord, const uint8_t* limits) {
  PlayState s;
  s.n = uint8_t(players);
  for (int i = 0; i < players; ++i) {
    s.hand[i] = hands[i];
    if (limits) s.limit[i] = limits[i];
  }
  s.landlord = s.seat = s.owner = uint8_t(landlord);
  return s;
}

/// Is `cards` a sub-multiset of `hand`? Nibbles are split into bytes so that a borrow
/// (a count of cards above the hand's) shows in each byte's top bit.
static bool holds(Counts hand, Counts cards) {
  constexpr uint64_t lo = 0x0F0F0F0F0F0F0F0FULL, top = 0x8080808080808080ULL;
  uint64_t even = ((hand & lo) | top) - (cards & lo);
  uint64_t odd = (((hand >> 4) & lo) | top) - ((cards >> 4) & lo);
  return (even & odd & top) == top;
}

void legal_actions(const Rules& r, const PlayState& s, MoveBuffer& out) {
  if (s.over()) return;
  size_t base = out.size;
  generate(r, s.hand[s.seat], s.leading() ? nullptr : &s.top_it, out);
  if (s.bombs[s.seat] >= s.limit[s.seat]) {  // docs/rules.md §8 "Bomb limits": none beyond the limit
    size_t w = base;
    for (size_t i = base; i < out.size; ++i)
      if (!is_bomb_kind(enc_kind(out.data[i]))) out.data[w++] = out.data[i];
    out.size = w;
  }
  if (!s.leading()) {
    out.reserve(out.size + 1);
    out.data[out.size++] = kPass;
  }
}

Illegal check_action(const Rules& r, const PlayState& s, Counts cards, bool pass, int kind, Interp& reading) {
  if (s.over()) return Illegal::Over;
  if (pass) {
    if (s.leading()) return Illegal::LeadPass;
    reading = Interp();
    return Illegal::None;
  }
  if (!holds(s.hand[s.seat], cards)) return Illegal::NotHeld;
  if (s.leading()) {
    reading = classify(r, cards);
    if (reading.kind < 0) return Illegal::NotCombination;
  } else {
    reading = classify_follow(r, cards, s.top_it);
    if (reading.kind < 0) return classify(r, cards).kind < 0 ? Illegal::NotCombination : Illegal::DoesNotBeat;
  }
  if (kind >= 0 && kind != reading.kind) return Illegal::WrongReading;
  if (is_bomb_kind(reading.kind) && s.bombs[s.seat] >= s.limit[s.seat]) return Illegal::BombLimit;
  return Illegal::None;
}

void apply_action(const Rules& r, PlayState& s, Counts cards, bool pass, const Interp& reading) {
  ++s.actions;
  if (pass) {
    if (++s.passes == s.n - 1) {  // everyone else passed: the owner leads a new trick
      s.top = 0;
      s.top_it = Interp();
      s.passes = 0;
      s.seat = s.owner;
    } else {
      s.seat = s.next(s.seat);
    }
    return;
  }
  const uint8_t p = s.seat;
  s.hand[p] -= cards;
  s.top = encode(cards, reading.kind);
  s.top_it = reading;
  s.owner = p;
  s.passes = 0;
  ++s.plays[p];
  ++s.kind_plays[reading.kind];
  if (is_bomb_kind(reading.kind)) ++s.bombs[p];
  if (r.two_decks && is_missile(reading.kind)) ++s.missiles[p];
  if (s.hand[p] == 0) {
    s.out = int8_t(p);
    return;
  }
  s.seat = s.next(p);
}

// ---- self-play -----------------------------------------------------------------------

namespace {

/// Greedy: lead the non-bomb play with the most cards (lowest key on ties); follow an
/// opponent with the lowest non-bomb play that beats it; never overtake the other farmer;
/// bomb only when the opponent on top is down to a few cards.
size_t greedy_pick(const Rules& r, const PlayState& s, const Enc* moves, size_t n) {
  const bool following = !s.leading();
  if (following) {
    bool mate = s.seat != s.landlord && s.owner != s.landlord;
    if (mate) return n - 1;  // the pass is last
  }
  size_t best = n, best_bomb = n;
  int best_cards = -1, best_key = 1 << 20, bomb_power = 1 << 20;
  for (size_t i = 0; i < n; ++i) {
    Enc e = moves[i];
    if (e == kPass) continue;
    int kind = enc_kind(e);
    Interp it = reading_of(r, e);
    if (is_bomb_kind(kind)) {
      int power = (kind == ROCKET || kind == JOKER_BOMB) ? 1000 : (kind - (r.two_decks ? BOMB4 : BOMB)) * 16 + it.key;
      if (power < bomb_power) { bomb_power = power; best_bomb = i; }
      continue;
    }
    int cards = total_cards(enc_cards(e));
    if (following ? it.key < best_key : (cards > best_cards || (cards == best_cards && it.key < best_key))) {
      best = i;
      best_cards = cards;
      best_key = it.key;
    }
  }
  if (best < n) return best;
  if (!following) return best_bomb;  // only bombs left
  if (best_bomb < n && total_cards(s.hand[s.owner]) <= 5) return best_bomb;
  return n - 1;  // pass
}

}  // namespace

void simulate_range(const Rules& r, int policy, uint64_t seed, uint64_t first, uint64_t last, SimResult* out) {
  MoveBuffer buf;
  buf.reserve(4096);
  const int n = r.players();
  for (uint64_t g = first; g < last; ++g) {
    Counts hands[4];
    int landlord;
    deal_game(r, seed, g, hands, landlord);
    Rng pick = game_rng(seed ^ 0xA5A5A5A5A5A5A5A5ULL, g);
    PlayState s = start_play(n, hands, landlord, nullptr);
    while (!s.over()) {
      Enc e;
      if (policy == kGreedy) {
        buf.clear();
        legal_actions(r, s, buf);
        e = buf.data[greedy_pick(r, s, buf.data, buf.size)];
      } else {
        // the same pick as from legal_actions' list (no bomb limits here: every play, then
        // PASS when following), without building the list: count it, build one family
        const Interp* top = s.leading() ? nullptr : &s.top_it;
        const uint64_t plays = count(r, s.hand[s.seat], top);
        const uint64_t i = pick.below(uint32_t(plays + (top ? 1 : 0)));
        e = i == plays ? kPass : select_move(r, s.hand[s.seat], top, i, buf);
      }
      if (e == kPass) {
        apply_action(r, s, 0, true, Interp());
      } else {
        Interp it = reading_of(r, e);
        apply_action(r, s, enc_cards(e), false, it);
      }
    }
    SimResult& o = out[g - first];
    o.winner_side = s.landlord_won() ? 0 : 1;
    o.landlord = int8_t(landlord);
    o.actions = int16_t(s.actions);
    int plays = 0, ml = 0, mf = 0;
    for (int p = 0; p < n; ++p) {
      plays += s.plays[p];
      (p == landlord ? ml : mf) += s.missiles[p];
    }
    o.plays = int16_t(plays);
    o.bombs = int16_t(s.bombs_total());
    o.rockets = int16_t(s.kind_plays[ROCKET] + s.kind_plays[JOKER_BOMB]);
    o.spring = s.spring(r);
    o.anti_spring = s.anti_spring(r);
    o.missiles_landlord = int16_t(ml);
    o.missiles_farmers = int16_t(mf);
  }
}

}  // namespace ddz

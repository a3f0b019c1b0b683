// The whole hand (hand.hpp): docs/rules.md §6 (CLASSIC3 call / rob / show, kitty factor,
// score), §7 (TWOP 明牌开始, call, 翻身 / 压迫, score), §8 (BENGBU4 天炸 / 天尊 at the deal,
// bids 1/2/3 and 抢牌, 明打 / 暗打, bomb limits from the bid log, missiles), §9 (escapes). Every
// auction step here is the one both ddz.Game (csrc/bindings/game.cpp) and the vector env take; the
// scores mirror ddz.hand.scoring, which scores a Game (tests/test_vector_env_auction.py compares them).
#include "hand.hpp"

#include <cstring>

#include "physical.hpp"

namespace ddz {

const char* const kHandPhaseNames[kHandPhases] = {"CALL",    "ROB",     "FINAL_ROB",   "SHOW", "PRE_DEAL", "BID",
                                                  "FANSHEN", "YAPO",    "OPEN_CHOICE", "PLAY", "OVER"};
const char* const kHandResultNames[5] = {"", "normal", "special", "void", "escape"};


// The phase graphs (ddz.hand.auction_*.TRANSITIONS, in their order).
#define NO {kNone, kNone, kNone, kNone, kNone, kNone}
const uint8_t kPhaseTokens[kVariants][kHandPhases][6] = {
    {/*CALL*/ {C_CALL, C_NO_CALL, kNone}, /*ROB*/ {C_ROB, C_NO_ROB, kNone}, /*FINAL_ROB*/ {C_ROB, C_NO_ROB, kNone},
     /*SHOW*/ {C_SHOW, C_NO_SHOW, kNone}, NO, NO, NO, NO, NO, NO, NO},
    {NO, NO, NO, NO, /*PRE_DEAL*/ {T_SHOW_START, T_NORMAL_START, kNone}, /*BID*/ {T_CALL, T_NO_CALL, kNone},
     /*FANSHEN*/ {T_FANSHEN, T_NO_FANSHEN, kNone}, /*YAPO*/ {T_YAPO, T_NO_YAPO, kNone}, NO, NO, NO},
    {NO, NO, NO, NO, NO, /*BID*/ {B_NO_CALL, B_BID1, B_BID2, B_BID3, B_GRAB, kNone}, NO, NO,
     /*OPEN_CHOICE*/ {B_OPEN, B_CLOSED, kNone}, NO, NO},
};
#undef NO

// Where each (phase, token) may lead (ddz.hand.auction_*.TRANSITIONS reads it from here).
#define P(x) uint16_t(1u << HP_##x)
// Rows by phase (HandPhase order), columns by token (the variant's token order).
constexpr uint16_t kRob = P(ROB) | P(FINAL_ROB), kAfterBid = P(BID) | P(OPEN_CHOICE) | P(OVER);
const uint16_t kLeadsTo[kVariants][kHandPhases][8] = {
    {/*CALL: CALL, NO_CALL*/ {P(ROB) | P(SHOW), P(CALL) | P(OVER)},
     /*ROB: ROB, NO_ROB*/ {0, 0, kRob, kRob | P(SHOW)},
     /*FINAL_ROB: ROB, NO_ROB*/ {0, 0, P(SHOW), P(SHOW)},
     /*SHOW: SHOW, NO_SHOW*/ {0, 0, 0, 0, P(PLAY), P(PLAY)}},
    {{}, {}, {}, {},
     /*PRE_DEAL: SHOW_START, NORMAL_START*/ {P(PRE_DEAL) | P(BID), P(PRE_DEAL) | P(BID)},
     /*BID: CALL, NO_CALL*/ {0, 0, P(PLAY) | P(FANSHEN), P(BID) | P(PLAY) | P(FANSHEN) | P(PRE_DEAL) | P(OVER)},
     /*FANSHEN: FANSHEN, NO_FANSHEN*/ {0, 0, 0, 0, P(YAPO), P(PLAY)},
     /*YAPO: YAPO, NO_YAPO*/ {0, 0, 0, 0, 0, 0, P(PLAY), P(PLAY)}},
    {{}, {}, {}, {}, {},
     /*BID: NO_CALL, BID1, BID2, BID3, GRAB*/ {kAfterBid, kAfterBid, kAfterBid, kAfterBid, P(PLAY)},
     {}, {},
     /*OPEN_CHOICE: OPEN, CLOSED*/ {0, 0, 0, 0, 0, P(PLAY), P(PLAY)}},
};
#undef P

uint64_t hand_seed(uint64_t seed, uint64_t game) {
  Rng g = game_rng(seed ^ 0xA5A5F00DC0FFEE11ULL, game);
  return g.next();
}

namespace {

int log2_floor(int64_t v) {
  int k = -1;
  while (v > 0) v >>= 1, ++k;
  return k;
}

}  // namespace

/// CLASSIC3's kitty factor (docs/rules.md §6 "The kitty", §10 A15): joker part x rank part (or the larger).
int kitty_factor_of(Counts w, bool combine_max) {
  const int jokers = count_of(w, kB) + count_of(w, kR);
  const int joker_part = jokers == 2 ? 4 : jokers == 1 ? 2 : 1;
  bool trio = false;
  for (int r = 0; r < 13; ++r) trio = trio || count_of(w, r) == 3;
  const int rank_part = (trio || count_of(w, 12) == 2) ? 2 : 1;
  return combine_max ? (joker_part > rank_part ? joker_part : rank_part) : joker_part * rank_part;
}

int play_doubling(const Rules& r, const HandOptions& o, int bombs, int rockets) {
  if (r.variant == Variant::kBengbu4) return 0;  // BENGBU4's bombs never double (bengbu_bomb_doubling is reserved)
  return r.variant == Variant::kClassic3 || o.rocket_doubles ? bombs : bombs - rockets;
}

namespace {

/// The bomb-class plays that double (none in BENGBU4; TWOP's rocket by its option).
int doubling(const Rules& r, const HandOptions& o, const HandState& h, const PlayState& s) {
  if (!h.in_play) return 0;
  return play_doubling(r, o, s.kind_plays[BOMB] + s.kind_plays[ROCKET], s.kind_plays[ROCKET]);
}

bool springs(const Rules& r, const PlayState& s) { return s.spring(r) || s.anti_spring(r); }

// ---- the score: every factor and every outcome (hand.hpp, HandOutcome) ----

int64_t classic_rob(const HandOptions& o, const HandState& h) {
  return (int64_t(1) << h.robs) < o.rob_cap ? (int64_t(1) << h.robs) : o.rob_cap;  // robs <= 3
}
int64_t twop_show(const HandOptions& o, const HandState& h) {
  return !h.nshowers ? 1 : o.show_stacks && h.nshowers == 2 ? 25 : 5;
}
int64_t twop_fanshen(const HandState& h) { return h.fanshen == 1 && h.yapo ? 4 : h.fanshen == 1 ? 2 : 1; }

/// The factors by name and their product, now (no play yet: `s` null). At most 8 x 2 x 4 x
/// 2**14 x 2 in CLASSIC3 (13 bombs and the rocket double at most 14 times), 25 x 4 x 2**14 x 2 in TWOP.
void factors_now(const Rules& r, const HandOptions& o, const HandState& h, const PlayState* s, HandOutcome& out) {
  const int dbl = s ? doubling(r, o, h, *s) : 0;
  const int64_t bomb = int64_t(1) << dbl, spring = s && springs(r, *s) ? 2 : 1;
  switch (r.variant) {
    case Variant::kClassic3:
      out.add("rob", classic_rob(o, h));
      out.add("show", h.showed ? 2 : 1);
      out.add("kitty", h.kitty_f);
      out.add("bomb", bomb);
      out.add("spring", spring);
      out.multiplier = classic_rob(o, h) * (h.showed ? 2 : 1) * h.kitty_f * bomb * spring;
      return;
    case Variant::kTwoP:
      out.add("show_start", twop_show(o, h));
      out.add("fanshen", twop_fanshen(h));
      out.add("bomb", bomb);
      out.add("spring", spring);
      out.multiplier = twop_show(o, h) * twop_fanshen(h) * bomb * spring;
      return;
    default:
      out.add("base", h.landlord != kNone ? h.base : h.high);
      out.add("open", h.open, F_BOOL);
      out.multiplier = 1;
  }
}

void outcome_of_play(const Rules& r, const HandOptions& o, const HandState& h, const PlayState& s, HandOutcome& out) {
  const bool won = s.landlord_won();
  const int n = r.players(), L = h.landlord;
  out.winner_side = won ? 0 : 1;
  out.winner_seat = s.out;
  out.spring = s.spring(r);
  out.anti_spring = s.anti_spring(r);
  out.bombs = doubling(r, o, h, s);
  switch (r.variant) {
    case Variant::kClassic3: {  // §6: X = base x initial multiplier x D; the landlord +2X / -2X (-X under A16, each farmer +floor(X/2))
      const int64_t d = out.multiplier;
      out.unit = d;
      out.robs = h.robs;
      for (int p = 0; p < n; ++p) {
        out.coef[p] = p == L ? (won ? 2 * d : -o.loss_factor * d) : (won ? -d : d);
        out.den[p] = uint8_t(p != L && !won && o.loss_factor == 1 ? 2 : 1);
      }
      return;
    }
    case Variant::kTwoP: {  // §7: X = I x m_act; the landlord +-2X (+-X zero-sum), the farmer -+X
      const int64_t m = out.multiplier, role = o.zero_sum ? 1 : 2;
      out.unit = m;
      out.coef[L] = won ? role * m : -role * m;
      out.coef[1 - L] = won ? -m : m;
      return;
    }
    default: {  // §8: per farmer the bid x 3/2 (open) or 1/1, plus missile differences; the loser never receives
      const int64_t kw = h.open ? 3 : 1, kl = h.open ? 2 : 1, base = h.base;
      auto m = [&](int p) { return int64_t(o.missiles_once ? (s.missiles[p] ? 1 : 0) : s.missiles[p]); };
      for (int p = 0; p < n; ++p) {
        if (p == L) continue;
        int64_t t = (won ? kw * base : -kl * base) + base * (m(L) - m(p));
        t = won ? (t > 0 ? t : 0) : (t < 0 ? t : 0);
        out.coef[L] += t;
        out.coef[p] = -t;
      }
      out.unit = base;
      out.bombs = s.bombs_total();
      out.play_detail = true;
      for (int p = 0; p < n; ++p) out.missiles[p] = s.missiles[p];
    }
  }
}

/// Sets the hand's scores at a stake of 1 (VectorEnv's; Game forms its own from the outcome).
void set_scores(const Rules& r, HandState& h, const HandOutcome& out) {
  for (int p = 0; p < 4; ++p) h.scores[p] = p < r.players() ? out.coef[p] / out.den[p] : 0;  // coef >= 0 when den 2
}

void finish(const Rules& r, const HandOptions& o, HandState& h, uint8_t result, const PlayState* s) {
  h.result = result;
  h.phase = HP_OVER;
  HandOutcome out;
  hand_outcome(r, o, h, s, out);
  set_scores(r, h, out);
}

void record(HandState& h, int seat, int token) {
  const int k = h.ndec % kAuctionSteps;
  h.dec_seat[k] = uint8_t(seat);
  h.dec_tok[k] = uint8_t(token);
  ++h.ndec;
}


void take_kitty(HandState& h) {
  h.hands[h.landlord] += h.kitty;
  h.kitty_revealed = true;
}

void start_play_phase(const Rules& r, HandState& h, const uint8_t* limits) {
  h.t = Tracked();
  h.t.s = start_play(r.players(), h.hands, h.landlord, limits);
  h.phase = HP_PLAY;
  h.in_play = true;
}

void start_deal(const Rules& r, const HandOptions& o, HandState& h);

void redeal(const Rules& r, const HandOptions& o, HandState& h) {
  ++h.redeals;
  if (o.max_redeals && h.redeals >= o.max_redeals) {  // §11 max_redeals: the hand is void
    finish(r, o, h, HR_VOID, nullptr);
    return;
  }
  start_deal(r, o, h);
}

// ---- CLASSIC3 ----
void classic_reveal_kitty(const HandOptions& o, HandState& h) {
  h.kitty_f = uint8_t(kitty_factor_of(h.kitty, o.kitty_max));
  take_kitty(h);
}

void classic_landlord_known(const HandOptions& o, HandState& h, int seat) {
  h.landlord = uint8_t(seat);
  if (o.show_after_kitty) classic_reveal_kitty(o, h);
  h.phase = HP_SHOW;
  h.seat = uint8_t(seat);
}

void classic_next_rob(const HandOptions& o, HandState& h) {
  if (h.rq_pos < h.rq_len) {
    h.phase = HP_ROB;
    h.seat = h.rob_queue[h.rq_pos++];
  } else if (!h.nrobbers) {
    classic_landlord_known(o, h, h.caller);
  } else {
    h.phase = HP_FINAL_ROB;
    h.seat = h.caller;
  }
}

void classic_decide(const Rules& r, const HandOptions& o, HandState& h, int seat, int token) {
  switch (h.phase) {
    case HP_CALL:
      if (token == C_CALL) {
        h.caller = uint8_t(seat);
        h.rq_len = h.rq_pos = 0;
        if (o.passers_may_rob) {
          h.rob_queue[h.rq_len++] = uint8_t((seat + 1) % 3);
          h.rob_queue[h.rq_len++] = uint8_t((seat + 2) % 3);
        } else {  // the seats between the caller and P0 going round (A12)
          for (int s = (seat + 1) % 3; s != h.first_bidder; s = (s + 1) % 3) h.rob_queue[h.rq_len++] = uint8_t(s);
        }
        classic_next_rob(o, h);
      } else if (++h.no_calls == 3) {
        redeal(r, o, h);
      } else {
        h.seat = uint8_t((seat + 1) % 3);
      }
      return;
    case HP_ROB:
      if (token == C_ROB) {
        ++h.robs;
        if (!h.nrobbers++) h.first_robber = uint8_t(seat);
        h.last_robber = uint8_t(seat);
      }
      classic_next_rob(o, h);
      return;
    case HP_FINAL_ROB:
      if (token == C_ROB) {
        ++h.robs;
        classic_landlord_known(o, h, h.caller);
      } else {
        classic_landlord_known(o, h, o.rob_winner_last ? h.last_robber : h.first_robber);
      }
      return;
    case HP_SHOW:
      h.showed = token == C_SHOW;
      if (h.showed) h.shown |= uint8_t(1u << h.landlord);
      if (!o.show_after_kitty) classic_reveal_kitty(o, h);
      start_play_phase(r, h, nullptr);
      return;
    default:
      return;
  }
}

// ---- TWOP ----
void twop_landlord_known(const Rules& r, const HandOptions& o, HandState& h, int seat) {
  h.landlord = uint8_t(seat);
  take_kitty(h);
  start_play_phase(r, h, nullptr);
  if (o.fanshen_before_lead) {
    h.phase = HP_FANSHEN;
    h.seat = uint8_t(1 - seat);
  }
}

void twop_decide(const Rules& r, const HandOptions& o, HandState& h, int seat, int token) {
  switch (h.phase) {
    case HP_PRE_DEAL:
      if (token == T_SHOW_START) h.showers[h.nshowers++] = uint8_t(seat);
      if (++h.pre_done < 2) {
        h.seat = h.pre_order[1];
      } else {  // the cards are dealt now (docs/rules.md §7 "Bidding"); a show-start hand is face up from the deal
        h.dealt = true;
        for (int i = 0; i < h.nshowers; ++i) h.shown |= uint8_t(1u << h.showers[i]);
        const int p0 = h.nshowers ? h.showers[0] : h.first_bidder;
        h.bid_order[0] = uint8_t(p0);
        h.bid_order[1] = uint8_t(1 - p0);
        h.phase = HP_BID;
        h.seat = uint8_t(p0);
      }
      return;
    case HP_BID:
      if (token == T_CALL) twop_landlord_known(r, o, h, seat);
      else if (seat == h.bid_order[0]) h.seat = h.bid_order[1];
      else if (h.nshowers) twop_landlord_known(r, o, h, h.showers[0]);  // a shower passed by is the landlord
      else redeal(r, o, h);
      return;
    case HP_FANSHEN:
      h.fanshen = token == T_FANSHEN ? 1 : 0;
      if (h.fanshen) {
        h.phase = HP_YAPO;
        h.seat = h.landlord;
      } else {
        h.phase = HP_PLAY;
      }
      return;
    case HP_YAPO:
      h.yapo = token == T_YAPO;
      h.phase = HP_PLAY;
      return;
    default:
      return;
  }
}

// ---- BENGBU4 ----
/// docs/rules.md §8 "Special deals": 天炸 (all 8 of a rank) and 天尊 (BBRR) in the dealt hands, by
/// seat; true if any.
bool special_holders(const HandState& h, uint8_t* tianzha, bool* tianzun) {
  bool any = false;
  for (int s = 0; s < 4; ++s) {
    tianzha[s] = 0;
    for (int r = 0; r < 13; ++r) tianzha[s] += count_of(h.hands[s], r) == 8;
    tianzun[s] = count_of(h.hands[s], kB) == 2 && count_of(h.hands[s], kR) == 2;
    any = any || tianzha[s] || tianzun[s];
  }
  return any;
}

/// BENGBU4's hand ends at the deal when a seat holds 天炸 or 天尊 (scored by hand_outcome).
bool bengbu_special(const Rules& r, const HandOptions& o, HandState& h) {
  uint8_t tianzha[4];
  bool tianzun[4];
  if (!special_holders(h, tianzha, tianzun)) return false;
  finish(r, o, h, HR_SPECIAL, nullptr);
  return true;
}

void bengbu_landlord_known(const Rules& r, HandState& h, int seat, int base) {
  h.landlord = uint8_t(seat);
  h.base = uint8_t(base);
  for (int s = 0; s < 4; ++s) h.limits[s] = kUnlimited;  // docs/rules.md §8 "Bomb limits", from the bid log
  for (int i = 0; i < h.nbids; ++i) {
    // the bid, and the highest bid before it (a pass after a 3 leaves bombs free, after a 1 or a 2
    // allows two, before any bid one)
    const int s = h.bid_seat[i], bid = h.bid_tok[i], high_before = h.bid_high[i];
    if (s == seat || bid == B_BID3 || bid == B_GRAB) continue;
    if (bid == B_BID1 || bid == B_BID2) h.limits[s] = 2;
    else if (bid == B_NO_CALL) h.limits[s] = high_before == 3 ? kUnlimited : (high_before == 1 || high_before == 2) ? 2 : 1;
  }
  take_kitty(h);
  if (h.grab) {  // a grab is always open play (抢牌直接为明牌打)
    h.shown |= uint8_t(1u << seat);
    start_play_phase(r, h, h.limits);
  } else {
    h.phase = HP_OPEN_CHOICE;
    h.seat = uint8_t(seat);
  }
}

void bengbu_decide(const Rules& r, const HandOptions& o, HandState& h, int seat, int token) {
  if (h.phase == HP_OPEN_CHOICE) {
    h.open = token == B_OPEN;
    if (h.open) h.shown |= uint8_t(1u << h.landlord);
    start_play_phase(r, h, h.limits);
    return;
  }
  const int i = h.nbids++;
  h.bid_seat[i] = uint8_t(seat);
  h.bid_tok[i] = uint8_t(token);
  h.bid_high[i] = h.high;
  if (token == B_GRAB) {
    h.grab = h.open = true;
    bengbu_landlord_known(r, h, seat, 3);
    return;
  }
  if (token != B_NO_CALL) {
    h.high = uint8_t(token);  // B_BID1..3 are 1..3
    h.holder = uint8_t(seat);
  }
  if (h.nbids == 4) {
    if (!h.high) redeal(r, o, h);
    else bengbu_landlord_known(r, h, h.holder, h.high);
  } else {
    h.seat = uint8_t((seat + 1) % 4);
  }
}

void start_deal(const Rules& r, const HandOptions& o, HandState& h) {
  HandDeal local;
  HandDeal& d = h.capture ? *h.capture : local;  // ddz.Game keeps the suited cards
  hand_deal(r, h, h.redeals, d);  // deal k of the hand: k = re-deals so far
  const PhysicalHands& ph = d.cards;
  for (int p = 0; p < 4; ++p) h.hands[p] = p < r.players() ? counts_of_ids(ph.held[p]) : 0;
  h.kitty = counts_of_ids(ph.kitty);
  h.t = Tracked();
  h.in_play = false;
  h.kitty_revealed = false;
  h.shown = 0;
  h.landlord = kNone;
  h.ndec = 0;
  h.first_bidder = d.first_bidder;
  h.dealt = true;
  switch (r.variant) {
    case Variant::kClassic3:
      h.robs = h.nrobbers = h.no_calls = h.rq_len = h.rq_pos = 0;
      h.first_robber = h.last_robber = h.caller = kNone;
      h.showed = false;
      h.kitty_f = 1;
      h.phase = HP_CALL;
      h.seat = h.first_bidder;
      return;
    case Variant::kTwoP:
      h.nshowers = h.pre_done = 0;
      h.pre_order[0] = d.first_to_decide;
      h.pre_order[1] = uint8_t(1 - d.first_to_decide);
      h.fanshen = -1;
      h.yapo = false;
      h.dealt = false;
      h.phase = HP_PRE_DEAL;
      h.seat = h.pre_order[0];
      return;
    default:
      h.nbids = h.high = h.base = 0;
      h.holder = kNone;
      h.grab = h.open = false;
      for (uint8_t& l : h.limits) l = kUnlimited;
      h.phase = HP_BID;
      h.seat = h.first_bidder;
      bengbu_special(r, o, h);
      return;
  }
}

}  // namespace

void hand_start(const Rules& r, const HandOptions& o, HandState& h, uint64_t seed, const HandSetup* setup) {
  HandDeal* capture = h.capture;
  h = HandState();
  h.capture = capture;
  h.seed = seed;
  h.setup = setup;
  start_deal(r, o, h);
}

void hand_deal(const Rules& r, const HandState& h, uint64_t k, HandDeal& out) {
  const HandSetup* su = h.setup;
  if (su && k < su->scripted.size()) {
    out = su->scripted[size_t(k)];
    return;
  }
  PhysicalDeal d;
  deal_physical(r, h.seed, k, d);
  out.cards = physical_hands(r, d);
  out.first_bidder = uint8_t(su && k == 0 && su->first_bidder >= 0 ? su->first_bidder : d.first_seat);
  out.first_to_decide = uint8_t(su && k == 0 && su->first_to_decide >= 0 ? su->first_to_decide : d.coin);
}

int hand_decisions(const Rules& r, const HandState& h, uint8_t* out) {
  if (h.phase >= HP_PLAY) return 0;
  int k = 0;
  for (const uint8_t* t = kPhaseTokens[vi(r.variant)][h.phase]; k < 6 && *t != kNone; ++t) {
    // BENGBU4: a bid must be higher than the highest so far (B_BID1..3 are 1..3)
    if (r.variant == Variant::kBengbu4 && *t >= B_BID1 && *t <= B_BID3 && *t <= h.high) continue;
    out[k++] = *t;
  }
  return k;
}

void hand_decide(const Rules& r, const HandOptions& o, HandState& h, int token) {
  const int seat = h.seat;
  record(h, seat, token);
  switch (r.variant) {
    case Variant::kClassic3: classic_decide(r, o, h, seat, token); return;
    case Variant::kTwoP: twop_decide(r, o, h, seat, token); return;
    default: bengbu_decide(r, o, h, seat, token); return;
  }
}

void hand_play(const Rules& r, const HandOptions& o, HandState& h, Counts cards, bool pass, const Interp& reading) {
  const int seat = h.t.s.seat;
  track_apply(r, h.t, cards, pass, reading);
  hand_played(r, o, h, h.t.s, seat);
}

void hand_played(const Rules& r, const HandOptions& o, HandState& h, const PlayState& s, int seat) {
  if (s.over()) {
    finish(r, o, h, HR_NORMAL, &s);
  } else if (r.variant == Variant::kTwoP && h.fanshen < 0 && !o.fanshen_before_lead && seat == h.landlord &&
             s.seat != h.landlord) {  // farmer_first_turn: the farmer decides before his first play action (A24)
    h.phase = HP_FANSHEN;
    h.seat = uint8_t(1 - h.landlord);
  }
}

void hand_outcome(const Rules& r, const HandOptions& o, const HandState& h, const PlayState* s, HandOutcome& out) {
  out = HandOutcome();
  out.kind = h.result;
  out.landlord = h.landlord == kNone ? -1 : int8_t(h.landlord);
  out.landlord_factor = o.zero_sum ? 1 : 2;
  if (h.result == HR_VOID) {  // max_redeals: nothing is scored
    out.terms = false;
    return;
  }
  if (h.result == HR_SPECIAL) {  // docs/rules.md §8 "Special deals": 天炸 30 a seat (per rank under
                                 // special_per_instance), 天尊 6
    special_holders(h, out.tianzha, out.tianzun);
    for (int holder = 0; holder < 4; ++holder) {
      if (!out.tianzha[holder] && !out.tianzun[holder]) continue;
      const int64_t amount = 30 * (o.special_per_instance ? out.tianzha[holder] : (out.tianzha[holder] ? 1 : 0)) +
                             (out.tianzun[holder] ? 6 : 0);
      for (int p = 0; p < 4; ++p) {
        if (out.tianzha[p] || out.tianzun[p]) continue;
        out.coef[p] -= amount;
        out.coef[holder] += amount;
      }
    }
    return;
  }
  factors_now(r, o, h, s, out);
  if (r.spec().bomb_limits && h.landlord != kNone)
    for (int p = 0; p < 4; ++p) out.limits[p] = h.limits[p];
  if (h.result == HR_NORMAL && s) outcome_of_play(r, o, h, *s, out);
}

void hand_factors(const Rules& r, const HandOptions& o, const HandState& h, const PlayState* s, HandOutcome& out) {
  out = HandOutcome();
  factors_now(r, o, h, s, out);
}

void hand_escape_outcome(const Rules& r, const HandOptions& o, const HandState& h, const PlayState* s,
                         const Counts* held, int escapee, HandOutcome& out) {
  out = HandOutcome();
  out.kind = HR_ESCAPE;
  out.landlord = h.landlord == kNone ? -1 : int8_t(h.landlord);
  out.landlord_factor = o.zero_sum ? 1 : 2;
  const bool landlord_known = h.landlord != kNone;
  if (r.variant == Variant::kTwoP) {  // docs/rules.md §9 "Escapes" (TWOP): the escapee pays A x E x I; the other
                         // seat wins as at I x m_esc
    int bombs = s ? doubling(r, o, h, *s) : 0;
    for (int p = 0; held && p < 2; ++p) {  // every bomb of the hand counts, played or held (无论是否炸出)
      for (int k = 0; k < 13; ++k) bombs += count_of(held[p], k) == 4;
      bombs += o.rocket_doubles && count_of(held[p], kB) && count_of(held[p], kR);
    }
    const int64_t m = twop_show(o, h) * twop_fanshen(h) * (int64_t(1) << bombs);
    const bool proportional = o.escape_threshold_inclusive ? m >= 10 : m > 10;
    const int64_t e = proportional ? 2 * m : 10;
    const int other = 1 - escapee;
    const int64_t role = escapee == h.landlord ? 2 : 1, role_rem = other == h.landlord ? 2 : 1;
    out.coef[escapee] = -role * e;
    out.coef[other] = o.compensation_normal_win ? role_rem * m : 0;
    out.multiplier = out.unit = m;
    out.bombs = bombs;
    out.add("escapee", escapee);
    out.add("m_esc", m);
    out.add("E", e);
    out.add("role_escapee", role);
    out.add("role_remaining", role_rem);
    out.add("I", 0, F_STAKE);
    out.add("compensation", 0, F_OPTION, "twop_escape_compensation");
    out.add("bombs_counted", bombs);
    return;
  }
  // docs/rules.md §9 "Escapes" (BENGBU4): the escapee pays 27 in all, 9 units of 3 (A44; the bid under bengbu_escape_scaled),
  // shared 9/9/9, or 15/6/6 when a farmer leaves a landlord's hand
  const int64_t unit = o.escape_scaled && landlord_known ? h.base : 3;
  const bool farmer_left = landlord_known && escapee != h.landlord;
  for (int p = 0; p < r.players(); ++p)
    out.coef[p] = p == escapee ? -9 * unit : farmer_left ? (p == h.landlord ? 5 * unit : 2 * unit) : 3 * unit;
  out.unit = unit;
  out.add("escapee", escapee);
  out.add("unit", unit);
  if (landlord_known)
    for (int p = 0; p < 4; ++p) out.limits[p] = h.limits[p];
}

void hand_factor_codes(const Rules& r, const HandOptions& o, const HandState& h, const PlayState* s, int8_t* out) {
  std::memset(out, 0, kFactorSlots);
  const int dbl = s ? doubling(r, o, h, *s) : 0;
  const bool spr = s && springs(r, *s);
  switch (r.variant) {
    case Variant::kClassic3: {  // rob, show, kitty, bomb, spring
      out[0] = int8_t(log2_floor(classic_rob(o, h)));
      out[1] = h.showed ? 1 : 0;
      out[2] = int8_t(log2_floor(h.kitty_f));
      out[3] = int8_t(dbl);
      out[4] = spr ? 1 : 0;
      return;
    }
    case Variant::kTwoP:  // show_start (flag), fanshen, bomb, spring
      out[0] = h.nshowers ? 1 : 0;
      out[1] = int8_t(log2_floor(twop_fanshen(h)));
      out[2] = int8_t(dbl);
      out[3] = spr ? 1 : 0;
      return;
    default:  // base (the bid that made the landlord, else the highest so far), open (flag)
      out[0] = int8_t(h.landlord != kNone ? h.base : h.high);
      out[1] = h.open ? 1 : 0;
      return;
  }
}

void hand_encode(const Rules& r, const HandOptions& o, const CompactLayout& L, const HandState& h, int seat,
                 int8_t* out) {
  hand_encode(r, o, L, h, h.in_play ? &h.t : nullptr, seat, out);
}

void hand_encode(const Rules& r, const HandOptions& o, const CompactLayout& L, const HandState& h, const Tracked* play,
                 int seat, int8_t* out) {
  const int n = r.players();
  CompactView v;
  v.seat = seat;
  v.shown = uint8_t(h.shown & ~(1u << seat));
  v.kitty = h.kitty_revealed ? h.kitty : 0;
  v.kitty_known = h.kitty_revealed;
  if (play) {
    encode_compact(r, L, *play, v, out);
  } else {
    static const Counts kNoHands[4] = {0, 0, 0, 0};
    encode_compact_deal(r, L, h.dealt ? h.hands : kNoHands, -1, -1, v, out);
  }
  auto rel = [&](int s) { return (s - seat + n) % n; };
  std::memset(out + L.offset[CB_TO_ACT], 0, size_t(L.width[CB_TO_ACT]));
  const int to_act = h.phase == HP_OVER ? -1 : h.phase == HP_PLAY && play ? int(play->s.seat) : int(h.seat);
  if (to_act >= 0) out[L.offset[CB_TO_ACT] + rel(to_act)] = 1;
  if (h.landlord != kNone) {
    std::memset(out + L.offset[CB_LANDLORD], 0, size_t(L.width[CB_LANDLORD]));
    out[L.offset[CB_LANDLORD] + rel(h.landlord)] = 1;
  }
  hand_factor_codes(r, o, h, play ? &play->s : nullptr, out + L.offset[CB_FACTORS]);
  const int width = r.spec().decision_count + n;
  const int first = h.ndec > kAuctionSteps ? h.ndec - kAuctionSteps : 0;
  for (int a = first, row = 0; a < h.ndec; ++a, ++row) {
    const int k = a % kAuctionSteps;
    out[L.offset[CB_AUCTION] + width * row + h.dec_tok[k]] = 1;
    out[L.offset[CB_AUCTION] + width * row + r.spec().decision_count + rel(h.dec_seat[k])] = 1;
  }
}

}  // namespace ddz

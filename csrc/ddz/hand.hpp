// The whole hand as a value: the deal, the variant's auction, the play and the score
// (docs/rules.md §6 CLASSIC3, §7 TWOP, §8 BENGBU4), for the vectorized environment. Each variant's
// auction is a phase graph given as a table (kPhaseTokens: the tokens each phase offers, in
// the order of ddz.hand.auction_*'s TRANSITIONS) and interpreted by one function per token
// (hand.cpp). ddz.Game keeps its hand in a HandState too (with the suited cards, the deals and the
// history beside it: csrc/bindings/game.cpp), so the phase graph is defined here once;
// tests/test_vector_env_auction.py plays every hand through both and compares each decision,
// observation row and score. No Python headers.
#pragma once
#include <cstdint>
#include <vector>

#include "deal.hpp"
#include "encode.hpp"
#include "physical.hpp"

namespace ddz {

/// The largest count or stake an option or a room may give (max_redeals, classic_rob_cap, base,
/// initial_multiplier, ...: docs/rules.md §11, "Numeric ranges"). Every path that takes one (Rules,
/// Game, records, VectorEnv) refuses a larger one, and the core's counters are wider than it.
constexpr uint64_t kMaxOptionValue = 1000000000000ULL;  // 10**12

/// The rule options of the auction and the score (the Python Rules.options they come from are
/// named in the bindings), read once per environment. The scores the core forms hold no room
/// stake (CLASSIC3's base and initial multiplier, TWOP's initial multiplier): a stake may be up to
/// 10**12 and a product of stakes would not fit in 64 bits, so the exact score is formed in Python
/// (ddz.hand.scoring), and VectorEnv scales its float rewards by `stake`.
struct HandOptions {
  uint64_t max_redeals = 0;          // 0: no limit; else the hand is void after that many re-deals
  // CLASSIC3 (§6)
  bool passers_may_rob = false;      // classic_passers_may_rob
  bool rob_winner_last = false;      // classic_rob_winner == "last"
  bool show_after_kitty = false;     // classic_show_timing == "after_kitty"
  bool kitty_max = false;            // classic_kitty_combine == "max"
  int64_t rob_cap = 8;               // classic_rob_cap
  int64_t loss_factor = 2;           // classic_landlord_loss_factor
  // TWOP (§7)
  bool fanshen_before_lead = false;  // twop_fanshen_point == "before_lead"
  bool show_stacks = false;          // twop_show_start_stacks
  bool rocket_doubles = true;        // twop_rocket_doubles
  bool zero_sum = false;             // twop_zero_sum
  bool escape_threshold_inclusive = true;  // twop_escape_threshold_inclusive
  bool compensation_normal_win = true;     // twop_escape_compensation == "normal_win"
  // BENGBU4 (§8)
  bool missiles_once = false;        // bengbu_missiles_once_per_player
  bool special_per_instance = false; // bengbu_special_per_instance
  bool escape_scaled = false;        // bengbu_escape_scaled
  // the score's unit, by which VectorEnv scales its rewards: TWOP's twop_initial_multiplier, else 1
  double stake = 1;
};

/// The phases of every variant (the names of ddz.Game.phase: kHandPhaseNames).
enum HandPhase : uint8_t {
  HP_CALL, HP_ROB, HP_FINAL_ROB, HP_SHOW,  // CLASSIC3
  HP_PRE_DEAL, HP_BID, HP_FANSHEN, HP_YAPO, // TWOP (HP_BID also BENGBU4's)
  HP_OPEN_CHOICE,                           // BENGBU4
  HP_PLAY, HP_OVER, kHandPhases
};
extern const char* const kHandPhaseNames[kHandPhases];

/// Decision tokens, numbered as ddz.variants.VARIANT[v].decisions (action id pass_id + 1 + k).
enum ClassicToken : uint8_t { C_CALL, C_NO_CALL, C_ROB, C_NO_ROB, C_SHOW, C_NO_SHOW, kClassicTokens };
enum TwopToken : uint8_t {
  T_SHOW_START, T_NORMAL_START, T_CALL, T_NO_CALL, T_FANSHEN, T_NO_FANSHEN, T_YAPO, T_NO_YAPO, kTwopTokens
};
enum BengbuToken : uint8_t { B_NO_CALL, B_BID1, B_BID2, B_BID3, B_GRAB, B_OPEN, B_CLOSED, kBengbuTokens };
// the token names are the variant's spec row (core.hpp's kVariantSpecs), in this order
static_assert(kClassicTokens == kVariantSpecs[vi(Variant::kClassic3)].decision_count, "CLASSIC3's tokens");
static_assert(kTwopTokens == kVariantSpecs[vi(Variant::kTwoP)].decision_count, "TWOP's tokens");
static_assert(kBengbuTokens == kVariantSpecs[vi(Variant::kBengbu4)].decision_count, "BENGBU4's tokens");

/// The phase graph as data: the tokens a phase offers, in table order (BENGBU4's bids are
/// then filtered by the highest bid so far). kNone ends a list.
constexpr uint8_t kNone = 255;
extern const uint8_t kPhaseTokens[kVariants][kHandPhases][6];

/// Where each (phase, token) may lead: bit p set for HandPhase p (ddz.hand.auction_*.TRANSITIONS
/// gives it to Python; hand_decide's callers check it). Indexed by token, 0 when the phase does
/// not offer the token.
extern const uint16_t kLeadsTo[kVariants][kHandPhases][8];

/// How a hand ended (HR_ESCAPE: a seat left it, ddz.Game.escape; the scores are then Python's).
enum HandResult : uint8_t { HR_NONE, HR_NORMAL, HR_SPECIAL, HR_VOID, HR_ESCAPE };
extern const char* const kHandResultNames[5];

/// A factor of a hand's outcome, by name. F_INT and F_BOOL hold their value; F_STAKE stands for the
/// room's stake and F_OPTION for the value of the option `option` (Python fills both in: TWOP's
/// initial multiplier, its escape compensation).
enum FactorType : uint8_t { F_INT, F_BOOL, F_STAKE, F_OPTION };
struct Factor {
  const char* name = "";
  int64_t value = 0;
  uint8_t type = F_INT;
  const char* option = nullptr;
};
constexpr int kMaxFactors = 8;

/// How a hand ended, or stands, as the core scores it: the one author of every score (docs/rules.md §6
/// CLASSIC3, §7 TWOP, §8 BENGBU4, §9 escapes, §8 "Special deals" 天炸/天尊). The scores hold no room stake: seat
/// s scores floor(coef[s] * stake / den[s]), and the unit is stake * unit, where the stake is
/// CLASSIC3's base x initial multiplier, TWOP's initial multiplier, 1 in BENGBU4 (a product of
/// stakes may pass 64 bits, and TWOP's may be fractional: ddz.hand.outcome forms them in Python).
struct HandOutcome {
  uint8_t kind = HR_NONE;          // HandResult
  int8_t winner_side = -1;         // 0 the landlord's, 1 the farmers', -1 none
  int8_t landlord = -1, winner_seat = -1;
  int64_t multiplier = 1;          // CLASSIC3 D, TWOP m_act (an escape: m_esc), BENGBU4 1
  int64_t unit = 0;                // GameResult.unit in stakes (CLASSIC3 D, TWOP m, BENGBU4 the bid)
  int64_t coef[4] = {0, 0, 0, 0};
  uint8_t den[4] = {1, 1, 1, 1};
  Factor factors[kMaxFactors];
  int nfactors = 0;
  bool spring = false, anti_spring = false;
  int robs = 0;                    // CLASSIC3
  int bombs = 0;                   // the bombs the score counts (BENGBU4: every bomb played)
  bool play_detail = false;        // BENGBU4: missiles and bomb limits are part of the result
  int missiles[4] = {0, 0, 0, 0};
  uint8_t limits[4] = {kUnlimited, kUnlimited, kUnlimited, kUnlimited};
  uint8_t tianzha[4] = {0, 0, 0, 0};  // BENGBU4 at the deal: ranks of 8 held, by seat
  bool tianzun[4] = {false, false, false, false};
  int landlord_factor = 0;         // TWOP: the landlord's share of X (2, 1 when zero-sum)
  bool terms = true;               // whether the result carries the rules' settlement terms (void: no)

  void add(const char* name, int64_t value, uint8_t type = F_INT, const char* option = nullptr) {
    factors[nfactors++] = Factor{name, value, type, option};
  }
};

/// One deal as ddz.Game records it: the suited cards and who decides first.
struct HandDeal {
  PhysicalHands cards;
  uint8_t first_bidder = 0;
  uint8_t first_to_decide = 0;  // TWOP's coin
};

/// Where a hand's deals come from besides the seed (ddz.Game: injected or recorded deals, the
/// first deal's overrides). Immutable once made; the copies of a hand share it.
struct HandSetup {
  std::vector<HandDeal> scripted;  // deal k < scripted.size() is scripted[k]
  int first_bidder = -1;           // >= 0: overrides deal 0's first bidder (a seeded deal 0 only)
  int first_to_decide = -1;        // the same for TWOP's first to decide
};

struct HandState {
  Tracked t;                       // the play, from the play phase on (ddz.Game: its start only, the
                                   // Game's PlayState plays on)
  const HandSetup* setup = nullptr;  // the deals' source besides the seed (owned by the hand's owner)
  HandDeal* capture = nullptr;     // set by ddz.Game around a call: the suited cards of a deal made then
  Counts hands[4] = {0, 0, 0, 0};  // as dealt; the landlord's with the kitty once taken
  Counts kitty = 0;
  uint64_t seed = 0;               // the ddz.Game seed this hand replays
  uint64_t redeals = 0;            // never wraps: at most kMaxOptionValue under max_redeals, and
                                   // 2**64 re-deals take no lifetime without it
  uint8_t phase = HP_OVER;
  uint8_t seat = 0;                // to act in the auction phases
  uint8_t landlord = kNone;
  uint8_t shown = 0;               // bit s: seat s's hand is face up
  bool dealt = true;               // false in TWOP's PRE_DEAL (the cards come after it)
  bool kitty_revealed = false;
  bool in_play = false;            // the play phase has started (t holds it)
  // this deal's decisions (the AUCTION block shows the last kAuctionSteps)
  uint16_t ndec = 0;
  uint8_t dec_seat[kAuctionSteps] = {}, dec_tok[kAuctionSteps] = {};
  // CLASSIC3
  uint8_t robs = 0, nrobbers = 0, first_robber = kNone, last_robber = kNone, caller = kNone, no_calls = 0;
  uint8_t rob_queue[2] = {0, 0}, rq_len = 0, rq_pos = 0, kitty_f = 1, first_bidder = 0;
  bool showed = false;
  // TWOP
  uint8_t nshowers = 0, showers[2] = {0, 0}, pre_order[2] = {0, 1}, pre_done = 0, bid_order[2] = {0, 1};
  int8_t fanshen = -1;             // -1 not decided yet
  bool yapo = false;
  // BENGBU4
  uint8_t nbids = 0, bid_seat[4] = {}, bid_tok[4] = {}, bid_high[4] = {}, high = 0, holder = kNone, base = 0;
  bool grab = false, open = false;
  uint8_t limits[4] = {kUnlimited, kUnlimited, kUnlimited, kUnlimited};
  // the result
  uint8_t result = HR_NONE;
  int64_t scores[4] = {0, 0, 0, 0};

  bool over() const { return phase == HP_OVER; }
  /// The seat to act (-1 once the hand is over).
  int to_act() const { return phase == HP_OVER ? -1 : phase == HP_PLAY ? int(t.s.seat) : int(seat); }
};

/// A new hand: deal 0 of `seed` (then one deal per re-deal), as ddz.Game(rules, seed) deals it.
/// A BENGBU4 deal with 天炸/天尊 ends the hand at once (HR_SPECIAL).
void hand_start(const Rules& r, const HandOptions& o, HandState& h, uint64_t seed,
                const HandSetup* setup = nullptr);

/// Deal k of the hand (k = the re-deals before it): the setup's scripted deal, else deal k of
/// the seed (with the setup's overrides for k = 0).
void hand_deal(const Rules& r, const HandState& h, uint64_t k, HandDeal& out);

/// The decision tokens offered now (table order), or 0 outside the auction phases.
int hand_decisions(const Rules& r, const HandState& h, uint8_t* out /* 6 */);

/// Applies an offered decision token of the seat to act.
void hand_decide(const Rules& r, const HandOptions& o, HandState& h, int token);
/// Applies a checked play or pass (as check_action read it) of the seat to act.
void hand_play(const Rules& r, const HandOptions& o, HandState& h, Counts cards, bool pass, const Interp& reading);
/// What follows a play or pass of `seat` just applied to the play state `s` (h.t.s, or ddz.Game's
/// own): the score when the hand is over, else TWOP's farmer_first_turn 翻身 decision.
void hand_played(const Rules& r, const HandOptions& o, HandState& h, const PlayState& s, int seat);

/// The outcome of a hand the core ended (a normal end, 天炸/天尊 at the deal, a void), or its factors
/// and multiplier so far while it runs (kind HR_NONE). `s` is the play (h.t.s, or ddz.Game's own;
/// nullptr before the play phase).
void hand_outcome(const Rules& r, const HandOptions& o, const HandState& h, const PlayState* s, HandOutcome& out);

/// The factors by name and the multiplier now (`out.factors`, `out.multiplier`; nothing else).
void hand_factors(const Rules& r, const HandOptions& o, const HandState& h, const PlayState* s, HandOutcome& out);

/// The outcome of `escapee` leaving the hand (docs/rules.md §9 "Escapes"; in TWOP and BENGBU4 the hand ends):
/// `held` is every seat's cards now (TWOP counts the bombs held), nullptr before the deal.
void hand_escape_outcome(const Rules& r, const HandOptions& o, const HandState& h, const PlayState* s,
                         const Counts* held, int escapee, HandOutcome& out);

/// CLASSIC3's kitty factor of the kitty's ranks (docs/rules.md §6 "The kitty", §10 A15): joker part x rank part, or
/// the larger under classic_kitty_combine="max".
int kitty_factor_of(Counts kitty, bool combine_max);

/// The doublings of a play with `bombs` bomb-class plays, `rockets` of them rockets: every bomb
/// in CLASSIC3, TWOP's rocket by twop_rocket_doubles, none in BENGBU4.
int play_doubling(const Rules& r, const HandOptions& o, int bombs, int rockets);

/// The FACTORS block's codes now (ddz.encode.FACTOR_SLOTS: log2 of a doubling factor, 1 for a
/// flag that applies, the BENGBU4 bid as it is).
/// `s` is the play (h.t.s in the vector env; ddz.Game's own play state), nullptr before it.
void hand_factor_codes(const Rules& r, const HandOptions& o, const HandState& h, const PlayState* s,
                       int8_t* out /* kFactorSlots */);

/// The compact row of `seat`'s view (docs/encodings.md) of the vector env's hand, whose play is h.t.
void hand_encode(const Rules& r, const HandOptions& o, const CompactLayout& L, const HandState& h, int seat,
                 int8_t* out);
/// The same with the play's record given (`play`: ddz.Game's own play, nullptr before the play
/// phase): one writer of every compact row, the vector env's and a Game's.
void hand_encode(const Rules& r, const HandOptions& o, const CompactLayout& L, const HandState& h, const Tracked* play,
                 int seat, int8_t* out);

/// The hand's seed in a vectorized environment: table game `game` of the series `seed` replays
/// ddz.Game(rules, hand_seed(seed, game)).
uint64_t hand_seed(uint64_t seed, uint64_t game);

}  // namespace ddz

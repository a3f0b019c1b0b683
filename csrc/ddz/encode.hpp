// Observation encoders for learning agents (docs/encodings.md, "Observation tensors"): the
// compact encoding of any seat's view in every variant, and DouZero's features for the
// CLASSIC3 play phase. They read a play state and the public record of its play (cards played
// per seat, the last actions), never a hand the seat may not see. No Python headers.
#pragma once
#include <cstdint>

#include "play.hpp"

namespace ddz {

/// Actions remembered per table: DouZero's history is the last 15 actions.
constexpr int kHistory = 15;

/// A play state with the public record the encoders read. `recent[a % kHistory]` holds action
/// number a (0-based; kPass for a pass); the seat of action a is (landlord + a) mod n, since
/// the turn always passes to the next seat (docs/rules.md §2 "Seats and turns", §3: a trick's
/// owner is the seat after the n-1 passes).
struct Tracked {
  PlayState s;
  Counts played[4] = {0, 0, 0, 0};
  Enc recent[kHistory] = {};
};

/// Applies a checked action (cards and reading as check_action gave them) and records it.
void track_apply(const Rules& r, Tracked& t, Counts cards, bool pass, const Interp& reading);

/// Replays encoded actions from t's current state, checking each. Returns Illegal::None, or the
/// reason the action at index `bad` does not replay (t then holds the state before it).
Illegal replay(const Rules& r, Tracked& t, const Enc* actions, size_t n, size_t& bad);

/// The latest action of `seat` (kPass, or 0 if it has not acted within the last kHistory).
Enc last_action_of(const Tracked& t, int seat);

// ---- the compact encoding --------------------------------------------------------------

/// Blocks of the compact encoding, in layout order. Per-seat blocks are ordered relative to the
/// observing seat (row k = seat (observer + k) mod n). Game-only blocks (FACTORS, AUCTION)
/// are written by the Python facade from Game.observation(); the core leaves them zero.
enum CompactBlock : int {
  CB_HAND, CB_UNSEEN, CB_CARDS_LEFT, CB_PLAYED, CB_LAST, CB_LAST_PASS, CB_TOP, CB_TOP_KIND, CB_TOP_OWNER,
  CB_SHOWN, CB_SHOWN_FLAG, CB_KITTY, CB_KITTY_KNOWN, CB_LANDLORD, CB_TO_ACT, CB_BOMBS, CB_BOMBS_LEFT,
  CB_FACTORS, CB_AUCTION, kCompactBlocks
};
/// Slots of the FACTORS block and auction steps of the AUCTION block.
constexpr int kFactorSlots = 5, kAuctionSteps = 8;

struct CompactLayout {
  int offset[kCompactBlocks];
  int width[kCompactBlocks];
  int total;
};
extern const char* const kCompactBlockNames[kCompactBlocks];
/// The layout for the rules' variant; `decisions` = its number of decision tokens (the AUCTION
/// block is kAuctionSteps rows of a token one-hot and a relative-seat one-hot).
CompactLayout compact_layout(const Rules& r, int decisions);

/// What the observer sees besides the play record: shown hands (bit i of `shown` = seat i's
/// hand is face up) and the kitty once revealed.
struct CompactView {
  int seat = 0;
  uint8_t shown = 0;
  Counts kitty = 0;
  bool kitty_known = false;
};

/// Writes the compact encoding of `v.seat`'s view of a table in play into out[0..L.total).
void encode_compact(const Rules& r, const CompactLayout& L, const Tracked& t, const CompactView& v, int8_t* out);
/// The same before the play phase (bidding): hands as dealt so far (only the observer's own is
/// read, with the counts of the others), no play record; `landlord` and `to_act` -1 if none.
void encode_compact_deal(const Rules& r, const CompactLayout& L, const Counts* hands, int landlord, int to_act,
                         const CompactView& v, int8_t* out);

// ---- DouZero's features (CLASSIC3 play phase) ------------------------------------------

/// DouZero positions: the landlord, the seat after it, the seat before it.
enum DzPosition : int { DZ_LANDLORD = 0, DZ_LANDLORD_DOWN = 1, DZ_LANDLORD_UP = 2 };
constexpr int kDzCards = 54;                    // one card matrix: 13 ranks x 4 + B + R
constexpr int kDzStateLandlord = 319;           // x_no_action widths
constexpr int kDzStateFarmer = 430;
constexpr int kDzHistory = kHistory * kDzCards;  // z: 5 x 162

int dz_position(const PlayState& s);
/// DouZero's 54-entry card matrix of a multiset (per rank 3..2 the counts >= 1..4, then B, R).
void dz_cards(Counts c, int8_t* out);
/// x_no_action of the seat to act (kDzStateLandlord or kDzStateFarmer entries).
void dz_state(const Tracked& t, int8_t* out);
/// z: the last kHistory actions, oldest first, front-padded with zeros (kDzHistory entries).
void dz_history(const Tracked& t, int8_t* out);
/// The same, given `prev`, the history of this hand `delta` actions earlier (rows move up).
void dz_history_after(const Tracked& t, const int8_t* prev, int delta, int8_t* out);

}  // namespace ddz

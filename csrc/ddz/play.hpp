// The play phase (docs/rules.md §3: trick play, the end of a hand, spring and anti-spring;
// §8: "Bomb limits", "Missiles") as a fixed-size value, plus batched self-play. No Python headers.
#pragma once
#include <cstdint>
#include <vector>

#include "core.hpp"

namespace ddz {

constexpr Enc kPass = Enc(kPassKind) << 56;
constexpr uint8_t kUnlimited = 255;

/// One table in the play phase. A plain value: copying it is a clone.
struct PlayState {
  Counts hand[4] = {0, 0, 0, 0};
  Enc top = 0;                 // the play to beat (encoded), 0 at the start of a trick
  Interp top_it;               // its reading
  uint8_t n = 3;               // players
  uint8_t landlord = 0;
  uint8_t seat = 0;            // to act
  uint8_t owner = 0;           // owner of top
  uint8_t passes = 0;          // consecutive passes since top
  int8_t out = -1;             // the seat that went out (hand over), -1 while playing
  uint8_t limit[4] = {kUnlimited, kUnlimited, kUnlimited, kUnlimited};  // bomb plays allowed
  uint8_t bombs[4] = {0, 0, 0, 0};     // bomb-class plays made
  uint8_t plays[4] = {0, 0, 0, 0};     // non-pass plays made
  uint8_t missiles[4] = {0, 0, 0, 0};  // BENGBU4 missile units (BOMB7, BOMB8, JOKER_BOMB whole)
  uint8_t kind_plays[kNumKinds] = {};  // plays per kind, all seats
  uint16_t actions = 0;                // plays and passes so far

  bool over() const { return out >= 0; }
  bool leading() const { return top == 0; }
  uint8_t next(uint8_t s) const { return uint8_t((s + 1) % n); }
  bool landlord_won() const { return out == landlord; }
  int bombs_total() const;
  bool spring(const Rules& r) const;       // CLASSIC3/TWOP: landlord out, farmers never played
  bool anti_spring(const Rules& r) const;  // CLASSIC3/TWOP: farmer out, landlord played once
};

/// Starts the play phase: the landlord leads.
PlayState start_play(int players, const Counts* hands, int landlord, const uint8_t* limits /* may be null */);

/// Legal actions of the seat to act, appended to out: plays (bombs beyond the seat's
/// limit excluded), then kPass when following.
void legal_actions(const Rules& r, const PlayState& s, MoveBuffer& out);

/// Why an action is illegal: the play state's reasons, then those of the whole hand and of
/// the action's form (ddz.IllegalCode in Python; stable values).
enum class Illegal : uint8_t {
  None, Over, LeadPass, NotHeld, NotCombination, DoesNotBeat, WrongReading, BombLimit,
  NotYourTurn, WrongPhase, NotOffered, Malformed, NothingToUndo
};

/// Checks an action for the seat to act. `kind` < 0 means "read the cards by docs/rules.md
/// §4.4"; otherwise the action names a reading, which must be the one §4.4 gives here.
/// On success fills `reading` (kind -1 for a pass).
Illegal check_action(const Rules& r, const PlayState& s, Counts cards, bool pass, int kind, Interp& reading);

/// Applies a checked action.
void apply_action(const Rules& r, PlayState& s, Counts cards, bool pass, const Interp& reading);

// ---- self-play ----
enum Policy : int { kRandom = 0, kGreedy = 1 };

struct SimResult {
  int8_t winner_side;  // 0 landlord, 1 farmers
  int8_t landlord;
  int16_t actions;     // plays and passes
  int16_t plays;       // non-pass plays
  int16_t bombs;       // bomb-class plays (ROCKET and JOKER_BOMB included)
  int16_t rockets;     // ROCKET (one deck) or JOKER_BOMB (two decks) plays
  int8_t spring;
  int8_t anti_spring;
  int16_t missiles_landlord;
  int16_t missiles_farmers;
};

/// Plays games [first, last) of a seeded series: deal, random landlord, play to the end.
/// Game g depends only on (seed, g), so results do not depend on how games are split.
void simulate_range(const Rules& r, int policy, uint64_t seed, uint64_t first, uint64_t last, SimResult* out);

}  // namespace ddz

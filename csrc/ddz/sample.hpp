// Hidden-hand sampling: deals of the unseen cards to the seats a player cannot see,
// uniform over the physical cards (each assignment of the unseen cards to the hidden
// holders equally likely), reported as rank-count words. No Python headers.
#pragma once
#include <cstdint>

#include "core.hpp"

namespace ddz {

/// What one seat knows, reduced to rank counts (the Python facade builds it from an
/// observation).
struct SampleSpec {
  int seats = 3;
  Counts pool = 0;            // the unseen cards: the hidden seats' draws plus the rest (kitty, set-aside)
  bool hidden[4] = {};        // seats whose hand is not known
  Counts known[4] = {};       // a known seat's current hand; for a hidden seat the cards known to be in it
  int draw[4] = {};           // cards a hidden seat holds beyond its known ones
  Counts dealt_extra[4] = {}; // added to a hidden seat's drawn cards, gives the hand it was dealt
  // BENGBU4 (docs/rules.md §8 "Special deals"): no hidden seat was dealt 8 of a rank or BBRR
  bool no_special_deal = false;
};

enum class SampleStatus : uint8_t { Ok, BadSpec, Rejected };

/// Writes n rows of spec.seats words into out (row-major). Seeded: the rows depend only
/// on (spec, n, seed). With no_special_deal, deals with a 天炸 or 天尊 dealt hand are
/// rejected and redrawn; Rejected when fewer than one in max_tries_per_row * n draws pass.
SampleStatus sample_deals(const SampleSpec& spec, uint64_t n, uint64_t seed, Counts* out,
                          uint64_t max_tries_per_row = 1000);

/// True when a dealt hand holds 8 of one rank (天炸) or all four jokers (天尊), docs/rules.md §8
/// "Special deals".
bool special_at_deal(Counts dealt);

}  // namespace ddz

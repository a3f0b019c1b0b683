// The suited cards of one hand of play (docs/rules.md §1): which physical card ids each
// seat, the kitty and the set-aside part hold. Suits never decide a rule, so this lives
// beside the rank-only PlayState (the small value that simulation and search copy) and
// is used only where real cards are dealt and shown (ddz.Game). No Python headers.
#pragma once
#include <cstdint>

#include "core.hpp"
#include "deal.hpp"

namespace ddz {

using IdSet = unsigned __int128;  // bit i: card id i (0..107)

inline IdSet id_bit(int id) { return IdSet(1) << id; }
inline int id_count(IdSet s) { return bit_count(uint64_t(s)) + bit_count(uint64_t(s >> 64)); }
inline int lowest_id(IdSet s) {
  uint64_t lo = uint64_t(s);
  return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(uint64_t(s >> 64));
}

/// The ids of every card of `rank` in `decks` decks.
IdSet rank_ids(int rank, int decks);
/// The rank counts of a set of card ids.
Counts counts_of_ids(IdSet s);

struct PhysicalHands {
  IdSet held[4] = {0, 0, 0, 0};
  IdSet kitty = 0;
  IdSet aside = 0;
  int n = 3;
  int decks = 1;

  /// The cards of `ranks` that a play named by ranks uses: of each rank, the seat's
  /// lowest ids (the first deck's copy before the second's). False when not held.
  bool pick(int seat, Counts ranks, IdSet& out) const;
  /// Moves the kitty into the seat's hand.
  void take_kitty(int seat) {
    held[seat] |= kitty;
  }
};

/// The deal of `d` laid out by the variant's layout: hands, kitty, set-aside part.
PhysicalHands physical_hands(const Rules& r, const PhysicalDeal& d);

}  // namespace ddz

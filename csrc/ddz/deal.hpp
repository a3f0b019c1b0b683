// The one seeded dealer (docs/rules.md §1): the shuffle of the physical deck that
// ddz.Game, ddz.deal and ddz.simulate all use, so the same seed and game index give the
// same cards everywhere. No Python headers.
#pragma once
#include <cstdint>

#include "core.hpp"

namespace ddz {

/// splitmix64: small, fast, and the same on every platform.
struct Rng {
  uint64_t x;
  uint64_t next() {
    uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint32_t below(uint32_t n) { return uint32_t((unsigned __int128)next() * n >> 64); }
};

/// The random stream of game `game` of the series `seed`.
Rng game_rng(uint64_t seed, uint64_t game);

/// The rank (0 = '3' … 12 = '2', 13 = B, 14 = R) of a physical card id: one deck uses ids
/// 0..53 (4·rank + suit, 52 = B, 53 = R); the second deck's copy of id i is i + 54.
inline int card_rank(int id) {
  int x = id % 54;
  return x < 52 ? x / 4 : 13 + (x - 52);
}

/// A shuffled physical deck and the two draws that follow the shuffle.
struct PhysicalDeal {
  uint8_t order[108];  // the deck after the shuffle: hands in seat order, the kitty, the set-aside cards
  int size;            // 54 or 108
  int first_seat;      // simulate: the landlord; Game: the first bidder
  int coin;            // 0 or 1: TWOP's first to decide; unused elsewhere
};

/// Shuffles game `game` of the series `seed`. The deck starts in rank order (one deck: ids
/// 0..53; two decks: each rank's eight copies together, then B, R, B', R'), so the rank
/// sequence, and with it every simulate() result, is what it was before the deck had suits.
void deal_physical(const Rules& r, uint64_t seed, uint64_t game, PhysicalDeal& out);

/// The rank hands of that deal: hands[0..n-1], the kitty added to first_seat's (TWOP's
/// set-aside cards dropped); `landlord` = first_seat.
void deal_game(const Rules& r, uint64_t seed, uint64_t game, Counts* hands, int& landlord);

}  // namespace ddz

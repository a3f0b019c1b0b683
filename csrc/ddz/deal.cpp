// The seeded dealer (see deal.hpp).
#include "deal.hpp"

namespace ddz {

Rng game_rng(uint64_t seed, uint64_t game) {
  Rng g{seed ^ 0x5DEECE66DULL};
  g.x = g.next() ^ (game * 0xD1B54A32D192ED03ULL);
  g.next();
  return g;
}

void deal_physical(const Rules& r, uint64_t seed, uint64_t game, PhysicalDeal& out) {
  Rng g = game_rng(seed, game);
  int size = 0;
  const int copies = r.two_decks ? 2 : 1;
  for (int rank = 0; rank < 13; ++rank)
    for (int d = 0; d < copies; ++d)
      for (int suit = 0; suit < 4; ++suit) out.order[size++] = uint8_t(54 * d + 4 * rank + suit);
  for (int d = 0; d < copies; ++d) {
    out.order[size++] = uint8_t(54 * d + 52);
    out.order[size++] = uint8_t(54 * d + 53);
  }
  for (int i = size - 1; i > 0; --i) {  // Fisher–Yates
    int j = int(g.below(uint32_t(i + 1)));
    uint8_t t = out.order[i];
    out.order[i] = out.order[j];
    out.order[j] = t;
  }
  out.size = size;
  out.first_seat = int(g.below(uint32_t(r.players())));
  out.coin = int(g.below(2));
}

void deal_game(const Rules& r, uint64_t seed, uint64_t game, Counts* hands, int& landlord) {
  PhysicalDeal d;
  deal_physical(r, seed, game, d);
  const VariantSpec& l = r.spec();
  landlord = d.first_seat;
  int k = 0;
  for (int p = 0; p < l.players; ++p) {
    hands[p] = 0;
    for (int i = 0; i < l.hand; ++i) hands[p] += unit(card_rank(d.order[k++]));
  }
  for (int i = 0; i < l.kitty; ++i) hands[landlord] += unit(card_rank(d.order[k++]));
}

}  // namespace ddz

// Physical cards (see physical.hpp).
#include "physical.hpp"

namespace ddz {

IdSet rank_ids(int rank, int decks) {
  IdSet s = 0;
  for (int d = 0; d < decks; ++d) {
    if (rank < 13)
      for (int suit = 0; suit < 4; ++suit) s |= id_bit(54 * d + 4 * rank + suit);
    else
      s |= id_bit(54 * d + 52 + (rank - 13));
  }
  return s;
}

Counts counts_of_ids(IdSet s) {
  Counts c = 0;
  while (s) {
    int id = lowest_id(s);
    s &= s - 1;
    c += unit(card_rank(id));
  }
  return c;
}

bool PhysicalHands::pick(int seat, Counts ranks, IdSet& out) const {
  out = 0;
  for (int r = 0; r < kRanks; ++r) {
    int k = count_of(ranks, r);
    if (!k) continue;
    IdSet avail = held[seat] & rank_ids(r, decks);
    if (id_count(avail) < k) return false;
    for (; k; --k) {
      IdSet low = avail & (~avail + 1);
      out |= low;
      avail ^= low;
    }
  }
  return true;
}

PhysicalHands physical_hands(const Rules& r, const PhysicalDeal& d) {
  const VariantSpec& l = r.spec();
  PhysicalHands h;
  h.n = l.players;
  h.decks = l.decks;
  int k = 0;
  for (int p = 0; p < l.players; ++p)
    for (int i = 0; i < l.hand; ++i) h.held[p] |= id_bit(d.order[k++]);
  for (int i = 0; i < l.kitty; ++i) h.kitty |= id_bit(d.order[k++]);
  while (k < d.size) h.aside |= id_bit(d.order[k++]);
  return h;
}

}  // namespace ddz

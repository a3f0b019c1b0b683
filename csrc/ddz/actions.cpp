// The action-space index (actions.hpp).
#include "actions.hpp"

#include <algorithm>

namespace ddz {

bool ActionIndex::build(const Rules& r, const Enc* order, size_t n) {
  MoveBuffer buf;
  generate_universe(r, buf);
  std::vector<Enc> plays(buf.data, buf.data + buf.size);
  if (order) {
    std::vector<Enc> a = plays, b(order, order + n);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b) return false;
    plays.assign(order, order + n);
  }
  int bits = 1;
  while ((size_t(1) << bits) < 2 * plays.size()) ++bits;
  keys_.assign(size_t(1) << bits, 0);
  vals_.assign(size_t(1) << bits, -1);
  mask_ = (uint64_t(1) << bits) - 1;
  shift_ = 64 - bits;
  for (size_t i = 0; i < plays.size(); ++i) {
    uint64_t h = slot(plays[i]);
    while (keys_[h]) h = (h + 1) & mask_;
    keys_[h] = plays[i];
    vals_[h] = int32_t(i);
  }
  plays_ = std::move(plays);
  return true;
}

}  // namespace ddz

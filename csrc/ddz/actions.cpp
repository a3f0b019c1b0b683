// The action-space index (actions.hpp).
#include "actions.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <utility>

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

namespace {

// Every field of Rules, so that two option sets share an index only if they are equal.
using RulesKey = std::array<int, 13>;
RulesKey key_of(const Rules& r) {
  return {vi(r.variant), r.two_decks, r.straight, r.trio_solo, r.four_two, r.trio_chain, r.joker_pairs,
          r.share, r.pairs_distinct, r.rocket_kickers, r.trio_beside, r.cap, r.max_cards};
}

struct Cached {
  RulesKey rules;
  std::vector<Enc> order;
  std::shared_ptr<const ActionIndex> index;
};

constexpr size_t kKept = 16;  // option sets kept (about 0.5-1 MB each); a program uses a few

}  // namespace

std::shared_ptr<const ActionIndex> shared_action_index(const Rules& r, const Enc* order, size_t n) {
  static std::mutex mu;
  static std::vector<Cached> kept;  // the most recently used first
  const RulesKey k = key_of(r);
  std::vector<Enc> ord(order, order + (order ? n : 0));
  {
    std::lock_guard<std::mutex> lock(mu);
    for (size_t i = 0; i < kept.size(); ++i) {
      if (kept[i].rules == k && kept[i].order == ord) {
        std::rotate(kept.begin(), kept.begin() + std::ptrdiff_t(i), kept.begin() + std::ptrdiff_t(i) + 1);
        return kept.front().index;
      }
    }
  }
  auto ix = std::make_shared<ActionIndex>();  // built outside the lock: other option sets need not wait
  if (!ix->build(r, ord.empty() ? nullptr : ord.data(), ord.size())) return nullptr;
  std::lock_guard<std::mutex> lock(mu);
  for (const Cached& c : kept)  // another thread built the same one meanwhile: share that
    if (c.rules == k && c.order == ord) return c.index;
  kept.insert(kept.begin(), Cached{k, std::move(ord), std::move(ix)});
  if (kept.size() > kKept) kept.pop_back();
  return kept.front().index;
}

}  // namespace ddz

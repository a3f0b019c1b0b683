// The action space of one rules value as data: id -> encoded play, and the encoded
// play -> id index (open addressing on a multiplicative hash, load at most 1/2, so an id
// costs one or two probes). The bindings and the vector environment of a later issue
// share it; no Python headers here.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core.hpp"

namespace ddz {

class ActionIndex {
 public:
  /// The rules' action space (generate_universe) numbered in rule order, or in `order`
  /// when given (a peer's ids): false, and nothing changed, if `order` is not a
  /// permutation of that space.
  bool build(const Rules& r, const Enc* order = nullptr, size_t n = 0);
  size_t size() const { return plays_.size(); }
  const std::vector<Enc>& plays() const { return plays_; }
  /// The id of an encoded play; size() for PASS; -1 if it is not in the space.
  int id_of(Enc e) const {
    if (enc_kind(e) == PASS) return int(plays_.size());
    if (keys_.empty()) return -1;
    for (uint64_t h = slot(e);; h = (h + 1) & mask_) {
      const Enc k = keys_[h];
      if (k == e) return vals_[h];
      if (k == 0) return -1;  // no play encodes to 0 (it has cards)
    }
  }

 private:
  uint64_t slot(Enc e) const { return (e * 0x9E3779B97F4A7C15ULL) >> shift_; }
  std::vector<Enc> plays_, keys_;
  std::vector<int32_t> vals_;
  uint64_t mask_ = 0;
  int shift_ = 64;
};

/// The index of `r`'s action space (in `order` when given), shared by every caller that
/// asks for the same option set and order: building one takes 5-50 ms (the whole space is
/// generated and hashed), which a program making a Rules per game paid every time. The most
/// recently used few are kept. Null if `order` is not a permutation of the space.
std::shared_ptr<const ActionIndex> shared_action_index(const Rules& r, const Enc* order = nullptr, size_t n = 0);

}  // namespace ddz

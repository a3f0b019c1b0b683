// Hidden-hand sampling by a partial Fisher–Yates shuffle of the unseen cards.
#include "sample.hpp"

namespace ddz {

namespace {

/// xoshiro256** seeded through splitmix64: fast and good enough for sampling deals.
struct Xoshiro {
  uint64_t s[4];
  explicit Xoshiro(uint64_t seed) {
    for (auto& w : s) {
      uint64_t z = (seed += 0x9E3779B97F4A7C15ULL);
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
      w = z ^ (z >> 31);
    }
  }
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t next() {
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
  }
  /// Uniform in [0, n) (Lemire's multiply-and-reject).
  uint32_t below(uint32_t n) {
    uint64_t m = uint64_t(uint32_t(next() >> 32)) * n;
    uint32_t low = uint32_t(m);
    if (low < n) {
      uint32_t floor = uint32_t(-n) % n;
      while (low < floor) {
        m = uint64_t(uint32_t(next() >> 32)) * n;
        low = uint32_t(m);
      }
    }
    return uint32_t(m >> 32);
  }
};

}  // namespace

bool special_at_deal(Counts dealt) {
  if (at_least_nibbles(dealt, 8) & (kHighs & ((uint64_t(1) << 52) - 1))) return true;
  return count_of(dealt, kB) >= 2 && count_of(dealt, kR) >= 2;
}

SampleStatus sample_deals(const SampleSpec& spec, uint64_t n, uint64_t seed, Counts* out, uint64_t max_tries_per_row) {
  if (spec.seats < 2 || spec.seats > 4) return SampleStatus::BadSpec;
  uint8_t cards[108];
  uint32_t size = 0;
  for (int r = 0; r < kRanks; ++r)
    for (int k = 0; k < count_of(spec.pool, r); ++k) {
      if (size == 108) return SampleStatus::BadSpec;
      cards[size++] = uint8_t(r);
    }
  uint32_t draws = 0;
  int order[4], holders = 0;
  for (int p = 0; p < spec.seats; ++p)
    if (spec.hidden[p]) {
      if (spec.draw[p] < 0) return SampleStatus::BadSpec;
      draws += uint32_t(spec.draw[p]);
      order[holders++] = p;
    }
  if (draws > size) return SampleStatus::BadSpec;
  Xoshiro rng(seed ^ 0xD1B54A32D192ED03ULL);
  const uint64_t budget = max_tries_per_row * (n ? n : 1);
  uint64_t tries = 0;
  for (uint64_t row = 0; row < n;) {
    if (++tries > budget) return SampleStatus::Rejected;
    Counts* o = out + row * uint64_t(spec.seats);
    uint32_t i = 0;
    bool special = false;
    for (int h = 0; h < holders; ++h) {
      const int p = order[h];
      Counts w = 0;
      for (uint32_t end = i + uint32_t(spec.draw[p]); i < end; ++i) {
        uint32_t j = i + rng.below(size - i);
        uint8_t t = cards[i];
        cards[i] = cards[j];
        cards[j] = t;
        w += unit(cards[i]);
      }
      o[p] = spec.known[p] + w;
      if (spec.no_special_deal && special_at_deal(w + spec.dealt_extra[p])) special = true;
    }
    if (special) continue;
    for (int p = 0; p < spec.seats; ++p)
      if (!spec.hidden[p]) o[p] = spec.known[p];
    ++row;
  }
  return SampleStatus::Ok;
}

}  // namespace ddz

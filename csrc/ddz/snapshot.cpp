// Snapshot bytes (snapshot.hpp; the layout is docs/records.md, "Snapshots"). Version 1:
//
//   "DDZS" version:u8 variant:u8 rules:bytes seed:u64 base:uvar imult:uvar
//   first_bidder:u8 first_to_decide:u8            (0xFF: no override)
//   deals:uvar  { ids:u8[54 * decks] first_bidder:u8 first_to_decide:u8 }
//   actions:uvar { head:u8 ... }                  head = kind << 4 | seat
//       SK_DECIDE: token:u8   SK_PLAY: play_kind:u8 count:u8 ids:u8[count]
//
// bytes = uvar length, then the bytes; uvar = LEB128 (at most 10 bytes, no bits past 64);
// u64 = 8 bytes little-endian. Every count is checked against the bytes left before anything is
// allocated for it, so a hostile length costs nothing.
#include "snapshot.hpp"

#include <cstring>

#include "hand.hpp"

namespace ddz {

std::vector<int> deal_part_sizes(Variant variant) {
  const VariantSpec& L = spec_of(variant);
  std::vector<int> parts(size_t(L.players), L.hand);
  parts.push_back(L.kitty);
  parts.push_back(L.aside);
  return parts;
}

namespace {

void put_uvar(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(char(uint8_t(v) | 0x80));
    v >>= 7;
  }
  out.push_back(char(uint8_t(v)));
}

void put_u64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char(uint8_t(v >> (8 * i))));
}

struct Reader {
  const uint8_t* p;
  size_t n, at = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw SnapshotError("not a ddz snapshot: " + what + " (at byte " + std::to_string(at) + " of " +
                        std::to_string(n) + ")");
  }
  size_t left() const { return n - at; }
  uint8_t u8(const char* what) {
    if (at >= n) fail(std::string("it ends before ") + what);
    return p[at++];
  }
  uint64_t u64(const char* what) {
    if (left() < 8) fail(std::string("it ends inside ") + what);
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(p[at + size_t(i)]) << (8 * i);
    at += 8;
    return v;
  }
  uint64_t uvar(const char* what) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = u8(what);
      if (shift == 63 && b > 1) fail(std::string(what) + " is larger than 64 bits");
      v |= uint64_t(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
      if (shift == 63) fail(std::string(what) + " is larger than 64 bits");
    }
  }
  /// A count of items of at least `min_bytes` bytes each: never more than the bytes left hold.
  size_t count(const char* what, size_t min_bytes) {
    const uint64_t c = uvar(what);
    if (c > left() / (min_bytes ? min_bytes : 1)) fail(std::string(what) + " (" + std::to_string(c) +
                                                       ") is more than the bytes left hold");
    return size_t(c);
  }
};

}  // namespace

void write_snapshot(const Snapshot& s, std::string& out) {
  out.append(kSnapshotMagic, 4);
  out.push_back(char(kSnapshotVersion));
  out.push_back(char(vi(s.variant)));
  put_uvar(out, s.rules.size());
  out.append(s.rules);
  put_u64(out, s.seed);
  put_uvar(out, s.base);
  put_uvar(out, s.imult);
  out.push_back(char(s.first_bidder));
  out.push_back(char(s.first_to_decide));
  put_uvar(out, s.deals.size());
  for (const SnapDeal& d : s.deals) {
    out.append(reinterpret_cast<const char*>(d.order.data()), d.order.size());
    out.push_back(char(d.first_bidder));
    out.push_back(char(d.first_to_decide));
  }
  put_uvar(out, s.actions.size());
  for (const SnapAction& a : s.actions) {
    out.push_back(char(uint8_t(a.kind << 4 | a.seat)));
    if (a.kind == SK_DECIDE) {
      out.push_back(char(a.token));
    } else if (a.kind == SK_PLAY) {
      out.push_back(char(a.play_kind));
      out.push_back(char(id_count(a.ids)));
      for (IdSet x = a.ids; x; x &= x - 1) out.push_back(char(lowest_id(x)));
    }
  }
}

void read_snapshot(const uint8_t* p, size_t n, Snapshot& s) {
  Reader r{p, n};
  if (n < 4 || std::memcmp(p, kSnapshotMagic, 4) != 0) r.fail("it does not start with \"DDZS\"");
  r.at = 4;
  const uint8_t version = r.u8("the version");
  if (version < 1 || version > kSnapshotVersion)
    r.fail("version " + std::to_string(version) + " (this ddz reads versions 1.." + std::to_string(kSnapshotVersion) +
           ")");
  const uint8_t variant = r.u8("the variant");
  if (variant >= kVariants) r.fail("variant " + std::to_string(variant) + " (0, 1 or 2)");
  s.variant = Variant(variant);
  const VariantSpec& L = spec_of(s.variant);
  const size_t key = r.count("the rules' length", 1);
  s.rules.assign(reinterpret_cast<const char*>(p + r.at), key);
  r.at += key;
  s.seed = r.u64("the seed");
  s.base = r.uvar("the base stake");
  s.imult = r.uvar("the initial multiplier");
  if (s.base < 1 || s.base > kMaxOptionValue || s.imult < 1 || s.imult > kMaxOptionValue)
    r.fail("a stake out of 1..10**12");
  s.first_bidder = r.u8("the first bidder");
  s.first_to_decide = r.u8("the first to decide");
  if (s.first_bidder != 0xFF && s.first_bidder >= L.players) r.fail("first bidder " + std::to_string(s.first_bidder));
  if (s.first_to_decide != 0xFF && (!L.coin_toss || s.first_to_decide > 1))
    r.fail("first to decide " + std::to_string(s.first_to_decide) + " (TWOP's 0 or 1 only)");
  const size_t deck = size_t(54 * L.decks);
  const size_t ndeals = r.count("the number of deals", deck + 2);
  s.deals.resize(ndeals);
  for (size_t k = 0; k < ndeals; ++k) {
    SnapDeal& d = s.deals[k];
    d.order.assign(p + r.at, p + r.at + deck);
    r.at += deck;
    IdSet seen = 0;
    for (uint8_t id : d.order) {
      if (id >= deck || (seen & id_bit(id))) r.fail("deal " + std::to_string(k) + " is not every card of the deck once");
      seen |= id_bit(id);
    }
    d.first_bidder = r.u8("a deal's first bidder");
    d.first_to_decide = r.u8("a deal's first to decide");
    if (d.first_bidder >= L.players) r.fail("deal " + std::to_string(k) + ": first bidder " + std::to_string(d.first_bidder));
    if (L.coin_toss ? d.first_to_decide > 1 : d.first_to_decide != 0xFF)
      r.fail("deal " + std::to_string(k) + ": first to decide " + std::to_string(d.first_to_decide));
  }
  const size_t nactions = r.count("the number of actions", 1);
  s.actions.resize(nactions);
  for (size_t i = 0; i < nactions; ++i) {
    SnapAction& a = s.actions[i];
    const uint8_t head = r.u8("an action");
    a.kind = head >> 4;
    a.seat = head & 15;
    const std::string what = "action " + std::to_string(i);
    if (a.kind >= kSnapKinds) r.fail(what + ": kind " + std::to_string(a.kind));
    if (a.seat >= L.players) r.fail(what + ": seat " + std::to_string(a.seat));
    if (a.kind == SK_DECIDE) {
      a.token = r.u8("a decision");
      if (a.token >= L.decision_count) r.fail(what + ": decision " + std::to_string(a.token));
    } else if (a.kind == SK_PLAY) {
      a.play_kind = r.u8("a play's kind");
      if (a.play_kind >= kNumKinds) r.fail(what + ": kind of play " + std::to_string(a.play_kind));
      const uint8_t cards = r.u8("a play's card count");
      if (cards < 1 || cards > L.max_hand) r.fail(what + ": a play of " + std::to_string(cards) + " cards");
      for (int c = 0; c < cards; ++c) {
        const uint8_t id = r.u8("a play's card");
        if (id >= deck || (a.ids & id_bit(id))) r.fail(what + ": card id " + std::to_string(id));
        a.ids |= id_bit(id);
      }
    }
  }
  if (r.left()) r.fail(std::to_string(r.left()) + " bytes after the last action");
}

}  // namespace ddz

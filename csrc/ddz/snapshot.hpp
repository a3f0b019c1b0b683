// A hand's snapshot: its start and its actions as compact bytes (docs/records.md, "Snapshots").
// The core writes and reads the bytes here; ddz.Game's binding (csrc/bindings/game.cpp) replays
// the actions to rebuild the hand, which is what validates a snapshot: bytes that parse but whose
// actions are not legal from their start are refused there. Fixed little-endian byte order, a
// version byte; every later version reads the earlier ones. No Python headers.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "physical.hpp"

namespace ddz {

constexpr char kSnapshotMagic[4] = {'D', 'D', 'Z', 'S'};
constexpr uint8_t kSnapshotVersion = 1;

/// What a history entry of a snapshot is (the dealer's re-deals are not stored: the decisions
/// that cause them do, and the replay deals again).
enum SnapKind : uint8_t { SK_DECIDE, SK_PLAY, SK_PASS, SK_TIMEOUT, SK_ESCAPE, kSnapKinds };

struct SnapAction {
  uint8_t kind = SK_PASS;
  uint8_t seat = 0;
  uint8_t token = 0;      // SK_DECIDE: the decision's index in the variant's tokens
  uint8_t play_kind = 0;  // SK_PLAY: the reading's Kind (a play may read several ways)
  IdSet ids = 0;          // SK_PLAY: the card ids
};

/// A deal given to the hand (injected hands, or a record's deals): every card id of the deck(s),
/// in the order of its parts as given (the seats' hands, the kitty, the set-aside part), each
/// part as long as the variant's layout says.
struct SnapDeal {
  std::vector<uint8_t> order;
  uint8_t first_bidder = 0;
  uint8_t first_to_decide = 0xFF;  // TWOP's coin; 0xFF: none (other variants)
};

struct Snapshot {
  Variant variant = Variant::kClassic3;
  std::string rules;  // the rules' key: opaque to the core (Python's Rules name and options)
  uint64_t seed = 0;
  uint64_t base = 1, imult = 1;  // CLASSIC3's room stakes, 1..kMaxOptionValue
  uint8_t first_bidder = 0xFF, first_to_decide = 0xFF;  // overrides of the seeded first deal; 0xFF: none
  std::vector<SnapDeal> deals;
  std::vector<SnapAction> actions;
};

/// A snapshot that cannot be read: its message names what is wrong and where.
struct SnapshotError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The bytes of `s` appended to `out`.
void write_snapshot(const Snapshot& s, std::string& out);

/// Parses `n` bytes into `s`, checking their structure: the magic, the version, every length
/// against the bytes left, every value against its range (a variant, card ids a deck holds, each
/// given deal a permutation of the deck, seats, tokens, kinds), nothing left over. Raises
/// SnapshotError; reads nothing out of bounds. Whether the actions are legal is the replay's to say.
void read_snapshot(const uint8_t* p, size_t n, Snapshot& s);

/// The cards of each part of a variant's deal, in order: the seats' hands, the kitty, the
/// set-aside part (players() + 2 entries).
std::vector<int> deal_part_sizes(Variant variant);

}  // namespace ddz

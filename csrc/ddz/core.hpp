// ddz core: rank-count bitboards, rules as data, move encoding (docs/rules.md §1 "Cards and
// notation", §4 "Combinations", §5 "How plays compare").
// No Python headers here; the bindings live in csrc/bindings/.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ddz {

/// Rank counts of a multiset of cards: 15 nibbles, nibble r = copies of rank v=r
/// (3=0 … A=11, 2=12, B=13, R=14). One and two decks alike (a count is at most 8).
using Counts = uint64_t;

constexpr int kRanks = 15;
constexpr int kB = 13, kR = 14;
constexpr uint64_t kOnes = 0x111111111111111ULL;   // the 1-bit of every nibble
constexpr uint64_t kHighs = kOnes << 3;             // the 8-bit of every nibble

/// Rank masks (bit r = rank r, as ranks_at_least gives them): the ranks a chain may hold
/// (3..A, docs/rules.md §4.1), the plain ranks (3..2: no jokers), every rank (3..R).
constexpr uint32_t kChainRanks = 0x0FFF;
constexpr uint32_t kPlainRanks = 0x1FFF;
constexpr uint32_t kAllRanks = 0x7FFF;

/// Bits set. The portable x86-64 build has no POPCNT instruction, where GCC makes
/// __builtin_popcount a call into libgcc (about 6 % of a clone + apply); the bit-parallel count
/// inline is cheaper than that call. With POPCNT (or on other CPUs) the builtin is one instruction.
static inline int bit_count(uint64_t x) {
#if defined(__POPCNT__) || !(defined(__x86_64__) || defined(__i386__))
  return __builtin_popcountll(x);
#else
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
  return int((x * 0x0101010101010101ULL) >> 56);
#endif
}

static inline int count_of(Counts c, int r) { return int((c >> (4 * r)) & 15); }
static inline Counts unit(int r) { return Counts(1) << (4 * r); }
/// Nibble 8-bits set where count >= k (1 <= k <= 8): no carry crosses a nibble.
static inline uint64_t at_least_nibbles(Counts c, int k) { return (c + uint64_t(8 - k) * kOnes) & kHighs; }
/// Gathers the 8-bit of each nibble into bit r of a 15-bit rank mask (a fixed pext).
static inline uint32_t gather_nibbles(uint64_t hi) {
  uint64_t t = (hi >> 3) & kOnes;
  t = (t | (t >> 3)) & 0x0303030303030303ULL;
  t = (t | (t >> 6)) & 0x000F000F000F000FULL;
  t = (t | (t >> 12)) & 0x000000FF000000FFULL;
  t = (t | (t >> 24)) & 0xFFFFULL;
  return uint32_t(t);
}
static inline uint32_t ranks_at_least(Counts c, int k) { return gather_nibbles(at_least_nibbles(c, k)); }
/// Spreads a 15-bit rank mask into one card per set rank (the inverse of gather_nibbles).
static inline Counts spread_mask(uint32_t m) {
  uint64_t t = m & kAllRanks;
  t = (t | (t << 24)) & 0x000000FF000000FFULL;
  t = (t | (t << 12)) & 0x000F000F000F000FULL;
  t = (t | (t << 6)) & 0x0303030303030303ULL;
  t = (t | (t << 3)) & kOnes;
  return t;
}
static inline int total_cards(Counts c) {
  // sum of nibbles: fold pairs, then multiply-accumulate bytes
  uint64_t t = (c & 0x0F0F0F0F0F0F0F0FULL) + ((c >> 4) & 0x0F0F0F0F0F0F0F0FULL);
  return int((t * 0x0101010101010101ULL) >> 56);
}

/// Combination kinds, named as the `Kind` column of docs/rules.md §4 "Combinations".
enum Kind : uint8_t {
  SOLO = 0, PAIR, TRIO, TRIO_SOLO, TRIO_PAIR, STRAIGHT, PAIR_STRAIGHT, TRIO_STRAIGHT,
  PLANE_SOLO, PLANE_PAIR, FOUR_TWO_SOLO, FOUR_TWO_PAIR, BOMB, ROCKET,
  BOMB4, BOMB5, BOMB6, BOMB7, BOMB8, JOKER_BOMB, kNumKinds,
  PASS = kNumKinds  // the pass action of the play state; never produced by movegen
};
constexpr uint8_t kPassKind = PASS;

static inline bool is_bomb_kind(int k) { return k == BOMB || k == ROCKET || (k >= BOMB4 && k <= JOKER_BOMB); }
static inline bool is_chain_kind(int k) {
  return k == STRAIGHT || k == PAIR_STRAIGHT || k == TRIO_STRAIGHT || k == PLANE_SOLO || k == PLANE_PAIR;
}

/// Encoded move (8 bytes): bits 0..51 rank nibbles 3..2, bits 52-53 count of B,
/// bits 54-55 count of R, bits 56-63 kind. Key and chain length derive from cards and kind.
using Enc = uint64_t;
constexpr uint64_t kRankBits = (uint64_t(1) << 52) - 1;
static inline Enc encode(Counts c, int kind) {
  return (c & 0x003FFFFFFFFFFFFFULL) | ((c >> 2) & 0x00C0000000000000ULL) | (uint64_t(kind) << 56);
}
static inline Counts enc_cards(Enc e) {
  return (e & 0x003FFFFFFFFFFFFFULL & ~(uint64_t(3) << 54)) | ((e & (uint64_t(3) << 54)) << 2);
}
static inline int enc_kind(Enc e) { return int(e >> 56); }

/// The rule variants. The numbers are the variant ids of records and snapshots and of
/// ddz.variants.VariantId, which reads this enum's names and numbers from the core.
enum class Variant : uint8_t { kClassic3 = 0, kTwoP = 1, kBengbu4 = 2 };
constexpr int kVariants = 3;
/// A variant as an index into the tables kept per variant (kVariantSpecs, the auction's tables).
constexpr int vi(Variant v) { return int(v); }

/// Each variant's decision tokens, in the order that numbers them (action id pass_id + 1 + k;
/// hand.hpp's ClassicToken, TwopToken and BengbuToken enumerate the same order).
inline constexpr const char* kClassicDecisions[] = {"CALL", "NO_CALL", "ROB", "NO_ROB", "SHOW", "NO_SHOW"};
inline constexpr const char* kTwopDecisions[] = {"SHOW_START", "NORMAL_START", "CALL", "NO_CALL",
                                                 "FANSHEN",    "NO_FANSHEN",   "YAPO", "NO_YAPO"};
inline constexpr const char* kBengbuDecisions[] = {"NO_CALL", "BID1", "BID2", "BID3", "GRAB", "OPEN", "CLOSED"};

/// One row of fixed facts per variant (the variants' table at the top of docs/rules.md, and
/// the rules of §6-§9 that are a yes or a no per variant): the one place these facts live.
/// Python reads every row through `_core.variant_specs()` (src/ddz/core/variants.py); a rule
/// that differs per variant in more than a fact is a `switch` on Variant where it is computed.
struct VariantSpec {
  const char* name;   // the Python variant name
  const char* title;  // as docs/rules.md names it
  int players, decks, hand, kitty, aside;
  int max_hand;       // the landlord's hand: hand + kitty
  const char* const* decisions;  // the decision tokens, in id order
  int decision_count;
  bool escape_ends;   // an escape ends the hand and is settled at once (§9 "Escapes": TWOP, BENGBU4);
                      // else a bot plays the seat to the end (CLASSIC3)
  bool bomb_limits;   // the bids limit each seat's bombs (§8)
  bool springs;       // a spring (春天 / 反春) doubles the score (§6, §7; BENGBU4 has none)
  bool deal_specials; // a deal may end the hand at once: 天炸 / 天尊 (§8 "Special deals")
  bool stakes;        // Game(base=, initial_multiplier=) stakes the hand (CLASSIC3's rooms, §9)
  bool coin_toss;     // a coin decides who decides first (TWOP's PRE_DEAL, §7: first_to_decide)
};
inline constexpr VariantSpec kVariantSpecs[kVariants] = {
    {"classic", "CLASSIC3", 3, 1, 17, 3, 0, 20, kClassicDecisions, 6, false, false, true, false, true, false},
    {"two_player", "TWOP", 2, 1, 20, 3, 11, 23, kTwopDecisions, 8, true, false, true, false, false, true},
    {"bengbu", "BENGBU4", 4, 2, 25, 8, 0, 33, kBengbuDecisions, 7, true, true, false, true, false, false},
};
inline constexpr const VariantSpec& spec_of(Variant v) { return kVariantSpecs[vi(v)]; }

/// Rules as data: the combination-level options of docs/rules.md §11 "Every option" (and
/// compat presets).
struct Rules {
  Variant variant = Variant::kClassic3;
  bool two_decks = false;
  bool straight = true;       // STRAIGHT allowed
  bool trio_solo = true;      // TRIO_SOLO and PLANE_SOLO allowed
  bool four_two = true;       // FOUR_TWO_SOLO / FOUR_TWO_PAIR allowed
  int trio_chain = 0;         // 0 std 3..A, 1 BENGBU4 line A,2,3..K,A, 2 cycle
  bool joker_pairs = false;   // BB / RR are pairs (two decks)
  bool share = false;         // kicker_may_share_main_rank
  bool pairs_distinct = true; // kicker_pairs_distinct
  bool rocket_kickers = false;
  bool trio_beside = true;    // kicker_trio_beside_chain: a wing rank next to a plane's chain may hold 3+ wings
  int cap = 1;                // single_kicker_rank_cap
  int max_cards = 20;         // the largest hand of the variant (bounds the action space)

  int players() const { return spec().players; }
  const VariantSpec& spec() const { return spec_of(variant); }
  int max_per_rank() const { return two_decks ? 8 : 4; }
  int max_joker() const { return two_decks ? 2 : 1; }
  /// Relaxed options can give one multiset several readings (docs/rules.md §4.4); the generator
  /// still emits each multiset once, from its canonical reading.
  bool ambiguous() const { return cap >= 3 || share || !pairs_distinct; }
  /// Why this option set is outside what the generator supports, or nullptr. Single
  /// kickers (TRIO_SOLO, PLANE_SOLO) and straights exist only with one deck and the
  /// standard 3..A trio chains, as in every variant (docs/rules.md §4 "Combinations", §4.1).
  const char* error() const {
    if (cap < 1 || cap > max_per_rank()) return "single_kicker_rank_cap out of range";
    if (trio_chain < 0 || trio_chain > 2) return "trio_chain must be 0, 1 or 2";
    if ((trio_solo || straight) && (two_decks || trio_chain != 0))
      return "single kickers and straights need one deck and the standard trio chains";
    return nullptr;
  }
};

/// The comparison data of one interpretation.
struct Interp {
  int kind = -1;
  int key = 0;
  int length = 1;   // chain length (ranks in the chain body), 1 otherwise
  int body = 0;     // main-body card count (docs/rules.md §4.4)
};

// ---- classification (classify.cpp) ----
/// Every interpretation of the multiset (at most one per kind, with the highest key).
int interpretations(const Rules& r, Counts c, Interp* out);  // returns count (<= kNumKinds)
/// The canonical lead reading (docs/rules.md §4.4): largest body, then highest key.
/// kind=-1 if none.
Interp classify(const Rules& r, Counts c);
/// The reading of `c` as `kind` (highest key); kind=-1 if it has none.
Interp classify_as(const Rules& r, Counts c, int kind);
/// Reading of c when played onto `top` (the highest-key reading that beats it); kind=-1 if none.
Interp classify_follow(const Rules& r, Counts c, const Interp& top);
bool beats(const Rules& r, const Interp& play, const Interp& top);
/// The reading of a generated move (its kind fixed, the highest key of that kind), read
/// from the counts under every option set.
Interp reading_of(const Rules& r, Enc e);
int body_cards(int kind, int ncards);

/// A growable array of encoded moves that never value-initialises (the generator's output).
/// It may start on caller-owned memory (`borrow`); outgrowing it moves to owned memory.
struct MoveBuffer {
  Enc* data = nullptr;
  size_t size = 0, cap = 0;
  bool owned = true;
  MoveBuffer() = default;
  MoveBuffer(const MoveBuffer&) = delete;
  MoveBuffer& operator=(const MoveBuffer&) = delete;
  ~MoveBuffer() { release(); }
  void release() {
    if (owned) delete[] data;
    data = nullptr;
    size = cap = 0;
    owned = true;
  }
  void borrow(Enc* mem, size_t n) {
    release();
    data = mem;
    cap = n;
    owned = false;
  }
  void reserve(size_t n) {
    if (n <= cap) return;
    size_t nc = cap * 2 > n ? cap * 2 : n;
    Enc* nd = new Enc[nc];
    for (size_t i = 0; i < size; ++i) nd[i] = data[i];
    if (owned) delete[] data;
    data = nd;
    cap = nc;
    owned = true;
  }
  void clear() { size = 0; }
};

// ---- generation (movegen.cpp, compiled per ISA) ----
/// Leads (top == nullptr) or the plays that beat *top, appended to out; each multiset once,
/// in its canonical reading (docs/rules.md §4.4), without sorting.
void generate(const Rules& r, Counts hand, const Interp* top, MoveBuffer& out);
/// The same count, nothing stored (closed-form kicker counts).
uint64_t count(const Rules& r, Counts hand, const Interp* top);
/// Move i (0-based, i < count(r, hand, top)) of generate()'s list, building only the family
/// that holds it (in scratch); 0 when i is past the end.
Enc select_move(const Rules& r, Counts hand, const Interp* top, uint64_t i, MoveBuffer& scratch);
/// generate / count over many hands (tops[i] null: a lead; tops itself null: every hand
/// leads), one ISA dispatch for the whole batch; offsets[i+1] = the end of hand i's moves in
/// out (or the running count).
void generate_batch(const Rules& r, const Counts* hands, const Interp* const* tops, size_t n, MoveBuffer& out,
                    int64_t* offsets);
void count_batch(const Rules& r, const Counts* hands, const Interp* const* tops, size_t n, int64_t* offsets);
/// True when every nibble of a rank-count word is within the deck's limits.
bool valid_word(const Rules& r, Counts w);
/// The index of the first of w[0..n) that is no valid word, or n when all are (one tight
/// loop: a batch's input check costs a fraction of a nanosecond a hand).
size_t first_invalid_word(const Rules& r, const Counts* w, size_t n);
/// Every (cards, kind) reading of every play of at most r.max_cards cards (the action space).
void generate_universe(const Rules& r, MoveBuffer& out);

/// ISA dispatch: 0 = scalar, 1 = x86-64 AVX2+BMI2. Returns the one in use.
int dispatch_level();
void set_dispatch_level(int level);  // clamped to what the CPU supports
bool cpu_has_fast_isa();

}  // namespace ddz

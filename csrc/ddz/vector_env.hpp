// Many tables stepped together (the vectorized environment of docs/learning.md, "VectorEnv"):
// one action id per table, the compact observation of the seat to act, the legal ids, rewards
// when a hand ends; finished tables deal themselves a new hand. Two modes: whole hands (the
// variant's auction, then the play, scored as the variant scores them: hand.hpp), or the play
// phase alone (the landlord random or given, zero-sum play-phase rewards). Results depend only
// on the seed (or the deal pool) and each table's game counter, never on the thread count.
// No Python headers.
#pragma once
#include <cstdint>
#include <vector>

#include "actions.hpp"
#include "encode.hpp"
#include "hand.hpp"
#include "solver.hpp"

namespace ddz {

/// Deals the caller supplies: entry g has one start word per seat (the landlord's with the
/// kitty), its landlord, BENGBU4 bomb limits (kUnlimited = none) and its kitty (0 = unknown).
struct DealPool {
  std::vector<Counts> hands;
  std::vector<uint8_t> landlords, limits;
  std::vector<Counts> kitty;
  size_t size() const { return landlords.size(); }
};

/// Where one step writes (caller-owned memory; legal ids go to per-chunk buffers first).
struct StepOut {
  int8_t* obs;         // tables x layout.total
  float* reward;       // tables x seats
  uint8_t* done;       // tables
  int8_t* seat;        // tables
  int8_t* role;        // tables: 0 landlord, 1 farmer, -1 before the landlord is known
  int64_t* counts;     // tables: legal ids per table
};

class VectorEnv {
 public:
  /// `index` must outlive the environment (the rules' action space). `pool` empty: random deals.
  /// `auction` non-null: whole hands under these options (then `pool` must be empty).
  VectorEnv(const Rules& r, const ActionIndex& index, int decisions, size_t tables, uint64_t seed, int threads,
            DealPool pool, const HandOptions* auction = nullptr);
  size_t tables() const { return tables_.size(); }
  int players() const { return r_.players(); }
  const CompactLayout& layout() const { return layout_; }
  int pass_id() const { return int(index_.size()); }
  bool auction() const { return auction_; }
  /// Ids a step may name: plays, PASS, and in whole-hand mode the decisions.
  int num_ids() const { return pass_id() + 1 + (auction_ ? r_.spec().decision_count : 0); }
  bool started() const { return started_; }

  /// Starts a new hand on every table (seed != nullptr: re-seeds and restarts the game counters).
  void reset(const uint64_t* seed, StepOut out);
  /// The first table whose action id is not legal (why: the play state's reason, NotOffered when
  /// none applies), or -1 when every id is legal. Changes nothing.
  int64_t check(const int32_t* ids, Illegal& why) const;
  /// Applies checked ids; finished tables get their reward and a new hand.
  void step(const int32_t* ids, StepOut out);
  /// The legal ids of the last reset/step, table order, after the counts in StepOut.
  void copy_legal(int32_t* dst) const;
  /// The game number a table plays now (random deals: ddz.deal(rules, seed, game); whole hands:
  /// ddz.Game(rules, hand_seed(seed, game))).
  uint64_t game_of(size_t table) const;
  uint64_t seed() const { return seed_; }
  /// The hand that ended on the table in the last step (its `done`): the scores by seat, the
  /// landlord (-1 for none), the winning side (0 the landlord's, 1 the farmers', -1 none), how it
  /// ended (HandResult) and each seat's last observation row (seats x layout().total).
  void final_info(size_t table, float* scores, int8_t& landlord, int8_t& winner, int8_t& kind, int8_t* rows) const;
  /// Hands of the last call that ended at the deal (BENGBU4 天炸/天尊: no decision), and the sum
  /// of their scores by seat.
  int deal_ends(size_t table, float* scores) const;
  /// The rule policy's choice on every table after the last reset/step, as an index into the
  /// table's legal ids: in the auction RuleBot's decision (rule_decision), in the play the PIMC
  /// rollout policy (rollout_pick, RuleBot's play: the lowest lead, the lowest beating play,
  /// the partner's trick passed, bombs kept for an opponent close to going out), with the
  /// landlord's side against the rest. `out` has one entry per table.
  void rule_choices(int64_t* out) const;
  /// The perfect-information value of every table's position after the last reset/step, for
  /// training only (a seat's policy never sees it): 1 when the landlord's side wins with best
  /// play by every seat seeing every hand (the exact solver, solver.hpp), 0 when the farmers'
  /// side does, -1 when unknown: the auction is on, more than `max_cards` cards are left in all
  /// hands, or the search passed `node_limit` nodes (0: none). Tables are split over the
  /// environment's threads; each solve uses its thread's transposition table of `table_bytes`.
  void oracle(int max_cards, uint64_t node_limit, size_t table_bytes, int8_t* out);

 private:
  struct Table {
    Tracked t;            // play-phase mode
    Counts kitty = 0;
    HandState h;          // whole-hand mode
    uint64_t played = 0;  // hands finished on this table
    // the hand that ended in the last step (play mode: its play; whole hands: the hand)
    Tracked fin_t;
    Counts fin_kitty = 0;
    HandState fin_h;
    float fin_scores[4] = {0, 0, 0, 0};
    uint16_t deal_ends = 0;  // hands of the last call that ended at the deal
    float deal_scores[4] = {0, 0, 0, 0};
  };
  void deal(size_t i);
  void deal_hand(size_t i);
  void step_hand(size_t i, int32_t id, float* reward, uint8_t& done);
  void after(size_t i, const StepOut& out, size_t chunk);
  void score(const Table& tb, float* reward) const;
  template <class F>
  void parallel(F&& fn);

  Rules r_;
  const ActionIndex& index_;
  CompactLayout layout_;
  uint64_t seed_;
  int threads_;
  DealPool pool_;
  bool auction_ = false;
  HandOptions opts_;
  std::vector<Table> tables_;
  std::vector<size_t> bounds_;                // chunk c = tables [bounds_[c], bounds_[c+1])
  std::vector<std::vector<int32_t>> legal_;   // per chunk: its tables' legal ids, table order
  std::vector<int64_t> legal_start_, legal_count_;  // per table: where in its chunk's list
  std::vector<size_t> chunk_of_;
  std::vector<MoveBuffer> bufs_;              // per chunk, reused from step to step
  bool started_ = false;
};

}  // namespace ddz

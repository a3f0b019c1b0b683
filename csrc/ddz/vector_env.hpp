// Many tables in the play phase stepped together (the vectorized environment of
// docs/encodings.md, "VectorEnv"): one action id per table, the compact observation of the seat
// to act, the legal ids, zero-sum play-phase rewards; finished tables deal themselves a new
// hand. Results depend only on the seed (or the deal pool) and each table's game counter, never
// on the thread count. No bidding here: the landlord is random or given. No Python headers.
#pragma once
#include <cstdint>
#include <vector>

#include "actions.hpp"
#include "encode.hpp"

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
  int8_t* role;        // tables: 0 landlord, 1 farmer
  int64_t* counts;     // tables: legal ids per table
};

class VectorEnv {
 public:
  /// `index` must outlive the environment (the rules' action space). `pool` empty: random deals.
  VectorEnv(const Rules& r, const ActionIndex& index, int decisions, size_t tables, uint64_t seed, int threads,
            DealPool pool);
  size_t tables() const { return tables_.size(); }
  int players() const { return r_.players(); }
  const CompactLayout& layout() const { return layout_; }
  int pass_id() const { return int(index_.size()); }
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
  /// The game number a table plays now (random deals: ddz.deal(rules, seed, game)).
  uint64_t game_of(size_t table) const;

 private:
  struct Table {
    Tracked t;
    Counts kitty = 0;
    uint64_t played = 0;  // hands finished on this table
  };
  void deal(size_t i);
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
  std::vector<Table> tables_;
  std::vector<size_t> bounds_;                // chunk c = tables [bounds_[c], bounds_[c+1])
  std::vector<std::vector<int32_t>> legal_;   // per chunk: its tables' legal ids, table order
  std::vector<int64_t> legal_start_, legal_count_;  // per table: where in its chunk's list
  std::vector<size_t> chunk_of_;
  std::vector<MoveBuffer> bufs_;              // per chunk, reused from step to step
  bool started_ = false;
};

}  // namespace ddz

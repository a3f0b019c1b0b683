// Exact open-hand solver (残局): does the side of the seat to move win with best play?
// Two sides over 2–4 seats (the farmers cooperate; a side wins when any of its seats goes
// out), any variant's combination rules, bomb limits (docs/rules.md §3 tricks and the end of
// a hand, §8 "Bomb limits").
// No Python headers.
#pragma once
#include <chrono>
#include <cstdint>
#include <vector>

#include "play.hpp"

namespace ddz {

/// The largest transposition table a solve takes, in MiB (the bindings refuse more).
constexpr double kMaxTableMb = 4096;

/// The deadline `seconds` after `t0`, into `out`; false when there is none: a limit that is not
/// positive, infinite, NaN or too far ahead for the clock to represent means no limit (a
/// seconds-to-ticks conversion past the clock's range would overflow, which is undefined).
inline bool deadline_after(std::chrono::steady_clock::time_point t0, double seconds,
                           std::chrono::steady_clock::time_point& out) {
  using Clock = std::chrono::steady_clock;
  if (!(seconds > 0)) return false;
  const double room = std::chrono::duration<double>(Clock::time_point::max() - t0).count();
  if (!(seconds < room / 2)) return false;  // also infinity: half the range leaves margin for rounding
  out = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  return true;
}

/// Limits of one solve. 0 means "none" for the node and time limits; so does a time limit
/// the clock cannot represent (infinity).
struct SolveLimits {
  uint64_t nodes = 0;
  double seconds = 0;
  size_t table_bytes = size_t(64) << 20;  // the transposition table of the calling thread
};

struct SolveResult {
  bool complete = false;  // false: a limit stopped the search; win and moves mean nothing
  bool win = false;       // the side of the seat to move wins
  std::vector<Enc> moves;  // winning first actions (kPass for a winning pass)
  std::vector<uint8_t> pv_seats;
  std::vector<Enc> pv_moves;  // a principal variation to the end of the hand (may be cut by a limit)
  uint64_t nodes = 0;
  double seconds = 0;
};

/// Solves `s` (its hands, trick top and owner, pass count, seat to move, bomb plays left;
/// its n seats) for the partition `sides[0..n-1]` (two side ids, 0 and 1). With
/// `all_moves` every first action is searched and every winning one reported; otherwise
/// the first winning one found. Uses a transposition table owned by the calling thread
/// (reused across calls, resized to limits.table_bytes), so calls on different threads
/// run in parallel.
SolveResult solve(const Rules& r, const PlayState& s, const uint8_t* sides, bool all_moves, const SolveLimits& limits);

}  // namespace ddz

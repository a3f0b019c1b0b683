// Determinised Monte-Carlo evaluation (PIMC) of a position's first actions, for the search
// bot when the exact solver cannot finish: each sampled deal (a "world": every seat's
// hand) is played to the end from each candidate action by a fixed rollout policy, and a
// candidate scores the worlds its side wins. No Python headers.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "play.hpp"

namespace ddz {

/// The rollout policy: the index of its action among `moves` (legal_actions of `s`: the
/// pass last when following). A play that empties the hand; else the pass when a partner
/// (same side in `sides`) owns the trick; leading, the non-bomb play of lowest key, the
/// longest among those; following, the lowest beating non-bomb play; the weakest bomb only
/// when leading with nothing else or when the trick's owner holds 5 cards or fewer; else
/// the pass. Among plays equal by those criteria, the one whose cards break fewest of the
/// seat's rank groups, then the lowest (kicker_cost).
size_t rollout_pick(const Rules& r, const PlayState& s, const uint8_t* sides, const Enc* moves, size_t n);

/// Plays `s` (not over) to the end with rollout_pick for every seat; returns the seat that
/// went out. `buf` is scratch space (reserve it once: nothing is allocated per move then);
/// `trace`, when given, receives each (seat, action) played (for tests).
int rollout(const Rules& r, PlayState s, const uint8_t* sides, MoveBuffer& buf,
            std::vector<std::pair<uint8_t, Enc>>* trace = nullptr);

/// What playing `cards` out of `hand` costs beyond the cards: 32 per rank of which some
/// but not all copies are played (a pair, trio or bomb broken), plus the ranks played
/// (lower is cheaper). Plays of the same shape differ in it by their kickers only.
uint32_t kicker_cost(Counts hand, Counts cards);

/// The candidate first actions of `s`, in legal_actions order: every legal action, except
/// that of plays with the same kind, key and card count (they differ only in their kickers)
/// only the one of least kicker_cost is kept.
void pimc_candidates(const Rules& r, const PlayState& s, std::vector<Enc>& out);

/// Limits of one evaluation; 0 means "none".
struct PimcLimits {
  double seconds = 0;
  uint64_t worlds = 0;
};

struct PimcResult {
  std::vector<uint32_t> wins;  // per candidate: the evaluated worlds its side won
  uint64_t worlds = 0;         // worlds evaluated (every candidate in each)
  double seconds = 0;
};

/// Evaluates `cands` (legal first actions of `s`) over worlds[0..n_worlds) in order: world
/// w gives the hands (s.n words from worlds + w * s.n; the mover's must be s's), the rest of
/// the position (trick, seat to move, bomb plays left) is s's. Every candidate is played out
/// in a world before the next world starts; it stops before a world when a limit is reached
/// (the time limit after at least one world) or when no candidate can any longer catch up
/// with the leader in the worlds left, so the wins depend on the limits only through how
/// many worlds were evaluated, and the leader is the one the full run would give.
PimcResult pimc(const Rules& r, const PlayState& s, const uint8_t* sides, const Counts* worlds, size_t n_worlds,
                const Enc* cands, size_t n_cands, const PimcLimits& lim);

}  // namespace ddz

// The rule policy of the auction, in C++: ddz.RuleBot's decisions (src/ddz/search/rule_bot.py:
// hand_strength and its thresholds), so that a VectorEnv can seat RuleBot-like opponents at
// the core's speed (VectorEnv::rule_choices; with rollout_pick, rollout.hpp, for the play).
// tests/test_rule_seats.py checks every auction decision against RuleBot's. No Python headers.
#pragma once
#include <cstdint>

#include "hand.hpp"

namespace ddz {

/// RuleBot's thresholds (its defaults call_at=7, double_at=10).
constexpr double kRuleCallAt = 7.0, kRuleDoubleAt = 10.0;

/// ddz.search.rule_bot.hand_strength of `hand` with `decks` decks: the jokers, the 2s and As,
/// the bombs.
double rule_hand_strength(Counts hand, int decks);

/// The index among `toks` (hand_decisions of `h`, `n` of them) of the decision RuleBot takes.
int rule_decision(const Rules& r, const HandState& h, const uint8_t* toks, int n);

}  // namespace ddz

// The rule policy of the auction: RuleBot's decisions, written once here. ddz.RuleBot asks the
// core for them (src/ddz/search/rule_bot.py), and a VectorEnv seats RuleBot-like opponents at
// the core's speed (VectorEnv::rule_choices; with rollout_pick, rollout.hpp, for the play).
// tests/reference_rule_bot.py is a readable reference the tests check it against. No Python headers.
#pragma once
#include <cstdint>

#include "hand.hpp"

namespace ddz {

/// RuleBot's thresholds (its defaults call_at=7, double_at=10).
constexpr double kRuleCallAt = 7.0, kRuleDoubleAt = 10.0;

/// ddz.search.rule_bot.hand_strength of `hand` with `decks` decks: the jokers, the 2s and As,
/// the bombs.
double rule_hand_strength(Counts hand, int decks);

/// The index among `toks` (the decisions offered in `phase`, `n` of them, in table order) of the
/// decision RuleBot takes with `hand` (the seat's own cards now) and its thresholds.
int rule_choose(const Rules& r, int phase, Counts hand, const uint8_t* toks, int n, double call_at = kRuleCallAt,
                double double_at = kRuleDoubleAt);

/// rule_choose for the seat to decide in `h` (the vector env's hand: its play is h.t).
int rule_decision(const Rules& r, const HandState& h, const uint8_t* toks, int n);

}  // namespace ddz

// RuleBot's auction decisions (rule_policy.hpp); the same branches, in the same order, as
// RuleBot._decide.
#include "rule_policy.hpp"

namespace ddz {

double rule_hand_strength(Counts hand, int decks) {
  const int b = count_of(hand, kB), red = count_of(hand, kR);
  double s = 0;
  s += 3.0 * (red >= decks) + 2.5 * (b >= decks);
  s += 1.0 * red + 0.8 * b;
  s += 1.2 * count_of(hand, 12) / decks + 0.5 * count_of(hand, 11) / decks;
  const int quad = decks == 1 ? 4 : 5;
  for (int v = 0; v < kB; ++v) s += 3.0 * (count_of(hand, v) >= quad);
  if (decks == 1 && b && red) s += 2.0;
  return s;
}

namespace {

int find(const uint8_t* toks, int n, int tok) {
  for (int k = 0; k < n; ++k)
    if (toks[k] == tok) return k;
  return -1;
}

/// `yes` when `flag` and it is offered, else `no` (RuleBot's pick); the last token when
/// neither is offered.
int pick(const uint8_t* toks, int n, int yes, int no, bool flag) {
  int k = flag ? find(toks, n, yes) : -1;
  if (k < 0) k = find(toks, n, no);
  return k < 0 ? n - 1 : k;
}

}  // namespace

int rule_decision(const Rules& r, const HandState& h, const uint8_t* toks, int n) {
  const int seat = h.seat;
  const Counts hand = !h.dealt ? 0 : h.in_play ? h.t.s.hand[seat] : h.hands[seat];
  return rule_choose(r, h.phase, hand, toks, n);
}

int rule_choose(const Rules& r, int phase, Counts hand, const uint8_t* toks, int n, double call_at, double double_at) {
  const double strength = rule_hand_strength(hand, r.two_decks ? 2 : 1);
  const bool want = strength >= call_at, strong = strength >= double_at;
  const bool very = strength >= double_at + 4;
  switch (r.variant) {
    case Variant::kClassic3:
      switch (phase) {
        case HP_CALL: return pick(toks, n, C_CALL, C_NO_CALL, want);
        case HP_ROB: case HP_FINAL_ROB: return pick(toks, n, C_ROB, C_NO_ROB, strong);
        case HP_SHOW: return pick(toks, n, C_SHOW, C_NO_SHOW, very);
        default: return n - 1;
      }
    case Variant::kTwoP:
      switch (phase) {
        case HP_PRE_DEAL: return pick(toks, n, T_NORMAL_START, T_NORMAL_START, true);
        case HP_BID: return find(toks, n, T_CALL) >= 0 ? pick(toks, n, T_CALL, T_NO_CALL, want) : n - 1;
        case HP_FANSHEN: return pick(toks, n, T_FANSHEN, T_NO_FANSHEN, strong);
        case HP_YAPO: return pick(toks, n, T_YAPO, T_NO_YAPO, strong);
        default: return n - 1;
      }
    default:
      switch (phase) {
        case HP_OPEN_CHOICE: return pick(toks, n, B_OPEN, B_CLOSED, very);
        case HP_BID: {
          int k;
          if (strength >= double_at + 6 && (k = find(toks, n, B_GRAB)) >= 0) return k;
          const struct { int tok; double at; } bids[3] = {
              {B_BID3, double_at}, {B_BID2, call_at + 1.5}, {B_BID1, call_at}};
          for (const auto& b : bids)
            if (strength >= b.at && (k = find(toks, n, b.tok)) >= 0) return k;
          k = find(toks, n, B_NO_CALL);
          return k < 0 ? n - 1 : k;
        }
        default: return n - 1;
      }
  }
}

}  // namespace ddz

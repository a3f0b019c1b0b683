// A ddz.Game's compact observation row (docs/encodings.md), shared by the encoder bindings
// (encode.cpp: ddz.encode's batch paths) and the whole hand's (game.cpp: Game.encode), so that
// one function writes every Game row.
#pragma once
#include <vector>

#include "../ddz/encode.hpp"
#include "play_obj.hpp"

/// The part of a Game's compact row that changes only with a decision, a re-deal, a bomb or the
/// end of the hand.
struct GameStatic {
  RulesPtr rules;
  CompactLayout L{};
  int decisions = 0;
  int landlord = -1;
  uint8_t shown = 0;  // every face-up seat; the observer's own bit is cleared per row
  uint64_t kitty = 0;
  std::vector<int8_t> factors;
  std::vector<int> auction;  // (seat, token) pairs, oldest first
};

/// Writes `seat`'s row: the play state's record (`P`; before the play, nullptr and the hands'
/// words, nullptr before the deal), then the Game blocks of `st` and the seat to act.
void game_row(const GameStatic& st, const PlayStateObj* P, const Counts* hands, int to_act, int seat, int8_t* row);

/// Sets m[id] for every legal action id: the play state's legal actions (`P`), and the
/// decisions offered (`decisions`, k of them, as token indexes).
void legal_mask(RulesObj& R, const PlayStateObj* P, const uint8_t* decisions, int k, int8_t* m);

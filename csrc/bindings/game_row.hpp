// What a ddz.Game's compact observation (docs/encodings.md) needs of the bindings, shared by the
// encoder bindings (encode.cpp) and the whole hand's (game.cpp): the play state's record as the
// encoder reads it, and the legal-action mask. The row itself is the core's (hand_encode).
#pragma once
#include "../ddz/encode.hpp"
#include "play_obj.hpp"

/// The play record of a play state (what each seat played, the last actions), from its log.
Tracked tracked_of(const PlayStateObj& P);

/// Sets m[id] for every legal action id: the play state's legal actions (`P`), and the
/// decisions offered (`decisions`, k of them, as token indexes).
void legal_mask(RulesObj& R, const PlayStateObj* P, const uint8_t* decisions, int k, int8_t* m);

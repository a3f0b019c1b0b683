// The Python PhysicalHands' C++ object and the card helpers that physical.cpp defines and the
// whole hand (game.cpp) shares: card names, card sets from Python, plays of real cards.
#pragma once
#include <string>
#include <vector>

#include "../ddz/physical.hpp"
#include "common.hpp"
#include "play_obj.hpp"

struct PhysicalObj {
  RulesPtr rules;
  PhysicalHands h;
};

/// '3s', 'Th', 'B'; the second deck's copy ends with "'".
std::string card_name(int id);
/// Card ids from "3s 3h,3d" or an iterable of names and ids; a card named twice is an error.
IdSet card_set(py::handle cards, int decks, std::vector<int>* in_order = nullptr);
/// A list of the ids, ascending.
py::list id_list(IdSet s);
/// The names of the ids, ascending, separated by spaces.
std::string names_of(IdSet s);
/// The longest "PLAY <names>" of a play: 33 cards of at most 3 characters and a space each.
constexpr size_t kPlayTokenMax = 5 + 33 * 4;
/// The names of the ids, ascending, separated by spaces, written to `out` (at least kPlayTokenMax
/// - 5 bytes); returns their length.
size_t names_into(IdSet s, char* out);
/// The cards of a play of the seat to act of `S` (false: PASS), parsed and found in its hand;
/// `kind` is the reading an action id names (-1: read by docs/rules.md §4.4). Raises
/// IllegalAction (MALFORMED, NOT_HELD) and changes nothing.
bool play_cards(const PhysicalHands& H, PlayStateObj& S, py::handle a, IdSet& ids, int& kind);
/// Checks a play of real cards against the hands and the play state; fills what apply needs.
Illegal check_play(const PhysicalHands& H, PlayStateObj& S, py::handle a, IdSet& ids, bool& pass, Interp& reading,
                   std::string& message, bool& type_error);

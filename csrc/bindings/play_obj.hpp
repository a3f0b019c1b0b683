// The Python PlayState's C++ object, shared by the bindings that act on a play state
// (play.cpp registers the class; physical.cpp applies plays of real cards to it).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"

inline const char* variant_name(const Rules& r) { return r.spec().title; }
inline std::string seat_str(int s) { return "seat " + std::to_string(s); }

/// One applied action and the state before it. The log is an immutable list from the newest
/// action back to the first: a clone shares it (clone time does not grow with the history),
/// apply prepends a node, undo steps back; no copy ever changes a node another copy sees.
struct LogNode {
  uint8_t seat;
  Enc move;  // kPassEnc for a pass
  PlayState before;
  std::shared_ptr<const LogNode> prev;
  uint32_t depth;  // actions up to and including this one
};
using Log = std::shared_ptr<const LogNode>;

struct PlayStateObj {
  RulesPtr rules;
  PlayState s;
  Log log;
  /// A ddz.Game's own play state, shown by Game.play_state: read-only from Python (the game plays
  /// it with its cards, history and record; apply or undo through the view would move the play
  /// alone). Copies (clone, copy, deepcopy, pickle) are free again.
  bool readonly = false;
  /// Raises unless the state may be changed from Python.
  void check_writable() const {
    if (readonly)
      throw ArgumentError("this PlayState is a read-only view of a ddz.Game's play (Game.play_state): act through "
                          "the Game, or change an independent copy (play_state.clone(), game.clone())");
  }
  /// An independent copy that Python may change.
  PlayStateObj copy() const {
    PlayStateObj c(*this);
    c.readonly = false;
    return c;
  }
  size_t log_size() const { return log ? log->depth : 0; }
  /// The log oldest first.
  std::vector<const LogNode*> entries() const {
    std::vector<const LogNode*> v(log_size());
    size_t i = v.size();
    for (const LogNode* n = log.get(); n; n = n->prev.get()) v[--i] = n;
    return v;
  }
  /// The state the hand started in.
  const PlayState& initial() const {
    const LogNode* n = log.get();
    if (!n) return s;
    while (n->prev) n = n->prev.get();
    return n->before;
  }
};


/// Applies a checked action (`e` its encoding, kPassEnc for a pass), logging the state before it.
inline void push_action(PlayStateObj& P, Enc e, Counts cards, bool pass, const Interp& reading) {
  P.log = std::make_shared<const LogNode>(LogNode{P.s.seat, e, P.s, P.log, uint32_t(P.log_size() + 1)});
  apply_action(P.rules->r, P.s, cards, pass, reading);
}


/// The Python type of PlayState (set when play.cpp registers it), for a quick type check.
inline PyTypeObject* g_play_state_type = nullptr;

/// The PlayState behind `h`, or nullptr when `h` is no (initialised) PlayState.
inline PlayStateObj* play_state_ptr(PyObject* h) {
  if (!g_play_state_type || !PyObject_TypeCheck(h, g_play_state_type)) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(h);
  return static_cast<PlayStateObj*>(inst->simple_layout ? inst->simple_value_holder[0]
                                                         : inst->get_value_and_holder().value_ptr());
}

/// An action id argument of the state's rules, a play's or PASS's (out of range: IllegalAction,
/// not an int: its TypeError twin): false for PASS, else the play's encoding in `e`.
inline bool id_action(PlayStateObj& P, py::handle a, Enc& e) {
  const int pass = P.rules->pass_id();
  const long long id = action_id_arg<IllegalActionError, IllegalActionTypeError>(a, pass);
  if (id == pass) return false;
  e = P.rules->plays()[size_t(id)];
  return true;
}

/// BENGBU4 bomb limits from Python (None, or one entry per seat: None = unlimited, else the
/// bomb plays allowed) into `limits`, kUnlimited where there is none (play.cpp).
void bomb_limits_arg(const Rules& r, py::handle bomb_limits, uint8_t limits[4]);

/// The message of an illegal play-state action (play.cpp).
std::string illegal_message(const PlayStateObj& P, Illegal why, Counts cards, int kind, const Interp& reading);

// pybind11 registration of the play phase: ddz.PlayState, ddz.simulate, ddz.deal.
#include <memory>
#include <system_error>
#include <thread>

#include "../ddz/deal.hpp"
#include "../ddz/play.hpp"
#include "common.hpp"
#include "play_obj.hpp"
#include "raw_methods.hpp"

namespace {

// simulate(): at most this many threads (a bound on user input; more than the cores buys
// nothing) and games per call (the per-game result arrays are allocated up front).
constexpr int kMaxThreads = 256;
constexpr long long kMaxGames = 1LL << 28;


int seat_arg(const PlayStateObj& P, py::handle seat) {
  if (!is_int(seat)) throw ArgumentTypeError("a seat is an int, not " + type_name(seat));
  int overflow = 0;
  long long s = PyLong_AsLongLongAndOverflow(as_pylong(seat).ptr(), &overflow);
  if (overflow || s < 0 || s >= P.s.n)
    throw ArgumentError("no seat " + int_shown(seat) + ": seats are 0.." + std::to_string(P.s.n - 1));
  return int(s);
}

std::string reading_str(const Interp& it) { return kind_name(it.kind); }

/// Converts an action argument; returns false for a pass. `kind` < 0: read by docs/rules.md
/// §4.4.
bool action_arg(PlayStateObj& P, py::handle a, Counts& cards, int& kind) {
  kind = -1;
  if (is_int(a)) {
    Enc e;
    if (!id_action(P, a, e)) return false;
    cards = enc_cards(e);
    kind = enc_kind(e);
    return true;
  }
  if (is_move(a)) {
    const MoveObj& m = move_of(a);
    if (is_pass(m)) return false;
    cards = enc_cards(m.enc);
    kind = m.it.kind;
    return true;
  }
  if (py::isinstance<py::str>(a)) {
    std::string s = text_arg(a, "the action");
    std::string up;
    for (char c : s) up += char(std::toupper((unsigned char)c));
    if (up == "PASS") return false;
    if (up.rfind("PLAY ", 0) == 0) s = s.substr(5);
    cards = parse_counts(s, P.rules->decks());
    if (!cards) throw IllegalActionError("an empty play: name the cards, or PASS");
    return true;
  }
  if (py::isinstance<CardsObj>(a)) {
    cards = hand_arg(a, *P.rules, "play");
    if (!cards) throw IllegalActionError("an empty play: name the cards, or PASS");
    return true;
  }
  throw IllegalActionTypeError("an action is a Move, an action id (int), a str of cards or 'PASS', not " + type_name(a));
}

}  // namespace

std::string illegal_message(const PlayStateObj& P, Illegal why, Counts cards, int kind, const Interp& reading) {
  const PlayState& s = P.s;
  const Rules& r = P.rules->r;
  std::string c = "'" + format_counts(cards) + "'";
  switch (why) {
    case Illegal::Over:
      return "the hand is over: " + seat_str(s.out) + " went out";
    case Illegal::LeadPass:
      return seat_str(s.seat) + " leads a new trick and cannot pass";
    case Illegal::NotHeld:
      return seat_str(s.seat) + " does not hold " + c + " (holds '" + format_counts(s.hand[s.seat]) + "')";
    case Illegal::NotCombination:
      return c + " is not a legal combination of " + variant_name(r);
    case Illegal::DoesNotBeat:
      return c + " does not beat '" + format_counts(enc_cards(s.top)) + "' (" + reading_str(s.top_it) +
             ") played by " + seat_str(s.owner);
    case Illegal::WrongReading:
      return c + " is read as " + reading_str(reading) + " here, not " + kind_name(kind) + " (docs/rules.md §4)";
    case Illegal::BombLimit:
      return seat_str(s.seat) + " has made the " + std::to_string(s.limit[s.seat]) +
             " bomb play(s) its bid allows (docs/rules.md §8)";
    default: break;
  }
  return "illegal action";
}

namespace {

[[noreturn]] void raise_illegal(const PlayStateObj& P, Illegal why, Counts cards, int kind, const Interp& reading) {
  throw IllegalActionError(illegal_message(P, why, cards, kind, reading), why);
}

/// Checks an action without applying it: None, or the IllegalAction object apply() would
/// raise (malformed cards included, as MALFORMED).
py::object check_obj(PlayStateObj& P, py::handle action) {
  Counts cards = 0;
  bool play = false;
  Interp reading;
  int kind = -1;
  try {
    play = action_arg(P, action, cards, kind);
  } catch (const IllegalActionTypeError& err) {
    return illegal_object(g_illegal_type_twin, err.what(), err.code);
  } catch (const IllegalActionError& err) {
    return illegal_object(g_illegal_type, err.what(), err.code);
  } catch (const DdzError& err) {
    return illegal_object(g_illegal_type, err.what(), Illegal::Malformed);
  }
  Illegal why = check_action(P.rules->r, P.s, cards, !play, kind, reading);
  if (why != Illegal::None) return illegal_object(g_illegal_type, illegal_message(P, why, cards, kind, reading), why);
  return py::none();
}

py::object top_obj(const PlayStateObj& P) {
  if (P.s.leading()) return py::none();
  MoveObj m{P.s.top, P.s.top_it, P.rules};
  return py::make_tuple(m, int(P.s.owner));
}

// The end of the hand and its bombs, as the properties and _summary give them.
py::object winner_seat_obj(const PlayStateObj& P) {
  return P.s.over() ? py::object(py::int_(int(P.s.out))) : py::object(py::none());
}

py::object winner_side_obj(const PlayStateObj& P) {
  if (!P.s.over()) return py::none();
  return py::str(P.s.landlord_won() ? "landlord" : "farmers");
}

py::dict bombs_by_kind_obj(const PlayStateObj& P) {
  py::dict d;
  for (int k = 0; k < kNumKinds; ++k)
    if (is_bomb_kind(k) && P.s.kind_plays[k]) d[py::cast(Kind(k))] = int(P.s.kind_plays[k]);
  return d;
}

bool same_state(const PlayState& a, const PlayState& b) {
  if (a.n != b.n || a.landlord != b.landlord || a.seat != b.seat || a.owner != b.owner || a.passes != b.passes ||
      a.out != b.out || a.top != b.top || a.actions != b.actions || a.top_it.kind != b.top_it.kind ||
      a.top_it.key != b.top_it.key || a.top_it.length != b.top_it.length)
    return false;
  for (int i = 0; i < 4; ++i)
    if (a.hand[i] != b.hand[i] || a.limit[i] != b.limit[i] || a.bombs[i] != b.bombs[i] || a.plays[i] != b.plays[i] ||
        a.missiles[i] != b.missiles[i])
      return false;
  for (int k = 0; k < kNumKinds; ++k)
    if (a.kind_plays[k] != b.kind_plays[k]) return false;
  return true;
}

// ---- the per-action methods, as raw CPython methods (raw_methods.hpp says why) ----------------

PyObject* ps_current_seat(PyObject* self, void*) {
  PlayStateObj* P = raw_value<PlayStateObj>(self);
  return P ? PyLong_FromLong(P->s.seat) : nullptr;
}

PyObject* ps_is_over(PyObject* self, void*) {
  PlayStateObj* P = raw_value<PlayStateObj>(self);
  return P ? PyBool_FromLong(P->s.over()) : nullptr;
}

PyObject* ps_legal_actions(PyObject* self, PyObject*) {
  PlayStateObj* P = raw_value<PlayStateObj>(self);
  if (!P) return nullptr;
  return raw_call([P]() -> PyObject* { return legal_id_list(*P->rules, P->s); });
}

PyObject* ps_apply(PyObject* self, PyObject* action) {
  PlayStateObj* P = raw_value<PlayStateObj>(self);
  if (!P) return nullptr;
  return raw_call([P, action]() -> PyObject* {
    P->check_writable();
    Counts cards = 0;
    int kind = -1;
    bool play = action_arg(*P, action, cards, kind);
    Interp reading;
    Illegal why = check_action(P->rules->r, P->s, cards, !play, kind, reading);
    if (why != Illegal::None) raise_illegal(*P, why, cards, kind, reading);
    Enc e = play ? encode(cards, reading.kind) : kPassEnc;
    push_action(*P, e, cards, !play, reading);
    // the reading is the one just checked: the Move need not classify the play again
    return new_move(play ? MoveObj{e, reading, P->rules} : make_move(P->rules, e));
  });
}

PyObject* ps_clone(PyObject* self, PyObject*) {
  PlayStateObj* P = raw_value<PlayStateObj>(self);
  if (!P) return nullptr;
  return raw_call([P]() -> PyObject* { return py::cast(P->copy()).release().ptr(); });
}

PyObject* ps_bombs_total(PyObject* self, void*) {
  PlayStateObj* P = raw_value<PlayStateObj>(self);
  return P ? PyLong_FromLong(long(P->s.bombs_total())) : nullptr;
}

PyGetSetDef ps_getters[] = {
    {"current_seat", ps_current_seat, nullptr, "the seat to act (the seat that went out, once the hand is over)",
     nullptr},
    {"is_over", ps_is_over, nullptr, "True once a seat has played its last card", nullptr},
    {"bombs_total", ps_bombs_total, nullptr, "bomb-class plays so far (the rocket included)", nullptr},
};

PyMethodDef ps_methods[] = {
    {"legal_actions", ps_legal_actions, METH_NOARGS,
     "legal_actions(self) -> list[int]\n\nlegal_moves() as action ids (Rules.action_space order; PASS is Rules.pass_id)."},
    {"apply", ps_apply, METH_O,
     "apply(self, action: ddz.Move | int | str) -> ddz.Move\n\nPlays a Move, an action id, a str of cards ('33344456', 'PLAY 33344456') or "
     "'PASS' for the seat to act; returns the Move applied. An illegal action raises ddz.IllegalAction and changes "
     "nothing."},
    {"clone", ps_clone, METH_NOARGS,
     "clone(self) -> ddz.PlayState\n\nAn independent copy (history included; the history is shared, so a clone costs the "
     "same at any point)."},
    {"__copy__", ps_clone, METH_NOARGS, "__copy__(self) -> ddz.PlayState\n\nclone()."},
};

}  // namespace

void bomb_limits_arg(const Rules& r, py::handle bomb_limits, uint8_t limits[4]) {
  for (int i = 0; i < 4; ++i) limits[i] = kUnlimited;
  if (bomb_limits.is_none()) return;
  if (!r.spec().bomb_limits) throw ArgumentError("bomb limits exist only in BENGBU4 (docs/rules.md §8)");
  const int n = r.players();
  std::vector<py::object> bl;
  for_each_item(bomb_limits, "bomb_limits", [&](py::handle v, size_t) {
    bl.push_back(py::reinterpret_borrow<py::object>(v));
  });
  if (int(bl.size()) != n) throw ArgumentError("bomb_limits needs one entry per seat (None = unlimited)");
  for (int i = 0; i < n; ++i) {
    if (bl[size_t(i)].is_none()) continue;
    std::string what = "bomb limit of " + seat_str(i);
    limits[i] = uint8_t(int_arg(bl[size_t(i)], what.c_str(), 0, kUnlimited - 1));
  }
}

void register_play(py::module_& m) {
  py::class_<PlayStateObj>(m, "PlayState",
                           "The play phase of one hand (docs/rules.md §3): tricks, passes, bombs, the end of the "
                           "hand. A fixed-size value with an undo log shared by its clones; pickles and deep-copies.")
      .def(py::init([](HandListArg hands, IntArg landlord_arg, RulesArg rules, LimitsArg bomb_limits) {
             RulesPtr rp = rules_arg(rules);
             const Rules& r = rp->r;
             const int n = r.players();
             std::vector<py::object> hl;
             for_each_item(hands, "hands", [&](py::handle h, size_t i) {
               if (int(i) >= n)
                 throw ArgumentError(std::string(variant_name(r)) + " has " + std::to_string(n) + " seats, got more hands");
               hl.push_back(py::reinterpret_borrow<py::object>(h));
             });
             if (int(hl.size()) != n)
               throw ArgumentError(std::string(variant_name(r)) + " has " + std::to_string(n) + " seats, got " +
                                   std::to_string(hl.size()) + " hands");
             int landlord = int(int_arg(landlord_arg, "landlord seat", 0, n - 1));
             Counts hs[4] = {0, 0, 0, 0};
             int total[kRanks] = {0};
             for (int i = 0; i < n; ++i) {
               hs[i] = hand_arg(hl[size_t(i)], *rp, "hand");
               if (!hs[i]) throw CardError(seat_str(i) + " has no cards");
               for (int k = 0; k < kRanks; ++k) total[k] += count_of(hs[i], k);
             }
             for (int k = 0; k < kRanks; ++k) {
               int lim = k >= kB ? r.max_joker() : r.max_per_rank();
               if (total[k] > lim)
                 throw CardError("the hands hold " + std::to_string(total[k]) + " '" + std::string(1, kRankChars[k]) +
                                 "' together; " + deck_name(rp->decks()) + " " + std::to_string(lim));
             }
             uint8_t limits[4];
             bomb_limits_arg(r, bomb_limits, limits);
             return PlayStateObj{rp, start_play(n, hs, landlord, limits), {}};
           }),
           py::arg("hands"), py::arg("landlord"), py::arg("rules"), py::arg("bomb_limits") = py::none(),
           "The play phase from its start: one hand per seat (together within the decks), the landlord, who "
           "leads, and BENGBU4 bomb limits (plays allowed per seat, None = unlimited; docs/rules.md §8).")
      .def_property_readonly("rules", [](const PlayStateObj& P) { return P.rules; })
      .def_property_readonly("num_players", [](const PlayStateObj& P) { return int(P.s.n); })
      .def_property_readonly("landlord", [](const PlayStateObj& P) { return int(P.s.landlord); })
      .def("hand", [](const PlayStateObj& P, IntArg seat_h) {
            int seat = seat_arg(P, seat_h);
            return CardsObj{P.s.hand[seat], P.rules->decks()};
          }, py::arg("seat"))
      .def_property_readonly("hands", [](const PlayStateObj& P) {
            py::list l;
            for (int i = 0; i < P.s.n; ++i) l.append(CardsObj{P.s.hand[i], P.rules->decks()});
            return l;
          })
      .def("cards_left", [](const PlayStateObj& P, IntArg seat_h) {
            int seat = seat_arg(P, seat_h);
            return total_cards(P.s.hand[seat]);
          }, py::arg("seat"))
      .def_property_readonly("top", &top_obj, "(Move, owner seat) of the play to beat, or None when leading")
      .def_property_readonly("passes", [](const PlayStateObj& P) { return int(P.s.passes); })
      .def_property_readonly("winner_seat", &winner_seat_obj, "the seat that went out, or None")
      .def_property_readonly("winner_side", &winner_side_obj, "'landlord' or 'farmers' once the hand is over, else None")
      .def_property_readonly("spring", [](const PlayStateObj& P) { return P.s.spring(P.rules->r); })
      .def_property_readonly("anti_spring", [](const PlayStateObj& P) { return P.s.anti_spring(P.rules->r); })
      .def("bombs_played", [](const PlayStateObj& P, IntArg seat_h) {
            int seat = seat_arg(P, seat_h);
            return int(P.s.bombs[seat]);
          }, py::arg("seat"), "bomb-class plays of a seat (ROCKET and JOKER_BOMB included)")
      .def("_summary", [](const PlayStateObj& P) {
            const PlayState& S = P.s;
            const Rules& r = P.rules->r;
            py::tuple missiles(S.n);
            for (int i = 0; i < S.n; ++i) missiles[size_t(i)] = int(S.missiles[i]);
            return py::make_tuple(winner_side_obj(P), winner_seat_obj(P), S.spring(r), S.anti_spring(r),
                                  bombs_by_kind_obj(P), missiles, int(S.bombs_total()));
          }, "(winner_side, winner_seat, spring, anti_spring, bombs_by_kind, missiles per seat, bombs_total) in "
             "one call: the fields of ddz.scoring.PlaySummary")
      .def_property_readonly("bombs_by_kind", &bombs_by_kind_obj)
      .def_property_readonly("rockets", [](const PlayStateObj& P) {
            return int(P.s.kind_plays[ROCKET] + P.s.kind_plays[JOKER_BOMB]);
          }, "ROCKET plays (one deck) or JOKER_BOMB plays (two decks)")
      .def("plays_made", [](const PlayStateObj& P, IntArg seat_h) {
            int seat = seat_arg(P, seat_h);
            return int(P.s.plays[seat]);
          }, py::arg("seat"), "non-pass plays of a seat")
      .def("missiles", [](const PlayStateObj& P, IntArg seat_h) {
            int seat = seat_arg(P, seat_h);
            return int(P.s.missiles[seat]);
          }, py::arg("seat"), "BENGBU4 missile units: BOMB7, BOMB8 and JOKER_BOMB plays made whole (docs/rules.md §8, \"Missiles\")")
      .def_property_readonly("bomb_limits", [](const PlayStateObj& P) {
            py::list l;
            for (int i = 0; i < P.s.n; ++i)
              l.append(P.s.limit[i] == kUnlimited ? py::object(py::none()) : py::object(py::int_(int(P.s.limit[i]))));
            return l;
          })
      .def_property_readonly("num_actions", [](const PlayStateObj& P) { return int(P.s.actions); })
      .def_property_readonly("history", [](const PlayStateObj& P) {
            py::list l;
            for (const LogNode* e : P.entries()) l.append(py::make_tuple(int(e->seat), make_move(P.rules, e->move)));
            return l;
          }, "[(seat, Move)] of every action so far (PASS included)")
      .def("legal_moves", [](const PlayStateObj& P) {
            MoveBuffer& b = tl_buf;
            b.clear();
            legal_actions(P.rules->r, P.s, b);
            py::list out(b.size);
            for (size_t i = 0; i < b.size; ++i) out[i] = py::cast(make_move(P.rules, b.data[i]));
            return out;
          }, "Moves of the seat to act: plays (bombs beyond its limit excluded), then PASS when following.")
      .def("legal_tokens", [](const PlayStateObj& P) -> py::list {
            MoveBuffer& b = tl_buf;
            b.clear();
            legal_actions(P.rules->r, P.s, b);
            PyObject* out = PyList_New(Py_ssize_t(b.size));
            if (!out) throw py::error_already_set();
            char text[5 + 40];
            std::memcpy(text, "PLAY ", 5);
            for (size_t i = 0; i < b.size; ++i) {
              PyObject* t;
              if (b.data[i] == kPassEnc) {
                t = PyUnicode_FromStringAndSize("PASS", 4);
              } else {
                size_t len = 5;
                Counts c = enc_cards(b.data[i]);
                for (int r = 0; r < kRanks; ++r)
                  for (int k = count_of(c, r); k; --k) text[len++] = kRankChars[r];
                t = PyUnicode_FromStringAndSize(text, Py_ssize_t(len));
              }
              if (!t) {
                Py_DECREF(out);
                throw py::error_already_set();
              }
              PyList_SET_ITEM(out, Py_ssize_t(i), t);
            }
            return py::reinterpret_steal<py::list>(out);
          }, "legal_moves() as ddz.Game's tokens: 'PLAY <ranks>' and 'PASS' (last, when following).")
      .def("legal_moves_array", [](const PlayStateObj& P) {
            MoveBuffer& b = tl_buf;
            b.clear();
            legal_actions(P.rules->r, P.s, b);
            return to_array(b);
          }, "legal_moves() encoded (uint64; PASS is Kind.PASS << 56)")
      .def("check", [](PlayStateObj& P, ActionArg action) { return check_obj(P, action); }, py::arg("action"),
          "None when apply(action) would succeed, otherwise the ddz.IllegalAction it would raise (not raised; "
          "its .code says why: a malformed action is MALFORMED). Changes nothing.")
      .def("can_apply", [](PlayStateObj& P, ActionArg action) { return check_obj(P, action).is_none(); },
           py::arg("action"), "check(action) is None.")
      .def_property_readonly("readonly", [](const PlayStateObj& P) { return P.readonly; },
           "True for a ddz.Game's own play state (Game.play_state): apply and undo raise ddz.ArgumentError; "
           "clone() gives a copy that may change")
      .def("undo", [](PlayStateObj& P) {
            P.check_writable();
            if (!P.log)
              throw IllegalActionError("nothing to undo: no action has been applied", Illegal::NothingToUndo);
            P.s = P.log->before;
            P.log = P.log->prev;
          }, "Takes back the last action exactly.")
      .def("__deepcopy__", [](const PlayStateObj& P, py::dict) { return P.copy(); }, py::arg("memo"))
      .def("__eq__", [](const PlayStateObj& a, py::object o) {
            if (!py::isinstance<PlayStateObj>(o)) return false;
            const PlayStateObj& b = o.cast<const PlayStateObj&>();
            if (a.rules->decks() != b.rules->decks() || !same_state(a.s, b.s) || a.log_size() != b.log_size()) return false;
            for (const LogNode *x = a.log.get(), *y = b.log.get(); x && x != y; x = x->prev.get(), y = y->prev.get())
              if (x->seat != y->seat || x->move != y->move || !same_state(x->before, y->before)) return false;
            return true;
          })
      // Pickled as its start (hands, landlord, rules, bomb limits) and the encoded actions, which
      // are replayed on load: the same state, history and undo log.
      .def("__reduce__", [](const PlayStateObj& P) {
            const PlayState& s0 = P.initial();
            py::list hands, limits, actions;
            for (int i = 0; i < s0.n; ++i) {
              hands.append(format_counts(s0.hand[i]));
              limits.append(s0.limit[i] == kUnlimited ? py::object(py::none()) : py::object(py::int_(int(s0.limit[i]))));
            }
            for (const LogNode* e : P.entries()) actions.append(py::int_(e->move));
            py::module_ core = py::module_::import("ddz._core");
            return py::make_tuple(core.attr("_play_state_from"),
                                  py::make_tuple(hands, int(s0.landlord), P.rules, limits, actions));
          })
      .def("__repr__", [](const PlayStateObj& P) {
            std::string s = std::string("PlayState(") + variant_name(P.rules->r) + ", landlord=" +
                            std::to_string(P.s.landlord) + ", to act=" + std::to_string(P.s.seat) + ", cards left=[";
            for (int i = 0; i < P.s.n; ++i) s += (i ? ", " : "") + std::to_string(total_cards(P.s.hand[i]));
            s += "]";
            if (!P.s.leading()) s += ", top='" + format_counts(enc_cards(P.s.top)) + "' by seat " + std::to_string(P.s.owner);
            if (P.s.over()) s += ", over: seat " + std::to_string(P.s.out) + " went out";
            return s + ")";
          });

  py::object cls = m.attr("PlayState");
  g_play_state_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  for (PyGetSetDef& g : ps_getters) add_raw_getter(cls, &g);
  for (PyMethodDef& d : ps_methods) add_raw_method(cls, &d);

  m.def("_play_state_from", [](py::handle hands, py::handle landlord, py::handle rules, py::handle limits,
                               py::handle actions) {
        py::object cls = py::module_::import("ddz._core").attr("PlayState");
        py::object obj = cls(hands, landlord, rules, limits.is_none() || !rules_arg(rules)->r.spec().bomb_limits
                                                          ? py::object(py::none()) : py::reinterpret_borrow<py::object>(limits));
        PlayStateObj& P = obj.cast<PlayStateObj&>();
        for_each_item(actions, "actions", [&](py::handle a, size_t i) {
          uint64_t e = u64_arg(a, "an encoded action");
          bool pass = e == kPassEnc;
          Counts cards = pass ? 0 : enc_cards(e);
          Interp reading;
          Illegal why = check_action(P.rules->r, P.s, cards, pass, pass ? -1 : enc_kind(e), reading);
          if (why != Illegal::None)
            throw ArgumentError("pickled play state: action " + std::to_string(i) + " does not replay (" +
                                illegal_message(P, why, cards, enc_kind(e), reading) + ")");
          push_action(P, pass ? kPassEnc : encode(cards, reading.kind), cards, pass, reading);
        });
        return obj;
      }, "Rebuilds a pickled PlayState (its start and its encoded actions).");

  m.def("deal", [](RulesArg rules, IntArg seed_arg, IntArg game_arg) {
        RulesPtr rp = rules_arg(rules);
        uint64_t seed = u64_arg(seed_arg, "seed"), game = u64_arg(game_arg, "game");
        Counts hands[4];
        int landlord;
        deal_game(rp->r, seed, game, hands, landlord);
        py::list l;
        for (int i = 0; i < rp->r.players(); ++i) l.append(CardsObj{hands[i], rp->decks()});
        return py::make_tuple(l, landlord);
      }, py::arg("rules"), py::arg("seed"), py::arg("game") = 0,
      "The seeded deal of game `game` that simulate() plays: (hands with the kitty in the landlord's, landlord).");

  m.attr("MAX_THREADS") = kMaxThreads;
  m.def("_simulate", [](py::handle rules, py::handle games_arg, py::handle policy_arg, py::handle seed_arg,
                        py::handle threads_arg, py::handle first_arg) {
        RulesPtr rp = rules_arg(rules);
        uint64_t games = uint64_t(int_arg(games_arg, "games", 0, kMaxGames));
        int policy = int(int_arg(policy_arg, "policy", kRandom, kGreedy));
        uint64_t seed = u64_arg(seed_arg, "seed");
        int threads = int(int_arg(threads_arg, "threads", 1, kMaxThreads));
        uint64_t first = u64_arg(first_arg, "first_game");
        if (first + games < first) throw ArgumentError("first_game + games must stay below 2**64");
        std::vector<SimResult> res(games);
        {
          py::gil_scoped_release nogil;
          const Rules& r = rp->r;
          uint64_t chunk = (games + uint64_t(threads) - 1) / uint64_t(threads);
          std::vector<std::thread> pool;
          auto run = [&r, policy, seed, first, &res](uint64_t a, uint64_t b) {
            simulate_range(r, policy, seed, first + a, first + b, res.data() + a);
          };
          for (int t = 0; t < threads; ++t) {
            uint64_t a = uint64_t(t) * chunk, b = std::min(games, a + chunk);
            if (a >= b) break;
            try {
              pool.emplace_back(run, a, b);
            } catch (const std::system_error&) {
              // The system refused another thread: play this chunk here; the threads already
              // started keep theirs (the results do not depend on who plays a game).
              run(a, b);
            }
          }
          for (auto& th : pool) th.join();
        }
        auto col = [&](auto field, auto tag) {
          using T = decltype(tag);
          py::array_t<T> a{py::ssize_t(games)};
          T* d = a.mutable_data();
          for (uint64_t i = 0; i < games; ++i) d[i] = T(res[i].*field);
          return a;
        };
        py::dict d;
        d["winner_side"] = col(&SimResult::winner_side, int8_t());
        d["landlord"] = col(&SimResult::landlord, int8_t());
        d["actions"] = col(&SimResult::actions, int16_t());
        d["plays"] = col(&SimResult::plays, int16_t());
        d["bombs"] = col(&SimResult::bombs, int16_t());
        d["rockets"] = col(&SimResult::rockets, int16_t());
        d["spring"] = col(&SimResult::spring, bool());
        d["anti_spring"] = col(&SimResult::anti_spring, bool());
        d["missiles_landlord"] = col(&SimResult::missiles_landlord, int16_t());
        d["missiles_farmers"] = col(&SimResult::missiles_farmers, int16_t());
        return d;
      }, py::arg("rules"), py::arg("games"), py::arg("policy"), py::arg("seed"), py::arg("threads"),
      py::arg("first_game") = 0);
}

// pybind11 registration of physical cards: card names and ids, the seeded physical deal,
// and the suited hands of one hand of play (PhysicalHands), whose play() applies a play
// of real cards to them and to the rank-only PlayState in one step.
#include <algorithm>

#include "../ddz/deal.hpp"
#include "../ddz/physical.hpp"
#include "common.hpp"
#include "physical_obj.hpp"
#include "raw_methods.hpp"

namespace {

constexpr const char* kSuitChars = "shcd";

int decks_arg(py::handle h) { return int(int_arg(h, "decks", 1, 2)); }

}  // namespace

std::string card_name(int id) {
  int x = id % 54;
  std::string s = x < 52 ? std::string{kRankChars[x / 4], kSuitChars[x % 4]} : std::string(1, "BR"[x - 52]);
  if (id >= 54) s += '\'';
  return s;
}

/// The id of a card name such as 3s, Th, B or 3s' (the second deck's copy).
int card_id(const std::string& raw_in, int decks) {
  size_t a = raw_in.find_first_not_of(" \t\n");
  size_t b = raw_in.find_last_not_of(" \t\n");
  std::string raw = a == std::string::npos ? "" : raw_in.substr(a, b - a + 1);
  bool second = !raw.empty() && raw.back() == '\'';
  std::string core = second ? raw.substr(0, raw.size() - 1) : raw;
  if (second && decks == 1)
    throw CardError("card '" + shown(raw_in) + "' names a second deck, but these rules use one deck");
  int x = -1;
  if (core == "B" || core == "R") {
    x = core == "B" ? 52 : 53;
  } else if (core.size() == 2) {
    int rank = rank_of_char(char(std::toupper((unsigned char)core[0])));
    const char* suit = std::strchr(kSuitChars, std::tolower((unsigned char)core[1]));
    if (rank >= 0 && rank < 13 && suit && core[1]) x = 4 * rank + int(suit - kSuitChars);
  }
  if (x < 0)
    throw CardError("unknown card '" + shown(raw_in) +
                    "': write a rank and a suit (3s, Th, 2d) or B / R for the jokers");
  return x + (second ? 54 : 0);
}

namespace {

/// A card given as an id or a name.
int card_item(py::handle item, int decks) {
  if (is_int(item)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(as_pylong(item).ptr(), &overflow);
    if (overflow || v < 0 || v >= 54 * decks)
      throw CardError("card id " + int_shown(item) + " is not in 0.." + std::to_string(54 * decks - 1));
    return int(v);
  }
  if (py::isinstance<py::str>(item)) return card_id(text_arg(item, "a card name"), decks);
  throw CardTypeError("a card is a name such as '3s' or an id, not " + type_name(item));
}

/// Adds a card to a set of distinct cards.
void add_card(IdSet& set, int& count, int id, int decks) {
  if (count == 54 * decks)
    throw CardError("more than " + std::to_string(54 * decks) + " cards named: " +
                    (decks == 2 ? "two decks hold " : "a deck holds ") + std::to_string(54 * decks));
  if (set & id_bit(id)) throw CardError("card " + card_name(id) + " named twice");
  set |= id_bit(id);
  ++count;
}

}  // namespace

/// Card ids from "3s 3h,3d" or an iterable of names and ids; a card named twice is an error.
IdSet card_set(py::handle cards, int decks, std::vector<int>* in_order) {
  IdSet set = 0;
  int count = 0;
  auto add = [&](int id) {
    add_card(set, count, id, decks);
    if (in_order) in_order->push_back(id);
  };
  if (py::isinstance<py::str>(cards)) {
    std::string text = text_arg(cards, "cards");
    std::string word;
    for (size_t i = 0; i <= text.size(); ++i) {
      char ch = i < text.size() ? text[i] : ' ';
      if (ch == ' ' || ch == ',' || ch == '\t' || ch == '\n') {
        if (!word.empty()) add(card_id(word, decks));
        word.clear();
      } else {
        word += ch;
      }
    }
    return set;
  }
  if (PyBytes_Check(cards.ptr())) throw CardTypeError("cards are a str or a sequence of names or ids, not bytes");
  PyObject* it = PyObject_GetIter(cards.ptr());
  if (!it) {
    PyErr_Clear();
    throw CardTypeError("cards are a str or a sequence of names or ids, not " + type_name(cards));
  }
  py::object iter = py::reinterpret_steal<py::object>(it);
  while (PyObject* item = PyIter_Next(iter.ptr())) {
    py::object o = py::reinterpret_steal<py::object>(item);
    if (count == 54 * decks) add_card(set, count, 0, decks);  // raises: too many
    add(card_item(o, decks));
  }
  if (PyErr_Occurred()) throw py::error_already_set();
  return set;
}

py::list id_list(IdSet s) {
  PyObject* out = PyList_New(Py_ssize_t(id_count(s)));
  if (!out) throw py::error_already_set();
  Py_ssize_t i = 0;
  while (s) {
    PyList_SET_ITEM(out, i++, PyLong_FromLong(lowest_id(s)));
    s &= s - 1;
  }
  return py::reinterpret_steal<py::list>(out);
}

std::string names_of(IdSet s) {
  char buf[kPlayTokenMax];
  return std::string(buf, names_into(s, buf));
}

size_t names_into(IdSet s, char* out) {
  size_t n = 0;
  for (; s; s &= s - 1) {
    const int id = lowest_id(s), x = id % 54;
    if (n) out[n++] = ' ';
    if (x < 52) {
      out[n++] = kRankChars[x / 4];
      out[n++] = kSuitChars[x % 4];
    } else {
      out[n++] = "BR"[x - 52];
    }
    if (id >= 54) out[n++] = '\'';
  }
  return n;
}

namespace {

int seat_of(const PhysicalObj& P, py::handle h) { return int(int_arg(h, "seat", 0, P.h.n - 1)); }

}  // namespace

/// The cards of a play of the seat to act (false: PASS), parsed and found in its hand; `kind`
/// is the reading an action id names (-1: read by docs/rules.md §4.4). Raises IllegalAction
/// (MALFORMED, NOT_HELD) and changes nothing.
bool play_cards(const PhysicalHands& H, PlayStateObj& S, py::handle a, IdSet& ids, int& kind) {
  const int seat = S.s.seat;
  const int decks = H.decks;
  Counts ranks = 0;
  bool by_ranks = false;
  kind = -1;
  try {
    if (is_int(a)) {  // an action id: a play's, or PASS
      Enc e;
      if (!id_action(S, a, e)) return false;
      ranks = enc_cards(e);
      kind = enc_kind(e);
      by_ranks = true;
    } else if (is_move(a)) {
      const MoveObj& m = move_of(a);
      if (is_pass(m)) return false;
      ranks = enc_cards(m.enc);
      by_ranks = true;
    } else if (PyUnicode_Check(a.ptr())) {
      std::string t = text_arg(a, "the play");
      size_t b = t.find_first_not_of(" \t\n"), e = t.find_last_not_of(" \t\n");
      t = b == std::string::npos ? "" : t.substr(b, e - b + 1);
      std::string up = t;
      for (char& c : up) c = char(std::toupper((unsigned char)c));
      if (up == "PASS") return false;
      if (up.rfind("PLAY", 0) == 0) {
        t = t.substr(4);
        size_t s0 = t.find_first_not_of(" \t\n");
        t = s0 == std::string::npos ? "" : t.substr(s0);
      }
      if (t.empty()) throw IllegalActionError("an empty play: name the cards, or PASS", Illegal::Malformed);
      if (t.find_first_of("shcd' ") != std::string::npos) {
        ids = card_set(py::str(t), decks);
      } else {
        ranks = parse_counts(t, decks);
        by_ranks = true;
      }
    } else if (PyList_Check(a.ptr()) || PyTuple_Check(a.ptr())) {
      ids = card_set(a, decks);
    } else {
      throw IllegalActionTypeError("a play is 'PLAY <cards>', 'PASS', a Move or a list of card ids, not " +
                                   type_name(a));
    }
  } catch (const IllegalActionError&) {
    throw;
  } catch (const CardTypeError& e) {
    throw IllegalActionTypeError(e.what());
  } catch (const DdzError& e) {
    throw IllegalActionError(e.what(), Illegal::Malformed);
  }
  if (by_ranks) {
    if (!H.pick(seat, ranks, ids))
      throw IllegalActionError(seat_str(seat) + " does not hold '" + format_counts(ranks) + "' (holds '" +
                                   format_counts(counts_of_ids(H.held[seat])) + "')",
                               Illegal::NotHeld);
    return true;
  }
  IdSet missing = ids & ~H.held[seat];
  if (missing) {
    std::string names;
    int k = 0;
    for (IdSet m = missing; m && k < 10; m &= m - 1, ++k) names += (k ? " " : "") + card_name(lowest_id(m));
    throw IllegalActionError(seat_str(seat) + " does not hold " + names, Illegal::NotHeld);
  }
  if (!ids) throw IllegalActionError("an empty play: name the cards, or PASS", Illegal::Malformed);
  return true;
}

/// Checks a play of real cards against the hands and the play state; fills what apply needs.
Illegal check_play(const PhysicalHands& H, PlayStateObj& S, py::handle a, IdSet& ids, bool& pass, Interp& reading,
                   std::string& message, bool& type_error) {
  type_error = false;
  if (S.s.over()) {
    message = "the hand is over: " + seat_str(S.s.out) + " went out";
    return Illegal::Over;
  }
  int kind = -1;
  try {
    pass = !play_cards(H, S, a, ids, kind);
  } catch (const IllegalActionTypeError& e) {
    message = e.what();
    type_error = true;
    return e.code;
  } catch (const IllegalActionError& e) {
    message = e.what();
    return e.code;
  }
  Counts cards = pass ? 0 : counts_of_ids(ids);
  Illegal why = check_action(S.rules->r, S.s, cards, pass, kind, reading);
  if (why != Illegal::None) message = illegal_message(S, why, cards, kind, reading);
  return why;
}

namespace {

PlayStateObj& play_state_of(py::handle h) {
  PlayStateObj* S = play_state_ptr(h.ptr());
  if (!S) throw ArgumentTypeError("a PlayState is needed, not " + type_name(h));
  return *S;
}

/// PhysicalHands.play, a raw method (raw_methods.hpp): ddz.Game calls it once per play.
PyObject* physical_play(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  PhysicalObj* P = raw_value<PhysicalObj>(self);
  if (!P) return nullptr;
  return raw_call([P, args, nargs]() -> PyObject* {
    if (nargs != 2 && nargs != 3)
      throw ArgumentTypeError("play(play_state, action, history=None) takes 2 or 3 arguments, got " +
                              std::to_string(nargs));
    PyObject* history = nargs == 3 && args[2] != Py_None ? args[2] : nullptr;
    if (history && !PyList_Check(history)) throw ArgumentTypeError("history must be a list, not " + type_name(args[2]));
    PlayStateObj& S = play_state_of(args[0]);
    S.check_writable();
    IdSet ids = 0;
    bool pass = false;
    Interp reading;
    std::string msg;
    const int seat = S.s.seat;
    bool type_error;
    Illegal why = check_play(P->h, S, args[1], ids, pass, reading, msg, type_error);
    if (type_error) throw IllegalActionTypeError(msg);
    if (why != Illegal::None) throw IllegalActionError(msg, why);
    PyObject* token;
    if (pass) {
      push_action(S, kPassEnc, 0, true, reading);
      token = PyUnicode_FromStringAndSize("PASS", 4);
    } else {
      Counts cards = counts_of_ids(ids);
      push_action(S, encode(cards, reading.kind), cards, false, reading);
      P->h.held[seat] &= ~ids;
      std::string text = "PLAY " + names_of(ids);
      token = PyUnicode_FromStringAndSize(text.data(), Py_ssize_t(text.size()));
    }
    if (token && history) {  // the play is made: record it (a failure here is only out of memory)
      PyObject* seat_obj = PyLong_FromLong(seat);
      PyObject* entry = seat_obj ? PyTuple_Pack(2, seat_obj, token) : nullptr;
      Py_XDECREF(seat_obj);
      if (!entry || PyList_Append(history, entry) < 0) {
        Py_XDECREF(entry);
        Py_DECREF(token);
        return nullptr;
      }
      Py_DECREF(entry);
    }
    return token;
  });
}

PyMethodDef physical_methods[] = {
    {"play", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(physical_play)), METH_FASTCALL,
     "play(self, play_state: ddz.PlayState, action: int | str | ddz.Move | list[int | str], history: list | None = None) -> str\n\nPlays real cards for the seat to act of `play_state`: an action id, a "
     "Move or 'PLAY <ranks>' takes the seat's lowest ids of each rank (an id's reading must be the one the state "
     "gives them), 'PLAY 3s 3h' or a list of ids/names names them; 'PASS' (or PASS's id) passes. Applies it to "
     "both and returns the recorded token ('PLAY 3s 3h', 'PASS'), appending (seat, token) to `history` when given. An "
     "illegal play raises ddz.IllegalAction and changes neither."},
};

}  // namespace

void register_physical(py::module_& m) {
  m.def("card_name", [](IntArg id_h, IntArg decks_h) {
        int decks = decks_arg(decks_h);
        if (!is_int(id_h))
          throw CardError("card id " + shown(std::string(py::repr(id_h))) + " is not in 0.." + std::to_string(54 * decks - 1));
        return card_name(card_item(id_h, decks));
      }, py::arg("id"), py::arg("decks") = 1, "'3s', 'Th', 'B'; the second deck's copy ends with \"'\".");
  m.def("card_id", [](py::handle name, IntArg decks_h) {
        int decks = decks_arg(decks_h);
        if (!py::isinstance<py::str>(name))
          throw CardTypeError("a card name is a str such as '3s', not " + shown(std::string(py::repr(name))));
        return card_id(text_arg(name, "a card name"), decks);
      }, py::arg("name"), py::arg("decks") = 1, "The id of a card name such as '3s', 'Th', 'B', \"3s'\".");
  m.def("parse_card_names", [](py::handle cards, IntArg decks_h) {
        int decks = decks_arg(decks_h);
        std::vector<int> order;
        card_set(cards, decks, &order);
        return order;
      }, py::arg("cards"), py::arg("decks") = 1,
      "Card ids, in the order named, from names (\"3s 3h 3d\", \"3s,3h\") or a sequence of names and ids; a card "
      "named twice, or more cards than the decks hold, is a CardError.");
  m.def("deal_order", [](RulesArg rules, IntArg seed_h, IntArg game_h) {
        RulesPtr rp = rules_arg(rules);
        PhysicalDeal d;
        deal_physical(rp->r, u64_arg(seed_h, "seed"), u64_arg(game_h, "game"), d);
        return py::make_tuple(std::vector<int>(d.order, d.order + d.size), d.first_seat, d.coin);
      }, py::arg("rules"), py::arg("seed"), py::arg("game") = 0,
      "The shuffled deck of game `game` of the series `seed` (card ids: the hands in seat order, the kitty, the "
      "set-aside cards), the seat it names first (simulate's landlord, Game's first bidder) and a coin (0/1: TWOP's "
      "first to decide). ddz.deal, ddz.simulate and ddz.Game all deal from it.");

  py::class_<PhysicalObj>(m, "PhysicalHands",
                          "The suited cards of one hand of play: each seat's card ids, the kitty and the set-aside "
                          "part (docs/rules.md §1). ddz.Game keeps the hands here; the rank-only PlayState beside "
                          "it is what the rules read.")
      .def(py::init([](RulesArg rules, py::handle hands, py::handle kitty, py::handle aside) {
             RulesPtr rp = rules_arg(rules);
             const VariantSpec& l = rp->r.spec();
             PhysicalObj P{rp, {}};
             P.h.n = l.players;
             P.h.decks = l.decks;
             IdSet all = 0;
             auto take = [&](py::handle cards, const std::string& what, int want) {
               IdSet s = card_set(cards, l.decks);
               if (id_count(s) != want)
                 throw ArgumentError(what + " must hold " + std::to_string(want) + " cards, got " +
                                     std::to_string(id_count(s)));
               if (s & all) throw CardError(what + " holds " + card_name(lowest_id(s & all)) + ", dealt twice");
               all |= s;
               return s;
             };
             int seat = 0;
             for_each_item(hands, "hands", [&](py::handle h, size_t i) {
               if (int(i) >= l.players) throw ArgumentError("hands must list " + std::to_string(l.players) + " hands");
               P.h.held[i] = take(h, seat_str(int(i)), l.hand);
               seat = int(i) + 1;
             });
             if (seat != l.players) throw ArgumentError("hands must list " + std::to_string(l.players) + " hands");
             P.h.kitty = take(kitty, "the kitty", l.kitty);
             P.h.aside = take(aside, "the set-aside part", l.aside);
             return P;
           }),
           py::arg("rules"), py::arg("hands"), py::arg("kitty"), py::arg("aside"),
           "Hands of card ids (one per seat, the variant's hand size each), the kitty and the set-aside part; no "
           "card twice.")
      .def_static("deal", [](RulesArg rules, IntArg seed_h, IntArg game_h) {
            RulesPtr rp = rules_arg(rules);
            PhysicalDeal d;
            deal_physical(rp->r, u64_arg(seed_h, "seed"), u64_arg(game_h, "game"), d);
            return py::make_tuple(PhysicalObj{rp, physical_hands(rp->r, d)}, d.first_seat, d.coin);
          }, py::arg("rules"), py::arg("seed"), py::arg("game") = 0,
          "(hands, first seat, coin) of game `game` of the series `seed`, laid out from deal_order().")
      .def("start_play", [](const PhysicalObj& P, IntArg landlord_h, LimitsArg bomb_limits) {
            const int n = P.h.n;
            const int landlord = int(int_arg(landlord_h, "landlord seat", 0, n - 1));
            Counts hs[4] = {0, 0, 0, 0};
            for (int i = 0; i < n; ++i) {
              hs[i] = counts_of_ids(P.h.held[i]);
              if (!hs[i]) throw CardError(seat_str(i) + " has no cards");
            }
            uint8_t limits[4];
            bomb_limits_arg(P.rules->r, bomb_limits, limits);
            return PlayStateObj{P.rules, start_play(n, hs, landlord, limits), {}};
          }, py::arg("landlord"), py::arg("bomb_limits") = py::none(),
          "The play phase from these hands as they are now (PlayState(hands' cards, landlord, rules, "
          "bomb_limits) in one step): Game starts its play with it.")
      .def("ids", [](const PhysicalObj& P, IntArg seat) { return id_list(P.h.held[seat_of(P, seat)]); },
           py::arg("seat"), "The seat's card ids, ascending.")
      .def("cards", [](const PhysicalObj& P, IntArg seat) {
            return CardsObj{counts_of_ids(P.h.held[seat_of(P, seat)]), P.h.decks};
          }, py::arg("seat"), "The seat's cards by rank.")
      .def("names", [](const PhysicalObj& P, IntArg seat) {
            py::list l;
            for (IdSet s = P.h.held[seat_of(P, seat)]; s; s &= s - 1) l.append(card_name(lowest_id(s)));
            return l;
          }, py::arg("seat"), "The seat's card names, by ascending id.")
      .def("count", [](const PhysicalObj& P, IntArg seat) { return id_count(P.h.held[seat_of(P, seat)]); },
           py::arg("seat"))
      .def_property_readonly("kitty", [](const PhysicalObj& P) { return id_list(P.h.kitty); })
      .def_property_readonly("kitty_cards", [](const PhysicalObj& P) { return CardsObj{counts_of_ids(P.h.kitty), P.h.decks}; },
                             "The kitty by rank.")
      .def_property_readonly("aside", [](const PhysicalObj& P) { return id_list(P.h.aside); })
      .def("take_kitty", [](PhysicalObj& P, IntArg seat) { P.h.take_kitty(seat_of(P, seat)); }, py::arg("seat"),
           "The kitty joins the seat's hand (the kitty list stays, as the record of what it held).")
      .def("check_play", [](const PhysicalObj& P, py::handle ps, py::handle action) -> py::object {
            PlayStateObj& S = play_state_of(ps);
            IdSet ids = 0;
            bool pass = false;
            Interp reading;
            std::string msg;
            bool type_error;
            Illegal why = check_play(P.h, S, action, ids, pass, reading, msg, type_error);
            if (why == Illegal::None) return py::none();
            return illegal_object(type_error ? g_illegal_type_twin : g_illegal_type, msg, why);
          }, py::arg("play_state"), py::arg("action"),
          "None when play(play_state, action) would succeed, otherwise the IllegalAction it would raise.")
      .def("copy", [](const PhysicalObj& P) { return PhysicalObj(P); })
      .def("__copy__", [](const PhysicalObj& P) { return PhysicalObj(P); })
      .def("__deepcopy__", [](const PhysicalObj& P, py::handle) { return PhysicalObj(P); }, py::arg("memo"));
  for (PyMethodDef& d : physical_methods) add_raw_method(m.attr("PhysicalHands"), &d);
}

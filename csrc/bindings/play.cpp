// pybind11 registration of the play phase: ddz.PlayState, ddz.simulate, ddz.deal.
#include <thread>

#include "../ddz/play.hpp"
#include "common.hpp"

namespace {

const char* variant_name(const Rules& r) { return r.variant == 0 ? "CLASSIC3" : r.variant == 1 ? "TWOP" : "BENGBU4"; }

struct LogEntry {
  uint8_t seat;
  Enc move;        // kPassEnc for a pass
  PlayState before;
};

struct PlayStateObj {
  RulesPtr rules;
  PlayState s;
  std::vector<LogEntry> log;
};

std::string seat_str(int s) { return "seat " + std::to_string(s); }

void check_seat(const PlayStateObj& P, int seat) {
  if (seat < 0 || seat >= P.s.n)
    throw py::value_error("no seat " + std::to_string(seat) + ": seats are 0.." + std::to_string(P.s.n - 1));
}

std::string reading_str(const Interp& it) { return kind_name(it.kind); }

/// Converts an action argument; returns false for a pass. `kind` < 0: read by §2.0.4.
bool action_arg(PlayStateObj& P, py::handle a, Counts& cards, int& kind) {
  kind = -1;
  if (py::isinstance<py::int_>(a) && !py::isinstance<py::bool_>(a)) {
    long long id = a.cast<long long>();
    int pass = P.rules->pass_id();
    if (id == pass) return false;
    if (id < 0 || id > pass)
      throw IllegalActionError("action id " + std::to_string(id) + " is out of range 0.." + std::to_string(pass) +
                               " (" + std::to_string(pass) + " is PASS)");
    Enc e = P.rules->plays()[size_t(id)];
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
    std::string s = a.cast<std::string>();
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
  throw py::type_error("an action is a Move, an action id (int), a str of cards or 'PASS'");
}

[[noreturn]] void raise_illegal(const PlayStateObj& P, Illegal why, Counts cards, int kind, const Interp& reading) {
  const PlayState& s = P.s;
  const Rules& r = P.rules->r;
  std::string c = "'" + format_counts(cards) + "'";
  switch (why) {
    case Illegal::Over:
      throw IllegalActionError("the hand is over: " + seat_str(s.out) + " went out");
    case Illegal::LeadPass:
      throw IllegalActionError(seat_str(s.seat) + " leads a new trick and cannot pass");
    case Illegal::NotHeld:
      throw IllegalActionError(seat_str(s.seat) + " does not hold " + c + " (holds '" + format_counts(s.hand[s.seat]) + "')");
    case Illegal::NotCombination:
      throw IllegalActionError(c + " is not a legal combination of " + variant_name(r));
    case Illegal::DoesNotBeat:
      throw IllegalActionError(c + " does not beat '" + format_counts(enc_cards(s.top)) + "' (" +
                               reading_str(s.top_it) + ") played by " + seat_str(s.owner));
    case Illegal::WrongReading:
      throw IllegalActionError(c + " is read as " + reading_str(reading) + " here, not " + kind_name(kind) +
                               " (RULES.md §2.0.4)");
    case Illegal::BombLimit:
      throw IllegalActionError(seat_str(s.seat) + " has made the " + std::to_string(s.limit[s.seat]) +
                               " bomb play(s) its bid allows (RULES.md §2.3.6)");
    case Illegal::None: break;
  }
  throw IllegalActionError("illegal action");
}

py::object top_obj(const PlayStateObj& P) {
  if (P.s.leading()) return py::none();
  MoveObj m{P.s.top, P.s.top_it, P.rules};
  return py::make_tuple(m, int(P.s.owner));
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

}  // namespace

void register_play(py::module_& m) {
  py::class_<PlayStateObj>(m, "PlayState",
                           "The play phase of one hand (RULES.md §2.0.1): tricks, passes, bombs, the end of the "
                           "hand. A fixed-size value with an undo log; clone() copies it.")
      .def(py::init([](py::sequence hands, int landlord, RulesPtr rp, py::object bomb_limits) {
             const Rules& r = rp->r;
             const int n = r.players();
             if (int(py::len(hands)) != n)
               throw py::value_error(std::string(variant_name(r)) + " has " + std::to_string(n) + " seats, got " +
                                     std::to_string(py::len(hands)) + " hands");
             if (landlord < 0 || landlord >= n)
               throw py::value_error("landlord seat " + std::to_string(landlord) + " is not in 0.." + std::to_string(n - 1));
             Counts hs[4] = {0, 0, 0, 0};
             int total[kRanks] = {0};
             for (int i = 0; i < n; ++i) {
               hs[i] = hand_arg(hands[size_t(i)], *rp, "hand");
               if (!hs[i]) throw py::value_error(seat_str(i) + " has no cards");
               for (int k = 0; k < kRanks; ++k) total[k] += count_of(hs[i], k);
             }
             for (int k = 0; k < kRanks; ++k) {
               int lim = k >= kB ? r.max_joker() : r.max_per_rank();
               if (total[k] > lim)
                 throw CardError("the hands hold " + std::to_string(total[k]) + " '" + std::string(1, kRankChars[k]) +
                                 "' together; " + deck_name(rp->decks()) + " " + std::to_string(lim));
             }
             uint8_t limits[4] = {kUnlimited, kUnlimited, kUnlimited, kUnlimited};
             if (!bomb_limits.is_none()) {
               if (r.variant != 2) throw py::value_error("bomb limits exist only in BENGBU4 (RULES.md §2.3.6)");
               py::sequence bl = bomb_limits.cast<py::sequence>();
               if (int(py::len(bl)) != n) throw py::value_error("bomb_limits needs one entry per seat (None = unlimited)");
               for (int i = 0; i < n; ++i) {
                 py::object v = bl[size_t(i)];
                 if (v.is_none()) continue;
                 long long x = v.cast<long long>();
                 if (x < 0 || x >= kUnlimited) throw py::value_error("bomb limit of " + seat_str(i) + " must be 0..254 or None");
                 limits[i] = uint8_t(x);
               }
             }
             return PlayStateObj{rp, start_play(n, hs, landlord, limits), {}};
           }),
           py::arg("hands"), py::arg("landlord"), py::arg("rules"), py::arg("bomb_limits") = py::none())
      .def_property_readonly("rules", [](const PlayStateObj& P) { return P.rules; })
      .def_property_readonly("num_players", [](const PlayStateObj& P) { return int(P.s.n); })
      .def_property_readonly("landlord", [](const PlayStateObj& P) { return int(P.s.landlord); })
      .def_property_readonly("current_seat", [](const PlayStateObj& P) { return int(P.s.seat); })
      .def("hand", [](const PlayStateObj& P, int seat) {
            check_seat(P, seat);
            return CardsObj{P.s.hand[seat], P.rules->decks()};
          }, py::arg("seat"))
      .def_property_readonly("hands", [](const PlayStateObj& P) {
            py::list l;
            for (int i = 0; i < P.s.n; ++i) l.append(CardsObj{P.s.hand[i], P.rules->decks()});
            return l;
          })
      .def("cards_left", [](const PlayStateObj& P, int seat) {
            check_seat(P, seat);
            return total_cards(P.s.hand[seat]);
          }, py::arg("seat"))
      .def_property_readonly("top", &top_obj, "(Move, owner seat) of the play to beat, or None when leading")
      .def_property_readonly("passes", [](const PlayStateObj& P) { return int(P.s.passes); })
      .def_property_readonly("is_over", [](const PlayStateObj& P) { return P.s.over(); })
      .def_property_readonly("winner_seat", [](const PlayStateObj& P) -> py::object {
            return P.s.over() ? py::object(py::int_(int(P.s.out))) : py::object(py::none());
          }, "the seat that went out, or None")
      .def_property_readonly("winner_side", [](const PlayStateObj& P) -> py::object {
            if (!P.s.over()) return py::none();
            return py::str(P.s.landlord_won() ? "landlord" : "farmers");
          }, "'landlord' or 'farmers' once the hand is over, else None")
      .def_property_readonly("spring", [](const PlayStateObj& P) { return P.s.spring(P.rules->r); })
      .def_property_readonly("anti_spring", [](const PlayStateObj& P) { return P.s.anti_spring(P.rules->r); })
      .def("bombs_played", [](const PlayStateObj& P, int seat) {
            check_seat(P, seat);
            return int(P.s.bombs[seat]);
          }, py::arg("seat"), "bomb-class plays of a seat (ROCKET and JOKER_BOMB included)")
      .def_property_readonly("bombs_total", [](const PlayStateObj& P) { return P.s.bombs_total(); })
      .def_property_readonly("bombs_by_kind", [](const PlayStateObj& P) {
            py::dict d;
            for (int k = 0; k < kNumKinds; ++k)
              if (is_bomb_kind(k) && P.s.kind_plays[k]) d[py::cast(Kind(k))] = int(P.s.kind_plays[k]);
            return d;
          })
      .def_property_readonly("rockets", [](const PlayStateObj& P) {
            return int(P.s.kind_plays[ROCKET] + P.s.kind_plays[JOKER_BOMB]);
          }, "ROCKET plays (one deck) or JOKER_BOMB plays (two decks)")
      .def("plays_made", [](const PlayStateObj& P, int seat) {
            check_seat(P, seat);
            return int(P.s.plays[seat]);
          }, py::arg("seat"), "non-pass plays of a seat")
      .def("missiles", [](const PlayStateObj& P, int seat) {
            check_seat(P, seat);
            return int(P.s.missiles[seat]);
          }, py::arg("seat"), "BENGBU4 missile units: BOMB7, BOMB8 and JOKER_BOMB plays made whole (§2.3.7)")
      .def_property_readonly("bomb_limits", [](const PlayStateObj& P) {
            py::list l;
            for (int i = 0; i < P.s.n; ++i)
              l.append(P.s.limit[i] == kUnlimited ? py::object(py::none()) : py::object(py::int_(int(P.s.limit[i]))));
            return l;
          })
      .def_property_readonly("num_actions", [](const PlayStateObj& P) { return int(P.s.actions); })
      .def_property_readonly("history", [](const PlayStateObj& P) {
            py::list l;
            for (const LogEntry& e : P.log) l.append(py::make_tuple(int(e.seat), make_move(P.rules, e.move)));
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
      .def("legal_actions", [](PlayStateObj& P) -> py::list {
            MoveBuffer& b = tl_buf;
            b.clear();
            legal_actions(P.rules->r, P.s, b);
            RulesObj& R = *P.rules;
            R.build();
            const ActionIndex& ix = R.index;
            PyObject* out = PyList_New(Py_ssize_t(b.size));
            if (!out) throw py::error_already_set();
            for (size_t i = 0; i < b.size; ++i) PyList_SET_ITEM(out, Py_ssize_t(i), PyLong_FromLong(ix.id_of(b.data[i])));
            return py::reinterpret_steal<py::list>(out);
          }, "legal_moves() as action ids (Rules.action_space order; PASS is Rules.pass_id)")
      .def("legal_moves_array", [](const PlayStateObj& P) {
            MoveBuffer& b = tl_buf;
            b.clear();
            legal_actions(P.rules->r, P.s, b);
            return to_array(b);
          }, "legal_moves() encoded (uint64; PASS is Kind.PASS << 56)")
      .def("apply", [](PlayStateObj& P, py::handle action) {
            Counts cards = 0;
            int kind = -1;
            bool play = action_arg(P, action, cards, kind);
            Interp reading;
            Illegal why = check_action(P.rules->r, P.s, cards, !play, kind, reading);
            if (why != Illegal::None) raise_illegal(P, why, cards, kind, reading);
            Enc e = play ? encode(cards, reading.kind) : kPassEnc;
            P.log.push_back(LogEntry{P.s.seat, e, P.s});
            apply_action(P.rules->r, P.s, cards, !play, reading);
            return make_move(P.rules, e);
          }, py::arg("action"),
          "Plays a Move, an action id, a str of cards ('33344456', 'PLAY 33344456') or 'PASS' for the seat to "
          "act; returns the Move applied. An illegal action raises ddz.IllegalAction and changes nothing.")
      .def("undo", [](PlayStateObj& P) {
            if (P.log.empty()) throw IllegalActionError("nothing to undo: no action has been applied");
            P.s = P.log.back().before;
            P.log.pop_back();
          }, "Takes back the last action exactly.")
      .def("clone", [](const PlayStateObj& P) { return PlayStateObj(P); }, "An independent copy (history included).")
      .def("__copy__", [](const PlayStateObj& P) { return PlayStateObj(P); })
      .def("__deepcopy__", [](const PlayStateObj& P, py::dict) { return PlayStateObj(P); }, py::arg("memo"))
      .def("__eq__", [](const PlayStateObj& a, py::object o) {
            if (!py::isinstance<PlayStateObj>(o)) return false;
            const PlayStateObj& b = o.cast<const PlayStateObj&>();
            if (a.rules->decks() != b.rules->decks() || !same_state(a.s, b.s) || a.log.size() != b.log.size()) return false;
            for (size_t i = 0; i < a.log.size(); ++i)
              if (a.log[i].seat != b.log[i].seat || a.log[i].move != b.log[i].move) return false;
            return true;
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

  m.def("deal", [](RulesPtr rp, uint64_t seed, uint64_t game) {
        Counts hands[4];
        int landlord;
        deal_game(rp->r, seed, game, hands, landlord);
        py::list l;
        for (int i = 0; i < rp->r.players(); ++i) l.append(CardsObj{hands[i], rp->decks()});
        return py::make_tuple(l, landlord);
      }, py::arg("rules"), py::arg("seed"), py::arg("game") = 0,
      "The seeded deal of game `game` that simulate() plays: (hands with the kitty in the landlord's, landlord).");

  m.def("_simulate", [](RulesPtr rp, uint64_t games, int policy, uint64_t seed, int threads, uint64_t first) {
        if (policy != kRandom && policy != kGreedy) throw py::value_error("unknown policy");
        if (threads < 1) throw py::value_error("threads must be >= 1");
        std::vector<SimResult> res(games);
        {
          py::gil_scoped_release nogil;
          const Rules& r = rp->r;
          uint64_t chunk = (games + uint64_t(threads) - 1) / uint64_t(threads);
          std::vector<std::thread> pool;
          for (int t = 0; t < threads; ++t) {
            uint64_t a = uint64_t(t) * chunk, b = std::min(games, a + chunk);
            if (a >= b) break;
            pool.emplace_back([&r, policy, seed, a, b, first, &res] {
              simulate_range(r, policy, seed, first + a, first + b, res.data() + a);
            });
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

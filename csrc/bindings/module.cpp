// pybind11 module ddz._core: value types and entry points; no rules logic here.
#include <pybind11/native_enum.h>

#include "common.hpp"

void register_move(py::module_& m);
void register_play(py::module_& m);

PYBIND11_MODULE(_core, m, py::mod_gil_not_used()) {
  m.doc() = "ddz C++ core: cards, rules, classification and legal-move generation";

  static py::exception<CardError> card_exc(m, "CardError", PyExc_ValueError);
  static py::exception<MoveError> move_exc(m, "MoveError", PyExc_ValueError);
  static py::exception<IllegalActionError> illegal_exc(m, "IllegalAction", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CardError& e) {
      py::set_error(card_exc, e.what());
    } catch (const MoveError& e) {
      py::set_error(move_exc, e.what());
    } catch (const IllegalActionError& e) {
      py::set_error(illegal_exc, e.what());
    }
  });

  py::native_enum<Kind>(m, "Kind", "enum.IntEnum", "Combination kinds (RULES.md §2.0.2)")
      .value("SOLO", SOLO).value("PAIR", PAIR).value("TRIO", TRIO).value("TRIO_SOLO", TRIO_SOLO)
      .value("TRIO_PAIR", TRIO_PAIR).value("STRAIGHT", STRAIGHT).value("PAIR_STRAIGHT", PAIR_STRAIGHT)
      .value("TRIO_STRAIGHT", TRIO_STRAIGHT).value("PLANE_SOLO", PLANE_SOLO).value("PLANE_PAIR", PLANE_PAIR)
      .value("FOUR_TWO_SOLO", FOUR_TWO_SOLO).value("FOUR_TWO_PAIR", FOUR_TWO_PAIR).value("BOMB", BOMB)
      .value("ROCKET", ROCKET).value("BOMB4", BOMB4).value("BOMB5", BOMB5).value("BOMB6", BOMB6)
      .value("BOMB7", BOMB7).value("BOMB8", BOMB8).value("JOKER_BOMB", JOKER_BOMB)
      .value("PASS", PASS)
      .finalize();

  // ---- Cards ----
  py::class_<CardsObj>(m, "Cards", "A multiset of cards by rank (suits ignored), RULES.md §1.3.")
      .def(py::init([](py::object s, int decks) {
             if (decks != 1 && decks != 2) throw py::value_error("decks must be 1 or 2, not " + std::to_string(decks));
             if (py::isinstance<CardsObj>(s)) {
               CardsObj c = s.cast<CardsObj>();
               if (decks == 1 && c.decks == 2) {
                 // re-check the one-deck limits
                 return CardsObj{parse_counts(format_counts(c.c), 1), 1};
               }
               return CardsObj{c.c, decks};
             }
             if (!py::isinstance<py::str>(s)) throw py::type_error("Cards() takes a str of 3456789TJQKA2BR");
             return CardsObj{parse_counts(s.cast<std::string>(), decks), decks};
           }),
           py::arg("cards") = "", py::arg("decks") = 1)
      .def_static("from_word", [](uint64_t w, int decks) {
            if (decks != 1 && decks != 2) throw py::value_error("decks must be 1 or 2");
            for (int r = 0; r < kRanks; ++r) {
              int lim = r >= kB ? decks : 4 * decks;
              if (count_of(w, r) > lim)
                throw CardError("word has " + std::to_string(count_of(w, r)) + " '" + std::string(1, kRankChars[r]) +
                                "', " + deck_name(decks) + " " + std::to_string(lim));
            }
            if (w >> 60) throw CardError("word has bits above the 15 rank nibbles");
            return CardsObj{w, decks};
          }, py::arg("word"), py::arg("decks") = 1,
          "Cards from a rank-count word (15 nibbles, nibble r = copies of rank v=r).")
      .def_property_readonly("word", [](const CardsObj& c) { return c.c; }, "the rank-count word (15 nibbles)")
      .def_property_readonly("decks", [](const CardsObj& c) { return c.decks; })
      .def("count", [](const CardsObj& c, const std::string& ch) {
            if (ch.size() != 1 || rank_of_char(ch[0]) < 0) throw CardError("unknown rank '" + ch + "'");
            return count_of(c.c, rank_of_char(ch[0]));
          }, py::arg("rank"), "copies of one rank, e.g. cards.count('3')")
      .def("counts", [](const CardsObj& c) {
            std::vector<int> v(kRanks);
            for (int r = 0; r < kRanks; ++r) v[size_t(r)] = count_of(c.c, r);
            return v;
          }, "copies per rank, indexed by v (3=0 … R=14)")
      .def("__str__", [](const CardsObj& c) { return format_counts(c.c); })
      .def("__repr__", [](const CardsObj& c) {
            return "Cards('" + format_counts(c.c) + "'" + (c.decks == 2 ? ", decks=2)" : ")");
          })
      .def("__len__", [](const CardsObj& c) { return total_cards(c.c); })
      .def("__bool__", [](const CardsObj& c) { return c.c != 0; })
      .def("__eq__", [](const CardsObj& a, py::object b) {
            if (py::isinstance<CardsObj>(b)) return a.c == b.cast<const CardsObj&>().c;
            if (py::isinstance<py::str>(b)) {
              try { return a.c == parse_counts(b.cast<std::string>(), a.decks); } catch (const CardError&) { return false; }
            }
            return false;
          })
      .def("__hash__", [](const CardsObj& c) { return py::hash(py::int_(c.c)); })
      .def("__contains__", [](const CardsObj& a, py::object b) {
            Counts o = py::isinstance<CardsObj>(b) ? b.cast<const CardsObj&>().c
                                                   : parse_counts(b.cast<std::string>(), a.decks);
            for (int r = 0; r < kRanks; ++r)
              if (count_of(o, r) > count_of(a.c, r)) return false;
            return true;
          }, "sub-multiset test: 'JJ' in Cards('JJJQ')")
      .def("__add__", [](const CardsObj& a, const CardsObj& b) {
            return CardsObj{parse_counts(format_counts(a.c + b.c), std::max(a.decks, b.decks)), std::max(a.decks, b.decks)};
          })
      .def("__sub__", [](const CardsObj& a, const CardsObj& b) {
            for (int r = 0; r < kRanks; ++r)
              if (count_of(b.c, r) > count_of(a.c, r))
                throw CardError("cannot remove '" + format_counts(b.c) + "' from '" + format_counts(a.c) + "': not enough '" +
                                std::string(1, kRankChars[r]) + "'");
            return CardsObj{a.c - b.c, a.decks};
          })
      .def(py::pickle([](const CardsObj& c) { return py::make_tuple(format_counts(c.c), c.decks); },
                      [](py::tuple t) { return CardsObj{parse_counts(t[0].cast<std::string>(), t[1].cast<int>()), t[1].cast<int>()}; }));

  // ---- Rules (the Python facade subclasses this) ----
  py::class_<RulesObj, RulesPtr>(m, "RulesCore", py::dynamic_attr(), "Combination rules as data (C++ side).")
      .def(py::init([](int variant, bool two_decks, bool straight, bool trio_solo, bool four_two, int trio_chain,
                       bool joker_pairs, bool share, bool pairs_distinct, bool rocket_kickers, int cap, int max_cards,
                       bool trio_beside) {
             auto p = std::make_shared<RulesObj>();
             Rules& r = p->r;
             r.variant = variant; r.two_decks = two_decks; r.straight = straight; r.trio_solo = trio_solo;
             r.four_two = four_two; r.trio_chain = trio_chain; r.joker_pairs = joker_pairs; r.share = share;
             r.pairs_distinct = pairs_distinct; r.rocket_kickers = rocket_kickers; r.cap = cap; r.max_cards = max_cards;
             r.trio_beside = trio_beside;
             if (const char* err = r.error()) throw py::value_error(err);
             return p;
           }),
           py::arg("variant"), py::arg("two_decks"), py::arg("straight"), py::arg("trio_solo"), py::arg("four_two"),
           py::arg("trio_chain"), py::arg("joker_pairs"), py::arg("share"), py::arg("pairs_distinct"),
           py::arg("rocket_kickers"), py::arg("cap"), py::arg("max_cards"), py::arg("trio_beside") = true)
      .def_property_readonly("decks", &RulesObj::decks)
      .def_property_readonly("ambiguous", [](const RulesObj& R) { return R.r.ambiguous(); },
                             "True when relaxed options let one multiset have several readings (§2.0.4)")
      .def("action_space", [](RulesPtr rp) {
            const std::vector<Enc>& u = rp->plays();
            py::list out(u.size());
            for (size_t i = 0; i < u.size(); ++i) out[i] = py::cast(make_move(rp, u[i]));
            return out;
          }, "Every distinct play (cards and kind) of the variant, in id order (pass excluded).")
      .def_property_readonly("action_space_size", [](RulesPtr rp) { return rp->plays().size(); })
      .def("action_space_array", [](RulesPtr rp) {
            const std::vector<Enc>& u = rp->plays();
            py::array_t<uint64_t> a(py::ssize_t(u.size()));
            if (!u.empty()) std::memcpy(a.mutable_data(), u.data(), u.size() * 8);
            return a;
          }, "The action space as encoded moves; index = id.")
      .def("move_from_id", [](RulesPtr rp, py::ssize_t id) {
            const std::vector<Enc>& u = rp->plays();
            if (size_t(id) == u.size()) return make_move(rp, kPassEnc);
            if (id < 0 || size_t(id) > u.size())
              throw MoveError("action id " + std::to_string(id) + " out of range 0.." + std::to_string(u.size()) +
                              " (" + std::to_string(u.size()) + " is PASS)");
            return make_move(rp, u[size_t(id)]);
          }, py::arg("id"), "The Move of an action id (pass_id gives PASS).")
      .def_property_readonly("pass_id", &RulesObj::pass_id, "the action id of PASS: len(action_space())")
      .def("_set_action_order", [](RulesObj& R, py::object order) {
            R.order.clear();
            if (!order.is_none()) {
              auto a = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(order);
              if (!a || a.ndim() != 1) throw py::value_error("the action order must be a 1-D array of encoded moves");
              R.order.assign(a.data(), a.data() + a.size());
            }
            R.built = false;
            R.index = ActionIndex();
          }, py::arg("order"),
          "Number the plays in this order (a permutation of the rule-ordered action space, checked when first "
          "used), or in the rule order with None: a peer's own action ids.");

  register_move(m);

  // ---- functions ----
  m.def("classify", [](py::object cards, RulesPtr rp) -> py::object {
        Counts c = hand_arg(cards, *rp, "cards");
        Interp it = classify(rp->r, c);
        if (it.kind < 0) return py::none();
        return py::cast(MoveObj{encode(c, it.kind), it, rp});
      }, py::arg("cards"), py::arg("rules"),
      "The lead reading of `cards` (RULES.md §2.0.2–§2.0.4), or None if it is no legal combination.");

  m.def("legal_moves", [](py::object hand, RulesPtr rp, py::object prev) {
        Counts h = hand_arg(hand, *rp, "hand");
        Interp top;
        bool f = prev_arg(prev, rp, top);
        MoveBuffer& b = tl_buf;
        b.clear();
        generate(rp->r, h, f ? &top : nullptr, b);
        py::list out(b.size);
        for (size_t i = 0; i < b.size; ++i) out[i] = py::cast(make_move(rp, b.data[i]));
        return out;
      }, py::arg("hand"), py::arg("rules"), py::arg("prev") = py::none(),
      "Leads (prev=None) or the plays that beat prev; each distinct play once; pass not listed.");

  m.def("count_moves", [](py::object hand, RulesPtr rp, py::object prev) {
        Counts h = hand_arg(hand, *rp, "hand");
        Interp top;
        bool f = prev_arg(prev, rp, top);
        return count(rp->r, h, f ? &top : nullptr);
      }, py::arg("hand"), py::arg("rules"), py::arg("prev") = py::none());

  m.def("legal_moves_array", [](py::object hand, RulesPtr rp, py::object prev) {
        Counts h = hand_arg(hand, *rp, "hand");
        Interp top;
        bool f = prev_arg(prev, rp, top);
        MoveBuffer& b = tl_buf;
        b.clear();
        generate(rp->r, h, f ? &top : nullptr, b);
        return to_array(b);
      }, py::arg("hand"), py::arg("rules"), py::arg("prev") = py::none(),
      "legal_moves as a numpy uint64 array of encoded moves (see README: encoding).");

  m.def("hand_words", [](py::iterable hands, RulesPtr rp) {
        std::vector<uint64_t> v;
        for (py::handle h : hands) v.push_back(hand_arg(h, *rp, "hand"));
        py::array_t<uint64_t> a(py::ssize_t(v.size()));
        if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * 8);
        return a;
      }, py::arg("hands"), py::arg("rules"), "Parse many hands into rank-count words (uint64).");

  m.def("legal_moves_batch", [](py::object hands, RulesPtr rp, py::object prevs, bool count_only, py::object out) {
        std::vector<uint64_t> words;
        if (py::isinstance<py::array>(hands)) {
          auto a = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(hands);
          if (!a || a.ndim() != 1) throw py::value_error("hands array must be 1-D uint64 rank-count words");
          words.assign(a.data(), a.data() + a.size());
          for (size_t i = 0; i < words.size(); ++i)
            if (!valid_word(rp->r, words[i]))
              throw CardError("hands[" + std::to_string(i) + "] is not a valid rank-count word for these rules");
        } else {
          for (py::handle h : hands) words.push_back(hand_arg(h, *rp, "hand"));
        }
        size_t n = words.size();
        std::vector<Interp> tops;
        std::vector<uint8_t> has_top(n, 0);
        if (!prevs.is_none()) {
          tops.resize(n);
          if (py::isinstance<py::array>(prevs)) {
            auto a = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(prevs);
            if (!a || size_t(a.size()) != n) throw py::value_error("prevs must have one entry per hand");
            for (size_t i = 0; i < n; ++i) {
              uint64_t e = a.data()[i];
              if (!e) continue;
              tops[i] = classify_as(rp->r, enc_cards(e), enc_kind(e));
              if (tops[i].kind < 0) throw MoveError("prevs[" + std::to_string(i) + "] is not a legal encoded move");
              has_top[i] = 1;
            }
          } else {
            py::sequence s = prevs.cast<py::sequence>();
            if (size_t(py::len(s)) != n) throw py::value_error("prevs must have one entry per hand");
            for (size_t i = 0; i < n; ++i) has_top[i] = prev_arg(s[i], rp, tops[i]);
          }
        }
        py::array_t<int64_t> offsets{py::ssize_t(n + 1)};
        int64_t* off = offsets.mutable_data();
        MoveBuffer& buf = tl_batch;  // reused across calls: no fresh pages per batch
        buf.clear();
        py::array_t<uint64_t> out_arr;
        MoveBuffer ext;
        bool use_out = !out.is_none() && !count_only;
        if (use_out) {
          if (!py::isinstance<py::array_t<uint64_t, py::array::c_style>>(out))
            throw py::value_error("out must be a writeable 1-D C-contiguous numpy uint64 array");
          out_arr = out.cast<py::array_t<uint64_t, py::array::c_style>>();
          if (out_arr.ndim() != 1 || !out_arr.writeable())
            throw py::value_error("out must be a writeable 1-D C-contiguous numpy uint64 array");
          ext.borrow(out_arr.mutable_data(), size_t(out_arr.size()));
        }
        MoveBuffer& dst = use_out ? ext : buf;
        {
          py::gil_scoped_release nogil;
          std::vector<const Interp*> top_ptr(n);
          for (size_t i = 0; i < n; ++i) top_ptr[i] = has_top[i] ? &tops[i] : nullptr;
          if (count_only) count_batch(rp->r, words.data(), top_ptr.data(), n, off);
          else generate_batch(rp->r, words.data(), top_ptr.data(), n, dst, off);
        }
        if (count_only) {
          py::array_t<int64_t> counts{py::ssize_t(n)};
          for (size_t i = 0; i < n; ++i) counts.mutable_data()[i] = off[i + 1] - off[i];
          return py::tuple(py::make_tuple(offsets, counts));
        }
        if (use_out) {
          if (!ext.owned)  // everything fitted: a view of the caller's array, nothing copied
            return py::tuple(py::make_tuple(offsets, out_arr[py::slice(0, py::ssize_t(ext.size), 1)]));
          return py::tuple(py::make_tuple(offsets, to_array(ext)));
        }
        return py::tuple(py::make_tuple(offsets, to_array(buf)));
      }, py::arg("hands"), py::arg("rules"), py::arg("prevs") = py::none(), py::arg("count_only") = false,
      py::arg("out") = py::none(),
      "Moves of many hands with the GIL released: (offsets int64[n+1], moves uint64[total]); "
      "hand i owns moves[offsets[i]:offsets[i+1]]. With out= (a uint64 array reused across "
      "calls) the moves are written into it and a view is returned when they fit with 256 entries to spare (a fresh "
      "array otherwise). count_only=True returns (offsets, counts) and stores nothing.");

  m.def("decode", [](uint64_t e, RulesPtr rp) {
        int k = enc_kind(e);
        Counts c = enc_cards(e);
        if (e == kPassEnc) return make_move(rp, e);
        if (k >= kNumKinds) throw MoveError("encoded move has unknown kind " + std::to_string(k));
        Interp it = classify_as(rp->r, c, k);
        if (it.kind < 0) throw MoveError("encoded move '" + format_counts(c) + "' is not a legal " + kind_name(k));
        return MoveObj{e, it, rp};
      }, py::arg("encoded"), py::arg("rules"), "The Move of an encoded move.");

  m.def("dispatch_level", &dispatch_level, "0 = portable scalar code, 1 = AVX2/BMI2 code (x86-64)");
  m.def("set_dispatch_level", &set_dispatch_level, py::arg("level"),
        "Force the scalar path (0) or the fastest the CPU supports (1).");
  m.def("cpu_has_fast_isa", &cpu_has_fast_isa);

  register_play(m);
}

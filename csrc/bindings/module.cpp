// pybind11 module ddz._core: value types and entry points; no rules logic here.
#include <pybind11/native_enum.h>

#include <map>

#include "common.hpp"

void register_move(py::module_& m);
void register_play(py::module_& m);
void register_solver(py::module_& m);
void register_sample(py::module_& m);
void register_physical(py::module_& m);
void register_encode(py::module_& m);
void register_vector_env(py::module_& m);
void register_game(py::module_& m);

PYBIND11_MODULE(_core, m, py::mod_gil_not_used()) {
  m.doc() = "ddz C++ core: cards, rules, classification and legal-move generation";

  // ddz.DdzError (a ValueError) is the base of every engine error; each *TypeError twin also
  // derives from TypeError (built with PyErr_NewException, which takes several bases).
  static py::exception<DdzError> ddz_exc(m, "DdzError", PyExc_ValueError);
  static py::exception<CardError> card_exc(m, "CardError", ddz_exc.ptr());
  static py::exception<MoveError> move_exc(m, "MoveError", ddz_exc.ptr());
  static py::exception<IllegalActionError> illegal_exc(m, "IllegalAction", ddz_exc.ptr());
  static py::exception<ArgumentError> arg_exc(m, "ArgumentError", ddz_exc.ptr());
  auto twin = [&m](const char* name, py::handle base, const char* doc) {
    py::object bases = py::make_tuple(base, py::handle(PyExc_TypeError));
    std::string qual = std::string("ddz._core.") + name;
    PyObject* t = PyErr_NewExceptionWithDoc(qual.c_str(), doc, bases.ptr(), nullptr);
    if (!t) throw py::error_already_set();
    m.attr(name) = py::handle(t);
    return py::handle(t);  // the module holds a reference; this one lives as long as the process
  };
  static py::handle card_type_exc = twin("CardTypeError", card_exc, "A card argument of the wrong Python type.");
  static py::handle move_type_exc = twin("MoveTypeError", move_exc, "A move argument of the wrong Python type.");
  static py::handle illegal_type_exc =
      twin("IllegalActionTypeError", illegal_exc, "An action of the wrong Python type.");
  static py::handle arg_type_exc = twin("ArgumentTypeError", arg_exc, "An argument of the wrong Python type.");
  g_illegal_type = illegal_exc;
  g_illegal_type_twin = illegal_type_exc;
  illegal_exc.attr("code") = py::none();  // the class default; raised instances carry their IllegalCode
  ddz_exc.doc() = "Base of every ddz error: bad input of any kind (a ValueError).";
  card_exc.doc() = "Malformed cards: an unknown character, more copies than the decks hold, the wrong deck count.";
  move_exc.doc() = "A play that is no legal combination, or a move or action id that does not exist.";
  illegal_exc.doc() = "An action that is not legal in the state (out of turn, not held, does not beat, ...).";
  arg_exc.doc() = "An argument out of its range or otherwise invalid (seats, seeds, counts, arrays, options).";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CardTypeError& e) {
      py::set_error(card_type_exc, e.what());
    } catch (const MoveTypeError& e) {
      py::set_error(move_type_exc, e.what());
    } catch (const IllegalActionTypeError& e) {
      py::object inst = illegal_object(illegal_type_exc, e.what(), e.code);
      PyErr_SetObject(illegal_type_exc.ptr(), inst.ptr());
    } catch (const ArgumentTypeError& e) {
      py::set_error(arg_type_exc, e.what());
    } catch (const CardError& e) {
      py::set_error(card_exc, e.what());
    } catch (const MoveError& e) {
      py::set_error(move_exc, e.what());
    } catch (const IllegalActionError& e) {
      py::object inst = illegal_object(illegal_exc, e.what(), e.code);
      PyErr_SetObject(illegal_exc.ptr(), inst.ptr());
    } catch (const ArgumentError& e) {
      py::set_error(arg_exc, e.what());
    } catch (const DdzError& e) {
      py::set_error(ddz_exc, e.what());
    }
  });

  {
    py::native_enum<Kind> kinds(m, "Kind", "enum.IntEnum", "Combination kinds (docs/rules.md §4)");
    for (int k = 0; k <= PASS; ++k) kinds.value(kKindNames[k], Kind(k));  // the names are spelled once
    kinds.finalize();
  }

  py::native_enum<Illegal>(m, "IllegalCode", "enum.IntEnum",
                           "Why an action is illegal: the .code of a ddz.IllegalAction (stable values).")
      .value("HAND_OVER", Illegal::Over).value("LEAD_PASS", Illegal::LeadPass).value("NOT_HELD", Illegal::NotHeld)
      .value("NOT_A_COMBINATION", Illegal::NotCombination).value("DOES_NOT_BEAT", Illegal::DoesNotBeat)
      .value("WRONG_READING", Illegal::WrongReading).value("BOMB_LIMIT", Illegal::BombLimit)
      .value("NOT_YOUR_TURN", Illegal::NotYourTurn).value("WRONG_PHASE", Illegal::WrongPhase)
      .value("NOT_OFFERED", Illegal::NotOffered).value("MALFORMED", Illegal::Malformed)
      .value("NOTHING_TO_UNDO", Illegal::NothingToUndo)
      .finalize();

  // ---- Cards ----
  py::class_<CardsObj>(m, "Cards", "A multiset of cards by rank (suits ignored), docs/rules.md §1.")
      .def(py::init([](CardsInit s, IntArg decks_arg) {
             int decks = int(int_arg(decks_arg, "decks", 1, 2));
             if (py::isinstance<CardsObj>(s)) {
               CardsObj c = s.cast<CardsObj>();
               if (decks == 1 && c.decks == 2) {
                 // re-check the one-deck limits
                 return CardsObj{parse_counts(format_counts(c.c), 1), 1};
               }
               return CardsObj{c.c, decks};
             }
             if (!py::isinstance<py::str>(s))
               throw CardTypeError("Cards() takes a str of 3456789TJQKA2BR or a Cards, not " + type_name(s));
             return CardsObj{parse_counts(text_arg(s, "cards"), decks), decks};
           }),
           py::arg("cards") = "", py::arg("decks") = 1)
      .def_static("from_word", [](py::handle word, py::handle decks_arg) {
            uint64_t w = u64_arg(word, "word");
            int decks = int(int_arg(decks_arg, "decks", 1, 2));
            if (w >> 60) throw CardError("word has bits above the 15 rank nibbles");
            for (int r = 0; r < kRanks; ++r) {
              int lim = r >= kB ? decks : 4 * decks;
              if (count_of(w, r) > lim)
                throw CardError("word has " + std::to_string(count_of(w, r)) + " '" + std::string(1, kRankChars[r]) +
                                "', " + deck_name(decks) + " " + std::to_string(lim));
            }
            return CardsObj{w, decks};
          }, py::arg("word"), py::arg("decks") = 1,
          "Cards from a rank-count word (15 nibbles, nibble r = copies of rank v=r).")
      .def_property_readonly("word", [](const CardsObj& c) { return c.c; }, "the rank-count word (15 nibbles)")
      .def_property_readonly("decks", [](const CardsObj& c) { return c.decks; })
      .def("count", [](const CardsObj& c, StrArg rank) {
            if (!py::isinstance<py::str>(rank)) throw CardTypeError("a rank is a one-character str, not " + type_name(rank));
            std::string ch = text_arg(rank, "rank");
            if (ch.size() != 1 || rank_of_char(ch[0]) < 0)
              throw CardError("unknown rank '" + shown(ch) + "' (use one of 3456789TJQKA2BR)");
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
              try { return a.c == parse_counts(text_arg(b, "cards"), a.decks); } catch (const CardError&) { return false; }
            }
            return false;
          })
      .def("__hash__", [](const CardsObj& c) { return py::hash(py::int_(c.c)); })
      .def("__contains__", [](const CardsObj& a, py::object b) {
            Counts o;
            if (py::isinstance<CardsObj>(b)) o = b.cast<const CardsObj&>().c;
            else if (py::isinstance<py::str>(b)) o = parse_counts(text_arg(b, "cards"), a.decks);
            else throw CardTypeError("'in Cards' needs a str of cards or a Cards, not " + type_name(b));
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
      // Pickled as a constructor call, so an unpickled Cards is validated like a new one and
      // there is no __setstate__ to call on a live object.
      .def("__reduce__", [](py::object self) {
            const CardsObj& c = self.cast<const CardsObj&>();
            return py::make_tuple(py::type::of(self), py::make_tuple(format_counts(c.c), c.decks));
          });

  // ---- Rules (the Python facade subclasses this) ----
  py::class_<RulesObj, RulesPtr>(m, "RulesCore", py::dynamic_attr(), "Combination rules as data (C++ side).")
      .def(py::init([](int variant, bool two_decks, bool straight, bool trio_solo, bool four_two, int trio_chain,
                       bool joker_pairs, bool share, bool pairs_distinct, bool rocket_kickers, int cap, int max_cards,
                       bool trio_beside) {
             if (variant < 0 || variant >= kVariants) throw py::value_error("no variant " + std::to_string(variant));
             auto p = std::make_shared<RulesObj>();
             Rules& r = p->r;
             r.variant = Variant(variant); r.two_decks = two_decks; r.straight = straight; r.trio_solo = trio_solo;
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
                             "True when relaxed options let one multiset have several readings (docs/rules.md §4.4)")
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
      .def("move_from_id", [](RulesPtr rp, IntArg id_arg) {
            const std::vector<Enc>& u = rp->plays();
            long long id = action_id_arg(id_arg, int(u.size()));
            if (size_t(id) == u.size()) return make_move(rp, kPassEnc);
            return make_move(rp, u[size_t(id)]);
          }, py::arg("id"), "The Move of an action id (pass_id gives PASS).")
      .def_property_readonly("pass_id", &RulesObj::pass_id, "the action id of PASS: len(action_space())")
      .def("_set_spec", [](RulesObj& R, const std::string& spec) { R.spec = spec; }, py::arg("spec"),
           "Record how the Python Rules is rebuilt (JSON of its variant, preset and options): a pickled Move "
           "carries it.")
      .def("_set_action_order", [](RulesObj& R, py::object order) {
            R.order.clear();
            if (!order.is_none()) {
              auto a = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>::ensure(order);
              if (!a || a.ndim() != 1) throw py::value_error("the action order must be a 1-D array of encoded moves");
              R.order.assign(a.data(), a.data() + a.size());
            }
            R.index.reset();
            for (PyObject* t : R.tokens) Py_XDECREF(t);  // ids change with the order
            R.tokens.clear();
          }, py::arg("order"),
          "Number the plays in this order (a permutation of the rule-ordered action space, checked when first "
          "used), or in the rule order with None: a peer's own action ids.");

  register_move(m);

  // ---- functions ----
  m.def("classify", [](HandArg cards, RulesArg rules) -> py::object {
        RulesPtr rp = rules_arg(rules);
        Counts c = hand_arg(cards, *rp, "cards");
        Interp it = classify(rp->r, c);
        if (it.kind < 0) return py::none();
        return py::cast(MoveObj{encode(c, it.kind), it, rp});
      }, py::arg("cards"), py::arg("rules"),
      "The lead reading of `cards` (docs/rules.md §4, §4.4), or None if it is no legal combination.");

  m.def("legal_moves", [](HandArg hand, RulesArg rules, PrevArg prev) {
        RulesPtr rp = rules_arg(rules);
        Counts h = hand_arg(hand, *rp, "hand");
        Interp top;
        bool f = prev_arg(prev, rp, top);
        MoveBuffer& b = tl_buf;
        b.clear();
        generate(rp->r, h, f ? &top : nullptr, b);
        py::list out(b.size);
        for (size_t i = 0; i < b.size; ++i) out[i] = py::cast(make_move(rp, b.data[i]));
        trim(b);
        return out;
      }, py::arg("hand"), py::arg("rules"), py::arg("prev") = py::none(),
      "Leads (prev=None) or the plays that beat prev; each distinct play once; pass not listed.");

  m.def("count_moves", [](HandArg hand, RulesArg rules, PrevArg prev) {
        RulesPtr rp = rules_arg(rules);
        Counts h = hand_arg(hand, *rp, "hand");
        Interp top;
        bool f = prev_arg(prev, rp, top);
        return count(rp->r, h, f ? &top : nullptr);
      }, py::arg("hand"), py::arg("rules"), py::arg("prev") = py::none(),
      "The number of plays legal_moves(hand, rules, prev) lists, counted in closed form (nothing built).");

  m.def("_select_move", [](HandArg hand, RulesArg rules, PrevArg prev, IntArg index) {
        RulesPtr rp = rules_arg(rules);
        Counts h = hand_arg(hand, *rp, "hand");
        Interp top;
        bool f = prev_arg(prev, rp, top);
        const uint64_t n = count(rp->r, h, f ? &top : nullptr);
        const uint64_t i = uint64_t(int_arg(index, "index", 0, n ? (long long)(n - 1) : 0));
        if (i >= n) throw ArgumentError("index " + std::to_string(i) + " is past the " + std::to_string(n) + " plays");
        MoveBuffer& b = tl_buf;
        Enc e = select_move(rp->r, h, f ? &top : nullptr, i, b);
        trim(b);
        return e;
      }, py::arg("hand"), py::arg("rules"), py::arg("prev"), py::arg("index"),
      "legal_moves_array(hand, rules, prev)[index] built alone (the family holding it only), as simulate's random "
      "policy picks it.");

  m.def("legal_moves_array", [](HandArg hand, RulesArg rules, PrevArg prev) {
        RulesPtr rp = rules_arg(rules);
        Counts h = hand_arg(hand, *rp, "hand");
        Interp top;
        bool f = prev_arg(prev, rp, top);
        MoveBuffer& b = tl_buf;
        b.clear();
        generate(rp->r, h, f ? &top : nullptr, b);
        py::array_t<uint64_t> a = to_array(b);
        trim(b);
        return a;
      }, py::arg("hand"), py::arg("rules"), py::arg("prev") = py::none(),
      "legal_moves as a numpy uint64 array of encoded moves (see README: encoding).");

  m.def("hand_words", [](HandsArg hands, RulesArg rules) {
        RulesPtr rp = rules_arg(rules);
        std::vector<uint64_t> v;
        for_each_item(hands, "hands", [&](py::handle h, size_t) { v.push_back(hand_arg(h, *rp, "hand")); });
        py::array_t<uint64_t> a(py::ssize_t(v.size()));
        if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * 8);
        return a;
      }, py::arg("hands"), py::arg("rules"), "Parse many hands into rank-count words (uint64).");

  m.def("legal_moves_batch", [](HandsArg hands, RulesArg rules, PrevsArg prevs, BoolArg count_only_arg,
                                OutArg out) {
        RulesPtr rp = rules_arg(rules);
        bool count_only = bool_arg(count_only_arg, "count_only");
        // an integer array is read in place (a uint64 one without a copy), checked in one loop
        WordArray word_arr;
        std::vector<uint64_t> word_list;
        const uint64_t* words;
        size_t n;
        if (py::isinstance<py::array>(hands)) {
          word_arr = word_array(hands, "hands");
          words = word_arr.data();
          n = size_t(word_arr.size());
          size_t bad = first_invalid_word(rp->r, words, n);
          if (bad < n)
            throw CardError("hands[" + std::to_string(bad) + "] = " + std::to_string(words[bad]) +
                            " is not a valid rank-count word for these rules");
        } else {
          for_each_item(hands, "hands", [&](py::handle h, size_t) { word_list.push_back(hand_arg(h, *rp, "hand")); });
          words = word_list.data();
          n = word_list.size();
        }
        // per-hand tops only when prevs is given: a batch of leads passes none
        std::vector<Interp> tops;
        std::vector<uint8_t> has_top;
        if (!prevs.is_none()) {
          tops.resize(n);
          has_top.assign(n, 0);
          if (py::isinstance<py::array>(prevs)) {
            WordArray enc_arr = word_array(prevs, "prevs");
            const uint64_t* enc = enc_arr.data();
            if (size_t(enc_arr.size()) != n)
              throw ArgumentError("prevs has " + std::to_string(enc_arr.size()) + " entries for " + std::to_string(n) +
                                  " hands: give one per hand (0 for a lead)");
            for (size_t i = 0; i < n; ++i) {
              if (!enc[i]) continue;
              tops[i] = checked_move(rp->r, enc[i], ("prevs[" + std::to_string(i) + "]").c_str());
              has_top[i] = 1;
            }
          } else {
            size_t k = 0;
            for_each_item(prevs, "prevs", [&](py::handle p, size_t i) {
              if (i >= n) throw ArgumentError("prevs has more entries than there are hands (" + std::to_string(n) + ")");
              has_top[i] = prev_arg(p, rp, tops[i]);
              k = i + 1;
            });
            if (k != n)
              throw ArgumentError("prevs has " + std::to_string(k) + " entries for " + std::to_string(n) +
                                  " hands: give one per hand (None for a lead)");
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
            throw ArgumentTypeError("out must be a writeable 1-D C-contiguous numpy uint64 array");
          out_arr = py::reinterpret_borrow<py::array_t<uint64_t, py::array::c_style>>(out);
          if (out_arr.ndim() != 1 || !out_arr.writeable())
            throw ArgumentError("out must be a writeable 1-D C-contiguous numpy uint64 array");
          ext.borrow(out_arr.mutable_data(), size_t(out_arr.size()));
        }
        MoveBuffer& dst = use_out ? ext : buf;
        {
          py::gil_scoped_release nogil;
          std::vector<const Interp*> top_ptr;
          if (!tops.empty()) {
            top_ptr.resize(n);
            for (size_t i = 0; i < n; ++i) top_ptr[i] = has_top[i] ? &tops[i] : nullptr;
          }
          const Interp* const* tp = tops.empty() ? nullptr : top_ptr.data();
          if (count_only) count_batch(rp->r, words, tp, n, off);
          else generate_batch(rp->r, words, tp, n, dst, off);
        }
        if (count_only) {
          py::array_t<int64_t> counts{py::ssize_t(n)};
          int64_t* c = counts.mutable_data();
          for (size_t i = 0; i < n; ++i) c[i] = off[i + 1] - off[i];
          return py::tuple(py::make_tuple(offsets, counts));
        }
        if (use_out) {
          if (!ext.owned)  // everything fitted: a view of the caller's array, nothing copied
            return py::tuple(py::make_tuple(offsets, out_arr[py::slice(0, py::ssize_t(ext.size), 1)]));
          return py::tuple(py::make_tuple(offsets, to_array(ext)));
        }
        py::tuple res = py::make_tuple(offsets, to_array(buf));
        trim(buf);
        return res;
      }, py::arg("hands"), py::arg("rules"), py::arg("prevs") = py::none(), py::arg("count_only") = false,
      py::arg("out") = py::none(),
      "Moves of many hands with the GIL released: (offsets int64[n+1], moves uint64[total]); "
      "hand i owns moves[offsets[i]:offsets[i+1]]. `hands` is a sequence of str/Cards or a 1-D integer "
      "array of rank-count words; `prevs` one play to beat per hand (None / 0 for a lead) as a sequence or a 1-D "
      "integer array of encoded moves. With out= (a uint64 array reused across "
      "calls) the moves are written into it and a view is returned when they fit with 256 entries to spare (a fresh "
      "array otherwise). count_only=True returns (offsets, counts) and stores nothing.");

  m.def("decode", [](IntArg encoded, RulesArg rules) {
        RulesPtr rp = rules_arg(rules);
        if (!is_int(encoded))
          throw MoveTypeError("an encoded move is an int, not " + type_name(encoded));
        uint64_t e = 0;
        try {
          e = u64_arg(encoded, "encoded move");
        } catch (const ArgumentError& err) {
          throw MoveError(err.what());
        }
        if (e == kPassEnc) return make_move(rp, e);
        return MoveObj{e, checked_move(rp->r, e, "encoded move"), rp};
      }, py::arg("encoded"), py::arg("rules"), "The Move of an encoded move (MoveError if it is no legal play).");

  m.def("dispatch_level", &dispatch_level, "0 = portable scalar code, 1 = AVX2/BMI2 code (x86-64)");
  m.def("set_dispatch_level", [](IntArg level) { set_dispatch_level(int(int_arg(level, "level", 0, 1))); },
        py::arg("level"),
        "Force the scalar path (0) or the fastest the CPU supports (1).");
  m.def("cpu_has_fast_isa", &cpu_has_fast_isa,
        "True when this CPU runs the AVX2/BMI2 generator (x86-64 with AVX2, BMI2 and POPCNT).");

  m.def("variant_specs", [] {
        py::list out;
        for (const VariantSpec& l : kVariantSpecs) {
          py::tuple decisions(l.decision_count);
          for (int k = 0; k < l.decision_count; ++k) decisions[size_t(k)] = py::str(l.decisions[k]);
          out.append(py::dict(py::arg("name") = l.name, py::arg("title") = l.title, py::arg("players") = l.players,
                              py::arg("decks") = l.decks, py::arg("hand") = l.hand, py::arg("kitty") = l.kitty,
                              py::arg("aside") = l.aside, py::arg("max_hand") = l.max_hand,
                              py::arg("decisions") = decisions, py::arg("escape_ends") = l.escape_ends,
                              py::arg("bomb_limits") = l.bomb_limits, py::arg("springs") = l.springs,
                              py::arg("deal_specials") = l.deal_specials, py::arg("stakes") = l.stakes,
                              py::arg("coin_toss") = l.coin_toss));
        }
        return out;
      },
      "Every variant's spec row (core.hpp's kVariantSpecs), in variant-id order (ddz.variants reads it).");
  register_play(m);
  register_solver(m);
  register_sample(m);
  register_physical(m);
  register_encode(m);
  register_vector_env(m);
  register_game(m);
}

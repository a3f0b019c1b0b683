// Shared types of the pybind11 module: value wrappers and argument conversion.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "../ddz/actions.hpp"
#include "../ddz/core.hpp"

namespace py = pybind11;
using namespace ddz;  // NOLINT: the binding files are thin wrappers of ddz


inline constexpr Enc kPassEnc = Enc(PASS) << 56;
inline constexpr const char* kRankChars = "3456789TJQKA2BR";

struct CardError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
struct MoveError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
struct IllegalActionError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

inline int rank_of_char(char ch) {
  switch (ch) {
    case 't': ch = 'T'; break;
    case 'j': ch = 'J'; break;
    case 'q': ch = 'Q'; break;
    case 'k': ch = 'K'; break;
    case 'a': ch = 'A'; break;
    case 'b': ch = 'B'; break;
    case 'r': ch = 'R'; break;
    default: break;
  }
  const char* p = std::strchr(kRankChars, ch);
  return (p && ch) ? int(p - kRankChars) : -1;
}

inline std::string deck_name(int decks) { return decks == 2 ? "two decks hold" : "one deck holds"; }

inline Counts parse_counts(const std::string& s, int decks) {
  Counts c = 0;
  int per[kRanks] = {0};
  for (size_t i = 0; i < s.size(); ++i) {
    char ch = s[i];
    if (ch == ' ' || ch == ',') continue;
    int r = rank_of_char(ch);
    if (r < 0) {
      std::string shown = (unsigned char)ch < 0x80 ? std::string(1, ch) : std::string("non-ASCII byte");
      throw CardError("unknown card character '" + shown + "' at position " + std::to_string(i) + " in '" + s +
                      "' (use 3456789TJQKA2BR; T is ten, B the small joker, R the big joker)");
    }
    int lim = r >= kB ? decks : 4 * decks;
    if (++per[r] > lim)
      throw CardError("too many '" + std::string(1, kRankChars[r]) + "' in '" + s + "': " + std::to_string(per[r]) +
                      " copies, " + deck_name(decks) + " " + std::to_string(lim));
    c += unit(r);
  }
  return c;
}

inline std::string format_counts(Counts c) {
  std::string s;
  for (int r = 0; r < kRanks; ++r) s.append(size_t(count_of(c, r)), kRankChars[r]);
  return s;
}

struct CardsObj {
  Counts c = 0;
  int decks = 1;
};

struct RulesObj {
  Rules r;
  ActionIndex index;       // built on first use
  std::vector<Enc> order;  // a peer's id order (a permutation of the action space), or empty
  bool built = false;
  int decks() const { return r.two_decks ? 2 : 1; }
  const std::vector<Enc>& plays() {
    build();
    return index.plays();
  }
  /// The id of PASS: one past the last play.
  int pass_id() { return int(plays().size()); }
  int id_of(Enc e) {
    build();
    return index.id_of(e);
  }
  void build() {
    if (built) return;
    if (!index.build(r, order.empty() ? nullptr : order.data(), order.size()))
      throw std::logic_error("the action order set for these rules is not a permutation of their action space");
    built = true;
  }
};
using RulesPtr = std::shared_ptr<RulesObj>;

struct MoveObj {
  Enc enc = 0;
  Interp it;
  RulesPtr rules;
};

/// The generator fixes the kind (the lead reading, or the kind of the play followed); the
/// key is the highest of that kind, which is the reading §2.0.4 asks for in both cases.
inline MoveObj make_move(const RulesPtr& rp, Enc e) {
  if (enc_kind(e) == PASS) {
    Interp it;
    it.kind = PASS;
    it.length = 0;
    return MoveObj{e, it, rp};
  }
  return MoveObj{e, reading_of(rp->r, e), rp};
}
inline bool is_pass(const MoveObj& m) { return m.it.kind == PASS; }

// ddz._core.Move is a small CPython type (move.cpp), not a pybind11 class: building one is
// an allocation from a free list and a copy, which legal_moves does once per move.
PyObject* new_move(const MoveObj& m);  // a new reference; throws on allocation failure
bool is_move(py::handle h);
const MoveObj& move_of(py::handle h);  // h must be a Move

namespace pybind11 {
namespace detail {
template <>
struct type_caster<MoveObj> {
  PYBIND11_TYPE_CASTER(MoveObj, const_name("Move"));
  bool load(handle src, bool) {
    if (!is_move(src)) return false;
    value = move_of(src);
    return true;
  }
  static handle cast(const MoveObj& m, return_value_policy, handle) { return handle(new_move(m)); }
};
}  // namespace detail
}  // namespace pybind11

inline std::string kind_name(int k) {
  static const char* names[] = {"SOLO", "PAIR", "TRIO", "TRIO_SOLO", "TRIO_PAIR", "STRAIGHT", "PAIR_STRAIGHT",
                                "TRIO_STRAIGHT", "PLANE_SOLO", "PLANE_PAIR", "FOUR_TWO_SOLO", "FOUR_TWO_PAIR",
                                "BOMB", "ROCKET", "BOMB4", "BOMB5", "BOMB6", "BOMB7", "BOMB8", "JOKER_BOMB", "PASS"};
  return (k >= 0 && k <= PASS) ? names[k] : "?";
}

/// A hand argument: a str (parsed with the rules' deck count) or a Cards of that deck count.
inline Counts hand_arg(py::handle h, const RulesObj& R, const char* what) {
  if (py::isinstance<py::str>(h)) return parse_counts(h.cast<std::string>(), R.decks());
  if (py::isinstance<CardsObj>(h)) {
    const CardsObj& c = h.cast<const CardsObj&>();
    if (c.decks != R.decks())
      throw CardError(std::string(what) + " '" + format_counts(c.c) + "' is a " + (c.decks == 2 ? "two" : "one") +
                      "-deck Cards but the rules use " + (R.decks() == 2 ? "two decks" : "one deck") +
                      " (build it with ddz.Cards(..., decks=" + std::to_string(R.decks()) + ") or pass a str)");
    return c.c;
  }
  throw py::type_error(std::string(what) + " must be a str or ddz.Cards, not " +
                       std::string(py::str(py::type::handle_of(h).attr("__name__"))));
}

/// A prev argument: None (lead), a str, or a Move; returns false for a lead.
inline bool prev_arg(py::handle h, const RulesPtr& rp, Interp& out) {
  if (h.is_none()) return false;
  if (is_move(h)) {
    const MoveObj& m = move_of(h);
    if (is_pass(m)) throw MoveError("prev is PASS: pass prev=None to lead");
    if (m.rules.get() == rp.get()) {
      out = m.it;
      return true;
    }
    Counts c = enc_cards(m.enc);
    out = classify_as(rp->r, c, m.it.kind);
    if (out.kind < 0)
      throw MoveError("prev '" + format_counts(c) + "' (" + kind_name(m.it.kind) +
                      ") is not a legal combination under these rules");
    return true;
  }
  Counts c = hand_arg(h, *rp, "prev");
  if (c == 0) throw MoveError("prev is empty: pass prev=None to lead");
  out = classify(rp->r, c);
  if (out.kind < 0) throw MoveError("prev '" + format_counts(c) + "' is not a legal combination under these rules");
  return true;
}

inline thread_local MoveBuffer tl_buf;
inline thread_local MoveBuffer tl_batch;

inline py::array_t<uint64_t> to_array(const MoveBuffer& b, size_t from = 0) {
  py::array_t<uint64_t> a(py::ssize_t(b.size - from));
  if (b.size > from) std::memcpy(a.mutable_data(), b.data + from, (b.size - from) * sizeof(Enc));
  return a;
}




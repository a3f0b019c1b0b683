// Shared types of the pybind11 module: value wrappers and argument conversion.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "../ddz/actions.hpp"
#include "../ddz/core.hpp"
#include "../ddz/hand.hpp"
#include "../ddz/play.hpp"

namespace py = pybind11;
using namespace ddz;  // NOLINT: the binding files are thin wrappers of ddz


inline constexpr Enc kPassEnc = Enc(PASS) << 56;
inline constexpr const char* kRankChars = "3456789TJQKA2BR";

// The engine's errors (all ValueError subclasses in Python, under ddz.DdzError). Each has a
// *TypeError twin for a value of the wrong Python type, which derives from the error and from
// TypeError, so that either `except` catches it.
struct DdzError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};
struct CardError : DdzError {
  using DdzError::DdzError;
};
struct MoveError : DdzError {
  using DdzError::DdzError;
};
struct IllegalActionError : DdzError {
  Illegal code;
  explicit IllegalActionError(const std::string& msg, Illegal c = Illegal::Malformed) : DdzError(msg), code(c) {}
};
struct ArgumentError : DdzError {
  using DdzError::DdzError;
};
struct CardTypeError : CardError {
  using CardError::CardError;
};
struct MoveTypeError : MoveError {
  using MoveError::MoveError;
};
struct IllegalActionTypeError : IllegalActionError {
  explicit IllegalActionTypeError(const std::string& msg) : IllegalActionError(msg, Illegal::Malformed) {}
};
struct ArgumentTypeError : ArgumentError {
  using ArgumentError::ArgumentError;
};

/// The IllegalAction exception types (set at module init), so that bindings can build an
/// IllegalAction object carrying its .code without raising it (PlayState.check).
inline py::handle g_illegal_type, g_illegal_type_twin;

/// An IllegalAction instance with its `.code` (an ddz.IllegalCode member).
inline py::object illegal_object(py::handle type, const std::string& msg, Illegal code) {
  py::object inst = py::reinterpret_borrow<py::object>(type)(msg);
  inst.attr("code") = py::cast(code);
  return inst;
}

/// Argument types for signatures: each accepts any Python object (the binding checks it and
/// raises the engine's own errors, never pybind11's TypeError), and names in help() and
/// __doc__ what the argument should be.
inline int any_object(PyObject*) { return 1; }
#define DDZ_ARG_HINT(Name, Hint)                                                   \
  struct Name : py::object {                                                        \
    PYBIND11_OBJECT_DEFAULT(Name, py::object, any_object)                           \
  };                                                                                \
  namespace pybind11 { namespace detail {                                           \
  template <> struct handle_type_name<::Name> { static constexpr auto name = const_name(Hint); }; \
  } }
DDZ_ARG_HINT(HandArg, "str | ddz.Cards")
DDZ_ARG_HINT(HandsArg, "Sequence[str | ddz.Cards] | numpy.ndarray")
DDZ_ARG_HINT(HandListArg, "Sequence[str | ddz.Cards]")
DDZ_ARG_HINT(PrevArg, "str | ddz.Move | None")
DDZ_ARG_HINT(PrevsArg, "Sequence[str | ddz.Move | None] | numpy.ndarray | None")
DDZ_ARG_HINT(RulesArg, "ddz.Rules")
DDZ_ARG_HINT(IntArg, "int")
DDZ_ARG_HINT(BoolArg, "bool")
DDZ_ARG_HINT(StrArg, "str")
DDZ_ARG_HINT(CardsInit, "str | ddz.Cards")
DDZ_ARG_HINT(OutArg, "numpy.ndarray | None")
DDZ_ARG_HINT(ActionArg, "ddz.Move | int | str")
DDZ_ARG_HINT(LimitsArg, "Sequence[int | None] | None")
#undef DDZ_ARG_HINT

/// A user's input quoted in a message, cut so that a huge input gives a short message.
inline std::string shown(const std::string& s, size_t max = 48) {
  if (s.size() <= max) return s;
  return s.substr(0, max) + "... (" + std::to_string(s.size()) + " characters)";
}

inline std::string type_name(py::handle h) { return std::string(py::str(py::type::handle_of(h).attr("__name__"))); }

/// A Python int or a numpy integer scalar (np.int64, np.uint8, ...): an int argument. A bool
/// (Python's or numpy's) is not an int, nor is a float or an array.
inline bool is_int(py::handle h) {
  if (PyBool_Check(h.ptr())) return false;
  if (PyLong_Check(h.ptr())) return true;
  // The GIL is held: the first call imports numpy once (a dependency of the package).
  static PyObject* np_integer = py::object(py::module_::import("numpy").attr("integer")).release().ptr();
  const int r = PyObject_IsInstance(h.ptr(), np_integer);
  if (r < 0) PyErr_Clear();
  return r == 1;
}

/// An int argument (is_int) as a Python int, for the PyLong_As* conversions.
inline py::object as_pylong(py::handle h) {
  if (PyLong_Check(h.ptr())) return py::reinterpret_borrow<py::object>(h);
  PyObject* v = PyNumber_Index(h.ptr());
  if (!v) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(v);
}

/// An int argument as text for a message (an int too large to print is named by its size).
inline std::string int_shown(py::handle h) {
  try {
    return shown(std::string(py::str(h)));
  } catch (const py::error_already_set&) {
    return "an integer of more than 4000 digits";
  }
}

/// An int argument in [lo, hi]; bool and non-int values are type errors (no silent truncation).
inline long long int_arg(py::handle h, const char* what, long long lo, long long hi) {
  if (!is_int(h)) throw ArgumentTypeError(std::string(what) + " must be an int, not " + type_name(h));
  const py::object o = as_pylong(h);
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
  if (overflow || v < lo || v > hi)
    throw ArgumentError(std::string(what) + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", not " +
                        int_shown(h));
  return v;
}

/// An unsigned 64-bit argument (seeds, words).
inline uint64_t u64_arg(py::handle h, const char* what) {
  if (!is_int(h)) throw ArgumentTypeError(std::string(what) + " must be an int, not " + type_name(h));
  const py::object o = as_pylong(h);
  unsigned long long v = PyLong_AsUnsignedLongLong(o.ptr());
  if (v == (unsigned long long)-1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw ArgumentError(std::string(what) + " must be in 0..2**64-1, not " + int_shown(h));
  }
  return uint64_t(v);
}

inline bool bool_arg(py::handle h, const char* what) {
  if (!PyBool_Check(h.ptr())) throw ArgumentTypeError(std::string(what) + " must be True or False, not " + type_name(h));
  return h.ptr() == Py_True;
}

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
      std::string bad = ((unsigned char)ch < 0x80 && (unsigned char)ch >= 0x20) ? std::string(1, ch)
                                                                                : std::string("non-printable or non-ASCII byte");
      throw CardError("unknown card character '" + bad + "' at position " + std::to_string(i) + " in '" + shown(s) +
                      "' (use 3456789TJQKA2BR; T is ten, B the small joker, R the big joker)");
    }
    int lim = r >= kB ? decks : 4 * decks;
    if (++per[r] > lim)
      throw CardError("too many '" + std::string(1, kRankChars[r]) + "' in '" + shown(s) + "': " + std::to_string(per[r]) +
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
  std::shared_ptr<const ActionIndex> index;  // on first use: shared_action_index (shared by equal option sets)
  std::vector<Enc> order;  // a peer's id order (a permutation of the action space), or empty
  std::string spec;        // how the Python Rules rebuilds itself (JSON), for pickling its Moves
  // the auction's and the score's options (HandOptions) and the timeout policy, read from the Python
  // Rules' options on a hand's first use (game.cpp): a Rules value never changes its options
  std::shared_ptr<const HandOptions> hand;
  bool timeout_bot = false;
  // each action id's token ("PLAY 33344", "PASS") as a Python str, made on first use and kept:
  // ddz.Game.legal_actions() returns them (new references), as legal_action_ids() its ints
  std::vector<PyObject*> tokens;
  RulesObj() = default;
  RulesObj(const RulesObj&) = delete;
  RulesObj& operator=(const RulesObj&) = delete;
  ~RulesObj() {
    if (tokens.empty() || !Py_IsInitialized()) return;  // at exit the interpreter frees everything
    PyGILState_STATE gil = PyGILState_Ensure();
    for (PyObject* t : tokens) Py_XDECREF(t);
    PyGILState_Release(gil);
  }
  int decks() const { return r.two_decks ? 2 : 1; }
  /// The action space's index, built (or found) on first use.
  const ActionIndex& ix() {
    if (!index) {
      index = shared_action_index(r, order.empty() ? nullptr : order.data(), order.size());
      if (!index)
        throw std::logic_error("the action order set for these rules is not a permutation of their action space");
    }
    return *index;
  }
  const std::vector<Enc>& plays() { return ix().plays(); }
  /// The id of PASS: one past the last play.
  int pass_id() { return int(plays().size()); }
  int id_of(Enc e) { return ix().id_of(e); }
};
using RulesPtr = std::shared_ptr<RulesObj>;

struct MoveObj {
  Enc enc = 0;
  Interp it;
  RulesPtr rules;
};

/// The generator fixes the kind (the lead reading, or the kind of the play followed); the
/// key is the highest of that kind, which is the reading docs/rules.md §4.4 asks for in
/// both cases.
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

/// Each Kind's name (ddz.Kind's members, registered from this table), PASS last.
inline constexpr const char* kKindNames[] = {
    "SOLO",     "PAIR",         "TRIO",         "TRIO_SOLO", "TRIO_PAIR", "STRAIGHT", "PAIR_STRAIGHT",
    "TRIO_STRAIGHT", "PLANE_SOLO", "PLANE_PAIR", "FOUR_TWO_SOLO", "FOUR_TWO_PAIR", "BOMB", "ROCKET",
    "BOMB4",    "BOMB5",        "BOMB6",        "BOMB7",     "BOMB8",     "JOKER_BOMB", "PASS"};
static_assert(sizeof kKindNames / sizeof *kKindNames == PASS + 1, "a name for every Kind and PASS");

inline std::string kind_name(int k) { return (k >= 0 && k <= PASS) ? kKindNames[k] : "?"; }

/// The UTF-8 text of a str argument (a str holding lone surrogates is a card error, not a crash).
inline std::string text_arg(py::handle h, const char* what) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(h.ptr(), &n);
  if (!p) {
    PyErr_Clear();
    throw CardError(std::string(what) + " is not valid text (it holds a lone surrogate)");
  }
  return std::string(p, size_t(n));
}

/// A rules argument: a ddz.Rules (any other type is a type error naming what was given).
inline RulesPtr rules_arg(py::handle h) {
  if (!py::isinstance<RulesObj>(h)) throw ArgumentTypeError("rules must be a ddz.Rules, not " + type_name(h));
  return h.cast<RulesPtr>();
}

/// A hand argument: a str (parsed with the rules' deck count) or a Cards of that deck count.
inline Counts hand_arg(py::handle h, const RulesObj& R, const char* what) {
  if (py::isinstance<py::str>(h)) return parse_counts(text_arg(h, what), R.decks());
  if (py::isinstance<CardsObj>(h)) {
    const CardsObj& c = h.cast<const CardsObj&>();
    if (c.decks != R.decks())
      throw CardError(std::string(what) + " '" + format_counts(c.c) + "' is a " + (c.decks == 2 ? "two" : "one") +
                      "-deck Cards but the rules use " + (R.decks() == 2 ? "two decks" : "one deck") +
                      " (build it with ddz.Cards(..., decks=" + std::to_string(R.decks()) + ") or pass a str)");
    return c.c;
  }
  throw CardTypeError(std::string(what) + " must be a str or ddz.Cards, not " + type_name(h));
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

/// A new reference to the Python int `id` (an action id, 0 <= id < 2**16). The ints are made
/// once and kept for the life of the process (at most 65,536 of them, about 2 MB), since
/// legal_actions() returns tens of them per call and making each is most of its cost.
inline PyObject* id_object(long id) {
  static std::atomic<PyObject*> cache[1 << 16];
  if (id < 0 || id >= (1 << 16)) return PyLong_FromLong(id);
  PyObject* o = cache[id].load(std::memory_order_acquire);
  if (!o) {
    PyObject* made = PyLong_FromLong(id);
    if (!made) return nullptr;
    if (cache[id].compare_exchange_strong(o, made, std::memory_order_acq_rel)) o = made;
    else Py_DECREF(made);  // another thread made it first: o is now its int
  }
  Py_INCREF(o);
  return o;
}

inline thread_local MoveBuffer tl_buf;
inline thread_local MoveBuffer tl_batch;

/// A new Python list of the action ids of a play state's legal actions (generator order), or
/// nullptr with a Python error set: PlayState.legal_actions() and the Game's in the play phase.
inline PyObject* legal_id_list(RulesObj& R, const PlayState& s) {
  MoveBuffer& b = tl_buf;
  b.clear();
  legal_actions(R.r, s, b);
  const ActionIndex& ix = R.ix();
  PyObject* out = PyList_New(Py_ssize_t(b.size));
  if (!out) return nullptr;
  for (size_t i = 0; i < b.size; ++i) {
    PyObject* id = id_object(ix.id_of(b.data[i]));
    if (!id) {
      Py_DECREF(out);
      return nullptr;
    }
    PyList_SET_ITEM(out, Py_ssize_t(i), id);
  }
  return out;
}

/// Gives a reused buffer's memory back once one call has grown it past 8 MB, so that a
/// single huge batch does not pin its high-water mark on every thread for good.
inline void trim(MoveBuffer& b) {
  if (b.cap > (size_t(1) << 20)) b.release();
}

/// An action id in 0..pass (pass = the id of PASS); E / ET: the error and its TypeError twin.
template <class E = MoveError, class ET = MoveTypeError>
long long action_id_arg(py::handle h, int pass) {
  if (!is_int(h)) throw ET("an action id is an int, not " + type_name(h));
  const py::object o = as_pylong(h);
  int overflow = 0;
  long long id = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
  if (overflow || id < 0 || id > pass)
    throw E("action id " + int_shown(h) + " is out of range 0.." + std::to_string(pass) + " (" +
            std::to_string(pass) + " is PASS)");
  return id;
}

/// Calls fn(item, index) for each item of an iterable argument (a str is not a sequence of hands).
template <class F>
void for_each_item(py::handle h, const char* what, F&& fn) {
  if (PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr()))
    throw ArgumentTypeError(std::string(what) + " must be a sequence (a list of hands or plays), not a single " +
                            type_name(h));
  PyObject* it = PyObject_GetIter(h.ptr());
  if (!it) {
    PyErr_Clear();
    throw ArgumentTypeError(std::string(what) + " must be iterable, not " + type_name(h));
  }
  py::object iter = py::reinterpret_steal<py::object>(it);
  size_t i = 0;
  while (PyObject* item = PyIter_Next(iter.ptr())) {
    py::object o = py::reinterpret_steal<py::object>(item);
    fn(o, i++);
  }
  if (PyErr_Occurred()) throw py::error_already_set();
}

/// A 1-D integer numpy array as uint64 words (any integer dtype, byte order or stride; a
/// negative value wraps to an invalid word). Floats, bools and objects are type errors:
/// nothing is truncated silently. A C-contiguous uint64 array is used as it is (no copy).
using WordArray = py::array_t<uint64_t, py::array::c_style | py::array::forcecast>;
inline WordArray word_array(py::handle h, const char* what) {
  py::array a = py::reinterpret_borrow<py::array>(h);
  char k = a.dtype().kind();
  if (k != 'u' && k != 'i')
    throw ArgumentTypeError(std::string(what) + " must be an integer array (uint64 words), not dtype " +
                            std::string(py::str(a.dtype())));
  if (a.ndim() != 1) throw ArgumentError(std::string(what) + " must be a 1-D array, not " + std::to_string(a.ndim()) + "-D");
  WordArray c = WordArray::ensure(h);
  if (!c) throw py::error_already_set();
  return c;
}

/// The reading of an encoded move given by a user (a prevs entry, decode()): the kind must
/// exist, the cards must be a valid word of the rules' decks, and the cards must read as
/// that kind. Anything else is a MoveError, so no impossible move reaches the generator.
inline Interp checked_move(const Rules& r, uint64_t e, const char* what) {
  int k = enc_kind(e);
  if (k >= kNumKinds) throw MoveError(std::string(what) + " has unknown kind " + std::to_string(k));
  Counts c = enc_cards(e);
  if (!c || !valid_word(r, c))
    throw MoveError(std::string(what) + " does not hold a valid set of cards for " +
                    (r.two_decks ? "two decks" : "one deck"));
  Interp it = classify_as(r, c, k);
  if (it.kind < 0) throw MoveError(std::string(what) + " '" + format_counts(c) + "' is not a legal " + kind_name(k));
  return it;
}

inline py::array_t<uint64_t> to_array(const MoveBuffer& b, size_t from = 0) {
  py::array_t<uint64_t> a(py::ssize_t(b.size - from));
  if (b.size > from) std::memcpy(a.mutable_data(), b.data + from, (b.size - from) * sizeof(Enc));
  return a;
}




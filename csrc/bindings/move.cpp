// ddz._core.Move: a lean CPython heap type holding a MoveObj, allocated from a per-thread
// free list (legal_moves builds one per move); its methods are pybind11 functions set on
// the type, so arguments and C++ exceptions convert as everywhere else in the module.
#include <new>

#include "common.hpp"

namespace {

struct MovePy {
  PyObject_HEAD
  MoveObj m;
};

PyTypeObject* g_move_type = nullptr;
// Dead Moves kept for reuse (their memory only), linked through their payload: plain
// thread-locals, so nothing is destroyed at thread or process exit under a late dealloc.
thread_local MovePy* tl_free = nullptr;
thread_local size_t tl_nfree = 0;
constexpr size_t kFreeMax = 4096;
static_assert(sizeof(MoveObj) >= sizeof(MovePy*), "a dead Move's payload holds the free-list link");
MovePy*& next_free(MovePy* o) { return *reinterpret_cast<MovePy**>(&o->m); }

void move_dealloc(PyObject* self) {
  MovePy* o = reinterpret_cast<MovePy*>(self);
  PyTypeObject* tp = Py_TYPE(self);
  o->m.~MoveObj();
  if (tl_nfree < kFreeMax) {
    next_free(o) = tl_free;
    tl_free = o;
    ++tl_nfree;
  } else {
    PyObject_Free(self);
  }
  Py_DECREF(tp);  // instances of a heap type hold a reference to it
}

/// Moves come from the engine only (classify, legal_moves, decode, move_from_id, …).
PyObject* move_new(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError, "ddz.Move cannot be created directly: use ddz.classify, ddz.legal_moves or ddz.decode");
  return nullptr;
}

PyType_Slot move_slots[] = {
    {Py_tp_new, reinterpret_cast<void*>(move_new)},
    {Py_tp_dealloc, reinterpret_cast<void*>(move_dealloc)},
    {Py_tp_doc, const_cast<char*>("One play: cards plus its reading (kind, key, chain length).")},
    {0, nullptr},
};
PyType_Spec move_spec = {"ddz._core.Move", int(sizeof(MovePy)), 0, Py_TPFLAGS_DEFAULT, move_slots};

}  // namespace

PyObject* new_move(const MoveObj& m) {
  MovePy* o;
  if (tl_free) {
    o = tl_free;
    tl_free = next_free(o);
    --tl_nfree;
    PyObject_Init(reinterpret_cast<PyObject*>(o), g_move_type);  // takes a reference to the type
  } else {
    o = PyObject_New(MovePy, g_move_type);
    if (!o) throw py::error_already_set();
  }
  new (&o->m) MoveObj(m);
  return reinterpret_cast<PyObject*>(o);
}

bool is_move(py::handle h) { return h && Py_TYPE(h.ptr()) == g_move_type; }

const MoveObj& move_of(py::handle h) { return reinterpret_cast<MovePy*>(h.ptr())->m; }

void register_move(py::module_& m) {
  g_move_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&move_spec));
  if (!g_move_type) throw py::error_already_set();
  py::object type = py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(g_move_type));
  py::object property = py::module_::import("builtins").attr("property");
  auto prop = [&](const char* name, auto f, const char* doc = "") {
    type.attr(name) = property(py::cpp_function(f), py::none(), py::none(), doc);
  };
  auto method = [&](const char* name, auto f, auto... extra) {
    type.attr(name) = py::cpp_function(f, py::name(name), py::is_method(type), extra...);
  };
  prop("kind", [](const MoveObj& mv) { return Kind(mv.it.kind); });
  prop("key", [](const MoveObj& mv) { return mv.it.key; },
                             "comparison key: v of the main rank, or the chain key of docs/rules.md §4");
  prop("chain_length", [](const MoveObj& mv) { return mv.it.length; });
  prop("cards", [](const MoveObj& mv) { return CardsObj{enc_cards(mv.enc), mv.rules->decks()}; });
  prop("encoded", [](const MoveObj& mv) { return mv.enc; }, "the 8-byte encoding (README)");
  prop("is_bomb", [](const MoveObj& mv) { return is_bomb_kind(mv.it.kind); });
  prop("id", [](const MoveObj& mv) {
            int id = mv.rules->id_of(mv.enc);
            if (id < 0)
              throw MoveError("'" + format_counts(enc_cards(mv.enc)) + "' has more cards than any hand of the variant");
            return id;
          }, "the stable action id (Rules.action_space order; PASS is Rules.pass_id)");
  prop("is_pass", [](const MoveObj& mv) { return is_pass(mv); });
  method("__len__", [](const MoveObj& mv) { return total_cards(enc_cards(mv.enc)); });
  method("beats", [](const MoveObj& mv, py::object other) {
            Interp t;
            if (!prev_arg(other, mv.rules, t)) throw MoveError("beats() needs a play, not None");
            return !is_pass(mv) && beats(mv.rules->r, mv.it, t);
          }, py::arg("other"), "docs/rules.md §5: does this play beat `other` (a Move or a str)?");
  method("__str__", [](const MoveObj& mv) { return is_pass(mv) ? std::string("PASS") : format_counts(enc_cards(mv.enc)); });
  method("__repr__", [](const MoveObj& mv) {
            if (is_pass(mv)) return std::string("Move(PASS)");
            std::string s = "Move('" + format_counts(enc_cards(mv.enc)) + "', " + kind_name(mv.it.kind) +
                            ", key=" + std::to_string(mv.it.key);
            if (is_chain_kind(mv.it.kind)) s += ", length=" + std::to_string(mv.it.length);
            return s + ")";
          });
  method("__eq__", [](const MoveObj& a, py::object b) {
            if (!is_move(b)) return false;
            const MoveObj& o = move_of(b);
            return a.enc == o.enc && a.it.key == o.it.key && a.rules->decks() == o.rules->decks();
          });
  method("__hash__", [](const MoveObj& mv) { return py::hash(py::make_tuple(mv.enc, mv.it.key)); });
  // Pickled as its encoding and the rules it was read under (the Rules' own rebuild recipe):
  // loading rebuilds those Rules and decodes, so the move, its reading and its id come back.
  method("__reduce__", [](const MoveObj& mv) {
            if (mv.rules->spec.empty()) throw py::type_error("a Move of a bare RulesCore cannot be pickled");
            py::object rebuild = py::module_::import("ddz.core.rules").attr("_move_from_spec");
            return py::make_tuple(rebuild, py::make_tuple(mv.enc, mv.rules->spec));
          });
  m.attr("Move") = type;
}

// pybind11 registration of the whole hand behind ddz.Game (_core._WholeHand): the C++ HandState
// (hand.hpp: the deal, the variant's auction as its phase table, the result) with what a Game
// adds beside it: the suited cards of the current deal (PhysicalHands), the play phase as a
// PlayState (PlayStateObj, which Game.play_state shows), the deals' source (scripted deals and
// overrides, shared by every copy) and the history of (seat, action). clone() is one C++ copy:
// the logs (the play state's and the history) are immutable lists that copies share.
#include <limits>
#include <memory>

#include <unordered_map>

#include "../ddz/hand.hpp"
#include "../ddz/rule_policy.hpp"
#include "../ddz/snapshot.hpp"
#include "arrays.hpp"
#include "common.hpp"
#include "game_row.hpp"
#include "physical_obj.hpp"
#include "play_obj.hpp"
#include "raw_methods.hpp"

HandOptions hand_options(py::handle d);  // vector_env.cpp

namespace {

/// What a history entry is: a decision (its token), a play (its cards), a pass, or one of the
/// table's entries (the dealer's REDEAL, a seat's TIMEOUT or ESCAPE).
enum HistKind : uint8_t { H_DECIDE, H_PLAY, H_PASS, H_REDEAL, H_TIMEOUT, H_ESCAPE };

/// The history, newest first; copies share it (a new entry is a new head).
struct HistNode {
  IdSet ids;  // a play's cards
  // mutable only for the destructor, which unlinks nodes nothing else holds; else never changed
  mutable std::shared_ptr<const HistNode> prev;
  uint64_t size;  // entries up to and including this one
  int8_t seat;    // -1: the dealer's REDEAL
  uint8_t kind;
  uint8_t token;  // a decision's token

  HistNode(IdSet i, std::shared_ptr<const HistNode> p, uint64_t n, int8_t s, uint8_t k, uint8_t t)
      : ids(i), prev(std::move(p)), size(n), seat(s), kind(k), token(t) {}
  HistNode(const HistNode&) = delete;
  HistNode& operator=(const HistNode&) = delete;
  /// Frees the nodes that only this one holds in a loop: the default destructor would free the
  /// chain by recursion, one stack frame a node, and a history of a million entries (re-deals,
  /// escapes) overflows the stack. A node whose count is 1 is held by nothing else, so no other
  /// thread or copy can see it while it is taken apart.
  ~HistNode() {
    std::shared_ptr<const HistNode> p = std::move(prev);
    while (p && p.use_count() == 1) {
      std::shared_ptr<const HistNode> next = std::move(p->prev);
      p = std::move(next);  // frees the old node, whose prev is now empty: no recursion
    }
  }
};
using Hist = std::shared_ptr<const HistNode>;

/// What never changes in a hand: the options, the seed, the room's stakes and the deals' source.
struct GameSetup {
  HandOptions o;
  HandSetup deals;
  std::vector<std::vector<uint8_t>> order;  // each scripted deal's card ids as given (SnapDeal::order)
  uint64_t seed = 0;
  uint64_t base = 1, imult = 1;  // the room's stakes (the score is Python's: HandOptions says why)
  bool timeout_bot = false;      // timeout_policy "bot": any legal action may follow a TIMEOUT
};

struct HandObj {
  RulesPtr rules;
  std::shared_ptr<const GameSetup> setup;
  HandState h;
  PhysicalHands ph;          // the current deal's suited cards, as played
  bool kitty_taken = false;  // ph has moved the kitty into the landlord's hand
  PlayStateObj ps;           // the play phase, once h.in_play
  Hist hist;
  uint64_t deal_start = 0;   // the history's size when the current deal began
  uint64_t hist_size() const { return hist ? hist->size : 0; }
  Variant variant() const { return rules->r.variant; }
  int vi() const { return ddz::vi(rules->r.variant); }
  const VariantSpec& spec() const { return rules->r.spec(); }
};

PyTypeObject* g_hand_type = nullptr;
PyObject* g_phase_names[kHandPhases] = {};
PyObject* g_token_names[kVariants][8] = {};
PyObject* g_pass_str = nullptr;

HandObj* hand_ptr(PyObject* self) { return raw_value<HandObj>(self); }

void push_hist(HandObj& G, int seat, uint8_t kind, uint8_t token = 0, IdSet ids = 0) {
  G.hist = std::make_shared<const HistNode>(ids, G.hist, G.hist_size() + 1, int8_t(seat), kind, token);
}

PyObject* new_ref(PyObject* o) {
  Py_INCREF(o);
  return o;
}

/// The token of a history entry, as ddz.Game records it.
py::object hist_token(const HandObj& G, const HistNode& e) {
  switch (e.kind) {
    case H_DECIDE: return py::reinterpret_borrow<py::object>(g_token_names[G.vi()][e.token]);
    case H_PLAY: return py::str("PLAY " + names_of(e.ids));
    case H_PASS: return py::reinterpret_borrow<py::object>(g_pass_str);
    case H_REDEAL: return py::str("REDEAL");
    case H_TIMEOUT: return py::str("TIMEOUT");
    default: return py::str("ESCAPE");
  }
}

/// The history entries from index `from` on, oldest first.
std::vector<const HistNode*> hist_from(const HandObj& G, uint64_t from) {
  std::vector<const HistNode*> v;
  for (const HistNode* n = G.hist.get(); n && n->size > from; n = n->prev.get()) v.push_back(n);
  return std::vector<const HistNode*>(v.rbegin(), v.rend());
}

/// Points the hand's deal capture at `d` for the life of the guard (HandState::capture).
struct Capture {
  HandState& h;
  Capture(HandState& hs, HandDeal* d) : h(hs) { h.capture = d; }
  ~Capture() { h.capture = nullptr; }
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;
};

/// The suited cards of a new deal: the deal the core just made (captured, see below).
void start_deal_cards(HandObj& G, const HandDeal& d) {
  G.ph = d.cards;
  G.kitty_taken = false;
  G.ps = PlayStateObj{G.rules, PlayState(), nullptr, true};
  G.deal_start = G.hist_size();
}

/// Brings the suited cards and the play state up to the HandState after a decision.
void sync(HandObj& G, uint64_t redeals_before, bool in_play_before, const HandDeal& dealt) {
  HandState& h = G.h;
  if (h.redeals != redeals_before) {
    push_hist(G, -1, H_REDEAL);
    if (h.result != HR_VOID) start_deal_cards(G, dealt);
    in_play_before = false;
  }
  if (h.kitty_revealed && !G.kitty_taken) {
    G.ph.take_kitty(h.landlord);
    G.kitty_taken = true;
  }
  if (h.in_play && !in_play_before) G.ps = PlayStateObj{G.rules, h.t.s, nullptr, true};
}

/// The decision tokens offered now (table order).
int offered(const HandObj& G, uint8_t* out) { return hand_decisions(G.rules->r, G.h, out); }

bool is_offered(const HandObj& G, int token) {
  uint8_t t[6];
  const int k = offered(G, t);
  for (int i = 0; i < k; ++i)
    if (t[i] == token) return true;
  return false;
}

/// Applies an offered decision of the seat to act.
void decide(HandObj& G, int token) {
  HandState& h = G.h;
  const uint8_t phase = h.phase;
  const uint64_t redeals = h.redeals;
  const bool in_play = h.in_play;
  push_hist(G, h.seat, H_DECIDE, uint8_t(token));
  HandDeal dealt;  // a re-deal's suited cards, when the decision re-deals
  {
    Capture c(h, &dealt);
    hand_decide(G.rules->r, G.setup->o, h, token);
  }
  if (!(kLeadsTo[G.vi()][phase][token] & (1u << h.phase)))
    throw std::logic_error(std::string(G.spec().decisions[token]) + " led from " + kHandPhaseNames[phase] +
                           " to " + kHandPhaseNames[h.phase] + ", which the phase table does not name");
  sync(G, redeals, in_play, dealt);
}

/// Applies a checked play or pass (`reading` as check_action read it) of the seat to act.
void apply_play(HandObj& G, IdSet ids, bool pass, const Interp& reading) {
  const int seat = G.ps.s.seat;
  if (pass) {
    push_action(G.ps, kPassEnc, 0, true, reading);
  } else {
    Counts cards = counts_of_ids(ids);
    push_action(G.ps, encode(cards, reading.kind), cards, false, reading);
    G.ph.held[seat] &= ~ids;
  }
  push_hist(G, seat, pass ? H_PASS : H_PLAY, 0, ids);
  hand_played(G.rules->r, G.setup->o, G.h, G.ps.s, seat);
}

/// Plays a play or pass of the seat to act (checked here: IllegalAction, nothing changed);
/// returns the recorded token.
PyObject* play(HandObj& G, PyObject* action) {
  IdSet ids = 0;
  bool pass = false;
  Interp reading;
  std::string msg;
  bool type_error;
  Illegal why = check_play(G.ph, G.ps, action, ids, pass, reading, msg, type_error);
  if (type_error) throw IllegalActionTypeError(msg);
  if (why != Illegal::None) throw IllegalActionError(msg, why);
  PyObject* token;
  if (pass) {
    token = new_ref(g_pass_str);
  } else {
    char text[kPlayTokenMax];
    std::memcpy(text, "PLAY ", 5);
    token = PyUnicode_FromStringAndSize(text, Py_ssize_t(5 + names_into(ids, text + 5)));
  }
  if (!token) return nullptr;
  apply_play(G, ids, pass, reading);
  return token;
}

/// The default action of a timeout (docs/rules.md §9 "Time", A8) for the seat to act: the first
/// non-escalating choice offered (in this order), else PASS, else the lowest single card (by
/// rank, then id). Returns the decision's token index (>= 0), -1 for PASS, or -2 with the card.
constexpr const char* kTimeoutChoices[] = {"NO_CALL", "NO_ROB", "NO_SHOW", "NORMAL_START", "NO_FANSHEN",
                                           "NO_YAPO", "CLOSED"};
int timeout_default(const HandObj& G, IdSet& card) {
  if (G.h.phase < HP_PLAY) {
    uint8_t t[6];
    const int k = offered(G, t);
    for (const char* want : kTimeoutChoices)
      for (int i = 0; i < k; ++i)
        if (std::strcmp(G.spec().decisions[t[i]], want) == 0) return t[i];
    throw std::logic_error("a phase offers no non-escalating choice");
  }
  const PlayState& s = G.ps.s;
  if (!s.leading()) return -1;  // following: PASS
  int best = -1;
  for (IdSet x = G.ph.held[s.seat]; x; x &= x - 1) {
    const int id = lowest_id(x);
    if (best < 0 || card_rank(id) < card_rank(best)) best = id;
  }
  card = id_bit(best);
  return -2;
}

// ---- raw methods: the calls a Game makes once per action ----------------------------------

PyObject* hd_clone(PyObject* self, PyObject*) {
  HandObj* G = hand_ptr(self);
  if (!G) return nullptr;
  return raw_call([G]() -> PyObject* { return py::cast(HandObj(*G)).release().ptr(); });
}

PyObject* hd_phase(PyObject* self, void*) {
  HandObj* G = hand_ptr(self);
  return G ? new_ref(g_phase_names[G->h.phase]) : nullptr;
}

PyObject* hd_current_seat(PyObject* self, void*) {
  HandObj* G = hand_ptr(self);
  if (!G) return nullptr;
  const HandState& h = G->h;
  if (h.phase == HP_OVER) Py_RETURN_NONE;
  return PyLong_FromLong(h.phase == HP_PLAY ? G->ps.s.seat : h.seat);
}

PyObject* hd_seat(PyObject* self, void*) {
  HandObj* G = hand_ptr(self);
  if (!G) return nullptr;
  if (G->h.phase >= HP_PLAY) Py_RETURN_NONE;
  return PyLong_FromLong(G->h.seat);
}

PyObject* hd_is_over(PyObject* self, void*) {
  HandObj* G = hand_ptr(self);
  return G ? PyBool_FromLong(G->h.phase == HP_OVER) : nullptr;
}

PyObject* hd_in_play(PyObject* self, void*) {
  HandObj* G = hand_ptr(self);
  return G ? PyBool_FromLong(G->h.in_play) : nullptr;
}

PyObject* id_list_of(const uint8_t* tokens, int k, int pass_id) {
  PyObject* out = PyList_New(k);
  if (!out) return nullptr;
  for (int i = 0; i < k; ++i) {
    PyObject* v = PyLong_FromLong(pass_id + 1 + tokens[i]);
    if (!v) {
      Py_DECREF(out);
      return nullptr;
    }
    PyList_SET_ITEM(out, i, v);
  }
  return out;
}

PyObject* hd_legal_action_ids(PyObject* self, PyObject*) {
  HandObj* G = hand_ptr(self);
  if (!G) return nullptr;
  return raw_call([G]() -> PyObject* {
    const HandState& h = G->h;
    if (h.phase == HP_OVER) return PyList_New(0);
    if (h.phase == HP_PLAY) return legal_id_list(*G->rules, G->ps.s);
    uint8_t t[6];
    const int k = offered(*G, t);
    return id_list_of(t, k, G->rules->pass_id());
  });
}

/// The token of a play or PASS id (a new reference), made once per rules and id.
PyObject* token_object(RulesObj& R, int id) {
  const int pass = R.pass_id();
  if (R.tokens.empty()) R.tokens.assign(size_t(pass) + 1, nullptr);
  PyObject*& slot = R.tokens[size_t(id)];
  if (!slot) {
    if (id == pass) {
      slot = g_pass_str;
      Py_INCREF(slot);
    } else {
      char text[5 + 40];
      std::memcpy(text, "PLAY ", 5);
      size_t len = 5;
      const Counts c = enc_cards(R.plays()[size_t(id)]);
      for (int r = 0; r < kRanks; ++r)
        for (int k = count_of(c, r); k; --k) text[len++] = kRankChars[r];
      slot = PyUnicode_InternFromString(std::string(text, len).c_str());
      if (!slot) return nullptr;
    }
  }
  Py_INCREF(slot);
  return slot;
}

/// legal_tokens(): the legal actions of the seat to act as tokens (decisions in the auction
/// phases, "PLAY <ranks>" and "PASS" in the play phase, in legal_action_ids() order).
PyObject* hd_legal_tokens(PyObject* self, PyObject*) {
  HandObj* G = hand_ptr(self);
  if (!G) return nullptr;
  return raw_call([G]() -> PyObject* {
    const HandState& h = G->h;
    if (h.phase == HP_OVER) return PyList_New(0);
    if (h.phase != HP_PLAY) {
      uint8_t t[6];
      const int k = offered(*G, t);
      PyObject* out = PyList_New(k);
      if (!out) return nullptr;
      for (int i = 0; i < k; ++i) PyList_SET_ITEM(out, i, new_ref(g_token_names[G->vi()][t[i]]));
      return out;
    }
    RulesObj& R = *G->rules;
    MoveBuffer& b = tl_buf;
    b.clear();
    legal_actions(R.r, G->ps.s, b);
    const ActionIndex& ix = R.ix();
    PyObject* out = PyList_New(Py_ssize_t(b.size));
    if (!out) return nullptr;
    for (size_t i = 0; i < b.size; ++i) {
      PyObject* t = token_object(R, ix.id_of(b.data[i]));
      if (!t) {
        Py_DECREF(out);
        return nullptr;
      }
      PyList_SET_ITEM(out, Py_ssize_t(i), t);
    }
    return out;
  });
}

/// apply_id(action): the common case of Game.apply, an action id (a Python int) with no seat
/// given: a play or PASS in the play phase (checked: an illegal one raises IllegalAction and
/// changes nothing), or a decision offered now; returns the recorded token. Anything else
/// returns None and changes nothing (Game then checks it in full and words its error).
PyObject* hd_apply_id(PyObject* self, PyObject* action) {
  HandObj* G = hand_ptr(self);
  if (!G) return nullptr;
  return raw_call([G, action]() -> PyObject* {
    if (!PyLong_CheckExact(action)) Py_RETURN_NONE;
    int overflow = 0;
    const long long a = PyLong_AsLongLongAndOverflow(action, &overflow);
    if (overflow || a < 0) Py_RETURN_NONE;
    const long long pass = G->rules->pass_id();
    HandState& h = G->h;
    if (h.phase == HP_PLAY) return a <= pass ? play(*G, action) : new_ref(Py_None);
    if (h.phase == HP_OVER || a <= pass || a > pass + G->spec().decision_count) Py_RETURN_NONE;
    const int k = int(a - pass - 1);
    if (!is_offered(*G, k)) Py_RETURN_NONE;
    decide(*G, k);
    return new_ref(g_token_names[G->vi()][k]);
  });
}

/// decide_id(action, seat): the common case of a decision, the id (a Python int) of a token
/// the seat to act is offered now (`seat` None or that seat): applies it and returns its token;
/// anything else returns None and changes nothing (Game then checks it in full).
PyObject* hd_decide_id(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
  HandObj* G = hand_ptr(self);
  if (!G) return nullptr;
  return raw_call([G, args, nargs]() -> PyObject* {
    if (nargs != 2) throw ArgumentTypeError("decide_id(action, seat) takes 2 arguments");
    HandState& h = G->h;
    if (!PyLong_CheckExact(args[0]) || h.phase >= HP_PLAY) Py_RETURN_NONE;
    if (args[1] != Py_None) {
      if (!PyLong_CheckExact(args[1])) Py_RETURN_NONE;
      const long s = PyLong_AsLong(args[1]);
      if (s == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NONE;
      }
      if (s != h.seat) Py_RETURN_NONE;
    }
    int overflow = 0;
    const long long a = PyLong_AsLongLongAndOverflow(args[0], &overflow);
    // the range first, then the difference (a may be -2**63: a - pass_id would overflow)
    const long long first = G->rules->pass_id() + 1;
    if (overflow || a < first || a >= first + G->spec().decision_count) Py_RETURN_NONE;
    const long long k = a - first;
    if (!is_offered(*G, int(k))) Py_RETURN_NONE;
    decide(*G, int(k));
    return new_ref(g_token_names[G->vi()][k]);
  });
}

/// play(action): a play or pass in the play phase (ddz.Game.apply's path).
PyObject* hd_play(PyObject* self, PyObject* action) {
  HandObj* G = hand_ptr(self);
  if (!G) return nullptr;
  return raw_call([G, action]() -> PyObject* {
    if (G->h.phase != HP_PLAY) throw IllegalActionError("no play phase now", Illegal::WrongPhase);
    return play(*G, action);
  });
}

PyGetSetDef hd_getters[] = {
    {"phase", hd_phase, nullptr, "the phase's name", nullptr},
    {"current_seat", hd_current_seat, nullptr, "the seat to act, None once the hand is over", nullptr},
    {"seat", hd_seat, nullptr, "the seat to decide in an auction phase, else None", nullptr},
    {"is_over", hd_is_over, nullptr, "whether the hand is over", nullptr},
    {"in_play", hd_in_play, nullptr, "whether the play phase has started (it stays True once over)", nullptr},
};

PyMethodDef hd_methods[] = {
    {"clone", hd_clone, METH_NOARGS, "clone(self) -> ddz._core._WholeHand\n\nAn independent copy (one C++ copy)."},
    {"legal_action_ids", hd_legal_action_ids, METH_NOARGS,
     "legal_action_ids(self) -> list[int]\n\nThe ids of the legal actions of the seat to act."},
    {"decide_id", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(hd_decide_id)), METH_FASTCALL,
     "decide_id(self, action: object, seat: int | None) -> str | None\n\nApplies the id of a decision offered to "
     "the seat to act (seat None or that seat) and returns its token; otherwise None, nothing changed."},
    {"legal_tokens", hd_legal_tokens, METH_NOARGS,
     "legal_tokens(self) -> list[str]\n\nThe legal actions of the seat to act as tokens, in legal_action_ids() order."},
    {"apply_id", hd_apply_id, METH_O,
     "apply_id(self, action: object) -> str | None\n\nApplies an action id of the seat to act (a legal play or "
     "PASS, or an offered decision) and returns its token; None (nothing changed) for anything else."},
    {"play", hd_play, METH_O,
     "play(self, action: object) -> str\n\nPlays real cards for the seat to act (as PhysicalHands.play) and returns "
     "the recorded token; an illegal play raises ddz.IllegalAction and changes nothing."},
};

int seat_in(const HandObj& G, py::handle s) { return int(int_arg(s, "seat", 0, G.ph.n - 1)); }

py::object opt_seat(int s) { return s < 0 || s == kNone ? py::object(py::none()) : py::object(py::int_(s)); }

py::tuple deal_tuple(const HandObj& G, const HandDeal& d) {
  const int n = G.rules->r.players();
  py::list hands;
  for (int s = 0; s < n; ++s) hands.append(id_list(d.cards.held[s]));
  return py::make_tuple(hands, id_list(d.cards.kitty), id_list(d.cards.aside), int(d.first_bidder),
                        G.spec().coin_toss ? py::object(py::int_(int(d.first_to_decide))) : py::object(py::none()));
}

/// A given deal's suited cards from its card ids in part order (SnapDeal::order), which must be
/// every card of the deck once, each part as long as the layout says.
PhysicalHands physical_from_order(const Rules& r, const std::vector<uint8_t>& order) {
  const std::vector<int> parts = deal_part_sizes(r.variant);
  PhysicalHands h;
  h.n = r.players();
  h.decks = r.two_decks ? 2 : 1;
  const size_t deck = size_t(54 * h.decks);
  IdSet seen = 0;
  if (order.size() != deck) throw ArgumentError("a deal holds " + std::to_string(deck) + " cards");
  size_t at = 0;
  for (size_t p = 0; p < parts.size(); ++p)
    for (int c = 0; c < parts[p]; ++c, ++at) {
      const int id = order[at];
      if (size_t(id) >= deck || (seen & id_bit(id))) throw ArgumentError("a deal must hold every card of the deck once");
      seen |= id_bit(id);
      IdSet& part = p < size_t(h.n) ? h.held[p] : p == size_t(h.n) ? h.kitty : h.aside;
      part |= id_bit(id);
    }
  return h;
}

/// Reads the rules' auction and score options into the rules' core object, once.
void read_hand_options(RulesObj& r, py::handle options) {
  if (r.hand) return;
  py::dict full;  // a copy: the rules' own options (another variant's are not read)
  for (auto kv : py::dict(py::reinterpret_borrow<py::object>(options))) full[kv.first] = kv.second;
  r.hand = std::make_shared<const HandOptions>(hand_options(full));
  r.timeout_bot = full.contains("timeout_policy") && py::str(full["timeout_policy"]).cast<std::string>() == "bot";
}

/// A new hand of `su` (its first deal dealt).
HandObj new_hand(const RulesPtr& rp, std::shared_ptr<const GameSetup> su) {
  HandObj G{rp, su, HandState(), PhysicalHands(), false, PlayStateObj{rp, PlayState(), nullptr, true}, nullptr, 0};
  HandDeal dealt;
  {
    Capture c(G.h, &dealt);  // the core deals once; the Game keeps that deal's suited cards
    hand_start(rp->r, su->o, G.h, su->seed, &su->deals);
  }
  start_deal_cards(G, dealt);
  return G;
}

/// Adds a scripted deal (card ids in part order) to a setup.
void add_scripted(const Rules& r, GameSetup& su, std::vector<uint8_t> order, int first_bidder, int first_to_decide) {
  HandDeal d;
  d.cards = physical_from_order(r, order);
  d.first_bidder = uint8_t(first_bidder);
  d.first_to_decide = uint8_t(first_to_decide < 0 ? 0 : first_to_decide);
  su.deals.scripted.push_back(d);
  su.order.push_back(std::move(order));
}

// ---- the outcome, as the core scores it (hand.hpp, HandOutcome) --------------------------

py::list factors_list(const HandOutcome& out) {
  py::list f;
  for (int i = 0; i < out.nfactors; ++i) {
    const Factor& x = out.factors[i];
    f.append(py::make_tuple(x.name, x.value, int(x.type), x.option ? py::object(py::str(x.option)) : py::object(py::none())));
  }
  return f;
}

/// The outcome as Python reads it (ddz.hand.outcome turns it into a GameResult).
py::tuple outcome_tuple(int n, const HandOutcome& out) {
  py::list coef, den, missiles, limits, special;
  for (int p = 0; p < n; ++p) {
    coef.append(out.coef[p]);
    den.append(int(out.den[p]));
    missiles.append(out.missiles[p]);
    limits.append(out.limits[p] == kUnlimited ? py::object(py::none()) : py::object(py::int_(int(out.limits[p]))));
    special.append(py::make_tuple(int(out.tianzha[p]), out.tianzun[p]));
  }
  auto seat = [](int s) { return s < 0 ? py::object(py::none()) : py::object(py::int_(s)); };
  return py::make_tuple(kHandResultNames[out.kind],
                        out.winner_side < 0 ? py::object(py::none()) : py::object(py::str(out.winner_side ? "farmers" : "landlord")),
                        seat(out.landlord), seat(out.winner_seat), out.multiplier, out.unit, coef, den,
                        factors_list(out), out.spring, out.anti_spring, out.robs, out.bombs, out.play_detail,
                        missiles, limits, special, out.landlord_factor, out.terms);
}

const PlayState* play_of(const HandObj& G) { return G.h.in_play ? &G.ps.s : nullptr; }

// ---- the compact observation (game_row.hpp; docs/encodings.md) -------------------------

/// `seat`'s compact row of the hand now (ddz.encode.compact of a Game): the core's writer of every
/// row (hand_encode), given the Game's own play.
void hand_row(const HandObj& G, int seat, int8_t* row) {
  const CompactLayout L = compact_layout(G.rules->r, G.spec().decision_count);
  if (G.h.in_play) {
    const Tracked t = tracked_of(G.ps);
    hand_encode(G.rules->r, G.setup->o, L, G.h, &t, seat, row);
  } else {
    hand_encode(G.rules->r, G.setup->o, L, G.h, nullptr, seat, row);
  }
}

// ---- snapshots (csrc/ddz/snapshot.hpp; docs/records.md) ----------------------------------

/// ddz.RecordError (a Python class, ddz.core.errors) raised with `msg`.
[[noreturn]] void raise_record_error(const std::string& msg) {
  py::object cls = py::module_::import("ddz.core.errors").attr("RecordError");
  PyErr_SetString(cls.ptr(), msg.c_str());
  throw py::error_already_set();
}

/// The hand as a snapshot (its rules named by `key`, Python's).
std::string hand_snapshot(const HandObj& G, const std::string& key) {
  Snapshot s;
  s.variant = G.variant();
  s.rules = key;
  const GameSetup& su = *G.setup;
  s.seed = su.seed;
  s.base = su.base;
  s.imult = su.imult;
  s.first_bidder = su.deals.first_bidder < 0 ? 0xFF : uint8_t(su.deals.first_bidder);
  s.first_to_decide = su.deals.first_to_decide < 0 ? 0xFF : uint8_t(su.deals.first_to_decide);
  for (size_t k = 0; k < su.order.size(); ++k) {
    const HandDeal& d = su.deals.scripted[k];
    s.deals.push_back(SnapDeal{su.order[k], d.first_bidder, uint8_t(G.spec().coin_toss ? d.first_to_decide : 0xFF)});
  }
  // the plays' readings come from the play log (a play of the current deal, in the same order)
  const std::vector<const LogNode*> plays = G.ps.entries();
  size_t next_play = 0;
  for (const HistNode* e : hist_from(G, 0)) {
    SnapAction a;
    a.seat = uint8_t(e->seat);
    switch (e->kind) {
      case H_REDEAL: continue;  // the dealer's: the replay deals again
      case H_DECIDE: a.kind = SK_DECIDE; a.token = e->token; break;
      case H_TIMEOUT: a.kind = SK_TIMEOUT; break;
      case H_ESCAPE: a.kind = SK_ESCAPE; break;
      default:
        if (next_play >= plays.size()) throw std::logic_error("the history holds a play the play log does not");
        a.kind = e->kind == H_PASS ? SK_PASS : SK_PLAY;
        a.ids = e->ids;
        a.play_kind = uint8_t(enc_kind(plays[next_play++]->move));
        if (a.kind == SK_PASS) a.play_kind = 0;
    }
    s.actions.push_back(a);
  }
  std::string out;
  write_snapshot(s, out);
  return out;
}

/// Replays a parsed snapshot's actions on its new hand, each checked as Game checks it: a
/// decision offered to the seat to act, a legal play of cards it holds in the reading named, a
/// TIMEOUT followed at once by its seat's action (the default one, unless the rules let a bot
/// choose), an ESCAPE of an unfinished hand. SnapshotError names the first that does not replay.
void replay(HandObj& G, const Snapshot& s) {
  const Rules& r = G.rules->r;
  bool pending = false;  // a TIMEOUT waits for its action
  for (size_t i = 0; i < s.actions.size(); ++i) {
    const SnapAction& a = s.actions[i];
    auto bad = [&](const std::string& why) {
      throw SnapshotError("action " + std::to_string(i) + " does not replay: " + why);
    };
    const int to_act = G.h.phase == HP_OVER ? -1 : G.h.phase == HP_PLAY ? int(G.ps.s.seat) : int(G.h.seat);
    if (to_act < 0) bad("the hand is over");
    if (a.kind == SK_ESCAPE) {
      if (pending) bad("an ESCAPE between a TIMEOUT and its action");
      push_hist(G, a.seat, H_ESCAPE);
      if (G.spec().escape_ends) {
        G.h.phase = HP_OVER;
        G.h.result = HR_ESCAPE;
      }
      continue;
    }
    if (a.seat != to_act) bad("it is by seat " + std::to_string(a.seat) + ", but seat " + std::to_string(to_act) + " is to act");
    if (a.kind == SK_TIMEOUT) {
      if (pending) bad("two TIMEOUTs in a row");
      pending = true;
      push_hist(G, a.seat, H_TIMEOUT);
      continue;
    }
    if (pending && !G.setup->timeout_bot) {  // the default action must follow a TIMEOUT
      IdSet card = 0;
      const int want = timeout_default(G, card);
      const bool same = want >= 0 ? a.kind == SK_DECIDE && a.token == want
                        : want == -1 ? a.kind == SK_PASS : a.kind == SK_PLAY && a.ids == card;
      if (!same) bad("it follows a TIMEOUT, so it must be the default action");
    }
    pending = false;
    if (a.kind == SK_DECIDE) {
      if (G.h.phase >= HP_PLAY || !is_offered(G, a.token))
        bad(std::string(G.spec().decisions[a.token]) + " is not offered in phase " + kHandPhaseNames[G.h.phase]);
      decide(G, a.token);
      continue;
    }
    if (G.h.phase != HP_PLAY) bad("a play in phase " + std::string(kHandPhaseNames[G.h.phase]));
    const bool pass = a.kind == SK_PASS;
    if (!pass && (a.ids & ~G.ph.held[a.seat])) bad("seat " + std::to_string(a.seat) + " does not hold the cards");
    const Counts cards = pass ? 0 : counts_of_ids(a.ids);
    Interp reading;
    const Illegal why = check_action(r, G.ps.s, cards, pass, pass ? -1 : a.play_kind, reading);
    if (why != Illegal::None) bad(illegal_message(G.ps, why, cards, pass ? -1 : a.play_kind, reading));
    apply_play(G, pass ? 0 : a.ids, pass, reading);
  }
  if (pending) throw SnapshotError("the snapshot ends on a TIMEOUT without its action");
}

/// Rules by snapshot key, interned: a process holds one Rules value per key (bounded; Python's
/// resolver makes a missing one and raises ddz.RecordError for a key it cannot read).
PyObject* g_rules_resolver = nullptr;  // a strong reference, never released (no destructor at exit)
std::unordered_map<std::string, py::object>* g_rules_by_key = nullptr;

py::object rules_of_key(const std::string& key) {
  if (!g_rules_by_key) g_rules_by_key = new std::unordered_map<std::string, py::object>();  // lives to the end
  auto it = g_rules_by_key->find(key);
  if (it != g_rules_by_key->end()) return it->second;
  if (!g_rules_resolver) throw std::logic_error("no rules resolver is set (ddz.core.rules sets it)");
  py::object rules = py::reinterpret_borrow<py::object>(g_rules_resolver)(py::bytes(key));
  if (g_rules_by_key->size() >= 256) g_rules_by_key->clear();  // hostile keys cannot grow it without bound
  return g_rules_by_key->emplace(key, rules).first->second;
}

/// A hand rebuilt from snapshot bytes: (the hand, its rules).
py::tuple load_snapshot(py::handle data) {
  if (!PyBytes_Check(data.ptr())) {
    py::object cls = py::module_::import("ddz.core.errors").attr("RecordTypeError");
    PyErr_SetString(cls.ptr(), ("a snapshot is bytes, not " + type_name(data)).c_str());
    throw py::error_already_set();
  }
  Snapshot s;
  try {
    read_snapshot(reinterpret_cast<const uint8_t*>(PyBytes_AS_STRING(data.ptr())), size_t(PyBytes_GET_SIZE(data.ptr())), s);
  } catch (const SnapshotError& e) {
    raise_record_error(e.what());
  }
  py::object rules_obj = rules_of_key(s.rules);
  RulesPtr rp = rules_arg(rules_obj);
  if (rp->r.variant != s.variant) raise_record_error("not a ddz snapshot: its rules are of another variant");
  auto su = std::make_shared<GameSetup>();
  read_hand_options(*rp, rules_obj.attr("options"));
  su->o = *rp->hand;
  su->timeout_bot = rp->timeout_bot;
  su->seed = s.seed;
  su->base = s.base;
  su->imult = s.imult;
  if (!spec_of(s.variant).stakes && (s.base != 1 || s.imult != 1))
    raise_record_error(std::string("not a ddz snapshot: stakes in ") + spec_of(s.variant).title);
  su->deals.first_bidder = s.first_bidder == 0xFF ? -1 : s.first_bidder;
  su->deals.first_to_decide = s.first_to_decide == 0xFF ? -1 : s.first_to_decide;
  for (const SnapDeal& d : s.deals)
    add_scripted(rp->r, *su, d.order, d.first_bidder, d.first_to_decide == 0xFF ? -1 : d.first_to_decide);
  HandObj G = new_hand(rp, su);
  try {
    replay(G, s);
  } catch (const SnapshotError& e) {
    raise_record_error(std::string("the snapshot: ") + e.what());
  }
  const uint64_t used = G.h.redeals + (G.h.result == HR_VOID ? 0 : 1);
  if (used < s.deals.size())
    raise_record_error("the snapshot holds " + std::to_string(s.deals.size()) + " deals but its actions use " +
                       std::to_string(used));
  return py::make_tuple(py::cast(std::move(G)), rules_obj);
}

/// _new_hand(rules, options, seed): a seeded hand at the stakes of 1, the common ddz.Game(rules,
/// seed), made without pybind11's constructor dispatch (a raw function, raw_methods.hpp).
PyObject* new_seeded_hand(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return raw_call([args, nargs]() -> PyObject* {
    if (nargs != 3) throw ArgumentTypeError("_new_hand(rules, options, seed) takes 3 arguments");
    RulesPtr rp = rules_arg(args[0]);
    read_hand_options(*rp, args[1]);
    auto su = std::make_shared<GameSetup>();
    su->o = *rp->hand;
    su->timeout_bot = rp->timeout_bot;
    su->seed = u64_arg(args[2], "seed");
    return py::cast(new_hand(rp, su)).release().ptr();
  });
}

PyMethodDef g_new_hand_def = {
    "_new_hand", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(new_seeded_hand)), METH_FASTCALL,
    "_new_hand(rules, options, seed) -> ddz._core._WholeHand\n\nA seeded hand at the stakes of 1 (ddz.Game's common "
    "case)."};

}  // namespace

void register_game(py::module_& m) {
  m.attr("MAX_OPTION_VALUE") = py::int_(kMaxOptionValue);
  for (int p = 0; p < kHandPhases; ++p) g_phase_names[p] = PyUnicode_InternFromString(kHandPhaseNames[p]);
  for (int v = 0; v < kVariants; ++v)
    for (int t = 0; t < kVariantSpecs[v].decision_count; ++t)
      g_token_names[v][t] = PyUnicode_InternFromString(kVariantSpecs[v].decisions[t]);
  g_pass_str = PyUnicode_InternFromString("PASS");
  // the phase table and the leads-to table agree: a phase leads somewhere from each token it offers
  for (int v = 0; v < kVariants; ++v)
    for (int p = 0; p < kHandPhases; ++p)
      for (int t = 0; t < kVariantSpecs[v].decision_count; ++t) {
        bool in_row = false;
        for (const uint8_t* k = kPhaseTokens[v][p]; *k != kNone; ++k) in_row = in_row || *k == t;
        if (in_row != (kLeadsTo[v][p][t] != 0)) throw std::logic_error("the auction tables disagree");
      }

  m.def("_auction_table", [](IntArg variant_h) {
        const int v = int(int_arg(variant_h, "variant", 0, 2));
        py::list rows;
        for (int p = 0; p < kHandPhases; ++p)
          for (const uint8_t* k = kPhaseTokens[v][p]; *k != kNone; ++k) {
            py::list leads;
            for (int q = 0; q < kHandPhases; ++q)
              if (kLeadsTo[v][p][*k] & (1u << q)) leads.append(kHandPhaseNames[q]);
            rows.append(py::make_tuple(kHandPhaseNames[p], kVariantSpecs[v].decisions[*k], py::tuple(leads)));
          }
        return rows;
      }, py::arg("variant"),
      "The auction of variant 0 (CLASSIC3), 1 (TWOP) or 2 (BENGBU4) as the core defines it: (phase, token, the "
      "phases it may lead to) in table order (ddz.hand.auction_*.TRANSITIONS are built from it).");

  m.def("_play_outcome", [](RulesArg rules, py::handle options, py::handle ps_h) {
        RulesPtr rp = rules_arg(rules);
        const PlayStateObj* P = play_state_ptr(ps_h.ptr());
        if (!P) throw ArgumentTypeError("a PlayState is needed, not " + type_name(ps_h));
        if (!P->s.over()) throw ArgumentError("the play is not over");
        // the play phase alone: the landlord the play state's, every auction factor at 1 (BENGBU4: a bid
        // of 1, closed play, no bomb limits)
        const HandOptions o = hand_options(options);
        HandState h;
        h.landlord = P->s.landlord;
        h.in_play = true;
        h.base = 1;
        h.result = HR_NORMAL;
        h.phase = HP_OVER;
        HandOutcome out;
        hand_outcome(rp->r, o, h, &P->s, out);
        return outcome_tuple(rp->r.players(), out);
      }, py::arg("rules"), py::arg("options"), py::arg("play_state"),
      "The outcome of a finished play phase scored alone (every auction factor at 1), as Game.outcome gives it.");
  m.def("_play_multiplier", [](RulesArg rules, py::handle options, IntArg bombs_h, IntArg rockets_h, bool spring) {
        RulesPtr rp = rules_arg(rules);
        const HandOptions o = hand_options(options);
        const int bombs = int(int_arg(bombs_h, "bombs", 0, 255)), rockets = int(int_arg(rockets_h, "rockets", 0, bombs));
        const int d = play_doubling(rp->r, o, bombs, rockets);
        return (int64_t(1) << d) * (spring && rp->r.spec().springs ? 2 : 1);
      }, py::arg("rules"), py::arg("options"), py::arg("bombs"), py::arg("rockets"), py::arg("spring"),
      "The play's part of the multiplier: 2 per doubling bomb-class play (bombs counts them, the rockets among them), "
      "x2 for a spring or anti-spring; 1 in BENGBU4.");
  m.def("_rule_choose", [](RulesArg rules, const std::string& phase, IntArg hand_h, py::handle legal_h, double call_at,
                           double double_at) -> py::object {
        RulesPtr rp = rules_arg(rules);
        const VariantSpec& spec = rp->r.spec();
        int p = 0;
        while (p < HP_PLAY && phase != kHandPhaseNames[p]) ++p;
        if (p >= HP_PLAY) throw ArgumentError("no decision is made in phase " + phase);
        std::vector<uint8_t> toks;
        for_each_item(legal_h, "legal", [&](py::handle t, size_t) {
          const std::string name = text_arg(t, "a decision token");
          int k = 0;
          while (k < spec.decision_count && name != spec.decisions[k]) ++k;
          if (k == spec.decision_count || toks.size() >= 8) throw ArgumentError("not a decision of the variant: " + shown(name));
          toks.push_back(uint8_t(k));
        });
        if (toks.empty()) throw ArgumentError("no decision is offered");
        const Counts hand = Counts(u64_arg(hand_h, "hand"));
        const int k = rule_choose(rp->r, p, hand, toks.data(), int(toks.size()), call_at, double_at);
        return py::reinterpret_borrow<py::object>(g_token_names[vi(rp->r.variant)][toks[size_t(k)]]);
      }, py::arg("rules"), py::arg("phase"), py::arg("hand"), py::arg("legal"), py::arg("call_at"),
      py::arg("double_at"), "RuleBot's decision (the core's rule policy) among the decision tokens `legal`.");
  m.def("_rule_hand_strength", [](IntArg hand_h, IntArg decks_h) {
        return rule_hand_strength(Counts(u64_arg(hand_h, "hand")), int(int_arg(decks_h, "decks", 1, 2)));
      }, py::arg("hand"), py::arg("decks"), "RuleBot's strength of a hand (a rank word) for its bids.");
  m.def("_kitty_factor", [](IntArg word_h, bool combine_max) {
        return kitty_factor_of(Counts(u64_arg(word_h, "word")), combine_max);
      }, py::arg("word"), py::arg("combine_max"), "CLASSIC3's kitty factor of three kitty cards (a rank word).");
  m.def("_set_rules_resolver", [](py::object fn) {
        Py_XDECREF(g_rules_resolver);
        g_rules_resolver = fn.release().ptr();
      }, py::arg("resolver"),
        "Sets the function that makes a Rules from a snapshot's rules key (ddz.core.rules sets it at import).");
  m.def("_load_snapshot", &load_snapshot, py::arg("data"),
        "(the hand, its rules) of snapshot bytes, every action replayed and checked; ddz.RecordError names "
        "what is wrong.");

  py::class_<HandObj>(m, "_WholeHand",
                      "The whole hand behind ddz.Game: the deal, the auction (the core's phase table), the suited "
                      "cards, the play state, the history and how the hand ended. Game checks the arguments and "
                      "the errors a user sees; this object holds the state.")
      .def(py::init([](RulesArg rules, py::handle options, IntArg seed_h, py::handle scripted, IntArg fb_h,
                       IntArg ftd_h, IntArg base_h, IntArg imult_h) {
             RulesPtr rp = rules_arg(rules);
             auto su = std::make_shared<GameSetup>();
             read_hand_options(*rp, options);
             su->o = *rp->hand;
             su->timeout_bot = rp->timeout_bot;
             // the room's stakes (Game checks them: 1..10**12); the core's scores hold no stake
             // (HandOptions), the snapshot does
             su->base = uint64_t(int_arg(base_h, "base", 1, (long long)kMaxOptionValue));
             su->imult = uint64_t(int_arg(imult_h, "initial_multiplier", 1, (long long)kMaxOptionValue));
             su->seed = u64_arg(seed_h, "seed");
             su->deals.first_bidder = int(int_arg(fb_h, "first_bidder", -1, rp->r.players() - 1));
             su->deals.first_to_decide = int(int_arg(ftd_h, "first_to_decide", -1, 1));
             // each scripted deal: (its card ids in part order, the first bidder, the first to decide)
             for_each_item(scripted, "deals", [&](py::handle item, size_t) {
               py::tuple t = py::reinterpret_borrow<py::tuple>(item);
               std::vector<uint8_t> order;
               for_each_item(t[0], "a deal's cards", [&](py::handle id, size_t) {
                 order.push_back(uint8_t(int_arg(id, "card id", 0, 107)));
               });
               add_scripted(rp->r, *su, std::move(order), int(int_arg(t[1], "first_bidder", 0, rp->r.players() - 1)),
                            t[2].is_none() ? -1 : int(int_arg(t[2], "first_to_decide", 0, 1)));
             });
             return new_hand(rp, su);
           }),
           py::arg("rules"), py::arg("options"), py::arg("seed"), py::arg("scripted"), py::arg("first_bidder"),
           py::arg("first_to_decide"), py::arg("base"), py::arg("initial_multiplier"))
      .def("snapshot", [](const HandObj& G, py::bytes key) { return py::bytes(hand_snapshot(G, std::string(key))); },
           py::arg("rules_key"), "The hand as snapshot bytes (docs/records.md), its rules named by `rules_key`.")
      .def_property_readonly("stakes", [](const HandObj& G) { return py::make_tuple(G.setup->base, G.setup->imult); },
                             "(base, initial multiplier): CLASSIC3's room stakes, (1, 1) elsewhere")
      .def("restart", [](const HandObj& G) { return new_hand(G.rules, G.setup); },
           "a new hand at this hand's start: the same rules, seed, stakes and given deals, no action")
      .def("outcome", [](const HandObj& G) {
            HandOutcome out;
            hand_outcome(G.rules->r, G.setup->o, G.h, play_of(G), out);
            return outcome_tuple(G.rules->r.players(), out);
          }, "the hand's outcome as the core scores it (a finished hand: how it ended and every score)")
      .def("escape_outcome", [](const HandObj& G, IntArg seat_h) {
            const int seat = seat_in(G, seat_h);
            Counts held[4] = {0, 0, 0, 0};
            for (int p = 0; p < G.ph.n; ++p) held[p] = counts_of_ids(G.ph.held[p]);
            HandOutcome out;
            hand_escape_outcome(G.rules->r, G.setup->o, G.h, play_of(G), G.h.dealt ? held : nullptr, seat, out);
            return outcome_tuple(G.rules->r.players(), out);
          }, py::arg("seat"), "the outcome of `seat` escaping now (TWOP, BENGBU4: the hand ends with it)")
      .def("encode", [](const HandObj& G, IntArg seat_h, OutArg out_h) {
            const int seat = seat_in(G, seat_h);
            const CompactLayout L = compact_layout(G.rules->r, G.spec().decision_count);
            py::array_t<int8_t> out = out_h.is_none() ? py::array_t<int8_t>(py::ssize_t(L.total))
                                                      : out_array<int8_t>(out_h, "out", {L.total});
            hand_row(G, seat, out.mutable_data());
            return out;
          }, py::arg("seat"), py::arg("out") = py::none(), "`seat`'s compact row now (docs/encodings.md)")
      .def("observe", [](const HandObj& G, IntArg seat_h) {
            const int seat = seat_in(G, seat_h);
            RulesObj& R = *G.rules;
            const int decisions = G.spec().decision_count;
            const CompactLayout L = compact_layout(R.r, decisions);
            py::array_t<int8_t> row(py::ssize_t(L.total));
            hand_row(G, seat, row.mutable_data());
            const py::ssize_t size = R.pass_id() + 1 + decisions;
            py::array_t<int8_t> mask(size);
            int8_t* m = mask.mutable_data();
            std::memset(m, 0, size_t(size));
            const HandState& h = G.h;
            const int to_act = h.phase == HP_OVER ? -1 : h.phase == HP_PLAY ? int(G.ps.s.seat) : int(h.seat);
            if (to_act == seat) {
              uint8_t t[6];
              const int k = h.phase == HP_PLAY ? 0 : offered(G, t);
              legal_mask(R, h.phase == HP_PLAY ? &G.ps : nullptr, t, k, m);
            }
            // the environments' observation dict itself (its keys made once: it is built every step)
            static PyObject* const k_obs = PyUnicode_InternFromString("observation");
            static PyObject* const k_mask = PyUnicode_InternFromString("action_mask");
            py::dict d;
            if (PyDict_SetItem(d.ptr(), k_obs, row.ptr()) < 0 || PyDict_SetItem(d.ptr(), k_mask, mask.ptr()) < 0)
              throw py::error_already_set();
            return d;
          }, py::arg("seat"),
          "{'observation': `seat`'s compact row, 'action_mask': int8 over the action ids, all zeros when another "
          "seat is to act}")
      .def("factors", [](const HandObj& G) {
            HandOutcome out;
            hand_factors(G.rules->r, G.setup->o, G.h, play_of(G), out);
            return py::make_tuple(factors_list(out), out.multiplier);
          }, "the factors by name (name, value, type, option) and the multiplier now")
      .def_property_readonly("escaped", [](const HandObj& G) {
            int bits = 0;
            for (const HistNode* n = G.hist.get(); n; n = n->prev.get())
              if (n->kind == H_ESCAPE) bits |= 1 << n->seat;
            return bits;
          }, "bit s: seat s has escaped the hand")
      .def_property_readonly("escape_ends", [](const HandObj& G) { return G.spec().escape_ends; },
                             "whether an escape ends the hand (TWOP, BENGBU4) or a bot plays the seat on (CLASSIC3)")
      .def("timeout_default", [](const HandObj& G) -> py::object {
            if (G.h.phase == HP_OVER) throw IllegalActionError("the hand is over: no decision is timed", Illegal::Over);
            IdSet card = 0;
            const int t = timeout_default(G, card);
            if (t >= 0) return py::reinterpret_borrow<py::object>(g_token_names[G.vi()][t]);
            if (t == -1) return py::reinterpret_borrow<py::object>(g_pass_str);
            return py::str("PLAY " + names_of(card));
          }, "the default action of a timeout (docs/rules.md §9 \"Time\", A8) for the seat to act, as its token")
      .def("scripted", [](const HandObj& G) {
            const GameSetup& su = *G.setup;
            const std::vector<int> parts = deal_part_sizes(G.variant());
            py::list out;
            for (size_t k = 0; k < su.order.size(); ++k) {
              py::list hands, part;
              std::vector<py::list> lists;
              size_t at = 0;
              for (size_t p = 0; p < parts.size(); ++p) {
                py::list l;
                for (int c = 0; c < parts[p]; ++c) l.append(int(su.order[k][at++]));
                lists.push_back(l);
              }
              for (int s = 0; s < G.rules->r.players(); ++s) hands.append(lists[size_t(s)]);
              const HandDeal& d = su.deals.scripted[k];
              py::dict e;
              e["hands"] = hands;
              e["kitty"] = lists[parts.size() - 2];
              e["aside"] = lists[parts.size() - 1];
              e["first_bidder"] = int(d.first_bidder);
              e["first_to_decide"] = G.spec().coin_toss ? py::object(py::int_(int(d.first_to_decide))) : py::object(py::none());
              out.append(e);
            }
            return out;
          }, "the deals given to the hand (injected hands, a record's deals) as given: dicts of card ids")
      .def_property_readonly("landlord", [](const HandObj& G) { return opt_seat(G.h.landlord); })
      .def_property_readonly("first_bidder", [](const HandObj& G) {
            return int(G.h.nshowers ? G.h.showers[0] : G.h.first_bidder);  // TWOP: the first shower bids first (§7)
          }, "P0: the seat that decides first in the bidding")
      .def_property_readonly("limits", [](const HandObj& G) {
            py::list l;
            for (int s = 0; s < G.rules->r.players(); ++s)
              l.append(G.h.limits[s] == kUnlimited ? py::object(py::none()) : py::object(py::int_(int(G.h.limits[s]))));
            return l;
          }, "the bomb plays each seat may make (None: unlimited), from the bid log (BENGBU4)")
      .def_property_readonly("redeals", [](const HandObj& G) { return G.h.redeals; })
      .def_property_readonly("deals", [](const HandObj& G) { return G.h.redeals + (G.h.result == HR_VOID ? 0 : 1); },
                             "how many deals the hand has used")
      .def_property_readonly("dealt", [](const HandObj& G) { return G.h.dealt; })
      .def_property_readonly("kitty_revealed", [](const HandObj& G) { return G.h.kitty_revealed; })
      .def_property_readonly("shown", [](const HandObj& G) { return int(G.h.shown); }, "bit s: seat s is face up")
      .def_property_readonly("result_kind", [](const HandObj& G) { return kHandResultNames[G.h.result]; })
      .def_property_readonly("scores", [](const HandObj& G) {
            return std::vector<int64_t>(G.h.scores, G.h.scores + G.rules->r.players());
          }, "the core's scores of a finished hand")
      .def_property_readonly("seed", [](const HandObj& G) { return G.setup->seed; })
      .def("decision_tokens", [](const HandObj& G) {
            uint8_t t[6];
            const int k = offered(G, t);
            py::tuple out(k);
            for (int i = 0; i < k; ++i) out[size_t(i)] = py::reinterpret_borrow<py::object>(g_token_names[G.vi()][t[i]]);
            return out;
          }, "the decision tokens offered now, in table order (empty outside the auction phases)")
      .def("decide", [](HandObj& G, py::str token) {
            const std::string t = token;
            for (int k = 0; k < G.spec().decision_count; ++k)
              if (t == G.spec().decisions[k]) {
                if (G.h.phase >= HP_PLAY || !is_offered(G, k)) break;
                decide(G, k);
                return;
              }
            throw IllegalActionError(t + " is not offered now", Illegal::NotOffered);
          }, py::arg("token"), "Applies an offered decision token of the seat to act.")
      .def("check_play", [](HandObj& G, py::handle action) -> py::object {
            IdSet ids = 0;
            bool pass = false;
            Interp reading;
            std::string msg;
            bool type_error;
            Illegal why = check_play(G.ph, G.ps, action, ids, pass, reading, msg, type_error);
            if (why == Illegal::None) return py::none();
            return illegal_object(type_error ? g_illegal_type_twin : g_illegal_type, msg, why);
          }, py::arg("action"), "None when play(action) would succeed, else the IllegalAction it would raise.")
      .def_property_readonly("play_state", [](py::handle self) -> py::object {
            HandObj& G = self.cast<HandObj&>();
            if (!G.h.in_play) return py::none();
            return py::cast(&G.ps, py::return_value_policy::reference_internal, self);
          }, "the play state (a view of this hand's: it keeps the hand alive), None before the play phase")
      .def("note", [](HandObj& G, IntArg seat, py::str what) {
            const std::string w = what;
            push_hist(G, seat_in(G, seat), w == "TIMEOUT" ? H_TIMEOUT : H_ESCAPE);
          }, py::arg("seat"), py::arg("what"), "Records a seat's TIMEOUT or ESCAPE in the history.")
      .def("end", [](HandObj& G) {
            G.h.phase = HP_OVER;
            if (G.h.result == HR_NONE) G.h.result = HR_ESCAPE;
          }, "Ends the hand (an escape; Game scores it).")
      .def("history", [](const HandObj& G, IntArg start_h) {
            // from `start` on: a server that has sent the first entries asks for the new ones only
            // (hist_from walks back from the newest entry to `start`, so the cost is the tail's)
            const auto start = static_cast<uint64_t>(int_arg(start_h, "start", 0, std::numeric_limits<long long>::max()));
            py::list out;
            for (const HistNode* e : hist_from(G, start)) out.append(py::make_tuple(opt_seat(e->seat), hist_token(G, *e)));
            return out;
          }, py::arg("start") = 0, "the history from entry `start` on: (seat, token), None for the dealer's REDEAL")
      .def("action_log", [](const HandObj& G) {
            py::list out;
            for (const HistNode* e : hist_from(G, 0))
              if (e->seat >= 0) {
                py::dict d;
                d["seat"] = int(e->seat);
                d["action"] = hist_token(G, *e);
                out.append(d);
              }
            return out;
          }, "the record's actions: the history without REDEAL, as dicts")
      .def_property_readonly("history_size", [](const HandObj& G) { return G.hist_size(); })
      .def("decisions", [](const HandObj& G) {
            py::list out;
            for (const HistNode* e : hist_from(G, G.deal_start))
              if (e->kind == H_DECIDE) out.append(py::make_tuple(int(e->seat), hist_token(G, *e)));
            return out;
          }, "this deal's decisions: (seat, token)")
      .def_property_readonly("ndecisions", [](const HandObj& G) { return int(G.h.ndec); })
      .def("deal", [](const HandObj& G, IntArg k_h) {
            const uint64_t k = uint64_t(int_arg(k_h, "deal", 0, (long long)G.h.redeals));
            HandDeal d;
            hand_deal(G.rules->r, G.h, k, d);
            return deal_tuple(G, d);
          }, py::arg("k"), "deal k: (hands' ids, kitty ids, set-aside ids, first bidder, first to decide or None)")
      .def("ids", [](const HandObj& G, IntArg s) { return id_list(G.ph.held[seat_in(G, s)]); }, py::arg("seat"))
      .def("cards", [](const HandObj& G, IntArg s) { return CardsObj{counts_of_ids(G.ph.held[seat_in(G, s)]), G.ph.decks}; },
           py::arg("seat"))
      .def("names", [](const HandObj& G, IntArg s) {
            py::list l;
            for (IdSet x = G.ph.held[seat_in(G, s)]; x; x &= x - 1) l.append(card_name(lowest_id(x)));
            return l;
          }, py::arg("seat"))
      .def("count", [](const HandObj& G, IntArg s) { return id_count(G.ph.held[seat_in(G, s)]); }, py::arg("seat"))
      .def("words", [](const HandObj& G) {
            std::vector<uint64_t> w;
            for (int s = 0; s < G.ph.n; ++s) w.push_back(counts_of_ids(G.ph.held[s]));
            return w;
          }, "each seat's cards as a rank word")
      .def_property_readonly("kitty", [](const HandObj& G) { return id_list(G.ph.kitty); })
      .def_property_readonly("kitty_cards", [](const HandObj& G) { return CardsObj{counts_of_ids(G.ph.kitty), G.ph.decks}; })
      .def_property_readonly("kitty_names", [](const HandObj& G) {
            py::list l;
            for (IdSet x = G.ph.kitty; x; x &= x - 1) l.append(card_name(lowest_id(x)));
            return l;
          })
      .def_property_readonly("aside", [](const HandObj& G) { return id_list(G.ph.aside); })
      .def("physical", [](const HandObj& G) { return PhysicalObj{G.rules, G.ph}; },
           "a copy of the current deal's suited cards as a PhysicalHands")
      .def("auction", [](const HandObj& G) -> py::tuple {
            const HandState& h = G.h;
            switch (G.variant()) {
              case Variant::kClassic3: return py::make_tuple(int(h.robs), h.showed, int(h.kitty_f));
              case Variant::kTwoP: {
                py::list showers;
                for (int i = 0; i < h.nshowers; ++i) showers.append(int(h.showers[i]));
                return py::make_tuple(showers, h.fanshen < 0 ? py::object(py::none()) : py::object(py::bool_(h.fanshen == 1)),
                                      h.yapo);
              }
              default: {
                py::list limits;
                for (int s = 0; s < 4; ++s) limits.append(h.limits[s] == kUnlimited ? py::object(py::none()) : py::object(py::int_(int(h.limits[s]))));
                return py::make_tuple(h.landlord != kNone ? py::object(py::int_(int(h.base))) : py::object(py::none()),
                                      int(h.high), h.open, limits);
              }
            }
          }, "the variant's auction outcome so far: CLASSIC3 (robs, showed, kitty factor); TWOP (showers, 翻身 "
             "(None: not decided), 压迫); BENGBU4 (the base bid or None, the highest bid, open play, bomb limits)");
  {
    PyObject* f = PyCFunction_NewEx(&g_new_hand_def, nullptr, m.attr("__name__").ptr());
    if (!f || PyObject_SetAttrString(m.ptr(), "_new_hand", f) < 0) throw py::error_already_set();
    Py_DECREF(f);
  }
  PyObject* cls = m.attr("_WholeHand").ptr();
  g_hand_type = reinterpret_cast<PyTypeObject*>(cls);
  for (PyMethodDef& d : hd_methods) add_raw_method(cls, &d);
  for (PyGetSetDef& d : hd_getters) add_raw_getter(cls, &d);
}

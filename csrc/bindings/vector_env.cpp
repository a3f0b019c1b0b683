// pybind11 registration of the vectorized environment (the facade is ddz.VectorEnv): argument
// checks, fresh numpy arrays per step, the GIL released while the tables move, the terminal
// information of the tables whose hand ended.
#include <memory>
#include <mutex>

#include "../ddz/vector_env.hpp"
#include "arrays.hpp"

namespace {

constexpr int kMaxThreads = 256;
constexpr long long kMaxTables = 1LL << 22;

struct VectorEnvObj {
  RulesPtr rules;
  std::shared_ptr<const ActionIndex> index;  // env reads it: kept alive even if the rules' order is reset
  std::unique_ptr<VectorEnv> env;
  std::mutex busy;  // one call at a time: the GIL is released inside, so a second thread may call meanwhile
};

DealPool pool_arg(const RulesObj& R, py::handle hands_h, py::handle landlords_h, py::handle limits_h,
                  py::handle kitty_h) {
  const Rules& r = R.r;
  const int n = r.players();
  DealPool p;
  if (hands_h.is_none()) {
    if (!landlords_h.is_none() || !limits_h.is_none() || !kitty_h.is_none())
      throw ArgumentError("landlords, bomb_limits and kitty need deals (hands)");
    return p;
  }
  auto hands = int_array<uint64_t>(hands_h, "deals", {-1, n});
  const py::ssize_t G = hands.shape(0);
  if (G == 0) throw ArgumentError("deals is empty");
  auto ll = int_array<int64_t>(landlords_h, "landlords", {G});
  p.hands.assign(hands.data(), hands.data() + hands.size());
  p.landlords.resize(size_t(G));
  p.limits.assign(size_t(G) * size_t(n), kUnlimited);
  p.kitty.assign(size_t(G), 0);
  if (!limits_h.is_none()) {
    if (!r.spec().bomb_limits) throw ArgumentError("bomb limits exist only in BENGBU4 (docs/rules.md §8)");
    auto lim = int_array<int64_t>(limits_h, "bomb_limits", {G, n});
    for (py::ssize_t i = 0; i < lim.size(); ++i) {
      if (lim.data()[i] < 0 || lim.data()[i] > kUnlimited)
        throw ArgumentError("bomb_limits must be in 0..255 (255 = unlimited), not " + std::to_string(lim.data()[i]));
      p.limits[size_t(i)] = uint8_t(lim.data()[i]);
    }
  }
  if (!kitty_h.is_none()) {
    auto kt = int_array<uint64_t>(kitty_h, "kitty", {G});
    p.kitty.assign(kt.data(), kt.data() + kt.size());
  }
  for (py::ssize_t g = 0; g < G; ++g) {
    const std::string at = "deal " + std::to_string(g);
    const int64_t l = ll.data()[g];
    if (l < 0 || l >= n) throw ArgumentError(at + ": landlord " + std::to_string(l) + " is not a seat 0.." + std::to_string(n - 1));
    p.landlords[size_t(g)] = uint8_t(l);
    int total[kRanks] = {0};
    for (int s = 0; s < n; ++s) {
      const Counts w = p.hands[size_t(g) * size_t(n) + size_t(s)];
      if (!w || !valid_word(r, w)) throw CardError(at + ": seat " + std::to_string(s) + " has no valid hand");
      for (int k = 0; k < kRanks; ++k) total[k] += count_of(w, k);
    }
    for (int k = 0; k < kRanks; ++k)
      if (total[k] > (k >= kB ? r.max_joker() : r.max_per_rank()))
        throw CardError(at + ": the hands hold " + std::to_string(total[k]) + " '" + std::string(1, kRankChars[k]) +
                        "' together; " + deck_name(R.decks()));
    const Counts kitty = p.kitty[size_t(g)];
    if (kitty && (!valid_word(r, kitty) || total_cards(kitty) != r.spec().kitty))
      throw CardError(at + ": the kitty must be " + std::to_string(r.spec().kitty) + " cards (0 = unknown)");
    // The play phase starts with the kitty taken: its cards are in the landlord's hand.
    const Counts own = p.hands[size_t(g) * size_t(n) + size_t(l)];
    for (int k = 0; k < kRanks && kitty; ++k)
      if (count_of(kitty, k) > count_of(own, k))
        throw CardError(at + ": the kitty holds " + std::to_string(count_of(kitty, k)) + " '" +
                        std::string(1, kRankChars[k]) + "' but the landlord (seat " + std::to_string(l) +
                        ") holds " + std::to_string(count_of(own, k)) + ": the kitty is in the landlord's hand");
  }
  return p;
}

}  // namespace

/// The whole-hand options from the Python Rules.options dict (ddz.core.rules names them and
/// holds their defaults). A rules value lists its own variant's options only; the others keep
/// HandOptions' values, which that variant never reads.
HandOptions hand_options(py::handle d) {
  if (!py::isinstance<py::dict>(d)) throw ArgumentTypeError("auction options must be a dict, not " + type_name(d));
  py::dict o = py::reinterpret_borrow<py::dict>(d);
  HandOptions h;
  auto str = [&](const char* k, const char* value, bool& out) {
    if (o.contains(k)) out = py::str(o[k]).cast<std::string>() == value;
  };
  // an integer option in lo..hi (Rules checks the same ranges: docs/rules.md §11, "Numeric ranges")
  auto count = [&](const char* k, uint64_t lo, uint64_t hi) -> uint64_t {
    py::object v = o[k];
    if (!PyLong_Check(v.ptr()) || PyBool_Check(v.ptr()))
      throw ArgumentTypeError(std::string("option ") + k + " must be an integer, not " + type_name(v));
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
    if (overflow || x < 0 || uint64_t(x) < lo || uint64_t(x) > hi)
      throw ArgumentError(std::string("option ") + k + " must be an integer " + std::to_string(lo) + ".." +
                          std::to_string(hi) + ", not " + int_shown(v));
    return uint64_t(x);
  };
  auto flag = [&](const char* k, bool& out) {
    if (o.contains(k)) out = o[k].cast<bool>();
  };
  if (o.contains("max_redeals")) h.max_redeals = count("max_redeals", 0, kMaxOptionValue);
  flag("classic_passers_may_rob", h.passers_may_rob);
  str("classic_rob_winner", "last", h.rob_winner_last);
  str("classic_show_timing", "after_kitty", h.show_after_kitty);
  str("classic_kitty_combine", "max", h.kitty_max);
  if (o.contains("classic_rob_cap")) h.rob_cap = int64_t(count("classic_rob_cap", 1, kMaxOptionValue));
  if (o.contains("classic_landlord_loss_factor")) h.loss_factor = int64_t(count("classic_landlord_loss_factor", 1, 2));
  str("twop_fanshen_point", "before_lead", h.fanshen_before_lead);
  flag("twop_show_start_stacks", h.show_stacks);
  flag("twop_rocket_doubles", h.rocket_doubles);
  flag("twop_zero_sum", h.zero_sum);
  flag("twop_escape_threshold_inclusive", h.escape_threshold_inclusive);
  str("twop_escape_compensation", "normal_win", h.compensation_normal_win);
  if (o.contains("twop_initial_multiplier")) {  // any positive number up to 10**12 (0.5 too)
    py::object v = o["twop_initial_multiplier"];
    const double x = (PyLong_Check(v.ptr()) || PyFloat_Check(v.ptr())) && !PyBool_Check(v.ptr())
                         ? PyFloat_AsDouble(v.ptr()) : -1.0;
    if (x == -1.0 && PyErr_Occurred()) PyErr_Clear();
    if (!(x > 0 && x <= double(kMaxOptionValue)))
      throw ArgumentError("option twop_initial_multiplier must be a positive number up to 10**12, not " +
                          std::string(py::str(py::repr(v))).substr(0, 60));
    h.stake = x;
  }
  flag("bengbu_missiles_once_per_player", h.missiles_once);
  flag("bengbu_special_per_instance", h.special_per_instance);
  flag("bengbu_escape_scaled", h.escape_scaled);
  return h;
}

namespace {

/// The environment for one call. Waiting for the lock while holding the GIL could deadlock with
/// the call that has it (it needs the GIL back to return), so a concurrent call is an error.
std::unique_lock<std::mutex> claim(VectorEnvObj& o) {
  std::unique_lock<std::mutex> lock(o.busy, std::try_to_lock);
  if (!lock.owns_lock())
    throw ArgumentError("this VectorEnv is stepping in another thread: use one environment per thread");
  return lock;
}

/// Fresh output arrays for one call, and the StepOut pointing into them.
struct Outputs {
  py::array_t<int8_t> obs, seat, role;
  py::array_t<float> reward;
  py::array_t<bool> done;
  py::array_t<int64_t> offsets;
  StepOut out;
  Outputs(const VectorEnv& e) {
    const auto N = py::ssize_t(e.tables());
    obs = py::array_t<int8_t>({N, py::ssize_t(e.layout().total)});
    reward = py::array_t<float>({N, py::ssize_t(e.players())});
    done = py::array_t<bool>(N);
    seat = py::array_t<int8_t>(N);
    role = py::array_t<int8_t>(N);
    offsets = py::array_t<int64_t>(N + 1);
    static_assert(sizeof(bool) == 1, "done is written as bytes");
    out = StepOut{obs.mutable_data(), reward.mutable_data(), reinterpret_cast<uint8_t*>(done.mutable_data()),
                  seat.mutable_data(), role.mutable_data(), offsets.mutable_data() + 1};
  }
  /// (obs, legal_offsets, legal_ids, reward, done, seat, role), once the call has filled them.
  py::tuple finish(const VectorEnv& e) {
    int64_t* off = offsets.mutable_data();
    off[0] = 0;
    for (size_t i = 0; i < e.tables(); ++i) off[i + 1] += off[i];
    py::array_t<int32_t> ids(py::ssize_t(off[e.tables()]));
    e.copy_legal(ids.mutable_data());
    return py::make_tuple(obs, offsets, ids, reward, done, seat, role, terminal(e), deal_ends(e));
  }
  /// The tables whose hand ended in this call, with that hand's scores, landlord, winning side,
  /// kind and each seat's last row: (tables, scores, landlord, winner, kind, rows).
  py::tuple terminal(const VectorEnv& e) {
    const auto n = py::ssize_t(e.players()), W = py::ssize_t(e.layout().total);
    std::vector<size_t> which;
    const uint8_t* d = reinterpret_cast<const uint8_t*>(done.data());
    for (size_t i = 0; i < e.tables(); ++i)
      if (d[i]) which.push_back(i);
    const auto K = py::ssize_t(which.size());
    py::array_t<int64_t> tables(K);
    py::array_t<float> scores({K, n});
    py::array_t<int8_t> landlord(K), winner(K), kind(K), rows({K, n, W});
    int64_t* tb = tables.mutable_data();
    float* sc = scores.mutable_data();
    int8_t *ll = landlord.mutable_data(), *wn = winner.mutable_data(), *kd = kind.mutable_data(),
           *rw = rows.mutable_data();
    {
      py::gil_scoped_release nogil;
      for (py::ssize_t k = 0; k < K; ++k) {
        tb[k] = int64_t(which[size_t(k)]);
        e.final_info(which[size_t(k)], sc + k * n, ll[k], wn[k], kd[k], rw + k * n * W);
      }
    }
    return py::make_tuple(tables, scores, landlord, winner, kind, rows);
  }
  /// Hands that ended at the deal in this call (BENGBU4 天炸/天尊): (counts, scores) per table.
  py::tuple deal_ends(const VectorEnv& e) {
    const auto N = py::ssize_t(e.tables()), n = py::ssize_t(e.players());
    py::array_t<int16_t> counts(N);
    py::array_t<float> scores({N, n});
    for (py::ssize_t i = 0; i < N; ++i)
      counts.mutable_data()[i] = int16_t(e.deal_ends(size_t(i), scores.mutable_data() + i * n));
    return py::make_tuple(counts, scores);
  }
};

}  // namespace

void register_vector_env(py::module_& m) {
  py::class_<VectorEnvObj>(m, "_VectorEnv", "The vectorized play-phase environment core (use ddz.VectorEnv).")
      .def(py::init([](RulesArg rules, int decisions, IntArg num_envs, IntArg seed, IntArg threads, py::handle deals,
                       py::handle landlords, py::handle bomb_limits, py::handle kitty, py::handle auction) {
             RulesPtr rp = rules_arg(rules);
             const size_t N = size_t(int_arg(num_envs, "num_envs", 1, kMaxTables));
             const uint64_t s = u64_arg(seed, "seed");
             const int th = int(int_arg(threads, "threads", 1, kMaxThreads));
             DealPool pool = pool_arg(*rp, deals, landlords, bomb_limits, kitty);
             std::unique_ptr<HandOptions> opts;
             if (!auction.is_none()) {
               if (pool.size()) throw ArgumentError("deals= play the play phase alone: use auction=False with them");
               if (decisions != rp->r.spec().decision_count)
                 throw ArgumentError("the variant's decisions do not match the core's");
               opts = std::make_unique<HandOptions>(hand_options(auction));
             }
             const ActionIndex& ix = rp->ix();
             auto o = std::make_unique<VectorEnvObj>();
             o->rules = rp;
             o->index = rp->index;
             o->env = std::make_unique<VectorEnv>(rp->r, ix, decisions, N, s, th, std::move(pool), opts.get());
             return o;
           }),
           py::arg("rules"), py::arg("decisions"), py::arg("num_envs"), py::arg("seed"), py::arg("threads"),
           py::arg("deals") = py::none(), py::arg("landlords") = py::none(), py::arg("bomb_limits") = py::none(),
           py::arg("kitty") = py::none(), py::arg("auction") = py::none())
      .def_property_readonly("auction", [](const VectorEnvObj& o) { return o.env->auction(); })
      .def_property_readonly("num_ids", [](const VectorEnvObj& o) { return o.env->num_ids(); })
      // games() and hand_seeds() read what step and reset write (the game counters, the seed):
      // they take the environment's lock like every call that touches the tables
      .def("hand_seeds", [](VectorEnvObj& o) {
            std::unique_lock<std::mutex> lock = claim(o);
            py::array_t<uint64_t> g(py::ssize_t(o.env->tables()));
            for (size_t i = 0; i < o.env->tables(); ++i)
              g.mutable_data()[i] = hand_seed(o.env->seed(), o.env->game_of(i));
            return g;
          }, "the ddz.Game seed of the hand each table plays now (whole hands)")
      .def_property_readonly("num_envs", [](const VectorEnvObj& o) { return o.env->tables(); })
      .def_property_readonly("obs_width", [](const VectorEnvObj& o) { return o.env->layout().total; })
      .def("games", [](VectorEnvObj& o) {
            std::unique_lock<std::mutex> lock = claim(o);
            py::array_t<uint64_t> g(py::ssize_t(o.env->tables()));
            for (size_t i = 0; i < o.env->tables(); ++i) g.mutable_data()[i] = o.env->game_of(i);
            return g;
          }, "the game number each table plays now")
      .def("rule_choices", [](VectorEnvObj& o) {
            std::unique_lock<std::mutex> lock = claim(o);
            if (!o.env->started()) throw ArgumentError("call reset() before rule_choices()");
            py::array_t<int64_t> k(py::ssize_t(o.env->tables()));
            int64_t* out = k.mutable_data();
            {
              py::gil_scoped_release nogil;
              o.env->rule_choices(out);
            }
            return k;
          }, "per table, the rule policy's choice as an index into its legal ids of the last reset/step")
      .def("oracle", [](VectorEnvObj& o, int max_cards, uint64_t node_limit, double table_mb) {
            std::unique_lock<std::mutex> lock = claim(o);
            if (!o.env->started()) throw ArgumentError("call reset() before oracle()");
            py::array_t<int8_t> v(py::ssize_t(o.env->tables()));
            int8_t* out = v.mutable_data();
            const size_t bytes = size_t(table_mb * double(size_t(1) << 20));
            {
              py::gil_scoped_release nogil;
              o.env->oracle(max_cards, node_limit, bytes, out);
            }
            return v;
          }, py::arg("max_cards"), py::arg("node_limit"), py::arg("table_mb"),
          "per table, 1/0 the landlord's/farmers' side wins the position with every hand seen, -1 unknown")
      .def("reset", [](VectorEnvObj& o, py::handle seed_h) {
            std::unique_lock<std::mutex> lock = claim(o);
            uint64_t seed = 0;
            const bool reseed = !seed_h.is_none();
            if (reseed) seed = u64_arg(seed_h, "seed");
            Outputs res(*o.env);
            {
              py::gil_scoped_release nogil;
              o.env->reset(reseed ? &seed : nullptr, res.out);
            }
            return res.finish(*o.env);
          }, py::arg("seed") = py::none())
      .def("step", [](VectorEnvObj& o, py::handle actions_h) {
            std::unique_lock<std::mutex> lock = claim(o);
            VectorEnv& e = *o.env;
            if (!e.started()) throw ArgumentError("call reset() before the first step()");
            auto a = int_array<int64_t>(actions_h, "actions", {py::ssize_t(e.tables())});
            std::vector<int32_t> ids(e.tables());
            for (size_t i = 0; i < e.tables(); ++i) {
              const int64_t id = a.data()[i];
              if (id < 0 || id >= e.num_ids())
                throw IllegalActionError("table " + std::to_string(i) + ": action id " + std::to_string(id) +
                                             " is out of range 0.." + std::to_string(e.num_ids() - 1) + " (" +
                                             std::to_string(e.pass_id()) + " is PASS" +
                                             (e.auction() ? ", decisions follow it)" : ")"),
                                         Illegal::Malformed);
              ids[i] = int32_t(id);
            }
            Illegal why = Illegal::None;
            const int64_t bad = e.check(ids.data(), why);
            if (bad >= 0) {
              const int32_t id = ids[size_t(bad)];
              const std::string what =
                  id == e.pass_id() ? "PASS"
                  : id > e.pass_id() ? std::string(o.rules->r.spec().decisions[id - e.pass_id() - 1])
                                     : "'" + format_counts(enc_cards(o.rules->plays()[size_t(id)])) + "' " +
                                           kind_name(enc_kind(o.rules->plays()[size_t(id)]));
              throw IllegalActionError("table " + std::to_string(bad) + ": action id " + std::to_string(id) + " (" +
                                           what + ") is not legal now (" + illegal_name(why) + "); no table moved",
                                       why);
            }
            Outputs res(e);
            {
              py::gil_scoped_release nogil;
              e.step(ids.data(), res.out);
            }
            return res.finish(e);
          }, py::arg("actions"));
  m.def("_hand_seed", [](IntArg seed, IntArg game) { return hand_seed(u64_arg(seed, "seed"), u64_arg(game, "game")); },
        py::arg("seed"), py::arg("game"), "the ddz.Game seed of game `game` of a whole-hand VectorEnv seeded `seed`");
}

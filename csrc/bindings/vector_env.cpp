// pybind11 registration of the vectorized environment (the facade is ddz.VectorEnv): argument
// checks, fresh numpy arrays per step, the GIL released while the tables move.
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
    if (r.variant != 2) throw ArgumentError("bomb limits exist only in BENGBU4 (docs/rules.md §8)");
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
    if (kitty && (!valid_word(r, kitty) || total_cards(kitty) != r.layout().kitty))
      throw CardError(at + ": the kitty must be " + std::to_string(r.layout().kitty) + " cards (0 = unknown)");
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
    return py::make_tuple(obs, offsets, ids, reward, done, seat, role);
  }
};

}  // namespace

void register_vector_env(py::module_& m) {
  py::class_<VectorEnvObj>(m, "_VectorEnv", "The vectorized play-phase environment core (use ddz.VectorEnv).")
      .def(py::init([](RulesArg rules, int decisions, IntArg num_envs, IntArg seed, IntArg threads, py::handle deals,
                       py::handle landlords, py::handle bomb_limits, py::handle kitty) {
             RulesPtr rp = rules_arg(rules);
             const size_t N = size_t(int_arg(num_envs, "num_envs", 1, kMaxTables));
             const uint64_t s = u64_arg(seed, "seed");
             const int th = int(int_arg(threads, "threads", 1, kMaxThreads));
             DealPool pool = pool_arg(*rp, deals, landlords, bomb_limits, kitty);
             const ActionIndex& ix = rp->ix();
             auto o = std::make_unique<VectorEnvObj>();
             o->rules = rp;
             o->index = rp->index;
             o->env = std::make_unique<VectorEnv>(rp->r, ix, decisions, N, s, th, std::move(pool));
             return o;
           }),
           py::arg("rules"), py::arg("decisions"), py::arg("num_envs"), py::arg("seed"), py::arg("threads"),
           py::arg("deals") = py::none(), py::arg("landlords") = py::none(), py::arg("bomb_limits") = py::none(),
           py::arg("kitty") = py::none())
      .def_property_readonly("num_envs", [](const VectorEnvObj& o) { return o.env->tables(); })
      .def_property_readonly("obs_width", [](const VectorEnvObj& o) { return o.env->layout().total; })
      .def("games", [](const VectorEnvObj& o) {
            py::array_t<uint64_t> g(py::ssize_t(o.env->tables()));
            for (size_t i = 0; i < o.env->tables(); ++i) g.mutable_data()[i] = o.env->game_of(i);
            return g;
          }, "the game number each table plays now")
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
              if (id < 0 || id > e.pass_id())
                throw IllegalActionError("table " + std::to_string(i) + ": action id " + std::to_string(id) +
                                             " is out of range 0.." + std::to_string(e.pass_id()) + " (" +
                                             std::to_string(e.pass_id()) + " is PASS)",
                                         Illegal::Malformed);
              ids[i] = int32_t(id);
            }
            Illegal why = Illegal::None;
            const int64_t bad = e.check(ids.data(), why);
            if (bad >= 0) {
              const int32_t id = ids[size_t(bad)];
              const std::string what = id == e.pass_id() ? "PASS"
                                                         : "'" + format_counts(enc_cards(o.rules->plays()[size_t(id)])) +
                                                               "' " + kind_name(enc_kind(o.rules->plays()[size_t(id)]));
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
}

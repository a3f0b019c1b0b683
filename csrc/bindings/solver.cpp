// pybind11 registration of the search cores: ddz._core._solve (the open-hand solver; the
// facade is ddz.solve) and ddz._core._pimc / _rollout (determinised rollouts, for SearchBot).
#include "../ddz/rollout.hpp"
#include "../ddz/solver.hpp"
#include "common.hpp"

namespace {

/// A play-phase position from its parts (the hands, the seat to move, the play to beat with
/// its owner and the passes since it, bomb plays left per seat, -1 = unlimited).
PlayState position_of(const RulesPtr& rp, const std::vector<uint64_t>& hands, int to_move, py::handle top, int owner,
                      int passes, const std::vector<int>& bomb_plays_left, const std::vector<int>& sides) {
  const size_t n = hands.size();
  if (n < 2 || n > 4) throw ArgumentError("a position has 2 to 4 hands");
  if (sides.size() != n || bomb_plays_left.size() != n)
    throw ArgumentError("sides and bomb_plays_left need one entry per hand");
  if (to_move < 0 || size_t(to_move) >= n) throw ArgumentError("to_move must be a seat of the position");
  for (int sd : sides)
    if (sd != 0 && sd != 1) throw ArgumentError("a side id is 0 or 1");
  PlayState s;
  s.n = uint8_t(n);
  s.seat = uint8_t(to_move);
  for (size_t i = 0; i < n; ++i) {
    s.hand[i] = hands[i];
    s.limit[i] = bomb_plays_left[i] < 0 ? kUnlimited : uint8_t(std::min(bomb_plays_left[i], 254));
  }
  Interp it;
  if (!top.is_none() && !is_move(top)) throw ArgumentTypeError("top must be a Move or None");
  if (prev_arg(top, rp, it)) {
    if (owner < 0 || size_t(owner) >= n || owner == to_move) throw ArgumentError("owner must be another seat");
    s.top = encode(enc_cards(move_of(top).enc), it.kind);
    s.top_it = it;
    s.owner = uint8_t(owner);
    s.passes = uint8_t(passes);
  } else {
    s.owner = s.seat;
  }
  return s;
}

/// The hands of a world are cards of the rules' decks, none empty (the hand would be over).
void check_world(const Rules& r, const uint64_t* w, size_t n) {
  int per[kRanks] = {0};
  for (size_t i = 0; i < n; ++i) {
    if (w[i] == 0) throw ArgumentError("a world has an empty hand (the hand would be over)");
    if (w[i] >> (4 * kRanks)) throw ArgumentError("a world's hand is not a rank-count word");
    for (int v = 0; v < kRanks; ++v) per[v] += count_of(w[i], v);
  }
  for (int v = 0; v < kRanks; ++v)
    if (per[v] > (v >= kB ? r.max_joker() : r.max_per_rank()))
      throw ArgumentError("a world holds more copies of a rank than the decks have");
}

}  // namespace

void register_solver(py::module_& m) {
  m.def("_solve", [](RulesPtr rp, std::vector<uint64_t> hands, int to_move, py::object top, int owner, int passes,
                     std::vector<int> bomb_plays_left, std::vector<int> sides, bool all_moves, double time_limit,
                     uint64_t node_limit, double table_mb) {
        PlayState s = position_of(rp, hands, to_move, top, owner, passes, bomb_plays_left, sides);
        uint8_t sd[4];
        for (size_t i = 0; i < hands.size(); ++i) sd[i] = uint8_t(sides[i]);
        if (!(time_limit >= 0)) throw ArgumentError("time_limit must be >= 0 (0 = none), not NaN or negative");
        if (!(table_mb > 0 && table_mb <= kMaxTableMb))
          throw ArgumentError("table_mb must be in (0, " + std::to_string(int(kMaxTableMb)) + "]");
        SolveLimits lim;
        lim.nodes = node_limit;
        lim.seconds = time_limit;
        lim.table_bytes = size_t(table_mb * double(1 << 20));  // in range: checked above
        SolveResult res;
        {
          py::gil_scoped_release nogil;
          res = solve(rp->r, s, sd, all_moves, lim);
        }
        py::list moves, pv;
        for (Enc e : res.moves) moves.append(make_move(rp, e));
        for (size_t i = 0; i < res.pv_moves.size(); ++i)
          pv.append(py::make_tuple(int(res.pv_seats[i]), make_move(rp, res.pv_moves[i])));
        return py::make_tuple(res.complete, res.win, moves, pv, res.nodes, res.seconds);
      },
      py::arg("rules"), py::arg("hands"), py::arg("to_move"), py::arg("top"), py::arg("owner"), py::arg("passes"),
      py::arg("bomb_plays_left"), py::arg("sides"), py::arg("all_moves"), py::arg("time_limit"),
      py::arg("node_limit"), py::arg("table_mb"),
      "The solver core (use ddz.solve): (complete, win, moves, pv, nodes, seconds).");

  m.def("_pimc", [](RulesPtr rp, py::array_t<uint64_t, py::array::c_style | py::array::forcecast> worlds, int to_move,
                    py::object top, int owner, int passes, std::vector<int> bomb_plays_left, std::vector<int> sides,
                    py::object candidates, double time_limit, uint64_t world_limit) {
        if (worlds.ndim() != 2 || worlds.shape(0) < 1) throw ArgumentError("worlds must be an array of shape (n, seats), n >= 1");
        const size_t n = size_t(worlds.shape(1)), count = size_t(worlds.shape(0));
        const uint64_t* w = worlds.data();
        std::vector<uint64_t> first(w, w + n);
        PlayState s = position_of(rp, first, to_move, top, owner, passes, bomb_plays_left, sides);
        for (size_t k = 0; k < count; ++k) {
          check_world(rp->r, w + k * n, n);
          if (w[k * n + size_t(to_move)] != first[size_t(to_move)])
            throw ArgumentError("every world must give the seat to move the same hand");
        }
        MoveBuffer legal;
        legal_actions(rp->r, s, legal);
        std::vector<Enc> cands;
        if (candidates.is_none()) {
          pimc_candidates(rp->r, s, cands);
        } else {
          for (py::handle h : candidates) {
            if (!is_move(h)) throw ArgumentTypeError("candidates must be Moves");
            const MoveObj& mo = move_of(h);
            Enc pick = 0;
            bool found = false;
            for (size_t i = 0; i < legal.size && !found; ++i) {
              Enc e = legal.data[i];
              if (is_pass(mo) ? e == kPass : (e != kPass && enc_cards(e) == enc_cards(mo.enc) && enc_kind(e) == mo.it.kind)) {
                pick = e;
                found = true;
              }
            }
            if (!found) throw ArgumentError("candidate " + format_counts(enc_cards(mo.enc)) + " is not a legal action here");
            cands.push_back(pick);
          }
          if (cands.empty()) throw ArgumentError("candidates is empty");
        }
        uint8_t sd[4];
        for (size_t i = 0; i < n; ++i) sd[i] = uint8_t(sides[i]);
        if (!(time_limit >= 0)) throw ArgumentError("time_limit must be >= 0 (0 = none), not NaN or negative");
        PimcLimits lim;
        lim.seconds = time_limit;
        lim.worlds = world_limit;
        PimcResult res;
        {
          py::gil_scoped_release nogil;
          res = pimc(rp->r, s, sd, w, count, cands.data(), cands.size(), lim);
        }
        py::list moves;
        for (Enc e : cands) moves.append(make_move(rp, e));
        return py::make_tuple(moves, res.wins, res.worlds, res.seconds);
      },
      py::arg("rules"), py::arg("worlds"), py::arg("to_move"), py::arg("top"), py::arg("owner"), py::arg("passes"),
      py::arg("bomb_plays_left"), py::arg("sides"), py::arg("candidates"), py::arg("time_limit"),
      py::arg("world_limit"),
      "Rollouts of candidate first actions over sampled worlds (SearchBot): (candidates, wins, worlds, seconds).");

  m.def("_rollout", [](RulesPtr rp, std::vector<uint64_t> hands, int to_move, py::object top, int owner, int passes,
                       std::vector<int> bomb_plays_left, std::vector<int> sides) {
        PlayState s = position_of(rp, hands, to_move, top, owner, passes, bomb_plays_left, sides);
        check_world(rp->r, hands.data(), hands.size());
        uint8_t sd[4];
        for (size_t i = 0; i < hands.size(); ++i) sd[i] = uint8_t(sides[i]);
        MoveBuffer buf;
        std::vector<std::pair<uint8_t, Enc>> trace;
        int out;
        {
          py::gil_scoped_release nogil;
          out = rollout(rp->r, s, sd, buf, &trace);
        }
        py::list line;
        for (auto& [seat, e] : trace) line.append(py::make_tuple(int(seat), make_move(rp, e)));
        return py::make_tuple(out, line);
      },
      py::arg("rules"), py::arg("hands"), py::arg("to_move"), py::arg("top"), py::arg("owner"), py::arg("passes"),
      py::arg("bomb_plays_left"), py::arg("sides"),
      "One rollout of the PIMC policy from a position: (the seat that went out, [(seat, action), ...]).");
}

// pybind11 registration of the open-hand solver: ddz._core._solve (the facade is ddz.solve).
#include "../ddz/solver.hpp"
#include "common.hpp"

void register_solver(py::module_& m) {
  m.def("_solve", [](RulesPtr rp, std::vector<uint64_t> hands, int to_move, py::object top, int owner, int passes,
                     std::vector<int> bomb_plays_left, std::vector<int> sides, bool all_moves, double time_limit,
                     uint64_t node_limit, double table_mb) {
        const size_t n = hands.size();
        if (n < 2 || n > 4) throw ArgumentError("a position has 2 to 4 hands");
        if (sides.size() != n || bomb_plays_left.size() != n)
          throw ArgumentError("sides and bomb_plays_left need one entry per hand");
        PlayState s;
        s.n = uint8_t(n);
        s.seat = uint8_t(to_move);
        for (size_t i = 0; i < n; ++i) {
          s.hand[i] = hands[i];
          s.limit[i] = bomb_plays_left[i] < 0 ? kUnlimited : uint8_t(bomb_plays_left[i]);
        }
        Interp it;
        if (!top.is_none() && !is_move(top)) throw ArgumentTypeError("top must be a Move or None");
        if (prev_arg(top, rp, it)) {
          s.top = encode(enc_cards(move_of(top).enc), it.kind);
          s.top_it = it;
          s.owner = uint8_t(owner);
          s.passes = uint8_t(passes);
        } else {
          s.owner = s.seat;
        }
        uint8_t sd[4];
        for (size_t i = 0; i < n; ++i) sd[i] = uint8_t(sides[i]);
        SolveLimits lim;
        lim.nodes = node_limit;
        lim.seconds = time_limit;
        lim.table_bytes = size_t(table_mb * double(1 << 20));
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
}

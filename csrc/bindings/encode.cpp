// pybind11 registration of the observation encoders (the facade is ddz.encode): play logs in,
// caller-owned int8 arrays out, the GIL released while replaying and encoding.
#include <cstring>

#include "../ddz/encode.hpp"
#include "arrays.hpp"
#include "game_row.hpp"
#include "play_obj.hpp"

namespace {

/// Many play logs as arrays: state i starts from starts[i] (one rank-count word per seat, the
/// landlord's with the kitty) with `landlords[i]` leading and replays
/// actions[offsets[i]:offsets[i+1]] (encoded moves, PASS = Kind.PASS << 56). A landlord of -1
/// (where allowed) is a table still bidding: its words are the hands as dealt, no actions.
struct Logs {
  size_t count = 0;
  int n = 0;
  std::vector<Counts> starts;
  std::vector<int> landlords;
  std::vector<uint8_t> limits;  // n per state, kUnlimited = no limit
  std::vector<Enc> actions;
  std::vector<int64_t> offsets;
};

Logs logs_arg(const RulesObj& R, py::handle starts_h, py::handle landlords_h, py::handle limits_h,
              py::handle actions_h, py::handle offsets_h, bool allow_deal) {
  const Rules& r = R.r;
  Logs g;
  g.n = r.players();
  auto st = int_array<uint64_t>(starts_h, "starts", {-1, g.n});
  g.count = size_t(st.shape(0));
  const auto N = py::ssize_t(g.count);
  auto ll = int_array<int64_t>(landlords_h, "landlords", {N});
  auto acts = int_array<uint64_t>(actions_h, "actions", {-1});
  auto off = int_array<int64_t>(offsets_h, "offsets", {N + 1});
  g.starts.assign(st.data(), st.data() + st.size());
  g.landlords.resize(g.count);
  g.actions.assign(acts.data(), acts.data() + acts.size());
  g.offsets.assign(off.data(), off.data() + off.size());
  g.limits.assign(g.count * size_t(g.n), kUnlimited);
  if (!limits_h.is_none()) {
    if (!r.spec().bomb_limits) throw ArgumentError("bomb limits exist only in BENGBU4 (docs/rules.md §8)");
    auto lim = int_array<int64_t>(limits_h, "bomb_limits", {N, g.n});
    for (py::ssize_t i = 0; i < lim.size(); ++i) {
      if (lim.data()[i] < 0 || lim.data()[i] > kUnlimited)
        throw ArgumentError("bomb_limits must be in 0..255 (255 = unlimited), not " + std::to_string(lim.data()[i]));
      g.limits[size_t(i)] = uint8_t(lim.data()[i]);
    }
  }
  if (g.offsets[0] != 0 || g.offsets[g.count] != int64_t(g.actions.size()))
    throw ArgumentError("offsets must start at 0 and end at len(actions) = " + std::to_string(g.actions.size()));
  for (size_t i = 0; i < g.count; ++i) {
    const std::string at = "state " + std::to_string(i);
    if (g.offsets[i + 1] < g.offsets[i]) throw ArgumentError("offsets must not decrease (at " + at + ")");
    const int64_t l = ll.data()[i];
    if (l < (allow_deal ? -1 : 0) || l >= g.n)
      throw ArgumentError(at + ": landlord " + std::to_string(l) + " is not a seat 0.." + std::to_string(g.n - 1) +
                          (allow_deal ? " (or -1 while bidding)" : ""));
    g.landlords[i] = int(l);
    if (l < 0 && g.offsets[i + 1] != g.offsets[i]) throw ArgumentError(at + ": a table still bidding has no play actions");
    int total[kRanks] = {0};
    for (int p = 0; p < g.n; ++p) {
      const Counts w = g.starts[i * size_t(g.n) + size_t(p)];
      if (!valid_word(r, w) && w != 0)
        throw CardError(at + ": starts[" + std::to_string(p) + "] is not a valid rank-count word for these rules");
      if (l >= 0 && w == 0) throw CardError(at + ": seat " + std::to_string(p) + " has no cards");
      for (int k = 0; k < kRanks; ++k) total[k] += count_of(w, k);
    }
    for (int k = 0; k < kRanks; ++k)
      if (total[k] > (k >= kB ? r.max_joker() : r.max_per_rank()))
        throw CardError(at + ": the hands hold " + std::to_string(total[k]) + " '" + std::string(1, kRankChars[k]) +
                        "' together; " + deck_name(R.decks()) + " " + std::to_string(k >= kB ? r.max_joker() : r.max_per_rank()));
  }
  return g;
}

/// Replays every log (GIL released); throws IllegalAction naming the first state and action that
/// does not replay.
std::vector<Tracked> replay_logs(const Rules& r, const Logs& g, std::vector<uint32_t>* shared = nullptr) {
  std::vector<Tracked> t(g.count);
  if (shared) shared->assign(g.count, 0);
  size_t bad_state = g.count, bad = 0;
  Illegal why = Illegal::None;
  {
    py::gil_scoped_release nogil;
    const size_t n = size_t(g.n);
    for (size_t i = 0; i < g.count; ++i) {
      if (g.landlords[i] < 0) continue;
      const Enc* acts = g.actions.data() + g.offsets[i];
      const size_t len = size_t(g.offsets[i + 1] - g.offsets[i]);
      size_t done = 0;
      // The states of one hand usually come in order, each log extending the one before it: then
      // only the new actions are replayed.
      if (i > 0 && g.landlords[i - 1] == g.landlords[i]) {
        const size_t prev = size_t(g.offsets[i] - g.offsets[i - 1]);
        if (prev <= len && std::memcmp(&g.starts[(i - 1) * n], &g.starts[i * n], n * sizeof(Counts)) == 0 &&
            std::memcmp(&g.limits[(i - 1) * n], &g.limits[i * n], n) == 0 &&
            std::memcmp(g.actions.data() + g.offsets[i - 1], acts, prev * sizeof(Enc)) == 0) {
          t[i] = t[i - 1];
          done = prev;
          if (shared) (*shared)[i] = uint32_t(prev);
        }
      }
      if (!done) t[i].s = start_play(g.n, &g.starts[i * n], g.landlords[i], &g.limits[i * n]);
      why = replay(r, t[i], acts + done, len - done, bad);
      if (why != Illegal::None) {
        bad += done;
        bad_state = i;
        break;
      }
    }
  }
  if (bad_state < g.count) {
    const Enc e = g.actions[size_t(g.offsets[bad_state]) + bad];
    const std::string what = e == kPass ? "PASS" : "'" + format_counts(enc_cards(e)) + "'";
    throw IllegalActionError("state " + std::to_string(bad_state) + ": action " + std::to_string(bad) + " (" + what +
                                 ") does not replay: " + illegal_name(why),
                             why);
  }
  return t;
}

py::list layout_list(const CompactLayout& L) {
  py::list l;
  for (int b = 0; b < kCompactBlocks; ++b) l.append(py::make_tuple(kCompactBlockNames[b], L.offset[b], L.width[b]));
  return l;
}

}  // namespace

Tracked tracked_of(const PlayStateObj& P) {
  // The record the encoder reads, from the log (newest first): what each seat played, and the
  // last kHistory actions (a logged move is encoded as track_apply records it).
  Tracked t;
  t.s = P.s;
  for (const LogNode* e = P.log.get(); e; e = e->prev.get()) {
    const int a = e->before.actions;
    if (a + kHistory >= P.s.actions) t.recent[a % kHistory] = e->move;
    if (e->move != kPass) t.played[e->seat] += enc_cards(e->move);
  }
  return t;
}

void legal_mask(RulesObj& R, const PlayStateObj* P, const uint8_t* decisions, int k, int8_t* m) {
  if (P) {  // the play phase: its legal actions
    MoveBuffer& b = tl_buf;
    b.clear();
    legal_actions(R.r, P->s, b);
    const ActionIndex& ix = R.ix();
    for (size_t i = 0; i < b.size; ++i) m[ix.id_of(b.data[i])] = 1;
  }
  for (int i = 0; i < k; ++i) m[R.pass_id() + 1 + decisions[i]] = 1;
}



void register_encode(py::module_& m) {
  m.def("_play_logs", [](py::handle states) {
        std::vector<const PlayStateObj*> ps;
        for_each_item(states, "states", [&](py::handle h, size_t i) {
          if (!py::isinstance<PlayStateObj>(h))
            throw ArgumentTypeError("states[" + std::to_string(i) + "] is a " + type_name(h) + ", not a ddz.PlayState");
          ps.push_back(&h.cast<const PlayStateObj&>());
        });
        if (ps.empty()) throw ArgumentError("states is empty");
        const int n = ps[0]->s.n;
        const auto N = py::ssize_t(ps.size());
        size_t total = 0;
        for (size_t i = 0; i < ps.size(); ++i) {
          if (ps[i]->s.n != n) throw ArgumentError("states[" + std::to_string(i) + "] has another number of seats");
          total += ps[i]->log_size();
        }
        py::array_t<uint64_t> starts({N, py::ssize_t(n)});
        py::array_t<uint64_t> actions{py::ssize_t(total)};
        py::array_t<int64_t> landlords(N), limits({N, py::ssize_t(n)}), offsets(N + 1);
        int64_t* off = offsets.mutable_data();
        off[0] = 0;
        for (size_t i = 0; i < ps.size(); ++i) {
          const PlayState& s0 = ps[i]->initial();
          for (int p = 0; p < n; ++p) {
            starts.mutable_data()[i * size_t(n) + size_t(p)] = s0.hand[p];
            limits.mutable_data()[i * size_t(n) + size_t(p)] = s0.limit[p];
          }
          landlords.mutable_data()[i] = s0.landlord;
          const size_t len = ps[i]->log_size();
          off[i + 1] = off[i] + int64_t(len);
          uint64_t* a = actions.mutable_data() + off[i];
          size_t k = len;  // the log runs from the newest action back
          for (const LogNode* node = ps[i]->log.get(); node; node = node->prev.get()) a[--k] = node->move;
        }
        return py::make_tuple(starts, landlords, limits, actions, offsets);
      }, py::arg("states"),
      "The play logs of PlayStates as arrays: (starts, landlords, bomb_limits with 255 = unlimited, actions, "
      "offsets), which the encoders replay (use ddz.encode.play_log).");


  m.def("_compact_layout", [](RulesArg rules, int decisions) {
        RulesPtr rp = rules_arg(rules);
        return layout_list(compact_layout(rp->r, decisions));
      }, py::arg("rules"), py::arg("decisions"),
      "[(block name, offset, width)] of the compact encoding (use ddz.encode.compact_layout).");

  m.def("_compact", [](RulesArg rules, int decisions, py::handle starts, py::handle landlords, py::handle limits,
                       py::handle actions, py::handle offsets, py::handle seats_h, py::handle shown_h,
                       py::handle kitty_h, OutArg out_h) {
        RulesPtr rp = rules_arg(rules);
        const Rules& r = rp->r;
        Logs g = logs_arg(*rp, starts, landlords, limits, actions, offsets, true);
        const auto N = py::ssize_t(g.count);
        const CompactLayout L = compact_layout(r, decisions);
        auto seats = int_array<int64_t>(seats_h, "seats", {N});
        std::vector<CompactView> views(g.count);
        for (size_t i = 0; i < g.count; ++i) {
          const int64_t s = seats.data()[i];
          if (s < 0 || s >= g.n)
            throw ArgumentError("seats[" + std::to_string(i) + "] = " + std::to_string(s) + " is not a seat 0.." +
                                std::to_string(g.n - 1));
          views[i].seat = int(s);
        }
        if (!shown_h.is_none()) {
          auto sh = int_array<int64_t>(shown_h, "shown", {N});
          for (size_t i = 0; i < g.count; ++i) {
            if (sh.data()[i] < 0 || sh.data()[i] >= (1 << g.n))
              throw ArgumentError("shown[" + std::to_string(i) + "] must be a bit mask of seats below " +
                                  std::to_string(1 << g.n));
            views[i].shown = uint8_t(sh.data()[i]);
          }
        }
        if (!kitty_h.is_none()) {
          auto kt = int_array<uint64_t>(kitty_h, "kitty", {N});
          for (size_t i = 0; i < g.count; ++i) {
            const Counts k = kt.data()[i];
            if (k && !valid_word(r, k))
              throw CardError("kitty[" + std::to_string(i) + "] is not a valid rank-count word for these rules");
            views[i].kitty = k;
            views[i].kitty_known = k != 0;
          }
        }
        py::array_t<int8_t> out = out_h.is_none() ? py::array_t<int8_t>({N, py::ssize_t(L.total)})
                                                  : out_array<int8_t>(out_h, "out", {N, L.total});
        std::vector<Tracked> t = replay_logs(r, g);
        int8_t* o = out.mutable_data();
        {
          py::gil_scoped_release nogil;
          for (size_t i = 0; i < g.count; ++i) {
            int8_t* row = o + i * size_t(L.total);
            if (g.landlords[i] < 0) encode_compact_deal(r, L, &g.starts[i * size_t(g.n)], -1, -1, views[i], row);
            else encode_compact(r, L, t[i], views[i], row);
          }
        }
        return out;
      },
      py::arg("rules"), py::arg("decisions"), py::arg("starts"), py::arg("landlords"), py::arg("bomb_limits"),
      py::arg("actions"), py::arg("offsets"), py::arg("seats"), py::arg("shown"), py::arg("kitty"),
      py::arg("out") = py::none(), "The compact encoder core (use ddz.encode.compact_batch).");

  m.def("_douzero", [](RulesArg rules, py::handle starts, py::handle landlords, py::handle actions, py::handle offsets,
                       py::handle legal_h, py::handle legal_off_h, OutArg out_x, OutArg out_z, OutArg out_actions) {
        RulesPtr rp = rules_arg(rules);
        const Rules& r = rp->r;
        if (r.variant != Variant::kClassic3) throw ArgumentError("DouZero's features are defined for CLASSIC3 only");
        Logs g = logs_arg(*rp, starts, landlords, py::none(), actions, offsets, false);
        const auto N = py::ssize_t(g.count);
        std::vector<uint32_t> shared;  // actions state i shares with state i-1 (its history rows move up)
        std::vector<Tracked> t = replay_logs(r, g, &shared);
        for (size_t i = 0; i < g.count; ++i)
          if (t[i].s.over()) throw ArgumentError("state " + std::to_string(i) + " is over: nobody is to act");
        const bool given = !legal_h.is_none();
        std::vector<Enc> moves;
        std::vector<int64_t> aoff(g.count + 1, 0);
        if (given) {
          auto lw = int_array<uint64_t>(legal_h, "legal", {-1});
          auto lo = int_array<int64_t>(legal_off_h, "legal_offsets", {N + 1});
          moves.assign(lw.data(), lw.data() + lw.size());
          aoff.assign(lo.data(), lo.data() + lo.size());
          if (aoff[0] != 0 || aoff[g.count] != int64_t(moves.size()))
            throw ArgumentError("legal_offsets must start at 0 and end at len(legal)");
          for (size_t i = 0; i < g.count; ++i)
            if (aoff[i + 1] < aoff[i]) throw ArgumentError("legal_offsets must not decrease");
          for (size_t j = 0; j < moves.size(); ++j)
            if (moves[j] && !valid_word(r, moves[j]))
              throw CardError("legal[" + std::to_string(j) + "] is not a valid rank-count word (0 is PASS)");
        }
        const ActionIndex& ix = rp->ix();
        py::array_t<int8_t> pos(N);
        py::array_t<int8_t> x = out_x.is_none() ? py::array_t<int8_t>({N, py::ssize_t(kDzStateFarmer)})
                                                : out_array<int8_t>(out_x, "out_x", {N, kDzStateFarmer});
        py::array_t<int8_t> z = out_z.is_none() ? py::array_t<int8_t>({N, py::ssize_t(5), py::ssize_t(162)})
                                                : out_array<int8_t>(out_z, "out_z", {N, 5, 162});
        py::array_t<int8_t> acts_out;
        if (!out_actions.is_none()) acts_out = out_array<int8_t>(out_actions, "out_actions", {-1, kDzCards});
        py::array_t<int64_t> offs(N + 1);
        py::array_t<int8_t> acts;
        py::array_t<int32_t> ids;
        {
          py::gil_scoped_release nogil;
          if (!given) {
            MoveBuffer b;
            for (size_t i = 0; i < g.count; ++i) {
              b.clear();
              legal_actions(r, t[i].s, b);
              moves.insert(moves.end(), b.data, b.data + b.size);
              aoff[i + 1] = int64_t(moves.size());
            }
          }
          std::memset(x.mutable_data(), 0, size_t(x.size()));
          for (size_t i = 0; i < g.count; ++i) {
            pos.mutable_data()[i] = int8_t(dz_position(t[i].s));
            dz_state(t[i], x.mutable_data() + i * kDzStateFarmer);
            int8_t* zi = z.mutable_data() + i * kDzHistory;
            if (shared[i]) dz_history_after(t[i], zi - kDzHistory, int(g.offsets[i + 1] - g.offsets[i]) - int(shared[i]), zi);
            else dz_history(t[i], zi);
          }
        }
        std::memcpy(offs.mutable_data(), aoff.data(), aoff.size() * sizeof(int64_t));
        const auto M = py::ssize_t(moves.size());
        // the caller's rows when they are enough (a view of them is returned), else a fresh array
        acts = acts_out && acts_out.shape(0) >= M
                   ? py::reinterpret_borrow<py::array_t<int8_t>>(acts_out[py::slice(0, M, 1)])
                   : py::array_t<int8_t>({M, py::ssize_t(kDzCards)});
        ids = py::array_t<int32_t>(given ? 0 : M);
        {
          py::gil_scoped_release nogil;
          for (size_t j = 0; j < moves.size(); ++j) {
            const Enc e = moves[j];
            const Counts c = given ? e : (e == kPass ? 0 : enc_cards(e));
            dz_cards(c, acts.mutable_data() + j * kDzCards);
            if (!given) ids.mutable_data()[j] = ix.id_of(e);
          }
        }
        py::dict d;
        d["position"] = pos;
        d["x_no_action"] = x;
        d["z"] = z;
        d["action_offsets"] = offs;
        d["actions"] = acts;
        if (!given) {
          py::array_t<uint64_t> mv(M);
          if (M) std::memcpy(mv.mutable_data(), moves.data(), moves.size() * sizeof(Enc));
          d["moves"] = mv;
          d["legal_ids"] = ids;
        }
        return d;
      },
      py::arg("rules"), py::arg("starts"), py::arg("landlords"), py::arg("actions"), py::arg("offsets"),
      py::arg("legal") = py::none(), py::arg("legal_offsets") = py::none(), py::arg("out_x") = py::none(),
      py::arg("out_z") = py::none(), py::arg("out_actions") = py::none(),
      "The DouZero encoder core (use ddz.encode.douzero_batch).");

  m.def("_douzero_expand", [](py::handle x_h, py::handle z_h, py::handle pos_h, py::handle aoff_h, py::handle acts_h,
                              int position, OutArg out_x_h, OutArg out_z_h) {
        if (position < 0 || position > 2) throw ArgumentError("position must be 0 (landlord), 1 (down) or 2 (up)");
        auto pos = int_array<int8_t>(pos_h, "position", {-1});
        const py::ssize_t N = pos.shape(0);
        auto x = int_array<int8_t>(x_h, "x_no_action", {N, kDzStateFarmer});
        auto z = int_array<int8_t>(z_h, "z", {N, 5, 162});
        auto aoff = int_array<int64_t>(aoff_h, "action_offsets", {N + 1});
        auto acts = int_array<int8_t>(acts_h, "actions", {-1, kDzCards});
        const int64_t* ao = aoff.data();
        if (ao[0] != 0 || ao[N] != acts.shape(0)) throw ArgumentError("action_offsets must span actions");
        py::ssize_t rows = 0;
        for (py::ssize_t i = 0; i < N; ++i) {
          if (ao[i + 1] < ao[i]) throw ArgumentError("action_offsets must not decrease");
          if (pos.data()[i] == position) rows += ao[i + 1] - ao[i];
        }
        const int sw = position == DZ_LANDLORD ? kDzStateLandlord : kDzStateFarmer;
        const py::ssize_t xw = sw + kDzCards;
        py::array_t<float> ox = out_x_h.is_none() ? py::array_t<float>({rows, xw}) : out_array<float>(out_x_h, "out_x", {rows, xw});
        py::array_t<float> oz = out_z_h.is_none() ? py::array_t<float>({rows, py::ssize_t(5), py::ssize_t(162)})
                                                  : out_array<float>(out_z_h, "out_z", {rows, 5, 162});
        {
          py::gil_scoped_release nogil;
          float* px = ox.mutable_data();
          float* pz = oz.mutable_data();
          for (py::ssize_t i = 0; i < N; ++i) {
            if (pos.data()[i] != position) continue;
            const int8_t* xs = x.data() + i * kDzStateFarmer;
            const int8_t* zs = z.data() + i * kDzHistory;
            for (int64_t j = ao[i]; j < ao[i + 1]; ++j) {
              for (int k = 0; k < sw; ++k) px[k] = float(xs[k]);
              const int8_t* a = acts.data() + j * kDzCards;
              for (int k = 0; k < kDzCards; ++k) px[sw + k] = float(a[k]);
              for (int k = 0; k < kDzHistory; ++k) pz[k] = float(zs[k]);
              px += xw;
              pz += kDzHistory;
            }
          }
        }
        return py::make_tuple(ox, oz);
      },
      py::arg("x_no_action"), py::arg("z"), py::arg("position"), py::arg("action_offsets"), py::arg("actions"),
      py::arg("which"), py::arg("out_x") = py::none(), py::arg("out_z") = py::none(),
      "DouZero's float32 x_batch and z_batch rows of every state of one position (use ddz.encode.douzero_expand).");
}

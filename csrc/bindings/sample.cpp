// pybind11 registration of hidden-hand sampling: ddz._core._sample_deals (the facade is ddz.sample_deals).
#include "../ddz/sample.hpp"
#include "common.hpp"

// The most deals one call returns (an (n, 4) array of 32 MB): a bound on what a caller's n allocates.
constexpr uint64_t kMaxSampleDeals = 1000000;

void register_sample(py::module_& m) {
  m.def("_sample_deals", [](uint64_t pool, std::vector<bool> hidden, std::vector<uint64_t> known, std::vector<int> draw,
                            std::vector<uint64_t> dealt_extra, bool no_special_deal, uint64_t n, uint64_t seed) {
        const size_t seats = hidden.size();
        if (seats < 2 || seats > 4 || known.size() != seats || draw.size() != seats || dealt_extra.size() != seats)
          throw ArgumentError("one entry per seat (2 to 4) in hidden, known, draw and dealt_extra");
        if (n > kMaxSampleDeals)
          throw ArgumentError("n must be at most " + std::to_string(kMaxSampleDeals) + " deals per call");
        SampleSpec spec;
        spec.seats = int(seats);
        spec.pool = pool;
        spec.no_special_deal = no_special_deal;
        for (size_t i = 0; i < seats; ++i) {
          spec.hidden[i] = hidden[i];
          spec.known[i] = known[i];
          spec.draw[i] = draw[i];
          spec.dealt_extra[i] = dealt_extra[i];
        }
        py::array_t<uint64_t> out({py::ssize_t(n), py::ssize_t(seats)});
        SampleStatus st;
        {
          py::gil_scoped_release nogil;
          st = sample_deals(spec, n, seed, out.mutable_data());
        }
        if (st == SampleStatus::BadSpec)
          throw ArgumentError("the hidden seats need more cards than are unseen (an inconsistent observation)");
        if (st == SampleStatus::Rejected)
          throw ArgumentError("almost no deal of the unseen cards avoids a 天炸/天尊 dealt hand (docs/rules.md §8): "
                                "the observation is inconsistent");
        return out;
      },
      py::arg("pool"), py::arg("hidden"), py::arg("known"), py::arg("draw"), py::arg("dealt_extra"),
      py::arg("no_special_deal"), py::arg("n"), py::arg("seed"),
      "The sampler core (use ddz.sample_deals): uint64 array (n, seats) of rank-count words.");
}

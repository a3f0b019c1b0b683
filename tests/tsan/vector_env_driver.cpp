// ThreadSanitizer driver for the C++ vector environment (csrc/ddz/vector_env.cpp): every variant,
// whole hands and the play phase alone, stepped by worker threads (VectorEnv::parallel) while a
// second thread reads the game counters and the seed under a lock, as the Python binding's
// games() and hand_seeds() do (they take the environment's lock: csrc/bindings/vector_env.cpp).
// Built and run by tests/tsan/run.sh; any report fails the run (halt_on_error). No Python.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "../../csrc/ddz/actions.hpp"
#include "../../csrc/ddz/hand.hpp"
#include "../../csrc/ddz/vector_env.hpp"

using namespace ddz;

namespace {

Rules variant_rules(int v) {
  Rules r;
  r.variant = Variant(v);
  if (r.variant == Variant::kBengbu4) {  // BENGBU4: two decks, no straights or single kickers, the line trio chains
    r.two_decks = true;
    r.straight = r.trio_solo = r.four_two = false;
    r.trio_chain = 1;
    r.joker_pairs = true;
    r.cap = 2;
    r.max_cards = 33;
  } else {
    r.cap = v == 1 ? 2 : 1;
    r.max_cards = v == 1 ? 23 : 20;
  }
  return r;
}

uint64_t mix(uint64_t& s) {  // splitmix64: the driver's own picks
  uint64_t z = (s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

int run(int variant, bool whole, size_t tables, int threads, int steps) {
  const Rules r = variant_rules(variant);
  ActionIndex index;
  if (!index.build(r)) return 1;
  HandOptions opts;
  VectorEnv env(r, index, r.spec().decision_count, tables, 7 + uint64_t(variant), threads, DealPool(),
                whole ? &opts : nullptr);
  const size_t width = size_t(env.layout().total), n = size_t(env.players());
  std::vector<int8_t> obs(tables * width), seat(tables), role(tables);
  std::vector<float> reward(tables * n);
  std::vector<uint8_t> done(tables);
  std::vector<int64_t> counts(tables);
  StepOut out{obs.data(), reward.data(), done.data(), seat.data(), role.data(), counts.data()};
  std::mutex lock;  // the binding's lock: step and reset hold it, so do the readers
  bool stop = false;
  uint64_t read_sum = 0;
  std::thread reader([&] {
    for (;;) {
      std::lock_guard<std::mutex> g(lock);
      if (stop) return;
      for (size_t i = 0; i < env.tables(); ++i) read_sum += hand_seed(env.seed(), env.game_of(i));
    }
  });
  uint64_t rng = 99 + uint64_t(variant);
  std::vector<int32_t> legal, ids(tables);
  int64_t finished = 0;
  {
    std::lock_guard<std::mutex> g(lock);
    env.reset(nullptr, out);
  }
  for (int k = 0; k < steps; ++k) {
    std::lock_guard<std::mutex> g(lock);
    int64_t total = 0;
    for (size_t i = 0; i < tables; ++i) total += counts[i];
    legal.resize(size_t(total));
    env.copy_legal(legal.data());
    for (size_t i = 0, at = 0; i < tables; at += size_t(counts[i]), ++i)
      ids[i] = legal[at + mix(rng) % uint64_t(counts[i])];
    Illegal why = Illegal::None;
    if (env.check(ids.data(), why) >= 0) return 2;
    if (k % 7 == 3) {
      std::vector<int64_t> choice(tables);
      env.rule_choices(choice.data());
    }
    env.step(ids.data(), out);
    for (size_t i = 0; i < tables; ++i) finished += done[i];
  }
  {
    std::lock_guard<std::mutex> g(lock);
    stop = true;
  }
  reader.join();
  std::printf("variant %d %-10s %zu tables, %d threads: %d steps, %lld hands finished (read %llu)\n", variant,
              whole ? "whole" : "play-only", tables, threads, steps, (long long)finished,
              (unsigned long long)(read_sum & 0xFFFF));
  return finished > 0 ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 300;
  for (int v = 0; v < 3; ++v)
    for (bool whole : {true, false})
      if (int rc = run(v, whole, 24, 3, steps)) {
        std::fprintf(stderr, "variant %d failed: %d\n", v, rc);
        return rc;
      }
  return 0;
}

#!/usr/bin/env bash
# The C++ vector environment under ThreadSanitizer: builds the core's sources with
# -fsanitize=thread beside a small driver (tests/tsan/vector_env_driver.cpp) and runs it; any
# data race report fails the run. Run from the repository's root (.ci/sanitize runs it):
#   bash tests/tsan/run.sh          # 300 steps a configuration (about a minute on 2 cores)
#   bash tests/tsan/run.sh 5000     # a longer run
set -euo pipefail
cd "$(dirname "$0")/../.."
steps="${1:-300}"
out=build/tsan
mkdir -p "$out"
srcs=(csrc/ddz/actions.cpp csrc/ddz/classify.cpp csrc/ddz/movegen.cpp csrc/ddz/play.cpp csrc/ddz/solver.cpp
      csrc/ddz/rollout.cpp csrc/ddz/sample.cpp csrc/ddz/deal.cpp csrc/ddz/physical.cpp csrc/ddz/encode.cpp
      csrc/ddz/hand.cpp csrc/ddz/rule_policy.cpp csrc/ddz/vector_env.cpp tests/tsan/vector_env_driver.cpp)
objs=()
pids=()
for s in "${srcs[@]}"; do  # two compilers at a time
  o="$out/$(basename "$s" .cpp).o"
  objs+=("$o")
  if [ ! -e "$o" ] || [ "$s" -nt "$o" ] || [ -n "$(find csrc/ddz -name '*.hpp' -newer "$o" -o -name '*.inc' -newer "$o")" ]; then
    g++ -std=c++17 -O1 -g -fsanitize=thread -fno-omit-frame-pointer -pthread -c "$s" -o "$o" &
    pids+=($!)
    if [ "${#pids[@]}" -ge 2 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
  fi
done
for p in "${pids[@]}"; do wait "$p"; done
g++ -fsanitize=thread -pthread "${objs[@]}" -o "$out/vector_env_driver"
TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" "$out/vector_env_driver" "$steps"
echo "tsan: no data race in the vector environment"

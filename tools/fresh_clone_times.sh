#!/usr/bin/env bash
# A newcomer's first minutes, timed: from a fresh clone of REV with an empty pip cache, the
# README's two set-up commands phase by phase (the build and install of `pip install .`, the
# self-play run, the test extra's install, the suite). Wall time and CPU time (user + sys of
# the phase's processes) per phase; CPU time is what a busy machine inflates least.
#
#   tools/fresh_clone_times.sh [REV] [REPO]      # default: HEAD of this clone
set -euo pipefail
rev="${1:-HEAD}"
repo="${2:-$(cd "$(dirname "$0")/.." && pwd)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone -q "$repo" "$work/ddz"
git -C "$work/ddz" checkout -q "$rev"
export PIP_CACHE_DIR="$work/pip-cache"   # empty: nothing built or downloaded before
python3 -m venv "$work/venv"
. "$work/venv/bin/activate"
python -m pip install -q --upgrade pip > /dev/null 2>&1
cd "$work/ddz"
TIMEFORMAT="%R %U %S"
phase() {  # name, command...: prints "name  wall s  cpu s"
  local name="$1"; shift
  local t
  t="$( { time "$@" > "$work/$name.log" 2>&1; } 2>&1 )" || { echo "$name failed:"; tail -20 "$work/$name.log"; exit 1; }
  read -r real user sys <<< "$t"
  printf '%-22s wall %7.1f s   cpu %7.1f s\n' "$name" "$real" "$(echo "$user + $sys" | bc)"
}
echo "fresh clone of $(git rev-parse --short HEAD), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
phase "pip install ." python -m pip install -q .
phase "ddz selfplay 10000" ddz selfplay --games 10000
phase "pip install .[test]" python -m pip install -q ".[test]"
phase "python -m pytest -q" python -m pytest -q -p no:cacheprovider

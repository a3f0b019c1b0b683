#!/usr/bin/env bash
# The runs of docs/server.md, "Durable hands", one after another, each at nice 19,
# on this machine (2 cores shared with other jobs). From the repository's root, with ddz and
# its server extra installed (or PYTHONPATH=src): bash benchmarks/results/durable/run.sh [PART]
# PART: resume, load, chaos, cluster (default: all). Each run's JSON goes to NAME.json, its
# stderr to NAME.log, and the command with the commit it ran at to commands.txt.
# first-version/: the same load runs and the cluster chaos at the first version of the log
# (its SQLite batches in four hops on the shared connection, the cluster's heartbeat in its
# round), kept for the figures docs/server.md quotes from them.
set -u
out=benchmarks/results/durable
part=${1:-all}
run() {  # NAME COMMAND...
  name=$1; shift
  echo "== $name ($(git rev-parse --short HEAD)): $*" | tee -a $out/commands.txt
  nice -n 19 "$@" > $out/$name.json 2> $out/$name.log
  echo "   exit $?" | tee -a $out/commands.txt
}
L="--tables 1000 --think 1 3 --duration 120 --client-procs 2"
if [ "$part" = all ] || [ "$part" = resume ]; then
  run resume-sqlite python benchmarks/server_resume.py --tables 1000 --events 30
  run resume-pg python benchmarks/server_resume.py --tables 1000 --events 30 --db pg
fi
if [ "$part" = all ] || [ "$part" = load ]; then
  run load-sqlite-full python benchmarks/server_chaos.py $L --kills 0
  run load-sqlite-normal python benchmarks/server_chaos.py $L --kills 0 --server-arg=--sqlite-sync=normal
  run load-sqlite-nolog python benchmarks/server_chaos.py $L --kills 0 --server-arg=--no-hand-log
  run load-pg python benchmarks/server_chaos.py $L --kills 0 --db pg
  run load-pg-nolog python benchmarks/server_chaos.py $L --kills 0 --db pg --server-arg=--no-hand-log
fi
if [ "$part" = all ] || [ "$part" = chaos ]; then
  run chaos-sqlite python benchmarks/server_chaos.py $L --kills 2
  run chaos-pg python benchmarks/server_chaos.py $L --kills 2 --db pg
fi
if [ "$part" = all ] || [ "$part" = cluster ]; then
  run chaos-cluster python benchmarks/server_chaos.py --tables 1000 --think 1 3 --duration 150 --client-procs 2 --cluster --db pg --keep-logs $out/chaos-cluster
fi

#!/usr/bin/env bash
# The runs of docs/server.md, "Durable hands" (issue #41), one after another, each at nice 19,
# on this machine (2 cores shared with other jobs). From the repository's root, with ddz and
# its server extra installed (or PYTHONPATH=src): bash benchmarks/results/durable/run.sh
set -u
out=benchmarks/results/durable
run() {  # NAME COMMAND...: the command's JSON in NAME.json, its stderr in NAME.log
  name=$1; shift
  echo "== $name: $*" | tee -a $out/commands.txt
  nice -n 19 "$@" > $out/$name.json 2> $out/$name.log
  echo "   exit $?" | tee -a $out/commands.txt
}
: > $out/commands.txt
run resume-sqlite python benchmarks/server_resume.py --tables 1000 --events 30
run resume-pg python benchmarks/server_resume.py --tables 1000 --events 30 --db pg
L="--tables 1000 --think 1 3 --duration 120 --client-procs 2"
run load-sqlite-full python benchmarks/server_chaos.py $L --kills 0
run load-sqlite-normal python benchmarks/server_chaos.py $L --kills 0 --server-arg=--sqlite-sync=normal
run load-sqlite-nolog python benchmarks/server_chaos.py $L --kills 0 --server-arg=--no-hand-log
run load-pg python benchmarks/server_chaos.py $L --kills 0 --db pg
run load-pg-nolog python benchmarks/server_chaos.py $L --kills 0 --db pg --server-arg=--no-hand-log
run chaos-sqlite python benchmarks/server_chaos.py $L --kills 2
run chaos-pg python benchmarks/server_chaos.py $L --kills 2 --db pg
run chaos-cluster python benchmarks/server_chaos.py --tables 1000 --think 1 3 --duration 150 --client-procs 2 --cluster --db pg

#!/bin/bash
# plateau experiments: play-only classic_douzero adp, seed 1, 2 actor processes; 6M frames; vs baseline snapshots
source /work/venv/bin/activate
cd /work/main
S=/work/equal/ddz-snapshots
BASE="--variant classic_douzero --play-only --objective adp --mode processes --actors 2 --seed 1 --checkpoint-every 1000000 --quiet"
run() {  # name, extra args
  name=$1; shift
  out=/work/plateau/$name
  if [ ! -f $out/model.npz ]; then
    /usr/bin/time -f "%e s wall" ddz train --out $out --frames ${FRAMES:-6000000} $BASE "$@" > $out.train.log 2>&1
  fi
  for b in 5638400 1000000; do
    python benchmarks/douzero_protocol.py --a neural:$out/model.npz --b neural:$S/model-$b.npz --deals 1000 2>&1 | tail -1 | sed "s|^|$name vs $b: |" >> /work/plateau/results.txt
  done
}
for spec in "$@"; do eval run $spec; done
echo done >> /work/plateau/results.txt

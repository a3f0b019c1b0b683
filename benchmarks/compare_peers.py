"""Legal-move generation speed, ddz against the installed peers (DouZero, RLCard,
OpenSpiel) on the same seeded deals; the same as `ddz bench --peers`.

    python benchmarks/compare_peers.py --hands 2000 --seed 1
"""
from ddz.peers.bench import main

if __name__ == "__main__":
    main()

"""Writes v0.2.0-before-layers.pickle: objects pickled by ddz 0.2.0 as it was before its layers
became subpackages (their pickles name ddz.game, ddz.bots, ddz._search_bot, ddz._rules,
ddz.rooms, ddz.scoring). It was run once with that version installed; tests/test_pickle.py
loads the file with the current one. Rerunning it with the current version would write the
new paths and prove nothing, so it refuses to.

    python tests/data/pickles/make.py
"""
import pickle
import random
from pathlib import Path

import ddz

if hasattr(ddz, "hand"):
    raise SystemExit("this ddz already has the layered layout: run this with ddz 0.2.0 before it")

import ddz.bots  # noqa: E402

out = {}
for name in ("classic", "two_player", "bengbu"):
    rules = getattr(ddz.Rules, name)()
    g = ddz.Game(rules, 7)
    rng = random.Random(3)
    for _ in range(9):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    g.set_bot(g.current_seat, ddz.bots.RuleBot())
    fin = ddz.Game(rules, 11)
    while not fin.is_over:
        fin.apply(rng.choice(fin.legal_actions()))
    out[name] = {"game": g, "game_record": g.to_json(), "finished": fin, "result": fin.result,
                 "rules": rules, "bot": ddz.bots.RuleBot(), "random_bot": ddz.bots.RandomBot(5)}
out["search_bot"] = ddz.bots.SearchBot(worlds=2, node_limit=100, seed=1)
out["room"] = ddz.ROOMS[0] if isinstance(ddz.ROOMS, (list, tuple)) else next(iter(ddz.ROOMS.values()))
hands, _ = ddz.deal(ddz.Rules.classic(), 4, 0)
out["cards"] = hands[0]
out["move"] = ddz.classify("33344", ddz.Rules.classic())
Path(__file__).with_name("v0.2.0-before-layers.pickle").write_bytes(pickle.dumps(out, protocol=4))

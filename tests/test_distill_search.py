"""benchmarks/distill_search.py (an experiment of docs/models.md: the shipped CLASSIC3 model
fine-tuned on SearchBot's best actions): what it records, the loss it fits, and that a fit
changes the play networks only. Needs torch for the fit (skipped without it)."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from bench_scripts import load

MODEL = Path(__file__).resolve().parents[1] / "src" / "ddz" / "learn" / "models" / "classic.npz"

ds = load("distill_search")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("distill")
    assert ds.main(["gen", "--model", str(MODEL), "--out", str(out), "--hands", "3", "--workers", "1",
                    "--chunk", "2", "--nodes", "500"]) == 0
    return out


def test_gen_records_each_choice_with_searchbots_best_set(data_dir):
    import ddz
    data = ds.load_data([data_dir])
    n = len(data["pos"])
    assert n > 10 and data["obs"].shape[0] == n and len(data["offsets"]) == n + 1
    assert data["offsets"][-1] == len(data["ids"]) == len(data["best"])
    assert set(np.unique(data["hand"])) <= {100_000, 100_001, 100_002}
    assert set(np.unique(data["pos"])) <= {0, 1, 2}
    legal_ids = ddz.Rules.classic().num_actions
    for k in range(n):
        seg = data["best"][data["offsets"][k]:data["offsets"][k + 1]]
        ids = data["ids"][data["offsets"][k]:data["offsets"][k + 1]]
        assert 0 < seg.sum() < len(seg)  # a choice SearchBot tells apart: some actions best, not all
        assert len(set(ids.tolist())) == len(ids) and (ids >= 0).all() and (ids < legal_ids).all()


def test_the_loss_is_the_cross_entropy_of_the_best_set():
    torch = pytest.importorskip("torch")

    class Fixed(torch.nn.Module):  # Q = the action feature's first column
        def forward(self, sf, af, seg, hist):
            return af[:, 0]

    q = [0.0, 1.0, 2.0, 0.5, -0.5]
    seg = torch.tensor([0, 0, 0, 1, 1])
    best = torch.tensor([True, True, False, False, True])
    col = torch.tensor([0, 1, 2, 0, 1])
    batch = (torch.zeros(2, 1), torch.tensor(q)[:, None], seg, best, col, 3)
    loss, agree = ds._losses(Fixed(), batch, 2.0, torch)
    b = 2.0
    s0 = -math.log((math.exp(b * 0) + math.exp(b * 1)) / sum(math.exp(b * x) for x in q[:3]))
    s1 = -math.log(math.exp(b * -0.5) / (math.exp(b * 0.5) + math.exp(b * -0.5)))
    assert float(loss) == pytest.approx((s0 + s1) / 2, rel=1e-6)
    assert float(agree) == 0.0  # both states' highest Q lies outside their best sets


def test_fit_moves_the_play_networks_and_keeps_the_bids(data_dir, tmp_path):
    pytest.importorskip("torch")
    from ddz.learn import NeuralModel
    out = tmp_path / "m.npz"
    assert ds.main(["fit", "--model", str(MODEL), "--data", str(data_dir), "--out", str(out), "--epochs", "1",
                    "--lr", "1e-3", "--holdout", "0.34", "--threads", "1"]) == 0
    before, after = NeuralModel.load(MODEL), NeuralModel.load(out)
    assert after.rules == before.rules and after.meta["distilled"]["epochs"] == 1
    moved = {p for p in range(4) if not all(np.array_equal(before.arrays[k], after.arrays[k])
                                            for k in before.arrays if k.startswith(f"p{p}."))}
    assert moved and moved <= {0, 1, 2}  # the decision network (p3: the bids) is the model's own
    assert all(np.array_equal(before.arrays[k], after.arrays[k]) for k in before.arrays if k.startswith("p3."))

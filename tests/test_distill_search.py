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


def _gen(tmp_path_factory, hands, *extra):
    """A folder of labels from ``gen`` over ``hands`` hands of the shipped model (one worker)."""
    out = tmp_path_factory.mktemp("distill")
    assert ds.main(["gen", "--model", str(MODEL), "--out", str(out), "--hands", str(hands), "--workers", "1",
                    "--chunk", "2", *extra]) == 0
    return out


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    return _gen(tmp_path_factory, 3, "--nodes", "500")


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


@pytest.fixture(scope="module")
def nsearch_dir(tmp_path_factory):
    return _gen(tmp_path_factory, 2, "--teacher", "nsearch:64:topk=4:worlds=8:node_limit=2000")


def test_expert_iteration_labels_with_the_search_over_the_model(nsearch_dir):
    """``--teacher nsearch...`` labels each choice with NeuralSearchBot's best valued actions over
    the model being distilled: a best set of at most topk actions (rollouts) wherever the search
    ran them."""
    import json
    data = ds.load_data([nsearch_dir])
    n = len(data["pos"])
    assert n > 10
    sizes = np.array([data["best"][data["offsets"][k]:data["offsets"][k + 1]].sum() for k in range(n)])
    assert (sizes >= 1).all() and (sizes <= 4).sum() > n // 2
    rec = json.loads(next(nsearch_dir.glob("gen-*.json")).read_text())
    assert rec["teacher"].startswith("nsearch:")


def test_distillation_lowers_its_loss_on_a_fixed_batch(nsearch_dir):
    """Adam steps of ``fit``'s loss on one fixed batch of the search's labels lower that loss
    well below where the model began, and put the model's best action in the search's set more
    often."""
    torch = pytest.importorskip("torch")
    from ddz.learn import NeuralModel
    from ddz.learn.features import GROUP
    from ddz.learn.torch_nets import QModel
    torch.manual_seed(0)
    m = NeuralModel.load(MODEL)
    f = m.features
    model = QModel(m.net, m.positions, f.state_dim, f.action_dim, GROUP * f.move_dim)
    for p, net in enumerate(model.nets):
        net.load_state_dict({k: torch.from_numpy(np.array(m.arrays[f"p{p}.{k}"], dtype=np.float32))
                             for k in net.state_dict()})
    data = ds.load_data([nsearch_dir])
    p = int(np.bincount(data["pos"]).argmax())
    rows = np.flatnonzero(data["pos"] == p)
    batch = ds._batch(data, rows, f, torch)
    net = model.nets[p]
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    with torch.no_grad():
        before, agree0 = ds._losses(net, batch, 10.0, torch)
    for _ in range(40):
        loss, _ = ds._losses(net, batch, 10.0, torch)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        after, agree1 = ds._losses(net, batch, 10.0, torch)
    assert float(after) < 0.5 * float(before), (float(before), float(after))
    assert float(agree1) > float(agree0)


def test_an_expert_iteration_round_labels_fits_and_measures(tmp_path):
    """benchmarks/expert_iteration.py: one round labels with the search over the model, fits a new
    model, measures the new network alone and the search over it, and resumes without redoing any
    step."""
    pytest.importorskip("torch")
    import json
    ei = load("expert_iteration")
    argv = ["--model", str(MODEL), "--dir", str(tmp_path), "--rounds", "1", "--hands", "2", "--deals", "2",
            "--workers", "1", "--teacher", "nsearch:64:topk=3:worlds=8", "--against", "random"]
    assert ei.main(argv) == 0
    (row,) = json.loads((tmp_path / "rounds.json").read_text())
    assert row["states"] > 10 and (tmp_path / "round1" / "model.npz").exists()
    assert row["network"]["deals"] == row["search"]["deals"] == 2
    assert row["search"]["role_balanced_wp"] > 0.5  # the search over the new model beats RandomBot
    stamp = (tmp_path / "round1" / "model.npz").stat().st_mtime_ns
    assert ei.main(argv) == 0 and (tmp_path / "round1" / "model.npz").stat().st_mtime_ns == stamp
    assert "| 1 |" in (tmp_path / "rounds.md").read_text()

import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lib.models import AttentionConfig, build_model
from lib.tasks import IndexLookup
from lib.tasks.base import make_generator
from lib.train import TrainConfig, data_seed, train

TASK = IndexLookup(n_symbols=5, length=6)
MODEL = AttentionConfig(d_model=12, n_out=5, n_layers=2, n_heads=2, d_mlp=8, vocab_size=len(TASK.vocab),
                    positions="learned", max_len=TASK.seq_len)


def plain_loop(seed, steps, lr, optimizer, momentum=0.0, weight_decay=0.0, clip=None):
    """Training one model the ordinary way: a module, torch.optim, clip_grad_norm_."""
    model = build_model(MODEL, seed=seed).double()
    if optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum, weight_decay=weight_decay)
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    generator = make_generator(data_seed(seed))
    losses = []
    for _ in range(steps):
        batch = TASK.sample(16, generator=generator)
        loss = F.cross_entropy(model(batch.x), batch.y)
        opt.zero_grad()
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        losses.append(loss.item())
    return model, np.array(losses)


@pytest.mark.parametrize("optimizer, extra", [("adamw", dict(weight_decay=0.05, grad_clip=0.5)),
                                              ("sgd", dict(momentum=0.9, weight_decay=0.01))])
def test_ensemble_member_equals_training_it_alone(optimizer, extra):
    seeds, lrs, steps = [3, 7, 11], (0.02, 0.01, 0.005), 25
    config = TrainConfig(steps=steps, lr=lrs, optimizer=optimizer, batch_size=16, eval_every=5, **extra)
    ensemble = train(MODEL, seeds, config, TASK, evals={"test": TASK}, dtype=torch.float64, progress=False)
    for k, (seed, lr) in enumerate(zip(seeds, lrs)):
        alone = train(MODEL, [seed], TrainConfig(**{**config.to_dict(), "lr": lr}), TASK, evals={"test": TASK},
                      dtype=torch.float64, progress=False)
        reference, losses = plain_loop(seed, steps, lr, optimizer, extra.get("momentum", 0.0),
                                       extra["weight_decay"], extra.get("grad_clip"))
        np.testing.assert_allclose(ensemble.train_loss[k], alone.train_loss[0], rtol=1e-9)
        np.testing.assert_allclose(ensemble.train_loss[k], losses, rtol=1e-9)
        np.testing.assert_allclose(ensemble.metrics["test"]["acc"][k], alone.metrics["test"]["acc"][0])
        for (name, p), q in zip(reference.named_parameters(), ensemble.model(k).parameters()):
            assert torch.allclose(p, q, rtol=1e-7, atol=1e-9), name
    # the members really differ (different seeds and learning rates)
    assert not np.allclose(ensemble.train_loss[0], ensemble.train_loss[1])


def test_members_stop_on_their_own_and_stay_frozen():
    data = TASK.sample(64, seed=0)
    config = TrainConfig(steps=400, lr=(0.02, 1e-5), batch_size=None, eval_every=10, stop_when=("train", "acc", 1.0))
    run = train(MODEL, [0, 1], config, data, evals={"train": data}, progress=False)
    assert run.stopped_at[0] > 0 and run.final("train")[0] == 1.0  # the fast member memorised and stopped
    assert run.stopped_at[1] == -1  # the slow one never did, and trained to the end
    assert run.eval_steps[-1] == 400
    stop = run.eval_steps.index(run.stopped_at[0])
    assert np.all(run.metrics["train"]["loss"][0, stop:] == run.metrics["train"]["loss"][0, stop])


def test_training_learns_index_lookup_at_smoke_scale():
    task = IndexLookup(n_symbols=8, length=8)
    model = AttentionConfig(d_model=16, n_out=8, d_head=16, d_value=16, vocab_size=len(task.vocab), positions="learned",
                        max_len=task.seq_len)
    run = train(model, [0, 1], TrainConfig(steps=200, lr=1e-2, batch_size=128, eval_every=100), task,
                evals={"test": task}, progress=False)
    assert run.metrics["test"]["acc"][:, 0].max() < 0.3  # chance is 1/8 at the start
    assert run.final("test").min() > 0.9


def test_bad_training_arguments_are_rejected():
    with pytest.raises(ValueError, match="optimizer"):
        TrainConfig(steps=1, optimizer="rmsprop")
    with pytest.raises(ValueError, match="lr"):
        TrainConfig(steps=1, lr=0.0)
    with pytest.raises(ValueError, match="3 members"):
        train(MODEL, [0, 1, 2], TrainConfig(steps=1, lr=(0.1, 0.2)), TASK, progress=False)
    with pytest.raises(ValueError, match="stop_when"):
        train(MODEL, [0], TrainConfig(steps=1, stop_when=("train", "acc", 1.0)), TASK, progress=False)


# ----------------------------------------------------------------------------- masked sweeps
def small_and_masked(H, d_head, n, seed):
    """A plain model with (H, d_head, n + 1 positions) and a maskable (4 heads, d_head 6,
    9 positions) model restricted to it, holding the same weights in its active slices."""
    from lib.papers.mahdavi2024.training import model_config

    small = build_model(model_config(8, n, H, d_head, n_out=5), seed=seed).double()
    big = build_model(model_config(8, 8, 4, 6, n_out=5).replace(maskable=True), seed=seed + 100).double()
    big.restrict(n_heads=H, d_head=d_head, n_keys=n + 1)
    with torch.no_grad():
        for name, p in small.named_parameters():
            target = dict(big.named_parameters())[name]
            target[tuple(slice(0, s) for s in p.shape)] = p
    return small, big


def test_restricted_model_computes_the_smaller_model():
    torch.manual_seed(0)
    x = torch.rand(7, 9, 8, dtype=torch.float64)
    for H, d_head, n in [(1, 1, 1), (2, 3, 5), (4, 6, 8)]:
        small, big = small_and_masked(H, d_head, n, seed=H)
        assert torch.allclose(big(x), small(x[:, :n + 1]), atol=1e-12, rtol=0)
    with pytest.raises(ValueError, match="n_heads"):
        big.restrict(n_heads=5)
    with pytest.raises(ValueError, match="maskable"):
        small.restrict(n_heads=1)


def test_a_sweep_as_one_ensemble_equals_each_point_alone():
    """Members of different (H, d_head, n) in one pass end where each small model ends alone."""
    from lib.tasks.random_labels import query_context_data

    points = [(1, 2, 3), (3, 4, 6)]
    cfg = TrainConfig(steps=15, lr=0.01, optimizer="adam", schedule="warmup_cosine", warmup=3, batch_size=None)
    pairs = [small_and_masked(H, dh, n, seed=i) for i, (H, dh, n) in enumerate(points)]
    data = [query_context_data(20, n, 8, n_classes=5, seed=i, dtype=torch.float64) for i, (_, _, n) in
            enumerate(points)]
    padded = [type(b)(F.pad(b.x, (0, 0, 0, 9 - b.x.shape[1])), b.y) for b in data]
    together = train([lambda s, m=big: m for _, big in pairs], [0, 1], cfg, padded, progress=False)
    for k, ((small, big), batch) in enumerate(zip(pairs, data)):
        alone = train(lambda s, m=small: m, [k], cfg, batch, progress=False)
        np.testing.assert_allclose(together.train_loss[k], alone.train_loss[0], rtol=1e-9)
        trained_big, trained_small = together.model(k), alone.model(0)
        for name, p in trained_small.named_parameters():
            q = dict(trained_big.named_parameters())[name]
            torch.testing.assert_close(q[tuple(slice(0, s) for s in p.shape)], p, rtol=1e-9, atol=1e-12)


# ----------------------------------------------------------------------------- the fast trainer
def splitmix_reference(z: int) -> int:
    """SplitMix64's finaliser in plain Python integers (mod 2^64)."""
    mask = 2**64 - 1
    z &= mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def test_keyed_indices_are_splitmix_per_member_and_uniform():
    from lib.train import _mix, keyed_indices

    values = [0, 1, 12345, 2**40 + 7, 2**63 - 1, -5]
    got = _mix(torch.tensor(values, dtype=torch.int64)).tolist()
    assert [g % 2**64 for g in got] == [splitmix_reference(v) for v in values]
    keys = torch.tensor([data_seed(s) for s in (0, 1, 2)])
    together = keyed_indices(keys, 17, 64, 1000)
    alone = keyed_indices(keys[1:2], 17, 64, 1000)
    assert torch.equal(together[1:2], alone)  # a member's stream does not depend on the others
    assert not torch.equal(together[0], together[1]) and not torch.equal(together[0], keyed_indices(keys, 18, 64, 1000)[0])
    counts = torch.bincount(keyed_indices(keys, 3, 100_000, 10).flatten(), minlength=10).double()
    assert counts.min() > 0.98 * counts.mean() and counts.max() < 1.02 * counts.mean()  # 300k draws: +-1%


def test_float32_members_agree_with_training_alone_to_rounding():
    seeds, config = [3, 7, 11], TrainConfig(steps=60, lr=0.02, batch_size=16, eval_every=10)
    ensemble = train(MODEL, seeds, config, TASK, evals={"test": TASK}, progress=False)
    for k, seed in enumerate(seeds):
        alone = train(MODEL, [seed], config, TASK, evals={"test": TASK}, progress=False)
        np.testing.assert_allclose(ensemble.train_loss[k], alone.train_loss[0], rtol=1e-4)
        for name, p in ensemble.params.items():
            torch.testing.assert_close(p[k], alone.params[name][0], rtol=1e-3, atol=1e-4)


def test_stop_margin_counts_only_clear_wins():
    from lib.train import correct_by_margin

    data = TASK.sample(64, seed=0)
    plain = TrainConfig(steps=400, lr=0.02, batch_size=None, eval_every=10, stop_when=("train", "acc", 1.0))
    a = train(MODEL, [0], plain, data, evals={"train": data}, progress=False)
    assert a.stopped_at[0] > 0
    with torch.no_grad():  # the model plain accuracy stopped (its weights are frozen there)
        logits = a.model(0)(data.x)
    top2 = logits.topk(2, dim=1).values  # every example is right there, so its margin is top-1 minus top-2
    reached = float((top2[:, 0] - top2[:, 1]).min())
    assert reached > 0 and int(correct_by_margin(logits[None], data.y[None], 0.0)[0]) == len(data.y)
    # the same trajectory, asked for a margin just above the one reached: it cannot stop at the same
    # evaluation, and where it does stop, every example wins by that margin
    strict = TrainConfig(**{**plain.to_dict(), "stop_when": ("train", "acc", 1.0, reached + 0.01)})
    never = TrainConfig(**{**plain.to_dict(), "stop_when": ("train", "acc", 1.0, 1e9)})
    b, c = (train(MODEL, [0], cfg, data, evals={"train": data}, progress=False) for cfg in (strict, never))
    assert b.stopped_at[0] != a.stopped_at[0]
    if b.stopped_at[0] > 0:
        assert b.stopped_at[0] > a.stopped_at[0]
        with torch.no_grad():
            assert int(correct_by_margin(b.model(0)(data.x)[None], data.y[None], reached + 0.01)[0]) == len(data.y)
    assert c.stopped_at[0] == -1 and c.eval_steps[-1] == 400
    with pytest.raises(ValueError, match="stop_when"):
        TrainConfig(steps=1, stop_when=("train", "loss", 0.1, 1.0))


@pytest.mark.filterwarnings("error::UserWarning")
@pytest.mark.parametrize("data", ["task", "minibatches", "epochs"])
def test_a_resumed_run_ends_exactly_as_an_uninterrupted_one(tmp_path, data):
    """Also in shuffled epochs (13 batches of 200 examples, the last of 8), cut in mid-epoch."""
    from lib.train import checkpoints

    source = TASK if data == "task" else [TASK.sample(200, seed=s) for s in (5, 6)]
    config = TrainConfig(steps=60, lr=(0.02, 0.01), optimizer="adam", schedule="warmup_cosine", warmup=5,
                         batch_size=16, eval_every=10, batches="epochs" if data == "epochs" else "with_replacement")
    evals = {"test": TASK.sample(100, seed=9)}
    whole = train(MODEL, [1, 2], config, source, evals, progress=False)
    with checkpoints(tmp_path, every_s=0):  # save at every evaluation
        cut = train(MODEL, [1, 2], config, source, evals, progress=False, stop_after=35)  # "interrupted"
    assert cut.eval_steps[-1] == 35 and len(list(tmp_path.glob("*.pt"))) == 1
    with checkpoints(tmp_path, every_s=0):
        resumed = train(MODEL, [1, 2], config, source, evals, progress=False)  # picks up at step 30
    assert resumed.resumed_at == 30
    np.testing.assert_array_equal(resumed.train_loss, whole.train_loss)
    np.testing.assert_array_equal(resumed.metrics["test"]["loss"], whole.metrics["test"]["loss"])
    assert resumed.eval_steps == whole.eval_steps
    for name, p in whole.params.items():
        assert torch.equal(resumed.params[name], p), name
    with checkpoints(tmp_path, every_s=0):  # a finished call returns its saved end state
        again = train(MODEL, [1, 2], config, source, evals, progress=False)
    assert again.resumed_at == 60
    np.testing.assert_array_equal(again.train_loss, whole.train_loss)
    other = TrainConfig(**{**config.to_dict(), "lr": (0.03, 0.01)})
    with checkpoints(tmp_path, every_s=0), pytest.warns(UserWarning, match="another run"):
        train(MODEL, [1, 2], other, source, evals, progress=False)  # not this run's state: starts afresh


@pytest.mark.parametrize("batches", ["with_replacement", "epochs"])
def test_the_captured_step_bookkeeping_replays_the_eager_trajectory(monkeypatch, batches):
    """The CUDA-graph step, with CUDA replaced by stand-ins that run the step eagerly: warm-up
    and capture leave the state untouched, the step's scalars reach the optimizer through 0-d
    tensors, the step count advances once per replay, and the run ends exactly as the eager one;
    in shuffled epochs the partial last batch has its own graph, captured once."""
    import contextlib

    import lib.train as T

    class FakeGraph:
        step = None

        def replay(self):
            s = FakeGraph.step
            s.loss.copy_(s.update(s.x, s.y, s.scalars))
            s.optimizer.t -= 1  # a real replay runs no Python: the step counts itself outside

    original = T._CapturedStep.__init__

    def remember(self, *args, **kwargs):
        original(self, *args, **kwargs)
        FakeGraph.step = self

    monkeypatch.setattr(T._CapturedStep, "__init__", remember)
    stream = type("Stream", (), {"wait_stream": lambda self, other: None})
    monkeypatch.setattr(torch.cuda, "Stream", stream)
    monkeypatch.setattr(torch.cuda, "stream", lambda s: contextlib.nullcontext())
    monkeypatch.setattr(torch.cuda, "current_stream", stream)
    monkeypatch.setattr(torch.cuda, "CUDAGraph", FakeGraph)
    monkeypatch.setattr(torch.cuda, "graph", lambda g: contextlib.nullcontext())
    config = TrainConfig(steps=30, lr=(0.02, 0.01), optimizer="adamw", weight_decay=0.01, schedule="warmup_cosine",
                         warmup=5, batch_size=16, eval_every=10, grad_clip=1.0, batches=batches)
    data = TASK if batches == "with_replacement" else TASK.sample(40, seed=3)  # epochs of 16, 16, 8
    eager = train(MODEL, [1, 2], config, data, {"test": TASK}, progress=False, graph=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a failed capture would fall back with a warning
        graphed = train(MODEL, [1, 2], config, data, {"test": TASK}, progress=False, graph=True)
    np.testing.assert_array_equal(graphed.train_loss, eager.train_loss)
    assert len(FakeGraph.step.captured) == (1 if batches == "with_replacement" else 2)
    for name, p in eager.params.items():
        assert torch.equal(graphed.params[name], p), name


@pytest.mark.filterwarnings("error::UserWarning")
def test_a_run_cut_by_its_time_budget_resumes_to_the_uninterrupted_numbers(tmp_path):
    """lib.train.deadline: past the budget, a run saves at its next evaluation and raises
    BudgetSpent; the same call inside checkpoints resumes there and ends as if never cut."""
    from lib.train import BudgetSpent, checkpoints, deadline, time_left

    config = TrainConfig(steps=40, lr=(0.02, 0.01), optimizer="adam", batch_size=16, eval_every=10)
    whole = train(MODEL, [1, 2], config, TASK, {"test": TASK}, progress=False)
    assert time_left() is None
    with checkpoints(tmp_path, every_s=1e9), deadline(0), pytest.raises(BudgetSpent, match="step 10 of 40"):
        train(MODEL, [1, 2], config, TASK, {"test": TASK}, progress=False)
    with checkpoints(tmp_path, every_s=1e9), deadline(3600):
        resumed = train(MODEL, [1, 2], config, TASK, {"test": TASK}, progress=False)
    assert resumed.resumed_at == 10
    np.testing.assert_array_equal(resumed.train_loss, whole.train_loss)
    np.testing.assert_array_equal(resumed.metrics["test"]["acc"], whole.metrics["test"]["acc"])
    with pytest.raises(ValueError, match="seconds"):
        with deadline(float("nan")):
            pass


class _RunsCode:
    """A pickle that would run code when loaded with weights_only=False (here: write a file)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_checkpoint_that_would_run_code_is_refused_unexecuted_and_a_truncated_one_is_set_aside(tmp_path):
    from lib.train import checkpoints

    config = TrainConfig(steps=20, lr=0.01, batch_size=8, eval_every=10)
    clean = train(MODEL, [1], config, TASK, {"test": TASK}, progress=False)
    marker = tmp_path / "pwned"
    saves = tmp_path / "saves"
    saves.mkdir()
    torch.save({"fingerprint": _RunsCode(marker), "params": torch.zeros(1), "step": 10}, saves / "train-001.pt")
    with checkpoints(saves, every_s=0), pytest.warns(UserWarning, match=r"train-001\.pt: not a checkpoint"):
        resumed = train(MODEL, [1], config, TASK, {"test": TASK}, progress=False)
    assert not marker.exists()  # the pickle's code never ran
    assert resumed.resumed_at == 0 and (saves / "train-001.unreadable").exists()
    np.testing.assert_array_equal(resumed.train_loss, clean.train_loss)
    # a run's own checkpoint, cut short as by a crash mid-write: set aside, the run starts afresh
    data = (saves / "train-001.pt").read_bytes()
    (saves / "train-001.pt").write_bytes(data[: len(data) // 2])
    with checkpoints(saves, every_s=0), pytest.warns(UserWarning, match=r"train-001\.pt: not a checkpoint"):
        again = train(MODEL, [1], config, TASK, {"test": TASK}, progress=False)
    np.testing.assert_array_equal(again.train_loss, clean.train_loss)
    with checkpoints(saves, every_s=0):  # and its own complete file loads with weights_only=True
        assert train(MODEL, [1], config, TASK, {"test": TASK}, progress=False).resumed_at == 20


# ----------------------------------------------------------------------------- shuffled epochs
def dataloader_indices(T, batch_size, steps, eval_every=None):
    """The indices torch's own DataLoader(shuffle=True) yields, update by update, drawing from
    the global generator as it stands, in a loop that restarts the loader at each epoch's end
    and, with ``eval_every``, iterates a second (unshuffled) loader after updates 1,
    1 + eval_every, ... (Mahdavi et al.'s official trainer)."""
    from torch.utils.data import DataLoader, TensorDataset

    data = TensorDataset(torch.arange(T))
    loader, other = DataLoader(data, batch_size=batch_size, shuffle=True), DataLoader(data, batch_size=batch_size)
    out, iterator = [], iter(loader)
    while len(out) < steps:
        try:
            (batch,) = next(iterator)
        except StopIteration:
            iterator = iter(loader)
            continue
        out.append(batch)
        if eval_every is not None and (len(out) - 1) % eval_every == 0:
            for _ in other:
                pass
    return out


@pytest.mark.parametrize("T, batch_size, eval_every", [(550, 256, None), (550, 256, 4), (40, 16, 1), (32, 8, 3)])
def test_epoch_batches_are_a_dataloaders(T, batch_size, eval_every):
    """EpochOrder in the trainer's batch source gives each member exactly the batches a
    DataLoader(TensorDataset(...), batch_size, shuffle=True) yields from torch's global generator
    in the same state (here: after some other draws, as a model's initialisation makes),
    partial last batch included (256, 256, 38 for T = 550), epoch after epoch."""
    from lib.tasks.base import Batch
    from lib.train import EpochOrder, _Source

    seeds, per_epoch = [3, 8], -(-T // batch_size)
    steps = 3 * per_epoch + 1
    expected, orders = [], []
    with torch.random.fork_rng():
        for seed in seeds:
            torch.manual_seed(seed)
            torch.nn.Linear(7, 5)  # the draws of a model's initialisation
            orders.append(EpochOrder(torch.Generator().manual_seed(0), other_loader_every=eval_every))
            orders[-1].generator.set_state(torch.get_rng_state())
            expected.append(dataloader_indices(T, batch_size, steps, eval_every))
    data = [Batch(torch.zeros(T, 1), torch.arange(T)) for _ in seeds]
    source = _Source(data, seeds, batch_size, torch.device("cpu"), orders)
    for step in range(1, steps + 1):
        _, y = source.batch(step, step)
        sizes = {len(e[step - 1]) for e in expected}
        assert y.shape == (len(seeds), *sizes)
        for k in range(len(seeds)):
            assert torch.equal(y[k], expected[k][step - 1]), (step, k)
    assert [len(b) for b in expected[0][:per_epoch]] == [batch_size] * (per_epoch - 1) + [T - batch_size * (per_epoch - 1)]


def test_training_in_epochs_equals_a_plain_dataloader_loop():
    """train(batches="epochs") with its default EpochOrder (a generator seeded with the member's
    data_seed) equals, in float64 to 1e-9, the ordinary loop: a DataLoader(shuffle=True) over
    the data drawing from the global generator seeded alike, and torch.optim.Adam; 40 examples
    in batches of 16, 16 and 8."""
    from torch.utils.data import DataLoader, TensorDataset

    data, seeds, steps = TASK.sample(40, seed=4), [2, 5], 14
    config = TrainConfig(steps=steps, lr=0.01, optimizer="adam", batch_size=16, eval_every=7, batches="epochs")
    run = train(MODEL, seeds, config, data, {"train": data}, dtype=torch.float64, progress=False)
    for k, seed in enumerate(seeds):
        model = build_model(MODEL, seed=seed).double()
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        losses = []
        with torch.random.fork_rng():
            torch.manual_seed(data_seed(seed))
            loader = DataLoader(TensorDataset(data.x, data.y), batch_size=16, shuffle=True)
            while len(losses) < steps:
                for x, y in loader:
                    if len(losses) == steps:
                        break
                    loss = F.cross_entropy(model(x), y)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    losses.append(loss.item())
        np.testing.assert_allclose(run.train_loss[k], losses, rtol=1e-9)
        for (name, p), q in zip(model.named_parameters(), run.model(k).parameters()):
            assert torch.allclose(p, q, rtol=1e-7, atol=1e-9), name


def test_epoch_batches_refuse_what_they_cannot_do():
    from lib.train import EpochOrder

    with pytest.raises(ValueError, match="batch_size"):
        TrainConfig(steps=1, batch_size=None, batches="epochs")
    with pytest.raises(ValueError, match="batches"):
        TrainConfig(steps=1, batches="shuffled")
    config = TrainConfig(steps=2, batch_size=4, batches="epochs")
    with pytest.raises(ValueError, match="fixed training data"):
        train(MODEL, [0], config, TASK, progress=False)
    with pytest.raises(ValueError, match="config.batches='epochs'"):
        train(MODEL, [0], TrainConfig(steps=2, batch_size=4), TASK.sample(8, seed=0), progress=False,
              epochs=[EpochOrder(torch.Generator())])
    with pytest.raises(ValueError, match="other_loader_every"):
        EpochOrder(torch.Generator(), other_loader_every=0)
    # the default stays what it was: stored configs and checkpoints' fingerprints are unchanged
    assert "batches" not in TrainConfig(steps=1).to_dict()
    assert TrainConfig(**config.to_dict()) == config

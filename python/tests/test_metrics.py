"""concord.metrics from Python: NumPy, PyTorch and concord inputs, streamed on every device, against
counts computed here with NumPy."""
import numpy as np
import pytest

import concord


def reference_binary(scores, labels, th=0.5):
    pred = scores > th
    tp = np.sum(pred & (labels == 1))
    fp = np.sum(pred & (labels == 0))
    fn = np.sum(~pred & (labels == 1))
    return tp / (tp + fp), tp / (tp + fn)


def batches(n=5, size=64, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        yield rng.random(size), rng.integers(0, 2, size)


def test_streaming_precision_recall_from_numpy_on_every_device(device):
    p, r = concord.metrics.Precision.binary(), concord.metrics.Recall.binary()
    all_s, all_l = [], []
    for s, l in batches():
        target = concord.tensor(l, device=device)      # the counts live on the device
        p.update(s, target)                            # float64 scores stay on the CPU: exact threshold
        r.update(s, target)
        all_s.append(s)
        all_l.append(l)
    want_p, want_r = reference_binary(np.concatenate(all_s), np.concatenate(all_l))
    assert p.compute().item() == want_p and r.compute().item() == want_r
    assert str(p.device) == device and p.samples == 5 * 64


def test_torch_and_concord_inputs_give_the_same_bits():
    torch = pytest.importorskip("torch")
    a, b, c = (concord.metrics.F1.multiclass(4, average="macro") for _ in range(3))
    rng = np.random.default_rng(1)
    for _ in range(4):
        scores = rng.standard_normal((32, 4)).astype(np.float32)
        labels = rng.integers(0, 4, 32)
        a.update(scores, labels)
        b.update(torch.from_numpy(scores), torch.from_numpy(labels))
        c.update(concord.tensor(scores, device="emu:0"), concord.tensor(labels, device="emu:0"))
    assert a.compute().item() == b.compute().item() == c.compute().item()


def test_metric_errors_leave_the_state_unchanged():
    acc = concord.metrics.Accuracy.multiclass(3)
    with pytest.raises(concord.NotComputableError):
        acc.compute()
    acc.update(np.array([0, 1, 2]), np.array([0, 1, 1]))
    with pytest.raises(concord.Error):
        acc.update(np.array([0, 1]), np.array([0, 5]))    # label out of range
    assert acc.samples == 3 and acc.compute().item() == pytest.approx(2 / 3)
    with pytest.raises(concord.ValueError, match="average"):
        concord.metrics.Precision.multiclass(3, average="mean")

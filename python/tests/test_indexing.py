"""Indexing as views, against NumPy's (and PyTorch's) results on the same keys."""
import numpy as np
import pytest

import concord

BASE = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
KEYS = [
    0, -1, (1, 2), (slice(None), 1), (slice(1, None), -1, slice(None, None, 2)), (Ellipsis, 3),
    (None, 0), (0, None, slice(1, 4)), (Ellipsis, None), (slice(-2, None), slice(None, -1), slice(1, 5, 3)),
    (slice(None, None, 2),), (-2, Ellipsis, -5), (slice(5, 9),),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_index_matches_numpy_and_is_a_view(key, device):
    t = concord.tensor(BASE, device=device)
    v = t[key]
    want = BASE[key]
    assert v.shape == want.shape
    np.testing.assert_array_equal(v.to("cpu").numpy(), want)
    if device == "cpu" and v.numel() > 0:
        v.fill_(-7.0)   # a view: the write shows in the base
        expect = BASE.copy()
        expect[key] = -7.0
        np.testing.assert_array_equal(t.numpy(), expect)


def test_index_matches_pytorch():
    torch = pytest.importorskip("torch")
    tt = torch.tensor(BASE)
    ct = concord.tensor(BASE)
    for key in KEYS:
        np.testing.assert_array_equal(ct[key].numpy(), tt[key].numpy())


def test_setitem_writes_through(device):
    t = concord.zeros(3, 4, device=device)
    t[1] = 2.0
    t[:, -1] = concord.tensor([7.0, 8.0, 9.0])
    t[0, 1:3] = 5
    assert t.tolist() == [[0, 5, 5, 7], [2, 2, 2, 8], [0, 0, 0, 9]]


def test_index_tensor_gathers_along_dim0():
    t = concord.tensor(BASE)
    idx = concord.tensor([1, 0, 1])
    np.testing.assert_array_equal(t[idx].numpy(), BASE[[1, 0, 1]])


def test_bad_keys_raise_clear_errors():
    t = concord.tensor(BASE)
    with pytest.raises(concord.ShapeError, match=r"^\[index\] index 2 .* out of range"):
        t[2]
    with pytest.raises(concord.ShapeError, match=r"^\[index\] too many indices"):
        t[0, 0, 0, 0]
    with pytest.raises(concord.ValueError, match=r"slice step must be positive"):
        t[::-1]
    with pytest.raises(concord.ValueError, match=r"only one Ellipsis"):
        t[..., 0, ...]
    with pytest.raises(TypeError, match=r"unsupported index term"):
        t["a"]
    with pytest.raises(TypeError):
        t[1.5]
    np.testing.assert_array_equal(t.numpy(), BASE)   # untouched


def test_bool_mask_selects_like_pytorch(device):
    torch = pytest.importorskip("torch")
    base = np.arange(24, dtype=np.float32).reshape(4, 6) - 11
    t = concord.tensor(base, device=device)
    tt = torch.tensor(base)
    for mask in (base > 0, (base % 3) == 0, np.zeros_like(base, dtype=bool)):
        got = t[concord.tensor(mask, device=device)]
        want = tt[torch.tensor(mask)]
        assert got.shape == tuple(want.shape)
        np.testing.assert_array_equal(got.to("cpu").numpy(), want.numpy())
    rows = np.array([True, False, True, True])        # a mask over the leading dim: whole rows
    got = t[concord.tensor(rows, device=device)]
    assert got.shape == (3, 6)
    np.testing.assert_array_equal(got.to("cpu").numpy(), base[rows])
    np.testing.assert_array_equal(concord.masked_select(t, t > 0).to("cpu").numpy(), base[base > 0])
    np.testing.assert_array_equal(concord.nonzero(t > 10).to("cpu").numpy(), np.argwhere(base > 10))


def test_bool_mask_assignment_writes_through(device):
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = concord.tensor(base, device=device)
    t[t > 6] = -1.0
    want = base.copy()
    want[want > 6] = -1.0
    np.testing.assert_array_equal(t.to("cpu").numpy(), want)
    t[concord.tensor([True, False, True], device=device)] = 0     # whole rows
    want[[0, 2]] = 0
    np.testing.assert_array_equal(t.to("cpu").numpy(), want)


def test_bad_masks_raise_and_leave_the_tensor():
    t = concord.tensor(BASE)
    with pytest.raises(concord.ShapeError, match=r"^\[index\] the bool mask of shape \[3\]"):
        t[concord.tensor([True, False, True])]
    with pytest.raises(concord.ShapeError, match=r"^\[masked_fill_\] the value must be a 0-dim tensor"):
        t[t > 3] = concord.ones(2)
    np.testing.assert_array_equal(t.numpy(), BASE)

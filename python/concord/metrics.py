"""Streaming classification metrics with exact counts (concord/metrics.h): update() takes concord
tensors, NumPy arrays and PyTorch tensors alike, so predictions from any framework stream into int64
counts held on the inputs' device (no float64 needed there), and compute() divides once in float64 on
the host: the same bits on every device.

    p = concord.metrics.Precision.binary()
    for scores, labels in batches:              # torch tensors, NumPy arrays or concord tensors
        p.update(scores, labels)
    p.compute().item()

To keep the counts on a device, pass target there (concord.tensor(labels, device="emu:0")); floating
scores may stay on the CPU (thresholded there, exactly, in their own dtype)."""
from . import _concord
from .testing import as_tensor

__all__ = ["Accuracy", "ConfusionMatrix", "F1", "FBeta", "Precision", "Recall"]


class _Metric:
    _impl_cls = None

    def __init__(self, impl):
        self._impl = impl

    @classmethod
    def binary(cls, *args, **kwargs):
        return cls(cls._impl_cls.binary(*args, **kwargs))

    @classmethod
    def multiclass(cls, *args, **kwargs):
        return cls(cls._impl_cls.multiclass(*args, **kwargs))

    @classmethod
    def multilabel(cls, *args, **kwargs):
        return cls(cls._impl_cls.multilabel(*args, **kwargs))

    def update(self, pred, target):
        """Adds a batch; validated before the state changes (on error the counts are unchanged)."""
        self._impl.update(as_tensor(pred), as_tensor(target))

    def compute(self):
        """A CPU float64 tensor: 0-d, or one value per class with average='none'."""
        return self._impl.compute()

    def reset(self):
        self._impl.reset()

    def merge(self, other):
        self._impl.merge(other._impl)

    def __getattr__(self, name):   # samples, num_classes, task, device, beta
        return getattr(self._impl, name)


class Accuracy(_Metric):
    _impl_cls = _concord._metrics.Accuracy


class Precision(_Metric):
    _impl_cls = _concord._metrics.Precision


class Recall(_Metric):
    _impl_cls = _concord._metrics.Recall


class FBeta(_Metric):
    _impl_cls = _concord._metrics.FBeta


class F1(_Metric):
    _impl_cls = _concord._metrics.F1


class ConfusionMatrix(_Metric):
    _impl_cls = _concord._metrics.ConfusionMatrix

"""batch_norm_inference / batch_norm_training / batch_norm_grad, with the
spec's formulas (docs/spec.md, which follows XLA's batchnorm expander): the
statistics are over every dimension but `feature_index`, the variance is the
population variance, and `epsilon` is added to it."""
from __future__ import annotations

import numpy as np

from ..op_registry import impl, register
from .common import ComputeFunctions, float_attr, int_attr


@register
class BatchNormFunctions(ComputeFunctions):
    def _setup(self, op, x):
        f = int_attr(op, "feature_index")
        eps = float_attr(op, "epsilon", 0.0)
        axes = tuple(i for i in range(x.ndim) if i != f)

        def bcast(v):
            return self.xp.reshape(v, [-1 if i == f else 1 for i in range(x.ndim)])

        return f, eps, axes, bcast

    @impl("stablehlo.batch_norm_inference")
    def inference(self, frame, op, args):
        x, scale, offset, mean, var = args
        _f, eps, _axes, b = self._setup(op, x)
        return [self.cast(op, (x - b(mean)) / self.xp.sqrt(b(var) + eps) * b(scale) + b(offset))]

    @impl("stablehlo.batch_norm_training")
    def training(self, frame, op, args):
        x, scale, offset = args
        _f, eps, axes, b = self._setup(op, x)
        mean = self.xp.mean(x, axis=axes)
        var = self.xp.mean((x - b(mean)) ** 2, axis=axes)
        out = (x - b(mean)) / self.xp.sqrt(b(var) + eps) * b(scale) + b(offset)
        return [self.cast(op, out, 0), self.cast(op, mean, 1), self.cast(op, var, 2)]

    @impl("stablehlo.batch_norm_grad")
    def grad(self, frame, op, args):
        x, scale, mean, var, dy = args
        f, eps, axes, b = self._setup(op, x)
        xp = self.xp
        n = np.prod([x.shape[i] for i in axes]) if axes else 1
        centered = x - b(mean)
        stddev = xp.sqrt(b(var) + eps)
        normalized = centered / stddev
        i2 = b(xp.sum(dy, axis=axes))
        i3 = b(xp.sum(dy * centered, axis=axes))
        i6 = dy * n - i2 - i3 * centered / (b(var) + eps)
        grad_x = b(scale) / stddev / n * i6
        return [self.cast(op, grad_x, 0), self.cast(op, xp.sum(dy * normalized, axis=axes), 1),
                self.cast(op, xp.sum(dy, axis=axes), 2)]

"""Shape and data-movement ops: broadcast, reshape, transpose, reverse, slices
(static and dynamic; start indices clamped as the spec says), concatenate, pad
(negative and interior padding), iota, their dynamic_* forms (the result type is
static here, so the shape operands only have to agree with it), tuples and
get_dimension_size."""
from __future__ import annotations

import numpy as np

from ..op_registry import impl, register
from ..values import ExecutionError
from .common import ComputeFunctions, int_attr, ints


@register
class ShapeFunctions(ComputeFunctions):
    @impl("stablehlo.iota", "stablehlo.dynamic_iota")
    def iota(self, frame, op, args):
        t = self.interp.result_type(op)
        dim = int_attr(op, "iota_dimension")
        shape = tuple(t.shape)
        ar = np.arange(shape[dim]).reshape([-1 if i == dim else 1 for i in range(len(shape))])
        return [self.cast(op, np.broadcast_to(ar, shape))]

    @impl("stablehlo.broadcast_in_dim", "stablehlo.dynamic_broadcast_in_dim")
    def broadcast_in_dim(self, frame, op, args):
        a = args[0]
        t = self.interp.result_type(op)
        dims = ints(op, "broadcast_dimensions")
        order = sorted(range(len(dims)), key=lambda i: dims[i])
        x = self.xp.transpose(a, order) if order != list(range(len(dims))) else a
        shape = [1] * len(t.shape)
        for i in order:
            shape[dims[i]] = a.shape[i]
        x = self.xp.reshape(x, shape)
        return [self.cast(op, self.xp.broadcast_to(x, tuple(t.shape)))]

    @impl("stablehlo.broadcast")
    def broadcast(self, frame, op, args):
        (a,) = args
        t = self.interp.result_type(op)
        return [self.cast(op, self.xp.broadcast_to(a, tuple(t.shape)))]

    @impl("stablehlo.reshape", "stablehlo.dynamic_reshape")
    def reshape(self, frame, op, args):
        t = self.interp.result_type(op)
        return [self.cast(op, self.xp.reshape(args[0], tuple(t.shape)))]

    @impl("stablehlo.transpose")
    def transpose(self, frame, op, args):
        return [self.cast(op, self.xp.transpose(args[0], ints(op, "permutation")))]

    @impl("stablehlo.reverse")
    def reverse(self, frame, op, args):
        return [self.cast(op, self.xp.flip(args[0], axis=tuple(ints(op, "dimensions"))))]

    @impl("stablehlo.slice")
    def slice_(self, frame, op, args):
        (a,) = args
        starts, limits = ints(op, "start_indices"), ints(op, "limit_indices")
        strides = ints(op, "strides", [1] * len(starts))
        index = tuple(slice(s, l, st) for s, l, st in zip(starts, limits, strides))
        return [self.cast(op, a[index])]

    @impl("stablehlo.real_dynamic_slice")
    def real_dynamic_slice(self, frame, op, args):
        a, starts, limits, strides = (self.host(x) for x in args)
        index = tuple(slice(int(s), int(l), int(st)) for s, l, st in zip(starts, limits, strides))
        return [self.cast(op, self.backend.asarray(a[index]))]

    def _starts(self, scalars, shape, sizes) -> list[int]:
        out = []
        for s, dim, size in zip(scalars, shape, sizes):
            v = int(self.backend.to_numpy(s))
            out.append(min(max(v, 0), dim - size))
        return out

    @impl("stablehlo.dynamic_slice")
    def dynamic_slice(self, frame, op, args):
        a, *idx = args
        sizes = ints(op, "slice_sizes")
        starts = self._starts(idx, a.shape, sizes)
        return [self.cast(op, a[tuple(slice(s, s + n) for s, n in zip(starts, sizes))])]

    @impl("stablehlo.dynamic_update_slice")
    def dynamic_update_slice(self, frame, op, args):
        a, upd, *idx = args
        starts = self._starts(idx, a.shape, upd.shape)
        index = tuple(slice(s, s + n) for s, n in zip(starts, upd.shape))
        return [self.cast(op, self.backend.update(a, index, upd))]

    @impl("stablehlo.concatenate")
    def concatenate(self, frame, op, args):
        dim = int_attr(op, "dimension", 0)
        return [self.cast(op, self.xp.concatenate(list(args), axis=dim))]

    @impl("stablehlo.pad")
    def pad(self, frame, op, args):
        a, value = args
        lo, hi = ints(op, "edge_padding_low"), ints(op, "edge_padding_high")
        interior = ints(op, "interior_padding", [0] * len(lo))
        return [self.cast(op, pad_array(self.xp, self.backend, a, value, lo, hi, interior))]

    @impl("stablehlo.dynamic_pad")
    def dynamic_pad(self, frame, op, args):
        a, value, lo, hi, interior = args
        lo, hi, interior = ([int(v) for v in self.host(x).reshape(-1)] for x in (lo, hi, interior))
        return [self.cast(op, pad_array(self.xp, self.backend, a, value, lo, hi, interior))]

    @impl("stablehlo.get_dimension_size")
    def get_dimension_size(self, frame, op, args):
        return [self.cast(op, args[0].shape[int_attr(op, "dimension")])]

    @impl("stablehlo.tuple")
    def tuple_(self, frame, op, args):
        return [tuple(args)]

    @impl("stablehlo.get_tuple_element")
    def get_tuple_element(self, frame, op, args):
        (t,) = args
        i = int_attr(op, "index")
        if not isinstance(t, tuple) or not 0 <= i < len(t):
            raise ExecutionError(f"cannot execute: get_tuple_element {i} of a value that is not a tuple of that size",
                                 op)
        return [t[i]]


def pad_array(xp, backend, a, value, lo, hi, interior):
    """`pad` of the spec: interior padding between elements, then edge padding
    (negative edges crop)."""
    inner = [n + max(n - 1, 0) * i for n, i in zip(a.shape, interior)]
    big = [max(l, 0) + n + max(h, 0) for l, n, h in zip(lo, inner, hi)]
    out = xp.full(big, value, dtype=a.dtype)
    index = tuple(slice(max(l, 0), max(l, 0) + n, i + 1) for l, n, i in zip(lo, inner, interior))
    out = backend.update(out, index, a)
    crop = tuple(slice(max(-l, 0), b - max(-h, 0)) for l, h, b in zip(lo, hi, big))
    return out[crop]

"""gather and scatter (and dynamic_gather), with the spec's index arithmetic
computed for every result (update) element at once: each element's operand
index is built from broadcast aranges, then one fancy-indexing step reads (or
writes) them all. gather clamps its start indices; scatter skips updates whose
window falls outside the operand, as the spec says."""
from __future__ import annotations

import numpy as np

from ..op_registry import impl, register
from ..values import ExecutionError
from .common import ComputeFunctions, param_ints, struct
from .reduce import COMBINE, binary_kind_region, returns_argument


def _arange(n: int, axis: int, rank: int) -> np.ndarray:
    return np.arange(n).reshape([-1 if i == axis else 1 for i in range(rank)])


def _start_vectors(indices: np.ndarray, ivd: int) -> tuple[np.ndarray, int]:
    """Start indices with the index vector as the last axis, and index_vector_dim."""
    if ivd == indices.ndim:
        return indices[..., None], ivd
    return np.moveaxis(indices, ivd, -1), ivd


def gathered(fns: ComputeFunctions, op, operand, indices, offset_dims, collapsed, op_batch, idx_batch, index_map,
             ivd: int, sizes) -> list:
    """A gather's result, from its dimension numbers however its dialect spells them
    (StableHLO's `dimension_numbers`, HLO's attributes): the operand read at every
    index of the result."""
    out_shape = tuple(fns.interp.result_type(op).shape)
    batch_dims = [d for d in range(len(out_shape)) if d not in offset_dims]
    index = operand_index(out_shape, batch_dims, offset_dims, indices, ivd, index_map, op_batch, idx_batch,
                          set(collapsed), tuple(operand.shape), sizes)
    if 0 in operand.shape:
        return [fns.cast(op, np.zeros(out_shape, operand.dtype))]
    return [fns.cast(op, operand[tuple(fns.backend.asarray(i) for i in index)]
                     if fns.backend.name != "numpy" else operand[tuple(index)])]


def operand_index(out_shape, batch_dims, window_dims, indices, ivd, index_map, operand_batching,
                  indices_batching, skipped, operand_shape, sizes=None):
    """For every element of a gather result / scatter update: the operand index
    (one broadcastable array per operand dimension).

    batch_dims: result dims that index start_indices; window_dims: result dims
    that are offsets inside the slice (in operand dim order, without `skipped`,
    the collapsed/inserted and batching dims). `sizes`: slice sizes, for gather's
    clamping (scatter does not clamp)."""
    rank = len(out_shape)
    ar = {d: _arange(out_shape[d], d, rank) for d in range(rank)}
    vectors, ivd = _start_vectors(indices, ivd)
    batch_index = [ar[d] for d in batch_dims]
    starts = vectors[tuple(batch_index)] if batch_index else vectors.reshape(vectors.shape[-1:])
    out = []
    free = [d for d in range(len(operand_shape)) if d not in skipped and d not in operand_batching]
    if len(free) != len(window_dims):
        raise ExecutionError(f"the dimension numbers give {len(window_dims)} window dimensions for the "
                             f"{len(free)} operand dimensions that are neither collapsed nor batching")
    offsets = iter(window_dims)
    for d in range(len(operand_shape)):
        idx = np.zeros((1,) * rank, np.int64)
        if d in index_map:
            s = starts[..., index_map.index(d)].astype(np.int64)
            if sizes is not None:
                s = np.clip(s, 0, operand_shape[d] - sizes[d])
            idx = idx + s
        if d in operand_batching:
            d_start = indices_batching[operand_batching.index(d)]
            idx = idx + batch_index[d_start - (0 if d_start < ivd else 1)]
        if d not in skipped and d not in operand_batching:
            idx = idx + ar[next(offsets)]
        out.append(idx)
    return [np.broadcast_to(i, out_shape) for i in out]


@register
class IndexingFunctions(ComputeFunctions):
    @impl("stablehlo.gather", "stablehlo.dynamic_gather")
    def gather(self, frame, op, args):
        operand, indices = args[0], self.host(args[1])
        dn = struct(op, "dimension_numbers")
        offset_dims = param_ints(dn, "offset_dims")
        collapsed = param_ints(dn, "collapsed_slice_dims")
        op_batch = param_ints(dn, "operand_batching_dims")
        idx_batch = param_ints(dn, "start_indices_batching_dims")
        index_map = param_ints(dn, "start_index_map")
        ivd = param_ints(dn, "index_vector_dim")
        ivd = ivd[0] if ivd else 0  # omitted when 0 (the attribute default)
        if op.name.endswith("dynamic_gather"):
            sizes = [int(v) for v in self.host(args[2]).reshape(-1)]
        else:
            from .common import ints

            sizes = ints(op, "slice_sizes")
        return gathered(self, op, operand, indices, offset_dims, collapsed, op_batch, idx_batch, index_map, ivd,
                        sizes)

    @impl("stablehlo.scatter")
    def scatter(self, frame, op, args):
        n = (len(args) - 1) // 2
        inputs, indices, updates = args[:n], self.host(args[n]), args[n + 1:]
        dn = struct(op, "scatter_dimension_numbers")
        window_dims = param_ints(dn, "update_window_dims")
        inserted = param_ints(dn, "inserted_window_dims")
        in_batch = param_ints(dn, "input_batching_dims")
        idx_batch = param_ints(dn, "scatter_indices_batching_dims")
        index_map = param_ints(dn, "scatter_dims_to_operand_dims")
        ivd = param_ints(dn, "index_vector_dim")
        ivd = ivd[0] if ivd else 0  # omitted when 0 (the attribute default)
        upd_shape = tuple(updates[0].shape)
        scatter_dims = [d for d in range(len(upd_shape)) if d not in window_dims]
        shape = tuple(inputs[0].shape)
        index = operand_index(upd_shape, scatter_dims, window_dims, indices, ivd, index_map, in_batch, idx_batch,
                              set(inserted), shape)
        inside = np.ones(upd_shape, bool)
        for d, i in enumerate(index):
            inside &= (i >= 0) & (i < shape[d])
        flat_index = tuple(i[inside] for i in index)
        results = [np.array(self.host(x), copy=True) for x in inputs]
        ups = [self.host(u)[inside] for u in updates]
        region = op.regions[0]
        kind = binary_kind_region(region) if n == 1 else None
        if n == 1 and returns_argument(region, 1):
            results[0][flat_index] = ups[0]  # x.at[i].set(v): the update replaces the element
        elif kind in ("add", "multiply", "maximum", "minimum") and results[0].dtype != bool:
            ufunc = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum, "minimum": np.minimum}[kind]
            ufunc.at(results[0], flat_index, ups[0])
        elif n == 1 and returns_argument(region, 0):
            pass  # the update is ignored
        else:
            self._scatter_each(frame, op, results, flat_index, ups, kind)
        return [self.cast(op, self.backend.asarray(r), i) for i, r in enumerate(results)]

    def _scatter_each(self, frame, op, results, flat_index, ups, kind) -> None:
        """Any other update computation: applied update by update, in order."""
        count = len(flat_index[0]) if flat_index else (ups[0].size if ups else 0)
        if count > 100_000:
            raise ExecutionError(f"cannot execute: scatter applying a general region to {count} updates "
                                 "(more than 100000)", op)
        for k in range(count):
            at = tuple(int(i[k]) for i in flat_index)
            cur = [self.backend.asarray(r[at]) for r in results]
            new = [self.backend.asarray(u[k]) for u in ups]
            if kind is not None:
                out = [COMBINE[kind](self.xp, cur[0], new[0])]
            else:
                out = self.interp.eval_region(frame, op.regions[0], [*cur, *new])
            for r, v in zip(results, out):
                r[at] = self.host(v)

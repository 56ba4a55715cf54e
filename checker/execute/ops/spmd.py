"""Where a global program becomes one program per device and back:
sdy.manual_computation, sdy.sharding_constraint / reshard, and the GSPMD
custom_calls (@Sharding, @SPMDFullToShardShape, @SPMDShardToFullShape), which
custom_calls.py dispatches here."""
from __future__ import annotations

from ...ir.attributes import ArrayAttr, DialectAttr, StringAttr
from ...ir.core import Operation
from ..op_registry import OpFunctions, impl, register
from ..runtime import Frame, Slot
from ...analysis.sharding import Tiling, hlo_tiling, mesh_from_attr, sdy_dims, sdy_mesh_name, sdy_tiling
from ..values import ExecutionError, PendingGlobal, sharding_errors


# ----------------------------------------------------------------------------- sdy and GSPMD
@register
class ShardingFunctions(OpFunctions):
    """sdy.manual_computation and the GSPMD custom_calls: where a global program
    becomes one program per device and back.

    Entering, each process takes its own shard of each global operand. Leaving,
    it publishes its local results into a Slot; the op's results are
    PendingGlobal values that the first op reading them resolves once every
    process of the mesh has published (a later manual_computation that shards
    the value the same way takes the process's own shard without waiting)."""

    def mesh(self, name: str | None, op: Operation):
        meshes = self.interp.meshes
        if not meshes:
            for m in self.interp.module.walk():
                if m.name == "sdy.mesh" and m.symbol_name:
                    with sharding_errors():
                        meshes[m.symbol_name] = mesh_from_attr(m.attr("mesh"))
        if name is None and len(meshes) == 1:
            name = next(iter(meshes))  # a sharding whose mesh was not read; there is one
        if name not in meshes:
            raise ExecutionError(f"cannot execute: sdy mesh @{name} is not defined", op)
        return meshes[name]

    def devices(self, frame: Frame, size: int, op: Operation) -> tuple[int, dict[int, tuple[int, int]]]:
        """This process's device id and the device → process map for a mesh of `size`."""
        grid = self.interp.grid
        r, p = frame.proc.pid
        if size == grid.num_partitions:
            return p, {d: (r, d) for d in range(size)}
        if size == grid.size:
            return grid.flat(r, p), {d: grid.unflat(d) for d in range(size)}
        raise ExecutionError(f"cannot execute: a mesh of {size} devices on a grid of {grid.num_replicas}x"
                             f"{grid.num_partitions} processes", op)

    def _shardings(self, op: Operation, name: str) -> list:
        a = op.attr(name)

        if isinstance(a, DialectAttr):
            for p in a.positional:
                if isinstance(p, ArrayAttr):
                    return list(p.elements)
        raise ExecutionError(f"cannot execute: cannot read `{name}` of {op.name}", op)

    def _tiling(self, sharding, op: Operation) -> tuple[Tiling, object]:
        mesh = self.mesh(sdy_mesh_name(sharding), op)
        dims = sdy_dims(sharding)
        if dims is None:
            raise ExecutionError(f"cannot execute: cannot read sharding {getattr(sharding, 'text', sharding)}", op)
        with sharding_errors():
            return sdy_tiling(dims, mesh), mesh

    @impl("sdy.manual_computation", blocking=True)
    def manual_computation(self, frame, op, args):
        ins, outs = self._shardings(op, "in_shardings"), self._shardings(op, "out_shardings")
        if len(ins) != len(args):
            raise ExecutionError("cannot execute: in_shardings and operands differ in number", op)
        manual = op.attr("manual_axes")
        manual_axes = {e.value for e in manual.elements if isinstance(e, StringAttr)} \
            if isinstance(manual, ArrayAttr) else set()
        if ins or outs:  # before reading the shardings: a partially manual one keeps `?` dims
            free = {n for n, sz in self.mesh(sdy_mesh_name((ins or outs)[0]), op).axes if sz > 1} - manual_axes
            if free:
                raise ExecutionError(f"cannot execute: partially manual sdy.manual_computation (axes "
                                     f"{', '.join(sorted(free))} stay automatic)", op)
        local = []
        mesh = None
        device = 0
        members: dict = {}
        for a, sh in zip(args, ins):
            tiling, mesh = self._tiling(sh, op)
            device, members = self.devices(frame, mesh.size, op)
            if isinstance(a, PendingGlobal) and a.slot.tilings[a.index] == tiling and device in a.slot.shards:
                local.append(a.slot.shards[device][a.index])  # same sharding: own shard, no wait
                continue
            if isinstance(a, PendingGlobal):
                a = yield from self.interp.resolve(frame, a, op)
            if not hasattr(a, "shape"):  # a token (JAX's ordered effects): nothing to shard
                local.append(a)
                continue
            with sharding_errors():
                local.append(a[tiling.index(device, tuple(a.shape))])
        if mesh is None and outs:
            _t, mesh = self._tiling(outs[0], op)
            device, members = self.devices(frame, mesh.size, op)
        results = yield from self.interp.run_region(frame, op.regions[0], local)
        frame.proc.op = op
        if not outs:
            return []
        tilings = [self._tiling(sh, op)[0] for sh in outs]
        return self._publish(frame, op, members, device, tilings, results)

    manual_computation._accepts_pending = True

    def _publish(self, frame, op, members, device, tilings, results):
        world = self.interp.world
        key = (op.span.start, world.next_instance(frame.proc.pid, op), frame.proc.pid[0] if
               len(members) < self.interp.grid.size else 0)
        slot = world.slots.get(key)
        if slot is None:
            slot = world.slots[key] = Slot(op, members, tilings)
        slot.shards[device] = [self.backend.to_numpy(r) if hasattr(r, "shape") else r for r in results]
        return [PendingGlobal(slot, i) for i in range(len(results))]

    @impl("sdy.sharding_constraint", "sdy.reshard")
    def identity(self, frame, op, args):
        return list(args)

    @impl("custom_call@Sharding", "custom_call@annotate_device_placement", "custom_call@MoveToHost",
          "custom_call@MoveToDevice")
    def cc_sharding(self, frame, op, args):
        """Annotations (sharding, memory placement): the value passes through."""
        return list(args)

    @impl("custom_call@SPMDFullToShardShape")
    def cc_full_to_shard(self, frame, op, args):
        (a,) = args
        src = self.interp.operands(op)[0]
        definer = src.defining_op if src is not None else None
        text = _sharding_text(definer) if definer is not None else None
        if text is None:
            raise ExecutionError("cannot execute: @SPMDFullToShardShape whose operand has no mhlo.sharding", op)
        tiling = self._hlo(text, a.ndim, frame, op)
        device, _members = self.devices(frame, self._num_devices(), op)
        with sharding_errors():
            return [a[tiling.index(device, tuple(a.shape))]]

    @impl("custom_call@SPMDShardToFullShape")
    def cc_shard_to_full(self, frame, op, args):
        (a,) = args
        text = _sharding_text(op)
        if text is None:
            raise ExecutionError("cannot execute: @SPMDShardToFullShape without mhlo.sharding", op)
        tiling = self._hlo(text, a.ndim, frame, op)
        device, members = self.devices(frame, self._num_devices(), op)
        return self._publish(frame, op, members, device, [tiling], [a])

    def _num_devices(self) -> int:
        return self.interp.grid.num_partitions if self.interp.grid.num_partitions > 1 else self.interp.grid.size

    def _hlo(self, text: str, rank: int, frame, op) -> Tiling:
        n = self._num_devices()
        with sharding_errors():
            t = hlo_tiling(text, rank, n)
        if t == "manual":
            raise ExecutionError(f"cannot execute: {op.name} with a {{manual}} global sharding", op)
        return t  # type: ignore[return-value]


def _sharding_text(op: Operation) -> str | None:
    a = op.attr("mhlo.sharding")
    return a.value if isinstance(a, StringAttr) else None

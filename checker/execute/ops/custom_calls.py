"""stablehlo.custom_call: dispatched by target name to an `@impl("custom_call@T")`
method of any registered class (the GSPMD annotations in spmd.py, the CPU
kernels JAX emits in cpu_kernels.py). A target nobody implements is refused
before the run starts (interpreter.preflight): the checker never calls native
code it does not know."""
from __future__ import annotations

from ..registry import OpFunctions, impl, register
from ..runtime import custom_call_target
from ..values import ExecutionError

PREFIX = "custom_call@"


@register
class CustomCallFunctions(OpFunctions):
    @impl("stablehlo.custom_call", blocking=True)
    def custom_call(self, frame, op, args):
        target = custom_call_target(op)
        entry = self.interp.impls.get(PREFIX + (target or ""))
        if entry is None:
            raise ExecutionError(f"refused: custom_call @{target}", op)
        fn, blocking = entry
        if blocking:
            return (yield from fn(frame, op, args))
        return fn(frame, op, args)


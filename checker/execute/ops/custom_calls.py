"""stablehlo.custom_call: dispatched by target name to an `@impl("custom_call@T")`
method of any registered class (the GSPMD annotations in spmd.py, the CPU
kernels JAX emits in cpu_kernels.py). A target nobody implements is refused
before the run starts (interpreter.preflight): the checker never calls native
code it does not know."""
from __future__ import annotations

from ..op_registry import OpFunctions, impl, register
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



HOST_CALLBACKS = ("xla_ffi_python_cpu_callback", "xla_python_cpu_callback", "xla_ffi_python_gpu_callback",
                  "xla_python_gpu_callback")


@register
class HostCallbackFunctions(OpFunctions):
    """Host callbacks (`jax.debug.print`, `jax.debug.callback`, `io_callback`,
    `pure_callback`) call a Python function that is not in the file. One that
    returns nothing (a debug print) is skipped with a note, so a program with a
    print still runs; one whose results the program uses cannot run."""

    @impl(*(f"{PREFIX}{t}" for t in HOST_CALLBACKS))
    def host_callback(self, frame, op, args):
        from ...ir.types import TokenType
        from ..values import TOKEN

        target = custom_call_target(op)
        if any(not isinstance(t, TokenType) for t in op.result_types):
            raise ExecutionError(f"cannot execute: custom_call @{target} returns values computed by a Python "
                                 "function that is not part of the program (jax.pure_callback / io_callback)", op)
        self.interp.notes.append(f"host callback @{target} at {self.interp.where(op)} skipped (its Python function, "
                                 "e.g. a jax.debug.print, is not part of the program)")
        return [TOKEN for _ in op.result_types]

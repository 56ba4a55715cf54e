"""Which XLA backend compiled an HLO module, from evidence in its text, and what that
backend does with collectives (the hints on compiled modules, rules/xla_comm.py,
name its flags).

A compiled module does not name its platform. What it holds says it:

* XLA:GPU turns every collective into an async pair (`RunAsyncCollectivesConversionPasses`
  in xla/service/gpu/gpu_hlo_schedule.cc: AsyncCollectiveCreator converts all-reduce,
  all-gather, collective-permute to `*-start` / `*-done`, reduce-scatter, all-to-all,
  collective-broadcast, ragged-all-to-all to `async-start` / `async-done`), writes a
  GPU backend config on them (`operation_queue_id`, `collective_backend_config`) and
  on its fusions (`fusion_backend_config`), and calls cuBLAS / cuDNN / Triton;
* XLA:CPU has no async collective at all (measured: corpus/hlo/README.md, every
  `async_start` of JAX became the synchronous collective), writes its own fusion
  config (`fusion_config`, `outer_dimension_partitions`, YNNPACK's `__ynn_fusion`),
  calls its host callbacks `xla_ffi_python_cpu_callback` and oneDNN's `__onednn$`,
  marks small calls `xla_cpu_small_call`;
* an `--xla_dump_to` file says it in its name (`...cpu_after_optimizations.txt`,
  `...gpu_after_optimizations.txt`);
* failing all of these, a scheduled module whose collectives are all synchronous is
  XLA:CPU's: XLA:GPU leaves none synchronous (one it runs synchronously is still a
  start/done pair, marked `"is_sync":true`).

`backend_of` returns the first such evidence (a few substring searches of the
text); a module holding both kinds, or neither, is "unknown", and the hints that
depend on the backend stay silent.

What each backend's combiners do (`COMBINERS`): XLA:GPU runs the all-gather,
all-reduce and reduce-scatter combiners with `--xla_gpu_*_combine_threshold_bytes`
(default kDefault*CombineThreshold = 30 MiB + 7 bytes, xla/service/collective_utils.h;
when the flag is left at its default, GpuAllReduceCombiner first combines pipelined
and synchronous collectives up to a threshold suggested from the device's memory)
and a count of 256 (gpu_compiler.cc `combine_threshold_count`); it combines
all-gathers of different element types and, unless
`--xla_gpu_enable_all_gather_combine_by_dim` / `..._reduce_scatter_combine_by_dim`
are set, across dimensions. XLA:CPU runs only CpuAllReduceCombiner, with no byte
limit (`std::numeric_limits<int64_t>::max()`) and a count of 256, and no flag
(xla/service/cpu/cpu_compiler.cc).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Module
from ..source.text import Span
from .combining import Keying

GPU, CPU = "gpu", "cpu"

_GPU_MARKS = (
    ("all-reduce-start(", "an `all-reduce-start` (XLA:GPU makes collectives async; XLA:CPU never does)"),
    ("all-gather-start(", "an `all-gather-start` (XLA:GPU makes collectives async; XLA:CPU never does)"),
    ("collective-permute-start(", "a `collective-permute-start` (XLA:GPU makes collectives async; XLA:CPU never does)"),
    ("async-start(", "an `async-start` (XLA:GPU makes collectives async; XLA:CPU never does)"),
    ('"collective_backend_config"', "a GPU backend config (`collective_backend_config`)"),
    ('"operation_queue_id"', "a GPU backend config (`operation_queue_id`)"),
    ('"fusion_backend_config"', "a GPU fusion config (`fusion_backend_config`)"),
    ("__cublas", "a cuBLAS call"),
    ("__cudnn", "a cuDNN call"),
    ("__triton", "a Triton kernel"),
)
_CPU_MARKS = (
    ('"outer_dimension_partitions"', "an XLA:CPU fusion config (`outer_dimension_partitions`)"),
    ('"fusion_config"', "an XLA:CPU fusion config (`fusion_config`)"),
    ("__ynn_fusion", "an XLA:CPU YNNPACK fusion"),
    ("xla_ffi_python_cpu_callback", "an XLA:CPU host callback"),
    ("__onednn$", "a oneDNN call (XLA:CPU)"),
    ("xla_cpu_small_call", "an XLA:CPU call attribute (`xla_cpu_small_call`)"),
)


_SYNC_COLLECTIVES = tuple((f" {opcode}(", "") for opcode in (
    "all-reduce", "all-gather", "reduce-scatter", "all-to-all", "collective-permute", "collective-broadcast",
    "ragged-all-to-all"))
"""Synchronous collectives as a scheduled module writes them: on XLA:GPU there are none (every
collective became a start/done pair, a synchronous one marked `is_sync`)."""


@dataclass(frozen=True)
class Backend:
    """The backend a module was compiled for, and what says so."""

    name: str | None
    """"gpu", "cpu", or None (unknown: no evidence, or evidence of both)."""
    evidence: str = ""
    """What in the module says so, in words."""
    span: Span | None = None
    """Where (None: the file's name)."""

    @property
    def label(self) -> str:
        return {GPU: "XLA:GPU", CPU: "XLA:CPU"}.get(self.name or "", "an unknown backend")


@dataclass(frozen=True)
class Combiner:
    """One backend's combiner for one kind of collective."""

    threshold_bytes: int | None
    """The default byte threshold (None: no limit)."""
    threshold_count: int
    flag: str | None
    """The flag that sets the byte threshold (None: none does)."""
    keying: Keying
    pass_name: str


_GPU_DEFAULT = 30 * 1024 * 1024 + 7
COMBINERS: dict[str, dict[str, Combiner | None]] = {
    GPU: {
        "all_reduce": Combiner(_GPU_DEFAULT, 256, "--xla_gpu_all_reduce_combine_threshold_bytes", Keying(),
                               "AllReduceCombiner"),
        "all_gather": Combiner(_GPU_DEFAULT, 256, "--xla_gpu_all_gather_combine_threshold_bytes",
                               Keying(by_dim=False, by_dtype=False), "AllGatherCombiner"),
        "reduce_scatter": Combiner(_GPU_DEFAULT, 256, "--xla_gpu_reduce_scatter_combine_threshold_bytes",
                                   Keying(by_dim=False), "ReduceScatterCombiner"),
    },
    CPU: {
        "all_reduce": Combiner(None, 256, None, Keying(), "CpuAllReduceCombiner"),
        "all_gather": None,
        "reduce_scatter": None,
    },
}
"""backend → kind → its combiner (None: the backend has none for that kind)."""

ASYNC_KINDS = {
    GPU: frozenset({"all_reduce", "all_gather", "collective_permute", "reduce_scatter", "all_to_all",
                    "collective_broadcast", "ragged_all_to_all"}),
    CPU: frozenset(),
}
"""backend → the kinds it runs as async pairs (its `--xla_gpu_disable_async_collectives` names them)."""

DISABLE_ASYNC_NAMES = {"all_reduce": "ALLREDUCE", "all_gather": "ALLGATHER", "collective_permute": "COLLECTIVEPERMUTE",
                       "reduce_scatter": "REDUCESCATTER", "all_to_all": "ALLTOALL",
                       "collective_broadcast": "COLLECTIVEBROADCAST", "ragged_all_to_all": "RAGGEDALLTOALL"}
"""The `--xla_gpu_disable_async_collectives` value of each kind (DebugOptions::CollectiveOpType)."""


def backend_of(module: Module) -> Backend:
    """The backend an HLO module was compiled for, from its text (see the module
    docstring); unknown for StableHLO (JAX lowers it for any platform)."""
    if module.front_end != "hlo":
        return Backend(None)
    text = module.source.text
    path = module.source.path
    gpu = _first(text, _GPU_MARKS)
    cpu = _first(text, _CPU_MARKS)
    if "gpu_after_optimizations" in path and cpu is None:
        return Backend(GPU, "the file name (`gpu_after_optimizations`)")
    if "cpu_after_optimizations" in path and gpu is None:
        return Backend(CPU, "the file name (`cpu_after_optimizations`)")
    if gpu is not None and cpu is not None:
        return Backend(None)
    if gpu is None and cpu is None:
        sync = _first(text, _SYNC_COLLECTIVES) if module.schedule_fixed else None
        if sync is None:
            return Backend(None)
        return Backend(CPU, f"a synchronous {text[sync[0] + 1:text.index('(', sync[0])]} in a scheduled module "
                            "(XLA:GPU makes every collective an async pair; XLA:CPU none)", Span(sync[0] + 1, sync[0] + 2))
    name, (at, words) = (GPU, gpu) if gpu is not None else (CPU, cpu)  # type: ignore[misc]
    return Backend(name, words, Span(at, at + 1))


def _first(text: str, marks) -> tuple[int, str] | None:
    best: tuple[int, str] | None = None
    for needle, words in marks:
        at = text.find(needle, 0, best[0] if best is not None else len(text))
        if at >= 0 and (best is None or at < best[0]):
            best = (at, words)
    return best


__all__ = ["ASYNC_KINDS", "Backend", "COMBINERS", "CPU", "Combiner", "DISABLE_ASYNC_NAMES", "GPU", "backend_of"]

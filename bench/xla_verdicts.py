"""What XLA says about the cases where the StableHLO spec and verifier disagree.

    python bench/xla_verdicts.py

Compiles small programs (written here) with jaxlib's PJRT CPU client, 8 host
devices, and prints COMPILES or REJECTED with XLA's first line. These are the
measurements behind the "XLA" column of docs/conformance.md (severity policy).
Needs the `jax` extra. It is a probe, not a test: XLA's messages change between
releases.
"""
from __future__ import annotations

import os

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402

ADD = """({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    })"""


def gather(rows: int, extra: str = "", p: int = 1, r: int = 4) -> tuple[str, int, int]:
    return (f'''module @m attributes {{mhlo.num_partitions = {p} : i32, mhlo.num_replicas = {r} : i32}} {{
  func.func @main(%x: tensor<2x4xf32>) -> tensor<{rows}x4xf32> {{
    %0 = "stablehlo.all_gather"(%x) {{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>{extra}}} : (tensor<2x4xf32>) -> tensor<{rows}x4xf32>
    return %0 : tensor<{rows}x4xf32>
  }}
}}''', p, r)


def scatter(rows: int) -> tuple[str, int, int]:
    return (f'''module @m attributes {{mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32}} {{
  func.func @main(%x: tensor<8x4xf32>) -> tensor<{rows}x4xf32> {{
    %0 = "stablehlo.reduce_scatter"(%x) {ADD} {{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}} : (tensor<8x4xf32>) -> tensor<{rows}x4xf32>
    return %0 : tensor<{rows}x4xf32>
  }}
}}''', 1, 4)


CH = ", channel_handle = #stablehlo.channel_handle<handle = {h}, type = 1>"
CASES = {
    "all_gather C6, x group size (control)": gather(8),
    "all_gather C6, a multiple but not x group size": gather(4),
    "reduce_scatter C8, / group size (control)": scatter(2),
    "reduce_scatter C8, divides but not / group size": scatter(4),
    "all_gather C5, use_global_device_ids, channel 1 (control)": gather(8, CH.format(h=1) + ", use_global_device_ids",
                                                                      p=4, r=1),
    "all_gather C5, use_global_device_ids, no channel": gather(8, ", use_global_device_ids", p=4, r=1),
    "all_gather C5, use_global_device_ids, channel 0": gather(8, CH.format(h=0) + ", use_global_device_ids",
                                                               p=4, r=1),
}


def main() -> int:
    import jax
    from jax._src import compiler
    from jax._src.interpreters import mlir
    from jax._src.lib import xla_client as xc
    from jax._src.lib.mlir import ir

    backend = jax.devices()[0].client
    for name, (text, p, r) in CASES.items():
        opts = xc.CompileOptions()
        opts.executable_build_options.num_replicas = r
        opts.executable_build_options.num_partitions = p
        opts.executable_build_options.use_spmd_partitioning = p > 1
        devs = jax.devices()[: r * p]
        opts.device_assignment = xc.DeviceAssignment.create(np.array([d.id for d in devs]).reshape(r, p))
        try:
            module = ir.Module.parse(text, context=mlir.make_ir_context())
            compiler.backend_compile_and_load(backend, module, xc.DeviceList(tuple(devs)), opts, [])
            print(f"COMPILES  {name}")
        except Exception as e:  # noqa: BLE001 - a probe reports
            print(f"REJECTED  {name}: {str(e).splitlines()[0][:200]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

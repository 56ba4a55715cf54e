"""How the reference interpreter scales with the number of processes.

    python bench/execute_scale.py            # N = 8, 64, 512, 4096
    python bench/execute_scale.py --xla      # also time XLA:CPU on corpus/real (subprocess each)

For a send/recv pipeline loop, a collective_permute pipeline loop and a psum
under a branch on the partition id (a deadlock at every N), prints seconds and
t(N)/t(64): the interpreter does O(ops x processes) work, so the ratio should
stay near N/64.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shlo_lint import parse  # noqa: E402
from shlo_lint.checker.execute.run import RunOptions, run_module, run_path  # noqa: E402


def pairs(n: int) -> str:
    return ", ".join(f"[{i}, {i + 1}]" for i in range(n - 1))


def sendrecv(n: int) -> str:
    p = pairs(n)
    return f"""module @m attributes {{mhlo.num_partitions = {n} : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32>
    cond {{
      %k = stablehlo.constant dense<4> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %t = stablehlo.create_token : !stablehlo.token
      %s = "stablehlo.send"(%h, %t) <{{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[{p}]> : tensor<{n - 1}x2xi64>}}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
      %v:2 = "stablehlo.recv"(%s) <{{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[{p}]> : tensor<{n - 1}x2xi64>}}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
      %y = stablehlo.tanh %v#0 : tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %y : tensor<i32>, tensor<4xf32>
    }}
    return %r#1 : tensor<4xf32>
  }}
}}
"""


def permute(n: int) -> str:
    body = sendrecv(n)
    start = body.index("      %t = stablehlo.create_token")
    end = body.index("      %y = stablehlo.tanh")
    perm = (f'      %v0 = "stablehlo.collective_permute"(%h) <{{channel_handle = #stablehlo.channel_handle<handle = 1, '
            f'type = 1>, source_target_pairs = dense<[{pairs(n)}]> : tensor<{n - 1}x2xi64>}}> : (tensor<4xf32>) -> '
            f'tensor<4xf32>\n')
    return body[:start] + perm + body[end:].replace("%v#0", "%v0")


def branch_psum(n: int) -> str:
    return f"""module @m attributes {{mhlo.num_partitions = {n} : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
    %p = stablehlo.partition_id : tensor<ui32>
    %c = stablehlo.constant dense<{n // 2}> : tensor<ui32>
    %lt = stablehlo.compare LT, %p, %c, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %r = "stablehlo.if"(%lt) ({{
      %s = "stablehlo.all_reduce"(%x) <{{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[{", ".join(map(str, range(n)))}]]> : tensor<1x{n}xi64>, use_global_device_ids}}> ({{
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      }}) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }}, {{
      stablehlo.return %x : tensor<4xf32>
    }}) : (tensor<i1>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }}
}}
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="8,64,512,4096")
    ap.add_argument("--xla", action="store_true", help="also time XLA:CPU on corpus/real")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for name, make, expect in (("send/recv pipeline loop", sendrecv, "completed"),
                               ("collective_permute pipeline loop", permute, "completed"),
                               ("psum under a branch on partition_id", branch_psum, "deadlock")):
        base = None
        print(f"{name}:")
        for n in sizes:
            module = parse(make(n), f"{name}-{n}.mlir")
            t0 = time.perf_counter()
            r = run_module(module, RunOptions(time_limit_s=600)).primary
            dt = time.perf_counter() - t0
            assert r.outcome == expect, (name, n, r.outcome, r.message)
            if n == 64:
                base = dt
            ratio = f"  t/t(64) = {dt / base:6.1f}  (N/64 = {n / 64:g})" if base and n >= 64 else ""
            print(f"  N = {n:5d}: {dt:7.3f} s  {r.outcome}{ratio}")
    if args.xla:
        print("corpus/real, interpreter vs XLA:CPU (XLA includes starting its subprocess and compiling):")
        for path in sorted((ROOT / "corpus" / "real").glob("*.mlir")):
            rep = run_path(str(path), RunOptions(engine="both", xla_stuck_warn_s=1, xla_stuck_terminate_s=2))
            i, x = rep.reports["interp"], rep.reports["xla"]
            print(f"  {path.name:48s} interp {i.outcome:9s} {i.elapsed_s:6.3f} s   xla {x.outcome:11s} "
                  f"{x.elapsed_s:6.2f} s   {rep.cross_check['status']}")


if __name__ == "__main__":
    main()

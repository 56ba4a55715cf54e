"""Write the big-grid deadlock cases (1,024 and more processes) into corpus/deadlock/.

    python corpus/deadlock/generate_grids.py            # (re)write them
    python corpus/deadlock/generate_grids.py --check    # exit 1 if a file is stale

The same builders make the programs bench/deadlock_scale.py times (any N).
Each program is written the way JAX prints shard_map code: a module carrying
mhlo.num_partitions / mhlo.num_replicas, channel 1 everywhere, `axis_index` as
partition_id → divide → remainder → convert.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _pairs(pairs: list[tuple[int, int]]) -> str:
    body = ", ".join(f"[{s}, {t}]" for s, t in pairs)
    return f"dense<[{body}]> : tensor<{len(pairs)}x2xi64>"


def ring(n: int) -> list[tuple[int, int]]:
    return [(i, (i + 1) % n) for i in range(n)]


def chain(n: int) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(n - 1)]


_CH = "#stablehlo.channel_handle<handle = 1, type = 1>"
_ADD = """({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %t = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %t : tensor<f32>
      })"""


def _module(name: str, n: int, body: str, replicas: int = 1, extra: str = "") -> str:
    return (f"module @{name} attributes {{mhlo.num_partitions = {n} : i32, mhlo.num_replicas = {replicas} : i32}} {{\n"
            f"  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n{body}  }}\n{extra}}}\n")


def sendrecv(n: int, *, recv_first: bool, pairs: list[tuple[int, int]] | None = None, name: str = "sendrecv") -> str:
    """One send and one recv per process on `pairs` (default: the ring)."""
    pairs = pairs if pairs is not None else ring(n)
    p = _pairs(pairs)
    send = (f'    %s = "stablehlo.send"(%x, %TOK) <{{channel_handle = {_CH}, source_target_pairs = {p}}}> : '
            f'(tensor<4xf32>, !stablehlo.token) -> !stablehlo.token\n')
    recv = (f'    %r:2 = "stablehlo.recv"(%TOK) <{{channel_handle = {_CH}, source_target_pairs = {p}}}> : '
            f'(!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)\n')
    body = "    %t = stablehlo.create_token : !stablehlo.token\n"
    if recv_first:
        body += recv.replace("TOK", "t") + send.replace("TOK", "r#1")
    else:
        body += send.replace("TOK", "t") + recv.replace("TOK", "s")
    body += "    return %r#0 : tensor<4xf32>\n"
    return _module(name, n, body)


def _loop(n: int, trips: int, call: str, extra: str, name: str) -> str:
    body = f"""    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32>
    cond {{
      %n = stablehlo.constant dense<{trips}> : tensor<i32>
      %lt = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %y = func.call @{call}(%h) : (tensor<4xf32>) -> tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %y : tensor<i32>, tensor<4xf32>
    }}
    return %r#1 : tensor<4xf32>
"""
    return _module(name, n, body, extra=extra)


def permute_loop(n: int, trips: int = 4, pairs: list[tuple[int, int]] | None = None,
                 name: str = "permute_pipeline") -> str:
    """lax.fori_loop with a ppermute in the body (JAX's @closed_call)."""
    p = _pairs(pairs if pairs is not None else chain(n))
    extra = f"""  func.func private @closed_call(%h: tensor<4xf32>) -> tensor<4xf32> {{
    %a = stablehlo.tanh %h : tensor<4xf32>
    %p = "stablehlo.collective_permute"(%a) <{{channel_handle = {_CH}, source_target_pairs = {p}}}> : (tensor<4xf32>) -> tensor<4xf32>
    return %p : tensor<4xf32>
  }}
"""
    return _loop(n, trips, "closed_call", extra, name)


def sendrecv_loop(n: int, trips: int = 4, pairs: list[tuple[int, int]] | None = None,
                  name: str = "sendrecv_pipeline") -> str:
    """A loop whose body sends to the next stage and receives from the previous one."""
    p = _pairs(pairs if pairs is not None else chain(n))
    extra = f"""  func.func private @stage(%h: tensor<4xf32>) -> tensor<4xf32> {{
    %a = stablehlo.tanh %h : tensor<4xf32>
    %t = stablehlo.create_token : !stablehlo.token
    %s = "stablehlo.send"(%a, %t) <{{channel_handle = {_CH}, source_target_pairs = {p}}}> : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token
    %r:2 = "stablehlo.recv"(%s) <{{channel_handle = {_CH}, source_target_pairs = {p}}}> : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)
    return %r#0 : tensor<4xf32>
  }}
"""
    return _loop(n, trips, "stage", extra, name)


def branch_psum(n: int, below: int, groups: list[list[int]], replicas: int = 1, on: str = "partition_id",
                name: str = "branch_psum") -> str:
    """`if <axis index> < below` around an all_reduce over `groups` (flattened ids)."""
    width = max(len(g) for g in groups)
    rows = ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups)
    body = f"""    %c = stablehlo.constant dense<1> : tensor<ui32>
    %0 = stablehlo.{on} : tensor<ui32>
    %1 = stablehlo.divide %0, %c : tensor<ui32>
    %2 = stablehlo.convert %1 : (tensor<ui32>) -> tensor<i32>
    %k = stablehlo.constant dense<{below}> : tensor<i32>
    %in = stablehlo.compare LT, %2, %k, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %r = "stablehlo.if"(%in) ({{
      %s = "stablehlo.all_reduce"(%x) <{{channel_handle = {_CH}, replica_groups = dense<[{rows}]> : tensor<{len(groups)}x{width}xi64>, use_global_device_ids}}> {_ADD} : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %s : tensor<4xf32>
    }}, {{
      stablehlo.return %x : tensor<4xf32>
    }}) : (tensor<i1>) -> tensor<4xf32>
    return %r : tensor<4xf32>
"""
    return _module(name, n, body, replicas=replicas)


def all_distinct(n: int, group: int = 1, name: str = "all_distinct") -> str:
    """Every process differs: a loop whose trip count is the partition id, around an
    all_reduce over groups of `group` consecutive processes (1: singleton groups,
    deadlock-free; 2: pairs whose members run different trip counts, a deadlock).
    n processes, n process classes, n*(n-1)/2 collective executions."""
    rows = ", ".join("[" + ", ".join(str(i + k) for k in range(group)) + "]" for i in range(0, n, group))
    body = f"""    %0 = stablehlo.partition_id : tensor<ui32>
    %trips = stablehlo.convert %0 : (tensor<ui32>) -> tensor<i32>
    %zero = stablehlo.constant dense<0> : tensor<i32>
    %r:2 = stablehlo.while(%i = %zero, %h = %x) : tensor<i32>, tensor<4xf32>
    cond {{
      %lt = stablehlo.compare LT, %i, %trips, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }} do {{
      %s = "stablehlo.all_reduce"(%h) <{{channel_handle = {_CH}, replica_groups = dense<[{rows}]> : tensor<{n // group}x{group}xi64>, use_global_device_ids}}> {_ADD} : (tensor<4xf32>) -> tensor<4xf32>
      %one = stablehlo.constant dense<1> : tensor<i32>
      %i1 = stablehlo.add %i, %one : tensor<i32>
      stablehlo.return %i1, %s : tensor<i32>, tensor<4xf32>
    }}
    return %r#1 : tensor<4xf32>
"""
    return _module(name, n, body)


def corpus_files() -> dict[str, tuple[str, str | None]]:
    """file name → (program, .expect text or None for a deadlock-free program)."""
    head = "// Generated by corpus/deadlock/generate_grids.py; do not edit.\n"
    return {
        "grid_1024_ring_recv_first.mlir": (
            head + "// 1,024 partitions receive before they send around a ring: a cycle of 1,024.\n"
            + sendrecv(1024, recv_first=True, name="ring_recv_first"),
            "SHLO500 6 | 1024 processes wait for each other in a cycle\n"),
        "grid_1024_ring_send_first.mlir": (
            head + "// The same ring sending first: deadlock-free.\n"
            + sendrecv(1024, recv_first=False, name="ring_send_first"), None),
        "grid_4096_permute_pipeline.mlir": (
            head + "// A 4,096-stage fori_loop pipeline with a collective_permute per iteration: deadlock-free.\n"
            + permute_loop(4096, trips=4), None),
        "grid_4096_sendrecv_pipeline.mlir": (
            head + "// A 4,096-stage pipeline loop with send/recv per iteration: deadlock-free.\n"
            + sendrecv_loop(4096, trips=4), None),
        "grid_2048_branch_half_psum.mlir": (
            head + "// 2,048 partitions; only the first 1,024 enter the all_reduce over all of them.\n"
            + branch_psum(2048, 1024, [list(range(2048))], name="half_psum"),
            "SHLO501 12 | deadlock: processes (0, 0)\u2013(0, 1023) hang at this all_reduce; (0, 1024)\u2013(0, 2047) "
            "finish without reaching it\n"),
        "grid_2x1024_branch_whole_replica.mlir": (
            head + "// 2 replicas x 1,024 partitions; replica 0 (a whole all_reduce group) takes the branch,\n"
                   "// replica 1 (the other group) does not: deadlock-free.\n"
            + branch_psum(1024, 1, [list(range(1024)), list(range(1024, 2048))], replicas=2, on="replica_id",
                          name="whole_replica"), None),
    }


def main(argv: list[str]) -> int:
    stale = []
    for name, (text, expect) in corpus_files().items():
        files = [(HERE / name, text)]
        if expect is not None:
            files.append((HERE / name.replace(".mlir", ".expect"), expect))
        for path, content in files:
            if "--check" in argv:
                if not path.exists() or path.read_text() != content:
                    stale.append(path.name)
            else:
                path.write_text(content)
    if stale:
        print("stale: " + ", ".join(stale) + " (run python corpus/deadlock/generate_grids.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

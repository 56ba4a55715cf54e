#!/usr/bin/env python
"""How fast shlo-lint reads a big compiled HLO module, next to jaxlib's own parser, and how fast
it decides a 16,384-device one (a benchmark, not a test).

    python bench/hlo_read.py [--mb 32] [--repeat 3] [--keep] [--devices 16384] [--collectives 200]
                             [--only read|devices]

Part 1, reading (`--only read`):

1. Compiles a small sharded transformer training step (2 layers, a 2x4 mesh, 8 XLA:CPU
   devices) and takes `compile().as_text()`: the scheduled module XLA runs, with its
   all-reduces, all-gathers, iota and mesh-axes replica groups, fusions, stack-frame tables.
2. Builds a module of at least --mb MB from it: every computation copied K times under new
   names (`%name.rK`; each copy's metadata names its copy, so no two copies share it), and a
   new ENTRY that calls every copy's entry computation. XLA:CPU cannot compile a step of that
   size in minutes (issue 22: 300 blocks took 124 s for 8.7 MB), so it is built, not compiled.
3. Checks jaxlib accepts it (`hlo_module_from_text`), then times, best of --repeat rounds
   taken in turns, in this process: jaxlib's parse; ours, structure only (`read_hlo`: every
   computation and instruction found, name, shape text, opcode); ours with every header,
   signature and instruction body (operands, typed attributes) read (`parse_all`). Prints wall
   and CPU seconds; the ratios are of CPU seconds (each reader runs on one thread, and on a
   shared machine other processes stretch wall time).
4. Times `shlo-lint` on it (the engine's lint_source: the HLO lowered into the IR, every rule,
   the deadlock analysis), against the same baselines.

The module is written to bench/out/ (git-ignored), kept with --keep.

Part 2, a 16,384-device module (`--only devices`): generated (devices_module), scheduled, with
--collectives all-reduces, all-gathers and reduce-scatters over iota groups (contiguous halves
`[2,8192]<=[16384]` and blocks of 128 `[128,128]<=[16384]`) inside a conditional on
`partition-id() < limit`, after a strided all-reduce every device runs
(`[128,128]<=[128,128]T(1,0)`). Clean when the limit is 8,192 (every group on one side of it);
deadlocking when it is 4,160 (the first half-group split: 4,160 devices wait in the branch for
the 4,032 that skip it). Prints the verdict and the seconds `shlo-lint` takes on each, every
rule included (wall and CPU).
"""
from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import time
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from shlo_lint.checker.frontend.hlo import read_hlo  # noqa: E402

OUT = ROOT / "bench" / "out"


def jaxlib_parser():
    """jaxlib's HLO text parser, wherever this jaxlib keeps it; None when it has none."""
    try:
        from jax._src.lib import xla_client as xc
    except ImportError:
        return None
    for owner in (getattr(xc, "hlo", None), getattr(xc, "_xla", None)):
        fn = getattr(owner, "hlo_module_from_text", None)
        if fn is not None:
            return fn
    return None


def compiled_step() -> str:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("data", "model"))
    layers, d, f = 2, 64, 256

    def layer(p, x):
        q = x @ p["wq"]
        att = jax.nn.softmax(jnp.einsum("bsd,btd->bst", q, x) / 8.0, axis=-1)
        x = x + jnp.einsum("bst,btd->bsd", att, q) @ p["wo"]
        return x + jax.nn.gelu(x @ p["w1"]) @ p["w2"]

    def loss(params, x, y):
        for p in params:
            x = layer(p, x)
        return jnp.mean((x - y) ** 2)

    def step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return jax.tree.map(lambda a, g: a - 0.01 * g, params, grads), value

    keys = jax.random.split(jax.random.key(0), 4 * layers)
    params = [dict(wq=jax.random.normal(keys[4 * i], (d, d)), wo=jax.random.normal(keys[4 * i + 1], (d, d)),
                   w1=jax.random.normal(keys[4 * i + 2], (d, f)), w2=jax.random.normal(keys[4 * i + 3], (f, d)))
              for i in range(layers)]
    spec = dict(wq=P(None, "model"), wo=P("model", None), w1=P(None, "model"), w2=P("model", None))
    pshard = [{k: NamedSharding(mesh, s) for k, s in spec.items()} for _ in range(layers)]
    xshard = NamedSharding(mesh, P("data"))
    fn = jax.jit(step, in_shardings=(pshard, xshard, xshard), out_shardings=(pshard, NamedSharding(mesh, P())))
    x = jnp.ones((8, 16, d))
    return fn.lower(params, x, x).compile().as_text()


_NAME = re.compile(r"%([A-Za-z_][\w.\-]*)")
_OP_NAME = re.compile(r'op_name="')
_ENTRY = re.compile(r"^ENTRY (%\S+) (\(.*\)) -> (.*) \{$", re.M)


def replicate(text: str, mb: float) -> str:
    """`text` grown to `mb` MB: its computations copied under new names, one ENTRY calling
    every copy's entry computation with the entry's parameters."""
    first = re.search(r"^(?:ENTRY )?%\S+ \(", text, re.M).start()
    head, comps = text[:first], text[first:]
    entry = _ENTRY.search(comps)
    entry_name, signature, result = entry.groups()
    entry_body = comps[entry.end():comps.index("\n}", entry.end())]
    params = [line.replace("ROOT ", "") for line in entry_body.splitlines() if " parameter(" in line]
    param_names = [_NAME.search(line).group(1) for line in params]
    plain = comps.replace("ENTRY ", "", 1)
    copies = max(1, int(mb * 1e6 / len(plain)) + 1)
    out = [head]
    for k in range(copies):
        copy = _NAME.sub(lambda m: f"%{m.group(1)}.r{k}", plain)
        out.append(_OP_NAME.sub(f'op_name="copy{k}/', copy))
    calls = [f"  {'ROOT ' if k == copies - 1 else ''}%call.r{k} = {result} call("
             + ", ".join("%" + p for p in param_names) + f"), to_apply=%{entry_name[1:]}.r{k}"
             for k in range(copies)]
    out.append("\n".join([f"ENTRY %main.big {signature} -> {result} {{", *params, *calls, "}"]) + "\n")
    return "".join(out)


def lint(text: str, path: str) -> None:
    """shlo-lint on the module, as the command line lints one file (no finding expected)."""
    from shlo_lint.checker.lint.config import Config
    from shlo_lint.checker.lint.engine import lint_released
    from shlo_lint.checker.source.text import SourceFile

    result = lint_released(SourceFile(path, text), Config())
    assert not result.diagnostics, [d.message for d in result.diagnostics[:3]]


def devices_module(devices: int, collectives: int, limit: int) -> str:
    """The scheduled module of part 2 (see the docstring): `collectives` collectives over iota
    groups in a branch taken by the devices whose partition id is below `limit`."""
    n = devices
    spellings = [(f"[2,{n // 2}]<=[{n}]", n // 2), (f"[{n // 128},128]<=[{n}]", 128)]
    lines, x = [], "%x0"
    for k in range(collectives):
        groups, size = spellings[k % 2]
        if k % 3 == 0:
            lines.append(f"  %c{k} = f32[128]{{0}} all-reduce({x}), channel_id={k + 1}, replica_groups={groups}, "
                         f"use_global_device_ids=true, to_apply=%sum")
        elif k % 3 == 1:
            lines.append(f"  %g{k} = f32[{128 * size}]{{0}} all-gather({x}), channel_id={k + 1}, "
                         f"replica_groups={groups}, dimensions={{0}}, use_global_device_ids=true")
            lines.append(f"  %c{k} = f32[128]{{0}} slice(%g{k}), slice={{[0:128]}}")
        else:
            lines.append(f"  %w{k} = f32[{128 * size}]{{0}} pad({x}, %zero), padding=0_{128 * size - 128}")
            lines.append(f"  %c{k} = f32[128]{{0}} reduce-scatter(%w{k}), channel_id={k + 1}, replica_groups={groups}, "
                         f"use_global_device_ids=true, dimensions={{0}}, to_apply=%sum")
        x = f"%c{k}"
    body = "\n".join(lines)
    return f"""HloModule devices_{n}, is_scheduled=true, num_partitions={n}

%sum (a: f32[], b: f32[]) -> f32[] {{
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}}

%branch (x0: f32[128]) -> f32[128] {{
  %x0 = f32[128]{{0}} parameter(0)
  %zero = f32[] constant(0)
{body}
  ROOT %out = f32[128]{{0}} copy({x})
}}

%skip (y: f32[128]) -> f32[128] {{
  %y = f32[128]{{0}} parameter(0)
  ROOT %neg = f32[128]{{0}} negate(%y)
}}

ENTRY %main (p: f32[128]) -> f32[128] {{
  %p = f32[128]{{0}} parameter(0)
  %strided = f32[128]{{0}} all-reduce(%p), channel_id={collectives + 1}, replica_groups=[128,{n // 128}]<=[{n // 128},128]T(1,0), use_global_device_ids=true, to_apply=%sum
  %pid = u32[] partition-id()
  %limit = u32[] constant({limit})
  %low = pred[] compare(%pid, %limit), direction=LT
  ROOT %r = f32[128]{{0}} conditional(%low, %strided, %strided), true_computation=%branch, false_computation=%skip
}}
"""


def devices_verdicts(devices: int, collectives: int) -> None:
    """Part 2: the verdict and the time on the clean and the deadlocking module."""
    from shlo_lint import lint_text

    print(f"\n{devices:,}-device modules, {collectives} collectives over iota groups in a branch on the partition id:")
    for name, limit in (("clean", devices // 2), ("deadlocking", devices // 4 + 64)):
        text = devices_module(devices, collectives, limit)
        gc.collect()
        w0, c0 = time.perf_counter(), time.process_time()
        diags = lint_text(text, f"{name}.hlo")
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        verdict = "; ".join(f"{d.code} {d.message}" for d in diags[:2]) or "clean (no finding)"
        print(f"  {name:<12} partition-id < {limit:<6,} {len(text) / 1e3:6.0f} kB  {wall:5.2f} s wall "
              f"{cpu:5.2f} s CPU  {verdict}")


def best_of(readers: dict, repeat: int) -> dict[str, tuple[float, float]]:
    """Each reader's best (wall, CPU) seconds over `repeat` rounds, the readers taking turns in
    each round. The ratios use CPU time: on a shared machine other processes' load lengthens
    wall time, not the time this process computes (all three readers run on one thread)."""
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in readers}
    for _ in range(repeat):
        for name, fn in readers.items():
            gc.collect()
            w0, c0 = time.perf_counter(), time.process_time()
            fn()
            times[name].append((time.perf_counter() - w0, time.process_time() - c0))
    return {name: (min(w for w, _ in ts), min(c for _, c in ts)) for name, ts in times.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=32.0, help="size of the module to build (default 32)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each reader; the best counts (default 3)")
    ap.add_argument("--keep", action="store_true", help="keep bench/out/big_step.hlo")
    ap.add_argument("--devices", type=int, default=16384, help="part 2's grid (default 16384)")
    ap.add_argument("--collectives", type=int, default=200, help="part 2's collectives in the branch (default 200)")
    ap.add_argument("--only", choices=("read", "devices"), default=None, help="run one part")
    args = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (this machine may be shared)")
    if args.only != "devices":
        read_ratios(args)
    if args.only != "read":
        devices_verdicts(args.devices, args.collectives)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def read_ratios(args) -> None:
    """Part 1 (see the docstring)."""
    t0 = time.perf_counter()
    step = compiled_step()
    text = replicate(step, args.mb)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "big_step.hlo"
    path.write_text(text, encoding="utf-8")
    size = len(text.encode()) / 1e6
    print(f"built {path.relative_to(ROOT)}: {size:.1f} MB, {text.count(chr(10)):,} lines "
          f"(from a {len(step) / 1e6:.2f} MB compiled step, {time.perf_counter() - t0:.1f} s)")

    parse = jaxlib_parser()
    if parse is None:
        print("jaxlib's HLO parser is not available here: our times only")
    else:
        parse(text)  # it accepts the module (raises if not)
        print("jaxlib accepts it")

    def ours_all():
        module = read_hlo(text, str(path))
        issues = module.parse_all()
        assert not issues, issues[:3]
        return module

    module = ours_all()
    n_instr = sum(len(c.instructions) for c in module.computations.values())
    print(f"{len(module.computations):,} computations, {n_instr:,} instructions, "
          f"{sum(1 for i in module.instructions() if i.opcode.startswith(('all-', 'reduce-scatter'))):,} collectives")
    del module
    readers = {}
    if parse is not None:
        readers["jaxlib hlo_module_from_text"] = lambda: parse(text)
    readers["ours, structure only"] = lambda: read_hlo(text, str(path))
    readers["ours, every attribute read"] = ours_all
    readers["shlo-lint, every rule"] = lambda: lint(text, str(path))
    best = best_of(readers, args.repeat)
    base = best.get("jaxlib hlo_module_from_text")
    print(f"  {'':<30} {'wall s':>7} {'CPU s':>7} {'MB/s':>6}")
    for label, (wall, cpu) in best.items():
        ratio = f"  {cpu / base[1]:.2f}x jaxlib's CPU time" if base is not None and label != "jaxlib hlo_module_from_text" \
            else ""
        print(f"  {label:<30} {wall:7.2f} {cpu:7.2f} {size / cpu:6.1f}{ratio}")
    if not args.keep:
        path.unlink()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Regenerate the compiled-HLO corpus (corpus/hlo/) and, with --run, its verdicts.

Needs the ``jax`` extra (``pip install -e .[jax]``); CPU-only JAX 0.10.2 is what the
committed files come from.

    python corpus/hlo_generate.py [--out corpus/hlo] [--only NAME ...] [--list]
                                  [--no-dumps] [--run] [--no-generate]
                                  [--timeout S] [--terminate S]

What it writes (corpus/hlo/README.md says more):

* ``<base>[.gspmd][.buggy_<what>].hlo`` — ``jax.jit(f).lower(*args).compile().as_text()``
  of the corpus/real programs (corpus/generate.py, corpus/patterns.py) and of the
  programs below (jit with shardings, control flow around collectives), on 8 XLA:CPU
  devices; ``.gspmd`` only where the legacy partitioner's module communicates
  differently from Shardy's. The programs new here also get their StableHLO
  (``lowered.as_text()``) beside them as ``<base>[.gspmd].mlir``.
* ``schedule/<base>[.buggy_deadlock].hlo`` — the StableHLO programs of corpus/deadlock
  whose verdict is SHLO505 (schedule-dependent) compiled by XLA:CPU: the schedule
  XLA chose decides.
* ``dumps/<program>/`` — the ``*before_optimizations.txt`` / ``*after_optimizations.txt``
  files ``XLA_FLAGS=--xla_dump_to=DIR`` writes for a few programs.
* ``VERDICTS.json`` (``--run``) — per file: what it is, what it holds, and what XLA:CPU
  did when the jitted program ran and when the HLO text itself ran (compile_hlo_text).

Every run happens in a subprocess of this script (``--worker``) under a watchdog: a
collective that never meets aborts the process (XLA:CPU's rendezvous termination
timeout) or hangs it, and the device count is fixed when jax starts.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DEVICES = 8

# generate.py sets the device count before importing jax; the workers' environment
# (worker_env) adds the rendezvous timeouts.
import generate  # noqa: E402  (corpus/generate.py, beside this script)
from generate import P, lax, jax, jnp, mesh1d, mesh2d, sds, shard_map  # noqa: E402

import numpy as np  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402

# The compiled modules' StackFrames tables keep the innermost frame of each traced
# call only (the builder's line, and generate.lower's for the jit around it): the
# callers here differ between the generator and its workers, and their line
# numbers move with every edit of this script.
jax.config.update("jax_traceback_in_locations_limit", 1)
# The builders come first and keep their lines: the committed modules' FileLocations
# point at them (as generate.py's debug-info exports point at its builders).


# --------------------------------------------------------------------------
# Programs written here: jit with shardings (the partitioner inserts every
# collective), and control flow around collectives. Each builder returns
# (function, example argument specs), as in generate.py.
# --------------------------------------------------------------------------

def _on(mesh, *specs):
    return tuple(NamedSharding(mesh, s) for s in specs)


def b_auto_tp_mlp():
    """Megatron MLP on a 2x4 mesh: batch over "x", W1 columns / W2 rows over "y";
    the partitioner all-reduces the second matmul's partial sums over "y"."""
    m = mesh2d()
    f = jax.jit(lambda x, w1, w2: jax.nn.gelu(x @ w1) @ w2,
                in_shardings=_on(m, P("x", None), P(None, "y"), P("y", None)),
                out_shardings=NamedSharding(m, P("x", None)))
    return f, (sds((8, 16)), sds((16, 32)), sds((32, 16)))


def b_auto_fsdp_step():
    """FSDP: both weights sharded over all 8 devices along their first axis, the
    batch too; one SGD step. Forward all-gathers the weights, backward reduces and
    re-shards the gradients."""
    m = mesh1d()
    shard = NamedSharding(m, P("x"))

    def loss(params, x, y):
        w1, w2 = params
        return jnp.mean((jnp.tanh(x @ w1) @ w2 - y) ** 2)

    def step(params, x, y):
        l, g = jax.value_and_grad(loss)(params, x, y)
        return l, jax.tree.map(lambda p, d: p - 0.1 * d, params, g)
    f = jax.jit(step, in_shardings=((shard, shard), shard, shard),
                out_shardings=(NamedSharding(m, P()), (shard, shard)))
    return f, ((sds((16, 32)), sds((32, 16))), sds((16, 16)), sds((16, 16)))


def b_auto_attention_heads():
    """Multi-head attention on a 2x4 mesh: batch over "x", heads over "y"; the
    output projection contracts over heads (an all-reduce over "y")."""
    m = mesh2d()
    B, S, E, H, D = 4, 8, 16, 4, 4

    def attn(x, wq, wk, wv, wo):
        q = jnp.einsum("bse,ehd->bshd", x, wq)
        k = jnp.einsum("bse,ehd->bshd", x, wk)
        v = jnp.einsum("bse,ehd->bshd", x, wv)
        q = lax.with_sharding_constraint(q, NamedSharding(m, P("x", None, "y", None)))
        s = jnp.einsum("bshd,bthd->bhst", q, k) / np.sqrt(D)
        o = jnp.einsum("bhst,bthd->bshd", jax.nn.softmax(s, axis=-1), v)
        return jnp.einsum("bshd,hde->bse", o, wo)
    heads = NamedSharding(m, P(None, "y", None))
    f = jax.jit(attn, in_shardings=(NamedSharding(m, P("x")), heads, heads, heads,
                                    NamedSharding(m, P("y", None, None))),
                out_shardings=NamedSharding(m, P("x")))
    return f, (sds((B, S, E)), sds((E, H, D)), sds((E, H, D)), sds((E, H, D)), sds((H, D, E)))


def b_auto_scan_layers():
    """Stacked layers (L, D, D) sharded over "x" on their output columns, applied
    with lax.scan; the activations are kept replicated, so each step all-gathers."""
    m = mesh1d()

    def f(ws, h):
        def layer(h, w):
            h = jnp.tanh(h @ w)
            return lax.with_sharding_constraint(h, NamedSharding(m, P())), None
        return lax.scan(layer, h, ws)[0]
    f = jax.jit(f, in_shardings=_on(m, P(None, None, "x"), P()),
                out_shardings=NamedSharding(m, P()))
    return f, (sds((3, 16, 16)), sds((4, 16)))


def b_auto_embedding_gather():
    """An embedding lookup with the table sharded over the vocabulary: each device
    gathers the rows it holds (a masked gather) and the partitioner sums them."""
    m = mesh1d()
    f = jax.jit(lambda table, ids: jnp.take(table, ids, axis=0),
                in_shardings=_on(m, P("x", None), P()),
                out_shardings=NamedSharding(m, P()))
    return f, (sds((64, 8)), sds((6,), jnp.int32))


def b_auto_dp_adam_step():
    """Data parallel: parameters replicated, batch over 8 devices; gradients
    all-reduced, then an Adam update (written out, no optax)."""
    m = mesh1d()
    rep, batch = NamedSharding(m, P()), NamedSharding(m, P("x"))

    def loss(w, x, y):
        return jnp.mean((jnp.tanh(x @ w) - y) ** 2)

    def step(w, mu, nu, x, y):
        g = jax.grad(loss)(w, x, y)
        mu = 0.9 * mu + 0.1 * g
        nu = 0.999 * nu + 0.001 * g * g
        return w - 1e-3 * mu / (jnp.sqrt(nu) + 1e-8), mu, nu
    f = jax.jit(step, in_shardings=(rep, rep, rep, batch, batch), out_shardings=(rep, rep, rep))
    return f, (sds((16, 16)), sds((16, 16)), sds((16, 16)), sds((32, 16)), sds((32, 16)))


def b_auto_reshard_all_to_all():
    """Resharding a matrix from rows to columns (with_sharding_constraint): the
    partitioner moves it with an all-to-all."""
    m = mesh1d()

    def f(x):
        y = lax.with_sharding_constraint(x * 2.0, NamedSharding(m, P(None, "x")))
        return jnp.tanh(y)
    f = jax.jit(f, in_shardings=NamedSharding(m, P("x", None)),
                out_shardings=NamedSharding(m, P(None, "x")))
    return f, (sds((16, 16)),)


def b_auto_halo_stencil():
    """A 1-D stencil x[i+1] - x[i-1] (jnp.roll) with the axis sharded: each device
    needs its neighbours' edge elements, which the partitioner fetches with
    collective-permutes."""
    m = mesh1d()
    f = jax.jit(lambda x: jnp.roll(x, 1, axis=0) - jnp.roll(x, -1, axis=0),
                in_shardings=NamedSharding(m, P("x")), out_shardings=NamedSharding(m, P("x")))
    return f, (sds((64, 4)),)


def b_fori_psum_ppermute():
    """A fori_loop of static trip count 4 with a psum and a ppermute in its body."""
    def body(x):
        def step(_, c):
            return lax.ppermute(lax.psum(c, "x") * 0.1, "x", generate.RING)
        return lax.fori_loop(0, 4, step, x)
    f = shard_map(body, mesh1d(), P("x"), P("x"))
    return f, (sds((16, 4)),)


def b_cond_collectives():
    """A cond on a replicated predicate (a psum) with different collectives in its
    branches: a psum in one, an all_gather and a ppermute in the other."""
    def body(x):
        def gather(v):
            g = lax.all_gather(v, "x", tiled=True)[: v.shape[0]]
            return lax.ppermute(g, "x", generate.RING)
        return lax.cond(lax.psum(x.sum(), "x") > 0, lambda v: lax.psum(v, "x"), gather, x)
    f = shard_map(body, mesh1d(), P("x"), P("x"), check_vma=False)
    return f, (sds((16, 4)),)


def b_auto_mesh3d_sum():
    """A sum over the middle axis of an array sharded over a 2x2x2 mesh: the
    partitioner gathers and reduces over sub-meshes (groups in iota and mesh form)."""
    m = jax.sharding.Mesh(np.array(jax.devices()[:8]).reshape(2, 2, 2), ("a", "b", "c"))
    f = jax.jit(lambda x: x.sum(1), in_shardings=NamedSharding(m, P("a", "b", "c")),
                out_shardings=NamedSharding(m, P("a", None)))
    return f, (sds((8, 8, 8)),)


# (name, builder, options) as in generate.py's PROGRAMS.
NEW_PROGRAMS = [
    ("auto_tp_mlp", b_auto_tp_mlp, {}),
    ("auto_fsdp_step", b_auto_fsdp_step, {}),
    ("auto_attention_heads", b_auto_attention_heads, {}),
    ("auto_scan_layers", b_auto_scan_layers, {}),
    ("auto_embedding_gather", b_auto_embedding_gather, {}),
    ("auto_dp_adam_step", b_auto_dp_adam_step, {}),
    ("auto_reshard_all_to_all", b_auto_reshard_all_to_all, {}),
    ("auto_halo_stencil", b_auto_halo_stencil, {}),
    ("fori_psum_ppermute", b_fori_psum_ppermute, {}),
    ("cond_collectives", b_cond_collectives, {}),
    ("auto_mesh3d_sum", b_auto_mesh3d_sum, {}),
]

# The StableHLO programs that `shlo-lint --select SHLO505 corpus/` reported
# (schedule-dependent deadlock), with the tag their compiled module earned on
# XLA:CPU (--run checks it). crossed_independent_by_use_swapped is written here:
# the same program with the operands of the final add swapped, which XLA's
# scheduler answers with the other issue order.
SCHEDULE_PROGRAMS = [
    ("crossed_independent_by_use", "corpus/deadlock/crossed_independent_by_use.mlir", None),
    ("crossed_independent_by_use_swapped", "schedule/crossed_independent_by_use_swapped.mlir",
     "buggy_deadlock"),
    ("jax_cond_async_starts_crossed", "corpus/deadlock/jax_cond_async_starts_crossed.mlir",
     "buggy_deadlock"),
    ("jax_cond_async_starts_scheduler_order",
     "corpus/deadlock/jax_cond_async_starts_scheduler_order.mlir", "buggy_deadlock"),
    ("sync_collectives_scheduler_order", "corpus/deadlock/sync_collectives_scheduler_order.mlir", None),
]

# Programs compiled once more with --xla_dump_to (dumps/<name>/).
DUMP_PROGRAMS = ["psum", "fori_pipeline", "auto_tp_mlp", "auto_fsdp_step"]


# --------------------------------------------------------------------------
# Reading and running HLO text: the product's XLA engine does both
# (checker/execute/xla/hlo/: the front end's syntax model reads a module,
# rewrite.py and compiler.py compile it with jaxlib 0.10.2, each rewrite saying which
# measured failure it fixes; docs/execution.md, "HLO text"). Here only the facts
# VERDICTS.json records about a module.
# --------------------------------------------------------------------------

# (imported here, below the builders, which keep their line numbers)
from shlo_lint.checker.execute.xla.hlo.communicating import (communicating_instructions, halves,  # noqa: E402
                                                             talking_computations)
from shlo_lint.checker.execute.xla.hlo.compiler import compile_hlo, order_of_compiled  # noqa: E402
from shlo_lint.checker.execute.xla.manual import mark_manual, mark_manual_signatures  # noqa: E402
from shlo_lint.checker.frontend.hlo import read_hlo  # noqa: E402


def comm_sequences(text: str) -> list[list[str]]:
    """Per computation (text order), the opcodes of its communicating instructions
    (collectives, and the while/conditional/call that run some) in text order."""
    module = read_hlo(text)
    talking = talking_computations(module)
    return [seq for seq in ([i.opcode for i, _ in communicating_instructions(c, talking)]
                            for c in module.computations.values()) if seq]


def collectives(text: str) -> list:
    """Every instruction that communicates (a collective or a half of an
    asynchronous one), computation by computation, in text order."""
    out = []
    for comp in read_hlo(text).computations.values():
        talks = halves(comp)
        out += [i for i in comp.instructions if i.name in talks]
    return out


def header_of(text: str) -> dict:
    h = read_hlo(text)
    return {"module": h.name, "is_scheduled": h.is_scheduled, "replica_count": h.replica_count,
            "num_partitions": h.num_partitions}


def collective_counts(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for ins in collectives(text):
        counts[ins.opcode] = counts.get(ins.opcode, 0) + 1
    return dict(sorted(counts.items()))


def np_dtype(name: str):
    """The numpy dtype of an MLIR element type name (bf16, f32, i32, ui8, i1)."""
    table = {"i1": "bool", "bf16": "bfloat16"}
    if name in table:
        return jnp.dtype(table[name])
    m = re.fullmatch(r"(f|s|u|i|ui)(\d+)", name)
    kind = {"f": "float", "s": "int", "i": "int", "u": "uint", "ui": "uint"}[m.group(1)]
    return jnp.dtype(f"{kind}{m.group(2)}")


def compile_hlo_text(text: str, devices: list):
    """The executable of HLO text on `devices` (replica_count x num_partitions of
    them, in that order), as `shlo-lint run` compiles it (no progress markers)."""
    h = read_hlo(text)
    return compile_hlo(text, {"num_replicas": h.replica_count, "num_partitions": h.num_partitions,
                              "platform": "cpu"}, devices)[0]


# --------------------------------------------------------------------------
# Compiling StableHLO text (the corpus/deadlock programs) as the project's XLA
# engine does (checker/execute/xla/worker.py): a program with no sharding anywhere
# runs per device, so every op, argument and result is marked {manual} and the
# partitioner leaves it as written.
# --------------------------------------------------------------------------

def stablehlo_grid(text: str) -> tuple[int, int]:
    r = re.search(r"mhlo.num_replicas = (\d+)", text)
    p = re.search(r"mhlo.num_partitions = (\d+)", text)
    return (int(r.group(1)) if r else 1), (int(p.group(1)) if p else 1)


def is_per_device(text: str) -> bool:
    return not any(s in text for s in ("sdy.manual_computation", "SPMDFullToShardShape"))


def prepare_stablehlo(text: str, source_name: str) -> str:
    """The module as XLA should compile it, printed with its locations (named after
    `source_name`) so the compiled module's metadata points at the file's lines."""
    from jax._src.interpreters import mlir as jm
    from jax._src.lib.mlir import ir

    with jm.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        if is_per_device(text):
            mark_manual(module, per_device=True, overwrite=True)
            mark_manual_signatures(module)
        printed = module.operation.get_asm(enable_debug_info=True)
    return printed.replace('loc("-":', f'loc("{source_name}":')


def compile_stablehlo(text: str, source_name: str, devices: list):
    from jax._src.lib import xla_client as xc

    R, Pn = stablehlo_grid(text)
    opts = xc.CompileOptions()
    eb = opts.executable_build_options
    eb.num_replicas, eb.num_partitions = R, Pn
    eb.use_spmd_partitioning = True
    eb.use_shardy_partitioner = "sdy." in text
    eb.device_assignment = xc.DeviceAssignment.create(np.array([d.id for d in devices]).reshape(R, Pn))
    prepared = prepare_stablehlo(text, source_name)
    return devices[0].client.compile_and_load(prepared, xc.DeviceList(tuple(devices)), opts)


# --------------------------------------------------------------------------
# The files: which program each comes from and how it is made.
# --------------------------------------------------------------------------

@dataclass
class Entry:
    file: str
    """Path under the output directory."""
    program: str
    kind: str
    """real (a corpus/real program) | new (written here) | schedule | dump"""
    source: str
    """The StableHLO it compiles: a corpus/ path (corpus/hlo/... for the new ones)."""
    partitioner: str = "shardy"
    bug: str | None = None
    builder: object = None
    options: dict = field(default_factory=dict)


def set_partitioner(mode: str) -> None:
    jax.config.update("jax_use_shardy_partitioner", mode == "shardy")


def relativize(text: str) -> str:
    """Absolute paths (FileNames tables, dumps) made repo-relative, as generate.py does."""
    return text.replace(str(REPO) + os.sep, "")


def hlo_name(base, partitioner, bug, ext=".hlo"):
    parts = [base] + (["gspmd"] if partitioner == "gspmd" else []) + ([bug] if bug else [])
    return ".".join(parts) + ext


def jax_programs():
    """(name, builder, options, kind) of every JAX program: corpus/real's (no
    probes), then the ones written here."""
    out = [(n, b, o, "real") for n, b, o in generate.PROGRAMS if not o.get("probe")]
    return out + [(n, b, o, "new") for n, b, o in NEW_PROGRAMS]


def compile_program(builder, options, mode: str):
    """(lowered, compiled) on CPU: the StableHLO is lowered as generate.py does
    (the corpus/real text), then compiled for this machine's 8 CPU devices."""
    set_partitioner(mode)
    fn, args = builder()
    lowered = generate.lower(fn, args)
    return lowered, lowered.compile(), args


def attr_map(ins) -> dict[str, str]:
    """The instruction's attributes (after its operands): key -> value text."""
    return {a.name: ins.module.snippet(a.value_span).strip() for a in ins.body.attributes}


_GROUP_KEYS = ("replica_groups", "source_target_pairs", "dimensions", "channel_id", "use_global_device_ids")


def comm_signature(text: str) -> list:
    """What a module communicates, names aside: per computation, each collective's
    opcode, result shape and group attributes, in order."""
    sig = []
    for comp in read_hlo(text).computations.values():
        talks = halves(comp)
        seq = [(i.opcode, re.sub(r"\{[\d,]*\}", "", i.shape_text),
                tuple((k, v) for k, v in attr_map(i).items() if k in _GROUP_KEYS))
               for i in comp.instructions if i.name in talks]
        if seq:
            sig.append(seq)
    return sorted(sig)


def refusal(e: Exception) -> str:
    return f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"[:400]


def generate_jax(out: Path, only, entries: list, refused: list) -> None:
    for name, builder, options, kind in jax_programs():
        if only and name not in only:
            continue
        bug = options.get("bug")
        modes = ["shardy"] + (["gspmd"] if options.get("gspmd", True) else [])
        shardy_sig = None
        for mode in modes:
            fname = hlo_name(name, mode, bug)
            src = f"corpus/real/{hlo_name(name, mode, bug, '.mlir')}" if kind == "real" else \
                f"corpus/hlo/{hlo_name(name, mode, bug, '.mlir')}"
            try:
                lowered, compiled, _ = compile_program(builder, options, mode)
                text = relativize(compiled.as_text())
            except Exception as e:  # noqa: BLE001 - JAX's or XLA's refusal is the record
                refused.append({"file": fname, "program": name, "partitioner": mode, "source": src,
                                "message": refusal(e)})
                print(f"  REFUSED {fname}: {refusal(e)}")
                continue
            sig = comm_signature(text)
            if mode == "gspmd" and sig == shardy_sig:
                print(f"  same   {fname}: communicates as the Shardy module (not written)")
                continue
            shardy_sig = sig if mode == "shardy" else shardy_sig
            write(out / fname, text)
            if kind == "new":
                write(out / Path(src).name, relativize(lowered.as_text()))
            entries.append(Entry(fname, name, kind, src, mode, bug, builder, options))
            print(f"  wrote  {fname} ({len(text)} bytes)")
    set_partitioner("shardy")


def swapped_source() -> str:
    """crossed_independent_by_use with `add %a, %s` written `add %s, %a` in branch 0."""
    text = (REPO / "corpus/deadlock/crossed_independent_by_use.mlir").read_text()
    text = re.sub(r"^//.*\n", "", text, flags=re.M)
    swapped = text.replace("%y = stablehlo.add %a, %s", "%y = stablehlo.add %s, %a", 1)
    assert swapped != text
    return ("// corpus/deadlock/crossed_independent_by_use.mlir with the operands of branch 0's final\n"
            "// add swapped (corpus/hlo_generate.py): XLA:CPU's scheduler then issues that branch's\n"
            "// all_gather first, while branch 1 must issue its all_reduce first.\n" + swapped)


def generate_schedule(out: Path, only, entries: list, refused: list) -> None:
    (out / "schedule").mkdir(parents=True, exist_ok=True)
    devices = jax.devices()
    for name, source, bug in SCHEDULE_PROGRAMS:
        if only and name not in only:
            continue
        if source.startswith("schedule/"):
            write(out / source, swapped_source())
            source = f"corpus/hlo/{source}"
        text = (REPO / source).read_text()
        R, Pn = stablehlo_grid(text)
        fname = f"schedule/{hlo_name(name, None, bug)}"
        try:
            exe = compile_stablehlo(text, source, devices[:R * Pn])
        except Exception as e:  # noqa: BLE001
            refused.append({"file": fname, "program": name, "source": source, "message": refusal(e)})
            print(f"  REFUSED {fname}: {refusal(e)}")
            continue
        hlo = exe.hlo_modules()[0].to_string()
        write(out / fname, hlo)
        entries.append(Entry(fname, name, "schedule", source, "n/a", bug))
        print(f"  wrote  {fname} ({len(hlo)} bytes)")


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text if text.endswith("\n") else text + "\n")


# --------------------------------------------------------------------------
# --xla_dump_to: each program compiled once more in a subprocess that dumps.
# --------------------------------------------------------------------------

def generate_dumps(out: Path, only, entries: list, dump_listing: dict) -> None:
    programs = {n: (b, o) for n, b, o, _ in jax_programs()}
    for name in DUMP_PROGRAMS:
        if only and name not in only:
            continue
        with tempfile.TemporaryDirectory(prefix="hlo-dump-") as tmp:
            env = worker_env(extra=[f"--xla_dump_to={tmp}"])
            proc = subprocess.run([sys.executable, __file__, "--worker", "dump", name], env=env,
                                  capture_output=True, text=True, timeout=600)
            if proc.returncode != 0:
                raise RuntimeError(f"dump of {name} failed: {proc.stderr[-2000:]}")
            listing = sorted(str(p.relative_to(tmp)) for p in Path(tmp).rglob("*"))
            dump_listing[name] = listing
            dest = out / "dumps" / name
            if dest.exists():
                shutil.rmtree(dest)
            for rel in listing:
                if rel.endswith(("before_optimizations.txt", "after_optimizations.txt")):
                    write(dest / rel, relativize((Path(tmp) / rel).read_text()))
                    stage = "before" if rel.endswith("before_optimizations.txt") else "after"
                    builder, options = programs[name]
                    kind = "real" if any(n == name for n, *_ in generate.PROGRAMS) else "new"
                    src = f"corpus/{'real' if kind == 'real' else 'hlo'}/{name}.mlir"
                    entries.append(Entry(f"dumps/{name}/{rel}", name, f"dump-{stage}", src, "shardy",
                                         None, builder, options))
            print(f"  dumped {name}: {len(listing)} files, kept "
                  f"{sum(r.endswith('optimizations.txt') for r in listing)}")


# --------------------------------------------------------------------------
# Workers: one run each, in a subprocess of this script (--worker KIND ...).
# They leave result.json (+ inputs.npz / outputs*.npz) in their directory; a run
# that aborts or hangs leaves no result, and the parent classifies it.
# --------------------------------------------------------------------------

@dataclass
class Limits:
    timeout_s: float = 60.0
    """The watchdog on each worker subprocess (start, compile, run)."""
    warn_stuck_s: int = 2
    terminate_s: int = 10
    """XLA:CPU's rendezvous timeouts (--xla_cpu_collective_call_warn_stuck_timeout_seconds,
    --xla_cpu_collective_call_terminate_timeout_seconds; XLA's defaults are 20 and 40)."""


def worker_env(limits: Limits | None = None, extra=()) -> dict:
    env = dict(os.environ)
    flags = [f"--xla_force_host_platform_device_count={DEVICES}"]
    if limits is not None:
        flags += [f"--xla_cpu_collective_call_warn_stuck_timeout_seconds={limits.warn_stuck_s}",
                  f"--xla_cpu_collective_call_terminate_timeout_seconds={limits.terminate_s}"]
    env["XLA_FLAGS"] = " ".join(flags + list(extra))
    env["JAX_PLATFORMS"] = "cpu"
    env["TF_CPP_MIN_LOG_LEVEL"] = "1"
    return env


def _phase(name: str) -> None:
    print(f"hlo-worker: {name}", file=sys.stderr, flush=True)


def _result(work: Path, **result) -> None:
    (work / "result.json").write_text(json.dumps(result))


def _compiled(work: Path, **facts) -> None:
    """What is known once the program compiled; kept when the run then aborts or hangs."""
    (work / "compiled.json").write_text(json.dumps(facts))


def _value(shape, dtype, rng):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 4, shape).astype(dtype)
    return (rng.standard_normal(shape) * 0.5).astype(dtype)


def _per_device(array) -> list:
    return [np.asarray(s.data) for s in sorted(array.addressable_shards, key=lambda s: s.device.id)]


def _storable(a):
    """npz keeps numpy's own dtypes only: bfloat16 is stored as float32 (exactly)."""
    a = np.asarray(a)
    return a.astype(np.float32) if a.dtype == jnp.bfloat16 else a


def _save(path: Path, lists: list, prefix: str) -> None:
    np.savez(path, **{f"{prefix}{i}_{d}": _storable(a) for i, arrays in enumerate(lists)
                      for d, a in enumerate(arrays)})


def _load(path: Path, prefix: str) -> list:
    with np.load(path) as data:
        keys = [k for k in data.files if k.startswith(prefix)]
        n = 1 + max((int(k[len(prefix):].split("_")[0]) for k in keys), default=-1)
        return [[data[f"{prefix}{i}_{d}"] for d in range(sum(k.startswith(f"{prefix}{i}_") for k in keys))]
                for i in range(n)]


def _device_arrays(per_device: list, devices: list) -> list:
    """Executable arguments from per-device values (what each device holds)."""
    from jax._src.sharding_impls import GSPMDSharding

    replicated = GSPMDSharding.get_replicated(tuple(devices))
    return [jax.make_array_from_single_device_arrays(
        shards[0].shape, replicated, [jax.device_put(s, d) for s, d in zip(shards, devices)])
        for shards in per_device]


def _execute(exe, per_device: list, devices: list) -> list:
    results = exe.execute_sharded(_device_arrays(per_device, devices))
    return [[np.asarray(a) for a in arrays] for arrays in results.disassemble_into_single_device_arrays()]


def _entry_shapes(exe) -> list:
    from jax._src.lib import xla_client as xc

    shape = xc.XlaComputation(exe.hlo_modules()[0].as_serialized_hlo_module_proto()).program_shape()
    return [(tuple(s.dimensions()), jnp.dtype(str(s.element_type()))) for s in shape.parameter_shapes()]


def worker_jit(file: Path, work: Path) -> None:
    """Build the program, compile it with jax (its text must equal the file's), run it."""
    base, mode, bug = parse_name(file.name)
    builder = next(b for n, b, o, _ in jax_programs() if n == base and o.get("bug") == bug)
    _phase("compile")
    try:
        _, compiled, specs = compile_program(builder, {}, mode)
    except Exception as e:  # noqa: BLE001
        return _result(work, status="compile_error", message=refusal(e))
    _compiled(work, text_matches_file=relativize(compiled.as_text()).rstrip("\n") ==
              file.read_text().rstrip("\n"))
    rng = np.random.default_rng(zlib.crc32(file.name.encode()))
    flat, tree = jax.tree.flatten(specs)
    kept = sorted(getattr(compiled._executable, "_kept_var_idx", range(len(flat))))
    shardings = jax.tree.leaves(compiled.input_shardings[0])
    args = [jax.device_put(_value(s.shape, s.dtype, rng), sh) for s, sh in zip(flat, shardings)]
    inputs = {f"a{i}_{d}": _storable(a) for i, k in enumerate(kept) for d, a in enumerate(_per_device(args[k]))}
    inputs.update({f"g{i}_0": _storable(args[k]) for i, k in enumerate(kept)})
    np.savez(work / "inputs.npz", **inputs)
    _phase("run")
    try:
        out = jax.block_until_ready(compiled(*jax.tree.unflatten(tree, args)))
    except Exception as e:  # noqa: BLE001
        return _result(work, status="run_error", message=refusal(e))
    _save(work / "outputs.npz", [_per_device(o) for o in jax.tree.leaves(out)], "o")
    _result(work, status="completed")


def worker_stablehlo(file: Path, work: Path, source: str) -> None:
    """Compile the StableHLO program (the file must be what XLA printed) and run it:
    per-device inputs for a per-device program, else global inputs sharded as the
    executable's parameters are."""
    from jax._src.lib import xla_client as xc
    from jax._src.sharding_impls import GSPMDSharding

    text = (REPO / source).read_text()
    R, Pn = stablehlo_grid(text)
    devices = jax.devices()[:R * Pn]
    _phase("compile")
    try:
        exe = compile_stablehlo(text, source, devices)
    except Exception as e:  # noqa: BLE001
        return _result(work, status="compile_error", message=refusal(e))
    _compiled(work, text_matches_file=exe.hlo_modules()[0].to_string().rstrip("\n") ==
              file.read_text().rstrip("\n"))
    rng = np.random.default_rng(zlib.crc32(file.name.encode()))
    if is_per_device(text):
        inputs = [[_value(shape, dt, rng) for _ in devices] for shape, dt in _entry_shapes(exe)]
    else:
        main = re.search(r"func\.func public @main\((.*?)\) ->", text).group(1)
        types = re.findall(r"tensor<((?:\d+x)*)(\w+)>", main)
        inputs = []
        for (dims, dt), proto in zip(types, exe.get_parameter_shardings()):
            shape = tuple(int(d) for d in dims.split("x") if d)
            x = jax.device_put(_value(shape, np_dtype(dt), rng), GSPMDSharding(tuple(devices), proto))
            inputs.append(_per_device(x))
    _save(work / "inputs.npz", inputs, "a")
    _phase("run")
    try:
        outs = _execute(exe, inputs, devices)
    except Exception as e:  # noqa: BLE001
        return _result(work, status="run_error", message=refusal(e))
    _save(work / "outputs.npz", outs, "o")
    _result(work, status="completed")


def worker_text(file: Path, work: Path, inputs: Path | None) -> None:
    """Run the HLO text itself (compile_hlo_text), on the reference run's inputs."""
    from jax._src.sharding_impls import GSPMDSharding

    text = file.read_text()
    head = header_of(text)
    devices = jax.devices()[:head["replica_count"] * head["num_partitions"]]
    _phase("compile")
    try:
        exe = compile_hlo_text(text, devices)
    except Exception as e:  # noqa: BLE001
        return _result(work, status="compile_error", message=refusal(e))
    compiled = exe.hlo_modules()[0].to_string()
    if head["is_scheduled"]:  # an unscheduled module's collectives are the partitioner's to add
        _compiled(work, order_preserved=order_of_compiled(text, compiled) is None,
                  collectives_preserved=collective_counts(compiled) == collective_counts(text))
    rng = np.random.default_rng(zlib.crc32(file.name.encode()))
    if head["is_scheduled"]:
        shapes = _entry_shapes(exe)
        per_device = [[a.astype(dt) for a in arrays] for arrays, (_, dt) in zip(_load(inputs, "a"), shapes)] \
            if inputs else [[_value(s, dt, rng) for _ in devices] for s, dt in shapes]
    else:  # an unpartitioned module takes global arrays: the reference run's, sharded anew
        per_device = [_per_device(jax.device_put(g[0], GSPMDSharding(tuple(devices), proto)))
                      for g, proto in zip(_load(inputs, "g"), exe.get_parameter_shardings())]
    _phase("run")
    try:
        outs = _execute(exe, per_device, devices)
    except Exception as e:  # noqa: BLE001
        return _result(work, status="run_error", message=refusal(e))
    _save(work / "outputs_text.npz", outs, "o")
    _result(work, status="completed")


def worker_dump(name: str) -> None:
    builder, options = next((b, o) for n, b, o, _ in jax_programs() if n == name)
    compile_program(builder, options, "shardy")


def parse_name(fname: str) -> tuple[str, str, str | None]:
    """(base, partitioner, bug tag) of `<base>[.gspmd][.buggy_x].hlo`."""
    parts = fname[:-len(".hlo")].split(".")
    bug = parts.pop() if parts[-1].startswith("buggy_") else None
    mode = parts.pop() if parts[-1] == "gspmd" else "shardy"
    return ".".join(parts), mode, bug


# --------------------------------------------------------------------------
# Running: every file's reference run (the jitted program, or the StableHLO
# program compiled by XLA) and the run of its text, each in a worker.
# --------------------------------------------------------------------------

_ABORT = re.compile(r"^F\d+ [\d:.]+\s+\d+ rendezvous\.cc:\d+\] (.*)$", re.M)
_ARRIVED = re.compile(r"Expected (\d+) threads to join the rendezvous, but only (\d+) of them")


def run_worker(argv: list, work: Path, limits: Limits) -> dict:
    """{result: completed | refused | run_error | aborted | hung | crashed, message, ...}"""
    proc = subprocess.Popen([sys.executable, __file__, "--worker", *argv],
                            env=worker_env(limits), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=limits.timeout_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        timed_out = True
    log = err.decode("utf-8", "replace")
    path = work / "result.json"
    result = json.loads(path.read_text()) if path.exists() else None
    facts = json.loads((work / "compiled.json").read_text()) if (work / "compiled.json").exists() else {}
    verdict = _classify(timed_out, result, log, proc.returncode, limits)
    return {**verdict, **facts}


def _classify(timed_out: bool, result: dict | None, log: str, code: int, limits: Limits) -> dict:
    phases = re.findall(r"hlo-worker: (\w+)", log)
    if timed_out:
        return {"result": "hung", "message": f"killed by the {limits.timeout_s:g} s watchdog "
                                               f"(phase: {phases[-1] if phases else 'start'})"}
    if result is not None:
        status = result.pop("status")
        verdict = {"completed": "completed", "compile_error": "refused"}.get(status, status)
        return {"result": verdict, **result}
    aborts = sorted({re.sub(r"run_id=RunId: -?\d+, ", "", re.sub(r"^\[id=\d+\] ", "", m))
                     for m in _ABORT.findall(log)})
    if aborts:
        arrived = sorted({f"expected {a} participants, {b} arrived" for a, b in _ARRIVED.findall(log)})
        return {"result": "aborted", "message": "; ".join(arrived), "xla_log": aborts,
                "phase": phases[-1] if phases else "start"}
    how = f"signal {signal.Signals(-code).name}" if code < 0 else f"exit status {code}"
    last = [ln for ln in log.splitlines() if ln.strip() and not ln.startswith("hlo-worker")][-3:]
    return {"result": "crashed", "message": f"{how} in phase {phases[-1] if phases else 'start'}",
            "log_tail": last}


def compare_outputs(work: Path) -> dict:
    a, b = work / "outputs.npz", work / "outputs_text.npz"
    if not (a.exists() and b.exists()):
        return {}
    ref, got = _load(a, "o"), _load(b, "o")
    if len(ref) != len(got) or any(len(x) != len(y) for x, y in zip(ref, got)):
        return {"outputs_match": False, "why": f"{len(ref)} outputs vs {len(got)}"}
    diff = 0.0
    for xs, ys in zip(ref, got):
        for x, y in zip(xs, ys):
            if x.shape != y.shape:
                return {"outputs_match": False, "why": f"shape {x.shape} vs {y.shape}"}
            if x.size:
                diff = max(diff, float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))))
    return {"outputs_match": bool(diff <= 1e-4), "max_abs_diff": diff}


def entries_on_disk(out: Path, only) -> list[Entry]:
    """The files under `out`, each matched to the program it comes from."""
    programs = {(n, o.get("bug")): (b, o, k) for n, b, o, k in jax_programs()}
    entries = []
    for path in sorted(out.glob("*.hlo")):
        base, mode, bug = parse_name(path.name)
        builder, options, kind = programs[(base, bug)]
        src = f"corpus/{'real' if kind == 'real' else 'hlo'}/{path.name[:-4]}.mlir"
        entries.append(Entry(path.name, base, kind, src, mode, bug, builder, options))
    schedule = {name: (source, bug) for name, source, bug in SCHEDULE_PROGRAMS}
    for path in sorted((out / "schedule").glob("*.hlo")):
        base, _, bug = parse_name(path.name)
        source = schedule[base][0]
        source = f"corpus/hlo/{source}" if source.startswith("schedule/") else source
        entries.append(Entry(f"schedule/{path.name}", base, "schedule", source, "n/a", bug))
    for path in sorted((out / "dumps").glob("*/*.txt")):
        stage = "before" if path.name.endswith("before_optimizations.txt") else "after"
        name = path.parent.name
        kind = programs[(name, None)][2]
        entries.append(Entry(str(path.relative_to(out)), name, f"dump-{stage}",
                             f"corpus/{'real' if kind == 'real' else 'hlo'}/{name}.mlir", "shardy"))
    return [e for e in entries if not only or e.program in only]


def forms(text: str) -> dict:
    """The HLO forms a reader must handle, as this module prints them."""
    found: dict = {}
    module = read_hlo(text)
    for comp in module.computations.values():
        talks = halves(comp)
        for ins in comp.instructions:
            attrs = attr_map(ins) if ins.opcode == "while" or ins.name in talks else {}
            if ins.opcode == "while":
                m = re.search(r'"known_trip_count":\{"n":"(\d+)"\}', attrs.get("backend_config", ""))
                found.setdefault("while_known_trip_count", []).append(int(m.group(1)) if m else None)
            if ins.name not in talks:
                continue
            groups = attrs.get("replica_groups")
            if groups is not None:
                kind = "iota" if groups.startswith("[") else "mesh" if groups.startswith("mesh") else \
                    "empty" if groups == "{}" else "explicit"
                found.setdefault("replica_groups", {}).setdefault(kind, 0)
                found["replica_groups"][kind] += 1
            if ins.shape_text.startswith("(") and ins.opcode in ("all-reduce", "all-gather", "reduce-scatter",
                                                              "all-to-all"):
                found["tuple_operand_" + ins.opcode] = found.get("tuple_operand_" + ins.opcode, 0) + 1
            if "async_collective_name" in attrs.get("frontend_attributes", ""):
                found["sync_from_async"] = found.get("sync_from_async", 0) + 1
            if "source_target_pairs" in attrs:
                found.setdefault("source_target_pairs", []).append(attrs["source_target_pairs"])
    if "source_target_pairs" in found:
        found["source_target_pairs"] = sorted(set(found["source_target_pairs"]))
    return found


_SHLO_COLLECTIVE = re.compile(r'"?stablehlo\.(all_reduce|all_gather|reduce_scatter|all_to_all|collective_permute|'
                              r'collective_broadcast|send|recv)"?[ (]')


def stablehlo_collectives(text: str) -> list[str]:
    """The collectives of a StableHLO module in text order, spelled as HLO opcodes."""
    return [m.group(1).replace("_", "-") for m in _SHLO_COLLECTIVE.finditer(text)]


def versus_stablehlo(hlo: str, source: Path) -> dict:
    """How the compiled module's communication differs from the StableHLO's: kinds
    and counts, and (for code with no control flow around collectives) the order."""
    if not source.exists():
        return {}
    shlo = stablehlo_collectives(source.read_text())
    flat = [i.opcode for i in collectives(hlo)]
    count = {k: shlo.count(k) for k in sorted(set(shlo))}
    found = {"stablehlo_collectives": count}
    if count != collective_counts(hlo):
        found["differs"] = "kinds/counts"
    elif shlo != flat and len(comm_sequences(hlo)) == 1:
        found["differs"] = "order"
    return found


def describe(entry: Entry, out: Path) -> dict:
    text = (out / entry.file).read_text()
    how = {"real": "jax.jit(f).trace(*args).lower().compile().as_text() of the corpus/generate.py builder",
           "new": "jax.jit(f).trace(*args).lower().compile().as_text() of the corpus/hlo_generate.py builder",
           "schedule": "the StableHLO compiled by XLA:CPU (compile_stablehlo), "
                       "executable.hlo_modules()[0].to_string()",
           "dump-before": "XLA_FLAGS=--xla_dump_to=DIR, the program compiled once (before_optimizations)",
           "dump-after": "XLA_FLAGS=--xla_dump_to=DIR, the program compiled once (after_optimizations)",
           }[entry.kind]
    return {"program": entry.program, "kind": entry.kind, "source": entry.source,
            "partitioner": entry.partitioner, "how": how,
            "expect": "reject" if entry.bug else "accept", **header_of(text),
            "collectives": collective_counts(text), "forms": forms(text), "bytes": len(text.encode()),
            **versus_stablehlo(text, REPO / entry.source)}


def run_all(out: Path, only, limits: Limits) -> dict:
    entries = entries_on_disk(out, only)
    verdicts = {}
    with tempfile.TemporaryDirectory(prefix="hlo-runs-") as tmp:
        refs: dict[str, Path] = {}
        for i, e in enumerate(sorted(entries, key=lambda e: e.kind.startswith("dump"))):
            t0 = time.monotonic()
            work = Path(tmp) / f"{i:03d}"
            work.mkdir()
            record = describe(e, out)
            if e.kind.startswith("dump"):
                ref_file = out / hlo_name(e.program, "shardy", None)
                ref_work = refs.get(ref_file.name)
                reference = verdicts.get(ref_file.name, {}).get("run", {}).get("jit", {"result": "none"})
                reference = {**reference, "reference_file": ref_file.name}
                if ref_work is not None:
                    for f in ("inputs.npz", "outputs.npz"):
                        shutil.copy(ref_work / f, work / f) if (ref_work / f).exists() else None
                same = ref_file.exists() and (out / e.file).read_text() == ref_file.read_text()
                record["same_text_as"] = ref_file.name if same else None
            elif e.kind == "schedule":
                reference = run_worker(["stablehlo", str(out / e.file), str(work), e.source], work, limits)
            else:
                reference = run_worker(["jit", str(out / e.file), str(work)], work, limits)
            refs[e.file] = work
            text_dir = work / "text"
            text_dir.mkdir()
            inputs = [str(work / "inputs.npz")] if (work / "inputs.npz").exists() else []
            text_run = run_worker(["text", str(out / e.file), str(text_dir), *inputs], text_dir, limits)
            if (text_dir / "outputs_text.npz").exists():
                shutil.copy(text_dir / "outputs_text.npz", work / "outputs_text.npz")
            text_run.update(compare_outputs(work))
            record["run"] = {"jit" if e.kind != "schedule" else "stablehlo": reference, "text": text_run,
                             "agree": reference["result"] == text_run["result"]}
            record["verdict"] = reference["result"]
            verdicts[e.file] = record
            print(f"  {e.file}: reference {reference['result']}, text {text_run['result']}"
                  f"{'' if record['run']['agree'] else '  << DIFFER'} ({time.monotonic() - t0:.0f} s)")
    return verdicts


# --------------------------------------------------------------------------

def load_manifest(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def save_manifest(path: Path, manifest: dict) -> None:
    path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE / "hlo"))
    ap.add_argument("--only", nargs="*", help="only these program names")
    ap.add_argument("--list", action="store_true", help="list the programs and exit")
    ap.add_argument("--no-dumps", action="store_true", help="skip the --xla_dump_to programs")
    ap.add_argument("--no-generate", action="store_true", help="with --run: run the files already there")
    ap.add_argument("--run", action="store_true", help="also run every file and rewrite VERDICTS.json")
    ap.add_argument("--timeout", type=float, default=Limits.timeout_s, help="watchdog per run (s)")
    ap.add_argument("--terminate", type=int, default=Limits.terminate_s,
                    help="XLA:CPU rendezvous termination timeout (s)")
    ap.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        kind, *rest = a.worker
        if kind == "dump":
            worker_dump(rest[0])
        elif kind == "jit":
            worker_jit(Path(rest[0]), Path(rest[1]))
        elif kind == "stablehlo":
            worker_stablehlo(Path(rest[0]), Path(rest[1]), rest[2])
        elif kind == "text":
            worker_text(Path(rest[0]), Path(rest[1]), Path(rest[2]) if len(rest) > 2 else None)
        return 0
    if a.list:
        for name, _, options, kind in jax_programs():
            print(f"{kind:9} {name} {options.get('bug') or ''}")
        for name, source, bug in SCHEDULE_PROGRAMS:
            print(f"schedule  {name} {bug or ''} ({source})")
        for name in DUMP_PROGRAMS:
            print(f"dump      {name}")
        return 0
    if len(jax.devices()) < DEVICES:
        sys.exit(f"need {DEVICES} devices, got {jax.devices()}")
    out = Path(a.out)
    manifest_path = out / "VERDICTS.json"
    manifest = load_manifest(manifest_path)
    only = set(a.only) if a.only else None
    print(f"jax {jax.__version__}, {len(jax.devices())} {jax.devices()[0].platform} devices")
    if not a.no_generate:
        entries, refused, listing = [], [], {}
        generate_jax(out, only, entries, refused)
        generate_schedule(out, only, entries, refused)
        if not a.no_dumps:
            generate_dumps(out, only, entries, listing)
        keep = [r for r in manifest.get("not_compiled", []) if only and r["program"] not in only]
        manifest["not_compiled"] = sorted(keep + refused, key=lambda r: r["file"])
        manifest.setdefault("dump_files", {}).update(listing)
        print(f"{len(entries)} files written, {len(refused)} programs not compiled")
    if a.run:
        import jaxlib

        limits = Limits(timeout_s=a.timeout, terminate_s=a.terminate)
        files = manifest.get("files", {}) if only else {}
        files.update(run_all(out, only, limits))
        manifest["files"] = dict(sorted(files.items()))
        manifest["run_limits"] = {"watchdog_s": limits.timeout_s,
                                  "xla_cpu_collective_call_warn_stuck_timeout_seconds": limits.warn_stuck_s,
                                  "xla_cpu_collective_call_terminate_timeout_seconds": limits.terminate_s}
        manifest["versions"] = {"jax": jax.__version__, "jaxlib": jaxlib.__version__,
                                "devices": f"{DEVICES} XLA:CPU devices (--xla_force_host_platform_device_count)"}
    save_manifest(manifest_path, manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python
"""Ground truth for multi-host divergence: real 2- and 4-process `jax.distributed`
jobs on CPU (gloo), where every process traces and compiles ITS OWN variant of one
shard_map step, runs it, and we record what happened.

    python corpus/hosts_generate.py [--out corpus/hosts] [--only CASE ...] [--timeout 90] [--list]

For each case, N OS processes (each with k local CPU devices) join one job on
127.0.0.1. Every process builds the same mesh over all N*k global devices,
`Mesh(jax.devices() reshaped (N, k), ("hosts", "local"))`: "hosts" crosses the
processes, "local" stays inside each. Process i lowers its own variant of the step
(the case says which), saves the StableHLO (`lowered.as_text()`) and the compiled
HLO (`compiled.as_text()`) to <out>/<case>/host<i>.mlir and host<i>.hlo, then runs
it on the same global input.

The parent watches the job under a hard wall-clock limit. A process that finished
writes its per-device results and then stays alive without calling
`jax.distributed.shutdown` (whose barrier would wait for a blocked peer, and whose
exit would close gloo connections a peer may still be reading), so a peer that
hangs is seen hanging rather than failing on a closed socket. At the limit every
process still running gets SIGUSR1 (faulthandler prints its Python stack: where it
is blocked) and then SIGKILL to its whole process group; every group is killed at
the end whatever happened. <out>/VERDICTS.json records, per case and process:
phases reached with times, outcome (completed / aborted / hung), messages, the
results beside what the process's own program asks for, and the collectives in each
host's StableHLO and compiled HLO.

The worker side is this same file: `python corpus/hosts_generate.py --worker CASE
PID PORT DIR` (the parent passes XLA_FLAGS with the local device count).
"""
from __future__ import annotations

import argparse
import faulthandler
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

HERE = Path(__file__).resolve().parent
M = 4
"""Each device's input block is f32[1, M] (16 bytes)."""


# ---------------------------------------------------------------- numpy side
# V holds every device's block, shape (n_hosts, k_local, rows, cols); each helper
# returns what every device gets if *every* device runs that op.

def np_psum_hosts(v):
    return np.broadcast_to(v.sum(axis=0, keepdims=True), v.shape).copy()


def np_pmax_hosts(v):
    return np.broadcast_to(v.max(axis=0, keepdims=True), v.shape).copy()


def np_psum_local(v):
    return np.broadcast_to(v.sum(axis=1, keepdims=True), v.shape).copy()


def np_gather_hosts(v):
    """all_gather(tiled) over "hosts": the host blocks stacked along rows."""
    n, k = v.shape[:2]
    out = np.concatenate([v[h] for h in range(n)], axis=1)  # (k, n*rows, cols)
    return np.broadcast_to(out[None], (n,) + out.shape).copy()


def np_cat(*vs):
    return np.concatenate(vs, axis=3)


# ---------------------------------------------------------------- the cases
# A Variant is the step one host runs: `jax(x)` the shard_map body on a device's
# f32[1, M] block, `np(V)` the same computation for all devices at once (numpy), so
# a device's own-op expectation is np(V)[host, local].

@dataclass
class Variant:
    jax: Callable
    np: Callable
    note: str


@dataclass
class Case:
    name: str
    n: int
    k: int
    differs: str
    variants: Callable[[int, int], Variant]
    """(host, n) -> that host's variant."""
    expect: str
    """What we expected before running (the README compares it with what happened)."""
    replicated: bool = True
    """The program says the output is the same on every host (for each local index):
    it comes straight from a collective over "hosts", laid out alike on every host."""
    interleaved: bool = False
    """The mesh takes the processes' devices alternately (position 2 l + p = process
    p's l-th device), so "local" crosses the processes and "hosts" stays inside one."""
    cross_axis: str = "hosts"
    """The mesh axis whose groups span processes (results compared along it)."""
    steps: int = 1
    """How many times each process runs its compiled step in a row (same input)."""
    finished: str = "stay"
    """What a process does once its step returned: "stay" (alive, no shutdown, until the
    parent kills it) or "exit" (returns from main: Python's exit runs JAX's atexit
    `jax.distributed.shutdown()`, as a script that ends does)."""


def _ops():
    import jax.numpy as jnp
    from jax import lax
    return jnp, lax


def v_psum(note="psum(x, hosts)"):
    _, lax = _ops()
    return Variant(lambda x: lax.psum(x, "hosts"), np_psum_hosts, note)


def v_pmax():
    _, lax = _ops()
    return Variant(lambda x: lax.pmax(x, "hosts"), np_pmax_hosts, "pmax(x, hosts)")


def v_psum_twice():
    _, lax = _ops()
    return Variant(lambda x: lax.psum(lax.psum(x, "hosts"), "hosts"),
                   lambda v: np_psum_hosts(np_psum_hosts(v)), "psum(psum(x, hosts), hosts)")


def v_python_if(host):
    """A logging branch: host 0 also computes the global sum of squares (a scalar
    psum, 4 bytes) and the output depends on it, so nothing removes it."""
    jnp, lax = _ops()
    if host == 0:  # the Python-level `if jax.process_index() == 0:` as the worker evaluates it
        def f(x):
            y = lax.psum(x, "hosts")
            stat = lax.psum(jnp.sum(x * x), "hosts")
            return jnp.where(stat >= 0, y, -y)
        return Variant(f, np_psum_hosts, "psum(x, hosts); stat = psum(sum(x*x), hosts) [process_index()==0 only]")
    return v_psum("psum(x, hosts)")


def v_baked_cond(host):
    """The same logging collective, but as `lax.cond` on `jax.process_index() == 0`
    inside the program: the process index is a trace-time constant."""
    jnp, lax = _ops()

    def f(x):
        y = lax.psum(x, "hosts")

        def log(v):
            stat = lax.psum(jnp.sum(x * x), "hosts")
            return jnp.where(stat >= 0, v, -v)
        return lax.cond(jnp.int32(host) == 0, log, lambda v: v, y)
    return Variant(f, np_psum_hosts, f"y = psum(x, hosts); lax.cond(int32({host}) == 0, psum(sum(x*x), hosts), id)")


def v_psum_wide():
    """The same psum over twice the bytes: f32[1, 2M] (32 bytes), sliced back."""
    jnp, lax = _ops()
    return Variant(lambda x: lax.psum(jnp.concatenate([x, x], axis=1), "hosts")[:, :M],
                   lambda v: np_psum_hosts(np_cat(v, v))[..., :M], "psum(concat(x, x), hosts)[:, :4] (32 bytes)")


def v_two_psums(host, first):
    """a = psum(x), b = psum(3x), independent, traced in the order `first`; output [a, b]."""
    jnp, lax = _ops()

    def f(x):
        if first == "a":
            a = lax.psum(x, "hosts")
            b = lax.psum(3 * x, "hosts")
        else:
            b = lax.psum(3 * x, "hosts")
            a = lax.psum(x, "hosts")
        return jnp.concatenate([a, b], axis=1)
    return Variant(f, lambda v: np_cat(np_psum_hosts(v), np_psum_hosts(3 * v)),
                   "a = psum(x); b = psum(3x)" if first == "a" else "b = psum(3x); a = psum(x)")


def v_two_sizes(host, first):
    """a = psum(x) (16 bytes), w = psum(concat(x, 2x)) (32 bytes), independent."""
    jnp, lax = _ops()

    def f(x):
        if first == "a":
            a = lax.psum(x, "hosts")
            w = lax.psum(jnp.concatenate([x, 2 * x], axis=1), "hosts")
        else:
            w = lax.psum(jnp.concatenate([x, 2 * x], axis=1), "hosts")
            a = lax.psum(x, "hosts")
        return jnp.concatenate([a, w], axis=1)
    return Variant(f, lambda v: np_cat(np_psum_hosts(v), np_psum_hosts(np_cat(v, 2 * v))),
                   "a = psum(x) [16 B]; w = psum([x, 2x]) [32 B]" if first == "a"
                   else "w = psum([x, 2x]) [32 B]; a = psum(x) [16 B]")


def v_kinds(host, first):
    """Independent psum(x) and all_gather(3x, hosts, tiled) in the order `first`;
    output [a rows..., g rows...] flattened into one row."""
    jnp, lax = _ops()

    def f(x):
        if first == "a":
            a = lax.psum(x, "hosts")
            g = lax.all_gather(3 * x, "hosts", tiled=True)
        else:
            g = lax.all_gather(3 * x, "hosts", tiled=True)
            a = lax.psum(x, "hosts")
        return jnp.concatenate([a, g.reshape(1, -1)], axis=1)

    def e(v):
        g = np_gather_hosts(3 * v)
        return np_cat(np_psum_hosts(v), g.reshape(g.shape[0], g.shape[1], 1, -1))
    return Variant(f, e, "a = psum(x); g = all_gather(3x, hosts)" if first == "a"
                   else "g = all_gather(3x, hosts); a = psum(x)")


def v_dependent(host):
    """The same two collectives, each feeding the other, in opposite orders:
    host 0 all_gather(psum(x)), host 1 psum(all_gather(x)); equal in exact arithmetic."""
    _, lax = _ops()
    if host == 0:
        return Variant(lambda x: lax.all_gather(lax.psum(x, "hosts"), "hosts", tiled=True).reshape(1, -1),
                       lambda v: _flat(np_gather_hosts(np_psum_hosts(v))), "all_gather(psum(x, hosts), hosts)")
    return Variant(lambda x: lax.psum(lax.all_gather(x, "hosts", tiled=True), "hosts").reshape(1, -1),
                   lambda v: _flat(np_psum_hosts(np_gather_hosts(v))), "psum(all_gather(x, hosts), hosts)")


def _flat(v):
    return v.reshape(v.shape[0], v.shape[1], 1, -1)


def v_two_psums_out(host, first):
    """As v_two_psums, but the output lists the results in the traced order too."""
    jnp, lax = _ops()
    if first == "a":
        return v_two_psums(host, "a")

    def f(x):
        b = lax.psum(3 * x, "hosts")
        a = lax.psum(x, "hosts")
        return jnp.concatenate([b, a], axis=1)
    return Variant(f, lambda v: np_cat(np_psum_hosts(3 * v), np_psum_hosts(v)), "b = psum(3x); a = psum(x); out [b, a]")


def v_two_sizes_out(host, first):
    jnp, lax = _ops()
    if first == "a":
        return v_two_sizes(host, "a")

    def f(x):
        w = lax.psum(jnp.concatenate([x, 2 * x], axis=1), "hosts")
        a = lax.psum(x, "hosts")
        return jnp.concatenate([w, a], axis=1)
    return Variant(f, lambda v: np_cat(np_psum_hosts(np_cat(v, 2 * v)), np_psum_hosts(v)),
                   "w = psum([x, 2x]) [32 B]; a = psum(x) [16 B]; out [w, a]")


def v_kinds_out(host, first):
    jnp, lax = _ops()
    if first == "a":
        return v_kinds(host, "a")

    def f(x):
        g = lax.all_gather(3 * x, "hosts", tiled=True)
        a = lax.psum(x, "hosts")
        return jnp.concatenate([g.reshape(1, -1), a], axis=1)

    def e(v):
        g = np_gather_hosts(3 * v)
        return np_cat(g.reshape(g.shape[0], g.shape[1], 1, -1), np_psum_hosts(v))
    return Variant(f, e, "g = all_gather(3x, hosts); a = psum(x); out [g, a]")


def v_forced_order(host):
    """a = psum(x) and b = psum(3x), same size, ordered by a data dependence that
    computes nothing (0 * the other result): host 0 a then b, host 1 b then a."""
    jnp, lax = _ops()
    if host == 0:
        def f(x):
            a = lax.psum(x, "hosts")
            b = lax.psum(3 * x + 0 * a, "hosts")
            return jnp.concatenate([a, b], axis=1)
        note = "a = psum(x); b = psum(3x + 0*a)"
    else:
        def f(x):
            b = lax.psum(3 * x, "hosts")
            a = lax.psum(x + 0 * b, "hosts")
            return jnp.concatenate([a, b], axis=1)
        note = "b = psum(3x); a = psum(x + 0*b)"
    return Variant(f, lambda v: np_cat(np_psum_hosts(v), np_psum_hosts(3 * v)), note)


def v_psum_all():
    """psum over both axes: a group of all 8 devices that no other op uses."""
    _, lax = _ops()
    return Variant(lambda x: lax.psum(lax.psum(x, "hosts"), ("hosts", "local")),
                   lambda v: np_psum_local(np_psum_hosts(np_psum_hosts(v))),
                   "psum(psum(x, hosts), (hosts, local))")


def v_scalar(kind):
    jnp, lax = _ops()
    red = lax.psum if kind == "psum" else lax.pmax
    npred = np_psum_hosts if kind == "psum" else np_pmax_hosts
    return Variant(lambda x: red(jnp.sum(x, axis=1, keepdims=True), "hosts") + 0 * x,
                   lambda v: npred(v.sum(axis=3, keepdims=True)) + 0 * v, f"{kind}(sum(x), hosts) (4 bytes)")


def v_over_local(kind):
    _, lax = _ops()
    red, npred = (lax.psum, np_psum_local) if kind == "psum" else (lax.pmax, lambda v: np.broadcast_to(
        v.max(axis=1, keepdims=True), v.shape).copy())
    return Variant(lambda x: red(x, "local"), npred, f"{kind}(x, local)")


def v_local_extra(host):
    """psum over "hosts"; host 1 also adds a psum over the host-local axis."""
    _, lax = _ops()
    if host == 1:
        return Variant(lambda x: lax.psum(x, "hosts") + lax.psum(x, "local"),
                       lambda v: np_psum_hosts(v) + np_psum_local(v), "psum(x, hosts) + psum(x, local)")
    return v_psum()


def v_gather_extra(host):
    """psum over "hosts"; host 0 (the coordinator's process) also all-gathers x over
    "hosts" into its output: an extra collective of another kind."""
    jnp, lax = _ops()
    if host == 0:
        def f(x):
            return jnp.concatenate([lax.psum(x, "hosts"), lax.all_gather(x, "hosts", tiled=True).reshape(1, -1)],
                                   axis=1)

        def e(v):
            g = np_gather_hosts(v)
            return np_cat(np_psum_hosts(v), g.reshape(g.shape[0], g.shape[1], 1, -1))
        return Variant(f, e, "[psum(x, hosts), all_gather(x, hosts)]")
    return v_psum()


def np_scatter_hosts(v):
    """psum_scatter(x, hosts, scatter_dimension=1, tiled): host h keeps columns
    [h M/n, (h+1) M/n) of the sum over hosts."""
    n = v.shape[0]
    total = v.sum(axis=0)
    w = v.shape[3] // n
    return np.stack([total[..., h * w:(h + 1) * w] for h in range(n)])


def v_scatter(host):
    """Host 1 reduce-scatters over "hosts" (psum_scatter) where host 0 all-reduces
    (psum): another kind, 8 bytes out of 16 in."""
    jnp, lax = _ops()
    if host == 1:
        return Variant(lambda x: jnp.concatenate([lax.psum_scatter(x, "hosts", scatter_dimension=1, tiled=True)] * 2,
                                                 axis=1),
                       lambda v: np_cat(np_scatter_hosts(v), np_scatter_hosts(v)),
                       "psum_scatter(x, hosts, dim 1, tiled), twice side by side")
    return v_psum()


def v_int_sum(host):
    """Host 1 sums the same 16 bytes as int32 (bitcast): one size, another element type."""
    jnp, lax = _ops()
    if host == 1:
        def f(x):
            return lax.bitcast_convert_type(lax.psum(lax.bitcast_convert_type(x, jnp.int32), "hosts"), jnp.float32)

        def e(v):
            total = v.view(np.int32).sum(axis=0, keepdims=True, dtype=np.int32)
            return np.broadcast_to(total, v.shape).copy().view(np.float32)
        return Variant(f, e, "bitcast<f32>(psum(bitcast<i32>(x), hosts))")
    return v_psum()


def v_local_gather(host):
    """psum over "hosts"; host 1 also all-gathers over the host-local axis."""
    jnp, lax = _ops()
    if host == 1:
        def f(x):
            g = lax.all_gather(x, "local", tiled=True)  # (k, M): every local device's block
            return lax.psum(x, "hosts") + jnp.sum(g, axis=0, keepdims=True)
        return Variant(f, lambda v: np_psum_hosts(v) + np_psum_local(v),
                       "psum(x, hosts) + sum(all_gather(x, local))")
    return v_psum()


def np_shift_hosts(v, step):
    """ppermute over "hosts" by `step` (device at host h receives host h - step's block)."""
    return np.roll(v, step, axis=0)


def v_ring(host, n, step):
    """ppermute(x, hosts) around the ring of hosts by `step`."""
    _, lax = _ops()
    perm = [(h, (h + step) % n) for h in range(n)]
    return Variant(lambda x: lax.ppermute(x, "hosts", perm), lambda v: np_shift_hosts(v, step),
                   f"ppermute(x, hosts, ring {'+' if step > 0 else '-'}1)")


def v_loop(trips):
    """psum over "hosts" inside a fori_loop of `trips` iterations (x <- psum(x) / 2)."""
    _, lax = _ops()

    def e(v):
        for _ in range(trips):
            v = np_psum_hosts(v) / 2
        return v
    return Variant(lambda x: lax.fori_loop(0, trips, lambda i, y: lax.psum(y, "hosts") / 2, x), e,
                   f"fori_loop({trips}): x = psum(x, hosts) / 2")


def v_unused_extra(host):
    """Host 0 also computes psum(sum(x*x), hosts) and never uses it."""
    jnp, lax = _ops()
    if host == 0:
        def f(x):
            lax.psum(jnp.sum(x * x), "hosts")  # unused: does it reach the compiled program?
            return lax.psum(x, "hosts")
        return Variant(f, np_psum_hosts, "psum(x, hosts); psum(sum(x*x), hosts) unused [host 0 only]")
    return v_psum()


CASES = [
    Case("identical", 2, 4, "nothing: every host runs psum(x, hosts)", lambda h, n: v_psum(),
         "completes, every host the same sum"),
    Case("extra_collective", 2, 4, "host 1 runs a second psum over hosts",
         lambda h, n: v_psum_twice() if h == 1 else v_psum(),
         "host 0 completes; host 1 waits in its second psum (hang or gloo timeout)", replicated=False),
    Case("python_if_process0", 2, 4,
         "host 0 (Python `if jax.process_index() == 0`) runs an extra scalar psum over hosts",
         lambda h, n: v_python_if(h), "hang or abort (the extra psum has no partner)", replicated=True),
    Case("baked_cond_process0", 2, 4,
         "the extra scalar psum is in a lax.cond on int32(jax.process_index()) == 0 inside the program",
         lambda h, n: v_baked_cond(h), "like python_if_process0 once XLA folds the constant predicate"),
    Case("different_reduction", 2, 4, "host 0 psum, host 1 pmax over hosts",
         lambda h, n: v_pmax() if h == 1 else v_psum(), "completes; each host keeps a different result"),
    Case("different_shape", 2, 4, "the cross-host psum is f32[1,4] (16 B) on host 0, f32[1,8] (32 B) on host 1",
         lambda h, n: v_psum_wide() if h == 1 else v_psum(), "gloo aborts: received data size mismatch"),
    Case("different_shape_reversed", 2, 4, "as different_shape with the hosts swapped: 32 B on host 0, 16 B on host 1",
         lambda h, n: v_psum_wide() if h == 0 else v_psum(),
         "the host expecting fewer bytes aborts; is it process 0 (the coordination service's host)?"),
    Case("opposite_order_combinable", 2, 4,
         "two independent same-dtype psums (x, 3x) traced in opposite orders",
         lambda h, n: v_two_psums(h, "a" if h == 0 else "b"),
         "the combiner merges them into one tuple all-reduce; completes (values to be checked)"),
    Case("opposite_order_sizes", 2, 4,
         "two independent psums of different sizes (16 B, 32 B) traced in opposite orders",
         lambda h, n: v_two_sizes(h, "a" if h == 0 else "w"), "combined or not: sizes may cross"),
    Case("opposite_order_kinds", 2, 4, "independent psum and all_gather over hosts traced in opposite orders",
         lambda h, n: v_kinds(h, "a" if h == 0 else "g"), "not combinable (different kinds): hang or abort"),
    Case("opposite_order_dependent", 2, 4,
         "psum then all_gather with a data dependence on host 0, all_gather then psum on host 1",
         lambda h, n: v_dependent(h), "the first collectives differ in kind and size: hang or abort"),
    Case("opposite_order_combinable_outputs", 2, 4,
         "as opposite_order_combinable, and host 1 also returns [b, a] (the output follows the traced order)",
         lambda h, n: v_two_psums_out(h, "a" if h == 0 else "b"), "the combined tuples may cross", replicated=False),
    Case("opposite_order_sizes_outputs", 2, 4,
         "as opposite_order_sizes, and host 1 also returns [w, a]",
         lambda h, n: v_two_sizes_out(h, "a" if h == 0 else "w"), "the combined tuples may cross: size mismatch",
         replicated=False),
    Case("opposite_order_kinds_outputs", 2, 4,
         "as opposite_order_kinds, and host 1 also returns [g, a]",
         lambda h, n: v_kinds_out(h, "a" if h == 0 else "g"), "the schedules may cross: hang or abort",
         replicated=False),
    Case("opposite_order_forced_same_size", 2, 4,
         "psum(x) and psum(3x) (16 B each), ordered by a data dependence, opposite orders",
         lambda h, n: v_forced_order(h), "the k-th meets the k-th: completes with crossed values"),
    Case("extra_collective_new_group", 2, 4,
         "host 1 also runs a psum over (hosts, local): a group of all 8 devices nothing else uses",
         lambda h, n: v_psum_all() if h == 1 else v_psum(), "host 1's new communicator never forms",
         replicated=False),
    Case("extra_collective_exit", 2, 4,
         "extra_collective, but a process that finished exits (JAX's atexit shutdown) instead of staying",
         lambda h, n: v_psum_twice() if h == 1 else v_psum(), "host 1 sees host 0 leave", replicated=False,
         finished="exit"),
    Case("extra_collective_3_steps", 2, 4,
         "extra_collective, with every process running its step 3 times in a row (a training loop)",
         lambda h, n: v_psum_twice() if h == 1 else v_psum(),
         "host 0's later steps meet host 1's extra psums: host 0 completes 3 steps, host 1 waits in step 2",
         replicated=False, steps=3),
    Case("different_reduction_scalar", 2, 4, "psum(sum(x)) on host 0, pmax(sum(x)) on host 1: 4 bytes each",
         lambda h, n: v_scalar("pmax" if h == 1 else "psum"), "completes; one of the two reductions"),
    Case("local_axis_only", 2, 4, "host 1 also runs psum(x, local) (an axis inside the host)",
         lambda h, n: v_local_extra(h), "completes; the cross-host psum agrees", replicated=False),
    Case("different_reduction_interleaved", 2, 4,
         "mesh over the devices in alternating process order (process 0 at positions 0, 2, 4, 6); host 0 psum, "
         "host 1 pmax over \"local\", the axis that now crosses the processes",
         lambda h, n: v_over_local("pmax" if h == 1 else "psum"), "as different_reduction", interleaved=True,
         cross_axis="local"),
    Case("identical_4p", 4, 2, "nothing: every host runs psum(x, hosts)", lambda h, n: v_psum(),
         "completes, every host the same sum"),
    Case("extra_collective_4p", 4, 2, "host 2 runs a second psum over hosts",
         lambda h, n: v_psum_twice() if h == 2 else v_psum(), "hosts 0, 1, 3 complete; host 2 waits",
         replicated=False),
    Case("different_reduction_4p", 4, 2, "host 3 pmax, hosts 0-2 psum over hosts",
         lambda h, n: v_pmax() if h == 3 else v_psum(), "completes; results per host to be checked"),
    Case("extra_all_gather_process0", 2, 4,
         "host 0 (the coordinator's process) also all-gathers x over hosts into its output",
         lambda h, n: v_gather_extra(h), "host 1 completes; host 0 waits in its all-gather", replicated=False),
    Case("reduce_scatter_vs_psum", 2, 4, "host 0 psum(x, hosts), host 1 psum_scatter(x, hosts) (8 of 16 bytes out)",
         lambda h, n: v_scatter(h), "different kinds at one key: hang or abort", replicated=False),
    Case("different_dtype_same_bytes", 2, 4,
         "host 0 sums x as f32, host 1 the same 16 bytes as int32 (bitcast)",
         lambda h, n: v_int_sum(h), "completes; the sums are mixed", replicated=False),
    Case("ppermute_ring_4p", 4, 2, "nothing: every host sends x to the next host (ppermute over hosts, ring +1)",
         lambda h, n: v_ring(h, n, 1), "completes, each host the previous host's block", replicated=False),
    Case("ppermute_reversed_on_host3_4p", 4, 2, "hosts 0-2 send to the next host, host 3 to the previous one",
         lambda h, n: v_ring(h, n, -1 if h == 3 else 1), "the pairs differ: hang, abort or wrong blocks",
         replicated=False),
    Case("loop_trips_differ", 2, 4, "a psum over hosts in a fori_loop: 2 iterations on host 0, 3 on host 1",
         lambda h, n: v_loop(3 if h == 1 else 2), "host 0's loop ends first: host 1 waits in its 3rd psum",
         replicated=False),
    Case("loop_trips_same", 2, 4, "the same loop, 3 iterations on both hosts", lambda h, n: v_loop(3),
         "completes"),
    Case("unused_extra_process0", 2, 4, "host 0 also computes a scalar psum over hosts and never uses it",
         lambda h, n: v_unused_extra(h), "if XLA removes the unused psum: completes"),
    Case("different_reduction_2v2_4p", 4, 2, "hosts 0-1 psum, hosts 2-3 pmax over hosts (two programs, two hosts each)",
         lambda h, n: v_pmax() if h >= 2 else v_psum(), "completes; one mixture on every host"),
    Case("extra_collective_two_hosts_4p", 4, 2, "hosts 1 and 3 run a second psum over hosts",
         lambda h, n: v_psum_twice() if h in (1, 3) else v_psum(),
         "hosts 0, 2 complete; hosts 1, 3 wait (their extra psum's group spans all four hosts)", replicated=False),
    Case("local_all_gather_only", 2, 4, "host 1 also all-gathers x over local (an axis inside the host)",
         lambda h, n: v_local_gather(h), "completes; the cross-host psum agrees", replicated=False),
]
BY_NAME = {c.name: c for c in CASES}


def global_input(n: int, k: int) -> np.ndarray:
    """V[h, l, 0, j] = 1 + 100 h + 10 l + j: sums and maxima over hosts differ, and
    every value says where it came from."""
    h, l, j = np.meshgrid(np.arange(n), np.arange(k), np.arange(M), indexing="ij")
    return (1 + 100 * h + 10 * l + j).astype(np.float32)[:, :, None, :]


# ---------------------------------------------------------------- worker

def relative_paths(text: str) -> str:
    """File names in locations and HLO stack frames relative to the repository (the
    files read the same wherever the repository is checked out)."""
    return text.replace(str(HERE.parent) + os.sep, "")


def _phase(out: Path, pid: int, name: str, t0: float) -> None:
    with open(out / f"phases_{pid}.txt", "a", encoding="utf-8") as f:
        f.write(f"{time.time() - t0:.2f} {name}\n")
    print(f"hosts-generate: phase {name}", file=sys.stderr, flush=True)


def _orphan_guard(deadline_s: float) -> None:
    """Exit when the parent is gone or the deadline passed, even while blocked in a
    collective, so no process of a killed run outlives it."""
    parent, end = os.getppid(), time.monotonic() + deadline_s

    def watch() -> None:
        while os.getppid() == parent and time.monotonic() < end:
            time.sleep(0.5)
        os._exit(3)

    threading.Thread(target=watch, daemon=True).start()


def worker(case_name: str, pid: int, port: int, tmp: str, case_out: str, deadline_s: float) -> None:
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # the parent asks where we are blocked
    _orphan_guard(deadline_s + 30)
    case = BY_NAME[case_name]
    tmpd, outd = Path(tmp), Path(case_out)
    t0 = float(os.environ["HOSTS_T0"])

    def write(result: dict) -> None:
        part = tmpd / f"result_{pid}.json.tmp"
        part.write_text(json.dumps(result))
        os.replace(part, tmpd / f"result_{pid}.json")

    import jax
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    _phase(tmpd, pid, "initialize", t0)
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=case.n, process_id=pid,
                               initialization_timeout=30)
    devices = jax.devices()
    if case.interleaved:  # mesh position 2 l + p holds process p's l-th device (n = 2)
        devices = [devices[p * case.k + l] for l in range(case.k) for p in range(case.n)]
    mesh = Mesh(np.array(devices).reshape(case.n, case.k), ("hosts", "local"))
    flat = [d.id for d in mesh.devices.flat]
    local = [d.id for d in jax.local_devices()]
    made = [d.id for d in jax.make_mesh((case.n, case.k), ("hosts", "local")).devices.flat]
    ids = {"process_index": jax.process_index(), "jax_devices": [d.id for d in jax.devices()],
           "mesh_device_ids": flat,
           "local_device_ids": local, "mesh_positions": [flat.index(i) for i in local],
           "make_mesh_positions": [made.index(i) for i in local]}

    variant = case.variants(pid, case.n)
    spec = P(("hosts", "local"))
    step = jax.jit(jax.shard_map(variant.jax, mesh=mesh, in_specs=spec, out_specs=spec, check_vma=False))
    V = global_input(case.n, case.k)
    rows = V.reshape(case.n * case.k, M)
    arr = jax.make_array_from_callback(rows.shape, NamedSharding(mesh, spec), lambda idx: rows[idx])
    _phase(tmpd, pid, "lower", t0)
    lowered = step.lower(arr)
    (outd / f"host{pid}.mlir").write_text(lowered.as_text())
    # the same with locations (file:line of every op, the Python lines a report names)
    debug = lowered.compiler_ir("stablehlo").operation.get_asm(enable_debug_info=True)
    (outd / f"host{pid}.debug.mlir").write_text(relative_paths(debug))
    _phase(tmpd, pid, "compile", t0)
    compiled = lowered.compile()
    (outd / f"host{pid}.hlo").write_text(relative_paths(compiled.as_text()))
    # the executable's own view: its addressable devices in device-assignment (logical id) order
    ids["executable_local_devices"] = [d.id for d in compiled.runtime_executable().local_devices()]
    (outd / f"host{pid}.devices.json").write_text(json.dumps(ids) + "\n")
    for t in range(case.steps):
        _phase(tmpd, pid, "run" if case.steps == 1 else f"run step {t}", t0)
        try:
            out = compiled(arr)
            jax.block_until_ready(out)  # (dispatch is asynchronous: a blocked step blocks here)
            per_device = {flat.index(s.device.id): np.asarray(s.data).ravel().tolist() for s in out.addressable_shards}
        except Exception as e:  # noqa: BLE001 - the outcome we are here to record
            _phase(tmpd, pid, "raised", t0)
            write({"status": "raised", "message": f"{type(e).__name__}: {e}"})
            return
        with open(tmpd / f"steps_{pid}.jsonl", "a", encoding="utf-8") as f:  # a step that returned, kept
            f.write(json.dumps({str(p): v for p, v in sorted(per_device.items())}) + "\n")
    _phase(tmpd, pid, "done", t0)
    write({"status": "completed"})


# ---------------------------------------------------------------- parent

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        pass


_NOISE = re.compile(r"Platform 'cuda'|TPU|tpu_|An NVIDIA GPU|Falling back to cpu|^\s*$")
_MESSAGE = re.compile(r"(error|Error|mismatch|timed out|Timed out|timeout|Timeout|Check failed|abort|Abort|"
                      r"terminate|Terminat|stuck|not responding|Fatal|fatal|UNAVAILABLE|DEADLINE|INTERNAL)")


def _messages(log: str) -> list[str]:
    """The log lines that say something went wrong (absl / gloo / XLA), de-duplicated."""
    seen, out = set(), []
    for line in log.splitlines():
        if _NOISE.search(line) or not _MESSAGE.search(line) or line.startswith(("  File", "Thread", "Current")):
            continue
        key = re.sub(r"^[EWIF]\d{4} [\d:.]+\s+\d+\s+", "", line)[:300]
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out[:12]


def _blocked_frames(log: str) -> list[str]:
    """The main thread's Python stack from faulthandler's SIGUSR1 dump, innermost first."""
    blocks = re.split(r"\n(?=(?:Current thread|Thread) 0x)", log)
    for block in reversed(blocks):  # the signal is handled on the main thread, which faulthandler calls current
        if block.startswith("Current thread"):
            frames = re.findall(r'File "([^"]+)", line (\d+) in (\S+)', block)
            return [f"{Path(f).name}:{line} in {fn}" for f, line, fn in frames][:8]
    return []


def _collectives(text: str, hlo: bool) -> list[str]:
    """One line per collective: kind, result type, groups (the compiled HLO's async
    -done halves are left out: the -start says it all)."""
    out = []
    if hlo:
        for m in re.finditer(r"^\s*(?:ROOT )?%?[\w.\-]+ = (.+?) (all-reduce(?:-start)?|all-gather(?:-start)?|"
                             r"collective-permute(?:-start)?|all-to-all|reduce-scatter)\((.*)$", text, re.M):
            shape, kind, rest = m.groups()
            groups = re.search(r"replica_groups=(\{(?:\{[\d,]*\},?)*\}|\[[^\]]*\]<=\[[^\]]*\](?:T\([\d,]*\))?)", rest)
            apply = re.search(r"to_apply=%?([\w.\-]+)", rest)
            red = ""
            if apply:  # the reduction the to_apply computation's root computes
                body = re.search(r"^%" + re.escape(apply.group(1)) + r" .*?\n\s*ROOT [^=]+= \S+ (\w+)\(",
                                 text, re.M | re.S)
                red = f" {body.group(1)}" if body else ""
            out.append(f"{kind}{red} {shape}" + (f" groups={groups.group(1)}" if groups else ""))
    else:
        for m in re.finditer(r'"?stablehlo\.(all_reduce|all_gather|collective_permute|all_to_all|reduce_scatter)'
                             r'"?\((.*)$', text, re.M):
            kind, rest = m.groups()
            groups = re.search(r"replica_groups = dense<(.*?)> : tensor", rest)
            red = ""
            if kind == "all_reduce":
                body = text[m.end():m.end() + 400]
                op = re.search(r"stablehlo\.(add|maximum|minimum|multiply|and|or)", body)
                red = f" {op.group(1)}" if op else ""
            typ = re.search(r"->\s*(\(?tensor<[^>]*>)", text[m.start():m.end() + 600])
            out.append(f"{kind}{red} {typ.group(1) if typ else ''}" + (f" groups={groups.group(1)}" if groups else ""))
    return out


def run_case(case: Case, out_root: Path, timeout_s: float, keep_logs: str | None = None) -> dict:
    case_out = out_root / case.name
    case_out.mkdir(parents=True, exist_ok=True)
    for old in case_out.glob("host*.*"):
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="hosts-generate-") as tmp:
        tmpd = Path(tmp)
        port = free_port()
        t0 = time.time()
        env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={case.k}",
                   HOSTS_T0=repr(t0), JAX_PLATFORMS="cpu", PYTHONUNBUFFERED="1")
        procs = {}
        for i in range(case.n):
            with open(tmpd / f"log_{i}.txt", "wb") as log:
                procs[i] = subprocess.Popen(
                    [sys.executable, str(Path(__file__).resolve()), "--worker", case.name, str(i), str(port), tmp,
                     str(case_out), str(timeout_s)],
                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True)
        try:
            while time.time() - t0 < timeout_s:
                time.sleep(0.2)
                finished = [i for i in procs if (tmpd / f"result_{i}.json").exists() or procs[i].poll() is not None]
                if len(finished) == case.n:
                    break
            written = {i: (_read(tmpd / f"result_{i}.json"), _read(tmpd / f"phases_{i}.txt"),
                           _read(tmpd / f"steps_{i}.jsonl")) for i in procs}
            exits = {i: procs[i].poll() for i in procs}
            alive = [i for i in procs if exits[i] is None and not written[i][0]]
            asked = alive + [i for i in procs if exits[i] is None and case.finished == "exit" and i not in alive]
            for i in asked:  # where is it blocked? (faulthandler, registered by the worker)
                try:
                    os.kill(procs[i].pid, signal.SIGUSR1)
                except ProcessLookupError:
                    pass
            if asked:
                time.sleep(1.5)
            ended = time.time() - t0
            # what each process said up to now (with the stacks): killing one makes the others fail
            # on its lost connections, which is our doing, not the job's
            logs = {i: _read(tmpd / f"log_{i}.txt") for i in procs}
        finally:
            for p in procs.values():
                _kill_group(p)
        if keep_logs:
            keep = Path(keep_logs) / case.name
            keep.mkdir(parents=True, exist_ok=True)
            for i, text in logs.items():
                (keep / f"log_{i}.txt").write_text(text)
        return _verdict(case, exits, alive, ended, timeout_s, case_out, logs, written)


def _verdict(case: Case, exits: dict, alive: list[int], ended: float, timeout_s: float,
             case_out: Path, logs: dict[int, str], written: dict[int, tuple[str, str, str]]) -> dict:
    V = global_input(case.n, case.k)
    processes = []
    observed: dict[int, list[dict]] = {}
    for i in range(case.n):
        log = logs[i]
        res_text, phase_text, steps_text = written[i]
        phases = [ln.split(" ", 1) for ln in phase_text.splitlines()]
        res = json.loads(res_text) if res_text else None
        ids = json.loads(_read(case_out / f"host{i}.devices.json") or "null")
        variant = case.variants(i, case.n)
        entry = {"process": i, "program": variant.note, "device_ids": ids,
                 "phases_s": {p: float(t) for t, p in phases}}
        own = variant.np(V).reshape(case.n * case.k, -1)  # by mesh position
        steps = [{int(p): np.array(v) for p, v in json.loads(ln).items()} for ln in steps_text.splitlines()]
        observed[i] = steps
        if steps:
            entry["results"] = {p: v.tolist() for p, v in steps[0].items()}
            if case.steps > 1:
                entry["results_per_step"] = [{p: v.tolist() for p, v in st.items()} for st in steps]
            wrong = [(t, p) for t, st in enumerate(steps) for p, v in st.items()
                     if not np.array_equal(v, own[p])]
            entry["matches_own_program"] = not wrong
            if wrong:
                entry["own_program_expects"] = {p: own[p].tolist() for p in sorted({p for _, p in wrong})}
                if case.steps > 1:
                    entry["steps_not_matching"] = sorted({t for t, _ in wrong})
        if res and res["status"] == "completed":
            entry["outcome"] = "completed"
            if case.finished == "exit":
                entry["exit_status"] = exits[i]
                if exits[i] is None:
                    entry["after_done_blocked_in"] = _blocked_frames(log)
        elif res and res["status"] == "raised":
            entry["outcome"] = "aborted"
            entry["exception"] = res["message"][:2000]
        elif i in alive:
            entry["outcome"] = "hung"
            entry["killed_at_s"] = round(ended, 1)
            entry["blocked_in"] = _blocked_frames(log)
        else:
            entry["outcome"] = "aborted"
            entry["exit_status"] = exits[i]
        entry["messages"] = _messages(log)
        for suffix, hlo in (("mlir", False), ("hlo", True)):
            entry[f"collectives_{suffix}"] = _collectives(_read(case_out / f"host{i}.{suffix}"), hlo)
        processes.append(entry)
    verdict = {"case": case.name, "processes": case.n, "devices_per_process": case.k,
               "mesh": f"Mesh(jax.devices() reshaped ({case.n}, {case.k}), ('hosts', 'local'))",
               "differs": case.differs, "expected_before_running": case.expect,
               "outcome": _summary(processes), "limits": {"job_wall_clock_s": timeout_s,
                                                          "jax_distributed_initialization_timeout_s": 30},
               "elapsed_s": round(ended, 1), "per_process": processes}
    common = min(len(st) for st in observed.values())
    if common:  # the steps every process returned from: do the devices of each cross-host group agree?
        merged = [{p: v for i in observed for p, v in observed[i][t].items()} for t in range(common)]
        groups = ([[h * case.k + l for h in range(case.n)] for l in range(case.k)] if case.cross_axis == "hosts"
                  else [[h * case.k + l for l in range(case.k)] for h in range(case.n)])
        verdict["cross_host_groups"] = groups
        verdict["hosts_results_agree"] = all(np.array_equal(m[g[0]], m[q]) for m in merged for g in groups for q in g)
        verdict["program_says_agree"] = case.replicated
    return verdict


def _summary(processes: list[dict]) -> str:
    kinds = [p["outcome"] for p in processes]
    if all(k == "completed" for k in kinds):
        return "completed" if all(p.get("matches_own_program") for p in processes) \
            else "completed, results differ from what each host's program asks for"
    if "aborted" in kinds:
        return "aborted"
    return "hung"


def device_ids(cases: dict) -> dict:
    """Who owns which devices, as the identical jobs measured it (per layout): each
    process's jax device ids and their positions in the mesh (= the logical ids in
    the modules' replica_groups and device assignment)."""
    out = {}
    for name in ("identical", "identical_4p"):
        if name not in cases:
            continue
        case = cases[name]
        layout = f"{case['processes']}x{case['devices_per_process']}"
        out[layout] = {f"process {p['process']}": {k: p["device_ids"][k] for k in (
            "local_device_ids", "mesh_positions", "make_mesh_positions", "executable_local_devices")
            if p.get("device_ids") and k in p["device_ids"]} for p in case["per_process"]}
        first = case["per_process"][0].get("device_ids") or {}
        out[layout]["jax.devices() order"] = first.get("jax_devices")
    return out


def dumps(value, indent: int = 0) -> str:
    """JSON with one key per line but lists of scalars on one line (results stay legible)."""
    pad = " " * (indent + 1)
    if isinstance(value, dict) and value:
        items = [f"{pad}{json.dumps(str(k))}: {dumps(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        if all(isinstance(v, list) and not any(isinstance(w, (dict, list)) for w in v) for v in value):
            return "[" + ", ".join(json.dumps(v) for v in value) + "]"
        return "[\n" + ",\n".join(pad + dumps(v, indent + 1) for v in value) + "\n" + " " * indent + "]"
    return json.dumps(value)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--worker":
        name, pid, port, tmp, case_out, deadline = argv[1:7]
        worker(name, int(pid), int(port), tmp, case_out, float(deadline))
        sys.stdout.flush()
        sys.stderr.flush()
        if BY_NAME[name].finished == "exit":
            return 0
        while True:  # stay alive until the parent kills us (see the module docstring)
            time.sleep(3600)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(HERE / "hosts"))
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--timeout", type=float, default=90.0, help="wall-clock limit per job (s)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--logs", help="also copy every process's full log to LOGS/<case>/log_<i>.txt")
    args = ap.parse_args(argv)
    if args.list:
        for c in CASES:
            print(f"{c.name:28} {c.n}x{c.k}  {c.differs}")
        return 0
    out = Path(args.out)
    manifest_path = out / "VERDICTS.json"
    manifest = json.loads(_read(manifest_path) or "{}")
    import jax
    manifest.setdefault("cases", {})
    manifest["jax_version"] = jax.__version__
    for case in CASES:
        if args.only and case.name not in args.only:
            continue
        print(f"== {case.name} ({case.n}x{case.k})", flush=True)
        verdict = run_case(case, out, args.timeout, args.logs)
        manifest["cases"][case.name] = verdict
        print(f"   {verdict['outcome']} in {verdict['elapsed_s']} s: "
              + "; ".join(f"p{p['process']} {p['outcome']}" for p in verdict["per_process"]), flush=True)
        manifest["cases"] = {c.name: manifest["cases"][c.name] for c in CASES if c.name in manifest["cases"]}
        manifest["device_ids"] = device_ids(manifest["cases"])
        manifest_path.write_text(dumps(manifest) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Check, before the first step, that every process of a multi-controller JAX job
runs the same communication.

    import jax, shlo_lint

    jax.distributed.initialize(...)
    lowered = jax.jit(step).lower(*args)            # or .compile()
    findings = shlo_lint.check_hosts(lowered, timeout=60)   # on every process, at the same point
    shlo_lint.assert_same_on_hosts(lowered)          # or: raise with the report

Each process computes its program's *communication signature* (the collectives
each class of its devices runs, with what they compute and their Python lines:
checker/analysis/process_model/signature.py; not the program text), the
processes exchange them through the coordination service's key-value store
that `jax.distributed.initialize` started, and every process decides the same
merged system (process_model/merge_hosts.py, the decision the `shlo-lint hosts`
command makes from files) and returns the same findings: empty when the hosts
agree. A process that does not answer within `timeout` seconds is a finding
that names it (SHLO514), never a hang.

The exchange (measured in corpus/hosts/kv_probe.py, corpus/hosts/README.md):
keys carry a per-call sequence number (every process calls at the same point,
so a local counter agrees; a key cannot be set twice), each read is a
`blocking_key_value_get` with what is left of one deadline, and

1. every process sets its program digest and devices; when every process
   answered with the same digest, nothing else is needed (the common case: no
   signature is computed);
2. otherwise the lowest process of each distinct program sets that program's
   signature over every device (each host's is its restriction);
3. every process sets the processes it heard from, and every one decides on the
   view of the lowest process it hears from in this round: a process that
   gave up on a late peer and the late peer itself return the same findings.

The time is split over the rounds (60%, 25%, 15% of `timeout`).
Nothing here imports JAX at module import: the object passed in brings it.
"""
from __future__ import annotations

import itertools
import json
import time
from typing import Any

from shlo_lint.checker.lint import registry
from shlo_lint.checker.lint.host_programs import (HostProgram, HostsVerdict, Signature, SignatureError, decide, diagnostics,
                                          not_checked, program_digest, python_locator, restrict, sign_text)
from shlo_lint.checker.source.diagnostics import Diagnostic, Location, Severity
from shlo_lint.jax_api import mlir_text

__all__ = ["HostsMismatch", "HostFindings", "assert_same_on_hosts", "check_hosts"]

PREFIX = "shlo-lint/check_hosts"
ROUNDS = (0.60, 0.85, 1.0)
"""Where each round's deadline falls, as a fraction of `timeout`."""
_CALLS = itertools.count()
"""This process's calls so far: the sequence number in the keys."""


class HostsMismatch(AssertionError):
    """Raised by `assert_same_on_hosts`: the message is the readable report."""

    def __init__(self, findings: "HostFindings"):
        super().__init__(findings.report())
        self.findings = findings


class HostFindings(list):
    """The findings of one `check_hosts` call (a list of Diagnostics, the same on
    every process), with `verdict` (the decision, None when it could not be
    made), `seconds`, and `report()`."""

    def __init__(self, diagnostics: list[Diagnostic], verdict: HostsVerdict | None, seconds: float,
                 process: int):
        super().__init__(diagnostics)
        self.verdict = verdict
        self.seconds = seconds
        self.process = process

    def report(self) -> str:
        from shlo_lint.checker.report import render

        body = render("text", list(self), {}, registry.get, summary={"files": 1, "failed_files": 0})
        return f"shlo-lint check_hosts (process {self.process}):\n{body}"


def check_hosts(lowered_or_compiled: Any, *, timeout: float = 60.0, devices: list[int] | None = None,
                options: dict | None = None, client: Any = None) -> HostFindings:
    """Compare this process's program with every other process's (see the module
    docstring). Call it on every process at the same point.

    `lowered_or_compiled`: `jax.jit(f).lower(...)` (its StableHLO is compared) or
    `.compile()` (its HLO: what XLA runs, in the order it runs it), or program
    text. `devices`: the logical device ids (positions in the device assignment)
    this process runs; by default read from the object's shardings, else an
    even split by process index. `options`: the analysis options (`-O`).
    `client`: the key-value client (default: jax.distributed's)."""
    import jax

    t0 = time.monotonic()
    registry.load()
    pid, count = jax.process_index(), jax.process_count()
    text = program_text(lowered_or_compiled)
    digest = program_digest(text)
    mine = list(devices) if devices is not None else my_devices(lowered_or_compiled, text)
    if count == 1:
        return HostFindings([], HostsVerdict("same program"), time.monotonic() - t0, pid)
    kv = _Exchange(client if client is not None else _client(), f"{PREFIX}/{next(_CALLS)}", t0, timeout)
    # 1. digests and devices
    kv.set(f"d/{pid}", json.dumps({"program": digest, "devices": mine}))
    heard: dict[int, dict] = {pid: {"program": digest, "devices": mine}}
    for q in range(count):
        if q != pid:
            got = kv.get(f"d/{q}", ROUNDS[0])
            if got is not None:
                heard[q] = json.loads(got)
    # 2. one signature per distinct program, from its lowest process
    programs = {h["program"] for h in heard.values()}
    published = len(programs) > 1 and min(q for q, h in heard.items() if h["program"] == digest) == pid
    if published:
        kv.set(f"s/{digest}", sign_text(text, options).dumps())
    # 3. the views
    kv.set(f"v/{pid}", json.dumps(sorted(heard)))
    view = None
    for q in range(count):
        got = json.dumps(sorted(heard)) if q == pid else kv.get(f"v/{q}", ROUNDS[2])
        if got is not None:
            view = [int(x) for x in json.loads(got)]
            break
    view = view or sorted(heard)
    for q in view:  # a process the leader heard from and this one did not: read its answer now
        if q not in heard:
            got = kv.get(f"d/{q}", ROUNDS[2])
            if got is not None:
                heard[q] = json.loads(got)
    view = [q for q in view if q in heard]
    if not published and len({heard[q]["program"] for q in view}) > 1 and \
            min(q for q in view if heard[q]["program"] == digest) == pid:
        kv.set(f"s/{digest}", sign_text(text, options).dumps())  # the leader heard of a program this one did not
    verdict, found = _decide(kv, heard, view, count, text, digest, options)
    return HostFindings(found, verdict, time.monotonic() - t0, pid)


def assert_same_on_hosts(lowered_or_compiled: Any, *, timeout: float = 60.0, fail_on: str = "warning",
                         **kwargs: Any) -> HostFindings:
    """`check_hosts`, raising HostsMismatch (an AssertionError) with the report when
    a finding at or above `fail_on` is returned; else the findings."""
    __tracebackhide__ = True
    found = check_hosts(lowered_or_compiled, timeout=timeout, **kwargs)
    threshold = Severity(fail_on).rank
    if any(d.severity.rank <= threshold for d in found):
        raise HostsMismatch(found)
    return found


# --------------------------------------------------------------------------- the decision
def _decide(kv: "_Exchange", heard: dict[int, dict], view: list[int], count: int, text: str, digest: str,
            options: dict | None) -> tuple[HostsVerdict | None, list[Diagnostic]]:
    def name(q: int) -> str:
        return f"process {q}"

    missing = [q for q in range(count) if q not in view]
    lost = [not_checked(f"{name(q)} did not answer check_hosts within {kv.timeout:g} s (it did not call it at this "
                        f"point, or started too late): its program was not compared") for q in missing]
    programs = {heard[q]["program"] for q in view}
    hosts: list[HostProgram] = []
    verdict: HostsVerdict | None = None
    if len(programs) > 1:
        full: dict[str, Signature] = {}
        for d in sorted(programs):
            if d == digest:
                full[d] = sign_text(text, options)
                continue
            got = kv.get(f"s/{d}", ROUNDS[2])
            if got is None:
                lost.append(not_checked(f"the signature of the program of {name(min(q for q in view if heard[q]['program'] == d))} "
                                        f"did not arrive within {kv.timeout:g} s"))
                continue
            try:
                full[d] = Signature.loads(got)
            except SignatureError as e:
                lost.append(not_checked(f"the signature of {name(min(q for q in view if heard[q]['program'] == d))} "
                                        f"could not be read: {e}"))
        if all(heard[q]["program"] in full for q in view):
            hosts = [HostProgram(name(q), restrict(full[heard[q]["program"]], heard[q]["devices"]), None) for q in view]
            verdict = decide(hosts, options)
    else:
        verdict = HostsVerdict("same program")
    located = diagnostics(verdict, hosts, python_locator(lambda h: f"<{h.name}'s program>")) if verdict else []
    spec = registry.get("SHLO514")
    extra = [Diagnostic(spec.code, spec.name, spec.category, Severity.ERROR, f.message, Location("<check_hosts>"))
             for f in lost]
    return verdict, extra + located


# --------------------------------------------------------------------------- JAX glue
def program_text(obj: Any) -> str:
    """What is compared: a compiled object's HLO (`as_text()` of a `Compiled`),
    else the StableHLO with locations (jax_api.mlir_text)."""
    if hasattr(obj, "runtime_executable") and callable(getattr(obj, "as_text", None)):
        return obj.as_text()
    return mlir_text(obj)


def my_devices(obj: Any, text: str) -> list[int]:
    """This process's logical device ids: the positions of its devices in the
    object's device assignment (a sharding's `_device_assignment`, a mesh's
    device order), else an even split of the program's devices by process index."""
    import jax

    pid = jax.process_index()
    assignment = _assignment(obj)
    if assignment:
        return [i for i, d in enumerate(assignment) if getattr(d, "process_index", None) == pid]
    n = _grid_size(text)
    k = jax.process_count()
    return list(range(pid * n // k, (pid + 1) * n // k)) if n else []


def _assignment(obj: Any) -> list | None:
    """The object's devices in logical order (JAX's device assignment), or None.
    JAX keeps it in private fields (`Lowered._lowering._device_list`, a
    sharding's `_device_assignment`); each is tried, and only a list of devices
    is taken."""
    import jax

    def devices(seq) -> list | None:
        seq = list(seq) if seq is not None else []
        return seq if seq and all(hasattr(d, "process_index") for d in seq) else None

    lowering = getattr(obj, "_lowering", None)
    got = devices(getattr(lowering, "_device_list", None))
    if got:
        return got
    shardings = []
    for attr in ("input_shardings", "output_shardings"):
        try:
            shardings += jax.tree_util.tree_leaves(getattr(obj, attr, None))
        except Exception:  # noqa: BLE001 - an object without them
            pass
    args = getattr(lowering, "compile_args", None) or {}
    for key in ("in_shardings", "out_shardings"):
        try:
            shardings += jax.tree_util.tree_leaves(args.get(key))
        except Exception:  # noqa: BLE001
            pass
    mesh = args.get("context_mesh")
    for s in shardings:
        got = devices(getattr(s, "_device_assignment", None))
        if got:
            return got
        m = getattr(s, "mesh", None)
        got = devices(m.devices.flat) if getattr(m, "devices", None) is not None else None
        if got:
            return got
    if getattr(mesh, "devices", None) is not None and getattr(mesh.devices, "size", 0):
        return devices(mesh.devices.flat)
    return None


def _grid_size(text: str) -> int:
    import re

    p = re.search(r"mhlo\.num_partitions = (\d+)|num_partitions=(\d+)", text[:20000])
    r = re.search(r"mhlo\.num_replicas = (\d+)|replica_count=(\d+)", text[:20000])
    parts = int(next(g for g in p.groups() if g)) if p else 1
    reps = int(next(g for g in r.groups() if g)) if r else 1
    return parts * reps


def _client():
    try:
        from jax._src import distributed
    except ImportError:  # pragma: no cover - a JAX without it
        raise RuntimeError("check_hosts needs jax.distributed (JAX's coordination service)") from None
    client = distributed.global_state.client
    if client is None:
        raise RuntimeError("check_hosts: jax.distributed.initialize() has not been called in this process")
    return client


class _Exchange:
    """Keys under one call's prefix; every read waits at most until its round's
    deadline (never longer: a missing key is None)."""

    def __init__(self, client: Any, prefix: str, t0: float, timeout: float):
        self.client, self.prefix, self.t0, self.timeout = client, prefix, t0, timeout

    def set(self, key: str, value: str) -> None:
        # (two processes of one program that did not hear of each other both set its
        # signature: the same value, so the second may overwrite the first)
        self.client.key_value_set(f"{self.prefix}/{key}", value, allow_overwrite=True)

    def get(self, key: str, until: float) -> str | None:
        left = self.t0 + self.timeout * until - time.monotonic()
        if left <= 0:
            try:
                return self.client.key_value_try_get(f"{self.prefix}/{key}")
            except Exception:  # noqa: BLE001 - NOT_FOUND
                return None
        try:
            return self.client.blocking_key_value_get(f"{self.prefix}/{key}", max(1, int(left * 1000)))
        except Exception as e:  # noqa: BLE001 - JaxRuntimeError: DEADLINE_EXCEEDED (the key never came)
            if "DEADLINE_EXCEEDED" in str(e) or "NOT_FOUND" in str(e):
                return None
            raise

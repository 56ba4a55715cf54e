"""Where the devices of an HLO run stopped (the parent side; no jax): the progress
markers' records mapped to HLO instructions (name, line, column, and the while /
conditional / call each runs in), and XLA:CPU's own abort lines mapped to the
instructions they can mean.
"""
from __future__ import annotations

import json
import os
import re

from ....analysis.semantics import Grid
from ....frontend.hlo import Computation, HloText, Instruction
from ....frontend.hlo.opcodes import ir_name
from ....ir import catalog
from ..markers import blocked_from_progress, read_progress
from .reading import callers_of, position

__all__ = ["progress", "call_stack", "abort_notes"]


def progress(tmp: str, path: str, module: HloText, grid: Grid):
    """(blocked, states, notes) from the devices' progress markers in the worker's
    directory; each marked op is the HLO instruction the worker read from its
    label."""
    labels, notes = None, []
    try:
        with open(os.path.join(tmp, "markers.json"), encoding="utf-8") as f:
            data = json.load(f)
        labels = data["ops"]
        notes += [n for n in (data.get("note"), data.get("order")) if n]
    except (OSError, ValueError, KeyError):
        pass
    records = read_progress(os.path.join(tmp, "progress.txt"))
    if not records or labels is None:
        return [], {}, notes
    index = {ins.name: ins for ins in module.instructions()}
    ops, kinds = [], []
    for label in labels:
        ins = index.get(label)
        if ins is not None:
            line, column = position(ins)
            ops.append((ins.opcode, line, column, None, f"%{ins.name}"))
            kinds.append(catalog.base_kind(ir_name(ins)))  # what the interpreter's report says of the same op
        else:
            ops.append((label, 0, 0, None))
            kinds.append(label)
    blocked, states = blocked_from_progress(records, ops, [o[0] for o in ops], grid.processes(), path,
                                            "XLA rendezvous", kinds)
    callers = callers_of(module)
    by_line = {position(ins)[0]: ins for ins in index.values()}
    for b in blocked:
        if b.line in by_line:
            b.stack = call_stack(by_line[b.line].computation, callers, path)
    return blocked, states, notes


def call_stack(comp: Computation, callers: dict[str, list[Instruction]], path: str) -> list[str]:
    """"while %w at path:line:col" for each instruction that runs `comp`, outermost
    first, as far as the chain is unique (a computation called from two places
    stops it: which one ran is not known)."""
    out: list[str] = []
    seen = set()
    while not comp.is_entry and comp.name not in seen:
        seen.add(comp.name)
        sites = callers.get(comp.name, [])
        if len(sites) != 1:
            break
        ins = sites[0]
        line, column = position(ins)
        out.append(f"{ins.opcode} %{ins.name} at {path}:{line}:{column}")
        comp = ins.computation
    return out[::-1]


# ----------------------------------------------------------------------------- XLA's abort lines
_RENDEZVOUS = re.compile(r"(Termination timeout for|has been waiting for) `([\w ]+?) RendezvousKey\{([^}]*)\}`"
                         r".*?Expected (\d+) threads to join the rendezvous, but (?:only (\d+)|not all) of them")


def abort_notes(log: str, module: HloText) -> list[str]:
    """One note per collective XLA:CPU gave up on (its termination lines; the
    stuck warnings when it was killed before): the collective kind, the device
    groups whose rendezvous failed, how many arrived, and the instructions it
    can be. Its `op_id` is the collective's channel_id (XLA:CPU's rendezvous
    key), so the candidates are the instructions of that kind with that channel."""
    found = _RENDEZVOUS.findall(log)
    final = [f for f in found if f[0].startswith("Termination")] or found
    groups: dict[tuple, list[tuple]] = {}
    for _, kind, key, expected, arrived in final:
        devices = re.search(r"global_devices=\[([\d, ]*)\]", key)
        op_id = re.search(r"op_id=(-?\d+)", key)
        ids = tuple(int(d) for d in devices.group(1).split(",") if d.strip()) if devices else ()
        what = (kind.replace(" ", "-"), op_id.group(1) if op_id else None, expected, arrived)
        if ids not in groups.setdefault(what, []):
            groups[what].append(ids)
    notes = []
    for (opcode, op_id, expected, arrived), device_groups in groups.items():
        candidates = _candidates(module, opcode, op_id)
        text = (f"XLA:CPU gave up on the {opcode}{f' with op_id {op_id}' if op_id is not None else ''} of devices "
                f"{'; '.join(_ranges(g) for g in sorted(device_groups))}: expected {expected} participants, "
                f"{f'only {arrived}' if arrived else 'not all'} arrived")
        if candidates:
            text += "; " + ("the instruction" if len(candidates) == 1 else "one of the instructions") + \
                    f" of that kind{' with channel_id=' + op_id if op_id not in (None, '0') else ''}: " + \
                    ", ".join(f"%{i.name} (line {position(i)[0]})" for i in candidates[:6]) + \
                    (" ..." if len(candidates) > 6 else "")
        notes.append(text)
    return notes


def _candidates(module: HloText, opcode: str, op_id: str | None) -> list[Instruction]:
    kinds = (opcode, f"{opcode}-start")
    same_kind = [i for i in module.instructions() if i.opcode in kinds]
    if op_id is None:
        return same_kind
    with_channel = [i for i in same_kind if str(i.attr("channel_id")) == op_id]
    return with_channel or [i for i in same_kind if i.attr("channel_id") is None]


def _ranges(ids: tuple[int, ...]) -> str:
    """0..7 for a run of consecutive devices, else the list."""
    if not ids:
        return "?"
    if len(ids) > 2 and list(ids) == list(range(ids[0], ids[0] + len(ids))):
        return f"{ids[0]}..{ids[-1]}"
    return ", ".join(map(str, ids))

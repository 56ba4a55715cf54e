"""How every output writes processes: `(replica, partition)`, and sets of them.

One spelling for `check` (rules, reporters, the editor) and `run` (the
interpreter's and XLA's reports), so a process reads the same wherever it is
named: `(0, 3)`; a run of consecutive partitions of one replica `(0, 0)–(0, 1023)`
(an en dash); a longer list cut with "and N more" (N processes).
"""
from __future__ import annotations

import re
from typing import Iterable

GRID_WORDS = "processes are written (replica, partition)"
"""Said once by the text report and by `run` (every process is a pair of ids)."""

_NAMED = re.compile(r"\(\d+, \d+\)")


def names_a_process(text: str) -> bool:
    """Whether `text` writes a process (then GRID_WORDS is worth saying once)."""
    return _NAMED.search(text) is not None


def process_name(process) -> str:
    """`(0, 3)`."""
    r, p = process
    return f"({r}, {p})"


def process_runs(processes: Iterable) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Runs of consecutive partitions within one replica, in order: [(first, last), ...]."""
    runs: list[list[tuple[int, int]]] = []
    for r, p in sorted({(int(a), int(b)) for a, b in processes}):
        if runs and runs[-1][1][0] == r and runs[-1][1][1] == p - 1:
            runs[-1][1] = (r, p)
        else:
            runs.append([(r, p), (r, p)])
    return [(a, b) for a, b in runs]


def process_set(processes: Iterable, limit: int = 4) -> str:
    """`(0, 1), (0, 2)`, `(0, 0)–(0, 1023), (1, 0)`, `(0, 1), (0, 3), (0, 5) and 5 more`:
    runs of three or more consecutive partitions become ranges; past `limit` items
    the rest is counted (in processes)."""
    if isinstance(processes, (tuple, list)) and len(processes) == 1:
        return process_name(processes[0])
    items: list[tuple[str, int]] = []
    for a, b in process_runs(processes):
        n = b[1] - a[1] + 1
        if n >= 3:
            items.append((f"{process_name(a)}\u2013{process_name(b)}", n))
        else:
            items += [(process_name((a[0], p)), 1) for p in range(a[1], b[1] + 1)]
    if len(items) <= limit:
        return ", ".join(text for text, _n in items)
    shown = items[:max(1, limit - 1)]
    rest = sum(n for _t, n in items[len(shown):])
    return ", ".join(text for text, _n in shown) + f" and {rest} more"


def processes_phrase(processes, limit: int = 4) -> str:
    """`process (0, 3)` or `processes (0, 1)–(0, 3)`."""
    ps = list(processes)
    return ("process " if len(ps) == 1 else "processes ") + process_set(ps, limit)

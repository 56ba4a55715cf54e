"""Lanes: processes with the same story, in words that hold for every member.

A deadlock over thousands of processes is shown as a few classes ("lanes"):
the processes that completed the same steps and are blocked at the same one.
What they did names other processes ("recv from (0, 1023)"), and the peer
differs from member to member. A lane's words are built from each member's own
story (Phrase: a template whose slots hold the processes a member's sentence
names), never from one representative's:

* a slot naming the same processes for every member is written as they are;
* a slot naming one process per member that follows the member's ids by a
  fixed offset in each of (replica, partition), modulo the grid, is written as
  that expression of the member: `(0, p-1 mod 1024)` for the member `(0, p)`;
* otherwise the class is split: the members the most common offset (or
  constant) fits form one lane and the rest are worded again, and a slot
  naming different sets of processes splits the class by those sets.

So every lane's text, read with the member's own ids put in, is that member's
text (tests/test_deadlock_lanes.py checks it against the per-process model).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Hashable, Iterable

from ...source.processes import process_name, process_set

Proc = tuple[int, int]


@dataclass(frozen=True)
class Phrase:
    """Words about one process naming others: `template` is a str.format string
    whose fields {0}, {1}, ... stand for `slots` (each a tuple of processes).
    A field's format spec picks the wording: none → "process (0, 1)" or
    "processes (0, 1)–(0, 3)"; `bare` → "(0, 1)"; `it|they` → by number."""

    template: str
    slots: tuple[tuple[Proc, ...], ...] = ()

    def text(self) -> str:
        """The words for the one process the phrase is about."""
        return self.template.format(*(_Concrete(s) for s in self.slots))


def _choose(spec: str, one: bool, bare) -> str:
    """The words a format spec asks for; `bare()` writes the processes alone."""
    if not spec:
        return ("process " if one else "processes ") + bare()
    if spec == "bare":
        return bare()
    singular, _, plural = spec.partition("|")
    return singular if one else plural


class _Concrete:
    """A slot naming the same processes for every member."""

    def __init__(self, processes: tuple[Proc, ...]):
        self.processes = processes

    def __format__(self, spec: str) -> str:
        ps = self.processes
        one = len(ps) == 1
        return _choose(spec, one, lambda: process_name(ps[0]) if one else process_set(ps))


class _Symbolic:
    """A slot naming one process per member, as an expression of the member's ids."""

    def __init__(self, expr: str):
        self.expr = expr

    def __format__(self, spec: str) -> str:
        return _choose(spec, True, lambda: self.expr)


@dataclass
class Lane:
    """Processes worded as one: `texts[i]` is phrase i, true for every member."""

    members: list[Proc]
    texts: list[str]
    label: str
    """"process (0, 3)", "3 processes (0, 1)–(0, 3)", "1024 processes (0, p), p = 0–1023"."""


# ----------------------------------------------------------------------------- forms
_Form = tuple[tuple[str, int], tuple[str, int]]
"""How one named process follows the member: per component (replica, partition),
("c", k) the constant k or ("o", d) the member's own id plus d, modulo the axis."""


def _candidates(m: Proc, q: Proc, shape: tuple[int, int]) -> list[_Form]:
    R, P = shape
    rs = [("c", q[0]), ("o", (q[0] - m[0]) % R)]
    ps = [("c", q[1]), ("o", (q[1] - m[1]) % P)]
    return [(a, b) for a in rs for b in ps]


def _signed(d: int, size: int) -> int:
    return d - size if d > size // 2 else d


def _preference(form: _Form, shape: tuple[int, int]) -> tuple:
    """Constants before offsets, small offsets before large ones."""
    return tuple((kind == "o", abs(_signed(v, size)) if kind == "o" else 0)
                 for (kind, v), size in zip(form, shape))


def _fits(form: _Form, m: Proc, q: Proc, shape: tuple[int, int]) -> bool:
    return all((q[k] == v) if kind == "c" else ((q[k] - m[k]) % shape[k] == v)
               for k, (kind, v) in enumerate(form))


def _best(members: list[Proc], peers: list[Proc], shape: tuple[int, int]) -> tuple[_Form, list[int]]:
    """The form fitting the most members, and the indices of those it fits."""
    counts: Counter = Counter()
    for m, q in zip(members, peers):
        counts.update(_candidates(m, q, shape))
    top = max(counts.values())
    form = min((f for f, c in counts.items() if c == top), key=lambda f: _preference(f, shape))
    if top == len(members):
        return form, list(range(len(members)))
    return form, [i for i, (m, q) in enumerate(zip(members, peers)) if _fits(form, m, q, shape)]


def _component(kind_value: tuple[str, int], var: str, values: set[int], size: int) -> str:
    kind, v = kind_value
    if kind == "c":
        return str(v)
    d = _signed(v, size)
    text = var if d == 0 else f"{var}{'+' if d > 0 else '-'}{abs(d)}"
    if any(not 0 <= x + d < size for x in values):
        text += f" mod {size}"
    return text


def _int_set(values: list[int]) -> str:
    """`0–1023`, `0, 2, …, 1022`, `1, 4, 9`."""
    vs = sorted(values)
    if len(vs) >= 2 and vs[-1] - vs[0] == len(vs) - 1:
        return f"{vs[0]}\u2013{vs[-1]}"
    step = vs[1] - vs[0] if len(vs) >= 2 else 0
    if len(vs) >= 4 and all(b - a == step for a, b in zip(vs, vs[1:])):
        return f"{vs[0]}, {vs[1]}, \u2026, {vs[-1]}"
    if len(vs) <= 6:
        return ", ".join(map(str, vs))
    return ", ".join(map(str, vs[:5])) + f" and {len(vs) - 5} more"


# ----------------------------------------------------------------------------- classes
def _same(a: tuple, b: tuple) -> bool:
    return a is b or a == b


def _value_key(value: tuple) -> Hashable:
    # a large set is shared by reference between the members that name it
    return value if len(value) <= 64 else ("id", id(value))


def _refine(idx: list[int], members: list[Proc], slots: list[tuple[tuple[Proc, ...], ...]],
            shape: tuple[int, int]):
    """(forms, None) when one wording fits all of `idx`, else (None, [index groups])."""
    forms: list = []
    if not slots[idx[0]]:
        return forms, None
    for k in range(len(slots[idx[0]])):
        first = slots[idx[0]][k]
        col = [slots[i][k] for i in idx]
        if all(_same(c, first) for c in col):
            forms.append(("c", first))
            continue
        if all(len(c) == 1 for c in col):
            form, fits = _best([members[i] for i in idx], [c[0] for c in col], shape)
            if len(fits) == len(idx):
                forms.append(("s", form))
                continue
            inside = set(fits)
            return None, [[idx[j] for j in fits], [i for j, i in enumerate(idx) if j not in inside]]
        groups: dict[Hashable, list[int]] = {}
        for i, c in zip(idx, col):
            groups.setdefault(_value_key(c), []).append(i)
        return None, list(groups.values())
    return forms, None


def _render(phrases: list[Phrase], forms: list, members: list[Proc], shape: tuple[int, int]) -> list[str]:
    rs = {m[0] for m in members}
    ps = {m[1] for m in members}
    rvar = "r" if len(rs) > 1 else None
    pvar = "p" if len(ps) > 1 else None
    values = []
    for kind, f in forms:
        if kind == "c":
            values.append(_Concrete(f))
        else:
            r = _component(f[0], rvar or str(next(iter(rs))), rs, shape[0])
            p = _component(f[1], pvar or str(next(iter(ps))), ps, shape[1])
            values.append(_Symbolic(f"({r}, {p})"))
    out, k = [], 0
    for ph in phrases:
        n = len(ph.slots)
        out.append(ph.template.format(*values[k:k + n]))
        k += n
    return out


def _label(members: list[Proc], symbolic: bool) -> str:
    if len(members) == 1:
        return f"process {process_name(members[0])}"
    n = len(members)
    if not symbolic:
        return f"{n} processes {process_set(members, 6)}"
    rs = sorted({m[0] for m in members})
    ps = sorted({m[1] for m in members})
    if len(rs) == 1:
        return f"{n} processes ({rs[0]}, p), p = {_int_set(ps)}"
    if len(ps) == 1:
        return f"{n} processes (r, {ps[0]}), r = {_int_set(rs)}"
    return f"{n} processes (r, p) in {process_set(members, 6)}"


def lanes(stories: Iterable[tuple[Proc, Hashable, tuple[Phrase, ...]]], shape: tuple[int, int],
          limit: int) -> tuple[list[Lane], int]:
    """Word the stories (member, key of what it did, its phrases) as lanes:
    members with the same key and templates share a lane when one wording holds
    for all of them (see the module docstring). At most `limit` lanes, in the
    order of their first member; returns (lanes, members left out)."""
    groups: dict[Hashable, list[tuple[Proc, tuple[Phrase, ...]]]] = {}
    order: dict[Proc, int] = {}
    for member, key, phrases in stories:
        order.setdefault(member, len(order))
        groups.setdefault((key, tuple(ph.template for ph in phrases)), []).append((member, phrases))
    out: list[Lane] = []
    left = 0
    for group in groups.values():
        members = [m for m, _ph in group]
        slots = [tuple(s for ph in phrases for s in ph.slots) for _m, phrases in group]
        todo = [list(range(len(group)))]
        while todo:
            idx = todo.pop(0)
            if len(out) >= limit:
                left += len(idx)
                continue
            forms, parts = _refine(idx, members, slots, shape)
            if parts is not None:
                todo[:0] = [p for p in parts if p]
                continue
            ms = [members[i] for i in idx]
            texts = _render(list(group[idx[0]][1]), forms, ms, shape)
            out.append(Lane(ms, texts, _label(ms, any(kind == "s" for kind, _f in forms))))
    out.sort(key=lambda lane: order[lane.members[0]])
    return out, left

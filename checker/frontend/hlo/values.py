"""Typed attribute values of HLO instructions, and the readers of the strings
XLA nests inside them.

An attribute's value is one of: int, float, bool, str (a quoted string,
unescaped), a Word (a bare identifier: `kLoop`, `LT`), a NameRef (`%add`),
a tuple of ints (`{1,0}`), a tuple of tuples of ints (`{{0,1},{2,3}}`), a
tuple of NameRefs (`{%a, %b}`), or one of the classes below; anything else
is an Opaque holding its text. Which one depends on the attribute's name, as
in XLA's parser (xla/hlo/parser/hlo_parser.cc, ParseAttributeHelper), and on
its form. `typed_text` reads the forms that have no grammar rule of their own
(window, slice, ...) from their text; checker/frontend/hlo/body.py (the fast path) and
checker/frontend/hlo/grammar.py (Lark) both call it, and build everything else each in
their own way.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from .shapes import ShapeError, parse_shape, shape_at

__all__ = ["NameRef", "Word", "Opaque", "Literal", "SourceTargetPairs", "Metadata", "FrontendAttributes",
           "SendRecvValidation", "BackendConfig", "SliceRanges", "Window", "ComputationLayout",
           "unescape", "int_list_list", "typed_text", "COMPUTATION_ATTRS", "COMPUTATION_LIST_ATTRS",
           "METADATA_INT_FIELDS", "METADATA_STR_FIELDS"]

COMPUTATION_ATTRS = frozenset({"to_apply", "calls", "condition", "body", "true_computation",
                               "false_computation", "select", "scatter"})
"""Attributes naming one computation (`to_apply=%add`)."""
COMPUTATION_LIST_ATTRS = frozenset({"branch_computations", "called_computations"})
"""Attributes naming several (`branch_computations={%b0, %b1}`)."""


@dataclass(frozen=True, slots=True)
class NameRef:
    """A reference to an instruction or a computation by name (`%add`, or `add` in the short form)."""

    name: str
    """The name without its `%`."""

    def __str__(self) -> str:
        return "%" + self.name


@dataclass(frozen=True, slots=True)
class Word:
    """A bare identifier value: an enum (`kLoop`, `LT`, `API_VERSION_TYPED_FFI`), a dim-labels
    pattern (`b01f_01io->b01f`), a padding (`0_0x1_1`)."""

    text: str
    """The identifier as written."""

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Opaque:
    """A value read but not interpreted (sharding, aliasing, statistics, anything new)."""

    text: str
    """The value exactly as written."""


@dataclass(frozen=True, slots=True)
class Literal:
    """The literal of a `constant(...)`, as written (`1`, `{ {1, 2}, {3, 4} }`, `(1, 2)`)."""

    text: str
    """The text between the parentheses, stripped."""

    @property
    def scalar(self) -> int | float | bool | None:
        """The value of a one-number literal; None for arrays, tuples and complex numbers."""
        t = self.text
        if t in ("true", "false"):
            return t == "true"
        try:
            return int(t)
        except ValueError:
            pass
        try:
            return float(t)
        except ValueError:
            return None


@dataclass(frozen=True, slots=True)
class SourceTargetPairs:
    """`source_target_pairs={{0,1},{1,2}}` (also the pairs of `_xla_send_recv_source_target_pairs`)."""

    pairs: tuple[tuple[int, int], ...]
    """(source, target) pairs in order."""

    @classmethod
    def from_lists(cls, lists) -> "SourceTargetPairs":
        for item in lists:
            if len(item) != 2:
                raise ValueError(f"expected pairs {{source,target}}, got {{{','.join(map(str, item))}}}")
        return cls(tuple((a, b) for a, b in lists))

    @property
    def sources(self) -> tuple[int, ...]:
        return tuple(a for a, _ in self.pairs)

    @property
    def targets(self) -> tuple[int, ...]:
        return tuple(b for _, b in self.pairs)

    def targets_of(self, source: int) -> tuple[int, ...]:
        return tuple(b for a, b in self.pairs if a == source)

    def sources_of(self, target: int) -> tuple[int, ...]:
        return tuple(a for a, b in self.pairs if b == target)


METADATA_STR_FIELDS = ("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name")
METADATA_INT_FIELDS = ("source_line", "source_end_line", "source_column", "source_end_column",
                       "stack_frame_id")


@dataclass(frozen=True, slots=True)
class Metadata:
    """`metadata={op_type="..." op_name="..." source_file="..." source_line=N stack_frame_id=N ...}`."""

    op_type: str | None = None
    """The framework op's type (`dot_general`)."""
    op_name: str | None = None
    """The framework op's name path (`jit(f)/dot_general`)."""
    source_file: str | None = None
    """The Python file, when written directly (older JAX, hand-written HLO)."""
    source_line: int | None = None
    """Its line (1-based)."""
    source_end_line: int | None = None
    """Last line of the expression."""
    source_column: int | None = None
    """Its column as the producer wrote it (JAX: Python's 0-based column offset)."""
    source_end_column: int | None = None
    """End column."""
    stack_frame_id: int | None = None
    """The innermost frame in the module's StackFrames table (1-based)."""
    deduplicated_name: str | None = None
    """XLA's deduplicated kernel name."""
    scheduling_name: str | None = None
    """The name the scheduler knows the op by."""
    profile_type: tuple[int, ...] | None = None
    """Profile types (ints)."""
    extra: tuple[tuple[str, object], ...] = ()
    """Keys this reader does not know, with their values (read, not lost)."""

    @classmethod
    def from_items(cls, items) -> "Metadata":
        """From (key, value) pairs as written: strings for the string fields, ints for the int fields."""
        known: dict = {}
        extra = []
        for key, value in items:
            if key in METADATA_STR_FIELDS and isinstance(value, str):
                known[key] = value
            elif key in METADATA_INT_FIELDS and isinstance(value, int) and not isinstance(value, bool):
                known[key] = value
            elif key == "profile_type" and isinstance(value, tuple):
                known[key] = value
            else:
                extra.append((key, value))
        return cls(**known, extra=tuple(extra))


@dataclass(frozen=True, slots=True)
class SendRecvValidation:
    """`_xla_send_recv_validation="{{0,3},{1,4}}"` or `"invalid"`: per source-target pair,
    the loop iterations (inclusive range) in which that transfer really happens."""

    text: str
    """The attribute's string as written."""
    ranges: tuple[tuple[int, int], ...] | None
    """(first, last) iteration per pair; None when the string is `invalid` or does not read."""

    @property
    def is_invalid(self) -> bool:
        """Written `"invalid"`: no iteration transfers (XLA's marker for a pair that never runs)."""
        return self.text.strip() == "invalid"

    @property
    def problem(self) -> str | None:
        """Why the string does not read; None when it does."""
        if self.ranges is not None or self.is_invalid:
            return None
        return f"expected {{{{lo,hi}},...}} or \"invalid\", got \"{self.text}\""

    @classmethod
    def parse(cls, text: str) -> "SendRecvValidation":
        if text.strip() == "invalid":
            return cls(text, None)
        try:
            lists = int_list_list(text)
            if any(len(r) != 2 for r in lists):
                raise ValueError
            return cls(text, tuple((a, b) for a, b in lists))
        except ValueError:
            return cls(text, None)


@dataclass(frozen=True, slots=True)
class FrontendAttributes:
    """`frontend_attributes={key="value",...}`: string-valued, or `{...}` dictionaries kept as text."""

    items: tuple[tuple[str, str], ...]
    """(key, value) in written order; string values unescaped, dictionary values as written."""

    def get(self, key: str, default: str | None = None) -> str | None:
        for k, v in self.items:
            if k == key:
                return v
        return default

    def keys(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.items)

    def __contains__(self, key: str) -> bool:
        return any(k == key for k, _ in self.items)

    @property
    def send_recv_pairs(self) -> SourceTargetPairs | None:
        """`_xla_send_recv_source_target_pairs`: the pairs of the collective-permute a send/recv
        was decomposed from; None when absent or not a list of pairs."""
        text = self.get("_xla_send_recv_source_target_pairs")
        if text is None:
            return None
        try:
            return SourceTargetPairs.from_lists(int_list_list(text))
        except ValueError:
            return None

    @property
    def send_recv_validation(self) -> SendRecvValidation | None:
        """`_xla_send_recv_validation`, read; None when absent."""
        text = self.get("_xla_send_recv_validation")
        return None if text is None else SendRecvValidation.parse(text)

    @property
    def send_recv_pipeline(self) -> int | None:
        """`_xla_send_recv_pipeline`: which of the pipelined P2P streams ("0" or "1"); None when
        absent or not a number."""
        text = self.get("_xla_send_recv_pipeline")
        if text is None or not text.strip().isdigit():
            return None
        return int(text)


@dataclass(frozen=True, slots=True)
class BackendConfig:
    """`backend_config="..."` or `backend_config={...}`: opaque to XLA's parser, kept as text."""

    text: str
    """The string's contents (unescaped), or the `{...}` dictionary as written."""
    is_json: bool
    """Written as a `{...}` dictionary (rather than a string)."""

    def data(self):
        """The text read as JSON (a string value may hold JSON too); None when it is not JSON."""
        try:
            return json.loads(self.text)
        except (ValueError, RecursionError):
            return None

    @property
    def known_trip_count(self) -> int | None:
        """`{"known_trip_count":{"n":"5"}}` on a `while`: the iterations XLA proved it runs."""
        if "known_trip_count" not in self.text:
            return None
        data = self.data()
        if not isinstance(data, dict):
            return None
        count = data.get("known_trip_count")
        n = count.get("n") if isinstance(count, dict) else None
        try:
            return int(n)
        except (TypeError, ValueError):
            return None


@dataclass(frozen=True, slots=True)
class SliceRanges:
    """`slice={[0:2:1], [0:4]}`: per dimension (start, limit, stride); stride 1 when not written."""

    ranges: tuple[tuple[int, int, int], ...]
    """(start, limit, stride) per dimension."""


@dataclass(frozen=True, slots=True)
class Window:
    """`window={size=2x2 stride=1x1 pad=0_1x0_1 lhs_dilate=... rhs_dilate=... rhs_reversal=...}`."""

    fields: tuple[tuple[str, str], ...]
    """(sub-attribute, value text) as written."""

    def dims(self, key: str) -> tuple[int, ...] | None:
        """`size`, `stride`, `lhs_dilate`, `rhs_dilate`, `rhs_reversal` as numbers per dimension."""
        for k, v in self.fields:
            if k == key:
                try:
                    return tuple(int(x) for x in v.split("x"))
                except ValueError:
                    return None
        return None


@dataclass(frozen=True, slots=True)
class ComputationLayout:
    """The header's `entry_computation_layout={(param shapes)->result shape}`."""

    parameters: tuple
    """The entry parameters' Shapes."""
    result: object
    """The result Shape."""


# --------------------------------------------------------------------------- string readers
_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9A-Fa-f]+)|(.))", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'", "a": "\a",
                   "b": "\b", "f": "\f", "v": "\v", "?": "?"}


def unescape(body: str) -> str:
    """A quoted string's contents, C escapes resolved (XLA's lexer uses absl::CUnescape)."""
    if "\\" not in body:
        return body

    def sub(m: re.Match) -> str:
        if m.group(1):
            return chr(int(m.group(1), 8))
        if m.group(2):
            return chr(int(m.group(2), 16))
        return _SIMPLE_ESCAPES.get(m.group(3), m.group(3))
    return _ESCAPE.sub(sub, body)


_INTS = re.compile(r"\s*\{\s*(-?\d+(?:\s*,\s*-?\d+)*)?\s*\}\s*")
_INTS_LIST = re.compile(r"\s*\{\s*((?:\{[^{}]*\}\s*(?:,\s*)?)*)\}\s*\Z")


@lru_cache(maxsize=4096)
def int_list_list(text: str) -> tuple[tuple[int, ...], ...]:
    """`{{0,1},{2,3}}` -> ((0, 1), (2, 3)); `{}` -> (); ValueError when it is not that."""
    m = _INTS_LIST.match(text)
    if m is None:
        raise ValueError(f"expected {{{{int,...}},...}}, got {text!r}")
    out = []
    pos = 0
    inner = m.group(1)
    while pos < len(inner):
        im = _INTS.match(inner, pos)
        if im is None:
            raise ValueError(f"expected {{int,...}}, got {inner[pos:]!r}")
        out.append(tuple(int(x) for x in im.group(1).split(",")) if im.group(1) else ())
        pos = im.end()
        if pos < len(inner):
            if inner[pos] != ",":
                raise ValueError(f"expected ',' between lists, got {inner[pos:]!r}")
            pos += 1
            if pos >= len(inner):
                raise ValueError("a list may not end with ','")
    return tuple(out)


# --------------------------------------------------------------------------- forms without a rule
_SLICE = re.compile(r"\s*\[\s*(-?\d+)\s*:\s*(-?\d+)\s*(?::\s*(-?\d+)\s*)?\]\s*(,|\})")
_WINDOW_FIELD = re.compile(r"\s*([A-Za-z_][\w.\-]*)=([0-9x_\-]+)\s*")


def typed_text(name: str, text: str):
    """The value of attribute `name` whose text is `text`, for the forms with no grammar
    rule of their own: `slice` (SliceRanges), `window` (Window), `outfeed_shape` (a Shape),
    `operand_layout_constraints` (a tuple of Shapes); everything else is an Opaque."""
    if name == "outfeed_shape":
        try:
            return parse_shape(text.strip())
        except ShapeError:
            return Opaque(text)
    if name == "operand_layout_constraints":
        t = text.strip()
        if t.startswith("{") and t.endswith("}"):
            shapes, pos = [], 1
            try:
                while t[pos:-1].strip():
                    shape, pos = shape_at(t, pos)
                    shapes.append(shape)
                    rest = t[pos:-1].lstrip()
                    if rest.startswith(","):
                        pos = t.index(",", pos) + 1
                    elif rest:
                        raise ShapeError("expected ','", pos)
                return tuple(shapes)
            except ShapeError:
                pass
        return Opaque(text)
    if name == "slice":
        t = text.strip()
        if t.startswith("{"):
            ranges, pos = [], 1
            if t[1:].strip() == "}":
                return SliceRanges(())
            while True:
                m = _SLICE.match(t, pos)
                if m is None:
                    break
                ranges.append((int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)))
                pos = m.end()
                if m.group(4) == "}":
                    if t[pos:].strip() == "":
                        return SliceRanges(tuple(ranges))
                    break
    elif name == "window":
        t = text.strip()
        if t.startswith("{") and t.endswith("}"):
            inner, pos, fields = t[1:-1], 0, []
            while pos < len(inner):
                m = _WINDOW_FIELD.match(inner, pos)
                if m is None:
                    break
                fields.append((m.group(1), m.group(2)))
                pos = m.end()
            else:
                return Window(tuple(fields))
    return Opaque(text)

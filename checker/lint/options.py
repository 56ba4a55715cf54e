"""The declared options: every key `-O KEY=VALUE` and `[tool.shlo-lint.options]`
accept, with its type, default, allowed values, documentation and the rules
that read it.

A value is checked (and converted: `-O z3-timeout-ms=5000` arrives as an int,
`-O external-channels=1,3` as [1, 3]) before any file is linted; an unknown key or
a bad value is a ConfigError (exit code 2), never an analysis that quietly does
not run. Adding an option is one `declare(...)` line here (a later declaration
of the same key replaces the earlier one, so a module may refine its own).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .suggest import did_you_mean

INT, STR, BOOL, INT_LIST, CHOICE = "int", "str", "bool", "int-list", "choice"


class OptionError(ValueError):
    """An unknown option key or a value of the wrong type or range."""


@dataclass(frozen=True)
class OptionSpec:
    key: str
    type: str
    default: Any
    doc: str
    rules: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    minimum: int | None = None

    def describe_type(self) -> str:
        if self.type == CHOICE:
            return " | ".join(f'"{c}"' for c in self.choices)
        if self.type == INT and self.minimum is not None:
            return f"integer >= {self.minimum}"
        return {INT: "integer", STR: "string", BOOL: "boolean", INT_LIST: 'list of integers (or "1,3")'}[self.type]

    def convert(self, value: Any) -> Any:
        """The value as the rules read it, or OptionError saying what is wrong."""
        bad = OptionError(f"option `{self.key}` = {value!r} is not a valid value: expected {self.describe_type()}")
        if self.type == INT:
            if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
                value = int(value.strip())
            if not isinstance(value, int) or isinstance(value, bool):
                raise bad
            if self.minimum is not None and value < self.minimum:
                raise bad
            return value
        if self.type == BOOL:
            if isinstance(value, str) and value.strip().lower() in ("true", "false"):
                return value.strip().lower() == "true"
            if not isinstance(value, bool):
                raise bad
            return value
        if self.type == CHOICE:
            if not isinstance(value, str) or value.strip().lower() not in self.choices:
                raise bad
            return value.strip().lower()
        if self.type == INT_LIST:
            if isinstance(value, int) and not isinstance(value, bool):
                value = [value]
            if isinstance(value, str):
                parts = [p.strip() for p in value.replace(";", ",").split(",") if p.strip()]
                if not all(p.lstrip("+-").isdigit() for p in parts):
                    raise bad
                value = [int(p) for p in parts]
            if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise bad
            return value
        if not isinstance(value, str):
            raise bad
        return value


_DECLARED: dict[str, OptionSpec] = {}


def declare(key: str, type: str, default: Any, doc: str, *, rules: tuple[str, ...] | str = (),
            choices: tuple[str, ...] = (), minimum: int | None = None) -> OptionSpec:
    """Declare (or re-declare) one option."""
    if type == CHOICE and not choices:
        raise ValueError(f"option {key}: a choice needs its choices")
    spec = OptionSpec(key, type, default, doc, (rules,) if isinstance(rules, str) else tuple(rules),
                      tuple(choices), minimum)
    _DECLARED[key] = spec
    return spec


def declared() -> list[OptionSpec]:
    return sorted(_DECLARED.values(), key=lambda s: s.key)


def get(key: str) -> OptionSpec | None:
    return _DECLARED.get(key)


def validate(options: dict[str, Any], origin: str = "-O") -> dict[str, Any]:
    """Check every key and value; return the options converted to their types."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        spec = _DECLARED.get(key)
        if spec is None:
            raise OptionError(f"{origin}: unknown option `{key}`{did_you_mean(key, _DECLARED)} "
                              f"(known: {', '.join(sorted(_DECLARED))})")
        try:
            out[key] = spec.convert(value)
        except OptionError as e:
            raise OptionError(f"{origin}: {e}") from None
    return out


def table_markdown() -> str:
    """The options as a markdown table (docs, `shlo-lint options`)."""
    rows = ["| option | type | default | rules | meaning |", "|---|---|---|---|---|"]
    for s in declared():
        default = "none" if s.default is None else repr(s.default).replace("'", '"')
        rows.append(f"| `{s.key}` | {s.describe_type()} | {default} | {', '.join(s.rules)} | {s.doc} |")
    return "\n".join(rows)


# ----------------------------------------------------------------------------- the options
_DEADLOCK = ("SHLO500", "SHLO501", "SHLO502", "SHLO503", "SHLO505")
declare("deadlock-matching", CHOICE, "xla", "how collectives on different processes meet: XLA's runtime "
        "(kind, channel, group) or the spec (the same op)", rules=_DEADLOCK, choices=("xla", "spec"))
declare("z3-timeout-ms", INT, 5000, "time limit of one Z3 query", rules=_DEADLOCK, minimum=0)
declare("deadlock-timeout-ms", INT, 20000, "time limit of the whole deadlock analysis", rules=_DEADLOCK, minimum=0)
declare("deadlock-max-trips", INT, 4096, "loop iterations followed before giving up (SHLO503)", rules=_DEADLOCK,
        minimum=0)
declare("deadlock-max-steps", INT, 200_000, "ops followed per process before giving up", rules=_DEADLOCK, minimum=0)
declare("deadlock-max-events", INT, 1_000_000, "communication events simulated before giving up", rules=_DEADLOCK,
        minimum=0)
declare("deadlock-core-limit", INT, 64, "processes whose steps are kept for the counterexample", rules=_DEADLOCK,
        minimum=0)
declare("external-channels", INT_LIST, [], "channel ids that talk to another program or the host: their "
        "sends and recvs are not matched within the program", rules=_DEADLOCK)
declare("max-processes", INT, None, "largest process grid the deadlock analysis runs on", rules=_DEADLOCK, minimum=1)
declare("run-max-processes", INT, 1 << 16, "largest process grid `shlo-lint run` and `--confirm` execute, "
        "every engine: a larger grid is refused at once (exit 2), not run process by process", minimum=1)
declare("placement-severity", CHOICE, None, "severity of the placement findings", rules=("SHLO601", "SHLO602",
        "SHLO603"), choices=("error", "warning", "info"))
declare("overlap-window", INT, 200, "later (SHLO601) or earlier (SHLO603) ops examined", rules=("SHLO601", "SHLO603"),
        minimum=0)
declare("max-inflight", INT, None, "futures in flight allowed per function", rules="SHLO604", minimum=1)
_COMBINE = ("SHLO631", "SHLO632", "SHLO633")
declare("combine-threshold-bytes", INT, 30 * 1024 * 1024, "combined size below which collectives should be "
        "combined", rules=_COMBINE, minimum=0)
declare("combine-threshold-count", INT, 256, "collectives combined at most into one", rules=_COMBINE, minimum=0)
declare("combine-scan-limit", INT, 20_000, "ops a dependence search visits before it counts as dependent",
        rules=_COMBINE, minimum=0)
declare("combine-fix-span", INT, 5_000, "no fix for groups spread over more ops than this", rules="SHLO631",
        minimum=0)

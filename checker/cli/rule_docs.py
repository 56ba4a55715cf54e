"""Generate docs/rules.md from the rule docstrings.

    python -m shlo_lint.checker.cli.rule_docs            # rewrite docs/rules.md
    python -m shlo_lint.checker.cli.rule_docs --check    # exit 1 if it is out of date
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from ..lint import registry

CATEGORY_TITLES = {
    "syntax": "Syntax", "tool": "The tool itself", "constraint": "Constraints (the StableHLO spec)",
    "future": "Futures (async start/done pairing)", "deadlock": "Deadlocks",
    "performance": "Performance hints",
}


def render() -> str:
    rules = registry.all_rules()
    out = ["# Rules", "",
           "Generated from the rules' docstrings by `python -m shlo_lint.checker.cli.rule_docs`; do not edit by hand.",
           "`shlo-lint rule CODE` prints one of these in the terminal.", "",
           "| code | name | category | severity | checks |", "|---|---|---|---|---|"]
    for r in rules:
        anchor = f"{r.code.lower()}-{r.name}"
        out.append(f"| [{r.code}](#{anchor}) | `{r.name}` | {r.category} | {r.severity.value} | "
                   f"{_cell(r.summary)} |")
    for category, title in CATEGORY_TITLES.items():
        group = [r for r in rules if r.category == category]
        if not group:
            continue
        out += ["", f"## {title}"]
        for r in group:
            meta = [f"category `{r.category}`", f"default severity `{r.severity.value}`"]
            if r.spec:
                meta.append(f"enforces **{r.spec}**")
            if r.ops:
                meta.append("runs on " + ", ".join(f"`{o}`" for o in r.ops))
            if r.status != "stable":
                meta.append(f"status `{r.status}`")
            out += ["", f"### {r.code} {r.name}", "", "; ".join(meta) + ".", "", _demote(r.doc)]
    return "\n".join(out).rstrip() + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _demote(doc: str) -> str:
    """Rule docstrings use `##` sections; nest them under the rule's `###` heading."""
    return re.sub(r"^(#{2,})(\s)", lambda m: "##" + m.group(1) + m.group(2), doc, flags=re.M)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    path = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
    if "--output" in argv:
        path = Path(argv[argv.index("--output") + 1])
    text = render()
    if "--check" in argv:
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            print(f"{path} is out of date: run `python -m shlo_lint.checker.cli.rule_docs`", file=sys.stderr)
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

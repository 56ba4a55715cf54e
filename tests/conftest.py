"""Shared test helpers: paths, running the real CLI in a subprocess."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# In-process JAX (the XLA engine, the JAX API, combiner checks) sees 8 CPU devices
# whichever test imports it first: the real corpus is 8-process programs.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "corpus"
FIXTURES = ROOT / "tests" / "fixtures"


def sarif_schema_validator():
    """A validator for the OASIS SARIF 2.1.0 schema, vendored in tests/fixtures/schemas/ (see NOTICE there)."""
    import jsonschema

    schema = json.loads((FIXTURES / "schemas" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)  # the schema declares draft-04
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def run_cli(*args: str, input: str | bytes | None = None, cwd: Path | str | None = None,
            env: dict | None = None) -> subprocess.CompletedProcess:
    """Run `python -m shlo_lint ARGS` as a user would, capturing text output."""
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    data = input.encode() if isinstance(input, str) else input
    proc = subprocess.run([sys.executable, "-m", "shlo_lint", *args], input=data, capture_output=True,
                          cwd=cwd, env=full_env, timeout=300)
    proc.stdout = proc.stdout.decode("utf-8", errors="replace")  # type: ignore[assignment]
    proc.stderr = proc.stderr.decode("utf-8", errors="replace")  # type: ignore[assignment]
    return proc


def run_json(*args: str, **kw) -> tuple[int, dict]:
    proc = run_cli("--output-format", "json", *args, **kw)
    assert proc.stdout.strip(), proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.fixture
def write(tmp_path):
    """write("name.mlir", text) -> path in a temp dir."""

    def _write(name: str, text: str | bytes) -> Path:
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text, encoding="utf-8")
        return p

    return _write


def deep(x):
    """Structural value including spans (which attribute equality ignores): for
    comparing two readings of a header (fast path / Lark, cached / uncached)."""
    import dataclasses
    import math

    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return (type(x).__name__,) + tuple((f.name, deep(getattr(x, f.name))) for f in dataclasses.fields(x))
    if isinstance(x, (list, tuple)):
        return tuple(deep(v) for v in x)
    if isinstance(x, dict):
        return tuple((k, deep(v)) for k, v in x.items())
    if isinstance(x, frozenset):
        return tuple(sorted(x))
    if isinstance(x, float) and math.isnan(x):
        return "nan"
    return x


BIG_NAMES = ("transformer_2mb.mlir", "transformer_9mb.mlir", "transformer_30mb.mlir")


@pytest.fixture(scope="session")
def big_dir():
    """corpus/big/ (git-ignored): the ~2/9/30 MB transformer modules, generated
    here when a file is missing, whichever test asks first (needs the `jax`
    extra; about a minute on two cores)."""
    big = CORPUS / "big"
    if not all((big / n).exists() for n in BIG_NAMES):
        proc = subprocess.run([sys.executable, str(ROOT / "corpus" / "generate.py"), "--no-small", "--big", str(big)],
                              capture_output=True, text=True, timeout=1200)
        assert proc.returncode == 0, f"could not generate corpus/big (is the jax extra installed?)\n{proc.stderr}"
    return big

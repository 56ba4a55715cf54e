"""The execution checker: run a StableHLO program for every process of its grid
to confirm (or refute) what the static analyses say.

* interpreter.py — the multi-process reference interpreter and its scheduler;
  ops.py / comm.py hold op semantics (a class per dialect, `@impl` methods).
* backends.py — numpy (default) or jax arrays on a GPU (`--device gpu`).
* xla.py — compile with jaxlib for the grid and run under a watchdog (`jax` extra).
* replay.py — `--confirm`: replay deadlock findings.
* run.py — one entry point for both engines and their JSON/text reports.
"""
from __future__ import annotations

from .values import ExecutionError, Inputs

__all__ = ["ExecutionError", "Inputs"]

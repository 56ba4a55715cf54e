"""The execution checker: run a StableHLO program for every process of its grid
to confirm (or refute) what the static analyses say.

* interpreter.py — the multi-process reference interpreter and its scheduler;
  op semantics live in ops/ (one module per op family) and comm.py, classes of
  `@impl` methods registered in registry.py (the interpreter reads the
  registry; op modules never import the interpreter); runtime.py holds what
  both share (frames, waits, slots); mesh_groups.py flattens mesh-axes groups.
* backends.py — numpy (default) or jax arrays on a GPU (`--device gpu`).
* availability.py — what an engine needs that this machine may lack (jax, a GPU),
  and the one wording of how to install it.
* xla/ — compile with jaxlib for the grid and run under a watchdog (`jax` extra).
* replay.py — `--confirm`: replay deadlock findings.
* run.py — one entry point for both engines and their JSON/text reports.
"""
from __future__ import annotations

from .values import ExecutionError, Inputs

__all__ = ["ExecutionError", "Inputs"]

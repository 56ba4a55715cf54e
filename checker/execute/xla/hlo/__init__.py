"""The XLA engine on XLA's HLO text (`shlo-lint run FILE.hlo`, `--confirm` on HLO).

The text is read through the front end's syntax model (checker/frontend/hlo),
never by a reader of its own. The parent process, which has no jax, reads,
prepares the inputs, starts the worker and says where the devices stopped; the
worker subprocess (xla/worker.py) compiles and runs. Modules:

* reading.py: what the engine reads of a module (the checks running needs,
  positions, the entry's parameters, callers) — both sides;
* communicating.py: which instructions communicate and in which order, and the
  check that the compiled module kept that order — both sides;
* rewrite.py: the text-to-text rewrites that let jaxlib compile a scheduled
  module as XLA ran it — both sides (the parent reads the host callbacks);
* compiler.py: XLA's parser, importer and compiler on the rewritten text — the
  worker only (jax);
* engine.py: `run_hlo`, the inputs — the parent only;
* blocked.py: the progress markers and XLA:CPU's abort lines as instructions —
  the parent only.
"""

"""Can every process run to completion? (SPEC-NOTES §5)

The model, over the per-process traces of the tracer (analysis/tracer/):

* a collective completes when every member of its process group has *reached*
  the same collective instance: the n-th occurrence of its matching key on each
  member (the key is the op itself under the spec's matching, or kind + channel +
  process groups under XLA's, see `MATCHING`);
* issue order (XLA's matching, the default; `model.ISSUE_ORDER`): the start of
  an async collective is issued like a synchronous one, in program order, and
  waits there for its peers; its done waits for nothing more. Under the spec's
  reading an async start never blocks and its done waits until every peer has
  reached the start;
* a recv at t from s completes once s has reached its n-th send s→t on that
  channel (the n-th send pairs with the n-th recv: JAX gives every op channel 1,
  so the channel alone is not a key); a send never blocks, but a process only
  finishes once each of its sends has been received (XLA's send-done). Every
  device-to-device send/recv is matched here; host transfers and channels
  declared in `external-channels` talk to something else and are not;
* a collective_permute sends to its target without blocking and completes once
  its source has reached the same permute (a process that is no target waits
  for nobody); its send must be received like a send's;
* program order within a process.

As constraints: one integer time X(p, i) per event i of process p, X(p, i) >
X(p, i-1), and for every requirement "q has reached its event j",
X(p, i) > X(q, j-1); a requirement on an event q never executes is false. The
program runs to completion iff this difference system is satisfiable, i.e.
(every edge weighs 1) iff its graph has no cycle.

The stages, one module each, cheapest first (decide.py drives them, checking
the deadline in every one):

1. `Structure.uniform` (no communication under control flow, no send/recv):
   deadlock-free by construction, nothing beyond op names is read.
2. quotient.py: processes with the same steps (the tracer's classes) share one time
   per event, whatever the grid size; an acyclic class graph (a linear check)
   proves the program deadlock-free for all processes.
3. model.py: otherwise the per-process system is decided exactly by
   propagation to a fixpoint (linear time). explain.py turns the processes it
   leaves blocked into counterexamples; for a cycle of up to `core-limit`
   processes, Z3's unsat core over their waits gives the chain that closes it.
4. schedule.py: under XLA's matching, the issue orders XLA's scheduler may
   choose for the branches the processes split over, decided the same way.

`analyze(module, grid, options)` returns a `Verdict` (results.py); see
docs/deadlock.md.
"""
from .decide import DEFAULTS, analyze, options_of
from .model import MATCHING, CommInfo, Model
from .quotient import class_constraints
from .results import Blocked, Deadlock, Peer, Verdict, Wait, XlaMatch

__all__ = ["DEFAULTS", "MATCHING", "Blocked", "CommInfo", "Deadlock", "Model", "Peer", "Verdict", "Wait", "XlaMatch",
           "analyze", "class_constraints", "options_of"]

"""Can every process run to completion? (SPEC-NOTES §5)

The model, over the per-process traces of checker/spmd.py:

* a collective completes when every member of its process group has *reached*
  the same collective instance: the n-th occurrence of its matching key on each
  member (the key is the op itself under the spec's matching, or kind + channel +
  process groups under XLA's, see `MATCHING`);
* a recv at t from s completes once s has reached its n-th send s→t on that
  channel (the n-th send pairs with the n-th recv: JAX gives every op channel 1,
  so the channel alone is not a key); a send never blocks, but a process only
  finishes once each of its sends has been received (XLA's send-done);
* a collective_permute sends to its target without blocking and completes once
  its source has reached the same permute (a process that is no target waits
  for nobody); its send must be received like a send's;
* an async start never blocks; its done completes once every peer has reached
  the start;
* program order within a process.

As constraints: one integer time X(p, i) per event i of process p, X(p, i) >
X(p, i-1), and for every requirement "q has reached its event j",
X(p, i) > X(q, j-1); a requirement on an event q never executes is false. The
program runs to completion iff this difference system is satisfiable.

How it is decided, cheapest first:

1. `Structure.uniform` (no communication under control flow, no send/recv):
   deadlock-free by construction, nothing beyond op names is read.
2. The class quotient: processes with the same steps (checker/spmd.py) share
   one set of Z3 variables, whatever the grid size. The quotient maps every
   per-process constraint to a class-level one, so SAT proves the program
   deadlock-free for all processes with one small Z3 query.
3. Otherwise (UNSAT: the quotient merged processes a chain tells apart; or the
   Z3 time limit), the per-process system is decided exactly by propagation
   (a difference system whose edges all have weight 1 is satisfiable iff
   propagating "reached" to a fixpoint completes every process: linear time).
   The blocked processes it leaves form the counterexample; for a cycle of up
   to `core-limit` processes, Z3's unsat core over their waits gives the chain
   that closes the cycle.

`analyze(module, grid, options)` returns a `Verdict`; see docs/deadlock.md.
"""
from .decide import DEFAULTS, analyze, options_of
from .model import MATCHING, CommInfo, Model, _Facts
from .quotient import _z3_classes, class_constraints
from .results import Blocked, Deadlock, Peer, Verdict, Wait, XlaMatch

__all__ = ["DEFAULTS", "MATCHING", "Blocked", "CommInfo", "Deadlock", "Model", "Peer", "Verdict", "Wait", "XlaMatch",
           "analyze", "class_constraints", "options_of", "_Facts", "_z3_classes"]

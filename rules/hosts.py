"""Every host's program (issue 23): the codes of the hosts decision.

A multi-controller JAX job runs one program per host, each traced and compiled
by its host. `shlo-lint hosts FILE[:DEVICES] ...` and `shlo_lint.check_hosts`
decide them together (checker/analysis/process_model/merge_hosts.py, reading each
host's signature; checker/lint/host_programs.py makes the diagnostics), so these codes
are raised by that decision, not by the per-file walk: their status is
"builtin". docs/hosts.md says what is compared and what the runtimes did.
"""
from __future__ import annotations

from shlo_lint.checker.lint.registry import rule


@rule("SHLO510", "hosts-deadlock", category="deadlock", status="builtin")
def hosts_deadlock():
    """A host waits at a collective that another host's program never reaches (or reaches in another order).

    ## What it does
    Runs every device on its host's program in the process model, matched as
    XLA matches collectives (kind, channel, device group), and reports the
    first devices that wait forever: which host waits in which op at which
    Python line, and what each other host does instead ("host 1 waits in psum
    at step.py:41; host 0 finished"), with one trace lane per group of hosts
    with the same story. Measured in 2- and 4-process `jax.distributed` jobs
    over gloo (corpus/hosts): an extra `psum` on one host, a psum under
    `if jax.process_index() == 0`, a `lax.cond` on a baked process index, a
    collective that depends on another in the opposite order.

    ## Why is this bad?
    The job never ends: XLA:CPU's gloo collectives wait 30 minutes without a
    message (corpus/hosts/extra_collective); a collective over a device group
    no earlier collective used fails after 30 s setting up its communicator
    (extra_collective_new_group). On GPUs (not run here) NCCL hangs.

    ## Example
    ```sh
    $ shlo-lint hosts host0.mlir host1.mlir
    host1.mlir:10:10: error[SHLO510] hosts deadlock: host 1 waits in all_reduce at step.py:41; host 0 finished
    ```

    ## Use instead
    Run the same collectives on every host, in the same order: compute the
    extra statistic everywhere and use it on one host, or keep per-host work
    out of the jitted program.
    """


@rule("SHLO511", "hosts-collectives-compute-differently", category="deadlock", status="builtin")
def hosts_collectives_compute_differently():
    """Collectives of different hosts' programs meet but compute differently: another reduction, size or operand.

    ## What it does
    Compares what the collectives that meet across hosts compute: the kind,
    the reduction, the operand and result types, the pairs, the dimensions,
    and where the operand comes from (a digest of the ops that compute it).
    Reports the first pairs that differ, with both hosts, devices, ops and
    Python lines, and what the runtime did in the measured jobs:

    * another reduction (`psum` on one host, `pmax` on the other): the job
      completes, and every host holds the same chunk-wise mixture of both,
      neither program's result (gloo's ring reduces each chunk with one
      process's function; corpus/hosts/different_reduction);
    * another size: gloo aborts ("Received data size doesn't match expected
      size"; corpus/hosts/different_shape);
    * another operand (two psums issued in opposite orders, the k-th meeting
      the k-th): their data is exchanged silently and the hosts' results
      disagree (corpus/hosts/opposite_order_forced_same_size).

    ## Why is this bad?
    The job completes with wrong numbers, or aborts far from the cause.

    ## Example
    ```sh
    $ shlo-lint hosts host0.mlir host1.mlir
    host0.mlir:5:10: error[SHLO511] hosts compute differently: host 0's all_reduce (add) at step.py:12 meets host 1's all_reduce (maximum) at step.py:14: every host gets one mixture of both
    ```

    ## Use instead
    Every host runs the same collective at the same point of its program: the
    same reduction, shapes and operands, in the same order.
    """


@rule("SHLO512", "hosts-order-depends-on-schedule", category="deadlock", severity="warning", status="builtin")
def hosts_order_depends_on_schedule():
    """The hosts' programs issue collectives in different orders that XLA's scheduler may or may not reconcile.

    ## What it does
    Where the order written makes hosts' collectives cross (or wait for each
    other) and one host's collectives do not depend on each other, XLA's
    scheduler and combiner choose the order each host issues them in. When
    such an order makes every host agree, this warning names it instead of an
    error: the compiled HLO of each host decides (`compiled.as_text()`, or an
    `--xla_dump_to` directory: its schedule is fixed, and shlo-lint reads it).

    ## Why is this bad?
    Measured (corpus/hosts/opposite_order_*): where the hosts' outputs were
    laid out alike, XLA put the collectives in the same order on both hosts
    and the job was correct; where one host's output followed its traced order,
    the combined collectives crossed: silently for equal sizes (wrong values),
    with an abort for different sizes. A change far from the collectives can
    flip it.

    ## Example
    ```python
    if jax.process_index() == 0:
        a = lax.psum(x, "hosts"); b = lax.psum(3 * x, "hosts")
    else:
        b = lax.psum(3 * x, "hosts"); a = lax.psum(x, "hosts")
    ```

    ## Use instead
    Trace the collectives in one order on every host, or make the order a data
    dependence; check the compiled HLO of each host with `shlo-lint hosts`.
    """


@rule("SHLO513", "hosts-programs-differ-locally", category="deadlock", severity="info", status="builtin")
def hosts_programs_differ_locally():
    """The hosts' programs differ, but not in what they communicate with each other.

    ## What it does
    Says where the programs differ when no difference reaches another host: a
    collective whose device groups stay inside one host, computation that
    feeds no cross-host collective. Measured (corpus/hosts/local_axis_only): a
    psum over a host-local axis on one host only completes, and every host's
    results are what its own program asks for.

    ## Why is this bad?
    Nothing hangs or mixes; the hosts still compute different things, which
    may or may not be meant.

    ## Use instead
    Nothing, if it is meant.
    """


@rule("SHLO514", "hosts-not-checked", category="tool", status="builtin")
def hosts_not_checked():
    """The hosts could not be checked together: a host did not answer, or their programs cannot run as one job.

    ## What it does
    Reported when `check_hosts` gets no signature from a process within its
    timeout (the finding names the process, and every process returns it: none
    of them hangs), when a signature cannot be read (another shlo-lint version),
    when the hosts' programs are compiled for different device grids, or when
    the devices given overlap, fall outside the grid or leave some device to
    no host.

    ## Why is this bad?
    Nothing was compared: a process that never calls `check_hosts` is
    typically one that took another path, and would not have reached the
    collectives either.

    ## Use instead
    Call `check_hosts` at the same point on every process (before the first
    step), with a timeout that covers their start-up skew; give every host
    its devices (`FILE:0-3`).
    """


@rule("SHLO515", "hosts-undecided", category="deadlock", severity="info", status="builtin")
def hosts_undecided():
    """The hosts decision could not decide, and says why.

    ## What it does
    A host's program could not be followed (a branch or trip count on data,
    a limit of the deadlock analysis, a form the model does not read), so the
    merged system is neither proven nor refuted.

    ## Why is this bad?
    Nothing is known to be wrong; nothing is proven either.

    ## Use instead
    Raise the limit the message names (`-O deadlock-max-trips=...`), or check
    each host's compiled HLO.
    """

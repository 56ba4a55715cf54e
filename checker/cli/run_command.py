"""`shlo-lint run PROG`: execute a program for every process of its grid.

Registered on the main command group by commands.py (imported lazily, so
`shlo-lint check` never pays for it)."""
from __future__ import annotations

import sys

import click

from .settings import grid_options


def _size(value: str) -> int:
    """`4096` (MiB), `512M`, `4G`."""
    v = value.strip().upper().removesuffix("B").removesuffix("I")
    mult = 1 << 20
    if v.endswith("G"):
        mult, v = 1 << 30, v[:-1]
    elif v.endswith("M"):
        v = v[:-1]
    elif v.endswith("K"):
        mult, v = 1 << 10, v[:-1]
    try:
        return int(float(v) * mult)
    except ValueError:
        raise click.BadParameter(f"`{value}` is not a size (e.g. 4096, 512M, 4G)", param_hint="--memory-limit") \
            from None


@click.command("run")
@click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--engine", type=click.Choice(["auto", "interp", "xla", "both", "xla-distributed"]), default="auto",
              show_default=True,
              help="The reference interpreter, XLA (compiled with jaxlib, `jax` extra), both, cross-checked, or "
                   "XLA as a multi-process job (jax.distributed, gloo). auto: the interpreter for StableHLO, XLA "
                   "for HLO text (a file whose first token is `HloModule`).")
@click.option("--device", type=click.Choice(["cpu", "gpu"]), default="cpu", show_default=True,
              help="cpu: numpy / XLA on N virtual CPU devices; gpu: jax arrays on a GPU / XLA on N GPUs "
                   "(`gpu` extra; not yet run on a GPU: none was available, see docs/execution.md).")
@click.option("--inputs", "inputs_spec", default="random", show_default=True, metavar="random|zeros|FILE.npz",
              help="Entry arguments: seeded random, zeros, or arrays arg0, arg1, ... (per process: arg0_R_P).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for --inputs random.")
@click.option("--output-format", "-f", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--time-limit", type=click.FloatRange(min=0.1), default=60.0, show_default=True,
              help="Seconds the interpreter may run.")
@click.option("--memory-limit", default="4G", show_default=True,
              help="Memory for the interpreter's live values (e.g. 512M, 4G).")
@click.option("--xla-timeout", type=click.FloatRange(min=1), default=120.0, show_default=True,
              help="Watchdog for the XLA subprocess (start, compile, run), seconds.")
@click.option("--xla-stuck-timeout", type=click.IntRange(min=1), default=10, show_default=True,
              help="Seconds XLA:CPU waits at a collective some participants never reach before aborting.")
@grid_options
@click.option("--num-processes", "-n", type=click.IntRange(min=1), default=None,
              help="xla-distributed: OS processes (each holds grid size / N devices; default: one per grid "
                   "process up to 4).")
@click.option("--coordinator", default=None, metavar="HOST:PORT",
              help="xla-distributed: process 0's coordination service (default 127.0.0.1 and a free port). "
                   "Give the same address on every host of a multi-host run.")
@click.option("--process-id", "process_ids", type=click.IntRange(min=0), multiple=True,
              help="xla-distributed: run only these processes here (repeatable; default: all of them).")
@click.option("--stuck-timeout", type=click.FloatRange(min=0.5), default=10.0, show_default=True,
              help="xla-distributed: seconds without progress, every process running, that make a hang.")
@click.option("--save-outputs", type=click.Path(dir_okay=False), default=None,
              help="Write the outputs (the interpreter's, else XLA's) to this .npz.")
@click.option("--issue-order", type=click.Choice(["scheduler", "written"]), default="scheduler", show_default=True,
              help="interp: 'scheduler' runs the order of two independent collectives XLA's scheduler may choose "
                   "when the deadlock analysis finds that it hangs (a note says so); 'written' the program's order.")
@click.option("-O", "--option", "rule_options", multiple=True, metavar="KEY=VALUE",
              help="Options as for `check` (and [tool.shlo-lint.options]); `run` reads external-channels=1,3 "
                   "(send/recv channels that talk to another program) and run-max-processes=N (the largest grid "
                   "run; default 65536).")
def run_cmd(paths, engine, device, inputs_spec, seed, output_format, time_limit, memory_limit, xla_timeout,
            xla_stuck_timeout, num_partitions, num_replicas, num_processes, coordinator, process_ids, stuck_timeout,
            save_outputs, issue_order, rule_options) -> None:
    """Run PROG (StableHLO, or XLA's HLO text) for every process of its grid and report what happened.

    \b
    Outcomes: completed (with a summary of the outputs), failed, deadlock (which processes
    are blocked, at which op, waiting for what), aborted (XLA gave up on a stuck
    collective), unsupported, error ("cannot execute: op X at file:line"), timeout.
    A program asserting with the check dialect (StableHLO's interpreter tests) is
    `failed` when a check fails, naming it (file:line:col); a file split at
    `// -----` lines runs part by part.
    Exit status: 0 completed, 1 failed check / deadlock / aborted / engines disagree,
    2 otherwise (an engine asked for that cannot run here or cannot run the program
    is 2, with the reason).
    """
    from ..execute.availability import unavailable
    from ..execute.run import RunOptions, render_json, render_text, run_paths
    from ..execute.values import ExecutionError, Inputs

    why = unavailable(engine, device)
    if why is not None:
        click.echo(f"shlo-lint: error: {why}", err=True)
        sys.exit(2)

    try:
        inputs = Inputs.parse(inputs_spec, seed)
    except ExecutionError as e:
        raise click.BadParameter(e.message, param_hint="--inputs") from None
    external, max_processes = _run_settings(paths, rule_options)
    options = RunOptions(engine=engine, device=device, inputs=inputs, time_limit_s=time_limit,
                         memory_limit_bytes=_size(memory_limit), num_replicas=num_replicas,
                         num_partitions=num_partitions, xla_timeout_s=xla_timeout,
                         xla_stuck_warn_s=max(1, min(2, xla_stuck_timeout - 1)),
                         xla_stuck_terminate_s=xla_stuck_timeout, num_processes=num_processes,
                         coordinator=coordinator, process_ids=list(process_ids) or None,
                         dist_stuck_s=stuck_timeout, issue_order=issue_order,
                         external_channels=external, max_processes=max_processes)
    from ..lint.stages import listening
    from .progress import Progress

    with Progress() as progress, listening(progress.stage):  # a terminal sees what runs: compiling with XLA ...
        reports = [r for p in paths for r in run_paths(p, options)]
    if save_outputs:
        _save(reports, save_outputs)
    if output_format == "json":
        click.echo(render_json(reports))
    else:
        click.echo("\n".join(render_text(r) for r in reports))
    sys.exit(max(r.exit_code() for r in reports))


def _run_settings(paths, rule_options) -> tuple[frozenset, int | None]:
    """(`external-channels`, `run-max-processes`) from -O, else from the project's
    [tool.shlo-lint.options]; an unknown key or a bad value is exit 2, as for `check`."""
    from .settings import parse_options, project_config
    from ..lint import options as declared
    from ..lint.config import ConfigError
    from ..execute.comm import parse_external_channels

    try:
        options = {**project_config(paths, None, False).options,
                   **declared.validate(parse_options(rule_options), "-O")}
    except (ConfigError, declared.OptionError) as e:
        raise click.UsageError(str(e)) from None
    try:
        external = parse_external_channels(options.get("external-channels"))
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--option") from None
    return external, options.get("run-max-processes")


def _save(reports, path: str) -> None:
    import numpy as np

    arrays = {}
    for k, r in enumerate(reports):
        prefix = f"p{k}_" if len(reports) > 1 else ""
        for proc, vals in r.primary.outputs.items():
            for i, a in enumerate(vals):
                if a is not None:
                    key = f"{prefix}out{i}" if proc is None else f"{prefix}out{i}_{proc[0]}_{proc[1]}"
                    arrays[key] = a
    np.savez(path, **arrays)

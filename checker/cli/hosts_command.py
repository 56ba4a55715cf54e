"""`shlo-lint hosts FILE[:DEVICES] ...`: every host's program of a multi-controller
job, checked together (checker/lint/host_programs.py; docs/hosts.md).

Registered lazily on the main command group (commands.py), like `run`."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..lint import options as _options
from ..lint import registry
from ..lint.config import ConfigError
from ..lint.host_programs import HostsInputError, check_host_files, exit_code, parse_host_arg, run_diagnostics
from ..report import FORMATS
from ..source.diagnostics import Severity
from .settings import grid_options, parse_options, project_config


@click.command("hosts")
@click.argument("programs", nargs=-1, required=True, metavar="FILE[:DEVICES]...")
@click.option("--module", "module_name", default=None, metavar="NAME",
              help="The module to read from --xla_dump_to directories (e.g. jit_step).")
@click.option("--output-format", "-f", type=click.Choice(tuple(FORMATS)), default="text", show_default=True)
@click.option("--output-file", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the report here instead of standard output.")
@grid_options
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default="warning", show_default=True,
              help="Lowest severity that makes the exit code 1.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even with findings (still 2 if a file could not be read).")
@click.option("-O", "--option", "rule_options", multiple=True, metavar="KEY=VALUE",
              help="Analysis options (deadlock-timeout-ms, deadlock-max-trips, ...).")
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Read settings from this pyproject.toml / TOML file.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto")
@click.option("--no-source", is_flag=True, help="Do not print source lines under text diagnostics.")
@click.option("-q", "--quiet", is_flag=True, help="Print diagnostics only, no summary line.")
def hosts_cmd(programs, module_name, output_format, output_file, num_partitions, num_replicas, fail_on, exit_zero,
              rule_options, config_path, isolated, color, no_source, quiet) -> None:
    """Check every host's program of a multi-controller job together.

    Each FILE is one host's program (StableHLO, compiled HLO, or an
    --xla_dump_to directory with --module NAME); DEVICES are the global device
    ids it runs (0-3, 0,2,4,6; default: the module's devices split evenly over
    the hosts in argument order, as JAX orders them). Reports the first devices
    that wait forever, collectives of different hosts that meet but compute
    differently, and orders XLA's scheduler may or may not reconcile.
    """
    try:
        config = project_config([p.rpartition(":")[0] or p for p in programs], config_path, isolated)
        opts = dict(config.options)
        if rule_options:
            opts.update(_options.validate(parse_options(rule_options), "-O"))
    except (ConfigError, _options.OptionError) as e:
        _fail(str(e))
    try:
        args = [parse_host_arg(p) for p in programs]
        run = check_host_files(args, module_name, opts, num_partitions or config.num_partitions,
                               num_replicas or config.num_replicas)
    except HostsInputError as e:
        _fail(str(e))
    except ValueError as e:  # an option value the analysis refuses
        _fail(str(e))
    registry.load()
    diags = run_diagnostics(run)
    from ..report import render

    counts = {s.value: sum(d.severity == s for d in diags) for s in Severity}
    summary = None if quiet else {"files": len(args), "failed_files": len({d.path for d in run.problems}),
                                  **{f"{k}s": v for k, v in counts.items()}, "diagnostics": len(diags)}
    use_color = color == "always" or (color == "auto" and output_file is None and sys.stdout.isatty()
                                       and "NO_COLOR" not in os.environ)
    out = render(output_format, diags, dict(run.sources), registry.get, summary=summary, color=use_color,
                 show_source=not no_source, root=str(Path.cwd()))
    if output_file:
        Path(output_file).write_text(out, encoding="utf-8")
    elif out:
        click.echo(out, nl=not out.endswith("\n"))
    code = exit_code(run, fail_on)
    sys.exit(0 if exit_zero and code == 1 else code)


def _fail(message: str) -> None:
    click.echo(f"shlo-lint: error: {message}", err=True)
    sys.exit(2)

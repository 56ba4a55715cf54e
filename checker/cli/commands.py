"""`shlo-lint`: the command line. `shlo-lint PATHS...` is `shlo-lint check PATHS...`.

Exit codes: 0 no findings at or above --fail-on, 1 findings, 2 the tool could not
do its job (unreadable or unparsable input, bad option or config).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from ..lint import options as _options, registry
from ..lint.config import Config, ConfigError
from ..source.diagnostics import Severity
from ..report import FORMATS
from ..lint.engine import FileResult, internal_error, lint_released, lint_source, read_path
from ..lint.selection import check_selectors, selector_error, unknown_selector
from .files import iter_files
from .parallel import auto_jobs, is_auto, lint_files, resolve_jobs
from .progress import Progress
from ..lint.stages import listening
from ..source.text import Span
from .settings import grid_options, parse_options, project_config

_FORMATS = tuple(FORMATS)


_LAZY_COMMANDS = {"run": ("shlo_lint.checker.cli.run_command", "run_cmd"),
                  "hosts": ("shlo_lint.checker.cli.hosts_command", "hosts_cmd")}
"""Subcommands imported only when named (or listed by --help): `run` pulls in the
interpreter and numpy, `hosts` the process model, which `shlo-lint FILE` must
not pay for at start-up."""


class _DefaultToCheck(click.Group):
    """Route `shlo-lint file.mlir` to the `check` command, as ruff does for `ruff check`."""

    def list_commands(self, ctx):
        return sorted({*self.commands, *_LAZY_COMMANDS})

    def get_command(self, ctx, name):
        if name not in self.commands and name in _LAZY_COMMANDS:
            import importlib

            module, attr = _LAZY_COMMANDS[name]
            self.add_command(getattr(importlib.import_module(module), attr), name)
        return self.commands.get(name)

    def parse_args(self, ctx, args):
        known = {*self.commands, *_LAZY_COMMANDS}
        if args and args[0] not in known and args[0] not in ("--help", "-h", "--version"):
            args = ["check", *args]
        elif not args:
            args = ["check"]
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        """Last resort: an error no per-file guard caught is one line and exit 2, not a traceback."""
        try:
            try:
                return super().invoke(ctx)
            finally:
                # What is still buffered is written here, where a closed pipe is caught
                # below, not at interpreter exit ("Exception ignored ... BrokenPipeError").
                sys.stdout.flush()
        except BrokenPipeError as e:
            if not _reader_gone():
                raise _NotStdout(e) from e  # another pipe (a worker's): ours, reported below
            _stdout_closed()
        except (click.exceptions.Exit, click.ClickException, click.exceptions.Abort, SystemExit,
                KeyboardInterrupt):
            raise
        except Exception as e:  # noqa: BLE001
            import traceback

            if isinstance(e, _NotStdout):
                e = e.__cause__

            from ..lint.engine import REPORT_URL

            if isinstance(e, MemoryError):
                traceback.clear_frames(e.__traceback__)  # what filled memory, before anything allocates
            detail = f"{type(e).__name__}: {e}" if not isinstance(e, MemoryError) else "out of memory (MemoryError)"
            click.echo(f"shlo-lint: internal error: {detail}; this is a shlo-lint bug, please report it "
                       f"({REPORT_URL})", err=True)
            if os.environ.get("SHLO_LINT_TRACEBACK"):
                traceback.print_exc()
            sys.exit(2)


SIGPIPE_EXIT = 141
"""Exit status when the reader of stdout went away (`shlo-lint rule --all | head`):
128 + SIGPIPE, what a shell reports for a C tool killed by the signal."""


class _NotStdout(Exception):
    """A BrokenPipeError while stdout's reader is still there."""


def _reader_gone() -> bool:
    """Whether stdout is a pipe whose reader closed it (poll reports an error on the
    write end); True where that cannot be asked (no poll, no file descriptor)."""
    try:
        import select

        poll = select.poll()
        poll.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))
    except (AttributeError, OSError, ValueError):
        return True


def _stdout_closed() -> None:
    """stdout's reader closed the pipe: not our bug and nothing left to say to anyone.
    Point stdout at /dev/null so the interpreter's final flush cannot fail again, and
    exit quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no file descriptor (a replaced sys.stdout): drop it instead
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until exit
    sys.exit(SIGPIPE_EXIT)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("shlo-lint")
    except Exception:  # pragma: no cover
        return "0+unknown"


def _print_version(ctx, _param, value) -> None:
    """--version; importlib.metadata (a heavy import) is loaded only here, not at start-up."""
    if value and not ctx.resilient_parsing:
        click.echo(f"shlo-lint, version {_version()}")
        ctx.exit()


@click.group(cls=_DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version and exit.")
def main() -> None:
    """Verifier and linter for StableHLO programs.

    \b
    shlo-lint prog.mlir              check files or directories (*.mlir)
    shlo-lint rule SHLO103           show a rule's documentation
    shlo-lint rule --all             list every rule
    """


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out += [x.strip() for x in v.split(",") if x.strip()]
    return tuple(out)


@main.command("check")
@click.argument("paths", nargs=-1, type=str)
@click.option("--output-format", "-f", "output_formats", multiple=True, metavar="FORMAT[:FILE]",
              help=f"Output format (default text): {', '.join(_FORMATS)}. Repeat it for several reports of one "
                   "run, each FORMAT:FILE written to FILE (e.g. -f sarif:out.sarif -f github).")
@click.option("--output-file", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the report here instead of standard output (the one given without :FILE).")
@click.option("--select", multiple=True, help="Codes, prefixes, categories or names to enable (comma-separated).")
@click.option("--extend-select", multiple=True, help="Add to the selection from the config.")
@click.option("--ignore", multiple=True, help="Codes, prefixes, categories or names to disable.")
@click.option("--extend-ignore", multiple=True, help="Add to the ignored codes of the config.")
@click.option("--force-exclude/--no-force-exclude", default=None,
              help="Apply `exclude` to files named on the command line too (for pre-commit).")
@click.option("--sarif-root", type=click.Path(file_okay=False), default=None,
              help="SARIF: directory URIs are relative to (%SRCROOT%); default the repository root "
                   "(the nearest directory holding .git), else the current directory.")
@click.option("--statistics", is_flag=True,
              help="Count diagnostics per code instead of listing them, and show each file's communication per "
                   "step: collectives per kind and group size, runs and bytes (with -f json: `statistics` and "
                   "`communication` lists).")
@grid_options
@click.option("--config", "config_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Read settings from this pyproject.toml / TOML file.")
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--stdin-filename", default=None, help="Name to report for `-` (standard input).")
@click.option("--fail-on", type=click.Choice(["error", "warning", "info"]), default=None,
              help="Lowest severity that makes the exit code 1 (default warning).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even with findings (still 2 if a file could not be checked).")
@click.option("--fix", is_flag=True, help="Apply safe fixes to the files (with `-`: print the fixed text).")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change meaning.")
@click.option("--diff", is_flag=True,
              help="Print only the unified diff of what --fix would change, and change nothing; exit 1 when "
                   "it would change something, 0 when not.")
@click.option("--full-parse-limit", type=click.IntRange(min=0), default=None,
              help="Parse every op of files up to this many characters (bigger: only ops rules read).")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto")
@click.option("--no-source", is_flag=True, help="Do not print source lines under text diagnostics.")
@click.option("-q", "--quiet", is_flag=True, help="Print diagnostics only, no summary line.")
@click.option("-O", "--option", "rule_options", multiple=True, metavar="KEY=VALUE",
              help="Set a rule/analysis option (as [tool.shlo-lint.options]), e.g. -O z3-timeout-ms=5000.")
@click.option("-j", "--jobs", default="auto", show_default=True, metavar="N|auto",
              help="Worker processes for many files (auto: every core once the files are worth a pool, "
                   "~90 small exports or 0.5 MB; 1: this process only).")
@click.option("--confirm", is_flag=True,
              help="Replay each deadlock finding by running the program (checker/execute) and mark it "
                   "'confirmed by execution' or 'not reproduced'.")
@click.option("--confirm-engine", type=click.Choice(["interp", "xla", "both", "xla-distributed"]), default="interp",
              show_default=True,
              help="What --confirm runs: the reference interpreter, XLA (`jax` extra), both, or XLA as a "
                   "multi-process job on this machine (jax.distributed over gloo).")
def check(paths, output_formats, output_file, select, extend_select, ignore, extend_ignore, force_exclude,
          sarif_root, statistics, num_partitions, num_replicas, config_path, isolated, stdin_filename, fail_on,
          exit_zero, fix, unsafe_fixes, diff, full_parse_limit, color, no_source, quiet, rule_options, jobs,
          confirm, confirm_engine) -> None:
    """Check StableHLO files (FILES or directories; `-` reads standard input)."""
    if not paths:
        raise click.UsageError("no paths given; pass files, directories or `-` for standard input")
    outputs = _outputs(output_formats, output_file)
    if confirm:
        from ..execute.availability import unavailable

        why = unavailable(confirm_engine)
        if why is not None:
            _fail(f"--confirm-engine {confirm_engine}: {why}")
    try:
        config = project_config(paths, config_path, isolated)
        check_selectors(config)  # the file's own: named by setting, file and line
        for flag, values in (("--select", select), ("--extend-select", extend_select), ("--ignore", ignore),
                             ("--extend-ignore", extend_ignore)):
            if (bad := unknown_selector(_split(values))) is not None:
                raise click.BadParameter(selector_error(bad), param_hint=f"'{flag}'")
        if rule_options:
            config = config.merged(options={**config.options,
                                            **_options.validate(parse_options(rule_options), "-O")})
        config = config.merged(
            select=_split(select) or None, ignore=(config.ignore + _split(ignore)) if ignore else None,
            extend_select=(config.extend_select + _split(extend_select)) if extend_select else None,
            extend_ignore=(config.extend_ignore + _split(extend_ignore)) if extend_ignore else None,
            force_exclude=force_exclude, num_partitions=num_partitions, num_replicas=num_replicas,
            output_format=outputs[0][0] if outputs else None, fail_on=fail_on, full_parse_limit=full_parse_limit)
        formats = {fmt for fmt, _path in outputs} or {config.output_format}
        if statistics or "html" in formats:  # the reports that show the communication table
            config = config.merged(communication=True)
    except (ConfigError, _options.OptionError) as e:
        _fail(str(e))
    try:
        n_jobs = resolve_jobs(jobs)
    except ValueError as e:
        _fail(f"--jobs: {e}")

    files = list(iter_files(paths, config.exclude, config.force_exclude, config.root))
    if not files and not config.force_exclude:  # (named files are always yielded: a missing one is SHLO002)
        _fail(f"no files to check: {', '.join(paths)} holds no *.mlir or HLO files"
              + (" outside the `exclude` globs" if config.exclude else ""))
    progress = Progress(len(files), "checking")  # stderr, terminals only
    with listening(progress.stage):  # what a long file is doing: parsing 30 MB, deadlock analysis, ...
        results, fixed, to_stdout = _lint_all(files, config, progress, n_jobs, jobs, stdin_filename, fix, diff,
                                              confirm, confirm_engine, unsafe_fixes, paths)
    if diff:
        _diff_exit(results, fixed, quiet, exit_zero)

    summary_extra = {"fixed": fixed} if fix and not diff else {}
    code = _exit_code(results, config.fail_on, exit_zero)
    summary_extra["execution_successful"] = code != 2
    # One run, every report of it: the formats asked for, else the configuration's.
    for fmt, path in outputs or [(config.output_format, output_file)]:
        use_color = color == "always" or (color == "auto" and path is None and not to_stdout
                                           and sys.stdout.isatty() and "NO_COLOR" not in os.environ)
        opts = {"color": use_color, "show_source": not no_source, "statistics": statistics,
                "root": _sarif_root(sarif_root)}
        out = _render(fmt, results, quiet, opts, summary_extra)
        if path:
            Path(path).write_text(out, encoding="utf-8")
        elif out:
            click.echo(out, nl=not out.endswith("\n"), err=to_stdout)
    code = _exit_code(results, config.fail_on, exit_zero)  # a reporter crash makes a file fail
    sys.exit(code)


def _lint_all(files, config, progress, n_jobs, jobs, stdin_filename, fix, diff, confirm, confirm_engine,
              unsafe_fixes, paths) -> tuple[list[FileResult], int, bool]:
    """Lint the files (then fix, diff, confirm): (results, diagnostics fixed or that
    would be, whether --fix writes the fixed text to standard output)."""
    results: list[FileResult] = []
    # --fix/--diff/--confirm need each file's IR, which worker processes do not send back.
    workers = 1 if (fix or diff or confirm or "-" in files) else n_jobs
    if workers > 1 and is_auto(jobs):
        workers = auto_jobs(files, workers)  # a few small files: one process is faster than a pool
    if workers > 1:
        for path, result in zip(files, lint_files(files, config, workers)):
            progress.step(path)
            results.append(result)
    for path in files if workers <= 1 else ():
        progress.step(path)
        source, err = read_path(path)
        if path == "-" and stdin_filename:
            source.path = stdin_filename
            if err is not None:
                from dataclasses import replace

                err = replace(err, location=replace(err.location, path=stdin_filename))
        if fix or diff or confirm:  # only these read the IR after the lint
            result = lint_source(source, config, err)
        else:
            result = lint_released(source, config, err)
        results.append(result)

    fixed = 0
    to_stdout = fix and not diff and paths == ("-",)  # ruff's `--fix -`: fixed text out, report on stderr
    if diff or to_stdout:
        progress.close()  # the diff or the fixed text is written next
    try:
        if fix or diff:
            results, fixed = _fix(results, config, unsafe_fixes, diff, to_stdout)
        if confirm:
            results = _confirm(results, config, confirm_engine)
    finally:
        progress.close()  # before the diff or the report is printed
    return results, fixed, to_stdout


def _outputs(given: tuple[str, ...], output_file: str | None) -> list[tuple[str, str | None]]:
    """-f FORMAT[:FILE], repeatable: (format, file or None for standard output). A
    format given without a file goes to -o's file if there is one; two reports
    cannot share a destination."""
    out, seen = [], {}
    for value in given:
        fmt, sep, path = value.partition(":")
        fmt = fmt.strip()
        if fmt not in _FORMATS:
            raise click.BadParameter(f"`{fmt}` is not one of {', '.join(_FORMATS)}", param_hint="--output-format")
        if sep and not path:
            raise click.BadParameter(f"`{value}`: no file after `:`", param_hint="--output-format")
        path = (path or output_file) or None
        where = path or "standard output"
        if where in seen:
            raise click.BadParameter(f"`{seen[where]}` and `{value}` both write to {where}",
                                     param_hint="--output-format")
        seen[where] = value
        out.append((fmt, path))
    return out


def _diff_exit(results: list[FileResult], would_fix: int, quiet: bool, exit_zero: bool) -> None:
    """--diff, as ruff's: standard output holds only the diff (_fix wrote it), no
    report. Exit 1 when the fixes would change something, else 0; 2 when a file
    could not be checked, its error on stderr (so that a quiet 0 never means "not read")."""
    failed = [r for r in results if r.failed]
    if failed:
        click.echo(_render("concise", failed, True, {"color": False, "show_source": False, "statistics": False,
                                                     "root": "."}, {}).rstrip("\n"), err=True)
    if not quiet:
        click.echo(f"Would fix {would_fix} diagnostic{'s' if would_fix != 1 else ''}." if would_fix
                   else "No fixes available.", err=True)
    sys.exit(2 if failed else 1 if would_fix and not exit_zero else 0)


def _fail(message: str) -> None:
    click.echo(f"shlo-lint: error: {message}", err=True)
    sys.exit(2)


def _sarif_root(given: str | None) -> str:
    """--sarif-root, else the repository root above the current directory, else it."""
    if given:
        return given
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return str(d)
    return str(here)


def _render(fmt: str, results: list[FileResult], quiet: bool, opts: dict, summary_extra: dict) -> str:
    """The report; a file whose diagnostics a reporter crashes on gets one SHLO003
    instead (found by rendering each file alone), and the others are reported."""
    from ..report import render

    def attempt(rs: list[FileResult]) -> str:
        diagnostics = [d for r in rs for d in r.diagnostics]
        sources = {r.source.path: r.source for r in rs}
        tables = [r.communication for r in rs if r.communication is not None]
        return render(fmt, diagnostics, sources, registry.get, summary=None if quiet else {**_summary(rs), **summary_extra},
                      communication=tables if any(r.communication is not None for r in rs) else None, **opts)

    try:
        return attempt(results)
    except Exception:  # noqa: BLE001 - find the file, below
        pass
    for r in results:
        try:
            attempt([r])
        except Exception as e:  # noqa: BLE001 - the one guard per file, reporter stage
            r.diagnostics = [internal_error(r.source, e, f"writing the {fmt} report", span=Span(0, 0))]
            r.failed = True
    return attempt(results)  # a crash left here is not one file's: the last-resort guard reports it


def _summary(results: list[FileResult]) -> dict:
    counts = {s.value: 0 for s in Severity}
    for r in results:
        for d in r.diagnostics:
            counts[d.severity.value] += 1
    return {"files": len(results), "failed_files": sum(r.failed for r in results), **{
        f"{k}s": v for k, v in counts.items()}, "diagnostics": sum(counts.values())}


def _exit_code(results: list[FileResult], fail_on: str, exit_zero: bool) -> int:
    if any(r.failed for r in results):
        return 2
    if exit_zero:
        return 0
    threshold = Severity(fail_on).rank
    return 1 if any(d.severity.rank <= threshold for r in results for d in r.diagnostics) else 0


def _fix(results: list[FileResult], config: Config, unsafe: bool, diff_only: bool,
         to_stdout: bool) -> tuple[list[FileResult], int]:
    """Apply fixes; (results after fixing, how many diagnostics the fixes removed).
    diff_only: print the fixes as a diff instead; (results, how many they would fix)."""
    from ..lint.fixes import apply_fixes, unified_diff

    out, fixed = [], 0
    for r in results:
        try:
            r2, n = _fix_one(r, config, unsafe, diff_only, to_stdout, apply_fixes, unified_diff)
        except Exception as e:  # noqa: BLE001 - the one guard per file, fix stage
            r.diagnostics.append(internal_error(r.source, e, "applying fixes", span=Span(0, 0)))
            r.failed = True
            r2, n = r, 0
        out.append(r2)
        fixed += n
    return out, fixed


def _fix_one(r: FileResult, config: Config, unsafe: bool, diff_only: bool, to_stdout: bool,
             apply_fixes, unified_diff) -> tuple[FileResult, int]:
    """Fix one file; (its result after fixing, how many diagnostics the fixes removed)."""
    from ..source.text import SourceFile

    new_text = None
    if not r.failed and r.module is not None and any(d.fix for d in r.diagnostics):
        new_text, applied = apply_fixes(r.source.text, r.diagnostics, unsafe=unsafe)
        new_text = new_text if applied else None
    if to_stdout:
        sys.stdout.write(new_text if new_text is not None else r.source.text)
        sys.stdout.flush()
    if new_text is None:
        return r, 0
    if diff_only:
        patch = unified_diff(r.source.path, r.source.text, new_text)
        sys.stdout.write(patch)
        return r, len(applied) if patch else 0
    if not to_stdout and os.path.isfile(r.source.path):
        Path(r.source.path).write_text(new_text, encoding="utf-8")
    again = lint_source(SourceFile(r.source.path, new_text), config)
    return again, max(0, len(r.diagnostics) - len(again.diagnostics))


@main.command("rule")
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
@click.option("--output-format", "-f", type=click.Choice(["text", "json"]), default="text")
def rule_cmd(code, show_all, output_format) -> None:
    """Show the documentation of rule CODE (or its name), or list every rule."""
    rules = registry.all_rules()
    if show_all or not code:
        if output_format == "json":
            import json

            click.echo(json.dumps([_rule_json(r) for r in rules], indent=2))
        else:
            rows = [(r.code, r.name, r.category, r.severity.value, r.summary) for r in rules]
            widths = [max(len(row[i]) for row in rows) for i in range(4)]  # columns as wide as their longest
            for row in rows:
                click.echo("  ".join(f"{v:<{w}}" for v, w in zip(row, widths)) + "  " + row[4])
        return
    spec = registry.get(code) or next((r for r in rules if r.name == code), None)
    if spec is None:
        click.echo(f"shlo-lint: error: unknown rule `{code}` (see `shlo-lint rule --all`)", err=True)
        sys.exit(2)
    if output_format == "json":
        import json

        click.echo(json.dumps(_rule_json(spec), indent=2))
        return
    label = f" — enforces {spec.spec}" if spec.spec else ""
    click.echo(f"# {spec.code} {spec.name} ({spec.category}, {spec.severity.value}){label}\n")
    click.echo(spec.doc)


def _rule_json(r) -> dict:
    return {"code": r.code, "name": r.name, "category": r.category, "severity": r.severity.value,
            "spec": r.spec, "ops": list(r.ops), "status": r.status, "summary": r.summary, "doc": r.doc}


@main.command("options")
@click.option("--output-format", "-f", type=click.Choice(["text", "json", "markdown"]), default="text")
def options_cmd(output_format) -> None:
    """List the options `-O KEY=VALUE` and [tool.shlo-lint.options] accept."""
    specs = _options.declared()
    if output_format == "json":
        import json

        click.echo(json.dumps([{"key": s.key, "type": s.describe_type(), "default": s.default,
                                "choices": list(s.choices), "rules": list(s.rules), "doc": s.doc}
                               for s in specs], indent=2))
    elif output_format == "markdown":
        click.echo(_options.table_markdown())
    else:
        for s in specs:
            default = "none" if s.default is None else s.default
            click.echo(f"{s.key:<26} {s.describe_type():<28} default {default!s:<10} {', '.join(s.rules)}")
            click.echo(f"{'':<26} {s.doc}")


@main.command("lsp")
@click.option("--debounce-ms", type=click.IntRange(min=0), default=150, show_default=True,
              help="Quiet time after an edit before the document is re-linted.")
def lsp_cmd(debounce_ms) -> None:
    """Run the language server on standard input/output (editors start it)."""
    from ..editor.server import serve  # pygls is imported only for this command

    sys.exit(serve(debounce_ms=debounce_ms))


def _confirm(results: list[FileResult], config: Config, engine: str) -> list[FileResult]:
    """--confirm: run each file with deadlock findings and note what execution showed."""
    from ..execute.replay import confirm
    from ..execute.run import RunOptions

    from ..execute.comm import parse_external_channels

    try:
        external = parse_external_channels(config.options.get("external-channels"))
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--option") from None
    matching = str(config.options.get("deadlock-matching", "xla")).lower()
    options = RunOptions(num_partitions=config.num_partitions, num_replicas=config.num_replicas,
                         external_channels=external, matching=matching if matching in ("xla", "spec") else "xla",
                         max_processes=config.options.get("run-max-processes"))
    for r in results:
        if r.module is not None and not r.failed:
            try:
                r.diagnostics = confirm(r.diagnostics, r.module, options, engine, analysis_options=config.options)
            except Exception as e:  # noqa: BLE001 - the one guard per file, --confirm stage
                r.diagnostics.append(internal_error(r.source, e, "replaying deadlock findings (--confirm)",
                                                    span=Span(0, 0)))
                r.failed = True
    return results


if __name__ == "__main__":  # pragma: no cover
    main()

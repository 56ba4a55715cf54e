"""Many files on every core: `shlo-lint -j N DIR` and `lint_paths(..., jobs=N)`.

Files are independent, so a directory run is a map over processes: this one
and `jobs - 1` children. The parent loads the rules and builds the Lark parser
once before the children fork, so each starts warm (copy-on-write). The files
are cut into chunks; every process takes the next untaken chunk from a shared
counter, so a slow file does not hold the others up. The parent lints chunks
too instead of only waiting on a pool of `jobs` workers (what this replaced):
measured alternately on 2 cores, the two take the same time
(docs/performance.md, "Many files"); it is kept for one fewer
process and for what a pool could not do: a child that dies in a chunk
(killed, crashed) leaves its chunk to the parent, where the pool broke and
took the run with it.
Results come back in the order the files were given (the walk is sorted), so
the report is the same as with `-j 1`, byte for byte; each chunk is yielded as
soon as it and every chunk before it are done, so progress and streaming
still work.

A worker sends back the file's text and diagnostics, not its IR: the IR of a
big module is hundreds of thousands of objects, and pickling it would cost more
than the parse. A result from a worker therefore has `module=None`; callers that
need the IR (`--fix`, `--confirm`) lint those files in one process (`jobs=1`).

Standard input (`-`) is read by the parent, never by a worker.
"""
from __future__ import annotations

import gc
import os
from typing import Iterator

from ..lint import registry
from ..lint.config import Config
from ..frontend.read import header_parser
from ..lint.engine import FileResult, lint_released, lint_source, read_path


def resolve_jobs(jobs: int | str | None) -> int:
    """`auto` / None / 0 → the cores this process may run on; else the number (≥ 1).
    (For `auto`, auto_jobs then decides whether a pool is worth starting.)"""
    if is_auto(jobs):
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - not Linux
            return max(1, os.cpu_count() or 1)
    n = int(jobs)
    if n < 1:
        raise ValueError(f"jobs must be a positive number or `auto`, not {jobs!r}")
    return n


def is_auto(jobs: int | str | None) -> bool:
    return jobs in (None, "auto", 0, "0")


# What one process spends per file and per byte (small JAX exports on this 2-core
# machine: ~1.5 ms a file, ~5 MB/s), and what starting the pool costs: forking,
# each worker's own warm-up (numpy, caches), the results' trip back (~60 ms).
_PER_FILE_S = 0.0015
_PER_BYTE_S = 2e-7
_POOL_WORTH_S = 0.2


def auto_jobs(files: list[str], cores: int) -> int:
    """`-j auto`: every core, but only when the files are worth a pool. A
    pre-commit run on a few changed files was slower with workers than in one
    process; the pool pays from `_POOL_WORTH_S` of one-process work, estimated
    from the files' count and size (docs/performance.md, "Many files"). An
    explicit `-j N` is taken as given."""
    if cores <= 1 or len(files) < 2:
        return 1
    work = 0.0
    for path in files:
        try:
            work += _PER_FILE_S + os.stat(path).st_size * _PER_BYTE_S
        except OSError:
            work += _PER_FILE_S  # (a missing file is one SHLO002, cheap)
        if work >= _POOL_WORTH_S:
            return cores
    return 1


def _lint_one(path: str, config: Config) -> FileResult:
    source, err = read_path(path)
    return lint_source(source, config, err)


def _released(path: str, config: Config) -> FileResult:
    source, err = read_path(path)
    # see the module docstring: text and diagnostics travel, the IR does not
    # (lint_released frees it with the GC paused until then)
    return lint_released(source, config, err)


def _take(nxt, n: int) -> int | None:
    """The next chunk nobody has taken yet (its index), else None."""
    with nxt.get_lock():
        i = nxt.value
        if i >= n:
            return None
        nxt.value = i + 1
        return i


def _child(chunks: list[list[str]], config: Config, nxt, out) -> None:
    try:
        while (i := _take(nxt, len(chunks))) is not None:
            out.put((i, [_released(p, config) for p in chunks[i]]))
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group: the parent reports it
        pass


def lint_files(files: list[str], config: Config, jobs: int = 1) -> Iterator[FileResult]:
    """FileResults for `files`, in order, linted by this process and `jobs - 1` more."""
    jobs = min(jobs, len(files))
    if jobs <= 1 or "-" in files:
        for path in files:
            yield _lint_one(path, config)
        return
    import multiprocessing  # (here, not at the top: a one-file run does not pay for it)
    import queue

    registry.load()
    header_parser()  # built before the fork: every child inherits it
    size = chunk_size(len(files), jobs)
    chunks = [files[i:i + size] for i in range(0, len(files), size)]
    ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    nxt = ctx.Value("i", 0)  # the next chunk to take, shared by every process
    out = ctx.Queue()  # (chunk index, its results) from the children
    # What the children inherit (rules, parser, imports) is frozen out of the cyclic
    # GC first: a child's collections then never walk it, nor write to its pages
    # (each write would copy a page the fork shared): ~0.05 s less child CPU on
    # 774 small files, a third of it system time.
    gc.freeze()
    children = [ctx.Process(target=_child, args=(chunks, config, nxt, out)) for _ in range(jobs - 1)]
    try:
        for c in children:
            c.start()
        done: dict[int, list[FileResult]] = {}
        emit = 0  # the first chunk not yielded yet
        while emit < len(chunks):
            i = _take(nxt, len(chunks))
            if i is not None:
                done[i] = [_released(p, config) for p in chunks[i]]
            while True:  # what the children finished meanwhile; wait only when idle
                idle = i is None and emit not in done
                # (asked before the wait: a child that had exited had put all it sent)
                gone = idle and not any(c.is_alive() for c in children)
                try:
                    j, rs = out.get(block=idle, timeout=0.2)
                    done[j] = rs
                except queue.Empty:
                    if gone:  # a child died in a chunk (killed, crashed): lint what it left here
                        for k in range(emit, len(chunks)):
                            if k not in done:
                                done[k] = [_released(p, config) for p in chunks[k]]
                    break
            while emit in done:
                yield from done.pop(emit)
                emit += 1
    finally:
        for c in children:
            if c.is_alive():
                c.terminate()
            c.join()
        gc.unfreeze()


def chunk_size(n_files: int, jobs: int) -> int:
    """Files per task. A task costs the parent about what linting a small JAX
    export costs (queueing and pickling), so one file per task kept the second
    core from paying off (docs/performance.md, "Many files"); chunks of up to 16
    amortise it, while at least ~8 chunks per worker keep the work balanced (a
    big module is not stuck with many neighbours) and the order-preserving
    stream moving."""
    return max(1, min(16, n_files // (jobs * 8)))

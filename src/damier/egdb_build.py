"""Building endgame databases: the tables of :mod:`damier.egdb`, computed by damier itself.

:func:`build` computes every table of 2 to ``pieces`` pieces of a variant, in dependency
order (fewer pieces first, then fewer men: a capture or a promotion leads to a table
built before), with the compiled core (``_egdb.pxi``: a retrograde analysis by distance
levels on the core's own move generator, then a forward verification of every
position), and writes each signature's file (the format of :mod:`damier.egdb`) once it
is verified. A build is resumable: the files already there are read, not built again.

>>> import tempfile
>>> from damier import Board
>>> from damier.egdb import open_database
>>> tmp = tempfile.TemporaryDirectory()
>>> reports = build(tmp.name, pieces=2)           # 2 pieces: well under a second
>>> len(reports), sum(r.skipped for r in reports)
(4, 0)
>>> with open_database(tmp.name) as db:
...     db.probe_dtw(Board("W:WK46:BK5"))
-2
>>> sum(r.skipped for r in build(tmp.name, pieces=2))     # all there: nothing built
4
>>> tmp.cleanup()

Building on a Ray cluster
-------------------------
``damier egdb build --pieces 6 --ray --address HOST:PORT`` (``build(..., ray=True,
address=...)``; a local Ray without ``--address``; Ray comes with ``damier[train]``) farms
the pairs out as Ray tasks, level by level: a pair's level is one more than the highest
level of the pairs its captures and promotions lead to, so the pairs of a level are
independent. Each task loads only the tables its pair leads to, solves and verifies it
with the compiled solver and writes its two files; the driver waits for a level before
starting the next, shows the same progress, skips pairs already built and cancels the
running tasks on Ctrl-C (a rerun resumes). The directory must be on a file system that
the driver and every worker share, at the same path (NFS or the like), and every node
needs the same damier; ``--threads`` is each task's threads (and Ray CPUs).
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
import sys
import time
import zlib
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from damier import _core
from damier.egdb import (BLOCK_VALUES, FIRST_USE_PIECES, FORMAT_VERSION, HEADER, MAGIC,
                         MAX_PIECES, Signature, Table, TableError, _DIGEST_AT, _SUFFIX, _chunks,
                         _leads_to, _mirror, _read_header, _run, default_directory,
                         signature_name, signatures)
from damier.progress import ProgressBar
from damier.raytasks import start_ray
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["build", "build_missing", "BuildProgress", "SignatureReport"]

_log = logging.getLogger("damier.egdb")


def _pairs(pieces: int) -> list[Signature]:
    """One signature of each mirror pair, in build order."""
    seen: set[Signature] = set()
    out: list[Signature] = []
    for s in signatures(pieces):
        if s not in seen:
            out.append(s)
            seen.update((s, _mirror(s)))
    return out


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------

def _little(values: bytearray) -> bytes:
    if sys.byteorder == "big":  # pragma: no cover
        import array
        a = array.array("H", bytes(values))
        a.byteswap()
        return a.tobytes()
    return bytes(values)


def _write_table(path: Path, variant: Variant, signature: Signature,
                 values: bytearray) -> int:
    """Writes a table atomically (the current format version); returns its size in bytes."""
    wins, draws, losses, unused, longest = _core.egdb_counts(values)
    raw = _little(values)
    size = BLOCK_VALUES * 2
    blocks = [zlib.compress(raw[i:i + size], 6) for i in range(0, len(raw), size)]
    offsets = [0]
    for b in blocks:
        offsets.append(offsets[-1] + len(b))
    payload = struct.pack(f"<{len(offsets)}Q", *offsets) + b"".join(blocks)
    fields = HEADER.pack(MAGIC, FORMAT_VERSION, HEADER.size, variant.name.encode("ascii"),
                         *signature, len(values) // 2, BLOCK_VALUES, len(blocks),
                         wins, draws, losses, unused, min(longest, 0xFFFF), bytes(32))
    digest = hashlib.sha256(fields[:_DIGEST_AT])
    digest.update(payload)
    header = fields[:_DIGEST_AT] + digest.digest()
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(header)
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return HEADER.size + len(payload)


# ---------------------------------------------------------------------------
# Building
# ---------------------------------------------------------------------------

class BuildProgress(NamedTuple):
    """Given to a build's progress callback after each pair of signatures."""
    done: int
    total: int
    signature: Signature
    skipped: bool
    """True when its files were there already (a resumed build)."""


@dataclass
class SignatureReport:
    """What building one signature gave."""
    signature: Signature
    positions: int
    wins: int
    draws: int
    losses: int
    longest: int
    bytes: int
    seconds: float
    skipped: bool


def _load(path: Path, variant: Variant, signature: Signature) -> bytearray:
    table = Table(path, variant=variant, signature=signature)
    try:
        return table.values()
    finally:
        table.close()


def _solve(tables: _core.EgTables, signature: Signature, threads: int,
           pool: ThreadPoolExecutor | None) -> _core.EgSolver:
    solver = _core.EgSolver(tables, signature)
    sizes = solver.sizes()
    parts = threads * 4 if threads > 1 else 1
    jobs: list[Callable[[], int | None]] = []
    for t, size in enumerate(sizes):
        for start, end in _chunks(size, parts):
            jobs.append(partial(solver.init_range, t, start, end))
    _run(pool, jobs)
    if solver.missing:
        raise RuntimeError(f"signature {signature_name(signature)}: a table it leads to "
                           "is missing")
    solver.solve_levels()
    checks: list[Callable[[], int | None]] = []
    for t, size in enumerate(sizes):
        for start, end in _chunks(size, parts):
            checks.append(partial(solver.verify_range, t, start, end))
    bad = sum(n or 0 for n in _run(pool, checks))
    if bad:
        raise RuntimeError(f"signature {signature_name(signature)}: verification failed "
                           f"for {bad} positions")
    return solver


def build(directory: str | os.PathLike[str] | None = None, *, pieces: int,
          variant: str | Variant = DEFAULT_VARIANT, threads: int = 1,
          progress: bool | Callable[[BuildProgress], None] = False,
          stream: TextIO | None = None,
          only: Collection[Signature] | None = None, ray: bool = False,
          address: str | None = None) -> list[SignatureReport]:
    """Builds every table of 2 to ``pieces`` pieces of ``variant`` in
    ``<directory>/<variant>/``, in dependency order, with ``threads`` threads.

    Resumable: each finished signature is written to its own file (atomically), and a
    rerun loads those and builds only the rest. Each signature is verified (every value
    the best over its successors) before it is written. ``progress`` is True for a
    progress bar on ``stream`` (default stderr) or a callable given a
    :class:`BuildProgress` after each pair of signatures; an exception it raises (such
    as :class:`KeyboardInterrupt`) stops the build, which a rerun resumes. ``only``
    limits the build to these signatures (and their mirrors); the tables they lead to
    must be among them or built already (kings-only signatures lead only to kings-only
    ones).

    ``ray=True`` (or an ``address``) farms the pairs out as Ray tasks, level by level
    (:func:`_build_on_ray`): a local Ray by default, the cluster at ``address``
    otherwise; ``threads`` is then each task's threads (and CPUs). The directory must be
    on a file system every worker shares, at the same path.
    """
    v = get_variant(variant)
    if v.endgame_tables_unsupported:
        raise ValueError(f"no endgame databases for {v.title}: {v.endgame_tables_unsupported}")
    if not 2 <= pieces <= MAX_PIECES:
        raise ValueError(f"pieces must be between 2 and {MAX_PIECES}, got {pieces}")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    root = Path(directory) if directory is not None else default_directory()
    folder = root / v.name
    folder.mkdir(parents=True, exist_ok=True)
    pairs = _pairs(pieces)
    if only is not None:
        wanted = set(only)
        pairs = [s for s in pairs if s in wanted or _mirror(s) in wanted]
    if ray or address is not None:
        return _build_on_ray(folder, v, pieces, pairs, threads=threads, progress=progress,
                             stream=stream, address=address)
    tables = _core.EgTables(v.index)
    if only is not None:
        covered = set(pairs) | {_mirror(s) for s in pairs}
        for s in signatures(pieces):
            path = folder / f"{signature_name(s)}{_SUFFIX}"
            if s not in covered and path.exists():
                tables.add(s, _load(path, v, s))
    reports: list[SignatureReport] = []
    callback = progress if callable(progress) else None
    there, to_build = _tables_there(folder, pairs)
    bar = ProgressBar(f"egdb {v.name} {pieces} pieces: tables built", total=to_build,
                      stream=stream or sys.stderr, enabled=progress is True)
    if there:
        bar.message(f"{there} of {_tables(there + to_build)} already in {folder}; "
                    f"{_tables(to_build)} to build")
    built = 0
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        for done, signature in enumerate(pairs, start=1):
            group = [signature] if _mirror(signature) == signature else [signature,
                                                                         _mirror(signature)]
            paths = [folder / f"{signature_name(s)}{_SUFFIX}" for s in group]
            start = time.perf_counter()
            skipped = all(p.exists() for p in paths)
            if skipped:
                for s, p in zip(group, paths, strict=True):
                    table = Table(p, variant=v, signature=s)
                    try:
                        values = table.values()
                    finally:
                        table.close()
                    tables.add(s, values)
                    info = table.info
                    reports.append(SignatureReport(s, info.positions, info.wins, info.draws,
                                                   info.losses, info.longest,
                                                   p.stat().st_size, 0.0, True))
            else:
                solver = _solve(tables, signature, threads, pool)
                seconds = (time.perf_counter() - start) / len(group)
                for i, (s, p) in enumerate(zip(group, paths, strict=True)):
                    values = solver.values0 if i == 0 else solver.values1
                    size = _write_table(p, v, s, values)
                    wins, draws, losses, _unused, longest = _core.egdb_counts(values)
                    reports.append(SignatureReport(s, len(values) // 2, wins, draws, losses,
                                                   longest, size, seconds, False))
            if not skipped:
                built += len(group)
                names = "/".join(signature_name(s) for s in group)
                bar.update(names, advance=len(group),
                           line=f"{names}: built ({built}/{to_build} tables to build)")
            if callback is not None:
                callback(BuildProgress(done, len(pairs), signature, skipped))
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        bar.close()
    return reports


def _tables_there(folder: Path, pairs: list[Signature]) -> tuple[int, int]:
    """How many tables of ``pairs`` (and their mirrors) are in ``folder`` already, a
    pair counting when both its files are, and how many are to build."""
    there = to_build = 0
    for signature in pairs:
        group = _group(signature)
        if all((folder / f"{signature_name(s)}{_SUFFIX}").exists() for s in group):
            there += len(group)
        else:
            to_build += len(group)
    return there, to_build


def _tables(count: int) -> str:
    return f"{count} table" if count == 1 else f"{count} tables"


def build_missing(directory: str | os.PathLike[str] | None = None,
                  variant: str | Variant = DEFAULT_VARIANT, *,
                  pieces: int = FIRST_USE_PIECES) -> None:
    """Builds the tables of up to ``pieces`` pieces of ``variant`` that ``directory``
    (default: :func:`~damier.egdb.default_directory`) lacks, unless it cannot be written:
    the build of an engine's first use of the default directory
    (:data:`~damier.egdb.FIRST_USE_PIECES` pieces, under a second; the engine gives it to
    :func:`damier.egdb.shared_tables`). A table there that cannot be used is left as it
    is, with a warning on the ``damier.egdb`` logger."""
    v = get_variant(variant)
    root = Path(directory) if directory is not None else default_directory()
    if v.endgame_tables_unsupported:
        return  # no tables for this variant (see Variant.endgame_tables_unsupported)
    if pieces < 2 or all((root / v.name / f"{signature_name(s)}{_SUFFIX}").exists()
                         for s in signatures(pieces)):
        return
    try:
        build(root, pieces=pieces, variant=v)
    except OSError:
        pass              # a directory that cannot be written: what is there
    except TableError as exc:
        _log.warning("damier: endgame tables of %s up to %d pieces not built: %s",
                     v.name, pieces, exc)


# ---------------------------------------------------------------------------
# Building on Ray: the pairs of a level as tasks
# ---------------------------------------------------------------------------

def _levels(pairs: list[Signature]) -> list[list[Signature]]:
    """``pairs`` (in build order) grouped in levels: a pair's level is one more than the
    highest level of the pairs among ``pairs`` that it leads to, so no pair depends on
    another of its level.

    >>> _levels(_pairs(2))
    [[(0, 1, 0, 1)], [(0, 1, 1, 0)], [(1, 0, 1, 0)]]
    """
    owner = {t: s for s in pairs for t in (s, _mirror(s))}
    depth: dict[Signature, int] = {}
    for s in pairs:
        below = [depth[owner[t]] for t in _leads_to(s) if t in owner]
        depth[s] = 1 + max(below, default=-1)
    levels: list[list[Signature]] = [[] for _ in range(1 + max(depth.values(), default=-1))]
    for s in pairs:
        levels[depth[s]].append(s)
    return levels


def _group(signature: Signature) -> list[Signature]:
    return [signature] if _mirror(signature) == signature else [signature, _mirror(signature)]


def _not_shared(path: Path) -> str:
    import socket
    return (f"{path} not found on {socket.gethostname()}: the database directory must be "
            "on a file system that the Ray driver and every worker share, at the same path")


def _build_pair(folder: str, variant: str, signature: Signature, needs: list[Signature],
                threads: int) -> list[SignatureReport]:
    """A Ray task: loads the tables ``needs`` from ``folder``, solves the pair of
    ``signature``, verifies it and writes its files (atomically)."""
    v = get_variant(variant)
    where = Path(folder)
    if not where.is_dir():
        raise FileNotFoundError(_not_shared(where))
    start = time.perf_counter()
    tables = _core.EgTables(v.index)
    for s in needs:
        path = where / f"{signature_name(s)}{_SUFFIX}"
        if not path.exists():
            raise FileNotFoundError(_not_shared(path))
        tables.add(s, _load(path, v, s))
    pool = ThreadPoolExecutor(max_workers=threads) if threads > 1 else None
    try:
        solver = _solve(tables, signature, threads, pool)
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
    group = _group(signature)
    seconds = (time.perf_counter() - start) / len(group)
    reports: list[SignatureReport] = []
    for i, s in enumerate(group):
        path = where / f"{signature_name(s)}{_SUFFIX}"
        for stale in where.glob(f".{path.name}.*.tmp"):   # left by a cancelled task
            stale.unlink(missing_ok=True)
        values = solver.values0 if i == 0 else solver.values1
        size = _write_table(path, v, s, values)
        wins, draws, losses, _unused, longest = _core.egdb_counts(values)
        reports.append(SignatureReport(s, len(values) // 2, wins, draws, losses, longest,
                                       size, seconds, False))
    return reports


def _built_report(path: Path, variant: Variant, signature: Signature) -> SignatureReport:
    """The report of a table built before, from its header (the checksum is checked
    when a task loads it)."""
    with open(path, "rb") as f:
        info = _read_header(f.read(HEADER.size), path, os.fstat(f.fileno()).st_size)
    if info.variant != variant.name or info.signature != signature:
        raise TableError(f"{path}: a table of {info.variant} {signature_name(info.signature)},"
                         f" not {variant.name} {signature_name(signature)}")
    return SignatureReport(signature, info.positions, info.wins, info.draws, info.losses,
                           info.longest, path.stat().st_size, 0.0, True)


def _build_on_ray(folder: Path, variant: Variant, pieces: int, pairs: list[Signature], *,
                  threads: int, progress: bool | Callable[[BuildProgress], None],
                  stream: TextIO | None, address: str | None) -> list[SignatureReport]:
    """:func:`build` with each level's pairs as Ray tasks (``threads`` CPUs each). A
    level starts when the one before it is written; a pair whose files are there is
    skipped; an exception in the driver (Ctrl-C, a progress callback's) cancels the
    running tasks."""
    ray, started = start_ray(address)
    task = ray.remote(num_cpus=threads)(_build_pair)
    callback = progress if callable(progress) else None
    there, to_build = _tables_there(folder, pairs)
    bar = ProgressBar(f"egdb {variant.name} {pieces} pieces (Ray): tables built",
                      total=to_build, stream=stream or sys.stderr, enabled=progress is True)
    if there:
        bar.message(f"{there} of {_tables(there + to_build)} already in {folder}; "
                    f"{_tables(to_build)} to build")
    found: dict[Signature, list[SignatureReport]] = {}
    done = built = 0

    def finished(signature: Signature, reports: list[SignatureReport], skipped: bool) -> None:
        nonlocal done, built
        done += 1
        found[signature] = reports
        if not skipped:
            built += len(_group(signature))
            names = "/".join(signature_name(s) for s in _group(signature))
            bar.update(names, advance=len(_group(signature)),
                       line=f"{names}: built ({built}/{to_build} tables to build)")
        if callback is not None:
            callback(BuildProgress(done, len(pairs), signature, skipped))

    pending: dict[Any, Signature] = {}
    try:
        for level in _levels(pairs):
            for signature in level:
                paths = [folder / f"{signature_name(s)}{_SUFFIX}" for s in _group(signature)]
                if all(p.exists() for p in paths):
                    finished(signature, [_built_report(p, variant, s)
                                         for s, p in zip(_group(signature), paths, strict=True)],
                             True)
                    continue
                needs = sorted(s for s in _leads_to(signature)
                               if (folder / f"{signature_name(s)}{_SUFFIX}").exists())
                ref = task.remote(str(folder), variant.name, signature, needs, threads)
                pending[ref] = signature
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                for ref in ready:
                    signature = pending.pop(ref)
                    names = "/".join(signature_name(s) for s in _group(signature))
                    try:
                        reports = ray.get(ref)
                    except ray.exceptions.RayTaskError as exc:
                        raise RuntimeError(f"{names}: {exc.cause}") from None
                    except ray.exceptions.RayError as exc:
                        first = str(exc).strip().splitlines()[:1]
                        raise RuntimeError(f"{names}: {' '.join(first)}") from None
                    for r in reports:
                        path = folder / f"{signature_name(r.signature)}{_SUFFIX}"
                        if not path.exists():
                            raise RuntimeError(_not_shared(path))
                    finished(signature, reports, False)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        bar.close()
        if started:
            ray.shutdown()   # here, not at exit: a Ctrl-C during it is reported as a stop
    return [r for s in pairs for r in found[s]]

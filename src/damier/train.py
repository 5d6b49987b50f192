"""Training damier's evaluation: ``damier train selfplay | rescore | fit | gate``.

A round of training is three commands, each showing progress, stoppable with
Ctrl-C and resumable (run the same command again)::

    damier train selfplay data/r1 --games 10000 --nodes 4000        # games -> positions
    damier train fit data/r1 --out r1.bin                             # positions -> weights
    damier train gate r1.bin --games 400 --sprt 0 10                  # r1 against the current

``selfplay`` plays games at a fixed node budget a move, from the variant's
shipped balanced openings (or the start) plus a few random plies, and stores
every quiet position (no capture pending) after the opening with the game's
result and the engine's score, compactly (numpy ``.npz``, one file per chunk of
games). Its chunks run as tasks on Ray when Ray is installed
(``pip install 'damier[train]'``; a local in-process Ray by default,
``--address`` joins an existing cluster), else on local processes. A chunk is
written atomically when it ends, so an interrupted run resumes with the
chunks that are missing and no game is counted twice; a chunk's games depend
only on the seed and the chunk's number. ``--node-spread PERCENT`` draws each
move's node budget within that many percent of ``--nodes``: at a fixed budget the
engine plays one move in a position, so games that meet go on alike and the run
stores their positions again (400 games at 1,000 nodes: 95.1% of the positions
distinct at a fixed budget, 99.2% with a spread of 25).

``rescore`` (optional) searches every position of a self-play run again at a
larger node budget (``--nodes``), a chunk a task (Ray or local processes, like
``selfplay``), into ``rescore-<nodes>-<chunk>.npz`` files beside the chunks;
an interrupted pass resumes; ``--chunks FIRST-LAST`` takes a range of the
chunks, so machines that share no Ray cluster can split a run (each on a copy;
their files put together are those of one pass). ``fit --rescored NODES`` then
uses those deeper scores as the positions' scores (the evaluation learns to
predict a deeper search)::

    damier train rescore data/r1 --nodes 50000
    damier train fit data/r1 --rescored 50000 --out r1.bin

``fit`` is a logistic regression of the positions' targets on the evaluation's
features (:func:`damier._core.eval_trace_batch`): the prediction is
``sigmoid(eval / scale)``, the target ``sigmoid(score / scale)``, blended with
the game result by ``--score-share`` below 1; with ``--td-lambda`` the scores'
part is each position's TD(λ) return, the scores of the positions after it and
the result, weighted by a factor ``lambda`` a position (:func:`lambda_returns`).
Mini-batch steps on the sparse features with numpy alone, each a share of a
diagonal Newton step (gather for
the prediction, ``bincount`` for the gradient: a few seconds an epoch for a
million positions on one core, so PyTorch would add a large dependency for no
gain here), an L2 prior towards zero (which keeps rarely seen patterns near
zero) or, with ``--prior-initial``, towards the initial weights (a refit on new
games then keeps what those games do not show), the validation loss on
held-out games after every epoch (leaving out held-out positions that a
training game also has) and the weights of the best epoch written in the
weights file format (:mod:`damier.evalfile`) with a manifest beside them.

``gate`` plays the new weights against the current ones (game pairs from the
shipped openings, pentanomial statistics, optionally an SPRT); a new set is
shipped only when it wins.

Needs numpy (``pip install 'damier[train]'``, which also brings Ray).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from damier._core import TRACE_WIDTH_MAX, eval_layout, eval_trace_batch, square_sets
from damier.board import Board
from damier.evalfile import UNIT, Weights, WeightsFileError, side_feature
from damier.progress import ProgressBar
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["SelfplaySettings", "play_chunk", "selfplay", "RescoreSettings", "rescore_chunk",
           "rescore", "Dataset", "load_dataset",
           "FitSettings", "lambda_returns", "targets", "fit", "gate", "TrainError"]

SETTINGS_FILE = "selfplay.json"


class TrainError(Exception):
    """A training command that cannot go on (bad settings, unusable data)."""


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise TrainError("damier train needs numpy: pip install 'damier[train]'") from None
    return numpy


# ---------------------------------------------------------------------------------------
# Self-play
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SelfplaySettings:
    """What a self-play run's games depend on (stored in ``selfplay.json``; a
    resumed run must have the same).

    ``node_spread``: each move's node budget is drawn (from the chunk's seeded
    generator) between ``nodes`` less and ``nodes`` more this many percent; 0, every
    move searches ``nodes``. A fixed budget makes the engine play one move in a
    position, so games that meet in a position go on alike and repeat each other's
    positions from there; a spread budget lets them part."""

    variant: str = DEFAULT_VARIANT
    nodes: int = 4000
    chunk_games: int = 20
    random_plies: int = 2
    node_spread: int = 0
    skip_plies: int = 8
    max_plies: int = 300
    seed: int = 1
    weights_sha256: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _weights_digest(path: str | None) -> str:
    if path is None:
        return ""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _opening(variant: Variant, openings: Sequence[Sequence[str]], plies: int,
             rng: random.Random) -> Board:
    board = Board(variant=variant)
    if openings:
        for text in rng.choice(openings):
            board.push(text)
    for _ in range(plies):
        moves = board.legal_moves
        if not moves or board.outcome() is not None:
            break
        board.push(rng.choice(moves))
    return board


def _move_nodes(settings: SelfplaySettings, rng: random.Random) -> int:
    """The node budget of a self-play move: ``settings.nodes``, or with a
    ``node_spread`` a draw from ``rng`` within that many percent of it."""
    if not settings.node_spread:
        return settings.nodes
    spread = settings.nodes * settings.node_spread // 100
    return max(1, settings.nodes + rng.randint(-spread, spread))


def play_chunk(settings: SelfplaySettings, chunk: int, weights_path: str | None = None
               ) -> dict[str, Any]:
    """Plays chunk ``chunk``'s games (``settings.chunk_games`` of them) and returns
    their quiet positions as arrays: ``white``, ``black``, ``kings`` (square
    sets, bit ``s - 1`` for square ``s``), ``white_to_move``, ``result`` (of
    the game, White's view: 1, 0.5, 0), ``score`` (the engine's, White's view,
    centi-men), ``ply``, ``game`` (the game's number in the run) and
    ``games``/``plies`` totals. The same settings and chunk give the same games."""
    np = _numpy()
    from damier.engine import Engine, Limit
    from damier.openings import load_openings

    variant = get_variant(settings.variant)
    rng = random.Random(settings.seed * 1_000_003 + chunk)
    engine = Engine(hash_mb=16, seed=rng.randrange(2 ** 31),
                    weights=weights_path if weights_path else None)
    openings = load_openings(variant=variant) if variant.openings_file else []
    random_plies = settings.random_plies if openings else max(settings.random_plies, 6)
    rows: dict[str, list[Any]] = {k: [] for k in ("white", "black", "kings", "white_to_move",
                                                  "result", "score", "ply", "game")}
    plies_total = 0
    for g in range(settings.chunk_games):
        game_no = chunk * settings.chunk_games + g
        board = _opening(variant, openings, random_plies, rng)
        engine.new_game()
        start = board.ply
        kept: list[tuple[int, int, int, bool, int, int]] = []
        while board.outcome() is None and board.ply - start < settings.max_plies:
            moves = board.legal_moves
            if not moves:
                break
            quiet = not moves[0].captures
            result = engine.play(board, Limit(nodes=_move_nodes(settings, rng)))
            if result.move is None:
                break
            score = result.info.get("score")
            if quiet and board.ply >= settings.skip_plies and score is not None:
                value = score.white().score(win_score=3000)
                if value is not None and abs(value) < 2500:
                    w, b, k, wtm = square_sets(board)
                    kept.append((w, b, k, wtm, value, board.ply))
            board.push(result.move)
        outcome = board.outcome()
        if outcome is None:
            res = 0.5 if board.ply - start >= settings.max_plies else 0.5
        else:
            res = 0.5 if outcome.winner is None else (1.0 if outcome.winner else 0.0)
        plies_total += board.ply - start
        for w, b, k, wtm, value, ply in kept:
            rows["white"].append(w)
            rows["black"].append(b)
            rows["kings"].append(k)
            rows["white_to_move"].append(1 if wtm else 0)
            rows["result"].append(res)
            rows["score"].append(value)
            rows["ply"].append(ply)
            rows["game"].append(game_no)
    return {
        "white": np.array(rows["white"], dtype=np.uint64),
        "black": np.array(rows["black"], dtype=np.uint64),
        "kings": np.array(rows["kings"], dtype=np.uint64),
        "white_to_move": np.array(rows["white_to_move"], dtype=np.uint8),
        "result": np.array(rows["result"], dtype=np.float32),
        "score": np.array(rows["score"], dtype=np.int16),
        "ply": np.array(rows["ply"], dtype=np.int16),
        "game": np.array(rows["game"], dtype=np.int32),
        "games": np.array(settings.chunk_games, dtype=np.int32),
        "plies": np.array(plies_total, dtype=np.int64),
    }


def _chunk_path(out: Path, chunk: int) -> Path:
    return out / f"chunk-{chunk:06d}.npz"


def _write_chunk(out: Path, chunk: int, arrays: dict[str, Any]) -> None:
    _write_npz(_chunk_path(out, chunk), arrays)


def _write_npz(final: Path, arrays: dict[str, Any]) -> None:
    """Writes ``arrays`` to ``final`` atomically (a file of the run is whole or absent)."""
    np = _numpy()
    tmp = final.with_name(final.name + ".tmp")
    with open(tmp, "wb") as handle:
        np.savez_compressed(handle, **arrays)
    os.replace(tmp, final)


def _done_chunks(out: Path) -> set[int]:
    done = set()
    for path in out.glob("chunk-*.npz"):
        try:
            done.add(int(path.stem.split("-")[1]))
        except (IndexError, ValueError):
            continue
    return done


def _prepare_run(out: Path, settings: SelfplaySettings) -> None:
    out.mkdir(parents=True, exist_ok=True)
    path = out / SETTINGS_FILE
    if path.exists():
        try:
            old = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as err:
            raise TrainError(f"{path}: unreadable settings ({err}); "
                             "use another directory") from None
        new = settings.to_dict()
        # A setting added since the run began is the default it then had.
        old = dict(SelfplaySettings().to_dict(), **old) if isinstance(old, dict) else {}
        differ = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        if differ:
            raise TrainError(f"{out} holds a self-play run with other settings ("
                             + ", ".join(f"{k}: {old.get(k)!r} there, {new.get(k)!r} now"
                                         for k in differ)
                             + "); use another directory or the same settings")
    else:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(settings.to_dict(), indent=1) + "\n")
        os.replace(tmp, path)


def _run_tasks_ray(chunks: list[int], settings: Any, weights: str | None,
                   address: str | None, workers: int | None,
                   done: Callable[[int, dict[str, Any]], None],
                   function: Callable[..., dict[str, Any]] = play_chunk) -> None:
    from damier.raytasks import start_ray

    ray, started = start_ray(address, workers)
    task = ray.remote(num_cpus=1)(function)
    pending = {task.remote(settings, c, weights): c for c in chunks}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                chunk = pending.pop(ref)
                done(chunk, ray.get(ref))
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
        if started:
            # Here rather than at exit: a Ctrl-C during the shutdown is then this
            # run's to report ("stopped"), not a traceback from an exit handler.
            ray.shutdown()


def _run_tasks_local(chunks: list[int], settings: Any, weights: str | None,
                     workers: int, done: Callable[[int, dict[str, Any]], None],
                     function: Callable[..., dict[str, Any]] = play_chunk) -> None:
    if workers <= 1:
        for c in chunks:
            done(c, function(settings, c, weights))
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending = {pool.submit(function, settings, c, weights): c for c in chunks}
        try:
            while pending:
                finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                for fut in finished:
                    done(pending.pop(fut), fut.result())
        finally:
            for fut in pending:
                fut.cancel()


def _backend(name: str) -> str:
    """``"ray"`` or ``"local"`` for a backend name (``"auto"``: Ray when installed)."""
    if name == "auto":
        try:
            import ray  # noqa: F401
            return "ray"
        except ImportError:
            return "local"
    if name not in ("ray", "local"):
        raise TrainError(f"unknown backend {name!r} (ray, local or auto)")
    return name


def selfplay(out: str | os.PathLike[str], *, games: int, settings: SelfplaySettings | None = None,
             weights: str | None = None, backend: str = "auto", address: str | None = None,
             workers: int | None = None, progress: bool = True,
             stream: TextIO | None = None) -> dict[str, Any]:
    """Plays self-play games into the directory ``out`` until it holds ``games``
    games (rounded up to whole chunks), resuming what is there. ``backend``:
    ``"ray"``, ``"local"`` (processes) or ``"auto"`` (Ray when installed).
    Returns ``{"games", "positions", "new_games", "seconds"}``."""
    settings = settings or SelfplaySettings()
    get_variant(settings.variant)
    if games < 1:
        raise TrainError("--games must be at least 1")
    if settings.nodes < 1 or settings.chunk_games < 1:
        raise TrainError("--nodes and --chunk-games must be at least 1")
    if not 0 <= settings.node_spread <= 100:
        raise TrainError(f"--node-spread is a percentage from 0 to 100, not {settings.node_spread}")
    if weights is not None:
        try:
            Weights.read(weights, variant=settings.variant)
        except WeightsFileError as err:
            raise TrainError(str(err)) from None
        settings = SelfplaySettings(**dict(settings.to_dict(),
                                           weights_sha256=_weights_digest(weights)))
    path = Path(out)
    _prepare_run(path, settings)
    total_chunks = -(-games // settings.chunk_games)
    done_before = _done_chunks(path)
    todo = [c for c in range(total_chunks) if c not in done_before]
    backend = _backend(backend)
    stream = stream if stream is not None else sys.stderr
    finished = len([c for c in done_before if c < total_chunks])
    bar = ProgressBar("selfplay", total=total_chunks * settings.chunk_games, stream=stream,
                      done=finished * settings.chunk_games, enabled=progress)
    if finished:
        bar.message(f"resuming: {finished} of {total_chunks} chunks already played", always=True)
    began = time.monotonic()
    counts = {"new": 0, "positions": 0}

    def done(chunk: int, arrays: dict[str, Any]) -> None:
        _write_chunk(path, chunk, arrays)
        counts["new"] += 1
        counts["positions"] += len(arrays["result"])
        rate = counts["new"] * settings.chunk_games / max(1e-9, time.monotonic() - began)
        bar.update(f"{rate:.1f} games/s", advance=settings.chunk_games,
                   line=f"chunk {chunk}: {settings.chunk_games} games, "
                        f"{len(arrays['result'])} positions")

    try:
        if todo:
            if backend == "ray":
                _run_tasks_ray(todo, settings, weights, address, workers, done)
            else:
                _run_tasks_local(todo, settings, weights, workers or 1, done)
    finally:
        bar.close()
    return {"games": total_chunks * settings.chunk_games,
            "new_games": counts["new"] * settings.chunk_games,
            "new_positions": counts["positions"], "seconds": time.monotonic() - began}


# ---------------------------------------------------------------------------------------
# Rescoring: deeper search scores for the positions of a self-play run
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class RescoreSettings:
    """A rescoring pass over a self-play directory: every position of its chunks
    searched again at ``nodes`` nodes (a deeper score than the games' own)."""

    directory: str
    variant: str = DEFAULT_VARIANT
    nodes: int = 50_000
    repeats: bool = True
    """Search the positions that occurred earlier in the run too; False: those are
    left out (``valid`` 0, ``repeat`` 1), as :data:`REPEATS_FILE` marks them."""


REPEATS_FILE = "repeats.npz"
"""A self-play run's repeated positions, as ``rescore`` marks them for its tasks: an
array ``c<chunk>`` a chunk, 1 where the position (its pieces and side to move) occurred
before in the run (an earlier chunk, or earlier in the same chunk)."""

_HASH_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9)


def _position_hashes(white: Any, black: Any, kings: Any, wtm: Any) -> Any:
    """64-bit hashes of positions given as square sets (two positions of a run of
    millions share one with a chance of about 10^-6)."""
    np = _numpy()
    with np.errstate(over="ignore"):
        h = np.asarray(white, dtype=np.uint64) * np.uint64(_HASH_MULTIPLIERS[0])
        h ^= (np.asarray(black, dtype=np.uint64) * np.uint64(_HASH_MULTIPLIERS[1])) >> np.uint64(3)
        h ^= np.asarray(kings, dtype=np.uint64) * np.uint64(_HASH_MULTIPLIERS[2])
        h ^= np.asarray(wtm, dtype=np.uint64)
        h *= np.uint64(_HASH_MULTIPLIERS[0])
        h ^= h >> np.uint64(29)
    return h


def _write_repeats(path: Path, chunks: Sequence[int]) -> int:
    """Marks the repeated positions of the run's ``chunks`` (in order) into
    :data:`REPEATS_FILE`; returns how many there are."""
    np = _numpy()
    hashes, sizes = [], []
    for chunk in chunks:
        with np.load(_chunk_path(path, chunk)) as data:
            hashes.append(_position_hashes(data["white"], data["black"], data["kings"],
                                           data["white_to_move"]))
        sizes.append(len(hashes[-1]))
    every = np.concatenate(hashes) if hashes else np.zeros(0, dtype=np.uint64)
    repeat = np.ones(len(every), dtype=np.uint8)
    repeat[np.unique(every, return_index=True)[1]] = 0
    arrays, at = {}, 0
    for chunk, size in zip(chunks, sizes, strict=True):
        arrays[f"c{chunk}"] = repeat[at:at + size]
        at += size
    _write_npz(path / REPEATS_FILE, arrays)
    return int(repeat.sum())


def _rescore_path(directory: Path, nodes: int, chunk: int) -> Path:
    return directory / f"rescore-{nodes}-{chunk:06d}.npz"


def _rescore_file(directory: Path, nodes: int, chunk_file: Path) -> Path:
    """The rescore file of the chunk file ``chunk_file`` (``chunk-<n>.npz``)."""
    return _rescore_path(directory, nodes, int(chunk_file.stem.split("-")[1]))


def rescore_chunk(settings: RescoreSettings, chunk: int, weights_path: str | None = None
                  ) -> dict[str, Any]:
    """The positions of chunk ``chunk`` searched at ``settings.nodes`` nodes:
    ``score`` (White's view, centi-men, as the self-play games store it),
    ``valid`` (0 where the search found a forced result or gave no score, or the
    position was left out as a repeat) and ``repeat`` (1: left out, the position
    occurred before in the run; only without ``settings.repeats``). The hash
    table is kept from one position of a game to the next, as in play."""
    np = _numpy()
    from damier.engine import Engine, Limit

    variant = get_variant(settings.variant)
    directory = Path(settings.directory)
    with np.load(_chunk_path(directory, chunk)) as data:
        arrays = {k: data[k] for k in ("white", "black", "kings", "white_to_move", "game")}
    engine = Engine(hash_mb=16, weights=weights_path if weights_path else None)
    n = len(arrays["game"])
    score = np.zeros(n, dtype=np.int16)
    valid = np.zeros(n, dtype=np.uint8)
    repeat = np.zeros(n, dtype=np.uint8)
    if not settings.repeats:
        with np.load(directory / REPEATS_FILE) as marks:
            repeat[:] = marks[f"c{chunk}"]
    game = None
    for i in range(n):
        if repeat[i]:
            continue
        if arrays["game"][i] != game:
            game = arrays["game"][i]
            engine.new_game()
        board = Board(variant=variant)
        board.set_square_sets(int(arrays["white"][i]), int(arrays["black"][i]),
                              int(arrays["kings"][i]), bool(arrays["white_to_move"][i]))
        info = engine.analyse(board, Limit(nodes=settings.nodes))
        pov = info.get("score")
        value = pov.white().score(win_score=3000) if pov is not None else None
        if value is not None and abs(value) < 2500:
            score[i] = value
            valid[i] = 1
    return {"score": score, "valid": valid, "repeat": repeat,
            "nodes": np.array(settings.nodes, dtype=np.int64)}


def rescore(directory: str | os.PathLike[str], *, nodes: int, weights: str | None = None,
            backend: str = "auto", address: str | None = None, workers: int | None = None,
            progress: bool = True, stream: TextIO | None = None,
            repeats: bool = False, chunks: tuple[int, int] | None = None) -> dict[str, Any]:
    """Searches the positions of the self-play run in ``directory`` again at
    ``nodes`` nodes, a chunk a task, into ``rescore-<nodes>-<chunk>.npz`` files
    beside the chunks; chunks already rescored are skipped (an interrupted pass
    resumes). ``damier train fit --rescored NODES`` fits to these scores.

    ``chunks`` (first, last; inclusive) rescores only those chunks of the run: machines
    that share no Ray cluster can each take a range of a copy of the run, and their
    files, put back together in one directory, are the ones a single pass writes
    (each chunk is searched from an emptied hash table, and which positions repeat
    earlier ones is decided on the whole run, whatever the range).

    A position that occurred before in the run (games of one opening often
    share their first dozens of moves) is searched once: its repeats are left
    out (marked in :data:`REPEATS_FILE`), unless ``repeats``.
    Returns ``{"chunks", "new_chunks", "positions", "repeats", "seconds"}``
    (``positions``: those searched in the new chunks)."""
    path = Path(directory)
    settings_path = path / SETTINGS_FILE
    if not settings_path.is_file():
        raise TrainError(f"{path}: not a self-play directory (no {SETTINGS_FILE})")
    if nodes < 1:
        raise TrainError("--nodes must be at least 1")
    variant = json.loads(settings_path.read_text())["variant"]
    if weights is not None:
        try:
            Weights.read(weights, variant=variant)
        except WeightsFileError as err:
            raise TrainError(str(err)) from None
    every = sorted(_done_chunks(path))
    if chunks is not None:
        first, last = chunks
        if not 0 <= first <= last:
            raise TrainError(f"chunk range {first}-{last}: give FIRST-LAST with "
                             f"0 <= FIRST <= LAST")
        wanted = [c for c in every if first <= c <= last]
        if not wanted:
            span = f"chunks {every[0]}-{every[-1]}" if every else "no chunks"
            raise TrainError(f"{path}: no chunk in {first}-{last} (the run has {span})")
    else:
        wanted = every
    todo = [c for c in wanted if not _rescore_path(path, nodes, c).exists()]
    settings = RescoreSettings(str(path), variant, nodes, repeats)
    repeated = _write_repeats(path, every) if todo and not repeats else 0
    stream = stream if stream is not None else sys.stderr
    bar = ProgressBar("rescore", total=len(wanted), stream=stream, done=len(wanted) - len(todo),
                      enabled=progress)
    if len(todo) < len(wanted):
        bar.message(f"resuming: {len(wanted) - len(todo)} of {len(wanted)} chunks already "
                    f"rescored", always=True)
    began = time.monotonic()
    counts = {"new": 0, "positions": 0}

    if repeated:
        bar.message(f"{repeated} positions repeat earlier ones of the run: left out",
                    always=True)

    def done(chunk: int, arrays: dict[str, Any]) -> None:
        _write_npz(_rescore_path(path, nodes, chunk), arrays)
        searched = len(arrays["score"]) - int(arrays["repeat"].sum())
        counts["new"] += 1
        counts["positions"] += searched
        bar.update(f"{counts['positions'] / max(1e-9, time.monotonic() - began):.1f} positions/s",
                   advance=1, line=f"chunk {chunk}: {searched} positions")

    try:
        if todo:
            if _backend(backend) == "ray":
                _run_tasks_ray(todo, settings, weights, address, workers, done, rescore_chunk)
            else:
                _run_tasks_local(todo, settings, weights, workers or 1, done, rescore_chunk)
    finally:
        bar.close()
    return {"chunks": len(wanted), "new_chunks": counts["new"],
            "positions": counts["positions"], "repeats": repeated,
            "seconds": time.monotonic() - began}


# ---------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------

@dataclass
class Dataset:
    """Positions with their features: ``feats``/``counts`` (``eval_trace_batch``
    rows), ``phase``, ``shift``, ``result``, ``score``, ``game`` and ``shallow``
    (the self-play search's own score, which ``score`` replaces in rescored data;
    None: the same as ``score``)."""

    variant: Variant
    feats: Any
    counts: Any
    phase: Any
    shift: Any
    result: Any
    score: Any
    game: Any
    games: int = 0
    sources: list[str] = field(default_factory=list)
    shallow: Any = None

    def __len__(self) -> int:
        return int(len(self.result))

    def subset(self, mask: Any) -> "Dataset":
        return Dataset(self.variant, self.feats[mask], self.counts[mask], self.phase[mask],
                       self.shift[mask], self.result[mask], self.score[mask], self.game[mask],
                       self.games, self.sources,
                       None if self.shallow is None else self.shallow[mask])

    def shallow_scores(self) -> Any:
        """The self-play search's scores (centi-men, White's view)."""
        return self.score if self.shallow is None else self.shallow


def trace_arrays(variant: Variant, white: Any, black: Any, kings: Any, wtm: Any) -> tuple[Any, ...]:
    """The features of positions given as square sets (see :func:`play_chunk`)."""
    np = _numpy()
    n = len(white)
    feats = np.zeros((n, TRACE_WIDTH_MAX), dtype=np.int32)
    counts = np.zeros((n, TRACE_WIDTH_MAX), dtype=np.int16)
    phase = np.zeros(n, dtype=np.int16)
    shift = np.zeros(n, dtype=np.int8)
    eval_trace_batch(variant.index, np.ascontiguousarray(white, dtype=np.uint64),
                     np.ascontiguousarray(black, dtype=np.uint64),
                     np.ascontiguousarray(kings, dtype=np.uint64),
                     np.ascontiguousarray(wtm, dtype=np.uint8), feats, counts, phase, shift)
    return feats, counts, phase, shift


def load_dataset(directories: Sequence[str | os.PathLike[str]], *,
                 rescored: int | Sequence[int] | None = None) -> Dataset:
    """The positions of one or more self-play directories, with their features.
    With ``rescored`` (nodes), the scores are those of ``damier train rescore
    --nodes`` that many: only rescored chunks are read, and positions the
    rescoring found no score for are left out. A list of node counts takes each
    chunk's scores from the first of them it was rescored at (deeper scores where
    a part of the data has them)."""
    np = _numpy()
    depths: tuple[int, ...] = (() if rescored is None else (rescored,)
                               if isinstance(rescored, int) else tuple(rescored))

    def rescore_file(path: Path, chunk_file: Path) -> Path | None:
        for nodes in depths:
            candidate = _rescore_file(path, nodes, chunk_file)
            if candidate.exists():
                return candidate
        return None

    parts: dict[str, list[Any]] = {k: [] for k in ("white", "black", "kings", "white_to_move",
                                                   "result", "score", "game", "shallow")}
    variant_name: str | None = None
    games = 0
    offset = 0
    for directory in directories:
        path = Path(directory)
        settings_path = path / SETTINGS_FILE
        if not settings_path.is_file():
            raise TrainError(f"{path}: not a self-play directory (no {SETTINGS_FILE})")
        settings = json.loads(settings_path.read_text())
        if variant_name is None:
            variant_name = settings["variant"]
        elif settings["variant"] != variant_name:
            raise TrainError(f"{path}: {settings['variant']} games mixed with {variant_name}")
        chunk_files = sorted(path.glob("chunk-*.npz"))
        if not chunk_files:
            raise TrainError(f"{path}: no games yet (run damier train selfplay first)")
        if depths:
            chunk_files = [f for f in chunk_files if rescore_file(path, f) is not None]
            if not chunk_files:
                shown = " or ".join(map(str, depths))
                raise TrainError(f"{path}: no chunk rescored at {shown} nodes "
                                 f"(run damier train rescore {path} --nodes {depths[0]})")
        top = offset
        for chunk_file in chunk_files:
            try:
                with np.load(chunk_file) as data:
                    keep = slice(None)
                    deep = None
                    deep_file = rescore_file(path, chunk_file)
                    if deep_file is not None:
                        with np.load(deep_file) as extra:
                            if len(extra["score"]) != len(data["score"]):
                                raise ValueError("its rescore file has another number of "
                                                 "positions")
                            keep = extra["valid"].astype(bool)
                            deep = extra["score"]
                    for key in parts:
                        value = (deep if key == "score" and deep is not None
                                 else data["score"] if key == "shallow" else data[key])
                        parts[key].append(value[keep] + (offset if key == "game" else 0))
                    games += int(data["games"])
                    if len(data["game"]):
                        top = max(top, int(data["game"].max()) + offset + 1)
            except (OSError, ValueError, KeyError) as err:
                raise TrainError(f"{chunk_file}: unreadable chunk ({err})") from None
        offset = top
    assert variant_name is not None
    variant = get_variant(variant_name)
    arrays = {k: np.concatenate(v) for k, v in parts.items()}
    feats, counts, phase, shift = trace_arrays(variant, arrays["white"], arrays["black"],
                                               arrays["kings"], arrays["white_to_move"])
    return Dataset(variant, feats, counts, phase, shift, arrays["result"].astype(np.float64),
                   arrays["score"].astype(np.float64), arrays["game"], games,
                   [str(d) for d in directories],
                   arrays["shallow"].astype(np.float64) if depths else None)


# ---------------------------------------------------------------------------------------
# Fit
# ---------------------------------------------------------------------------------------

@dataclass
class FitSettings:
    epochs: int = 20
    batch: int = 8192
    learning_rate: float = 0.05     # share of a (diagonal) Newton step taken per batch
    l2: float = 1e-4                # L2 prior towards zero on the pattern weights, as the
                                    # share of positions a pattern needs to be half-believed
    scale: float = 100.0            # centi-men per logit unit: sigmoid(eval / scale)
    score_share: float = 1.0        # target = share * sigmoid(score/scale) + (1 - share) * result
                                    # (1: the scores alone. On 12,500 games of 3,000-node self-play,
                                    # early full refits with shares 0, 0.5 and 1 scored -171, -49
                                    # and +33 Elo against the weights they started from, 200 games
                                    # at 5,000 nodes. Round 7, the tables refitted from round 6 with
                                    # the terms fixed and --prior-initial, share 0.75: +24.3 Elo at
                                    # 0.1 s, where refits to scores alone had stalled; round 8,
                                    # the same with td_lambda 0.9: +26.0 more; see
                                    # benchmarks/README.md)
    validation: float = 0.1         # share of the games held out
    seed: int = 1
    fixed: tuple[str, ...] = ()     # terms (or "material", "patterns", "big") kept at their initial
                                    # weights
    prior_initial: bool = False     # the L2 prior pulls towards the initial weights, not zero
    unseen_validation: bool = True  # validate only on positions that no training game has
    td_lambda: float = 0.0          # when not 0: the scores' part of the target is their
                                    # λ-return over the rest of the game (see lambda_returns)
    max_gap: float = 0.0            # when not 0: training positions whose self-play search score
                                    # is more than this many centi-men from the initial weights'
                                    # evaluation are left out (a shot the search saw and a static
                                    # evaluation cannot); the validation positions stay


def _position_keys(np: Any, data: Dataset) -> Any:
    """A 64-bit hash of each position's features (the evaluation sees two positions
    with the same features, phase and scaling as the same position)."""
    width = data.feats.shape[1]
    mult = np.random.default_rng(12345).integers(1, 2 ** 63, width + 2, dtype=np.uint64) | 1
    with np.errstate(over="ignore"):
        key = (data.feats.astype(np.uint64) * np.uint64(65599)
               + data.counts.astype(np.int64).astype(np.uint64)) * mult[:width]
        h = key.sum(axis=1, dtype=np.uint64)
        h += data.phase.astype(np.uint64) * mult[width]
        h += data.shift.astype(np.int64).astype(np.uint64) * mult[width + 1]
    return h


def _sigmoid(np: Any, z: Any) -> Any:
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def predict(np: Any, w: Any, data: Dataset) -> Any:
    """The evaluation (centi-men, White's view) of every position, as floats."""
    ph = data.phase.astype(np.float64) / 256.0
    idx = 2 * data.feats.astype(np.int64)
    c = data.counts.astype(np.float64)
    so = (w[idx] * c).sum(axis=1)
    se = (w[idx + 1] * c).sum(axis=1)
    return (so * ph + se * (1.0 - ph)) / UNIT / (2.0 ** data.shift)


def lambda_returns(np: Any, values: Any, result: Any, game: Any, lam: float) -> Any:
    """The λ-returns of positions stored game by game in the order they were
    played (a game's positions next to each other, as :func:`load_dataset`
    gives them): ``G = (1 - lam) * value + lam * G_next``, where a game's last
    position's ``G_next`` is the game's result. ``lam`` 0 gives the values, 1
    the results; in between, each position's target looks ahead to the values
    of the positions after it (weights decaying by ``lam`` a position: some
    ``lam / (1 - lam)`` positions on average) and to the result as far as
    ``lam`` to the power of the positions left carries it (TD(λ), Sutton 1988).

    >>> import numpy as np
    >>> lambda_returns(np, np.array([0.5, 0.6, 0.2, 0.9]), np.array([1.0, 1.0, 0.0, 0.0]),
    ...                np.array([3, 3, 8, 8]), 0.5).round(3).tolist()
    [0.65, 0.8, 0.325, 0.45]
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    starts = np.flatnonzero(np.concatenate(([True], game[1:] != game[:-1])))
    if len(np.unique(game)) != len(starts):
        raise TrainError("the positions of a game are not stored together; "
                         "λ-returns need each game's positions in the order played")
    ends = np.append(starts[1:], n)
    lengths = ends - starts
    # Each position's distance from its game's last position; positions are
    # visited from the last of every game backwards, all games at once.
    left = np.repeat(ends - 1, lengths) - np.arange(n)
    order = np.argsort(left, kind="stable")
    bounds = np.searchsorted(left[order], np.arange(int(left.max()) + 2))
    out = np.empty(n, dtype=np.float64)
    for d in range(int(left.max()) + 1):
        idx = order[bounds[d]:bounds[d + 1]]
        after = result[idx] if d == 0 else out[idx + 1]
        out[idx] = (1.0 - lam) * values[idx] + lam * after
    return out


def targets(np: Any, data: Dataset, settings: FitSettings) -> Any:
    """Each position's target: ``score_share`` of the search's score (as a
    probability, ``sigmoid(score / scale)``; with ``td_lambda``, the λ-returns of
    these over the rest of the game, see :func:`lambda_returns`), the rest the
    game's result."""
    t = data.result.copy()
    if settings.score_share > 0:
        values = _sigmoid(np, data.score / settings.scale)
        if settings.td_lambda > 0:
            values = lambda_returns(np, values, data.result, data.game, settings.td_lambda)
        t = (1 - settings.score_share) * t + settings.score_share * values
    return t


def _loss(np: Any, w: Any, data: Dataset, target: Any, scale: float) -> float:
    """Cross-entropy of sigmoid(eval / scale) against the target (in nats, per position)."""
    if len(data) == 0:
        return float("nan")
    p = np.clip(_sigmoid(np, predict(np, w, data) / scale), 1e-9, 1 - 1e-9)
    return float(-(target * np.log(p) + (1 - target) * np.log(1 - p)).mean())


def fit(data: Dataset, initial: Weights, settings: FitSettings | None = None, *,
        progress: bool = True, stream: TextIO | None = None,
        on_epoch: Callable[[int, float, float], None] | None = None
        ) -> tuple[Weights, list[dict[str, float]]]:
    """Fits the weights to ``data`` from ``initial``; returns the weights of the
    epoch with the lowest validation loss and every epoch's losses: ``train_loss``
    and ``validation_loss`` against the target (``--score-share``'s blend), and
    ``validation_result_loss`` and ``validation_score_loss``, the held-out
    cross-entropy against the games' results alone and the engine's scores
    alone (a share below 1 trades one for the other)."""
    np = _numpy()
    settings = settings or FitSettings()
    stream = stream if stream is not None else sys.stderr
    layout = eval_layout(data.variant.index)
    nterms = len(layout["terms"])
    nweights = 2 * int(layout["features"])
    w = np.array(initial.vector, dtype=np.float64)
    frozen = np.zeros(nweights, dtype=bool)
    tables = nterms + int(layout["patterns"]) * int(layout["pattern_states"])
    material_end = tables + int(layout["material_states"])
    groups = {"patterns": (nterms, tables),
              "material": (tables, material_end),
              "big": (material_end, material_end + int(layout["big_features"])),
              "side": (side_feature(data.variant), side_feature(data.variant) + 1)}
    for name in settings.fixed:
        if name in groups:
            first, end = groups[name]
            frozen[2 * first:2 * end] = True
            continue
        if name not in layout["terms"]:
            raise TrainError(f"unknown term {name!r} in --fixed (terms: "
                             f"{', '.join(layout['terms'])}; tables: {', '.join(groups)})")
        i = layout["terms"].index(name)
        frozen[2 * i:2 * i + 2] = True
    rng = np.random.default_rng(settings.seed)
    games = np.unique(data.game)
    held = set(rng.choice(games, size=max(1, int(len(games) * settings.validation)), replace=False)
               .tolist()) if settings.validation > 0 and len(games) > 1 else set()
    is_val = np.isin(data.game, list(held))
    repeated = np.zeros(len(data), dtype=bool)
    if settings.unseen_validation and is_val.any():
        # Games of one opening share their first positions, and a feature that can
        # tell positions apart (a big pattern table) can learn them by heart: a held-out
        # game's position that a training game also has measures memory, not skill.
        keys = _position_keys(np, data)
        repeated = is_val & np.isin(keys, keys[~is_val])
        if repeated.any():
            stream.write(f"fit: {int(repeated.sum())} of {int(is_val.sum())} held-out positions "
                         f"also occur in training games; validating on the other "
                         f"{int(is_val.sum() - repeated.sum())}\n")
    # The targets come from the whole games (a λ-return reads the positions after
    # each one), before any position is set aside.
    t_all = targets(np, data, settings)
    train, val = data.subset(~is_val), data.subset(is_val & ~repeated)
    t_train, t_val = t_all[~is_val], t_all[is_val & ~repeated]
    if settings.max_gap > 0 and len(train):
        gap = np.abs(train.shallow_scores() - predict(np, w, train))
        tactical = gap > settings.max_gap
        stream.write(f"fit: {int(tactical.sum())} of {len(train)} training positions have a "
                     f"self-play score more than {settings.max_gap:g} centi-men from the "
                     f"initial evaluation; left out\n")
        train, t_train = train.subset(~tactical), t_train[~tactical]
    if len(train) == 0:
        raise TrainError("no positions to fit")
    ph_all = train.phase.astype(np.float64) / 256.0
    div_all = 2.0 ** train.shift
    # The diagonal of the loss's Hessian (with p(1-p) at its largest, 1/4) over
    # the training positions: each weight's step is its gradient divided by it,
    # plus the L2 prior, so a weight seen in few positions moves little (and
    # one never seen shrinks to zero), and the terms and the patterns, whose
    # features differ in size by orders of magnitude, learn at the same pace.
    unit = settings.scale * UNIT
    flat = 2 * train.feats.astype(np.int64)
    cw = train.counts.astype(np.float64) / div_all[:, None]
    hess = np.bincount(flat.ravel(), weights=(cw * ph_all[:, None]).ravel() ** 2,
                       minlength=nweights)
    hess += np.bincount((flat + 1).ravel(), weights=(cw * (1 - ph_all[:, None])).ravel() ** 2,
                        minlength=nweights)
    del flat, cw
    hess *= 0.25 / unit ** 2 / len(train)
    prior = np.zeros(nweights)
    prior[2 * nterms:nweights - 2] = 0.25 * settings.l2 / unit ** 2
    denominator = hess + prior + 1e-30
    # The prior's centre: zero, or the initial weights (a refit on new games then keeps
    # what it knew of the patterns those games do not show, instead of forgetting it).
    centre = w.copy() if settings.prior_initial else np.zeros(nweights)
    history: list[dict[str, float]] = []
    best = (math.inf, w.copy())
    bar = ProgressBar("fit", total=settings.epochs, stream=stream, enabled=progress)
    try:
        for epoch in range(1, settings.epochs + 1):
            order = rng.permutation(len(train))
            for start in range(0, len(order), settings.batch):
                rows = order[start:start + settings.batch]
                feats = 2 * train.feats[rows].astype(np.int64)
                c = train.counts[rows].astype(np.float64)
                ph = ph_all[rows][:, None]
                div = div_all[rows][:, None]
                so = (w[feats] * c).sum(axis=1)
                se = (w[feats + 1] * c).sum(axis=1)
                ev = (so * ph[:, 0] + se * (1 - ph[:, 0])) / UNIT / div[:, 0]
                p = _sigmoid(np, ev / settings.scale)
                g = (p - t_train[rows]) / settings.scale / UNIT / len(rows)   # dLoss/d(eval units)
                gc = (g[:, None] / div) * c
                grad = np.bincount(feats.ravel(), weights=(gc * ph).ravel(), minlength=nweights)
                grad += np.bincount((feats + 1).ravel(), weights=(gc * (1 - ph)).ravel(),
                                    minlength=nweights)
                grad *= len(rows) / min(len(rows), len(train))
                step = settings.learning_rate * (grad + prior * (w - centre)) / denominator
                step[frozen] = 0.0
                w -= step
                np.clip(w, -32767, 32767, out=w)
            lt = _loss(np, w, train, t_train, settings.scale)
            lv = _loss(np, w, val, t_val, settings.scale) if len(val) else lt
            # The two parts of the target apart (on the held-out positions, or the
            # training ones when none are held out): how well the evaluation predicts
            # the games' results, and the engine's scores.
            part = val if len(val) else train
            history.append({"epoch": epoch, "train_loss": round(lt, 6),
                            "validation_loss": round(lv, 6),
                            "validation_result_loss": round(
                                _loss(np, w, part, part.result, settings.scale), 6),
                            "validation_score_loss": round(
                                _loss(np, w, part, _sigmoid(np, part.score / settings.scale),
                                      settings.scale), 6)})
            if lv < best[0]:
                best = (lv, w.copy())
            if on_epoch is not None:
                on_epoch(epoch, lt, lv)
            bar.update(f"train {lt:.5f} validation {lv:.5f}", advance=1,
                       line=f"epoch {epoch}: train loss {lt:.5f}, validation loss {lv:.5f} "
                            f"(results {history[-1]['validation_result_loss']:.5f}, "
                            f"scores {history[-1]['validation_score_loss']:.5f})")
    except KeyboardInterrupt:
        bar.message(f"stopped after {len(history)} epochs; keeping the best so far")
    finally:
        bar.close()
    return Weights.from_floats(data.variant, best[1].tolist()), history


# ---------------------------------------------------------------------------------------
# Gate
# ---------------------------------------------------------------------------------------

def gate(new: str, *, against: str | None = None, games: int = 400, nodes: int | None = None,
         movetime: float | None = None, sprt: tuple[float, float] | None = (0.0, 10.0),
         concurrency: int = 1, resume: str | None = None, pdn: str | None = None,
         seed: int = 1, progress: bool = True, stream: TextIO | None = None,
         adjudication: Any = None) -> Any:
    """Plays the weights ``new`` against ``against`` (default: the shipped
    weights) in game pairs from :func:`damier.openings.pair_openings` (shuffled with
    ``seed``), with an SPRT when ``sprt`` is given and the games adjudicated by
    ``adjudication`` (a :class:`damier.match.adjudication.Adjudication`); returns the
    :class:`damier.match.MatchResult`."""
    from damier.match import run_match
    from damier.openings import pair_openings
    from damier.sprt import SPRT

    weights = Weights.read(new)
    if against is not None:
        Weights.read(against, variant=weights.variant)
    limit = f",nodes={nodes}" if nodes else ""
    spec_new = f"damier:weights={new},name=new{limit}"
    spec_old = (f"damier:weights={against},name=current{limit}" if against
                else f"damier:name=current{limit}")
    if nodes is None and movetime is None:
        movetime = 0.1
    return run_match(spec_new, spec_old, games=games, movetime=movetime if not nodes else None,
                     openings=pair_openings(weights.variant, seed), shuffle_openings=False,
                     concurrency=concurrency, variant=weights.variant, progress=progress,
                     seed=seed, pdn_path=pdn, resume=resume, stream=stream,
                     sprt=SPRT(*sprt) if sprt else None, adjudication=adjudication)


if __name__ == "__main__":  # pragma: no cover - the command line is damier.cli.train
    raise SystemExit("damier.train has no command line: run 'damier train selfplay|rescore|fit|"
                     "gate ...' (or python -m damier.cli.train)")

"""Building opening books (:class:`damier.book.Book`) with damier's own search.

**Building** (:func:`build`, ``damier book build``) is a drop-out expansion
from the start position: every expanded position has each of its moves scored
by one multi-PV search of damier's engine (a fixed number of nodes per move,
one thread, an emptied hash table: the same settings give the same book); the
scores are backed up the tree by negamax, and the next position to expand is
the unexpanded child with the cheapest path from the root, a path costing, for
each move along it, ``weight * (best score there - the move's score) +
ply_cost``. Moves more than ``max_loss`` centi-men worse than the best are never
followed. The tree is saved to a state file as it grows (atomically), so a build
stopped by Ctrl-C or a crash resumes where it stopped, and ``--positions`` may
grow from one run to the next. A state file whose name ends in ``.gz`` is kept
gzip-compressed (the shipped book's state: 100 KB for 816 KB).

With ``out``, :func:`build` writes the book file and, beside it, a JSON manifest saying
how it was built (the command, the settings, the engine's version and weights), as
the shipped books have (:func:`damier.book.shipped_book`).
"""

from __future__ import annotations

import gzip
import hashlib
import heapq
import json
import math
import os
import shlex
import sys
import time
import zlib
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from damier._core import MATE_SCORE, MATE_THRESHOLD, Move
from damier.board import Board
from damier.book import (Book, BookError, BookMove, _MAX_SCORE, _raw, _write_atomic,
                         position_key)
from damier.engine import Engine
from damier.progress import ProgressBar
from damier.puzzles import _engine_version
from damier.variants import DEFAULT_VARIANT, get_variant

__all__ = ["BuildSettings", "build"]


@dataclass(frozen=True)
class BuildSettings:
    """What a build searches and how it picks the positions to expand (a state
    file is resumed only with the same settings).

    ``nodes``: search nodes per legal move of an expanded position; ``weight``:
    the cost of a centi-man of deviation from the best move; ``ply_cost``: the
    cost of a ply; ``max_loss``: moves worse than the best by more (centi-men)
    are not followed; ``hash_mb``: the engine's hash table; ``batch``: positions
    expanded together, the ``batch`` cheapest leaves at once (their searches run side
    by side with :func:`build`'s ``workers``: the book depends on ``batch``, never on
    ``workers``).

    >>> BuildSettings(nodes=0)
    Traceback (most recent call last):
    ...
    ValueError: nodes must be a whole number from 10 to 100000000, got 0
    """

    variant: str = DEFAULT_VARIANT
    nodes: int = 20000
    weight: float = 1.0
    ply_cost: float = 2.0
    max_loss: int = 50
    hash_mb: int = 16
    batch: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "variant", get_variant(self.variant).name)
        for name, low, high in (("nodes", 10, 10 ** 8), ("max_loss", 0, MATE_SCORE),
                                ("hash_mb", 1, 4096), ("batch", 1, 4096)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be a whole number from {low} to {high}, "
                                 f"got {value!r}")
        for name in ("weight", "ply_cost"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not math.isfinite(value) or not 0 <= value <= 1e6:
                raise ValueError(f"{name} must be a finite number from 0 to 1000000, "
                                 f"got {value!r}")
            object.__setattr__(self, name, float(value))


_FORCED_PLIES = 12
"""A position with one legal move is scored by the position after it, and so on
along a forced line of at most this many plies."""


def _parent_score(value: int) -> int:
    """The score of a move whose resulting position is worth ``value`` to its side
    to move: negated, a forced result one ply further away."""
    score = -value
    if score > MATE_THRESHOLD:
        score -= 1
    elif score < -MATE_THRESHOLD:
        score += 1
    return score


def _position_value(engine: Engine, board: Board, nodes: int,
                    forced: int) -> tuple[int, int, int]:
    """``(value, depth, nodes)``: the searched value of ``board`` for its side to move."""
    legal = board.legal_moves
    if not legal:
        return -MATE_SCORE, 0, 0
    if len(legal) == 1 and forced > 0:
        child = board.copy(stack=False)
        child.push(legal[0])
        value, depth, used = _position_value(engine, child, nodes, forced - 1)
        return _parent_score(value), depth + 1, used
    engine.new_game()
    result = engine.search_lines(board, 1, nodes=nodes * len(legal))[0]
    return result.score, result.depth, result.nodes


def _score_moves(engine: Engine, board: Board,
                 nodes: int) -> tuple[list[Move], list[int], list[int], int]:
    """Every legal move of ``board`` with its score and depth, and the nodes spent:
    one multi-PV search of all moves (a single move: the position after it)."""
    legal = board.legal_moves
    if len(legal) == 1:
        child = board.copy(stack=False)
        child.push(legal[0])
        value, depth, used = _position_value(engine, child, nodes, _FORCED_PLIES)
        return legal, [_parent_score(value)], [depth + 1], used
    engine.new_game()
    lines = engine.search_lines(board, len(legal), nodes=nodes * len(legal))
    found = {r.best_move: r for r in lines if r.best_move is not None}
    used = max((r.nodes for r in lines), default=0)
    scores: list[int] = []
    depths: list[int] = []
    for move in legal:
        line = found.get(move)
        if line is None:  # the node limit came before every line had a depth
            child = board.copy(stack=False)
            child.push(move)
            value, depth, more = _position_value(engine, child, nodes, _FORCED_PLIES)
            used += more
            scores.append(_parent_score(value))
            depths.append(depth + 1)
        else:
            scores.append(line.score)
            depths.append(line.depth)
    return legal, scores, depths, used


_Scored = tuple[list[Move], list[int], list[int], int]
"""A position's legal moves, their scores and depths, and the nodes spent."""

_Raw = tuple[list[tuple[int, int, list[int]]], list[int], list[int], int]
"""The same with the moves as ``(from, to, captures)``, to cross a process boundary."""

_WORKER_ENGINE: list[Engine] = []
"""The engine of a worker process (made by :func:`_start_worker`)."""


def _start_worker(hash_mb: int) -> None:
    """A worker process's start: its engine, and Ctrl-C left to the process that
    runs the build (it stops the workers)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER_ENGINE.append(Engine(threads=1, hash_mb=hash_mb))


def _score_in_worker(fen: str, variant: str, nodes: int) -> _Raw:
    board = Board(fen, variant=variant)
    moves, scores, depths, used = _score_moves(_WORKER_ENGINE[0], board, nodes)
    return ([(m.from_square, m.to_square, sorted(m.captures)) for m in moves], scores, depths,
            used)


def _moves_from_raw(board: Board, raw: Any) -> list[Move]:
    """The legal moves of ``board`` named by ``(from, to, captures)`` triples (as the
    state file and the worker processes give them); a KeyError for one that is not legal."""
    legal = {_raw(m): m for m in board.legal_moves}
    return [legal[(int(f), int(t), frozenset(int(c) for c in caps))] for f, t, caps in raw]


class _Scorer:
    """Scores the positions of a batch: in this process (one worker), or in
    ``workers`` processes side by side. Each position's search starts from an
    emptied hash table, so its scores do not depend on where it ran."""

    def __init__(self, settings: BuildSettings, workers: int) -> None:
        self.settings = settings
        self.pool: Any = None
        self.engine: Engine | None = None
        if workers > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self.pool = ProcessPoolExecutor(max_workers=workers,
                                            mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_start_worker,
                                            initargs=(settings.hash_mb,))
        else:
            self.engine = Engine(threads=1, hash_mb=settings.hash_mb)

    def score(self, fens: list[str]) -> list[_Scored]:
        """The scored moves of each position of ``fens``, in order."""
        variant, nodes = self.settings.variant, self.settings.nodes
        if self.engine is not None:
            return [_score_moves(self.engine, Board(fen, variant=variant), nodes)
                    for fen in fens]
        futures = [self.pool.submit(_score_in_worker, fen, variant, nodes) for fen in fens]
        found: list[_Scored] = []
        for fen, future in zip(fens, futures, strict=True):
            raw, scores, depths, used = future.result()
            found.append((_moves_from_raw(Board(fen, variant=variant), raw), scores, depths,
                          used))
        return found

    def close(self) -> None:
        if self.pool is not None:
            # a stopped build leaves its workers to finish the search in hand and go
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


@dataclass
class _Node:
    """An expanded position of the build tree."""

    fen: str
    ply: int
    moves: list[Move]
    scores: list[int]          # the searches' scores of the moves
    depths: list[int]
    nodes: int
    children: list[bytes] = field(default_factory=list)
    open_children: list[bool] = field(default_factory=list)  # the child has legal moves
    backed: list[int] = field(default_factory=list)           # scores backed up by negamax
    value: int = 0


class _Tree:
    """The build tree: expanded positions by key, in expansion order."""

    def __init__(self, settings: BuildSettings) -> None:
        self.settings = settings
        self.variant = get_variant(settings.variant)
        self.nodes: dict[bytes, _Node] = {}
        self.parents: dict[bytes, list[bytes]] = {}
        self.root = position_key(Board(variant=self.variant))
        self.seconds = 0.0

    def __len__(self) -> int:
        return len(self.nodes)

    def add(self, fen: str, ply: int, moves: list[Move], scores: list[int], depths: list[int],
            nodes: int) -> None:
        """Adds an expanded position and backs its value up the tree."""
        board = Board(fen, variant=self.variant)
        key = position_key(board)
        node = _Node(fen, ply, moves, scores, depths, nodes)
        for move in moves:
            child = board.copy(stack=False)
            child.push(move)
            child_key = position_key(child)
            node.children.append(child_key)
            node.open_children.append(bool(child.legal_moves))
            parents = self.parents.setdefault(child_key, [])
            if key not in parents:
                parents.append(key)
        self.nodes[key] = node
        self._back_up(key)

    def _back_up(self, start: bytes) -> None:
        work = [start]
        steps = 0
        while work and steps < 100 * (len(self.nodes) + 1):  # bounded, should kings cycle
            steps += 1
            key = work.pop()
            node = self.nodes[key]
            node.backed = [_parent_score(self.nodes[c].value) if c in self.nodes else s
                           for c, s in zip(node.children, node.scores, strict=True)]
            value = max(node.backed)
            if value != node.value or key == start:
                node.value = value
                work.extend(p for p in self.parents.get(key, ()) if p in self.nodes)

    def next_leaf(self) -> tuple[str, int] | None:
        """``(fen, ply)`` of the cheapest unexpanded position (ties: the smallest key),
        or None when none is left."""
        leaves = self.next_leaves(1)
        return leaves[0] if leaves else None

    def next_leaves(self, count: int) -> list[tuple[str, int]]:
        """``(fen, ply)`` of the ``count`` cheapest unexpanded positions, cheapest
        first (ties: the smallest key); fewer when fewer are left. A position's cost
        is that of its cheapest path from the root."""
        if self.root not in self.nodes:
            return [(Board(variant=self.variant).fen(compact=True), 0)]
        weight, ply_cost, max_loss = (self.settings.weight, self.settings.ply_cost,
                                      self.settings.max_loss)
        costs: dict[bytes, float] = {self.root: 0.0}
        done: set[bytes] = set()
        heap: list[tuple[float, bytes]] = [(0.0, self.root)]
        leaves: dict[bytes, tuple[float, bytes, int]] = {}   # key: cost, parent, move index
        while heap:
            cost, key = heapq.heappop(heap)
            if key in done:
                continue
            done.add(key)
            node = self.nodes[key]
            for index, (child, backed) in enumerate(zip(node.children, node.backed, strict=True)):
                loss = node.value - backed
                if loss > max_loss:
                    continue
                total = cost + weight * loss + ply_cost
                if child in self.nodes:
                    if total < costs.get(child, math.inf):
                        costs[child] = total
                        heapq.heappush(heap, (total, child))
                elif node.open_children[index]:
                    if total < leaves.get(child, (math.inf, b"", 0))[0]:
                        leaves[child] = (total, key, index)
        chosen = heapq.nsmallest(count, leaves.items(), key=lambda item: (item[1][0], item[0]))
        found = []
        for _, (_, parent_key, index) in chosen:
            parent = self.nodes[parent_key]
            board = Board(parent.fen, variant=self.variant)
            board.push(parent.moves[index])
            found.append((board.fen(compact=True), parent.ply + 1))
        return found

    def to_book(self) -> Book:
        """The book of the expanded positions, their moves with backed-up scores."""
        book = Book(self.variant)
        memo: dict[bytes, int] = {}

        def best_depth(key: bytes, stack: set[bytes]) -> int:
            if key in memo:
                return memo[key]
            node = self.nodes[key]
            stack.add(key)
            index = node.backed.index(node.value)
            child = node.children[index]
            depth = (1 + best_depth(child, stack) if child in self.nodes and child not in stack
                     else node.depths[index])
            stack.discard(key)
            memo[key] = depth
            return depth

        for key, node in self.nodes.items():
            moves = []
            for move, child, backed, depth in zip(node.moves, node.children, node.backed,
                                                  node.depths, strict=True):
                if child in self.nodes:
                    depth = 1 + best_depth(child, {key})
                moves.append(BookMove(move, max(-_MAX_SCORE, min(_MAX_SCORE, backed)),
                                      min(depth, 255)))
            book.add(Board(node.fen, variant=self.variant), moves, nodes=node.nodes)
        return book

    # -- the state file ---------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {"format": "damier-book-state", "version": 1,
                "settings": asdict(self.settings), "seconds": round(self.seconds, 3),
                "positions": [{"fen": n.fen, "ply": n.ply,
                               "moves": [[m.from_square, m.to_square, list(m.captures)]
                                         for m in n.moves],
                               "scores": n.scores, "depths": n.depths, "nodes": n.nodes}
                              for n in self.nodes.values()]}

    def save(self, path: Path) -> None:
        """Writes the tree to ``path`` (atomically; gzip-compressed when its name ends
        in ``.gz``, with no time stamp, so the same tree gives the same bytes)."""
        data = json.dumps(self.to_json(), separators=(",", ":")).encode()
        if path.suffix == ".gz":
            data = gzip.compress(data, compresslevel=9, mtime=0)
        _write_atomic(path, data)

    @classmethod
    def load(cls, path: Path, settings: BuildSettings) -> _Tree:
        """The tree saved in ``path``; a :class:`BookError` when it is not a state
        file, or was begun with other settings."""
        try:
            raw = path.read_bytes()
            if raw[:2] == b"\x1f\x8b":  # gzip's magic number, whatever the name
                raw = gzip.decompress(raw)
            data = json.loads(raw.decode("utf-8"))
        except OSError as exc:
            raise BookError(f"cannot read the build state {path}: "
                            f"{exc.strerror or exc}") from None
        except (EOFError, zlib.error) as exc:
            raise BookError(f"the build state {path} is a damaged gzip file ({exc}); delete "
                            "it to start again") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise BookError(f"the build state {path} is not JSON ({exc}); delete it to start "
                            "again") from None
        if not isinstance(data, dict) or data.get("format") != "damier-book-state":
            raise BookError(f"{path} is not a damier book build state")
        if data.get("version") != 1:
            raise BookError(f"the build state {path} has version {data.get('version')!r}, "
                            "this damier reads version 1")
        saved = data.get("settings")
        if isinstance(saved, dict) and "batch" not in saved:
            saved = {**saved, "batch": 1}    # a state file from before batches
        if saved != asdict(settings):
            saved = saved if isinstance(saved, dict) else {}
            differ = ", ".join(f"{k} {saved.get(k)!r} (now {v!r})"
                               for k, v in asdict(settings).items() if saved.get(k) != v)
            raise BookError(f"the build state {path} was begun with other settings: {differ}; "
                            "use the same options to resume, or another --state")
        tree = cls(settings)
        try:
            tree.seconds = float(data.get("seconds", 0.0))
            for number, item in enumerate(data["positions"], start=1):
                board = Board(item["fen"], variant=tree.variant)
                moves = _moves_from_raw(board, item["moves"])
                scores = [int(s) for s in item["scores"]]
                depths = [int(d) for d in item["depths"]]
                if not moves or len(scores) != len(moves) or len(depths) != len(moves):
                    raise ValueError(f"position {number}: moves and scores do not match")
                tree.add(item["fen"], int(item["ply"]), moves, scores, depths,
                         int(item["nodes"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise BookError(f"the build state {path} is damaged ({exc}); delete it to start "
                            "again") from None
        return tree


def _command_text(settings: BuildSettings, positions: int, out: str | os.PathLike[str] | None
                  ) -> str:
    defaults = BuildSettings()
    parts = ["damier book build", f"--variant {settings.variant}", f"--positions {positions}",
             f"--nodes {settings.nodes}"]
    for name, option in (("weight", "--weight"), ("ply_cost", "--ply-cost"),
                         ("max_loss", "--max-loss"), ("hash_mb", "--hash"),
                         ("batch", "--batch")):
        if getattr(settings, name) != getattr(defaults, name):
            parts.append(f"{option} {getattr(settings, name)}")
    if out is not None:
        parts.append(f"--out {shlex.quote(Path(out).name)}")
    return " ".join(parts)


def _manifest(tree: _Tree, book: Book, data: bytes, positions: int,
              command: str) -> dict[str, Any]:
    variant = tree.variant
    weights = None
    if variant.eval_weights_file is not None:
        resource = resources.files("damier").joinpath("data", variant.eval_weights_file)
        if resource.is_file():
            weights = hashlib.sha256(resource.read_bytes()).hexdigest()[:16]
    return {"command": command, "variant": variant.name, "positions": len(book),
            "positions_asked": positions, "book_moves": book.move_count(),
            "nodes_per_move": tree.settings.nodes, "settings": asdict(tree.settings),
            "search_nodes": sum(n.nodes for n in tree.nodes.values()),
            "seconds": round(tree.seconds, 1),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "eval_weights_file": variant.eval_weights_file, "eval_weights_sha256": weights,
            "book_sha256": hashlib.sha256(data).hexdigest(), **_engine_version()}


def build(*, positions: int, settings: BuildSettings | None = None,
          state: str | os.PathLike[str] | None = None, out: str | os.PathLike[str] | None = None,
          progress: bool = False, stream: TextIO | None = None, save_every: int = 25,
          save_seconds: float = 20.0, command: str | None = None, workers: int = 1) -> Book:
    """Builds (or goes on building) a book of ``positions`` expanded positions and
    returns it (see the module documentation for the method).

    With ``state``, the tree is read from that file when it exists (it must have
    been begun with the same ``settings``) and saved to it every ``save_every``
    expansions or ``save_seconds`` seconds, when the build ends and when it is
    interrupted (:class:`KeyboardInterrupt` propagates after the save). With
    ``out``, the book is written there, and its manifest (how it was built) beside
    it with the suffix ``.json``. ``progress`` shows a bar on ``stream``.

    Positions are expanded ``settings.batch`` at a time: the searches of a batch run
    in ``workers`` processes side by side (one: in this process), and the batch is
    added to the tree when all are done, so a stopped build loses at most the batch
    in hand and resumes to the same book. (A build grown by a larger ``positions``
    matches one made at once when its earlier sizes were ``1 + k * batch``.)

    >>> book = build(positions=2, settings=BuildSettings(nodes=30))
    >>> import damier
    >>> len(book), damier.Board() in book
    (2, True)
    """
    settings = settings or BuildSettings()
    if isinstance(positions, bool) or not isinstance(positions, int) \
            or not 1 <= positions <= 10 ** 7:
        raise ValueError(f"positions must be a whole number from 1 to 10000000, "
                         f"got {positions!r}")
    if save_every < 1:
        raise ValueError(f"save_every must be at least 1, got {save_every}")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 1024:
        raise ValueError(f"workers must be a whole number from 1 to 1024, got {workers!r}")
    state_path = Path(state) if state is not None else None
    # Before any search: a build of hours must not fail at its end for want of a folder.
    for label, path in (("book", out), ("state file", state)):
        if path is not None and not Path(path).parent.is_dir():
            raise ValueError(f"the folder of the {label} {str(path)!r} does not exist")
    if state_path is not None and out is not None and state_path.resolve() in (
            Path(out).resolve(), Path(out).with_suffix(".json").resolve()):
        raise ValueError(f"the state file and the book's manifest (or the book) would both be "
                         f"{state_path}: choose another state file")
    if state_path is not None and state_path.exists():
        tree = _Tree.load(state_path, settings)
    else:
        tree = _Tree(settings)
    stream = stream if stream is not None else sys.stderr
    bar = ProgressBar(f"book {tree.variant.name}", total=positions, done=min(len(tree),
                      positions), stream=stream, enabled=progress)
    if len(tree) and len(tree) < positions:
        bar.message(f"resuming from {state_path}: {len(tree)} positions already expanded")
    scorer = _Scorer(settings, workers)
    started = time.monotonic()
    last_save = started
    unsaved = 0
    try:
        while len(tree) < positions:
            leaves = tree.next_leaves(min(settings.batch, positions - len(tree)))
            if not leaves:
                bar.message("no position left to expand within --max-loss")
                break
            scored = scorer.score([fen for fen, _ in leaves])
            for (fen, ply), (moves, scores, depths, used) in zip(leaves, scored, strict=True):
                tree.add(fen, ply, moves, scores, depths, used)
                root = tree.nodes[tree.root].value
                count = len(tree)
                bar.update(f"ply {ply}, root {root:+d}", advance=1,
                           line=(f"{count}/{positions} positions expanded, root {root:+d}, "
                                 f"{tree.seconds + time.monotonic() - started:.0f} s"
                                 if count % 50 == 0 or count == positions else None))
            now = time.monotonic()
            tree.seconds += now - started
            started = now
            unsaved += len(leaves)
            if state_path is not None and (unsaved >= save_every
                                           or now - last_save >= save_seconds):
                tree.save(state_path)
                unsaved, last_save = 0, now
    finally:
        scorer.close()
        bar.close()
        if state_path is not None and unsaved:
            tree.save(state_path)
    book = tree.to_book()
    if out is not None:
        data = book.to_bytes()
        _write_atomic(Path(out), data)
        manifest = _manifest(tree, book, data, positions,
                             command or _command_text(settings, positions, out))
        _write_atomic(Path(out).with_suffix(".json"),
                      (json.dumps(manifest, indent=1) + "\n").encode())
    return book

"""Texel tuning of the evaluation: logistic regression of game results on
positions from damier's own self-play games.

Two steps, each a command that shows progress and can be stopped with Ctrl-C
(what was done so far is kept)::

    python -m damier.tuning selfplay --variant international --games 2000 --out games.jsonl
    python -m damier.tuning tune games.jsonl --out src/damier/data/eval_international.json

``selfplay`` plays games from random openings at a fixed node budget per move
and writes one JSON line per game: the variant, the moves and the result.
``tune`` replays the games, keeps the quiet positions (no capture pending), and
fits the evaluation weights ``w`` so that ``sigmoid(k * w . features(position))``
predicts the game result, minimising the mean squared error (the "Texel"
method). The man is fixed at 100 (the scale) and ``k`` is fitted first. Needs
numpy (``pip install 'damier[tune]'``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from damier._core import EVAL_TERM_NAMES, eval_feature_vector
from damier.board import Board
from damier.variants import Variant, get_variant

__all__ = ["selfplay", "load_positions", "fit", "main"]


def _opening(variant: Variant, openings: Sequence[Sequence[str]], plies: int,
             rnd: random.Random) -> Board:
    """A shipped balanced opening (when there are any) followed by ``plies``
    random moves, or ``plies`` random moves from the start."""
    board = Board(variant=variant)
    if openings:
        for text in rnd.choice(openings):
            board.push(text)
    for _ in range(plies):
        moves = board.legal_moves
        if not moves or board.outcome() is not None:
            break
        board.push(rnd.choice(moves))
    return board


def selfplay(variant: str | Variant, games: int, *, nodes: int = 4000, opening_plies: int = 6,
             max_plies: int = 300, seed: int = 1, out: Path | None = None,
             progress: bool = True) -> Iterator[dict[str, Any]]:
    """Plays ``games`` self-play games, yielding (and appending to ``out``) one
    record per game: ``{"variant", "moves", "scores", "result"}`` with the
    result from White's point of view (1, 0.5 or 0) and, for every move, the
    engine's score of the position before it (White's point of view,
    centi-men).

    International games start from a shipped balanced opening followed by
    ``opening_plies`` random plies; other variants from ``opening_plies``
    random plies."""
    from damier.engine import Engine
    from damier.openings import load_openings

    variant = get_variant(variant)
    rnd = random.Random(seed)
    engine = Engine(hash_mb=16, seed=seed)
    openings = load_openings() if variant.name == "international" else []
    extra = min(opening_plies, 2) if openings else opening_plies
    handle = out.open("a", encoding="utf-8") if out is not None else None
    start = time.monotonic()
    try:
        for game_no in range(1, games + 1):
            board = _opening(variant, openings, extra, rnd)
            scores: list[int | None] = [None] * board.ply
            engine.new_game()
            while board.outcome() is None and board.ply < max_plies:
                found = engine.search(board, nodes=nodes)
                scores.append(found.score if board.turn else -found.score)
                board.push(found.best_move)
            outcome = board.outcome()
            if outcome is None or outcome.winner is None:
                result = 0.5
            else:
                result = 1.0 if outcome.winner else 0.0
            record = {"variant": variant.name, "moves": _texts(board), "scores": scores,
                      "result": result}
            if handle is not None:
                handle.write(json.dumps(record) + "\n")
                handle.flush()
            if progress:
                rate = game_no / max(1e-9, time.monotonic() - start)
                sys.stderr.write(f"\rselfplay {game_no}/{games} games  {rate:.2f} games/s")
                sys.stderr.flush()
            yield record
    finally:
        if progress:
            sys.stderr.write("\n")
        if handle is not None:
            handle.close()


def _texts(board: Board) -> list[str]:
    """The moves of ``board``'s stack in standard notation."""
    replay = board.root()
    texts = []
    for move in board.move_stack:
        texts.append(replay.notation(move))
        replay.push(move)
    return texts


def load_positions(records: Iterable[dict[str, Any]], *, skip_opening: int = 8,
                   progress: bool = True) -> tuple[Any, Any, Variant]:
    """Feature matrix ``X`` (one row per quiet position, White's point of view)
    and results ``y`` from game records."""
    import numpy as np

    rows: list[list[float]] = []
    results: list[float] = []
    variant: Variant | None = None
    for count, record in enumerate(records, 1):
        v = get_variant(record["variant"])
        if variant is None:
            variant = v
        elif v != variant:
            raise ValueError(f"games of several variants: {variant.name} and {v.name}")
        board = Board(variant=v)
        for ply, text in enumerate(record["moves"]):
            if ply >= skip_opening and not board.must_capture:
                terms, pst = eval_feature_vector(board)
                row = [float(terms[0]), terms[1] / 256.0, terms[2] / 256.0]
                row += [float(t) for t in terms[3:]]
                row += [float(p) for p in pst]
                row.append(1.0 if board.turn else -1.0)
                rows.append(row)
                results.append(float(record["result"]))
            board.push(text)
        if progress and count % 50 == 0:
            sys.stderr.write(f"\rloaded {count} games, {len(rows)} positions")
    if progress:
        sys.stderr.write(f"\rloaded {len(rows)} positions\n")
    if variant is None:
        raise ValueError("no games")
    return np.array(rows), np.array(results), variant


def fit(X: Any, y: Any, initial: Sequence[float], *, iterations: int = 3000,
        learning_rate: float = 2.0, fixed: Iterable[int] = (0,),
        progress: bool = True) -> tuple[list[float], float, float]:
    """Fits weights by gradient descent (Adam) on the mean squared error of
    ``sigmoid(k * X @ w / 100)``; the columns in ``fixed`` (by default 0, the
    man, which sets the scale) keep their initial values. Returns ``(w, k, mse)``."""
    fixed = list(fixed)
    import numpy as np

    w = np.array(initial, dtype=float)

    def mse(weights: Any, k: float) -> float:
        p = 1.0 / (1.0 + np.exp(-k * (X @ weights) / 100.0))
        return float(np.mean((p - y) ** 2))

    # k: a coarse scan, then a finer one
    best_k = min((mse(w, k), k) for k in np.linspace(0.1, 4.0, 40))[1]
    best_k = min((mse(w, k), k) for k in np.linspace(best_k * 0.8, best_k * 1.2, 21))[1]
    scale = np.maximum(np.mean(np.abs(X), axis=0), 1e-3)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    beta1, beta2 = 0.9, 0.999
    try:
        for it in range(1, iterations + 1):
            z = best_k * (X @ w) / 100.0
            p = 1.0 / (1.0 + np.exp(-z))
            grad = (2.0 * ((p - y) * p * (1 - p))) @ X * best_k / 100.0 / len(y)
            grad[fixed] = 0.0
            grad = grad / scale
            m = beta1 * m + (1 - beta1) * grad
            v = beta2 * v + (1 - beta2) * grad * grad
            step = learning_rate * (m / (1 - beta1 ** it)) / (np.sqrt(v / (1 - beta2 ** it)) + 1e-8)
            w -= step
            if progress and it % 100 == 0:
                sys.stderr.write(f"\rtune iteration {it}/{iterations}  mse {mse(w, best_k):.6f}")
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted: keeping the weights so far\n")
    if progress:
        sys.stderr.write("\n")
    return [float(x) for x in w], float(best_k), mse(w, best_k)


def weights_to_json(w: Sequence[float], variant: Variant, *, source: str, k: float,
                    error: float, positions: int) -> dict[str, Any]:
    n_terms = len(EVAL_TERM_NAMES)
    terms = {name: int(round(w[i])) for i, name in enumerate(EVAL_TERM_NAMES)}
    squares = [int(round(x)) for x in w[n_terms:n_terms + variant.squares]]
    return {"variant": variant.name, "source": source, "k": round(k, 4),
            "mse": round(error, 6), "positions": positions, "terms": terms,
            "tempo": int(round(w[-1])), "squares": squares}


def _initial_weights(variant: Variant) -> list[float]:
    from damier.engine import load_eval_weights

    data = load_eval_weights(variant)
    w = [float(data["terms"][name]) for name in EVAL_TERM_NAMES]
    w += [float(x) for x in data["squares"]]
    w.append(float(data.get("tempo", 0)))
    return w


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m damier.tuning", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("selfplay", help="play self-play games for tuning")
    sp.add_argument("--variant", default="international")
    sp.add_argument("--games", type=int, default=1000)
    sp.add_argument("--nodes", type=int, default=4000, help="search nodes per move")
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--out", type=Path, required=True, help="JSON-lines file (appended to)")
    tp = sub.add_parser("tune", help="fit evaluation weights to self-play results")
    tp.add_argument("games", type=Path, nargs="+")
    tp.add_argument("--iterations", type=int, default=3000)
    tp.add_argument("--out", type=Path, required=True, help="evaluation weights JSON to write")
    tp.add_argument("--fix", default="man",
                    help="comma-separated terms kept at their current values (default: man); "
                         "'squares' keeps the whole square table, 'tempo' the tempo bonus")
    args = parser.parse_args(argv)
    try:
        if args.command == "selfplay":
            for _ in selfplay(args.variant, args.games, nodes=args.nodes, seed=args.seed,
                              out=args.out):
                pass
            return 0
        records = [json.loads(line) for path in args.games
                   for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        X, y, variant = load_positions(records)
        names = list(EVAL_TERM_NAMES)
        fixed = []
        for name in filter(None, (n.strip() for n in args.fix.split(","))):
            if name == "squares":
                fixed.extend(range(len(names), len(names) + variant.squares))
            elif name == "tempo":
                fixed.append(len(names) + variant.squares)
            elif name in names:
                fixed.append(names.index(name))
            else:
                raise ValueError(f"unknown term {name!r} in --fix (terms: "
                                 f"{', '.join(names)}, squares, tempo)")
        w, k, error = fit(X, y, _initial_weights(variant), iterations=args.iterations,
                          fixed=fixed)
        data = weights_to_json(w, variant, k=k, error=error, positions=len(y),
                               source=f"damier.tuning on {len(records)} self-play games")
        args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}: {len(y)} positions, k={k:.3f}, mse={error:.6f}")
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"damier.tuning: {exc}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())

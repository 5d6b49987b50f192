"""Texel tuning of the evaluation: logistic regression of game results on
positions from damier's own self-play games.

Two steps, each a command that shows progress and can be stopped with Ctrl-C
(what was done so far is kept)::

    python -m damier.tuning selfplay --variant international --games 3000 --nodes 30000 --out games.jsonl
    python -m damier.tuning tune games.jsonl --out tuned.json

``selfplay`` plays games at a fixed node budget per move (International games
start from a shipped balanced opening and two random plies, other variants
from six random plies) and writes one JSON line per game: the variant, the
moves, the engine's score before each move and the result.

``tune`` replays the games and keeps the quiet positions (no capture pending)
after the first eight plies. Every tenth game is held out for validation. It
fits the weights ``w`` so that ``sigmoid(k * w . features(position) / 100)``
predicts the target, minimising the mean squared error (the "Texel" method)
by gradient descent (Adam). The target is the game result blended with the
engine's own in-game score (``--score-share``, 0.5 by default; 0 fits the
results alone). The features are exactly what the engine's evaluation computes,
the lone-king scaling included (a test checks that the model reproduces the
evaluation). The man is fixed at 100 and ``k`` is fitted first.

A tuned set is accepted only after it beats the current weights in a match::

    damier match 'damier:weights=tuned.json,nodes=8000' damier:nodes=8000 --games 400 --concurrency 2
    damier match 'damier:weights=tuned.json' damier --games 200 --movetime 0.05 --concurrency 2

Needs numpy (``pip install 'damier[tune]'``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from dataclasses import dataclass
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from damier._core import EVAL_TERM_NAMES, SCALED_TERMS, eval_feature_vector, eval_scale_divisor
from damier.board import Board
from damier.variants import DEFAULT_VARIANT, Variant, get_variant

__all__ = ["selfplay", "load_positions", "fit", "fit_scale", "targets", "tune", "read_records",
           "weight_names", "feature_row", "Positions", "main"]


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

    Games of a variant with shipped openings (its
    :attr:`~damier.variants.Variant.openings_file`: International) start from
    one of them followed by two random plies at most; other variants from
    ``opening_plies`` random plies."""
    from damier.engine import Engine
    from damier.openings import load_openings

    variant = get_variant(variant)
    rnd = random.Random(seed)
    engine = Engine(hash_mb=16, seed=seed)
    openings = load_openings(variant=variant) if variant.openings_file else []
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
                if found.best_move is None:  # no legal move: the game is over
                    break
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


@dataclass
class Positions:
    """Quiet positions of self-play games, as the tuner uses them.

    ``X``: one row of features per position (White's point of view, in the
    order of :func:`weight_names`); ``result``: the game's result for White
    (1, 0.5, 0); ``score``: the engine's score of the position in the game
    (White's view, centi-men; NaN when the record has none); ``game``: the
    number of the game the position comes from."""

    X: Any
    result: Any
    score: Any
    game: Any
    variant: Variant

    def __len__(self) -> int:
        return len(self.result)

    def subset(self, mask: Any) -> "Positions":
        return Positions(self.X[mask], self.result[mask], self.score[mask], self.game[mask],
                         self.variant)


def weight_names(variant: Variant) -> list[str]:
    """The names of the tuned weights: the terms, ``square<N>`` for each square
    of the man table, and ``tempo``."""
    return (list(EVAL_TERM_NAMES) + [f"square{i}" for i in range(1, variant.squares + 1)]
            + ["tempo"])


def feature_row(board: Board) -> list[float]:
    """The features of ``board`` in the order of :func:`weight_names`, scaled so
    that the evaluation is their dot product with the weights."""
    terms, pst = eval_feature_vector(board)
    scale = 1.0 / eval_scale_divisor(board)
    row = [(t / 256.0 if i in SCALED_TERMS else float(t)) * scale for i, t in enumerate(terms)]
    row += [float(p) * scale for p in pst]
    row.append(1.0 if board.turn else -1.0)
    return row


def load_positions(records: Iterable[dict[str, Any]], *, skip_opening: int = 8,
                   progress: bool = True) -> Positions:
    """The quiet positions (no capture pending) of game records, after the
    first ``skip_opening`` plies."""
    import numpy as np

    rows: list[list[float]] = []
    results: list[float] = []
    scores: list[float] = []
    games: list[int] = []
    variant: Variant | None = None
    for count, record in enumerate(records, 1):
        v = get_variant(record["variant"])
        if variant is None:
            variant = v
        elif v != variant:
            raise ValueError(f"games of several variants: {variant.name} and {v.name}")
        board = Board(variant=v)
        game_scores = record.get("scores") or []
        for ply, text in enumerate(record["moves"]):
            if ply >= skip_opening and not board.must_capture:
                rows.append(feature_row(board))
                results.append(float(record["result"]))
                score = game_scores[ply] if ply < len(game_scores) else None
                scores.append(float("nan") if score is None else float(score))
                games.append(count)
            board.push(text)
        if progress and count % 50 == 0:
            sys.stderr.write(f"\rloaded {count} games, {len(rows)} positions")
    if progress:
        sys.stderr.write(f"\rloaded {len(rows)} positions\n")
    if variant is None:
        raise ValueError("no games")
    return Positions(np.array(rows, dtype=np.float64), np.array(results), np.array(scores),
                     np.array(games), variant)


def _sigmoid(z: Any) -> Any:
    import numpy as np

    return 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))


def fit_scale(positions: Positions, weights: Sequence[float]) -> float:
    """The ``k`` for which ``sigmoid(k * eval / 100)`` best predicts the results."""
    import numpy as np

    w = np.array(weights, dtype=float)
    ev = positions.X @ w

    def error(k: float) -> float:
        return float(np.mean((_sigmoid(k * ev / 100.0) - positions.result) ** 2))

    best = min((error(k), k) for k in np.linspace(0.1, 4.0, 40))[1]
    return float(min((error(k), k) for k in np.linspace(best * 0.8, best * 1.2, 21))[1])


def targets(positions: Positions, k: float, score_share: float) -> Any:
    """What the evaluation is fitted to: the game result, blended with the
    engine's own (deeper) score of the position in the game where there is one:
    ``(1 - score_share) * result + score_share * sigmoid(k * score / 100)``."""
    import numpy as np

    score = np.clip(np.nan_to_num(positions.score, nan=0.0), -2000.0, 2000.0)
    from_score = _sigmoid(k * score / 100.0)
    share = np.where(np.isnan(positions.score), 0.0, score_share)
    return (1.0 - share) * positions.result + share * from_score


def error(positions: Positions, weights: Any, k: float, target: Any) -> float:
    """The mean squared error of ``sigmoid(k * eval / 100)`` against ``target``."""
    import numpy as np

    w = np.array(weights, dtype=float)
    return float(np.mean((_sigmoid(k * (positions.X @ w) / 100.0) - target) ** 2))


def fit(positions: Positions, initial: Sequence[float], *, k: float, target: Any,
        iterations: int = 3000, learning_rate: float = 2.0, fixed: Iterable[int] = (0,),
        regularise: float = 0.0, progress: bool = True) -> list[float]:
    """Fits weights by gradient descent (Adam) on the mean squared error of
    ``sigmoid(k * X @ w / 100)`` against ``target``, plus ``regularise`` times
    the mean squared change of the weights in men (a pull towards ``initial``).
    The columns in ``fixed`` (by default 0, the man, which sets the scale) keep
    their initial values. Ctrl-C stops early and keeps the weights so far."""
    import numpy as np

    X = positions.X
    fixed = list(fixed)
    w0 = np.array(initial, dtype=float)
    w = w0.copy()
    scale = np.maximum(np.mean(np.abs(X), axis=0), 1e-3)
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    beta1, beta2 = 0.9, 0.999
    try:
        for it in range(1, iterations + 1):
            p = _sigmoid(k * (X @ w) / 100.0)
            grad = (2.0 * ((p - target) * p * (1 - p))) @ X * k / 100.0 / len(target)
            grad += regularise * 2.0 * (w - w0) / 100.0 ** 2 / len(w)
            grad[fixed] = 0.0
            grad = grad / scale
            m = beta1 * m + (1 - beta1) * grad
            v = beta2 * v + (1 - beta2) * grad * grad
            w -= learning_rate * (m / (1 - beta1 ** it)) / (np.sqrt(v / (1 - beta2 ** it)) + 1e-8)
            if progress and it % 100 == 0:
                sys.stderr.write(f"\rtune iteration {it}/{iterations}  "
                                 f"error {error(positions, w, k, target):.6f}")
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted: keeping the weights so far\n")
    if progress:
        sys.stderr.write("\n")
    return [float(x) for x in w]


def weights_to_json(w: Sequence[float], variant: Variant, *, source: str, k: float,
                    error: float, positions: int, **extra: Any) -> dict[str, Any]:
    n_terms = len(EVAL_TERM_NAMES)
    terms = {name: int(round(w[i])) for i, name in enumerate(EVAL_TERM_NAMES)}
    squares = [int(round(x)) for x in w[n_terms:n_terms + variant.squares]]
    data = {"variant": variant.name, "source": source, "k": round(k, 4),
            "mse": round(error, 6), "positions": positions}
    data.update(extra)
    data.update({"terms": terms, "tempo": int(round(w[-1])), "squares": squares})
    return data


def initial_weights(variant: Variant, path: Path | None = None) -> list[float]:
    """The weights to start from: ``path``, or the shipped ones (as
    :func:`weight_names` orders them; a term the file lacks starts at 0)."""
    from damier.engine import _weight_vectors, load_eval_weights, read_weights

    if path is None:
        data = load_eval_weights(variant)
    else:
        data = read_weights(path)
    terms, squares, tempo = _weight_vectors(data, variant)
    return [float(x) for x in terms] + [float(x) for x in squares] + [float(tempo)]


def _fixed_columns(spec: str, variant: Variant) -> list[int]:
    """Columns named in ``spec``: terms, ``squareN``, ``squares`` (the whole man
    table) and ``tempo``."""
    names = weight_names(variant)
    fixed: list[int] = []
    for name in filter(None, (n.strip() for n in spec.split(","))):
        if name == "squares":
            fixed.extend(i for i, n in enumerate(names) if n.startswith("square"))
        elif name in names:
            fixed.append(names.index(name))
        else:
            raise ValueError(f"unknown weight {name!r} in --fix (terms: "
                             f"{', '.join(EVAL_TERM_NAMES)}; square1 to square{variant.squares}, "
                             f"squares, tempo)")
    return fixed


def read_records(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Game records from JSON-lines files, with the file and line of a bad one."""
    records = []
    for path in paths:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if not isinstance(record, dict) or not {"variant", "moves", "result"} <= set(record):
                    raise ValueError("expected an object with variant, moves and result")
            except ValueError as err:
                raise ValueError(f"{path}:{number}: bad game record: {err}") from None
            records.append(record)
    return records


def tune(records: Sequence[dict[str, Any]], *, initial: Sequence[float] | None = None,
         fixed: str = "man", score_share: float = 0.5, regularise: float = 0.0,
         validation: int = 10, iterations: int = 3000,
         progress: bool = True) -> tuple[list[float], dict[str, Any]]:
    """Tunes the evaluation on ``records``; every ``validation``-th game is held
    out to measure the fit. Returns the weights and a report (``k`` and the
    training and validation errors before and after)."""
    import numpy as np

    positions = load_positions(records, progress=progress)
    variant = positions.variant
    start = list(initial) if initial is not None else initial_weights(variant)
    held_out = (positions.game % validation == 0) if validation > 1 else np.zeros(len(positions), bool)
    train, check = positions.subset(~held_out), positions.subset(held_out)
    k = fit_scale(train, start)
    train_target = targets(train, k, score_share)
    check_target = targets(check, k, score_share)
    w = fit(train, start, k=k, target=train_target, iterations=iterations,
            fixed=_fixed_columns(fixed, variant), regularise=regularise, progress=progress)
    report: dict[str, Any] = {
        "k": k, "positions": len(positions), "games": len(records),
        "train_before": error(train, start, k, train_target),
        "train_after": error(train, w, k, train_target),
    }
    if len(check):
        report["validation_before"] = error(check, start, k, check_target)
        report["validation_after"] = error(check, w, k, check_target)
    return w, report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m damier.tuning", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sp = sub.add_parser("selfplay", help="play self-play games for tuning")
    sp.add_argument("--variant", default=DEFAULT_VARIANT)
    sp.add_argument("--games", type=int, default=1000)
    sp.add_argument("--nodes", type=int, default=4000, help="search nodes per move")
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--out", type=Path, required=True, help="JSON-lines file (appended to)")
    tp = sub.add_parser("tune", help="fit evaluation weights to self-play results")
    tp.add_argument("games", type=Path, nargs="+")
    tp.add_argument("--iterations", type=int, default=3000)
    tp.add_argument("--out", type=Path, required=True, help="evaluation weights JSON to write")
    tp.add_argument("--start", type=Path, help="weights to start from (default: the shipped ones)")
    tp.add_argument("--fix", default="man",
                    help="comma-separated weights kept at their starting values (default: man): "
                         "terms, squareN, 'squares' (the whole man table), 'tempo'")
    tp.add_argument("--score-share", type=float, default=0.5,
                    help="weight of the engine's in-game score against the game result in "
                         "the target, 0 to 1 (default 0.5; 0: results only)")
    tp.add_argument("--regularise", type=float, default=0.0,
                    help="pull towards the starting weights (default 0: none; 1 keeps "
                         "them within a few centi-men)")
    tp.add_argument("--validation", type=int, default=10,
                    help="hold out every N-th game to check the fit (default 10; 0: none)")
    args = parser.parse_args(argv)
    try:
        if args.command == "selfplay":
            for _ in selfplay(args.variant, args.games, nodes=args.nodes, seed=args.seed,
                              out=args.out):
                pass
            return 0
        if not 0.0 <= args.score_share <= 1.0:
            raise ValueError("--score-share must be between 0 and 1")
        if args.regularise < 0:
            raise ValueError("--regularise must not be negative")
        records = read_records(args.games)
        if not records:
            raise ValueError("no games in " + ", ".join(map(str, args.games)))
        variant = get_variant(records[0]["variant"])
        start = initial_weights(variant, args.start)
        w, report = tune(records, initial=start, fixed=args.fix, score_share=args.score_share,
                         regularise=args.regularise, validation=args.validation,
                         iterations=args.iterations)
        error_after = report.get("validation_after", report["train_after"])
        data = weights_to_json(
            w, variant, k=report["k"], error=error_after, positions=report["positions"],
            source=(f"damier.tuning on {len(records)} self-play games "
                    f"(score share {args.score_share}, regularise {args.regularise}, "
                    f"fixed: {args.fix or 'nothing'})"))
        args.out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        names = weight_names(variant)
        print(f"wrote {args.out}: {report['positions']} positions from {len(records)} games, "
              f"k={report['k']:.3f}")
        print(f"  training error   {report['train_before']:.6f} -> {report['train_after']:.6f}")
        if "validation_before" in report:
            print(f"  validation error {report['validation_before']:.6f} -> "
                  f"{report['validation_after']:.6f}")
        for i, name in enumerate(names):
            if i < len(EVAL_TERM_NAMES) or name == "tempo":
                print(f"  {name:13s} {start[i]:8.1f} -> {w[i]:8.1f}")
        return 0
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"damier.tuning: {exc}\n")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())

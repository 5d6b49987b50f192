"""The game logic of the web app, free of any web framework.

A :class:`GameSession` is one stored game brought to life: its board, its move
list, undo/redo, resignation and draws, the JSON the page is sent, and its PDN.
Every change is written to the :class:`~damier.web.storage.GameStore` at once.

>>> from damier.web.storage import GameStore
>>> store = GameStore(":memory:")
>>> session = GameSession.create(store, variant="international", human="both", level=1)
>>> session.play({"move": "32-28"}).text
'32-28'
>>> session.play({"from": 19, "to": 23}).text
'19-23'
>>> session.play({"move": "32-27"})
Traceback (most recent call last):
...
damier.web.session.ApiError: illegal move '32-27': a capture is compulsory: the piece on 28 must capture; legal moves are 28x19
>>> session.undo(1)
1
>>> GameSession.load(store, session.id).record.moves
['32-28']
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from damier import pdn
from damier._core import Move
from damier.board import Board
from damier.errors import AmbiguousMoveError, IllegalMoveError, InvalidFenError, PdnError
from damier.moves import capture_rule, parse_move_spec
from damier.notation import move_text
from damier.outcome import Termination
from damier.piece import BLACK, WHITE
from damier.variants import VARIANTS, Variant, get_variant
from damier.web.storage import GameRecord, GameStore

__all__ = ["ApiError", "GameSession", "PlayedMove", "HUMAN_CHOICES", "variant_info",
           "move_info", "capture_explanation", "import_pdn"]

HUMAN_CHOICES = ("white", "black", "both", "none")
"""Who the person plays: one colour (the engine plays the other), ``both``
(two people at one board, or analysis: the engine never moves by itself), or
``none`` (the engine plays both sides)."""

MAX_PLIES = 2000
"""The longest game the web app keeps (a bound on stored and imported games)."""


class ApiError(Exception):
    """A request the app refuses: an HTTP status, a message, and extra JSON fields."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra

    def payload(self) -> dict[str, Any]:
        return {"error": self.message, "status": self.status, **self.extra}


def color_name(color: bool) -> str:
    return "white" if color else "black"


def variant_info(variant: Variant) -> dict[str, Any]:
    return {"name": variant.name, "title": variant.title, "size": variant.size,
            "squares": variant.squares, "white_starts": variant.white_starts,
            "initial_fen": variant.initial_fen, "game_type": variant.game_type,
            "flying_kings": variant.flying_kings, "majority_capture": variant.majority_capture}


def move_info(move: Move, legal: list[Move]) -> dict[str, Any]:
    """A move as JSON: its text, squares, path and captured squares."""
    ambiguous = move.is_capture and any(
        o.from_square == move.from_square and o.to_square == move.to_square and o != move
        for o in legal)
    return {"text": move_text(move, legal), "from": move.from_square, "to": move.to_square,
            "path": list(move.path), "captures": list(move.captures), "ambiguous": ambiguous}


capture_explanation = capture_rule
"""Why only captures may be played here, in words (None when captures are not forced):
:func:`damier.moves.capture_rule`."""


@dataclass(frozen=True)
class PlayedMove:
    move: Move
    text: str


def _outcome_text(termination: Termination, winner: bool | None, rules: Any,
                  board: Board | None = None) -> str:
    if winner is None:
        return f"draw: {termination.describe(rules)}"
    loser = "Black" if winner else "White"
    head = f"{'White' if winner else 'Black'} wins"
    if termination is Termination.RESIGNATION:
        return f"{head}: {loser} resigned"
    if termination is Termination.NO_MOVES:
        if board is not None:
            counts = board._counts()
            left = counts[2] + counts[3] if winner else counts[0] + counts[1]
            if left == 0:
                return f"{head}: {loser} has no pieces left"
        return f"{head}: {loser} has no legal move"
    return f"{head}: {termination.describe(rules)}"


_RESULTS = {"1-0": WHITE, "0-1": BLACK, "1/2-1/2": None}


class GameSession:
    """A stored game and its live board."""

    def __init__(self, store: GameStore, record: GameRecord) -> None:
        self.store = store
        self.record = record
        self.variant = get_variant(record.variant)
        self.board = Board(record.start_fen, variant=self.variant)
        for text in record.moves:
            self.board.push(text)
        self._tree_cache: tuple[tuple[str, ...], list[dict[str, Any]]] | None = None

    # -- creation ------------------------------------------------------------------

    @classmethod
    def create(cls, store: GameStore, *, variant: str = "international", human: str = "white",
               level: int = 5, fen: str | None = None, white: str | None = None,
               black: str | None = None, owner: str | None = None) -> "GameSession":
        """A new game stored in ``store``; ``owner`` (a player) holds the seats of the
        colours that ``human`` names."""
        try:
            v = get_variant(variant)
        except ValueError as err:
            raise ApiError(400, str(err), field="variant") from None
        if human not in HUMAN_CHOICES:
            raise ApiError(400, f"color must be one of {', '.join(HUMAN_CHOICES)}, got {human!r}",
                           field="color")
        if not 1 <= level <= 10:
            raise ApiError(400, f"level must be between 1 and 10, got {level}", field="level")
        try:
            board = Board(fen, variant=v) if fen else Board(variant=v)
        except InvalidFenError as err:
            raise ApiError(400, f"invalid FEN: {err}", field="fen") from None
        engine_name = f"damier level {level}"
        names = {"white": ("You", engine_name), "black": (engine_name, "You"),
                 "both": ("White", "Black"), "none": (engine_name, engine_name)}[human]
        white_seat = owner if human in ("white", "both") else None
        black_seat = owner if human in ("black", "both") else None
        record = store.create(variant=v.name, start_fen=board.fen(), human=human, level=level,
                              white=white or names[0], black=black or names[1], owner=owner,
                              white_player=white_seat, black_player=black_seat)
        session = cls(store, record)
        session._update_result()
        return session

    @classmethod
    def load(cls, store: GameStore, game_id: str) -> "GameSession":
        record = store.get(game_id)
        if record is None:
            raise ApiError(404, f"no game with id {game_id!r}")
        return cls(store, record)

    @property
    def id(self) -> str:
        return self.record.id

    # -- who moves ---------------------------------------------------------------------

    def human_to_move(self) -> bool:
        human = self.record.human
        if human == "both":
            return True
        if human == "none":
            return False
        return (self.board.turn == WHITE) == (human == "white")

    def engine_to_move(self) -> bool:
        return not self.is_over() and not self.human_to_move()

    def engine_color(self) -> str | None:
        human = self.record.human
        if human in ("white", "black"):
            return "black" if human == "white" else "white"
        return "both" if human == "none" else None

    # -- the end of the game ------------------------------------------------------------

    def outcome(self) -> dict[str, Any] | None:
        """The result and the rule that ended the game, or None while it goes on."""
        rec = self.record
        if rec.termination in (Termination.RESIGNATION.value, Termination.AGREEMENT.value,
                               "recorded"):
            return {"result": rec.result, "winner": rec.winner, "termination": rec.termination,
                    "rule": rec.termination_text, "text": rec.termination_text,
                    "pdn_result": pdn.result_for_variant(rec.result, self.variant)}
        outcome = self.board.outcome()
        if outcome is None:
            return None
        rules = self.board.rules
        text = _outcome_text(outcome.termination, outcome.winner, rules, self.board)
        winner = None if outcome.winner is None else color_name(outcome.winner)
        return {"result": outcome.result(), "winner": winner,
                "termination": outcome.termination.value,
                "rule": outcome.termination.describe(rules), "text": text,
                "pdn_result": pdn.result_for_variant(outcome.result(), self.variant)}

    def is_over(self) -> bool:
        """Whether the game has ended (a result recorded in an imported PDN does not end it)."""
        out = self.outcome()
        return out is not None and out["termination"] != "recorded"

    def _finished_by_decision(self) -> bool:
        return self.record.termination in (Termination.RESIGNATION.value,
                                           Termination.AGREEMENT.value)

    def _update_result(self) -> None:
        """Stores the result after a change of the move list."""
        rec = self.record
        if self._finished_by_decision():
            return
        outcome = self.board.outcome()
        if outcome is not None:
            result = outcome.result()
            termination: str | None = outcome.termination.value
            text: str | None = _outcome_text(outcome.termination, outcome.winner,
                                             self.board.rules, self.board)
            winner = None if outcome.winner is None else color_name(outcome.winner)
        elif rec.headers.get("Result", "*") not in ("*", "") and rec.pdn is not None:
            canonical = pdn._CANONICAL_RESULT.get(rec.headers["Result"].strip(), "*")
            if canonical in _RESULTS:
                win = _RESULTS[canonical]
                result, termination = canonical, "recorded"
                winner = None if win is None else color_name(win)
                text = ("draw" if win is None else f"{'White' if win else 'Black'} won") \
                    + " (result recorded in the PDN)"
            else:
                result, termination, text, winner = "*", None, None, None
        else:
            result, termination, text, winner = "*", None, None, None
        if (rec.result, rec.termination, rec.termination_text, rec.winner) != (
                result, termination, text, winner):
            rec.result, rec.termination, rec.termination_text, rec.winner = (
                result, termination, text, winner)
            self.store.save_result(rec.id, result=result, termination=termination,
                                   termination_text=text, winner=winner)

    # -- moves ----------------------------------------------------------------------------

    def resolve(self, spec: dict[str, Any]) -> Move:
        """The legal move described by ``spec``: ``{"move": "32-28"}`` or
        ``{"from": 47, "to": 36, "path": [...], "captures": [...]}``, read by
        :func:`damier.moves.parse_move_spec`."""
        try:
            return parse_move_spec(self.board, spec)
        except (IllegalMoveError, AmbiguousMoveError) as err:
            raise self._move_error(err) from None

    def _move_error(self, err: IllegalMoveError | AmbiguousMoveError) -> ApiError:
        legal = self.board.legal_moves
        ambiguous = isinstance(err, AmbiguousMoveError)
        extra: dict[str, Any] = {}
        if isinstance(err, AmbiguousMoveError):
            extra["candidates"] = [move_info(m, legal) for m in err.candidates]
        return ApiError(400, str(err), kind="ambiguous_move" if ambiguous else "illegal_move",
                        legal_moves=sorted(move_text(m, legal) for m in legal),
                        compulsory_capture=capture_explanation(self.board), **extra)

    def check_can_move(self, *, by_engine: bool = False) -> None:
        if self._finished_by_decision() or self.is_over():
            out = self.outcome()
            raise ApiError(409, f"the game is over ({out['text'] if out else 'finished'})",
                           kind="game_over")
        if not by_engine and not self.human_to_move():
            raise ApiError(409, "it is the engine's turn to move", kind="not_your_turn")
        if len(self.board.move_stack) >= MAX_PLIES:
            raise ApiError(409, f"the game is too long (at most {MAX_PLIES} plies)")

    def play(self, spec: dict[str, Any], *, by_engine: bool = False) -> PlayedMove:
        """Plays the move of ``spec`` (see :meth:`resolve`) and stores it."""
        self.check_can_move(by_engine=by_engine)
        move = self.resolve(spec)
        return self.push(move)

    def push(self, move: Move) -> PlayedMove:
        legal = self.board.legal_moves
        text = move_text(move, legal)
        played = self.board.push(move)
        rec = self.record
        rec.moves.append(text)
        if rec.redo and rec.redo[-1] == text:
            rec.redo.pop()
        else:
            rec.redo = []
        self.store.save_moves(rec.id, rec.moves, redo=rec.redo)
        self._update_result()
        return PlayedMove(played, text)

    def undo(self, count: int) -> int:
        """Takes back up to ``count`` plies; returns how many were taken back."""
        if self._finished_by_decision():
            raise ApiError(409, f"the game is over ({self.record.termination_text}); "
                           "it cannot be taken back", kind="game_over")
        rec = self.record
        n = min(count, len(rec.moves))
        for _ in range(n):
            self.board.pop()
            rec.redo.append(rec.moves.pop())
        if n:
            self.store.save_moves(rec.id, rec.moves, redo=rec.redo)
            self._update_result()
        return n

    def undo_for_human(self) -> int:
        """Undo as the page's button does: back to the last position where the person
        was to move (one or two plies when playing the engine)."""
        human = self.record.human
        if human in ("both", "none") or self._finished_by_decision():
            return self.undo(1)
        color = WHITE if human == "white" else BLACK
        plies = len(self.record.moves)
        for back in range(1, plies + 1):
            if self._turn_at(plies - back) == color:
                return self.undo(back)
        return 0

    def _turn_at(self, ply: int) -> bool:
        start_turn = self.board.root().turn
        return start_turn if ply % 2 == 0 else not start_turn

    def redo(self, count: int) -> int:
        """Replays up to ``count`` taken-back plies; returns how many were replayed."""
        if self._finished_by_decision():
            raise ApiError(409, f"the game is over ({self.record.termination_text})",
                           kind="game_over")
        rec = self.record
        done = 0
        while done < count and rec.redo and not self.is_over():
            text = rec.redo[-1]
            try:
                move = self.board.parse_move(text)
            except ValueError:
                rec.redo = []
                break
            self.push(move)
            done += 1
        self.store.save_moves(rec.id, rec.moves, redo=rec.redo)
        return done

    def set_line(self, moves: list[str]) -> None:
        """Replaces the move list by ``moves`` (checked from the start position)."""
        if self._finished_by_decision():
            raise ApiError(409, f"the game is over ({self.record.termination_text})",
                           kind="game_over")
        if len(moves) > MAX_PLIES:
            raise ApiError(400, f"too many moves (at most {MAX_PLIES})")
        board = Board(self.record.start_fen, variant=self.variant)
        texts = []
        for i, text in enumerate(moves):
            try:
                legal = board.legal_moves
                move = board.parse_move(text)
            except ValueError as err:
                raise ApiError(400, f"move {i + 1} ({text!r}): {err}", kind="illegal_move",
                               ply=i + 1) from None
            texts.append(move_text(move, legal))
            board.push(move)
        rec = self.record
        old = rec.moves
        common = 0
        while common < min(len(old), len(texts)) and old[common] == texts[common]:
            common += 1
        for _ in range(len(old) - common):
            self.board.pop()
        for text in texts[common:]:
            self.board.push(text)
        rec.moves = texts
        rec.redo = []
        self.store.save_moves(rec.id, rec.moves, redo=rec.redo)
        self._update_result()

    def resign(self, color: str) -> None:
        self.check_can_move(by_engine=True)
        winner = "black" if color == "white" else "white"
        text = f"{winner.capitalize()} wins: {color.capitalize()} resigned"
        rec = self.record
        rec.result = "1-0" if winner == "white" else "0-1"
        rec.termination, rec.termination_text, rec.winner = (
            Termination.RESIGNATION.value, text, winner)
        self.store.save_result(rec.id, result=rec.result, termination=rec.termination,
                               termination_text=text, winner=winner)

    def agree_draw(self) -> None:
        self.check_can_move(by_engine=True)
        rec = self.record
        rec.result, rec.termination, rec.winner = "1/2-1/2", Termination.AGREEMENT.value, None
        rec.termination_text = "draw: agreement"
        self.store.save_result(rec.id, result=rec.result, termination=rec.termination,
                               termination_text=rec.termination_text, winner=None)

    # -- game reports ----------------------------------------------------------------------

    def report_refusal(self) -> str | None:
        """Why this game cannot be analysed move by move now (None: it can). A game
        report is for a finished or an imported game with at least one move."""
        if not self.record.moves:
            return "the game has no moves to analyse"
        if self.record.pdn is None and not (self._finished_by_decision() or self.is_over()):
            return ("the game is still being played: a game report is for a finished or "
                    "an imported game")
        return None

    # -- JSON ------------------------------------------------------------------------------

    def positions(self) -> list[dict[str, Any]]:
        """The moves played, each with its squares and the FEN after it."""
        board = Board(self.record.start_fen, variant=self.variant)
        out = []
        for ply, text in enumerate(self.record.moves, start=1):
            legal = board.legal_moves
            move = board.parse_move(text)
            info = move_info(move, legal)
            board.push(move)
            info.update(ply=ply, fen=board.fen())
            out.append(info)
        return out

    def state(self) -> dict[str, Any]:
        """Everything the page shows about the game."""
        board = self.board
        rec = self.record
        legal = board.legal_moves
        outcome = self.outcome()
        over = self.is_over()
        return {
            "id": rec.id,
            "variant": variant_info(self.variant),
            "start_fen": rec.start_fen,
            "fen": board.fen(),
            "turn": color_name(board.turn),
            "human": rec.human,
            "engine_color": self.engine_color(),
            "level": rec.level,
            "white": rec.white,
            "black": rec.black,
            "moves": self.positions(),
            "redo": list(reversed(rec.redo)),
            "legal_moves": [] if over else [move_info(m, legal) for m in legal],
            "must_capture": bool(legal) and all(m.is_capture for m in legal),
            "compulsory_capture": capture_explanation(board),
            "human_to_move": not over and self.human_to_move(),
            "outcome": outcome,
            "over": over,
            "can_undo": bool(rec.moves) and not self._finished_by_decision(),
            "can_redo": bool(rec.redo) and not over,
            "can_offer_draw": not over and board.can_offer_draw(),
            "can_analyse_game": self.report_refusal() is None,
            "rules": board.rules.summary(),
            "headers": rec.headers,
            "tree": self.tree() if rec.pdn is not None else None,
            "created_at": rec.created_at,
            "updated_at": rec.updated_at,
        }

    # -- PDN -------------------------------------------------------------------------------

    def _merged_game(self) -> pdn.Game:
        """The imported game tree with the current move list merged in (as a variation
        where it leaves the tree), or a new game of the moves played."""
        rec = self.record
        if rec.pdn is not None:
            game = pdn.read_game(rec.pdn, variant=self.variant)
            assert game is not None
        else:
            game = pdn.Game(variant=self.variant)
            game.setup(rec.start_fen)
        node: pdn.GameNode = game
        board = game.board()
        for text in rec.moves:
            move = board.parse_move(text)
            child = next((c for c in node.variations if c.move == move), None)
            if child is None:
                child = node.add_variation(move)
            board.push(move)
            node = child
        return game

    def tree(self) -> list[dict[str, Any]]:
        """The nodes of an imported game (variations included), depth first;
        node 0 is the start position."""
        key = tuple(self.record.moves)
        if self._tree_cache is not None and self._tree_cache[0] == key:
            return self._tree_cache[1]
        game = self._merged_game()
        nodes: list[dict[str, Any]] = []
        line = set()
        node: pdn.GameNode = game
        board = game.board()
        for text in self.record.moves:
            move = board.parse_move(text)
            board.push(move)
            node = next(c for c in node.variations if c.move == move)
            line.add(id(node))

        def visit(n: pdn.GameNode, parent: int | None, board: Board, ply: int) -> int:
            index = len(nodes)
            entry: dict[str, Any] = {"id": index, "parent": parent, "ply": ply,
                                     "fen": board.fen(), "comment": n.comment,
                                     "starting_comment": n.starting_comment,
                                     "nags": sorted(n.nags), "children": [],
                                     "in_line": parent is None or id(n) in line}
            nodes.append(entry)
            for child in n.variations:
                assert child.move is not None  # only the root has no move
                legal = board.legal_moves
                info = move_info(child.move, legal)
                board.push(child.move)
                child_index = visit(child, index, board, ply + 1)
                board.pop()
                nodes[child_index].update(info)
                entry["children"].append(child_index)
            return index

        visit(game, None, game.board(), 0)
        self._tree_cache = (key, nodes)
        return nodes

    def pdn_text(self) -> str:
        rec = self.record
        game = self._merged_game()
        headers = game.headers
        for name, value in rec.headers.items():
            if name not in headers:
                headers[name] = value
        if rec.pdn is None:
            headers["Event"] = "damier web game"
            headers["Site"] = "damier serve"
            headers["Date"] = rec.created_at[:10].replace("-", ".") if rec.created_at else "????.??.??"
        headers["White"] = rec.white
        headers["Black"] = rec.black
        outcome = self.outcome()
        if outcome is not None:
            headers["Result"] = outcome["result"]
            if outcome["termination"] != "recorded":
                headers["Termination"] = outcome["text"]
        elif rec.pdn is None:
            headers["Result"] = "*"
        return pdn.write_game(game)

    def filename(self) -> str:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{self.record.white}-vs-{self.record.black}")
        return f"damier-{self.id}-{safe[:60]}.pdn"


def import_pdn(store: GameStore, text: str, *, max_games: int = 100, owner: str | None = None,
               deadline: float | None = None) -> tuple[list[GameSession], list[str]]:
    """Reads every game of the PDN ``text`` (never a path) into the store, as analysis
    games (``human="both"``) owned by ``owner``; returns the sessions and the errors of
    the games that could not be read. Reading stops after ``max_games`` games, or when
    ``time.monotonic()`` passes ``deadline``, keeping the games read by then."""
    errors: list[PdnError] = []
    sessions: list[GameSession] = []
    try:
        reader = pdn.read_games(text, skip_errors=True, errors=errors)
        for game in reader:
            if len(sessions) >= max_games:
                errors.append(PdnError(f"only the first {max_games} games were imported"))
                break
            if deadline is not None and time.monotonic() > deadline:
                errors.append(PdnError(f"the import took too long: it stopped after "
                                       f"{len(sessions)} games"))
                break
            plies = len(game.mainline_moves())
            if plies > MAX_PLIES:
                errors.append(PdnError(f"a game of {plies} plies is too long (at most {MAX_PLIES})"))
                continue
            board = game.board()
            start_fen = board.fen()
            moves = []
            for move in game.mainline_moves():
                moves.append(move_text(move, board.legal_moves))
                board.push(move)
            headers = {k: v for k, v in game.headers.items()}
            record = store.create(variant=game.variant.name, start_fen=start_fen, human="both",
                                  level=10, white=headers.get("White", "?"),
                                  black=headers.get("Black", "?"), moves=moves, headers=headers,
                                  pdn=pdn.write_game(game), owner=owner, white_player=owner,
                                  black_player=owner)
            session = GameSession(store, record)
            session._update_result()
            sessions.append(session)
    except PdnError as err:  # pragma: no cover - skip_errors collects them
        errors.append(err)
    return sessions, [str(e) for e in errors]


def all_variants() -> list[dict[str, Any]]:
    return [variant_info(v) for v in VARIANTS.values()]

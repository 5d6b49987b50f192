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
damier.web.session.ApiError: illegal move '32-27': a capture is compulsory: the piece on 28
must capture; legal moves are 28x19
>>> session.undo(1)
1
>>> GameSession.load(store, session.id).record.moves
['32-28']

Every change is stored at once, or not made: a change that cannot be stored (a full
disk, a read-only database, a game deleted meanwhile, a game that another session
changed since this one read it) is taken back in memory as well, and answered with an
:class:`ApiError` (``kind`` ``storage``, ``deleted`` or ``stale``). A session whose
game was changed by another session reloads it from the store (see
:meth:`GameSession._change`).

>>> other = GameSession.load(store, session.id)     # e.g. the page, loaded again
>>> other.play({"move": "19-23"}).text
'19-23'
>>> session.play({"move": "18-22"})                 # this session had not seen 19-23
Traceback (most recent call last):
...
damier.web.session.ApiError: the game changed meanwhile: reload it
>>> session.record.moves                            # reloaded: the stored moves
['32-28', '19-23']
"""

from __future__ import annotations

import dataclasses
import re
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable

from damier import pdn
from damier._core import Move
from damier.board import Board
from damier.errors import AmbiguousMoveError, IllegalMoveError, InvalidFenError, PdnError
from damier.game import HUMAN, SEATS, Game, GameOverError, LineError, players_for_seats
from damier.moves import capture_rule, parse_move_spec
from damier.notation import move_text
from damier.piece import BLACK, WHITE
from damier.variants import VARIANTS, Variant, get_variant
from damier.web.storage import (GameDeletedError, GameStore, Offers, StaleGameError,
                                StorageError, StoredGame)

__all__ = ["ApiError", "GameSession", "PlayedMove", "HUMAN_CHOICES", "variant_info",
           "move_info", "capture_explanation", "import_pdn", "check_text", "storage_error",
           "tree_size", "clean_name", "MAX_PLIES", "MAX_TREE_NODES", "MAX_NAME_LENGTH"]

HUMAN_CHOICES = SEATS
"""Who the person plays: one colour (the engine plays the other), ``both``
(two people at one board, or analysis: the engine never moves by itself), or
``none`` (the engine plays both sides): :data:`damier.game.SEATS`."""

MAX_PLIES = 2000
"""The longest game the web app keeps (a bound on stored and imported games)."""

MAX_TREE_NODES = 5000
"""The most moves an imported game may hold, its main line and all its variations
together: the page is sent the whole tree (:meth:`GameSession.tree`), so a bigger one
is refused at import (a tree of this size is about 1.4 MB of JSON)."""


MAX_NAME_LENGTH = 40
"""The longest player name (a person's name in a game, and in its PDN tags)."""


class ApiError(Exception):
    """A request the app refuses: an HTTP status, a message, and extra JSON fields."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra

    def payload(self) -> dict[str, Any]:
        return {"error": self.message, "status": self.status, **self.extra}


def storage_error(err: StorageError, what: str = "store the change",
                  outcome: str = "nothing was changed") -> ApiError:
    """The answer to a change the store could not write: 507 (Insufficient Storage)
    for a full disk, 503 for other failures (a read-only database, a disk error...)."""
    return ApiError(507 if err.disk_full else 503,
                    f"the server could not {what}: {err.reason}; {outcome}", kind="storage")


def check_text(value: str | None, field: str) -> None:
    """Refuses (400, naming ``field``) a text that cannot be stored or sent as UTF-8: one
    holding an unpaired surrogate such as ``"\\ud800"`` (JSON allows them, UTF-8 does not).

    >>> check_text("Zoë", "white")
    >>> check_text("a\\ud800b", "white")
    Traceback (most recent call last):
    ...
    damier.web.session.ApiError: white is not valid text: it holds an unpaired surrogate
    (\\ud800 at character 2)
    """
    if value is None:
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        shown = ascii(value[err.start])[1:-1]
        raise ApiError(400, f"{field} is not valid text: it holds an unpaired surrogate "
                       f"({shown} at character {err.start + 1})", field=field) from None


def clean_name(value: str, field: str = "name") -> str:
    """A player's name as given (``field`` names it in errors): spaces at the ends
    dropped and runs of spaces made one; refused (400) when empty, longer than
    :data:`MAX_NAME_LENGTH` characters, or holding a control character, a quote or a
    bracket (the name goes into PDN tags such as ``[White "..."]``).

    >>> clean_name("  Zoë   van  Dam ")
    'Zoë van Dam'
    >>> clean_name('Eve "root" ]')
    Traceback (most recent call last):
    ...
    damier.web.session.ApiError: name may not hold control characters, quotes or brackets
    """
    check_text(value, field)
    name = " ".join(value.split())
    if not name:
        raise ApiError(400, f"{field} is empty: give a name", field=field)
    if len(name) > MAX_NAME_LENGTH:
        raise ApiError(400, f"{field} is too long: {len(name)} characters (at most "
                       f"{MAX_NAME_LENGTH})", field=field)
    if any(not c.isprintable() or c in '"[]{}\\' for c in name):
        raise ApiError(400, f"{field} may not hold control characters, quotes or brackets",
                       field=field)
    return name


def color_name(color: bool) -> str:
    return "white" if color else "black"


def variant_info(variant: Variant) -> dict[str, Any]:
    return {"name": variant.name, "title": variant.title, "size": variant.size,
            "squares": variant.squares, "white_starts": variant.white_starts,
            "initial_fen": variant.initial_fen, "game_type": variant.game_type,
            "flying_kings": variant.flying_kings, "majority_capture": variant.majority_capture,
            "top_left_dark": variant.top_left_dark, "all_squares": variant.all_squares,
            "puzzles": variant.puzzles_file is not None}


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


_RESULTS = {"1-0": WHITE, "0-1": BLACK, "1/2-1/2": None}

_GAME_FIELDS = ("moves", "redo", "clock_state", "result", "termination", "termination_text",
                "winner", "offers")
"""The record's fields that a move (undo, redo, resignation, clocks...) changes: one write
(the offers too: a move declines a draw and lets a take-back request lapse)."""

_SEAT_FIELDS = ("invite", "white_player", "black_player")

CLOCK_SOURCE = time.time
"""The time source of the web games' clocks: the wall clock, so that a running clock
stored by one server goes on counting in the next."""


class GameSession:
    """A stored game and its live :class:`damier.game.Game`.

    The game logic (moves, undo/redo, who is to move, resignation, draws, clocks, the end
    in words) is the :class:`~damier.game.Game`'s; the session adds the store (every
    change is written at once, in one write, or not made at all: see :meth:`_change`),
    the HTTP errors, the JSON of the page and the PDN. The record's ``moves`` and ``redo``
    are kept equal to the game's."""

    def __init__(self, store: GameStore, record: StoredGame, game: Game | None = None) -> None:
        self.store = store
        self.record = record
        self.variant = get_variant(record.variant)
        self._game = game if game is not None else self._game_of(record)
        self._tree_cache: tuple[tuple[str, ...], list[dict[str, Any]]] | None = None
        self._changing = False

    @staticmethod
    def _game_of(record: StoredGame) -> Game:
        data = dataclasses.asdict(record)
        data["draw_offer"] = record.offers.draw     # a pending offer outlives the server
        game = Game.from_dict(data, now=CLOCK_SOURCE)
        if game.redo_texts() != record.redo:    # moves that no longer read are dropped
            record.redo = game.redo_texts()
        if game.draw_offer is not None and game.is_over():
            game.draw_offer = None              # an offer stored with an ended game lapsed
        return game

    # -- changes: all or nothing -------------------------------------------------------------

    @contextmanager
    def _change(self) -> Iterator[None]:
        """Makes the changes of the block all or nothing. The game and the record are
        saved when the block starts; when the block fails (other than with an
        :class:`ApiError`, which is raised only before a change or after it was stored),
        they are put back as they were, so that nothing the store did not take stays in
        memory, and a store failure becomes an :class:`ApiError`:

        - the store cannot write (:class:`~damier.web.storage.StorageError`): 507 for a
          full disk, 503 otherwise (``kind`` ``storage``; :func:`storage_error`);
        - the game was deleted meanwhile (:class:`~damier.web.storage.GameDeletedError`):
          410 (``kind`` ``deleted``);
        - another session changed the game since this one read it
          (:class:`~damier.web.storage.StaleGameError`): 409 (``kind`` ``stale``), and the
          session reloads the game from the store, so that it goes on from the stored
          game (never overwriting it with its own older copy).

        Blocks may nest: the outermost one decides."""
        if self._changing:
            yield
            return
        game_state = self._game.snapshot()
        record_state = dataclasses.replace(self.record)
        self._changing = True
        try:
            yield
        except ApiError:
            raise
        except BaseException as err:
            self._game.restore(game_state)
            self._put_record(record_state)
            if isinstance(err, StaleGameError):
                if self._reload():
                    raise ApiError(409, "the game changed meanwhile: reload it",
                                   kind="stale") from None
                raise ApiError(410, "the game was deleted", kind="deleted") from None
            if isinstance(err, GameDeletedError):
                raise ApiError(410, "the game was deleted", kind="deleted") from None
            if isinstance(err, StorageError):
                raise storage_error(err) from None
            raise
        finally:
            self._changing = False

    def _put_record(self, source: StoredGame) -> None:
        """Gives the record (the same object: others may hold it) the fields of ``source``."""
        for f in dataclasses.fields(StoredGame):
            setattr(self.record, f.name, getattr(source, f.name))

    def _reload(self) -> bool:
        """Reads the game again from the store (after another session changed it); False
        when it is no longer stored, or cannot be read (the session is then left as it
        was)."""
        try:
            record = self.store.get(self.id)
        except StorageError:
            return True
        if record is None:
            return False
        game = self._game_of(record)
        self._put_record(record)
        self._game = game
        self._tree_cache = None
        return True

    def update_record(self, change: Callable[[StoredGame], Any], *names: str) -> None:
        """Applies ``change`` to the record and stores the fields ``names`` (every field
        when none are named), all or nothing (see :meth:`_change`): e.g. the app's
        adoption of an owner-less game, ``session.update_record(lambda r: adopt(r,
        player), "owner", "white_player", "black_player")``."""
        with self._change():
            change(self.record)
            if names:
                self.store.update(self.record, *names)
            else:
                self.store.save(self.record)

    # -- creation ------------------------------------------------------------------

    @classmethod
    def create(cls, store: GameStore, *, variant: str = "international", human: str = "white",
               level: int = 5, fen: str | None = None, white: str | None = None,
               black: str | None = None, owner: str | None = None,
               clock: tuple[float, float] | None = None,
               seats: tuple[str | None, str | None] | None = None) -> "GameSession":
        """A new game stored in ``store``; ``owner`` (a player) holds the seats of the
        colours that ``human`` names, or ``seats`` gives the players of the white and
        black seats (a rematch between two people). ``clock``: ``(seconds, increment)``
        for each side (the clocks start with :meth:`start_clock`), or None."""
        for text, name in ((variant, "variant"), (fen, "fen"), (white, "white"),
                           (black, "black")):
            check_text(text, name)
        try:
            v = get_variant(variant)
        except ValueError as err:
            raise ApiError(400, str(err), field="variant") from None
        if human not in HUMAN_CHOICES:
            raise ApiError(400, f"color must be one of {', '.join(HUMAN_CHOICES)}, got {human!r}",
                           field="color")
        if not 1 <= level <= 10:
            raise ApiError(400, f"level must be between 1 and 10, got {level}", field="level")
        engine_name = f"damier level {level}"
        names = {"white": ("You", engine_name), "black": (engine_name, "You"),
                 "both": ("White", "Black"), "none": (engine_name, engine_name)}[human]
        players = players_for_seats(human)
        try:
            board = Board(fen, variant=v) if fen else Board(variant=v)
        except InvalidFenError as err:
            raise ApiError(400, f"invalid FEN: {err}", field="fen") from None
        try:
            game = Game(board.fen(), variant=v, white=players[WHITE], black=players[BLACK],
                        level=level, white_name=white or names[0], black_name=black or names[1],
                        clock=clock, now=CLOCK_SOURCE)
        except ValueError as err:
            raise ApiError(400, str(err), field="clock") from None
        data = game.to_dict()
        white_seat = owner if human in ("white", "both") else None
        black_seat = owner if human in ("black", "both") else None
        if seats is not None:
            white_seat, black_seat = seats
        record = StoredGame(id=secrets.token_hex(8), variant=v.name, start_fen=game.start_fen,
                            human=human, level=level, white=data["white"],
                            black=data["black"], owner=owner, white_player=white_seat,
                            black_player=black_seat, clock_initial=data["clock_initial"],
                            clock_increment=data["clock_increment"],
                            clock_state=data["clock_state"])
        session = cls(store, record, game)
        session._set_result()   # a game from a finished position is stored finished
        try:
            store.create_many([record])
        except StorageError as err:
            raise storage_error(err, "store the new game", "no game was created") from None
        return session

    @classmethod
    def load(cls, store: GameStore, game_id: str) -> "GameSession":
        try:
            record = store.get(game_id)
        except StorageError as err:
            raise ApiError(503, f"the server could not read the game: {err.reason}",
                           kind="storage") from None
        if record is None:
            raise ApiError(404, f"no game with id {game_id!r}")
        return cls(store, record)

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def game(self) -> Game:
        """The live game. Who plays each side, the level and the names are the record's
        (the app may change them, e.g. when a person takes the engine's seat)."""
        game, rec = self._game, self.record
        if game.seats != rec.human:
            game.players = players_for_seats(rec.human)
        if game.level != rec.level:
            game.level = rec.level
        game.names = {WHITE: rec.white, BLACK: rec.black}
        return game

    @property
    def board(self) -> Board:
        """The game's board (the position and the moves played)."""
        return self.game.board

    # -- who moves ---------------------------------------------------------------------

    def human_to_move(self) -> bool:
        return self.game.human_to_move()

    def engine_to_move(self) -> bool:
        return self.game.engine_to_move()

    def engine_color(self) -> str | None:
        human = self.record.human
        if human in ("white", "black"):
            return "black" if human == "white" else "white"
        return "both" if human == "none" else None

    # -- the end of the game ------------------------------------------------------------

    def outcome(self) -> dict[str, Any] | None:
        """The result and the rule that ended the game (:meth:`damier.game.Game.outcome_info`),
        or the result recorded in an imported PDN (``termination`` ``recorded``: the game
        goes on), or None while it goes on."""
        info = self.game.outcome_info()
        if info is not None:
            return info
        rec = self.record
        if rec.termination == "recorded":
            return {"result": rec.result, "winner": rec.winner, "termination": rec.termination,
                    "rule": rec.termination_text, "text": rec.termination_text,
                    "pdn_result": pdn.result_for_variant(rec.result, self.variant)}
        return None

    def is_over(self) -> bool:
        """Whether the game has ended (a result recorded in an imported PDN does not end it)."""
        return self.game.is_over()

    def _finished_by_decision(self) -> bool:
        return self.game.decided is not None

    def _set_result(self) -> None:
        """Sets the record's result after a change of the game (:meth:`_save` stores it)."""
        rec = self.record
        info = self.game.outcome_info()
        if info is not None:
            result, termination = info["result"], info["termination"]
            text, winner = info["text"], info["winner"]
        elif rec.headers.get("Result", "*") not in ("*", "") and rec.pdn is not None:
            canonical = pdn.canonical_result(rec.headers["Result"]) or "*"
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
        rec.result, rec.termination, rec.termination_text, rec.winner = (
            result, termination, text, winner)

    def _save(self) -> None:
        """Stores the moves, redo, clocks and result after a change, in one write over the
        version of the game this session last read or wrote. Called outside a change
        (:meth:`_change`), a failure reloads the game from the store, so that the
        unstored change does not stay in memory; use the session's methods instead."""
        if not self._changing:
            try:
                with self._change():
                    self._save()
            except ApiError as err:
                if err.extra.get("kind") != "stale":
                    self._reload()
                raise
            return
        rec = self.record
        if self.game.is_over():
            self.game.draw_offer = None   # e.g. the offerer's own move ended the game
        moves = self.game.move_texts()
        rec.offers = self._offers_after(moved=moves != rec.moves)
        rec.moves = moves
        rec.redo = self.game.redo_texts()
        rec.clock_state = self.game.clock_state()
        self._set_result()
        self.store.update(rec, *_GAME_FIELDS)

    def _offers_after(self, *, moved: bool) -> Offers:
        """The pending offers after a change of the game (``moved``: its moves changed):
        the game's draw offer (a move by the opponent declines it, undo and the game's
        end clear it); a take-back request lapses with a move (and is answered by the
        undo that grants it) and with the game's end; a rematch offer stands only while
        the game is over; the rematch made stays."""
        game, old = self.game, self.record.offers
        over = game.is_over()
        return Offers(draw=None if game.draw_offer is None else color_name(game.draw_offer),
                      takeback=None if moved or over else old.takeback,
                      rematch=old.rematch if over else None,
                      rematch_game=old.rematch_game)

    def _game_over(self, suffix: str = "") -> ApiError:
        out = self.outcome()
        return ApiError(409, f"the game is over ({out['text'] if out else 'finished'}){suffix}",
                        kind="game_over")

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
        if self.is_over():
            raise self._game_over()
        if not by_engine and not self.human_to_move():
            raise ApiError(409, "it is the engine's turn to move", kind="not_your_turn")
        if len(self.game.plies) >= MAX_PLIES:
            raise ApiError(409, f"the game is too long (at most {MAX_PLIES} plies)")

    def play(self, spec: dict[str, Any], *, by_engine: bool = False) -> PlayedMove:
        """Plays the move of ``spec`` (see :meth:`resolve`) and stores it."""
        self.check_can_move(by_engine=by_engine)
        move = self.resolve(spec)
        return self.push(move)

    def play_move(self, move: Move, *, by_engine: bool = False) -> PlayedMove:
        """Plays ``move`` (a :class:`~damier.Move`: the engine's) and stores it, with no
        round trip through text."""
        self.check_can_move(by_engine=by_engine)
        if move not in self.board.legal_moves:
            raise ApiError(409, f"{move!r} is not legal in this position", kind="illegal_move")
        return self.push(move)

    def push(self, move: Move) -> PlayedMove:
        with self._change():
            try:
                ply = self.game.push(move)
            except GameOverError:
                self._save()          # a flag found fallen ends the game: store it
                raise self._game_over() from None
            except (IllegalMoveError, AmbiguousMoveError) as err:
                raise self._move_error(err) from None
            self._save()
        return PlayedMove(ply.move, ply.text)

    def undo(self, count: int) -> int:
        """Takes back up to ``count`` plies; returns how many were taken back."""
        with self._change():
            if self._finished_by_decision():
                raise self._game_over("; it cannot be taken back")
            n = len(self.game.undo(count))
            if n:
                self._save()
        return n

    def undo_for_human(self) -> int:
        """Undo as the page's button does: back to the last position where the person
        was to move (one or two plies when playing the engine)."""
        with self._change():
            if self._finished_by_decision():
                raise self._game_over("; it cannot be taken back")
            n = len(self.game.undo_to_person())
            if n:
                self._save()
        return n

    def redo(self, count: int) -> int:
        """Replays up to ``count`` taken-back plies, then the engine's replies that were
        taken back with them (the same moves, not a new search); returns how many plies
        were replayed."""
        with self._change():
            if self._finished_by_decision():
                raise self._game_over()
            done = len(self.game.redo(count, replies=True))
            self._save()
        return done

    def set_line(self, moves: list[str]) -> None:
        """Replaces the move list by ``moves`` (checked from the start position)."""
        if self._finished_by_decision():
            raise self._game_over()
        if len(moves) > MAX_PLIES:
            raise ApiError(400, f"too many moves (at most {MAX_PLIES})")
        for i, text in enumerate(moves):
            if isinstance(text, str):
                check_text(text, f"move {i + 1}")
        with self._change():
            try:
                self.game.set_line(moves)
            except LineError as err:
                raise ApiError(400, str(err), kind="illegal_move", ply=err.ply) from None
            self._save()

    def resign(self, color: str) -> None:
        with self._change():
            self.check_can_move(by_engine=True)
            self.game.resign(WHITE if color == "white" else BLACK)
            self._save()

    def agree_draw(self) -> None:
        with self._change():
            self.check_can_move(by_engine=True)
            self.game.agree_draw()
            self._save()

    def offer_draw(self, color: str) -> bool:
        """``color`` (``white`` or ``black``) offers a draw in a game between two people:
        True when that accepts the opponent's offer (the game ends drawn), False when the
        offer waits for the opponent (a move declines it). Either way it is stored (a
        pending offer outlives a restart of the server). Raises 409 when no draw may be
        offered now."""
        with self._change():
            self.check_can_move(by_engine=True)
            try:
                accepted = self.game.offer_draw(WHITE if color == "white" else BLACK)
            except ValueError as err:
                raise ApiError(409, str(err)) from None
            if accepted or self.record.offers.draw != color:
                self._save()
        return accepted

    # -- take-back and rematch offers between two people -------------------------------------

    def _store_offers(self, offers: Offers) -> None:
        """Stores ``offers`` as the game's pending offers (one write, over the version this
        session read: see :meth:`_change`); nothing when they are unchanged."""
        if offers == self.record.offers:
            return
        with self._change():
            self.record.offers = offers
            self.store.update(self.record, "offers")

    def set_takeback_offer(self, color: str | None) -> None:
        """Stores that ``color`` asks to take its last move back (None: no request, e.g.
        declined; granted, the undo clears it in the same write)."""
        self._store_offers(dataclasses.replace(self.record.offers, takeback=color))

    def set_rematch_offer(self, color: str | None) -> None:
        """Stores that ``color`` offers a rematch of the finished game (None: no offer,
        withdrawn or declined)."""
        self._store_offers(dataclasses.replace(self.record.offers, rematch=color))

    def set_rematch(self, game_id: str) -> None:
        """Stores ``game_id`` as the rematch of this game (the offer, answered, goes)."""
        self._store_offers(dataclasses.replace(self.record.offers, rematch=None,
                                               rematch_game=game_id))

    # -- clocks ------------------------------------------------------------------------------

    # -- a game between two people on two devices --------------------------------------------

    def invite_friend(self, color: str) -> str:
        """Opens the seat of ``color`` to a friend: returns the secret of the invitation
        link (the first player who opens it takes the seat)."""
        with self._change():
            invite = self.record.invite = secrets.token_urlsafe(18)
            if color == "white":
                self.record.white_player = None
            else:
                self.record.black_player = None
            self.store.update(self.record, *_SEAT_FIELDS)
        return invite

    def join(self, player: str, token: str, name: str | None = None) -> str:
        """``player`` takes the open seat with the invitation ``token``; returns its colour.
        ``name`` (see :func:`clean_name`) becomes the seat's name (the colour's when
        None)."""
        rec = self.record
        # compared as bytes: compare_digest refuses str with non-ASCII characters
        if rec.invite is None or not secrets.compare_digest(
                rec.invite.encode("utf-8"), token.encode("utf-8", "surrogatepass")):
            raise ApiError(403, "this invitation link is not valid (or its seat was taken)",
                           kind="bad_invite")
        color = "white" if rec.white_player is None else "black"
        other = rec.black_player if color == "white" else rec.white_player
        if other == player:
            raise ApiError(409, f"you already play {'black' if color == 'white' else 'white'} in "
                           "this game: send the link to your opponent", kind="own_invite")
        with self._change():
            if color == "white":
                rec.white_player = player
                rec.white = name or "White"
            else:
                rec.black_player = player
                rec.black = name or "Black"
            rec.invite = None
            self.store.update(rec, *_SEAT_FIELDS, "white", "black")
        return color

    def two_players(self) -> bool:
        """Whether two different people play this game (or one waits for a friend)."""
        rec = self.record
        if rec.human != "both":
            return False
        if rec.invite is not None:
            return True
        return (rec.white_player is not None and rec.black_player is not None
                and rec.white_player != rec.black_player)

    def start_clock(self) -> None:
        """Starts the clocks of a timed game (the side to move's runs) and stores them."""
        if self.game.clocks is not None and not self.game.clock_running:
            with self._change():
                self.game.start_clock()
                self._save()

    def check_flag(self) -> bool:
        """Ends (and stores) the game on time when the side to move has no time left."""
        if self.game.clocks is None:
            return False
        with self._change():
            if self.game.check_flag():
                self._save()
                return True
        return False

    def clock_info(self) -> dict[str, Any] | None:
        """The clocks as the page shows them (None for an untimed game): ``initial`` and
        ``increment`` (seconds), ``white`` and ``black`` (seconds left now), ``running``
        (the colour whose clock runs, or None)."""
        game = self.game
        if game.clocks is None:
            return None
        times = game.times()
        running = next((color_name(c) for c, clock in game.clocks.items() if clock.running),
                       None)
        return {"initial": game.clocks[WHITE].initial_s,
                "increment": game.clocks[WHITE].increment_s,
                "white": max(0.0, times[WHITE]), "black": max(0.0, times[BLACK]),
                "running": running}

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
        """The moves played, each with its squares and the FEN after it (from the game's
        plies: nothing is replayed)."""
        out = []
        for number, ply in enumerate(self.game.plies, start=1):
            move = ply.move
            # the text is the full path exactly when another capture shares the move's ends
            ambiguous = move.is_capture and ply.text != f"{move.from_square}x{move.to_square}"
            out.append({"text": ply.text, "from": move.from_square, "to": move.to_square,
                        "path": list(move.path), "captures": list(move.captures),
                        "ambiguous": ambiguous, "ply": number, "fen": ply.fen})
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
            "can_redo": self.game.can_redo(),
            "can_offer_draw": not over and board.can_offer_draw(),
            "can_analyse_game": self.report_refusal() is None,
            "rules": board.rules.summary(),
            "headers": rec.headers,
            "tree": self.tree() if rec.pdn is not None else None,
            "created_at": rec.created_at,
            "updated_at": rec.updated_at,
            "clock": self.clock_info(),
        }

    # -- PDN -------------------------------------------------------------------------------

    def _merged_game(self) -> pdn.Game:
        """The imported game tree with the game's line merged in (the moves played, then
        for an imported game the moves that redo would replay): where the line leaves
        the tree it is added. The moves of redo become the first variations where they
        stand (the line the page shows after the last move played); the moves played
        keep their places (the page's tree marks them ``in_line``; :meth:`pdn_text` puts
        them first). A game that was not imported: a new game of the moves played."""
        rec = self.record
        line = list(self.game.moves)
        if rec.pdn is not None:
            game = pdn.read_game(rec.pdn, variant=self.variant)
            assert game is not None
            line += [ply.move for ply in reversed(self.game.redo_stack)]
        else:
            game = pdn.Game(variant=self.variant)
            game.setup(rec.start_fen)
        node: pdn.GameNode = game
        played = len(self.game.moves)
        for i, move in enumerate(line):
            child = next((c for c in node.variations if c.move == move), None)
            if child is None:
                child = node.add_variation(move)
            if i >= played and node.variations[0] is not child:
                node.variations.remove(child)
                node.variations.insert(0, child)
            node = child
        return game

    def tree(self) -> list[dict[str, Any]]:
        """The nodes of an imported game (variations included), depth first;
        node 0 is the start position. Kept until the moves change (the page asks for
        it with every state); walked without recursion, so that no game is too deep."""
        key = tuple(self.record.moves) + ("",) + tuple(self.record.redo)
        if self._tree_cache is not None and self._tree_cache[0] == key:
            return self._tree_cache[1]
        game = self._merged_game()
        line = set()
        node: pdn.GameNode = game
        for move in self.game.moves:
            node = next(c for c in node.variations if c.move == move)
            line.add(id(node))
        board = game.board()

        def entry(n: pdn.GameNode, parent: int | None, ply: int) -> dict[str, Any]:
            return {"id": len(nodes), "parent": parent, "ply": ply, "fen": board.fen(),
                    "comment": n.comment, "starting_comment": n.starting_comment,
                    "nags": sorted(n.nags), "children": [],
                    "in_line": parent is None or id(n) in line}

        nodes: list[dict[str, Any]] = []
        nodes.append(entry(game, None, 0))
        # the path from the root to the node being visited: (node's index, its children
        # not visited yet); the board is at that node's position
        stack: list[tuple[int, Iterator[pdn.GameNode]]] = [(0, iter(game.variations))]
        while stack:
            index, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                if stack:
                    board.pop()
                continue
            assert child.move is not None  # only the root has no move
            info = move_info(child.move, board.legal_moves)
            board.push(child.move)
            child_entry = entry(child, index, len(stack))
            child_entry.update(info)
            nodes.append(child_entry)
            nodes[index]["children"].append(child_entry["id"])
            stack.append((child_entry["id"], iter(child.variations)))
        self._tree_cache = (key, nodes)
        return nodes

    def pdn_text(self) -> str:
        """The game as PDN. An imported game's main line is the line played (the page
        shows it so), its imported main line a variation where they part."""
        rec = self.record
        game = self._merged_game()
        node: pdn.GameNode = game
        for move in self.game.moves:
            node.promote_to_main(move)
            node = node.variation(move)
        headers = game.headers
        for name, value in rec.headers.items():
            if name not in headers:
                headers[name] = value
        tags: dict[str, str | None] = {}
        if rec.pdn is None:
            tags = {"Event": "damier web game", "Site": "damier serve",
                    "Date": (rec.created_at[:10].replace("-", ".") if rec.created_at
                             else "????.??.??")}
        tags.update(White=rec.white, Black=rec.black)
        outcome = self.outcome()
        if outcome is not None:
            tags["Result"] = outcome["result"]
            if outcome["termination"] != "recorded":
                tags["Termination"] = outcome["text"]
        elif rec.pdn is None:
            tags["Result"] = "*"
        pdn.set_game_tags(headers, self.variant, tags)   # an import's own result stays
        return pdn.write_game(game)

    def filename(self) -> str:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{self.record.white}-vs-{self.record.black}")
        return f"damier-{self.id}-{safe[:60]}.pdn"


def tree_size(game: pdn.GameNode) -> int:
    """The number of moves in a game tree: its main line and all its variations (counted
    without recursion)."""
    count = 0
    stack = list(game.variations)
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node.variations)
    return count


def import_pdn(store: GameStore, text: str, *, max_games: int = 100, owner: str | None = None,
               deadline: float | None = None) -> tuple[list[GameSession], list[str]]:
    """Reads every game of the PDN ``text`` (never a path) into the store, as analysis
    games (``human="both"``) owned by ``owner``; returns the sessions and the errors of
    the games that could not be read. A game ``owner`` imported before (the same PDN) is
    not stored again: its stored copy is returned. Reading stops after ``max_games`` games, or when
    ``time.monotonic()`` passes ``deadline``, keeping the games read by then. A game longer
    than :data:`MAX_PLIES`, or with more than :data:`MAX_TREE_NODES` moves in its main line
    and variations together, is refused (an error in the list).

    The games read are stored together, all or none: when the store cannot write them,
    raises :class:`ApiError` (507 for a full disk, 503 otherwise; nothing is imported).
    A text that is not valid Unicode (an unpaired surrogate) is refused with 400."""
    check_text(text, "pdn")
    errors: list[PdnError] = []
    sessions: list[GameSession] = []
    new: list[GameSession] = []
    seen: dict[str, GameSession] = {}
    duplicates = 0
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
                errors.append(PdnError(f"a game of {plies} plies is too long "
                                       f"(at most {MAX_PLIES})"))
                continue
            size = tree_size(game)
            if size > MAX_TREE_NODES:
                errors.append(PdnError(f"a game with {size:,} moves in its main line and "
                                       f"variations is too large (at most {MAX_TREE_NODES:,})"))
                continue
            headers = {k: v for k, v in game.headers.items()}
            text_of_game = pdn.write_game(game)
            known = seen.get(text_of_game)
            if known is None:
                try:
                    stored = store.find_imported(owner, text_of_game)
                except StorageError as err:
                    raise ApiError(503, f"the server could not read its games: {err.reason}; "
                                   "nothing was imported", kind="storage") from None
                known = None if stored is None else GameSession.load(store, stored)
            if known is not None:   # the same game imported before: not stored twice
                sessions.append(known)
                duplicates += 1
                continue
            played = Game.from_board(game.end().board(), white=HUMAN, black=HUMAN, level=10,
                                     white_name=headers.get("White", "?"),
                                     black_name=headers.get("Black", "?"), now=CLOCK_SOURCE)
            record = StoredGame(id=secrets.token_hex(8), variant=game.variant.name,
                                start_fen=played.start_fen, human="both", level=10,
                                white=headers.get("White", "?"), black=headers.get("Black", "?"),
                                moves=played.move_texts(), headers=headers, pdn=text_of_game,
                                owner=owner, white_player=owner, black_player=owner)
            session = GameSession(store, record, played)
            session._set_result()
            sessions.append(session)
            new.append(session)
            seen[text_of_game] = session
    except PdnError as err:  # pragma: no cover - skip_errors collects them
        errors.append(err)
    try:
        store.create_many([session.record for session in new])
    except StorageError as err:
        raise storage_error(err, "store the imported games", "nothing was imported") from None
    if duplicates:
        errors.append(PdnError(f"{duplicates} game{'s were' if duplicates > 1 else ' was'} "
                               "imported before: the stored copy is kept (not imported again)"))
    return sessions, [str(e) for e in errors]


def all_variants() -> list[dict[str, Any]]:
    return [variant_info(v) for v in VARIANTS.values()]

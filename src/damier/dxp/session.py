"""One DXP connection's dialogue: games asked for, accepted and played with a local engine.

The DamExchange layer 2 dialogue: the *initiator* sends a GAMEREQ (the follower's
colour, the thinking time, the start position), the *follower* answers with a
GAMEACC; then MOVE messages alternate strictly, forced moves included, until a side
sends a GAMEEND instead of a MOVE and the other confirms it with its own GAMEEND.
CHAT may come at any time; BACKREQ asks to take moves back and BACKACC answers it.
The initiator may then ask for another game on the same connection. Who connects
(client, server) is independent of who asks for games (initiator, follower).

:class:`DxpSession` plays the dialogue with a local engine (a :data:`Mover`) over a
:class:`~damier.dxp.DxpConnection` (:mod:`damier.dxp.connection`); a
:class:`~damier.dxp.DxpListener` (:mod:`damier.dxp.listener`) serves connections.

How this side ends a game:

- with no legal move on its turn it sends GAMEEND "I lose"; when a draw rule ends
  the game (FMJD rules, art. 6: the 25-move rule, repetition, the 16/5-move endings)
  the side to move sends GAMEEND "draw"; when the other side is to move in a finished
  position and sends nothing within :data:`END_GRACE` seconds, this side sends the
  GAMEEND itself;
- a GAMEEND from the other side is answered with this side's own (its reason seen
  from this side: the other's "I lose" is this side's "I win");
- a message that cannot be read, a message out of turn (a GAMEACC during a game, a
  MOVE when a GAMEEND is due) or an illegal move ends the game: a log line names the
  message, this side sends GAMEEND "unknown" with the stop code, and the game is
  recorded unfinished (``*``) with that reason;
- a GAMEREQ during a game (the initiator may start a new game at any time) ends the game
  unfinished and is answered as the next request;
- a peer silent beyond its clock (and ``timeout`` seconds more; ``timeout`` alone when
  the game has no clock) ends the game the same way, as a time forfeit when its clock
  has run out; a closed connection ends the game and the connection.

Time: a GAMEREQ gives each side ``minutes`` for ``moves`` moves (``moves`` 0: for the
whole game; otherwise the time is given again after every ``moves`` moves). Each side
keeps both clocks by its own wall time; the engine moves on this side's clock.

Nothing the peer sends makes :meth:`DxpSession.follow` raise, nor
:meth:`DxpSession.request_game` once the game has begun: every problem is a log line and
the end of a game or of the connection.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NoReturn

from damier._core import Move
from damier.board import Board
from damier.dxp.connection import DxpClosed, DxpConnection, DxpTimeout
from damier.dxp.messages import (DXP_VARIANT, NAME_WIDTH, BackAccept, BackRequest, Chat,
                                 DxpError, GameAccept, GameEnd, GameRequest, Message,
                                 MoveMessage, board_from_position, format_message,
                                 message_for_move, move_from_message, position_of)
from damier.engine_types import Clock, EngineAPI, Limit
from damier.piece import BLACK, WHITE, Color

__all__ = ["DEFAULT_TIMEOUT", "END_GRACE", "MAX_PLIES", "DxpRefused", "DxpGame", "DxpSession",
           "Mover", "engine_mover"]

DEFAULT_TIMEOUT = 30.0
"""Seconds a peer may stay silent beyond its clock (or at all, without a clock)."""
END_GRACE = 5.0
"""Seconds given to the other side to send or confirm a GAMEEND."""
MAX_PLIES = 1000
"""A game still going after this many plies ends as a draw, sent by this side."""

log = logging.getLogger("damier.dxp")

Mover = Callable[[Board, "Clock | None"], "Move | None"]
"""What a session asks for a move: called with the position (its game's moves pushed)
and this side's clock (None for a game without a time limit); returns a legal move, or
None to resign."""


class DxpRefused(Exception):
    """The follower answered a GAMEREQ with a GAMEACC that refuses it (``code``)."""

    REASONS = {GameAccept.WRONG_VERSION: "wrong version", GameAccept.NOT_THIS_GAME:
               "not this game", GameAccept.NO_GAMES: "no more games"}

    def __init__(self, name: str, code: int) -> None:
        super().__init__(f"{name or 'the follower'} refused the game: "
                         f"{self.REASONS.get(code, f'code {code}')}")
        self.name = name
        self.code = code


def engine_mover(engine: EngineAPI, *, movetime: float | None = None,
                 depth: int | None = None, nodes: int | None = None) -> Mover:
    """A :data:`Mover` that asks ``engine`` (any :class:`~damier.engine_types.EngineAPI`):
    on the game's clock when there is one, within ``movetime``/``depth``/``nodes`` when
    given (those win over the clock), and 1 s a move when a game has no clock and
    nothing is given."""

    def move(board: Board, clock: Clock | None) -> Move | None:
        if movetime is not None or depth is not None or nodes is not None:
            limit = Limit(depth=depth, nodes=nodes, time=movetime)
        elif clock is not None:
            limit = Limit(clock=clock)
        else:
            limit = Limit(time=1.0)
        return engine.play(board, limit).move

    return move


# -- a game -----------------------------------------------------------------------------------

@dataclass
class DxpGame:
    """A game played over DXP, seen from this side."""

    board: Board
    """The start position with the game's moves pushed."""
    color: Color
    """The colour this side played."""
    name: str
    """This side's name."""
    peer: str
    """The other side's name (from its GAMEREQ or GAMEACC)."""
    minutes: int = 0
    moves: int = 0
    winner: Color | None = None
    """The winner (None: a draw, or unfinished: see :attr:`finished`)."""
    finished: bool = False
    reason: str = ""
    """How the game ended, in words."""
    chats: list[tuple[str, str]] = field(default_factory=list)
    """The CHAT messages during the game: ``(sender, text)``."""
    back_requests: list[str] = field(default_factory=list)
    """Each BACKREQ of the game and its answer, in words."""
    stop: bool = False
    """A side said it plays no further game, or the connection is gone."""

    @property
    def white(self) -> str:
        return self.name if self.color == WHITE else self.peer

    @property
    def black(self) -> str:
        return self.peer if self.color == WHITE else self.name

    @property
    def result(self) -> str:
        """The result in the PDN of International draughts: ``2-0``, ``1-1``, ``0-2`` or
        ``*`` (unfinished)."""
        if not self.finished:
            return "*"
        wins, draw, losses = DXP_VARIANT.pdn_results
        if self.winner is None:
            return draw
        return wins if self.winner == WHITE else losses

    def pdn(self, *, event: str = "DXP game") -> str:
        """The game as PDN text: tags, moves, the reason and chats as comments."""
        from damier import pdn

        game = pdn.Game.from_board(self.board)
        game.headers["Event"] = event
        game.headers["White"] = self.white
        game.headers["Black"] = self.black
        game.headers["Result"] = self.result
        if self.minutes:
            game.headers["TimeControl"] = (f"{self.moves}/{self.minutes * 60}" if self.moves
                                           else str(self.minutes * 60))
        notes = [self.reason] if self.reason else []
        notes += [f"{who}: {text}" for who, text in self.chats]
        notes += self.back_requests
        if notes:
            end = game.end()
            comment = "; ".join(notes)
            end.comment = f"{end.comment}; {comment}" if end.comment else comment
        return pdn.write_game(game)


class _GameOver(Exception):
    """Ends the game loop (the game's fields are already set)."""


class _Clocks:
    """Both sides' seconds left under a GAMEREQ's time limit."""

    def __init__(self, minutes: int, moves: int) -> None:
        self.period = minutes * 60.0
        self.moves = moves
        self.left = {WHITE: self.period, BLACK: self.period}
        self.made = {WHITE: 0, BLACK: 0}

    @property
    def timed(self) -> bool:
        return self.period > 0

    def clock_for(self, side: Color) -> Clock | None:
        if not self.timed:
            return None
        to_go = self.moves - self.made[side] % self.moves if self.moves else None
        return Clock(max(0.0, self.left[WHITE]), max(0.0, self.left[BLACK]), 0.0, 0.0, to_go)

    def charge(self, side: Color, seconds: float) -> None:
        if not self.timed:
            return
        self.left[side] -= seconds
        self.made[side] += 1
        if self.moves and self.made[side] % self.moves == 0:
            self.left[side] += self.period


def _colour_name(colour: Color) -> str:
    return "White" if colour == WHITE else "Black"


class DxpSession:
    """This side of one DXP connection, playing with ``mover`` under the name ``name``.

    :meth:`request_game` asks for a game (this side the initiator) and plays it;
    :meth:`follow` answers the peer's requests (this side the follower) and plays each
    game. ``timeout``: the seconds a peer may stay silent beyond its clock (without a
    clock: at all) and may take to answer a GAMEREQ. ``accept_back``: take moves back
    when asked (BACKREQ), or answer "not supported". ``greeting``: a CHAT sent at the
    start of each game. ``on_event`` gets a line for each thing worth showing (a game
    starts, a chat, a move back, a game ends, a problem).
    """

    def __init__(self, connection: DxpConnection, mover: Mover, *, name: str = "damier",
                 timeout: float = DEFAULT_TIMEOUT, accept_back: bool = True,
                 greeting: str | None = None, max_plies: int = MAX_PLIES,
                 on_event: Callable[[str], None] | None = None) -> None:
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > NAME_WIDTH:
            raise ValueError(f"a DXP name is 1-{NAME_WIDTH} characters, got {name!r}")
        if not (isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
                and math.isfinite(timeout) and timeout > 0):
            raise ValueError(f"timeout must be a finite number of seconds > 0, got {timeout!r}")
        if greeting is not None:
            Chat(greeting)  # checked now: a bad greeting is the caller's error
        self.connection = connection
        self.mover = mover
        self.name = name.strip()
        self.timeout = float(timeout)
        self.accept_back = accept_back
        self.greeting = greeting
        self.max_plies = max_plies
        self.on_event = on_event
        self._pending_back: list[BackRequest] = []
        self._following = False
        self._new_request: GameRequest | None = None
        """A GAMEREQ that came during a game, answered once the game has ended."""
        self._lock = threading.Lock()

    # -- events ---------------------------------------------------------------------------

    def _event(self, text: str) -> None:
        log.info("%s: %s", self.connection.peer, text)
        if self.on_event is not None:
            self.on_event(text)

    def _receive(self, game: DxpGame, deadline: float) -> Message:
        """The next message of the game other than a CHAT, by ``deadline`` (monotonic
        time); the CHATs before it are recorded and shown. Raises as
        :meth:`DxpConnection.receive` does."""
        while True:
            message = self.connection.receive(max(0.0, deadline - time.monotonic()))
            if not isinstance(message, Chat):
                return message
            game.chats.append((game.peer, message.text))
            self._event(f"chat from {game.peer}: {message.text}")

    def ask_back(self, move_number: int, color: Color) -> None:
        """Sends a BACKREQ (take moves back to ``move_number`` with ``color`` to move) at
        this side's next turn in the game being played."""
        request = BackRequest(move_number, color)
        with self._lock:
            self._pending_back.append(request)

    # -- initiator --------------------------------------------------------------------------

    def request_game(self, color: Color, *, minutes: int = 0, moves: int = 0,
                     board: Board | None = None, last: bool = False) -> DxpGame:
        """Asks the peer for a game in which this side plays ``color`` (the start position,
        or ``board``'s position), ``minutes`` for ``moves`` moves each, and plays it.

        Raises :class:`DxpRefused` when the peer refuses, :class:`DxpTimeout` when it does
        not answer, :class:`DxpClosed` when the connection is gone; once the game has
        begun nothing is raised (see :class:`DxpGame`'s ``reason``). ``last``: this
        side's GAMEEND says that no other game follows.
        """
        start = board.copy(stack=False) if board is not None else Board(variant=DXP_VARIANT)
        position = None
        if board is not None:
            position = position_of(start)
            if position == position_of(Board(variant=DXP_VARIANT)):
                position = None
        request = GameRequest(self.name, not color, minutes, moves, position)
        self.connection.send(request)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self.connection.receive(max(0.0, deadline - time.monotonic()))
            if isinstance(message, Chat):
                self._event(f"chat from {self.connection.peer}: {message.text}")
                continue
            if isinstance(message, GameAccept):
                break
            raise DxpError(message.KIND, "message", format_message(message),
                           "a GAMEACC was expected after the GAMEREQ")
        if message.code != GameAccept.ACCEPTED:
            raise DxpRefused(message.name, message.code)
        game = DxpGame(start, color, self.name, message.name or "peer", minutes, moves,
                       stop=last)
        return self._play(game)

    # -- follower ---------------------------------------------------------------------------

    def follow(self, *, max_games: int | None = None,
               wait: float | None = None) -> Iterator[DxpGame]:
        """Answers the peer's GAMEREQs and plays each game accepted, yielding it when it
        ends; a GAMEREQ beyond ``max_games`` is answered "no more games". Ends when the
        connection closes, when a game ends with a stop code, or when no GAMEREQ comes
        within ``wait`` seconds (None: waits for ever)."""
        played = 0
        self._following = True
        while not self.connection.closed:
            message: Message
            try:
                if self._new_request is not None:
                    message, self._new_request = self._new_request, None
                else:
                    message = self.connection.receive(wait)
            except DxpTimeout:
                self._event(f"no game request from {self.connection.peer} in {wait:g} s")
                return
            except DxpClosed:
                return
            except DxpError as err:
                self._event(f"unreadable message from {self.connection.peer}: {err}")
                continue
            if isinstance(message, Chat):
                self._event(f"chat from {self.connection.peer}: {message.text}")
                continue
            if isinstance(message, GameEnd):
                continue  # a late confirmation of the last game
            if not isinstance(message, GameRequest):
                self._event(f"{message.KIND} from {self.connection.peer} outside a game: "
                            f"ignored ({format_message(message)!r})")
                continue
            if message.version != 1:
                self._refuse(message, GameAccept.WRONG_VERSION,
                             f"DXP version {message.version:02d}, this side speaks 01")
                continue
            if max_games is not None and played >= max_games:
                self._refuse(message, GameAccept.NO_GAMES, f"{max_games} games played")
                continue
            try:
                board = (Board(variant=DXP_VARIANT) if message.position is None else
                         board_from_position(*message.position))
            except DxpError as err:
                self._refuse(message, GameAccept.NOT_THIS_GAME, str(err))
                continue
            if board.is_game_over():
                self._refuse(message, GameAccept.NOT_THIS_GAME, "the position is already over")
                continue
            try:
                self.connection.send(GameAccept(self.name, GameAccept.ACCEPTED))
            except DxpClosed:
                return
            played += 1
            game = DxpGame(board, message.follower_color, self.name, message.name or "peer",
                           message.minutes, message.moves,
                           stop=max_games is not None and played >= max_games)
            game = self._play(game)
            yield game
            if game.stop:
                return

    def _refuse(self, request: GameRequest, code: int, why: str) -> None:
        self._event(f"refused the game of {request.name or self.connection.peer}: {why}")
        try:
            self.connection.send(GameAccept(self.name, code))
        except DxpClosed:
            pass

    # -- playing ----------------------------------------------------------------------------

    def _play(self, game: DxpGame) -> DxpGame:
        board = game.board
        clocks = _Clocks(game.minutes, game.moves)
        limit = (f"{game.minutes} min" + (f" for {game.moves} moves" if game.moves else "")
                 if game.minutes else "no time limit")
        self._event(f"game {game.white} - {game.black} ({limit}), {self.name} plays "
                    f"{_colour_name(game.color)}")
        with self._lock:
            self._pending_back.clear()
        try:
            if self.greeting:
                self.connection.send(Chat(self.greeting))
            while True:
                self._check_end(game, clocks)
                if board.turn == game.color:
                    self._our_turn(game, clocks)
                else:
                    self._their_turn(game, clocks)
        except _GameOver:
            pass
        except DxpClosed as err:
            game.finished, game.winner = False, None
            game.reason, game.stop = f"connection lost: {err}", True
        self._event(f"game over {game.result}: {game.reason}")
        return game

    def _check_end(self, game: DxpGame, clocks: _Clocks) -> None:
        """Ends the game when the position is over by the rules (or too long)."""
        board = game.board
        outcome = board.outcome()
        if outcome is None and len(board.move_stack) < self.max_plies:
            return
        if outcome is not None:
            winner, why = outcome.winner, outcome.termination.describe()
        else:
            winner, why = None, f"{self.max_plies} plies played"
        if board.turn != game.color:
            # The other side is to move: it should send the GAMEEND (FMJD rules, art. 6
            # for the draws; no legal move loses). Give it a moment, then send ours.
            deadline = time.monotonic() + END_GRACE
            while True:
                try:
                    message = self._receive(game, deadline)
                except DxpTimeout:
                    break
                except DxpError:
                    continue
                if isinstance(message, GameEnd):
                    self._their_end(game, message, board_view=(winner, why))
                self._protocol_error(game, message, "a GAMEEND was expected: the game is over")
        reason = GameEnd.DRAW if winner is None else (
            GameEnd.I_WIN if winner == game.color else GameEnd.I_LOSE)
        game.finished, game.winner, game.reason = True, winner, why
        self._send_end(game, reason)

    def _our_turn(self, game: DxpGame, clocks: _Clocks) -> None:
        board = game.board
        self._send_back_requests(game)
        if board.turn != game.color:
            return
        started = time.monotonic()
        try:
            move = self.mover(board.copy(), clocks.clock_for(game.color))
        except Exception as err:  # noqa: BLE001 - the engine's failure ends the game cleanly
            log.exception("the engine failed")
            self._unfinished(game, f"{self.name}'s engine failed: {err or type(err).__name__}",
                             stop=True)
        used = time.monotonic() - started
        if move is None:
            game.finished, game.winner = True, not game.color
            game.reason = f"{self.name} resigned"
            self._send_end(game, GameEnd.I_LOSE)
        if move not in board.legal_moves:
            self._unfinished(game, f"{self.name}'s engine played an illegal move {move!r}",
                             stop=True)
        self.connection.send(message_for_move(board, move, min(9999, round(used))))
        clocks.charge(game.color, used)
        board.push(move)

    def _their_turn(self, game: DxpGame, clocks: _Clocks) -> None:
        board = game.board
        side = not game.color
        if clocks.timed:
            wait = max(0.0, clocks.left[side]) + self.timeout
        else:
            wait = self.timeout
        started = time.monotonic()
        while True:
            try:
                message = self._receive(game, started + wait)
            except DxpTimeout:
                used = time.monotonic() - started
                if clocks.timed and clocks.left[side] - used < 0:
                    game.finished, game.winner = True, game.color
                    game.reason = (f"{game.peer} lost on time (no move in {used:.0f} s, "
                                   f"{max(0.0, clocks.left[side]):.0f} s were left)")
                    self._event(game.reason)
                    self._send_end(game, GameEnd.I_WIN, stop=True)
                self._unfinished(game, f"{game.peer} sent nothing for {used:.0f} s", stop=True)
            except DxpError as err:
                self._event(f"unreadable message from {game.peer}: {err}")
                self._unfinished(game, f"unreadable message from {game.peer}: {err}")
            if isinstance(message, BackRequest):
                self._answer_back(game, message)
                if board.turn == game.color:
                    return
                continue
            if isinstance(message, GameEnd):
                self._their_end(game, message)
            if not isinstance(message, MoveMessage):
                self._protocol_error(game, message, "a MOVE was expected")
            assert isinstance(message, MoveMessage)
            try:
                move = move_from_message(board, message)
            except DxpError as err:
                self._event(f"illegal move from {game.peer}: {err}")
                self._unfinished(game, f"{game.peer} sent an illegal move: {err}")
            clocks.charge(side, time.monotonic() - started)
            board.push(move)
            return

    def _their_end(self, game: DxpGame, message: GameEnd,
                   board_view: tuple[Color | None, str] | None = None) -> NoReturn:
        """The peer ended the game: record it and confirm with our GAMEEND."""
        reason = {GameEnd.I_LOSE: GameEnd.I_WIN, GameEnd.I_WIN: GameEnd.I_LOSE,
                  GameEnd.DRAW: GameEnd.DRAW}.get(message.reason, GameEnd.UNKNOWN)
        if board_view is not None:  # the position is over: the board says how
            game.finished, (game.winner, game.reason) = True, board_view
            reason = GameEnd.DRAW if game.winner is None else (
                GameEnd.I_WIN if game.winner == game.color else GameEnd.I_LOSE)
        elif message.reason == GameEnd.I_LOSE:
            game.finished, game.winner, game.reason = True, game.color, f"{game.peer} resigned"
        elif message.reason == GameEnd.I_WIN:
            game.finished, game.winner = True, not game.color
            game.reason = f"{game.peer} claimed the win"
        elif message.reason == GameEnd.DRAW:
            game.finished, game.winner = True, None
            game.reason = f"{game.peer} ended the game as a draw"
        else:
            game.reason = f"{game.peer} ended the game (reason unknown)"
        if message.stop == GameEnd.STOP:
            game.stop = True
        try:
            self.connection.send(GameEnd(reason, GameEnd.STOP if game.stop else GameEnd.CONTINUE))
        except DxpClosed:
            game.stop = True
        raise _GameOver

    def _send_end(self, game: DxpGame, reason: int, *, stop: bool = False) -> NoReturn:
        """Sends our GAMEEND and waits a moment for the peer's confirmation."""
        game.stop = game.stop or stop
        self.connection.send(GameEnd(reason, GameEnd.STOP if game.stop else GameEnd.CONTINUE))
        deadline = time.monotonic() + END_GRACE
        while True:
            try:
                message = self._receive(game, deadline)
            except DxpTimeout:
                self._event(f"{game.peer} did not confirm the end of the game")
                break
            except DxpError:
                continue
            except DxpClosed:
                game.stop = True
                break
            if isinstance(message, GameEnd):
                if message.stop == GameEnd.STOP:
                    game.stop = True
                break
            # anything else (a late move, a request) is dropped: the game is over
        raise _GameOver

    def _unfinished(self, game: DxpGame, why: str, *, stop: bool = False) -> NoReturn:
        """Ends the game unfinished (``*``) for ``why``."""
        game.finished, game.winner, game.reason = False, None, why
        self._send_end(game, GameEnd.UNKNOWN, stop=stop)

    def _protocol_error(self, game: DxpGame, message: Message, expected: str) -> NoReturn:
        if isinstance(message, GameRequest) and self._following:
            # The initiator may start a new game at any time (DXP layer 2): this one
            # ends unfinished and the request is answered next.
            self._new_request = message
            game.finished, game.winner = False, None
            game.reason = f"{game.peer} asked for a new game"
            raise _GameOver
        text = format_message(message)
        self._event(f"{message.KIND} out of turn from {game.peer} ({text!r}): {expected}")
        self._unfinished(game, f"{game.peer} sent {message.KIND} out of turn ({expected})")

    # -- moving back --------------------------------------------------------------------------

    def _target_ply(self, game: DxpGame, move_number: int, color: Color) -> int | None:
        """The number of plies kept by a BACKREQ to ``move_number`` with ``color`` to move
        (None: not a position of this game). Moves are numbered from 1 at the game's start."""
        first = game.board.root().turn
        ply = 2 * (move_number - 1) + (0 if color == WHITE else 1) - (0 if first == WHITE else 1)
        if ply < 0 or ply > len(game.board.move_stack):
            return None
        return ply

    def _answer_back(self, game: DxpGame, request: BackRequest) -> None:
        where = f"move {request.move_number} with {_colour_name(request.color)} to move"
        ply = self._target_ply(game, request.move_number, request.color)
        if not self.accept_back:
            code, answer = BackAccept.NOT_SUPPORTED, "not supported"
        elif ply is None:
            code, answer = BackAccept.DECLINED, "declined: not a position of this game"
        else:
            code, answer = BackAccept.ACCEPTED, "accepted"
        self.connection.send(BackAccept(code))
        if code == BackAccept.ACCEPTED:
            assert ply is not None
            while len(game.board.move_stack) > ply:
                game.board.pop()
        text = f"{game.peer} asked to go back to {where}: {answer}"
        game.back_requests.append(text)
        self._event(text)

    def _send_back_requests(self, game: DxpGame) -> None:
        with self._lock:
            pending, self._pending_back = self._pending_back, []
        for request in pending:
            where = f"move {request.move_number} with {_colour_name(request.color)} to move"
            ply = self._target_ply(game, request.move_number, request.color)
            self.connection.send(request)
            deadline = time.monotonic() + self.timeout
            while True:
                try:
                    message = self._receive(game, deadline)
                except DxpTimeout:
                    self._unfinished(game, f"{game.peer} did not answer a BACKREQ", stop=True)
                except DxpError as err:
                    self._unfinished(game, f"unreadable message from {game.peer}: {err}")
                if isinstance(message, GameEnd):
                    self._their_end(game, message)
                if not isinstance(message, BackAccept):
                    self._protocol_error(game, message, "a BACKACC was expected")
                break
            assert isinstance(message, BackAccept)
            if message.code == BackAccept.ACCEPTED and ply is not None:
                while len(game.board.move_stack) > ply:
                    game.board.pop()
                answer = "accepted"
            else:
                answer = {BackAccept.NOT_SUPPORTED: "not supported"}.get(message.code, "declined")
            text = f"{self.name} asked to go back to {where}: {answer}"
            game.back_requests.append(text)
            self._event(text)

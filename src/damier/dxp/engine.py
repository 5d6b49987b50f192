"""Another draughts program reached over DXP, on the engines' common API.

:class:`DxpEngine` connects to a DXP program (a server, the follower) and is the
initiator: the first :meth:`~DxpEngine.play` of a game sends a GAMEREQ with the
position to play from (set up when it is not the start position) and the peer's
colour, the side to move; later calls send the opponent's move and wait for the
peer's. A match or a bot plays it like :class:`damier.engine.Engine`:

>>> from damier import Board
>>> from damier.dxp import DxpEngine
>>> DxpEngine("127.0.0.1", 1, connect_timeout=0.5)
Traceback (most recent call last):
...
damier.dxp.DxpClosed: cannot connect to 127.0.0.1:1: Connection refused

DXP sends moves only: :meth:`~DxpEngine.analyse` and :meth:`~DxpEngine.analysis`
raise :class:`NotImplementedError`, and :meth:`~DxpEngine.stop` cannot hurry the
peer. The time limit of a GAMEREQ is whole minutes for the game and the number of
moves of the game, after which either side may end it (DamExchange protocol, GAMEREQ
message; ``000`` moves: no limit). A :class:`~damier.engine_types.Limit` is sent as:

- ``clock``: its time left (rounded up to a minute) for its moves to go (0: the game);
- ``time`` (seconds a move): ``ceil(time * 75 / 60)`` minutes for the game, a game
  reckoned at :data:`MOVES_PER_GAME` moves, and no limit on the moves (a limit would
  let the peer end an unfinished game when it is reached);
- ``depth`` or ``nodes`` alone: 1 minute for the game, no limit on the moves (DXP
  cannot say either).

>>> from damier.dxp.engine import _request_time
>>> from damier.engine_types import Limit
>>> _request_time(Limit(time=0.1), Board())
(1, 0)
>>> _request_time(Limit(time=2.0), Board())
(3, 0)
"""

from __future__ import annotations

import math
import time
from typing import overload

from damier._core import Move
from damier.board import Board
from damier.dxp.messages import (DXP_VARIANT, BackAccept, BackRequest, Chat, DxpError,
                                 GameAccept, GameEnd, GameRequest, Message, MoveMessage, Position,
                                 format_message,
                                 message_for_move, move_from_message, position_of)
from damier.dxp.connection import DEFAULT_PORT, DxpClosed, DxpConnection, DxpTimeout
from damier.dxp.session import DEFAULT_TIMEOUT, END_GRACE, DxpRefused
from damier.piece import WHITE
from damier.engine_types import AnalysisResult, EngineAPI, InfoDict, Limit, PlayResult

__all__ = ["DxpEngine", "MOVES_PER_GAME"]

MOVES_PER_GAME = 75
"""The moves (of one side) a game is reckoned to last when a per-move ``time`` limit is
sent as the time for the game."""


def _request_time(limit: Limit, board: Board) -> tuple[int, int]:
    """``(minutes, moves)`` of a GAMEREQ for ``limit`` (see the module's docstring)."""
    clock = limit.clock
    if clock is not None:
        left = clock.white_time if board.turn else clock.black_time
        return min(999, max(1, math.ceil(left / 60))), min(999, clock.moves_to_go or 0)
    if limit.time is not None:
        return min(999, max(1, math.ceil(limit.time * MOVES_PER_GAME / 60))), 0
    return 1, 0


class DxpEngine(EngineAPI):
    """The DXP program at ``host:port``; ``name`` is this side's name in the GAMEREQ.

    ``timeout``: the seconds the peer may take beyond the move's limit (its time left
    on a clock, the ``time`` limit otherwise) before :meth:`play` raises
    :class:`~damier.dxp.DxpTimeout`. Errors: :class:`~damier.dxp.DxpClosed` (no
    connection, or it is gone), :class:`~damier.dxp.DxpRefused` (the peer refused the
    game), :class:`~damier.dxp.DxpError` (an unreadable message, a message out of turn,
    an illegal move), and :class:`EOFError` when the peer ended the game with a GAMEEND
    instead of a move (its ``args[0]`` says how).
    """

    def __init__(self, host: str, port: int = DEFAULT_PORT, *, name: str = "damier",
                 timeout: float = DEFAULT_TIMEOUT, connect_timeout: float = 10.0) -> None:
        self.host = host
        self.port = port
        self.name = name
        self.timeout = timeout
        self.chats: list[str] = []
        """The CHAT texts the peer sent."""
        self.peer_name: str | None = None
        """The peer's name from its GAMEACC."""
        self._connection = DxpConnection.connect(host, port, timeout=connect_timeout)
        self._board: Board | None = None
        """The position the peer knows: the game's start with the moves sent and received."""
        self._root_fen = ""
        self._history: list[Move] = []
        self._peer_color = WHITE
        """The moves of the caller's board the peer knows of (from ``_root_fen``)."""

    def __repr__(self) -> str:
        return f"DxpEngine({self.host!r}, {self.port!r}, name={self.name!r})"

    # -- the game -----------------------------------------------------------------------------

    def play(self, board: Board, limit: Limit) -> PlayResult:
        """The peer's move in ``board``'s position (International draughts)."""
        if board.variant is not DXP_VARIANT:
            raise DxpError("GAMEREQ", "position", board.variant.title,
                           f"DXP plays {DXP_VARIANT.title} draughts only")
        missing = self._unsent(board)
        if missing is None:
            self._start(board, limit)
        else:
            for move in missing:
                assert self._board is not None
                self._connection.send(message_for_move(self._board, move, 0))
                self._board.push(move)
                self._history.append(move)
        move = self._receive_move(limit)
        self._history.append(move)
        return PlayResult(move)

    def _unsent(self, board: Board) -> list[Move] | None:
        """The move of ``board`` to send to the peer to reach its position (None: ``board``
        does not continue the game the peer knows, with the peer to move after one move
        of the opponent)."""
        if self._board is None or board.root().fen() != self._root_fen:
            return None
        known, moves = self._history, list(board.move_stack)
        if len(moves) != len(known) + 1 or moves[:len(known)] != known:
            return None
        return [moves[-1]]

    def _start(self, board: Board, limit: Limit) -> None:
        """Asks the peer for a game from ``board``'s position, the peer to move."""
        if self._board is not None:
            self._end_game(GameEnd.UNKNOWN)
        minutes, moves = _request_time(limit, board)
        start = board.copy(stack=False)
        position: Position | None = position_of(start)
        if position == position_of(Board(variant=DXP_VARIANT)):
            position = None
        self._connection.send(GameRequest(self.name, board.turn, minutes, moves, position))
        deadline = time.monotonic() + self.timeout
        message = self._receive(deadline)
        if not isinstance(message, GameAccept):
            raise DxpError(message.KIND, "message", format_message(message),
                           "a GAMEACC was expected after the GAMEREQ")
        self.peer_name = message.name
        if message.code != GameAccept.ACCEPTED:
            raise DxpRefused(message.name, message.code)
        self._board = start
        self._root_fen = board.root().fen()
        self._history = list(board.move_stack)
        self._peer_color = board.turn

    def _receive(self, deadline: float) -> Message:
        """The next message other than a CHAT, by ``deadline`` (monotonic time); the
        CHATs before it go to :attr:`chats`."""
        while True:
            message = self._connection.receive(max(0.0, deadline - time.monotonic()))
            if not isinstance(message, Chat):
                return message
            self.chats.append(message.text)

    def _receive_move(self, limit: Limit) -> Move:
        known = self._board
        assert known is not None
        wait = self.timeout
        if limit.clock is not None:
            wait += limit.clock.white_time if known.turn else limit.clock.black_time
        elif limit.time is not None:
            wait += limit.time
        deadline = time.monotonic() + wait
        while True:
            message = self._receive(deadline)
            if isinstance(message, BackRequest):
                self._connection.send(BackAccept(BackAccept.NOT_SUPPORTED))
                continue
            if isinstance(message, GameEnd):
                self._board = None
                self._connection.send(GameEnd(GameEnd.UNKNOWN, message.stop))
                how = {GameEnd.I_LOSE: "resigned", GameEnd.DRAW: "ended the game as a draw",
                       GameEnd.I_WIN: "claimed the win"}.get(message.reason,
                                                             "ended the game (reason unknown)")
                raise EOFError(f"{self.peer_name or 'the DXP peer'} {how}")
            if not isinstance(message, MoveMessage):
                raise DxpError(message.KIND, "message", format_message(message),
                               "a MOVE was expected")
            move = move_from_message(known, message)
            known.push(move)
            return move

    def _end_game(self, reason: int, stop: int = GameEnd.CONTINUE) -> None:
        """Ends the game the peer knows with a GAMEEND and waits a moment for its own."""
        self._board = None
        self._connection.send(GameEnd(reason, stop))
        deadline = time.monotonic() + END_GRACE
        while True:
            try:
                message = self._receive(deadline)
            except (DxpTimeout, DxpError):
                return
            if isinstance(message, GameEnd):
                return

    def end_game(self, board: Board) -> None:
        """Ends the game the peer plays at ``board``'s position, which is over: sends the
        last move when the peer has not seen it, gives the peer a moment to send its
        GAMEEND (it is to move), and answers it or sends this side's own."""
        if self._board is None or self._connection.closed:
            return
        missing = self._unsent(board)
        if missing:
            for move in missing:
                self._connection.send(message_for_move(self._board, move, 0))
                self._board.push(move)
                self._history.append(move)
        outcome = board.outcome()
        ours = not self._peer_color
        reason = GameEnd.UNKNOWN
        if outcome is not None:
            reason = GameEnd.DRAW if outcome.winner is None else (
                GameEnd.I_WIN if outcome.winner == ours else GameEnd.I_LOSE)
        if missing:
            try:
                message: Message | None = self._receive(time.monotonic() + END_GRACE)
            except (DxpTimeout, DxpError):
                message = None
            if isinstance(message, GameEnd):
                self._board = None
                self._connection.send(GameEnd(reason, GameEnd.CONTINUE))
                return
        self._end_game(reason)

    def new_game(self) -> None:
        """Ends the game being played (GAMEEND, reason unknown); the next :meth:`play`
        asks for a new one."""
        if self._board is not None and not self._connection.closed:
            try:
                self._end_game(GameEnd.UNKNOWN)
            except DxpClosed:
                pass
        self._board = None

    def stop(self) -> None:
        """Nothing: DXP has no message that hurries the peer."""

    def quit(self) -> None:
        """Ends the game being played, telling the peer no other follows, and closes the
        connection."""
        if self._board is not None and not self._connection.closed:
            try:
                self._end_game(GameEnd.UNKNOWN, GameEnd.STOP)
            except DxpClosed:
                pass
        self._board = None
        self._connection.close()

    # -- what DXP cannot do ----------------------------------------------------------------

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: None = None) -> InfoDict: ...

    @overload
    def analyse(self, board: Board, limit: Limit, multipv: int) -> list[InfoDict]: ...

    def analyse(self, board: Board, limit: Limit, multipv: int | None = None
                ) -> InfoDict | list[InfoDict]:
        """Not possible: a DXP peer sends moves, not scores or lines."""
        raise NotImplementedError("a DXP program sends moves only, not analysis")

    def analysis(self, board: Board, limit: Limit | None = None, multipv: int | None = None, *,
                 infinite: bool = False) -> AnalysisResult:
        """Not possible: a DXP peer sends moves, not scores or lines."""
        raise NotImplementedError("a DXP program sends moves only, not analysis")

"""``damier dxp``: play another draughts program over DXP (the DamExchange Protocol).

``--listen [HOST:]PORT`` serves connections one after another (several at once up to
``--max-connections``), ``--connect HOST:PORT`` connects to a program that listens.
Whoever connects, this side follows the other's game requests by default when it
listens and asks for games when it connects; ``--initiate`` and ``--follow`` choose.
The local engine is any ``damier match`` engine spec (``damier:level=5``, ``hub:scan
hub``): a Hub engine can so play over DXP too. Every game is appended to ``--pdn``;
chats, moves back and the end of each game are printed (``--verbose``: every message).
"""

from __future__ import annotations

import argparse
import math
import threading
import time
from typing import IO, Any

from damier.board import Board
from damier.dxp import (DEFAULT_PORT, DxpClosed, DxpConnection, DxpError, DxpGame, DxpListener,
                        DxpRefused, DxpSession, DxpTimeout, parse_address)
from damier.dxp.messages import DXP_VARIANT, NAME_WIDTH, Chat
from damier.dxp.session import DEFAULT_TIMEOUT
from damier.engine_types import Clock
from damier.match.players import (EngineSpec, EngineSpecError, EngineStartError, Player,
                                  make_player, parse_engine_spec)
from damier.piece import BLACK, WHITE

__all__ = ["add_dxp_parser", "dxp_command"]


def add_dxp_parser(sub: Any) -> None:
    """Adds the ``dxp`` subcommand to the ``damier`` command's subparsers."""
    p = sub.add_parser(
        "dxp", help="play another draughts program over DXP (DamExchange, TCP)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Play International draughts against another program over DXP.\n\n"
        "  damier dxp --listen 27531                 wait for programs; follow their requests\n"
        "  damier dxp --connect host:27531 --games 4 --time 5\n"
        "                                            ask for 4 games of 5 minutes each side\n"
        "  damier dxp --listen 27531 --engine 'hub:scan hub'\n"
        "                                            a Hub engine plays over DXP\n")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--listen", metavar="[HOST:]PORT",
                       help=f"wait for connections (the DXP port is {DEFAULT_PORT})")
    where.add_argument("--connect", metavar="HOST[:PORT]", help="connect to a DXP program")
    role = p.add_mutually_exclusive_group()
    role.add_argument("--initiate", action="store_true",
                      help="ask for the games (the default with --connect)")
    role.add_argument("--follow", action="store_true",
                      help="answer the other's game requests (the default with --listen)")
    p.add_argument("--engine", default="damier", metavar="SPEC",
                   help="the engine that plays: damier[:option=value,...] or hub:COMMAND "
                   "(as damier match takes them; default damier)")
    p.add_argument("--name", default="damier",
                   help=f"this side's name in the messages (at most {NAME_WIDTH} characters)")
    p.add_argument("--games", type=int, default=None,
                   help="asking: the games to ask for (default 2, colours alternating); "
                   "following: the games to accept on each connection (default no limit)")
    p.add_argument("--time", type=int, default=5, metavar="MINUTES",
                   help="asking: each side's thinking time in whole minutes (default 5; 0: "
                   "no limit)")
    p.add_argument("--moves", type=int, default=0,
                   help="asking: the moves for that time (default 0: the whole game)")
    p.add_argument("--color", choices=("white", "black"), default="white",
                   help="asking: this side's colour in the first game (default white)")
    p.add_argument("--fen", help="asking: the position to play from (International FEN)")
    p.add_argument("--movetime", type=float, default=None,
                   help="seconds for each of the engine's moves instead of the game's clock")
    p.add_argument("--pdn", metavar="FILE", help="append every game to this PDN file")
    p.add_argument("--chat", metavar="TEXT", help="a CHAT sent at the start of each game")
    p.add_argument("--no-back", action="store_true",
                   help="answer requests to take moves back with 'not supported'")
    p.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                   help=f"seconds the other side may be silent beyond its clock (default "
                   f"{DEFAULT_TIMEOUT:g})")
    p.add_argument("--max-connections", type=int, default=2,
                   help="--listen: connections served at once (default 2)")
    p.add_argument("--once", action="store_true", help="--listen: end after one connection")
    p.add_argument("--verbose", action="store_true", help="print every message sent and received")


class _UsageError(Exception):
    pass


def _check(args: argparse.Namespace) -> tuple[EngineSpec, Board | None]:
    try:
        spec = parse_engine_spec(args.engine)
    except EngineSpecError as exc:
        raise _UsageError(str(exc)) from None
    name = args.name.strip()
    try:
        Chat(name)
    except DxpError:
        raise _UsageError("--name must be printable ASCII") from None
    if not name or len(name) > NAME_WIDTH or not name.isascii() or not name.isprintable():
        raise _UsageError(f"--name must be 1-{NAME_WIDTH} printable ASCII characters")
    if args.games is not None and not 1 <= args.games <= 100000:
        raise _UsageError(f"--games must be from 1 to 100000, got {args.games}")
    if not 0 <= args.time <= 999:
        raise _UsageError(f"--time is whole minutes from 0 to 999, got {args.time}")
    if not 0 <= args.moves <= 999:
        raise _UsageError(f"--moves must be from 0 to 999, got {args.moves}")
    for option in ("movetime", "timeout"):
        value = getattr(args, option)
        if value is not None and not (math.isfinite(value) and value > 0):
            raise _UsageError(f"--{option} must be a number of seconds > 0, got {value:g}")
    if not 1 <= args.max_connections <= 64:
        raise _UsageError(f"--max-connections must be from 1 to 64, got {args.max_connections}")
    if args.chat is not None:
        try:
            Chat(args.chat)
        except DxpError as exc:
            raise _UsageError(f"--chat: {exc.problem}") from None
    board = None
    if args.fen is not None:
        try:
            board = Board(args.fen, variant=DXP_VARIANT)
        except ValueError as exc:
            raise _UsageError(f"--fen: {exc}") from None
        if board.is_game_over():
            raise _UsageError("--fen: the game is already over in that position")
    return spec, board


class _Front:
    """What the command shares between connections: the output, the PDN file, the engine."""

    def __init__(self, args: argparse.Namespace, spec: EngineSpec, board: Board | None,
                 out: IO[str]) -> None:
        self.args = args
        self.spec = spec
        self.board = board
        self.out = out
        self.lock = threading.Lock()
        self.games: list[DxpGame] = []

    def say(self, text: str) -> None:
        with self.lock:
            self.out.write(f"{time.strftime('%H:%M:%S')} {text}\n")
            self.out.flush()

    def message(self, peer: str, direction: str, text: str) -> None:
        if self.args.verbose:
            self.say(f"{peer} {direction} {text}")

    def start_player(self) -> Player:
        return make_player(self.spec)

    def session(self, connection: DxpConnection, player: Player) -> DxpSession:
        movetime = self.args.movetime

        def mover(board: Board, clock: Clock | None) -> Any:
            reply = player.play(board, movetime=movetime, clock=None if movetime else clock)
            if isinstance(reply, str):
                return board.parse_move(reply)
            return reply

        peer = connection.peer
        return DxpSession(connection, mover, name=self.args.name.strip(),
                          timeout=self.args.timeout, accept_back=not self.args.no_back,
                          greeting=self.args.chat,
                          on_event=lambda text: self.say(f"{peer} {text}"))

    def record(self, game: DxpGame) -> None:
        with self.lock:
            self.games.append(game)
            path = self.args.pdn
        if path:
            text = game.pdn()
            try:
                with self.lock, open(path, "a", encoding="utf-8") as f:
                    f.write(text + "\n")
            except OSError as exc:
                self.say(f"cannot write the game to {path}: {exc.strerror or exc}")

    def initiate(self, connection: DxpConnection) -> None:
        """Asks for the games of ``--games`` and plays them."""
        games = self.args.games or 2
        colour = WHITE if self.args.color == "white" else BLACK
        player = self.start_player()
        try:
            session = self.session(connection, player)
            for number in range(games):
                player.new_game()
                try:
                    game = session.request_game(colour, minutes=self.args.time,
                                                moves=self.args.moves, board=self.board,
                                                last=number == games - 1)
                except DxpRefused as exc:
                    self.say(f"{connection.peer} {exc}")
                    return
                except (DxpTimeout, DxpError) as exc:
                    self.say(f"{connection.peer} no answer to the game request: {exc}")
                    return
                self.record(game)
                if game.stop:
                    return
                colour = not colour
        except DxpClosed as exc:
            self.say(f"{connection.peer} {exc}")
        finally:
            player.close()

    def follow(self, connection: DxpConnection) -> None:
        """Answers the peer's game requests on ``connection``."""
        player = self.start_player()
        try:
            session = self.session(connection, player)
            for game in session.follow(max_games=self.args.games,
                                       wait=max(60.0, self.args.timeout)):
                self.record(game)
                player.new_game()
        finally:
            player.close()


def dxp_command(args: argparse.Namespace, out: IO[str], err: IO[str]) -> int:
    """Runs ``damier dxp``; returns the exit status (2: bad arguments, no connection)."""
    try:
        spec, board = _check(args)
        address = args.listen if args.listen is not None else args.connect
        host, port = parse_address(address, listen=args.listen is not None)
    except (_UsageError, ValueError) as exc:
        err.write(f"damier dxp: {exc}\n")
        return 2
    front = _Front(args, spec, board, out)
    try:
        front.start_player().close()  # a bad engine is told before anything else
    except (EngineStartError, EngineSpecError) as exc:
        err.write(f"damier dxp: {exc}\n")
        return 2
    initiate = args.initiate or (args.connect is not None and not args.follow)
    serve = front.initiate if initiate else front.follow
    if args.connect is not None:
        try:
            connection = DxpConnection.connect(
                host, port, on_message=lambda d, t: front.message(f"{host}:{port}", d, t))
        except DxpClosed as exc:
            err.write(f"damier dxp: {exc}\n")
            return 2
        front.say(f"connected to {host}:{port}")
        try:
            serve(connection)
        finally:
            connection.close()
    else:
        try:
            listener = DxpListener(serve, host, port, max_connections=args.max_connections,
                                   on_message=front.message, on_event=front.say)
        except DxpClosed as exc:
            err.write(f"damier dxp: {exc}\n")
            return 2
        front.say(f"listening on {host or '*'}:{listener.port} "
                  f"({'asking for' if initiate else 'following'} games)")
        try:
            listener.serve_forever(1 if args.once else None)
        finally:
            listener.close()
    finished = [g for g in front.games if g.finished]
    front.say(f"{len(front.games)} game{'s' * (len(front.games) != 1)} played, "
              f"{len(finished)} finished" + (f", written to {args.pdn}" if args.pdn else ""))
    return 0

"""The messages of the DamExchange Protocol (DXP), read and written exactly.

DXP lets two International draughts programs play each other over a connection.
Every message is 1 to 127 ASCII characters followed by a NUL byte; its first
character names its kind and the rest are fixed-width fields (numbers in ASCII
digits, zero-padded; colours ``W`` for White and ``Z`` for Black):

=========  ====  ==========================================================
kind       code  fields (widths)
=========  ====  ==========================================================
GAMEREQ    ``R`` version ``01`` (2), initiator's name (32, space-padded),
                 the follower's colour (1), thinking time in minutes for the
                 game (3), moves for that time (3, ``000``: no limit), then
                 ``A`` (the start position) or ``B``, the side to move (1)
                 and 50 characters, one per square 1-50: ``e`` empty,
                 ``w``/``z`` a white/black man, ``W``/``Z`` a white/black king
GAMEACC    ``A`` the follower's name (32), code (1): ``0`` accepted, ``1``
                 wrong version, ``2`` not this game, ``3`` no games
MOVE       ``M`` time used in seconds (4), from square (2), to square (2),
                 number of pieces captured (2), then 2 per captured square
GAMEEND    ``E`` reason (1): ``0`` unknown, ``1`` I lose, ``2`` draw, ``3`` I
                 win; stop code (1): ``0`` another game is fine, ``1`` stop
CHAT       ``C`` free text (the rest of the message)
BACKREQ    ``B`` move number (3), the colour to move then (1)
BACKACC    ``K`` code (1): ``0`` accepted, ``1`` not supported, ``2`` declined
=========  ====  ==========================================================

Each kind is a frozen dataclass; :func:`parse_message` reads a message's text,
:func:`format_message` writes it, :func:`encode` gives its bytes with the NUL and
:func:`split_frames` cuts a byte stream into complete messages (and the rest, a
message not yet complete).

>>> from damier.dxp import GameEnd, encode, format_message, parse_message, split_frames
>>> parse_message("M00123228011")
Traceback (most recent call last):
...
damier.dxp.DxpError: MOVE captured squares '1': the count 01 needs 2 digits here, not 1
>>> msg = parse_message("M001232280127")
>>> msg
MoveMessage(seconds=12, from_square=32, to_square=28, captures=(27,))
>>> format_message(msg)
'M001232280127'
>>> encode(GameEnd(reason=GameEnd.DRAW, stop=GameEnd.CONTINUE))
b'E20\\x00'
>>> split_frames(b"C hello\\x00E20\\x00M00")
(['C hello', 'E20'], b'M00')

Names are written padded with spaces to 32 characters and read with the padding
stripped; a name longer than 32 characters, or one that ends with a space (the
padding would swallow it), is refused rather than cut. Bad input, whether read or
written, raises :class:`DxpError` (a :class:`ValueError`) naming the kind of the
message, the field and the text that is wrong; nothing else escapes for any text
or bytes given.

The position of a GAMEREQ converts to and from a :class:`damier.Board` of
International draughts (:func:`board_from_position`, :func:`position_of`), and a
MOVE to and from a legal :class:`damier.Move` of a board (:func:`move_from_message`
picks the legal move with the message's from and to squares and captured pieces,
:func:`message_for_move`).

>>> from damier import Board
>>> board = Board("W:WK47:B14,19,29,31,42")
>>> move = move_from_message(board, parse_message("M000547360442291431"))
>>> board.notation(move)
'47x38x20x9x36'
>>> format_message(message_for_move(board, move, 5))
'M000547360442291431'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, NamedTuple, Union

from damier._core import Move
from damier.board import Board
from damier.errors import InvalidFenError
from damier.piece import BLACK, WHITE, Color, Piece
from damier.variants import get_variant

__all__ = ["DxpError", "GameRequest", "GameAccept", "MoveMessage", "GameEnd", "Chat",
           "BackRequest", "BackAccept", "Message", "Position", "MAX_MESSAGE", "NAME_WIDTH",
           "parse_message", "format_message", "encode", "frame", "split_frames",
           "board_from_position", "position_of", "move_from_message", "message_for_move"]

MAX_MESSAGE = 127
"""The most characters of a message (its NUL not counted)."""
NAME_WIDTH = 32
"""The width of a name field (GAMEREQ, GAMEACC)."""
SQUARES = 50
"""DXP plays on the 50 squares of International draughts."""
DXP_VARIANT = get_variant("international")
"""The variant of every DXP game."""

_SHOWN = 40
_DIGITS = frozenset("0123456789")
_COLOURS = {"W": WHITE, "Z": BLACK}
_PIECES = {"e": None, "w": Piece(WHITE), "z": Piece(BLACK), "W": Piece(WHITE, True),
           "Z": Piece(BLACK, True)}
_SYMBOLS = {piece: symbol for symbol, piece in _PIECES.items()}


class DxpError(ValueError):
    """A DXP message (or a field of one) that is not what the protocol allows.

    ``kind`` is the message's kind (``"MOVE"``, ..., or ``"message"`` when the
    kind is not known), ``field`` the field, ``text`` the offending text (cut to
    40 characters in the message) and ``problem`` what is wrong with it.
    """

    def __init__(self, kind: str, field: str, text: str, problem: str) -> None:
        shown = text if len(text) <= _SHOWN else f"{text[:_SHOWN]}... ({len(text)} characters)"
        super().__init__(f"{kind} {field} {shown!r}: {problem}")
        self.kind = kind
        self.field = field
        self.text = text
        self.problem = problem


# -- field checks ---------------------------------------------------------------------------

def _shown(value: object) -> str:
    """``value`` as the text an error quotes (a non-str value by its repr)."""
    return value if isinstance(value, str) else repr(value)


def _check_number(kind: str, field: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DxpError(kind, field, _shown(value), f"not an int ({type(value).__name__})")
    if not low <= value <= high:
        raise DxpError(kind, field, str(value), f"out of range {low}-{high}")


def _check_colour(kind: str, field: str, value: object) -> None:
    if not isinstance(value, bool):
        raise DxpError(kind, field, _shown(value), "not a colour (damier.WHITE or damier.BLACK)")


def _check_text(kind: str, field: str, value: object, most: int, *,
                printable: bool = False) -> None:
    if not isinstance(value, str):
        raise DxpError(kind, field, _shown(value), f"not a str ({type(value).__name__})")
    if len(value) > most:
        raise DxpError(kind, field, value, f"longer than {most} characters ({len(value)})")
    low = " " if printable else "\x01"
    bad = next((c for c in value if not low <= c <= "\x7f" or (printable and c == "\x7f")), None)
    if bad is not None:
        allowed = "printable ASCII" if printable else "ASCII characters other than NUL"
        raise DxpError(kind, field, value, f"holds {bad!r}: only {allowed} may be sent")


def _check_name(kind: str, value: object) -> None:
    _check_text(kind, "name", value, NAME_WIDTH, printable=True)
    assert isinstance(value, str)
    if value.endswith(" "):
        raise DxpError(kind, "name", value, "ends with a space, which the padding would swallow")


def _colour_char(colour: Color) -> str:
    return "W" if colour else "Z"


# -- the messages ---------------------------------------------------------------------------

class Position(NamedTuple):
    """The position of a GAMEREQ: the side to move and one character per square 1-50
    (``e``, ``w``, ``z``, ``W``, ``Z``)."""

    side: Color
    squares: str


@dataclass(frozen=True)
class GameRequest:
    """GAMEREQ (``R``): the initiator asks for a game.

    ``follower_color`` is the colour the receiving program plays; ``minutes`` the
    thinking time of each side for ``moves`` moves (0: the whole game);
    ``position`` None for the start position.
    """

    KIND: ClassVar[str] = "GAMEREQ"
    name: str
    follower_color: Color
    minutes: int
    moves: int = 0
    position: Position | None = None
    version: int = 1

    def __post_init__(self) -> None:
        _check_number(self.KIND, "version", self.version, 0, 99)
        _check_name(self.KIND, self.name)
        _check_colour(self.KIND, "follower colour", self.follower_color)
        _check_number(self.KIND, "thinking time", self.minutes, 0, 999)
        _check_number(self.KIND, "number of moves", self.moves, 0, 999)
        if self.position is not None:
            if not isinstance(self.position, tuple) or len(self.position) != 2:
                raise DxpError(self.KIND, "position", _shown(self.position),
                               "not a Position (side, squares)")
            if not isinstance(self.position, Position):
                object.__setattr__(self, "position", Position(*self.position))
            side, squares = self.position
            _check_colour(self.KIND, "side to move", side)
            _check_squares(self.KIND, squares)


def _check_squares(kind: str, squares: object) -> None:
    if not isinstance(squares, str):
        raise DxpError(kind, "squares", _shown(squares), f"not a str ({type(squares).__name__})")
    if len(squares) != SQUARES:
        raise DxpError(kind, "squares", squares,
                       f"{len(squares)} characters, not one for each of the {SQUARES} squares")
    for square, char in enumerate(squares, 1):
        if char not in _PIECES:
            raise DxpError(kind, "squares", squares,
                           f"square {square} holds {char!r}, not one of e, w, z, W, Z")


@dataclass(frozen=True)
class GameAccept:
    """GAMEACC (``A``): the follower's answer to a GAMEREQ."""

    KIND: ClassVar[str] = "GAMEACC"
    ACCEPTED: ClassVar[int] = 0
    WRONG_VERSION: ClassVar[int] = 1
    NOT_THIS_GAME: ClassVar[int] = 2
    NO_GAMES: ClassVar[int] = 3
    name: str
    code: int = 0

    def __post_init__(self) -> None:
        _check_name(self.KIND, self.name)
        _check_number(self.KIND, "code", self.code, 0, 3)


_MAX_CAPTURES = (MAX_MESSAGE - 11) // 2


@dataclass(frozen=True)
class MoveMessage:
    """MOVE (``M``): a move, the seconds its side used for it and the captured squares
    (in any order)."""

    KIND: ClassVar[str] = "MOVE"
    seconds: int
    from_square: int
    to_square: int
    captures: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        _check_number(self.KIND, "time", self.seconds, 0, 9999)
        _check_number(self.KIND, "from square", self.from_square, 1, SQUARES)
        _check_number(self.KIND, "to square", self.to_square, 1, SQUARES)
        if not isinstance(self.captures, tuple):
            raise DxpError(self.KIND, "captured squares", _shown(self.captures),
                           f"not a tuple ({type(self.captures).__name__})")
        if len(self.captures) > _MAX_CAPTURES:
            raise DxpError(self.KIND, "captured squares", _shown(self.captures),
                           f"{len(self.captures)} squares: a message holds at most "
                           f"{_MAX_CAPTURES}")
        for square in self.captures:
            _check_number(self.KIND, "captured square", square, 1, SQUARES)
        if len(set(self.captures)) != len(self.captures):
            raise DxpError(self.KIND, "captured squares", _shown(self.captures),
                           "a square is captured twice")


@dataclass(frozen=True)
class GameEnd:
    """GAMEEND (``E``): the sender ends the game (``reason``, from its side) and says
    whether it will play another (``stop``)."""

    KIND: ClassVar[str] = "GAMEEND"
    UNKNOWN: ClassVar[int] = 0
    I_LOSE: ClassVar[int] = 1
    DRAW: ClassVar[int] = 2
    I_WIN: ClassVar[int] = 3
    CONTINUE: ClassVar[int] = 0
    STOP: ClassVar[int] = 1
    reason: int = 0
    stop: int = 0

    def __post_init__(self) -> None:
        _check_number(self.KIND, "reason", self.reason, 0, 3)
        _check_number(self.KIND, "stop code", self.stop, 0, 1)


@dataclass(frozen=True)
class Chat:
    """CHAT (``C``): free text."""

    KIND: ClassVar[str] = "CHAT"
    text: str = ""

    def __post_init__(self) -> None:
        _check_text(self.KIND, "text", self.text, MAX_MESSAGE - 1)


@dataclass(frozen=True)
class BackRequest:
    """BACKREQ (``B``): take moves back to move ``move_number`` with ``color`` to move."""

    KIND: ClassVar[str] = "BACKREQ"
    move_number: int
    color: Color

    def __post_init__(self) -> None:
        _check_number(self.KIND, "move number", self.move_number, 0, 999)
        _check_colour(self.KIND, "colour", self.color)


@dataclass(frozen=True)
class BackAccept:
    """BACKACC (``K``): the answer to a BACKREQ."""

    KIND: ClassVar[str] = "BACKACC"
    ACCEPTED: ClassVar[int] = 0
    NOT_SUPPORTED: ClassVar[int] = 1
    DECLINED: ClassVar[int] = 2
    code: int = 0

    def __post_init__(self) -> None:
        _check_number(self.KIND, "code", self.code, 0, 2)


Message = Union[GameRequest, GameAccept, MoveMessage, GameEnd, Chat, BackRequest, BackAccept]
"""Any DXP message."""

_KINDS = {"R": "GAMEREQ", "A": "GAMEACC", "M": "MOVE", "E": "GAMEEND", "C": "CHAT",
          "B": "BACKREQ", "K": "BACKACC"}


# -- reading ----------------------------------------------------------------------------------

class _Fields:
    """Reads the fixed-width fields of one message, left to right."""

    def __init__(self, kind: str, text: str) -> None:
        self.kind = kind
        self.text = text
        self.at = 1

    def take(self, field: str, width: int) -> str:
        part = self.text[self.at:self.at + width]
        if len(part) < width:
            raise DxpError(self.kind, field, part,
                           f"cut short: {width} expected, {len(part)} left "
                           f"(the message is {len(self.text)} characters)")
        self.at += width
        return part

    def number(self, field: str, width: int) -> int:
        part = self.take(field, width)
        if not set(part) <= _DIGITS:
            raise DxpError(self.kind, field, part, f"not {width} ASCII digit{'s' * (width > 1)}")
        return int(part)

    def colour(self, field: str) -> Color:
        part = self.take(field, 1)
        if part not in _COLOURS:
            raise DxpError(self.kind, field, part, "not a colour (W or Z)")
        return _COLOURS[part]

    def name(self) -> str:
        return self.take("name", NAME_WIDTH).rstrip(" ")

    def end(self) -> None:
        if self.at < len(self.text):
            rest = self.text[self.at:]
            raise DxpError(self.kind, "end", rest,
                           f"{len(rest)} characters after the last field")


def _check_message_text(text: str) -> None:
    """Refuses text that cannot be one message: empty, too long, NUL or not ASCII."""
    if not text:
        raise DxpError("message", "text", text, "empty (a message has 1-127 characters)")
    if len(text) > MAX_MESSAGE:
        raise DxpError("message", "text", text,
                       f"{len(text)} characters: a message has at most {MAX_MESSAGE}")
    for index, char in enumerate(text):
        if char == "\0" or char > "\x7f":
            raise DxpError("message", "text", text,
                           f"character {index + 1} is {char!r}: only ASCII other than NUL "
                           f"may be in a message")


def parse_message(text: str) -> Message:
    """The message written as ``text`` (without its NUL).

    >>> parse_message("E31")
    GameEnd(reason=3, stop=1)
    >>> parse_message("R01" + "Alice".ljust(32) + "Z090050A")
    GameRequest(name='Alice', follower_color=False, minutes=90, moves=50, position=None, version=1)
    >>> parse_message("X")
    Traceback (most recent call last):
    ...
    damier.dxp.DxpError: message kind 'X': not a DXP message kind (R, A, M, E, C, B or K)
    """
    if not isinstance(text, str):
        raise TypeError(f"a DXP message is a str, not {type(text).__name__}")
    _check_message_text(text)
    code = text[0]
    if code not in _KINDS:
        raise DxpError("message", "kind", code, "not a DXP message kind (R, A, M, E, C, B or K)")
    kind = _KINDS[code]
    fields = _Fields(kind, text)
    message: Message
    if code == "C":
        return Chat(text[1:])
    if code == "R":
        version = fields.number("version", 2)
        name = fields.name()
        follower = fields.colour("follower colour")
        minutes = fields.number("thinking time", 3)
        moves = fields.number("number of moves", 3)
        start = fields.take("position", 1)
        position: Position | None = None
        if start == "B":
            side = fields.colour("side to move")
            squares = fields.take("squares", SQUARES)
            _check_squares(kind, squares)
            position = Position(side, squares)
        elif start != "A":
            raise DxpError(kind, "position", start,
                           "not A (the start position) or B (a position follows)")
        fields.end()
        message = GameRequest(name, follower, minutes, moves, position, version)
    elif code == "A":
        name = fields.name()
        message = GameAccept(name, fields.number("code", 1))
    elif code == "M":
        seconds = fields.number("time", 4)
        from_square = fields.number("from square", 2)
        to_square = fields.number("to square", 2)
        count = fields.number("number captured", 2)
        rest = text[fields.at:]
        if len(rest) != 2 * count:
            raise DxpError(kind, "captured squares", rest,
                           f"the count {count:02d} needs {2 * count} digits here, not {len(rest)}")
        captures = tuple(fields.number("captured square", 2) for _ in range(count))
        message = MoveMessage(seconds, from_square, to_square, captures)
    elif code == "E":
        reason = fields.number("reason", 1)
        message = GameEnd(reason, fields.number("stop code", 1))
    elif code == "B":
        number = fields.number("move number", 3)
        message = BackRequest(number, fields.colour("colour"))
    else:
        message = BackAccept(fields.number("code", 1))
    fields.end()
    return message


# -- writing ----------------------------------------------------------------------------------

def format_message(message: Message) -> str:
    """The text of ``message`` (without its NUL); :func:`parse_message` reads it back.

    >>> format_message(GameAccept("damier", GameAccept.ACCEPTED))
    'Adamier                          0'
    >>> format_message(BackRequest(12, WHITE))
    'B012W'
    """
    if isinstance(message, GameRequest):
        text = (f"R{message.version:02d}{message.name:<{NAME_WIDTH}}"
                f"{_colour_char(message.follower_color)}{message.minutes:03d}{message.moves:03d}")
        if message.position is None:
            return text + "A"
        return f"{text}B{_colour_char(message.position.side)}{message.position.squares}"
    if isinstance(message, GameAccept):
        return f"A{message.name:<{NAME_WIDTH}}{message.code}"
    if isinstance(message, MoveMessage):
        return (f"M{message.seconds:04d}{message.from_square:02d}{message.to_square:02d}"
                f"{len(message.captures):02d}" + "".join(f"{s:02d}" for s in message.captures))
    if isinstance(message, GameEnd):
        return f"E{message.reason}{message.stop}"
    if isinstance(message, Chat):
        return f"C{message.text}"
    if isinstance(message, BackRequest):
        return f"B{message.move_number:03d}{_colour_char(message.color)}"
    if isinstance(message, BackAccept):
        return f"K{message.code}"
    raise TypeError(f"not a DXP message: {type(message).__name__}")


def frame(text: str) -> bytes:
    """The bytes that send the message ``text``: its ASCII and a NUL.

    >>> frame("K0")
    b'K0\\x00'
    """
    if not isinstance(text, str):
        raise TypeError(f"a DXP message is a str, not {type(text).__name__}")
    _check_message_text(text)
    return text.encode("ascii") + b"\0"


def encode(message: Message) -> bytes:
    """The bytes that send ``message`` (:func:`format_message` and its NUL)."""
    return frame(format_message(message))


def split_frames(buffer: bytes) -> tuple[list[str], bytes]:
    """The complete messages at the start of ``buffer`` (their text, NULs removed) and the
    rest, the start of a message still to come.

    A message that is empty, longer than 127 characters or holds a byte that is not
    ASCII raises :class:`DxpError`, as does a rest of more than 127 bytes (a message
    that cannot end well), so a reader never holds more than that.

    >>> split_frames(b"E20\\x00C hi\\x00K")
    (['E20', 'C hi'], b'K')
    >>> split_frames(b"C caf\\xc3\\xa9\\x00")
    Traceback (most recent call last):
    ...
    damier.dxp.DxpError: message bytes 'C caf\\\\xc3\\\\xa9': byte 6 is 0xc3, not ASCII
    """
    if not isinstance(buffer, (bytes, bytearray, memoryview)):
        raise TypeError(f"a DXP stream is bytes, not {type(buffer).__name__}")
    data = bytes(buffer)
    *complete, rest = data.split(b"\0")
    if len(rest) > MAX_MESSAGE:
        raise DxpError("message", "bytes", _bytes_text(rest),
                       f"{len(rest)} bytes without a NUL: a message has at most {MAX_MESSAGE}")
    texts = []
    for raw in complete:
        bad = next((i for i, byte in enumerate(raw) if byte > 0x7f), None)
        if bad is not None:
            raise DxpError("message", "bytes", _bytes_text(raw),
                           f"byte {bad + 1} is {raw[bad]:#04x}, not ASCII")
        text = raw.decode("ascii")
        _check_message_text(text)
        texts.append(text)
    return texts, rest


def _bytes_text(raw: bytes) -> str:
    """``raw`` as text for an error: ASCII as is, other bytes as ``\\xNN``."""
    return raw.decode("ascii", "backslashreplace")


# -- positions and moves --------------------------------------------------------------------

def _check_board(board: Board) -> None:
    if not isinstance(board, Board):
        raise TypeError(f"a damier.Board is needed, not {type(board).__name__}")
    if board.variant is not DXP_VARIANT:
        raise DxpError("GAMEREQ", "position", board.variant.title,
                       f"DXP plays {DXP_VARIANT.title} draughts only")


def board_from_position(side: Color, squares: str) -> Board:
    """The International board of a GAMEREQ's position: ``side`` to move, ``squares`` one
    character per square 1-50 (``e``, ``w``, ``z``, ``W``, ``Z``).

    >>> board_from_position(BLACK, "W" + "e" * 48 + "Z").fen()
    'B:WK1:BK50'
    """
    _check_colour("GAMEREQ", "side to move", side)
    _check_squares("GAMEREQ", squares)
    pieces = {square: piece for square, char in enumerate(squares, 1)
              if (piece := _PIECES[char]) is not None}
    board = Board(variant=DXP_VARIANT)
    try:
        board.set_piece_map(pieces, side)
    except InvalidFenError as error:
        raise DxpError("GAMEREQ", "squares", squares, str(error)) from None
    return board


def position_of(board: Board) -> Position:
    """The GAMEREQ position of ``board`` (International only).

    >>> position_of(Board("B:WK1:BK50"))
    Position(side=False, squares='WeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeZ')
    """
    _check_board(board)
    pieces = board.piece_map()
    return Position(board.turn, "".join(_SYMBOLS[pieces.get(square)]
                                        for square in range(1, SQUARES + 1)))


def _legal_matches(board: Board, from_square: int, to_square: int,
                   captures: frozenset[int]) -> list[Move]:
    return [move for move in board.legal_moves
            if move.from_square == from_square and move.to_square == to_square
            and move.capture_set == captures]


def _move_text(msg: MoveMessage) -> str:
    text = f"{msg.from_square}{'x' if msg.captures else '-'}{msg.to_square}"
    if msg.captures:
        text += " capturing " + ", ".join(str(s) for s in sorted(msg.captures))
    return text


def move_from_message(board: Board, msg: MoveMessage) -> Move:
    """The legal move of ``board`` that ``msg`` sends: the one with its from and to squares
    that captures exactly its captured squares (in any order).

    >>> move_from_message(Board(), MoveMessage(3, 32, 28))
    Move(32, 28)
    >>> move_from_message(Board(), MoveMessage(3, 32, 29))
    Traceback (most recent call last):
    ...
    damier.dxp.DxpError: MOVE move '32-29': not a legal move of W:W31-50:B1-20
    """
    _check_board(board)
    if not isinstance(msg, MoveMessage):
        raise TypeError(f"a MoveMessage is needed, not {type(msg).__name__}")
    found = _legal_matches(board, msg.from_square, msg.to_square, frozenset(msg.captures))
    if not found:
        raise DxpError("MOVE", "move", _move_text(msg),
                       f"not a legal move of {_short_fen(board)}")
    if len(found) > 1:
        raise DxpError("MOVE", "move", _move_text(msg),
                       f"ambiguous: {len(found)} legal moves of {_short_fen(board)} match "
                       f"({', '.join(board.notation(m) for m in found)})")
    return found[0]


def message_for_move(board: Board, move: Move, seconds: int) -> MoveMessage:
    """The MOVE message of ``move``, a legal move of ``board``, made in ``seconds``.

    >>> message_for_move(Board(), Move(32, 28), 7)
    MoveMessage(seconds=7, from_square=32, to_square=28, captures=())
    """
    _check_board(board)
    if not isinstance(move, Move):
        raise TypeError(f"a damier.Move is needed, not {type(move).__name__}")
    msg = MoveMessage(seconds, move.from_square, move.to_square, tuple(move.captures))
    if not _legal_matches(board, move.from_square, move.to_square, move.capture_set):
        raise DxpError("MOVE", "move", _move_text(msg), f"not a legal move of {_short_fen(board)}")
    return msg


def _short_fen(board: Board) -> str:
    fen = board.fen(compact=True)
    return fen if len(fen) <= 60 else fen[:57] + "..."


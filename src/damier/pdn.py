"""PDN: draughts games as trees, read from and written to Portable Draughts Notation.

The API follows python-chess's ``chess.pgn``: a :class:`Game` is the root
:class:`GameNode` of a tree of moves; each node's ``variations`` are its
continuations, the first one being the main line.

>>> from damier.pdn import read_game, write_game
>>> game = read_game('''
... [Event "Example"]
... [White "A"] [Black "B"] [Result "2-0"]
... 1. 32-28 19-23 2. 28x19 {forced} 14x23 (2... 13x24 $2) 3. 33-28 2-0
... ''')
>>> game.headers["Event"], game.variant.name
('Example', 'international')
>>> [node.notation() for node in game.mainline()][:3]
['32-28', '19-23', '28x19']
>>> node = game.next().next().next()
>>> node.comment, node.variations[1].nags
('forced', {2})
>>> print(write_game(game), end="")
[Event "Example"]
[Site "?"]
[Date "????.??.??"]
[Round "?"]
[White "A"]
[Black "B"]
[Result "2-0"]
[GameType "20"]
<BLANKLINE>
1. 32-28 19-23 2. 28x19 {forced} 2... 14x23 (2... 13x24 $2) 3. 33-28 2-0

Reading
-------
:func:`read_games` and :func:`read_game` read a ``str`` (or ``bytes``) of PDN
text, a text or binary stream (an open file), or the file named by a path
object (:class:`pathlib.Path` or any other :class:`os.PathLike`). A ``str`` is
*always* PDN text, never a file name, even when it names an existing file:
to read a file, pass ``pathlib.Path(name)`` or an open file. (So text from an
untrusted source, such as a web client, can never make the reader open a
file.) They understand tag pairs (``[Event "..."]``, with
``\\"`` and ``\\\\`` escapes), ``{comments}`` over several lines, ``;`` comments
to the end of the line, lines starting with ``%`` (skipped), NAGs ``$n``, the
move marks ``!`` ``?`` ``!!`` ``??`` ``!?`` ``?!`` (kept as NAGs 1 to 6, like
python-chess), move numbers (``1.``, ``1...``, also glued to the move:
``1.32-28``), nested variations ``( ... )``, a ``[FEN "..."]`` set-up (with or
without ``[SetUp "1"]``), and moves in short form, as a full or partial capture
path, in Hub style, with ``-``, ``x`` or ``:`` separators, or (8x8 boards) in
algebraic form (``c3-d4``).

The variant is the ``variant=`` argument if given, else the ``GameType`` tag
(its first number: ``"20,W,10,10,N2,0"`` is International), else International.
GameTypes 20 (International), 21 (English), 22 (Italian), 25 (Russian), 26 (Brazilian),
96 (breakthrough) and 98 (antidraughts) are supported.

Result tokens: ``2-0``, ``0-2``, ``1-1``, ``0-0`` (International style), ``1-0``,
``0-1``, ``1/2-1/2``, ``½-½`` and ``*`` are accepted in every variant; a result
token at the top level ends the game. ``2-1`` and ``1-2`` are *not* result
tokens (no GameType defines them): they read as moves, and being illegal
they are reported as such.

NAGs are ``$0`` to ``$255`` (as in PGN); a larger one is a malformed token, like
``$x`` or an unknown move mark such as ``!!!``, and makes the game bad (below).
An empty ``Result`` tag (``[Result ""]``) means an unknown result: it reads as
``"*"`` (or as the result token of the movetext) and is written as ``"*"``.

A bad game raises :class:`damier.errors.PdnError` whose message names the game
number, the line and the offending token, e.g. ``game 2, line 14: illegal move
"32-27": legal moves are ...``; the exception's ``game``, ``line`` and ``token``
attributes hold the same. Messages quote at most the first 60 characters of a
token, tag or value, followed by ``...`` and its length (and the ``token``
attribute is cut the same way), so a huge line is never echoed back. With
``skip_errors=True`` bad games are skipped and their errors are collected in
the ``errors`` list (or the reader's ``errors`` attribute). Problems that do not stop
a game from being read (a result token that contradicts the ``Result`` tag, a repeated
tag, an empty variation) are recorded in :attr:`Game.errors`.

Reading takes time and memory in proportion to the size of the input (long
comments, many comments, huge tags or tokens, and many bad games included).
Numbers (squares, move numbers, NAGs, the ``GameType``) are written in ASCII
digits, and a move is at most :data:`~damier.notation.MAX_MOVE_TEXT` (200)
characters: a longer token is a bad move, refused by its length.

Writing
-------
:func:`write_game` (and ``str(game)``) writes the seven standard tags (Event,
Site, Date, Round, White, Black, Result; ``"?"``, ``"????.??.??"`` and ``"*"``
when missing), then ``GameType`` (always), then ``FEN`` (when the game does not
start from the variant's standard position), then the other tags; then the
movetext: move numbers (``12... 19x28`` after an interruption), comments,
NAGs as ``$n``, variations in parentheses, lines wrapped at ``columns``, and the
result token. Results are written in the variant's customary form:
International, Brazilian and Russian ``2-0``, ``0-2``, ``1-1``; English ``1-0``,
``0-1``, ``1/2-1/2`` (``0-0`` and ``*`` everywhere); the ``Result`` tag is
converted the same way (an empty one is written ``"*"``). Comments lose any
``}`` (a PDN comment cannot hold one) and surrounding whitespace. Variations
may be nested to any depth.

Lone surrogates
---------------
A ``str`` may hold a lone UTF-16 surrogate (``"\\ud800"``: from JSON, or from
bytes decoded with ``errors="surrogateescape"``), which is not a character and
which no UTF-8 file can hold. The reader refuses a game that holds one in a tag,
comment or move: its :class:`~damier.errors.PdnError` names the line and the
column (also in its ``column`` attribute). A tag value holding one is refused
when set (``ValueError``), so headers never hold one; a comment that holds one
is written with U+FFFD (the replacement character) in its place, so that what
:func:`write_game` returns can always be written to a UTF-8 file. Messages
never hold one either: they show it as its escape (``\\ud800``).
"""

from __future__ import annotations

import io
import os
import re
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping
from typing import IO, TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar, Union

from damier.errors import (LONE_SURROGATE, AmbiguousMoveError, IllegalMoveError, InvalidFenError,
                           PdnError, escape_surrogates)
from damier.fen import parse_fen
from damier.notation import MAX_MOVE_TEXT
from damier.variants import DEFAULT_VARIANT, VARIANTS, Variant, get_variant, variant_for_game_type

if TYPE_CHECKING:
    from damier import Board, Move

__all__ = [
    "Game",
    "GameNode",
    "Headers",
    "Mainline",
    "GameReader",
    "read_games",
    "read_game",
    "write_game",
    "set_game_tags",
    "result_for_variant",
    "canonical_result",
    "NAG_GOOD_MOVE",
    "NAG_MISTAKE",
    "NAG_BRILLIANT_MOVE",
    "NAG_BLUNDER",
    "NAG_SPECULATIVE_MOVE",
    "NAG_DUBIOUS_MOVE",
    "TAG_ROSTER",
]

NAG_GOOD_MOVE = 1
NAG_MISTAKE = 2
NAG_BRILLIANT_MOVE = 3
NAG_BLUNDER = 4
NAG_SPECULATIVE_MOVE = 5
NAG_DUBIOUS_MOVE = 6

MOVE_MARKS = {"!": NAG_GOOD_MOVE, "?": NAG_MISTAKE, "!!": NAG_BRILLIANT_MOVE,
              "??": NAG_BLUNDER, "!?": NAG_SPECULATIVE_MOVE, "?!": NAG_DUBIOUS_MOVE}

TAG_ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
"""The seven standard tags, in the order they are written."""

_TAG_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?",
                 "White": "?", "Black": "?", "Result": "*"}

# -- results ---------------------------------------------------------------------

_RESULT_INDEX = {"1-0": 0, "1/2-1/2": 1, "0-1": 2}
"""The canonical results, at their place in :attr:`Variant.pdn_results`."""
_CANONICAL_RESULT = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "½-½": "1/2-1/2",
                     "0-0": "0-0", "*": "*"}
for _variant in VARIANTS.values():   # and every variant's own style ("2-0", "1-1", "0-2")
    for _canonical, _index in _RESULT_INDEX.items():
        _CANONICAL_RESULT.setdefault(_variant.pdn_results[_index], _canonical)
del _variant, _canonical, _index


def canonical_result(result: str) -> str | None:
    """``result`` (any accepted result token, in any variant's style) as
    ``1-0``, ``0-1``, ``1/2-1/2``, ``0-0`` or ``*``; None when it is not a
    result token.

    >>> canonical_result("2-0"), canonical_result(" 1-1 "), canonical_result("0-1")
    ('1-0', '1/2-1/2', '0-1')
    >>> canonical_result("2-1") is None
    True
    """
    return _CANONICAL_RESULT.get(result.strip())


def set_game_tags(headers: "Headers", variant: Variant | str,
                  tags: Mapping[str, str | None]) -> None:
    """Writes the tags of a game that damier ends or saves (the terminal, the web app and
    engine matches all write them here): each tag of ``tags`` in its order, a None value
    leaving the tag as it is; ``Result`` in ``variant``'s customary form
    (:func:`result_for_variant`; ``*`` for anything else); no ``Termination`` while the
    result is ``*``.

    >>> headers = Headers({"Termination": "old"})
    >>> set_game_tags(headers, "international", {"White": "A", "Result": "1-0", "Round": None})
    >>> dict(headers)
    {'White': 'A', 'Result': '2-0', 'Termination': 'old'}
    >>> set_game_tags(headers, "international", {"Result": "*"})
    >>> dict(headers)
    {'White': 'A', 'Result': '*'}
    """
    for name, value in tags.items():
        if value is None:
            continue
        if name == "Result":
            value = result_for_variant(value, variant) or "*"
        headers[name] = value
    if headers.get("Result", "*") == "*":
        headers.pop("Termination", None)


def result_for_variant(result: str, variant: Variant | str) -> str | None:
    """``result`` (any accepted result token) in ``variant``'s customary form
    (:attr:`~damier.variants.Variant.pdn_results`), or None when ``result`` is
    not a result token.

    >>> result_for_variant("1-0", "international"), result_for_variant("1-1", "english")
    ('2-0', '1/2-1/2')
    >>> result_for_variant("2-1", "russian") is None
    True
    """
    canonical = canonical_result(result)
    if canonical is None:
        return None
    index = _RESULT_INDEX.get(canonical)
    return canonical if index is None else get_variant(variant).pdn_results[index]


# -- quoting input in error messages --------------------------------------------------

_QUOTE_LIMIT = 60


def _quote(text: str, *, quotes: bool = True, limit: int = _QUOTE_LIMIT) -> str:
    """``text`` (a token, line or value read) as error messages quote it: in double
    quotes (unless ``quotes`` is false), and when it is longer than ``limit``
    characters, only its start followed by ``...`` and its length, so that no
    message (or ``PdnError.token``) echoes a huge piece of input.

    >>> print(_quote("32-29"), _quote("x" * 100, limit=5), _quote("[Ev", quotes=False))
    "32-29" "xxxxx..." (100 characters) [Ev
    """
    if len(text) <= limit:
        text = escape_surrogates(text)
        return f'"{text}"' if quotes else text
    head = escape_surrogates(text[:limit].replace("\n", " ").replace("\r", " "))
    length = f"({len(text)} characters)"
    return f'"{head}..." {length}' if quotes else f"{head}... {length}"


def _quote_token(token: str | None) -> str | None:
    """A token as kept in ``PdnError.token``: cut like :func:`_quote` does."""
    return None if token is None else _quote(token, quotes=False)


# -- headers ---------------------------------------------------------------------

_TAG_NAME_RE = re.compile(r"[A-Za-z0-9_]+\Z")


class Headers(MutableMapping[str, str]):
    """The tag pairs of a game: a dict whose iteration lists the seven standard
    tags first (in :data:`TAG_ROSTER` order), then the others in insertion order.

    >>> h = Headers({"GameType": "21", "White": "X"})
    >>> h["Event"] = "?"
    >>> list(h)
    ['Event', 'White', 'GameType']
    """

    def __init__(self, data: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
                 **kwargs: str) -> None:
        self._tags: dict[str, str] = {}
        if data is not None:
            self.update(data)
        self.update(kwargs)

    def __getitem__(self, key: str) -> str:
        return self._tags[key]

    def __setitem__(self, key: str, value: str) -> None:
        if not isinstance(key, str) or not _TAG_NAME_RE.match(key):
            raise ValueError(f"bad tag name {key!r}: use letters, digits and underscores")
        if not isinstance(value, str):
            raise TypeError(f"tag values are str, not {type(value).__name__} (tag {key})")
        bad = LONE_SURROGATE.search(value)
        if bad is not None:
            raise ValueError(f"tag {key}: lone surrogate {bad.group()!r} at position "
                             f"{bad.start() + 1} of its value, which is not a Unicode character "
                             "(no UTF-8 file can hold it); give valid Unicode text")
        self._tags[key] = value

    def __delitem__(self, key: str) -> None:
        del self._tags[key]

    def __len__(self) -> int:
        return len(self._tags)

    def __iter__(self) -> Iterator[str]:
        for name in TAG_ROSTER:
            if name in self._tags:
                yield name
        for name in self._tags:
            if name not in TAG_ROSTER:
                yield name

    def copy(self) -> "Headers":
        return Headers(self)

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v!r}" for k, v in self.items())
        return f"Headers({inner})"


def _game_type_variant(value: str, variant_tag: str | None = None) -> Variant:
    """The variant of a ``GameType`` tag's value and, for a number several variants share,
    the game's ``Variant`` tag (Killer draughts: 20 and ``Killer``)."""
    m = re.match(r"\s*([0-9]+)", value)
    if m is None:
        raise ValueError(f"unknown GameType {_quote(value)}: expected a number such as 20 "
                         "(International), 21 (English), 25 (Russian) or 26 (Brazilian)")
    digits = m.group(1).lstrip("0") or "0"
    # int() of thousands of digits is slow or refused (ValueError); no GameType is that long
    number = int(digits) if len(digits) <= 9 else 10 ** 9
    try:
        return variant_for_game_type(number, variant_tag)
    except ValueError as err:
        detail = str(err) if len(digits) <= 9 else str(err).replace(f" {number} ", " ", 1)
        raise ValueError(f"unknown GameType {_quote(value)}: {detail}") from None


_VARIANT_TAGS = frozenset(v.pdn_variant_tag.lower() for v in VARIANTS.values()
                          if v.pdn_variant_tag)
"""The ``Variant`` tags that choose a variant (in lower case)."""


def _set_variant_tag(headers: "Headers", variant: Variant) -> None:
    """The ``Variant`` tag of ``variant``, or none where another variant's tag was."""
    if variant.pdn_variant_tag:
        headers["Variant"] = variant.pdn_variant_tag
    elif headers.get("Variant", "").strip().lower() in _VARIANT_TAGS:
        headers.pop("Variant", None)


def _same_position(fen: str, variant: Variant) -> bool:
    try:
        return parse_fen(fen, variant) == parse_fen(variant.initial_fen, variant)
    except InvalidFenError:
        return False


# -- the tree --------------------------------------------------------------------

T = TypeVar("T")


class Mainline(Generic[T]):
    """A view of the main line after a node (nodes or moves); iterable,
    reversible and sized. It follows later changes to the tree."""

    def __init__(self, start: "GameNode", f: Callable[["GameNode"], T]) -> None:
        self.start = start
        self._f = f

    def _nodes(self) -> Iterator["GameNode"]:
        node = self.start
        while node.variations:
            node = node.variations[0]
            yield node

    def __iter__(self) -> Iterator[T]:
        return (self._f(node) for node in self._nodes())

    def __reversed__(self) -> Iterator[T]:
        return reversed([self._f(node) for node in self._nodes()])

    def __len__(self) -> int:
        return sum(1 for _ in self._nodes())

    def __bool__(self) -> bool:
        return bool(self.start.variations)

    def __getitem__(self, index: int) -> T:
        return list(self)[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mainline):
            return list(self) == list(other)
        if isinstance(other, (list, tuple)):
            return list(self) == list(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"<Mainline of {len(self)} after {self.start!r}>"


class GameNode:
    """A node of a game tree: the move that leads to it and what follows.

    :attr:`move` is None only for the root (the :class:`Game`).
    :attr:`comment` is the comment after the move, :attr:`starting_comment`
    the comment before the move of a node that starts a variation; comments
    before a game's first move belong to the game (``game.comment``).
    """

    def __init__(self, parent: "GameNode | None" = None, move: "Move | None" = None, *,
                 comment: str = "", starting_comment: str = "", nags: Iterable[int] = ()) -> None:
        self.parent = parent
        self.move = move
        self.variations: list[GameNode] = []
        self.comment = comment
        self.starting_comment = starting_comment
        self.nags: set[int] = set(nags)

    # -- navigation ---------------------------------------------------------------

    def game(self) -> "Game":
        """The root of the tree."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node  # type: ignore[return-value]

    root = game

    def ply(self) -> int:
        """Number of moves from the game's start position to this node."""
        n = 0
        node = self
        while node.parent is not None:
            n += 1
            node = node.parent
        return n

    def board(self) -> "Board":
        """A new :class:`~damier.Board` with the position after this node's move
        (its move stack holds the moves from the game's start)."""
        moves = []
        node = self
        while node.parent is not None:
            moves.append(node.move)
            node = node.parent
        board: Board = node._start_board()  # type: ignore[attr-defined]
        for move in reversed(moves):
            assert move is not None  # only the root has no move
            board.push(move)
        return board

    def turn(self) -> bool:
        """The side to move after this node (True = White)."""
        return self.game().start_turn() ^ (self.ply() % 2 == 1)

    def notation(self) -> str:
        """This node's move in standard notation (in the parent's position)."""
        if self.parent is None or self.move is None:
            raise ValueError("the root of a game has no move")
        return self.parent.board().notation(self.move)

    def next(self) -> "GameNode | None":
        """The main continuation, or None at the end of a line."""
        return self.variations[0] if self.variations else None

    def end(self) -> "GameNode":
        """The last node of the main line from here."""
        node = self
        while node.variations:
            node = node.variations[0]
        return node

    def is_end(self) -> bool:
        return not self.variations

    def mainline(self) -> Mainline["GameNode"]:
        """The nodes of the main line after this node."""
        return Mainline(self, lambda node: node)

    def mainline_moves(self) -> Mainline["Move"]:
        """The moves of the main line after this node."""
        def move_of(node: "GameNode") -> "Move":
            assert node.move is not None  # every node after the root has its move
            return node.move
        return Mainline(self, move_of)

    def is_main_variation(self) -> bool:
        """Whether this node is the first continuation of its parent (or the root)."""
        return self.parent is None or self.parent.variations[0] is self

    def is_mainline(self) -> bool:
        """Whether this node is on the game's main line."""
        node = self
        while node.parent is not None:
            if node.parent.variations[0] is not node:
                return False
            node = node.parent
        return True

    def starts_variation(self) -> bool:
        """Whether this node's move is an alternative to its parent's main continuation."""
        return self.parent is not None and not self.is_main_variation()

    # -- variations -----------------------------------------------------------------

    def _resolve(self, move: "Move | str") -> "Move":
        if isinstance(move, str):
            return self.board().parse_move(move)
        return move

    def variation(self, move: "Move | str | int") -> "GameNode":
        """The child for ``move`` (a Move, move text, or an index)."""
        if isinstance(move, int):
            return self.variations[move]
        move = self._resolve(move)
        for child in self.variations:
            if child.move == move:
                return child
        raise KeyError(f"no variation for {move!r}")

    def has_variation(self, move: "Move | str") -> bool:
        try:
            self.variation(move)
        except (KeyError, ValueError):
            return False
        return True

    def add_variation(self, move: "Move | str", *, comment: str = "", starting_comment: str = "",
                      nags: Iterable[int] = ()) -> "GameNode":
        """Adds a continuation (last among the variations) and returns its node.

        ``move`` may be move text, read in this node's position; a Move is
        taken as given (not checked for legality).
        """
        node = GameNode(self, self._resolve(move), comment=comment,
                        starting_comment=starting_comment, nags=nags)
        self.variations.append(node)
        return node

    def add_main_variation(self, move: "Move | str", *, comment: str = "",
                           nags: Iterable[int] = ()) -> "GameNode":
        """Adds a continuation as the new main line and returns its node."""
        node = GameNode(self, self._resolve(move), comment=comment, nags=nags)
        self.variations.insert(0, node)
        return node

    def add_line(self, moves: Iterable["Move | str"], *, comment: str = "",
                 starting_comment: str = "", nags: Iterable[int] = ()) -> "GameNode":
        """Adds a line of moves from here and returns its last node; ``comment``
        and ``nags`` go to the last node, ``starting_comment`` to the first.

        Move texts are read along the line, so each is checked in its position.
        """
        node = self
        board = None
        first = True
        for move in moves:
            if isinstance(move, str):
                if board is None:
                    board = node.board()
                move = board.parse_move(move)
            if board is not None:
                board.push(move)
            node = node.add_variation(move, starting_comment=starting_comment if first else "")
            first = False
        node.comment = comment
        node.nags.update(nags)
        return node

    def promote_to_main(self, move: "Move | str") -> None:
        """Makes the variation for ``move`` the main line."""
        child = self.variation(move)
        self.variations.remove(child)
        self.variations.insert(0, child)

    def promote(self, move: "Move | str") -> None:
        """Moves the variation for ``move`` one place up."""
        child = self.variation(move)
        i = self.variations.index(child)
        if i > 0:
            self.variations[i - 1], self.variations[i] = self.variations[i], self.variations[i - 1]

    def demote(self, move: "Move | str") -> None:
        """Moves the variation for ``move`` one place down."""
        child = self.variation(move)
        i = self.variations.index(child)
        if i < len(self.variations) - 1:
            self.variations[i + 1], self.variations[i] = self.variations[i], self.variations[i + 1]

    def remove_variation(self, move: "Move | str") -> None:
        """Removes the variation for ``move`` (and everything after it)."""
        self.variations.remove(self.variation(move))

    def __repr__(self) -> str:
        if self.move is None:
            return f"<{type(self).__name__} at {id(self):#x}>"
        return f"<GameNode at {id(self):#x} (ply {self.ply()}: {self.move!r})>"


class Game(GameNode):
    """The root of a game tree, with the game's tag pairs.

    ``Game()`` starts with the seven standard tags at their defaults and the
    ``GameType`` of ``variant``; ``Game(headers)`` keeps exactly the tags given
    (this is what the reader does). The variant is ``variant`` if given, else
    the ``GameType`` tag, else International.

    >>> game = Game(variant="english")
    >>> dict(game.headers)["GameType"], game.variant.title
    ('21', 'English')
    >>> node = game.add_line(["11-15", "23-19"])
    >>> print(game)  # doctest: +ELLIPSIS
    [Event "?"]
    ...
    [GameType "21"]
    <BLANKLINE>
    1. 11-15 23-19 *
    <BLANKLINE>
    """

    def __init__(self, headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None, *,
                 variant: Variant | str | None = None) -> None:
        super().__init__()
        if headers is None:
            self.headers = Headers(_TAG_DEFAULTS)
            chosen = get_variant(variant or DEFAULT_VARIANT)
            self.headers["GameType"] = str(chosen.game_type)
            if chosen.pdn_variant_tag:
                self.headers["Variant"] = chosen.pdn_variant_tag
        else:
            self.headers = Headers(headers)
        if variant is not None:
            self.variant: Variant = get_variant(variant)
        elif "GameType" in self.headers:
            self.variant = _game_type_variant(self.headers["GameType"], self.headers.get("Variant"))
        else:
            self.variant = get_variant(DEFAULT_VARIANT)
        self.errors: list[PdnError] = []
        """Problems found while reading that did not stop the game being read."""

    def _start_board(self) -> "Board":
        from damier.board import Board

        fen = self.headers.get("FEN", "").strip()
        return Board(fen or None, variant=self.variant)

    def board(self) -> "Board":
        """A new board with the game's start position."""
        return self._start_board()

    def start_turn(self) -> bool:
        """The side to move in the start position."""
        fen = self.headers.get("FEN", "").strip()
        if not fen:
            return self.variant.white_starts
        return parse_fen(fen, self.variant)[0]

    def setup(self, board_or_fen: "Board | str") -> None:
        """Sets the start position (the ``FEN`` tag) from a board or a FEN.

        A board also sets the game's variant. The ``FEN`` tag is removed when
        the position is the variant's standard start.
        """
        if isinstance(board_or_fen, str):
            fen = board_or_fen.strip()
            parse_fen(fen, self.variant)
        else:
            self.variant = board_or_fen.variant
            if "GameType" in self.headers:
                try:
                    same = _game_type_variant(self.headers["GameType"],
                                              self.headers.get("Variant")) == self.variant
                except ValueError:
                    same = False
                if not same:
                    self.headers["GameType"] = str(self.variant.game_type)
                    _set_variant_tag(self.headers, self.variant)
            fen = board_or_fen.fen(compact=True)
        if _same_position(fen, self.variant):
            self.headers.pop("FEN", None)
        else:
            self.headers["FEN"] = fen

    @classmethod
    def from_board(cls, board: "Board") -> "Game":
        """A game with the moves of ``board``'s move stack, from its start position.

        The ``Result`` tag is set when the board's game is over.
        """
        game = cls(variant=board.variant)
        game.setup(board.root())
        node: GameNode = game
        for move in board.move_stack:
            node = node.add_variation(move)
        outcome = board.outcome()
        if outcome is not None:
            game.headers["Result"] = result_for_variant(outcome.result(), board.variant) or "*"
        return game

    def __str__(self) -> str:
        return write_game(self)

    def __repr__(self) -> str:
        return (f"<Game at {id(self):#x} ({self.headers.get('White', '?')!r} vs. "
                f"{self.headers.get('Black', '?')!r}, {self.variant.title})>")


# -- reading: lines ------------------------------------------------------------------------


class _Line(NamedTuple):
    number: int
    text: str
    cookie: Any  # stream position of the line's start (only when tracking), else None
    encoding: str | None  # for binary streams: how the line was decoded
    surrogate: bool = False  # the line holds a lone surrogate (see _surrogate_error)


_LEFTOVERS: "weakref.WeakKeyDictionary[Any, list[str]]" = weakref.WeakKeyDictionary()


def _decode(raw: bytes) -> tuple[str, str]:
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return raw.decode("latin-1"), "latin-1"


class _Source:
    """Numbered lines of PDN text; lines can be given back."""

    def __init__(self, stream: Any, *, track: bool = False) -> None:
        self.stream = stream
        self.track = track and _seekable(stream)
        self.number = 0
        self.pushback: deque[_Line] = deque()
        self.leftover: deque[str] = deque()
        if not self.track:
            try:
                self.leftover = deque(_LEFTOVERS.pop(stream, ()))
            except TypeError:
                pass

    def readline(self) -> _Line | None:
        if self.pushback:
            return self.pushback.popleft()
        if self.leftover:
            self.number += 1
            text = self.leftover.popleft()
            return _Line(self.number, text, None, None, LONE_SURROGATE.search(text) is not None)
        cookie = self.stream.tell() if self.track else None
        raw = self.stream.readline()
        if not raw:
            return None
        encoding = None
        if isinstance(raw, bytes):
            text, encoding = _decode(raw)
        else:
            text = raw
        self.number += 1
        if self.number == 1 and text.startswith("\ufeff"):
            text = text[1:]
            if cookie is not None:
                cookie = ("bom", cookie)
        if text.endswith("\n"):
            text = text[:-1]
        if text.endswith("\r"):
            text = text[:-1]
        return _Line(self.number, text, cookie, encoding, LONE_SURROGATE.search(text) is not None)

    def unread(self, lines: list[_Line]) -> None:
        self.pushback.extendleft(reversed(lines))


def _seekable(stream: Any) -> bool:
    try:
        return bool(stream.seekable())
    except (AttributeError, ValueError, OSError):
        return False


# -- reading: tokens ------------------------------------------------------------------------


class _Token(NamedTuple):
    kind: str  # tag, comment, open, close, nag, mark, number, result, move
    text: str
    line: int
    value: Any
    where: tuple[_Line, int]


class _SyntaxError(Exception):
    def __init__(self, message: str, line: int, token: str | None, *,
                 column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.token = token
        self.column = column


def _surrogate_error(line: _Line, start: int, end: int) -> _SyntaxError | None:
    """The error for the first lone surrogate of ``line.text[start:end]`` (the text
    of a token), or None when it holds none."""
    if not line.surrogate:
        return None
    bad = LONE_SURROGATE.search(line.text, start, end)
    if bad is None:
        return None
    column = bad.start() + 1
    return _SyntaxError(f"lone surrogate {bad.group()!r} at column {column}, which is not a "
                        "Unicode character (no UTF-8 file can hold it): read the file as bytes, "
                        "or decode it without errors='surrogateescape'", line.number,
                        escape_surrogates(line.text[start:end]), column=column)


_WS_RE = re.compile(r"\s*")
# A tag is [Name "value"]; the value is scanned by _tag_value_end, not by a regex such as
# "(?:[^"\\]|\\.)*" whose backtracking state costs some 200 bytes per character.
_TAG_HEAD_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s*"')
_TAG_CHUNK_RE = re.compile(r'[^"\\]*')
_TAG_TAIL_RE = re.compile(r"\s*\]")
_NUMBER_RE = re.compile(r"[0-9]+\.+")
_WORD_RE = re.compile(r"[^\s{}()\[\];$]+")
_RESULT_RE = re.compile(r"(?:2-0|0-2|1-1|0-0|1-0|0-1|1/2-1/2|½-½|\*)\Z")
_SQUARE = r"(?:[0-9]+|[a-jA-J](?:10|[1-9]))"
_MOVE_RE = re.compile(rf"({_SQUARE}(?:[-xX×:]{_SQUARE})+)([!?]*)\Z")
_MARK_RE = re.compile(r"[!?]+\Z")
_NAG_RE = re.compile(r"\$([0-9]+)")
_NAG_MAX = 255  # NAGs are $0 to $255, as in PGN


def _unescape(value: str) -> str:
    return re.sub(r'\\([\\"])', r"\1", value)


def _tag_value_end(text: str, pos: int) -> int:
    """The index of the quote that closes the tag value starting at ``pos``, or -1
    (a backslash escapes the character after it)."""
    end = len(text)
    while True:
        pos = _TAG_CHUNK_RE.match(text, pos).end()  # type: ignore[union-attr]
        if pos >= end:
            return -1
        if text[pos] == '"':
            return pos
        pos += 2  # a backslash and the character it escapes
        if pos > end:
            return -1


class _Lexer:
    def __init__(self, source: _Source) -> None:
        self.source = source
        self.current: _Line | None = None
        self.pos = 0
        self._peeked: _Token | None = None
        # Where a "{" was found that no "}" closes before the end of the input (line
        # number, column): a comment opened after it cannot be closed either, and is
        # not read to the end again (which would make reading quadratic in the size
        # of a file of bad games that each open a comment).
        self._open_to_end: tuple[int, int] | None = None

    @property
    def text(self) -> str:
        return self.current.text if self.current is not None else ""

    def _advance_line(self) -> bool:
        line = self.source.readline()
        if line is None:
            self.current = None
            self.pos = 0
            return False
        self.current = line
        self.pos = 0
        return True

    def peek(self) -> _Token | None:
        if self._peeked is None:
            self._peeked = self._scan()
        return self._peeked

    def next(self) -> _Token | None:
        token = self.peek()
        self._peeked = None
        return token

    def _scan(self) -> _Token | None:
        while True:
            if self.current is None or self.pos >= len(self.current.text):
                if not self._advance_line():
                    return None
                if self.text.startswith("%"):
                    self.pos = len(self.text)
                    continue
            text = self.text
            blank = _WS_RE.match(text, self.pos)
            assert blank is not None  # the pattern matches the empty string
            self.pos = blank.end()
            if self.pos < len(text):
                break
        assert self.current is not None
        line, start = self.current, self.pos
        try:
            token = self._token(line, start)
        except _SyntaxError:
            # A lone surrogate in what was read is the error to report.
            bad = _surrogate_error(line, start, max(self.pos, start + 1)) \
                if self.current is line else None
            if bad is not None:
                raise bad from None
            raise
        if self.current is line:  # (a comment over several lines checks its own lines)
            bad = _surrogate_error(line, start, self.pos)
            if bad is not None:
                raise bad
        return token

    def _token(self, line: _Line, start: int) -> _Token:
        """The token that starts at column ``start`` of ``line`` (not a blank)."""
        text = line.text
        where = (line, start)
        c = text[start]

        if c == "[":
            head = _TAG_HEAD_RE.match(text, start)
            close = _tag_value_end(text, head.end()) if head is not None else -1
            if head is not None and close >= 0:
                tail = _TAG_TAIL_RE.match(text, close + 1)
                if tail is not None:
                    self.pos = tail.end()
                    name, value = head.group(1), _unescape(text[head.end():close])
                    return _Token("tag", text[start:self.pos], line.number, (name, value), where)
            self.pos = len(text)
            rest = text[start:].rstrip()
            if head is not None and close < 0:
                raise _SyntaxError(f"unterminated tag {_quote(rest, quotes=False)}: the value has "
                                   "no closing quote (a tag must fit on one line)", line.number,
                                   rest)
            if head is not None and not text[close + 1:].strip():
                raise _SyntaxError(f'unterminated tag {_quote(rest, quotes=False)}: missing "]"',
                                   line.number, rest)
            end = text.find("]", start)
            bad = text[start:end + 1] if end >= 0 else rest
            raise _SyntaxError(f"bad tag syntax {_quote(bad, quotes=False)}: "
                               'expected [Name "value"]', line.number, bad)

        if c == "{":
            end = text.find("}", start + 1)
            if end >= 0:
                self.pos = end + 1
                return _Token("comment", text[start:end + 1], line.number,
                              text[start + 1:end].strip(), where)
            # The comment goes on over the next lines, up to a "}". Its lines are
            # gathered in a list and joined once. Should the input end first, the
            # game is bad and the reader goes on at the next line that starts with
            # "[" (see skip_game): only the lines from there on are given back, with
            # one line before them, which keeps the bad game's tags from being
            # mistaken for the next game's (skip_game after an error in the tags).
            parts = [text[start + 1:]]
            resync: list[_Line] = []  # the lines from the first one that starts with "["
            before: _Line | None = None  # the last line before those
            # Known to run to the end (see _open_to_end): read only up to the line
            # that starts with "[", which is all that is given back.
            to_end = self._open_to_end is not None and (line.number, start) > self._open_to_end
            surrogate = _surrogate_error(line, start, len(text))
            while True:
                nxt = self.source.readline()
                if nxt is None or (to_end and nxt.text.lstrip().startswith("[")):
                    if nxt is not None:
                        resync.append(nxt)
                    elif self._open_to_end is None:
                        self._open_to_end = (line.number, start)
                    self.source.unread(([before] if before is not None and resync else []) + resync)
                    self.current, self.pos = line, len(line.text)
                    token = _quote(text[start:], quotes=False, limit=20)
                    raise _SyntaxError(f'unterminated comment: "{{" at line {line.number} is never '
                                       'closed by "}"', line.number, token)
                if to_end:
                    before = nxt
                    continue
                end = nxt.text.find("}")
                if surrogate is None:
                    surrogate = _surrogate_error(nxt, 0, end if end >= 0 else len(nxt.text))
                if end >= 0:
                    parts.append(nxt.text[:end])
                    self.current, self.pos = nxt, end + 1
                    if surrogate is not None:
                        raise surrogate
                    comment = "\n".join(parts)
                    return _Token("comment", "{" + comment + "}", line.number, comment.strip(),
                                  where)
                parts.append(nxt.text)
                if resync or nxt.text.lstrip().startswith("["):
                    resync.append(nxt)
                else:
                    before = nxt

        if c == ";":
            self.pos = len(text)
            return _Token("comment", text[start:], line.number, text[start + 1:].strip(), where)
        if c == "(":
            self.pos = start + 1
            return _Token("open", "(", line.number, None, where)
        if c == ")":
            self.pos = start + 1
            return _Token("close", ")", line.number, None, where)
        if c == "$":
            m = _NAG_RE.match(text, start)
            if m is None:
                tail = _WORD_RE.match(text, start + 1)
                token = "$" + (tail.group(0) if tail else "")
                self.pos = start + len(token)
                raise _SyntaxError(f"bad NAG {_quote(token)}: expected $ and a number", line.number,
                                   token)
            self.pos = m.end()
            digits = m.group(1).lstrip("0") or "0"
            # no int() of a huge number: it is slow, and refused past 4300 digits
            if len(digits) > len(str(_NAG_MAX)) or int(digits) > _NAG_MAX:
                raise _SyntaxError(f"NAG {_quote(m.group(0))} is out of range: NAGs are $0 to "
                                   f"${_NAG_MAX}", line.number, m.group(0))
            return _Token("nag", m.group(0), line.number, int(digits), where)
        if c in "}]":
            self.pos = start + 1
            what = "comment" if c == "}" else "tag"
            raise _SyntaxError(f'unexpected "{c}": no {what} is open', line.number, c)

        m = _NUMBER_RE.match(text, start)
        if m is not None:
            self.pos = m.end()
            return _Token("number", m.group(0), line.number, None, where)
        m = _WORD_RE.match(text, start)
        assert m is not None
        word = m.group(0)
        self.pos = m.end()
        if _RESULT_RE.match(word):
            return _Token("result", word, line.number, word, where)
        mm = _MOVE_RE.match(word)
        if mm is not None:
            marks = mm.group(2)
            if marks and marks not in MOVE_MARKS:
                raise _SyntaxError(f"unknown move mark {_quote(marks)} in {_quote(word)} "
                                   "(marks are ! ? !! ?? !? ?!)", line.number, word)
            return _Token("move", word, line.number, (mm.group(1), MOVE_MARKS.get(marks)), where)
        if _MARK_RE.match(word):
            if word not in MOVE_MARKS:
                raise _SyntaxError(f"unknown move mark {_quote(word)} (marks are ! ? !! ?? !? ?!)",
                                   line.number, word)
            return _Token("mark", word, line.number, MOVE_MARKS[word], where)
        raise _SyntaxError(f"unexpected token {_quote(word)}: not a move, move number, result, "
                           "NAG, comment or variation", line.number, word)

    def skip_game(self, in_tags: bool) -> None:
        """Skips what is left of a bad game: to the next line that starts with '['."""
        self._peeked = None
        if self.current is None:
            return
        self.pos = len(self.text)  # drop the rest of the current line
        skipping_tags = in_tags
        while True:
            if not self._advance_line():
                return
            starts_tag = self.text.lstrip().startswith("[")
            if skipping_tags and starts_tag:
                continue
            skipping_tags = False
            if starts_tag:
                self.pos = 0
                return

    def resume_point(self) -> tuple[_Line, int] | None:
        """Where the unread text starts (a line and a column), or None at a line end."""
        if self._peeked is not None:
            return self._peeked.where
        if self.current is not None and self.pos < len(self.current.text):
            return self.current, self.pos
        return None


# -- reading: games ------------------------------------------------------------------------


class _GameError(Exception):
    def __init__(self, message: str, line: int, token: str | None, *, in_tags: bool = False,
                 at_next_game: bool = False, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.token = token
        self.in_tags = in_tags
        self.at_next_game = at_next_game
        self.column = column


def _quote_move_message(message: str, text: str) -> str:
    """A message of :mod:`damier.moves` about the move written ``text`` (which
    it quotes as ``repr(text)``), with the move quoted as the reader quotes input."""
    return message.replace(repr(text), _quote(text), 1)


def _fen_message(message: str, fen: str) -> str:
    """A message of :mod:`damier.fen` about ``fen`` (which it quotes in full), cut short."""
    if len(fen) > _QUOTE_LIMIT:
        message = message.replace(fen, _quote(fen, quotes=False))
    return _quote(message, quotes=False, limit=200)


def _parse_game(lexer: _Lexer, variant_arg: Variant | None, game_no: int) -> Game | None:
    """The next game of ``lexer`` (None at the end): its tags, then its movetext."""
    return _GameParser(lexer, game_no).parse(variant_arg)


class _GameParser:
    """Reads one game: :meth:`parse`. The movetext is read token by token, one method
    per kind. ``board`` is the position after ``node``'s move and ``depth`` counts the
    moves on its stack: a variation takes back the last move ("(") and plays it again
    at its end (")"), so no board is copied, whose cost grows with the game."""

    def __init__(self, lexer: _Lexer, game_no: int) -> None:
        self.lexer = lexer
        self.game_no = game_no
        self.warnings: list[PdnError] = []

    def warn(self, message: str, line: int, token: str | None) -> None:
        self.warnings.append(PdnError(f"game {self.game_no}, line {line}: {message}",
                                      game=self.game_no, line=line, token=_quote_token(token)))

    def peek(self, in_tags: bool) -> _Token | None:
        try:
            return self.lexer.peek()
        except _SyntaxError as err:
            raise _GameError(err.message, err.line, err.token, in_tags=in_tags,
                             column=err.column) from None

    # -- the tags -----------------------------------------------------------------------

    def parse(self, variant_arg: Variant | None) -> Game | None:
        token = self.peek(True)
        if token is None:
            return None
        tags: list[tuple[str, str, int]] = []
        while token is not None and token.kind == "tag":
            self.lexer.next()
            tags.append((token.value[0], token.value[1], token.line))
            token = self.peek(True)
        headers, tag_lines = self._headers(tags)
        at_next = token is not None and token.kind == "tag"
        variant = self._variant(headers, tag_lines, variant_arg, at_next)
        game = Game(headers, variant=variant)
        game.errors = self.warnings
        self._movetext(game, self._board(headers, tag_lines, variant, at_next))
        return game

    def _headers(self, tags: list[tuple[str, str, int]]) -> tuple[Headers, dict[str, int]]:
        headers = Headers()
        tag_lines: dict[str, int] = {}
        for name, value, line in tags:
            if name in headers:
                self.warn(f"tag {_quote(name, quotes=False)} appears twice: "
                          f"{_quote(headers[name])}, then {_quote(value)} (the last one counts)",
                          line, name)
            headers[name] = value
            tag_lines[name] = line
        if "Result" in headers and not headers["Result"].strip():
            headers["Result"] = "*"  # an empty Result tag: the result is unknown
        return headers, tag_lines

    @staticmethod
    def _variant(headers: Headers, tag_lines: dict[str, int], variant_arg: Variant | None,
                 at_next: bool) -> Variant:
        if variant_arg is not None:
            return variant_arg
        if "GameType" in headers:
            try:
                return _game_type_variant(headers["GameType"], headers.get("Variant"))
            except ValueError as err:
                raise _GameError(str(err), tag_lines["GameType"], headers["GameType"],
                                 at_next_game=at_next) from None
        return get_variant(DEFAULT_VARIANT)

    @staticmethod
    def _board(headers: Headers, tag_lines: dict[str, int], variant: Variant,
               at_next: bool) -> "Board":
        from damier.board import Board
        fen = headers.get("FEN", "").strip()
        try:
            return Board(fen or None, variant=variant)
        except ValueError as err:  # InvalidFenError, or any other complaint about the FEN
            raise _GameError(f"bad FEN {_quote(fen)}: {_fen_message(str(err), fen)}",
                             tag_lines["FEN"], fen, at_next_game=at_next) from None

    # -- the movetext ---------------------------------------------------------------------

    def _movetext(self, game: Game, board: "Board") -> None:
        self.game = game
        self.board = board
        self.node: GameNode = game
        self.depth = 0
        # per "(" still open: (node, its move, line of "(", variation_start, depth after "(")
        self.stack: list[tuple[GameNode, Any, int, bool, int]] = []
        self.variation_start = False
        self.start_comments: list[str] = []
        self.comments: dict[GameNode, list[str]] = {}  # joined once at the end: no quadratic "+="
        token = self.peek(False)
        while token is not None and token.kind != "tag":
            self.lexer.next()
            if token.kind == "result":
                if self._result(token):
                    break
            elif token.kind == "move":
                self._move(token)
            elif token.kind in ("nag", "mark"):
                self.node.nags.add(token.value)
            elif token.kind == "comment":
                self._comment(token)
            elif token.kind == "open":
                self._open(token)
            elif token.kind == "close":
                self._close(token)
            token = self.peek(False)
        for commented, parts in self.comments.items():
            commented.comment = " ".join(parts)
        if self.stack:   # the file ended, or the next game's tags came (a result ends only
            open_line = self.stack[-1][2]   # outside a variation)
            where = "the next game starts" if token is not None else "the file ends"
            raise _GameError(f'unterminated variation: "(" at line {open_line} is never closed '
                             f"({where} first)", open_line, "(", at_next_game=token is not None)

    def _move(self, token: _Token) -> None:
        text, mark = token.value
        text = text.replace("X", "x")
        if len(text) > MAX_MOVE_TEXT:
            raise _GameError(f"cannot read move {_quote(text)}: no move is written in more "
                             f"than {MAX_MOVE_TEXT} characters", token.line, token.text)
        try:
            move = self.board.parse_move(text)
        except AmbiguousMoveError as err:
            raise _GameError(_quote_move_message(str(err), text), token.line,
                             token.text) from None
        except (IllegalMoveError, ValueError) as err:
            message = _quote_move_message(str(err), text)
            if not message.startswith(("illegal move", "cannot read move")):
                message = f"illegal move {_quote(text)}: {message}"
            raise _GameError(message, token.line, token.text) from None
        child = GameNode(self.node, move)
        self.node.variations.append(child)
        self.node = child
        if self.variation_start and self.start_comments:
            child.starting_comment = " ".join(self.start_comments)
        self.start_comments = []
        self.variation_start = False
        self.board.push(move)
        self.depth += 1
        if mark is not None:
            child.nags.add(mark)

    def _comment(self, token: _Token) -> None:
        if not token.value:
            return
        if self.variation_start:
            self.start_comments.append(token.value)
        else:
            self.comments.setdefault(self.node, []).append(token.value)

    def _open(self, token: _Token) -> None:
        if self.node.parent is None:
            raise _GameError('variation "(" before any move: a variation is an alternative to '
                             "the move before it", token.line, "(")
        last = self.board.pop()
        self.depth -= 1
        self.stack.append((self.node, last, token.line, self.variation_start, self.depth))
        self.node = self.node.parent
        self.variation_start = True
        self.start_comments = []

    def _close(self, token: _Token) -> None:
        if not self.stack:
            raise _GameError('unexpected ")": no variation is open', token.line, ")")
        if self.variation_start:
            self.warn("empty variation ignored", token.line, ")")
        self.node, last, _, self.variation_start, open_depth = self.stack.pop()
        while self.depth > open_depth:
            self.board.pop()
            self.depth -= 1
        self.board.push(last)
        self.depth += 1
        self.variation_start = False
        self.start_comments = []

    def _result(self, token: _Token) -> bool:
        """A result token: True when it ends the game (outside a variation)."""
        if self.stack:
            self.warn(f"result {_quote(token.text)} inside a variation ignored", token.line,
                      token.text)
            return False
        result = token.value
        headers = self.game.headers
        tag_result = headers.get("Result")
        if tag_result is None or tag_result.strip() in ("", "*"):
            headers["Result"] = result
        elif (result != "*"
              and _CANONICAL_RESULT.get(tag_result.strip()) != _CANONICAL_RESULT[result]):
            self.warn(f"result token {_quote(result)} differs from the Result tag "
                      f"{_quote(tag_result)}", token.line, result)
        return True


class GameReader(Iterator[Game]):
    """Iterator over the games of a PDN source, returned by :func:`read_games`.

    :attr:`errors` lists the :class:`~damier.errors.PdnError` of every game
    skipped (``skip_errors=True``). Without ``skip_errors`` the first bad
    game raises; iterating again goes on with the game after it.
    Use as a context manager (or call :meth:`close`) to close a file opened
    from a path object early.
    """

    def __init__(self, source: _Source, *, variant: Variant | None, skip_errors: bool,
                 errors: list[PdnError] | None, owned: IO[Any] | None = None) -> None:
        self._source = source
        self._lexer = _Lexer(source)
        self._variant = variant
        self._skip_errors = skip_errors
        self._owned = owned
        self._done = False
        self.errors: list[PdnError] = errors if errors is not None else []
        self.games_read = 0
        """Number of games started so far (read or skipped)."""

    def __iter__(self) -> "GameReader":
        return self

    def __next__(self) -> Game:
        while True:
            if self._done:
                raise StopIteration
            game_no = self.games_read + 1
            try:
                game = _parse_game(self._lexer, self._variant, game_no)
            except _GameError as err:
                self.games_read += 1
                error = PdnError(
                    escape_surrogates(f"game {game_no}, line {err.line}: {err.message}"),
                    game=game_no, line=err.line, token=_quote_token(err.token), column=err.column)
                if not err.at_next_game:
                    self._lexer.skip_game(err.in_tags)
                if not self._skip_errors:
                    raise error from None
                self.errors.append(error)
                continue
            if game is None:
                self.close()
                raise StopIteration
            self.games_read += 1
            return game

    def close(self) -> None:
        """Stops reading; closes the file if the reader opened it."""
        self._done = True
        if self._owned is not None:
            self._owned.close()
            self._owned = None

    def _release(self) -> None:
        """Leaves a caller's stream just after what was read (for read_game)."""
        if self._owned is not None:
            self.close()
            return
        stream = self._source.stream
        point = self._lexer.resume_point()
        pending = list(self._source.pushback)
        if self._source.track:
            if point is not None:
                line, col = point
                _seek_line(stream, line, col)
            elif pending:
                _seek_line(stream, pending[0], 0)
            return
        rest = (([point[0].text[point[1]:]] if point is not None else [])
                + [ln.text for ln in pending])
        rest.extend(self._source.leftover)
        if rest:
            try:
                _LEFTOVERS[stream] = rest
            except TypeError:
                pass

    def __enter__(self) -> "GameReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _seek_line(stream: Any, line: _Line, col: int) -> None:
    cookie, bom = line.cookie, False
    if isinstance(cookie, tuple):  # the line started with a byte order mark
        cookie, bom = cookie[1], True
    if line.encoding is not None:
        stream.seek(cookie + (3 if bom else 0) + len(line.text[:col].encode(line.encoding)))
        return
    stream.seek(cookie)
    if col or bom:
        stream.read(col + (1 if bom else 0))


PdnSource = Union[str, bytes, "os.PathLike[str]", IO[str], IO[bytes]]
"""What the readers take: PDN text (str or bytes), a path object, or a stream."""


def _open(file_or_text: Any, *, track: bool) -> tuple[_Source, IO[Any] | None]:
    # A str (or bytes) is PDN text, never a file name: no guessing, so that text from
    # an untrusted source cannot make the reader open a file. Files are named by path
    # objects (os.PathLike), or given open.
    if isinstance(file_or_text, str):
        return _Source(io.StringIO(file_or_text)), None
    if isinstance(file_or_text, (bytes, bytearray)):
        return _Source(io.BytesIO(file_or_text)), None
    if isinstance(file_or_text, os.PathLike):
        handle = open(os.fspath(file_or_text), "rb")
        return _Source(handle), handle
    if hasattr(file_or_text, "readline"):
        return _Source(file_or_text, track=track), None
    raise TypeError("read a str (or bytes) of PDN text, a text or binary stream, or a path object "
                    f"such as pathlib.Path, not {type(file_or_text).__name__}")


def read_games(file_or_text: PdnSource, *, variant: Variant | str | None = None,
               skip_errors: bool = False, errors: list[PdnError] | None = None) -> GameReader:
    """Reads every game of a PDN source: a str (or bytes) of PDN text, a text or
    binary stream, or the file named by a path object (:class:`pathlib.Path`,
    any :class:`os.PathLike`).

    A str is always PDN text, never a file name (``read_games("games.pdn")``
    reads the text ``games.pdn``, a bad game): read a file with
    ``read_games(pathlib.Path("games.pdn"))`` or from an open file.
    ``variant`` overrides the games' ``GameType`` tags. With ``skip_errors``
    bad games are skipped and their :class:`~damier.errors.PdnError` appended
    to ``errors`` (or to the reader's ``errors`` attribute).

    >>> games = list(read_games("1. 32-28 19-23 2-0  1. 33-28 *"))
    >>> [len(g.mainline_moves()) for g in games], [g.headers["Result"] for g in games]
    ([2, 1], ['2-0', '*'])
    >>> errors = []
    >>> [len(g.mainline_moves()) for g in read_games('''[Event "1"]
    ... 1. 32-29 *
    ... [Event "2"]
    ... 1. 32-28 *''', skip_errors=True, errors=errors)]
    [1]
    >>> print(errors[0])
    game 1, line 2: illegal move "32-29": the man on 32 can only go to 27 or 28; legal moves
    are 31-26, 31-27, 32-27, 32-28, 33-28, 33-29, 34-29, 34-30, 35-30
    """
    source, owned = _open(file_or_text, track=False)
    return GameReader(source, variant=get_variant(variant) if variant is not None else None,
                      skip_errors=skip_errors, errors=errors, owned=owned)


def read_game(file_or_text: PdnSource, *, variant: Variant | str | None = None,
              skip_errors: bool = False, errors: list[PdnError] | None = None) -> Game | None:
    """Reads the next game of a PDN source, or returns None at the end.

    The source is as for :func:`read_games`: a str (or bytes) is always PDN
    text, never a file name; a file is read from a path object
    (:class:`pathlib.Path`, any :class:`os.PathLike`) or an open stream.
    On a stream, successive calls read successive games (the stream is left
    just after the game read; line numbers in messages count from where the
    call started). On a path object or a str, the first game is read.
    """
    source, owned = _open(file_or_text, track=True)
    reader = GameReader(source, variant=get_variant(variant) if variant is not None else None,
                        skip_errors=skip_errors, errors=errors, owned=owned)
    try:
        return next(reader, None)
    finally:
        reader._release()


# -- writing ----------------------------------------------------------------------------


def _escape(value: str) -> str:
    value = value.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _comment_token(text: str) -> str:
    return "{" + text.replace("}", "").strip() + "}"


class _Writer:
    def __init__(self, offset: int) -> None:
        self.tokens: list[str] = []
        self.offset = offset
        self._open_paren = 0

    def emit(self, token: str) -> None:
        if self._open_paren:
            token = "(" * self._open_paren + token
            self._open_paren = 0
        self.tokens.append(token)

    def open(self) -> None:
        self._open_paren += 1

    def close(self) -> None:
        self.tokens[-1] += ")"

    def move(self, node: GameNode, board: Any, ply: int, force: bool) -> None:
        if node.starting_comment and node.starts_variation():
            self.emit(_comment_token(node.starting_comment))
            force = True
        try:
            text = board.notation(node.move)
        except ValueError as err:
            raise ValueError(f"cannot write move {node.move!r} at ply {ply + 1}: {err}") from None
        index = ply + self.offset
        number = index // 2 + 1
        if index % 2 == 0:
            self.emit(f"{number}. {text}")
        elif force:
            self.emit(f"{number}... {text}")
        else:
            self.emit(text)
        for nag in sorted(node.nags):
            self.emit(f"${nag}")
        if node.comment.replace("}", "").strip():
            self.emit(_comment_token(node.comment))

    def line(self, node: GameNode, board: Any, ply: int, force: bool) -> None:
        """Writes what follows ``node`` (already written; ``board`` is after it);
        leaves ``board`` as it found it.

        Each line is written move by move; at a move with alternatives, after the
        move itself, each alternative's line is written in parentheses, and then
        the line goes on. The lines waiting for a variation to end are kept on a
        list, not on Python's call stack: variations nested thousands deep (a
        PDN file may hold them) are written too."""
        outer: list[_LineState] = []   # the lines waiting for a variation to end
        state = _LineState(node, ply, force)
        while True:
            if state.main is None:
                if not state.node.variations:   # the end of this line
                    for _ in range(state.pushed):
                        board.pop()
                    if not outer:
                        return
                    board.pop()   # the alternative that this line followed
                    self.close()
                    state = outer.pop()
                    state.force = True
                    continue
                state.main = state.node.variations[0]
                self.move(state.main, board, state.ply, state.force)
                state.force = _has_comment(state.main.comment)
                state.alternatives = iter(state.node.variations[1:])
            alt = next(state.alternatives, None)
            if alt is not None:
                self.open()
                self.move(alt, board, state.ply, True)
                board.push(alt.move)
                outer.append(state)
                state = _LineState(alt, state.ply + 1, _has_comment(alt.comment))
                continue
            main = state.main
            assert main is not None  # written above, before its alternatives
            board.push(main.move)
            state.pushed += 1
            state.node, state.main = main, None
            state.ply += 1


def _has_comment(comment: str) -> bool:
    return bool(comment.replace("}", "").strip())


class _LineState:
    """Where :meth:`_Writer.line` is in one line: the node last played, its ply, whether
    the next move needs its number, the moves played on the board for this line, and
    (once written) the main continuation and the alternatives still to write."""

    __slots__ = ("alternatives", "force", "main", "node", "ply", "pushed")

    def __init__(self, node: GameNode, ply: int, force: bool) -> None:
        self.node = node
        self.ply = ply
        self.force = force
        self.pushed = 0
        self.main: GameNode | None = None
        self.alternatives: Iterator[GameNode] = iter(())


def _wrap(tokens: list[str], columns: int | None) -> list[str]:
    """The tokens joined by spaces into lines of at most ``columns`` characters
    (a longer token on a line of its own); in time linear in their length."""
    lines: list[str] = []
    current: list[str] = []
    width = 0  # of the last line of the tokens in current (a comment may hold line breaks)
    for token in tokens:
        newline = token.find("\n")
        first = len(token) if newline < 0 else newline
        if current and columns and width + 1 + first > columns:
            lines.append(" ".join(current))
            current = []
        last = token.rfind("\n")
        if last >= 0:
            width = len(token) - last - 1
        else:
            width = width + 1 + len(token) if current else len(token)
        current.append(token)
    if current:
        lines.append(" ".join(current))
    return lines


def write_game(game: Game, file: IO[str] | None = None, *, columns: int | None = 80) -> str:
    """The PDN text of ``game`` (ending with a newline); also written to ``file`` if given,
    followed by a blank line so that games written one after another are separated.

    ``columns`` is the line width of the movetext (None or 0: one line).
    """
    variant = game.variant
    headers = game.headers
    raw_result = headers.get("Result", "*")
    if not raw_result.strip():
        raw_result = "*"  # an empty Result tag: unknown, as the reader takes it
    result = result_for_variant(raw_result, variant)
    tag_result = result if result is not None else raw_result

    tags: list[tuple[str, str]] = []
    for name in TAG_ROSTER:
        value = headers.get(name, _TAG_DEFAULTS[name])
        tags.append((name, tag_result if name == "Result" else value))
    game_type = headers.get("GameType", "")
    try:
        keep = bool(game_type) and _game_type_variant(game_type, headers.get("Variant")) == variant
    except ValueError:
        keep = False
    tags.append(("GameType", game_type.strip() if keep else str(variant.game_type)))
    if variant.pdn_variant_tag:
        tags.append(("Variant", variant.pdn_variant_tag))
    fen = headers.get("FEN", "").strip()
    write_fen = bool(fen) and not _same_position(fen, variant)
    if write_fen:
        tags.append(("FEN", fen))
    for name, value in headers.items():
        if name in TAG_ROSTER or name in ("GameType", "FEN"):
            continue
        if name == "Variant" and (variant.pdn_variant_tag
                                  or value.strip().lower() in _VARIANT_TAGS):
            continue   # written above, or a variant tag that would read as another variant
        if name == "SetUp" and not write_fen:
            continue
        tags.append((name, value))

    board = game.board()
    offset = 0 if board.turn == variant.white_starts else 1
    writer = _Writer(offset)
    if game.comment.replace("}", "").strip():
        writer.emit(_comment_token(game.comment))
    for nag in sorted(game.nags):
        writer.emit(f"${nag}")
    writer.line(game, board, 0, True)
    writer.emit(result if result is not None else "*")

    out = [f'[{name} "{_escape(value)}"]' for name, value in tags]
    out.append("")
    out.extend(_wrap(writer.tokens, columns))
    text = "\n".join(out) + "\n"
    if LONE_SURROGATE.search(text) is not None:   # from a comment: the file must be UTF-8
        text = LONE_SURROGATE.sub("\ufffd", text)
    if file is not None:
        file.write(text + "\n")
    return text

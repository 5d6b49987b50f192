"""Differential tests: damier's move generator against py-draughts 1.10.1.

py-draughts (PyPI ``py-draughts``, GPL, a pure-Python program written apart from
damier) is run, never copied, in a child process by :mod:`peers` (it imports as
``draughts``, like pydraughts of the test extra, so it lives in a folder of its
own, installed on first use; without a network the tests skip).

Compared, for each variant both programs play (damier's name : py-draughts'),
International : standard, English : american, Russian, Brazilian, Antidraughts,
Breakthrough, Frisian and Frysk!: the set of legal moves ``(from, to, set of
captured squares)`` in the start position, in positions met in seeded random
playouts from the start position (played by damier; kings, pending captures, both
sides to move), and in seeded random placements with kings; for Frisian and Frysk!
also in positions met in short games from random placements just after one or more
quiet moves of one king (see the king-move limit below); perft on a few of those
positions. The square numbering of both programs is checked first on positions
whose moves were worked out by hand from the board diagrams of the rules (for
Frisian also its captures along rows and files and its value rule).

Frisian and Frysk! (lidraughts' rules of Frisian draughts; Frysk! is Frisian from
``W:W46-50:B1-5``): men and kings capture along the rows and files of dark squares
as well as along the diagonals; the capture of the highest value must be played, a
man counting 100 and a king 199; at equal value a capture made by a king comes
first; kings fly; captured pieces stay on the board until the move ends. On these
the two programs agree in every position compared: 1601 per variant, of which
Frisian (Frysk!) 674 (523) have a capture pending, 531 (405) one along a row or
file, 342 (329) one taking several pieces, 268 (298) one by a king and 263 (270)
one taking a king (:func:`test_frisian_positions_are_varied`). Two things
py-draughts does not do, neither of which makes an exclusion:

* the king-move limit (a player who still has men may make at most three
  non-capturing moves in a row with one king; after that king's third, it may only
  capture): py-draughts' Frisian board does not apply it (its documentation: "This
  rule is tracked but not currently enforced"; run, it still offers a king's moves
  after three quiet moves of that king). The limit depends on the moves before the
  position, which a FEN does not hold: every position here is compared as its FEN
  sets it, on a fresh board with no king-move history, where the limit forbids
  nothing and the two programs must agree exactly. Positions met after a king's
  third quiet move are compared that way too, never with the game's history
  (:func:`test_king_runs_are_not_in_the_fen` checks that the history removes
  exactly that king's quiet moves there, and nothing anywhere else).
* duplicate captures: py-draughts' Frisian ``legal_moves`` lists some captures
  twice (two routes with the same ends and captured pieces, e.g. the black king's
  46x39 taking 16, 17 and 33 in the Frysk! position ``B:W16,17,33,47,48:B1,K46``,
  by 6 and 22 or by 6 and 28), where its other boards keep one, as their
  documentation promises. The moves compared are sets, and :mod:`peers` counts
  such a capture once in perft, as damier and ``tests/data/reference/perft.txt`` do.

Where the two programs disagree, and why (the only exclusions made):

* English: py-draughts' ``AmericanBoard`` treats captures as optional (its
  ``legal_moves`` offers every quiet move next to the captures: "Captures are NOT
  mandatory in American checkers"). The rules of English draughts / American
  checkers make capturing compulsory (the WCDF rules of draughts: a player who
  can capture must; the huff of the traditional rules, removing a piece that
  failed to capture, is no longer played). So against damier's standard English
  rules the quiet moves that py-draughts lists beside a capture are left out, and
  only those (the captures themselves are compared in full; so are all moves
  where no capture exists).
  Against damier with the historical huff rule (``Rules(huff=True)``, under which
  damier too lists the quiet moves next to the captures) nothing is left out.
* Breakthrough: the game ends when a man is crowned (lidraughts' rules of the
  variant), so no position with a king is compared (py-draughts and damier would
  both still list moves there, but no game reaches it).

Nothing else is excluded. Everything is seeded (:class:`random.Random`), so a
failure reproduces; messages name the FEN of the failing position.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache

import pytest

import damier
from damier.fen import format_fen
from damier.rules import Rules
from damier.variants import Variant, get_variant
from peers import PeerMove, py_draughts_legal_moves_by_variant, py_draughts_perfts_by_variant

SEED = 20261127
PLAYOUT_POSITIONS = 1000   # per variant, from random games
RANDOM_POSITIONS = 400     # per variant, random placements with kings
KING_RUN_POSITIONS = 200   # per variant with the king-move limit, reached by a king's run
PERFT_POSITIONS = 12       # per variant, of the playout positions
MAX_REPORTED = 5

PEERS: dict[str, Variant] = {
    "standard": get_variant("international"),
    "american": get_variant("american"),     # damier's English (alias "american")
    "russian": get_variant("russian"),
    "brazilian": get_variant("brazilian"),
    "antidraughts": get_variant("antidraughts"),
    "breakthrough": get_variant("breakthrough"),
    "frisian": get_variant("frisian"),
    "frysk": get_variant("frysk"),
}
"""py-draughts' variant name : the damier variant that plays the same rules."""

NO_KINGS = {get_variant("breakthrough").name}
"""Variants whose games end at the first crowning (no position with a king is compared)."""


def huff_rules(variant: Variant) -> Rules:
    """The variant's usual rules with the historical huff rule (captures optional)."""
    return replace(Rules.for_variant(variant), huff=True)


# -- positions ----------------------------------------------------------------------


def fen_of(pieces: dict[int, str], white: bool) -> str:
    """A PDN FEN of ``pieces`` (square -> ``w`` ``W`` ``b`` ``B``, capitals are kings)."""

    def side(colour: str) -> str:
        items = [("K" if p.isupper() else "") + str(s)
                 for s, p in sorted(pieces.items()) if p.lower() == colour]
        return colour.upper() + ",".join(items)

    return ("W" if white else "B") + ":" + side("w") + ":" + side("b")


def random_placement(rng: random.Random, variant: Variant, kings: bool) -> str:
    """Random men and (if ``kings``) kings on the dark squares; no man on its own
    crowning row; often men near their crowning row (promotions, captures that
    reach it)."""
    n = variant.squares
    count = rng.choice((rng.randint(2, 7), rng.randint(6, n // 2), rng.randint(n // 2, n * 3 // 4)))
    king_rate = rng.choice((0.1, 0.3, 0.6)) if kings else 0.0
    advanced = rng.random() < 0.4
    pieces: dict[int, str] = {}
    for square in rng.sample(range(1, n + 1), count):
        row = variant.row_col(square)[0]
        white = rng.random() < 0.5
        if advanced and rng.random() < 0.7:
            white = row < variant.size // 2            # men in the opponent's half
        king = rng.random() < king_rate
        if not king and row == variant.promotion_row(white):
            if kings and rng.random() < 0.5:
                king = True
            else:
                white = not white                      # the other side's back row
        letter = "w" if white else "b"
        pieces[square] = letter.upper() if king else letter
    return fen_of(pieces, rng.random() < 0.5)


KingRuns = tuple[tuple[int, int], tuple[int, int]]
"""damier's ``Board._king_runs()``: for White then Black, ``(square, count)`` of the king
that made the side's last ``count`` moves without capturing (``(0, 0)``: none)."""

NO_RUNS: KingRuns = ((0, 0), (0, 0))


def playout_fens(rng: random.Random, variant: Variant, count: int,
                 runs: dict[str, tuple[KingRuns, set[PeerMove]]] | None = None) -> list[str]:
    """Positions met in random games from the start position, played by damier.

    If ``runs`` is given (variants with the king-move limit), each position kept whose
    king runs are not empty is recorded in it: its FEN -> (the runs, damier's moves
    there with the game's history); the games then often go on with a quiet move of the
    king that moved last (:func:`choose`), so that many runs reach the limit."""
    fens: list[str] = []
    while len(fens) < count:
        board = damier.Board(variant=variant.name)
        keep = rng.choice((0.1, 0.25, 0.5))
        for ply in range(rng.randint(30, 220)):
            moves = board.legal_moves
            if not moves or (variant.name in NO_KINGS and "K" in board.fen()):
                break
            if ply >= 4 and rng.random() < keep:
                fens.append(plain_fen(board))
                if runs is not None and board._king_runs() != NO_RUNS:
                    runs[fens[-1]] = (board._king_runs(), move_keys(moves))
            board.push(rng.choice(moves) if runs is None else choose(rng, board, moves))
        if variant.name not in NO_KINGS or "K" not in board.fen():
            fens.append(plain_fen(board))
            if runs is not None and board._king_runs() != NO_RUNS:
                runs[fens[-1]] = (board._king_runs(), move_keys(board.legal_moves))
    return fens[:count]


def plain_fen(board: damier.Board) -> str:
    """The position's FEN without the king-run field (py-draughts does not read it): the
    position as the peer sets it up."""
    return format_fen(board.turn, board.piece_map(), board.variant)


def is_king(board: damier.Board, square: int) -> bool:
    piece = board.piece_at(square)
    return piece is not None and piece.king


def side_run(board: damier.Board) -> tuple[int, int]:
    """The king run ``(square, count)`` of the side to move."""
    return board._king_runs()[0 if board.turn else 1]


def choose(rng: random.Random, board: damier.Board, moves: list[damier.Move],
           bias: float = 2 / 3) -> damier.Move:
    """A random move; with probability ``bias``, if the side to move has a quiet king
    move, one of those, of the king that made the side's last moves if it can."""
    if rng.random() >= bias:
        return rng.choice(moves)
    quiet_kings = [m for m in moves if not m.is_capture and is_king(board, m.from_square)]
    square = side_run(board)[0]
    same_king = [m for m in quiet_kings if m.from_square == square]
    return rng.choice(same_king or quiet_kings or moves)


def king_run_fens(rng: random.Random, variant: Variant, count: int,
                  runs: dict[str, tuple[KingRuns, set[PeerMove]]]) -> list[str]:
    """Positions met in short random games from random placements with kings (played
    by damier, :func:`choose`), in each of which the side to move has just made quiet
    moves with one king, often three (then the king-move limit applies in the game);
    recorded in ``runs`` as by :func:`playout_fens`."""
    fens: list[str] = []
    while len(fens) < count:
        board = damier.Board(random_placement(rng, variant, True), variant=variant.name)
        for _ply in range(rng.randint(4, 40)):
            moves = board.legal_moves
            if not moves:
                break
            run = side_run(board)[1]
            if run and rng.random() < (1.0 if run >= 3 else 0.1):
                fens.append(plain_fen(board))
                runs[fens[-1]] = (board._king_runs(), move_keys(moves))
            board.push(choose(rng, board, moves, 0.9))
    return fens[:count]


def move_keys(moves: list[damier.Move]) -> set[PeerMove]:
    return {(m.from_square, m.to_square, m.capture_set) for m in moves}


@lru_cache(maxsize=None)
def positions_and_runs(peer: str) -> tuple[tuple[tuple[str, str], ...],
                                           dict[str, tuple[KingRuns, set[PeerMove]]]]:
    """:func:`positions`, and the king runs of the playout positions that have some
    (see :func:`playout_fens`)."""
    variant = PEERS[peer]
    rng = random.Random(f"{SEED}-{peer}")
    runs: dict[str, tuple[KingRuns, set[PeerMove]]] = {}
    result = [("start", damier.Board(variant=variant.name).fen())]
    limited = variant.king_move_limit is not None
    result += [("playout", fen)
               for fen in playout_fens(rng, variant, PLAYOUT_POSITIONS, runs if limited else None)]
    kings = variant.name not in NO_KINGS
    result += [("random", random_placement(rng, variant, kings)) for _ in range(RANDOM_POSITIONS)]
    if limited:
        result += [("king run", fen)
                   for fen in king_run_fens(rng, variant, KING_RUN_POSITIONS, runs)]
    kept = {fen for _, fen in result}
    return tuple(result), {fen: run for fen, run in runs.items() if fen in kept}


def positions(peer: str) -> tuple[tuple[str, str], ...]:
    """``(origin, fen)``: the start position, playout positions, random placements.
    Each is compared as its FEN sets it (with no king-move history)."""
    return positions_and_runs(peer)[0]


@lru_cache(maxsize=None)
def all_peer_moves() -> dict[str, list[set[PeerMove]]]:
    """py-draughts' moves in the hand-checked positions (:data:`HAND`) followed by
    :func:`positions`, for every variant: one child process for all of them."""
    return py_draughts_legal_moves_by_variant(
        {peer: [fen for fen, _ in hand_cases(peer)] + [fen for _, fen in positions(peer)]
         for peer in PEERS})


def peer_moves(peer: str) -> list[set[PeerMove]]:
    """py-draughts' moves in :func:`positions`."""
    return all_peer_moves()[peer][len(hand_cases(peer)):]


def damier_moves(fen: str, variant: Variant, rules: Rules | None = None) -> set[PeerMove]:
    """damier's moves in the position ``fen`` sets (a fresh board: no history)."""
    board = damier.Board(fen, variant=variant.name, rules=rules)
    return move_keys(board.legal_moves)


def differences(ours: set[PeerMove], theirs: set[PeerMove]) -> str:
    def show(moves: set[PeerMove]) -> str:
        return str(sorted((f, t, sorted(c)) for f, t, c in moves))

    return f"damier lacks {show(theirs - ours)}, damier has extra {show(ours - theirs)}"


def report(failures: list[tuple[str, str, str]], total: int) -> str:
    lines = [f"{len(failures)} of {total} positions differ; first {MAX_REPORTED}:"]
    lines += [f"  [{origin}] {fen}\n      {problem}" for origin, fen, problem in
              failures[:MAX_REPORTED]]
    return "\n".join(lines)


def compare_all(peer: str, rules: Rules | None,
                adjust: Callable[[set[PeerMove]], set[PeerMove]] | None = None) -> None:
    variant = PEERS[peer]
    specs = positions(peer)
    failures = []
    for (origin, fen), theirs in zip(specs, peer_moves(peer), strict=True):
        if adjust is not None:
            theirs = adjust(theirs)
        ours = damier_moves(fen, variant, rules)
        if ours != theirs:
            failures.append((origin, fen, differences(ours, theirs)))
    assert not failures, report(failures, len(specs))


# -- hand-checked positions: the numbering ---------------------------------------------

# Moves worked out by hand on the board diagrams of the rules: squares numbered
# from 1 (top row, second square, as White sees the board) row by row; White's men
# move up. Comments give the squares' names (file letter, rank as White sees it).
HAND: list[tuple[str, str, set[PeerMove]]] = [
    # 10x10: man d4 (32) takes e5 (28) landing on f6 (23): the classic 32x23.
    ("standard", "W:W32:B28", {(32, 23, frozenset({28}))}),
    # King on a1 (46) along the long diagonal a1-j10 (41 37 32 28 23 19 14 10 5).
    ("standard", "W:WK46:B", {(46, s, frozenset()) for s in (41, 37, 32, 28, 23, 19, 14, 10, 5)}),
    # English: Black's seven opening moves (9-13 9-14 10-14 10-15 11-15 11-16 12-16).
    ("american", "B:W21-32:B1-12",
     {(9, 13, frozenset()), (9, 14, frozenset()), (10, 14, frozenset()), (10, 15, frozenset()),
      (11, 15, frozenset()), (11, 16, frozenset()), (12, 16, frozenset())}),
    # White's seven replies (21-17 22-17 22-18 23-18 23-19 24-19 24-20).
    ("american", "W:W21-32:B1-12",
     {(21, 17, frozenset()), (22, 17, frozenset()), (22, 18, frozenset()), (23, 18, frozenset()),
      (23, 19, frozenset()), (24, 19, frozenset()), (24, 20, frozenset())}),
    # A king in the single corner a1 (29) has one move; in the double corner g1 (32), two.
    ("american", "W:WK29:B", {(29, 25, frozenset())}),
    ("american", "W:WK32:B", {(32, 27, frozenset()), (32, 28, frozenset())}),
    # Black man f6 (11) takes e5 (15), landing on d4 (18).
    ("american", "B:W15:B11", {(11, 18, frozenset({15}))}),
    # An English man does not capture backwards: white d4 (18), black c3 (22) behind it.
    ("american", "W:W18:B22", {(18, 14, frozenset()), (18, 15, frozenset())}),
    # A Russian man does: d4 (18) takes c3 (22), landing on b2 (25).
    ("russian", "W:W18:B22", {(18, 25, frozenset({22}))}),
    # Russian: white f6 (11) takes e7 (7), is crowned on d8 (2) and goes on as a king,
    # taking b6 (9) and landing on a5 (13).
    ("russian", "W:W11:B7,9", {(11, 13, frozenset({7, 9}))}),
    # Brazilian: the same capture ends on d8 (2); the man is crowned after the move.
    ("brazilian", "W:W11:B7,9", {(11, 2, frozenset({7}))}),
    # Frisian (10x10 numbering; square s on row (s - 1) // 5, on the columns 1 3 5 7 9 of
    # even rows, 0 2 4 6 8 of odd ones). Man 28 (row 5, column 4) takes 29, its neighbour
    # on the row (column 6), landing on 30 (column 8): a capture along a row.
    ("frisian", "W:W28:B29", {(28, 30, frozenset({29}))}),
    # ... and backwards along its file: 38 (row 7) is taken, landing on 48 (row 9).
    ("frisian", "W:W28:B38", {(28, 48, frozenset({38}))}),
    # The value rule: taking the king on 27 (199, landing on 26) is worth less than the
    # two men 29 and 24 (200: 28x30 along the row, then 30x19 along the diagonal).
    ("frisian", "W:W28:B24,29,K27", {(28, 19, frozenset({24, 29}))}),
    # At equal value (one man each) the king's capture comes first: king 46 takes 41
    # along the long diagonal and lands on 37 or 32 (28 is its own man), where the man on
    # 28 could take 29.
    ("frisian", "W:W28,K46:B29,41", {(46, 37, frozenset({41})), (46, 32, frozenset({41}))}),
    # Frysk!: White's nine opening moves, from the back row 46-50 to 41-45.
    ("frysk", "W:W46-50:B1-5",
     {(46, 41, frozenset()), (47, 41, frozenset()), (47, 42, frozenset()),
      (48, 42, frozenset()), (48, 43, frozenset()), (49, 43, frozenset()),
      (49, 44, frozenset()), (50, 44, frozenset()), (50, 45, frozenset())}),
]


def hand_cases(peer: str) -> list[tuple[str, set[PeerMove]]]:
    return [(fen, expected) for p, fen, expected in HAND if p == peer]


def without_optional_quiets(moves: set[PeerMove]) -> set[PeerMove]:
    """py-draughts' American moves less the quiet moves it offers beside a capture
    (capturing is compulsory in English draughts, the WCDF rules; see the module docs)."""
    captures = {m for m in moves if m[2]}
    return captures if captures else moves


def test_numbering_on_hand_checked_positions() -> None:
    """Both programs give the moves worked out by hand (so their square numbers agree);
    py-draughts' English less its optional quiet moves beside a capture."""
    failures = []
    for peer, variant in PEERS.items():
        cases = hand_cases(peer)
        for (fen, expected), got in zip(cases, all_peer_moves()[peer], strict=False):
            if peer == "american":
                got = without_optional_quiets(got)
            if got != expected:
                failures.append(f"py-draughts {peer} {fen}: {differences(got, expected)}")
            ours = damier_moves(fen, variant)
            if ours != expected:
                failures.append(f"damier {variant.name} {fen}: {differences(ours, expected)}")
    assert not failures, "\n".join(failures)


def test_py_draughts_english_captures_are_optional() -> None:
    """The one deviation of py-draughts found (see the module docs): beside black's
    capture 11x18 it offers the quiet move 11-16, as damier does under the huff rule
    only."""
    fen = "B:W15:B11"
    index = [f for f, _ in hand_cases("american")].index(fen)
    capture: PeerMove = (11, 18, frozenset({15}))
    quiet: PeerMove = (11, 16, frozenset())
    assert all_peer_moves()["american"][index] == {capture, quiet}
    assert damier_moves(fen, PEERS["american"]) == {capture}
    assert damier_moves(fen, PEERS["american"], huff_rules(PEERS["american"])) == {capture, quiet}


# -- the comparisons ---------------------------------------------------------------------


def test_generated_positions_are_varied() -> None:
    """The positions really have kings, captures, both sides to move."""
    for peer, variant in PEERS.items():
        fens = [fen for _, fen in positions(peer)]
        king_runs = KING_RUN_POSITIONS if variant.king_move_limit is not None else 0
        assert len(fens) == 1 + PLAYOUT_POSITIONS + RANDOM_POSITIONS + king_runs
        kings = sum("K" in fen for fen in fens)
        if variant.name in NO_KINGS:
            assert kings == 0, peer
        else:
            assert kings > len(fens) // 5, (peer, kings)
        assert sum(fen.startswith("B") for fen in fens) > len(fens) // 4, peer
        captures = sum(damier.Board(fen, variant=variant.name).must_capture for fen in fens)
        assert captures > len(fens) // 10, (peer, captures)


@pytest.mark.slow
@pytest.mark.parametrize("peer", [p for p in PEERS if p != "american"])
def test_legal_moves_match(peer: str) -> None:
    compare_all(peer, None)


@pytest.mark.slow
def test_english_legal_moves_match_with_compulsory_capture() -> None:
    compare_all("american", None, without_optional_quiets)


@pytest.mark.slow
def test_english_legal_moves_match_with_huff_rule() -> None:
    """With the huff rule damier lists the quiet moves beside the captures, as
    py-draughts does: the move sets agree in full."""
    compare_all("american", huff_rules(PEERS["american"]))


def python_perft(board: damier.Board, depth: int) -> int:
    """Perft through damier's Python API (``legal_moves``, ``push``, ``pop``)."""
    moves = board.legal_moves
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    total = 0
    for move in moves:
        board.push(move)
        total += python_perft(board, depth - 1)
        board.pop()
    return total


def perft_fens(peer: str) -> list[str]:
    """The start position and a spread of the playout positions."""
    playouts = [fen for origin, fen in positions(peer) if origin == "playout"]
    step = len(playouts) // PERFT_POSITIONS
    return [damier.Board(variant=PEERS[peer].name).fen(), *playouts[::step][:PERFT_POSITIONS]]


PERFT_DEPTH = 3


@lru_cache(maxsize=None)
def all_peer_perfts() -> dict[str, list[int]]:
    """py-draughts' perft of :func:`perft_fens` for every variant (one child process)."""
    return py_draughts_perfts_by_variant({peer: perft_fens(peer) for peer in PEERS}, PERFT_DEPTH)


@pytest.mark.slow
@pytest.mark.parametrize("peer", list(PEERS))
def test_perft_matches(peer: str) -> None:
    """Perft 3 (the start position and some playout positions); English with the
    huff rule, whose move tree py-draughts' optional captures give."""
    variant = PEERS[peer]
    fens = perft_fens(peer)
    failures = []
    for fen, expected in zip(fens, all_peer_perfts()[peer], strict=True):
        if peer == "american":
            # py-draughts' optional captures are damier's huff rule: Board.perft counts
            # that tree, and so does a walk through legal_moves / push / pop
            board = damier.Board(fen, variant=variant.name, rules=huff_rules(variant))
            got = board.perft(PERFT_DEPTH)
            assert got == python_perft(board, PERFT_DEPTH), fen
        else:
            got = damier.Board(fen, variant=variant.name).perft(PERFT_DEPTH)
        if got != expected:
            failures.append(("perft", fen, f"perft({PERFT_DEPTH}) = {got}, py-draughts {expected}"))
    assert not failures, report(failures, len(fens))


# -- Frisian and Frysk! ------------------------------------------------------------------

FRISIAN_PEERS = [peer for peer, variant in PEERS.items() if variant.orthogonal_captures]


def is_orthogonal(variant: Variant, move: damier.Move) -> bool:
    """Whether some step of the capture ``move`` runs along a row or a file."""
    path = [variant.row_col(s) for s in move.path]
    return any(a[0] == b[0] or a[1] == b[1] for a, b in zip(path, path[1:], strict=False))


def capture_counts(peer: str) -> dict[str, int]:
    """How many of :func:`positions` have each kind of capture pending (damier's moves;
    the comparisons check them against py-draughts')."""
    variant = PEERS[peer]
    counts = dict.fromkeys(("capture", "multi-capture", "king captures", "king taken",
                            "orthogonal"), 0)
    for _, fen in positions(peer):
        board = damier.Board(fen, variant=variant.name)
        captures = [m for m in board.legal_moves if m.is_capture]
        if not captures:
            continue
        assert all(m.has_path for m in captures), fen
        counts["capture"] += 1
        counts["multi-capture"] += any(len(m.captures) > 1 for m in captures)
        counts["king captures"] += any(is_king(board, m.from_square) for m in captures)
        counts["king taken"] += any(is_king(board, s) for m in captures for s in m.captures)
        counts["orthogonal"] += any(is_orthogonal(variant, m) for m in captures)
    return counts


def test_frisian_positions_are_varied() -> None:
    """The Frisian and Frysk! positions compared have every kind of capture pending:
    several pieces, by a king, of a king, along a row or file."""
    for peer in FRISIAN_PEERS:
        counts = capture_counts(peer)
        total = len(positions(peer))
        assert counts["capture"] > total // 4, (peer, counts)
        for kind, count in counts.items():
            assert count > total // 20, (peer, kind, counts)


def side_has_men(fen: str, white: bool) -> bool:
    pieces = fen.split(":")[1 if white else 2][1:]
    return any(p and not p.startswith("K") for p in pieces.split(","))


@pytest.mark.slow
@pytest.mark.parametrize("peer", FRISIAN_PEERS)
def test_king_runs_are_not_in_the_fen(peer: str) -> None:
    """Why positions are compared as their FENs set them without the king-run field
    (py-draughts does not read it): where the side to move has just made three quiet
    moves with one king and still has men, the king-move limit (lidraughts' rules of
    Frisian draughts: no more than three non-capturing moves in a row with the same
    king, unless the player has no men left) forbids that king's quiet moves in the
    game, but not in the position the plain FEN sets, which is what py-draughts gets
    (and it lists them). Anywhere else the history changes nothing. The FEN with
    Lidraughts' king-run field (``+<black run><square>+<white run><square>``) gives
    damier the game's moves back."""
    variant = PEERS[peer]
    limit = variant.king_move_limit
    assert limit is not None
    specs = positions(peer)
    theirs = {fen: moves for (_, fen), moves in zip(specs, peer_moves(peer), strict=True)}
    runs = positions_and_runs(peer)[1]
    limited = 0
    for fen, (king_runs, in_game) in runs.items():
        fresh = damier_moves(fen, variant)
        white = fen.startswith("W")
        square, count = king_runs[0 if white else 1]
        expected = fresh
        if count >= limit and side_has_men(fen, white):
            expected = {m for m in fresh if m[0] != square or m[2]}
        assert in_game == expected, (fen, king_runs, differences(in_game, expected))
        if (count >= limit and side_has_men(fen, white)
                and is_king(damier.Board(fen, variant=variant.name), square)):
            field = f"+0+{count}{square}" if white else f"+{count}{square}+0"
            assert damier_moves(f"{fen}:{field}", variant) == in_game, (fen, field)
        if in_game != fresh:
            limited += 1
            assert theirs[fen] == fresh, (fen, differences(fresh, theirs[fen]))
    assert len(runs) > 100, len(runs)
    assert limited > 10, limited

"""Draw rules and game end, move by move, through real :class:`damier.Board` play.

Every test sets up a real position by FEN, pushes legal moves one ply at a
time and checks ``board.outcome()``, ``board.is_game_over()`` and
``board.result()`` after every ply: the game goes on until the exact ply the
rule names, ends there with the right :class:`~damier.Termination` and
winner, and ``pop()`` takes the ending back.

The expected plies come from the rule texts (seeds 000, 001 and 003, and the
Russian rules documented in :mod:`damier.rules`), never from running the
code. "Drawn after both players made N moves" is reached 2N plies after the
position where the count starts, and not one ply earlier.

The long king shuffles are chosen by :class:`Walk` from ``board.legal_moves``:
a king move that captures nothing, after which no piece of either side can be
captured and the opponent still has a quiet reply, and whose position has
occurred at most once before (so the shuffles never make a threefold
repetition by accident). The walk only looks at legal moves and FENs, never
at the draw-rule code.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from damier import BLACK, WHITE, Board, Move, Outcome, Rules, Termination

FMJD = Rules.for_variant("international")
RUSSIAN = Rules.for_variant("russian")
ENGLISH = Rules.for_variant("english")

T = Termination
RESULT = {WHITE: "1-0", BLACK: "0-1", None: "1/2-1/2"}
# Board.result() writes the variant's notation: the FMJD's 2-0, 1-1, 0-2 except in English
NOTATION = {"1-0": "2-0", "0-1": "0-2", "1/2-1/2": "1-1"}


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def plies(board: Board) -> int:
    """Plies pushed since the FEN was set up."""
    return len(board.move_stack)


def assert_going_on(board: Board) -> None:
    outcome = board.outcome()
    assert outcome is None, f"game ended early at ply {plies(board)} in {board.fen()}: {outcome}"
    assert not board.is_game_over()
    assert board.result() == "*"


def assert_over(board: Board, termination: Termination, winner=None) -> None:
    outcome = board.outcome()
    assert outcome == Outcome(termination, winner), (
        f"at ply {plies(board)} in {board.fen()}: expected {termination} winner={winner}, "
        f"got {outcome}")
    assert board.is_game_over()
    assert outcome.result() == RESULT[winner]
    expected = RESULT[winner]
    assert board.result() == (expected if board.variant.title == "English"
                              else NOTATION[expected])


def assert_pop_takes_back(board: Board, termination: Termination, winner=None) -> None:
    """pop() undoes the ending; pushing the same move again restores it."""
    move = board.pop()
    assert_going_on(board)
    board.push(move)
    assert_over(board, termination, winner)


def material(board: Board) -> tuple[int, int, int, int]:
    """(white men, white kings, black men, black kings)."""
    counts = Counter((p.color, p.king) for p in board.piece_map().values())
    return (counts[(WHITE, False)], counts[(WHITE, True)], counts[(BLACK, False)],
            counts[(BLACK, True)])


class Walk:
    """Plays quiet moves on ``board`` and remembers how often each position
    occurred since the last man move or capture (positions are FENs, which
    include the side to move).

    ``keep`` lists squares whose pieces the walk never moves and ``zone``
    maps a colour to the squares its kings may go to, until the first capture
    (the set-up for a later sacrifice).
    Ties between equally fresh moves are broken by a seeded random number
    generator, so every run plays the same game.
    """

    def __init__(self, board: Board, *, keep=(), zone=None, seed: int = 1) -> None:
        self.board = board
        self.seen: Counter[str] = Counter([board.fen()])
        self.keep = set(keep)
        self.zone = dict(zone or {})
        self.rng = random.Random(seed)

    # -- basics ------------------------------------------------------------

    def _quiet(self) -> bool:
        """The side to move has a move, and neither side could capture anything
        (the side that just moved is checked on a copy with the turn flipped)."""
        b = self.board
        legal = b.legal_moves
        if not legal or any(m.is_capture for m in legal):
            return False
        fen = b.fen()
        flipped = Board(("B" if fen[0] == "W" else "W") + fen[1:], variant=b.variant)
        return not flipped.must_capture

    def _king_moves(self) -> list[Move]:
        b = self.board
        zone = self.zone.get(b.turn)
        return [m for m in b.legal_moves
                if not m.is_capture and b.piece_at(m.from_square).king
                and m.from_square not in self.keep
                and (zone is None or m.to_square in zone)]

    def _has_quiet_king_reply(self) -> bool:
        b = self.board
        for move in self._king_moves():
            b.push(move)
            ok = self.seen[b.fen()] < 2 and self._quiet()
            b.pop()
            if ok:
                return True
        return False

    def push(self, move: Move | str) -> Move:
        b = self.board
        if isinstance(move, str):
            move = b.parse_move(move)
        irreversible = move.is_capture or not b.piece_at(move.from_square).king
        played = b.push(move)
        if irreversible:
            self.seen.clear()
        if move.is_capture:  # the set-up for the sacrifice is over
            self.keep.clear()
            self.zone.clear()
        self.seen[b.fen()] += 1
        return played

    def _pick(self, candidates, good) -> Move:
        """A candidate after which ``good()`` holds and whose position occurred
        at most once before: the freshest first, then those leaving the mover's
        kings free to move."""
        b = self.board
        scored = []
        for move in candidates:
            b.push(move)
            fen = b.fen()
            seen = self.seen[fen]
            # how free the mover's kings will be next time (short kings get stuck in corners)
            flipped = Board(("B" if fen[0] == "W" else "W") + fen[1:], variant=b.variant)
            freedom = sum(1 for m in flipped.legal_moves if flipped.piece_at(m.from_square).king)
            b.pop()
            if seen < 2:
                scored.append((seen, -min(freedom, 4), self.rng.random(), move))
        scored.sort(key=lambda item: item[:3])
        for *_, move in scored:
            b.push(move)
            ok = good()
            b.pop()
            if ok:
                return move
        raise AssertionError(f"test set-up: no suitable move in {b.fen()} among {list(candidates)}")

    def _calm(self) -> bool:
        return self._quiet() and self._has_quiet_king_reply()

    # -- moves ---------------------------------------------------------------

    def king_move(self) -> Move:
        """A quiet king move (captures nothing, allows no capture, no third occurrence)."""
        assert not self.board.must_capture, (
            f"test set-up: a capture is pending in {self.board.fen()}")
        return self.push(self._pick(self._king_moves(), self._calm))

    def man_move(self, *, promote: bool = False) -> Move:
        """A quiet man move; it crowns the man when ``promote`` and never otherwise."""
        b = self.board
        assert not b.must_capture, f"test set-up: a capture is pending in {b.fen()}"
        before = material(b)
        moves = []
        for m in b.legal_moves:
            if b.piece_at(m.from_square).king or m.from_square in self.keep:
                continue
            b.push(m)
            crowned = material(b) != before
            b.pop()
            if crowned == promote:
                moves.append(m)
        return self.push(self._pick(moves, self._calm))

    def _good_captures(self, by_king) -> list[Move]:
        """Captures of one piece (by a king when ``by_king``) after which the game is calm."""
        b = self.board
        result = []
        for m in b.legal_moves:
            if not m.is_capture or len(m.captures) != 1:
                continue
            if by_king is not None and b.piece_at(m.from_square).king != by_king:
                continue
            b.push(m)
            ok = self._calm()
            b.pop()
            if ok:
                result.append(m)
        return result

    def offer(self, *, king: bool = False, taken_by_king: bool | None = None) -> Move:
        """A quiet move of a man (or a king) that leaves the opponent a capture of
        that one piece, after which the game is calm again; see :meth:`capture`."""
        b = self.board
        assert not b.must_capture
        moves = [m for m in b.legal_moves
                 if b.piece_at(m.from_square).king == king and not m.is_capture]
        self._taken_by_king = taken_by_king
        return self.push(self._pick(
            moves, lambda: b.must_capture and bool(self._good_captures(taken_by_king))))

    def capture(self) -> Move:
        """Takes the piece just offered (see :meth:`offer`)."""
        b = self.board
        assert b.must_capture, f"test set-up: no capture in {b.fen()}"
        return self.push(self._pick(self._good_captures(self._taken_by_king), lambda: True))

    # -- checked play ---------------------------------------------------------------

    def going_on(self, count: int, step=None) -> None:
        """Plays ``count`` plies with ``step`` (default: quiet king moves); the game goes on
        after each."""
        step = step or self.king_move
        for _ in range(count):
            step()
            assert_going_on(self.board)

    def until(self, ply: int, step=None) -> None:
        """Plays quiet plies up to (not including) ``ply``; the game goes on after each."""
        assert plies(self.board) < ply
        self.going_on(ply - plies(self.board) - 1, step)
        assert plies(self.board) == ply - 1

    def ends_at(self, ply: int, termination: Termination, winner=None, step=None) -> None:
        """Plays on quietly: the game goes on up to ``ply - 1`` and ends at ``ply``."""
        step = step or self.king_move
        self.until(ply, step)
        step()
        assert plies(self.board) == ply
        assert_over(self.board, termination, winner)
        assert_pop_takes_back(self.board, termination, winner)


def push_quiet(board: Board, text: str) -> None:
    """Plays ``text`` and checks that it captured nothing and allows no capture."""
    move = board.push(text)
    assert not move.is_capture
    assert not any(m.is_capture for m in board.legal_moves), f"capture possible in {board.fen()}"


# Squares on the edge of the 10x10 and 8x8 boards: a piece there cannot be captured.
INTL_EDGE = frozenset({1, 2, 3, 4, 5, 6, 15, 16, 25, 26, 35, 36, 45, 46, 47, 48, 49, 50})
# Squares from which a king captures a man on 30 (the diagonals 2-35 and 25-48).
ATTACKS_30 = frozenset({2, 8, 13, 19, 24, 25, 34, 39, 43, 48})
SMALL_EDGE = frozenset({1, 2, 3, 4, 5, 12, 13, 20, 21, 28, 29, 30, 31, 32})
# Kings with men, eight pieces: no endgame rule applies. Every piece starts on
# an edge square (edge pieces cannot be captured).
INTL_MIDDLE = "W:WK6,46,47,48:BK45,3,4,5"
INTL_MIDDLE_BLACK = "B:WK6,46,47,48:BK45,3,4,5"
# 8x8 (Russian, Brazilian): same idea.
SMALL_MIDDLE = "W:WK5,29,30,31:BK28,2,3,4"
# English: Black moves first; short kings.
ENGLISH_MIDDLE = "B:WK21,31,32:BK12,1,2"


# --------------------------------------------------------------------------
# No legal move: the side to move loses (seed 000, seed 001, seed 003)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("fen, variant, winner", [
    ("W:W:B1", "international", BLACK),           # White has no pieces
    ("B:W50:B", "international", WHITE),          # Black has no pieces
    ("W:W6:B1", "international", BLACK),          # white man on 6 blocked by 1 (an edge piece)
    ("B:W40,44:B35", "international", WHITE),     # black man on 35 blocked by 40,
                                                  # capture blocked by 44
    ("B:W21:B", "english", WHITE),
    ("W:W:BK1", "russian", BLACK),
])
def test_no_legal_move_in_the_set_up_position_loses(fen, variant, winner):
    board = Board(fen, variant=variant)
    assert board.legal_moves == []
    assert_over(board, T.NO_MOVES, winner)


def test_capturing_the_last_piece_wins_on_that_ply():
    board = Board("W:W32:B18")
    board.push("32-28")
    assert_going_on(board)
    assert len(board.legal_moves) == 2  # 18-22 and 18-23: both put the man en prise
    board.push("18-23")
    assert_going_on(board)  # White must capture, but the game goes on
    assert board.must_capture
    board.push("28x19")
    assert material(board) == (1, 0, 0, 0)
    assert_over(board, T.NO_MOVES, WHITE)
    assert_pop_takes_back(board, T.NO_MOVES, WHITE)


def test_black_wins_by_capturing_the_last_white_piece():
    # English: Black moves first; the black king takes White's last man.
    board = Board("B:W22:BK9", variant="english")
    board.push("9-13")
    assert_going_on(board)
    board.push("22-17")  # the white man walks next to the king
    assert_going_on(board)
    assert board.must_capture
    board.push("13x22")
    assert material(board) == (0, 0, 0, 1)
    assert_over(board, T.NO_MOVES, BLACK)
    assert_pop_takes_back(board, T.NO_MOVES, BLACK)


def test_blocking_the_last_black_man_wins():
    # The black man on 35 can only go to 40 (White's); 44 behind 40 blocks the capture.
    board = Board("W:W40,49:B35")
    board.push("49-43")
    assert_going_on(board)  # 44 is empty: Black captures 35x44
    assert board.must_capture
    board.pop()
    board.push("49-44")
    assert board.legal_moves == []
    assert_over(board, T.NO_MOVES, WHITE)
    assert_pop_takes_back(board, T.NO_MOVES, WHITE)


def test_blocking_the_last_white_man_wins_for_black():
    # The white man on 16 can only go to 11 (Black's); a man on 7 blocks the capture.
    board = Board("B:W16:B2,11")
    assert_going_on(board)
    board.push("2-8")
    assert_going_on(board)  # 7 is empty: White captures 16x7
    assert board.must_capture
    board.pop()
    board.push("2-7")
    assert board.legal_moves == []
    assert_over(board, T.NO_MOVES, BLACK)
    assert_pop_takes_back(board, T.NO_MOVES, BLACK)


def test_english_blocked_man_loses():
    # The white man on 21 can only go to 17 (Black's); a man on 14 blocks the capture.
    board = Board("B:W21:B10,17", variant="english")
    board.push("10-15")
    assert_going_on(board)  # 14 is empty: White captures 21x14
    assert board.must_capture
    board.pop()
    board.push("10-14")
    assert board.legal_moves == []
    assert_over(board, T.NO_MOVES, BLACK)
    assert_pop_takes_back(board, T.NO_MOVES, BLACK)


# --------------------------------------------------------------------------
# Threefold repetition (seed 000: same side to move; seed 001: not necessarily consecutive)
# --------------------------------------------------------------------------


def test_threefold_repetition_not_consecutive():
    board = Board(INTL_MIDDLE)  # position A, White to move (1st occurrence)
    first_cycle = ["6-1", "45-50", "1-6", "50-45"]  # back to A: 2nd occurrence
    other_cycle = ["6-50", "45-1", "50-6", "1-45"]  # other positions, back to A: 3rd occurrence
    for text in first_cycle:
        push_quiet(board, text)
        assert_going_on(board)
    assert board.fen() == Board(INTL_MIDDLE).fen()  # twofold: not a draw
    for text in other_cycle[:-1]:
        push_quiet(board, text)
        assert_going_on(board)
    push_quiet(board, other_cycle[-1])
    assert plies(board) == 8
    assert_over(board, T.THREEFOLD_REPETITION)
    assert_pop_takes_back(board, T.THREEFOLD_REPETITION)


def test_threefold_repetition_needs_the_same_side_to_move():
    # The white king triangulates (1-12, 12-7, 7-1): the pieces stand as at
    # the start after ply 5, but with Black to move.
    start = "W:WK1,46,47,48:BK5,3,4"
    board = Board(start)
    moves = ["1-12", "5-10", "12-7", "10-5", "7-1",       # ply 5: placement P, Black to move (1st)
             "5-10", "1-6", "10-5", "6-1",                # ply 9: P, Black to move (2nd);
                                                          # P 3 times in all
             "5-10", "1-6", "10-5", "6-1"]                # ply 13: P, Black to move (3rd)
    placement = Board(start).piece_map()
    for ply, text in enumerate(moves, start=1):
        push_quiet(board, text)
        if ply in (5, 9, 13):
            assert board.piece_map() == placement and board.turn == BLACK
        if ply < 13:
            assert_going_on(board)
    assert_over(board, T.THREEFOLD_REPETITION)
    assert_pop_takes_back(board, T.THREEFOLD_REPETITION)


def test_threefold_repetition_after_a_man_move():
    # Position A occurs twice, then a man move: the positions after it need
    # three occurrences of their own.
    board = Board(INTL_MIDDLE)
    for text in ["6-1", "45-50", "1-6", "50-45"]:
        push_quiet(board, text)
    push_quiet(board, "47-42")  # ply 5: position B, Black to move (1st occurrence)
    assert_going_on(board)
    cycle = ["45-50", "6-1", "50-45", "1-6"]
    for text in cycle:  # B for the 2nd time at ply 9
        push_quiet(board, text)
        assert_going_on(board)
    for text in cycle[:-1]:
        push_quiet(board, text)
        assert_going_on(board)
    push_quiet(board, cycle[-1])
    assert plies(board) == 13
    assert_over(board, T.THREEFOLD_REPETITION)
    assert_pop_takes_back(board, T.THREEFOLD_REPETITION)


def test_repetition_switched_off_leaves_the_king_move_rule():
    rules = replace(FMJD, repetition_limit=None)
    board = Board(INTL_MIDDLE, rules=rules)
    cycle = ["6-1", "45-50", "1-6", "50-45"]
    for ply in range(1, 50):
        push_quiet(board, cycle[(ply - 1) % 4])
        assert_going_on(board)  # A occurs for the 3rd time at ply 8, 4th at 12, ...
    push_quiet(board, cycle[49 % 4])
    assert_over(board, T.KING_MOVES)  # 25 king moves each: ply 50
    assert_pop_takes_back(board, T.KING_MOVES)


def test_twofold_repetition_limit_option():
    board = Board(INTL_MIDDLE, rules=replace(FMJD, repetition_limit=2))
    for text in ["6-1", "45-50", "1-6"]:
        push_quiet(board, text)
        assert_going_on(board)
    push_quiet(board, "50-45")
    assert_over(board, T.THREEFOLD_REPETITION)


# --------------------------------------------------------------------------
# 25 king moves each without capture (seed 000; seed 001 as a tournament rule)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("fen", [INTL_MIDDLE, INTL_MIDDLE_BLACK])
def test_25_king_moves_each_is_a_draw_on_ply_50(fen):
    walk = Walk(Board(fen))
    walk.ends_at(50, T.KING_MOVES)


def test_king_move_count_restarts_after_a_white_man_move():
    walk = Walk(Board(INTL_MIDDLE))
    walk.until(31)
    walk.man_move()  # ply 31
    assert_going_on(walk.board)
    walk.ends_at(31 + 50, T.KING_MOVES)  # ply 50 passes without a draw


def test_king_move_count_restarts_after_a_black_man_move():
    walk = Walk(Board(INTL_MIDDLE))
    walk.until(48)
    walk.man_move()  # ply 48, two plies before the draw
    assert_going_on(walk.board)
    walk.ends_at(48 + 50, T.KING_MOVES)


def test_king_move_count_restarts_after_a_capture_by_a_king():
    # Black has a second king to sacrifice: the capture is made by a king.
    walk = Walk(Board("W:WK6,46,47,48:BK45,K15,3,4,5"))
    walk.until(42)
    offered = walk.offer(king=True, taken_by_king=True)  # ply 42: a black king move, no capture
    assert plies(walk.board) == 42 and not offered.is_capture
    assert_going_on(walk.board)
    taken = walk.capture()  # ply 43
    assert taken.is_capture
    assert material(walk.board) == (3, 1, 3, 1)
    assert_going_on(walk.board)
    walk.ends_at(43 + 50, T.KING_MOVES)


def test_king_move_count_restarts_after_a_promotion():
    # A man that crowns moved as a man: the 25 king moves start again after it.
    walk = Walk(Board("W:WK46,7,47,48:BK50,3,4,5"))
    walk.until(21)
    walk.man_move(promote=True)  # ply 21
    assert material(walk.board) == (2, 2, 3, 1)
    assert_going_on(walk.board)
    walk.ends_at(21 + 50, T.KING_MOVES)


@pytest.mark.parametrize("variant, fen", [
    ("international", INTL_MIDDLE),
    ("brazilian", SMALL_MIDDLE),
    ("russian", SMALL_MIDDLE),
    ("english", ENGLISH_MIDDLE),
])
def test_king_move_rule_switched_off(variant, fen):
    rules = replace(Rules.for_variant(variant), king_moves_limit=None)
    walk = Walk(Board(fen, variant=variant, rules=rules))
    limit = Rules.for_variant(variant).king_moves_limit
    walk.going_on(2 * limit + 10)  # 8 pieces: no other rule applies


def test_king_move_limit_option():
    walk = Walk(Board(INTL_MIDDLE, rules=replace(FMJD, king_moves_limit=3)))
    walk.ends_at(6, T.KING_MOVES)


def test_four_pieces_against_a_lone_king_is_only_the_king_move_rule():
    # A lone king against four pieces: neither the 16- nor the 5-move rule.
    walk = Walk(Board("W:WK6,46,47,48:BK45"))
    walk.ends_at(50, T.KING_MOVES)


# --------------------------------------------------------------------------
# The 16-move rule (seed 000; seed 001 as a tournament rule)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("fen", [
    "W:WK6,46,47:BK45",        # king and two men against a king
    "W:WK6,K50,46:BK45",       # two kings and a man
    "W:WK6,K50,K1:BK45",       # three kings
    "W:WK45:BK6,3,4",          # lone white king, Black has a king and two men
    "B:WK6:BK45,K1,5",         # Black to move first
])
def test_sixteen_move_rule_draws_after_16_moves_each(fen):
    walk = Walk(Board(fen))
    walk.ends_at(32, T.SIXTEEN_MOVES)


def test_sixteen_move_count_is_not_restarted_by_a_man_move():
    walk = Walk(Board("W:WK6,46,47:BK45"))
    walk.until(11)
    walk.man_move()  # ply 11: the balance is unchanged
    assert material(walk.board) == (2, 1, 0, 1)
    assert_going_on(walk.board)
    walk.ends_at(32, T.SIXTEEN_MOVES)


def test_sixteen_move_count_is_not_restarted_by_a_promotion_inside_the_class():
    # King and two men -> two kings and a man: still lone king against three pieces.
    walk = Walk(Board("W:WK50,7,47:BK5"))
    walk.until(13)
    walk.man_move(promote=True)  # ply 13: 7-1 or 7-2
    assert material(walk.board) == (1, 2, 0, 1)
    assert_going_on(walk.board)
    walk.ends_at(32, T.SIXTEEN_MOVES)


def test_sixteen_move_count_starts_when_the_balance_arises_by_capture():
    # Black king and man against king and two men; Black gives the man up.
    walk = Walk(Board("W:WK6,46,47:BK45,36"), zone={BLACK: INTL_EDGE})
    walk.until(18)
    walk.offer()  # ply 18: black man move
    assert_going_on(walk.board)
    walk.capture()  # ply 19: lone black king against three pieces
    assert material(walk.board)[2:] == (0, 1) and sum(material(walk.board)[:2]) == 3
    assert_going_on(walk.board)
    walk.ends_at(19 + 32, T.SIXTEEN_MOVES)


def test_sixteen_move_count_starts_when_the_balance_arises_by_promotion():
    # Three men against a king: no rule. The man on 7 crowns on ply 1, and
    # the 16 moves each are counted from there.
    walk = Walk(Board("W:W7,46,47:BK5"))
    assert_going_on(walk.board)
    walk.man_move(promote=True)  # ply 1
    assert material(walk.board) == (2, 1, 0, 1)
    assert_going_on(walk.board)
    walk.ends_at(1 + 32, T.SIXTEEN_MOVES)


def test_sixteen_move_rule_switched_off():
    walk = Walk(Board("W:WK6,46,47:BK45", rules=replace(FMJD, sixteen_moves_limit=None)))
    walk.going_on(32)
    walk.ends_at(50, T.KING_MOVES)


# --------------------------------------------------------------------------
# The 5-move rule (seed 000)
# --------------------------------------------------------------------------


@pytest.mark.parametrize("fen", [
    "W:WK6:BK45",              # king against king
    "W:WK6,K50:BK45",          # two kings against a king
    "W:WK6,46:BK45",           # king and man against a king
    "B:WK45:BK6,3",            # lone white king, Black to move
])
def test_five_move_rule_draws_after_5_moves_each(fen):
    walk = Walk(Board(fen))
    walk.ends_at(10, T.FIVE_MOVES)


@pytest.mark.parametrize("capture_ply", [4, 28])
def test_capture_from_sixteen_to_five_move_ending_restarts_the_count(capture_ply):
    # Lone black king against king and two men (16-move rule); White gives a
    # man away and the lone king takes it: king and man against king, and
    # the 5-move count starts at that capture.
    # Until the capture the white king keeps to edge squares (where it cannot
    # be captured) and the lone king to squares from which it takes a man on 30.
    walk = Walk(Board("W:WK6,35,46:BK25"), zone={WHITE: INTL_EDGE, BLACK: ATTACKS_30})
    walk.until(capture_ply - 1)
    walk.offer()  # White's man move
    assert_going_on(walk.board)
    walk.capture()  # the lone king captures
    assert plies(walk.board) == capture_ply
    assert material(walk.board) == (1, 1, 0, 1)
    assert_going_on(walk.board)
    walk.ends_at(capture_ply + 10, T.FIVE_MOVES)  # for 28: ply 32 passes without a draw


def test_capture_inside_the_five_move_class_keeps_the_count():
    # King and man against king -> king against king: both in the 5-move class.
    walk = Walk(Board("W:WK6,35:BK25"), zone={WHITE: INTL_EDGE, BLACK: ATTACKS_30})
    walk.until(3)
    walk.offer()  # ply 3
    walk.capture()  # ply 4
    assert material(walk.board) == (0, 1, 0, 1)
    assert_going_on(walk.board)
    walk.ends_at(10, T.FIVE_MOVES)


def test_promotion_inside_the_five_move_class_keeps_the_count():
    walk = Walk(Board("W:WK50,7:BK5"))
    walk.until(5)
    walk.man_move(promote=True)  # ply 5: two kings against a king
    assert material(walk.board) == (0, 2, 0, 1)
    assert_going_on(walk.board)
    walk.ends_at(10, T.FIVE_MOVES)


def test_five_move_count_starts_when_the_balance_arises_by_promotion():
    walk = Walk(Board("W:W7:BK5"))  # a man against a king: no rule
    walk.man_move(promote=True)  # ply 1: king against king
    assert material(walk.board) == (0, 1, 0, 1)
    assert_going_on(walk.board)
    walk.ends_at(1 + 10, T.FIVE_MOVES)


def test_five_move_rule_switched_off():
    walk = Walk(Board("W:WK6:BK45", rules=replace(FMJD, five_moves_limit=None)))
    walk.going_on(10)
    walk.ends_at(50, T.KING_MOVES)


def test_no_rule_at_all_for_king_against_king_when_all_are_off():
    rules = replace(FMJD, five_moves_limit=None, king_moves_limit=None, sixteen_moves_limit=None)
    walk = Walk(Board("W:WK6:BK45", rules=rules))
    walk.going_on(60)


# --------------------------------------------------------------------------
# King against king (seed 001 option)
# --------------------------------------------------------------------------


def test_king_against_king_uses_the_5_move_rule_by_default():
    assert FMJD.king_vs_king_immediate is False
    board = Board("W:WK6:BK45")
    assert_going_on(board)
    Walk(board).ends_at(10, T.FIVE_MOVES)


def test_king_against_king_immediate_in_the_set_up_position():
    board = Board("W:WK6:BK45", rules=replace(FMJD, king_vs_king_immediate=True))
    assert_over(board, T.KING_VS_KING)


def test_king_against_king_immediate_on_the_capturing_ply():
    rules = replace(FMJD, king_vs_king_immediate=True)
    walk = Walk(Board("W:WK6,35:BK25", rules=rules), zone={WHITE: INTL_EDGE, BLACK: ATTACKS_30})
    walk.until(5)
    walk.offer()  # ply 5
    assert_going_on(walk.board)
    walk.capture()  # ply 6: king against king
    assert material(walk.board) == (0, 1, 0, 1)
    assert_over(walk.board, T.KING_VS_KING)
    assert_pop_takes_back(walk.board, T.KING_VS_KING)


def test_king_against_king_immediate_does_not_touch_two_kings_against_one():
    rules = replace(FMJD, king_vs_king_immediate=True)
    Walk(Board("W:WK6,K50:BK45", rules=rules)).ends_at(10, T.FIVE_MOVES)


def test_king_against_king_immediate_with_the_five_move_rule_off():
    rules = replace(FMJD, king_vs_king_immediate=True, five_moves_limit=None)
    assert_over(Board("W:WK6:BK45", rules=rules), T.KING_VS_KING)


# --------------------------------------------------------------------------
# Piece-count adjudication and draw offers (seed 001 options)
# --------------------------------------------------------------------------


def test_adjudication_by_piece_count_follows_the_play():
    rules = replace(FMJD, piece_count_adjudication=True)
    board = Board("W:WK6,32:BK45,18", rules=rules)  # 2 pieces and 1 king each
    assert board.adjudicate() == Outcome(T.ADJUDICATION, None)
    board.push("32-28")
    board.push("18-23")
    assert board.adjudicate() == Outcome(T.ADJUDICATION, None)
    board.push("28x19")  # White 2 pieces, Black 1
    assert board.adjudicate() == Outcome(T.ADJUDICATION, WHITE)
    assert board.adjudicate().result() == "1-0"
    assert_going_on(board)  # adjudication never ends a game by itself
    board.pop()
    assert board.adjudicate() == Outcome(T.ADJUDICATION, None)


def test_adjudication_equal_pieces_more_kings_wins():
    board = Board("W:WK46,7:BK45,3", rules=replace(FMJD, piece_count_adjudication=True))
    assert board.adjudicate() == Outcome(T.ADJUDICATION, None)
    board.push("7-1")  # promotion: 2 pieces each, White has 2 kings
    assert board.adjudicate() == Outcome(T.ADJUDICATION, WHITE)
    assert_going_on(board)
    board = Board("B:WK46,31:BK5,44")  # Black's man crowns on 49 or 50
    board.push("44-50")
    assert board.adjudicate() == Outcome(T.ADJUDICATION, BLACK)
    assert board.adjudicate().result() == "0-1"


def test_adjudication_more_pieces_beats_more_kings():
    board = Board("W:WK46,K1:B3,4,5")
    assert board.adjudicate() == Outcome(T.ADJUDICATION, BLACK)


@pytest.mark.parametrize("fen", [INTL_MIDDLE, INTL_MIDDLE_BLACK])
def test_draw_offer_needs_40_moves_each(fen):
    rules = replace(FMJD, draw_offer_min_moves=40)
    walk = Walk(Board(fen, rules=rules))
    board = walk.board
    for ply in range(1, 80):
        if ply in (30, 61):
            walk.man_move()  # keeps the 25-king-move rule away
        else:
            walk.king_move()
        assert_going_on(board)
        assert not board.can_offer_draw(), ply
    walk.king_move()  # ply 80: both players made 40 moves
    assert_going_on(board)
    assert board.can_offer_draw()
    move = board.pop()
    assert not board.can_offer_draw()
    board.push(move)
    assert board.can_offer_draw()


def test_draw_offer_allowed_at_once_by_default():
    board = Board(INTL_MIDDLE)
    assert board.can_offer_draw()
    board.push("6-1")
    assert board.can_offer_draw()


# --------------------------------------------------------------------------
# Brazilian: the FMJD rules on 8x8
# --------------------------------------------------------------------------


def test_brazilian_rules_are_the_fmjd_rules():
    assert Board(variant="brazilian").rules == Board().rules == FMJD


@pytest.mark.parametrize("fen, ply, termination", [
    (SMALL_MIDDLE, 50, T.KING_MOVES),
    ("W:WK5,30,31:BK28", 32, T.SIXTEEN_MOVES),
    ("W:WK5,K32,K29:BK28", 32, T.SIXTEEN_MOVES),
    ("W:WK5,30:BK28", 10, T.FIVE_MOVES),
    ("W:WK5:BK28", 10, T.FIVE_MOVES),
])
def test_brazilian_draw_rules(fen, ply, termination):
    Walk(Board(fen, variant="brazilian")).ends_at(ply, termination)


def test_brazilian_threefold_repetition():
    board = Board(SMALL_MIDDLE, variant="brazilian")
    cycle = ["5-1", "28-32", "1-5", "32-28"]
    for ply in range(1, 8):
        push_quiet(board, cycle[(ply - 1) % 4])
        assert_going_on(board)
    push_quiet(board, cycle[3])
    assert_over(board, T.THREEFOLD_REPETITION)
    assert_pop_takes_back(board, T.THREEFOLD_REPETITION)


# --------------------------------------------------------------------------
# Russian: 15 king moves each; three kings against a king; unchanged balance
# --------------------------------------------------------------------------


def test_russian_15_king_moves_each():
    Walk(Board(SMALL_MIDDLE, variant="russian")).ends_at(30, T.KING_MOVES)


def test_russian_king_move_count_restarts_after_a_man_move():
    walk = Walk(Board(SMALL_MIDDLE, variant="russian"))
    walk.until(21)
    walk.man_move()  # ply 21
    assert_going_on(walk.board)
    walk.ends_at(21 + 30, T.KING_MOVES)


def test_russian_threefold_repetition():
    board = Board(SMALL_MIDDLE, variant="russian")
    cycle = ["5-1", "28-32", "1-5", "32-28"]
    for ply in range(1, 8):
        push_quiet(board, cycle[(ply - 1) % 4])
        assert_going_on(board)
    push_quiet(board, cycle[3])
    assert_over(board, T.THREEFOLD_REPETITION)


@pytest.mark.parametrize("fen", ["W:WK5:BK28", "W:WK5,K32:BK28"])
def test_russian_has_no_five_move_rule(fen):
    # King against king or two kings against a king: only the king-move rule (3 pieces).
    Walk(Board(fen, variant="russian")).ends_at(30, T.KING_MOVES)


def test_russian_three_kings_against_a_king_15_moves_each():
    Walk(Board("W:WK5,K32,K29:BK28", variant="russian")).ends_at(30, T.THREE_KINGS_VS_KING)


def test_russian_three_kings_without_the_king_move_rule():
    rules = replace(RUSSIAN, king_moves_limit=None)
    Walk(Board("W:WK5,K32,K29:BK28", variant="russian", rules=rules)).ends_at(
        30, T.THREE_KINGS_VS_KING)


def test_russian_three_kings_rule_switched_off_leaves_the_king_move_rule():
    rules = replace(RUSSIAN, three_kings_limit=None)
    Walk(Board("W:WK5,K32,K29:BK28", variant="russian", rules=rules)).ends_at(30, T.KING_MOVES)


def test_russian_three_kings_count_starts_at_the_capture():
    # Three kings against king and man; Black gives the man up.
    rules = replace(RUSSIAN, king_moves_limit=None, balance_unchanged_limits=())
    walk = Walk(Board("W:WK1,K30,K21:BK28,12", variant="russian", rules=rules), keep={30})
    walk.until(20)
    walk.offer()  # ply 20: black man move
    assert_going_on(walk.board)
    walk.capture()  # ply 21: three kings against a lone king
    assert material(walk.board) == (0, 3, 0, 1)
    assert_going_on(walk.board)
    walk.ends_at(21 + 30, T.THREE_KINGS_VS_KING)


def test_russian_three_kings_count_restarts_when_four_kings_become_three():
    # Four kings against a king is already the rule's material ("three or
    # more kings"); the lone king takes one on ply 20: any capture starts the
    # count again.
    rules = replace(RUSSIAN, king_moves_limit=None, balance_unchanged_limits=())
    walk = Walk(Board("W:WK1,K13,K30,K31:BK28", variant="russian", rules=rules),
                zone={WHITE: SMALL_EDGE, BLACK: SMALL_EDGE})
    walk.until(19)
    walk.offer(king=True)  # ply 19: a white king steps into the lone king's reach
    assert_going_on(walk.board)
    walk.capture()  # ply 20
    assert material(walk.board) == (0, 3, 0, 1)
    assert_going_on(walk.board)
    walk.ends_at(20 + 30, T.THREE_KINGS_VS_KING)  # ply 30 passes without a draw


def test_russian_three_kings_count_starts_at_the_promotion():
    rules = replace(RUSSIAN, king_moves_limit=None, balance_unchanged_limits=())
    walk = Walk(Board("W:WK29,K32,8:BK28", variant="russian", rules=rules))
    walk.until(9)
    walk.man_move(promote=True)  # ply 9
    assert material(walk.board) == (0, 3, 0, 1)
    assert_going_on(walk.board)
    walk.ends_at(9 + 30, T.THREE_KINGS_VS_KING)


@pytest.mark.parametrize("fen, limit", [
    ("W:WK5,31:BK28,2", 30),          # 4 pieces: 30 moves each
    ("W:WK5,30,31:BK28,2", 30),       # 5 pieces: 30 moves each
    ("W:WK5,30,31:BK28,1,2", 60),     # 6 pieces: 60 moves each
])
def test_russian_unchanged_balance(fen, limit):
    walk = Walk(Board(fen, variant="russian"))
    # a man move every 25 plies keeps the king-move rule away
    man_plies = set(range(25, 2 * limit, 25))

    def step():
        return walk.man_move() if plies(walk.board) + 1 in man_plies else walk.king_move()

    before = material(walk.board)
    walk.ends_at(2 * limit, T.BALANCE_UNCHANGED, step=step)
    assert material(walk.board) == before


def test_russian_unchanged_balance_not_for_eight_pieces():
    walk = Walk(Board(SMALL_MIDDLE, variant="russian"))

    def step():
        return walk.man_move() if (plies(walk.board) + 1) % 25 == 0 else walk.king_move()

    walk.going_on(130, step)


def test_russian_unchanged_balance_count_restarts_at_a_capture():
    # Five pieces (30 moves each); Black gives a man up at ply 40: four pieces from ply 41.
    rules = replace(RUSSIAN, king_moves_limit=None)
    walk = Walk(Board("W:WK5,30,31:BK28,2", variant="russian", rules=rules))
    walk.until(40)
    walk.offer()  # ply 40
    walk.capture()  # ply 41
    assert sum(material(walk.board)) == 4
    assert_going_on(walk.board)
    walk.ends_at(41 + 60, T.BALANCE_UNCHANGED)


def test_russian_unchanged_balance_count_restarts_at_a_promotion():
    # Five pieces, kings on both sides (30 moves each); a man crowns on ply 21.
    rules = replace(RUSSIAN, king_moves_limit=None)
    walk = Walk(Board("W:WK5,8,31:BK28,2", variant="russian", rules=rules))
    walk.until(21)
    walk.man_move(promote=True)  # ply 21
    assert material(walk.board) == (1, 2, 1, 1)
    assert_going_on(walk.board)
    walk.ends_at(21 + 60, T.BALANCE_UNCHANGED)  # ply 60 passes without a draw


def test_russian_unchanged_balance_switched_off():
    rules = replace(RUSSIAN, king_moves_limit=None, balance_unchanged_limits=())
    walk = Walk(Board("W:WK5,31:BK28,2", variant="russian", rules=rules))
    walk.going_on(70)


# --------------------------------------------------------------------------
# English: 40-move rule and threefold repetition; no endgame rules
# --------------------------------------------------------------------------


def test_english_40_moves_each_without_man_move_or_capture():
    Walk(Board(ENGLISH_MIDDLE, variant="english")).ends_at(80, T.KING_MOVES)


def test_english_40_move_count_restarts_after_a_man_move():
    walk = Walk(Board(ENGLISH_MIDDLE, variant="english"))
    walk.until(25)
    walk.man_move()  # ply 25
    assert_going_on(walk.board)
    walk.ends_at(25 + 80, T.KING_MOVES)


def test_english_king_against_king_has_no_five_move_rule():
    Walk(Board("B:WK21:BK12", variant="english")).ends_at(80, T.KING_MOVES)


def test_english_threefold_repetition():
    board = Board(ENGLISH_MIDDLE, variant="english")  # Black to move
    cycle = ["12-16", "21-17", "16-12", "17-21"]
    for ply in range(1, 8):
        push_quiet(board, cycle[(ply - 1) % 4])
        assert_going_on(board)
    push_quiet(board, cycle[3])
    assert_over(board, T.THREEFOLD_REPETITION)
    assert_pop_takes_back(board, T.THREEFOLD_REPETITION)


def test_english_has_no_sixteen_move_rule():
    # Lone king against a king and two men: only the 40-move rule.
    walk = Walk(Board("B:WK21,31,32:BK12", variant="english"))
    walk.going_on(32)
    walk.ends_at(80, T.KING_MOVES)


def test_english_huffing_the_last_piece_wins():
    # Seed 003: the game is won by the player who first takes all the
    # opponent's pieces. Black's last man fails to capture and is huffed:
    # Black has no piece left, so the game is over, won by White, at once --
    # not only after White's next move.
    rules = replace(ENGLISH, huff=True)
    board = Board("B:W18,K32:B14", variant="english", rules=rules)
    board.push("14-17")  # 14x23 was possible: the man on 17 may be huffed
    assert_going_on(board)
    assert board.huffable_squares() == {17}
    board.huff(17)
    assert material(board) == (1, 1, 0, 0)
    outcome = board.outcome()
    assert outcome is not None and outcome.winner == WHITE, (
        f"Black has no pieces after the huff ({board.fen()}), but outcome() is {outcome}")
    assert board.result() == "1-0"
    assert outcome.termination is T.NO_MOVES


# --------------------------------------------------------------------------
# The history travels with copy() and is the board's own
# --------------------------------------------------------------------------


def test_copy_keeps_the_counts_and_a_fresh_board_does_not():
    walk = Walk(Board(INTL_MIDDLE))
    walk.until(50)  # 49 king plies
    copy = walk.board.copy()
    walk.king_move()  # ply 50
    assert_over(walk.board, T.KING_MOVES)
    assert_going_on(copy)
    copy.push(walk.board.peek())
    assert_over(copy, T.KING_MOVES)
    # Without the stack the position is a new start: no history, no draw.
    assert_going_on(walk.board.copy(stack=False))
    assert_going_on(Board(walk.board.fen()))


"""Killer draughts: International draughts with the killer rule.

The rule, as its inventor (Christian Freeling, mindsports.nl) states it: "In Killer
Draughts the king must stop on the first vacant square after the last captured piece, if
and only if that piece is also a king." Everything else is the FMJD rules of International
draughts (flying kings, men capturing backwards, the majority rule, crowning only at the end
of a move). The rule lets two kings catch a lone king, which International cannot.

The expected move lists of the rule positions below are worked out by hand on the 10x10
board (square 46 is White's left corner; the long diagonal runs 46-41-37-32-28-23-19-14-10-5);
the pure-Python oracle (:mod:`damier.oracle`, written from the rule text, no bitboards) is
checked against the compiled core on random positions with many kings. Neither pydraughts
nor py-draughts plays Killer draughts, so there is no third program to compare with.

PDN has no GameType for Killer draughts: damier writes International's 20 with the tag
``[Variant "Killer"]`` and reads a game as Killer when both are there.
"""

from __future__ import annotations

import io
import random

import pytest

import damier
from damier import oracle, pdn
from damier.variants import get_variant, variant_for_game_type, variant_for_hub_name


def _moves(fen: str, variant: str) -> set[tuple[int, int, frozenset[int]]]:
    board = damier.Board(fen, variant=variant)
    return {(m.from_square, m.to_square, m.capture_set) for m in board.legal_moves}


def _oracle_moves(fen: str, variant: str) -> set[tuple[int, int, frozenset[int]]]:
    return {m.key() for m in oracle.Position.from_fen(fen, variant).legal_moves()}


def _caps(*squares: int) -> frozenset[int]:
    return frozenset(squares)


# (FEN, International's moves, Killer's moves), worked out by hand.
RULE_POSITIONS = [
    pytest.param(
        # The king on 46 takes the king on 28 along the long diagonal: in International it
        # may land on any free square beyond (23, 19, 14, 10, 5); the killer rule stops it
        # on the first, 23.
        "W:WK46:BK28",
        {(46, s, _caps(28)) for s in (23, 19, 14, 10, 5)},
        {(46, 23, _caps(28))},
        id="last-piece-a-king-stops-just-beyond",
    ),
    pytest.param(
        # A man taken last: the rule does not apply ("if and only if that piece is also a
        # king").
        "W:WK46:B28",
        {(46, s, _caps(28)) for s in (23, 19, 14, 10, 5)},
        {(46, s, _caps(28)) for s in (23, 19, 14, 10, 5)},
        id="last-piece-a-man-lands-anywhere",
    ),
    pytest.param(
        # 46 takes the king on 37, must land on 28 to go on (33 empty, the man on 39, then
        # 44 and 50 free), and takes the man on 39 last: it lands on 44 or 50 in both
        # games, the king taken first not being the last piece.
        "W:WK46:BK37,39",
        {(46, 44, _caps(37, 39)), (46, 50, _caps(37, 39))},
        {(46, 44, _caps(37, 39)), (46, 50, _caps(37, 39))},
        id="a-king-taken-first-does-not-stop",
    ),
    pytest.param(
        # The same path with the man first and the king last: the killer rule stops the
        # king on 44, the first square beyond the king on 39.
        "W:WK46:B37,K39",
        {(46, 44, _caps(37, 39)), (46, 50, _caps(37, 39))},
        {(46, 44, _caps(37, 39))},
        id="a-king-taken-last-stops",
    ),
    pytest.param(
        # 46 takes the king on 28 and may go on only from 19 (the man on 13, then 8 and 2
        # free): the rule does not force it to stop on 23, since the king is not the last
        # piece taken; the majority rule makes it take both.
        "W:WK46:BK28,13",
        {(46, 8, _caps(28, 13)), (46, 2, _caps(28, 13))},
        {(46, 8, _caps(28, 13)), (46, 2, _caps(28, 13))},
        id="the-rule-waits-for-the-last-piece",
    ),
    pytest.param(
        # A man taking a king lands just beyond it anyway: 33x22 in both games.
        "W:W33:BK28",
        {(33, 22, _caps(28))},
        {(33, 22, _caps(28))},
        id="a-man-takes-a-king-as-ever",
    ),
    pytest.param(
        # Black's king on 5 takes White's king on 23 (14, 19 empty) and stops on 28; in
        # International it may go on to 32, 37, 41 or 46.
        "B:WK23:BK5",
        {(5, s, _caps(23)) for s in (28, 32, 37, 41, 46)},
        {(5, 28, _caps(23))},
        id="black-king-stops-too",
    ),
]


@pytest.mark.parametrize("fen, international, killer", RULE_POSITIONS)
def test_rule_positions(fen: str, international: set, killer: set) -> None:
    assert _moves(fen, "international") == international
    assert _oracle_moves(fen, "international") == international
    assert _moves(fen, "killer") == killer
    assert _oracle_moves(fen, "killer") == killer


def test_the_start_position_plays_as_international() -> None:
    # No king can exist in the first plies: the published International perft counts hold.
    board = damier.Board(variant="killer")
    assert [board.perft(d) for d in (1, 2, 3, 4, 5)] == [9, 81, 658, 4265, 27117]


def _random_fen(rng: random.Random) -> str:
    squares = rng.sample(range(1, 51), rng.randint(2, 12))
    white, black = [], []
    for square in squares:
        is_white = rng.random() < 0.5
        crowning = square <= 5 if is_white else square > 45
        king = rng.random() < 0.6
        if crowning and not king:
            continue
        (white if is_white else black).append(f"{'K' if king else ''}{square}")
    return f"{rng.choice('WB')}:W{','.join(white)}:B{','.join(black)}"


def test_core_agrees_with_the_oracle_on_random_positions() -> None:
    rng = random.Random(20261127)
    stopped = 0
    for _ in range(3000):
        fen = _random_fen(rng)
        ours = _moves(fen, "killer")
        assert ours == _oracle_moves(fen, "killer"), fen
        stopped += ours != _moves(fen, "international")
    # the killer rule changed the legal moves of a good share of these positions
    assert stopped > 100


def test_core_agrees_with_the_oracle_along_playouts() -> None:
    rng = random.Random(7)
    compared = 0
    for _ in range(6):
        board = damier.Board("W:WK46,K47,31,32,33:BK5,K4,18,19,20", variant="killer")
        for _ply in range(120):
            fen = board.fen()
            ours = {(m.from_square, m.to_square, m.capture_set) for m in board.legal_moves}
            assert ours == _oracle_moves(fen, "killer"), fen
            compared += 1
            if not board.legal_moves or board.outcome() is not None:
                break
            board.push(rng.choice(sorted(board.legal_moves, key=str)))
    assert compared > 100


def test_two_kings_catch_a_lone_king() -> None:
    # The reason for the rule: White's kings on 23 and 50 against Black's lone king on 5,
    # Black to move. Black must take the king on 23 along the long diagonal; in Killer it
    # stops on 28, just beyond, where White's king on 50 takes it (44, 39 and 33 free) and
    # wins. In International Black lands on 28, 32, 37, 41 or 46 and escapes.
    fen = "B:WK23,K50:BK5"
    assert _moves(fen, "international") == {(5, s, _caps(23)) for s in (28, 32, 37, 41, 46)}
    board = damier.Board(fen, variant="killer")
    assert _moves(fen, "killer") == {(5, 28, _caps(23))}
    board.push("5x28")
    assert {(m.from_square, m.to_square, m.capture_set) for m in board.legal_moves} == {
        (50, 22, _caps(28))}   # a king taken last again: the capture stops just beyond
    board.push("50x22")
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is damier.WHITE


def test_registry_hub_and_pdn() -> None:
    killer = get_variant("killer")
    assert killer.killer_rule and killer.game_type == 20 and killer.pdn_variant_tag == "Killer"
    assert variant_for_hub_name("killer") is killer
    assert variant_for_game_type(20).name == "international"
    assert variant_for_game_type(20, "KILLER") is killer
    game = pdn.Game(variant="killer")
    game.add_line(["32-28", "19-23", "28x19", "14x23"])
    text = str(game)
    assert '[GameType "20"]' in text and '[Variant "Killer"]' in text
    back = pdn.read_game(io.StringIO(text))
    assert back is not None and back.variant is killer
    assert back.end().board().fen() == game.end().board().fen()
    # without the tag, GameType 20 is International
    plain = pdn.read_game(io.StringIO(text.replace('[Variant "Killer"]\n', "")))
    assert plain is not None and plain.variant.name == "international"
    # an International game never carries a Killer tag out
    intl = pdn.Game({"Event": "x", "GameType": "20", "Variant": "Killer"}, variant="international")
    assert '[Variant "Killer"]' not in str(intl)

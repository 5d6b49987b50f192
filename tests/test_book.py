"""Opening books (damier.book): the file format, choosing moves, the engine's use of a
book, building (negamax backup, resuming), the shipped book and ``damier book``.

The book files of these tests are encoded here from the format that damier/book.py
documents, not by the code under test, and the positions are read by hand.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import random
import struct
from importlib import resources
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

import damier
import damier.book_build as book_build
from damier._core import MATE_THRESHOLD
from damier.book import Book, BookError, BookMove, position_key, shipped_book
from damier.book_build import BuildSettings, build
from damier.cli import main
from damier.engine import Engine, Limit

START_WHITE = list(range(31, 51))
START_BLACK = list(range(1, 21))


def key_of(white_to_move: bool, white: list[int], black: list[int],
           kings: Sequence[int] = (), mask_bytes: int = 7) -> bytes:
    """A position key as the format documents it: side to move, then the occupied
    squares, the white pieces and the kings as little-endian bit sets."""
    def bits(squares: Sequence[int]) -> bytes:
        return sum(1 << (s - 1) for s in squares).to_bytes(mask_bytes, "little")
    return bytes([1 if white_to_move else 0]) + bits(white + black) + bits(white) + bits(
        list(kings))


Entry = tuple[bytes, int, Sequence[tuple[int, int, tuple[int, ...], int, int]]]


def encode(entries: Sequence[Entry],
           *, variant: str = "international", key_size: int = 22, version: int = 1,
           magic: bytes = b"DAMRBOOK") -> bytes:
    payload = b""
    for key, nodes, moves in sorted(entries, key=lambda e: e[0]):
        payload += key + struct.pack("<IB", nodes, len(moves))
        for from_square, to_square, captures, score, depth in moves:
            payload += struct.pack("<BBB", from_square, to_square, len(captures))
            payload += bytes(captures) + struct.pack("<hB", score, depth)
    name = variant.encode()
    return (magic + struct.pack("<HB", version, len(name)) + name
            + struct.pack("<BIQ", key_size, len(entries), len(payload))
            + hashlib.sha256(payload).digest() + payload)


START_KEY = key_of(True, START_WHITE, START_BLACK)
# the start position: 32-28 20, 33-28 15, 31-27 10, 34-29 9, and 46-41, which is not
# legal there (46 is blocked by 41), scored best of all
START_ENTRY: Entry = (START_KEY, 12345, [(32, 28, (), 20, 9), (33, 28, (), 15, 9),
                                         (31, 27, (), 10, 9), (34, 29, (), 9, 9),
                                         (46, 41, (), 30, 9)])
# after 32-28: Black to move, 19-23 and 18-23
AFTER_32_28: Entry = (key_of(False, [28, 31] + list(range(33, 51)), START_BLACK), 99,
               [(19, 23, (), -5, 8), (18, 23, (), -7, 8)])


@pytest.fixture
def book_bytes() -> bytes:
    return encode([START_ENTRY, AFTER_32_28])


def names(board: damier.Board, moves: list[BookMove]) -> list[str]:
    return [board.notation(m.move) for m in moves]


# -- the file ------------------------------------------------------------------------------


def test_a_hand_encoded_file_reads_and_round_trips(tmp_path: Path, book_bytes: bytes) -> None:
    path = tmp_path / "book.bin"
    path.write_bytes(book_bytes)
    book = Book.read(path)
    assert book.variant.name == "international" and len(book) == 2
    board = damier.Board()
    assert board in book
    # best first, the illegal 46-41 left out
    assert [(board.notation(m.move), m.score, m.depth) for m in book.moves(board)] == [
        ("32-28", 20, 9), ("33-28", 15, 9), ("31-27", 10, 9), ("34-29", 9, 9)]
    assert book.nodes(board) == 12345
    board.push("32-28")
    assert names(board, book.moves(board)) == ["19-23", "18-23"]
    # written again: the same bytes, read back: the same book
    assert book.to_bytes() == book_bytes
    book.write(tmp_path / "again.bin")
    assert (tmp_path / "again.bin").read_bytes() == book_bytes
    assert Book.read(io.BytesIO(book_bytes)) == book
    assert not (tmp_path / "again.bin.tmp").exists()


def test_a_book_made_with_add_round_trips(tmp_path: Path) -> None:
    board = damier.Board("W:W28,46:B23")
    capture = board.legal_moves
    assert [board.notation(m) for m in capture] == ["28x19"]   # compulsory capture
    book = Book()
    book.add(board, [BookMove(capture[0], -31000 + 7, 255)], nodes=2 ** 40)
    book.write(tmp_path / "b.bin")
    again = Book.read(tmp_path / "b.bin")
    assert again == book
    [only] = again.moves(board)
    assert only.move == capture[0] and only.move.captures == (23,)
    assert only.score == -30993 and only.depth == 255
    assert again.nodes(board) == 2 ** 32 - 1           # saturated


@pytest.mark.parametrize("damage, words", [
    (lambda b: b"XAMRBOOK" + b[8:], "not a damier opening book"),
    (lambda b: b[:5], "not a damier opening book"),
    (lambda b: b[:8] + struct.pack("<H", 2) + b[10:], "format version 2 is not supported"),
    (lambda b: b[:-1] + bytes([b[-1] ^ 1]), "SHA-256"),
    (lambda b: b[:-3], "truncated"),
    (lambda b: b + b"\0", "trailing"),
    (lambda b: b[:20], "truncated"),
])
def test_bad_files_are_refused_with_a_clear_error(tmp_path: Path, book_bytes: bytes,
                                                   damage: Callable[[bytes], bytes],
                                                   words: str) -> None:
    path = tmp_path / "bad.bin"
    path.write_bytes(damage(book_bytes))
    with pytest.raises(BookError, match=words) as caught:
        Book.read(path)
    assert str(path) in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_a_book_of_another_variant_is_refused(tmp_path: Path) -> None:
    english_key = key_of(False, list(range(21, 33)), list(range(1, 13)), mask_bytes=4)
    data = encode([(english_key, 1, [(9, 13, (), 0, 1)])], variant="english", key_size=13)
    path = tmp_path / "english.bin"
    path.write_bytes(data)
    english = Book.read(path)
    assert damier.Board(variant="english") in english
    with pytest.raises(BookError, match="for English draughts, not International"):
        Book.read(path, variant="international")
    with pytest.raises(BookError, match="English draughts, the board plays International"):
        english.moves(damier.Board())
    assert damier.Board() not in english
    unknown = encode([(english_key, 1, [(9, 13, (), 0, 1)])], variant="xiangqi", key_size=13)
    with pytest.raises(BookError, match="unknown variant 'xiangqi'"):
        Book.from_bytes(unknown)


def test_corrupt_entries_with_a_good_hash_are_refused(book_bytes: bytes) -> None:
    off_board = encode([(START_KEY, 1, [(32, 77, (), 0, 1)])])
    with pytest.raises(BookError, match="off the board"):
        Book.from_bytes(off_board)
    bad_key = encode([(b"\x05" + START_KEY[1:], 1, [(32, 28, (), 0, 1)])])
    with pytest.raises(BookError, match="side to move"):
        Book.from_bytes(bad_key)
    wrong_size = encode([START_ENTRY], key_size=21)
    with pytest.raises(BookError, match="keys of 21 bytes"):
        Book.from_bytes(wrong_size)


def test_a_missing_file_is_a_book_error(tmp_path: Path) -> None:
    with pytest.raises(BookError, match="cannot read opening book"):
        Book.read(tmp_path / "nowhere.bin")


# -- choosing ------------------------------------------------------------------------------


def test_choose_keeps_to_the_margin_and_to_legal_moves(book_bytes: bytes) -> None:
    book = Book.from_bytes(book_bytes)
    board = damier.Board()

    def chosen(margin: int, seed: int) -> str:
        choice = book.choose(board, margin=margin, rng=random.Random(seed))
        assert choice is not None
        return board.notation(choice.move)

    seen = {chosen(10, seed) for seed in range(300)}
    assert seen == {"32-28", "33-28", "31-27"}       # 34-29 is 11 below, 46-41 illegal
    assert {chosen(0, seed) for seed in range(50)} == {"32-28"}
    wide = {chosen(1000, seed) for seed in range(300)}
    assert wide == {"32-28", "33-28", "31-27", "34-29"}
    assert book.choose(damier.Board("W:W33,46:B23")) is None     # not in the book
    with pytest.raises(ValueError, match="margin"):
        book.choose(board, margin=-1)


# -- the engine ----------------------------------------------------------------------------

# White: men on 33 and 46, Black: a man on 23. 33-28 gives the man away (23x32),
# so does 33-29 (23x34); 46-41 keeps it, and wins Black's man next move.
HANGING = "W:W33,46:B23"


def bad_move_book() -> Book:
    board = damier.Board(HANGING)
    book = Book()
    book.add(board, [BookMove(board.parse_move("33-28"), 0, 1)])
    return book


def test_an_engine_with_the_book_plays_the_book_move() -> None:
    board = damier.Board(HANGING)
    bad = board.parse_move("33-28")
    engine = Engine(hash_mb=1, book=bad_move_book())
    played = engine.play(board, Limit(depth=6))
    assert played.move == bad and played.info.get("string") == "book"
    result = engine.search(board, depth=6)
    assert result.best_move == bad and result.book
    handle = engine.think(board, Limit(depth=6))
    assert handle.wait(timeout=10).move == bad and handle.info.get("string") == "book"


def test_an_engine_plays_the_best_book_move_unless_given_a_margin(book_bytes: bytes) -> None:
    """The usual margin is 0: a random choice among near moves lost 20.5 Elo at 0.1 s
    (benchmarks/README.md); ``book_margin`` brings the choice back."""
    book = Book.from_bytes(book_bytes)
    board = damier.Board()

    def played(seed: int, **margin: int) -> str:
        result = Engine(hash_mb=1, book=book, seed=seed, **margin).play(board, Limit(depth=1))
        assert result.info["string"] == "book"
        return board.notation(result.move)

    assert {played(seed) for seed in range(30)} == {"32-28"}
    assert {played(seed, book_margin=10) for seed in range(100)} == {"32-28", "33-28", "31-27"}


def test_an_engine_without_the_book_does_not_consult_it(monkeypatch: pytest.MonkeyPatch) -> None:
    board = damier.Board(HANGING)
    bad = board.parse_move("33-28")
    for engine in (Engine(hash_mb=1), Engine(hash_mb=1, book=False),
                   Engine(hash_mb=1, book=None)):
        played = engine.play(board, Limit(depth=6))
        assert played.move != bad and "string" not in played.info
    engine = Engine(hash_mb=1, book=bad_move_book())
    # analysis never uses the book, nor a pondering search, nor a weak level
    assert engine.analyse(board, Limit(depth=6))["pv"][0] != bad
    pondering = engine.think(board, Limit(depth=6), infinite=True)
    while pondering.get(timeout=10).get("depth", 0) < 6:
        pass
    pondering.stop()
    assert pondering.wait(timeout=10).move != bad
    engine.set_level(5)
    assert engine.play(board, Limit(depth=6)).move != bad
    engine.set_level(10)
    engine.set_book(False)
    monkeypatch.setattr(Book, "choose", lambda *a, **k: pytest.fail("book consulted"))
    assert engine.play(board, Limit(depth=6)).move != bad


def test_an_engine_ignores_a_book_of_another_variant() -> None:
    engine = Engine(hash_mb=1, book=bad_move_book())
    board = damier.Board(variant="english")
    assert engine.play(board, Limit(depth=2)).move in board.legal_moves


def test_bad_book_options_are_refused(tmp_path: Path) -> None:
    with pytest.raises(BookError, match="cannot read opening book"):
        Engine(hash_mb=1, book=tmp_path / "missing.bin")
    with pytest.raises(ValueError, match="book_margin"):
        Engine(hash_mb=1, book=True, book_margin=-5)
    with pytest.raises(TypeError, match="book must be"):
        Engine(hash_mb=1, book=12)  # type: ignore[arg-type]


def test_an_engine_with_the_shipped_book_plays_its_moves_at_the_start() -> None:
    board = damier.Board()
    shipped = shipped_book()
    assert shipped is not None
    allowed = {m.move for m in shipped.moves(board)
               if m.score >= shipped.moves(board)[0].score - 10}
    engine = Engine(hash_mb=1, book=True, seed=1)
    for _ in range(5):
        played = engine.play(board, Limit(depth=3))
        assert played.move in allowed and played.info["string"] == "book"


# -- building ------------------------------------------------------------------------------

SMALL = BuildSettings(nodes=200, hash_mb=1)


def negamax_check(book: Book) -> int:
    """Every book move whose position is in the book scores the negation of that
    position's best book move; returns how many such moves were checked."""
    checked = 0
    for board, moves in book.entries():
        for move in moves:
            child = board.copy(stack=False)
            child.push(move.move)
            if child in book:
                best = max(m.score for m in book.moves(child))
                assert abs(best) < MATE_THRESHOLD
                assert move.score == -best, (board.fen(), board.notation(move.move))
                # the lookahead behind it: one ply more than the child's best move's
                assert move.depth == 1 + book.moves(child)[0].depth
                checked += 1
    return checked


def test_a_tiny_build_backs_scores_up_by_negamax() -> None:
    book = build(positions=6, settings=SMALL)
    assert len(book) == 6
    start = damier.Board()
    root = book.moves(start)
    assert {m.move for m in root} == set(start.legal_moves)     # every move, scored
    assert all(m.depth >= 1 for m in root)
    assert negamax_check(book) >= 5        # the five positions below the root
    # the root's best move leads into the book: the expansion goes best-first
    best = start.copy()
    best.push(root[0].move)
    assert best in book


def test_an_interrupted_build_resumes_to_the_same_book(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    whole = build(positions=6, settings=SMALL, state=tmp_path / "whole.json")
    # stopped after 3 positions, then resumed
    build(positions=3, settings=SMALL, state=tmp_path / "parts.state")
    assert len(json.loads((tmp_path / "parts.state").read_text())["positions"]) == 3
    resumed = build(positions=6, settings=SMALL, state=tmp_path / "parts.state",
                    out=tmp_path / "parts.bin")
    assert resumed.to_bytes() == whole.to_bytes()
    assert Book.read(tmp_path / "parts.bin") == whole
    assert len(json.loads((tmp_path / "parts.state").read_text())["positions"]) == 6
    manifest = json.loads((tmp_path / "parts.json").read_text())
    assert manifest["positions"] == 6 and manifest["nodes_per_move"] == 200
    with pytest.raises(ValueError, match="state file and the book's manifest"):
        build(positions=6, settings=SMALL, state=tmp_path / "parts.json",
              out=tmp_path / "parts.bin")
    # Ctrl-C in the middle of the fourth expansion: three are saved, the rest resumes
    real = book_build._score_moves
    calls = []

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(book_build, "_score_moves", interrupted)
    state = tmp_path / "ctrl-c.json"
    with pytest.raises(KeyboardInterrupt):
        build(positions=6, settings=SMALL, state=state, save_every=100)
    assert len(json.loads(state.read_text())["positions"]) == 3
    monkeypatch.setattr(book_build, "_score_moves", real)
    assert build(positions=6, settings=SMALL, state=state).to_bytes() == whole.to_bytes()


def test_a_missing_folder_is_refused_before_any_search(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def no_search(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("searched before checking the folders")

    monkeypatch.setattr(book_build, "_score_moves", no_search)
    missing = tmp_path / "no" / "such"
    with pytest.raises(ValueError, match="folder of the book .*no/such/b.bin' does not exist"):
        build(positions=2, settings=SMALL, out=missing / "b.bin")
    with pytest.raises(ValueError, match="folder of the state file .*s.json' does not exist"):
        build(positions=2, settings=SMALL, state=missing / "s.json")
    assert not (tmp_path / "no").exists()


def test_a_state_file_of_other_settings_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    build(positions=2, settings=SMALL, state=state)
    with pytest.raises(BookError, match="other settings: nodes 200 .now 300."):
        build(positions=3, settings=BuildSettings(nodes=300, hash_mb=1), state=state)
    state.write_text("{not json")
    with pytest.raises(BookError, match="not JSON"):
        build(positions=3, settings=SMALL, state=state)


def test_a_gzip_state_file_resumes_to_the_same_book(tmp_path: Path) -> None:
    whole = build(positions=5, settings=SMALL, state=tmp_path / "whole.json")
    state = tmp_path / "parts.state.json.gz"
    build(positions=2, settings=SMALL, state=state)
    raw = state.read_bytes()
    assert raw[:2] == b"\x1f\x8b"  # written compressed (RFC 1952's magic number)
    assert len(json.loads(gzip.decompress(raw))["positions"]) == 2
    assert build(positions=5, settings=SMALL, state=state).to_bytes() == whole.to_bytes()
    assert len(json.loads(gzip.decompress(state.read_bytes()))["positions"]) == 5
    # the same tree, plain or compressed: the same positions (and the same bytes each time)
    plain = json.loads((tmp_path / "whole.json").read_text())
    assert json.loads(gzip.decompress(state.read_bytes()))["positions"] == plain["positions"]
    # a plain state under a .gz name is read too (by its content, not its name)
    renamed = tmp_path / "plain.json.gz"
    renamed.write_bytes((tmp_path / "whole.json").read_bytes())
    assert build(positions=5, settings=SMALL, state=renamed).to_bytes() == whole.to_bytes()
    # a cut-off or damaged compressed state: a clear error, not a traceback
    state.write_bytes(raw[:len(raw) // 2])
    with pytest.raises(BookError, match="damaged gzip"):
        build(positions=3, settings=SMALL, state=state)
    state.write_bytes(raw[:10] + bytes(len(raw) - 10))
    with pytest.raises(BookError, match=str(state.name)):
        build(positions=3, settings=SMALL, state=state)


def _leaf_costs(tree: Any) -> dict[bytes, float]:
    """The cost of every unexpanded position with legal moves below ``tree``, found
    by relaxing every followed move until nothing changes (Bellman-Ford), the cost of a
    move being ``weight * loss + ply_cost`` as the module documents."""
    settings = tree.settings
    cost = {tree.root: 0.0}
    openings: dict[bytes, bool] = {}
    changed = True
    while changed:
        changed = False
        for key, node in tree.nodes.items():
            if key not in cost:
                continue
            for child, backed, is_open in zip(node.children, node.backed, node.open_children,
                                              strict=True):
                loss = node.value - backed
                openings[child] = is_open
                if loss > settings.max_loss:
                    continue
                total = cost[key] + settings.weight * loss + settings.ply_cost
                if total < cost.get(child, float("inf")):
                    cost[child] = total
                    changed = True
    return {k: c for k, c in cost.items() if k not in tree.nodes and openings[k]}


def test_next_leaves_are_the_cheapest_unexpanded_positions(tmp_path: Path) -> None:
    state = tmp_path / "tree.json"
    build(positions=9, settings=SMALL, state=state)
    tree = book_build._Tree.load(state, SMALL)
    costs = _leaf_costs(tree)
    assert len(costs) > 12
    expected = sorted(costs, key=lambda k: (costs[k], k))
    for count in (1, 5, 12):
        leaves = tree.next_leaves(count)
        keys = [position_key(damier.Board(fen)) for fen, _ in leaves]
        assert keys == expected[:count]
    assert tree.next_leaf() is not None
    assert position_key(damier.Board(tree.next_leaf()[0])) == expected[0]  # type: ignore[index]
    everything = tree.next_leaves(10 ** 6)
    assert len(everything) == len(costs)


def test_a_batched_build_expands_the_cheapest_leaves_together(tmp_path: Path) -> None:
    batched = BuildSettings(nodes=200, hash_mb=1, batch=4)
    state = tmp_path / "batched.json"
    # the root alone, then one batch of four
    build(positions=5, settings=batched, state=state)
    first = book_build._Tree.load(state, batched)
    root_only = book_build._Tree(batched)
    root_only.add(*_root_expansion(first))
    costs = _leaf_costs(root_only)
    cheapest = sorted(costs, key=lambda k: (costs[k], k))[:4]
    assert set(first.nodes) == {first.root, *cheapest}
    # processes side by side make the same book, and a stopped build resumes to it
    whole = build(positions=13, settings=batched)
    assert build(positions=13, settings=batched, workers=2).to_bytes() == whole.to_bytes()
    assert build(positions=13, settings=batched, state=state).to_bytes() == whole.to_bytes()
    # a batch is a setting of the book (another batch can expand other leaves): the
    # state says which, and a build with another batch does not take it over
    with pytest.raises(BookError, match="batch 4 .now 1."):
        build(positions=14, settings=SMALL, state=state)


def _root_expansion(tree: Any) -> tuple[str, int, list[Any], list[int], list[int], int]:
    node = tree.nodes[tree.root]
    return node.fen, 0, node.moves, node.scores, node.depths, node.nodes


def test_a_state_file_from_before_batches_resumes(tmp_path: Path) -> None:
    state = tmp_path / "old.json"
    build(positions=3, settings=SMALL, state=state)
    data = json.loads(state.read_text())
    del data["settings"]["batch"]
    state.write_text(json.dumps(data))
    assert build(positions=5, settings=SMALL, state=state).to_bytes() == \
        build(positions=5, settings=SMALL).to_bytes()


def test_bad_workers_are_refused() -> None:
    for workers in (0, -2, True, 2.5):
        with pytest.raises(ValueError, match="workers must be"):
            build(positions=2, settings=SMALL, workers=workers)  # type: ignore[arg-type]


@pytest.mark.parametrize("options, words", [
    (dict(nodes=0), "nodes must be"),
    (dict(weight=-1.0), "weight must be"),
    (dict(ply_cost=float("nan")), "ply_cost must be"),
    (dict(max_loss=-3), "max_loss must be"),
    (dict(batch=0), "batch must be"),
    (dict(variant="xiangqi"), "unknown variant"),
])
def test_bad_build_settings_are_refused(options: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        BuildSettings(**options)  # type: ignore[arg-type]


# -- the shipped book ----------------------------------------------------------------------


def test_the_shipped_book_loads_and_its_root_has_moves() -> None:
    book = shipped_book("international")
    assert book is not None and book.variant.name == "international"
    start = damier.Board()
    moves = book.moves(start)
    assert len(moves) == len(start.legal_moves) == 9
    data = resources.files("damier").joinpath("data", "book_international.bin").read_bytes()
    manifest = json.loads(resources.files("damier").joinpath(
        "data", "book_international.json").read_text())
    assert manifest["command"].startswith("damier book build --variant international")
    assert manifest["positions"] == len(book) >= 1000
    assert manifest["book_sha256"] == hashlib.sha256(data).hexdigest()
    assert shipped_book("english") is None


def test_the_committed_build_state_gives_back_the_shipped_book() -> None:
    """books/ holds the state of the shipped book's build, so that it can grow: that
    state, with the manifest's settings, is the very book (no search)."""
    state = Path(__file__).resolve().parent.parent / "books" / "book_international.state.json.gz"
    if not state.is_file():
        pytest.skip("not a source checkout (books/ is not installed)")
    manifest = json.loads(resources.files("damier").joinpath(
        "data", "book_international.json").read_text())
    settings = BuildSettings(**manifest["settings"])
    tree = book_build._Tree.load(state, settings)
    assert len(tree) == manifest["positions"]
    data = resources.files("damier").joinpath("data", "book_international.bin").read_bytes()
    assert tree.to_book().to_bytes() == data


# -- the command line ------------------------------------------------------------------------


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_build_stats_show(tmp_path: Path) -> None:
    target = tmp_path / "b.bin"
    code, out, err = run("book", "build", "--positions", "3", "--nodes", "50", "--hash", "1",
                         "--out", str(target), "--no-progress")
    assert code == 0 and "3 positions" in out, err
    assert (tmp_path / "b.json").is_file() and (tmp_path / "b.bin.state.json").is_file()
    code, out, err = run("book", "stats", str(target))
    assert code == 0 and "3 positions" in out and "positions by ply: 0: 1, 1: " in out, out
    code, out, err = run("book", "show", "--book", str(target))
    assert code == 0 and out.count("depth") == 9
    code, out, err = run("book", "show", "W:W33,46:B23", "--book", str(target))
    assert code == 1 and "not in the book" in out


def test_cli_shows_the_shipped_book() -> None:
    code, out, err = run("book", "show")
    assert code == 0 and out.count("depth") == 9 and "*" in out


@pytest.mark.parametrize("argv, words", [
    (("build", "--positions", "0"), "positions must be"),
    (("build", "--positions", "5", "--nodes", "-1"), "nodes must be"),
    (("build", "--positions", "5", "--variant", "xiangqi"), "unknown variant"),
    (("show", "not a fen"), "damier book show:"),
    (("show", "--margin", "-2"), "margin"),
    (("show", "--variant", "english"), "ships no opening book"),
])
def test_cli_bad_options_get_one_clear_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             argv: tuple[str, ...], words: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run("book", *argv)
    assert code == 2 and words in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1


def test_cli_stats_of_a_corrupt_file(tmp_path: Path, book_bytes: bytes) -> None:
    path = tmp_path / "corrupt.bin"
    path.write_bytes(book_bytes[:-1] + b"\xff")
    code, out, err = run("book", "stats", str(path))
    assert code == 2 and "SHA-256" in err and "Traceback" not in err


# -- the Hub engine's book parameter ---------------------------------------------------------


def test_hub_book_parameter() -> None:
    from damier.hub import move_to_hub, parse_line
    from damier.hub_server import HubServer

    out = io.StringIO()
    server = HubServer(io.StringIO(), out, book=True)
    for line in ("hub", "set-param name=hash value=1", "init", "pos start", "level depth=2",
                 "go think"):
        server.handle_line(line)
    server._end_job()
    lines = out.getvalue().splitlines()
    params = {m.args["name"]: m.args for m in map(parse_line, lines) if m.command == "param"}
    assert params["book"] == {"name": "book", "value": "true", "type": "bool"}
    done = parse_line(lines[-1])
    shipped = shipped_book()
    assert shipped is not None
    assert done.command == "done" and done.args["move"] in {
        move_to_hub(m.move) for m in shipped.moves(damier.Board())}
    server.handle_line("set-param name=book value=maybe")
    assert "book must be true or false" in out.getvalue().splitlines()[-1]
    server.handle_line("set-param name=book value=false")
    assert server.engine is not None and server.engine.book is False

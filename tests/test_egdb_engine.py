"""The engine with endgame databases (issue 11, "In the engine").

The tables are built here by damier (2 and 3 pieces, and the 4-piece pair of a lone
king against two kings and a man, with its promotion table: three kings against one);
their values are checked against an independent brute force in ``test_egdb.py``. What
these tests check is the engine's use of them:

- a won ending is won inside the FMJD move-count rules (the sixteen-move rule for a lone
  king against three pieces, the five-move rule against two) when the count is already
  running, against a defender that plays the tables' longest resistance, in exactly the
  tables' distance: the engine plays the fastest win;
- the move the engine plays keeps the tables' value of the position (win, draw, loss);
- the search's score of a position outside the tables, whose moves all lead into them,
  is the tables' value (a mate score at the distance they keep);
- probes are counted in the search info (``tbhits``), limited by ``egdb_pieces``, and
  absent without tables.
"""

from __future__ import annotations

import random
from typing import Any
from pathlib import Path

import pytest

from damier import Board
from damier.egdb import Wdl, open_database
from damier.egdb_build import build
from damier.engine import MATE_SCORE, Engine, Limit
from damier.outcome import Termination


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("egdb")
    build(directory, pieces=3)
    build(directory, pieces=4, only={(1, 2, 0, 1), (0, 3, 0, 1)})
    return directory


def _defend(db: object, board: Board) -> None:
    """The tables' best move for the side to move: the longest loss (or a draw)."""
    board.push(db.best_moves(board)[0][0])  # type: ignore[attr-defined]


def _play_out(tables: Path, board: Board, *, max_plies: int) -> Board:
    """White is the engine with the tables (20,000 nodes a move); Black plays the
    tables' longest resistance."""
    engine = Engine(hash_mb=16, egdb=tables)
    with open_database(tables) as db:
        for _ in range(max_plies):
            if board.is_game_over():
                break
            if board.turn:
                board.push(engine.search(board, nodes=20_000).best_move)
            else:
                _defend(db, board)
    return board


def test_sixteen_move_count_running_the_win_comes_inside_it(tables: Path) -> None:
    # Two kings and a man against a lone king: the FMJD 16-move rule (a lone king
    # against three pieces, at least one of them a king, draws after 16 moves each:
    # 32 plies). Eight plies of the count are played first (White
    # shuffling, Black defending), with the man moving 50-45 and the kings going
    # back and forth: two positions of the game occur again on the way to the win.
    board = Board("W:W50,K32,K39:BK7")
    for move in ["50-45", "7-2", "32-49", "2-16", "39-33", "16-7", "49-40", "7-2"]:
        board.push(move)
    with open_database(tables) as db:
        assert db.probe_wdl(board) == Wdl.WIN
        distance = db.probe_dtw(board)
    assert distance == 23 and len(board.move_stack) + distance < 32   # a win inside the count
    start = len(board.move_stack)
    _play_out(tables, board, max_plies=40)
    outcome = board.outcome()
    assert outcome is not None
    assert outcome.termination == Termination.NO_MOVES and outcome.winner is True
    assert len(board.move_stack) - start == distance          # the fastest win


def test_five_move_count_running_the_win_comes_inside_it(tables: Path) -> None:
    # Two kings against one: the FMJD 5-move rule (a lone king against two pieces or
    # less, at least one of them a king, draws after 5 moves each: 10 plies), two
    # plies of it played.
    board = Board("W:WK1,K50:BK6")
    for move in ["1-40", "6-1"]:
        board.push(move)
    with open_database(tables) as db:
        distance = db.probe_dtw(board)
    assert distance > 0 and 2 + distance < 10
    _play_out(tables, board, max_plies=12)
    outcome = board.outcome()
    assert outcome is not None and outcome.winner is True
    assert len(board.move_stack) - 2 == distance


def _value_kind(db: object, board: Board) -> int:
    wdl = db.probe_wdl(board)  # type: ignore[attr-defined]
    return 1 if wdl == Wdl.WIN else 0 if wdl == Wdl.DRAW else -1


def test_the_move_played_keeps_the_tables_value(tables: Path) -> None:
    # Random 3- and 4-piece positions: a win stays a win (the opponent loses after
    # the move), a draw a draw; the engine searches only 2 plies.
    rng = random.Random(20261123)
    engine = Engine(hash_mb=4, egdb=tables)
    checked = {1: 0, 0: 0, -1: 0}
    with open_database(tables) as db:
        for fen in _random_positions(rng, 300):
            board = Board(fen)
            if board.is_game_over():
                continue
            kind = _value_kind(db, board)
            move = engine.search(board, depth=2).best_move
            board.push(move)
            after = -_value_kind(db, board) if not board.is_game_over() else 1
            assert after == kind, (fen, str(move))
            checked[kind] += 1
    assert checked[1] >= 20 and checked[0] >= 20


def _random_positions(rng: random.Random, count: int) -> list[str]:
    """Positions of 3 pieces and of two kings and a man against a king."""
    out = []
    shapes = [(["K", "K"], ["K"]), (["", "K"], ["K"]), (["K"], ["", "K"]), (["", ""], ["K"]),
              (["K", "K"], [""]), (["", "K", "K"], ["K"])]
    while len(out) < count:
        white, black = rng.choice(shapes)
        squares = rng.sample(range(1, 51), len(white) + len(black))
        parts_w, parts_b = [], []
        ok = True
        for kind, square in zip(white + black, squares, strict=True):
            is_white = len(parts_w) < len(white)
            if kind == "" and square <= 5 if is_white else kind == "" and square >= 46:
                ok = False        # a man on its crowning row
            (parts_w if is_white else parts_b).append(f"{kind}{square}")
        if ok:
            turn = rng.choice("WB")
            out.append(f"{turn}:W{','.join(parts_w)}:B{','.join(parts_b)}")
    return out


def test_score_of_a_capture_into_the_tables_is_their_value(tables: Path) -> None:
    # Four pieces, a man each and a king each: not in the tables built here, and
    # White must capture, into three pieces that are. The search's score is the
    # best of the tables' values of the positions after the captures.
    board = Board("W:WK28,40:BK1,23")
    assert all(move.captures for move in board.legal_moves)
    with open_database(tables) as db:
        assert db.get_wdl(board) is None
        best = None
        for move in board.legal_moves:
            board.push(move)
            dtw = db.probe_dtw(board)
            wdl = db.probe_wdl(board)
            board.pop()
            # the opponent's loss in n plies is our win in n + 1
            value = (MATE_SCORE - (-dtw + 1) if wdl == Wdl.LOSS else
                     -(MATE_SCORE - (dtw + 1)) if wdl == Wdl.WIN else 0)
            best = value if best is None else max(best, value)
    result = Engine(hash_mb=4, egdb=tables).search(board, depth=3)
    assert result.score == best
    assert result.tbhits is not None and result.tbhits > 0


def test_tbhits_in_the_info_and_the_piece_limit(tables: Path) -> None:
    board = Board("W:WK28,K33:BK5")
    engine = Engine(hash_mb=4, egdb=tables)
    info = engine.analyse(board, Limit(depth=3))
    assert info["tbhits"] > 0
    # two men against a king far away, no capture in sight: probed with 3 pieces,
    # not with at most 2
    quiet = Board("W:W36,37:BK1")
    assert engine.search(quiet, depth=1).tbhits > 0
    engine.set_egdb(tables, pieces=2)
    assert engine.search(quiet, depth=1).tbhits == 0
    # no tables: no tbhits at all
    assert "tbhits" not in Engine(hash_mb=4).analyse(board, Limit(depth=3))
    assert Engine(hash_mb=4, egdb=tables / "nothing-here").search(board, depth=2).tbhits is None


def test_multipv_analysis_still_shows_every_move(tables: Path) -> None:
    # The root filter applies to one best move; several lines show the losing moves too.
    board = Board("W:WK28,K33:BK5")
    engine = Engine(hash_mb=4, egdb=tables)
    lines = engine.analyse(board, Limit(depth=2), multipv=50)
    assert len(lines) == len(list(board.legal_moves))


@pytest.mark.parametrize("bad, error", [(3, TypeError), (b"dir", TypeError)])
def test_bad_egdb_settings_are_refused(bad: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="egdb"):
        Engine(hash_mb=1, egdb=bad)  # type: ignore[arg-type]


@pytest.mark.parametrize("pieces", [1, 8, True, 2.5])
def test_bad_piece_limits_are_refused(pieces: object, tables: Path) -> None:
    with pytest.raises(ValueError, match="pieces"):
        Engine(hash_mb=1, egdb=tables, egdb_pieces=pieces)  # type: ignore[arg-type]


def test_hub_bb_size_parameter(tables: Path) -> None:
    import io

    from damier.hub import parse_line
    from damier.hub_server import HubServer

    out = io.StringIO()
    server = HubServer(io.StringIO(), out, egdb=tables)
    for line in ("hub", "set-param name=hash value=1", "init"):
        server.handle_line(line)
    params = {m.args["name"]: m.args for m in map(parse_line, out.getvalue().splitlines())
              if m.command == "param"}
    assert params["bb-size"] == {"name": "bb-size", "value": "5", "type": "int", "min": "0",
                                 "max": "7"}
    assert server.engine is not None and server.engine.egdb == tables
    # a won position: the engine plays a winning move by the tables
    board = Board("W:WK28,K32,37:BK5")
    server.handle_line(f"pos pos={_hub_position(board)}")
    server.handle_line("level depth=3")
    server.handle_line("go think")
    _finish(server)
    lines = list(map(parse_line, out.getvalue().splitlines()))
    done = lines[-1]
    with open_database(tables) as db:
        winning = {m for m, d in db.best_moves(board) if d > 0}
    assert done.command == "done" and any(_hub_text(m) == done.args["move"] for m in winning)
    # The info lines count the table probes the search used (tbhits), and the Hub
    # client reads them back.
    infos = [m for m in lines if m.command == "info"]
    assert infos and all(int(m.args["tbhits"]) > 0 for m in infos)
    from damier.hub import _hub_info, _info_dict
    assert _hub_info(board, _info_dict(infos[-1].args))["tbhits"] == int(infos[-1].args["tbhits"])
    # Without tables the info lines have no tbhits.
    server.handle_line("set-param name=bb-size value=0")
    server.handle_line("go think")
    _finish(server)
    plain = [m for m in map(parse_line, out.getvalue().splitlines()) if m.command == "info"]
    assert len(plain) > len(infos) and all("tbhits" not in m.args for m in plain[len(infos):])
    for bad in ("8", "-1", "four", "2.5"):
        server.handle_line(f"set-param name=bb-size value={bad}")
        assert "bb-size must be an integer from 0 to 7" in out.getvalue().splitlines()[-1]
    server.handle_line("set-param name=bb-size value=0")
    assert server.engine.egdb is None
    server.handle_line("set-param name=bb-size value=3")
    assert server.engine.egdb == tables and server.engine.egdb_pieces == 3


def _finish(server: object) -> None:
    """Waits for the server's search to end by itself (not stopped), then ends the job."""
    job = server._job  # type: ignore[attr-defined]
    if job is not None and job.thread is not None:
        job.thread.join(60)
    server._end_job()  # type: ignore[attr-defined]


def _hub_position(board: Board) -> str:
    from damier.hub import board_to_hub

    return board_to_hub(board)


def _hub_text(move: object) -> str:
    from damier.hub import move_to_hub

    return move_to_hub(move)  # type: ignore[arg-type]


def test_match_spec_egdb_options(tables: Path) -> None:
    from damier.match import DamierPlayer, parse_engine_spec

    player = DamierPlayer(parse_engine_spec(f"damier:egdb={tables},egdb_pieces=3"))
    assert player.engine.egdb == tables and player.engine.egdb_pieces == 3
    assert DamierPlayer(parse_engine_spec("damier:egdb=off")).engine.egdb is None
    for bad in ("egdb=/no/such/dir", "egdb=", "egdb_pieces=9"):
        with pytest.raises(ValueError, match="egdb"):
            parse_engine_spec(f"damier:{bad}")


# -- for people: the verdict in the hint, the web analysis and the game report ----------------


def test_verdicts_name_the_winner_and_the_count_that_draws_first(tables: Path) -> None:
    engine = Engine(hash_mb=1, egdb=tables)
    verdict = engine.egdb_verdict(Board("W:WK46:BK5"))
    assert verdict is not None and verdict.winner is False and verdict.plies == 2
    assert verdict.text() == "database: Black wins in 2 plies"
    assert verdict.score == -(MATE_SCORE - 2)
    # the sixteen-move count: 8 plies played, a win in 23 fits (31 < 32) ...
    board = Board("W:W50,K32,K39:BK7")
    for move in ["50-45", "7-2", "32-49", "2-16", "39-33", "16-7", "49-40", "7-2"]:
        board.push(move)
    verdict = engine.egdb_verdict(board)
    assert verdict is not None and verdict.count_rule is None
    assert verdict.text() == "database: White wins in 23 plies"
    # ... and after White's slowest winning moves, a few plies later, it no longer does
    with open_database(tables) as db:
        while len(board.move_stack) + db.probe_dtw(board) < 32:
            wins = [(m, d) for m, d in db.best_moves(board) if d > 0]
            board.push(max(wins, key=lambda item: item[1])[0])
            _defend(db, board)
        distance = db.probe_dtw(board)
    verdict = engine.egdb_verdict(board)
    assert verdict is not None and verdict.plies == distance
    assert verdict.count_rule == "the 16-move rule" and verdict.score is None
    assert verdict.text().endswith("but the 16-move rule draws first")
    assert Engine(hash_mb=1).egdb_verdict(board) is None


def test_terminal_hint_says_what_the_database_says(tables: Path) -> None:
    from damier.play import PlaySession

    session = PlaySession(fen="W:WK28,K33:BK5", white="human", black="human", depth=2,
                          egdb=tables)
    with open_database(tables) as db:
        wdl = db.probe_wdl(Board("W:WK28,K33:BK5"))
    expected = "database: draw" if wdl == Wdl.DRAW else "database: White wins"
    assert expected in session.send("hint")
    plain = PlaySession(fen="W:WK28,K33:BK5", white="human", black="human", depth=2)
    assert "database" not in plain.send("hint")


def test_game_report_uses_the_database_values(tables: Path) -> None:
    from damier.web.report import analyse_game

    engine = Engine(hash_mb=4, egdb=tables)
    moves = ["40-35", "2-7"]
    board = Board("W:W50,K32,K39:BK7")
    start = ["50-45", "7-2", "32-49", "2-16", "39-33", "16-7", "49-40", "7-2"]
    for move in start:
        board.push(move)
    report = analyse_game(board.fen(), "international", moves, engine, depth=2)
    first = report["positions"][0]
    with open_database(tables) as db:
        dtw = db.probe_dtw(Board(board.fen()))
    # from the FEN alone no count runs: the database's win is the score
    assert first["database"] == f"database: White wins in {dtw} plies"
    assert first["score"] == MATE_SCORE - dtw
    assert all("database" in p for p in report["positions"])


def _web_analysis_database(database: Path, fen: str, **settings: Any) -> str | None:
    """The ``database`` line of the web analysis of ``fen`` (an app whose games are in
    the SQLite file ``database``; ``settings`` go to ``create_app``)."""
    pytest.importorskip("httpx")
    import warnings
    with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    from damier.web.app import create_app

    app = create_app(database, movetime=0.05, analysis_seconds=2, engines=1, hash_mb=4,
                     allowed_hosts=["testserver"], **settings)
    with TestClient(app) as client:
        response = client.post("/api/games", json={"color": "both", "fen": fen})
        assert response.status_code == 201, response.text
        with client.websocket_connect(f"/ws/games/{response.json()['id']}") as ws:
            assert ws.receive_json()["type"] == "state"
            ws.send_json({"type": "analyse"})
            assert ws.receive_json()["type"] == "analysis_started"
            message = ws.receive_json()
            assert message["type"] == "analysis"
            database: str | None = message.get("database")
            return database


def test_web_analysis_messages_carry_the_database_verdict(tables: Path, tmp_path: Path) -> None:
    assert (_web_analysis_database(tmp_path / "games.sqlite3", "W:WK46:BK5", egdb=tables)
            == "database: Black wins in 2 plies")


def test_default_directory_gets_its_small_tables_at_first_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from damier.egdb import default_directory, signature_name, signatures

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = default_directory() / "international"
    assert not folder.exists()
    engine = Engine(hash_mb=1, egdb=True)
    result = engine.search(Board("W:WK46:BK5"), depth=2)
    assert result.tbhits is not None and result.tbhits > 0
    names = {p.stem for p in folder.glob("*.egdb")}
    assert names == {signature_name(s) for s in signatures(3)}
    # an explicit directory is only read, never filled
    empty = tmp_path / "mine"
    empty.mkdir()
    assert Engine(hash_mb=1, egdb=empty).search(Board("W:WK46:BK5"), depth=2).tbhits is None
    assert list(empty.iterdir()) == []


def test_weak_levels_play_without_the_tables(tables: Path) -> None:
    board = Board("W:WK28,K33:BK5")
    assert Engine(hash_mb=1, egdb=tables, level=5).search(board, depth=2).tbhits is None
    assert Engine(hash_mb=1, egdb=tables, level=8).search(board, depth=2).tbhits is not None
    # an analysis is at full strength, tables included
    info = Engine(hash_mb=1, egdb=tables, level=5).analyse(board, Limit(depth=2))
    assert "tbhits" in info


def test_egdb_pieces_option_of_play_serve_and_hub(tables: Path, tmp_path: Path) -> None:
    """``--egdb-pieces N``: play, serve and hub probe positions of at most N pieces."""
    import io

    from damier.cli import build_parser
    from damier.hub import parse_line
    from damier.cli.hub import hub_command
    from damier.cli.play import play_command

    three = "W:WK28,K33:BK5"           # 3 pieces: in the tables

    def hint(*extra: str) -> str:
        out = io.StringIO()
        feed = iter(["hint", "quit"])
        args = build_parser().parse_args(["play", "--white", "human", "--black", "human",
                                          "--depth", "2", "--fen", three, "--egdb",
                                          str(tables), *extra])
        assert play_command(args, out, io.StringIO(), read_line=lambda _: next(feed)) == 0
        return out.getvalue()

    assert "database: " in hint()
    assert "database: " in hint("--egdb-pieces", "3")
    assert "database: " not in hint("--egdb-pieces", "2")

    def bb_size(*extra: str) -> str:
        out = io.StringIO()
        args = build_parser().parse_args(["hub", "--egdb", str(tables), *extra])
        assert hub_command(args, io.StringIO("hub\nquit\n"), out, io.StringIO()) == 0
        params = {m.args["name"]: m.args for m in map(parse_line, out.getvalue().splitlines())
                  if m.command == "param"}
        return params["bb-size"]["value"]

    assert bb_size() == "5" and bb_size("--egdb-pieces", "3") == "3"

    def web_verdict(*extra: str) -> str | None:
        serve = build_parser().parse_args(["serve", "--egdb", str(tables), *extra])
        return _web_analysis_database(tmp_path / "games.sqlite3", three, egdb=serve.egdb,
                                      egdb_pieces=serve.egdb_pieces)

    assert str(web_verdict()).startswith("database: ")
    assert web_verdict("--egdb-pieces", "2") is None


def test_bad_egdb_pieces_options_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from damier.cli import main

    for command in ("play", "serve", "hub"):
        for bad in ("1", "8", "five", ""):
            with pytest.raises(SystemExit) as exc:
                main([command, "--egdb-pieces", bad], out=io.StringIO(), err=io.StringIO())
            assert exc.value.code == 2
            assert (f"argument --egdb-pieces: must be a whole number from 2 to 7, not {bad!r}"
                    in capsys.readouterr().err)


def test_larger_tables_load_in_the_background_and_are_probed_once_all_are_in(
        tables: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tables above QUICK_LOAD_PIECES are read by a thread; until it is done the
    engine probes only the smaller ones, and searches go on meanwhile."""
    import threading

    import damier.egdb as egdb

    monkeypatch.setattr(egdb, "QUICK_LOAD_PIECES", 2)
    monkeypatch.setattr(egdb, "_SHARED", {})
    gate = threading.Event()
    values = egdb.Table.values

    def held_back(table: egdb.Table) -> bytearray:
        if sum(table.info.signature) > 2:
            assert gate.wait(60)
        return values(table)

    monkeypatch.setattr(egdb.Table, "values", held_back)
    # The engine asks for the same piece count as the loads below: one shared load
    # (another count would be another load, with its own thread).
    engine = Engine(hash_mb=1, egdb=tables, egdb_pieces=4)
    loaded = egdb.shared_tables(tables, pieces=4)
    assert loaded is not None and loaded[1] == 2
    three = Board("W:W46,47:B5")                       # no capture for many plies
    assert engine.search(Board("W:WK46:BK5"), depth=2).tbhits
    assert engine.egdb_verdict(three) is None          # not in yet
    assert engine.search(three, depth=2).tbhits == 0
    gate.set()
    done = egdb.shared_tables(tables, pieces=4, wait=True)
    assert done is not None and done[0] is loaded[0] and done[1] == 4
    verdict = engine.egdb_verdict(three)
    with open_database(tables) as db:
        assert verdict is not None and verdict.wdl == db.probe_wdl(three)
    assert engine.search(three, depth=2).tbhits

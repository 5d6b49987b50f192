"""SVG pictures of boards (damier.svg), Board._repr_svg_ and ``damier render``."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import damier
from damier import svg
from damier.cli import main

NS = {"svg": "http://www.w3.org/2000/svg"}
XLINK = "{http://www.w3.org/1999/xlink}href"
SQ = svg.SQUARE_SIZE
FRAME = svg.FRAME


def parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def with_class(root: ET.Element, css: str) -> list[ET.Element]:
    """Elements whose class attribute is exactly ``css``."""
    return [e for e in root.iter() if e.get("class") == css]


def with_class_word(root: ET.Element, word: str) -> list[ET.Element]:
    return [e for e in root.iter() if word in (e.get("class") or "").split()]


def dark_square(root: ET.Element, square: int) -> ET.Element:
    (rect,) = [e for e in with_class(root, "square dark") if e.get("data-square") == str(square)]
    return rect


def cell(rect: ET.Element) -> tuple[int, int]:
    """(row, col) of a square's rect as drawn, row 0 at the top."""
    x, y = float(rect.get("x")), float(rect.get("y"))
    return int((y - FRAME) // SQ), int((x - FRAME) // SQ)


def piece_cell(use: ET.Element) -> tuple[int, int]:
    tx, ty = use.get("transform").removeprefix("translate(").rstrip(")").split(",")
    return int((float(ty) - FRAME) // SQ), int((float(tx) - FRAME) // SQ)


# -- the picture ---------------------------------------------------------------------

@pytest.mark.parametrize("variant, n, men", [("international", 10, 40), ("english", 8, 24),
                                             ("russian", 8, 24), ("brazilian", 8, 24)])
def test_start_position_squares_and_pieces(variant: str, n: int, men: int) -> None:
    root = parse(svg.board(damier.Board(variant=variant)))
    assert len(with_class(root, "square light")) == n * n // 2
    assert len(with_class(root, "square dark")) == n * n // 2
    assert sorted(int(e.get("data-square")) for e in with_class(root, "square dark")) == list(
        range(1, n * n // 2 + 1))
    assert len(with_class_word(root, "piece")) == men
    assert len(with_class(root, "piece white man")) == men // 2
    assert len(with_class(root, "piece black man")) == men // 2
    assert not with_class_word(root, "king")
    extent = n * SQ + 2 * FRAME
    assert root.get("viewBox") == f"0 0 {extent} {extent}"
    assert root.get("width") == root.get("height") == "400"


@pytest.mark.parametrize("fen, variant, counts", [
    ("W:WK46,30,K1:B5,K50,K23", "international", (1, 2, 1, 2)),
    ("B:W18,K31:B12,K24", "international", (1, 1, 1, 1)),
    ("W:WK1,K2,K3:B", "international", (0, 3, 0, 0)),
    ("B:W21,22,K4:BK29,1", "english", (2, 1, 1, 1)),
    ("W:WK32:B1,2,3", "russian", (0, 1, 3, 0)),
])
def test_pieces_and_kings(fen: str, variant: str, counts: tuple[int, int, int, int]) -> None:
    b = damier.Board(fen, variant=variant)
    root = parse(svg.board(b))
    found = tuple(len(with_class(root, f"piece {c} {k}"))
                  for c, k in (("white", "man"), ("white", "king"), ("black", "man"),
                               ("black", "king")))
    assert found == counts
    # every piece stands on its dark square, and refers to a definition that exists
    ids = {e.get("id") for e in root.iter() if e.get("id")}
    for use in with_class_word(root, "piece"):
        square = int(use.get("data-square"))
        piece = b.piece_at(square)
        assert use.get("class") == (f"piece {'white' if piece.color else 'black'} "
                                    f"{'king' if piece.king else 'man'}")
        assert piece_cell(use) == cell(dark_square(root, square))
        assert use.get("href") == use.get(XLINK)
        assert use.get("href").lstrip("#") in ids


def test_empty_board_is_international() -> None:
    root = parse(svg.board())
    assert len(with_class(root, "square dark")) == 50
    assert not with_class_word(root, "piece")


def test_dark_square_pattern_white_view() -> None:
    root = parse(svg.board(damier.Board()))
    assert cell(dark_square(root, 1)) == (0, 1)       # second square of the top row
    assert cell(dark_square(root, 5)) == (0, 9)
    assert cell(dark_square(root, 46)) == (9, 0)      # White's bottom-left corner
    assert cell(dark_square(root, 50)) == (9, 8)
    for rect in with_class(root, "square light"):
        row, col = cell(rect)
        assert (row + col) % 2 == 0
    root8 = parse(svg.board(damier.Board(variant="english")))
    assert cell(dark_square(root8, 1)) == (0, 1)
    assert cell(dark_square(root8, 29)) == (7, 0)


@pytest.mark.parametrize("variant, n", [("international", 10), ("russian", 8)])
def test_flipped(variant: str, n: int) -> None:
    b = damier.Board(variant=variant)
    root = parse(svg.board(b, flipped=True))
    row, col = cell(dark_square(root, 1))
    assert row == n - 1                                # square 1 on the bottom row ...
    bottom = [cell(e)[1] for e in with_class(root, "square dark") if cell(e)[0] == n - 1]
    assert col == max(bottom) == n - 2                 # ... its rightmost dark square
    assert cell(dark_square(root, n * n // 2)) == (0, 1)
    assert cell(dark_square(root, n * n // 2 - n // 2 + 1)) == (0, n - 1)
    # the bottom-left corner is dark for Black too, and Black's men are at the bottom
    assert any(cell(e) == (n - 1, 0) for e in with_class(root, "square dark"))
    for use in with_class(root, "piece black man"):
        assert piece_cell(use)[0] >= n // 2 + 1


def test_lastmove_plain() -> None:
    b = damier.Board()
    move = b.push("32-28")
    root = parse(svg.board(b, lastmove=move))
    assert sorted(int(e.get("data-square")) for e in with_class(root, "lastmove")) == [28, 32]
    assert not with_class(root, "lastmove-path")
    assert with_class(root, "lastmove")[0].get("x") == dark_square(root, 32).get("x")


def test_lastmove_capture_path() -> None:
    b = damier.Board("W:WK47:B14,19,29,31,42")
    move = b.push(b.parse_move("47x38x24x13x36"))
    root = parse(svg.board(b, lastmove=move))
    assert sorted(int(e.get("data-square")) for e in with_class(root, "lastmove")) == [36, 47]
    (line,) = with_class(root, "lastmove-path")
    assert line.tag.endswith("polyline")
    points = line.get("points").split()
    assert len(points) == 5
    x, y = (float(v) for v in points[2].split(","))
    assert cell(dark_square(root, 24)) == (int((y - FRAME) // SQ), int((x - FRAME) // SQ))
    assert len(with_class(root, "lastmove-stop")) == 3
    # the same picture from move text
    assert svg.board(b, lastmove="47x38x24x13x36") == svg.board(b, lastmove=move)


def test_lastmove_forms() -> None:
    root = parse(svg.board(lastmove=(19, 28)))
    assert len(with_class(root, "lastmove")) == 2
    root = parse(svg.board(lastmove="19x28"))
    assert len(with_class(root, "lastmove-path")) == 1
    # a king's capture that comes back to its square highlights it once
    root = parse(svg.board(lastmove=(28, 6, 17, 28)))
    assert len(with_class(root, "lastmove")) == 1


def test_arrows() -> None:
    b = damier.Board("W:WK47:B14,19,29,31,42")
    capture = b.legal_moves[0]
    root = parse(svg.board(b, arrows=[(32, 28), svg.Arrow(33, 29, "red"), capture, "46-37",
                                      (45, 40, "#123456"), (20, 20)]))
    arrows = with_class(root, "arrow")
    assert len(arrows) == 6
    # an arrow for a capture follows its path: shaft through every landing square
    shaft = arrows[2].find("svg:polyline", NS)
    assert len(shaft.get("points").split()) == len(capture.path)
    assert arrows[2].find("svg:polygon", NS) is not None
    assert arrows[1].find("svg:polygon", NS).get("fill") == svg.DEFAULT_COLORS["arrow red"][:7]
    assert arrows[4].find("svg:polygon", NS).get("fill") == "#123456"
    assert arrows[5].tag.endswith("circle")           # tail == head: a ring on the square


def test_coordinates() -> None:
    assert not with_class(parse(svg.board()), "coord")
    for variant, n in (("international", 50), ("english", 32)):
        root = parse(svg.board(damier.Board(variant=variant), coordinates=True, flipped=True))
        texts = with_class(root, "coord")
        assert sorted(int(t.text) for t in texts) == list(range(1, n + 1))
        for t in texts:        # each number is drawn inside its own dark square
            rect = dark_square(root, int(t.text))
            assert 0 < float(t.get("x")) - float(rect.get("x")) < SQ
            assert 0 < float(t.get("y")) - float(rect.get("y")) < SQ


def test_squares_highlight() -> None:
    root = parse(svg.board(squares={1, 50, 23}))
    assert sorted(int(e.get("data-square")) for e in with_class(root, "selected")) == [1, 23, 50]
    with pytest.raises(ValueError, match="square 51 is not on the International board"):
        svg.board(squares=[51])
    with pytest.raises(ValueError, match="not on the English board"):
        svg.board(damier.Board(variant="english"), squares=[33])


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="size"):
        svg.board(size=0)
    with pytest.raises(ValueError, match="unknown colour 'square dakr'"):
        svg.board(colors={"square dakr": "#000"})
    with pytest.raises(ValueError, match="not on one diagonal"):
        svg.board(lastmove="32-26")
    with pytest.raises(ValueError, match="not on the International board"):
        svg.board(arrows=[(32, 55)])
    with pytest.raises(TypeError):
        svg.board(lastmove=32)


def test_size_colors_style_and_escaping() -> None:
    text = svg.board(size=123, colors={"square dark": "#112233", "lastmove": "#ff000080"},
                     style='rect.frame { fill: "a&b" } svg > g {}', lastmove=(32, 28))
    root = parse(text)
    assert root.get("width") == root.get("height") == "123"
    assert all(e.get("fill") == "#112233" for e in with_class(root, "square dark"))
    last = with_class(root, "lastmove")[0]
    assert last.get("fill") == "#ff0000"
    assert float(last.get("fill-opacity")) == pytest.approx(0.502, abs=1e-3)
    (style,) = root.findall("svg:style", NS)
    assert style.text == 'rect.frame { fill: "a&b" } svg > g {}'
    # a hostile colour string cannot break the document
    root = parse(svg.board(colors={"square light": '"/><script>x</script>'}))
    assert not root.findall(".//svg:script", NS)
    assert with_class(root, "square light")[0].get("fill") == '"/><script>x</script>'


def test_colors_with_alpha_everywhere() -> None:
    colors = {key: "#12345680" for key in svg.DEFAULT_COLORS}
    root = parse(svg.board(damier.Board("W:W31,K32:B1,K2"), colors=colors, lastmove="37-31",
                           arrows=[(32, 28), (40, 40)], squares={5}, coordinates=True))
    assert len(with_class_word(root, "piece")) == 4
    parse(svg.piece(damier.Piece(damier.WHITE), colors=colors))


def test_deterministic() -> None:
    b = damier.Board("W:WK46,30:B5,K23")
    args = dict(lastmove=(41, 46), arrows=[(30, 24)], coordinates=True, squares={7})
    assert svg.board(b, **args) == svg.board(b.copy(), **args)
    # different palettes use different ids, so several pictures can share an HTML page
    ids_a = {e.get("id") for e in parse(svg.board()).iter() if e.get("id")}
    ids_b = {e.get("id") for e in parse(svg.board(colors={"white": "#eee"})).iter()
             if e.get("id")}
    assert ids_a and not ids_a & ids_b


def test_piece() -> None:
    root = parse(svg.piece(damier.Piece(damier.BLACK, king=True), size=64))
    assert root.get("width") == "64"
    assert len(with_class(root, "piece black king")) == 1


def test_parse_path() -> None:
    assert svg.parse_path("32-28") == ((32, 28), False)
    assert svg.parse_path("19x28") == ((19, 28), True)
    assert svg.parse_path("c3-d4", "russian") == ((22, 18), False)
    for bad in ("32", "32-28-23", "32x28-23", "32-51", "x-y"):
        with pytest.raises(ValueError, match="cannot read move"):
            svg.parse_path(bad)


def test_repr_svg() -> None:
    b = damier.Board()
    root = parse(b._repr_svg_())
    assert len(with_class_word(root, "piece")) == 40
    assert not with_class(root, "lastmove")
    b.push("32-28")
    root = parse(b._repr_svg_())
    assert sorted(int(e.get("data-square")) for e in with_class(root, "lastmove")) == [28, 32]
    english = damier.Board(variant="english")
    english.push("11-15")
    assert len(with_class(parse(english._repr_svg_()), "square dark")) == 32


# -- damier render ------------------------------------------------------------------

def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_render_svg(tmp_path: Path) -> None:
    target = tmp_path / "b.svg"
    status, out, err = run("render", "W:W27,28,32:B13,K17", "-o", str(target), "--size", "250",
                           "--flipped", "--coordinates", "--lastmove", "33-28")
    assert status == 0, err
    assert "b.svg" in out
    root = parse(target.read_text(encoding="utf-8"))
    assert root.get("width") == "250"
    assert len(with_class_word(root, "piece")) == 5
    assert len(with_class(root, "piece black king")) == 1
    assert len(with_class(root, "coord")) == 50
    assert len(with_class(root, "lastmove")) == 2
    assert cell(dark_square(root, 1))[0] == 9      # flipped


def test_render_default_position_and_variant(tmp_path: Path) -> None:
    target = tmp_path / "e.SVG"
    status, _, err = run("render", "-o", str(target), "--variant", "english")
    assert status == 0, err
    root = parse(target.read_text(encoding="utf-8"))
    assert len(with_class(root, "square dark")) == 32
    assert len(with_class_word(root, "piece")) == 24


@pytest.mark.parametrize("argv, message", [
    (["W:W51:B1", "-o", "x.svg"], "invalid FEN"),
    (["W:W31:B1", "-o", "x.svg", "--variant", "xiangqi"], "unknown variant 'xiangqi'"),
    (["W:W31:B1", "-o", "x.jpg"], "must end in .svg or .png"),
    (["W:W31:B1", "-o", "x"], "must end in .svg or .png"),
    (["W:W28:B1", "-o", "x.svg", "--lastmove", "32-26"], "invalid --lastmove"),
    (["W:W28:B1", "-o", "x.svg", "--lastmove", "hello"], "invalid --lastmove"),
    (["W:W28:B1", "-o", "x.svg", "--lastmove", "33-29"], "29, which is empty"),
    (["W:W28,32:B1", "-o", "x.svg", "--lastmove", "32-28"], "32, which is occupied"),
    (["W:W28:B1", "-o", "x.svg", "--size", "0"], "--size"),
])
def test_render_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, argv: list[str],
                       message: str) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, err = run("render", *argv)
    assert status == 2
    assert err.startswith("damier render: ") and message in err
    assert "Traceback" not in err
    assert not list(tmp_path.iterdir())


def test_render_unwritable(tmp_path: Path) -> None:
    status, _, err = run("render", "-o", str(tmp_path / "missing" / "b.svg"))
    assert status == 1 and "cannot write" in err


def test_render_png_without_cairosvg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "cairosvg", None)      # import cairosvg fails
    status, _, err = run("render", "-o", str(tmp_path / "b.png"))
    assert status == 2
    assert "pip install 'damier[png]'" in err
    assert not (tmp_path / "b.png").exists()


def test_render_png(tmp_path: Path) -> None:
    try:
        import cairosvg  # noqa: F401
    except (ImportError, OSError) as exc:   # OSError: the cairo library itself is missing
        pytest.skip(f"cairosvg is not usable here: {exc}")
    target = tmp_path / "b.png"
    status, _, err = run("render", "B:W18,K31:B12,K24", "-o", str(target), "--size", "200",
                         "--lastmove", "22-18", "--coordinates")
    assert status == 0, err
    data = target.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (200, 200)


def test_render_command_line(tmp_path: Path) -> None:
    """``python -m damier render`` end to end: a file, or a message and status 2."""
    env = dict(os.environ)
    src = str(Path(damier.__file__).resolve().parents[1])
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    target = tmp_path / "b.svg"
    done = subprocess.run([sys.executable, "-m", "damier", "render", "-o", str(target)],
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr
    parse(target.read_text(encoding="utf-8"))
    done = subprocess.run([sys.executable, "-m", "damier", "render", "W:X1", "-o", str(target)],
                          capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 2
    assert "invalid FEN" in done.stderr and "Traceback" not in done.stderr

"""The acceptance fuzz of ``damier serve`` (issue 21): every route of the app's own route
table gets bounded random requests, and none may answer 500, leave a traceback in the
log, or take more than :data:`REQUEST_SECONDS` to answer.

The routes come from ``app.routes`` itself (one test per route), so a new route is
fuzzed without touching this file; :func:`test_every_route_is_fuzzed` fails when the
table holds something the fuzz cannot drive (a new kind of route, a path parameter
with no strategy in :data:`PARAM_STRATEGIES`, a mount of an unknown app).

* Path parameters: a real id (a game set up through the API for the example, as one
  of :data:`SETUPS` says; a shipped puzzle), a random string, or junk.
* Bodies: JSON objects of the route's own fields (the route names them in its
  "unknown field" error, asked once per route), of good values, of good values but one,
  or of anything; values of every JSON type written as raw JSON text (NaN,
  ``1e999999``, lone surrogates as ``\\ud800`` escapes, digits of other scripts such as
  ``3\u00b2-28``, long strings, nesting); raw junk bodies, odd content types, query
  strings, other players' cookies, foreign origins and hosts, odd ranges.
* The WebSocket gets fuzzed text and binary frames and must answer a ping after each.
* Sweeps (not random) send each bad value of :data:`BAD_VALUES` in each field of each
  route, each odd header and query value to each route, and each bad frame to the
  WebSocket, so that every known bad value reaches every route on every run.

What each answer must be: a status below 600 and not 500, within
:data:`REQUEST_SECONDS`; a JSON ``{"error": ..., "status": N}`` with the answer's status
for every 4xx (the app's docstring promises JSON errors); strict JSON (no NaN) whenever
the type says JSON; no traceback in the body. Nothing may be logged at WARNING or above
with a traceback (or at ERROR, or as ``unexpected error``) by the app, Starlette or
asyncio (a task's "exception was never retrieved" included), and no message of damier's
may be logged more than :data:`LOG_FLOOD` times in one example (work that does not stop).

Starlette's TestClient hands the WebSocket's text frames to the test as Python strings;
a real server encodes them as UTF-8 first, and a lone surrogate fails there (the socket
then goes silent). The app is wrapped in :class:`RealTransport`, which encodes as a real
server does. What the TestClient cannot show (slow or stalled clients, real socket and
body timeouts, a real HTTP parser's limits, frames that are not UTF-8) is for the tests
against a real server in ``test_web_security.py`` and ``test_web_hardening.py``.

Collecting many bugs at once: with ``DAMIER_FUZZ_COLLECT=<file>`` the failures are
written to ``<file>`` (JSON lines: one per distinct failure, with the shortest request
that showed it, then the answers by route and the slowest ones) instead of failing the
test at the first one; ``DAMIER_FUZZ_EXAMPLES=<n>`` multiplies the number of random
examples; ``DAMIER_FUZZ_TRACE=1`` prints every request and answer (with ``-s``).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import gc
import json
import logging
import os
import re
import tempfile
import threading
import time
import traceback
import urllib.parse
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("httpx", reason="httpx (needed by Starlette's TestClient) is not installed")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2; httpx works the same here
    warnings.simplefilter("ignore")
    import anyio  # noqa: E402
    from starlette.routing import Mount, Route, WebSocketRoute  # noqa: E402
    from starlette.staticfiles import StaticFiles  # noqa: E402
    from starlette.testclient import TestClient  # noqa: E402
    from starlette.websockets import WebSocketDisconnect  # noqa: E402

from damier.puzzles import load_puzzles  # noqa: E402
from damier.variants import VARIANTS, get_variant  # noqa: E402
from damier.web.app import IMPORT_LIMIT, JSON_LIMIT, STATIC_DIR, create_app  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx`")

REQUEST_SECONDS = 5.0
"""The longest any answer (or a WebSocket's pong) may take. The engine thinks 0.05 s a
move here, so nothing should come near it."""
HANG_SECONDS = 60.0
"""A request still running after this long is reported as hung (and left behind)."""
HOST = "testserver"
LOG_FLOOD = 100
"""The most times one message may be logged in one example (or one sweep)."""

COLLECT = os.environ.get("DAMIER_FUZZ_COLLECT", "")
TRACE = bool(os.environ.get("DAMIER_FUZZ_TRACE"))
SCALE = max(1, int(os.environ.get("DAMIER_FUZZ_EXAMPLES", "1") or "1"))


def make_app(directory: Path) -> Any:
    return create_app(directory / "g.sqlite3", movetime=0.05, engines=1, hash_mb=1, book=False,
                      analysis_seconds=2, allowed_hosts=[HOST])


def fuzz_settings(examples: int) -> Callable[[Any], Any]:
    return settings(max_examples=examples * SCALE, deadline=None, derandomize=True,
                    database=None, print_blob=False,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


# -- the route table -------------------------------------------------------------------------


@dataclass(frozen=True)
class RouteCase:
    """One entry of the route table: ``kind`` is ``http``, ``websocket``, ``static`` (a
    mount of :class:`StaticFiles`) or ``unknown``."""

    kind: str
    path: str
    methods: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    what: str = ""

    @property
    def id(self) -> str:
        return f"{'+'.join(m for m in self.methods if m != 'HEAD') or self.kind} {self.path}"


ALL_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def describe(routes: list[Any], prefix: str = "") -> list[RouteCase]:
    cases = []
    for route in routes:
        params = tuple(getattr(route, "param_convertors", {}))
        if isinstance(route, Route):
            methods = tuple(sorted(route.methods)) if route.methods else ALL_METHODS
            cases.append(RouteCase("http", prefix + route.path, methods, params))
        elif isinstance(route, WebSocketRoute):
            cases.append(RouteCase("websocket", prefix + route.path, (), params))
        elif isinstance(route, Mount) and isinstance(route.app, StaticFiles):
            cases.append(RouteCase("static", prefix + route.path, ("GET", "HEAD"), params))
        elif isinstance(route, Mount) and getattr(route, "routes", None):
            cases.extend(describe(list(route.routes), prefix + route.path))
        else:
            cases.append(RouteCase("unknown", prefix + str(getattr(route, "path", "?")),
                                   (), params, what=repr(route)[:200]))
    return cases


def route_table() -> list[RouteCase]:
    """The route table of an app made the same way as the fuzzed ones."""
    with tempfile.TemporaryDirectory() as directory:
        app = make_app(Path(directory))
        try:
            return describe(list(app.routes))
        finally:
            app.state.live_games.shutdown()
            app.state.store.close()


ROUTES = route_table()
HTTP_ROUTES = [r for r in ROUTES if r.kind == "http"]
WS_ROUTES = [r for r in ROUTES if r.kind == "websocket"]
STATIC_ROUTES = [r for r in ROUTES if r.kind == "static"]
GAME_ROUTES = [r for r in HTTP_ROUTES if "game_id" in r.params]


# -- JSON text: values a client can send ----------------------------------------------------------


def js(value: Any) -> str:
    """``value`` as JSON text; a lone surrogate becomes a ``\\udxxx`` escape (valid JSON
    that a browser's ``JSON.stringify`` may send too)."""
    return json.dumps(value)


PUZZLES = [p for name in VARIANTS for p in load_puzzles(get_variant(name))]
LONG_PUZZLES = sorted((p for p in PUZZLES if len(p.solution) >= 3),
                      key=lambda p: -len(p.solution))[:3] + PUZZLES[:2]

SMALL_PDN = ('[Event "Fuzz"]\n[White "A"]\n[Black "B"]\n[Result "*"]\n\n'
             "1. 32-28 19-23 2. 28x19 14x23 *\n")
VARIATION_PDN = ('[Event "Fuzz"]\n[Result "2-0"]\n\n1. 32-28 19-23 (1... 18-23 2. 37-32 {quiet})'
                 ' 2. 28x19 14x23 3. 33-28 (3. 34-29 23x34 4. 40x29) 3... 23x32 4. 37x28 2-0\n')
FENS = ["W:W31-50:B1-20", "B:W31-50:B1-20", "W:W38,48:B33,23,3", "W:WK47,49:B14,19,29,31,42,5",
        "B:W18,K31:B12,K24", "W:W:B", "W:W1:B50", "W:WK1:BK50", "W:W51:B1", "W:W0:B1",
        "W:W1-999999999:B1", "W:W31-50:B31-50", "W:W\ud800:B1", "W:W3\u00b2:B1", "X:W1:B2",
        "W:W31-50:B1-20:H0:F1", "B:W21-32:B1-12", "W:W" + ",".join(map(str, range(1, 51))),
        "W", "", "?", "W:W1," * 80, "W:W\u0663\u0661:B\u0661"]
MOVES = ["32-28", "32x23", "28x19", "33-28", "19-23", "32-27", "1-1", "51-46", "0-0", "32--28",
         "32-28-23", "3\u00b2-28", "\u0663\u0662-\u0662\u0668", "\uff13\uff12-\uff12\uff18",
         "32 - 28",
         "32x", "x", "-", "99999999999999999999-1", "47x38x24x13x36", "47x36", "32-28!", "32-28?!",
         "32-28 19-23", "\ud800", "32\ud800-28", "1.32-28", "1...19-23", "32-28*"]
MOVES += [p.solution[0] for p in LONG_PUZZLES]
TEXTS = ["", " ", "\ud800", "\udfff", "a\ud800b", "\x00", "\n", "\u202e", "\U0001F0A1", "null",
         "-1", "1e9", "x" * 5000, "\u00e9" * 300, "[Event \"x\"]", '"]\n[Event "y', "}{"]

GOOD_VALUES: dict[str, list[Any]] = {
    "move": ["32-28", "33-28", "31-27", "34-29", "35-30", "9-13", "11-15", "12-16", "28x19",
             "19-23", "47x38x24x13x36", "38x29x18"] + [p.solution[0] for p in LONG_PUZZLES],
    "from": [31, 32, 33, 34, 35, 9, 11, 47, 38],
    "to": [26, 27, 28, 29, 30, 13, 15, 36, 18],
    "path": [[32, 28], [47, 38, 24, 13, 36], [47, 20, 36], [38, 29, 18]],
    "captures": [[23], [], [42, 31, 19, 14]],
    "count": [1, 2, 3],
    "moves": [["32-28", "19-23"], ["32-28", "19-23", "28x19", "14x23"], [], ["32-28"],
              ["9-13", "22-18"]],
    "color": ["white", "black", "both", "none"],
    "level": [1, 5, 10],
    "fen": FENS[:5],
    "variant": list(VARIANTS),
    "white": ["Alice", "\u00c9lodie"],
    "black": ["Bob", "\u5f20\u4f1f"],
    "clock": ["5+3", "1+0"],
    "opponent": ["engine", "friend"],
    "invite": ["@invite@"],
    "depth": [1, 2],
    "movetime": [0.01, 0.05],
    "pdn": [SMALL_PDN, VARIATION_PDN],
    "played": [[]] + [list(p.solution[:2]) for p in LONG_PUZZLES],
    "reveal": [True, False],
    "multipv": [1, 2, 5],
    "ply": [0, 1, 2],
}
"""Values each field may well have (not always fitting the game at hand)."""

BAD_VALUES: dict[str, list[Any]] = {
    "move": MOVES,
    "from": [0, 1, 50, 51, 1000, 1001, -1, 2**64, "32"],
    "to": [0, 50, 51, 1000, -1, 2**64, 28.0],
    "path": [[], [1], [28] * 65, [[32]], [32.0, 28], "32-28", [32, "28"]],
    "captures": [[0], [1] * 65, ["23"], 23],
    "count": [0, 10000, 10001, -1, 2**63, "1", 1.5, True],
    "moves": [["3\u00b2-28"], ["\ud800"], ["32-28"] * 2001, ["32-28", 1], [["32-28"]],
              ["32-28", "32-28"], ["x" * 201], "32-28 19-23"],
    "color": ["WHITE", "", "red", "white ", 1],
    "level": [0, 11, -1, "5", 5.0, 2**70, True],
    "fen": FENS[5:],
    "variant": ["xiangqi", "", "INTERNATIONAL", "\ud800", "international ", 1],
    "white": TEXTS + ["x" * 100, "x" * 101, 7],
    "black": TEXTS + ["y" * 100, "y" * 101, []],
    "clock": ["0+0", "5", "5+", "+3", "1e9+0", "nan+0", "inf+0", "-1+0", "99999999999999999999+0",
              "\u0665+\u0663", "5+3+1", "0.001+0", "10:00+5", "0.0001+0", "1e-9+0", "5+-1",
              "x" * 41, "\u00b2+1", 5],
    "opponent": ["", "ENGINE", "human"],
    "invite": ["", "x" * 100, "x" * 101, "\ud800", 1],
    "depth": [0, 31, -1, 2**40, 1.5],
    "movetime": [0, -1, 1e-9, 10.5, 1e308, "1"],
    "pdn": ["", "*", "\ud800", '[White "\ud800"]\n1. 32-28 *\n', "1. 3\u00b2-28 *",
            '[FEN "W:W\ud800:B1"]\n1. 32-28 *', '[GameType "99"]\n1. 32-28 *',
            '[FEN "garbage"]\n*', "1. 32-28 {unterminated", "1. 32-28 (19-23", "1. 32-28 " * 3000,
            '[GameType "21"]\n1. 22-18 11-15 *', '[Result "1-0"]\n1. 32-28 1-0',
            '[GameType "20,W,10,10,N2,0"]\n1. 32-28 *', '[FEN "B:W18,K31:B12,K24"]\n1. 24-29 *',
            "1. 32-28 19-23 " * 2100, '[Event "' + "e" * 70000 + '"]\n*'],
    "played": [["32-28"], ["\ud800", "x"], ["3\u00b2-28", "1-1"], ["x" * 61, "y"], ["32-28"] * 61,
               "32-28", [1, 2]] + [list(p.solution[:1]) for p in LONG_PUZZLES]
              + [list(p.solution[:3]) for p in LONG_PUZZLES],
    "reveal": ["yes", 1, None],
    "multipv": [0, 6, -1, 2**40, "1"],
    "ply": [100000, 100001, -1, 2**40, "0"],
}
"""Values each field must be refused for (or must cope with)."""
FIELD_VALUES = {name: GOOD_VALUES[name] + BAD_VALUES[name] for name in GOOD_VALUES}
FIELDS = tuple(FIELD_VALUES)
"""The fields the app's docstring names, and other fields that are not the route's."""

RAW_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e999999", "-1e999999", "1" + "0" * 4400,
               "0.5", "-0", "1E2", "1.0", "2147483648", "9223372036854775808", "-1", "1e-400"]

_characters = st.characters(exclude_categories=())  # lone surrogates too
_text = st.one_of(st.text(max_size=12), st.text(_characters, max_size=12),
                  st.sampled_from(TEXTS))
_leaf = st.one_of(
    st.sampled_from(["null", "true", "false"]),
    st.sampled_from(RAW_NUMBERS),
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(js),
    _text.map(js),
)


def _json_list(items: list[str]) -> str:
    return "[" + ",".join(items) + "]"


def _json_object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{js(k)}:{v}" for k, v in pairs) + "}"


json_value = st.recursive(
    _leaf,
    lambda inner: st.one_of(st.lists(inner, max_size=3).map(_json_list),
                            st.lists(st.tuples(_text, inner), max_size=3).map(_json_object)),
    max_leaves=8)


DIGIT_SYSTEMS = ["0123456789", "0123456789", "0123456789",
                 "\u0660\u0661\u0662\u0663\u0664\u0665\u0666\u0667\u0668\u0669",
                 "\uff10\uff11\uff12\uff13\uff14\uff15\uff16\uff17\uff18\uff19",
                 "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079",
                 "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089",
                 "\u0966\u0967\u0968\u0969\u096a\u096b\u096c\u096d\u096e\u096f",
                 "\u2460\u2460\u2461\u2462\u2463\u2464\u2465\u2466\u2467\u2468"]
"""Digits of several scripts (ASCII first): Python's ``int`` reads some of them, and
``str.isdigit`` says yes to more (superscripts, circled digits)."""


def _number(n: int, systems: list[str]) -> str:
    return "".join(systems[i % len(systems)][int(d)] for i, d in enumerate(str(n)))


number_text = st.builds(_number, st.one_of(st.integers(0, 60), st.integers(0, 10**6)),
                        st.lists(st.sampled_from(DIGIT_SYSTEMS), min_size=1, max_size=2))
move_text = st.builds(lambda a, sep, b, tail: f"{a}{sep}{b}{tail}", number_text,
                      st.sampled_from(["-", "x", "-", "x", ":", "\u00d7", "\u2013", "", " - ",
                                       "--"]),
                      number_text, st.sampled_from(["", "", "!", "?!", "*", "x19", "-23", " "]))
fen_text = st.builds(lambda turn, w, b: f"{turn}:W{','.join(w)}:B{','.join(b)}",
                     st.sampled_from(["W", "B", "w", "X", "\u0130"]),
                     st.lists(st.one_of(number_text, number_text.map(lambda t: "K" + t),
                                        st.builds(lambda a, b: f"{a}-{b}", number_text,
                                                  number_text)),
                              max_size=4),
                     st.lists(number_text, max_size=3))
clock_text = st.builds(lambda a, b: f"{a}+{b}", number_text, number_text)
SPECIAL_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "move": move_text, "moves": st.lists(move_text, max_size=4), "fen": fen_text,
    "played": st.lists(move_text, max_size=4), "clock": clock_text,
}
"""Generated values of fields that are text to be read (moves, FENs, clocks)."""


def value_for(name: str) -> st.SearchStrategy[str]:
    known = FIELD_VALUES.get(name)
    if not known:
        return json_value
    special = SPECIAL_VALUES.get(name)
    return st.one_of(st.sampled_from(known).map(js), st.sampled_from(known).map(js), json_value,
                     *([special.map(js)] if special is not None else []))


def good_value(name: str) -> st.SearchStrategy[str]:
    return st.sampled_from(GOOD_VALUES[name]).map(js) if name in GOOD_VALUES else json_value


def bad_value(name: str) -> st.SearchStrategy[str]:
    known = BAD_VALUES.get(name)
    if not known:
        return json_value
    special = SPECIAL_VALUES.get(name)
    options = [st.sampled_from(known).map(js), st.sampled_from(known).map(js),
               st.sampled_from(RAW_NUMBERS), json_value]
    if special is not None:
        options += [special.map(js), special.map(js)]
    return st.one_of(*options)


def json_object(fields: tuple[str, ...], value: Callable[[str], st.SearchStrategy[str]] = value_for
                ) -> st.SearchStrategy[str]:
    """A JSON object (text) of some of ``fields``, each with a value drawn by ``value``."""
    def build(names: list[str]) -> st.SearchStrategy[str]:
        return st.tuples(*[value(n) for n in names]).map(
            lambda values: _json_object(list(zip(names, values, strict=True))))
    return st.lists(st.sampled_from(fields), unique=True,
                    max_size=min(4, len(fields))).flatmap(build)


def one_bad(fields: tuple[str, ...]) -> st.SearchStrategy[str]:
    """A JSON object of good values but for one field (the first) that is bad."""
    def build(names: list[str]) -> st.SearchStrategy[str]:
        return st.tuples(bad_value(names[0]), *[good_value(n) for n in names[1:]]).map(
            lambda values: _json_object(list(zip(names, values, strict=True))))
    return st.lists(st.sampled_from(fields), unique=True, min_size=1,
                    max_size=min(3, len(fields))).flatmap(build)


RAW_BODIES: list[bytes] = [
    b"", b" ", b"null", b"[]", b"[1,2]", b'"x"', b"1e999999", b"NaN", b"{", b"}", b'{"a":',
    b"[" * 60000, b'{"a":' * 12000, b"[" * (JSON_LIMIT + 1), b"\xff\xfe\x00", b"\xc3\x28",
    b"\xef\xbb\xbf{}", '{"level": null}'.encode("utf-16"), '{"count": null}'.encode("utf-16"),
    b'{"move": "\xed\xa0\x80"}', b'{"fen": "\xed\xa0\x80"}', b'{"pdn": "\xed\xa0\x80"}',
    b"\x00" * 10, b"x" * (JSON_LIMIT + 1), b'{"a": 1, "a": 2}', b'{"__proto__": {}}',
    b"1. 32-28 19-23 *", SMALL_PDN.encode(), SMALL_PDN.encode("utf-16"), b"\xed\xa0\x80",
    ("1. 32-28 19-23 *\n\n" * 20000).encode()[: IMPORT_LIMIT - 10],
    b"[Event \"" + b"x" * (IMPORT_LIMIT - 100) + b"\"]\n*",
]
CONTENT_TYPES = ["application/json", "application/json", "application/json; charset=utf-8",
                 "application/json; charset=utf-16", "APPLICATION/JSON", "text/plain", "",
                 "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                 "application/octet-stream", "application/x-draughts-pdn",
                 "text/html; charset=latin-1"]


def body_for(fields: tuple[str, ...]) -> st.SearchStrategy[bytes]:
    """Bodies for a route whose own fields are ``fields`` (empty: not known): objects of
    good values, of good values but one, of any values, of other fields, raw junk."""
    own = fields or FIELDS
    utf8: Callable[[str], bytes] = lambda t: t.encode("utf-8")  # noqa: E731
    return st.one_of(
        json_object(own, good_value).map(utf8), json_object(own, good_value).map(utf8),
        one_bad(own).map(utf8), one_bad(own).map(utf8), one_bad(own).map(utf8),
        json_object(own).map(utf8),
        json_object(FIELDS + ("type", "\ud800", "")).map(utf8),
        json_value.map(utf8), st.sampled_from(RAW_BODIES), st.binary(max_size=48))


QUERY_KEYS = ["limit", "offset", "rating", "variant", "seen", "inline", "x", "limit"]
QUERY_VALUES = ["0", "1", "50", "500", "501", "-5", "abc", "1e9", "9" * 5000, "", "%ff",
                "%ed%a0%80",
                "%00", "\u0663", "\uff11\uff12", "\u00b2", "nan", "international", "english",
                "russian", "xiangqi", "1200", "99999999999999999999"] + [p.id for p in PUZZLES[:3]]
SWEPT_QUERY_VALUES = [v for v in QUERY_VALUES if v not in ("english", "russian", "1", "500")
                      and v not in [p.id for p in PUZZLES[1:3]]]
queries = st.one_of(
    st.just(""),
    st.lists(st.tuples(st.sampled_from(QUERY_KEYS), st.sampled_from(QUERY_VALUES)), max_size=4)
    .map(lambda pairs: "?" + "&".join(f"{k}={urllib.parse.quote(v, safe='%')}" for k, v in pairs)),
    st.sampled_from(["?", "?&&", "?=", "?limit", "?%ff=%ff", "?" + "a=1&" * 500]),
)

EXTRA_HEADERS: list[dict[str, str]] = [
    {"cookie": "damier_player=" + "A" * 43}, {"cookie": "damier_player=short"},
    {"cookie": "damier_player=" + "x" * 5000}, {"cookie": "damier_player"}, {"cookie": ";;=;"},
    {"origin": "http://evil.example"}, {"origin": "null"}, {"origin": f"http://{HOST}"},
    {"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-origin"},
    {"host": "evil.example"}, {"host": ""}, {"host": "[::1"}, {"host": "127.0.0.1:99999"},
    {"range": "bytes=abc"}, {"range": "bytes=99999999-"}, {"range": "bytes=0-1,2-3"},
    {"range": "bytes=5-1"}, {"range": "items=0-1"},
    {"if-none-match": "\"x\""}, {"if-modified-since": "junk"}, {"if-range": "junk"},
    {"content-length": "abc"}, {"accept-encoding": "gzip;q=x"}, {"accept": "text/html"},
]
"""Headers beyond the body's type: other browsers' cookies, foreign origins and hosts,
odd ranges and conditions."""
extra_headers = st.one_of(st.just({}), st.just({}), st.just({}), st.sampled_from(EXTRA_HEADERS))


# -- path parameters -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Real:
    """A path parameter filled with a real id: a game made as ``setup`` says, or a puzzle."""

    setup: Any


SETUPS: list[dict[str, Any]] = [
    {"create": {"color": "both"}},
    {"create": {"color": "both"}, "moves": ["32-28", "19-23"]},
    {"create": {"color": "both"}, "moves": ["32-28", "19-23", "28x19"], "then": "undo"},
    {"create": {"color": "both"}, "moves": ["32-28", "19-23"], "then": "resign"},
    {"create": {"color": "white", "level": 1}},
    {"create": {"color": "white", "level": 1}, "moves": ["32-28"]},
    {"create": {"color": "black", "level": 1}},
    {"create": {"color": "none", "level": 1}},
    {"create": {"color": "white", "opponent": "friend"}},
    {"create": {"color": "white", "clock": "1+0"}},
    {"create": {"color": "both", "variant": "english"}},
    {"create": {"color": "both", "variant": "russian"}},
    {"create": {"color": "both", "variant": "brazilian"}},
    {"create": {"color": "both", "fen": "W:WK47,49:B14,19,29,31,42,5"}},
    {"create": {"color": "both", "fen": "W:W38,48:B33,23,3"}},
    {"create": {"color": "both", "fen": "W:W31:B27,22"}},   # white is blocked... or lost
    {"import": VARIATION_PDN},
    {"import": SMALL_PDN},
]
JUNK_IDS = ["nope", "x" * 64, "x" * 65, "..", "%2e%2e", "%ff", "%ed%a0%80", "%00", "%20", "\u00e9",
            "%25", "null", "0", "-1", "' OR 1=1 --", "%0d%0aSet-Cookie:%20x=1", "x" * 3000]

PARAM_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "game_id": st.one_of(st.sampled_from(SETUPS).map(Real), st.sampled_from(SETUPS).map(Real),
                         st.sampled_from(SETUPS).map(Real), st.sampled_from(JUNK_IDS),
                         st.text(_characters, min_size=1, max_size=20)),
    "puzzle_id": st.one_of(st.sampled_from(LONG_PUZZLES).map(lambda p: Real(p.id)),
                           st.sampled_from(LONG_PUZZLES).map(lambda p: Real(p.id)),
                           st.sampled_from(JUNK_IDS),
                           st.text(_characters, min_size=1, max_size=20)),
}
"""How each path parameter is filled (a route with another parameter fails the coverage test)."""

STATIC_PATHS = sorted(p.name for p in STATIC_DIR.iterdir()) + [
    "", "/", ".", "..", "../../etc/passwd", "%2e%2e/%2e%2e/etc/passwd", "..%2f..%2fetc%2fpasswd",
    "%00", "a%00b", "x" * 5000, "a/" * 500, "%ff", "%ed%a0%80", "..\\..\\etc\\passwd",
    "index.html/", "app.js/x", "//etc/passwd", "%2fetc%2fpasswd", "~", "\u00e9.js"]


def quoted(text: str) -> str:
    """``text`` for a URL path; lone surrogates as the UTF-8 a real client would send."""
    return urllib.parse.quote(text.encode("utf-8", "surrogatepass"), safe="")


# -- the harness -----------------------------------------------------------------------------------


class RealTransport:
    """The app as a real server runs it: a WebSocket's text frames are UTF-8 on the wire
    (the TestClient would pass a Python string that cannot be encoded)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def encoded_send(message: Any) -> None:
            if message.get("type") == "websocket.send" and message.get("text") is not None:
                message["text"].encode("utf-8")   # UnicodeEncodeError, as in a real server
            await send(message)
        await self.app(scope, receive, encoded_send)


class LogWatch(logging.Handler):
    """Every log record at WARNING and above that carries a traceback, is at ERROR and
    above, or says ``unexpected error``, from any logger; and how often each message of
    damier and asyncio was logged at any level from INFO (see :meth:`floods`)."""

    WATCHED = ("damier", "damier.web", "starlette", "uvicorn", "uvicorn.error", "asyncio")

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []
        self.counts: dict[str, int] = {}
        """Records of damier and asyncio by message, since the last look."""
        self.last: dict[str, str] = {}
        """The last record of each message, as logged."""
        self._lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        with self._lock:
            if record.name.startswith("damier") or record.name == "asyncio":
                key = f"{record.name}: {str(record.msg)[:80]}"
                self.counts[key] = self.counts.get(key, 0) + 1
                self.last[key] = record.getMessage()[:300]
            if record.levelno >= logging.WARNING and (
                    (record.exc_info is not None and record.exc_info[0] is not None)
                    or record.levelno >= logging.ERROR
                    or "unexpected error" in record.getMessage()
                    or "Traceback" in record.getMessage()):
                self.records.append(record)

    @contextlib.contextmanager
    def attached(self) -> Iterator[LogWatch]:
        """Watches the root logger (and the watched loggers that do not pass their records
        up); damier's loggers log from INFO meanwhile (for :meth:`floods`)."""
        loggers = [logging.getLogger()] + [logging.getLogger(n) for n in self.WATCHED
                                           if not logging.getLogger(n).propagate]
        damier_log = logging.getLogger("damier")
        old_level = damier_log.level
        if damier_log.getEffectiveLevel() > logging.INFO:
            damier_log.setLevel(logging.INFO)
        for logger in loggers:
            logger.addHandler(self)
        try:
            yield self
        finally:
            for logger in loggers:
                logger.removeHandler(self)
            damier_log.setLevel(old_level)

    def take(self) -> list[logging.LogRecord]:
        with self._lock:
            out, self.records = self.records, []
        return out

    def floods(self) -> list[str]:
        """The messages logged more than :data:`LOG_FLOOD` times since the last look (work
        that goes on by itself, e.g. an engine that keeps searching for a deleted game)."""
        with self._lock:
            counts, self.counts = self.counts, {}
            last, self.last = self.last, {}
        return [f"{n} x {key} (the last: {last[key]!r})" for key, n in counts.items()
                if n > LOG_FLOOD]


def describe_record(record: logging.LogRecord) -> tuple[str, str]:
    """A record as ``(signature, text)``: the signature names the exception and the
    innermost frame of damier's code (or the message), to tell bugs apart."""
    text = f"{record.name} {record.levelname}: {record.getMessage()}"
    signature = record.getMessage()[:80]
    if record.exc_info and record.exc_info[1] is not None:
        err = record.exc_info[1]
        frames = traceback.extract_tb(err.__traceback__)
        ours = [f for f in frames if "damier" in f.filename] or frames
        where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno} {ours[-1].name}" if ours else "?"
        signature = f"{type(err).__name__} at {where}"
        lines = traceback.format_exception(type(err), err, err.__traceback__)
        text += "\n" + "".join(lines)[-1500:]
    return signature, text


@dataclass
class Failure:
    signature: str
    message: str
    repro: dict[str, Any]
    count: int = 1


FAILURES: dict[str, Failure] = {}
"""The distinct failures (with ``DAMIER_FUZZ_COLLECT``), by route and signature."""
STATS: dict[str, int] = {}
"""Answers by test, request and status (written with the failures, to see what the fuzz
reached)."""
SLOWEST: dict[str, float] = {}
"""The slowest answer by method and test (seconds)."""


def _write_failures() -> None:
    if not COLLECT:
        return
    with open(COLLECT, "w", encoding="utf-8") as out:
        for f in sorted(FAILURES.values(), key=lambda f: f.signature):
            out.write(json.dumps({"signature": f.signature, "count": f.count,
                                  "message": f.message, "repro": f.repro}, default=repr) + "\n")
        out.write(json.dumps({"stats": dict(sorted(STATS.items()))}) + "\n")
        out.write(json.dumps({"slowest": dict(sorted(SLOWEST.items(), key=lambda kv: -kv[1]))})
                  + "\n")


@pytest.fixture(autouse=True, scope="module")
def _collected() -> Iterator[None]:
    """With ``DAMIER_FUZZ_COLLECT``, the failures and answers are written at the end."""
    yield
    _write_failures()


def strict_json(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")
    return json.loads(text, parse_constant=refuse)


@dataclass(repr=False)
class Server:
    """One app under test, its client, its log, and the ids of what was set up."""

    client: TestClient
    app: Any
    logs: LogWatch
    route: str
    pool: concurrent.futures.ThreadPoolExecutor
    fields: dict[str, tuple[str, ...]] = field(default_factory=dict)
    invites: dict[str, str] = field(default_factory=dict)
    created: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"Server({self.route!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # Hypothesis's reports
        printer.text(repr(self))

    # -- failures --

    def fail(self, signature: str, message: str, **repro: Any) -> None:
        """A failure: raised at once, or recorded with ``DAMIER_FUZZ_COLLECT``."""
        key = f"{self.route} | {signature}"
        if not COLLECT:
            raise AssertionError(f"{self.route}: {message}\nrepro: {shorten(repro)}")
        known = FAILURES.get(key)
        if known is None:
            FAILURES[key] = Failure(key, message, shorten(repro))
        else:
            known.count += 1
            if len(json.dumps(repro, default=str)) < len(json.dumps(known.repro, default=str)):
                known.repro, known.message = shorten(repro), message
        _write_failures()

    def check_logs(self, **repro: Any) -> None:
        for flood in self.logs.floods():
            self.fail(f"log flood: {flood.split(' x ', 1)[1].split(' (the last')[0][:60]}",
                      f"one message logged again and again (work that does not stop?): "
                      f"{flood}", **repro)
        for record in self.logs.take():
            signature, text = describe_record(record)
            self.fail(f"log: {signature}", f"traceback or error in the log:\n{text}", **repro)

    # -- HTTP --

    def request(self, method: str, url: str, body: bytes = b"",
                headers: dict[str, str] | None = None, *, check: bool = True,
                setup: bool = False) -> Any:
        """The answer to one request, checked (see the module docstring)."""
        headers = dict(headers or {})
        repro = {"method": method, "url": url, "body": body, "headers": headers}

        def call() -> Any:
            return self.client.request(method, url, content=body, headers=headers)

        started = time.monotonic()
        future = self.pool.submit(call)
        try:
            response = future.result(timeout=HANG_SECONDS)
        except concurrent.futures.TimeoutError:
            self.fail("hang", f"no answer within {HANG_SECONDS:g} s", **repro)
            raise AssertionError("a request hung; the server cannot be used further") from None
        elapsed = time.monotonic() - started
        key = f"{self.route} | {method} {url.split('?')[0][:60]} -> {response.status_code}"
        STATS[key] = STATS.get(key, 0) + 1
        where = f"{method} {self.route}"
        if elapsed > SLOWEST.get(where, 0.0):
            SLOWEST[where] = round(elapsed, 3)
        if TRACE:
            print(f"{response.status_code} {elapsed:.3f}s {method} {url[:100]} {body[:160]!r} "
                  f"{response.text[:160]!r}")
        if check:
            self.check_answer(response, elapsed, repro)
        if setup and not 200 <= response.status_code < 300:
            self.fail(f"setup {method} {url.split('?')[0]} {response.status_code}",
                      f"setting up the example failed: {response.status_code} "
                      f"{response.text[:300]}", **repro)
        return response

    def check_answer(self, r: Any, elapsed: float, repro: dict[str, Any]) -> None:
        status = r.status_code
        method = repro["method"]
        shown = f"{method} {repro['url'][:120]} -> {status} {r.text[:300]!r}"
        if status == 500 or not 100 <= status < 600:
            records = self.logs.take()
            signature = describe_record(records[0])[0] if records else "no log record"
            text = "\n".join(describe_record(rec)[1] for rec in records)
            self.fail(f"status {status}: {signature}", f"{shown}\n{text}", status=status, **repro)
            return
        if elapsed > REQUEST_SECONDS:
            self.fail(f"slow {method}", f"{shown}: took {elapsed:.1f} s (at most "
                      f"{REQUEST_SECONDS:g})", elapsed=round(elapsed, 2), **repro)
        if "Traceback (most recent call last)" in r.text:
            self.fail("traceback in body", shown, **repro)
        ctype = r.headers.get("content-type", "")
        if method == "HEAD":
            return
        if status >= 400:
            payload = None
            try:
                payload = strict_json(r.content.decode("utf-8"))
            except ValueError:
                pass
            if not ("application/json" in ctype and isinstance(payload, dict)
                    and isinstance(payload.get("error"), str) and payload["error"]):
                self.fail(f"non-JSON {status}", f"a {status} answer is not a JSON error "
                          f"({ctype!r}): {shown}", status=status, **repro)
            elif payload.get("status") != status:
                self.fail(f"status field of {status}", f"the JSON error says status "
                          f"{payload.get('status')!r}, the answer is {status}: {shown}",
                          status=status, **repro)
        elif "json" in ctype:
            try:
                strict_json(r.content.decode("utf-8"))
            except ValueError as err:
                self.fail(f"bad JSON in {status}", f"{shown}: the body is not JSON: {err}",
                          status=status, **repro)

    # -- setting up --

    def game(self, setup: dict[str, Any]) -> str:
        """A new game made as ``setup`` says (through the API); its id."""
        if "import" in setup:
            r = self.request("POST", "/api/import", js({"pdn": setup["import"]}).encode(),
                             {"content-type": "application/json"}, setup=True)
            if r.status_code != 201:
                return "setup-failed"
            gid = str(r.json()["first"])
        else:
            r = self.request("POST", "/api/games", js(setup["create"]).encode(),
                             {"content-type": "application/json"}, setup=True)
            if r.status_code != 201:
                return "setup-failed"
            state = r.json()
            gid = str(state["id"])
            if state.get("you", {}).get("invite"):
                self.invites[gid] = state["you"]["invite"]
        self.created.append(gid)
        for move in setup.get("moves", ()):
            self.request("POST", f"/api/games/{gid}/move", js({"move": move}).encode(),
                         {"content-type": "application/json"}, setup=True)
        if setup.get("then") == "undo":
            self.request("POST", f"/api/games/{gid}/undo", b'{"count": 2}',
                         {"content-type": "application/json"}, setup=True)
        elif setup.get("then") == "resign":
            self.request("POST", f"/api/games/{gid}/resign", b'{"color": "white"}',
                         {"content-type": "application/json"}, setup=True)
        return gid

    def begin(self) -> None:
        """A new example: a new browser (a fresh player cookie, so that the limits of new
        games per player start afresh)."""
        self.client.cookies.clear()
        self.invites.clear()

    def cleanup(self) -> None:
        """Forgets the games of the example (their engines and reports stop)."""
        for gid in self.created:
            self.request("DELETE", f"/api/games/{gid}")
        self.created.clear()

    def fill(self, path: str, values: dict[str, Any]) -> str:
        """``path`` with its parameters filled (a :class:`Real` game is set up now)."""
        for name, value in values.items():
            if isinstance(value, Real):
                text = self.game(value.setup) if name == "game_id" else quoted(str(value.setup))
            elif value in JUNK_IDS or value in STATIC_PATHS:
                text = value          # junk sent as it is written (%ff, .., ...)
            else:
                text = quoted(value)
            path = path.replace("{" + name + "}", text)
        return path

    def route_fields(self, case: RouteCase, method: str) -> tuple[str, ...]:
        """The route's own body fields, as its "unknown field" error lists them."""
        key = f"{method} {case.path}"
        if key not in self.fields:
            fields: tuple[str, ...] = ()
            if method in ("POST", "PUT", "PATCH", "DELETE"):
                kept, self.created = self.created, []   # the example's own games stay
                url = self.fill(case.path, {p: Real(SETUPS[0]) if p == "game_id" else
                                            Real(LONG_PUZZLES[0].id) if p == "puzzle_id" else "x"
                                            for p in case.params})
                r = self.request(method, url, b'{"\\u0001probe": 0}',
                                 {"content-type": "application/json"})
                found = re.search(r"\(expected: ([^)]*)\)", r.json().get("error", "")
                                  if "json" in r.headers.get("content-type", "") else "")
                if found and found.group(1) != "none":
                    fields = tuple(f.strip() for f in found.group(1).split(","))
                self.cleanup()
                self.created = kept
            self.fields[key] = fields
        return self.fields[key]


def shorten(repro: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in repro.items():
        if isinstance(v, bytes):
            v = v.decode("utf-8", "backslashreplace")
        if isinstance(v, str) and len(v) > 400:
            v = v[:300] + f"... ({len(v)} characters)"
        out[k] = v
    return out


@pytest.fixture()
def server(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Server]:
    app = make_app(tmp_path)
    logs = LogWatch()
    case = getattr(request.node, "callspec", None)
    route = case.id if case is not None else request.node.name
    pool = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="fuzz-client")
    with logs.attached(), TestClient(RealTransport(app), raise_server_exceptions=False) as client:
        s = Server(client, app, logs, route, pool)
        yield s
        s.cleanup()
        gc.collect()
        s.check_logs(when="after the test")
    pool.shutdown(wait=False)


# -- the coverage of the route table ---------------------------------------------------------------


def test_every_route_is_fuzzed(tmp_path: Path) -> None:
    """Every entry of the app's route table is one the fuzz drives: a new kind of route,
    a path parameter with no strategy, or a mount of an unknown app needs this file
    extended (the routes themselves are read from the table, nothing is listed here)."""
    app = make_app(tmp_path)
    try:
        live = describe(list(app.routes))
    finally:
        app.state.live_games.shutdown()
        app.state.store.close()
    assert live == ROUTES   # the parametrized tests below were made from this very table
    unknown = [f"{r.path}: {r.what}" for r in live if r.kind == "unknown"]
    assert not unknown, f"routes the fuzz cannot drive: {unknown}"
    no_strategy = sorted({f"{r.path}: {{{p}}}" for r in live if r.kind in ("http", "websocket")
                          for p in r.params if p not in PARAM_STRATEGIES})
    assert not no_strategy, f"path parameters with no strategy in PARAM_STRATEGIES: {no_strategy}"
    assert HTTP_ROUTES and WS_ROUTES and STATIC_ROUTES


# -- HTTP ------------------------------------------------------------------------------------------


def draw_request(server: Server, case: RouteCase, data: st.DataObject) -> dict[str, Any]:
    """A fuzzed request for ``case`` (its game is set up now); see the module docstring.
    The method is mostly the route's own, sometimes HEAD or another one."""
    own = [m for m in case.methods if m != "HEAD"] or list(case.methods)
    method = data.draw(st.one_of(st.sampled_from(own), st.sampled_from(own),
                                 st.sampled_from(own), st.sampled_from(case.methods),
                                 st.sampled_from(ALL_METHODS)), label="method")
    values = {p: data.draw(PARAM_STRATEGIES[p], label=p) for p in case.params}
    query = data.draw(queries, label="query")
    fields = server.route_fields(case, method) if method not in ("GET", "HEAD") else ()
    body = data.draw(body_for(fields), label="body") \
        if method not in ("GET", "HEAD") else data.draw(st.sampled_from([b"", b"{}", b"x"]),
                                                         label="body")
    ctype = data.draw(st.sampled_from(CONTENT_TYPES), label="content-type")
    headers = dict(data.draw(extra_headers, label="headers"))
    if ctype:
        headers["content-type"] = ctype
    url = server.fill(case.path, values) + query
    gid = next((g for g in server.created if f"/{g}" in url), None)
    if gid is not None and gid in server.invites:
        body = body.replace(b'"@invite@"', js(server.invites[gid]).encode())
    return {"method": method, "url": url, "body": body, "headers": headers}


@pytest.mark.slow
@pytest.mark.parametrize("case", HTTP_ROUTES, ids=[r.id for r in HTTP_ROUTES])
@fuzz_settings(60)
@given(data=st.data())
def test_fuzz_http_route(server: Server, case: RouteCase, data: st.DataObject) -> None:
    """Random requests to one route of the table (see the module docstring)."""
    server.begin()
    req = draw_request(server, case, data)
    server.request(req["method"], req["url"], req["body"], req["headers"])
    server.cleanup()
    server.check_logs(**req)


def sweep_bodies(fields: tuple[str, ...]) -> Iterator[bytes]:
    """Each bad value of each of ``fields`` (and raw numbers), alone and among good
    values of the other fields."""
    for name in fields:
        bad = [js(v) for v in BAD_VALUES.get(name, [])] + ["NaN", "1e999999", "null", "{}"]
        others = [(other, js(GOOD_VALUES[other][0])) for other in fields
                  if other != name and other in GOOD_VALUES]
        for value in bad:
            yield _json_object([(name, value)]).encode()
            if others:
                yield _json_object([(name, value)] + others).encode()


@pytest.mark.slow
@pytest.mark.parametrize("case", [r for r in HTTP_ROUTES if set(r.methods) - {"GET", "HEAD"}],
                         ids=[r.id for r in HTTP_ROUTES if set(r.methods) - {"GET", "HEAD"}])
def test_sweep_bad_field_values(server: Server, case: RouteCase) -> None:
    """Not random: every bad value of every field of the route, one request each (on a
    new game for a game's route), so that each known bad value reaches each route."""
    method = next(m for m in case.methods if m not in ("GET", "HEAD"))
    fields = server.route_fields(case, method)
    for body in sweep_bodies(fields):
        server.begin()
        values = {p: Real(SETUPS[1]) if p == "game_id" else Real(LONG_PUZZLES[0].id)
                  for p in case.params}
        url = server.fill(case.path, values)
        server.request(method, url, body, {"content-type": "application/json"})
        server.cleanup()
        server.check_logs(method=method, url=url, body=body)


@pytest.mark.slow
@pytest.mark.parametrize("case", HTTP_ROUTES + STATIC_ROUTES,
                         ids=[r.id for r in HTTP_ROUTES + STATIC_ROUTES])
def test_sweep_headers_and_queries(server: Server, case: RouteCase) -> None:
    """Not random: each odd header, and each query value under each query name, on each
    method of the route (a real game or puzzle, or a static file)."""
    server.begin()
    if case.kind == "static":
        paths = [f"{case.path}/{name}" for name in ("app.js", "index.html", "nope")]
    else:
        values = {p: Real(SETUPS[1]) if p == "game_id" else Real(LONG_PUZZLES[0].id)
                  for p in case.params}
        paths = [server.fill(case.path, values)]
    queries = sorted({f"?{k}={urllib.parse.quote(v, safe='%')}" for k in QUERY_KEYS[:6]
                      for v in SWEPT_QUERY_VALUES})
    for method in case.methods:
        body = b"{}" if method not in ("GET", "HEAD") else b""
        for path in paths:
            for headers in EXTRA_HEADERS:
                server.request(method, path, body, {"content-type": "application/json", **headers})
            if method == "GET" and path == paths[0]:
                for query in queries:
                    server.request(method, path + query, body)
            server.check_logs(method=method, url=path)
    server.cleanup()


@pytest.mark.slow
@fuzz_settings(40)
@given(data=st.data())
def test_fuzz_http_sequences(server: Server, data: st.DataObject) -> None:
    """Several requests to the routes of one game, one after the other (undo after a
    resignation, a report while the engine moves, a new line under an analysis...)."""
    server.begin()
    setup = data.draw(st.sampled_from(SETUPS), label="setup")
    gid = server.game(setup)
    steps = data.draw(st.lists(st.sampled_from(GAME_ROUTES), min_size=2, max_size=6),
                      label="routes")
    for case in steps:
        own = [m for m in case.methods if m != "HEAD"]
        method = data.draw(st.sampled_from(own), label="method")
        fields = server.route_fields(case, method) if method != "GET" else ()
        body = data.draw(body_for(fields), label="body") if method != "GET" else b""
        if gid in server.invites:
            body = body.replace(b'"@invite@"', js(server.invites[gid]).encode())
        url = case.path.replace("{game_id}", gid)
        server.request(method, url, body, {"content-type": "application/json"})
        server.check_logs(method=method, url=url, body=body, setup=setup,
                          steps=[c.id for c in steps])
    server.cleanup()


@pytest.mark.slow
@pytest.mark.parametrize("case", STATIC_ROUTES, ids=[r.id for r in STATIC_ROUTES])
@fuzz_settings(30)
@given(data=st.data())
def test_fuzz_static_files(server: Server, case: RouteCase, data: st.DataObject) -> None:
    """Random paths under a mount of static files: a file, a clear JSON error, never a
    file from outside the directory."""
    server.begin()
    name = data.draw(st.one_of(st.sampled_from(STATIC_PATHS),
                               st.text(_characters, max_size=20).map(quoted)), label="path")
    method = data.draw(st.sampled_from(["GET", "GET", "HEAD", "POST", "DELETE", "OPTIONS"]))
    headers = data.draw(extra_headers, label="headers")
    url = f"{case.path}/{name}"
    r = server.request(method, url, b"", headers)
    assert "root:" not in r.text, (url, r.text[:200])
    server.check_logs(method=method, url=url, headers=headers)


# -- WebSocket -------------------------------------------------------------------------------------


def receive_within(ws: Any, seconds: float) -> dict[str, Any] | None:
    """The socket's next message, or None when none comes within ``seconds``."""
    async def receive() -> Any:
        with anyio.fail_after(seconds):
            return await ws._send_rx.receive()
    if hasattr(ws, "_send_rx") and hasattr(ws, "portal"):
        try:
            message: dict[str, Any] = ws.portal.call(receive)
            return message
        except TimeoutError:
            return None
    box: list[Any] = []
    thread = threading.Thread(target=lambda: box.append(ws.receive()), daemon=True)
    thread.start()
    thread.join(seconds)
    return box[0] if box else None


WS_TYPES = ["ping", "state", "analyse", "stop", "nope", "", "PING", "analyse "]
WS_FIELDS = ("multipv", "ply", "fen", "move", "count", "depth")
ws_objects = st.tuples(st.sampled_from(WS_TYPES).map(js),
                       st.one_of(json_object(WS_FIELDS), json_object(WS_FIELDS, good_value),
                                 one_bad(WS_FIELDS))).map(
    lambda tv: ('{"type":' + tv[0] + ("," + tv[1][1:] if tv[1] != "{}" else "}")))
ws_frames = st.one_of(
    ws_objects.map(lambda t: ("text", t)), ws_objects.map(lambda t: ("text", t)),
    ws_objects.map(lambda t: ("text", t)),
    json_object(("type",) + WS_FIELDS).map(lambda t: ("text", t)),
    json_value.map(lambda t: ("text", t)),
    st.text(max_size=40).map(lambda t: ("text", t)),
    st.sampled_from(["", "{", "[" * 15000, '{"type":' * 3000, "x" * 17000, "NaN", "1e999999",
                     '{"type":"ping","x":' + "1" * 5000 + "}",
                     '{"type": "analyse", "fen": "' + "W:W1," * 3000 + '"}',
                     '{"type": "analyse", "fen": "W:W\\ud800:B1"}',
                     '{"type": "analyse", "fen": "\\ud800"}',
                     '{"type": "\\ud800"}', '{"type": "ping\\ud800"}',
                     '{"type": "analyse", "ply": 1, "multipv": 5}',
                     '{"type": "analyse", "fen": "W:W31-50:B1-20", "multipv": 5}',
                     ]).map(lambda t: ("text", t)),
    st.binary(max_size=40).map(lambda b: ("bytes", b)),
)


def check_ws_message(server: Server, message: dict[str, Any], repro: dict[str, Any]) -> str | None:
    """The type of a text message (it must be a JSON object with a type; an error has
    its text), or None for a close."""
    if message["type"] == "websocket.close":
        return None
    if message["type"] != "websocket.send" or message.get("text") is None:
        server.fail("ws frame", f"the server sent {str(message)[:200]}", **repro)
        return "?"
    try:
        data = strict_json(message["text"])
    except ValueError as err:
        server.fail("ws bad JSON", f"the server sent text that is not JSON ({err}): "
                    f"{message['text'][:200]!r}", **repro)
        return "?"
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        server.fail("ws no type", f"the server sent {message['text'][:200]!r}", **repro)
        return "?"
    if data["type"] == "error" and not (isinstance(data.get("error"), str) and data["error"]):
        server.fail("ws empty error", f"an error with no text: {message['text'][:200]!r}", **repro)
    return str(data["type"])


def wait_for_pong(server: Server, ws: Any, repro: dict[str, Any]) -> bool:
    """Sends a ping and reads until its pong; False (a failure) when the socket closes or
    goes silent first."""
    ws.send_text('{"type":"ping"}')
    deadline = time.monotonic() + REQUEST_SECONDS
    while True:
        message = receive_within(ws, max(0.0, deadline - time.monotonic()))
        if message is None:
            server.fail("ws silent", f"no pong within {REQUEST_SECONDS:g} s: the socket went "
                        "silent", **repro)
            return False
        kind = check_ws_message(server, message, repro)
        if kind is None:
            server.fail("ws closed", f"the socket was closed ({message.get('code')}, "
                        f"{message.get('reason')!r}) instead of answering", **repro)
            return False
        if kind == "pong":
            return True


@pytest.mark.slow
@pytest.mark.parametrize("case", WS_ROUTES, ids=[r.id for r in WS_ROUTES])
@fuzz_settings(40)
@given(data=st.data())
def test_fuzz_websocket(server: Server, case: RouteCase, data: st.DataObject) -> None:
    """Random frames to a game's socket (or to an unknown game's: an error, then the
    close): a pong follows each frame, within :data:`REQUEST_SECONDS`."""
    server.begin()
    values = {p: data.draw(PARAM_STRATEGIES[p], label=p) for p in case.params}
    url = server.fill(case.path, values)
    frames = data.draw(st.lists(ws_frames, min_size=1, max_size=4), label="frames")
    real = all(isinstance(v, Real) for v in values.values())
    repro: dict[str, Any] = {"url": url, "frames": frames, "setup": values}
    try:
        with server.client.websocket_connect(url) as ws:
            first = receive_within(ws, REQUEST_SECONDS)
            if first is None:
                server.fail("ws no first message", "nothing came after connecting", **repro)
                return
            kind = check_ws_message(server, first, repro)
            if not real:   # an unknown game: an error, then the close
                if kind not in ("error", None):
                    server.fail("ws unknown game", f"first message {kind!r}, not an error", **repro)
                return
            if kind in (None, "error"):   # the game's state (or its engine's line) comes first
                server.fail("ws first message", f"the socket of a real game began with {kind!r}",
                            **repro)
                return
            for n, (mode, frame) in enumerate(frames):
                if mode == "text":
                    ws.send_text(frame)
                else:
                    ws.send_bytes(frame)
                if not wait_for_pong(server, ws, {**repro, "after_frame": n}):
                    return
            ws.send_text('{"type":"stop"}')
            wait_for_pong(server, ws, repro)
    except WebSocketDisconnect as err:
        if real:
            server.fail("ws refused", f"the socket of a real game was refused ({err.code})",
                        **repro)
    finally:
        gc.collect()   # a dead task's "exception was never retrieved" is logged when collected
        server.cleanup()
        server.check_logs(**repro)


def ws_sweep_frames() -> Iterator[tuple[str, Any]]:
    """Not random: each message type with each bad value of each field, then junk."""
    for kind in ("analyse", "stop", "state", "ping", "nope"):
        for name in WS_FIELDS:
            for value in BAD_VALUES.get(name, []) + [GOOD_VALUES[name][0]]:
                yield "text", _json_object([("type", js(kind)), (name, js(value))])
            for raw in ("NaN", "1e999999", "null"):
                yield "text", _json_object([("type", js(kind)), (name, raw)])
    for kind in WS_TYPES + ["\ud800", "ping\ud800", "x" * 100]:
        yield "text", _json_object([("type", js(kind))])
    for text in ["", "{", "[" * 15000, '{"type":' * 3000, "x" * 17000, "NaN", "1e999999", "[]",
                 '"ping"', '{"type": 1}', '{"type": null}', '{"type": ["ping"]}']:
        yield "text", text
    for data in [b"", b"\x00", b'{"type":"ping"}', b"\xff" * 100]:
        yield "bytes", data


@pytest.mark.slow
@pytest.mark.parametrize("setup", [SETUPS[1], {"create": {"color": "none", "level": 1}}],
                         ids=["two-people", "engine-against-itself"])
@pytest.mark.parametrize("case", WS_ROUTES, ids=[r.id for r in WS_ROUTES])
def test_sweep_websocket(server: Server, case: RouteCase, setup: dict[str, Any]) -> None:
    """Every frame of :func:`ws_sweep_frames` on a game's socket: a pong follows each
    (on a quiet game, and on a game the engine plays against itself, which sends a
    stream of moves and lines meanwhile)."""
    server.begin()
    gid = server.game(setup)
    url = case.path.replace("{game_id}", gid)
    frames = list(ws_sweep_frames())
    n = 0
    while n < len(frames):
        with server.client.websocket_connect(url) as ws:
            first = receive_within(ws, REQUEST_SECONDS)
            kind = None if first is None else check_ws_message(server, first, {"url": url})
            if kind in (None, "error"):
                server.fail("ws first message", f"the socket began with {first!r}", url=url)
                break
            while n < len(frames):
                mode, frame = frames[n]
                n += 1
                if mode == "text":
                    ws.send_text(frame)
                else:
                    ws.send_bytes(frame)
                repro = {"url": url, "frame": (mode, frame)}
                ok = wait_for_pong(server, ws, repro)
                server.check_logs(**repro)
                if not ok:
                    break   # a new socket for the frames left (when failures are collected)
        gc.collect()   # a dead task's "exception was never retrieved" is logged when collected
        server.check_logs(url=url, frames_up_to=frames[max(0, n - 3):n])
    server.cleanup()

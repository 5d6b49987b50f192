"""Reading what a request of ``damier serve`` sends: its body (bounded in size and
time), its JSON (unknown fields, deep nesting and lone surrogates refused), and its
fields (whole numbers, texts, seconds, squares, a move), each refused with a clear
400 naming the field.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
from typing import Any, overload

from damier.web.session import (ApiError)

from starlette.requests import Request

log = logging.getLogger("damier.web")

JSON_LIMIT = 64 * 1024
"""The largest JSON request body accepted (bytes)."""
IMPORT_LIMIT = 1024 * 1024
"""The largest PDN upload accepted (bytes)."""
BODY_TIMEOUT = 10.0
"""Seconds a client may take to send a request body."""
MOVE_TEXT_LIMIT = 200
"""The longest move text a request may hold (a full capture path on 10x10 is far shorter)."""


async def read_body(request: "Request", limit: int) -> bytes:
    """The request body, refused with 413 beyond ``limit`` bytes."""
    length = request.headers.get("content-length")
    if length is not None:
        try:
            size = ascii_int(length)
        except ValueError:
            raise ApiError(400, f"bad Content-Length header {length!r}") from None
        if size > limit:
            raise ApiError(413, f"request body too large: {size} bytes (at most {limit})",
                           limit=limit)
    chunks = []
    total = 0

    async def read() -> None:
        nonlocal total
        async for chunk in request.stream():
            total += len(chunk)
            if total > limit:
                raise ApiError(413, f"request body too large: more than {limit} bytes",
                               limit=limit)
            chunks.append(chunk)

    try:
        await asyncio.wait_for(read(), BODY_TIMEOUT)
    except asyncio.TimeoutError:
        raise ApiError(408, f"the request body did not arrive within {BODY_TIMEOUT:g} seconds "
                       f"({total} bytes came)") from None
    return b"".join(chunks)


async def read_json(request: "Request", allowed: tuple[str, ...], *,
                    limit: int = JSON_LIMIT) -> dict[str, Any]:
    """The JSON object of the request body ({} when empty); unknown fields are refused."""
    body = await read_body(request, limit)
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ApiError(400, f"request body is not valid JSON: {err}") from None
    except RecursionError:
        raise ApiError(400,
                       "request body is not valid JSON here: it is nested too deeply") from None
    except ValueError as err:  # e.g. a number of more digits than Python converts
        raise ApiError(400, f"request body is not valid JSON here: {str(err)[:100]}") from None
    if not isinstance(data, dict):
        raise ApiError(400, f"request body must be a JSON object, not {type(data).__name__}")
    check_text(data)
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ApiError(400, f"unknown field{'s' if len(unknown) > 1 else ''} "
                       f"{', '.join(map(repr, unknown))} "
                       f"(expected: {', '.join(allowed) or 'none'})")
    return data


def _bad_text(value: str) -> bool:
    """Whether ``value`` holds a lone UTF-16 surrogate (JSON's ``"\\ud800"``): text that
    cannot be stored or sent as UTF-8."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def check_text(data: Any, where: str = "") -> None:
    """Refuses (400) JSON whose keys or strings hold a lone surrogate, naming the field;
    iterative, so any nesting that ``json.loads`` accepted is checked."""
    stack: list[tuple[Any, str]] = [(data, where)]
    while stack:
        value, path = stack.pop()
        if isinstance(value, str):
            if _bad_text(value):
                raise ApiError(400, f"{path or 'the text'} holds an invalid character (a lone "
                               "UTF-16 surrogate): send valid Unicode text",
                               field=path.split(".")[0].split("[")[0] or None)
        elif isinstance(value, dict):
            for key, item in value.items():
                if _bad_text(key):
                    raise ApiError(400, "a field name holds an invalid character (a lone "
                                   "UTF-16 surrogate)")
                stack.append((item, f"{path}.{key}" if path else key))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]") for i, item in enumerate(value))


def ascii_int(text: str, max_digits: int = 20) -> int:
    """A whole number written in ASCII digits (with an optional sign), as a query or a
    header gives it; ValueError otherwise (``int`` alone also reads ``"١٢"`` and
    ``"1_000"``, and any number of digits).

    >>> ascii_int("42"), ascii_int("-5")
    (42, -5)
    >>> ascii_int("１２")
    Traceback (most recent call last):
    ...
    ValueError: not a whole number in ASCII digits: '１２'
    """
    digits = text.strip()
    body = digits[1:] if digits[:1] in "+-" else digits
    if not (body.isascii() and body.isdigit()) or len(body) > max_digits:
        raise ValueError(f"not a whole number in ASCII digits: {text[:30]!r}")
    return int(digits)


def shown(value: Any, limit: int = 60) -> str:
    """``value`` as JSON for an error message, cut to ``limit`` characters."""
    text = json.dumps(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


@overload
def get_int(data: dict[str, Any], name: str, default: int, *,
            lo: int | None = None, hi: int | None = None) -> int: ...
@overload
def get_int(data: dict[str, Any], name: str, default: None = None, *,
            lo: int | None = None, hi: int | None = None) -> int | None: ...
def get_int(data: dict[str, Any], name: str, default: int | None = None, *,
            lo: int | None = None, hi: int | None = None) -> int | None:
    """The integer field ``name`` (``default`` when absent or null)."""
    value = data.get(name)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise ApiError(400, f"{name} must be an integer, got {shown(value)}", field=name)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ApiError(400, f"{name} must be between {lo} and {hi}, got {shown(value)}", field=name)
    return value


@overload
def get_str(data: dict[str, Any], name: str, default: str, *,
            choices: tuple[str, ...] | None = None, max_len: int = 1000) -> str: ...
@overload
def get_str(data: dict[str, Any], name: str, default: None = None, *,
            choices: tuple[str, ...] | None = None, max_len: int = 1000) -> str | None: ...
def get_str(data: dict[str, Any], name: str, default: str | None = None, *,
            choices: tuple[str, ...] | None = None, max_len: int = 1000) -> str | None:
    """The text field ``name`` (``default`` when absent or null)."""
    value = data.get(name)
    if value is None:
        return default
    if not isinstance(value, str):
        raise ApiError(400, f"{name} must be a string, got {shown(value)}", field=name)
    if len(value) > max_len:
        raise ApiError(400, f"{name} is too long (at most {max_len} characters)", field=name)
    if choices is not None and value not in choices:
        raise ApiError(400, f"{name} must be one of {', '.join(choices)}, got {value!r}",
                       field=name)
    return value


def get_seconds(data: dict[str, Any], name: str, *, lo: float, hi: float) -> float | None:
    """A number of seconds between ``lo`` and ``hi`` (None when absent)."""
    value = data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ApiError(400, f"{name} must be a number of seconds, got {shown(value)}",
                       field=name)
    if not lo <= value <= hi:
        raise ApiError(400, f"{name} must be between {lo:g} and {hi:g} seconds, got {value:g}",
                       field=name)
    return float(value)


def get_squares(data: dict[str, Any], name: str, *, max_len: int = 64) -> list[int] | None:
    value = data.get(name)
    if value is None:
        return None
    if (not isinstance(value, list) or len(value) > max_len
            or any(isinstance(v, bool) or not isinstance(v, int) for v in value)):
        raise ApiError(400, f"{name} must be a list of square numbers", field=name)
    return value


def move_spec(data: dict[str, Any]) -> dict[str, Any]:
    """The move of a request: ``{"move": text}`` or ``{"from", "to", "path", "captures"}``."""
    if "move" in data:
        if any(k in data for k in ("from", "to", "path", "captures")):
            raise ApiError(400, "give either move (text) or from/to, not both")
        text = get_str(data, "move", max_len=MOVE_TEXT_LIMIT)
        if text is None or not text.strip():
            raise ApiError(400, 'move must be a move in text, e.g. "32-28"', field="move")
        return {"move": text}
    if "from" not in data or "to" not in data:
        raise ApiError(400, 'a move needs "move" (e.g. "32-28") or "from" and "to" squares')
    spec: dict[str, Any] = {"from": get_int(data, "from", lo=0, hi=1000),
                            "to": get_int(data, "to", lo=0, hi=1000)}
    if spec["from"] is None or spec["to"] is None:
        raise ApiError(400, '"from" and "to" must be square numbers')
    path = get_squares(data, "path")
    if path is not None:
        if len(path) < 2:
            raise ApiError(400, "path must hold at least the start and end squares", field="path")
        if path[0] != spec["from"] or path[-1] != spec["to"]:
            raise ApiError(400, "path must start at from and end at to", field="path")
        spec["path"] = path
    captures = get_squares(data, "captures")
    if captures is not None:
        spec["captures"] = captures
    return spec

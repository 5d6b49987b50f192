"""Evaluation weight files: the learned weights of damier's evaluation.

The evaluation (in the compiled core) is linear in its weights: two int16
weights, an opening and an endgame one, for each feature of
:func:`damier._core.eval_layout` (the hand-named terms, the pattern tables,
the side to move). A weight file holds them for one variant::

    offset  size  field
         0     8  magic b"DAMIEREV"
         8     2  format version (1), little-endian
        10    16  variant name, ASCII, NUL-padded
        26    32  layout digest: SHA-256 of the variant's feature layout
        58     4  number of features
        62     1  compression: 0 none, 1 zlib
        63     1  reserved (0)
        64     4  stored payload length in bytes
        68    32  SHA-256 of the weights (the uncompressed payload)
       100     -  payload: the weights, little-endian int16, two per feature

A file whose magic, version, variant, layout or digest does not match is
refused with a :class:`WeightsFileError` that says which. A file of an earlier
layout reads with the tables it lacks all zeros, which evaluates every position
as that file did (a file written before the material table, by damier until
2026-11-23, reads with a material table of zeros; one written before the big
4 x 6 pattern tables, until 2026-11-27, with big tables of zeros).

>>> from damier.variants import get_variant
>>> w = Weights.material(get_variant("english"))
>>> w.get("man")
(800, 800)
>>> import io
>>> buffer = io.BytesIO()
>>> w.write(buffer)
>>> Weights.read(io.BytesIO(buffer.getvalue())) == w
True
>>> Weights.read(io.BytesIO(buffer.getvalue()), variant="international")
Traceback (most recent call last):
...
damier.evalfile.WeightsFileError: weights file: the weights are for english draughts,
not international
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import zlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO, Any

from damier._core import EVAL_TERM_NAMES, EvalWeights, eval_layout
from damier.variants import Variant, get_variant

__all__ = ["Weights", "WeightsFileError", "MAGIC", "FORMAT_VERSION", "layout_digest",
           "shipped_weights", "side_feature", "UNIT"]

MAGIC = b"DAMIEREV"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sH16s32sIBBI32s")
UNIT = 1 << 3
"""Weights per centi-man (weights are eighths of a centi-man)."""


class WeightsFileError(ValueError):
    """A weight file that cannot be used: damaged, or for another variant,
    format version or feature layout."""


def layout_digest(variant: Variant) -> bytes:
    """SHA-256 of the variant's feature layout (what the weights mean)."""
    layout = dict(eval_layout(variant.index), variant=variant.name)
    return hashlib.sha256(json.dumps(layout, sort_keys=True).encode()).digest()


def _features(variant: Variant) -> int:
    return int(eval_layout(variant.index)["features"])


def side_feature(variant: Variant) -> int:
    """The feature of the side to move's weight: the last one of the layout."""
    return _features(variant) - 1


# The tables added to the layout over time, in the order they were added (and in
# which they follow the pattern tables in the weight vector): each as the layout
# keys that describe it, the first of them its number of features.
_ADDED_TABLES: tuple[tuple[str, ...], ...] = (
    ("material_states", "material_counts"),   # 2026-11-23, round 4
    ("big_features", "big_patterns", "big_states", "big_squares", "big_areas"),   # 2026-11-27
)


def _earlier_layouts(variant: Variant) -> list[tuple[bytes, int, list[tuple[int, int]]]]:
    """The layouts before each added table: for each, its digest, its number of
    features and where the tables it lacks go in the current weight vector, as
    (position in the old vector, weights to insert there) pairs. Such a file
    reads as its weights with those tables all zeros, which evaluates every
    position exactly as it did."""
    current = dict(eval_layout(variant.index), variant=variant.name)
    at = 2 * (len(current["terms"]) + int(current["patterns"]) * int(current["pattern_states"]))
    sizes = [2 * int(current[keys[0]]) for keys in _ADDED_TABLES]
    earlier = []
    for kept in range(len(_ADDED_TABLES)):
        layout = dict(current)
        for keys in _ADDED_TABLES[kept:]:
            for key in keys:
                layout.pop(key)
        layout["features"] = int(layout["features"]) - sum(sizes[kept:]) // 2
        digest = hashlib.sha256(json.dumps(layout, sort_keys=True).encode()).digest()
        # The missing tables all go where the first of them starts (they are the last ones
        # before the side to move).
        earlier.append((digest, int(layout["features"]),
                        [(at + sum(sizes[:kept]), sum(sizes[kept:]))]))
    return earlier


@dataclass(eq=False)
class Weights:
    """The evaluation weights of one variant: ``vector`` holds two int16
    weights (opening, endgame) per feature, in eighths of a centi-man."""

    variant: Variant
    vector: array[int]

    def __post_init__(self) -> None:
        if self.vector.typecode != "h":
            self.vector = array("h", self.vector)
        expected = 2 * _features(self.variant)
        if len(self.vector) != expected:
            raise WeightsFileError(f"weights for {self.variant.name} need {expected} values, "
                                   f"got {len(self.vector)}")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Weights) and other.variant.name == self.variant.name
                and other.vector == self.vector)

    def __repr__(self) -> str:
        nonzero = sum(1 for x in self.vector if x)
        return f"<Weights {self.variant.name}: {len(self.vector)} weights, {nonzero} non-zero>"

    # -- construction --------------------------------------------------------------

    @classmethod
    def material(cls, variant: Variant | str) -> "Weights":
        """Men 100 and kings 300 centi-men; everything else 0."""
        variant = get_variant(variant) if isinstance(variant, str) else variant
        w = cls(variant, array("h", bytes(4 * _features(variant))))
        w.set("man", 100 * UNIT, 100 * UNIT)
        w.set("king", 300 * UNIT, 300 * UNIT)
        return w

    @classmethod
    def from_floats(cls, variant: Variant, values: Sequence[float]) -> "Weights":
        """Rounds ``values`` (weights in the file's units) and clips them to int16."""
        return cls(variant, array("h", (max(-32767, min(32767, int(round(x)))) for x in values)))

    # -- access ------------------------------------------------------------------------

    def _term(self, name: str) -> int:
        try:
            return EVAL_TERM_NAMES.index(name)
        except ValueError:
            raise KeyError(f"no evaluation term {name!r} "
                           f"(terms: {', '.join(EVAL_TERM_NAMES)})") from None

    def get(self, name: str) -> tuple[int, int]:
        """The (opening, endgame) weights of a term, or of ``"side"`` (the side to move)."""
        f = side_feature(self.variant) if name == "side" else self._term(name)
        return self.vector[2 * f], self.vector[2 * f + 1]

    def set(self, name: str, opening: int, endgame: int) -> None:
        """Sets the (opening, endgame) weights of a term or of ``"side"``."""
        f = side_feature(self.variant) if name == "side" else self._term(name)
        self.vector[2 * f] = opening
        self.vector[2 * f + 1] = endgame

    def to_core(self) -> EvalWeights:
        """The weights as the compiled core holds them."""
        return EvalWeights(self.variant.index, self.vector.tobytes())

    # -- files ---------------------------------------------------------------------

    def to_bytes(self, *, compress: bool = True) -> bytes:
        raw = self.vector.tobytes()
        payload = zlib.compress(raw, 9) if compress else raw
        header = _HEADER.pack(MAGIC, FORMAT_VERSION, self.variant.name.encode("ascii"),
                              layout_digest(self.variant), _features(self.variant),
                              1 if compress else 0, 0, len(payload), hashlib.sha256(raw).digest())
        return header + payload

    def write(self, target: str | os.PathLike[str] | IO[bytes]) -> None:
        """Writes the weight file (to a path, atomically, or to a binary file object)."""
        data = self.to_bytes()
        if isinstance(target, (str, os.PathLike)):
            path = Path(target)
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        else:
            target.write(data)

    @classmethod
    def from_bytes(cls, data: bytes, *, variant: Variant | str | None = None,
                   name: str = "weights file") -> "Weights":
        """Parses a weight file; ``variant`` (when given) must be the file's."""
        if len(data) < _HEADER.size:
            raise WeightsFileError(f"{name}: too short for a damier weights file "
                                   f"({len(data)} bytes)")
        (magic, version, vname, digest, features, compression, _reserved, length,
         content) = _HEADER.unpack_from(data)
        if magic != MAGIC:
            raise WeightsFileError(f"{name}: not a damier weights file (bad magic)")
        if version != FORMAT_VERSION:
            raise WeightsFileError(f"{name}: format version {version}; this damier reads "
                                   f"version {FORMAT_VERSION}")
        try:
            file_variant = get_variant(vname.rstrip(b"\0").decode("ascii"))
        except (UnicodeDecodeError, ValueError, KeyError):
            raise WeightsFileError(f"{name}: unknown variant {vname.rstrip(bytes(1))!r}") from None
        if variant is not None:
            wanted = get_variant(variant) if isinstance(variant, str) else variant
            if wanted.name != file_variant.name:
                raise WeightsFileError(f"{name}: the weights are for {file_variant.name} draughts, "
                                       f"not {wanted.name}")
        inserts: list[tuple[int, int]] = []
        for old_digest, old_features, old_inserts in _earlier_layouts(file_variant):
            if digest == old_digest and features == old_features:
                inserts = old_inserts
        if not inserts and (digest != layout_digest(file_variant)
                            or features != _features(file_variant)):
            raise WeightsFileError(f"{name}: made for another evaluation layout than this "
                                   f"damier's (retrain or use the matching damier version)")
        payload = data[_HEADER.size:]
        if len(payload) != length:
            raise WeightsFileError(f"{name}: truncated or padded payload ({len(payload)} bytes, "
                                   f"header says {length})")
        if compression == 1:
            try:
                raw = zlib.decompress(payload)
            except zlib.error:
                raise WeightsFileError(f"{name}: damaged payload (cannot decompress)") from None
        elif compression == 0:
            raw = payload
        else:
            raise WeightsFileError(f"{name}: unknown compression {compression}")
        if hashlib.sha256(raw).digest() != content or len(raw) != 4 * features:
            raise WeightsFileError(f"{name}: damaged payload (checksum mismatch)")
        vector = array("h")
        vector.frombytes(raw)
        for at, size in reversed(inserts):
            vector = vector[:at] + array("h", bytes(2 * size)) + vector[at:]
        return cls(file_variant, vector)

    @classmethod
    def read(cls, source: str | os.PathLike[str] | IO[bytes], *,
             variant: Variant | str | None = None) -> "Weights":
        """Reads a weight file from a path or a binary file object."""
        if isinstance(source, (str, os.PathLike)):
            try:
                data = Path(source).read_bytes()
            except OSError as err:
                raise WeightsFileError(f"cannot read weights file {source}: "
                                       f"{err.strerror or err}") from None
            return cls.from_bytes(data, variant=variant, name=str(source))
        return cls.from_bytes(source.read(), variant=variant)

    # -- the weights before this format -----------------------------------------------

    @classmethod
    def from_terms(cls, variant: Variant, data: dict[str, Any]) -> "Weights":
        """Weights from the linear evaluation that came before the patterns: a
        dict of ``terms`` (centi-men), ``squares`` (a table per square as White
        sees it) and ``tempo``. The square table becomes pattern weights (each
        square's value shared among the areas that hold it) and the king's
        opening and endgame values the king term's; ``exchange`` has no
        counterpart and is dropped."""
        w = cls.material(variant)
        terms: dict[str, Any] = data.get("terms", {})
        for name in EVAL_TERM_NAMES:
            if name in terms:
                w.set(name, UNIT * int(terms[name]), UNIT * int(terms[name]))
        if "king_opening" in terms or "king_endgame" in terms:
            w.set("king", UNIT * int(terms.get("king_opening", 300)),
                  UNIT * int(terms.get("king_endgame", 300)))
        tempo = UNIT * int(data.get("tempo", 0))
        w.set("side", tempo, tempo)
        squares = [int(x) for x in data.get("squares", [])]
        if squares:
            if len(squares) != variant.squares:
                raise WeightsFileError(f"{len(squares)} square weights for {variant.name}, "
                                       f"which has {variant.squares} squares")
            _fold_squares(w, squares)
        return w


def _area_squares(variant: Variant, lowest: int) -> list[int]:
    """The 8 squares (in square order) of the area whose lowest square is ``lowest``."""
    per_row = variant.per_row
    r, i = divmod(lowest - 1, per_row)
    return [(r + dr) * per_row + i + di + 1 for dr in range(4) for di in range(2)]


def _fold_squares(w: Weights, squares: Sequence[int]) -> None:
    """Adds a per-square table of men's values (White's view) to the pattern
    weights, shared among the areas that hold each square."""
    variant = w.variant
    layout = eval_layout(variant.index)
    nterms = len(layout["terms"])
    nsq = variant.squares
    areas: list[tuple[list[int], list[int]]] = []
    cover = [0] * (nsq + 1)
    for low_w, low_b in layout["areas"]:
        sq_w, sq_b = _area_squares(variant, low_w), _area_squares(variant, low_b)
        areas.append((sq_w, sq_b))
        for s in sq_w:
            cover[s] += 1
        for s in sq_b:
            cover[s] += 1
    # Each scoring of an area gets 1/cover of a man's value (an area that is its
    # own half-turn is scored twice, and counted twice in cover).
    for k, (sq_w, _sq_b) in enumerate(areas):
        for state in range(6561):
            value = 0.0
            x = state
            for j in range(8):
                digit = x % 3
                x //= 3
                s = sq_w[j]
                if digit == 1:     # own (White) man on s
                    value += squares[s - 1] / cover[s]
                elif digit == 2:   # the opponent's man on s: its value seen from its side
                    value -= squares[nsq - s] / cover[s]
            f = nterms + k * 6561 + state
            v = int(round(value * UNIT))
            w.vector[2 * f] = v
            w.vector[2 * f + 1] = v


def shipped_weights(variant: Variant) -> Weights | None:
    """The weights shipped for ``variant`` (its registry's ``eval_weights_file``),
    or None when it has none."""
    if variant.eval_weights_file is None:
        return None
    data = resources.files("damier").joinpath("data", variant.eval_weights_file).read_bytes()
    return Weights.from_bytes(data, variant=variant, name=variant.eval_weights_file)

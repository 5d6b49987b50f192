"""Reading ``name=value,...`` lists: the options of a ``damier:`` engine spec, the
rules of ``--adjudicate-draw`` and ``--adjudicate-loss``.

>>> split_options("depth=3, name=x", ["depth", "name"], "option", ValueError)
[('depth', '3'), ('name', 'x')]
>>> split_options("depth", ["depth"], "option", ValueError)
Traceback (most recent call last):
...
ValueError: option 'depth' needs a value (option=value)
"""

from __future__ import annotations

from collections.abc import Callable, Collection

__all__ = ["split_options"]


def split_options(text: str, names: Collection[str], word: str,
                  fail: Callable[[str], Exception]) -> list[tuple[str, str]]:
    """The ``(name, value)`` pairs of ``text`` in order, names lower-cased and both
    stripped, empty items skipped. An item without ``=``, a name not among ``names``
    or a name given twice raises ``fail(message)``; ``word`` names an item in the
    messages ("option", "key")."""
    pairs: list[tuple[str, str]] = []
    seen: set[str] = set()
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        name, eq, value = item.partition("=")
        name = name.strip().lower()
        if not eq:
            raise fail(f"{word} {item!r} needs a value ({word}=value)")
        if name not in names:
            raise fail(f"unknown {word} {name!r}; the {word}s are " + ", ".join(names))
        if name in seen:
            raise fail(f"{word} {name} given twice")
        seen.add(name)
        pairs.append((name, value.strip()))
    return pairs

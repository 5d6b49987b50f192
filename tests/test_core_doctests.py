"""Runs the docstring examples of the compiled core, which pytest's doctest
collection cannot import from an extension module."""

import doctest

import damier._core


def test_core_doctests() -> None:
    result = doctest.testmod(damier._core, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0

"""The progress display of damier's long jobs (matches, puzzle mining, verifying).

On a terminal, a rich progress bar (label, bar, done/total, elapsed time, time left and a
note); elsewhere (a file, a pipe, CI), a plain line per step that the job writes itself,
so logs stay readable. Disabled, it shows nothing but the messages marked ``always``.

>>> import io
>>> out = io.StringIO()
>>> bar = ProgressBar("mining", total=2, stream=out)
>>> bar.update("1 puzzle", advance=1, line="game 1: 1 puzzle")
>>> bar.message("resuming")
>>> bar.close()
>>> out.getvalue()
'game 1: 1 puzzle\\nresuming\\n'
"""

from __future__ import annotations

from typing import Any, TextIO

__all__ = ["ProgressBar"]


class ProgressBar:
    """A bar of ``total`` steps (``done`` of them already) labelled ``label`` on
    ``stream``; ``enabled=False`` shows nothing."""

    def __init__(self, label: str, *, total: int, stream: TextIO, done: int = 0,
                 enabled: bool = True) -> None:
        self.stream = stream
        self.enabled = enabled
        self.rich: Any = None
        self.task: Any = None
        if not enabled:
            return
        try:
            tty = bool(stream.isatty())
        except (ValueError, OSError, AttributeError):
            tty = False
        if not tty:
            return
        try:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                       TimeElapsedColumn, TimeRemainingColumn)
        except ImportError:
            return
        self.rich = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                             MofNCompleteColumn(), TimeElapsedColumn(), TextColumn("eta"),
                             TimeRemainingColumn(), TextColumn("{task.fields[note]}"),
                             console=Console(file=stream), transient=False)
        self.task = self.rich.add_task(label, total=total, completed=done, note="")
        self.rich.start()

    def update(self, note: str, *, advance: int = 0, line: str | None = None) -> None:
        """Moves the bar on by ``advance`` with ``note`` beside it; without a bar, writes
        ``line`` (if given) instead."""
        if not self.enabled:
            return
        if self.rich is not None:
            self.rich.update(self.task, advance=advance, note=note)
        elif line is not None:
            self.stream.write(line + "\n")
            self.stream.flush()

    def message(self, text: str, *, always: bool = False) -> None:
        """A line of text above the bar (``always``: even when disabled)."""
        if not self.enabled and not always:
            return
        if self.rich is not None:
            self.rich.console.print(text, markup=False, highlight=False)
        else:
            self.stream.write(text + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.rich is not None:
            self.rich.stop()
            self.rich = None

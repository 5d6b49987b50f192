"""Game reports: a finished game analysed move by move, its mistakes marked.

The analysis itself, with what makes a move an inaccuracy (``?!``), a mistake (``?``)
or a blunder (``??``), is :mod:`damier.analysis`, which ``damier analyse`` uses too:
one set of thresholds (:data:`INACCURACY` 30, :data:`MISTAKE` 80, :data:`BLUNDER` 200
centi-men), one loss rule, one summary. This module names what the web app takes from
it: :func:`analyse_game` runs in a worker thread of the app and reports its progress
through a callback; :class:`ReportCancelled` ends it when the report is stopped.

>>> from damier.engine import Engine
>>> report = analyse_game("W:W28,33:B23", "international", ["28x19"], Engine(hash_mb=1),
...                       depth=4)
>>> [(p["move"], p["forced"], p["loss"], p["judgement"]) for p in report["plies"]]
[('28x19', True, 0, None)]
>>> judge(250), THRESHOLDS["blunder"]
(('blunder', '??'), 200)
"""

from __future__ import annotations

from damier.analysis import (BLUNDER, INACCURACY, MISTAKE, SCORE_CAP, THRESHOLDS,
                             ReportCancelled, analyse_game, capped, judge, move_loss, pv_texts,
                             white_score)

__all__ = ["analyse_game", "judge", "move_loss", "capped", "ReportCancelled", "INACCURACY",
           "MISTAKE", "BLUNDER", "SCORE_CAP", "THRESHOLDS", "pv_texts", "white_score"]

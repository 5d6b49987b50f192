"""DXP, the DamExchange Protocol: International draughts programs playing each other
over TCP (default port 27531).

- :mod:`damier.dxp.messages`: every message read and written at its exact field
  widths (:func:`parse_message`, :func:`format_message`, :func:`split_frames`), a
  GAMEREQ position to and from a :class:`~damier.Board`, a MOVE to and from a legal
  :class:`~damier.Move`;
- :mod:`damier.dxp.connection`: :class:`DxpConnection` sends and receives whole
  messages over TCP with read timeouts;
- :mod:`damier.dxp.session`: one connection's dialogue (:class:`DxpSession` asks
  for games or follows requests and plays them with a local engine, answering
  CHAT and BACKREQ);
- :mod:`damier.dxp.listener`: :class:`DxpListener`, a server that serves
  connection after connection;
- :mod:`damier.dxp.engine`: :class:`DxpEngine`, another program reached over DXP on
  the engines' common API (:class:`damier.engine_types.EngineAPI`), so a match
  plays it like any engine (``damier match damier dxp:HOST:PORT``).

Every name is importable from ``damier.dxp``.
"""

from __future__ import annotations

from damier.dxp.messages import (MAX_MESSAGE, NAME_WIDTH, BackAccept, BackRequest, Chat,
                                 DxpError, GameAccept, GameEnd, GameRequest, Message,
                                 MoveMessage, Position, board_from_position, encode,
                                 format_message, frame, message_for_move, move_from_message,
                                 parse_message, position_of, split_frames)
from damier.dxp.connection import (DEFAULT_PORT, DxpClosed, DxpConnection, DxpTimeout,
                                   parse_address)
from damier.dxp.listener import DxpListener
from damier.dxp.session import DxpGame, DxpRefused, DxpSession, Mover, engine_mover
from damier.dxp.engine import DxpEngine

__all__ = ["DxpError", "GameRequest", "GameAccept", "MoveMessage", "GameEnd", "Chat",
           "BackRequest", "BackAccept", "Message", "Position", "MAX_MESSAGE", "NAME_WIDTH",
           "parse_message", "format_message", "encode", "frame", "split_frames",
           "board_from_position", "position_of", "move_from_message", "message_for_move",
           "DEFAULT_PORT", "DxpClosed", "DxpConnection", "DxpGame", "DxpListener", "DxpRefused",
           "DxpSession", "DxpTimeout", "Mover", "engine_mover", "parse_address", "DxpEngine"]

# The public classes are documented (and their errors print) as damier.dxp's.
for _name in __all__:
    _value = globals()[_name]
    if isinstance(_value, type) and _value.__module__.startswith("damier.dxp."):
        _value.__module__ = __name__
del _name, _value

"""Who may do what to a game of ``damier serve``.

Every browser (or API client) is a *player*, known by the secret cookie that
:class:`damier.web.security.Guard` gives it. A game belongs to the player who
created (or imported) it, its *owner*, and each side that a person plays is a
*seat* held by one player:

=====================================  =================================================
anyone who knows the game's id          reads it: state, moves, PDN, report, live updates
                                        (a spectator)
the player holding the seat to move     plays a move, asks the engine to move for it
                                        (a hint-move)
the owner or a seat holder              takes back, replays, sets the line, asks the
                                        engine to move when the engine's seat is to move,
                                        offers a draw, analyses, starts or stops a game
                                        report
a seat holder (the owner for a game     resigns (for the side of their seat)
of engine against engine)
the owner                               deletes the game
=====================================  =================================================

The list of past games shows a player only the games they own or sit in.
Games stored before seats existed have no owner; a client on this machine (a
loopback address) sees them and becomes their owner by its first change, so a
person who upgrades keeps their games, while nobody on the network can take
them.

>>> from damier.web.storage import StoredGame
>>> rec = StoredGame(id="g", variant="international", start_fen="W:W31:B1", human="white",
...                  level=5, owner="alice", white_player="alice")
>>> viewer_of(rec, "alice", local=True).seats, viewer_of(rec, "bob", local=True).spectator
(frozenset({'white'}), True)
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from damier.web.session import ApiError
from damier.web.storage import StoredGame

__all__ = ["Viewer", "viewer_of", "is_local", "seats_for", "require_player", "require_seat",
           "require_owner"]


@dataclass(frozen=True)
class Viewer:
    """One player's rights in one game."""

    player: str
    owner: bool
    seats: frozenset[str]
    adoptable: bool = False
    """The game has no owner yet and this player (on this machine) may take it."""

    @property
    def spectator(self) -> bool:
        return not self.owner and not self.seats and not self.adoptable

    def as_json(self) -> dict[str, object]:
        return {"owner": self.owner or self.adoptable,
                "seats": sorted(self.seats) if not self.adoptable else ["black", "white"],
                "spectator": self.spectator}


def is_local(client_host: str | None) -> bool:
    """Whether a client address is this machine's (a loopback address; the test
    client's made-up name counts too)."""
    if client_host in (None, "testclient"):
        return True
    try:
        return ipaddress.ip_address(client_host or "").is_loopback
    except ValueError:
        return False


def seats_for(human: str, player: str) -> tuple[str | None, str | None]:
    """The seats (white, black) that the creator of a game for ``human`` holds."""
    return (player if human in ("white", "both") else None,
            player if human in ("black", "both") else None)


def viewer_of(record: StoredGame, player: str, *, local: bool) -> Viewer:
    """``player``'s rights in the game ``record``."""
    if record.owner is None:
        return Viewer(player, False, frozenset(), adoptable=local)
    seats = frozenset(c for c in ("white", "black") if record.seat(c) == player)
    return Viewer(player, record.owner == player, seats)


def adopt(record: StoredGame, player: str) -> None:
    """Makes ``player`` the owner of a game without one, holding its people's seats."""
    record.owner = player
    record.white_player, record.black_player = seats_for(record.human, player)


def _refuse(viewer: Viewer, what: str) -> ApiError:
    if viewer.spectator:
        return ApiError(403, f"you are watching this game: only its players may {what}",
                        kind="spectator")
    return ApiError(403, f"only this game's players may {what}", kind="forbidden")


def require_player(record: StoredGame, viewer: Viewer, what: str) -> None:
    """Refuses (403) unless ``viewer`` owns the game or holds a seat in it."""
    if not (viewer.owner or viewer.seats or viewer.adoptable):
        raise _refuse(viewer, what)


def require_seat(record: StoredGame, viewer: Viewer, color: str, what: str) -> None:
    """Refuses (403) unless ``viewer`` holds the seat of ``color``."""
    if viewer.adoptable or color in viewer.seats:
        return
    if viewer.owner and record.seat(color) is None and record.human == "none":
        return  # engine against engine: the owner speaks for both sides
    if viewer.seats:
        mine = " and ".join(sorted(viewer.seats))
        raise ApiError(403, f"you play {mine} in this game, not {color}", kind="not_your_seat")
    raise _refuse(viewer, f"play for {color}")


def require_owner(record: StoredGame, viewer: Viewer, what: str) -> None:
    """Refuses (403) unless ``viewer`` owns the game."""
    if not (viewer.owner or viewer.adoptable):
        raise ApiError(403, f"only the player who created this game may {what}",
                       kind="not_owner")

"""``damier serve``: play and analyse draughts in a web browser.

:func:`damier.web.app.create_app` makes the Starlette app; ``damier serve`` runs it with
uvicorn (:mod:`damier.web.server`; its command line is :mod:`damier.cli.serve`).

- :mod:`damier.web.storage`: the SQLite store of games (WAL, written on every move)
- :mod:`damier.web.session`: the game logic (moves, undo/redo, results, PDN), no web framework
- :mod:`damier.web.live`: the games in memory, their searches and the pages watching them
- :mod:`damier.web.app`: the route table and the app; the routes by concern in
  :mod:`damier.web.games`, :mod:`damier.web.sockets` and :mod:`damier.web.puzzle_routes`,
  what they share in :mod:`damier.web.context`, request reading in :mod:`damier.web.parsing`
- :mod:`damier.web.engines`: the shared engine pool and its fair queue
- :mod:`damier.web.security`, :mod:`damier.web.access`, :mod:`damier.web.limits`,
  :mod:`damier.web.connections`: who may do what, and how much
"""

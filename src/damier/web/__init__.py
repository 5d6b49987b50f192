"""``damier serve``: play and analyse draughts in a web browser.

The subpackage is importable without the web extra; :func:`damier.web.app.create_app`
needs Starlette (``pip install 'damier[web]'``) and ``damier serve`` needs uvicorn.

- :mod:`damier.web.storage`: the SQLite store of games (WAL, written on every move)
- :mod:`damier.web.session`: the game logic (moves, undo/redo, results, PDN), no web framework
- :mod:`damier.web.app`: the HTTP/JSON API, the WebSocket, the engine threads, the page
"""

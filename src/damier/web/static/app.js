/* damier web app: talks to the JSON API and the game's WebSocket, drives the board. */
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const IMPORT_LIMIT = 1024 * 1024;

  // sounds are on by default for people, off for automated browsers (tests)
  const settings = Object.assign({ animate: true, numbers: true, multipv: 2, reportStrength: "normal",
    sound: !navigator.webdriver, theme: "wood", confirmMoves: false, premoves: true,
    explorer: false },
    JSON.parse(localStorage.getItem("damier.settings") || "{}"));
  const THEMES = ["wood", "green", "blue"];

  /* The NAGs' glyphs (PDN move marks and the common evaluation signs). */
  const NAG_GLYPHS = { 1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!", 7: "□", 10: "=",
    13: "∞", 14: "⩲", 15: "⩱", 16: "±", 17: "∓", 18: "+−", 19: "−+", 22: "⨀", 23: "⨀",
    32: "⟳", 33: "⟳", 36: "→", 37: "→", 40: "↑", 41: "↑", 132: "⇆", 133: "⇆", 138: "⊕", 139: "⊕" };
  function nagText(nag) { return NAG_GLYPHS[nag] || `$${nag}`; }

  /* Sounds: short oscillator beeps (Web Audio), no audio files. */
  const sound = { ctx: null };
  function playSound(kind) {
    app.soundLog.push(kind);
    if (!settings.sound) return;
    try {
      if (!sound.ctx) sound.ctx = new (window.AudioContext || window.webkitAudioContext)();
      const ctx = sound.ctx;
      const notes = { move: [[520, 0, 0.07]], capture: [[330, 0, 0.06], [250, 0.07, 0.09]],
        end: [[523, 0, 0.14], [659, 0.15, 0.14], [784, 0.3, 0.25]] }[kind] || [];
      const t0 = ctx.currentTime + 0.01;
      for (const [freq, at, length] of notes) {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        osc.type = kind === "capture" ? "square" : "sine";
        osc.frequency.value = freq;
        gain.gain.setValueAtTime(0.0001, t0 + at);
        gain.gain.exponentialRampToValueAtTime(0.18, t0 + at + 0.01);
        gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + length);
        osc.connect(gain).connect(ctx.destination);
        osc.start(t0 + at);
        osc.stop(t0 + at + length + 0.02);
      }
    } catch (err) { /* no audio here */ }
  }

  function applyTheme() {
    if (!THEMES.includes(settings.theme)) settings.theme = "wood";
    document.documentElement.dataset.theme = settings.theme;
  }
  applyTheme();

  const app = {
    game: null,        // the state sent by the server
    tree: [],          // nodes: {id, parent, ply, fen, children, in_line, text, from, to, path, captures}
    cursor: 0,         // the node shown
    live: 0,           // the node of the current position
    shownKey: null,    // the line shown on the board (to animate single steps)
    flipped: false,
    ws: null,
    wsRetry: 0,
    analysis: { on: false, fen: null, lines: [] },
    report: null,       // the game report (GET /api/games/{id}/analysis) matching the moves
    reportKey: null,    // the stored report's date, to fetch a newer one once
    reportLive: null,   // while a report runs: {ply, plies, positions: [], plies_done: []}
    positionCache: new Map(),
    variants: [],
    soundLog: [],      // the sounds asked for (played when the switch is on)
    lastCopied: null,  // the text last put on the clipboard
    treeCache: null,   // a large imported tree fetched apart: {key, tree}
  };
  window.damierApp = app;  // for tests and the curious

  /* -- helpers -------------------------------------------------------------------------- */

  async function api(method, url, body, options) {
    const init = { method, headers: {} };
    if (body !== undefined) {
      if (options && options.raw) {
        init.body = body;
        init.headers["Content-Type"] = options.type || "application/octet-stream";
      } else {
        init.body = JSON.stringify(body);
        init.headers["Content-Type"] = "application/json";
      }
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch (err) {
      return { ok: false, status: 0, data: { error: "the server cannot be reached" } };
    }
    let data = null;
    try { data = await response.json(); } catch (err) { data = { error: response.statusText }; }
    return { ok: response.ok, status: response.status, data };
  }

  /* What this browser may do in the game shown (the server's "you"). */
  function spectator() { return !!(app.you && app.you.spectator); }
  function mySeat(color) { return !app.you || app.you.seats.includes(color); }

  function saveSettings() {
    localStorage.setItem("damier.settings", JSON.stringify(settings));
  }

  /* The person's name: asked once, kept in a cookie that the server reads too (it names
     their seat in the games they create or join; not a secret). */
  const NAME_BAD = /["\[\]{}\\\u0000-\u001f\u007f]/;
  function storedName() {
    const m = document.cookie.match(/(?:^|;\s*)damier_name=([^;]*)/);
    if (!m) return "";
    try { return decodeURIComponent(m[1]); } catch (err) { return ""; }
  }
  function storeName(name) {
    document.cookie = `damier_name=${encodeURIComponent(name)}; Path=/; Max-Age=31536000; SameSite=Lax`;
  }
  function cleanName(text) { return String(text || "").trim().replace(/\s+/g, " "); }
  function nameProblem(name) {
    if (name.length > 40) return "A name has at most 40 characters.";
    if (NAME_BAD.test(name)) return "A name may not hold quotes, brackets or control characters.";
    return null;
  }

  let messageTimer = null;
  function showMessage(text, kind) {
    const box = $("message");
    box.textContent = text;
    box.className = `message ${kind || "error"}`;
    box.hidden = false;
    clearTimeout(messageTimer);
    messageTimer = setTimeout(() => { box.hidden = true; }, kind === "info" ? 6000 : 15000);
  }

  function clearMessage() {
    $("message").hidden = true;
  }

  function turnOf(fen) {
    return fen.trim()[0].toUpperCase() === "B" ? "black" : "white";
  }

  function lineKey(id) {
    const parts = [];
    let node = app.tree[id];
    while (node && node.parent !== null) { parts.push(node.text); node = app.tree[node.parent]; }
    return parts.reverse().join(" ");
  }

  function lineMoves(id) {
    const key = lineKey(id);
    return key ? key.split(" ") : [];
  }

  /* -- the game tree --------------------------------------------------------------------- */

  function buildTree(game) {
    if (game.tree) return game.tree.map((n) => Object.assign({}, n));
    const nodes = [{ id: 0, parent: null, ply: 0, fen: game.start_fen, children: [], in_line: true }];
    game.moves.forEach((m, i) => {
      nodes[i].children.push(i + 1);
      nodes.push(Object.assign({}, m, { id: i + 1, parent: i, ply: i + 1, children: [], in_line: true }));
    });
    return nodes;
  }

  function liveNode(tree) {
    let id = 0;
    for (;;) {
      const next = tree[id].children.find((c) => tree[c].in_line);
      if (next === undefined) return id;
      id = next;
    }
  }

  function mainChild(id) {
    const node = app.tree[id];
    if (!node.children.length) return null;
    return node.children.find((c) => app.tree[c].in_line) ?? node.children[0];
  }

  /* -- the board ------------------------------------------------------------------------------- */

  const board = new DraughtsBoard($("board"), {
    animate: settings.animate,
    showNumbers: settings.numbers,
    onMove: (move) => playMove(move),
    onIllegal: (attempt) => explainIllegal(attempt),
    onChoosePath: (candidates) => showChoice(candidates),
    onPremove: (premove) => { app.premove = premove; },
  });

  app.board = board;
  app.premove = null;

  /* The colour a premove may be made for now ("w"/"b"), or null: the player's own seat,
     one colour only, on the live position of a running game while the other side is to
     move (lidraughts' premoves). */
  function premoveColour(game, atLive) {
    if (!settings.premoves || !atLive || game.over || spectator()) return null;
    const seats = app.you ? app.you.seats : [];
    const mine = seats.length === 1 ? seats[0]
      : (["white", "black"].includes(game.human) ? game.human : null);
    if (!mine || game.turn === mine) return null;
    return mine === "white" ? "w" : "b";
  }

  /* The premove, now that it is the player's turn: played if it is one legal move, the
     paths shown if it is one of several captures with the same ends, dropped otherwise. */
  function playPremove(game) {
    const premove = app.premove;
    app.premove = null;
    board.setPremove(null);
    const candidates = game.legal_moves.filter((m) => m.from === premove.from && m.to === premove.to);
    if (candidates.length === 1) { app.skipAnimation = true; sendMove(candidates[0]); return; }
    if (candidates.length > 1) {
      board.showChoice(candidates);
      showChoice(candidates);
      return;
    }
    showMessage(`The premove ${premove.from}-${premove.to} is not legal now: dropped.`, "info");
  }

  /* The page coordinates of a square's centre (for tests and tools). */
  app.squarePoint = (square, which) => {
    const b = which === "editor" ? editor.board : board;
    const [x, y] = b.centre(square);
    const p = b.svg.createSVGPoint();
    p.x = x; p.y = y;
    const q = p.matrixTransform(b.svg.getScreenCTM());
    return [q.x, q.y];
  };

  function showChoice(candidates) {
    const box = $("choice");
    const buttons = $("choice-buttons");
    buttons.textContent = "";
    if (!candidates) { box.hidden = true; return; }
    const colours = ["#1f77d0", "#d0401f", "#2a9d3a", "#9b3bc4", "#c08a00", "#138a8a"];
    candidates.forEach((m, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "choice-button";
      b.textContent = m.text;
      b.style.borderColor = colours[i % colours.length];
      b.dataset.move = m.text;
      b.addEventListener("click", () => { box.hidden = true; board.choosePath(i); });
      buttons.appendChild(b);
    });
    box.hidden = false;
  }

  $("choice-cancel").addEventListener("click", () => {
    $("choice").hidden = true;
    board.cancelChoice();
  });

  function currentLegal() {
    const node = app.tree[app.cursor];
    if (app.cursor === app.live) {
      return { moves: app.game.legal_moves, compulsory: app.game.compulsory_capture };
    }
    const info = app.positionCache.get(node.fen);
    return info ? { moves: info.legal_moves, compulsory: info.compulsory_capture } : { moves: [], compulsory: null };
  }

  function explainIllegal(attempt) {
    const game = app.game;
    if (!game) return;
    const { moves, compulsory } = currentLegal();
    const node = app.tree[app.cursor];
    const { pieces } = DraughtsFen.parse(node.fen);
    const turn = turnOf(node.fen);
    const listing = moves.map((m) => m.text).sort().join(", ");
    if (attempt.to === null) {
      const piece = pieces.get(attempt.from);
      const own = piece && (piece.toLowerCase() === "w") === (turn === "white");
      if (!own) {
        showMessage(`It is ${turn === "white" ? "White" : "Black"}'s turn to move.`);
      } else if (compulsory) {
        const from = [...new Set(moves.map((m) => m.from))].sort((a, b) => a - b).join(", ");
        showMessage(`The piece on ${attempt.from} cannot move: ${compulsory}. ` +
          `Pieces that can capture: ${from} (legal moves are ${listing}).`);
      } else {
        showMessage(`The piece on ${attempt.from} has no legal move.`);
      }
      return;
    }
    const written = `${attempt.from}${compulsory ? "x" : "-"}${attempt.to}`;
    showMessage(`Illegal move ${written}: ${compulsory ? compulsory + "; " : ""}legal moves are ${listing}.`);
  }

  /* A move made on the board: played at once, or first shown and held until Confirm
     (the "confirm moves" setting). */
  function playMove(move) {
    if (!app.game) return;
    $("choice").hidden = true;
    if (settings.confirmMoves) { askConfirm(move); return; }
    sendMove(move);
  }

  function askConfirm(move) {
    const node = app.tree[app.cursor];
    const { pieces } = DraughtsFen.parse(node.fen);
    const piece = pieces.get(move.from);
    pieces.delete(move.from);
    for (const c of move.captures || []) pieces.delete(c);
    if (piece) pieces.set(move.to, piece);
    app.pendingMove = move;
    app.pendingFen = node.fen;
    board.setPosition(pieces, move);
    board.setLegalMoves([], false);
    app.shownKey = null;     // the position shown is not a node's: redrawn after
    $("confirm-move-text").textContent = move.text;
    $("confirm-move").hidden = false;
    $("board").dataset.interactive = "false";
  }

  function hideConfirm() {
    app.pendingMove = null;
    app.pendingFen = null;
    $("confirm-move").hidden = true;
  }

  $("confirm-move-yes").addEventListener("click", () => {
    const move = app.pendingMove;
    hideConfirm();
    if (move) { app.skipAnimation = true; sendMove(move); }
  });
  $("confirm-move-no").addEventListener("click", () => { hideConfirm(); render(); });

  async function sendMove(move) {
    const game = app.game;
    if (!game) return;
    clearMessage();
    if (app.cursor !== app.live) {
      // a move from an earlier position (analysis and imported games): that line becomes the game
      const res = await api("POST", `/api/games/${game.id}/line`, { moves: lineMoves(app.cursor) });
      if (!res.ok) { showMessage(res.data.error); render(); return; }
      setGame(res.data.game, { follow: true });
    }
    const res = await api("POST", `/api/games/${game.id}/move`,
      { from: move.from, to: move.to, path: move.path });
    if (!res.ok) {
      showMessage(res.data.error);
      render();
      return;
    }
    setGame(res.data.game, { follow: true });
  }

  /* -- rendering ------------------------------------------------------------------------------------ */

  async function fetchTree(game, opts) {
    // A large tree of variations is not in the state: it is fetched once per change.
    const res = await api("GET", `/api/games/${game.id}/tree`);
    if (!res.ok || res.data.key !== game.tree_key) return;   // the game moved on meanwhile
    app.treeCache = { key: res.data.key, tree: res.data.tree };
    if (app.game && app.game.id === game.id && app.game.version > game.version) return;
    setGame(Object.assign({}, game, { tree: res.data.tree }), opts);
  }

  function setGame(game, opts) {
    opts = opts || {};
    if (game.tree === null && game.tree_key) {
      if (app.treeCache && app.treeCache.key === game.tree_key) {
        game = Object.assign({}, game, { tree: app.treeCache.tree });
      } else {
        fetchTree(game, opts);
        return;
      }
    }
    const previous = app.game;
    const wasLive = app.cursor === app.live;
    const cursorKey = app.tree.length ? lineKey(app.cursor) : null;
    if (previous && previous.id === game.id && game.version < previous.version) return;  // stale
    const sameGame = previous && previous.id === game.id;
    if (game.you) {  // the WebSocket's states leave out the invitation secret: keep it
      const keep = sameGame && app.you && app.you.invite && !game.you.invite;
      app.you = keep ? Object.assign({}, game.you, { invite: app.you.invite }) : game.you;
    } else if (!sameGame) app.you = null;
    app.clockAt = performance.now();
    if (sameGame) {
      if (game.over && !previous.over) { playSound("end"); explorer.cache.clear(); }
      else if (game.moves.length === previous.moves.length + 1) {
        const last = game.moves[game.moves.length - 1];
        playSound(last.captures && last.captures.length ? "capture" : "move");
      }
    }
    app.game = game;
    app.tree = buildTree(game);
    app.live = liveNode(app.tree);
    if (!previous || previous.id !== game.id) {
      app.cursor = opts.cursor === "start" ? 0 : app.live;
      // the board from the person's side: the colour of their one seat (a friend who
      // joined by link plays Black: their board is turned)
      const seats = game.you && !game.you.spectator ? game.you.seats : [];
      app.flipped = seats.length === 1 ? seats[0] === "black" : game.human === "black";
      app.engineInfo = null;
      hideConfirm();
      app.shownKey = null;
      app.analysis.fen = null;
      app.positionCache.clear();
      app.report = null;
      app.reportKey = null;
      app.reportLive = null;
      $("engine-line").textContent = "";
      $("analysis-lines").textContent = "";
      $("analysis-depth").textContent = "";
      setEval(null, "");
      connect(game.id);
      location.hash = `game=${game.id}`;
      localStorage.setItem("damier.lastGame", game.id);
    } else if (opts.follow || wasLive) {
      app.cursor = app.live;
    } else {
      const found = app.tree.findIndex((n) => lineKey(n.id) === cursorKey);
      app.cursor = found >= 0 ? found : app.live;
    }
    syncReport();
    render();
  }

  function setCursor(id) {
    if (id === null || id === undefined || !app.tree[id]) return;
    app.cursor = id;
    $("choice").hidden = true;
    render();
  }

  async function ensurePosition(fen) {
    if (app.positionCache.has(fen)) return app.positionCache.get(fen);
    const res = await api("POST", "/api/position", { variant: app.game.variant.name, fen });
    if (res.ok) app.positionCache.set(fen, res.data);
    return res.ok ? res.data : null;
  }

  function render() {
    const game = app.game;
    if (!game) return;
    const node = app.tree[app.cursor];
    const atLive = app.cursor === app.live;
    if (app.pendingMove && app.pendingFen !== node.fen) hideConfirm();   // the position moved on
    const previewing = !!app.pendingMove;
    if (!previewing) board.setSize(game.variant.size, game.variant.top_left_dark, game.variant.all_squares);
    if (!previewing) board.setFlipped(app.flipped);
    const key = lineKey(app.cursor);
    let animateMove = null;
    if (app.shownKey !== null && node.parent !== null && lineKey(node.parent) === app.shownKey
        && !app.skipAnimation) {
      animateMove = node;
    }
    app.skipAnimation = false;
    if (!previewing) {
      if (key !== app.shownKey) board.setPosition(node.fen, animateMove);
      app.shownKey = key;
      board.setLastMove(node.parent !== null ? node : null);
      board.setArrows(reportArrows(node).concat(analysisArrows(node)));
    }

    const analysisMode = game.human === "both" && !spectator();
    let interactive = false;
    if (!game.over && !game.engine_thinking && !previewing) {
      if (atLive) interactive = game.human_to_move && mySeat(game.turn);
      else interactive = analysisMode;
    }
    if (previewing) {
      // the move waiting for Confirm stays on the board
    } else if (interactive && !atLive) {
      const info = app.positionCache.get(node.fen);
      if (info) board.setLegalMoves(info.over ? [] : info.legal_moves, true);
      else {
        board.setLegalMoves([], false);
        ensurePosition(node.fen).then(() => { if (app.tree[app.cursor] === node) render(); });
      }
    } else {
      board.setLegalMoves(interactive ? game.legal_moves : [], interactive);
    }
    if (!board.choosing) $("choice").hidden = true;
    $("board").dataset.interactive = String(interactive);
    board.setPremoveMode(interactive || previewing ? null : premoveColour(game, atLive));
    if (!board.premoveColor && !interactive && app.premove) { app.premove = null; board.setPremove(null); }
    if (interactive && atLive && app.premove) playPremove(game);
    $("board").dataset.ply = String(node.ply);

    renderPlayers();
    renderStatus();
    renderMoves();
    $("fen-text").value = node.fen;
    $("btn-export").href = `/api/games/${game.id}/pdn`;
    const watching = spectator();
    $("btn-undo").disabled = watching || !game.can_undo || (game.engine_thinking && game.human === "none");
    $("btn-redo").disabled = watching || !game.can_redo;
    $("btn-resign").disabled = watching || game.over || !["white", "black"].includes(game.human) && game.human !== "both";
    $("btn-draw").disabled = watching || game.over || !game.can_offer_draw;
    $("btn-go").disabled = watching || game.over || game.engine_thinking;
    document.body.classList.toggle("spectating", watching);
    const invite = app.you && app.you.invite && game.open_seat;
    $("invite").hidden = !invite;
    if (invite) {
      $("invite-url").value = `${location.origin}/#game=${game.id}&join=${app.you.invite}`;
      $("invite-colour").textContent = game.open_seat;
    }
    const offered = game.draw_offer && !game.over;
    const theirs = offered && app.you && !app.you.seats.includes(game.draw_offer);
    $("btn-draw").textContent = theirs ? "Accept draw" : offered ? "Draw offered" : "Offer draw";
    $("btn-draw").classList.toggle("draw-offer", !!theirs);
    if (game.two_players && !watching) {
      $("btn-undo").disabled = true;
      $("btn-redo").disabled = true;
      $("btn-go").disabled = true;
    }
    $("nav-first").disabled = app.cursor === 0;
    $("nav-prev").disabled = app.cursor === 0;
    $("nav-next").disabled = mainChild(app.cursor) === null;
    $("nav-last").disabled = atLive && mainChild(app.cursor) === null;
    $("evalbar").classList.toggle("flipped", app.flipped);
    renderOffers();
    renderChat();
    showEngineInfo();
    renderReport();
    if (app.analysis.on) requestAnalysis();
    renderExplorer();
  }

  /* -- the opening explorer ------------------------------------------------------------------- */

  /* The book's moves and the stored games' moves for the position at the cursor
     (GET /api/explorer), fetched when the cursor moves (kept a while per position). */
  const EXPLORER_KEEP_MS = 30000;
  const explorer = { cache: new Map(), pending: null, shown: null, shownKey: null };
  app.explorer = explorer;

  function explorerKey(node) { return `${app.game.variant.name} ${node.fen}`; }

  function renderExplorer() {
    $("explorer-toggle").checked = settings.explorer;
    $("explorer-body").hidden = !settings.explorer;
    if (!settings.explorer) { $("explorer-status").textContent = ""; return; }
    if (!app.game) return;
    const node = app.tree[app.cursor];
    const key = explorerKey(node);
    const kept = explorer.cache.get(key);
    if (kept && performance.now() - kept.at < EXPLORER_KEEP_MS) { showExplorer(kept.data, key); return; }
    if (explorer.shownKey !== key) $("explorer-body").classList.add("stale");
    if (explorer.pending === key) return;
    explorer.pending = key;
    $("explorer-status").textContent = "…";
    const url = `/api/explorer?variant=${encodeURIComponent(app.game.variant.name)}` +
      `&fen=${encodeURIComponent(node.fen)}`;
    api("GET", url).then((res) => {
      if (explorer.pending === key) explorer.pending = null;
      const now = app.game && app.tree[app.cursor];
      const current = now && explorerKey(now) === key;
      if (!res.ok) {
        if (current) {
          $("explorer-status").textContent = res.data.error || "the explorer is not available";
          $("explorer-book").tBodies[0].textContent = "";
          $("explorer-games").tBodies[0].textContent = "";
          explorer.shown = null;
          explorer.shownKey = null;
        }
        return;
      }
      explorer.cache.delete(key);
      explorer.cache.set(key, { at: performance.now(), data: res.data });
      if (explorer.cache.size > 300) explorer.cache.delete(explorer.cache.keys().next().value);
      if (current && settings.explorer) showExplorer(res.data, key);
    });
  }

  function percent(part, whole) { return whole ? Math.round((100 * part) / whole) : 0; }

  /* A book score (centi-men, the side to move's view) in men: "+0.12", or a forced result. */
  function bookScore(m) {
    if (m.mate !== null && m.mate !== undefined) return m.mate > 0 ? `win in ${m.mate}` : `loss in ${-m.mate}`;
    return `${m.score >= 0 ? "+" : "−"}${(Math.abs(m.score) / 100).toFixed(2)}`;
  }

  function explorerButton(m, what) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "small explorer-move";
    b.textContent = m.move;
    b.dataset.move = m.move;
    b.title = `${m.move} (${what}): play it, or step to it when it is the next move`;
    b.addEventListener("click", () => explorerPlay(m));
    return b;
  }

  function showExplorer(data, key) {
    $("explorer-body").classList.remove("stale");
    if (explorer.shown === data) return;
    explorer.shown = data;
    explorer.shownKey = key;
    const n = data.indexed_games;
    $("explorer-status").textContent = `${n} game${n === 1 ? "" : "s"} indexed`;
    const book = $("explorer-book").tBodies[0];
    book.textContent = "";
    for (const m of data.book) {
      const tr = book.insertRow();
      tr.insertCell().appendChild(explorerButton(m, "book"));
      const score = tr.insertCell();
      score.className = "explorer-score";
      score.textContent = bookScore(m);
      const depth = tr.insertCell();
      depth.className = "muted";
      depth.textContent = String(m.depth);
    }
    if (!data.book.length) {
      const cell = book.insertRow().insertCell();
      cell.colSpan = 3;
      cell.className = "muted";
      cell.textContent = "No book moves for this position.";
    }
    const games = $("explorer-games").tBodies[0];
    games.textContent = "";
    for (const m of data.games) {
      const tr = games.insertRow();
      tr.insertCell().appendChild(explorerButton(m, `${m.games} games`));
      const count = tr.insertCell();
      count.className = "explorer-count";
      count.textContent = String(m.games);
      const decided = m.white + m.draws + m.black;
      const parts = [["white", m.white], ["draws", m.draws], ["black", m.black]];
      const bar = document.createElement("div");
      bar.className = "wdb";
      bar.setAttribute("role", "img");
      bar.setAttribute("aria-label", `White won ${m.white}, drawn ${m.draws}, Black won ${m.black}`
        + (decided < m.games ? `, ${m.games - decided} without a result` : ""));
      bar.title = bar.getAttribute("aria-label");
      for (const [kind, value] of parts) {
        const share = percent(value, decided);
        if (!value) continue;
        const span = document.createElement("span");
        span.className = `wdb-${kind}`;
        span.style.flexGrow = String(value);
        span.textContent = share >= 18 ? `${share}%` : "";
        bar.appendChild(span);
      }
      if (!decided) bar.classList.add("empty");
      tr.insertCell().appendChild(bar);
    }
    if (!data.games.length) {
      const cell = games.insertRow().insertCell();
      cell.colSpan = 3;
      cell.className = "muted";
      cell.textContent = "No stored game reached this position.";
    }
  }

  /* A move of the explorer clicked: a step into the game's tree when it is a next move
     there, else played from the position shown (the way a move on the board is) when
     the board takes moves now. */
  function explorerPlay(m) {
    if (!app.game || explorer.shownKey !== explorerKey(app.tree[app.cursor])) return;  // not shown yet
    const captured = (a) => (a || []).slice().sort((x, y) => x - y).join(",");
    const same = (a) => a.from === m.from && a.to === m.to && captured(a.captures) === captured(m.captures);
    const node = app.tree[app.cursor];
    const next = node.children.map((c) => app.tree[c]).find(same);
    if (next) { setCursor(next.id); return; }
    if ($("board").dataset.interactive !== "true") {
      showMessage(`${m.move} cannot be played here now: the board does not take your moves in this position.`, "info");
      return;
    }
    const legal = currentLegal().moves.find(same);
    if (legal) playMove(legal);
    else showMessage(`${m.move} is not a legal move here.`);
  }

  $("explorer-toggle").checked = settings.explorer;
  $("explorer-body").hidden = !settings.explorer;
  $("explorer-toggle").addEventListener("change", (e) => {
    settings.explorer = e.target.checked;
    saveSettings();
    explorer.shown = null;
    renderExplorer();
  });

  /* -- between two people: take-back requests, rematches, chat -------------------------------- */

  /* The one colour this browser plays in the game shown (null: none, or both). */
  function myOnlySeat() {
    return app.you && !app.you.spectator && app.you.seats.length === 1 ? app.you.seats[0] : null;
  }
  function otherColour(c) { return c === "white" ? "black" : "white"; }
  function nameOf(c) { return c === "white" ? app.game.white : app.game.black; }

  function renderOffers() {
    const game = app.game;
    const me = game.two_players ? myOnlySeat() : null;
    const other = me && otherColour(me);
    const rematch = game.rematch || {};
    let text = "", kind = "", answer = false, cancel = false;
    if (me && !game.over && game.takeback_offer === other) {
      text = `${nameOf(other)} asks to take back their last move.`; kind = "takeback"; answer = true;
    } else if (me && !game.over && game.takeback_offer === me) {
      text = "You asked to take back your last move: waiting for your opponent."; kind = "takeback";
    } else if (me && game.over && !rematch.game && rematch.offer === other) {
      text = `${nameOf(other)} offers a rematch (colours swapped).`; kind = "rematch"; answer = true;
    } else if (me && game.over && !rematch.game && rematch.offer === me) {
      text = "You offered a rematch: waiting for your opponent."; kind = "rematch"; cancel = true;
    }
    $("offer").hidden = !text;
    $("offer").dataset.kind = kind;
    $("offer-text").textContent = text;
    $("offer-accept").hidden = !answer;
    $("offer-decline").hidden = !(answer || cancel);
    $("offer-decline").textContent = cancel ? "Cancel" : "Decline";

    const player = !spectator() && !!app.you;
    const imported = !!(game.tree || game.tree_key);
    const takeback = $("btn-takeback");
    takeback.hidden = !(me && !game.over);
    takeback.disabled = !game.moves.length || game.takeback_offer === me;
    const button = $("btn-rematch");
    button.hidden = !(game.over && player && !imported && !game.open_seat);
    button.disabled = !!(me && rematch.offer === me && !rematch.game);
    button.textContent = rematch.game ? "Go to rematch" : me && rematch.offer === other ? "Accept rematch"
      : me && rematch.offer === me ? "Rematch offered" : "Rematch";
  }

  async function rematch(body) {
    if (!app.game) return;
    const game = app.game;
    if (game.rematch && game.rematch.game && !(body && body.decline)) {
      openRematch(game.rematch.game);
      return;
    }
    const res = await api("POST", `/api/games/${game.id}/rematch`, body || {});
    if (!res.ok) { showMessage(res.data.error); return; }
    if (res.data.rematch) openRematch(res.data.rematch, res.data.game);
    else setGame(res.data.game, { follow: true });
  }

  function openRematch(id, state) {
    if (app.game && app.game.id === id) return;
    app.game = null;
    if (state) setGame(state); else loadGame(id);
    showMessage("The rematch: the colours are swapped.", "info");
  }

  $("btn-rematch").addEventListener("click", () => rematch({}));
  $("btn-takeback").addEventListener("click", () => action("takeback", {}, () => {
    showMessage("Take-back asked: your opponent may accept it.", "info");
  }));
  $("offer-accept").addEventListener("click", () => {
    const kind = $("offer").dataset.kind;
    if (kind === "takeback") action("takeback", { answer: "accept" });
    else if (kind === "rematch") rematch({});
  });
  $("offer-decline").addEventListener("click", () => {
    const kind = $("offer").dataset.kind;
    if (kind === "takeback") action("takeback", { answer: "decline" });
    else if (kind === "rematch") rematch({ decline: true });
  });

  /* The players' chat: text only (never HTML), shown to the two players alone. */
  function renderChat() {
    const game = app.game;
    const show = !!(game.two_players && !game.open_seat && myOnlySeat() && Array.isArray(game.chat));
    $("chat").hidden = !show;
    if (!show) return;
    const log = $("chat-log");
    const key = `${game.id}:${game.chat.map((m) => m.id).join(",")}`;
    if (log.dataset.key === key) return;
    log.dataset.key = key;
    log.textContent = "";
    for (const m of game.chat) {
      const li = document.createElement("li");
      li.dataset.id = String(m.id);
      const who = document.createElement("span");
      who.className = `chat-name ${m.color === "black" ? "black" : "white"}`;
      who.textContent = m.name;
      const text = document.createElement("span");
      text.className = "chat-text";
      text.textContent = m.text;
      li.append(who, text);
      log.appendChild(li);
    }
    log.scrollTop = log.scrollHeight;
  }

  function addChat(message) {
    const game = app.game;
    if (!game || !Array.isArray(game.chat) || game.chat.some((m) => m.id === message.id)) return;
    game.chat = game.chat.concat([message]).sort((a, b) => a.id - b.id).slice(-100);
    renderChat();
  }

  $("chat-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = $("chat-input").value.trim();
    if (!text || !app.game) return;
    const res = await api("POST", `/api/games/${app.game.id}/chat`, { text });
    if (!res.ok) { showMessage(res.data.error); return; }
    $("chat-input").value = "";
    addChat(res.data.message);
  });

  function renderPlayers() {
    const game = app.game;
    const make = (colour) => {
      const name = colour === "white" ? game.white : game.black;
      const toMove = !game.over && game.turn === colour && app.cursor === app.live;
      const seat = game.open_seat === colour ? " (waiting for your friend)" : "";
      const mine = game.two_players && myOnlySeat() === colour;
      return `<span class="dot ${colour}"></span><span class="name">${escapeHtml(name)}${seat}</span>` +
        (mine ? `<span class="you-tag">(you)</span>` : "") +
        (toMove ? `<span class="to-move">to move</span>` : "") +
        (game.clock ? `<span class="clock" data-colour="${colour}"></span>` : "");
    };
    $("player-top").innerHTML = make(app.flipped ? "white" : "black");
    $("player-bottom").innerHTML = make(app.flipped ? "black" : "white");
    renderClocks();
  }

  /* The clocks: the server's times when the state came, counted down here meanwhile. */
  function clockText(seconds) {
    const s = Math.max(0, seconds);
    if (s < 20) return `${Math.floor(s / 60)}:${(s % 60).toFixed(1).padStart(4, "0")}`;
    const whole = Math.ceil(s);
    return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  }

  function renderClocks() {
    const game = app.game;
    if (!game || !game.clock) return;
    const elapsed = (performance.now() - app.clockAt) / 1000;
    for (const el of document.querySelectorAll(".player .clock")) {
      const colour = el.dataset.colour;
      const running = game.clock.running === colour && !game.over;
      const left = game.clock[colour] - (running ? elapsed : 0);
      el.textContent = clockText(left);
      el.classList.toggle("running", running);
      el.classList.toggle("low", left < 10);
    }
  }
  setInterval(renderClocks, 100);

  function renderStatus() {
    const game = app.game;
    const status = $("status");
    let text;
    if (game.over && game.outcome) {
      text = `${game.outcome.pdn_result || game.outcome.result} — ${game.outcome.text}`;
      status.className = "status over";
    } else {
      const turn = game.turn === "white" ? "White" : "Black";
      if (game.engine_thinking) text = `${turn} to move — damier is thinking…`;
      else {
        const mine = game.two_players ? myOnlySeat() === game.turn
          : game.human_to_move && ["white", "black"].includes(game.human);
        text = `${turn} to move${mine ? " (you)" : ""}`;
      }
      if (game.must_capture) text += ` — ${game.compulsory_capture}`;
      if (game.outcome && game.outcome.termination === "recorded") {
        text += ` · recorded result ${game.outcome.pdn_result || game.outcome.result}`;
      }
      status.className = "status";
    }
    if (spectator()) text += " · watching (read-only)";
    if (app.cursor !== app.live) {
      const shown = app.tree[app.cursor];
      text += shown.parent === null ? " · viewing the start"
        : ` · viewing ${moveNumberText(shown, true)} ${shown.text}`;
    }
    if (app.wsRetry > 0 && (!app.ws || app.ws.readyState !== WebSocket.OPEN)) text += " · reconnecting…";
    status.textContent = text;
    status.dataset.over = String(!!game.over);
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  }

  function moveNumberText(node, force) {
    const game = app.game;
    const parentFen = app.tree[node.parent].fen;
    const mover = turnOf(parentFen);
    const firstMover = game.variant.white_starts ? "white" : "black";
    const startTurn = turnOf(app.tree[0].fen);
    const offset = startTurn === firstMover ? 0 : 1;
    const number = Math.floor((node.ply - 1 + offset) / 2) + 1;
    if (mover === firstMover) return `${number}.`;
    return force ? `${number}…` : "";
  }

  function renderMoves() {
    const list = $("move-list");
    list.textContent = "";
    const addComment = (text, container, extra) => {
      const c = document.createElement("span");
      c.className = "comment" + (extra ? ` ${extra}` : "");
      c.textContent = text;
      container.appendChild(c);
    };
    const emitMove = (id, force, container) => {
      const node = app.tree[id];
      if (node.starting_comment) addComment(node.starting_comment, container, "starting-comment");
      const number = moveNumberText(node, force);
      if (number) {
        const n = document.createElement("span");
        n.className = "move-number";
        n.textContent = number;
        container.appendChild(n);
      }
      const span = document.createElement("span");
      span.className = "move" + (node.in_line ? " in-line" : " variation-move") +
        (id === app.cursor ? " current" : "");
      span.textContent = node.text;
      span.dataset.node = String(id);
      span.dataset.ply = String(node.ply);
      span.addEventListener("click", () => setCursor(id));
      container.appendChild(span);
      if (node.nags && node.nags.length) {
        const g = document.createElement("span");
        g.className = "nag";
        g.textContent = node.nags.map(nagText).join(" ");
        g.dataset.nags = node.nags.join(" ");
        container.appendChild(g);
      }
      const judged = reportEntry(node);
      if (judged && judged.judgement) {
        span.classList.add("judged", judged.judgement);
        span.dataset.judgement = judged.judgement;
        span.title = `${judged.judgement}: ${judged.text_before} → ${judged.text_after}` +
          (judged.best_move ? ` (best was ${judged.best_move})` : "");
        const mark = document.createElement("span");
        mark.className = `mark ${judged.judgement}`;
        mark.textContent = judged.mark;
        mark.title = judged.judgement;
        mark.addEventListener("click", () => setCursor(id));
        container.appendChild(mark);
      }
      container.appendChild(document.createTextNode(" "));  // a place to wrap the line
      if (node.comment) addComment(node.comment, container);
    };
    const emitLine = (parentId, container, force) => {
      let p = parentId;
      while (app.tree[p].children.length) {
        const children = app.tree[p].children;
        const main = children.find((c) => app.tree[c].in_line) ?? children[0];
        emitMove(main, force, container);
        force = false;
        for (const alt of children) {
          if (alt === main) continue;
          const v = document.createElement("span");
          v.className = "variation";
          container.appendChild(v);
          emitMove(alt, true, v);
          emitLine(alt, v, false);
          force = true;
        }
        p = main;
      }
    };
    renderHeaders();
    if (app.tree[0].comment) addComment(app.tree[0].comment, list, "game-comment");
    emitLine(0, list, true);
    // (no redo between two people: a move taken back on request is not offered again)
    if (app.game.redo && app.game.redo.length && !app.game.tree && !app.game.two_players) {
      const r = document.createElement("span");
      r.className = "redo-moves";
      r.textContent = `(redo: ${app.game.redo.join(" ")})`;
      list.appendChild(r);
    }
    if (app.game.outcome) {   // the end of the game, or the result recorded in its PDN
      const res = document.createElement("span");
      res.className = "result";
      res.textContent = app.game.outcome.pdn_result || app.game.outcome.result;
      list.appendChild(res);
    }
    const current = list.querySelector(".current");
    if (current && current.scrollIntoView) current.scrollIntoView({ block: "nearest" });
  }

  /* The game's PDN headers (an imported game): event, place, date, players, result... */
  const HEADER_ORDER = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
  const HEADER_HIDDEN = new Set(["GameType", "FEN", "SetUp"]);
  function renderHeaders() {
    const box = $("game-headers");
    const game = app.game;
    const headers = (game && game.tree && game.headers) || {};
    const names = HEADER_ORDER.filter((k) => k in headers)
      .concat(Object.keys(headers).filter((k) => !HEADER_ORDER.includes(k) && !HEADER_HIDDEN.has(k)));
    const shown = names.filter((k) => headers[k] && !/^[?.]+$/.test(headers[k]) && headers[k] !== "*");
    box.textContent = "";
    box.hidden = !shown.length;
    for (const k of shown) {
      const dt = document.createElement("dt");
      dt.textContent = k;
      const dd = document.createElement("dd");
      dd.dataset.header = k;
      dd.textContent = k === "Result" ? (game.outcome && game.outcome.pdn_result) || headers[k] : headers[k];
      box.append(dt, dd);
    }
  }

  /* -- the game report ------------------------------------------------------------------------------ */

  const REPORT_STRENGTHS = {
    quick: { depth: 6, movetime: 0.2 },
    normal: { depth: 12, movetime: 1 },
    deep: { depth: 18, movetime: 3 },
  };
  const JUDGEMENT_NAMES = { inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };

  /* The report shown: the finished one, or the part of a running one done so far. */
  function reportView() {
    if (app.reportLive) return { positions: app.reportLive.positions, plies: app.reportLive.moves,
      total: app.reportLive.plies, running: true };
    if (app.report) return { positions: app.report.positions, plies: app.report.plies,
      total: app.report.plies.length, running: false };
    return null;
  }

  function reportEntry(node) {
    const view = reportView();
    if (!view || !node || !node.in_line || node.parent === null || node.ply < 1) return null;
    const entry = view.plies[node.ply - 1];
    return entry && entry.move === node.text ? entry : null;
  }

  function reportArrows(node) {
    const entry = reportEntry(node);
    if (!entry || entry.played_best || !entry.best) return [];
    return [{ path: entry.best.path, kind: "best" }];
  }

  /* The first move of each line of the live analysis of the position shown (the best stronger). */
  function analysisArrows(node) {
    if (!app.analysis.on || !node || app.analysis.fen !== node.fen || app.analysis.linesFen !== node.fen) return [];
    return app.analysis.lines.filter((l) => l.move && l.move.path)
      .map((l, i) => ({ path: l.move.path, kind: i === 0 ? "analysis best-line" : "analysis" }));
  }

  /* The in-line node at a ply of the game. */
  function lineNode(ply) {
    let id = 0;
    while (app.tree[id] && app.tree[id].ply < ply) {
      const next = app.tree[id].children.find((c) => app.tree[c].in_line);
      if (next === undefined) break;
      id = next;
    }
    return id;
  }

  /* Follows the report state of the game: loads a finished report once, forgets a stale one. */
  function syncReport() {
    const state = app.game.report || { status: "none" };
    if (state.status === "running") {
      if (!app.reportLive) {
        app.reportLive = { ply: state.ply || 0, plies: state.plies, positions: [], moves: [] };
        loadPartialReport();   // a page opened while the analysis runs: what it did so far
      }
      app.reportLive.ply = Math.max(app.reportLive.ply, state.ply || 0);
      app.reportLive.plies = state.plies;
      return;
    }
    app.reportLive = null;
    if (state.status === "done" && !state.stale) {
      if (app.reportKey !== state.created_at) loadReport(state.created_at);
    } else {
      app.report = null;
      app.reportKey = null;
    }
  }

  async function loadReport(key) {
    if (app.reportLoading === key) return;
    app.reportLoading = key;
    const id = app.game.id;
    const res = await api("GET", `/api/games/${id}/analysis`);
    app.reportLoading = null;
    if (!app.game || app.game.id !== id) return;
    if (res.ok && res.data.status === "done" && !res.data.stale) {
      app.report = res.data;
      app.reportKey = key;
    } else {
      app.report = null;
    }
    render();
  }

  async function loadPartialReport() {
    const id = app.game.id;
    const res = await api("GET", `/api/games/${id}/analysis`);
    const live = app.reportLive;
    if (!res.ok || res.data.status !== "running" || !live || !app.game || app.game.id !== id) return;
    res.data.partial.positions.forEach((p, i) => { if (!live.positions[i]) live.positions[i] = p; });
    res.data.partial.plies.forEach((m, i) => { if (!live.moves[i]) live.moves[i] = m; });
    renderMoves();
    renderReport();
  }

  async function startReport() {
    if (!app.game) return;
    const body = REPORT_STRENGTHS[$("report-strength").value] || REPORT_STRENGTHS.normal;
    $("btn-report").disabled = true;
    const res = await api("POST", `/api/games/${app.game.id}/analysis`, body);
    // The progress and the report come over the WebSocket (a short game may be done
    // before this reply arrives).
    if (!res.ok) showMessage(res.data.error); else clearMessage();
    renderReport();
  }

  function reportMessage(msg) {
    if (!app.game) return;
    if (msg.type === "report_started") {
      app.reportLive = { ply: 0, plies: msg.plies, positions: [], moves: [] };
      app.report = null;
      app.reportKey = null;
    } else if (msg.type === "report_progress") {
      if (!app.reportLive) app.reportLive = { ply: 0, plies: msg.plies, positions: [], moves: [] };
      const live = app.reportLive;
      live.ply = msg.ply;
      live.plies = msg.plies;
      live.positions[msg.ply] = msg.position;
      if (msg.move) live.moves[msg.ply - 1] = msg.move;
      renderMoves();
    } else if (msg.type === "report_done") {
      const w = msg.summary.white, b = msg.summary.black;
      const count = (s) => s.inaccuracies + s.mistakes + s.blunders;
      showMessage(`Game analysed: ${count(w)} marked move${count(w) === 1 ? "" : "s"} for White, ` +
        `${count(b)} for Black.`, "info");
      return;  // the state that follows brings the report
    } else if (msg.type === "report_stopped") {
      app.reportLive = null;
      if (msg.error) showMessage(msg.error);
      render();
      return;
    }
    renderReport();
  }

  function graphY(whiteScore, height) {
    let s = whiteScore;
    if (Math.abs(s) > 9000) s = s > 0 ? 1000 : -1000;
    s = Math.max(-1000, Math.min(1000, s));
    return height / 2 - (height / 2 - 3) * Math.tanh(s / 500);
  }

  function svgEl(name, attrs, parent) {
    const node = document.createElementNS("http://www.w3.org/2000/svg", name);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  /* The evaluation over the game (White's view, up: White better), marks on the judged moves. */
  function renderGraph(view) {
    const box = $("report-graph");
    box.textContent = "";
    const W = 360, H = 96;
    const n = Math.max(1, view.total);
    const x = (k) => (k * W) / n;
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, class: "eval-graph", role: "img",
      "aria-label": "evaluation graph" }, box);
    svgEl("rect", { x: 0, y: 0, width: W, height: H, class: "graph-black" }, svg);
    const known = [];
    view.positions.forEach((p, k) => { if (p) known.push([k, p.white_score]); });
    if (known.length) {
      const pts = known.map(([k, ws]) => `${x(k).toFixed(1)},${graphY(ws, H).toFixed(1)}`);
      const last = known[known.length - 1][0];
      svgEl("polygon", { points: `0,${H} ${pts.join(" ")} ${x(last).toFixed(1)},${H}`,
        class: "graph-white" }, svg);
      if (last < n) {
        svgEl("rect", { x: x(last), y: 0, width: W - x(last), height: H, class: "graph-pending" }, svg);
      }
      svgEl("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: "graph-mid" }, svg);
      svgEl("polyline", { points: pts.join(" "), class: "graph-line" }, svg);
    }
    const node = app.tree[app.cursor];
    if (node && node.in_line && node.ply <= n) {
      svgEl("line", { x1: x(node.ply), y1: 0, x2: x(node.ply), y2: H, class: "graph-cursor" }, svg);
    }
    view.plies.forEach((e, i) => {
      if (!e || !e.judgement || !view.positions[i + 1]) return;
      const dot = svgEl("circle", { cx: x(i + 1), cy: graphY(view.positions[i + 1].white_score, H),
        r: 3.6, class: `graph-mark ${e.judgement}` }, svg);
      dot.dataset.ply = String(i + 1);
    });
    // the click targets: one band per position
    const band = W / n;
    for (let k = 0; k <= n; k++) {
      if (!view.positions[k]) continue;
      const hit = svgEl("rect", { x: Math.max(0, x(k) - band / 2), y: 0, width: band, height: H,
        class: "graph-hit" }, svg);
      hit.dataset.ply = String(k);
      const e = view.plies[k - 1];
      const title = svgEl("title", {}, hit);
      title.textContent = k === 0 ? `start: ${view.positions[0].score_text}` :
        `${moveLabel(k)} ${e ? e.move + (e.mark || "") : ""}  ${view.positions[k].score_text}`;
      hit.addEventListener("click", () => setCursor(lineNode(k)));
    }
  }

  function moveLabel(ply) {
    const node = app.tree[lineNode(ply)];
    if (!node || node.parent === null) return "";
    return moveNumberText(node, true);
  }

  function renderReport() {
    const game = app.game;
    if (!game) return;
    const view = reportView();
    const running = !!app.reportLive;
    const state = game.report || { status: "none" };
    const button = $("btn-report");
    button.disabled = !game.can_analyse_game || running;
    button.textContent = app.report ? "Analyse again" : "Analyse game";
    button.title = game.can_analyse_game ? "the engine looks at every position of the game"
      : "for finished or imported games";
    $("report-strength").disabled = button.disabled;
    $("report-progress").hidden = !running;
    if (running) {
      const live = app.reportLive;
      $("report-bar").max = Math.max(1, live.plies);
      $("report-bar").value = live.ply;
      $("report-progress-text").textContent = `ply ${live.ply} of ${live.plies}`;
    }
    let note = "";
    if (running) note = "The engine looks at every position of the game…";
    else if (state.status === "done" && state.stale) note = "The moves have changed since the last analysis.";
    else if (!app.report && game.can_analyse_game) {
      note = "The engine looks at every position and marks inaccuracies (?!), mistakes (?) and blunders (??).";
    } else if (!app.report) note = "Finish the game (or import one) to analyse it move by move.";
    else {
      const r = app.report;
      note = `Depth ${r.depth}, at most ${r.movetime} s a position. ` +
        `Losses of ${r.thresholds.inaccuracy / 100}, ${r.thresholds.mistake / 100} and ` +
        `${r.thresholds.blunder / 100} men: ?!, ? and ??.`;
    }
    $("report-note").textContent = note;

    const summary = $("report-summary");
    summary.hidden = !app.report;
    if (app.report) {
      const body = summary.querySelector("tbody");
      body.textContent = "";
      for (const colour of ["white", "black"]) {
        const s = app.report.summary[colour];
        const tr = document.createElement("tr");
        tr.dataset.color = colour;
        tr.innerHTML = `<th><span class="dot ${colour}"></span>${escapeHtml(s.name)}</th>` +
          `<td class="inaccuracy">${s.inaccuracies}</td><td class="mistake">${s.mistakes}</td>` +
          `<td class="blunder">${s.blunders}</td><td>${(s.average_loss / 100).toFixed(2)}</td>`;
        body.appendChild(tr);
      }
    }
    $("report-graph").hidden = !view;
    if (view) renderGraph(view);
    renderReportComment(view);
  }

  function renderReportComment(view) {
    const box = $("report-comment");
    box.textContent = "";
    const node = app.tree[app.cursor];
    if (!view || !node || !node.in_line) return;
    const position = view.positions[node.ply];
    if (!app.analysis.on && position) setEval(position.white_score, position.score_text);
    const entry = reportEntry(node);
    const add = (text, cls) => {
      const span = document.createElement("span");
      if (cls) span.className = cls;
      span.textContent = text;
      box.appendChild(span);
      return span;
    };
    if (!entry) {
      if (node.ply === 0 && position) {
        add(`Start: ${position.score_text}`);
        if (position.best) add(` · engine: ${pvText(position.fen, 0, position.pv.slice(0, 6))}`, "pv");
      }
      return;
    }
    add(`${moveNumberText(node, true)} ${entry.move}${entry.mark || ""} `, "comment-move");
    if (entry.judgement) {
      add(JUDGEMENT_NAMES[entry.judgement], `judgement ${entry.judgement}`);
      add(` (${(entry.loss / 100).toFixed(2)} men lost): `);
    }
    add(`${entry.text_before} → ${entry.text_after}.`);
    if (entry.forced) add(" The only move.");
    else if (entry.played_best) add(" The engine's choice.");
    else if (entry.best) {
      box.appendChild(document.createElement("br"));
      add(`${entry.judgement ? "Better" : "Engine's choice"}: ${entry.best_move}`, "better");
      const parent = app.tree[node.parent];
      add(` · ${pvText(parent.fen, node.ply - 1, entry.best_pv.slice(0, 6))}`, "pv");
    }
  }

  $("btn-report").addEventListener("click", startReport);
  if (REPORT_STRENGTHS[settings.reportStrength]) $("report-strength").value = settings.reportStrength;
  $("report-strength").addEventListener("change", (e) => {
    settings.reportStrength = e.target.value;
    saveSettings();
  });
  $("btn-report-stop").addEventListener("click", async () => {
    if (!app.game) return;
    const res = await api("DELETE", `/api/games/${app.game.id}/analysis`);
    if (!res.ok) showMessage(res.data.error);
  });

  /* -- engine output ------------------------------------------------------------------------------- */

  function setEval(whiteScore, text) {
    const fill = $("evalbar-black");
    let share;  // Black's share of the bar
    if (whiteScore === null || whiteScore === undefined) share = 50;
    else if (Math.abs(whiteScore) > 9000) share = whiteScore > 0 ? 0 : 100;
    else share = 50 - 50 * Math.tanh(whiteScore / 400);
    fill.style.height = `${share}%`;
    $("evalbar-text").textContent = "";
    const number = $("eval-number");
    number.textContent = evalWords(whiteScore, text);
    number.title = number.textContent ? `evaluation: ${number.textContent} (White's view, in men)` : "";
    $("evalbar").dataset.score = whiteScore === null || whiteScore === undefined ? "" : String(whiteScore);
  }

  /* The evaluation in words: "+0.35" (men, White's view), "White wins in 7" (plies). */
  function evalWords(whiteScore, text) {
    if (whiteScore === null || whiteScore === undefined) return "";
    const m = /^(win|loss) in (\d+)/.exec(text || "");
    if (m) return `${m[1] === "win" ? "White" : "Black"} wins in ${m[2]}`;
    if (Math.abs(whiteScore) > 9000) return whiteScore > 0 ? "White wins" : "Black wins";
    return `${whiteScore >= 0 ? "+" : "−"}${(Math.abs(whiteScore) / 100).toFixed(2)}`;
  }

  function pvText(startFen, startPly, pv) {
    const firstMover = app.game.variant.white_starts ? "white" : "black";
    let mover = turnOf(startFen);
    const startTurn = turnOf(app.tree[0].fen);
    const offset = startTurn === firstMover ? 0 : 1;
    const out = [];
    pv.forEach((text, i) => {
      const ply = startPly + i + 1;
      const number = Math.floor((ply - 1 + offset) / 2) + 1;
      if (mover === firstMover) out.push(`${number}. ${text}`);
      else out.push(i === 0 ? `${number}… ${text}` : text);
      mover = mover === "white" ? "black" : "white";
    });
    return out.join(" ");
  }

  function renderEngineInfo(msg) {
    app.engineInfo = msg;
    showEngineInfo();
  }

  /* The engine's line, while the position it searched is in the game's line: an undo
     (or a new line) that takes it away clears the line and its evaluation; a redo that
     brings it back shows them again. */
  function showEngineInfo() {
    const msg = app.engineInfo;
    if (!msg || !app.game) return;
    const node = app.tree[lineNode(msg.ply)];
    const applies = msg.pv && msg.pv.length && node && node.ply === msg.ply && node.fen === msg.fen;
    const box = $("engine-line");
    if (!applies) {     // kept: a redo may bring its position back
      box.textContent = "";
      if (!app.analysis.on) setEval(null, "");
      return;
    }
    box.textContent = `damier (depth ${msg.depth}): ${msg.score_text}  ${pvText(msg.fen, msg.ply, msg.pv)}`;
    if (!app.analysis.on) setEval(msg.white_score, msg.score_text);
  }

  function renderAnalysis(msg) {
    if (msg.fen !== app.analysis.fen) return;
    if (msg.lines) {
      app.analysis.lines = msg.lines;
      app.analysis.linesFen = msg.fen;
      const shown = app.tree[app.cursor];
      board.setArrows(reportArrows(shown).concat(analysisArrows(shown)));
      const list = $("analysis-lines");
      list.textContent = "";
      msg.lines.forEach((line) => {
        const li = document.createElement("li");
        const score = document.createElement("span");
        score.className = "score";
        score.textContent = line.score_text;
        li.appendChild(score);
        li.appendChild(document.createTextNode(" " + pvText(msg.fen, msg.ply, line.pv)));
        list.appendChild(li);
      });
      if (msg.lines.length) setEval(msg.lines[0].white_score, msg.lines[0].score_text);
    }
    $("analysis-depth").textContent = (msg.done ? `depth ${msg.depth} (done)` : `depth ${msg.depth}`)
      + (msg.database ? ` · ${msg.database}` : "");
  }

  function requestAnalysis(force) {
    const node = app.tree[app.cursor];
    if (!node || !app.ws || app.ws.readyState !== WebSocket.OPEN) return;
    if (!force && app.analysis.fen === node.fen) return;
    app.analysis.fen = node.fen;
    app.analysis.lines = [];
    app.analysis.linesFen = null;
    $("analysis-lines").textContent = "";
    $("analysis-depth").textContent = "…";
    const message = { type: "analyse", multipv: settings.multipv };
    if (node.in_line) message.ply = node.ply; else message.fen = node.fen;
    app.ws.send(JSON.stringify(message));
  }

  function stopAnalysis() {
    app.analysis.fen = null;
    app.analysis.lines = [];
    const shown = app.tree[app.cursor];
    if (shown) board.setArrows(reportArrows(shown));
    if (app.ws && app.ws.readyState === WebSocket.OPEN) app.ws.send(JSON.stringify({ type: "stop" }));
    $("analysis-lines").textContent = "";
    $("analysis-depth").textContent = "";
  }

  /* -- the WebSocket ---------------------------------------------------------------------------------- */

  function connect(id) {
    if (app.ws) { app.ws.onclose = null; app.ws.onmessage = null; app.ws.close(); }
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/games/${id}`);
    app.ws = ws;
    ws.onopen = () => {
      app.wsRetry = 0;
      if (app.analysis.on) requestAnalysis(true);
      if (app.game) renderStatus();
    };
    ws.onmessage = (event) => {
      if (app.ws !== ws) return;
      let msg;
      try { msg = JSON.parse(event.data); } catch (err) { return; }
      if (msg.type === "state") {
        if (app.game && msg.game.id !== app.game.id) return;
        if (msg.you) msg.game.you = msg.you;
        setGame(msg.game);
        if (msg.draw_offer) showMessage(msg.draw_offer.reason, msg.draw_offer.accepted ? "info" : "error");
        const mine = myOnlySeat();
        if (msg.takeback && mine && msg.takeback.declined_by && msg.takeback.declined_by !== mine) {
          showMessage("Your opponent declined to take the move back.");
        } else if (msg.takeback && mine && msg.takeback.accepted_by && msg.takeback.accepted_by !== mine) {
          showMessage("Your opponent took the move back.", "info");
        } else if (msg.rematch && mine && msg.rematch.declined_by && msg.rematch.declined_by !== mine) {
          showMessage("Your opponent declined the rematch.");
        }
      } else if (msg.type === "engine") {
        if (app.game) { app.game.engine_thinking = msg.thinking; render(); }
      } else if (msg.type === "info") {
        renderEngineInfo(msg);
      } else if (msg.type === "chat") {
        addChat(msg.message);
      } else if (msg.type === "rematch") {
        openRematch(msg.game);
      } else if (msg.type === "analysis") {
        renderAnalysis(msg);
      } else if (msg.type.startsWith("report_")) {
        reportMessage(msg);
      } else if (msg.type === "error") {
        showMessage(msg.error);
      }
    };
    ws.onclose = () => {
      if (app.ws !== ws) return;
      app.wsRetry += 1;
      if (app.game) renderStatus();
      const delay = Math.min(4000, 250 * Math.pow(2, app.wsRetry));
      setTimeout(() => {
        if (app.ws === ws && app.game && app.game.id === id) connect(id);
      }, delay);
    };
  }

  /* -- actions ---------------------------------------------------------------------------------------- */

  async function loadGame(id, opts) {
    const res = await api("GET", `/api/games/${encodeURIComponent(id)}`);
    if (!res.ok) { showMessage(res.data.error); return false; }
    if (app.game && app.game.id === id) app.game = null;
    setGame(res.data, opts);
    return true;
  }

  async function action(path, body, after) {
    if (!app.game) return;
    const res = await api("POST", `/api/games/${app.game.id}/${path}`, body || {});
    if (!res.ok) { showMessage(res.data.error); return; }
    clearMessage();
    setGame(res.data.game || res.data, { follow: true });
    if (after) after(res.data);
  }

  async function copyText(text, what) {
    app.lastCopied = text;
    try { await navigator.clipboard.writeText(text); showMessage(`${what} copied`, "info"); }
    catch (err) { showMessage(`${what}: ${text}`, "info"); }
  }
  $("btn-invite-copy").addEventListener("click", () => copyText($("invite-url").value, "invitation link"));
  $("btn-copy-fen").addEventListener("click", () => copyText($("fen-text").value, "FEN"));
  $("btn-copy-pdn").addEventListener("click", async () => {
    if (!app.game) return;
    let response;
    try { response = await fetch(`/api/games/${app.game.id}/pdn?inline=1`); } catch (err) { response = null; }
    if (!response || !response.ok) { showMessage("the PDN could not be fetched"); return; }
    copyText(await response.text(), "PDN");
  });
  $("btn-watch-link").addEventListener("click", () => {
    if (app.game) copyText(`${location.origin}/#game=${app.game.id}`, "watch link");
  });

  $("btn-undo").addEventListener("click", () => { app.skipAnimation = true; action("undo"); });
  $("btn-redo").addEventListener("click", () => action("redo"));
  $("btn-go").addEventListener("click", () => action("go"));
  $("btn-draw").addEventListener("click", () => action("draw", {}, (data) => {
    showMessage(data.reason, data.accepted ? "info" : "error");
  }));
  let resignTimer = null;
  $("btn-resign").addEventListener("click", () => {
    const button = $("btn-resign");
    if (!button.classList.contains("confirm")) {
      button.classList.add("confirm");
      button.textContent = "Confirm resign";
      resignTimer = setTimeout(() => { button.classList.remove("confirm"); button.textContent = "Resign"; }, 4000);
      return;
    }
    clearTimeout(resignTimer);
    button.classList.remove("confirm");
    button.textContent = "Resign";
    let body = app.game.human === "both" ? { color: app.game.turn } : {};
    if (app.game.two_players && app.you && app.you.seats.length === 1) body = { color: app.you.seats[0] };
    action("resign", body);
  });

  $("nav-first").addEventListener("click", () => setCursor(0));
  $("nav-prev").addEventListener("click", () => setCursor(app.tree[app.cursor].parent));
  $("nav-next").addEventListener("click", () => setCursor(mainChild(app.cursor)));
  $("nav-last").addEventListener("click", () => setCursor(app.live === app.cursor ? lastOfLine(app.cursor) : app.live));
  function lastOfLine(id) {
    let next = mainChild(id);
    while (next !== null) { id = next; next = mainChild(id); }
    return id;
  }
  $("btn-flip").addEventListener("click", () => { app.flipped = !app.flipped; render(); });

  document.addEventListener("keydown", (e) => {
    // typing fields keep their keys; a ticked checkbox (Analyse, options) does not need them
    const typing = e.target && (["TEXTAREA", "SELECT"].includes(e.target.tagName)
      || (e.target.tagName === "INPUT" && !["checkbox", "radio", "button"].includes(e.target.type)));
    if (typing) return;
    if (document.querySelector("dialog[open]")) return;
    if (!app.game) return;
    if (e.key === "ArrowLeft") setCursor(app.tree[app.cursor].parent);
    else if (e.key === "ArrowRight") setCursor(mainChild(app.cursor));
    else if (e.key === "Home") setCursor(0);
    else if (e.key === "End") setCursor(app.live);
    else if (e.key === "f") { app.flipped = !app.flipped; render(); }
    else if (e.key === "Escape") {
      $("choice").hidden = true; board.cancelChoice();
      if (app.premove) { app.premove = null; board.setPremove(null); }
    }
    else return;
    e.preventDefault();
  });

  $("analyse-toggle").addEventListener("change", (e) => {
    app.analysis.on = e.target.checked;
    if (app.analysis.on) requestAnalysis(true); else stopAnalysis();
  });
  $("multipv").value = String(settings.multipv);
  $("multipv").addEventListener("change", (e) => {
    settings.multipv = parseInt(e.target.value, 10);
    saveSettings();
    if (app.analysis.on) requestAnalysis(true);
  });
  $("opt-animate").checked = settings.animate;
  $("opt-animate").addEventListener("change", (e) => {
    settings.animate = e.target.checked; saveSettings(); board.setAnimate(settings.animate);
  });
  $("opt-sound").checked = settings.sound;
  $("opt-sound").addEventListener("change", (e) => {
    settings.sound = e.target.checked; saveSettings();
    if (settings.sound) playSound("move");
  });
  $("opt-premove").checked = settings.premoves;
  $("opt-premove").addEventListener("change", (e) => {
    settings.premoves = e.target.checked; saveSettings();
    if (!settings.premoves) { app.premove = null; board.setPremove(null); render(); }
  });
  $("board").addEventListener("contextmenu", (e) => {
    if (!app.premove && board.preSelected === null) return;
    e.preventDefault();            // a right click drops the premove
    app.premove = null;
    board.setPremove(null);
  });
  $("opt-confirm").checked = settings.confirmMoves;
  $("opt-confirm").addEventListener("change", (e) => {
    settings.confirmMoves = e.target.checked; saveSettings();
    if (!settings.confirmMoves && app.pendingMove) { hideConfirm(); render(); }
  });
  $("opt-theme").value = settings.theme;
  $("opt-theme").addEventListener("change", (e) => {
    settings.theme = e.target.value; applyTheme(); saveSettings();
  });
  $("opt-numbers").checked = settings.numbers;
  $("opt-numbers").addEventListener("change", (e) => {
    settings.numbers = e.target.checked; saveSettings(); board.setShowNumbers(settings.numbers);
  });

  /* -- dialogs ------------------------------------------------------------------------------------------ */

  document.querySelectorAll("dialog [data-close]").forEach((b) => {
    b.addEventListener("click", () => b.closest("dialog").close());
  });

  function fillVariants(select, value) {
    select.textContent = "";
    for (const v of app.variants) {
      const o = document.createElement("option");
      o.value = v.name;
      o.textContent = `${v.title} (${v.size}x${v.size})`;
      select.appendChild(o);
    }
    if (value) select.value = value;
  }

  $("btn-new").addEventListener("click", () => {
    fillVariants($("new-variant"), app.game ? app.game.variant.name : "international");
    openNewGame();
  });
  function openNewGame() {
    $("new-name").value = storedName();
    $("new-error").hidden = true;
    $("dlg-new").showModal();
  }
  $("new-clock").addEventListener("change", () => {
    const custom = $("new-clock").value === "custom";
    $("new-clock-custom-row").hidden = !custom;
    if (custom) $("new-clock-custom").focus();
  });
  function newGameError(text) {
    $("new-error").textContent = text;
    $("new-error").hidden = false;
  }
  $("new-level").addEventListener("input", (e) => { $("new-level-out").textContent = e.target.value; });
  $("form-new").addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = { variant: $("new-variant").value, color: $("new-color").value,
      level: parseInt($("new-level").value, 10), opponent: $("new-opponent").value };
    let clock = $("new-clock").value;
    if (clock === "custom") {
      clock = $("new-clock-custom").value.trim();
      if (!clock) { newGameError("Give the time: minutes each, + seconds added a move (e.g. 8+4)."); return; }
    }
    if (clock) body.clock = clock;
    const name = cleanName($("new-name").value);
    if (name) {
      const problem = nameProblem(name);
      if (problem) { newGameError(problem); return; }
      body.name = name;
    }
    if (body.opponent === "friend" && !["white", "black"].includes(body.color)) {
      newGameError("Against a friend, choose White or Black.");
      return;
    }
    const res = await api("POST", "/api/games", body);
    if (!res.ok) { newGameError(res.data.error); return; }
    if (name) storeName(name);
    $("dlg-new").close();
    app.game = null;
    setGame(res.data);
  });

  async function openGames() {
    const res = await api("GET", "/api/games?limit=200");
    if (!res.ok) { showMessage(res.data.error); return; }
    const body = $("games-table").querySelector("tbody");
    body.textContent = "";
    for (const g of res.data.games) {
      const tr = document.createElement("tr");
      tr.dataset.game = g.id;
      const when = new Date(g.updated_at).toLocaleString();
      const result = g.result === "*" ? "playing" : (g.pdn_result || g.result);
      tr.innerHTML = `<td>${escapeHtml(when)}</td><td>${escapeHtml(g.variant)}</td>` +
        `<td>${escapeHtml(g.white)}</td><td>${escapeHtml(g.black)}</td>` +
        `<td class="moves-count" title="${Number(g.plies)} plies">${Number(g.moves)}</td>` +
        `<td title="${escapeHtml(g.termination_text || "")}">${escapeHtml(result)}</td><td class="row-actions"></td>`;
      const cell = tr.querySelector(".row-actions");
      const add = (label, fn, cls) => {
        const b = document.createElement("button");
        b.type = "button"; b.textContent = label; b.className = cls || "small";
        b.addEventListener("click", fn);
        cell.appendChild(b);
      };
      add("Resume", async () => { $("dlg-games").close(); app.game = null; await loadGame(g.id); });
      add("Replay", async () => { $("dlg-games").close(); app.game = null; await loadGame(g.id, { cursor: "start" }); });
      const a = document.createElement("a");
      a.href = `/api/games/${g.id}/pdn`; a.textContent = "PDN"; a.className = "button small"; a.download = "";
      cell.appendChild(a);
      // Delete asks first: the button turns into "Confirm delete" for a few seconds
      let deleteTimer = null;
      add("Delete", async (e) => {
        const b = e.currentTarget;
        if (!b.classList.contains("confirm")) {
          b.classList.add("confirm");
          b.textContent = "Confirm delete";
          deleteTimer = setTimeout(() => { b.classList.remove("confirm"); b.textContent = "Delete"; }, 4000);
          return;
        }
        clearTimeout(deleteTimer);
        const r = await api("DELETE", `/api/games/${g.id}`);
        if (r.ok) tr.remove(); else showMessage(r.data.error);
      }, "small secondary delete");
      body.appendChild(tr);
    }
    if (!res.data.games.length) body.innerHTML = '<tr><td colspan="7">No games yet.</td></tr>';
    if (!$("dlg-games").open) $("dlg-games").showModal();
  }
  $("btn-games").addEventListener("click", openGames);

  $("btn-import").addEventListener("click", () => {
    $("import-error").hidden = true;
    $("dlg-import").showModal();
  });
  $("import-go").addEventListener("click", async () => {
    const file = $("import-file").files[0];
    const text = $("import-text").value;
    const error = $("import-error");
    let res;
    if (file) {
      if (file.size > IMPORT_LIMIT) {
        error.textContent = `The file is too large (${file.size} bytes; at most ${IMPORT_LIMIT}).`;
        error.hidden = false;
        return;
      }
      res = await api("POST", "/api/import", file, { raw: true });
    } else if (text.trim()) {
      res = await api("POST", "/api/import", { pdn: text });
    } else {
      error.textContent = "Paste PDN text or choose a file.";
      error.hidden = false;
      return;
    }
    if (!res.ok) {
      error.textContent = res.data.error;
      error.hidden = false;
      return;
    }
    $("dlg-import").close();
    $("import-text").value = "";
    $("import-file").value = "";
    app.game = null;
    await loadGame(res.data.first, { cursor: "start" });
    const n = res.data.games.length;
    showMessage(`Imported ${n} game${n === 1 ? "" : "s"}` +
      (res.data.errors.length ? ` (${res.data.errors.length} could not be read: ${res.data.errors[0]})` : "") +
      (n > 1 ? ". The others are in Games." : "."), "info");
  });

  /* -- the position editor --------------------------------------------------------------------------- */

  const editor = {
    board: null, variant: "international", pieces: new Map(), turn: "white",
  };

  function editorVariant() {
    return app.variants.find((v) => v.name === editor.variant) || app.variants[0];
  }

  function editorRender() {
    editor.board.setSize(editorVariant().size, editorVariant().top_left_dark,
      editorVariant().all_squares);
    editor.board.setPosition(editor.pieces);
    $("editor-turn").value = editor.turn;
    $("editor-fen").value = DraughtsFen.format(editor.turn, editor.pieces);
  }

  function editorSquare(square) {
    const choice = document.querySelector('#editor-palette input[name="piece"]:checked').value;
    if (!choice || editor.pieces.get(square) === choice) editor.pieces.delete(square);
    else editor.pieces.set(square, choice);
    $("editor-error").hidden = true;
    editorRender();
  }

  function openEditor() {
    if (!editor.board) {
      editor.board = new DraughtsBoard($("editor-board"), { editor: true, onSquare: editorSquare });
    }
    fillVariants($("editor-variant"), app.game ? app.game.variant.name : "international");
    editor.variant = $("editor-variant").value;
    const fen = app.game ? app.tree[app.cursor].fen : editorVariant().initial_fen;
    const parsed = DraughtsFen.parse(fen);
    editor.pieces = parsed.pieces;
    editor.turn = parsed.turn;
    $("editor-error").hidden = true;
    $("dlg-editor").showModal();
    editorRender();
  }
  $("btn-editor").addEventListener("click", openEditor);
  $("btn-fen-edit").addEventListener("click", openEditor);
  $("editor-variant").addEventListener("change", (e) => {
    editor.variant = e.target.value;
    const parsed = DraughtsFen.parse(editorVariant().initial_fen);
    editor.pieces = parsed.pieces; editor.turn = parsed.turn;
    editorRender();
  });
  $("editor-turn").addEventListener("change", (e) => { editor.turn = e.target.value; editorRender(); });
  $("editor-clear").addEventListener("click", () => { editor.pieces = new Map(); editorRender(); });
  $("editor-start").addEventListener("click", () => {
    const parsed = DraughtsFen.parse(editorVariant().initial_fen);
    editor.pieces = parsed.pieces; editor.turn = parsed.turn;
    editorRender();
  });
  async function editorCheck(fen) {
    const res = await api("POST", "/api/position", { variant: editor.variant, fen });
    const error = $("editor-error");
    if (!res.ok) { error.textContent = res.data.error; error.hidden = false; return null; }
    error.hidden = true;
    return res.data;
  }
  $("editor-load").addEventListener("click", async () => {
    const info = await editorCheck($("editor-fen").value);
    if (!info) return;
    const parsed = DraughtsFen.parse(info.fen);
    editor.pieces = parsed.pieces; editor.turn = parsed.turn;
    editorRender();
  });
  $("editor-fen").addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); $("editor-load").click(); }
  });
  async function editorCreate(color) {
    const fen = DraughtsFen.format(editor.turn, editor.pieces);
    const info = await editorCheck(fen);
    if (!info) return;
    const level = Math.max(1, Math.min(10, parseInt($("editor-level").value, 10) || 5));
    const res = await api("POST", "/api/games", { variant: editor.variant, fen: info.fen, color, level });
    if (!res.ok) { $("editor-error").textContent = res.data.error; $("editor-error").hidden = false; return; }
    $("dlg-editor").close();
    app.game = null;
    setGame(res.data);
    if (color === "both") {
      $("analyse-toggle").checked = true;
      app.analysis.on = true;
      requestAnalysis(true);
    }
  }
  $("editor-analyse").addEventListener("click", () => editorCreate("both"));
  $("editor-play-white").addEventListener("click", () => editorCreate("white"));
  $("editor-play-black").addEventListener("click", () => editorCreate("black"));

  /* -- start ------------------------------------------------------------------------------------------------ */

  setEval(null, "");
  (async function start() {
    const res = await api("GET", "/api/variants");
    app.variants = res.ok ? res.data.variants : [];
    fillVariants($("new-variant"), "international");
    const params = new URLSearchParams(location.hash.slice(1));
    const fromHash = params.get("game");
    if (fromHash && params.get("join")) await joinGame(fromHash, params.get("join"));
    const id = fromHash || localStorage.getItem("damier.lastGame");
    if (id && await loadGame(id)) return;
    clearMessage();
    openNewGame();
  })();

  /* The name dialog: asked once (the answer is kept); "Skip" plays under the colour's name. */
  let nameResolve = null;
  function askName() {
    $("name-input").value = storedName();
    $("name-error").hidden = true;
    $("dlg-name").showModal();
    return new Promise((resolve) => { nameResolve = resolve; });
  }
  function nameAnswer(name) {
    if ($("dlg-name").open) $("dlg-name").close();
    const resolve = nameResolve;
    nameResolve = null;
    if (resolve) resolve(name);
  }
  $("form-name").addEventListener("submit", (e) => {
    e.preventDefault();
    const name = cleanName($("name-input").value);
    const problem = name ? nameProblem(name) : "Give a name, or Skip.";
    if (problem) { $("name-error").textContent = problem; $("name-error").hidden = false; return; }
    storeName(name);
    nameAnswer(name);
  });
  $("name-skip").addEventListener("click", () => nameAnswer(""));
  $("dlg-name").addEventListener("close", () => nameAnswer(""));

  /* A friend's invitation link (#game=ID&join=SECRET): take the open seat, then forget
     the secret (it is spent). */
  async function joinGame(id, secret) {
    const name = storedName() || await askName();
    const body = { invite: secret };
    if (name) body.name = name;
    const res = await api("POST", `/api/games/${encodeURIComponent(id)}/join`, body);
    history.replaceState(null, "", `#game=${id}`);
    if (res.ok) showMessage(`you play ${res.data.joined}`, "info");
    else showMessage(res.data.error);
  }

  window.addEventListener("hashchange", async () => {
    const params = new URLSearchParams(location.hash.slice(1));
    if (params.get("game") && params.get("join")) {
      await joinGame(params.get("game"), params.get("join"));
      app.game = null;
      loadGame(params.get("game"));
      return;
    }
    const id = params.get("game");
    if (id && (!app.game || app.game.id !== id)) { app.game = null; loadGame(id); }
  });

  // Without a live socket, keep the page current while the engine thinks.
  setInterval(async () => {
    if (!app.game || !app.game.engine_thinking) return;
    if (app.ws && app.ws.readyState === WebSocket.OPEN) return;
    const res = await api("GET", `/api/games/${app.game.id}`);
    if (res.ok) setGame(res.data);
  }, 2000);
})();

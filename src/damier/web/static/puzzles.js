/* damier puzzles: positions where one move wins, mined and proven by damier itself.
 * The server judges each move (POST /api/puzzles/{id}/move) and plays the defence;
 * the streak and the player's puzzle rating live in this browser (localStorage). */
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const saved = JSON.parse(localStorage.getItem("damier.puzzles") || "{}");
  const me = { rating: saved.rating || 1200, streak: saved.streak || 0, best: saved.best || 0,
               seen: saved.seen || [] };
  const pz = { puzzle: null, played: [], fen: null, done: false, failed: false };
  window.damierPuzzles = pz;  // for tests

  async function api(method, url, body) {
    const init = { method, headers: {} };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
    let response;
    try { response = await fetch(url, init); } catch (err) {
      return { ok: false, data: { error: "the server cannot be reached" } };
    }
    let data = null;
    try { data = await response.json(); } catch (err) { data = { error: response.statusText }; }
    return { ok: response.ok, status: response.status, data };
  }

  function save() {
    me.seen = me.seen.slice(-200);
    localStorage.setItem("damier.puzzles", JSON.stringify(me));
  }

  function message(text, kind) {
    const box = $("message");
    box.textContent = text || "";
    box.className = `message ${kind || "error"}`;
    box.hidden = !text;
  }

  const board = new DraughtsBoard($("board"), { onMove: (move) => play(move),
    onChoosePath: (candidates) => board.choosePath(0) });
  pz.board = board;
  pz.squarePoint = (square) => {
    const [x, y] = board.centre(square);
    const p = board.svg.createSVGPoint();
    p.x = x; p.y = y;
    const q = p.matrixTransform(board.svg.getScreenCTM());
    return [q.x, q.y];
  };

  async function show(fen, interactive) {
    pz.fen = fen;
    board.setPosition(fen);
    const res = await api("POST", "/api/position", { variant: pz.puzzle.variant, fen });
    const legal = res.ok ? res.data.legal_moves : [];
    board.setLegalMoves(interactive ? legal : [], interactive);
    $("board").dataset.interactive = String(interactive);
  }

  function render() {
    const p = pz.puzzle;
    $("pz-rating").textContent = p.rating;
    $("pz-moves").textContent = `${p.solver_moves} move${p.solver_moves > 1 ? "s" : ""} to find`;
    $("pz-streak").textContent = me.streak;
    $("pz-best").textContent = me.best;
    $("pz-you").textContent = Math.round(me.rating);
    const side = p.solver === "white" ? "White" : "Black";
    let text = `${side} to play and win`;
    if (pz.done) text = "Solved!";
    else if (pz.failed) text = "Not this time: the solution is below";
    $("pz-status").textContent = text;
    $("pz-status").className = pz.done ? "status over" : "status";
    $("pz-top").innerHTML = `<span class="dot ${p.solver === "white" ? "black" : "white"}"></span>`;
    $("pz-bottom").innerHTML = `<span class="dot ${p.solver}"></span><span class="name">You</span>`;
    const line = $("pz-line");
    line.textContent = "";
    for (const m of pz.played) {
      const li = document.createElement("li");
      li.textContent = m;
      line.appendChild(li);
    }
  }

  function score(won) {   // an Elo step against the puzzle's rating
    const expected = 1 / (1 + Math.pow(10, (pz.puzzle.rating - me.rating) / 400));
    me.rating += 32 * ((won ? 1 : 0) - expected);
    me.streak = won ? me.streak + 1 : 0;
    me.best = Math.max(me.best, me.streak);
    save();
  }

  async function play(move) {
    if (pz.done || pz.failed) return;
    const res = await api("POST", `/api/puzzles/${pz.puzzle.id}/move`,
                          { played: pz.played, move: move.text });
    if (!res.ok) { message(res.data.error); return; }
    message("");
    if (!res.data.ok) {
      pz.failed = true;   // the state and its display change together, before the board redraws
      score(false);
      pz.solution = res.data.solution;
      render();
      message(`${move.text} is not it. The solution: ${res.data.solution.join(" ")}`, "error");
      await show(res.data.fen_after_move, false);
      return;
    }
    pz.played.push(move.text);
    await show(res.data.fen_after_move, false);
    if (res.data.solved) {
      pz.done = true;
      score(true);
      render();
      return;
    }
    pz.played.push(res.data.reply);
    render();
    setTimeout(() => show(res.data.fen, true), 350);
  }

  async function load(id) {
    const variant = $("pz-variant").value;
    const url = id ? `/api/puzzles/${encodeURIComponent(id)}` :
      `/api/puzzles/next?variant=${variant}&rating=${Math.round(me.rating)}&seen=${me.seen.slice(-100).join(",")}`;
    const res = await api("GET", url);
    if (!res.ok) { message(res.data.error); return; }
    pz.puzzle = res.data;
    pz.played = [];
    pz.done = pz.failed = false;
    me.seen.push(res.data.id);
    save();
    message("");
    const info = variants.get(res.data.variant);
    board.setSize(info ? info.size : 10, info ? info.top_left_dark : false,
      info ? info.all_squares : false);
    if (info) $("pz-variant").value = res.data.variant;
    board.setFlipped(res.data.solver === "black");
    history.replaceState(null, "", `/puzzles#${res.data.id}`);
    render();
    await show(res.data.fen, true);
    pz.ready = true;
  }

  $("pz-next").addEventListener("click", () => load(null));
  $("pz-variant").addEventListener("change", () => load(null));
  $("pz-hint").addEventListener("click", async () => {
    if (!pz.puzzle || pz.done) return;
    const res = await api("POST", `/api/puzzles/${pz.puzzle.id}/hint`, { played: pz.played });
    if (!res.ok) { message(res.data.error); return; }
    board.select(res.data.from);
    message(`Hint: the piece on ${res.data.from} moves`, "info");
  });
  $("pz-solution").addEventListener("click", async () => {
    if (!pz.puzzle || pz.done) return;
    const res = await api("POST", `/api/puzzles/${pz.puzzle.id}/hint`,
                          { played: pz.played, reveal: true });
    if (!res.ok) { message(res.data.error); return; }
    if (!pz.failed) { pz.failed = true; score(false); }
    message(`The move: ${res.data.move}`, "info");
    render();
  });

  // The variants with shipped puzzles, from the registry (GET /api/variants).
  const variants = new Map();
  async function listVariants() {
    const res = await api("GET", "/api/variants");
    if (!res.ok) return;
    const select = $("pz-variant");
    const chosen = select.value;
    select.textContent = "";
    for (const v of res.data.variants) {
      variants.set(v.name, v);
      if (!v.puzzles) continue;
      const option = document.createElement("option");
      option.value = v.name;
      option.textContent = v.title;
      select.appendChild(option);
    }
    if (variants.has(chosen)) select.value = chosen;
  }

  const fromHash = location.hash.slice(1);
  listVariants().then(() => load(fromHash || null));
})();

/* damier board: an SVG draughts board drawn from scratch (no third-party code).
 *
 * new DraughtsBoard(element, options) draws a size x size board whose dark squares are
 * numbered 1..N row by row from the top left as White sees it (square 46 is White's
 * bottom-left corner on 10x10); with topLeftDark (Italian) the top left square is dark;
 * with allSquares (Turkish) every square is played on, numbered 1..size*size row by row.
 *
 * Options: onMove(move) -- the player picked a legal move (an object of the API's
 * legal_moves list); onIllegal({from, to}) -- an attempt that matches no legal move;
 * onChoosePath(candidates) -- two captures share their start and end squares and the player
 * must pick (the board draws both paths; call choosePath(move) or cancelChoice());
 * onSquare(square) -- editor mode: a square was clicked.
 *
 * Premoves: setPremoveMode("w" | "b" | null) lets the player pick a move of that colour
 * while it is not their turn (a piece, then a square: onPremove({from, to}); a click
 * elsewhere, or on the piece again, calls onPremove(null)); setPremove(premove) shows it.
 *
 * setArrows([{path, kind}]) draws hint arrows over the pieces (a game report's better
 * move; kind "analysis" for the live analysis' lines); setArrows([]) removes them.
 */
(function () {
  "use strict";

  const SVG_NS = "http://www.w3.org/2000/svg";
  const PATH_COLOURS = ["#1f77d0", "#d0401f", "#2a9d3a", "#9b3bc4", "#c08a00", "#138a8a"];

  function el(name, attrs, parent) {
    const node = document.createElementNS(SVG_NS, name);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (parent) parent.appendChild(node);
    return node;
  }

  /* Parses a FEN such as "W:W31-50,K47:B1-20" into {turn, pieces: Map(square -> 'w'|'W'|'b'|'B')}. */
  function parseFen(fen) {
    const pieces = new Map();
    const parts = fen.trim().replace(/\.$/, "").split(":");
    const turn = parts[0].trim().toUpperCase() === "B" ? "black" : "white";
    for (const part of parts.slice(1)) {
      const text = part.trim();
      if (!text) continue;
      const colour = text[0].toUpperCase();
      if (colour !== "W" && colour !== "B") continue;
      for (let token of text.slice(1).split(",")) {
        token = token.trim();
        if (!token) continue;
        let king = false;
        if (token[0] === "K" || token[0] === "k") { king = true; token = token.slice(1); }
        const range = token.split("-");
        const first = parseInt(range[0], 10);
        const last = range.length > 1 ? parseInt(range[1], 10) : first;
        for (let s = first; s <= last; s++) {
          const c = colour === "W" ? "w" : "b";
          pieces.set(s, king ? c.toUpperCase() : c);
        }
      }
    }
    return { turn, pieces };
  }

  /* The FEN of a position: turn 'white'|'black' and a Map square -> piece letter. */
  function formatFen(turn, pieces) {
    const side = (colour) => {
      const squares = [...pieces.entries()].filter(([, p]) => p.toLowerCase() === colour)
        .sort((a, b) => a[0] - b[0]);
      return squares.map(([s, p]) => (p === p.toUpperCase() ? "K" : "") + s).join(",");
    };
    return `${turn === "black" ? "B" : "W"}:W${side("w")}:B${side("b")}`;
  }

  class DraughtsBoard {
    constructor(container, options) {
      this.container = container;
      this.options = Object.assign({
        size: 10, flipped: false, animate: true, showNumbers: true, editor: false,
        onMove: () => {}, onIllegal: () => {}, onChoosePath: () => {}, onSquare: () => {},
        onPremove: () => {},
      }, options || {});
      this.size = this.options.size;
      this.topLeftDark = Boolean(this.options.topLeftDark);
      this.allSquares = Boolean(this.options.allSquares);
      this.flipped = this.options.flipped;
      this.pieces = new Map();
      this.legal = [];
      this.interactive = false;
      this.selected = null;
      this.lastMove = null;
      this.choice = null;
      this.premoveColor = null;
      this.premove = null;
      this.preSelected = null;
      this.drag = null;
      this.animations = [];
      this.arrows = [];
      this.svg = el("svg", { class: "draughts-board", role: "img", "aria-label": "draughts board" });
      container.appendChild(this.svg);
      this.svg.addEventListener("pointerdown", (e) => this._pointerDown(e));
      this.svg.addEventListener("pointermove", (e) => this._pointerMove(e));
      this.svg.addEventListener("pointerup", (e) => this._pointerUp(e));
      this.svg.addEventListener("pointercancel", () => this._cancelDrag());
      this.svg.addEventListener("contextmenu", (e) => e.preventDefault());
      this._build();
    }

    /* -- geometry ------------------------------------------------------------------ */

    get perRow() { return this.allSquares ? this.size : this.size / 2; }

    rowCol(square) {
      const row = Math.floor((square - 1) / this.perRow);
      const pos = (square - 1) % this.perRow;
      const col = this.allSquares ? pos : 2 * pos + ((row % 2 === 0) !== this.topLeftDark ? 1 : 0);
      return this.flipped ? [this.size - 1 - row, this.size - 1 - col] : [row, col];
    }

    centre(square) {
      const [r, c] = this.rowCol(square);
      return [c + 0.5, r + 0.5];
    }

    squareAt(x, y) {
      let r = Math.floor(y), c = Math.floor(x);
      if (r < 0 || c < 0 || r >= this.size || c >= this.size) return null;
      if (this.flipped) { r = this.size - 1 - r; c = this.size - 1 - c; }
      if (this.allSquares) return r * this.size + c + 1;
      if ((r + c) % 2 === (this.topLeftDark ? 1 : 0)) return null;
      return r * this.perRow + Math.floor(c / 2) + 1;
    }

    _eventPoint(e) {
      const ctm = this.svg.getScreenCTM();
      if (!ctm) return [0, 0];
      const p = this.svg.createSVGPoint();
      p.x = e.clientX; p.y = e.clientY;
      const q = p.matrixTransform(ctm.inverse());
      return [q.x, q.y];
    }

    /* -- drawing ------------------------------------------------------------------------ */

    _build() {
      const svg = this.svg;
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      const n = this.size;
      svg.setAttribute("viewBox", `0 0 ${n} ${n}`);
      svg.dataset.size = String(n);
      svg.dataset.flipped = String(this.flipped);
      const defs = el("defs", {}, svg);
      const gw = el("radialGradient", { id: "dm-white", cx: "40%", cy: "35%", r: "70%" }, defs);
      el("stop", { offset: "0%", "stop-color": "#fffdf6" }, gw);
      el("stop", { offset: "100%", "stop-color": "#d9cfb8" }, gw);
      const gb = el("radialGradient", { id: "dm-black", cx: "40%", cy: "35%", r: "70%" }, defs);
      el("stop", { offset: "0%", "stop-color": "#5a5550" }, gb);
      el("stop", { offset: "100%", "stop-color": "#161412" }, gb);
      const marker = el("marker", { id: "dm-arrow", viewBox: "0 0 10 10", refX: "6", refY: "5",
        markerWidth: "3", markerHeight: "3", orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", fill: "context-stroke" }, marker);
      const hint = el("marker", { id: "dm-arrow-hint", viewBox: "0 0 10 10", refX: "5", refY: "5",
        markerWidth: "2.6", markerHeight: "2.6", orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", class: "hint-arrow-head" }, hint);
      const analysis = el("marker", { id: "dm-arrow-analysis", viewBox: "0 0 10 10", refX: "5", refY: "5",
        markerWidth: "2.6", markerHeight: "2.6", orient: "auto-start-reverse" }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", class: "analysis-arrow-head" }, analysis);

      this.layers = {};
      for (const name of ["squares", "marks", "numbers", "paths", "hints", "pieces", "arrows", "choice",
        "drag"]) {
        this.layers[name] = el("g", { class: `layer-${name}` }, svg);
      }
      this.squareEls = new Map();
      for (let r = 0; r < n; r++) {
        for (let c = 0; c < n; c++) {
          const dark = (r + c) % 2 === (this.topLeftDark ? 0 : 1);
          const rect = el("rect", { x: c, y: r, width: 1, height: 1,
            class: (dark ? "sq dark" : "sq light") + (this.allSquares ? " played" : "") },
            this.layers.squares);
          if (dark || this.allSquares) {
            const square = this.squareAt(c + 0.5, r + 0.5);
            rect.dataset.square = String(square);
            this.squareEls.set(square, rect);
            const label = el("text", { x: c + 0.04, y: r + 0.17,
              class: dark ? "sq-number" : "sq-number on-light" }, this.layers.numbers);
            label.textContent = String(square);
          }
        }
      }
      this.layers.numbers.style.display = this.options.showNumbers ? "" : "none";
      this._drawPieces();
      this._drawMarks();
      this._drawArrows();
    }

    setSize(size, topLeftDark = false, allSquares = false) {
      if (size !== this.size || Boolean(topLeftDark) !== this.topLeftDark
          || Boolean(allSquares) !== this.allSquares) {
        this.size = size;
        this.topLeftDark = Boolean(topLeftDark);
        this.allSquares = Boolean(allSquares);
        this.selected = null;
        this._build();
      }
    }

    setFlipped(flipped) {
      if (flipped !== this.flipped) {
        this.flipped = flipped;
        this._build();
      }
    }

    setShowNumbers(show) {
      this.options.showNumbers = show;
      this.layers.numbers.style.display = show ? "" : "none";
    }

    setAnimate(on) { this.options.animate = on; }

    _pieceEl(square, piece, parent) {
      const [x, y] = this.centre(square);
      const white = piece.toLowerCase() === "w";
      const king = piece === piece.toUpperCase();
      const g = el("g", { class: `piece ${white ? "white" : "black"}${king ? " king" : ""}`,
        transform: `translate(${x} ${y})` }, parent);
      g.dataset.square = String(square);
      g.dataset.piece = piece;
      el("circle", { r: 0.4, class: "disc", fill: white ? "url(#dm-white)" : "url(#dm-black)" }, g);
      el("circle", { r: 0.3, class: "rim" }, g);
      el("circle", { r: 0.18, class: "rim inner" }, g);
      if (king) {
        el("path", { class: "crown", d: "M-0.2,0.1 L-0.22,-0.12 L-0.11,-0.02 L0,-0.17 L0.11,-0.02 " +
          "L0.22,-0.12 L0.2,0.1 Z" }, g);
      }
      return g;
    }

    _drawPieces() {
      const layer = this.layers.pieces;
      while (layer.firstChild) layer.removeChild(layer.firstChild);
      this.pieceEls = new Map();
      for (const [square, piece] of this.pieces) {
        this.pieceEls.set(square, this._pieceEl(square, piece, layer));
      }
    }

    _clear(layer) {
      while (layer.firstChild) layer.removeChild(layer.firstChild);
    }

    _pathPoints(path, shift) {
      const dx = shift || 0;
      return path.map((s) => { const [x, y] = this.centre(s); return `${x + dx},${y}`; }).join(" ");
    }

    _drawMarks() {
      const marks = this.layers.marks, hints = this.layers.hints, paths = this.layers.paths;
      this._clear(marks); this._clear(hints); this._clear(paths);
      for (const rect of this.squareEls.values()) {
        rect.classList.remove("last", "selected", "premove");
      }
      if (this.lastMove && !this.options.editor) {
        for (const s of [this.lastMove.from, this.lastMove.to]) {
          const rect = this.squareEls.get(s);
          if (rect) rect.classList.add("last");
        }
        if (this.lastMove.captures && this.lastMove.captures.length) {
          el("polyline", { points: this._pathPoints(this.lastMove.path), class: "last-path",
            "marker-end": "url(#dm-arrow)" }, paths);
        }
      }
      if (this.premove && !this.options.editor) {
        for (const s of [this.premove.from, this.premove.to]) {
          const rect = this.squareEls.get(s);
          if (rect) rect.classList.add("premove");
        }
      }
      if (this.preSelected !== null) {
        const rect = this.squareEls.get(this.preSelected);
        if (rect) rect.classList.add("premove");
      }
      if (!this.interactive || this.choice) return;
      const mustCapture = this.legal.length > 0 && this.legal.every((m) => m.captures.length);
      if (mustCapture && this.selected === null) {
        const from = new Set(this.legal.map((m) => m.from));
        for (const s of from) {
          const [x, y] = this.centre(s);
          el("circle", { cx: x, cy: y, r: 0.46, class: "capturer" }, marks);
        }
      }
      if (this.selected !== null) {
        const rect = this.squareEls.get(this.selected);
        if (rect) rect.classList.add("selected");
        const moves = this.legal.filter((m) => m.from === this.selected);
        const seen = new Set();
        for (const m of moves) {
          if (m.captures.length) {
            el("polyline", { points: this._pathPoints(m.path), class: "capture-path",
              "marker-end": "url(#dm-arrow)" }, paths);
            for (const c of m.captures) {
              const [x, y] = this.centre(c);
              el("path", { d: `M${x - 0.15},${y - 0.15} L${x + 0.15},${y + 0.15} M${x + 0.15},${y - 0.15} ` +
                `L${x - 0.15},${y + 0.15}`, class: "captured-mark" }, hints);
            }
          }
          if (!seen.has(m.to)) {
            seen.add(m.to);
            const [x, y] = this.centre(m.to);
            const dot = el("circle", { cx: x, cy: y, r: 0.16, class: "dest" }, hints);
            dot.dataset.square = String(m.to);
          }
        }
      }
    }

    /* -- state ------------------------------------------------------------------------------ */

    /* pieces: a Map or a FEN; move (optional): the move that led here, animated. */
    setPosition(pieces, move) {
      if (typeof pieces === "string") pieces = parseFen(pieces).pieces;
      const before = this.pieces;
      this.pieces = new Map(pieces);
      this._stopAnimations();
      // a new position ends any choice between captures of the old one
      this.choice = null;
      this._clear(this.layers.choice);
      this.selected = this.selected !== null && this.pieces.has(this.selected) ? this.selected : null;
      this._drawPieces();
      if (move && this.options.animate && before.has(move.from) && this.pieces.has(move.to)) {
        this._animate(move, before);
      }
      this._drawMarks();
    }

    setLegalMoves(moves, interactive) {
      this.legal = moves || [];
      this.interactive = !!interactive;
      if (this.selected !== null && !this.legal.some((m) => m.from === this.selected)) this.selected = null;
      if (!this.interactive) this.selected = null;
      // a choice between captures with the same ends survives a redraw of the same position
      const pending = this.choice;
      const still = pending && this.interactive
        ? pending.map((c) => this.legal.find((m) => m.text === c.text)) : [];
      if (pending && still.length && still.every(Boolean)) {
        this.showChoice(still);
        return;
      }
      this.choice = null;
      this._clear(this.layers.choice);
      this._drawMarks();
    }

    get choosing() { return this.choice !== null; }

    /* arrows: [{path: [squares], kind: "best"}], drawn above the pieces. */
    setArrows(arrows) {
      const list = arrows || [];
      const key = JSON.stringify(list);
      if (key === this._arrowsKey) return;
      this._arrowsKey = key;
      this.arrows = list;
      this._drawArrows();
    }

    _drawArrows() {
      const layer = this.layers.arrows;
      this._clear(layer);
      for (const a of this.arrows) {
        if (!a.path || a.path.length < 2) continue;
        const line = el("polyline", { points: this._pathPoints(a.path),
          class: `hint-arrow ${a.kind || ""}`, "marker-end": /\banalysis\b/.test(a.kind || "") ? "url(#dm-arrow-analysis)" : "url(#dm-arrow-hint)" }, layer);
        line.dataset.from = String(a.path[0]);
        line.dataset.to = String(a.path[a.path.length - 1]);
        const [x, y] = this.centre(a.path[0]);
        el("circle", { cx: x, cy: y, r: 0.12, class: `hint-arrow-start ${a.kind || ""}` }, layer);
      }
    }

    setLastMove(move) {
      this.lastMove = move || null;
      this._drawMarks();
    }

    select(square) {
      this.selected = square;
      this._drawMarks();
    }

    /* -- animation ------------------------------------------------------------------------ */

    _stopAnimations() {
      for (const a of this.animations) a.cancel();
      this.animations = [];
    }

    _animate(move, before) {
      const g = this.pieceEls.get(move.to);
      if (!g) return;
      const points = move.path.map((s) => this.centre(s));
      const ghosts = [];
      for (const c of move.captures || []) {
        const piece = before.get(c);
        if (piece) {
          const ghost = this._pieceEl(c, piece, this.layers.pieces);
          ghost.classList.add("ghost");
          ghosts.push(ghost);
        }
      }
      this.layers.pieces.appendChild(g);  // the moving piece above the others
      const segment = 160;
      const total = segment * (points.length - 1);
      const start = performance.now();
      let frame = 0;
      let cancelled = false;
      const finish = () => {
        const [x, y] = points[points.length - 1];
        g.setAttribute("transform", `translate(${x} ${y})`);
        for (const ghost of ghosts) ghost.remove();
      };
      const step = (now) => {
        if (cancelled) return;
        const t = Math.max(0, Math.min(1, (now - start) / total));
        const pos = t * (points.length - 1);
        const i = Math.min(points.length - 2, Math.floor(pos));
        const f = pos - i;
        const eased = f < 0.5 ? 2 * f * f : 1 - Math.pow(-2 * f + 2, 2) / 2;
        const x = points[i][0] + (points[i + 1][0] - points[i][0]) * eased;
        const y = points[i][1] + (points[i + 1][1] - points[i][1]) * eased;
        g.setAttribute("transform", `translate(${x} ${y})`);
        ghosts.forEach((ghost) => ghost.setAttribute("opacity", String(1 - t)));
        if (t < 1) frame = requestAnimationFrame(step); else finish();
      };
      frame = requestAnimationFrame(step);
      this.animations.push({ cancel: () => { cancelled = true; cancelAnimationFrame(frame); finish(); } });
    }

    /* -- choosing between captures with the same ends ----------------------------------- */

    showChoice(candidates) {
      this.choice = candidates;
      const layer = this.layers.choice;
      this._clear(layer);
      this._drawMarks();
      candidates.forEach((m, i) => {
        const colour = PATH_COLOURS[i % PATH_COLOURS.length];
        // paths that share squares are drawn side by side
        const shift = (i - (candidates.length - 1) / 2) * 0.14;
        const line = el("polyline", { points: this._pathPoints(m.path, shift), class: "choice-path",
          stroke: colour, "marker-end": "url(#dm-arrow)" }, layer);
        line.dataset.index = String(i);
        m.path.slice(1, -1).forEach((s) => {
          const [x, y] = this.centre(s);
          const dot = el("circle", { cx: x + shift, cy: y, r: 0.13, fill: colour, class: "choice-stop" }, layer);
          dot.dataset.index = String(i);
        });
        m.captures.forEach((c) => {
          const [x, y] = this.centre(c);
          const ring = el("circle", { cx: x, cy: y, r: 0.42 - 0.05 * i, stroke: colour, class: "choice-capture" }, layer);
          ring.dataset.index = String(i);
        });
      });
    }

    cancelChoice() {
      this.choice = null;
      this._clear(this.layers.choice);
      this._drawMarks();
    }

    choosePath(index) {
      if (!this.choice) return;
      const move = this.choice[index];
      this.cancelChoice();
      this.selected = null;
      if (move) this.options.onMove(move);
    }

    /* -- input -------------------------------------------------------------------------------- */

    /* colour: "w" or "b", the player's, while it is the other side's turn; null: off. */
    setPremoveMode(colour) {
      if (colour === this.premoveColor) return;
      this.premoveColor = colour || null;
      this.preSelected = null;
      this._drawMarks();
    }

    setPremove(premove) {
      this.premove = premove || null;
      this.preSelected = null;
      this._drawMarks();
    }

    _premoveClick(square) {
      const piece = this.pieces.get(square);
      const own = piece !== undefined && piece.toLowerCase() === this.premoveColor;
      if (this.preSelected === null || square === this.preSelected) {
        const had = this.premove !== null || this.preSelected !== null;
        this.preSelected = own && square !== this.preSelected ? square : null;
        this.premove = null;
        this._drawMarks();
        if (had) this.options.onPremove(null);
        return;
      }
      if (own) { this.preSelected = square; this._drawMarks(); return; }
      const premove = { from: this.preSelected, to: square };
      this.preSelected = null;
      this.premove = premove;
      this._drawMarks();
      this.options.onPremove(premove);
    }

    _ownMovable(square) {
      return this.legal.some((m) => m.from === square);
    }

    _attempt(from, to) {
      const candidates = this.legal.filter((m) => m.from === from && m.to === to);
      if (candidates.length === 1) {
        this.selected = null;
        this._drawMarks();
        this.options.onMove(candidates[0]);
      } else if (candidates.length > 1) {
        this.showChoice(candidates);
        this.options.onChoosePath(candidates);
      } else {
        this.selected = null;
        this._drawMarks();
        this.options.onIllegal({ from, to });
      }
    }

    _pointerDown(e) {
      if (e.button !== undefined && e.button !== 0) return;
      const [x, y] = this._eventPoint(e);
      const square = this.squareAt(x, y);
      if (this.options.editor) {
        if (square !== null) this.options.onSquare(square, e);
        return;
      }
      if (this.choice) {
        const target = e.target && e.target.dataset ? e.target.dataset.index : undefined;
        if (target !== undefined) { this.choosePath(parseInt(target, 10)); return; }
        // a click on a square that only one of the paths visits picks that path
        if (square !== null) {
          const hits = this.choice.map((m, i) => [m, i]).filter(([m]) => m.path.slice(1, -1).includes(square) ||
            m.captures.includes(square));
          const only = hits.filter(([m]) => !this.choice.every((o) => o.path.includes(square) || o.captures.includes(square)));
          if (only.length === 1) { this.choosePath(only[0][1]); return; }
        }
        this.cancelChoice();
        this.options.onChoosePath(null);
        return;
      }
      if (!this.interactive && this.premoveColor && square !== null) {
        this._premoveClick(square);
        return;
      }
      if (!this.interactive || square === null) return;
      if (this.selected !== null && square !== this.selected && !this._ownMovable(square)) {
        this._attempt(this.selected, square);
        return;
      }
      if (this._ownMovable(square)) {
        const wasSelected = this.selected === square;
        this.selected = square;
        this._drawMarks();
        this.drag = { from: square, x0: x, y0: y, moved: false, pointer: e.pointerId, wasSelected };
        try { this.svg.setPointerCapture(e.pointerId); } catch (err) { /* ignore */ }
        e.preventDefault();
        return;
      }
      if (this.pieces.has(square)) {
        this.options.onIllegal({ from: square, to: null });
      }
    }

    _pointerMove(e) {
      if (!this.drag) return;
      const [x, y] = this._eventPoint(e);
      const d = this.drag;
      if (!d.moved && Math.hypot(x - d.x0, y - d.y0) < 0.2) return;
      if (!d.moved) {
        d.moved = true;
        const g = this.pieceEls.get(d.from);
        if (g) {
          d.el = g;
          g.classList.add("dragging");
          this.layers.drag.appendChild(g);
        }
      }
      if (d.el) d.el.setAttribute("transform", `translate(${x} ${y})`);
    }

    _pointerUp(e) {
      const d = this.drag;
      if (!d) return;
      this.drag = null;
      try { this.svg.releasePointerCapture(e.pointerId); } catch (err) { /* ignore */ }
      if (!d.moved) {
        // a click: the piece stays selected; a second click plays a capture that ends where it began
        if (d.wasSelected && this.legal.some((m) => m.from === d.from && m.to === d.from)) {
          this._attempt(d.from, d.from);
        }
        return;
      }
      const [x, y] = this._eventPoint(e);
      const square = this.squareAt(x, y);
      this._restoreDragged(d);
      if (square !== null && square !== d.from) this._attempt(d.from, square);
    }

    _restoreDragged(d) {
      if (d.el) {
        d.el.classList.remove("dragging");
        const [cx, cy] = this.centre(d.from);
        d.el.setAttribute("transform", `translate(${cx} ${cy})`);
        this.layers.pieces.appendChild(d.el);
      }
    }

    _cancelDrag() {
      if (this.drag) this._restoreDragged(this.drag);
      this.drag = null;
    }
  }

  window.DraughtsBoard = DraughtsBoard;
  window.DraughtsFen = { parse: parseFen, format: formatFen };
})();

# Included by _core.pyx (last of the search files): the Python-facing side of the
# search: the Searcher's allocation, the SearchCore class that damier.engine drives,
# and the module functions over the evaluation and the search.

# ---------------------------------------------------------------------------
# Python objects: the search state of an engine
# ---------------------------------------------------------------------------

cdef Searcher* new_searcher() noexcept:
    cdef Searcher* s = <Searcher*>calloc(1, sizeof(Searcher))
    if s == NULL:
        return NULL
    s.buf = <CMove*>malloc(MAXPLY * MAXMOVES * sizeof(CMove))
    s.order = <int*>malloc(MAXPLY * MAXMOVES * sizeof(int))
    s.ecache = <uint64_t*>calloc(ECACHE_SIZE, sizeof(uint64_t))
    s.conthist = <int32_t*>calloc(CONT_SIZE, sizeof(int32_t))
    if s.buf == NULL or s.order == NULL or s.ecache == NULL or s.conthist == NULL:
        free(s.buf)
        free(s.order)
        free(s.ecache)
        free(s.conthist)
        free(s)
        return NULL
    fill_lmr(s.lmr, DEFAULT_LMR_DIVISOR, 0)
    default_selectivity(&s.sel)
    s.pc_skip = -1
    return s


cdef void free_searcher(Searcher* s) noexcept:
    if s != NULL:
        free(s.buf)
        free(s.order)
        free(s.ecache)
        free(s.conthist)
        free(s.helpers)
        free(s)


cdef void clear_heuristics(Searcher* s) noexcept nogil:
    memset(s.history, 0, sizeof(s.history))
    memset(s.conthist, 0, CONT_SIZE * sizeof(int32_t))
    memset(s.killers, 0, sizeof(s.killers))


cdef void age_history(Searcher* s) noexcept nogil:
    """The history of earlier searches counts an eighth in a new one."""
    cdef int i, j, k
    for i in range(2):
        for j in range(64):
            for k in range(64):
                s.history[i][j][k] //= 8
    if s.sel.cont_history:
        for i in range(CONT_HALF if s.sel.cont_history == 1 else CONT_SIZE):
            s.conthist[i] //= 8


cdef void reset_search(Searcher* s, int root_n) noexcept nogil:
    """A new search's counters, limits (none), killers (none) and root moves (none
    left out, none scored)."""
    cdef int i
    s.stop = 0
    s.nodes = 0
    s.eg_hits = 0
    s.seldepth = 0
    s.node_limit = 0
    s.deadline = 0
    memset(s.killers, 0, sizeof(s.killers))
    if s.ev.serial != s.ecache_serial or s.g.variant != s.ecache_variant:
        memset(s.ecache, 0, ECACHE_SIZE * sizeof(uint64_t))
        s.ecache_serial = s.ev.serial
        s.ecache_variant = s.g.variant
    s.root_n = root_n
    s.root_best = -1
    for i in range(root_n):
        s.root_skip[i] = 0
        s.root_score[i] = 0


cdef void share_search(Searcher* h, const Searcher* s) noexcept nogil:
    """A helper thread's copy of the main search's setting (the variant, the weights,
    the endgame tables, the draw rules, the game's keys), reset for a new search."""
    h.g = s.g
    h.ev = s.ev
    h.eg = s.eg
    h.eg_pieces = s.eg_pieces
    h.king_draw_plies = s.king_draw_plies
    memcpy(h.end_plies, s.end_plies, sizeof(s.end_plies))
    h.tt_gen = s.tt_gen
    h.base = s.base
    memcpy(h.keys, s.keys, (s.base + 1) * sizeof(uint64_t))
    reset_search(h, s.root_n)


cdef class SearchCore:
    """The compiled search: transposition table, move-ordering tables and the
    search itself. :class:`damier.engine.Engine` drives it; one search at a time.

    With helper threads (:meth:`set_threads`), the search is a lazy SMP search:
    the helpers search the same root, a ply deeper every other one, and share
    what they find through the transposition table; the main search decides.
    """

    cdef Searcher* s
    cdef TTEntry* tt
    cdef uint64_t tt_entries
    cdef Searcher* helpers[MAX_HELPERS]
    cdef int nhelpers
    cdef list own_weights    # EvalWeights of this search only, by variant (None: the loaded ones)
    cdef object _active      # the EvalWeights the current search reads (kept alive while it runs)
    cdef Pos _root
    cdef int _rev
    cdef int _ecls
    cdef int _eply
    cdef int _last_variant
    cdef object _eg_tables   # the EgTables the searches probe (None: none)
    cdef int _eg_pieces

    def __cinit__(self, int hash_mb=64):
        self.s = new_searcher()
        if self.s == NULL:
            raise MemoryError()
        self.s.helpers = <void**>calloc(MAX_HELPERS, sizeof(void*))
        if self.s.helpers == NULL:
            raise MemoryError()
        self.nhelpers = 0
        self._last_variant = -1
        self.own_weights = [None] * MAX_VARIANTS
        self._eg_tables = None
        self._eg_pieces = 0
        self.tt = NULL
        self.set_hash(hash_mb)

    def __dealloc__(self):
        cdef int i
        for i in range(self.nhelpers):
            free_searcher(self.helpers[i])
        free_searcher(self.s)
        if self.tt != NULL:
            free(self.tt)

    def set_lmr(self, double divisor):
        """Late-move reductions: ``log(depth) * log(move number) / divisor`` plies."""
        cdef int i
        if divisor <= 0:
            raise ValueError("divisor must be positive")
        fill_lmr(self.s.lmr, divisor, self.s.sel.lmr_step)
        self.s.sel.lmr_divisor = divisor
        for i in range(self.nhelpers):
            fill_lmr(self.helpers[i].lmr, divisor, self.s.sel.lmr_step)
            self.helpers[i].sel.lmr_divisor = divisor

    def set_pruning(self, moves_by_depth):
        """Late-move pruning: at depth ``d`` (1 to 7) of a non-PV node, quiet
        moves after the first ``moves_by_depth[d - 1]`` are skipped when they
        give the opponent no capture; 0 (or a shorter list) leaves a depth alone."""
        cdef int d, i
        values = [int(x) for x in moves_by_depth]
        if len(values) > LMP_DEPTHS - 1 or any(x < 0 for x in values):
            raise ValueError(f"expected at most {LMP_DEPTHS - 1} move counts, none negative")
        for d in range(LMP_DEPTHS):
            self.s.lmp[d] = values[d - 1] if 1 <= d <= len(values) else 0
            for i in range(self.nhelpers):
                self.helpers[i].lmp[d] = self.s.lmp[d]

    def set_selectivity(self, *, single_reply=None, single_reply_depth=None, capture_ext=None,
                        capture_ext_depth=None, probcut=None,
                        probcut_margin=None, probcut_depth=None, probcut_reduction=None,
                        probcut_percent=None, probcut_margin_ply=None, singular=None,
                        singular_nonpv=None, singular_depth=None, singular_margin=None,
                        threat_qsearch=None, shot_qsearch=None, shot_margin=None, history=None, lmr_depth=None,
                        lmr_move=None, lmr_divisor=None, lmr_step=None, lmr_forcing=None, lmp=None,
                        tt_first=None, iir=None, rfp=None, rfp_margin=None,
                        sac_prune=None, sac_reduce=None, cont_history=None, history_bonus=None,
                        promo_qsearch=None, lmr_threat=None, threat_order=None,
                        lmr_improving=None, aspiration=None):
        """Sets the search's selectivity switches and their parameters (None:
        unchanged) and returns them all (see :attr:`selectivity`); what each does:
        :meth:`damier.engine.Engine.set_selectivity`."""
        cdef Selectivity sel = self.s.sel
        cdef int i
        if single_reply is not None:
            sel.single_reply = 1 if single_reply else 0
        if single_reply_depth is not None:
            sel.single_reply_depth = _whole(single_reply_depth, "single_reply_depth", 1, 63)
        if capture_ext is not None:
            sel.capture_ext = 1 if capture_ext else 0
        if capture_ext_depth is not None:
            sel.capture_ext_depth = _whole(capture_ext_depth, "capture_ext_depth", 0, 63)
        _set_probcut_singular(&sel, probcut, probcut_margin, probcut_depth, probcut_reduction,
                              probcut_percent, probcut_margin_ply, singular, singular_nonpv,
                              singular_depth, singular_margin)
        _set_quiescence(&sel, threat_qsearch, shot_qsearch, shot_margin, promo_qsearch)
        if history is not None:
            sel.history = _whole(history, "history", 0, 2)
        if lmr_depth is not None:
            sel.lmr_depth = _whole(lmr_depth, "lmr_depth", 1, 64)
        if lmr_move is not None:
            sel.lmr_move = _whole(lmr_move, "lmr_move", 1, 64)
        if lmr_divisor is not None:
            if isinstance(lmr_divisor, bool) or not isinstance(lmr_divisor, (int, float)):
                raise TypeError(f"lmr_divisor must be a number, not {type(lmr_divisor).__name__}")
            if not 0.25 <= lmr_divisor <= 100:
                raise ValueError(f"lmr_divisor must be between 0.25 and 100, got {lmr_divisor}")
        if lmr_step is not None:
            sel.lmr_step = _whole(lmr_step, "lmr_step", 0, 64)
        if lmr_forcing is not None:
            sel.lmr_forcing = _whole(lmr_forcing, "lmr_forcing", 0, 8)
        if lmp is not None:
            sel.lmp = _whole(lmp, "lmp", 0, 64)
        if tt_first is not None:
            sel.tt_first = 1 if tt_first else 0
        if history_bonus is not None:
            sel.history_bonus = _whole(history_bonus, "history_bonus", 1, 10000)
        if cont_history is not None:
            cont_history = (int(cont_history) if isinstance(cont_history, bool)
                            else cont_history)
            sel.cont_history = _whole(cont_history, "cont_history", 0, 2)
        if iir is not None:
            sel.iir = _whole(iir, "iir", 0, 63)
        if rfp is not None:
            sel.rfp = _whole(rfp, "rfp", 0, 63)
        if rfp_margin is not None:
            sel.rfp_margin = _whole(rfp_margin, "rfp_margin", 0, 10000)
        if sac_prune is not None:
            sel.sac_prune = _whole(sac_prune, "sac_prune", 0, 63)
        if sac_reduce is not None:
            sel.sac_reduce = _whole(sac_reduce, "sac_reduce", 0, 8)
        if lmr_threat is not None:
            sel.lmr_threat = _whole(lmr_threat, "lmr_threat", 0, 8)
        if threat_order is not None:
            sel.threat_order = 1 if threat_order else 0
        if lmr_improving is not None:
            sel.lmr_improving = _whole(lmr_improving, "lmr_improving", 0, 8)
        if aspiration is not None:
            sel.aspiration = _whole(aspiration, "aspiration", 0, 10000)
        self.s.sel = sel
        for i in range(self.nhelpers):
            self.helpers[i].sel = sel
        if lmr_divisor is not None or lmr_step is not None:
            self.set_lmr(float(sel.lmr_divisor if lmr_divisor is None else lmr_divisor))
        if lmp is not None:
            self.set_pruning([sel.lmp + d * d if sel.lmp else 0
                              for d in range(1, LMP_SEL_DEPTH + 1)])
        return self.selectivity

    @property
    def selectivity(self) -> dict:
        """The selectivity switches and their parameters (:meth:`set_selectivity`)."""
        return _selectivity_dict(&self.s.sel)

    def set_threads(self, int threads):
        """Searches with ``threads`` threads: the main one and ``threads - 1`` helpers."""
        cdef int i
        cdef Searcher* h
        if not 1 <= threads <= MAX_HELPERS + 1:
            raise ValueError(f"threads must be between 1 and {MAX_HELPERS + 1}")
        while self.nhelpers > threads - 1:
            self.nhelpers -= 1
            free_searcher(self.helpers[self.nhelpers])
            self.helpers[self.nhelpers] = NULL
        while self.nhelpers < threads - 1:
            h = new_searcher()
            if h == NULL:
                raise MemoryError()
            memcpy(h.lmr, self.s.lmr, sizeof(h.lmr))
            memcpy(h.lmp, self.s.lmp, sizeof(h.lmp))
            h.sel = self.s.sel
            h.tt = self.tt
            h.tt_mask = self.s.tt_mask
            self.helpers[self.nhelpers] = h
            self.nhelpers += 1
        for i in range(self.nhelpers):
            self.s.helpers[i] = self.helpers[i]
        self.s.nhelpers = 0   # counted in node limits only while helpers run

    @property
    def threads(self) -> int:
        return self.nhelpers + 1

    def set_hash(self, int hash_mb):
        """Resizes (and clears) the transposition table to at most ``hash_mb`` MiB."""
        cdef uint64_t entries = 1
        cdef int i
        cdef TTEntry* table
        if hash_mb < 1:
            raise ValueError("hash size must be at least 1 MiB")
        while entries * 2 * sizeof(TTEntry) <= (<uint64_t>hash_mb) * 1024 * 1024:
            entries *= 2
        # the new table first: when it cannot be had, the old one stays in use
        table = <TTEntry*>alloc_table(entries * sizeof(TTEntry))
        if table == NULL:
            raise MemoryError(f"cannot allocate a hash table of {hash_mb} MiB "
                              "(the table in use is kept)")
        if self.tt != NULL:
            free(self.tt)
        self.tt = table
        self.tt_entries = entries
        self.s.tt = self.tt
        self.s.tt_mask = entries - 1
        for i in range(self.nhelpers):
            self.helpers[i].tt = self.tt
            self.helpers[i].tt_mask = entries - 1

    @property
    def hash_entries(self) -> int:
        return self.tt_entries

    def set_weights(self, EvalWeights weights):
        """Evaluation weights of this search only, for their variant (see
        ``set_eval_weights``)."""
        self.own_weights[weights.variant_index] = weights

    def set_egdb(self, tables, int pieces=EG_MAX_PIECES):
        """Endgame tables for the searches to probe (an ``EgTables``; None: none), at
        positions of at most ``pieces`` pieces. They are probed in searches of their
        variant only."""
        if tables is not None and not isinstance(tables, EgTables):
            raise TypeError(f"expected EgTables or None, not {type(tables).__name__}")
        if not 0 <= pieces <= EG_MAX_PIECES:
            raise ValueError(f"pieces must be between 0 and {EG_MAX_PIECES}, got {pieces}")
        self._eg_tables = tables
        self._eg_pieces = pieces if tables is not None else 0

    @property
    def egdb_hits(self) -> int:
        """Endgame-table probes whose value the last search used, every thread's."""
        cdef uint64_t total = self.s.eg_hits
        cdef int i
        for i in range(self.nhelpers):
            total += self.helpers[i].eg_hits
        return total

    def clear_weights(self):
        """Back to the weights loaded for every engine (``set_eval_weights``)."""
        self.own_weights = [None] * MAX_VARIANTS

    def clear(self):
        """Forgets everything learnt: the transposition table and move-ordering tables."""
        cdef int i
        memset(self.tt, 0, self.tt_entries * sizeof(TTEntry))
        clear_heuristics(self.s)
        for i in range(self.nhelpers):
            clear_heuristics(self.helpers[i])

    def stop(self):
        """Asks the running search to stop (safe from another thread)."""
        cdef int i
        self.s.stop = 1
        for i in range(self.nhelpers):
            self.helpers[i].stop = 1

    def stop_helpers(self):
        """Stops the helper threads (the main search goes on)."""
        cdef int i
        for i in range(self.nhelpers):
            self.helpers[i].stop = 1

    def new_search(self, CoreBoard board, history_keys, int rev, int king_draw_plies,
                   end_limits=(0, 0, 0, 0, 0, 0), int end_plies_done=0):
        """Prepares a search of ``board``'s position. ``history_keys`` are the
        keys of the earlier positions since the last irreversible move (oldest
        first), ``rev`` the number of reversible plies before the position.
        ``end_limits`` are the plies that draw under the five-move, sixteen-move,
        (Russian) three-kings, (Frisian) two-kings and king-against-king and
        (Turkish) one-piece-each rules (0: off), and ``end_plies_done`` the plies
        already played in the root's endgame class."""
        cdef Searcher* s = self.s
        cdef int i, n, overflow = 0
        keys = list(history_keys)[-MAX_GAME_KEYS:]
        limits = list(end_limits)
        if len(limits) != END_ONE_EACH:
            raise ValueError(f"end_limits must give {END_ONE_EACH} limits")
        s.g = board._g
        if s.g.variant != self._last_variant:
            # Move-ordering statistics of another game mean nothing here.
            clear_heuristics(s)
            for i in range(self.nhelpers):
                clear_heuristics(self.helpers[i])
            self._last_variant = s.g.variant
        _use_weights_and_tables(self)
        s.king_draw_plies = king_draw_plies
        s.end_plies[0] = 0
        for i in range(1, END_SLOTS):
            s.end_plies[i] = max(0, int(limits[i - 1])) if i <= END_ONE_EACH else 0
            if s.end_plies[i]:
                s.end_plies[0] = 1
        s.tt_gen = <uint8_t>((s.tt_gen + 1) & 255)
        s.base = len(keys)
        for i in range(len(keys)):
            s.keys[i] = <uint64_t>keys[i]
        s.keys[s.base] = hash_pos(s.g, &board._pos)
        age_history(s)
        n = gen_moves(s.g, &board._pos, s.buf, 0, &overflow)
        reset_search(s, n)
        s.nhelpers = 0
        self._root = board._pos
        self._rev = rev
        self._ecls = end_class(s, &board._pos) if s.end_plies[0] else END_NONE
        self._eply = end_plies_done if self._ecls else 0
        for i in range(self.nhelpers):
            share_search(self.helpers[i], s)
        return n

    def root_moves(self):
        """The legal moves at the root, in the order the search indexes them."""
        cdef int overflow = 0
        cdef int n = gen_moves(self.s.g, &self._root, _SCRATCH, 0, &overflow)
        return [_move_from_c(self.s.g, &_SCRATCH[i]) for i in range(n)]

    def move_order(self):
        """The indices of the root moves (:meth:`root_moves`) in the order the search
        picks the moves of a node below the root without a TT move (``order_moves`` at
        ply 1, with the killers and history the core holds now): a view for tests."""
        cdef int overflow = 0, i
        cdef int n = gen_moves(self.s.g, &self._root, _SCRATCH, 0, &overflow)
        cdef int order[MAXMOVES]
        order_moves(self.s, &self._root, _SCRATCH, order, n, 1, TT_NO_MOVE)
        picked = []
        for _ in range(n):
            i = pick_move(order, n)
            if i < 0:
                break
            picked.append(i)
        return picked

    def set_skip(self, skipped):
        """Leaves the root moves with these indices out of the search (multi-PV)."""
        cdef int i, j
        for i in range(self.s.root_n):
            self.s.root_skip[i] = 0
        for i in skipped:
            self.s.root_skip[i] = 1
        for j in range(self.nhelpers):
            memcpy(self.helpers[j].root_skip, self.s.root_skip, sizeof(self.s.root_skip))

    def set_limits(self, uint64_t nodes=0, double deadline=0.0):
        """Stops the search after ``nodes`` nodes (all threads together) or at
        monotonic time ``deadline`` (0: none)."""
        self.s.node_limit = nodes
        self.s.deadline = deadline

    def search(self, int depth, int alpha=-INF, int beta=INF):
        """One iteration: a principal variation search of the root to ``depth``.

        Returns ``(score, best_index, pv, stopped)``; the GIL is released meanwhile."""
        cdef Searcher* s = self.s
        cdef int score
        cdef Pos root = self._root
        cdef uint64_t key = s.keys[s.base]
        cdef int rev = self._rev, ecls = self._ecls, eply = self._eply
        if s.root_n == 0:
            return (no_move_score(s.g, 0), -1, [], False)
        with nogil:
            score = pvs(s, &root, key, alpha, beta, depth, 0, rev, ecls, eply, 1)
        pv = [_move_from_c(s.g, &s.pv[0][i]) for i in range(s.pvlen[0])]
        return (score, s.root_best, pv, s.stop != 0)

    def run_helper(self, int index, int max_depth):
        """Runs helper ``index`` (from 0) until :meth:`stop_helpers` or
        ``max_depth``; call it from its own thread (the GIL is released)."""
        cdef Searcher* h
        cdef Pos root = self._root
        cdef uint64_t key = self.s.keys[self.s.base]
        cdef int rev = self._rev, ecls = self._ecls, eply = self._eply
        cdef int first = 1 + (index & 1)
        if not 0 <= index < self.nhelpers:
            raise ValueError("no such helper")
        h = self.helpers[index]
        if self.s.root_n == 0:
            return
        self.s.nhelpers = self.nhelpers
        with nogil:
            helper_iterate(h, &root, key, rev, ecls, eply, first, max_depth)

    @property
    def nodes(self) -> int:
        """Nodes searched by every thread."""
        cdef uint64_t total = self.s.nodes
        cdef int i
        for i in range(self.nhelpers):
            total += self.helpers[i].nodes
        return total

    @property
    def seldepth(self) -> int:
        return self.s.seldepth

    @property
    def stopped(self) -> bool:
        """Whether the last search was stopped (by a limit or :meth:`stop`)."""
        return self.s.stop != 0

    @property
    def end_class(self) -> int:
        """The root's class of material for the endgame move-count rules: 0 none,
        1 the five-move rule, 2 the sixteen-move rule, 3 + 4 * pieces the Russian
        three-kings rule (see ``end_class``)."""
        return self._ecls


cdef void _use_weights_and_tables(SearchCore core):
    """The evaluation weights and the endgame tables of the main search's variant."""
    cdef Searcher* s = core.s
    own = core.own_weights[s.g.variant]
    core._active = own if own is not None else _loaded_weights[s.g.variant]
    s.ev = (<EvalWeights>own).w if own is not None else EVALW[s.g.variant]
    if core._eg_tables is not None and (<EgTables>core._eg_tables).variant_index == s.g.variant:
        s.eg = &(<EgTables>core._eg_tables).reg
        s.eg_pieces = core._eg_pieces
    else:
        s.eg = NULL
        s.eg_pieces = 0


cdef dict _selectivity_dict(const Selectivity* sel):
    return {"single_reply": sel.single_reply != 0,
            "single_reply_depth": sel.single_reply_depth, "capture_ext": sel.capture_ext != 0,
            "capture_ext_depth": sel.capture_ext_depth,
            "probcut": sel.probcut != 0,
            "probcut_margin": sel.probcut_margin, "probcut_depth": sel.probcut_depth,
            "probcut_reduction": sel.probcut_reduction,
            "probcut_percent": sel.probcut_percent,
            "probcut_margin_ply": sel.probcut_margin_ply, "singular": sel.singular != 0,
            "singular_nonpv": sel.singular_nonpv != 0,
            "singular_depth": sel.singular_depth, "singular_margin": sel.singular_margin,
            "threat_qsearch": sel.threat_plies, "shot_qsearch": sel.shot_plies,
            "shot_margin": sel.shot_margin,
            "history": sel.history,
            "lmr_depth": sel.lmr_depth, "lmr_move": sel.lmr_move,
            "lmr_divisor": sel.lmr_divisor, "lmr_step": sel.lmr_step,
            "lmr_forcing": sel.lmr_forcing, "lmp": sel.lmp,
            "tt_first": sel.tt_first != 0,
            "iir": sel.iir, "rfp": sel.rfp, "rfp_margin": sel.rfp_margin,
            "sac_prune": sel.sac_prune,
            "sac_reduce": sel.sac_reduce, "cont_history": sel.cont_history,
            "history_bonus": sel.history_bonus, "promo_qsearch": sel.promo_qsearch,
            "lmr_threat": sel.lmr_threat, "threat_order": sel.threat_order != 0,
            "lmr_improving": sel.lmr_improving, "aspiration": sel.aspiration}


cdef int _set_quiescence(Selectivity* sel, threat_qsearch, shot_qsearch, shot_margin,
                         promo_qsearch) except -1:
    """The quiescence settings of ``SearchCore.set_selectivity`` (a bool is 0 or 1 plies),
    checked and written into ``sel`` (None: unchanged)."""
    if threat_qsearch is not None:
        threat_qsearch = int(threat_qsearch) if isinstance(threat_qsearch, bool) else threat_qsearch
        sel.threat_plies = _whole(threat_qsearch, "threat_qsearch", 0, 16)
    if shot_qsearch is not None:
        shot_qsearch = int(shot_qsearch) if isinstance(shot_qsearch, bool) else shot_qsearch
        sel.shot_plies = _whole(shot_qsearch, "shot_qsearch", 0, 16)
    if shot_margin is not None:
        sel.shot_margin = _whole(shot_margin, "shot_margin", 0, 10000)
    if promo_qsearch is not None:
        promo_qsearch = int(promo_qsearch) if isinstance(promo_qsearch, bool) else promo_qsearch
        sel.promo_qsearch = _whole(promo_qsearch, "promo_qsearch", 0, 2)
    return 0


cdef int _set_probcut_singular(Selectivity* sel, probcut, probcut_margin, probcut_depth,
                               probcut_reduction, probcut_percent, probcut_margin_ply,
                               singular, singular_nonpv, singular_depth,
                               singular_margin) except -1:
    """The ProbCut and singular-extension settings of ``SearchCore.set_selectivity``,
    checked and written into ``sel`` (None: unchanged)."""
    if probcut is not None:
        sel.probcut = 1 if probcut else 0
    if probcut_margin is not None:
        sel.probcut_margin = _whole(probcut_margin, "probcut_margin", 0, 10000)
    if probcut_depth is not None:
        sel.probcut_depth = _whole(probcut_depth, "probcut_depth", 2, 63)
    if probcut_reduction is not None:
        sel.probcut_reduction = _whole(probcut_reduction, "probcut_reduction", 1, 16)
    if probcut_percent is not None:
        sel.probcut_percent = _whole(probcut_percent, "probcut_percent", 0, 90)
    if probcut_margin_ply is not None:
        sel.probcut_margin_ply = _whole(probcut_margin_ply, "probcut_margin_ply", 0, 1000)
    if singular is not None:
        sel.singular = 1 if singular else 0
    if singular_nonpv is not None:
        sel.singular_nonpv = 1 if singular_nonpv else 0
    if singular_depth is not None:
        sel.singular_depth = _whole(singular_depth, "singular_depth", 2, 63)
    if singular_margin is not None:
        sel.singular_margin = _whole(singular_margin, "singular_margin", 0, 10000)
    return 0


def helper_selectivity(SearchCore core, int index):
    """The selectivity settings of helper thread ``index`` (they follow the main
    search's: :meth:`SearchCore.set_selectivity`)."""
    if not 0 <= index < core.nhelpers:
        raise ValueError("no such helper")
    return _selectivity_dict(&core.helpers[index].sel)


cdef int _whole(value, str name, int low, int high) except? -1:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a whole number, not {type(value).__name__}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be between {low} and {high}, got {value}")
    return value


def evaluate_position(CoreBoard board) -> int:
    """The static evaluation of ``board`` from the side to move's point of view."""
    return evaluate(EVALW[board._g.variant], board._g, &board._pos)


MATE_SCORE = MATE
MATE_THRESHOLD = MATE_BOUND
MAX_THREADS = MAX_HELPERS + 1


# A module function rather than a SearchCore method: as a method, it moved the
# compiled search code enough to cost 2-6% of the nodes per second (measured with
# benchmarks/search.py and fixed-depth searches); here it costs nothing.
def set_root_first(SearchCore core, int index):
    """Makes root move ``index`` the first one ``core``'s next search tries, unless
    that search leaves it out (:meth:`SearchCore.set_skip`). Multi-PV searches the
    lines depth by depth: each line starts with its best move of the previous depth."""
    if 0 <= index < core.s.root_n and not core.s.root_skip[index]:
        core.s.root_best = index


def root_move_score(SearchCore core, int index):
    """The score root move ``index`` got when the search last finished it (a module
    function for the reason :func:`set_root_first` is one). After a search stopped
    by its limits, it scores the move that search found best before it stopped."""
    if not 0 <= index < core.s.root_n:
        raise ValueError("no such root move")
    return core.s.root_score[index]

# Included by _core.pyx (after _qsearch.pxi): the principal variation search of one
# thread, in the steps of a node:
#
#   pvs                  the node: its steps in order
#   node_decided         entry checks below the root: the draw rules, the endgame
#                        tables, a repetition, mate distance pruning
#   tt_probe             the transposition table's entry: a cutoff, or its move
#   static_cutoff        reverse futility pruning (non-PV nodes near the leaves)
#   probcut              ProbCut (non-PV nodes)
#   singular_extension   the singular extension of the TT move (PV nodes)
#   order_moves          move ordering (_order.pxi; order_root_moves at the root)
#   search_moves         the move loop: late-move pruning, then for each move
#                        extension(), reduction() and search_move() (PVS with LMR),
#                        and update_best() (PV, killers, history at a cutoff)
#   tt_store             the node's result into the transposition table
#
# A node's state lives in a Node on pvs's stack; the steps take it by pointer and
# are inlined into pvs. No Python objects in the hot path.

# A singular test needs a TT entry at most this many plies shallower than the node.
cdef enum:
    SINGULAR_TT_SLACK = 3
    NO_SEV = -32767          # Searcher.sev of a node with a capture to make (no static evaluation)


# The state of one node of the principal variation search.
ctypedef struct Node:
    const Pos* p
    uint64_t key
    int alpha                # the window, narrowed by mate distance pruning
    int beta
    int depth
    int ply
    int rev                  # reversible king moves in a row before the position
    int ecls                 # its endgame class (end_class)
    int eply                 # plies since that class began
    int is_pv
    TTEntry* e               # the node's transposition-table entry
    uint64_t data            # what that entry held at the probe
    int hit                  # the entry is this position's
    int tt_move              # the index of the entry's move (TT_NO_MOVE: none)
    CMove* moves             # the legal moves (s.buf at this ply)
    int* order               # their order scores (s.order at this ply)
    int ordered              # order holds them (0: the TT move goes first, unscored)
    int n
    int ext                  # plies every move is extended by (single reply)
    int sext                 # the index of the singular move (-1: none)
    int best
    int best_i               # the index of the best move (-1: none searched)
    int nq                   # quiet moves searched (s.quiets[ply])


# A child of a node: the position after a move and the draw counts it carries.
ctypedef struct Child:
    Pos pos
    uint64_t key
    int rev
    int ecls
    int eply


cdef inline uint64_t key_after(const Pos* p, const CMove* m, uint64_t key) noexcept nogil:
    cdef int t = p.turn
    cdef int kto = 1 if (m.king or m.promote) else 0
    cdef uint64_t x = m.cap, b
    key ^= ZOBRIST[2 * m.king + t][ctz(m.frm)] ^ ZOBRIST[2 * kto + t][ctz(m.to)]
    while x:
        b = x & (~x + 1)
        x ^= b
        key ^= ZOBRIST[2 * (1 if p.kings & b else 0) + 1 - t][ctz(b)]
    return key ^ ZOBRIST_WHITE_TO_MOVE


cdef inline int score_to_tt(int score, int ply) noexcept nogil:
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


cdef inline int score_from_tt(int score, int ply) noexcept nogil:
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


cdef inline void enter_child(Searcher* s, const Node* nd, const CMove* m, Child* c,
                             int depth) noexcept nogil:
    """The key and the draw counts of ``c.pos``, the position after ``m`` (already
    made), and its key on the search path. ``depth``: the child's depth; its
    transposition-table entry is fetched ahead only when the child will read it
    (depth above 0: the quiescence search does not)."""
    c.key = key_after(nd.p, m, nd.key)
    if s.g.king_limit:
        c.key ^= king_run_key(s.g, nd.p) ^ king_run_key(s.g, &c.pos)
    if depth > 0:
        prefetch(&s.tt[c.key & s.tt_mask])
    c.rev = 0 if (m.ncap or not m.king) else nd.rev + 1
    c.ecls = end_class(s, &c.pos) if s.end_plies[0] else END_NONE
    c.eply = nd.eply + 1 if (c.ecls and c.ecls == nd.ecls) else 0
    s.keys[s.base + nd.ply + 1] = c.key
    s.prev_to[nd.ply + 1] = <uint8_t>ctz(m.to)


cdef inline bint fetches_ahead(const Searcher* s, const Node* nd) noexcept nogil:
    """Whether the node fetches its children's transposition-table entries ahead, so
    that the memory's latency passes while it orders its moves or searches its first
    one: only where the children read the table (their depth above 0) and the key
    follows from the move alone (no king-move limit in the key)."""
    return nd.depth >= 2 and not s.g.king_limit


cdef inline void prefetch_child(const Searcher* s, const Node* nd, int i) noexcept nogil:
    """Fetches ahead the transposition-table entry of the position after move ``i``."""
    prefetch(&s.tt[key_after(nd.p, &nd.moves[i], nd.key) & s.tt_mask])


cdef inline void prefetch_children(const Searcher* s, const Node* nd, int skip) noexcept nogil:
    """Fetches ahead the entries of the positions after every move but ``skip``."""
    cdef int i
    for i in range(nd.n):
        if i != skip:
            prefetch_child(s, nd, i)


cdef inline int search_child(Searcher* s, const Node* nd, const Child* c, int alpha, int beta,
                             int depth, int is_pv) noexcept nogil:
    return pvs(s, &c.pos, c.key, alpha, beta, depth, nd.ply + 1, c.rev, c.ecls, c.eply, is_pv)


cdef inline bint node_decided(Searcher* s, Node* nd, int* score) noexcept nogil:
    """The entry checks of a node below the root: a draw by the king-move or an
    endgame rule, the endgame tables' value, a repetition, and mate distance
    pruning (which narrows the window). True and ``score`` when they decide it."""
    cdef int ply = nd.ply
    if s.g.goal == GOAL_CROWN and nd.p.kings:
        score[0] = crowned_score(nd.p, ply)
        return True
    if s.king_draw_plies and nd.rev >= s.king_draw_plies:
        score[0] = DRAW_SCORE
        return True
    if nd.ecls and nd.eply >= s.end_plies[nd.ecls & 7]:
        score[0] = DRAW_SCORE
        return True
    # The endgame tables before the repetition test: a position seen once
    # before is no draw yet (the third occurrence draws, in every variant), and a won
    # ending may have to pass through one (after the other side's shuffling).
    if (s.eg_pieces and popcount(nd.p.pieces[0] | nd.p.pieces[1]) <= s.eg_pieces
            and eg_probe(s, nd.p, ply, nd.rev, nd.ecls, nd.eply, score)):
        if score[0] != DRAW_SCORE and occurrences(s, nd.key, ply, nd.rev) >= 2:
            score[0] = DRAW_SCORE
        return True
    if repeated(s, nd.key, ply, nd.rev):
        score[0] = DRAW_SCORE
        return True
    # mate distance pruning
    if nd.alpha < -MATE + ply:
        nd.alpha = -MATE + ply
    if nd.beta > MATE - ply - 1:
        nd.beta = MATE - ply - 1
    if nd.alpha >= nd.beta:
        score[0] = nd.alpha
        return True
    return False


cdef inline bint tt_probe(Searcher* s, Node* nd, int* score) noexcept nogil:
    """Reads the node's transposition-table entry (``nd.hit``, ``nd.tt_move``).
    True and ``score`` when it is deep enough and its bound decides a non-PV node."""
    cdef int tts, flag
    nd.e = &s.tt[nd.key & s.tt_mask]
    nd.data = nd.e.data
    nd.hit = 0
    nd.tt_move = TT_NO_MOVE
    if (nd.e.lock ^ nd.data) == nd.key and tt_flag(nd.data):
        nd.hit = 1
        nd.tt_move = tt_move_of(nd.data)
        if not nd.is_pv and tt_depth(nd.data) >= nd.depth:
            tts = score_from_tt(tt_score(nd.data), nd.ply)
            flag = tt_flag(nd.data)
            if (flag == TT_EXACT or (flag == TT_LOWER and tts >= nd.beta)
                    or (flag == TT_UPPER and tts <= nd.alpha)):
                score[0] = tts
                return True
    return False


cdef inline bint static_cutoff(Searcher* s, const Node* nd, int* score) noexcept nogil:
    """Reverse futility pruning, draughts-safe: a non-PV node of depth at most
    ``sel.rfp`` fails high on its static evaluation when that beats beta by
    ``sel.rfp_margin`` centi-men a ply of depth, but only in a quiet position: the
    side to move has no capture (captures are compulsory), would face none if it
    passed (no threat the evaluation misses) and has a move. True and ``score``
    (the evaluation) when it cuts the node off."""
    cdef Pos other
    cdef int ev
    if not (s.sel.rfp and not nd.is_pv and nd.ply > 0 and nd.depth <= s.sel.rfp
            and -MATE_BOUND < nd.beta < MATE_BOUND):
        return False
    if can_capture(s.g, nd.p):
        return False
    other = nd.p[0]
    other.turn = 1 - other.turn
    if can_capture(s.g, &other) or count_quiet(s.g, nd.p) == 0:
        return False
    ev = search_eval(s, nd.p)
    if ev - s.sel.rfp_margin * nd.depth < nd.beta:
        return False
    score[0] = ev
    return True


cdef inline bint probcut(Searcher* s, Node* nd, int* score) noexcept nogil:
    """ProbCut: when a search reduced by probcut_reduction plies (or to
    probcut_percent of the depth) fails high against beta + margin (probcut_margin,
    and probcut_margin_ply a ply of depth), this one is taken to fail high too
    (fail-soft). The reduced search is of this very node; it does not try ProbCut
    itself. True and ``score`` when it cuts the node off (or the search stopped)."""
    cdef int rbeta, reduced = nd.depth - s.sel.probcut_reduction
    if not (s.sel.probcut and not nd.is_pv and nd.ply > 0 and nd.depth >= s.sel.probcut_depth):
        return False
    if s.pc_skip == nd.ply:
        s.pc_skip = -1
        return False
    if s.sel.probcut_percent:
        reduced = nd.depth * s.sel.probcut_percent // 100
    rbeta = nd.beta + s.sel.probcut_margin + s.sel.probcut_margin_ply * nd.depth
    if nd.beta <= -MATE_BOUND or rbeta >= MATE_BOUND:
        return False
    # not when the TT already bounds the reduced search's score below rbeta
    if (nd.hit and tt_depth(nd.data) >= reduced and tt_flag(nd.data) != TT_LOWER
            and score_from_tt(tt_score(nd.data), nd.ply) < rbeta):
        return False
    s.pc_skip = nd.ply
    score[0] = pvs(s, nd.p, nd.key, rbeta - 1, rbeta, reduced, nd.ply, nd.rev, nd.ecls,
                   nd.eply, 0)
    s.pc_skip = -1
    if s.stop:
        score[0] = ABORT_SCORE
        return True
    return score[0] >= rbeta


cdef bint singular_test(Searcher* s, const Node* nd, int sbeta, int depth) noexcept nogil:
    """Whether every move but the TT move fails low against ``sbeta`` at ``depth``
    (a null window just below the TT move's score): then the TT move is singular."""
    cdef int i, score
    cdef Child c
    cdef const CMove* m
    for i in range(nd.n):
        if i == nd.tt_move:
            continue
        m = &nd.moves[i]
        c.pos = nd.p[0]
        make_move(&c.pos, m)
        enter_child(s, nd, m, &c, depth)
        score = -search_child(s, nd, &c, -sbeta, -sbeta + 1, depth, 0)
        if s.stop or score >= sbeta:
            return False
    return True


cdef inline bint singular_extension(Searcher* s, Node* nd) noexcept nogil:
    """Singular extension (PV nodes): the TT move, stored as a lower bound (or
    exact) deep enough, is extended by a ply (``nd.sext``) when every other move
    fails low against a null window just below its score, at about half the
    depth. True when the search stopped meanwhile."""
    cdef int flag, tts
    nd.sext = -1
    if not (s.sel.singular and (nd.is_pv or s.sel.singular_nonpv) and nd.hit and nd.ply > 0
            and nd.n > 1 and nd.tt_move < nd.n and nd.depth >= s.sel.singular_depth
            and nd.ply < EXTEND_PLIES):
        return False
    flag = tt_flag(nd.data)
    tts = score_from_tt(tt_score(nd.data), nd.ply)
    if not ((flag == TT_LOWER or flag == TT_EXACT)
            and tt_depth(nd.data) >= nd.depth - SINGULAR_TT_SLACK
            and tts > -MATE_BOUND and tts < MATE_BOUND):
        return False
    if singular_test(s, nd, tts - s.sel.singular_margin, (nd.depth - 1) // 2):
        nd.sext = nd.tt_move
    return s.stop != 0


cdef inline bint late_move_pruned(const Searcher* s, const Node* nd, const CMove* m, int j,
                                  const Pos* child) noexcept nogil:
    """Late-move pruning, draughts-safe: near the leaves of a non-PV node, the
    ``j``-th move picked (from 0), when late and quiet, is skipped only when it
    gives the opponent no capture (a sacrifice or an exchange offer is never
    skipped: shots start that way)."""
    return (not nd.is_pv and nd.depth < LMP_DEPTHS and s.lmp[nd.depth] and j >= s.lmp[nd.depth]
            and not m.ncap and nd.best > -MATE_BOUND and not can_capture(s.g, child))


cdef inline bint loses_a_man(Searcher* s, const Node* nd, const CMove* m,
                             const Pos* child) noexcept nogil:
    """Whether a quiet move of a non-PV node (``child``: the position after it) loses
    a man: it gives the opponent a capture after which, for some capture, the side
    has none in turn (answers_every_capture). Not when the node's best score is a
    loss (every move may have to be tried then)."""
    return (not nd.is_pv and not m.ncap and nd.best > -MATE_BOUND
            and can_capture(s.g, child) and not answers_every_capture(s, child, nd.ply + 1))


cdef inline bint extended(const Searcher* s, const Node* nd) noexcept nogil:
    """Whether every move of the node is extended a ply: a single reply (from depth
    ``single_reply_depth``); with ``capture_ext``, a position whose moves are captures
    (captures are compulsory: then every move is one), up to ``capture_ext_depth``
    (0: at any depth)."""
    if nd.n == 1 and s.sel.single_reply and nd.depth >= s.sel.single_reply_depth:
        return True
    return (s.sel.capture_ext and nd.moves[0].ncap
            and (s.sel.capture_ext_depth == 0 or nd.depth <= s.sel.capture_ext_depth))


cdef inline int extension(const Node* nd, int i) noexcept nogil:
    """The plies move ``i`` is extended by: the single-reply and singular extensions."""
    return nd.ext + (1 if i == nd.sext else 0)


cdef inline int reduction(const Searcher* s, const Node* nd, const CMove* m, int k,
                          int newdepth, const Pos* child, int extra) noexcept nogil:
    """The late-move reduction of the ``k``-th move searched (from 0), a quiet one
    (the lmr table; a ply less at PV nodes; with lmr_forcing, that many plies less
    for a move that gives the opponent a capture, ``child`` the position after it;
    with history 2, a ply less for a high history, a ply more for a low one), and
    ``extra`` plies more (sac_reduce: a move that loses a man, at any depth and move
    number); with lmr_improving, that many plies more where the node's static
    evaluation is no better than at the node two plies up (the side to move's
    position is not improving); leaving at least a ply of ``newdepth``."""
    cdef int r = extra, hv, depth = nd.depth
    if depth >= s.sel.lmr_depth and k >= s.sel.lmr_move and not m.ncap:
        r += s.lmr[depth if depth < LMR_TABLE else LMR_TABLE - 1][k if k < LMR_TABLE else LMR_TABLE - 1]
        if nd.is_pv and r > 0:
            r -= 1
        if s.sel.lmr_forcing and r > 0 and can_capture(s.g, child):
            r = r - s.sel.lmr_forcing if r > s.sel.lmr_forcing else 0
        if s.sel.lmr_threat and r > 0 and threatened(s.g, child):
            # (child's side to move is the opponent: threatened says the mover threatens)
            r = r - s.sel.lmr_threat if r > s.sel.lmr_threat else 0
        if s.sel.history == 2:
            hv = s.history[nd.p.turn][ctz(m.frm)][ctz(m.to)]
            if hv > HIST_LMR_MARGIN and r > 0:
                r -= 1
            elif hv < -HIST_LMR_MARGIN:
                r += 1
        # (a node with a quiet move has no capture: its own evaluation is always there)
        if (s.sel.lmr_improving and nd.ply >= 2 and s.sev[nd.ply - 2] != NO_SEV
                and s.sev[nd.ply] <= s.sev[nd.ply - 2]):
            r += s.sel.lmr_improving
    if r >= newdepth:
        r = newdepth - 1 if newdepth > 0 else 0
    return r


cdef inline int search_move(Searcher* s, const Node* nd, const Child* c, const CMove* m, int k,
                            int newdepth, int extra) noexcept nogil:
    """The score of the ``k``-th move searched (from 0), leading to ``c``: the first
    with the full window; the others with a null window, reduced when late
    (reduction()), again at full depth when the reduced search beats alpha, and
    with the full window at a PV node when the score falls inside it."""
    cdef int score, r
    if k == 0:
        return -search_child(s, nd, c, -nd.beta, -nd.alpha, newdepth, nd.is_pv)
    r = reduction(s, nd, m, k, newdepth, &c.pos, extra)
    score = -search_child(s, nd, c, -nd.alpha - 1, -nd.alpha, newdepth - r, 0)
    if score > nd.alpha and r:
        score = -search_child(s, nd, c, -nd.alpha - 1, -nd.alpha, newdepth, 0)
    if score > nd.alpha and score < nd.beta and nd.is_pv:
        score = -search_child(s, nd, c, -nd.beta, -nd.alpha, newdepth, 1)
    return score


cdef inline void update_pv(Searcher* s, int ply, const CMove* m) noexcept nogil:
    """The principal variation at ``ply``: ``m`` and the one of the ply below."""
    cdef int i
    s.pv[ply][0] = m[0]
    for i in range(s.pvlen[ply + 1]):
        s.pv[ply][i + 1] = s.pv[ply + 1][i]
    s.pvlen[ply] = s.pvlen[ply + 1] + 1


cdef inline bint update_best(Searcher* s, Node* nd, const CMove* m, int i,
                             int score) noexcept nogil:
    """Takes the ``score`` of move ``i``: a new best, a new alpha (the PV and the
    root's best move follow), a cutoff (killers and history learn from a quiet
    one). True at a cutoff: the move loop ends."""
    if score <= nd.best:
        return False
    nd.best = score
    nd.best_i = i
    if score <= nd.alpha:
        return False
    nd.alpha = score
    if nd.is_pv:
        update_pv(s, nd.ply, m)
    if nd.ply == 0:
        s.root_best = i
    if score < nd.beta:
        return False
    if not m.ncap:
        quiet_cutoff(s, nd.p.turn, m, nd.depth, nd.ply, nd.nq)
    return True


cdef inline bint search_moves(Searcher* s, Node* nd) noexcept nogil:
    """The move loop: the moves best first (order scores), each searched unless
    pruned, until one cuts off (``nd.best``, ``nd.best_i``, ``nd.alpha``). True
    when the search stopped."""
    cdef int j, i, k = 0, score, newdepth, extra
    cdef const CMove* m
    cdef Child c
    nd.best = -INF
    nd.best_i = -1
    nd.nq = 0
    for j in range(nd.n):
        if j == 0 and not nd.ordered:
            i = nd.tt_move
        else:
            if j == 1 and nd.best_i >= 0 and fetches_ahead(s, nd):
                # The first move did not cut off: the others will be searched.
                prefetch_children(s, nd, nd.best_i)
            if not nd.ordered:
                # The TT move did not cut off: the others are scored now, with
                # what its search taught the killers and the history.
                order_moves(s, nd.p, nd.moves, nd.order, nd.n, nd.ply, nd.tt_move)
                nd.order[nd.tt_move] = ORDER_DONE
                nd.ordered = 1
            i = pick_move(nd.order, nd.n)
            if i < 0:
                break
        m = &nd.moves[i]
        c.pos = nd.p[0]
        make_move(&c.pos, m)
        if late_move_pruned(s, nd, m, j, &c.pos):
            continue
        extra = 0
        if ((nd.depth <= s.sel.sac_prune or s.sel.sac_reduce) and k > 0
                and loses_a_man(s, nd, m, &c.pos)):
            if nd.depth <= s.sel.sac_prune:
                continue
            extra = s.sel.sac_reduce
        newdepth = nd.depth - 1 + extension(nd, i)
        enter_child(s, nd, m, &c, newdepth)
        score = search_move(s, nd, &c, m, k, newdepth, extra)
        k += 1
        if s.stop:
            return True
        nd.nq = remember_quiet(s, m, nd.ply, nd.nq)
        if nd.ply == 0:
            s.root_score[i] = score
        if update_best(s, nd, m, i, score):
            break
    return False


cdef inline void tt_store(Searcher* s, const Node* nd, int orig_alpha) noexcept nogil:
    """Stores the node's result (its bound against the window it was given), unless
    the entry holds a deeper result of this position from this search."""
    cdef int flag = TT_EXACT
    cdef uint64_t data
    if nd.best <= orig_alpha:
        flag = TT_UPPER
    elif nd.best >= nd.beta:
        flag = TT_LOWER
    data = nd.e.data
    if ((nd.e.lock ^ data) != nd.key or nd.depth >= tt_depth(data)
            or tt_gen_of(data) != s.tt_gen or flag == TT_EXACT):
        data = tt_pack(score_to_tt(nd.best, nd.ply), nd.depth, flag,
                       nd.best_i if nd.best_i < TT_NO_MOVE else TT_NO_MOVE, s.tt_gen)
        nd.e.data = data
        nd.e.lock = nd.key ^ data


cdef int pvs(Searcher* s, const Pos* p, uint64_t key, int alpha, int beta, int depth, int ply,
             int rev, int ecls, int eply, int is_pv) noexcept nogil:
    """Principal variation search. ``rev``: reversible king moves in a row
    before this position; ``ecls``/``eply``: its endgame class (end_class) and
    the plies since that class began."""
    cdef Node nd
    cdef int score, overflow = 0
    nd.p = p
    nd.key = key
    nd.alpha = alpha
    nd.beta = beta
    nd.depth = depth
    nd.ply = ply
    nd.rev = rev
    nd.ecls = ecls
    nd.eply = eply
    nd.is_pv = is_pv
    s.pvlen[ply] = 0
    if ply > 0 and node_decided(s, &nd, &score):
        return score
    if depth <= 0 or ply >= MAXPLY - 2:
        return qsearch(s, p, key, nd.alpha, nd.beta, ply, 0)
    s.nodes += 1
    check_limits(s)
    if s.stop:
        return ABORT_SCORE
    if ply > s.seldepth:
        s.seldepth = ply
    if tt_probe(s, &nd, &score):
        return score
    # Internal iterative reduction: without a move from the table, the ordering is a
    # guess; this node is searched a ply shallower (and stored so).
    if s.sel.iir and ply > 0 and nd.depth >= s.sel.iir and nd.tt_move == TT_NO_MOVE:
        nd.depth -= 1
    if static_cutoff(s, &nd, &score) or probcut(s, &nd, &score):
        return score
    nd.moves = s.buf + ply * MAXMOVES
    nd.order = s.order + ply * MAXMOVES
    nd.n = gen_moves(s.g, p, nd.moves, 0, &overflow)
    if nd.n == 0:
        return no_move_score(s.g, ply)
    if s.sel.lmr_improving:
        # (a position with a capture to make has no static evaluation: captures are compulsory)
        s.sev[ply] = NO_SEV if nd.moves[0].ncap else search_eval(s, p)
    nd.ext = 1 if (ply < EXTEND_PLIES and extended(s, &nd)) else 0
    if singular_extension(s, &nd):
        return ABORT_SCORE
    if fetches_ahead(s, &nd):
        if nd.tt_move < nd.n:
            prefetch_child(s, &nd, nd.tt_move)   # searched first
        else:
            prefetch_children(s, &nd, -1)
    # With tt_first, the TT move is searched before the other moves are scored (it often
    # cuts off); search_moves scores them when it does not.
    nd.ordered = 1
    if ply == 0:
        order_root_moves(s, nd.order, nd.n)
    elif nd.tt_move < nd.n and s.sel.tt_first:
        nd.ordered = 0
    else:
        order_moves(s, p, nd.moves, nd.order, nd.n, ply, nd.tt_move)
    if search_moves(s, &nd):
        return ABORT_SCORE
    if nd.best_i < 0:
        return nd.alpha
    tt_store(s, &nd, alpha)
    return nd.best

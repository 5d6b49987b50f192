# Included by _core.pyx (after _eval.pxi and _tt.pxi): the search of one thread:
# principal variation search with aspiration windows, quiescence, move ordering
# (TT move, killers, history), LMR/LMP, the selectivity switches (ProbCut,
# singular and single-reply extensions, the threat-aware quiescence, history
# updates; see Selectivity) and the draw rules the search sees (no Python
# objects in the hot path).

from libc.math cimport log
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

DEF INF = 32000
DEF MATE = 31000
DEF MATE_BOUND = 30000     # |score| above this is a forced win/loss
DEF MAXPLY = 96
DEF DEFAULT_LMR_DIVISOR = 1.5
DEF HIST_MAX = 16384       # bound of the history scores when updated with gravity (history >= 1)
DEF MAXQUIETS = 64         # quiet moves remembered per node for the history malus
DEF NO_THREAT = 1000       # qsearch ply given to the replies of a threat search: no second one

# ---------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------

# Classes of material for the endgame move-count rules (see end_class).
DEF END_NONE = 0
DEF END_FIVE = 1             # a lone king against one or two pieces with a king
DEF END_SIXTEEN = 2          # a lone king against three pieces with a king
DEF END_THREE_KINGS = 3      # Russian: a lone king against three or more kings


# The selectivity switches and their parameters (SearchCore.set_selectivity),
# copied to every helper thread. The defaults turn on ProbCut, the singular
# extension, the threat-aware quiescence (1 ply) and the bounded history,
# accepted together by an SPRT match at 0.1 s a move against the search without
# them; with those four off, the search is the one before the switches.
ctypedef struct Selectivity:
    int single_reply         # extend a position with one legal move by a ply
    int probcut              # ProbCut at non-PV nodes: a reduced null-window search at beta + margin
    int probcut_margin       # centi-men above beta
    int probcut_depth        # least depth of a ProbCut node
    int probcut_reduction    # plies fewer for ProbCut's reduced search
    int singular             # singular extension of the TT move at PV nodes
    int singular_depth       # least depth of a singular test
    int singular_margin      # centi-men below the TT score of the other moves' null window
    int threat_plies         # threat-aware qsearch at quiet leaves up to this qsearch ply (0: off)
    int history              # 0: bonus depth^2 at a cutoff; 1: bounded (gravity) with a malus
                             # for the quiet moves tried before; 2: 1, and history in LMR
    int lmr_depth            # least depth of a late-move reduction
    int lmr_move             # moves searched before the first reduced one
    double lmr_divisor       # reductions log(depth) * log(move number) / lmr_divisor (the lmr table)


cdef void default_selectivity(Selectivity* sel) noexcept nogil:
    sel.single_reply = 1
    sel.probcut = 1
    sel.probcut_margin = 100
    sel.probcut_depth = 5
    sel.probcut_reduction = 3
    sel.singular = 1
    sel.singular_depth = 6
    sel.singular_margin = 30
    sel.threat_plies = 1
    sel.history = 1
    sel.lmr_depth = 3
    sel.lmr_move = 2
    sel.lmr_divisor = DEFAULT_LMR_DIVISOR


ctypedef struct Searcher:
    const Geo* g
    const EvalW* ev          # the evaluation weights of this search
    TTEntry* tt              # shared by every thread of a search
    uint64_t tt_mask
    uint8_t tt_gen
    uint64_t nodes
    uint64_t node_limit      # 0: none (counts the helpers' nodes too)
    double deadline          # monotonic seconds; 0: none
    int stop                 # set from another thread to stop
    int seldepth
    int king_draw_plies      # reversible plies that draw (2 * king-move limit); 0: off
    int end_plies[4]         # plies that draw in each endgame class; 0: rule off
    int base                 # index in keys of the root position
    uint64_t keys[4096 + MAXPLY]
    CMove* buf               # MAXPLY * MAXMOVES moves
    int* order               # MAXPLY * MAXMOVES move-order scores
    uint16_t killers[MAXPLY][2]
    int32_t history[2][64][64]
    CMove pv[MAXPLY][MAXPLY]
    int pvlen[MAXPLY]
    int root_n
    int root_skip[MAXMOVES]  # root moves left out (multi-PV)
    int root_score[MAXMOVES]
    int root_best
    int lmr[64][64]          # late-move reductions by depth and move number
    int lmp[8]               # late-move pruning: quiet moves tried at each depth (0: off)
    Selectivity sel          # selectivity switches (the same in every thread)
    int pc_skip              # the ply whose next node is ProbCut's own reduced search (-1: none)
    uint16_t quiets[MAXPLY][MAXQUIETS]   # quiet moves tried at each ply (history malus)
    void** helpers           # the main thread's view of its helpers (Searcher*)
    int nhelpers
    const EgReg* eg          # endgame tables probed by the search (NULL: none)
    int eg_pieces            # positions of at most this many pieces are probed (0: none)
    uint64_t eg_hits         # probes whose value the search used


cdef void fill_lmr(int (*table)[64], double divisor) noexcept nogil:
    cdef int d, k
    for d in range(64):
        for k in range(64):
            if d < 1 or k < 1:
                table[d][k] = 0
            else:
                table[d][k] = <int>(0.4 + log(d) * log(k) / divisor)


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


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


cdef inline int end_class(const Searcher* s, const Pos* p) noexcept nogil:
    """The class of material of an endgame move-count rule that is switched on
    (0: none). Three kings against a lone king also encode the number of kings,
    so that a capture starts a new count, as the Russian rule wants."""
    cdef uint64_t wk = p.pieces[1] & p.kings, bk = p.pieces[0] & p.kings
    cdef int other, other_kings, other_men
    if (p.pieces[1] & ~p.kings) == 0 and popcount(wk) == 1:
        other_kings = popcount(bk)
        other = popcount(p.pieces[0])
    elif (p.pieces[0] & ~p.kings) == 0 and popcount(bk) == 1:
        other_kings = popcount(wk)
        other = popcount(p.pieces[1])
    else:
        return END_NONE
    if other_kings == 0:
        return END_NONE
    if other <= 2 and s.end_plies[END_FIVE]:
        return END_FIVE
    if other == 3 and s.end_plies[END_SIXTEEN]:
        return END_SIXTEEN
    if other == other_kings and other >= 3 and s.end_plies[END_THREE_KINGS]:
        return END_THREE_KINGS + 4 * other
    return END_NONE


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


cdef inline uint16_t move_code(const CMove* m) noexcept nogil:
    return <uint16_t>((ctz(m.frm) << 6) | ctz(m.to))


cdef int eg_probe(Searcher* s, const Pos* p, int ply, int rev, int ecls, int eply,
                  int* score) noexcept nogil:
    """The endgame tables' value of ``p`` as a search score, when they hold it and it
    is exact under the draw rules the search sees: 1 and ``score`` set, or 0.

    A draw in the tables is a draw under any rule (the move-count rules only add
    draws). A win or loss in n plies (the distance the tables keep) is a mate score
    for that distance only when the game ends before the running counts draw it:
    the endgame class's count (``ecls``, ``eply``; FMJD rules, the five- and
    sixteen-move rules) and the king-move rule (``rev``). Otherwise the search goes
    on, and the positions further down are probed again; a class entered later (by
    a capture or a promotion) starts its own count there."""
    cdef int v, n
    v = eg_lookup(s.eg, p)
    if v < 0 or v >= EG_UNKNOWN:
        return 0
    if v == 0:
        s.eg_hits += 1
        score[0] = 0
        return 1
    n = v - 1
    if ecls and eply + n >= s.end_plies[ecls & 3]:
        return 0
    if s.king_draw_plies and rev + n >= s.king_draw_plies:
        return 0
    s.eg_hits += 1
    score[0] = MATE - ply - n if (n & 1) else -MATE + ply + n
    return 1


cdef int occurrences(const Searcher* s, uint64_t key, int ply, int rev) noexcept nogil:
    """How often the position of ``key`` at ``ply`` occurred before (game and search
    path, since the last irreversible move)."""
    cdef int i = 4, n = 0
    while i <= rev and i <= s.base + ply:
        if s.keys[s.base + ply - i] == key:
            n += 1
        i += 2
    return n


cdef inline void check_limits(Searcher* s) noexcept nogil:
    cdef uint64_t total
    cdef int i
    if (s.nodes & 1023) == 0:
        if s.node_limit:
            total = s.nodes
            for i in range(s.nhelpers):
                total += (<Searcher*>s.helpers[i]).nodes
            if total >= s.node_limit:
                s.stop = 1
        if s.deadline > 0 and now_seconds() >= s.deadline:
            s.stop = 1


cdef int qsearch(Searcher* s, const Pos* p, uint64_t key, int alpha, int beta, int ply,
                 int qply) noexcept nogil:
    """Resolves every capture sequence: captures are compulsory, so a position
    with a capture pending is never evaluated statically. ``qply``: plies since
    the horizon (the threat-aware qsearch looks at quiet leaves below
    ``sel.threat_plies``)."""
    cdef const Geo* g = s.g
    cdef CMove* moves
    cdef int n, i, score, best, overflow = 0
    cdef Pos child
    s.nodes += 1
    check_limits(s)
    if ply > s.seldepth:
        s.seldepth = ply
    if ply >= MAXPLY - 1 or s.stop:
        return evaluate(s.ev, g, p)
    # After a capture (qply 1 up to the threat search's replies): the king-move
    # count is 0; an endgame class's count may be running, unknown here, so only
    # positions of no counted class are probed.
    if (s.eg_pieces and 0 < qply < NO_THREAT
            and popcount(p.pieces[0] | p.pieces[1]) <= s.eg_pieces
            and (not s.end_plies[0] or end_class(s, p) == END_NONE)
            and eg_probe(s, p, ply, 0, END_NONE, 0, &score)):
        return score
    if not can_capture(g, p):
        if count_quiet(g, p) == 0:
            return -MATE + ply
        if qply < s.sel.threat_plies and ply < MAXPLY - 3:
            return threat_search(s, p, alpha, beta, ply)
        return evaluate(s.ev, g, p)
    moves = s.buf + ply * MAXMOVES
    n = gen_captures(g, p, moves, &overflow)
    best = -INF
    for i in range(n):
        child = p[0]
        make_move(&child, &moves[i])
        score = -qsearch(s, &child, 0, -beta, -alpha, ply + 1, qply + 1)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best


cdef int threat_search(Searcher* s, const Pos* p, int alpha, int beta, int ply) noexcept nogil:
    """A quiet quiescence leaf (the side to move has moves and no capture). When
    the opponent would have a capture if it were its turn, the static evaluation
    misses a threat: the quiet moves are searched one ply (each reply's captures
    resolved) to see whether it can be parried. The evaluation is kept when it
    is already at most alpha (a threat does not make the position better)."""
    cdef const Geo* g = s.g
    cdef CMove* moves
    cdef Pos child = p[0]
    cdef int n, i, score, best
    cdef int ev = evaluate(s.ev, g, p)
    if ev <= alpha:
        return ev
    child.turn = 1 - p.turn
    if not can_capture(g, &child):
        return ev
    moves = s.buf + ply * MAXMOVES
    n = gen_quiet(g, p, moves, 0)
    best = -INF
    for i in range(n):
        child = p[0]
        make_move(&child, &moves[i])
        score = -qsearch(s, &child, 0, -beta, -alpha, ply + 1, NO_THREAT)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best


cdef inline void history_update(int32_t* h, int bonus) noexcept nogil:
    """A history score moved by ``bonus`` with gravity: it stays within +-HIST_MAX."""
    h[0] += bonus - h[0] * (bonus if bonus >= 0 else -bonus) // HIST_MAX


cdef void history_cutoff(Searcher* s, int turn, const CMove* m, int depth, int ply,
                         int nq) noexcept nogil:
    """History with gravity: a bonus for the quiet move that cut off, a malus for
    the other quiet moves tried at this node (the first ``nq`` of s.quiets[ply])."""
    cdef int bonus = 1024 if depth >= 32 else depth * depth
    cdef int i, code, cut = move_code(m)
    history_update(&s.history[turn][cut >> 6][cut & 63], bonus)
    for i in range(nq):
        code = s.quiets[ply][i]
        if code != cut:
            history_update(&s.history[turn][code >> 6][code & 63], -bonus)


cdef int singular_test(Searcher* s, const Pos* p, uint64_t key, const CMove* moves, int n,
                       int tt_move, int sbeta, int depth, int ply, int rev, int ecls,
                       int eply) noexcept nogil:
    """Whether every move but the TT move fails low against ``sbeta`` at ``depth``
    (a null window just below the TT move's score): then the TT move is singular."""
    cdef int i, score, crev, ccls, ceply
    cdef uint64_t ckey
    cdef Pos child
    cdef const CMove* m
    for i in range(n):
        if i == tt_move:
            continue
        m = &moves[i]
        child = p[0]
        make_move(&child, m)
        ckey = key_after(p, m, key)
        crev = 0 if (m.ncap or not m.king) else rev + 1
        ccls = end_class(s, &child) if s.end_plies[0] else END_NONE
        ceply = eply + 1 if (ccls and ccls == ecls) else 0
        s.keys[s.base + ply + 1] = ckey
        score = -pvs(s, &child, ckey, -sbeta, -sbeta + 1, depth, ply + 1, crev, ccls, ceply, 0)
        if s.stop or score >= sbeta:
            return 0
    return 1


cdef int pvs(Searcher* s, const Pos* p, uint64_t key, int alpha, int beta, int depth, int ply,
             int rev, int ecls, int eply, int is_pv) noexcept nogil:
    """Principal variation search. ``rev``: reversible king moves in a row
    before this position; ``ecls``/``eply``: its endgame class (end_class) and
    the plies since that class began."""
    cdef const Geo* g = s.g
    cdef CMove* moves
    cdef int* order
    cdef TTEntry* e
    cdef int n, i, j, k, bi, score, best, best_i, tt_move, ext, reduction, newdepth
    cdef int orig_alpha = alpha, overflow = 0, crev, flag, tts, ccls, ceply
    cdef int hit = 0, sext = -1, rbeta, nq = 0, hv
    cdef uint64_t ckey, data
    cdef uint16_t code
    cdef Pos child
    cdef const CMove* m

    s.pvlen[ply] = 0
    if ply > 0:
        if s.king_draw_plies and rev >= s.king_draw_plies:
            return 0
        if ecls and eply >= s.end_plies[ecls & 3]:
            return 0
        # The endgame tables before the repetition test: a position seen once
        # before is no draw yet (the third occurrence draws, in every variant), and a won
        # ending may have to pass through one (after the other side's shuffling).
        if (s.eg_pieces and popcount(p.pieces[0] | p.pieces[1]) <= s.eg_pieces
                and eg_probe(s, p, ply, rev, ecls, eply, &score)):
            if score != 0 and occurrences(s, key, ply, rev) >= 2:
                return 0
            return score
        i = 4
        while i <= rev and i <= s.base + ply:
            if s.keys[s.base + ply - i] == key:
                return 0
            i += 2
        # mate distance pruning
        if alpha < -MATE + ply:
            alpha = -MATE + ply
        if beta > MATE - ply - 1:
            beta = MATE - ply - 1
        if alpha >= beta:
            return alpha
    if depth <= 0 or ply >= MAXPLY - 2:
        return qsearch(s, p, key, alpha, beta, ply, 0)
    s.nodes += 1
    check_limits(s)
    if s.stop:
        return 0
    if ply > s.seldepth:
        s.seldepth = ply

    e = &s.tt[key & s.tt_mask]
    data = e.data
    tt_move = 255
    if (e.lock ^ data) == key and tt_flag(data):
        hit = 1
        tt_move = tt_move_of(data)
        if not is_pv and tt_depth(data) >= depth:
            tts = score_from_tt(tt_score(data), ply)
            flag = tt_flag(data)
            if (flag == TT_EXACT or (flag == TT_LOWER and tts >= beta)
                    or (flag == TT_UPPER and tts <= alpha)):
                return tts

    # ProbCut: when a search reduced by probcut_reduction plies fails high
    # against beta + margin, this one is taken to fail high too (fail-soft).
    # The reduced search is of this very node; it does not try ProbCut itself.
    if s.sel.probcut and not is_pv and ply > 0 and depth >= s.sel.probcut_depth:
        if s.pc_skip == ply:
            s.pc_skip = -1
        else:
            rbeta = beta + s.sel.probcut_margin
            if (beta > -MATE_BOUND and rbeta < MATE_BOUND
                    and not (hit and tt_depth(data) >= depth - s.sel.probcut_reduction
                             and tt_flag(data) != TT_LOWER
                             and score_from_tt(tt_score(data), ply) < rbeta)):
                s.pc_skip = ply
                score = pvs(s, p, key, rbeta - 1, rbeta, depth - s.sel.probcut_reduction, ply,
                            rev, ecls, eply, 0)
                s.pc_skip = -1
                if s.stop:
                    return 0
                if score >= rbeta:
                    return score

    moves = s.buf + ply * MAXMOVES
    order = s.order + ply * MAXMOVES
    n = gen_moves(g, p, moves, 0, &overflow)
    if n == 0:
        return -MATE + ply
    ext = 1 if (n == 1 and ply < MAXPLY // 2 and s.sel.single_reply) else 0

    # Singular extension (PV nodes): the TT move, stored as a lower bound (or
    # exact) deep enough, is extended by a ply when every other move fails low
    # against a null window just below its score, at about half the depth.
    if (s.sel.singular and is_pv and hit and ply > 0 and n > 1 and tt_move < n
            and depth >= s.sel.singular_depth and ply < MAXPLY // 2):
        flag = tt_flag(data)
        tts = score_from_tt(tt_score(data), ply)
        if ((flag == TT_LOWER or flag == TT_EXACT) and tt_depth(data) >= depth - 3
                and tts > -MATE_BOUND and tts < MATE_BOUND):
            if singular_test(s, p, key, moves, n, tt_move, tts - s.sel.singular_margin,
                             (depth - 1) // 2, ply, rev, ecls, eply):
                sext = tt_move
            if s.stop:
                return 0

    for i in range(n):
        m = &moves[i]
        if ply == 0 and s.root_skip[i]:
            order[i] = -2000000000
        elif i == tt_move:
            order[i] = 1000000000
        elif m.ncap:
            order[i] = 100000000 + m.ncap
        else:
            code = move_code(m)
            if code == s.killers[ply][0]:
                order[i] = 90000000
            elif code == s.killers[ply][1]:
                order[i] = 80000000
            else:
                order[i] = s.history[p.turn][ctz(m.frm)][ctz(m.to)]
        if ply == 0 and not s.root_skip[i]:
            order[i] = s.root_score[i]
            if i == s.root_best:
                order[i] = 2000000000

    best = -INF
    best_i = -1
    k = 0
    for j in range(n):
        # pick the best remaining move
        bi = -1
        for i in range(n):
            if order[i] != -2000000001 and (bi < 0 or order[i] > order[bi]):
                bi = i
        if bi < 0 or order[bi] == -2000000000:
            break
        order[bi] = -2000000001
        m = &moves[bi]
        child = p[0]
        make_move(&child, m)
        # Late-move pruning, draughts-safe: near the leaves, a late quiet move is
        # skipped only when it gives the opponent no capture (a sacrifice or an
        # exchange offer is never skipped: shots start that way).
        if (not is_pv and depth < 8 and s.lmp[depth] and j >= s.lmp[depth] and not m.ncap
                and best > -MATE_BOUND and not can_capture(g, &child)):
            continue
        ckey = key_after(p, m, key)
        prefetch(&s.tt[ckey & s.tt_mask])
        crev = 0 if (m.ncap or not m.king) else rev + 1
        ccls = end_class(s, &child) if s.end_plies[0] else END_NONE
        ceply = eply + 1 if (ccls and ccls == ecls) else 0
        s.keys[s.base + ply + 1] = ckey
        newdepth = depth - 1 + ext
        if bi == sext:
            newdepth += 1
        if k == 0:
            score = -pvs(s, &child, ckey, -beta, -alpha, newdepth, ply + 1, crev, ccls, ceply, is_pv)
        else:
            reduction = 0
            if depth >= s.sel.lmr_depth and k >= s.sel.lmr_move and not m.ncap:
                reduction = s.lmr[depth if depth < 64 else 63][k if k < 64 else 63]
                if is_pv and reduction > 0:
                    reduction -= 1
                if s.sel.history == 2:
                    hv = s.history[p.turn][ctz(m.frm)][ctz(m.to)]
                    if hv > HIST_MAX // 8 and reduction > 0:
                        reduction -= 1
                    elif hv < -(HIST_MAX // 8):
                        reduction += 1
                if reduction >= newdepth:
                    reduction = newdepth - 1
            score = -pvs(s, &child, ckey, -alpha - 1, -alpha, newdepth - reduction, ply + 1, crev,
                         ccls, ceply, 0)
            if score > alpha and reduction:
                score = -pvs(s, &child, ckey, -alpha - 1, -alpha, newdepth, ply + 1, crev,
                             ccls, ceply, 0)
            if score > alpha and score < beta and is_pv:
                score = -pvs(s, &child, ckey, -beta, -alpha, newdepth, ply + 1, crev,
                             ccls, ceply, 1)
        k += 1
        if s.stop:
            return 0
        if s.sel.history and not m.ncap and nq < MAXQUIETS:
            s.quiets[ply][nq] = move_code(m)
            nq += 1
        if ply == 0:
            s.root_score[bi] = score
        if score > best:
            best = score
            best_i = bi
            if score > alpha:
                alpha = score
                if is_pv:
                    s.pv[ply][0] = m[0]
                    for i in range(s.pvlen[ply + 1]):
                        s.pv[ply][i + 1] = s.pv[ply + 1][i]
                    s.pvlen[ply] = s.pvlen[ply + 1] + 1
                if ply == 0:
                    s.root_best = bi
                if score >= beta:
                    if not m.ncap:
                        code = move_code(m)
                        if s.killers[ply][0] != code:
                            s.killers[ply][1] = s.killers[ply][0]
                            s.killers[ply][0] = code
                        if s.sel.history:
                            history_cutoff(s, p.turn, m, depth, ply, nq)
                        else:
                            s.history[p.turn][ctz(m.frm)][ctz(m.to)] += depth * depth
                    break

    if best_i < 0:
        return alpha
    flag = TT_EXACT
    if best <= orig_alpha:
        flag = TT_UPPER
    elif best >= beta:
        flag = TT_LOWER
    data = e.data
    if ((e.lock ^ data) != key or depth >= tt_depth(data) or tt_gen_of(data) != s.tt_gen
            or flag == TT_EXACT):
        data = tt_pack(score_to_tt(best, ply), depth, flag, best_i if best_i < 255 else 255,
                       s.tt_gen)
        e.data = data
        e.lock = key ^ data
    return best


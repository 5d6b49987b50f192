# Included by _core.pyx (after _order.pxi): the quiescence search below the horizon,
# which resolves every capture sequence, and its threat-aware quiet leaves.


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
        return search_eval(s, p)
    if g.goal == GOAL_CROWN and p.kings:
        return crowned_score(p, ply)
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
            return no_move_score(g, ply)
        if qply < s.sel.threat_plies and ply < MAXPLY - 3:
            return threat_search(s, p, alpha, beta, ply)
        return search_eval(s, p)
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
    cdef int ev = search_eval(s, p)
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

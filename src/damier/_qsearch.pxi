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
        if ply < MAXPLY - 3:
            if qply < s.sel.threat_plies and (
                    threatened(g, p) or (s.sel.promo_qsearch >= 2 and g.goal != GOAL_MISERE
                                         and crowning_squares(g, p, 1 - p.turn))):
                return threat_search(s, p, alpha, beta, ply)
            if qply < s.sel.shot_plies:
                return shot_search(s, p, alpha, beta, ply, qply)
            if (s.sel.promo_qsearch and g.goal != GOAL_MISERE
                    and crowning_squares(g, p, p.turn)):
                return promo_search(s, p, alpha, beta, ply, qply)
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


cdef inline uint64_t crowning_squares(const Geo* g, const Pos* p, int c) noexcept nogil:
    """The empty squares of the crowning row that a man of colour ``c`` reaches with
    one non-capturing move (it would be crowned there)."""
    cdef uint64_t men = p.pieces[c] & ~p.kings
    cdef uint64_t empty = g.promo[c] & g.mask & ~(p.pieces[0] | p.pieces[1])
    cdef uint64_t x = 0
    cdef int d
    if men == 0 or empty == 0:
        return 0
    for d in range(g.mm0[c], g.mm1[c]):
        x |= sh(g, men, d) & empty
    return x


cdef int promo_search(Searcher* s, const Pos* p, int alpha, int beta, int ply,
                      int qply) noexcept nogil:
    """A quiet quiescence leaf where the side to move can crown a man: its static
    evaluation stands (it need not crown now), and each crowning move is searched,
    the opponent's captures after it resolved. The evaluation values a man one step
    from the crowning row as a man (and a runaway one a little more), where the king it
    becomes is worth some three men: without this, a crowning just past the horizon
    is missed. Each crowning takes a man off, so these searches end."""
    cdef CMove* moves
    cdef Pos child
    cdef int n, i, score
    cdef int best = search_eval(s, p)
    if best >= beta:
        return best
    if best > alpha:
        alpha = best
    moves = s.buf + ply * MAXMOVES
    n = gen_quiet(s.g, p, moves, 0)
    for i in range(n):
        if not moves[i].promote:
            continue
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


cdef inline bint threatened(const Geo* g, const Pos* p) noexcept nogil:
    """Whether the opponent of the side to move would have a capture if it were
    its turn (a threat the static evaluation misses)."""
    cdef Pos other = p[0]
    other.turn = 1 - p.turn
    return can_capture(g, &other)


cdef int threat_search(Searcher* s, const Pos* p, int alpha, int beta, int ply) noexcept nogil:
    """A quiet quiescence leaf (the side to move has moves and no capture) under a
    threat (``threatened``): the static evaluation misses it, so the quiet moves
    are searched one ply (each reply's captures resolved) to see whether it can
    be parried. The evaluation is kept when it is already at most alpha (a
    threat does not make the position better)."""
    cdef const Geo* g = s.g
    cdef CMove* moves
    cdef Pos child
    cdef int n, i, score, best
    cdef int ev = search_eval(s, p)
    if ev <= alpha:
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


cdef bint answers_every_capture(Searcher* s, const Pos* p, int ply) noexcept nogil:
    """Whether after each capture the side to move in ``p`` can make (its moves
    generated at ``ply``), its opponent has a capture in turn: a sacrifice that the
    opponent can take without giving anything back is no shot."""
    cdef CMove* moves = s.buf + ply * MAXMOVES
    cdef int n, i, overflow = 0
    cdef Pos child
    n = gen_captures(s.g, p, moves, &overflow)
    for i in range(n):
        child = p[0]
        make_move(&child, &moves[i])
        if not can_capture(s.g, &child):
            return False
    return True


cdef int shot_search(Searcher* s, const Pos* p, int alpha, int beta, int ply,
                     int qply) noexcept nogil:
    """A quiet quiescence leaf where the side to move may have a shot: its static
    evaluation stands (it need not play a forcing move), and each quiet move that
    gives the opponent a capture (a sacrifice or an exchange offer: the reply is
    forced) is searched, the captures that follow resolved. A combination that
    starts with a sacrifice at the horizon is then seen (the evaluation misses
    it). A sacrifice after which no other can follow is searched only when each of
    the opponent's captures can be answered by one (otherwise the opponent just
    takes a man). With ``sel.shot_margin``, only when the evaluation is within that
    many centi-men of alpha (a shot rarely wins more)."""
    cdef const Geo* g = s.g
    cdef CMove* moves
    cdef Pos child
    cdef int n, i, score
    cdef int best = search_eval(s, p)
    if best >= beta or (s.sel.shot_margin and best + s.sel.shot_margin <= alpha):
        return best
    if best > alpha:
        alpha = best
    moves = s.buf + ply * MAXMOVES
    n = gen_quiet(g, p, moves, 0)
    for i in range(n):
        child = p[0]
        make_move(&child, &moves[i])
        if not can_capture(g, &child):
            continue
        # No second sacrifice can follow (its quiet leaf would be at qply + 2): a
        # sacrifice is a shot only when every capture of it can be answered.
        if qply + 2 >= s.sel.shot_plies and not answers_every_capture(s, &child, ply + 1):
            continue
        score = -qsearch(s, &child, 0, -beta, -alpha, ply + 1, qply + 1)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best

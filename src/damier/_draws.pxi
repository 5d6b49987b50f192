# Included by _core.pyx (after _searcher.pxi): the draw rules the search sees (the
# repetition of a position, the king-move count, the endgame move-count rules) and
# the probe of the endgame tables under them.


cdef inline int end_class(const Searcher* s, const Pos* p) noexcept nogil:
    """The class of material of an endgame move-count rule that is switched on
    (0: none), tried in the order of :func:`damier.outcome.outcome`. A class is
    its kind (``& 7``, the index of its limit in ``end_plies``) plus 8 times what
    else must stay the same for its count to run on: the number of pieces of three
    kings against a lone king (a capture starts a new count, as the Russian rule
    wants), which side has the two kings (Frisian), which of the two single pieces
    are kings (Turkish: a crowning starts a new count)."""
    cdef uint64_t wk = p.pieces[1] & p.kings, bk = p.pieces[0] & p.kings
    cdef int other = 0, other_kings = 0
    cdef int nw = popcount(p.pieces[1]), nb = popcount(p.pieces[0])
    if (p.pieces[1] & ~p.kings) == 0 and popcount(wk) == 1:
        other_kings = popcount(bk)
        other = nb
    elif (p.pieces[0] & ~p.kings) == 0 and popcount(bk) == 1:
        other_kings = popcount(wk)
        other = nw
    if other_kings:
        if other <= 2 and s.end_plies[END_FIVE]:
            return END_FIVE
        if other == 3 and s.end_plies[END_SIXTEEN]:
            return END_SIXTEEN
        if other == other_kings and other >= 3 and s.end_plies[END_THREE_KINGS]:
            return END_THREE_KINGS + 8 * other
    if nw == 1 and nb == 1 and s.end_plies[END_ONE_EACH]:
        return END_ONE_EACH + 8 * ((wk != 0) + 2 * (bk != 0))
    if p.kings == (p.pieces[0] | p.pieces[1]) and nw and nb:
        if nw == 1 and nb == 1 and s.end_plies[END_KING_KING]:
            return END_KING_KING
        if nw + nb == 3 and s.end_plies[END_TWO_KINGS]:
            return END_TWO_KINGS + 8 * (nw == 2)
    return END_NONE


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
        score[0] = DRAW_SCORE
        return 1
    n = v - 1
    if ecls and eply + n >= s.end_plies[ecls & 7]:
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


cdef inline bint repeated(const Searcher* s, uint64_t key, int ply, int rev) noexcept nogil:
    """Whether the position of ``key`` at ``ply`` occurred before (the search scores
    a repetition as a draw at once)."""
    cdef int i = 4
    while i <= rev and i <= s.base + ply:
        if s.keys[s.base + ply - i] == key:
            return True
        i += 2
    return False

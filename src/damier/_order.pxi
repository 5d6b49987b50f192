# Included by _core.pyx (after _draws.pxi): move ordering. The moves of a node are
# scored once (the TT move first, then captures, killers and the quiet moves by
# their history) and picked best first; the killers and the history learn from
# the moves that cut off.

# Order scores. Quiet moves that are no killers score their history, far below
# the killers'.
cdef enum:
    ORDER_ROOT_BEST = 2000000000   # the root's best move so far (the last iteration's)
    ORDER_TT_MOVE = 1000000000     # the transposition table's move
    ORDER_CAPTURE = 100000000      # a capture, plus the pieces it takes
    ORDER_KILLER_1 = 90000000      # the node's newest killer
    ORDER_KILLER_2 = 80000000      # its older killer
    ORDER_PARRY = 1000000          # added to a quiet move that parries a threat (threat_order)
    ORDER_SKIPPED = -2000000000    # a root move left out (multi-PV): never searched
    ORDER_DONE = -2000000001       # a move already picked

# History: a cutoff's bonus is depth^2 up to HIST_BONUS_DEPTH; with gravity
# (Selectivity.history >= 1) the scores stay within +-HIST_MAX.
cdef enum:
    HIST_MAX = 16384
    HIST_BONUS_DEPTH = 32
    HIST_LMR_MARGIN = HIST_MAX // 8   # history 2: a history beyond +-this changes the reduction


cdef inline uint16_t move_code(const CMove* m) noexcept nogil:
    return <uint16_t>((ctz(m.frm) << 6) | ctz(m.to))


cdef inline int32_t* history_of(Searcher* s, int turn, const CMove* m) noexcept nogil:
    return &s.history[turn][ctz(m.frm)][ctz(m.to)]


cdef inline int32_t* cont_of(Searcher* s, int turn, int ply, int code, int back) noexcept nogil:
    """The continuation history of the move ``code`` at ``ply`` after the move
    ``back`` plies before it (1: the opponent's last move, the counter-move history;
    2: the side's own move before, the follow-up history), by that move's destination
    square; ``ply`` at least ``back``."""
    return &s.conthist[((((back - 1) << 1 | turn) << 6 | s.prev_to[ply + 1 - back]) << 12)
                       | code]


cdef inline void history_update(int32_t* h, int bonus) noexcept nogil:
    """A history score moved by ``bonus`` with gravity: it stays within +-HIST_MAX."""
    h[0] += bonus - h[0] * (bonus if bonus >= 0 else -bonus) // HIST_MAX


cdef inline int cont_score(Searcher* s, int turn, int ply, int code) noexcept nogil:
    """What the continuation histories add to a quiet move's order score (cont_history
    1: the counter-move one; 2: the follow-up one too)."""
    cdef int v = cont_of(s, turn, ply, code, 1)[0]
    if s.sel.cont_history >= 2 and ply >= 2:
        v += cont_of(s, turn, ply, code, 2)[0]
    return v


cdef inline void cont_update(Searcher* s, int turn, int ply, int code, int bonus) noexcept nogil:
    history_update(cont_of(s, turn, ply, code, 1), bonus)
    if s.sel.cont_history >= 2 and ply >= 2:
        history_update(cont_of(s, turn, ply, code, 2), bonus)


cdef inline void order_moves(Searcher* s, const Pos* p, const CMove* moves, int* order, int n,
                             int ply, int tt_move) noexcept nogil:
    """Order scores of the moves of a node below the root."""
    cdef int i
    cdef uint16_t code
    cdef const CMove* m
    cdef Pos child
    cdef bint cont = s.sel.cont_history and ply > 0
    # With threat_order, at a node whose opponent threatens a capture (the moves are
    # quiet: a capture would be compulsory), the quiet moves that parry it (after which
    # the opponent has none) go before the other quiet moves (not before the killers).
    cdef bint parry = s.sel.threat_order and n > 0 and not moves[0].ncap and threatened(s.g, p)
    for i in range(n):
        m = &moves[i]
        if i == tt_move:
            order[i] = ORDER_TT_MOVE
        elif m.ncap:
            order[i] = ORDER_CAPTURE + m.ncap
        else:
            code = move_code(m)
            if code == s.killers[ply][0]:
                order[i] = ORDER_KILLER_1
            elif code == s.killers[ply][1]:
                order[i] = ORDER_KILLER_2
            else:
                order[i] = history_of(s, p.turn, m)[0]
                if cont:
                    order[i] += cont_score(s, p.turn, ply, code)
                if parry:
                    child = p[0]
                    make_move(&child, m)
                    if not can_capture(s.g, &child):
                        order[i] += ORDER_PARRY


cdef inline void order_root_moves(const Searcher* s, int* order, int n) noexcept nogil:
    """Order scores of the root moves: the best move so far first, then the others by
    their scores of the last iteration; the moves left out last, never searched."""
    cdef int i
    for i in range(n):
        if s.root_skip[i]:
            order[i] = ORDER_SKIPPED
        elif i == s.root_best:
            order[i] = ORDER_ROOT_BEST
        else:
            order[i] = s.root_score[i]


cdef inline int pick_move(int* order, int n) noexcept nogil:
    """The index of the best move not yet picked, marked picked; -1 when none is
    left to search (ORDER_DONE and ORDER_SKIPPED are below every other score)."""
    cdef int i, bi = 0, best = order[0]
    for i in range(1, n):
        if order[i] > best:
            best = order[i]
            bi = i
    if best <= ORDER_SKIPPED:
        return -1
    order[bi] = ORDER_DONE
    return bi


cdef void history_cutoff(Searcher* s, int turn, const CMove* m, int depth, int ply,
                         int nq) noexcept nogil:
    """History with gravity: a bonus for the quiet move that cut off, a malus for
    the other quiet moves tried at this node (the first ``nq`` of s.quiets[ply]);
    depth^2 (up to HIST_BONUS_DEPTH) times history_bonus percent, within 1..HIST_MAX."""
    cdef int bonus = (HIST_BONUS_DEPTH * HIST_BONUS_DEPTH if depth >= HIST_BONUS_DEPTH
                      else depth * depth)
    if s.sel.history_bonus != 100:
        bonus = bonus * s.sel.history_bonus // 100
        if bonus < 1:
            bonus = 1
        elif bonus > HIST_MAX:
            bonus = HIST_MAX
    cdef int i, code, cut = move_code(m)
    cdef bint cont = s.sel.cont_history and ply > 0
    history_update(&s.history[turn][cut >> 6][cut & 63], bonus)
    if cont:
        cont_update(s, turn, ply, cut, bonus)
    for i in range(nq):
        code = s.quiets[ply][i]
        if code != cut:
            history_update(&s.history[turn][code >> 6][code & 63], -bonus)
            if cont:
                cont_update(s, turn, ply, code, -bonus)


cdef inline void quiet_cutoff(Searcher* s, int turn, const CMove* m, int depth, int ply,
                              int nq) noexcept nogil:
    """What a quiet move that cut off teaches: it becomes the ply's first killer,
    and its history rises (the history of the quiet moves tried before it falls,
    with gravity)."""
    cdef uint16_t code = move_code(m)
    if s.killers[ply][0] != code:
        s.killers[ply][1] = s.killers[ply][0]
        s.killers[ply][0] = code
    if s.sel.history:
        history_cutoff(s, turn, m, depth, ply, nq)
    else:
        history_of(s, turn, m)[0] += depth * depth


cdef inline int remember_quiet(Searcher* s, const CMove* m, int ply, int nq) noexcept nogil:
    """Adds a quiet move searched at ``ply`` to those the history malus lowers;
    returns their number."""
    if s.sel.history and not m.ncap and nq < MAXQUIETS:
        s.quiets[ply][nq] = move_code(m)
        nq += 1
    return nq

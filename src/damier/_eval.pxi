# Included by _core.pyx (first of the search files): the static evaluation, one
# linear function of a feature vector, and the Python-facing evaluate_from_features.
# No Python objects in the hot path.

DEF NPST = 50
DEF NTERMS = 13            # terms besides the man table (see EVAL_TERM_NAMES)

# ---------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------
# The evaluation is linear in its weights: score = sum(weight[i] * feature[i]),
# White minus Black, from the side to move's point of view in the search. The
# weights live in a data file (damier/data/eval_<variant>.json) tuned by
# damier.tuning; `eval_features` exposes the feature vector for that tuning.

EVAL_TERM_NAMES = (
    "man",            # men
    "king_opening",   # kings, weighted by the share of men still on the board
    "king_endgame",   # kings, weighted by the share of men gone
    "king_mobility",  # empty squares the kings see
    "king_diagonal",  # kings on the main diagonal
    "balance",        # |men on the left wing - men on the right wing|
    "blocked",        # men with no free square ahead
    "runaway",        # men with no enemy piece in their path to the crowning row
    "outpost",        # advanced centre men supported by two men behind
    "exchange",       # lead in pieces times the share of pieces gone (scaled by 256)
    "breakthrough",   # men with at most one enemy piece in their path (runaways excluded)
    "mobility",       # forward steps open to men (tempo reserve; low in locked formations)
    "kings_lead",     # lead in pieces when both sides have a king (such endings often draw)
)

# Terms whose features are scaled by 256 (their sum is divided once, at the end).
SCALED_TERMS = (1, 2, 9)

ctypedef struct EvalParams:
    int term[NTERMS]
    int pst[NPST]            # per square, as White sees it (Black mirrored)
    int tempo                # bonus for the side to move

ctypedef struct EvalTables:
    int initial_men
    uint64_t left            # left half of the board (as White sees it)
    uint64_t diagonal        # the main (long) diagonal
    uint64_t outpost[2]      # squares where an outpost counts, [black, white]
    uint64_t cone[2][64]     # squares ahead of a man on a bit, [black, white]
    uint64_t behind[2][64]   # the two squares diagonally behind a man
    int pst_index[2][64]     # index into pst for a man of [black, white] on a bit

cdef EvalParams EVAL[MAX_VARIANTS]
cdef EvalTables ETAB[MAX_VARIANTS]


cdef void _init_eval_tables(int v):
    cdef Geo* g = &GEOS[v]
    cdef EvalTables* t = &ETAB[v]
    cdef int s, b, r, c, r2, c2, size = g.size
    cdef uint64_t bit
    t.initial_men = 2 * (g.nsq // 2 - g.per_row)
    t.left = 0
    t.diagonal = 0
    t.outpost[0] = 0
    t.outpost[1] = 0
    for b in range(64):
        t.cone[0][b] = 0
        t.cone[1][b] = 0
        t.behind[0][b] = 0
        t.behind[1][b] = 0
        t.pst_index[0][b] = 0
        t.pst_index[1][b] = 0
    for s in range(1, g.nsq + 1):
        b = g.bit_of_sq[s]
        bit = (<uint64_t>1) << b
        r = (s - 1) // g.per_row
        c = 2 * ((s - 1) % g.per_row) + (1 if r % 2 == 0 else 0)
        if c < size // 2:
            t.left |= bit
        if r + c == size - 1:           # from the bottom-left corner to the top-right
            t.diagonal |= bit
        if r == size // 2 - 1:
            t.outpost[1] |= bit
        if r == size // 2:
            t.outpost[0] |= bit
        t.pst_index[1][b] = s - 1
        t.pst_index[0][b] = g.nsq - s
        for s2 in range(1, g.nsq + 1):
            r2 = (s2 - 1) // g.per_row
            c2 = 2 * ((s2 - 1) % g.per_row) + (1 if r2 % 2 == 0 else 0)
            if r2 < r and abs(c2 - c) <= r - r2:
                t.cone[1][b] |= (<uint64_t>1) << g.bit_of_sq[s2]
            if r2 > r and abs(c2 - c) <= r2 - r:
                t.cone[0][b] |= (<uint64_t>1) << g.bit_of_sq[s2]
            if r2 == r + 1 and abs(c2 - c) == 1:
                t.behind[1][b] |= (<uint64_t>1) << g.bit_of_sq[s2]
            if r2 == r - 1 and abs(c2 - c) == 1:
                t.behind[0][b] |= (<uint64_t>1) << g.bit_of_sq[s2]


cdef void _default_eval_params(int v):
    """Material only, until weights are loaded (``set_eval_params``)."""
    memset(&EVAL[v], 0, sizeof(EvalParams))
    EVAL[v].term[0] = 100
    EVAL[v].term[1] = 300
    EVAL[v].term[2] = 300


cdef inline int king_sight(const Geo* g, uint64_t kings, uint64_t empty) noexcept nogil:
    cdef int d, n = 0
    cdef uint64_t x
    for d in range(4):
        x = sh(g, kings, d) & empty
        while x:
            n += popcount(x)
            if not g.flying:
                break
            x = sh(g, x, d) & empty
    return n


cdef void eval_features(const Geo* g, const Pos* p, int* f, int* pst) noexcept nogil:
    """Fills ``f[NTERMS]`` (White minus Black; the king terms scaled by 256) and
    ``pst[NPST]`` (men per table square, White minus Black)."""
    cdef const EvalTables* t = &ETAB[g.variant]
    cdef uint64_t occ = p.pieces[0] | p.pieces[1]
    cdef uint64_t empty = g.mask & ~occ
    cdef uint64_t men[2]
    cdef uint64_t kings[2]
    cdef uint64_t x, b, ahead, step0, step1
    cdef int c, sign, nmen, i, fwd0, fwd1, enemies
    cdef int nm[2]
    cdef int nk[2]
    for i in range(NTERMS):
        f[i] = 0
    for i in range(NPST):
        pst[i] = 0
    for c in range(2):
        men[c] = p.pieces[c] & ~p.kings
        kings[c] = p.pieces[c] & p.kings
        nm[c] = popcount(men[c])
        nk[c] = popcount(kings[c])
    nmen = nm[0] + nm[1]
    f[9] = exchange_feature(t, nm[1] + nk[1], nm[0] + nk[0])
    if nk[0] and nk[1]:
        f[12] = (nm[1] + nk[1]) - (nm[0] + nk[0])
    for c in range(2):
        sign = 1 if c == 1 else -1
        f[0] += sign * nm[c]
        f[1] += sign * nk[c] * nmen * 256 // t.initial_men
        f[2] += sign * nk[c] * (t.initial_men - nmen) * 256 // t.initial_men
        if kings[c]:
            f[3] += sign * king_sight(g, kings[c], empty)
            f[4] += sign * popcount(kings[c] & t.diagonal)
        f[5] += sign * abs(popcount(men[c] & t.left) - popcount(men[c] & ~t.left))
        fwd0 = 0 if c == 1 else 2
        fwd1 = fwd0 + 1
        step0 = men[c] & sh_back(g, empty, fwd0)
        step1 = men[c] & sh_back(g, empty, fwd1)
        f[6] += sign * popcount(men[c] & ~(step0 | step1))
        f[11] += sign * (popcount(step0) + popcount(step1))
        x = men[c]
        while x:
            b = x & (~x + 1)
            x ^= b
            i = ctz(b)
            pst[t.pst_index[c][i]] += sign
            ahead = t.cone[c][i]
            enemies = popcount(ahead & p.pieces[1 - c])
            if enemies == 0 and kings[1 - c] == 0:
                f[7] += sign
            elif enemies <= 1:
                f[10] += sign
            if (b & t.outpost[c]) and (t.behind[c][i] & ~p.pieces[c]) == 0:
                f[8] += sign


cdef inline int eval_divisor(const Geo* g, const Pos* p) noexcept nogil:
    """16 when a lone king faces at most three pieces in a variant where that
    is usually a draw (flying kings; the registry's ``lone_king_drawish``: a
    draw under the 16- and 5-move rules unless the king is caught at once, so
    the score is scaled right down), else 1."""
    cdef int nw = popcount(p.pieces[1]), nb = popcount(p.pieces[0])
    if g.lone_king_drawish and ((nb == 1 and (p.pieces[0] & p.kings) and nw <= 3)
                                or (nw == 1 and (p.pieces[1] & p.kings) and nb <= 3)):
        return 16
    return 1


cdef inline int exchange_feature(const EvalTables* t, int white, int black) noexcept nogil:
    """The lead in pieces times the share of pieces gone, scaled by 256: trading
    down is good for the side ahead."""
    return (white - black) * (t.initial_men - white - black) * 256 // t.initial_men


cdef int evaluate(const EvalParams* e, const Geo* g, const Pos* p) noexcept nogil:
    """Static evaluation in centi-men from the side to move's point of view.

    The same weighted sum as ``eval_features`` (tests check that they agree),
    computed directly for speed."""
    cdef const EvalTables* t = &ETAB[g.variant]
    cdef uint64_t empty = g.mask & ~(p.pieces[0] | p.pieces[1])
    cdef uint64_t men, kings, x, b, step0, step1, enemy_kings
    cdef int c, sign, nmen, i, fwd0, side, enemies, k_open = 0, k_end = 0
    cdef int score = 0
    cdef int nw = popcount(p.pieces[1]), nb = popcount(p.pieces[0])
    cdef int nk[2]
    nk[0] = popcount(p.pieces[0] & p.kings)
    nk[1] = popcount(p.pieces[1] & p.kings)
    nmen = nw + nb - nk[0] - nk[1]
    for c in range(2):
        sign = 1 if c == 1 else -1
        men = p.pieces[c] & ~p.kings
        kings = p.pieces[c] & p.kings
        side = e.term[0] * popcount(men)
        if kings:
            k_open += sign * nk[c] * nmen * 256 // t.initial_men
            k_end += sign * nk[c] * (t.initial_men - nmen) * 256 // t.initial_men
            side += e.term[3] * king_sight(g, kings, empty) + e.term[4] * popcount(kings & t.diagonal)
        i = popcount(men & t.left) - popcount(men & ~t.left)
        side += e.term[5] * (i if i >= 0 else -i)
        fwd0 = 0 if c == 1 else 2
        step0 = men & sh_back(g, empty, fwd0)
        step1 = men & sh_back(g, empty, fwd0 + 1)
        side += e.term[6] * popcount(men & ~(step0 | step1))
        side += e.term[11] * (popcount(step0) + popcount(step1))
        enemy_kings = p.pieces[1 - c] & p.kings
        x = men
        while x:
            b = x & (~x + 1)
            x ^= b
            i = ctz(b)
            side += e.pst[t.pst_index[c][i]]
            enemies = popcount(t.cone[c][i] & p.pieces[1 - c])
            if enemies == 0 and enemy_kings == 0:
                side += e.term[7]
            elif enemies <= 1:
                side += e.term[10]
            if (b & t.outpost[c]) and (t.behind[c][i] & ~p.pieces[c]) == 0:
                side += e.term[8]
        score += sign * side
    score += (e.term[1] * k_open + e.term[2] * k_end
              + e.term[9] * exchange_feature(t, nw, nb)) // 256
    if nk[0] and nk[1]:
        score += e.term[12] * (nw - nb)
    score //= eval_divisor(g, p)
    return (score if p.turn == 1 else -score) + e.tempo


def evaluate_from_features(CoreBoard board) -> int:
    """The evaluation recomputed from ``eval_features`` and the weights (slow;
    for tests that check ``evaluate`` against the features used in tuning)."""
    cdef const Geo* g = board._g
    cdef const Pos* p = &board._pos
    cdef const EvalParams* e = &EVAL[g.variant]
    cdef int f[NTERMS]
    cdef int pst[NPST]
    cdef int i, score
    cdef int nw = popcount(p.pieces[1]), nb = popcount(p.pieces[0])
    eval_features(g, p, f, pst)
    score = e.term[0] * f[0] + (e.term[1] * f[1] + e.term[2] * f[2] + e.term[9] * f[9]) // 256
    for i in range(3, NTERMS):
        if i != 9:
            score += e.term[i] * f[i]
    for i in range(g.nsq):
        score += e.pst[i] * pst[i]
    score //= eval_divisor(g, p)
    return (score if p.turn == 1 else -score) + e.tempo

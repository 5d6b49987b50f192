# Included by _core.pyx: evaluation and search (no Python objects in the hot path).

from libc.stdint cimport int16_t, int8_t, uint16_t, uint32_t, int32_t
from libc.stdlib cimport calloc
from libc.math cimport log
from libc.string cimport memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    static inline void dm_prefetch(const void* p) { __builtin_prefetch(p); }
    /* A zeroed block aligned to 2 MiB, with transparent huge pages asked for on
       Linux: the transposition table is probed at random, so TLB misses matter. */
    static void* dm_alloc_table(size_t bytes) {
        void* p = NULL;
        size_t align = 2u << 20;
        size_t rounded = (bytes + align - 1) / align * align;
        if (posix_memalign(&p, align, rounded) != 0) return NULL;
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        madvise(p, rounded, MADV_HUGEPAGE);
    #endif
        memset(p, 0, bytes);
        return p;
    }
    """
    void prefetch "dm_prefetch"(const void* p) nogil
    void* alloc_table "dm_alloc_table"(size_t bytes) nogil

DEF INF = 32000
DEF MATE = 31000
DEF MATE_BOUND = 30000     # |score| above this is a forced win/loss
DEF MAXPLY = 96
DEF DEFAULT_LMR_DIVISOR = 1.5
DEF NPST = 50
DEF NTERMS = 13            # terms besides the man table (see EVAL_TERM_NAMES)
DEF MAX_HELPERS = 63       # helper threads of the lazy SMP search

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


# ---------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------

# A transposition-table entry is two 64-bit words: the packed data, and the key
# XOR the data. Threads of the lazy SMP search write entries without locks; an
# entry torn by two writers fails the key check and reads as a miss.
ctypedef struct TTEntry:
    uint64_t lock            # key ^ data
    uint64_t data            # score:16 | depth:8 | flag:8 | move:8 | gen:8

DEF TT_UPPER = 1
DEF TT_LOWER = 2
DEF TT_EXACT = 3

# Classes of material for the endgame move-count rules (see end_class).
DEF END_NONE = 0
DEF END_FIVE = 1             # a lone king against one or two pieces with a king
DEF END_SIXTEEN = 2          # a lone king against three pieces with a king
DEF END_THREE_KINGS = 3      # Russian: a lone king against three or more kings


cdef inline uint64_t tt_pack(int score, int depth, int flag, int move, int gen) noexcept nogil:
    return ((<uint64_t>(<uint16_t>score)) | ((<uint64_t>(<uint8_t>depth)) << 16)
            | ((<uint64_t>flag) << 24) | ((<uint64_t>move) << 32) | ((<uint64_t>gen) << 40))


cdef inline int tt_score(uint64_t d) noexcept nogil:
    return <int16_t>(d & 0xFFFF)


cdef inline int tt_depth(uint64_t d) noexcept nogil:
    return <int8_t>((d >> 16) & 0xFF)


cdef inline int tt_flag(uint64_t d) noexcept nogil:
    return <int>((d >> 24) & 0xFF)


cdef inline int tt_move_of(uint64_t d) noexcept nogil:
    return <int>((d >> 32) & 0xFF)


cdef inline int tt_gen_of(uint64_t d) noexcept nogil:
    return <int>((d >> 40) & 0xFF)


ctypedef struct Searcher:
    const Geo* g
    EvalParams ev            # the evaluation weights of this search
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
    void** helpers           # the main thread's view of its helpers (Searcher*)
    int nhelpers


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


cdef int qsearch(Searcher* s, const Pos* p, uint64_t key, int alpha, int beta, int ply) noexcept nogil:
    """Resolves every capture sequence: captures are compulsory, so a position
    with a capture pending is never evaluated statically."""
    cdef const Geo* g = s.g
    cdef CMove* moves
    cdef int n, i, score, best, overflow = 0
    cdef Pos child
    s.nodes += 1
    check_limits(s)
    if ply > s.seldepth:
        s.seldepth = ply
    if ply >= MAXPLY - 1 or s.stop:
        return evaluate(&s.ev, g, p)
    if not can_capture(g, p):
        if count_quiet(g, p) == 0:
            return -MATE + ply
        return evaluate(&s.ev, g, p)
    moves = s.buf + ply * MAXMOVES
    n = gen_captures(g, p, moves, &overflow)
    best = -INF
    for i in range(n):
        child = p[0]
        make_move(&child, &moves[i])
        score = -qsearch(s, &child, 0, -beta, -alpha, ply + 1)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best


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
        return qsearch(s, p, key, alpha, beta, ply)
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
        tt_move = tt_move_of(data)
        if not is_pv and tt_depth(data) >= depth:
            tts = score_from_tt(tt_score(data), ply)
            flag = tt_flag(data)
            if (flag == TT_EXACT or (flag == TT_LOWER and tts >= beta)
                    or (flag == TT_UPPER and tts <= alpha)):
                return tts

    moves = s.buf + ply * MAXMOVES
    order = s.order + ply * MAXMOVES
    n = gen_moves(g, p, moves, 0, &overflow)
    if n == 0:
        return -MATE + ply
    ext = 1 if (n == 1 and ply < MAXPLY // 2) else 0

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
        if k == 0:
            score = -pvs(s, &child, ckey, -beta, -alpha, newdepth, ply + 1, crev, ccls, ceply, is_pv)
        else:
            reduction = 0
            if depth >= 3 and k >= 2 and not m.ncap:
                reduction = s.lmr[depth if depth < 64 else 63][k if k < 64 else 63]
                if is_pv and reduction > 0:
                    reduction -= 1
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


cdef void helper_iterate(Searcher* h, const Pos* root, uint64_t key, int rev, int ecls, int eply,
                         int first, int max_depth) noexcept nogil:
    """A lazy SMP helper: iterative deepening of the root until stopped, sharing
    what it finds through the transposition table."""
    cdef int d
    for d in range(first, max_depth + 1):
        pvs(h, root, key, -INF, INF, d, 0, rev, ecls, eply, 1)
        if h.stop:
            break

# ---------------------------------------------------------------------------
# Python objects: the search state of an engine
# ---------------------------------------------------------------------------

cdef Searcher* new_searcher() noexcept:
    cdef Searcher* s = <Searcher*>calloc(1, sizeof(Searcher))
    if s == NULL:
        return NULL
    s.buf = <CMove*>malloc(MAXPLY * MAXMOVES * sizeof(CMove))
    s.order = <int*>malloc(MAXPLY * MAXMOVES * sizeof(int))
    if s.buf == NULL or s.order == NULL:
        free(s.buf)
        free(s.order)
        free(s)
        return NULL
    fill_lmr(s.lmr, DEFAULT_LMR_DIVISOR)
    return s


cdef void free_searcher(Searcher* s) noexcept:
    if s != NULL:
        free(s.buf)
        free(s.order)
        free(s.helpers)
        free(s)


cdef void clear_heuristics(Searcher* s) noexcept nogil:
    memset(s.history, 0, sizeof(s.history))
    memset(s.killers, 0, sizeof(s.killers))


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
    cdef EvalParams own_eval[MAX_VARIANTS]
    cdef int has_own_eval[MAX_VARIANTS]
    cdef Pos _root
    cdef int _rev
    cdef int _ecls
    cdef int _eply
    cdef int _last_variant

    def __cinit__(self, int hash_mb=64):
        self.s = new_searcher()
        if self.s == NULL:
            raise MemoryError()
        self.s.helpers = <void**>calloc(MAX_HELPERS, sizeof(void*))
        if self.s.helpers == NULL:
            raise MemoryError()
        self.nhelpers = 0
        self._last_variant = -1
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
        fill_lmr(self.s.lmr, divisor)
        for i in range(self.nhelpers):
            fill_lmr(self.helpers[i].lmr, divisor)

    def set_pruning(self, moves_by_depth):
        """Late-move pruning: at depth ``d`` (1 to 7) of a non-PV node, quiet
        moves after the first ``moves_by_depth[d - 1]`` are skipped when they
        give the opponent no capture; 0 (or a shorter list) leaves a depth alone."""
        cdef int d, i
        values = [int(x) for x in moves_by_depth]
        if len(values) > 7 or any(x < 0 for x in values):
            raise ValueError("expected at most 7 move counts, none negative")
        for d in range(8):
            self.s.lmp[d] = values[d - 1] if 1 <= d <= len(values) else 0
            for i in range(self.nhelpers):
                self.helpers[i].lmp[d] = self.s.lmp[d]

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
        if hash_mb < 1:
            raise ValueError("hash size must be at least 1 MiB")
        while entries * 2 * sizeof(TTEntry) <= (<uint64_t>hash_mb) * 1024 * 1024:
            entries *= 2
        if self.tt != NULL:
            free(self.tt)
        self.tt = <TTEntry*>alloc_table(entries * sizeof(TTEntry))
        if self.tt == NULL:
            raise MemoryError()
        self.tt_entries = entries
        self.s.tt = self.tt
        self.s.tt_mask = entries - 1
        for i in range(self.nhelpers):
            self.helpers[i].tt = self.tt
            self.helpers[i].tt_mask = entries - 1

    @property
    def hash_entries(self) -> int:
        return self.tt_entries

    def set_weights(self, int variant_index, terms, pst, int tempo=0):
        """Evaluation weights of this search only (see ``set_eval_params``)."""
        cdef EvalParams e
        _fill_params(&e, variant_index, terms, pst, tempo)
        self.own_eval[variant_index] = e
        self.has_own_eval[variant_index] = 1

    def clear_weights(self):
        """Back to the weights loaded for every engine (``set_eval_params``)."""
        cdef int v
        for v in range(MAX_VARIANTS):
            self.has_own_eval[v] = 0

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
                   end_limits=(0, 0, 0), int end_plies_done=0):
        """Prepares a search of ``board``'s position. ``history_keys`` are the
        keys of the earlier positions since the last irreversible move (oldest
        first), ``rev`` the number of reversible plies before the position.
        ``end_limits`` are the plies that draw under the five-move, sixteen-move
        and (Russian) three-kings rules (0: off), and ``end_plies_done`` the
        plies already played in the root's endgame class."""
        cdef Searcher* s = self.s
        cdef Searcher* h
        cdef int i, j, k, n, overflow = 0
        keys = list(history_keys)[-4000:]
        limits = list(end_limits)
        if len(limits) != 3:
            raise ValueError("end_limits must give three limits")
        s.g = board._g
        if s.g.variant != self._last_variant:
            # Move-ordering statistics of another game mean nothing here.
            clear_heuristics(s)
            for i in range(self.nhelpers):
                clear_heuristics(self.helpers[i])
            self._last_variant = s.g.variant
        s.ev = self.own_eval[s.g.variant] if self.has_own_eval[s.g.variant] else EVAL[s.g.variant]
        s.stop = 0
        s.nodes = 0
        s.seldepth = 0
        s.node_limit = 0
        s.deadline = 0
        s.king_draw_plies = king_draw_plies
        for i in range(3):
            s.end_plies[i + 1] = max(0, int(limits[i]))
        s.end_plies[0] = 1 if (s.end_plies[1] or s.end_plies[2] or s.end_plies[3]) else 0
        s.tt_gen = <uint8_t>((s.tt_gen + 1) & 255)
        s.base = len(keys)
        for i in range(len(keys)):
            s.keys[i] = <uint64_t>keys[i]
        s.keys[s.base] = hash_pos(s.g, &board._pos)
        memset(s.killers, 0, sizeof(s.killers))
        for i in range(2):
            for j in range(64):
                for k in range(64):
                    s.history[i][j][k] //= 8
        n = gen_moves(s.g, &board._pos, s.buf, 0, &overflow)
        s.root_n = n
        s.root_best = -1
        for i in range(n):
            s.root_skip[i] = 0
            s.root_score[i] = 0
        s.nhelpers = 0
        self._root = board._pos
        self._rev = rev
        self._ecls = end_class(s, &board._pos) if s.end_plies[0] else END_NONE
        self._eply = end_plies_done if self._ecls else 0
        for i in range(self.nhelpers):
            h = self.helpers[i]
            h.g = s.g
            h.ev = s.ev
            h.stop = 0
            h.nodes = 0
            h.seldepth = 0
            h.node_limit = 0
            h.deadline = 0
            h.king_draw_plies = s.king_draw_plies
            memcpy(h.end_plies, s.end_plies, sizeof(s.end_plies))
            h.tt_gen = s.tt_gen
            h.base = s.base
            memcpy(h.keys, s.keys, (s.base + 1) * sizeof(uint64_t))
            memset(h.killers, 0, sizeof(h.killers))
            h.root_n = n
            h.root_best = -1
            for j in range(n):
                h.root_skip[j] = 0
                h.root_score[j] = 0
        return n

    def root_moves(self):
        """The legal moves at the root, in the order the search indexes them."""
        cdef int overflow = 0
        cdef int n = gen_moves(self.s.g, &self._root, _SCRATCH, 0, &overflow)
        return [_move_from_c(self.s.g, &_SCRATCH[i]) for i in range(n)]

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
            return (-MATE, -1, [], False)
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


def evaluate_position(CoreBoard board) -> int:
    """The static evaluation of ``board`` from the side to move's point of view."""
    return evaluate(&EVAL[board._g.variant], board._g, &board._pos)


def eval_scale_divisor(CoreBoard board) -> int:
    """What the weighted feature sum of ``board`` is divided by (1, or 16 in a
    drawish lone-king ending; the tempo bonus is added after)."""
    return eval_divisor(board._g, &board._pos)


def eval_feature_vector(CoreBoard board):
    """``(terms, pst)``: the evaluation's features, White minus Black (for tuning)."""
    cdef int f[NTERMS]
    cdef int pst[NPST]
    eval_features(board._g, &board._pos, f, pst)
    return [f[i] for i in range(NTERMS)], [pst[i] for i in range(board._g.nsq)]


cdef void _fill_params(EvalParams* e, int variant_index, terms, pst, int tempo) except *:
    cdef int i
    if not 0 <= variant_index < MAX_VARIANTS or GEOS[variant_index].size == 0:
        raise ValueError(f"unknown variant index {variant_index}")
    terms = list(terms)
    pst = list(pst)
    if len(terms) != NTERMS:
        raise ValueError(f"expected {NTERMS} term weights, got {len(terms)}")
    if len(pst) != GEOS[variant_index].nsq:
        raise ValueError(f"expected {GEOS[variant_index].nsq} square weights, got {len(pst)}")
    memset(e, 0, sizeof(EvalParams))
    for i in range(NTERMS):
        e.term[i] = int(terms[i])
    for i in range(len(pst)):
        e.pst[i] = int(pst[i])
    e.tempo = tempo


def set_eval_params(int variant_index, terms, pst, int tempo=0):
    """Loads evaluation weights for a variant (see ``EVAL_TERM_NAMES``)."""
    cdef EvalParams e
    _fill_params(&e, variant_index, terms, pst, tempo)
    EVAL[variant_index] = e


MATE_SCORE = MATE
MATE_THRESHOLD = MATE_BOUND


# A module function rather than a SearchCore method: as a method, it moved the
# compiled search code enough to cost 2-6% of the nodes per second (measured with
# benchmarks/search.py and fixed-depth searches); here it costs nothing.
def set_root_first(SearchCore core, int index):
    """Makes root move ``index`` the first one ``core``'s next search tries, unless
    that search leaves it out (:meth:`SearchCore.set_skip`). Multi-PV searches the
    lines depth by depth: each line starts with its best move of the previous depth."""
    if 0 <= index < core.s.root_n and not core.s.root_skip[index]:
        core.s.root_best = index

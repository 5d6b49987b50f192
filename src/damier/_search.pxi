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
DEF NTERMS = 9             # terms besides the man table (see EVAL_TERM_NAMES)

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
)

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

cdef EvalParams EVAL[NVARIANTS]
cdef EvalTables ETAB[NVARIANTS]


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


cdef void _init_all_eval_tables():
    cdef int v
    for v in range(NVARIANTS):
        _init_eval_tables(v)
        memset(&EVAL[v], 0, sizeof(EvalParams))
        EVAL[v].term[0] = 100
        EVAL[v].term[1] = 300
        EVAL[v].term[2] = 300


_init_all_eval_tables()


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
    cdef uint64_t x, b, ahead
    cdef int c, sign, nmen, i, fwd0, fwd1
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
        f[6] += sign * popcount(men[c] & ~(sh_back(g, empty, fwd0) | sh_back(g, empty, fwd1)))
        x = men[c]
        while x:
            b = x & (~x + 1)
            x ^= b
            i = ctz(b)
            pst[t.pst_index[c][i]] += sign
            ahead = t.cone[c][i]
            if (ahead & p.pieces[1 - c]) == 0 and kings[1 - c] == 0:
                f[7] += sign
            if (b & t.outpost[c]) and (t.behind[c][i] & ~p.pieces[c]) == 0:
                f[8] += sign


cdef int evaluate(const Geo* g, const Pos* p) noexcept nogil:
    """Static evaluation in centi-men from the side to move's point of view.

    The same weighted sum as ``eval_features`` (tests check that they agree),
    computed directly for speed."""
    cdef const EvalParams* e = &EVAL[g.variant]
    cdef const EvalTables* t = &ETAB[g.variant]
    cdef uint64_t empty = g.mask & ~(p.pieces[0] | p.pieces[1])
    cdef uint64_t men, kings, x, b
    cdef int c, sign, nmen, i, fwd0, side, k_open = 0, k_end = 0
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
        side += e.term[6] * popcount(men & ~(sh_back(g, empty, fwd0) | sh_back(g, empty, fwd0 + 1)))
        x = men
        while x:
            b = x & (~x + 1)
            x ^= b
            i = ctz(b)
            side += e.pst[t.pst_index[c][i]]
            if (t.cone[c][i] & p.pieces[1 - c]) == 0 and (p.pieces[1 - c] & p.kings) == 0:
                side += e.term[7]
            if (b & t.outpost[c]) and (t.behind[c][i] & ~p.pieces[c]) == 0:
                side += e.term[8]
        score += sign * side
    if k_open or k_end:
        score += (e.term[1] * k_open + e.term[2] * k_end) // 256
    # A lone king against at most three pieces is a draw under the 16- and 5-move
    # rules unless it is caught at once: scale the score right down.
    if g.flying and ((nb == 1 and (p.pieces[0] & p.kings) and nw <= 3)
                     or (nw == 1 and (p.pieces[1] & p.kings) and nb <= 3)):
        score //= 16
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
    score = e.term[0] * f[0] + (e.term[1] * f[1] + e.term[2] * f[2]) // 256
    for i in range(3, NTERMS):
        score += e.term[i] * f[i]
    for i in range(g.nsq):
        score += e.pst[i] * pst[i]
    if g.flying and ((nb == 1 and (p.pieces[0] & p.kings) and nw <= 3)
                     or (nw == 1 and (p.pieces[1] & p.kings) and nb <= 3)):
        score //= 16
    return (score if p.turn == 1 else -score) + e.tempo


# ---------------------------------------------------------------------------
# Search
# ---------------------------------------------------------------------------

ctypedef struct TTEntry:
    uint64_t key
    int16_t score
    int8_t depth
    uint8_t flag             # 1 upper bound, 2 lower bound, 3 exact
    uint8_t move             # index of the best move in generation order, 255 none
    uint8_t gen
    uint16_t pad

DEF TT_UPPER = 1
DEF TT_LOWER = 2
DEF TT_EXACT = 3

ctypedef struct Searcher:
    const Geo* g
    TTEntry* tt
    uint64_t tt_mask
    uint8_t tt_gen
    uint64_t nodes
    uint64_t node_limit      # 0: none
    double deadline          # monotonic seconds; 0: none
    int stop                 # set from another thread to stop
    int seldepth
    int king_draw_plies      # reversible plies that draw (2 * king-move limit); 0: off
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
    if (s.nodes & 1023) == 0:
        if s.node_limit and s.nodes >= s.node_limit:
            s.stop = 1
        elif s.deadline > 0 and now_seconds() >= s.deadline:
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
        return evaluate(g, p)
    if not can_capture(g, p):
        if count_quiet(g, p) == 0:
            return -MATE + ply
        return evaluate(g, p)
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
             int rev, int is_pv) noexcept nogil:
    cdef const Geo* g = s.g
    cdef CMove* moves
    cdef int* order
    cdef TTEntry* e
    cdef int n, i, j, k, bi, score, best, best_i, tt_move, ext, reduction, newdepth
    cdef int orig_alpha = alpha, overflow = 0, crev, flag, tt_score
    cdef uint64_t ckey
    cdef uint16_t code
    cdef Pos child
    cdef const CMove* m

    s.pvlen[ply] = 0
    if ply > 0:
        if s.king_draw_plies and rev >= s.king_draw_plies:
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
    tt_move = 255
    if e.key == key and e.flag:
        tt_move = e.move
        if not is_pv and e.depth >= depth:
            tt_score = score_from_tt(e.score, ply)
            if (e.flag == TT_EXACT or (e.flag == TT_LOWER and tt_score >= beta)
                    or (e.flag == TT_UPPER and tt_score <= alpha)):
                return tt_score

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
        ckey = key_after(p, m, key)
        prefetch(&s.tt[ckey & s.tt_mask])
        crev = 0 if (m.ncap or not m.king) else rev + 1
        s.keys[s.base + ply + 1] = ckey
        newdepth = depth - 1 + ext
        if k == 0:
            score = -pvs(s, &child, ckey, -beta, -alpha, newdepth, ply + 1, crev, is_pv)
        else:
            reduction = 0
            if depth >= 3 and k >= 2 and not m.ncap:
                reduction = s.lmr[depth if depth < 64 else 63][k if k < 64 else 63]
                if is_pv and reduction > 0:
                    reduction -= 1
                if reduction >= newdepth:
                    reduction = newdepth - 1
            score = -pvs(s, &child, ckey, -alpha - 1, -alpha, newdepth - reduction, ply + 1, crev, 0)
            if score > alpha and reduction:
                score = -pvs(s, &child, ckey, -alpha - 1, -alpha, newdepth, ply + 1, crev, 0)
            if score > alpha and score < beta and is_pv:
                score = -pvs(s, &child, ckey, -beta, -alpha, newdepth, ply + 1, crev, 1)
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
    if e.key != key or depth >= e.depth or e.gen != s.tt_gen or flag == TT_EXACT:
        e.key = key
        e.score = <int16_t>score_to_tt(best, ply)
        e.depth = <int8_t>depth
        e.flag = <uint8_t>flag
        e.move = <uint8_t>(best_i if best_i < 255 else 255)
        e.gen = s.tt_gen
    return best


# ---------------------------------------------------------------------------
# Python objects: the search state of an engine
# ---------------------------------------------------------------------------

cdef class SearchCore:
    """The compiled search: transposition table, move-ordering tables and the
    search itself. :class:`damier.engine.Engine` drives it; one search at a time.
    """

    cdef Searcher* s
    cdef TTEntry* tt
    cdef uint64_t tt_entries

    def __cinit__(self, int hash_mb=64):
        self.s = <Searcher*>calloc(1, sizeof(Searcher))
        if self.s == NULL:
            raise MemoryError()
        self.s.buf = <CMove*>malloc(MAXPLY * MAXMOVES * sizeof(CMove))
        self.s.order = <int*>malloc(MAXPLY * MAXMOVES * sizeof(int))
        if self.s.buf == NULL or self.s.order == NULL:
            raise MemoryError()
        self.tt = NULL
        self.set_hash(hash_mb)
        fill_lmr(self.s.lmr, DEFAULT_LMR_DIVISOR)

    def set_lmr(self, double divisor):
        """Late-move reductions: ``log(depth) * log(move number) / divisor`` plies."""
        if divisor <= 0:
            raise ValueError("divisor must be positive")
        fill_lmr(self.s.lmr, divisor)

    def __dealloc__(self):
        if self.s != NULL:
            free(self.s.buf)
            free(self.s.order)
            free(self.s)
        if self.tt != NULL:
            free(self.tt)

    def set_hash(self, int hash_mb):
        """Resizes (and clears) the transposition table to at most ``hash_mb`` MiB."""
        cdef uint64_t entries = 1
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

    @property
    def hash_entries(self) -> int:
        return self.tt_entries

    def clear(self):
        """Forgets everything learnt: the transposition table and move-ordering tables."""
        memset(self.tt, 0, self.tt_entries * sizeof(TTEntry))
        memset(self.s.history, 0, sizeof(self.s.history))
        memset(self.s.killers, 0, sizeof(self.s.killers))

    def stop(self):
        """Asks the running search to stop (safe from another thread)."""
        self.s.stop = 1

    def new_search(self, CoreBoard board, history_keys, int rev, int king_draw_plies):
        """Prepares a search of ``board``'s position. ``history_keys`` are the
        keys of the earlier positions since the last irreversible move (oldest
        first), ``rev`` the number of reversible plies before the position."""
        cdef Searcher* s = self.s
        cdef int i, n, overflow = 0
        keys = list(history_keys)[-4000:]
        s.g = board._g
        s.stop = 0
        s.nodes = 0
        s.seldepth = 0
        s.node_limit = 0
        s.deadline = 0
        s.king_draw_plies = king_draw_plies
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
        self._root = board._pos
        self._rev = rev
        return n

    cdef Pos _root
    cdef int _rev

    def root_moves(self):
        """The legal moves at the root, in the order the search indexes them."""
        cdef int overflow = 0
        cdef int n = gen_moves(self.s.g, &self._root, _SCRATCH, 0, &overflow)
        return [_move_from_c(self.s.g, &_SCRATCH[i]) for i in range(n)]

    def set_skip(self, skipped):
        """Leaves the root moves with these indices out of the search (multi-PV)."""
        cdef int i
        for i in range(self.s.root_n):
            self.s.root_skip[i] = 0
        for i in skipped:
            self.s.root_skip[i] = 1

    def set_limits(self, uint64_t nodes=0, double deadline=0.0):
        """Stops the search after ``nodes`` nodes or at monotonic time ``deadline`` (0: none)."""
        self.s.node_limit = nodes
        self.s.deadline = deadline

    def search(self, int depth, int alpha=-INF, int beta=INF):
        """One iteration: a principal variation search of the root to ``depth``.

        Returns ``(score, best_index, pv, stopped)``; the GIL is released meanwhile."""
        cdef Searcher* s = self.s
        cdef int score
        cdef Pos root = self._root
        cdef uint64_t key = s.keys[s.base]
        cdef int rev = self._rev
        if s.root_n == 0:
            return (-MATE, -1, [], False)
        s.stop = 0 if s.stop == 0 else 1
        with nogil:
            score = pvs(s, &root, key, alpha, beta, depth, 0, rev, 1)
        pv = [_move_from_c(s.g, &s.pv[0][i]) for i in range(s.pvlen[0])]
        return (score, s.root_best, pv, s.stop != 0)

    @property
    def nodes(self) -> int:
        return self.s.nodes

    @property
    def seldepth(self) -> int:
        return self.s.seldepth

    @property
    def stopped(self) -> bool:
        """Whether the last search was stopped (by a limit or :meth:`stop`)."""
        return self.s.stop != 0


def evaluate_position(CoreBoard board) -> int:
    """The static evaluation of ``board`` from the side to move's point of view."""
    return evaluate(board._g, &board._pos)


def eval_feature_vector(CoreBoard board):
    """``(terms, pst)``: the evaluation's features, White minus Black (for tuning)."""
    cdef int f[NTERMS]
    cdef int pst[NPST]
    eval_features(board._g, &board._pos, f, pst)
    return [f[i] for i in range(NTERMS)], [pst[i] for i in range(board._g.nsq)]


def set_eval_params(int variant_index, terms, pst, int tempo=0):
    """Loads evaluation weights for a variant (see ``EVAL_TERM_NAMES``)."""
    cdef int i
    if not 0 <= variant_index < NVARIANTS:
        raise ValueError("bad variant index")
    terms = list(terms)
    pst = list(pst)
    if len(terms) != NTERMS:
        raise ValueError(f"expected {NTERMS} term weights, got {len(terms)}")
    if len(pst) != GEOS[variant_index].nsq:
        raise ValueError(f"expected {GEOS[variant_index].nsq} square weights, got {len(pst)}")
    for i in range(NTERMS):
        EVAL[variant_index].term[i] = int(terms[i])
    for i in range(NPST):
        EVAL[variant_index].pst[i] = int(pst[i]) if i < len(pst) else 0
    EVAL[variant_index].tempo = tempo


MATE_SCORE = MATE
MATE_THRESHOLD = MATE_BOUND

# Included by _core.pyx (first of the search files): the static evaluation, a
# learned pattern evaluation blended by game phase, and its trace for training.
# No Python objects in the hot path.

cdef enum:
    MAXPAT = 8               # weight tables of areas (8 on 10x10 boards, 5 on 8x8)
    AREA_SQUARES = 8         # the dark squares of an area
    PSTATES = 6561           # 3^8: an area's eight squares, each empty, own man or opponent's man
    MATSTATES = 6400         # material states: own men (0-19), own kings (0-3), the opponent's, 20*4*20*4
    MAT_MEN = 20             # men counted up to 19 (20 only before the first capture)
    MAT_KINGS = 4            # kings counted up to 3
    UNIT_SHIFT = 3           # weights are in eighths of a centi-man
    PHASE_SHIFT = 8
    PHASE_ONE = 1 << PHASE_SHIFT   # the phase runs from 0 (no men left) to 256 (all men on the board)
    LONE_KING_SHIFT = 4      # a drawish lone-king ending's scores are divided by 16
    MAN_VALUE = 100          # the weights before any are loaded: material only (centi-men)
    KING_VALUE = 300
    BIGPAT = 4               # tables of big areas (4 on 10x10 boards, 3 on 8x8)
    BIG_SQUARES = 12         # the dark squares of a big area (4 columns, 6 rows)
    BSTATES = 531441         # 3^12

# ---------------------------------------------------------------------------
# Evaluation
# ---------------------------------------------------------------------------
# The evaluation is linear in its weights. Each feature f (White minus Black) has
# two weights, an opening and an endgame one, and the game phase blends them:
#
#     S_open = sum(w_open[f] * x[f]),  S_end = sum(w_end[f] * x[f])
#     white  = ((S_open * phase + S_end * (256 - phase)) >> 11) >> log2(divisor)
#
# in centi-men (weights are eighths of a centi-man; 2048 = 256 * 8), and the
# score from the side to move's point of view is +white or -white. The
# features are the terms of EVAL_TERM_NAMES, the pattern features and the side
# to move (+1 White, -1 Black). ``eval_trace`` lists them for training and tests.
#
# Patterns. The board is covered by overlapping areas of 4 x 4 squares (8 dark
# squares each), at even rows and columns: 16 areas on a 10 x 10 board, 9 on
# 8 x 8. A table of 6561 weights scores an area's men as seen by one side (own
# men, the opponent's men, empty; kings count as empty). Colour symmetry gives
# the weights: an area seen by White and the same area turned half a turn seen
# by Black share one table, so table k adds T_k[White's view of A_k] and
# subtracts T_k[Black's view of A_k turned]; every area is scored once (an area
# that is its own half-turn, the centre one on 8 x 8, is scored from both
# sides). The squares of an area lie two by two on four rows, two consecutive
# bits per row, so an area's men are a shift, a mask and three folds away
# (see ``area_bits``), or one parallel bit extract (pext) where it is fast.
#
# Material. One more table scores the material as a whole, seen by one side:
# its men and kings and the opponent's (``material_index``), so that what a
# man or a king is worth can depend on what else is on the board (a king with
# many men against none, two kings against one and three men...). It is shared
# by the two sides like the area tables: White's view minus Black's view, so a
# balanced material scores 0. It comes after the area tables in the weights.
#
# Big patterns. Areas of 4 columns x 6 rows (12 dark squares, 3^12 states) on the
# six rows of White's side of the board (rows size-6 to size-1), one table per
# column offset 0, 2, 4...; table k adds White's view of its area and subtracts
# Black's view of the area turned half a turn (on Black's side), like the small
# areas. They come after the material table in the weights and are held only
# when a weight file has any of them non-zero (``EvalW.big``; NULL otherwise,
# and the evaluation skips them).

# The hand-named terms: their slots in the feature vector (and in EvalW.term),
# and NTERMS, their number. _TERM_SLOTS names each slot; EVAL_TERM_NAMES is made
# from it, in slot order, and the import fails unless every slot has one name.
cdef enum:
    T_MAN                    # men
    T_KING                   # kings
    T_KING_MOBILITY          # empty squares the kings see
    T_KING_DIAGONAL          # kings on the main diagonal
    T_BALANCE                # |men on the left wing - men on the right wing|
    T_BLOCKED                # men with no free square ahead
    T_RUNAWAY                # men with no enemy piece in their path to the crowning row
    T_OUTPOST                # advanced centre men supported by two men behind
    T_BREAKTHROUGH           # men with at most one enemy piece in their path (runaways excluded)
    T_MOBILITY               # forward steps open to men (tempo reserve; low in locked formations)
    T_KINGS_LEAD             # lead in pieces when both sides have a king (such endings often draw)
    T_ADVANCEMENT            # rows the men have advanced from their first row (the "tempo" count)
    NTERMS

_TERM_SLOTS = (
    (T_MAN, "man"),
    (T_KING, "king"),
    (T_KING_MOBILITY, "king_mobility"),
    (T_KING_DIAGONAL, "king_diagonal"),
    (T_BALANCE, "balance"),
    (T_BLOCKED, "blocked"),
    (T_RUNAWAY, "runaway"),
    (T_OUTPOST, "outpost"),
    (T_BREAKTHROUGH, "breakthrough"),
    (T_MOBILITY, "mobility"),
    (T_KINGS_LEAD, "kings_lead"),
    (T_ADVANCEMENT, "advancement"),
)


def _term_names(slots, int nterms):
    """The term names in slot order, from ``(slot, name)`` pairs that must name each
    of the ``nterms`` slots once (ImportError otherwise: the evaluation's slots and
    names would disagree)."""
    names = [None] * nterms
    for slot, name in slots:
        if not 0 <= slot < nterms:
            raise ImportError(f"evaluation term {name!r}: slot {slot} is out of range "
                              f"0-{nterms - 1}")
        if names[slot] is not None:
            raise ImportError(f"evaluation term slot {slot} is named twice "
                              f"({names[slot]!r} and {name!r})")
        if name in names:
            raise ImportError(f"evaluation term name {name!r} is given twice")
        names[slot] = name
    if None in names:
        raise ImportError(f"evaluation term slot {names.index(None)} has no name")
    return tuple(names)


EVAL_TERM_NAMES = _term_names(_TERM_SLOTS, NTERMS)

ctypedef struct EvalW:
    int16_t term[NTERMS][2]          # [term][opening, endgame]
    int16_t side[2]                  # the side to move's bonus
    int16_t pat[MAXPAT][PSTATES][2]  # [table][area state][opening, endgame]
    int16_t mat[MATSTATES][2]        # [material state][opening, endgame]
    int32_t* big                     # [table * BSTATES + state]: opening in the low 16
                                     # bits, endgame in the high 16; NULL: all zero
    int npat                         # the pattern tables evaluate reads: the variant's, or
                                     # 0 when every pattern weight is zero
    uint64_t serial                  # these weights' own number (new_eval_serial): what the
                                     # evaluation caches check

ctypedef struct EvalTables:
    int initial_men
    int16_t phase[65]        # the game phase by the number of men (a table: no division)
    int npat                 # weight tables in use
    int fold[3]              # shifts that bring rows 2, 3 and 4 of an area next to row 1
    int area_w[MAXPAT]       # lowest bit of the area White sees with table k
    int area_b[MAXPAT]       # lowest bit of the same area turned, seen by Black
    uint64_t mask_w[MAXPAT]  # the squares of area_w[k] as a bitboard (for pext)
    uint64_t mask_b[MAXPAT]  # the squares of area_b[k]
    uint64_t left            # left half of the board (as White sees it)
    uint64_t diagonal        # the main (long) diagonal
    uint64_t outpost[2]      # squares where an outpost counts, [black, white]
    uint64_t cone[2][64]     # squares ahead of a man on a bit, [black, white]
    uint64_t row_bits[4]     # [j]: the squares whose row (0 at the top) has bit j set
    int nbig                 # big-area tables
    uint64_t bmask_w[BIGPAT] # the squares of the big area White sees with table k
    uint64_t bmask_b[BIGPAT] # the same area turned, seen by Black
    int8_t bbits_w[BIGPAT][BIG_SQUARES]   # their bits in rising order (no pext)
    int8_t bbits_b[BIGPAT][BIG_SQUARES]

# Parallel bit extract (BMI2) gathers an area's 8 squares in one instruction,
# where the folds of ``area_bits`` take a dozen. Not on AMD before Zen 3, whose
# pext is microcoded and slower than the folds.
cdef extern from *:
    """
    #if defined(__BMI2__) && !defined(__znver1__) && !defined(__znver2__)
    #include <immintrin.h>
    #define DM_FAST_PEXT 1
    static inline unsigned long long dm_pext(unsigned long long x, unsigned long long m) { return _pext_u64(x, m); }
    #else
    #define DM_FAST_PEXT 0
    static inline unsigned long long dm_pext(unsigned long long x, unsigned long long m) { return 0; }
    #endif
    """
    const int FAST_PEXT "DM_FAST_PEXT"
    uint64_t pext "dm_pext"(uint64_t x, uint64_t m) nogil

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    static inline void dm_eval_prefetch(const void* p) { __builtin_prefetch(p); }
    /* A zeroed block aligned to 2 MiB, with transparent huge pages asked for on
       Linux (freed by free()): the transposition table and the big weight tables
       are read at random, so TLB misses matter. */
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
    void eval_prefetch "dm_eval_prefetch"(const void* p) nogil
    void* alloc_table "dm_alloc_table"(size_t bytes) nogil

cdef EvalTables ETAB[MAX_VARIANTS]
cdef EvalW* EVALW[MAX_VARIANTS]        # the weights every search uses unless given its own
cdef EvalW* EVALW_DEFAULT[MAX_VARIANTS]   # each variant's weights before any are loaded
cdef uint64_t EVAL_SERIAL = 0           # the last number given to a set of weights
cdef uint16_t TERN[256]                # bits of an area's 8 squares -> base-3 digits 1
cdef uint16_t TERN_REV[256]            # the same, the 8 squares in reverse order


cdef uint64_t new_eval_serial() noexcept:
    """A number no other set of weights had (weights never change once made; a new set
    may be allocated where a freed one was, so the caches cannot go by its address)."""
    global EVAL_SERIAL
    EVAL_SERIAL += 1
    return EVAL_SERIAL


cdef void _init_tern() noexcept:
    cdef int x, j, v, r, p
    for x in range(256):
        v = 0
        r = 0
        p = 1
        for j in range(8):
            if x & (1 << j):
                v += p
            if x & (1 << (7 - j)):
                r += p
            p *= 3
        TERN[x] = <uint16_t>v
        TERN_REV[x] = <uint16_t>r


_init_tern()


cdef inline int area_bit(const Geo* g, int row, int col) noexcept:
    """The bit of the lowest square of the area whose top-left corner is (row, col)."""
    return row * g.per_row + row // 2 + col // 2


cdef uint64_t area_mask(const EvalTables* t, int base) noexcept:
    """The squares of the area whose lowest bit is ``base``: the bits that
    ``area_bits`` gathers, in the same (rising) order."""
    cdef uint64_t m = 0
    cdef int j
    for j in range(8):
        m |= (<uint64_t>1) << (base + j + (t.fold[j // 2 - 1] if j >= 2 else 0))
    return m


cdef void _init_eval_tables(int v):
    cdef Geo* g = &GEOS[v]
    cdef EvalTables* t = &ETAB[v]
    cdef int s, b, r, c, r2, c2, size = g.size, R = g.per_row, k, n
    cdef uint64_t bit
    memset(t, 0, sizeof(EvalTables))
    if g.full:
        _init_full_eval_tables(g, t)
        return
    t.initial_men = 2 * (g.nsq // 2 - g.per_row)
    for n in range(65):
        t.phase[n] = PHASE_ONE if n >= t.initial_men else n * PHASE_ONE // t.initial_men
    # Areas at even rows and columns; table k pairs area (r, c) seen by White
    # with (size-4-r, size-4-c) seen by Black. Representatives: the areas that
    # come first in reading order among each half-turn pair.
    t.fold[0] = R - 2
    t.fold[1] = 2 * R + 1 - 4
    t.fold[2] = 3 * R + 1 - 6
    n = 0
    for r in range(0, size - 3, 2):
        for c in range(0, size - 3, 2):
            r2 = size - 4 - r
            c2 = size - 4 - c
            if (r, c) <= (r2, c2):
                t.area_w[n] = area_bit(g, r, c)
                t.area_b[n] = area_bit(g, r2, c2)
                t.mask_w[n] = area_mask(t, t.area_w[n])
                t.mask_b[n] = area_mask(t, t.area_b[n])
                n += 1
    t.npat = n
    # Big areas: rows size-6 to size-1 (White's side), columns c to c+3 for even c,
    # seen by White; the same turned (rows 0-5, columns size-4-c on), seen by Black.
    t.nbig = 0
    for c in range(0, size - 3, 2):
        _big_area(g, t, t.nbig, size - 6, c, 0)
        _big_area(g, t, t.nbig, 0, size - 4 - c, 1)
        t.nbig += 1
    # The geometry of the bit layout (layout square s, see layout_bit), whatever the
    # variant's numbering: the areas and shifts above are in that layout too.
    for s in range(1, g.nsq + 1):
        b = layout_bit(R, s)
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
        for k in range(4):
            if r >> k & 1:
                t.row_bits[k] |= bit
        for s2 in range(1, g.nsq + 1):
            r2 = (s2 - 1) // g.per_row
            c2 = 2 * ((s2 - 1) % g.per_row) + (1 if r2 % 2 == 0 else 0)
            if r2 < r and abs(c2 - c) <= r - r2:
                t.cone[1][b] |= (<uint64_t>1) << layout_bit(R, s2)
            if r2 > r and abs(c2 - c) <= r2 - r:
                t.cone[0][b] |= (<uint64_t>1) << layout_bit(R, s2)


cdef void _big_area(const Geo* g, EvalTables* t, int k, int row, int col, int black):
    """Sets big area ``k``'s mask and bit list (Black's when ``black``): the dark
    squares of rows row..row+5 and columns col..col+3."""
    cdef int s, r, c, b, n = 0
    cdef uint64_t m = 0
    for s in range(1, g.nsq + 1):
        r = (s - 1) // g.per_row
        c = 2 * ((s - 1) % g.per_row) + (1 if r % 2 == 0 else 0)
        if row <= r < row + 6 and col <= c < col + 4:
            m |= (<uint64_t>1) << layout_bit(g.per_row, s)
    b = 0
    while m >> b:
        if (m >> b) & 1:
            if black:
                t.bbits_b[k][n] = <int8_t>b
            else:
                t.bbits_w[k][n] = <int8_t>b
            n += 1
        b += 1
    if black:
        t.bmask_b[k] = m
    else:
        t.bmask_w[k] = m


cdef void _init_full_eval_tables(const Geo* g, EvalTables* t):
    """The evaluation's tables on the board of every square (Turkish): no patterns (they
    are drawn on the dark squares' layout), the rows for advancement, and each man's
    way ahead (the squares of the rows before it, within as many columns as rows)."""
    cdef int s, s2, b, r, c, r2, c2, size = g.size, n
    cdef uint64_t bit
    t.initial_men = 4 * size          # two rows of men each
    for n in range(65):
        t.phase[n] = PHASE_ONE if n >= t.initial_men else n * PHASE_ONE // t.initial_men
    t.npat = 0
    for s in range(1, g.nsq + 1):
        b = s - 1
        bit = (<uint64_t>1) << b
        r = b // size
        c = b % size
        if c < size // 2:
            t.left |= bit
        for n in range(4):
            if r >> n & 1:
                t.row_bits[n] |= bit
        for s2 in range(1, g.nsq + 1):
            r2 = (s2 - 1) // size
            c2 = (s2 - 1) % size
            if r2 < r and abs(c2 - c) <= r - r2:
                t.cone[1][b] |= (<uint64_t>1) << (s2 - 1)
            if r2 > r and abs(c2 - c) <= r2 - r:
                t.cone[0][b] |= (<uint64_t>1) << (s2 - 1)
    # enemies_ahead reads bit 63 as an empty sentinel: here it is square 64, a corner of
    # White's back row, where no man stands (Black's are crowned there); a king there is
    # left out of the way-ahead terms.
    t.cone[0][63] = 0
    t.cone[1][63] = 0


cdef void _default_eval_params(int v):
    """Material only, until weights are loaded (``set_eval_weights``); the variants
    with another goal get hand-set terms (``Geo.goal``)."""
    cdef EvalW* w
    cdef int i
    if EVALW_DEFAULT[v] == NULL:
        EVALW_DEFAULT[v] = <EvalW*>calloc(1, sizeof(EvalW))
    w = EVALW_DEFAULT[v]
    EVALW[v] = w
    memset(w, 0, sizeof(EvalW))
    w.serial = new_eval_serial()
    w.term[T_MAN][0] = MAN_VALUE << UNIT_SHIFT
    w.term[T_MAN][1] = MAN_VALUE << UNIT_SHIFT
    w.term[T_KING][0] = KING_VALUE << UNIT_SHIFT
    w.term[T_KING][1] = KING_VALUE << UNIT_SHIFT
    if GEOS[v].goal == GOAL_MISERE:
        # Antidraughts, hand-set: every piece given away is a step to the goal, and
        # fewer free moves are closer to having none.
        for i in (T_MAN, T_KING):
            w.term[i][0] = -w.term[i][0]
            w.term[i][1] = -w.term[i][1]
        w.term[T_MOBILITY][0] = -(4 << UNIT_SHIFT)
        w.term[T_MOBILITY][1] = -(4 << UNIT_SHIFT)
    elif GEOS[v].goal == GOAL_CROWN:
        # Breakthrough, hand-set: the first king wins, so a man's way forward counts most.
        w.term[T_ADVANCEMENT][0] = 4 << UNIT_SHIFT
        w.term[T_ADVANCEMENT][1] = 8 << UNIT_SHIFT
        w.term[T_BREAKTHROUGH][0] = 60 << UNIT_SHIFT
        w.term[T_BREAKTHROUGH][1] = 60 << UNIT_SHIFT
        w.term[T_RUNAWAY][0] = 600 << UNIT_SHIFT
        w.term[T_RUNAWAY][1] = 600 << UNIT_SHIFT


cdef inline uint64_t area_bits(const EvalTables* t, uint64_t x) noexcept nogil:
    """The 8 squares of an area (x shifted so that the area's lowest bit is bit
    0) as bits 0-7, in square order. Works on both 32-bit halves at once."""
    return ((x & <uint64_t>0x0000000300000003)
            | ((x >> t.fold[0]) & <uint64_t>0x0000000C0000000C)
            | ((x >> t.fold[1]) & <uint64_t>0x0000003000000030)
            | ((x >> t.fold[2]) & <uint64_t>0x000000C0000000C0))


cdef inline int area_index_w(const EvalTables* t, uint64_t wm, uint64_t bm, int k) noexcept nogil:
    """White's view of area_w[k]: own (White) men digit 1, Black's men digit 2."""
    if FAST_PEXT:
        return TERN[pext(wm, t.mask_w[k])] + 2 * TERN[pext(bm, t.mask_w[k])]
    cdef int base = t.area_w[k]
    cdef uint64_t x = ((wm >> base) & <uint64_t>0xFFFFFFFF) | (((bm >> base) & <uint64_t>0xFFFFFFFF) << 32)
    x = area_bits(t, x)
    return TERN[x & 255] + 2 * TERN[(x >> 32) & 255]


cdef inline int area_index_b(const EvalTables* t, uint64_t wm, uint64_t bm, int k) noexcept nogil:
    """Black's view of area_b[k] turned half a turn: own (Black) men digit 1,
    White's men digit 2, the squares in reverse order."""
    if FAST_PEXT:
        return TERN_REV[pext(bm, t.mask_b[k])] + 2 * TERN_REV[pext(wm, t.mask_b[k])]
    cdef int base = t.area_b[k]
    cdef uint64_t x = ((bm >> base) & <uint64_t>0xFFFFFFFF) | (((wm >> base) & <uint64_t>0xFFFFFFFF) << 32)
    x = area_bits(t, x)
    return TERN_REV[x & 255] + 2 * TERN_REV[(x >> 32) & 255]


cdef inline uint32_t gather_bits(uint64_t x, const int8_t* bits) noexcept nogil:
    """The bits of ``x`` at the 12 positions ``bits`` as bits 0-11 (no pext)."""
    cdef uint32_t r = 0
    cdef int j
    for j in range(BIG_SQUARES):
        r |= <uint32_t>((x >> bits[j]) & 1) << j
    return r


cdef inline int tern12(uint32_t x) noexcept nogil:
    """12 bits as base-3 digits 1 (bit j: 3^j)."""
    return TERN[x & 255] + 6561 * TERN[x >> 8]


cdef inline int tern12_rev(uint32_t x) noexcept nogil:
    """12 bits as base-3 digits 1 in reverse order (bit j: 3^(11-j))."""
    return TERN_REV[x >> 4] + 6561 * TERN_REV[(x & 15) << 4]


cdef inline int big_index_w(const EvalTables* t, uint64_t wm, uint64_t bm, int k) noexcept nogil:
    """White's view of big area k: own (White) men digit 1, Black's digit 2."""
    if FAST_PEXT:
        return tern12(<uint32_t>pext(wm, t.bmask_w[k])) + 2 * tern12(<uint32_t>pext(bm, t.bmask_w[k]))
    return tern12(gather_bits(wm, t.bbits_w[k])) + 2 * tern12(gather_bits(bm, t.bbits_w[k]))


cdef inline int big_index_b(const EvalTables* t, uint64_t wm, uint64_t bm, int k) noexcept nogil:
    """Black's view of big area k turned half a turn: own (Black) men digit 1,
    White's digit 2, the squares in reverse order."""
    if FAST_PEXT:
        return (tern12_rev(<uint32_t>pext(bm, t.bmask_b[k]))
                + 2 * tern12_rev(<uint32_t>pext(wm, t.bmask_b[k])))
    return tern12_rev(gather_bits(bm, t.bbits_b[k])) + 2 * tern12_rev(gather_bits(wm, t.bbits_b[k]))


cdef inline int material_index(int men, int kings, int opp_men, int opp_kings) noexcept nogil:
    """A material state as one side sees it: its men and kings, then the
    opponent's (men up to 19, kings up to 3)."""
    if men >= MAT_MEN:
        men = MAT_MEN - 1
    if opp_men >= MAT_MEN:
        opp_men = MAT_MEN - 1
    if kings >= MAT_KINGS:
        kings = MAT_KINGS - 1
    if opp_kings >= MAT_KINGS:
        opp_kings = MAT_KINGS - 1
    return ((men * MAT_KINGS + kings) * MAT_MEN + opp_men) * MAT_KINGS + opp_kings


cdef inline void material_states(const Pos* p, int* white_view, int* black_view) noexcept nogil:
    """The material state of ``p`` as White sees it and as Black sees it."""
    cdef int nwm = popcount(p.pieces[1] & ~p.kings), nbm = popcount(p.pieces[0] & ~p.kings)
    cdef int nwk = popcount(p.pieces[1] & p.kings), nbk = popcount(p.pieces[0] & p.kings)
    white_view[0] = material_index(nwm, nwk, nbm, nbk)
    black_view[0] = material_index(nbm, nbk, nwm, nwk)


cdef inline int king_sight(const Geo* g, uint64_t kings, uint64_t empty) noexcept nogil:
    cdef int d, i, n = 0
    cdef uint64_t x
    for d in range(g.km0, g.km1):
        x = sh(g, kings, d) & empty
        while x:
            n += popcount(x)
            if not g.flying:
                break
            x = sh(g, x, d) & empty
    return n


cdef inline int eval_phase(const EvalTables* t, int nmen) noexcept nogil:
    return t.phase[nmen]


cdef inline void enemies_ahead(const EvalTables* t, uint64_t enemies, int c, uint64_t* one,
                               uint64_t* two) noexcept nogil:
    """The squares where a man of colour ``c`` has at least one (``one``) and at
    least two (``two``) of ``enemies`` in its path to the crowning row (its cone,
    ``t.cone[c]``). A man on x has the enemy e in its cone exactly when x is in
    the cone of a man of the other colour on e: a loop over the enemies, two at
    a time (bit 63 is never a square, and its cones are empty)."""
    cdef uint64_t x = enemies, c1, c2, o = 0, w = 0
    cdef const uint64_t* cone = t.cone[1 - c]
    while x:
        c1 = cone[ctz(x)]
        x &= x - 1
        c2 = cone[ctz(x | (<uint64_t>1 << 63))]
        x &= x - 1
        w |= (o & (c1 | c2)) | (c1 & c2)
        o |= c1 | c2
    one[0] = o
    two[0] = w


cdef void term_features(const Geo* g, const Pos* p, int* f) noexcept nogil:
    """Fills ``f[NTERMS]``: the terms (by slot), White minus Black. Bitboard sets and
    popcounts, no loop over the men, and sums in locals (the search spends a
    good part of its time here)."""
    cdef const EvalTables* t = &ETAB[g.variant]
    cdef uint64_t empty = g.mask & ~(p.pieces[0] | p.pieces[1])
    cdef uint64_t men, kings, x, step0, step1, one, two, weak
    cdef int c, sign, i, j, fwd0
    cdef int king = 0, sight = 0, diagonal = 0, balance = 0, blocked = 0, runaway = 0
    cdef int outpost = 0, breakthrough = 0, mobility = 0, advancement = 0
    f[T_MAN] = popcount(p.pieces[1] & ~p.kings) - popcount(p.pieces[0] & ~p.kings)
    # Advancement: the rows the men have advanced from their first row, White's
    # (size - 1 - r for a man on row r, counted from the top) minus Black's (r):
    # (size - 1) * White's men - the sum of r over all men, that sum taken bit by
    # bit of r.
    men = (p.pieces[0] | p.pieces[1]) & ~p.kings
    for j in range(4):
        advancement -= popcount(men & t.row_bits[j]) << j
    advancement += (g.size - 1) * popcount(p.pieces[1] & ~p.kings)
    f[T_KINGS_LEAD] = 0
    if (p.pieces[0] & p.kings) and (p.pieces[1] & p.kings):
        f[T_KINGS_LEAD] = popcount(p.pieces[1]) - popcount(p.pieces[0])
    for c in range(2):
        sign = 1 if c == 1 else -1
        men = p.pieces[c] & ~p.kings
        kings = p.pieces[c] & p.kings
        if kings:
            king += sign * popcount(kings)
            sight += sign * king_sight(g, kings, empty)
            diagonal += sign * popcount(kings & t.diagonal)
        if men == 0:
            continue
        i = 2 * popcount(men & t.left) - popcount(men)
        balance += sign * (i if i >= 0 else -i)
        fwd0 = 0 if c == 1 else 2
        if g.full:
            # men moving forward and sideways (Turkish): every way they move counts
            step0 = 0
            for j in range(g.mm0[c], g.mm1[c]):
                step1 = men & sh_back(g, empty, j)
                step0 |= step1
                mobility += sign * popcount(step1)
            blocked += sign * popcount(men & ~step0)
        else:
            step0 = men & sh_back(g, empty, fwd0)
            step1 = men & sh_back(g, empty, fwd0 + 1)
            blocked += sign * popcount(men & ~(step0 | step1))
            mobility += sign * (popcount(step0) + popcount(step1))
        enemies_ahead(t, p.pieces[1 - c], c, &one, &two)
        if p.pieces[1 - c] & p.kings:
            breakthrough += sign * popcount(men & ~two)
        else:
            runaway += sign * popcount(men & ~one)
            breakthrough += sign * popcount(men & one & ~two)
        # Outposts: men on the outpost row whose squares behind (those on the
        # board) all hold pieces of their own colour; weak: the squares with a
        # square behind that does not (a shift that leaves the board lands on a
        # ghost bit, outside g.mask).
        x = g.mask & ~p.pieces[c]
        weak = sh_back(g, x, 2 - fwd0) | sh_back(g, x, 3 - fwd0)
        outpost += sign * popcount(men & t.outpost[c] & ~weak)
    f[T_KING] = king
    f[T_KING_MOBILITY] = sight
    f[T_KING_DIAGONAL] = diagonal
    f[T_BALANCE] = balance
    f[T_BLOCKED] = blocked
    f[T_RUNAWAY] = runaway
    f[T_OUTPOST] = outpost
    f[T_BREAKTHROUGH] = breakthrough
    f[T_MOBILITY] = mobility
    f[T_ADVANCEMENT] = advancement


cdef inline int eval_divisor_shift(const Geo* g, const Pos* p) noexcept nogil:
    """4 (a divisor of 16) when a lone king faces at most three pieces in a
    variant where that is usually a draw (flying kings; the registry's
    ``lone_king_drawish``: a draw under the 16- and 5-move rules unless the
    king is caught at once, so the score is scaled right down), else 0.

    (A king each with at most three pieces a side, scaled by 4, was tried:
    +1.7 Elo [-11.0, +14.5] in 400 games at 0.1 s a move, no decision, so not
    kept.)"""
    cdef int nw = popcount(p.pieces[1]), nb = popcount(p.pieces[0])
    if not g.lone_king_drawish:
        return 0
    if ((nb == 1 and (p.pieces[0] & p.kings) and nw <= 3)
            or (nw == 1 and (p.pieces[1] & p.kings) and nb <= 3)):
        return LONE_KING_SHIFT
    return 0


cdef inline int eval_divisor(const Geo* g, const Pos* p) noexcept nogil:
    return 1 << eval_divisor_shift(g, p)


cdef int evaluate(const EvalW* w, const Geo* g, const Pos* p) noexcept nogil:
    """Static evaluation in centi-men from the side to move's point of view.

    The same sum as ``eval_trace`` lists (tests check that they agree),
    computed directly for speed."""
    cdef const EvalTables* t = &ETAB[g.variant]
    cdef int f[NTERMS]
    cdef int i, k, iw, ib, phase, sign, po = 0, pe = 0, vw, vb, to = 0, te = 0
    cdef int64_t so, se, score
    cdef uint64_t wm = p.pieces[1] & ~p.kings, bm = p.pieces[0] & ~p.kings
    cdef int big_w[BIGPAT]
    cdef int big_b[BIGPAT]
    # The big tables (megabytes) are read last: their states first, with a prefetch of
    # each, so that the loads from memory overlap the work below.
    if w.big != NULL:
        for k in range(t.nbig):
            big_w[k] = k * BSTATES + big_index_w(t, wm, bm, k)
            big_b[k] = k * BSTATES + big_index_b(t, wm, bm, k)
            eval_prefetch(&w.big[big_w[k]])
            eval_prefetch(&w.big[big_b[k]])
    term_features(g, p, f)
    # The patterns before the terms: the loads of f wait for term_features'
    # stores, and the patterns need nothing from them.
    # In int: at most 16 weights of 16 bits each way. None when the weights have no
    # pattern tables (w.npat 0).
    for k in range(w.npat):
        iw = area_index_w(t, wm, bm, k)
        ib = area_index_b(t, wm, bm, k)
        # The opening and endgame weights of a state in one load (little-endian,
        # as EvalWeights reads them).
        vw = (<const int32_t*>&w.pat[k][iw][0])[0]
        vb = (<const int32_t*>&w.pat[k][ib][0])[0]
        po += <int16_t>vw - <int16_t>vb
        pe += (vw >> 16) - (vb >> 16)
    material_states(p, &iw, &ib)
    vw = (<const int32_t*>&w.mat[iw][0])[0]
    vb = (<const int32_t*>&w.mat[ib][0])[0]
    po += <int16_t>vw - <int16_t>vb
    pe += (vw >> 16) - (vb >> 16)
    if w.big != NULL:
        for k in range(t.nbig):
            vw = w.big[big_w[k]]
            vb = w.big[big_b[k]]
            po += <int16_t>vw - <int16_t>vb
            pe += (vw >> 16) - (vb >> 16)
    # The terms in int (at most 12 products of a 16-bit weight and a count below
    # 1000): the compiler's vector multiply-adds.
    for i in range(NTERMS):
        to += w.term[i][0] * f[i]
        te += w.term[i][1] * f[i]
    so = po + to
    se = pe + te
    sign = 1 if p.turn == 1 else -1
    so += sign * w.side[0]
    se += sign * w.side[1]
    phase = eval_phase(t, popcount(wm | bm))
    # Turned to the side to move before rounding, so that rounding is colour-blind.
    score = (sign * (so * phase + se * (PHASE_ONE - phase))) >> (PHASE_SHIFT + UNIT_SHIFT)
    return <int>(score >> eval_divisor_shift(g, p))


# ---------------------------------------------------------------------------
# Python-facing: weights, layout and trace
# ---------------------------------------------------------------------------



cdef inline int pattern_feature(int k, int state) noexcept nogil:
    """The feature number of state ``state`` of pattern table ``k`` (after the terms)."""
    return NTERMS + k * PSTATES + state


cdef inline int material_feature(const EvalTables* t, int index) noexcept nogil:
    """The feature number of material state ``index`` (after the pattern tables)."""
    return pattern_feature(t.npat, index)


cdef inline int big_feature(const EvalTables* t, int k, int state) noexcept nogil:
    """The feature number of state ``state`` of big table ``k`` (after the material table)."""
    return material_feature(t, MATSTATES) + k * BSTATES + state


cdef inline int side_feature(const EvalTables* t) noexcept nogil:
    """The feature number of the side to move: the last, after the big tables."""
    return big_feature(t, t.nbig, 0)


cdef int eval_nfeatures(int v) noexcept:
    """Features of a variant: the terms, its pattern tables, the material
    table, its big tables, the side to move."""
    return side_feature(&ETAB[v]) + 1


cdef class EvalWeights:
    """A set of evaluation weights for one variant, held by the core.

    ``data`` is the weight vector as little-endian int16, two weights (opening,
    endgame) per feature in the order of :func:`eval_layout`: the terms, the
    pattern tables (table by table, state by state), the material table, the
    big tables, the side to move.
    :mod:`damier.evalfile` reads and writes the files that hold them."""

    cdef EvalW* w
    cdef readonly int variant_index

    def __cinit__(self, int variant_index, data):
        cdef const uint8_t[:] raw
        cdef int nf, i, k, j, base, nbig
        cdef const int16_t* v
        cdef bint any_big = False, any_pat = False
        if not 0 <= variant_index < MAX_VARIANTS or GEOS[variant_index].size == 0:
            raise ValueError(f"unknown variant index {variant_index}")
        raw = bytes(data)
        nf = eval_nfeatures(variant_index)
        if raw.shape[0] != 4 * nf:
            raise ValueError(f"expected {2 * nf} weights ({4 * nf} bytes), got {raw.shape[0]} bytes")
        self.w = <EvalW*>calloc(1, sizeof(EvalW))
        if self.w == NULL:
            raise MemoryError()
        self.w.serial = new_eval_serial()
        self.variant_index = variant_index
        v = <const int16_t*>&raw[0]     # little-endian hosts only (x86-64, arm64)
        for i in range(NTERMS):
            self.w.term[i][0] = v[2 * i]
            self.w.term[i][1] = v[2 * i + 1]
        base = 2 * NTERMS
        for k in range(ETAB[variant_index].npat):
            for j in range(PSTATES):
                self.w.pat[k][j][0] = v[base]
                self.w.pat[k][j][1] = v[base + 1]
                any_pat = any_pat or v[base] != 0 or v[base + 1] != 0
                base += 2
        self.w.npat = ETAB[variant_index].npat if any_pat else 0
        for j in range(MATSTATES):
            self.w.mat[j][0] = v[base]
            self.w.mat[j][1] = v[base + 1]
            base += 2
        nbig = ETAB[variant_index].nbig
        for j in range(2 * nbig * BSTATES):
            if v[base + j]:
                any_big = True
                break
        if any_big:
            self.w.big = <int32_t*>alloc_table(nbig * BSTATES * sizeof(int32_t))
            if self.w.big == NULL:
                raise MemoryError()
            for j in range(nbig * BSTATES):
                self.w.big[j] = <int32_t>((<uint32_t><uint16_t>v[base + 2 * j])
                                          | (<uint32_t><uint16_t>v[base + 2 * j + 1] << 16))
        base += 2 * nbig * BSTATES
        self.w.side[0] = v[base]
        self.w.side[1] = v[base + 1]

    def __dealloc__(self):
        if self.w != NULL:
            free(self.w.big)
        free(self.w)

    def to_bytes(self) -> bytes:
        """The weight vector as ``data`` gives it (little-endian int16)."""
        cdef int nf = eval_nfeatures(self.variant_index), i, k, j, base
        cdef int nbig = ETAB[self.variant_index].nbig
        out = bytearray(4 * nf)
        cdef uint8_t[:] raw = out
        cdef int16_t* v = <int16_t*>&raw[0]
        for i in range(NTERMS):
            v[2 * i] = self.w.term[i][0]
            v[2 * i + 1] = self.w.term[i][1]
        base = 2 * NTERMS
        for k in range(ETAB[self.variant_index].npat):
            for j in range(PSTATES):
                v[base] = self.w.pat[k][j][0]
                v[base + 1] = self.w.pat[k][j][1]
                base += 2
        for j in range(MATSTATES):
            v[base] = self.w.mat[j][0]
            v[base + 1] = self.w.mat[j][1]
            base += 2
        if self.w.big != NULL:
            for j in range(nbig * BSTATES):
                v[base + 2 * j] = <int16_t>(self.w.big[j] & 0xFFFF)
                v[base + 2 * j + 1] = <int16_t>(self.w.big[j] >> 16)
        base += 2 * nbig * BSTATES
        v[base] = self.w.side[0]
        v[base + 1] = self.w.side[1]
        return bytes(out)


# The weights loaded for every engine, kept alive here (EVALW points into them).
_loaded_weights = [None] * MAX_VARIANTS


def set_eval_weights(EvalWeights weights) -> None:
    """Loads ``weights`` as the evaluation of their variant for every search
    that has no weights of its own."""
    _loaded_weights[weights.variant_index] = weights
    EVALW[weights.variant_index] = weights.w


def reset_eval_weights(int variant_index) -> None:
    """Goes back to the variant's weights before any were loaded (material only, or the
    hand-set terms of a variant with another goal), for every search that has no
    weights of its own."""
    if not 0 <= variant_index < MAX_VARIANTS or GEOS[variant_index].size == 0:
        raise ValueError(f"unknown variant index {variant_index}")
    _loaded_weights[variant_index] = None
    EVALW[variant_index] = EVALW_DEFAULT[variant_index]


def eval_layout(int variant_index) -> dict:
    """The feature layout of a variant's evaluation: term names, pattern tables,
    states per table, the material table's states (after the pattern tables;
    ``material_counts``: men and kings are counted up to one less than these),
    features and the shifts of the fixed-point arithmetic."""
    if not 0 <= variant_index < MAX_VARIANTS or GEOS[variant_index].size == 0:
        raise ValueError(f"unknown variant index {variant_index}")
    cdef const EvalTables* t = &ETAB[variant_index]
    return {"terms": list(EVAL_TERM_NAMES), "patterns": t.npat, "pattern_states": PSTATES,
            "pattern_squares": AREA_SQUARES, "material_states": MATSTATES,
            "material_counts": [MAT_MEN, MAT_KINGS],
            "features": eval_nfeatures(variant_index),
            "unit_shift": UNIT_SHIFT, "phase_one": PHASE_ONE,
            "areas": [(GEOS[variant_index].sq_of_bit[t.area_w[k]], GEOS[variant_index].sq_of_bit[t.area_b[k]])
                      for k in range(t.npat)],
            "big_features": t.nbig * BSTATES, "big_patterns": t.nbig, "big_states": BSTATES,
            "big_squares": BIG_SQUARES,
            "big_areas": [([GEOS[variant_index].sq_of_bit[t.bbits_w[k][j]] for j in range(BIG_SQUARES)],
                           [GEOS[variant_index].sq_of_bit[t.bbits_b[k][j]] for j in range(BIG_SQUARES)])
                          for k in range(t.nbig)]}


# The features of one position in a trace: the terms, two per pattern table, two of
# the material table, two per big table, the side to move.
cdef enum:
    TRACE_WIDTH = NTERMS + 2 * MAXPAT + 2 + 2 * BIGPAT + 1


cdef int trace_row(const Geo* g, const Pos* p, int32_t* feats, int16_t* counts) noexcept nogil:
    """The features of ``p`` and their counts, as ``eval_trace`` lists them, written
    into ``feats`` and ``counts`` (TRACE_WIDTH room); returns how many."""
    cdef const EvalTables* t = &ETAB[g.variant]
    cdef int f[NTERMS]
    cdef int i, k, iw, ib, col = 0
    cdef uint64_t wm = p.pieces[1] & ~p.kings, bm = p.pieces[0] & ~p.kings
    term_features(g, p, f)
    for i in range(NTERMS):
        if f[i]:
            feats[col] = i
            counts[col] = <int16_t>f[i]
            col += 1
    for k in range(t.npat):
        feats[col] = pattern_feature(k, area_index_w(t, wm, bm, k))
        counts[col] = 1
        feats[col + 1] = pattern_feature(k, area_index_b(t, wm, bm, k))
        counts[col + 1] = -1
        col += 2
    material_states(p, &iw, &ib)
    feats[col] = material_feature(t, iw)
    counts[col] = 1
    feats[col + 1] = material_feature(t, ib)
    counts[col + 1] = -1
    col += 2
    for k in range(t.nbig):
        feats[col] = big_feature(t, k, big_index_w(t, wm, bm, k))
        counts[col] = 1
        feats[col + 1] = big_feature(t, k, big_index_b(t, wm, bm, k))
        counts[col + 1] = -1
        col += 2
    feats[col] = side_feature(t)
    counts[col] = 1 if p.turn == 1 else -1
    return col + 1


def eval_trace(CoreBoard board):
    """The evaluation's features of ``board``: ``(features, counts, phase, shift)``.

    ``features`` are feature numbers (as :func:`eval_layout` orders them) and
    ``counts`` their values, White minus Black (a pattern or material feature
    counts +1 for White's view, -1 for Black's; the last feature is the side to
    move, +1 for White). With the weights ``w`` (two per feature), the evaluation is::

        so = sum(c * w[2 * f] ...); se = sum(c * w[2 * f + 1] ...)
        score = ((sign * (so * phase + se * (256 - phase))) >> 11) >> shift

    is what ``evaluate`` returns, with ``sign`` +1 when White is to move, else -1
    (the score is the side to move's)."""
    cdef const Geo* g = board._g
    cdef const Pos* p = &board._pos
    cdef int32_t feats[TRACE_WIDTH]
    cdef int16_t counts[TRACE_WIDTH]
    cdef int i, n = trace_row(g, p, feats, counts)
    cdef uint64_t men = (p.pieces[0] | p.pieces[1]) & ~p.kings
    return ([feats[i] for i in range(n)], [counts[i] for i in range(n)],
            eval_phase(&ETAB[g.variant], popcount(men)), eval_divisor_shift(g, p))


def eval_scale_divisor(CoreBoard board) -> int:
    """What the weighted feature sum of ``board`` is divided by (1, or 16 in a
    drawish lone-king ending)."""
    return eval_divisor(board._g, &board._pos)


def square_sets(CoreBoard board):
    """``(white, black, kings, white_to_move)``: the position as square sets
    (bit ``s - 1`` for square ``s``), as ``eval_trace_batch`` reads them."""
    cdef const Geo* g = board._g
    cdef const Pos* p = &board._pos
    cdef uint64_t sets[3]
    cdef uint64_t x, b
    cdef int i
    cdef uint64_t src[3]
    src[0] = p.pieces[1]
    src[1] = p.pieces[0]
    src[2] = p.kings
    for i in range(3):
        sets[i] = 0
        x = src[i]
        while x:
            b = x & (~x + 1)
            x ^= b
            sets[i] |= (<uint64_t>1) << (g.sq_of_bit[ctz(b)] - 1)
    return sets[0], sets[1], sets[2], p.turn == 1


TRACE_WIDTH_MAX = TRACE_WIDTH


cdef void pos_from_square_sets(const Geo* g, uint64_t white, uint64_t black, uint64_t kings,
                               bint white_to_move, Pos* pos) noexcept nogil:
    """The position of square sets (as ``square_sets`` gives them); squares off the
    board and kings on empty squares are ignored."""
    cdef uint64_t sets[3]
    cdef uint64_t* dest[3]
    cdef uint64_t x, b
    cdef int j, s
    sets[0] = white
    sets[1] = black
    sets[2] = kings
    dest[0] = &pos.pieces[1]
    dest[1] = &pos.pieces[0]
    dest[2] = &pos.kings
    pos.pieces[0] = 0
    pos.pieces[1] = 0
    pos.kings = 0
    for j in range(3):
        x = sets[j]
        while x:
            b = x & (~x + 1)
            x ^= b
            s = ctz(b) + 1
            if s <= g.nsq:
                dest[j][0] |= (<uint64_t>1) << g.bit_of_sq[s]
    pos.kings &= pos.pieces[0] | pos.pieces[1]
    pos.turn = 1 if white_to_move else 0


def eval_trace_batch(int variant_index, const uint64_t[:] white, const uint64_t[:] black,
                     const uint64_t[:] kings, const uint8_t[:] white_to_move,
                     int32_t[:, :] feats, int16_t[:, :] counts, int16_t[:] phase,
                     int8_t[:] shift) -> None:
    """``eval_trace`` of many positions given as square sets (see ``square_sets``),
    written into the caller's arrays (``TRACE_WIDTH_MAX`` columns; unused
    columns get feature 0 and count 0). No numpy needed here: any buffers of
    these types will do."""
    cdef const Geo* g
    cdef Pos pos
    cdef int n, i, col, used
    cdef int32_t row_feats[TRACE_WIDTH]
    cdef int16_t row_counts[TRACE_WIDTH]
    if not 0 <= variant_index < MAX_VARIANTS or GEOS[variant_index].size == 0:
        raise ValueError(f"unknown variant index {variant_index}")
    g = &GEOS[variant_index]
    n = white.shape[0]
    if (black.shape[0] != n or kings.shape[0] != n or white_to_move.shape[0] != n
            or feats.shape[0] != n or counts.shape[0] != n or phase.shape[0] != n
            or shift.shape[0] != n):
        raise ValueError("all arrays need one row per position")
    if feats.shape[1] < TRACE_WIDTH or counts.shape[1] < TRACE_WIDTH:
        raise ValueError(f"feats and counts need {TRACE_WIDTH} columns")
    with nogil:
        for i in range(n):
            pos_from_square_sets(g, white[i], black[i], kings[i], white_to_move[i] != 0, &pos)
            used = trace_row(g, &pos, row_feats, row_counts)
            for col in range(TRACE_WIDTH):
                feats[i, col] = row_feats[col] if col < used else 0
                counts[i, col] = row_counts[col] if col < used else 0
            phase[i] = <int16_t>eval_phase(&ETAB[variant_index],
                                           popcount((pos.pieces[0] | pos.pieces[1]) & ~pos.kings))
            shift[i] = <int8_t>eval_divisor_shift(g, &pos)

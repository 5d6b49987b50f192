# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled core of damier: bitboards, move generation, make/unmake and perft.

Nothing in this module's hot paths touches a Python object: positions are
structs of 64-bit bitboards and moves are structs written into caller-owned
buffers. The Python-facing pieces are :class:`Move` and :class:`CoreBoard`
(the base class of :class:`damier.Board`).

Bit layout (see docs/ARCHITECTURE.md): square ``s`` (1-based) is bit
``(s-1) + (s-1) // (2*R)`` where ``R`` is the number of squares on a row, so
that the diagonal neighbours are the shifts ``-(R+1)``, ``-R``, ``+R`` and
``+(R+1)``; a shift that leaves the board lands on a ghost bit, which the board
mask removes. On a board whose top left square is dark (Italian, ``Geo.mirror``)
the numbers run the other way along each row: the bit layout is that board's
mirror image, which the move rules cannot tell apart.
"""

cimport cython
from cpython.exc cimport PyErr_CheckSignals
from libc.stdint cimport int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

cdef extern from *:
    """
    static inline int dm_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int dm_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    """
    int popcount "dm_popcount"(uint64_t x) nogil
    int ctz "dm_ctz"(uint64_t x) nogil

# ---------------------------------------------------------------------------
# Variants and geometry
# ---------------------------------------------------------------------------

cdef enum:
    MAXPATH = 24             # longest capture: 20 pieces in International, with room to spare
    MAXMOVES = 2048          # move buffer size of one ply
    MAX_PERFT_DEPTH = 64
    MAX_VARIANTS = 16        # room in the per-variant tables below (damier.variants.VARIANTS fills them)

# What wins a game: having no legal move loses (GOAL_NORMAL), wins (GOAL_MISERE,
# antidraughts), or the first king crowned wins (GOAL_CROWN).
cdef enum:
    GOAL_NORMAL = 0
    GOAL_MISERE = 1
    GOAL_CROWN = 2

_GOALS = ("normal", "misere", "crown")

# Directions: 0 up-left, 1 up-right (towards lower square numbers), 2 down-left, 3 down-right;
# with orthogonal captures (Frisian) also 4 up, 5 left, 6 right, 7 down, along the files and
# rows of dark squares (the next dark square of a row is two columns away, of a file two rows
# away). White men move up (0, 1), Black men move down (2, 3). The opposite of d is d ^ 3.

ctypedef struct Geo:
    int variant
    int size
    int per_row
    int nsq
    int shift[8]
    uint64_t src[8]          # the bits a shift along direction d may start from (rows wrap)
    int ndirs                # 4, or 8 with orthogonal captures
    int full                 # every square of the board is used, moves go along rows and
                             # files only (Turkish); square s is bit s - 1
    int remove_now           # captured pieces leave the board at once (Turkish)
    # The directions each kind of piece goes in, as ranges [first, last) of direction
    # numbers (every set is one: see _init_directions):
    int kc0, kc1             # kings capture
    int km0, km1             # kings move without capturing
    int mc0[2]               # [black, white]: men capture
    int mc1[2]
    int mm0[2]               # [black, white]: men move
    int mm1[2]
    uint64_t mask
    uint64_t promo[2]        # promotion row of [black, white]
    int flying               # flying kings
    int men_back             # men capture backwards
    int majority             # majority capture
    int promote_mid          # crowned during a capture and continues as king (Russian)
    int crown_ends           # crowned during a capture and the move ends (English)
    int sq_of_bit[64]        # 1-based square number of a bit, 0 for ghosts
    int bit_of_sq[65]        # bit of a 1-based square
    int lone_king_drawish    # the evaluation scales a lone king against <= 3 pieces right down
    int goal                 # GOAL_NORMAL, GOAL_MISERE (no legal move wins), GOAL_CROWN (crowning wins)
    int mirror               # the numbers run right to left along the layout's rows (Italian)
    int men_take_kings       # men may capture kings (all but Italian)
    int precedence           # Italian precedence among the longest captures (see precedence_key)
    int orth                 # men and kings also capture along rows and files (Frisian)
    int man_value            # the value rule (Frisian): a capture's value counts men and kings
    int king_value           # with these weights; 0: the majority rule counts pieces
    int king_limit           # a king makes at most this many moves in a row without capturing
                             # while its side has men (Frisian: 3); 0: no limit
    int killer               # a king's capture whose last piece taken is a king ends on the
                             # square just beyond it (Killer draughts)

ctypedef struct Pos:
    uint64_t pieces[2]       # [black, white]
    uint64_t kings
    int turn                 # 1: White to move, 0: Black to move
    uint8_t ksq[2]           # [black, white]: the bit of the king that made the side's last
    uint8_t kcnt[2]          # kcnt non-capturing moves in a row (0: the last move was not one)

ctypedef struct CMove:
    uint64_t frm
    uint64_t to
    uint64_t cap
    uint8_t ncap
    uint8_t promote
    uint8_t king             # the moving piece is a king
    uint8_t pad
    uint8_t path[MAXPATH]    # landing squares (bits) in order; path[ncap-1] is `to`
    uint8_t caps[MAXPATH]    # captured pieces (bits) in jump order

# The variants' facts are not written here: damier.variants (the registry) calls
# init_variant for each variant at import. A Geo whose size is 0 is not initialised.
cdef Geo GEOS[MAX_VARIANTS]
cdef uint64_t ZOBRIST[4][64]     # [black man, white man, black king, white king][bit]
cdef uint64_t ZOBRIST_WHITE_TO_MOVE
cdef uint64_t ZOBRIST_VARIANT[MAX_VARIANTS]   # keeps the keys of same-sized variants apart
cdef uint64_t ZOBRIST_KING_RUN[2][8][64]      # [side][run length, capped at 7][king's bit]


cdef inline int layout_bit(int r, int t) noexcept nogil:
    """The bit of the ``t``-th square (1-based) of the bit layout, counted row by row from
    the top left, on a board of ``r`` squares a row: square 1 of the layout is on the
    first row, second column (see the module docstring)."""
    return (t - 1) + (t - 1) // (2 * r)


cdef void _init_geo(Geo* g, int variant, int size, int flying, int men_back, int majority,
                    int promote_mid, int crown_ends, int lone_king_drawish, int goal,
                    int mirror, int men_take_kings, int precedence, int orth,
                    int man_value, int king_value, int king_limit, int killer, int full,
                    int remove_now):
    g.variant = variant
    g.size = size
    g.full = full
    g.remove_now = remove_now
    g.ndirs = 8 if orth else 4
    g.orth = orth
    g.man_value = man_value
    g.king_value = king_value
    g.king_limit = king_limit
    g.killer = killer
    g.flying = flying
    g.men_back = men_back
    g.majority = majority
    g.promote_mid = promote_mid
    g.crown_ends = crown_ends
    g.lone_king_drawish = lone_king_drawish
    g.goal = goal
    g.mirror = mirror
    g.men_take_kings = men_take_kings
    g.precedence = precedence
    if full:
        _init_full_layout(g)
    else:
        _init_dark_layout(g)
    _init_directions(g)


cdef void _init_dark_layout(Geo* g):
    """The dark squares' bit layout (every variant but Turkish): ``layout_bit``, a ghost
    bit after every two rows, the diagonal and orthogonal shifts."""
    cdef int size = g.size, r = size // 2
    cdef int s, t
    g.per_row = r
    g.nsq = size * size // 2
    g.shift[0] = r + 1
    g.shift[1] = r
    g.shift[2] = r
    g.shift[3] = r + 1
    g.shift[4] = 2 * r + 1   # a file: two rows down or up, the same place in the row
    g.shift[5] = 1           # a row: the next dark square, two columns left or right
    g.shift[6] = 1
    g.shift[7] = 2 * r + 1
    _clear_squares(g)
    # A board whose top left square is dark (Italian) is the mirror image of the bit
    # layout's board: its square s, at position p of its row, is the layout's square at
    # position r - 1 - p of the same row. Rows, and so the crowning rows, are the same;
    # the move rules are symmetric, so nothing else changes.
    for s in range(1, g.nsq + 1):
        t = s
        if g.mirror:
            t = ((s - 1) // r) * r + (r - 1 - (s - 1) % r) + 1
        _place_square(g, s, layout_bit(r, t))
    _init_orthogonal(g)


cdef void _clear_squares(Geo* g):
    """No square placed yet: empty masks and crowning rows, no bit for any square."""
    cdef int b
    g.mask = 0
    g.promo[0] = 0
    g.promo[1] = 0
    for b in range(64):
        g.sq_of_bit[b] = 0
    for b in range(65):
        g.bit_of_sq[b] = -1


cdef void _place_square(Geo* g, int s, int b):
    """Square ``s`` is bit ``b``: the maps both ways, the board's mask, and the crowning
    rows (White crowns on the first row of squares, Black on the last)."""
    g.sq_of_bit[b] = s
    g.bit_of_sq[s] = b
    g.mask |= (<uint64_t>1) << b
    if s <= g.per_row:
        g.promo[1] |= (<uint64_t>1) << b
    if s > g.nsq - g.per_row:
        g.promo[0] |= (<uint64_t>1) << b


cdef void _init_full_layout(Geo* g):
    """Every square used (Turkish): square s (1 to 64, row by row from the top left as
    White sees the board) is bit s - 1. Pieces go along rows and files only: up and down
    a file is a shift by a row's length, left and right by one, not across a row's end."""
    cdef int size = g.size, s, b, d
    g.per_row = size
    g.nsq = size * size
    for d in range(4):
        g.shift[d] = 0       # no diagonal moves on this board
    g.shift[4] = size
    g.shift[5] = 1
    g.shift[6] = 1
    g.shift[7] = size
    _clear_squares(g)
    for s in range(1, g.nsq + 1):
        _place_square(g, s, s - 1)
    for d in range(8):
        g.src[d] = g.mask
    for s in range(1, g.nsq + 1):
        b = s - 1
        if (s - 1) % size == 0:
            g.src[5] &= ~((<uint64_t>1) << b)     # a row's first square: nothing to its left
        if (s - 1) % size == size - 1:
            g.src[6] &= ~((<uint64_t>1) << b)     # a row's last square: nothing to its right


cdef void _init_directions(Geo* g):
    """The directions each kind of piece moves and captures in, each set a range of the
    direction numbers. Diagonal boards: men move forward (White 0-1, Black 2-3) and capture
    forward, or every way when they capture backwards (0-3, and 4-7 along rows and files
    with orthogonal captures); kings move along diagonals (0-3: Frisian kings too) and
    capture along every line they have. The full board (Turkish): men move and capture
    forward and sideways (White 4-6: up, left, right; Black 5-7: left, right, down);
    kings along rows and files (4-7)."""
    cdef int c
    if g.full:
        g.kc0 = 4
        g.kc1 = 8
        g.km0 = 4
        g.km1 = 8
        for c in range(2):
            g.mc0[c] = 4 if c else 5
            g.mc1[c] = 7 if c else 8
            g.mm0[c] = g.mc0[c]
            g.mm1[c] = g.mc1[c]
        return
    g.kc0 = 0
    g.kc1 = g.ndirs
    g.km0 = 0
    g.km1 = 4
    for c in range(2):
        g.mm0[c] = 0 if c else 2
        g.mm1[c] = 2 if c else 4
        if g.men_back:
            g.mc0[c] = 0
            g.mc1[c] = g.ndirs
        else:
            g.mc0[c] = g.mm0[c]
            g.mc1[c] = g.mm1[c]


cdef void _init_orthogonal(Geo* g):
    """The orthogonal shifts' start masks: a bit may shift along a row or file only where
    the square it reaches is the neighbour on the board (a row's last square does not
    reach the next row's first). Worked out from the squares' rows and columns in the
    layout."""
    cdef int r = g.per_row
    cdef int b, t, d, row, col, nrow, ncol, nt
    cdef int drow[4]
    cdef int dcol[4]
    drow[0] = -2
    dcol[0] = 0
    drow[1] = 0
    dcol[1] = -2
    drow[2] = 0
    dcol[2] = 2
    drow[3] = 2
    dcol[3] = 0
    for d in range(8):
        g.src[d] = g.mask
    for d in range(4):
        g.src[4 + d] = 0
        for t in range(1, g.nsq + 1):
            row = (t - 1) // r
            col = 2 * ((t - 1) % r) + (1 if row % 2 == 0 else 0)
            nrow = row + drow[d]
            ncol = col + dcol[d]
            if not (0 <= nrow < g.size and 0 <= ncol < g.size):
                continue
            nt = nrow * r + ncol // 2 + 1
            b = layout_bit(r, t)
            if layout_bit(r, nt) != (b - g.shift[4 + d] if d < 2 else b + g.shift[4 + d]):
                continue     # cannot happen: the layout keeps rows and files in step
            g.src[4 + d] |= (<uint64_t>1) << b


cdef uint64_t _splitmix(uint64_t* state):
    state[0] += <uint64_t>0x9E3779B97F4A7C15
    cdef uint64_t z = state[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef void _init_tables():
    cdef uint64_t seed = 20261121
    cdef int i, b, k
    global ZOBRIST_WHITE_TO_MOVE
    for i in range(4):
        for b in range(64):
            ZOBRIST[i][b] = _splitmix(&seed)
    ZOBRIST_WHITE_TO_MOVE = _splitmix(&seed)
    for i in range(MAX_VARIANTS):
        ZOBRIST_VARIANT[i] = _splitmix(&seed)
    for i in range(2):
        for k in range(8):
            for b in range(64):
                ZOBRIST_KING_RUN[i][k][b] = _splitmix(&seed)


_init_tables()

_FACT_NAMES = ("size", "flying_kings", "men_capture_backwards", "majority_capture",
               "promote_during_capture", "crowning_ends_capture", "lone_king_drawish", "goal",
               "top_left_dark", "men_capture_kings", "capture_precedence",
               "orthogonal_captures", "capture_values", "king_move_limit", "killer_rule",
               "all_squares", "captures_removed_at_once")


def init_variant(int index, int size, *, bint flying_kings, bint men_capture_backwards,
                 bint majority_capture, bint promote_during_capture, bint crowning_ends_capture,
                 bint lone_king_drawish, str goal="normal", bint top_left_dark=False,
                 bint men_capture_kings=True, bint capture_precedence=False,
                 bint orthogonal_captures=False, capture_values=None, king_move_limit=None,
                 bint killer_rule=False, bint all_squares=False,
                 bint captures_removed_at_once=False):
    """Fills the core's tables (geometry, rule flags, evaluation tables) of the
    variant with core index ``index``. :mod:`damier.variants` calls it for every
    variant of the registry when it is imported: the core holds no variant facts
    of its own. Calling it again with the same facts does nothing; with other
    facts it raises :class:`ValueError` (boards may be using the tables). ``goal``:
    ``"normal"`` (no legal move loses), ``"misere"`` (no legal move wins: antidraughts) or
    ``"crown"`` (the first king crowned wins: breakthrough). ``top_left_dark``: square 1 is
    the top left corner (Italian; else the second square of the top row).
    ``men_capture_kings``: False when men may capture only men (Italian).
    ``capture_precedence``: among the captures taking the most pieces (which needs
    ``majority_capture``), the Italian order: by a king before by a man, then the most
    kings taken, then the first king taken earliest.
    ``orthogonal_captures``: men and kings also capture along rows and files (Frisian; men
    then capture in all eight directions). ``capture_values``: ``(man, king)`` weights of
    the value rule (Frisian), which replaces the count of the majority rule; at equal
    value a capture by a king comes first. ``king_move_limit``: a king may make at most
    this many non-capturing moves in a row while its side has men (Frisian: 3).
    ``killer_rule``: a king's capture whose last piece taken is a king ends on the square
    just beyond that king (Killer draughts; needs flying kings). ``all_squares``: every
    square of the board is used and pieces go along rows and files only (Turkish: men
    move and capture forward and sideways, kings along rows and files; 8 x 8 only).
    ``captures_removed_at_once``: a captured piece leaves the board as it is jumped, so
    that the capturing piece may cross its square again (Turkish)."""
    cdef Geo g
    cdef int man_value = 0, king_value = 0, king_limit = 0
    if not 0 <= index < MAX_VARIANTS:
        raise ValueError(f"variant index {index} out of range 0-{MAX_VARIANTS - 1}")
    if size % 2 or not 4 <= size <= 10:
        raise ValueError(f"board size {size} not supported (an even size from 4 to 10)")
    if goal not in _GOALS:
        raise ValueError(f"goal must be one of {', '.join(_GOALS)}, got {goal!r}")
    if capture_precedence and not majority_capture:
        raise ValueError("capture_precedence orders the captures taking the most pieces: "
                         "it needs majority_capture")
    if capture_values is not None:
        man_value, king_value = capture_values
        if not (majority_capture and 0 < man_value <= king_value < 1000):
            raise ValueError(f"capture_values {capture_values!r}: (man, king) weights with "
                             "0 < man <= king < 1000, and majority_capture")
        if capture_precedence:
            raise ValueError("capture_values and capture_precedence are two rules for one choice")
    if king_move_limit is not None:
        king_limit = king_move_limit
        if not 1 <= king_limit <= 7:
            raise ValueError(f"king_move_limit must be from 1 to 7, got {king_move_limit!r}")
    if killer_rule and not flying_kings:
        raise ValueError("the killer rule stops a flying king's capture: it needs flying kings")
    if all_squares and (size != 8 or orthogonal_captures or top_left_dark or men_capture_backwards
                        or capture_values is not None or capture_precedence):
        raise ValueError("all_squares is the 8 x 8 board of every square, with men moving forward "
                         "and sideways: no other board, orthogonal or backward captures, or "
                         "precedence rules")
    if orthogonal_captures and (size != 10 or top_left_dark or not men_capture_backwards):
        raise ValueError("orthogonal captures need the 10x10 layout and men capturing backwards")
    _init_geo(&g, index, size, flying_kings, men_capture_backwards, majority_capture,
              promote_during_capture, crowning_ends_capture, lone_king_drawish,
              _GOALS.index(goal), top_left_dark, men_capture_kings, capture_precedence,
              orthogonal_captures, man_value, king_value, king_limit, killer_rule, all_squares,
              captures_removed_at_once)
    if GEOS[index].size:
        if variant_facts(index) != _facts_of(&g):
            raise ValueError(f"variant index {index} is already initialised with other facts")
        return
    GEOS[index] = g
    _init_eval_tables(index)
    _default_eval_params(index)


cdef dict _facts_of(const Geo* g):
    return dict(zip(_FACT_NAMES, (g.size, bool(g.flying), bool(g.men_back), bool(g.majority),
                                  bool(g.promote_mid), bool(g.crown_ends),
                                  bool(g.lone_king_drawish), _GOALS[g.goal], bool(g.mirror),
                                  bool(g.men_take_kings), bool(g.precedence), bool(g.orth),
                                  (g.man_value, g.king_value) if g.king_value else None,
                                  g.king_limit or None, bool(g.killer), bool(g.full),
                                  bool(g.remove_now))))


def variant_facts(int index):
    """The facts the core holds for variant ``index`` (named like the
    :class:`damier.variants.Variant` fields), or None when it is not initialised."""
    if not 0 <= index < MAX_VARIANTS or GEOS[index].size == 0:
        return None
    return _facts_of(&GEOS[index])

# ---------------------------------------------------------------------------
# Bit helpers
# ---------------------------------------------------------------------------

cdef inline uint64_t sh(const Geo* g, uint64_t x, int d) noexcept nogil:
    if d < 2:
        return (x >> g.shift[d]) & g.mask
    if d < 4:
        return (x << g.shift[d]) & g.mask
    if d < 6:
        return ((x & g.src[d]) >> g.shift[d]) & g.mask
    return ((x & g.src[d]) << g.shift[d]) & g.mask


cdef inline uint64_t sh_back(const Geo* g, uint64_t x, int d) noexcept nogil:
    """The shift opposite to ``d`` (without masking along diagonals: x is on the board)."""
    if d < 2:
        return x << g.shift[d]
    if d < 4:
        return x >> g.shift[d]
    return sh(g, x, d ^ 3)


# ---------------------------------------------------------------------------
# Capture generation
# ---------------------------------------------------------------------------

ctypedef struct CapCtx:
    const Geo* g
    uint64_t opp             # opponent pieces (captured ones included: they stay until the end)
    uint64_t man_opp         # the opponent pieces a man may capture (its men only, in Italian)
    uint64_t opp_kings       # the opponent's kings (the Italian precedence counts them)
    uint64_t empty           # empty squares, the moving piece's start square included
    uint64_t frm
    uint64_t promo           # the mover's promotion row
    int white
    int best                 # best key so far: pieces captured (majority rule), or precedence_key
    int n                    # moves written
    int overflow
    uint8_t start_king
    uint8_t promoted         # crowned during this capture (Russian)
    CMove* out
    uint8_t path[MAXPATH]
    uint8_t caps[MAXPATH]


cdef inline int precedence_key(const CapCtx* c, uint64_t captured, int ncap) noexcept nogil:
    """The key of the Italian order of the captures (the FID's rules, see the registry's
    ``Variant.capture_precedence``): the most pieces; at equal numbers a capture by a king
    before one by a man; then the most kings taken; then the one whose first king taken
    comes earliest in the sequence. Larger is better; equal keys leave the player free
    to choose."""
    cdef int i, first = MAXPATH
    cdef uint64_t kings = captured & c.opp_kings
    if kings:
        for i in range(ncap):
            if ((<uint64_t>1) << c.caps[i]) & kings:
                first = i
                break
    return ((ncap * 2 + c.start_king) * 32 + popcount(kings)) * 32 + (MAXPATH - first)


cdef void emit(CapCtx* c, uint64_t to, uint64_t captured, int ncap, int promote) noexcept nogil:
    cdef int i, nk, key = ncap
    cdef CMove* m
    if c.g.majority:
        if c.g.precedence:
            key = precedence_key(c, captured, ncap)
        elif c.g.king_value:
            # the value rule: the weights of the pieces taken; at equal value by a king first
            nk = popcount(captured & c.opp_kings)
            key = ((ncap - nk) * c.g.man_value + nk * c.g.king_value) * 2 + c.start_king
        if key < c.best:
            return
        if key > c.best:
            c.best = key
            c.n = 0
    # The same start, end and set of captured pieces by another path is the same move.
    for i in range(c.n):
        m = &c.out[i]
        if m.cap == captured and m.to == to and m.frm == c.frm:
            return
    if c.n >= MAXMOVES:
        c.overflow = 1
        return
    m = &c.out[c.n]
    c.n += 1
    m.frm = c.frm
    m.to = to
    m.cap = captured
    m.ncap = <uint8_t>ncap
    m.promote = <uint8_t>promote
    m.king = c.start_king
    m.pad = 0
    # Whole arrays (constant sizes: copied inline, no call); past ncap is never read.
    memcpy(m.path, c.path, MAXPATH)
    memcpy(m.caps, c.caps, MAXPATH)


cdef bint king_can_capture_from(CapCtx* c, uint64_t sq, uint64_t captured, int lastdir) noexcept nogil:
    """Whether a flying king standing on ``sq`` (having moved along ``lastdir``) can capture."""
    cdef const Geo* g = c.g
    cdef int d, i
    cdef uint64_t x
    for d in range(g.kc0, g.kc1):
        if d == lastdir ^ 3:
            continue
        x = sh(g, sq, d)
        while x & c.empty:
            x = sh(g, x, d)
        if (x & c.opp & ~captured) and (sh(g, x, d) & c.empty):
            return True
    return False


cdef bint king_can_continue(CapCtx* c, uint64_t land, uint64_t captured, int lastdir) noexcept nogil:
    """Whether the king can capture again from some landing square, ``land`` or beyond."""
    cdef const Geo* g = c.g
    while land & c.empty:
        if king_can_capture_from(c, land, captured, lastdir):
            return True
        land = sh(g, land, lastdir)
    return False


cdef inline bint killer_stop(const CapCtx* c, uint64_t sq, int depth, int lastdir) noexcept nogil:
    """Whether a king's capture may end on ``sq`` under the killer rule (Killer draughts,
    as its inventor states it: "the king must stop on the first vacant square after the
    last captured piece, if and only if that piece is also a king")."""
    cdef uint64_t last = (<uint64_t>1) << c.caps[depth - 1]
    return not (last & c.opp_kings) or sq == sh(c.g, last, lastdir)


cdef void king_capture(CapCtx* c, uint64_t sq, uint64_t captured, int depth, int lastdir) noexcept nogil:
    """Flying king: captures at a distance, lands on any free square beyond."""
    cdef const Geo* g = c.g
    cdef int d, i, found = 0
    cdef bint must_continue
    cdef uint64_t x, land
    for d in range(g.kc0, g.kc1):
        if d == lastdir ^ 3:
            continue             # no turning back (Turkish: no 180-degree turn)
        x = sh(g, sq, d)
        while x & c.empty:
            x = sh(g, x, d)
        if x & c.opp & ~captured:
            if g.remove_now:
                c.empty |= x     # gone at once: the king may cross its square again
            land = sh(g, x, d)
            # Without the majority rule the king must still land where it can
            # capture on, if there is such a square (with it, shorter sequences lose anyway).
            must_continue = (not g.majority) and king_can_continue(c, land, captured | x, d)
            while land & c.empty:
                found = 1
                if must_continue and not king_can_capture_from(c, land, captured | x, d):
                    land = sh(g, land, d)
                    continue
                c.caps[depth] = <uint8_t>ctz(x)
                c.path[depth] = <uint8_t>ctz(land)
                king_capture(c, land, captured | x, depth + 1, d)
                land = sh(g, land, d)
            if g.remove_now:
                c.empty &= ~x
    if not found and depth > 0:
        if g.killer and not killer_stop(c, sq, depth, lastdir):
            return
        emit(c, sq, captured, depth, c.promoted)


cdef void short_king_capture(CapCtx* c, uint64_t sq, uint64_t captured, int depth) noexcept nogil:
    """Short king (English): jumps an adjacent piece to the square just beyond."""
    cdef const Geo* g = c.g
    cdef int d, i, found = 0
    cdef uint64_t x, land
    for d in range(g.kc0, g.kc1):
        x = sh(g, sq, d)
        if x & c.opp & ~captured:
            land = sh(g, x, d)
            if land & c.empty:
                found = 1
                c.caps[depth] = <uint8_t>ctz(x)
                c.path[depth] = <uint8_t>ctz(land)
                short_king_capture(c, land, captured | x, depth + 1)
    if not found and depth > 0:
        emit(c, sq, captured, depth, 0)


cdef void man_capture(CapCtx* c, uint64_t sq, uint64_t captured, int depth) noexcept nogil:
    cdef const Geo* g = c.g
    cdef int d, i, found = 0
    cdef uint64_t x, land
    for d in range(g.mc0[c.white], g.mc1[c.white]):
        x = sh(g, sq, d)
        if x & c.man_opp & ~captured:
            land = sh(g, x, d)
            if land & c.empty:
                found = 1
                c.caps[depth] = <uint8_t>ctz(x)
                c.path[depth] = <uint8_t>ctz(land)
                if land & c.promo:
                    if g.promote_mid:
                        c.promoted = 1
                        king_capture(c, land, captured | x, depth + 1, d)
                        c.promoted = 0
                        continue
                    if g.crown_ends:
                        emit(c, land, captured | x, depth + 1, 1)
                        continue
                if g.remove_now:
                    c.empty |= x     # gone at once (Turkish): its square is free again
                    man_capture(c, land, captured | x, depth + 1)
                    c.empty &= ~x
                else:
                    man_capture(c, land, captured | x, depth + 1)
    if not found and depth > 0:
        emit(c, sq, captured, depth, (sq & c.promo) != 0)


cdef inline uint64_t men_that_capture(const Geo* g, uint64_t men, uint64_t opp, uint64_t empty,
                                      int white) noexcept nogil:
    """The men that can make a first jump (a superset filter for the capture search).
    Along the diagonals only (directions 0-3), the loop has constant bounds (unrolled)."""
    cdef uint64_t r = 0
    cdef int d, i
    if g.mc1[white] <= 4:
        for d in range(4):
            if g.mc0[white] <= d < g.mc1[white]:
                r |= sh_back(g, sh_back(g, empty, d) & opp, d)
        return r & men
    for d in range(g.mc0[white], g.mc1[white]):
        r |= sh_back(g, sh_back(g, empty, d) & opp, d)
    return r & men


cdef int gen_captures(const Geo* g, const Pos* p, CMove* out, int* overflow) noexcept nogil:
    """All legal captures of the side to move, written to ``out``; returns how many."""
    cdef CapCtx c
    cdef int t = p.turn
    cdef uint64_t me = p.pieces[t]
    cdef uint64_t occ = p.pieces[0] | p.pieces[1]
    cdef uint64_t men = me & ~p.kings
    cdef uint64_t kings = me & p.kings
    cdef uint64_t b
    c.g = g
    c.opp = p.pieces[1 - t]
    c.opp_kings = c.opp & p.kings
    c.man_opp = c.opp if g.men_take_kings else c.opp & ~p.kings
    c.white = t
    c.best = 0 if (g.precedence or g.king_value) else 1
    c.n = 0
    c.overflow = 0
    c.out = out
    c.promo = g.promo[t]
    c.promoted = 0
    c.start_king = 0
    men = men_that_capture(g, men, c.man_opp, (g.mask & ~occ), t)
    while men:
        b = men & (~men + 1)
        men ^= b
        c.frm = b
        c.empty = (g.mask & ~occ) | b
        man_capture(&c, b, 0, 0)
    c.start_king = 1
    while kings:
        b = kings & (~kings + 1)
        kings ^= b
        c.frm = b
        c.empty = (g.mask & ~occ) | b
        if g.flying:
            king_capture(&c, b, 0, 0, -1)
        else:
            short_king_capture(&c, b, 0, 0)
    if c.overflow:
        overflow[0] = 1
    return c.n


cdef inline bint king_ray_captures(const Geo* g, uint64_t kings, uint64_t opp, uint64_t empty,
                                   int d) noexcept nogil:
    """Whether one of ``kings`` can capture along direction ``d``."""
    cdef uint64_t f = kings, x
    if g.flying:
        x = sh(g, f, d) & empty
        while x:
            f |= x
            x = sh(g, x, d) & empty
    return (sh(g, sh(g, f, d) & opp, d) & empty) != 0


cdef inline int king_ray_count(const Geo* g, uint64_t kings, uint64_t empty, int d) noexcept nogil:
    """The non-capturing moves of ``kings`` along direction ``d``."""
    cdef uint64_t x = sh(g, kings, d) & empty
    cdef int n = 0
    if not g.flying:
        return popcount(x)
    while x:
        n += popcount(x)
        x = sh(g, x, d) & empty
    return n


cdef bint kings_can_capture(const Geo* g, uint64_t kings, uint64_t opp,
                            uint64_t empty) noexcept nogil:
    """Whether one of ``kings`` has a capture. The diagonal boards' kings (directions
    0-3, the common case) go through a loop of constant bounds, which the compiler
    unrolls into four constant directions. Out of line: can_capture stays small."""
    cdef int d, i
    if g.kc0 == 0 and g.kc1 == 4:
        for d in range(4):
            if king_ray_captures(g, kings, opp, empty, d):
                return True
    else:
        for d in range(g.kc0, g.kc1):
            if king_ray_captures(g, kings, opp, empty, d):
                return True
    return False


cdef inline bint can_capture(const Geo* g, const Pos* p) noexcept nogil:
    """Whether the side to move has a capture (a quick bitboard test)."""
    cdef int t = p.turn
    cdef uint64_t me = p.pieces[t]
    cdef uint64_t opp = p.pieces[1 - t]
    cdef uint64_t empty = g.mask & ~(me | opp)
    cdef uint64_t men = me & ~p.kings
    cdef uint64_t kings = me & p.kings
    cdef uint64_t man_opp = opp if g.men_take_kings else opp & ~p.kings
    cdef uint64_t x = 0
    cdef int d, i
    if g.mc1[t] <= 4:
        # Men capturing along diagonals only (0-3): constant bounds, unrolled, every
        # direction tested at once. No board mask: the shifted men meet man_opp and
        # then empty, both on the board, and a shift off an edge lands on a ghost bit.
        for d in range(4):
            if g.mc0[t] <= d < g.mc1[t]:
                if d < 2:
                    x |= (((men >> g.shift[d]) & man_opp) >> g.shift[d]) & empty
                else:
                    x |= (((men << g.shift[d]) & man_opp) << g.shift[d]) & empty
        if x:
            return True
    else:
        for d in range(g.mc0[t], g.mc1[t]):
            if sh(g, sh(g, men, d) & man_opp, d) & empty:
                return True
    return kings != 0 and kings_can_capture(g, kings, opp, empty)


# ---------------------------------------------------------------------------
# Quiet moves
# ---------------------------------------------------------------------------

cdef inline uint64_t held_king(const Geo* g, const Pos* p) noexcept nogil:
    """The king of the side to move that may not make a non-capturing move now: it made
    the last ``king_limit`` of them in a row and its side still has men (Frisian rules:
    a king makes at most three non-capturing moves in a row while its side has men)."""
    cdef int t = p.turn
    if g.king_limit and p.kcnt[t] >= g.king_limit and (p.pieces[t] & ~p.kings):
        return (<uint64_t>1) << p.ksq[t]
    return 0


cdef int gen_quiet(const Geo* g, const Pos* p, CMove* out, int n) noexcept nogil:
    cdef int t = p.turn
    cdef uint64_t me = p.pieces[t]
    cdef uint64_t empty = g.mask & ~(p.pieces[0] | p.pieces[1])
    cdef uint64_t men = me & ~p.kings
    cdef uint64_t kings = me & p.kings & ~held_king(g, p)
    cdef uint64_t promo = g.promo[t]
    cdef uint64_t tgt, b, k, x
    cdef int d, i
    cdef CMove* m
    for d in range(g.mm0[t], g.mm1[t]):
        tgt = sh(g, men, d) & empty
        while tgt:
            b = tgt & (~tgt + 1)
            tgt ^= b
            m = &out[n]
            n += 1
            m.frm = sh_back(g, b, d)
            m.to = b
            m.cap = 0
            m.ncap = 0
            m.promote = (b & promo) != 0
            m.king = 0
    while kings:
        k = kings & (~kings + 1)
        kings ^= k
        for d in range(g.km0, g.km1):
            x = sh(g, k, d) & empty
            while x:
                m = &out[n]
                n += 1
                m.frm = k
                m.to = x
                m.cap = 0
                m.ncap = 0
                m.promote = 0
                m.king = 1
                if not g.flying:
                    break
                x = sh(g, x, d) & empty
    return n


cdef int count_quiet(const Geo* g, const Pos* p) noexcept nogil:
    cdef int t = p.turn
    cdef uint64_t me = p.pieces[t]
    cdef uint64_t empty = g.mask & ~(p.pieces[0] | p.pieces[1])
    cdef uint64_t men = me & ~p.kings
    cdef uint64_t kings = me & p.kings & ~held_king(g, p)
    cdef uint64_t x
    cdef int d, i, n = 0
    if not g.full:
        # diagonal boards: a man's two steps forward, shifts without a row mask
        if t:
            n = popcount((men >> g.shift[0]) & empty) + popcount((men >> g.shift[1]) & empty)
        else:
            n = popcount((men << g.shift[2]) & empty) + popcount((men << g.shift[3]) & empty)
    else:
        for d in range(g.mm0[t], g.mm1[t]):
            n += popcount(sh(g, men, d) & empty)
    if kings:
        if g.km0 == 0:       # diagonal boards: constant directions (see can_capture)
            for d in range(4):
                n += king_ray_count(g, kings, empty, d)
        else:
            for d in range(g.km0, g.km1):
                n += king_ray_count(g, kings, empty, d)
    return n


cdef int gen_moves(const Geo* g, const Pos* p, CMove* out, int captures_optional,
                   int* overflow) noexcept nogil:
    """All legal moves of the side to move. With ``captures_optional`` (the
    English huff rule) ordinary moves are legal beside the captures."""
    cdef int n = 0
    if can_capture(g, p):
        n = gen_captures(g, p, out, overflow)
        if not captures_optional:
            return n
    return gen_quiet(g, p, out, n)


cdef inline void make_move(Pos* p, const CMove* m) noexcept nogil:
    cdef int t = p.turn
    cdef int b
    # the run of non-capturing moves of one king (the Frisian king-move limit)
    if m.king and not m.ncap:
        b = ctz(m.frm)
        if p.kcnt[t] and p.ksq[t] == b:
            if p.kcnt[t] < 255:
                p.kcnt[t] += 1
        else:
            p.kcnt[t] = 1
        p.ksq[t] = <uint8_t>ctz(m.to)
    else:
        p.kcnt[t] = 0
    p.pieces[t] ^= m.frm ^ m.to
    if m.cap:
        p.pieces[1 - t] &= ~m.cap
        p.kings &= ~m.cap
    if m.king:
        p.kings ^= m.frm ^ m.to
    elif m.promote:
        p.kings |= m.to
    p.turn = 1 - t


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

cdef uint64_t perft_rec(const Geo* g, const Pos* p, int depth, CMove* buf, int* overflow) noexcept nogil:
    cdef int n, i
    cdef uint64_t total = 0
    cdef Pos q
    if depth == 1:
        if can_capture(g, p):
            return <uint64_t>gen_captures(g, p, buf, overflow)
        return <uint64_t>count_quiet(g, p)
    n = gen_moves(g, p, buf, 0, overflow)
    for i in range(n):
        q = p[0]
        make_move(&q, &buf[i])
        total += perft_rec(g, &q, depth - 1, buf + MAXMOVES, overflow)
    return total


cdef uint64_t perft_optional(const Geo* g, const Pos* p, int depth, CMove* buf,
                             int* overflow) noexcept nogil:
    """perft_rec when captures are optional (the English huff rule): the legal moves are
    the captures and the ordinary moves."""
    cdef int n, i
    cdef uint64_t total = 0
    cdef Pos q
    n = gen_moves(g, p, buf, 1, overflow)
    if depth == 1:
        return <uint64_t>n
    for i in range(n):
        q = p[0]
        make_move(&q, &buf[i])
        total += perft_optional(g, &q, depth - 1, buf + MAXMOVES, overflow)
    return total


cdef inline uint64_t perft_any(const Geo* g, const Pos* p, int depth, CMove* buf, int* overflow,
                               int optional) noexcept nogil:
    if optional:
        return perft_optional(g, p, depth, buf, overflow)
    return perft_rec(g, p, depth, buf, overflow)


cdef inline uint64_t king_run_key(const Geo* g, const Pos* p) noexcept nogil:
    """The hash of the king runs (the Frisian king-move limit) where they matter: a side
    with men whose last move was a king's non-capturing move."""
    cdef uint64_t h = 0
    cdef int c
    for c in range(2):
        if p.kcnt[c] and (p.pieces[c] & ~p.kings):
            h ^= ZOBRIST_KING_RUN[c][p.kcnt[c] if p.kcnt[c] < g.king_limit else g.king_limit][p.ksq[c]]
    return h


cdef uint64_t hash_pos(const Geo* g, const Pos* p) noexcept nogil:
    cdef uint64_t h = ZOBRIST_VARIANT[g.variant], x, b
    cdef int c, k
    for c in range(2):
        for k in range(2):
            x = p.pieces[c] & (p.kings if k else ~p.kings)
            while x:
                b = x & (~x + 1)
                x ^= b
                h ^= ZOBRIST[2 * k + c][ctz(b)]
    if p.turn:
        h ^= ZOBRIST_WHITE_TO_MOVE
    if g.king_limit:
        h ^= king_run_key(g, p)
    return h


# ---------------------------------------------------------------------------
# Python objects: Move
# ---------------------------------------------------------------------------

cdef tuple _EMPTY = ()


@cython.freelist(256)
@cython.final
cdef class Move:
    """A move: the start and end squares, the pieces it captures and its path.

    ``path`` lists every square the piece stands on, start and end included.
    Two moves are equal when they have the same start, end and set of captured
    pieces: two capture paths that take the same pieces between the same
    squares are one move (the PDN standard and the perft tables count them once).

    >>> from damier import Move
    >>> Move(32, 28)
    Move(32, 28)
    >>> m = Move(47, 36, captures=(42, 31, 19, 14), path=(47, 38, 24, 13, 36))
    >>> m.is_capture, m.path
    (True, (47, 38, 24, 13, 36))
    >>> m == eval(repr(m))
    True
    """

    cdef readonly int from_square
    """The square the piece starts on."""
    cdef readonly int to_square
    """The square the piece ends on (may equal ``from_square`` for a king capture)."""
    cdef uint64_t _capmask
    cdef uint8_t _ncap
    cdef uint8_t _npath
    cdef uint8_t _caps[MAXPATH]
    cdef uint8_t _path[MAXPATH]

    def __init__(self, int from_square, int to_square, captures=(), path=None):
        cdef int i, s
        if not 1 <= from_square <= 64 or not 1 <= to_square <= 64:
            raise ValueError(f"squares must be between 1 and 64, got {from_square} and {to_square}")
        self.from_square = from_square
        self.to_square = to_square
        caps = tuple(captures)
        if len(caps) > MAXPATH:
            raise ValueError(f"a move captures at most {MAXPATH} pieces, got {len(caps)}")
        self._capmask = 0
        self._ncap = <uint8_t>len(caps)
        for i in range(len(caps)):
            s = caps[i]
            if not 1 <= s <= 64:
                raise ValueError(f"captured square {s} is out of range")
            if self._capmask & ((<uint64_t>1) << (s - 1)):
                raise ValueError(f"square {s} is captured twice")
            self._caps[i] = <uint8_t>s
            self._capmask |= (<uint64_t>1) << (s - 1)
        self._npath = 0
        if path is not None:
            p = tuple(path)
            if len(p) < 2 or p[0] != from_square or p[len(p) - 1] != to_square:
                raise ValueError(f"path {p} must run from {from_square} to {to_square}")
            if caps and len(p) != len(caps) + 1:
                raise ValueError(f"a path of a capture of {len(caps)} pieces has {len(caps) + 1} squares, got {len(p)}")
            if not caps and len(p) != 2:
                raise ValueError("the path of a plain move is (from, to)")
            if caps:
                for i in range(1, len(p)):
                    s = p[i]
                    if not 1 <= s <= 64:
                        raise ValueError(f"path square {s} is out of range")
                    self._path[i - 1] = <uint8_t>s
                self._npath = <uint8_t>(len(p) - 1)

    @property
    def captures(self) -> tuple:
        """The captured squares in the order they are jumped."""
        if self._ncap == 0:
            return _EMPTY
        return tuple([self._caps[i] for i in range(self._ncap)])

    @property
    def path(self) -> tuple:
        """Every square the piece stands on: start, each landing square, end."""
        if self._npath == 0:
            return (self.from_square, self.to_square)
        return (self.from_square,) + tuple([self._path[i] for i in range(self._npath)])

    @property
    def has_path(self) -> bool:
        """Whether the landing squares of a capture are known."""
        return self._npath != 0 or self._ncap == 0

    @property
    def is_capture(self) -> bool:
        """Whether the move captures."""
        return self._ncap != 0

    @property
    def capture_set(self) -> frozenset:
        """The captured squares as a set."""
        return frozenset(self.captures)

    def __eq__(self, other):
        if not isinstance(other, Move):
            return NotImplemented
        cdef Move o = <Move>other
        return (self.from_square == o.from_square and self.to_square == o.to_square
                and self._capmask == o._capmask)

    def __hash__(self):
        return hash((self.from_square, self.to_square, self._capmask))

    def __repr__(self):
        if self._ncap == 0:
            return f"Move({self.from_square}, {self.to_square})"
        if self._npath:
            return f"Move({self.from_square}, {self.to_square}, captures={self.captures!r}, path={self.path!r})"
        return f"Move({self.from_square}, {self.to_square}, captures={self.captures!r})"

    def __str__(self):
        # A capture is written with its whole path (4x27x38x15): two captures between the
        # same squares, taking other pieces, must not read the same. Without a path (a
        # move made by hand from its squares) the capture is FROMxTO.
        if self._ncap == 0:
            return f"{self.from_square}-{self.to_square}"
        if self._npath:
            return "x".join([str(s) for s in self.path])
        return f"{self.from_square}x{self.to_square}"

    def __reduce__(self):
        if self._npath:
            return (Move, (self.from_square, self.to_square, self.captures, self.path))
        return (Move, (self.from_square, self.to_square, self.captures))


cdef Move _move_from_c(const Geo* g, const CMove* m):
    cdef Move mv = Move.__new__(Move)
    cdef int i, s
    mv.from_square = g.sq_of_bit[ctz(m.frm)]
    mv.to_square = g.sq_of_bit[ctz(m.to)]
    mv._ncap = m.ncap
    mv._npath = m.ncap
    mv._capmask = 0
    for i in range(m.ncap):
        s = g.sq_of_bit[m.caps[i]]
        mv._caps[i] = <uint8_t>s
        mv._capmask |= (<uint64_t>1) << (s - 1)
        mv._path[i] = <uint8_t>g.sq_of_bit[m.path[i]]
    return mv


cdef inline bint _matches(const Geo* g, const CMove* m, Move mv):
    cdef int i
    cdef uint64_t capmask = 0
    if g.sq_of_bit[ctz(m.frm)] != mv.from_square or g.sq_of_bit[ctz(m.to)] != mv.to_square:
        return False
    for i in range(m.ncap):
        capmask |= (<uint64_t>1) << (g.sq_of_bit[m.caps[i]] - 1)
    return capmask == mv._capmask


# ---------------------------------------------------------------------------
# Python objects: CoreBoard
# ---------------------------------------------------------------------------

cdef CMove* _SCRATCH = <CMove*>malloc(MAXMOVES * sizeof(CMove))


cdef class CoreBoard:
    """The compiled state of a :class:`damier.Board`: the position and the
    positions before each move played (for :meth:`pop`).

    Use :class:`damier.Board`; this base class holds no rules of play beyond
    move generation.
    """

    cdef const Geo* _g
    cdef Pos _pos
    cdef Pos* _stack
    cdef int _stack_len
    cdef int _stack_cap
    cdef int _captures_optional
    cdef public list move_stack
    """The moves played, oldest first."""

    def __cinit__(self, *args, **kwargs):
        self._g = &GEOS[0]
        self._stack = NULL
        self._stack_len = 0
        self._stack_cap = 0
        self._captures_optional = 0
        self._pos.pieces[0] = 0
        self._pos.pieces[1] = 0
        self._pos.kings = 0
        self._pos.turn = 1
        memset(self._pos.ksq, 0, 2)
        memset(self._pos.kcnt, 0, 2)
        self.move_stack = []

    def __dealloc__(self):
        if self._stack != NULL:
            free(self._stack)

    def _core_init(self, int variant_index, bint captures_optional=False):
        if not 0 <= variant_index < MAX_VARIANTS or GEOS[variant_index].size == 0:
            raise ValueError(f"unknown variant index {variant_index} (damier.variants "
                             "initialises the core's variants)")
        self._g = &GEOS[variant_index]
        self._captures_optional = captures_optional

    def _set_pieces(self, bint white_to_move, white_men, white_kings, black_men, black_kings):
        """Sets up a position from square lists and clears the move history."""
        cdef Pos p
        p.pieces[0] = 0
        p.pieces[1] = 0
        p.kings = 0
        p.turn = 1 if white_to_move else 0
        memset(p.ksq, 0, 2)
        memset(p.kcnt, 0, 2)
        for color, king, squares in ((1, 0, white_men), (1, 1, white_kings),
                                     (0, 0, black_men), (0, 1, black_kings)):
            for s in squares:
                b = self._bit(s)
                if (p.pieces[0] | p.pieces[1]) & b:
                    raise ValueError(f"square {s} is occupied twice")
                p.pieces[color] |= b
                if king:
                    p.kings |= b
        self._pos = p
        self._stack_len = 0
        self.move_stack = []

    cdef uint64_t _bit(self, s) except? 0:
        cdef int sq = s
        if not 1 <= sq <= self._g.nsq:
            raise ValueError(f"square {s} is out of range 1-{self._g.nsq}")
        return (<uint64_t>1) << self._g.bit_of_sq[sq]

    @property
    def turn(self) -> bool:
        """The side to move: ``True`` (``damier.WHITE``) or ``False`` (``damier.BLACK``)."""
        return self._pos.turn == 1

    @property
    def ply(self) -> int:
        """The number of moves played on this board."""
        return len(self.move_stack)

    cdef int _gen(self, CMove* buf) except -1:
        cdef int overflow = 0
        cdef int n = gen_moves(self._g, &self._pos, buf, self._captures_optional, &overflow)
        if overflow:
            raise RuntimeError(f"more than {MAXMOVES} legal moves in one position")
        return n

    @property
    def legal_moves(self) -> list:
        """The legal moves in the position (a new list on every call)."""
        cdef int n = self._gen(_SCRATCH)
        cdef int i
        cdef list out = [None] * n
        for i in range(n):
            out[i] = _move_from_c(self._g, &_SCRATCH[i])
        return out

    @property
    def must_capture(self) -> bool:
        """Whether the side to move has a capture (and so must capture)."""
        return can_capture(self._g, &self._pos)

    def is_legal(self, Move move) -> bool:
        """Whether ``move`` is legal in the position."""
        cdef int n = self._gen(_SCRATCH)
        cdef int i
        for i in range(n):
            if _matches(self._g, &_SCRATCH[i], move):
                return True
        return False

    def _push_legal(self, Move move):
        """Plays ``move`` if it is legal; returns ``(move, flags)`` with the
        canonical move (with its path) or ``None`` if it is illegal.
        ``flags`` is a tuple ``(king_move, capture, promotion)``."""
        cdef int n = self._gen(_SCRATCH)
        cdef int i
        cdef CMove m
        for i in range(n):
            if _matches(self._g, &_SCRATCH[i], move):
                m = _SCRATCH[i]
                canonical = move if (move._npath or not move._ncap) else _move_from_c(self._g, &m)
                self._save()
                make_move(&self._pos, &m)
                self.move_stack.append(canonical)
                return canonical, (m.king != 0, m.ncap != 0, m.promote != 0)
        return None

    cdef int _save(self) except -1:
        cdef int cap
        cdef Pos* s
        if self._stack_len == self._stack_cap:
            cap = self._stack_cap * 2 if self._stack_cap else 64
            s = <Pos*>realloc(self._stack, cap * sizeof(Pos))
            if s == NULL:
                raise MemoryError()
            self._stack = s
            self._stack_cap = cap
        self._stack[self._stack_len] = self._pos
        self._stack_len += 1
        return 0

    def _pop_move(self):
        if self._stack_len == 0:
            raise IndexError("pop from an empty move stack")
        self._stack_len -= 1
        self._pos = self._stack[self._stack_len]
        return self.move_stack.pop()

    def _pop_position(self):
        """Restores the position before the last :meth:`_remove_piece`."""
        if self._stack_len == 0:
            raise IndexError("nothing to take back")
        self._stack_len -= 1
        self._pos = self._stack[self._stack_len]

    def _has_legal_move(self) -> bool:
        """Whether the side to move has any legal move (cheaper than generating them)."""
        return can_capture(self._g, &self._pos) or count_quiet(self._g, &self._pos) > 0

    def _remove_piece(self, int square):
        """Removes the piece on ``square`` as a ply of its own (the huff);
        undone by :meth:`_pop_move`. The side to move does not change."""
        cdef uint64_t b = self._bit(square)
        self._save()
        self._pos.pieces[0] &= ~b
        self._pos.pieces[1] &= ~b
        self._pos.kings &= ~b

    def _copy_core_to(self, CoreBoard other):
        other._g = self._g
        other._pos = self._pos
        other._captures_optional = self._captures_optional
        other._stack_len = 0
        for i in range(self._stack_len):
            other._save()
            other._stack[i] = self._stack[i]
        other.move_stack = list(self.move_stack)

    def _root_pieces(self):
        """``(white_to_move, white_men, white_kings, black_men, black_kings)`` of
        the position before the first move on the stack."""
        cdef Pos p = self._stack[0] if self._stack_len else self._pos
        return self._pieces_of(&p)

    def _pieces(self):
        """``(white_to_move, white_men, white_kings, black_men, black_kings)``,
        each a list of squares in increasing order."""
        return self._pieces_of(&self._pos)

    cdef tuple _pieces_of(self, const Pos* p):
        cdef const Geo* g = self._g
        cdef uint64_t x
        cdef int i
        cdef uint64_t sets[4]
        sets[0] = p.pieces[1] & ~p.kings
        sets[1] = p.pieces[1] & p.kings
        sets[2] = p.pieces[0] & ~p.kings
        sets[3] = p.pieces[0] & p.kings
        result = [p.turn == 1]
        for i in range(4):
            x = sets[i]
            squares = []
            while x:
                squares.append(g.sq_of_bit[ctz(x)])
                x &= x - 1
            if g.mirror:
                squares.sort()     # the bits run the other way along each row
            result.append(squares)
        return tuple(result)

    def _counts(self):
        """``(white_men, white_kings, black_men, black_kings)`` piece counts."""
        cdef Pos* p = &self._pos
        return (popcount(p.pieces[1] & ~p.kings), popcount(p.pieces[1] & p.kings),
                popcount(p.pieces[0] & ~p.kings), popcount(p.pieces[0] & p.kings))

    def _piece_code(self, int square):
        """0 empty, 1 white man, 2 white king, 3 black man, 4 black king."""
        cdef uint64_t b = self._bit(square)
        cdef Pos* p = &self._pos
        if p.pieces[1] & b:
            return 2 if p.kings & b else 1
        if p.pieces[0] & b:
            return 4 if p.kings & b else 3
        return 0

    def _king_runs(self):
        """``((white square, count), (black square, count))``: for each side, the king
        that made its last ``count`` moves without capturing, one after the other, and
        where it stands (``(0, 0)``: the side's last move was not such a move). The
        Frisian king-move limit reads them."""
        cdef const Geo* g = self._g
        return tuple((g.sq_of_bit[self._pos.ksq[c]] if self._pos.kcnt[c] else 0,
                      self._pos.kcnt[c]) for c in (1, 0))

    def _set_king_runs(self, white, black):
        """Sets the king runs (see :meth:`_king_runs`): ``(square, count)`` for each
        side, ``(0, 0)`` for none; the square must hold a king of that side."""
        cdef int c, sq, count
        cdef uint64_t b
        for c, run in ((1, white), (0, black)):
            sq, count = run
            if count == 0:
                self._pos.ksq[c] = 0
                self._pos.kcnt[c] = 0
                continue
            if not 1 <= count <= 255:
                raise ValueError(f"a king's run of moves must be 0-255, got {count}")
            b = self._bit(sq)
            if not (self._pos.pieces[c] & self._pos.kings & b):
                raise ValueError(f"no {'white' if c else 'black'} king on square {sq}")
            self._pos.ksq[c] = <uint8_t>ctz(b)
            self._pos.kcnt[c] = <uint8_t>count

    def zobrist_hash(self) -> int:
        """A 64-bit Zobrist hash of the position and the side to move."""
        return hash_pos(self._g, &self._pos)

    def _bitboards(self):
        """``(white, black, kings, white_to_move)`` as raw bitboards (ghost-bit layout)."""
        return (self._pos.pieces[1], self._pos.pieces[0], self._pos.kings, self._pos.turn == 1)

    def _perft(self, int depth):
        """Leaf count of the legal-move tree at ``depth`` (bulk counted)."""
        cdef uint64_t n
        cdef int overflow = 0
        cdef CMove* buf
        if depth < 0:
            raise ValueError("depth must be >= 0")
        if depth == 0:
            return 1
        if depth > MAX_PERFT_DEPTH:
            raise ValueError(f"depth must be <= {MAX_PERFT_DEPTH}")
        buf = <CMove*>malloc((depth + 1) * MAXMOVES * sizeof(CMove))
        if buf == NULL:
            raise MemoryError()
        try:
            with nogil:
                n = perft_any(self._g, &self._pos, depth, buf, &overflow, self._captures_optional)
        finally:
            free(buf)
        if overflow:
            raise RuntimeError(f"more than {MAXMOVES} legal moves in one position")
        return n

    def _perft_divide(self, int depth):
        """``[(move, leaves), ...]`` for each legal move: the leaf count below it.

        Checks for ``KeyboardInterrupt`` between moves."""
        cdef int n, i, overflow = 0
        cdef CMove* buf
        cdef Pos q
        cdef uint64_t cnt
        if depth < 1:
            raise ValueError("depth must be >= 1")
        if depth > MAX_PERFT_DEPTH:
            raise ValueError(f"depth must be <= {MAX_PERFT_DEPTH}")
        buf = <CMove*>malloc((depth + 2) * MAXMOVES * sizeof(CMove))
        if buf == NULL:
            raise MemoryError()
        result = []
        try:
            n = gen_moves(self._g, &self._pos, buf, self._captures_optional, &overflow)
            for i in range(n):
                q = self._pos
                make_move(&q, &buf[i])
                if depth == 1:
                    cnt = 1
                else:
                    with nogil:
                        cnt = perft_any(self._g, &q, depth - 1, buf + MAXMOVES, &overflow,
                                        self._captures_optional)
                result.append((_move_from_c(self._g, &buf[i]), cnt))
                PyErr_CheckSignals()
        finally:
            free(buf)
        if overflow:
            raise RuntimeError(f"more than {MAXMOVES} legal moves in one position")
        return result

# ---------------------------------------------------------------------------
# Evaluation and search: one file per concern, each using the ones before it
# ---------------------------------------------------------------------------

include "_eval.pxi"        # the static evaluation and its feature vector
include "_tt.pxi"          # the transposition table
include "_egdb.pxi"        # endgame databases: the generator and the C-level probe
include "_searcher.pxi"    # a search thread's state, scores and limits, the selectivity switches
include "_draws.pxi"       # the draw rules the search sees, the endgame tables' probe
include "_order.pxi"       # move ordering: order scores, killers, history
include "_qsearch.pxi"     # the quiescence search
include "_search.pxi"      # the principal variation search, step by step (one thread)
include "_smp.pxi"         # the lazy SMP helpers
include "_searchcore.pxi"  # SearchCore and the module functions Python calls

# Endgame databases: the compiled generator and the C-level probe (included by _core.pyx).
#
# A material signature is (our men, our kings, their men, their kings) for the side to
# move ("us"). Positions are normalised so that the side to move is White, moving up:
# a position with Black to move is turned half round (square s -> N + 1 - s) and its
# colours swapped. The index of a normalised position is mixed-radix over four groups,
# each a combination of squares in the colex order (sum of C(rank_i, i + 1)):
#   our men    on squares per_row+1 .. N  (a man never stands on its crowning row)
#   their men  on squares 1 .. N-per_row
#   our kings and their kings on squares 1 .. N
# index = ((i_our_men * |their men| + i_their_men) * |our kings| + i_our_kings) * |their kings|
#         + i_their_kings.
# Slots where two groups share a square are unused (EG_INVALID).
#
# A value is a uint16: 0 a draw; n + 1 when the game ends in n plies with best play
# (n odd: the side to move wins, n even: it loses; 1 = no legal move or no piece);
# EG_INVALID for an unused slot. Every position is stored, those with a capture included.
#
# The solver handles a signature and its mirror (colours swapped) together, since the
# quiet moves of one lead to the other; captures and promotions lead to tables built
# before (fewer pieces, or fewer men). It is a retrograde analysis by distance levels:
#   1. a forward pass over every slot (threads, nogil): positions without a move are
#      lost in 0; moves into built tables give a provisional win (best distance so far), a
#      draw there means the position cannot be lost; the rest count their quiet moves
#      that stay in the pair;
#   2. levels d = 0, 1, 2, ...: every position decided at distance d is taken back one
#      quiet move (un-moves of the side that just moved; predecessors with a capture are
#      skipped, their quiet moves are not legal): a predecessor of a loss in d wins in d + 1
#      (or sooner); a predecessor of a win has one undecided successor fewer, and when none
#      is left it loses in (the longest of its successors) + 1, found by a forward look;
#   3. what is left undecided is a draw.
# verify_range checks afterwards, forward and independently of the levels, that every
# stored value is the best value over its successors.

cdef enum:
    EG_INVALID = 0xFFFF
    EG_UNKNOWN = 0xFFFE
    EG_CANNOT_LOSE = 255
    EG_GROUP_BITS = 3         # a signature code holds each group's count in 3 bits
    EG_GROUP_MAX = (1 << EG_GROUP_BITS) - 1   # pieces of a group in a signature code
    EG_NCODES = 1 << (4 * EG_GROUP_BITS)      # signature codes
    EG_BIG = 0x7FFFFFFF
    EG_MAX_PIECES = 7         # pieces of the largest tables (damier.egdb.MAX_PIECES reads it)

MAX_EG_PIECES = EG_MAX_PIECES
EGDB_UNUSED = EG_INVALID

cdef uint64_t EG_BINOM[65][9]


cdef void _eg_init_binom():
    cdef int n, k
    for n in range(65):
        for k in range(9):
            if k == 0:
                EG_BINOM[n][k] = 1
            elif n == 0:
                EG_BINOM[n][k] = 0
            else:
                EG_BINOM[n][k] = EG_BINOM[n - 1][k - 1] + EG_BINOM[n - 1][k]


_eg_init_binom()

ctypedef struct EgSig:
    int n[4]                  # our men, our kings, their men, their kings
    int offset[4]             # square - 1 - offset is the rank in the group
    int range_[4]             # squares the group may stand on
    uint64_t size[4]          # C(range, n)
    uint64_t total
    int code

ctypedef struct EgReg:
    const Geo* g
    uint16_t* data[EG_NCODES]
    uint64_t size[EG_NCODES]


cdef inline int eg_code(int a, int b, int c, int d) noexcept nogil:
    return (a | (b << EG_GROUP_BITS) | (c << (2 * EG_GROUP_BITS))
            | (d << (3 * EG_GROUP_BITS)))


cdef void eg_sig_init(const Geo* g, EgSig* s, int a, int b, int c, int d) noexcept nogil:
    cdef int i
    s.n[0] = a
    s.n[1] = b
    s.n[2] = c
    s.n[3] = d
    s.offset[0] = g.per_row
    s.range_[0] = g.nsq - g.per_row
    s.offset[1] = 0
    s.range_[1] = g.nsq
    s.offset[2] = 0
    s.range_[2] = g.nsq - g.per_row
    s.offset[3] = 0
    s.range_[3] = g.nsq
    s.total = 1
    for i in range(4):
        s.size[i] = EG_BINOM[s.range_[i]][s.n[i]]
        s.total *= s.size[i]
    s.code = eg_code(a, b, c, d)


cdef inline uint64_t eg_flip(const Geo* g, uint64_t x) noexcept nogil:
    """The squares of ``x`` turned half round (square s -> N + 1 - s)."""
    cdef uint64_t r = 0
    cdef int b
    while x:
        b = ctz(x)
        x &= x - 1
        r |= (<uint64_t>1) << g.bit_of_sq[g.nsq + 1 - g.sq_of_bit[b]]
    return r


cdef inline void eg_normal(const Geo* g, const Pos* p, Pos* q) noexcept nogil:
    """``q``: ``p`` seen by its side to move, as White."""
    if p.turn == 1:
        q[0] = p[0]
        return
    q.pieces[1] = eg_flip(g, p.pieces[0])
    q.pieces[0] = eg_flip(g, p.pieces[1])
    q.kings = eg_flip(g, p.kings)
    q.turn = 1


cdef inline uint64_t eg_group_index(const Geo* g, uint64_t x, int offset) noexcept nogil:
    """The colex rank of the squares of ``x``: the sum of C(s_i - 1 - offset, i) over its
    squares s_1 < s_2 < ... (the bits come in square order, except on a board numbered the
    other way along the rows, ``Geo.mirror``, whose squares are sorted first)."""
    cdef uint64_t idx = 0
    cdef int i = 0, j, b, s
    cdef int sq[EG_GROUP_MAX + 1]
    if not g.mirror:
        while x:
            b = ctz(x)
            x &= x - 1
            i += 1
            idx += EG_BINOM[g.sq_of_bit[b] - 1 - offset][i]
        return idx
    while x and i <= EG_GROUP_MAX:
        b = ctz(x)
        x &= x - 1
        s = g.sq_of_bit[b]
        j = i
        while j > 0 and sq[j - 1] > s:
            sq[j] = sq[j - 1]
            j -= 1
        sq[j] = s
        i += 1
    for j in range(i):
        idx += EG_BINOM[sq[j] - 1 - offset][j + 1]
    return idx


cdef inline int eg_counts(const Pos* q, int* n) noexcept nogil:
    """The signature counts of a normalised position; returns its code."""
    n[0] = popcount(q.pieces[1] & ~q.kings)
    n[1] = popcount(q.pieces[1] & q.kings)
    n[2] = popcount(q.pieces[0] & ~q.kings)
    n[3] = popcount(q.pieces[0] & q.kings)
    return eg_code(n[0], n[1], n[2], n[3])


cdef inline uint64_t eg_index(const Geo* g, const Pos* q, const int* n) noexcept nogil:
    """The slot of a normalised position (counts ``n``) in its signature's table."""
    cdef uint64_t i0 = eg_group_index(g, q.pieces[1] & ~q.kings, g.per_row)
    cdef uint64_t i1 = eg_group_index(g, q.pieces[1] & q.kings, 0)
    cdef uint64_t i2 = eg_group_index(g, q.pieces[0] & ~q.kings, 0)
    cdef uint64_t i3 = eg_group_index(g, q.pieces[0] & q.kings, 0)
    cdef uint64_t r2 = EG_BINOM[g.nsq - g.per_row][n[2]]
    cdef uint64_t r1 = EG_BINOM[g.nsq][n[1]]
    cdef uint64_t r3 = EG_BINOM[g.nsq][n[3]]
    return ((i0 * r2 + i2) * r1 + i1) * r3 + i3


cdef inline uint64_t eg_unrank(int k, uint64_t idx, int range_, int offset, const Geo* g) noexcept nogil:
    cdef uint64_t bits = 0
    cdef int i, r = range_ - 1
    for i in range(k, 0, -1):
        while EG_BINOM[r][i] > idx:
            r -= 1
        idx -= EG_BINOM[r][i]
        bits |= (<uint64_t>1) << g.bit_of_sq[r + 1 + offset]
        r -= 1
    return bits


cdef inline bint eg_decode(const Geo* g, const EgSig* s, uint64_t idx, Pos* p) noexcept nogil:
    """The normalised position of slot ``idx``; False for an unused slot (overlap)."""
    cdef uint64_t i3 = idx % s.size[3]
    idx //= s.size[3]
    cdef uint64_t i1 = idx % s.size[1]
    idx //= s.size[1]
    cdef uint64_t i2 = idx % s.size[2]
    cdef uint64_t i0 = idx // s.size[2]
    cdef uint64_t wm = eg_unrank(s.n[0], i0, s.range_[0], s.offset[0], g)
    cdef uint64_t wk = eg_unrank(s.n[1], i1, s.range_[1], s.offset[1], g)
    cdef uint64_t bm = eg_unrank(s.n[2], i2, s.range_[2], s.offset[2], g)
    cdef uint64_t bk = eg_unrank(s.n[3], i3, s.range_[3], s.offset[3], g)
    if (wm & wk) or (wm & bm) or (wm & bk) or (wk & bm) or (wk & bk) or (bm & bk):
        return False
    p.pieces[1] = wm | wk
    p.pieces[0] = bm | bk
    p.kings = wk | bk
    p.turn = 1
    return True


cdef inline int eg_lookup(const EgReg* reg, const Pos* p) noexcept nogil:
    """The stored value of ``p`` (any side to move), or -1 when its table is not there."""
    cdef Pos q
    cdef int n[4]
    cdef int code
    eg_normal(reg.g, p, &q)
    if q.pieces[1] == 0:
        return 1                 # no piece: lost (in 0 plies)
    if q.pieces[0] == 0:
        return -1                # the game is over already: no table holds it
    if (q.pieces[1] & ~q.kings & reg.g.promo[1]) or (q.pieces[0] & ~q.kings & reg.g.promo[0]):
        return -1                # a man on its crowning row: not a position of the tables
    code = eg_counts(&q, n)
    if (n[0] > EG_GROUP_MAX or n[1] > EG_GROUP_MAX or n[2] > EG_GROUP_MAX
            or n[3] > EG_GROUP_MAX or reg.data[code] == NULL):
        return -1
    return reg.data[code][eg_index(reg.g, &q, n)]


cdef inline bint eg_is_win(int v) noexcept nogil:
    return v > 0 and ((v - 1) & 1) == 1


cdef int eg_best(const EgReg* reg, const Pos* p, CMove* buf) noexcept nogil:
    """The value of ``p`` from the stored values of its successors (-1: one is missing,
    -2: one is undecided or unused)."""
    cdef int overflow = 0
    cdef int n = gen_moves(reg.g, p, buf, 0, &overflow)
    cdef int i, v, best_win = EG_BIG, max_win = -1, draw = 0
    cdef Pos q
    if n == 0:
        return 1
    for i in range(n):
        q = p[0]
        make_move(&q, &buf[i])
        v = eg_lookup(reg, &q)
        if v < 0:
            return -1
        if v == EG_UNKNOWN or v == EG_INVALID:
            return -2
        if v == 0:
            draw = 1
        elif eg_is_win(v):
            if v - 1 > max_win:
                max_win = v - 1
        elif v < best_win:
            best_win = v           # the successor's loss in v - 1 plies: a win in v
    if best_win != EG_BIG:
        return best_win + 1
    if draw:
        return 0
    return max_win + 2


cdef class EgTables:
    """The tables of one variant held in memory, for the C-level probe (the builder's
    lookups, and the engine's). ``add`` takes the raw uint16 values of a signature."""
    cdef EgReg reg
    cdef dict _keep
    cdef readonly int variant_index

    def __cinit__(self, int variant_index):
        if not 0 <= variant_index < MAX_VARIANTS or GEOS[variant_index].size == 0:
            raise ValueError(f"variant index {variant_index} is not initialised")
        self.variant_index = variant_index
        self.reg.g = &GEOS[variant_index]
        memset(self.reg.data, 0, sizeof(self.reg.data))
        memset(self.reg.size, 0, sizeof(self.reg.size))
        self._keep = {}

    def positions(self, tuple signature) -> int:
        """The number of slots of ``signature`` (our men, our kings, their men, their kings)."""
        cdef EgSig s
        a, b, c, d = signature
        if min(signature) < 0 or max(signature) > EG_GROUP_MAX:
            raise ValueError(f"signature {signature} out of range")
        eg_sig_init(self.reg.g, &s, a, b, c, d)
        return s.total

    def add(self, tuple signature, object values):
        """Registers the values of ``signature`` (a writable buffer of uint16, native order)."""
        cdef unsigned char[::1] mv = values
        cdef uint64_t total = self.positions(signature)
        a, b, c, d = signature
        if <uint64_t>mv.shape[0] != total * 2:
            raise ValueError(f"table {signature}: {mv.shape[0]} bytes, expected {total * 2}")
        cdef int code = eg_code(a, b, c, d)
        self._keep[code] = mv
        self.reg.data[code] = <uint16_t*>&mv[0] if total else NULL
        self.reg.size[code] = total

    def has(self, tuple signature) -> bool:
        a, b, c, d = signature
        return self.reg.data[eg_code(a, b, c, d)] != NULL

    def probe(self, CoreBoard board) -> int:
        """The raw value of ``board``'s position (see the module comment), -1 when no
        table holds it."""
        if board._g != self.reg.g:
            raise ValueError("the board plays another variant than these tables")
        return eg_lookup(&self.reg, &board._pos)

    def probe_moves(self, CoreBoard board) -> list:
        """``(move, raw value of the position after it)`` for every legal move."""
        cdef CMove* buf = <CMove*>malloc(MAXMOVES * sizeof(CMove))
        cdef int overflow = 0, n, i
        cdef Pos q
        cdef list out = []
        if buf == NULL:
            raise MemoryError()
        try:
            n = gen_moves(board._g, &board._pos, buf, 0, &overflow)
            for i in range(n):
                q = board._pos
                make_move(&q, &buf[i])
                out.append((_move_from_c(board._g, &buf[i]), eg_lookup(&self.reg, &q)))
        finally:
            free(buf)
        return out


def egdb_key(CoreBoard board):
    """``(signature, slot)`` of ``board``'s position in the endgame tables, where
    ``signature`` is (our men, our kings, their men, their kings) for the side to move;
    None when the side to move has no piece, or the other side none (the game is over),
    or a man stands on its crowning row."""
    cdef Pos q
    cdef int n[4]
    cdef const Geo* g = board._g
    eg_normal(g, &board._pos, &q)
    if q.pieces[1] == 0 or q.pieces[0] == 0:
        return None
    if (q.pieces[1] & ~q.kings & g.promo[1]) or (q.pieces[0] & ~q.kings & g.promo[0]):
        return None
    eg_counts(&q, n)
    if (n[0] > EG_GROUP_MAX or n[1] > EG_GROUP_MAX or n[2] > EG_GROUP_MAX
            or n[3] > EG_GROUP_MAX):
        return ((n[0], n[1], n[2], n[3]), -1)
    return ((n[0], n[1], n[2], n[3]), eg_index(g, &q, n))


def egdb_position(int variant_index, tuple signature, uint64_t slot):
    """The normalised position (White to move) of a slot as ``(white men, white kings,
    black men, black kings)`` square lists, or None for an unused slot."""
    cdef EgSig s
    cdef Pos p
    cdef const Geo* g = &GEOS[variant_index]
    a, b, c, d = signature
    eg_sig_init(g, &s, a, b, c, d)
    if slot >= s.total or not eg_decode(g, &s, slot, &p):
        return None
    cdef uint64_t groups[4]
    cdef int i, j
    groups[0] = p.pieces[1] & ~p.kings
    groups[1] = p.pieces[1] & p.kings
    groups[2] = p.pieces[0] & ~p.kings
    groups[3] = p.pieces[0] & p.kings
    out = []
    for j in range(4):
        out.append(sorted([g.sq_of_bit[i] for i in range(64) if (groups[j] >> i) & 1]))
    return tuple(out)


cdef class EgSolver:
    """Solves a signature and its mirror together (see the comment at the top of
    _egdb.pxi). Its tables are registered in ``tables`` while it works, so that
    ``verify_range`` reads them like any built table."""
    cdef EgTables tables
    cdef EgSig sig[2]
    cdef int npair
    cdef uint16_t* val[2]
    cdef uint8_t* cnt[2]
    cdef readonly object values0
    cdef readonly object values1
    cdef readonly int missing       # a successor's table was missing (set by init_range)

    def __cinit__(self, EgTables tables, tuple signature):
        cdef const Geo* g = tables.reg.g
        a, b, c, d = signature
        self.tables = tables
        self.cnt[0] = NULL
        self.cnt[1] = NULL
        eg_sig_init(g, &self.sig[0], a, b, c, d)
        eg_sig_init(g, &self.sig[1], c, d, a, b)
        self.npair = 1 if self.sig[0].code == self.sig[1].code else 2
        self.values0 = bytearray(self.sig[0].total * 2)
        self.values1 = bytearray(self.sig[1].total * 2) if self.npair == 2 else self.values0
        tables.add((a, b, c, d), self.values0)
        if self.npair == 2:
            tables.add((c, d, a, b), self.values1)
        self.val[0] = tables.reg.data[self.sig[0].code]
        self.val[1] = tables.reg.data[self.sig[1].code]
        self.cnt[0] = <uint8_t*>calloc(self.sig[0].total + 1, 1)
        self.cnt[1] = <uint8_t*>calloc(self.sig[1].total + 1, 1) if self.npair == 2 else self.cnt[0]
        if self.cnt[0] == NULL or self.cnt[1] == NULL:
            raise MemoryError()
        self.missing = 0

    def __dealloc__(self):
        if self.npair == 2 and self.cnt[1] != NULL:
            free(self.cnt[1])
        if self.cnt[0] != NULL:
            free(self.cnt[0])

    @property
    def pair(self) -> int:
        """1 when the signature is its own mirror, else 2."""
        return self.npair

    def sizes(self) -> tuple:
        return tuple(self.sig[t].total for t in range(self.npair))

    def init_range(self, int t, uint64_t start, uint64_t end):
        """Step 1 on the slots ``start``..``end - 1`` of table ``t`` (releases the GIL)."""
        cdef CMove* buf = <CMove*>malloc(MAXMOVES * sizeof(CMove))
        cdef int missing = 0
        if buf == NULL:
            raise MemoryError()
        with nogil:
            missing = self._init_range(t, start, end, buf)
        free(buf)
        if missing:
            self.missing = 1

    cdef int _init_range(self, int t, uint64_t start, uint64_t end, CMove* buf) noexcept nogil:
        cdef const EgReg* reg = &self.tables.reg
        cdef const Geo* g = reg.g
        cdef uint64_t idx
        cdef Pos p, q
        cdef int n, i, v, overflow = 0, missing = 0
        cdef int best_win, max_win, cannot_lose, inpair
        cdef uint16_t* val = self.val[t]
        cdef uint8_t* cnt = self.cnt[t]
        for idx in range(start, end):
            cnt[idx] = 0
            if not eg_decode(g, &self.sig[t], idx, &p):
                val[idx] = EG_INVALID
                continue
            n = gen_moves(g, &p, buf, 0, &overflow)
            if n == 0:
                val[idx] = 1
                continue
            best_win = EG_BIG
            max_win = -1
            cannot_lose = 0
            inpair = 0
            for i in range(n):
                if buf[i].ncap == 0 and buf[i].promote == 0:
                    inpair += 1
                    continue
                q = p
                make_move(&q, &buf[i])
                v = eg_lookup(reg, &q)
                if v < 0 or v == EG_INVALID or v == EG_UNKNOWN:
                    missing = 1
                    cannot_lose = 1
                elif v == 0:
                    cannot_lose = 1
                elif eg_is_win(v):
                    if v - 1 > max_win:
                        max_win = v - 1
                elif v < best_win:
                    best_win = v
            if best_win != EG_BIG:
                val[idx] = <uint16_t>(best_win + 1)
            elif cannot_lose:
                val[idx] = EG_UNKNOWN
                cnt[idx] = EG_CANNOT_LOSE
            elif inpair == 0:
                val[idx] = <uint16_t>(max_win + 2)
            else:
                val[idx] = EG_UNKNOWN
                cnt[idx] = <uint8_t>(inpair if inpair < EG_CANNOT_LOSE else EG_CANNOT_LOSE - 1)
                if inpair >= EG_CANNOT_LOSE:
                    missing = 1     # cannot happen with at most 7 pieces a side; be loud
        return missing

    def solve_levels(self):
        """Step 2 and 3 (one thread, releases the GIL); returns the longest distance."""
        cdef CMove* buf = <CMove*>malloc(MAXMOVES * sizeof(CMove))
        cdef int maxd
        if buf == NULL:
            raise MemoryError()
        with nogil:
            maxd = self._levels(buf)
        free(buf)
        return maxd

    cdef int _levels(self, CMove* buf) noexcept nogil:
        cdef int t, d = 0, maxd = -1
        cdef uint64_t idx
        cdef uint16_t v, target
        for t in range(self.npair):
            for idx in range(self.sig[t].total):
                v = self.val[t][idx]
                if v != EG_INVALID and v != EG_UNKNOWN and v - 1 > maxd:
                    maxd = v - 1
        while d <= maxd:
            target = <uint16_t>(d + 1)
            for t in range(self.npair):
                for idx in range(self.sig[t].total):
                    if self.val[t][idx] == target:
                        self._expand(t, idx, d, buf, &maxd)
            d += 1
        for t in range(self.npair):
            for idx in range(self.sig[t].total):
                if self.val[t][idx] == EG_UNKNOWN:
                    self.val[t][idx] = 0
        return maxd

    cdef void _expand(self, int t, uint64_t idx, int d, CMove* buf, int* maxd) noexcept nogil:
        """Takes back every quiet move that leads to slot ``idx`` of table ``t`` (value at
        distance ``d``) and updates the predecessors."""
        cdef const EgReg* reg = &self.tables.reg
        cdef const Geo* g = reg.g
        cdef Pos qpos, p, pn
        cdef uint64_t mover, empty, b, o
        cdef int dr, code, pt, v
        cdef int n[4]
        cdef uint64_t pidx
        cdef bint qlost = ((d & 1) == 0)
        eg_decode(g, &self.sig[t], idx, &qpos)
        mover = qpos.pieces[0]              # Black made the last move
        empty = g.mask & ~(qpos.pieces[0] | qpos.pieces[1])
        while mover:
            b = mover & (~mover + 1)
            mover ^= b
            for dr in range(4):
                if not (qpos.kings & b) and dr >= 2:
                    break                    # a Black man came from above (directions 0, 1)
                o = sh(g, b, dr) & empty
                while o:
                    p = qpos
                    p.pieces[0] ^= b | o
                    if qpos.kings & b:
                        p.kings ^= b | o
                    p.turn = 0
                    if not can_capture(g, &p):
                        eg_normal(g, &p, &pn)
                        code = eg_counts(&pn, n)
                        pt = 0 if code == self.sig[0].code else 1
                        pidx = eg_index(g, &pn, n)
                        v = self.val[pt][pidx]
                        if qlost:
                            if v == EG_UNKNOWN or (eg_is_win(v) and v > d + 2):
                                self.val[pt][pidx] = <uint16_t>(d + 2)
                                if d + 1 > maxd[0]:
                                    maxd[0] = d + 1
                        elif (v == EG_UNKNOWN and self.cnt[pt][pidx] != EG_CANNOT_LOSE
                              and self.cnt[pt][pidx] > 0):
                            self.cnt[pt][pidx] -= 1
                            if self.cnt[pt][pidx] == 0:
                                v = eg_best(reg, &pn, buf)
                                if v > 0 and not eg_is_win(v):
                                    self.val[pt][pidx] = <uint16_t>v
                                    if v - 1 > maxd[0]:
                                        maxd[0] = v - 1
                    if not ((qpos.kings & b) and g.flying):
                        break
                    o = sh(g, o, dr) & empty

    def verify_range(self, int t, uint64_t start, uint64_t end) -> int:
        """The number of slots in ``start``..``end - 1`` of table ``t`` whose value is not
        the best value over their successors (releases the GIL)."""
        cdef CMove* buf = <CMove*>malloc(MAXMOVES * sizeof(CMove))
        cdef uint64_t bad = 0
        if buf == NULL:
            raise MemoryError()
        with nogil:
            bad = self._verify(t, start, end, buf)
        free(buf)
        return bad

    cdef uint64_t _verify(self, int t, uint64_t start, uint64_t end, CMove* buf) noexcept nogil:
        cdef const EgReg* reg = &self.tables.reg
        cdef uint64_t idx, bad = 0
        cdef Pos p
        cdef bint ok
        for idx in range(start, end):
            ok = eg_decode(reg.g, &self.sig[t], idx, &p)
            if not ok:
                if self.val[t][idx] != EG_INVALID:
                    bad += 1
            elif eg_best(reg, &p, buf) != self.val[t][idx]:
                bad += 1
        return bad


def egdb_counts(object values):
    """``(wins, draws, losses, unused, longest distance)`` of a table's raw values (a
    buffer of uint16 in native order)."""
    cdef const unsigned char[::1] mv = values
    cdef const uint16_t* v = <const uint16_t*>&mv[0]
    cdef uint64_t n = mv.shape[0] // 2, i
    cdef uint64_t wins = 0, draws = 0, losses = 0, unused = 0
    cdef int maxd = 0
    cdef uint16_t x
    with nogil:
        for i in range(n):
            x = v[i]
            if x == EG_INVALID:
                unused += 1
            elif x == 0:
                draws += 1
            else:
                if x - 1 > maxd:
                    maxd = x - 1
                if (x - 1) & 1:
                    wins += 1
                else:
                    losses += 1
    return wins, draws, losses, unused, maxd


def egdb_verify_range(EgTables tables, tuple signature, uint64_t start, uint64_t end):
    """The number of slots ``start``..``end - 1`` of a registered table whose value is not
    the best value over their successors (read from the registered tables; releases the
    GIL): the check the builder makes, for tables read back from files."""
    cdef EgSig s
    cdef Pos p
    cdef uint64_t idx, bad = 0
    cdef const uint16_t* val
    cdef CMove* buf
    a, b, c, d = signature
    eg_sig_init(tables.reg.g, &s, a, b, c, d)
    val = tables.reg.data[s.code]
    if val == NULL:
        raise KeyError(f"no table {signature} registered")
    if end > s.total:
        end = s.total
    buf = <CMove*>malloc(MAXMOVES * sizeof(CMove))
    if buf == NULL:
        raise MemoryError()
    with nogil:
        for idx in range(start, end):
            if not eg_decode(tables.reg.g, &s, idx, &p):
                if val[idx] != EG_INVALID:
                    bad += 1
            elif eg_best(&tables.reg, &p, buf) != val[idx]:
                bad += 1
    free(buf)
    return bad

# Included by _core.pyx (after _eval.pxi): the transposition table, its entries
# and their packing (the table is allocated by alloc_table, _eval.pxi).

cdef extern from *:
    """
    static inline void dm_prefetch(const void* p) { __builtin_prefetch(p); }
    """
    void prefetch "dm_prefetch"(const void* p) nogil

# ---------------------------------------------------------------------------
# Transposition table
# ---------------------------------------------------------------------------

# A transposition-table entry is two 64-bit words: the packed data, and the key
# XOR the data. Threads of the lazy SMP search write entries without locks; an
# entry torn by two writers fails the key check and reads as a miss.
ctypedef struct TTEntry:
    uint64_t lock            # key ^ data
    uint64_t data            # score:16 | depth:8 | flag:8 | move:8 | gen:8

# Bounds (the flag of an entry; 0: an empty entry), and the move of an entry that has none.
cdef enum:
    TT_UPPER = 1
    TT_LOWER = 2
    TT_EXACT = 3
    TT_NO_MOVE = 255         # also the move of a node whose best move's index is 255 or more


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


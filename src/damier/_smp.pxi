# Included by _core.pyx (after _search.pxi): the lazy SMP search. Helper threads
# (driven from Python, see SearchCore.run_helper in _searchcore.pxi) search the
# same root and share what they find through the transposition table.

cdef enum:
    MAX_HELPERS = 63         # helper threads of the lazy SMP search (MAX_THREADS: one more)


cdef void helper_iterate(Searcher* h, const Pos* root, uint64_t key, int rev, int ecls, int eply,
                         int first, int max_depth) noexcept nogil:
    """A lazy SMP helper: iterative deepening of the root until stopped, sharing
    what it finds through the transposition table."""
    cdef int d
    for d in range(first, max_depth + 1):
        pvs(h, root, key, -INF, INF, d, 0, rev, ecls, eply, 1)
        if h.stop:
            break

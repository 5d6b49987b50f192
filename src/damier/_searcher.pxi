# Included by _core.pyx (first of the search files, after _egdb.pxi): the state of
# one search thread (Searcher), the selectivity switches it reads (Selectivity), the
# search's scores and limits, and its node and time limits. No Python objects.

from libc.math cimport log
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

# Scores, in centi-men from the side to move's point of view. A position whose side
# to move has won scores MATE; a win in n plies MATE - n, a loss the negation.
cdef enum:
    DRAW_SCORE = 0
    ABORT_SCORE = 0          # what a stopped search returns (its callers ignore it)
    INF = 32000              # beyond every score: the widest window
    MATE = 31000
    MATE_BOUND = 30000       # |score| above this is a forced win/loss


cdef inline int no_move_score(const Geo* g, int ply) noexcept nogil:
    """The score of a position whose side to move has no legal move: a loss, but a win
    in antidraughts."""
    return MATE - ply if g.goal == GOAL_MISERE else -MATE + ply


cdef inline int crowned_score(const Pos* p, int ply) noexcept nogil:
    """Breakthrough: the score of a position with a king, which ended the game: the side
    that crowned it won (a king of the side to move only in a set-up position)."""
    return MATE - ply if p.kings & p.pieces[p.turn] else -MATE + ply

# Limits of a search thread.
cdef enum:
    MAXPLY = 96              # plies from the root (the buffers' depth)
    EXTEND_PLIES = MAXPLY // 2   # extensions only this close to the root
    MAX_GAME_KEYS = 4000     # positions before the root kept for the repetition test
    LIMIT_CHECK_NODES = 1024  # the node and time limits are checked every this many nodes
    LMR_TABLE = 64           # the lmr table's depths and move numbers (larger ones: the last)
    LMP_DEPTHS = 8           # late-move pruning counts of depths 1 to LMP_DEPTHS - 1
    LMP_SEL_DEPTH = 3        # the depths the lmp selectivity setting prunes at
    MAXQUIETS = 64           # quiet moves remembered per node for the history malus
    NO_THREAT = 1000         # qsearch ply given to the replies of a threat search: no second one

# The continuation histories (Selectivity.cont_history): by the move before (1: the
# opponent's last, 2: the side's own before it), the side to move, the square that move
# went to, and the move's code (from and to squares).
cdef enum:
    CONT_HALF = 2 * 64 * 64 * 64
    CONT_SIZE = 2 * CONT_HALF

cdef double DEFAULT_LMR_DIVISOR = 1.4509   # see Selectivity.lmr_divisor (SPSA-tuned, benchmarks/README.md)

# Classes of material for the endgame move-count rules (see end_class).
cdef enum:
    END_NONE = 0
    END_FIVE = 1             # a lone king against one or two pieces with a king
    END_SIXTEEN = 2          # a lone king against three pieces with a king
    END_THREE_KINGS = 3      # Russian: a lone king against three or more kings
    END_TWO_KINGS = 4        # Frisian: two kings against a lone king, no men
    END_KING_KING = 5        # Frisian: a lone king each
    END_ONE_EACH = 6         # Turkish: one piece each
    END_SLOTS = 8            # end_plies' length; a class is (kind & 7) + 8 * detail


# The selectivity switches and their parameters (SearchCore.set_selectivity),
# copied to every helper thread. The defaults turn on ProbCut, the singular
# extension, the threat-aware quiescence (1 ply) and the bounded history,
# accepted together by an SPRT match at 0.1 s a move against the search without
# them; with those four off, the search is the one before the switches.
ctypedef struct Selectivity:
    int single_reply         # extend a position with one legal move by a ply
    int single_reply_depth   # ... only at nodes of at least this depth
    int capture_ext          # extend a position whose moves are captures by a ply
    int capture_ext_depth    # ... only at nodes of at most this depth (0: any)
    int probcut              # ProbCut at non-PV nodes: a reduced null-window search at beta + margin
    int probcut_margin       # centi-men above beta
    int probcut_depth        # least depth of a ProbCut node
    int probcut_reduction    # plies fewer for ProbCut's reduced search
    int probcut_percent      # when not 0: the reduced search's depth is this percent of the
                             # node's (probcut_reduction unused)
    int probcut_margin_ply   # centi-men added to probcut_margin for each ply of the node's depth
    int singular             # singular extension of the TT move at PV nodes
    int singular_nonpv       # singular extension at non-PV nodes too
    int singular_depth       # least depth of a singular test
    int singular_margin      # centi-men below the TT score of the other moves' null window
    int threat_plies         # threat-aware qsearch at quiet leaves up to this qsearch ply (0: off)
    int shot_plies           # sacrifices searched at quiet qsearch leaves below this qsearch ply
                             # (0: off)
    int shot_margin          # ... only when the evaluation is within this many centi-men of
                             # alpha (0: always)
    int history              # 0: bonus depth^2 at a cutoff; 1: bounded (gravity) with a malus
                             # for the quiet moves tried before; 2: 1, and history in LMR
    int lmr_depth            # least depth of a late-move reduction
    int lmr_move             # moves searched before the first reduced one
    double lmr_divisor       # reductions log(depth) * log(move number) / lmr_divisor (the lmr table)
    int lmr_forcing          # plies fewer in the reduction of a move that gives the opponent a capture
    int lmr_step             # when not 0, the lmr table instead: a ply from move lmr_move on, two
                             # from move lmr_step on (at any depth from lmr_depth)
    int lmp                  # late-move pruning: at depth d <= LMP_SEL_DEPTH, quiet moves after
                             # lmp + d * d (0: off; SearchCore.set_pruning sets the counts freely)
    int history_bonus        # percent of depth^2 a history update moves a score by (history >= 1;
                             # the bigger, the faster the gravity forgets)
    int cont_history         # quiet moves ordered by their history plus the continuation
                             # histories: 1 the counter-move one (by the opponent's last move's
                             # destination and the move's squares), 2 the follow-up one too
    int tt_first             # the TT move is searched before the other moves are scored (off:
                             # +4.1 Elo [-6.0, +14.1], 600 games at 0.1 s, SPRT undecided)
    int iir                  # internal iterative reduction: a node below the root of at least
                             # this depth without a TT move is searched a ply shallower (0: off)
    int rfp                  # reverse futility pruning at non-PV nodes up to this depth (0: off)
    int rfp_margin           # centi-men a ply by which the static evaluation must beat beta
    int sac_prune            # at non-PV nodes up to this depth, a late quiet move that gives
                             # the opponent a capture it cannot answer (a man lost) is skipped
    int sac_reduce           # ... and reduced this many plies more at greater depths
    int lmr_threat           # plies less late-move reduction for a quiet move after which its
                             # side would have a capture if it moved again (a threat; 0: off)
    int threat_order         # at a node under a capture threat, the quiet moves that parry it
                             # are ordered before the other quiet moves (0: off)
    int promo_qsearch        # at quiet quiescence leaves: 1 the side to move's crowning moves
                             # are searched (its evaluation stands); 2 also, within
                             # threat_plies of the horizon, a crowning the opponent threatens
                             # is searched as a capture threat is (0: off)
    int lmr_improving        # plies more late-move reduction at a node whose static evaluation
                             # is no better than two plies before (0: off)
    int aspiration           # centi-men each side of the previous depth's score: the first
                             # window of an iteration from depth 5 (0: the full window)


cdef void default_selectivity(Selectivity* sel) noexcept nogil:
    sel.single_reply = 1
    sel.single_reply_depth = 1
    sel.capture_ext = 0
    sel.capture_ext_depth = 0
    sel.probcut = 1
    # The numbers below are the first SPSA tune's (damier train tune, 2026-11-30;
    # benchmarks/README.md): ProbCut 100/5/3 and singular 6/30 before it.
    sel.probcut_margin = 80
    sel.probcut_depth = 6
    sel.probcut_reduction = 4
    sel.probcut_percent = 0
    sel.probcut_margin_ply = 0
    sel.singular = 1
    sel.singular_nonpv = 0
    sel.singular_depth = 5
    sel.singular_margin = 23
    sel.threat_plies = 1
    sel.shot_plies = 0
    sel.shot_margin = 0
    sel.history = 1
    sel.lmr_depth = 3
    sel.lmr_move = 2
    sel.lmr_divisor = DEFAULT_LMR_DIVISOR
    sel.lmr_step = 0
    sel.lmr_forcing = 0
    sel.lmp = 0
    sel.history_bonus = 100
    sel.cont_history = 0
    sel.tt_first = 0
    sel.iir = 0
    sel.rfp = 0
    sel.rfp_margin = 100
    sel.sac_prune = 0
    sel.sac_reduce = 0
    sel.promo_qsearch = 0
    sel.lmr_threat = 0
    sel.threat_order = 0
    sel.lmr_improving = 0
    sel.aspiration = 35


ctypedef struct Searcher:
    const Geo* g
    const EvalW* ev          # the evaluation weights of this search
    TTEntry* tt              # shared by every thread of a search
    uint64_t tt_mask
    uint8_t tt_gen
    uint64_t nodes
    uint64_t node_limit      # 0: none (counts the helpers' nodes too)
    double deadline          # monotonic seconds; 0: none
    int stop                 # set from another thread to stop
    int seldepth
    int sev[MAXPLY + 2]      # the static evaluation of the path's node at each ply, from the
                             # side to move's view (NO_SEV: none; set with lmr_improving only)
    int king_draw_plies      # reversible plies that draw (2 * king-move limit); 0: off
    int end_plies[END_SLOTS] # plies that draw in each endgame class; 0: rule off
                             # ([0]: 1 when any is on)
    int base                 # index in keys of the root position
    uint64_t keys[MAX_GAME_KEYS + MAXPLY + 1]   # the game's and the search path's positions
    CMove* buf               # MAXPLY * MAXMOVES moves
    int* order               # MAXPLY * MAXMOVES move-order scores
    uint16_t killers[MAXPLY][2]
    int32_t history[2][64][64]
    int32_t* conthist        # the continuation histories, CONT_SIZE entries (cont_history)
    uint8_t prev_to[MAXPLY + 1]   # the destination square of the move into each ply
    CMove pv[MAXPLY][MAXPLY]
    int pvlen[MAXPLY]
    int root_n
    int root_skip[MAXMOVES]  # root moves left out (multi-PV)
    int root_score[MAXMOVES]
    int root_best
    int lmr[LMR_TABLE][LMR_TABLE]   # late-move reductions by depth and move number
    int lmp[LMP_DEPTHS]      # late-move pruning: quiet moves tried at each depth (0: off)
    Selectivity sel          # selectivity switches (the same in every thread)
    int pc_skip              # the ply whose next node is ProbCut's own reduced search (-1: none)
    uint16_t quiets[MAXPLY][MAXQUIETS]   # quiet moves tried at each ply (history malus)
    void** helpers           # the main thread's view of its helpers (Searcher*)
    int nhelpers
    const EgReg* eg          # endgame tables probed by the search (NULL: none)
    int eg_pieces            # positions of at most this many pieces are probed (0: none)
    uint64_t eg_hits         # probes whose value the search used
    uint64_t* ecache         # static evaluations (search_eval), ECACHE_SIZE entries, of
    uint64_t ecache_serial   # the weights of this serial
    int ecache_variant       # in this variant


# The evaluation cache: a position's static evaluation, kept for its next visit (the
# quiescence leaves of one iteration are largely those of the next, and of the next
# move's search). An entry holds the position's hash (eval_hash) above bit 16 and the
# evaluation below; 0 is empty. Emptied when a search has other weights or another
# variant (reset_search). 32 KiB: 512 KiB found a few more evaluations but its probes
# missed the second-level cache (and the search was about 5% slower).
cdef enum:
    ECACHE_BITS = 12
    ECACHE_SIZE = 1 << ECACHE_BITS


cdef inline uint64_t eval_hash(const Pos* p) noexcept nogil:
    """A hash of what the evaluation reads: the pieces, the kings, the side to move
    (each multiplied into the high bits, which search_eval checks)."""
    cdef uint64_t h = (p.pieces[0] * <uint64_t>0x9E3779B97F4A7C15
                       + p.pieces[1] * <uint64_t>0xC2B2AE3D27D4EB4F
                       + p.kings * <uint64_t>0x165667B19E3779F9
                       + (<uint64_t>p.turn) * <uint64_t>0xD6E8FEB86659FD93)
    return h ^ (h >> 31)


cdef inline int search_eval(Searcher* s, const Pos* p) noexcept nogil:
    """The static evaluation of ``p`` for the search, through the evaluation cache
    (evaluations outside 16 bits are not kept)."""
    cdef uint64_t h = eval_hash(p)
    cdef uint64_t* e = &s.ecache[h >> (64 - ECACHE_BITS)]
    cdef uint64_t v = e[0]
    cdef int ev
    if v and ((v ^ h) & ~<uint64_t>0xFFFF) == 0:
        return <int16_t>(v & 0xFFFF)
    ev = evaluate(s.ev, s.g, p)
    if -32768 <= ev <= 32767:
        e[0] = (h & ~<uint64_t>0xFFFF) | <uint16_t>ev
    return ev


cdef void fill_lmr(int (*table)[LMR_TABLE], double divisor, int step) noexcept nogil:
    """The late-move reductions by depth and move number (from 0): with ``step`` 0,
    ``log(depth) * log(move) / divisor`` plies, rounded at 0.6; else one ply, and two
    from move ``step`` on."""
    cdef int d, k
    for d in range(LMR_TABLE):
        for k in range(LMR_TABLE):
            if d < 1 or k < 1:
                table[d][k] = 0
            elif step:
                table[d][k] = 2 if k >= step else 1
            else:
                table[d][k] = <int>(0.4 + log(d) * log(k) / divisor)


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline void check_limits(Searcher* s) noexcept nogil:
    """Sets ``s.stop`` when the node limit (every thread's nodes) or the deadline
    is reached; looks every LIMIT_CHECK_NODES nodes."""
    cdef uint64_t total
    cdef int i
    if (s.nodes & (LIMIT_CHECK_NODES - 1)) == 0:
        if s.node_limit:
            total = s.nodes
            for i in range(s.nhelpers):
                total += (<Searcher*>s.helpers[i]).nodes
            if total >= s.node_limit:
                s.stop = 1
        if s.deadline > 0 and now_seconds() >= s.deadline:
            s.stop = 1

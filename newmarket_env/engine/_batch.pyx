# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Many sessions of the same rules held in C and stepped together by one call: ``TableBatch``."""

from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset
from cython.parallel cimport prange

import numbers
import os
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from newmarket_env.game import actions as A
from newmarket_env.engine._fast cimport FastGame, _copy_inputs, _game_around
from newmarket_env.engine._observer cimport TableObserver
from newmarket_env.engine._policies cimport NUM_POLICIES, View, decide, view_of_table
from newmarket_env.engine._policies import POLICY_CODES
from newmarket_env.engine._table cimport *
from newmarket_env.engine.observers import table_observer


from newmarket_env.engine.limits import MAX_EMPTY_SESSIONS  # sessions in a row without a decision: a table gives up
from newmarket_env.engine.limits import TABLES_PER_THREAD  # fewer tables per thread than this: one thread steps them

cdef int EMPTY_LIMIT = MAX_EMPTY_SESSIONS, PER_THREAD = TABLES_PER_THREAD   # as C ints, read without the GIL



def machine_cores():
    """The cores this process may run on (its CPU affinity where the system tells it, else ``os.cpu_count()``)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:   # macOS, Windows: no affinity call
        return os.cpu_count() or 1


#: The environment variable that sets the thread count of batches made without one (worker processes
#: that already share the cores between them set it to 1: the tournament's, expert iteration's labellers').
THREADS_VARIABLE = "NEWMARKET_THREADS"


def check_threads(threads):
    """``threads`` as given (an int >= 1), or for None the ``NEWMARKET_THREADS`` environment variable's count,
    else the machine's cores; a one-line ValueError otherwise."""
    if threads is None:
        given = os.environ.get(THREADS_VARIABLE, "").strip()
        if not given:
            return machine_cores()
        if not given.isdigit() or int(given) < 1:
            raise ValueError(f"{THREADS_VARIABLE}={given!r} is out of range; allowed: an int >= 1 (or unset: the "
                             f"machine's cores)")
        return int(given)
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 1:
        raise ValueError(f"threads={threads!r} is out of range; allowed: None (the machine's cores) or an int >= 1")
    return int(threads)


cdef extern from *:
    """
    #ifdef _OPENMP
    #define NEWMARKET_BUILT_WITH_OPENMP 1
    #else
    #define NEWMARKET_BUILT_WITH_OPENMP 0
    #endif
    """
    const int NEWMARKET_BUILT_WITH_OPENMP

# Whether this process steps tables on OpenMP's threads. OpenMP starts a parallel region in microseconds where
# a pool of Python threads takes tens (a future, a wake-up, the GIL twice), which is what a vector env's step of
# a thousand tables spends beside its work. GNU OpenMP does not survive a fork: a child forked after its parent
# ran a parallel region hangs in its own first one, so a forked child (``os.register_at_fork``) steps on helper
# threads instead, as a build without OpenMP does (no ``-fopenmp``: setup.py builds without it where the compiler
# lacks it).
cdef bint _openmp_usable = NEWMARKET_BUILT_WITH_OPENMP


def parallel_backend():
    """How this process steps a call's tables on several threads: ``"openmp"`` (the module was built with
    OpenMP and the process was not forked from one that may have used it) or ``"helper threads"`` (a pool of
    Python threads, each stepping its share with the GIL released). The sessions are the same either way."""
    return "openmp" if _openmp_usable else "helper threads"


def _use_openmp(bint allowed):
    """Step on OpenMP (when built with it) or on the helper threads (a forked child; tests); returns the backend
    in use."""
    global _openmp_usable
    _openmp_usable = allowed and NEWMARKET_BUILT_WITH_OPENMP
    return parallel_backend()


os.register_at_fork(after_in_child=lambda: _use_openmp(False))


class _Helpers:
    """The threads that step a share of a call's tables beside the caller's thread: one pool per process
    (a forked child makes its own: threads do not survive a fork), grown to the most any batch asked for."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pid, self.size, self.pool = None, 0, None

    def get(self, size):
        with self.lock:
            if self.pid != os.getpid() or self.size < size:
                self.pid, self.size = os.getpid(), max(size, self.size if self.pid == os.getpid() else 0)
                self.pool = ThreadPoolExecutor(self.size, thread_name_prefix="newmarket-batch")
            return self.pool


_HELPERS = _Helpers()


def _in_parallel(work, int count, int workers):
    """``work(start, stop)`` over ``0..count`` cut into ``workers`` contiguous shares, the first on this thread
    and the others on helper threads (``work`` releases the GIL); the sum of what they return."""
    bounds = [count * w // workers for w in range(workers + 1)]
    pool = _HELPERS.get(workers - 1)
    shares = [pool.submit(work, bounds[w], bounds[w + 1]) for w in range(1, workers)]
    total = work(bounds[0], bounds[1])
    return total + sum(share.result() for share in shares)


def table_seed(seed, table):
    """The seed of table ``table``'s random stream in a batch seeded with ``seed``: ``seed * 2**32 + table``.

    Table ``i`` plays its sessions one after another on one generator, as
    ``Game(rules, rng=stream)`` would for ``stream = random.Random(table_seed(seed, i))``
    reused session after session (seeding once per table, not per session: a
    Mersenne Twister seeding costs more than a whole decision).
    """
    return seed * 2**32 + table


cdef class TableBatch:
    """Many sessions of the same rules, held in C and stepped together by one call.

    Every table waits on a decision of a seat the caller plays: :meth:`step`
    takes one action per table (for the seat ``to_act[i]``), runs each table on
    (seats given a compiled baseline in ``seat_policies`` play inside the call)
    until a caller's seat decides again, and writes into preallocated arrays in
    place (their contents change at every call: copy what you keep):

    - ``to_act`` ``(N,)`` int32: the seat deciding next (-1 while a table is over);
    - ``observations`` ``(N, FLAT_SIZE)`` float32: that seat's flat observation;
    - ``action_masks`` ``(N, NUM_ACTIONS)`` int8: its legal actions;
    - ``rewards`` ``(N, players)`` int64: each seat's chip change in this call (the first
      call after a session starts also counts what was paid before its first decision);
    - ``done`` ``(N,)`` bool: the table's session ended in this call; ``results[i]`` holds
      each seat's chips won in it and ``final_observations[i, s]`` seat ``s``'s last view;
    - ``deal_index`` ``(N,)`` int32: the deal each table is in (0 for its session's first).

    ``balances`` reads each seat's chips at each table now (a new array at each read).

    ``seat_policies`` ``(N, players)`` int8 is read at every decision: a code of
    ``POLICY_CODES`` (``random``, ``lowest``, ``greedy``, ``control``) plays that seat in C,
    a negative code leaves it to the caller (default: every seat, for self-play).
    Each table's compiled seats draw from one stream of their own.

    With ``auto_restart`` (the default) a finished table starts its next session at
    once, drawing its cards from the table's own stream (:func:`table_seed`), so the
    batch is the same run for the same seed and actions. Without it the table stays
    over until :meth:`restart`. A session in which no caller's seat decides is skipped
    (played to its end inside the call, its chips unreported), up to
    ``MAX_EMPTY_SESSIONS`` in a row.

    ``threads`` (default: ``NEWMARKET_THREADS`` if set, else the machine's cores) threads step the tables
    of one call in parallel, each a
    contiguous share of them with the GIL released; every table has its own state and streams, so the
    sessions, observations and rewards are the same whatever the thread count. A call stepping fewer
    than ``TABLES_PER_THREAD`` tables per thread uses fewer threads (the search's rollouts step a few
    tables at a time). The threads are OpenMP's where the module was built with it (``parallel_backend()``
    says which), else a pool of Python threads.

    ``deal_ended`` ``(N,)`` bool and ``deal_end_balances`` ``(N, players)`` int64 tell the end of a deal
    inside a call: the first deal that ended at the table in that call (after the caller's action) and
    each seat's balance right after the move that ended it (Monte-Carlo returns to the end of the deal,
    :mod:`newmarket_env.train.dmc`).

    :meth:`load` puts a copy of a :class:`FastGame` at a table (search rollouts:
    many sampled worlds stepped together, see agents/guided_search.py), and
    :meth:`observe` writes any seat's observation of chosen tables.
    """

    def __cinit__(self, rules, int num_tables, seed=0, seat_policies=None, observer=None, threads=None):
        if num_tables < 1:
            raise ValueError(f"num_tables={num_tables} is out of range; allowed: 1 or more")
        self.tables = <Table *>calloc(num_tables, sizeof(Table))
        self.policy_rngs = <Rng *>calloc(num_tables, sizeof(Rng))
        self.last_balance = <long *>calloc(num_tables * MAX_SEATS, sizeof(long))
        self.loaded = <Inputs *>calloc(num_tables, sizeof(Inputs))
        self.marks = <unsigned char *>calloc(num_tables, 1)
        self.failed = <unsigned char *>calloc(num_tables, 1)
        self.allocated = num_tables
        if (self.tables == NULL or self.policy_rngs == NULL or self.last_balance == NULL or self.loaded == NULL
                or self.marks == NULL or self.failed == NULL):
            raise MemoryError()

    def __init__(self, rules, int num_tables, seed=0, seat_policies=None, observer=None, threads=None):
        self.rules, self.num_tables, self.n = rules, num_tables, rules.num_players
        self.threads = threads
        self.auto_restart = True
        load_rules(&self.r, rules)
        # What each seat's observation is: the observation layer's flat encoder unless one is given.
        self.observer = table_observer(rules) if observer is None else observer
        self.obs_size = self.observer.size
        self.to_act = np.zeros(num_tables, dtype=np.int32)
        self.deal_index = np.zeros(num_tables, dtype=np.int32)
        self._deal_index = self.deal_index
        self.observations = np.zeros((num_tables, self.obs_size), dtype=np.float32)
        self.final_observations = np.zeros((num_tables, self.n, self.obs_size), dtype=np.float32)
        self.action_masks = np.zeros((num_tables, NUM_ACTIONS), dtype=np.int8)
        self.rewards = np.zeros((num_tables, self.n), dtype=np.int64)
        self.results = np.zeros((num_tables, self.n), dtype=np.int64)
        self.done = np.zeros(num_tables, dtype=bool)
        self.deal_ended = np.zeros(num_tables, dtype=bool)
        self.deal_end_balances = np.zeros((num_tables, self.n), dtype=np.int64)
        self.seat_policies = np.full((num_tables, self.n), -1, dtype=np.int8)
        self._to_act, self._obs, self._mask, self._final = (self.to_act, self.observations, self.action_masks,
                                                            self.final_observations)
        self._rewards, self._results, self._done = self.rewards, self.results, self.done.view(np.uint8)
        self._deal_ended, self._deal_end = self.deal_ended.view(np.uint8), self.deal_end_balances
        self._policies = self.seat_policies
        if seat_policies is not None:
            self.set_seat_policies(seat_policies)
        self.reset(seed)

    def __dealloc__(self):
        cdef int i
        if self.loaded != NULL:
            for i in range(self.allocated):
                free(self.loaded[i].deals)
                free(self.loaded[i].lots)
        free(self.loaded)
        free(self.marks)
        free(self.failed)
        free(self.tables)
        free(self.policy_rngs)
        free(self.last_balance)

    @property
    def threads(self):
        """Threads that step the tables of one call (set it to change; None: the machine's cores)."""
        return self._threads

    @threads.setter
    def threads(self, value):
        self._threads = check_threads(value)

    cdef int _workers(self, int count) noexcept nogil:
        """Threads for a call stepping ``count`` tables: at most one per ``TABLES_PER_THREAD`` tables."""
        cdef int most = count // PER_THREAD
        return 1 if most < 2 else (self._threads if self._threads < most else most)

    def set_seat_policies(self, codes):
        """Copy ``codes`` (broadcast to ``(N, players)``) into ``seat_policies``, after checking them."""
        codes = np.asarray(codes)
        if not np.issubdtype(codes.dtype, np.integer) or codes.size == 0 or codes.max() >= NUM_POLICIES:
            raise ValueError(f"seat policies must be ints: a code of {POLICY_CODES} or negative for the caller")
        try:
            self.seat_policies[...] = np.broadcast_to(codes, self.seat_policies.shape)
        except ValueError:
            raise ValueError(f"seat policies of shape {codes.shape} do not fit {self.seat_policies.shape} "
                             f"(tables, players)") from None

    def reset(self, seed=None):
        """Start a fresh session at every table; ``seed`` restarts every stream (None: drawn)."""
        cdef int i
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "little")
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**32:
            raise ValueError(f"seed={seed!r} is out of range; allowed: an int 0..2**32-1 or None")
        self.seed, self.sessions_started = int(seed), 0
        self.done[:] = False
        self.deal_ended[:] = False
        self.rewards[:] = 0
        self.results[:] = 0
        for i in range(self.num_tables):
            seed_rng_u64(&self.tables[i].rng, (<uint64_t>self.seed << 32) + <uint64_t>i)
            # the compiled seats' stream: the table's seed with a third key word, so never the cards' stream
            _seed_policy_rng(&self.policy_rngs[i], (<uint64_t>self.seed << 32) + <uint64_t>i)
        self._start_all(None, self.num_tables)

    def restart(self, tables):
        """Start the next session at the given tables (they must be over: ``auto_restart`` off)."""
        cdef long[::1] which = self._table_indices(tables)
        cdef int k
        for k in range(which.shape[0]):
            if not self.tables[which[k]].over:
                raise ValueError(f"table {which[k]} is not over; restart only tables whose session ended")
        self.rewards[:] = 0
        self.done[:] = False
        self.deal_ended[:] = False
        self._start_all(which, which.shape[0])

    cdef void _start_all(self, long[::1] which, int count) except *:
        """The next session at ``which[k]`` for every k (every table when None), on the batch's threads."""
        self._every = which is None
        if which is not None:
            self._which = which
        memset(self.failed, 0, self.num_tables)
        self.sessions_started += self._run(count, True)
        self._raise_failed()

    cdef long _run(self, int count, bint starting) except -1:
        """The call's work (``_one``) at each of its ``count`` tables, on the batch's threads; the sessions
        started. OpenMP's threads where the module was built with it and this process may use them (see
        ``_openmp_usable``), else helper threads, each calling a share method on its contiguous share."""
        cdef int workers = self._workers(count)
        cdef long started
        if workers > 1 and not _openmp_usable:
            return _in_parallel(self._start_share if starting else self._advance_share, count, workers)
        with nogil:
            if workers > 1:
                started = self._tables_on_openmp(count, workers, starting)
            else:
                started = self._tables_in_order(0, count, starting)
        return started

    cdef int _one(self, int k, bint starting) noexcept nogil:
        """The call's work at its ``k``-th table: the next session (``starting``) or the caller's action."""
        cdef int i = k if self._every else self._which[k]
        return self._start(i) if starting else self._advance(i, self._chosen[k])

    cdef long _tables_in_order(self, int start, int stop, bint starting) noexcept nogil:
        cdef int k
        cdef long started = 0
        for k in range(start, stop):
            started += self._one(k, starting)
        return started

    cdef long _tables_on_openmp(self, int count, int workers, bint starting) noexcept nogil:
        # contiguous shares (static schedule), as the helper threads take them: neighbouring tables share cache lines
        cdef int k
        cdef long started = 0
        for k in prange(count, num_threads=workers, schedule="static"):
            started += self._one(k, starting)
        return started

    def _start_share(self, int start, int stop):
        cdef long started
        with nogil:
            started = self._tables_in_order(start, stop, True)
        return started

    def _advance_share(self, int start, int stop):
        cdef long started
        with nogil:
            started = self._tables_in_order(start, stop, False)
        return started

    cdef int _start(self, int i) noexcept nogil:
        """Table ``i``'s next session, played on to the first decision of a caller's seat; the sessions started
        (a table that found no such decision in ``MAX_EMPTY_SESSIONS`` sessions is marked ``failed``)."""
        cdef Table *t = &self.tables[i]
        cdef int s, tries
        for tries in range(EMPTY_LIMIT):
            start_session(t, &self.r, NULL, NULL, NULL, 0)
            for s in range(self.n):
                self.last_balance[i * MAX_SEATS + s] = self.r.starting_chips
            self._play_compiled(i)
            if not t.over:
                self._observe(i)
                return tries + 1
        self.failed[i] = 1
        return EMPTY_LIMIT

    cdef void _raise_failed(self) except *:
        """The RuntimeError of a table that :meth:`_start` marked (the first one), after every table moved."""
        cdef int i
        for i in range(self.num_tables):
            if self.failed[i]:
                raise RuntimeError(f"table {i}: {MAX_EMPTY_SESSIONS} sessions in a row without a decision of a "
                                   f"caller's seat; give some seat a negative code in seat_policies")

    cdef void _apply(self, int i, int action) noexcept nogil:
        """``action`` at table ``i``; the first deal that ends in this call is noted (``deal_end_balances``)."""
        cdef Table *t = &self.tables[i]
        cdef int deal = t.deal_index, s
        apply_action(t, action)
        if (t.over or t.deal_index != deal) and not self._deal_ended[i]:
            self._deal_ended[i] = 1
            for s in range(self.n):
                self._deal_end[i, s] = t.balances[s]

    cdef void _play_compiled(self, int i) noexcept nogil:
        """Let the compiled seats of table ``i`` move until a caller's seat decides or the session ends."""
        cdef Table *t = &self.tables[i]
        cdef View view   # on this thread's stack: tables stepped on other threads decide at the same time
        cdef int code
        while not t.over:
            code = self._policies[i, t.to_act]
            if code < 0:
                return
            view_of_table(&view, t, t.to_act, self.observer.stack_limit)
            self._apply(i, decide(code, &view, &self.r, &self.policy_rngs[i]))

    cdef void _observe(self, int i) noexcept nogil:
        cdef Table *t = &self.tables[i]
        self._to_act[i] = t.to_act
        self._deal_index[i] = t.deal_index
        if t.over:
            memset(&self._obs[i, 0], 0, self.obs_size * sizeof(float))
            memset(&self._mask[i, 0], 0, NUM_ACTIONS)
            return
        self.observer.encode(t, t.to_act, &self._obs[i, 0])
        write_mask(t, &self._mask[i, 0])

    @property
    def balances(self):
        """Each seat's chips at each table now: a new ``(N, players)`` int64 array at each read (the
        learner views reckon their rewards from these, :mod:`newmarket_env.envs.learner_reward`)."""
        cdef int i, s
        cdef long long[:, ::1] view
        out = np.empty((self.num_tables, self.n), dtype=np.int64)
        view = out
        for i in range(self.num_tables):
            for s in range(self.n):
                view[i, s] = self.tables[i].balances[s]
        return out

    def step(self, actions, tables=None):
        """``actions[k]`` at table ``tables[k]`` (every table when None); returns
        ``(to_act, observations, action_masks, rewards, done)``."""
        cdef long[::1] which = self._table_indices(tables) if tables is not None else None
        cdef int count = self.num_tables if which is None else which.shape[0]
        self._chosen = self._checked(actions, which, count)
        self._every = which is None
        if which is not None:
            self._which = which
        self.rewards[:] = 0
        self.done[:] = False
        self.deal_ended[:] = False
        memset(self.failed, 0, self.num_tables)
        self.sessions_started += self._run(count, False)
        self._raise_failed()
        return self.to_act, self.observations, self.action_masks, self.rewards, self.done

    cdef int _advance(self, int i, long action) noexcept nogil:
        """The caller's ``action`` at table ``i``, the compiled seats after it, the table's outputs; the
        sessions started (auto_restart)."""
        self._apply(i, action)
        self._play_compiled(i)
        return self._settle(i)

    def load(self, int i, FastGame game):
        """Table ``i`` becomes a copy of ``game`` (of the batch's rules, not over): its state, its random
        stream and the inputs its table holds (given deals and lots, ``at_position``'s placeholder next
        deal), as :meth:`FastGame.copy` copies them; no action log, no record. Counts as a call for table
        ``i`` alone: the compiled seats of ``seat_policies`` play on to a caller's decision, ``rewards[i]``
        is what they won meanwhile (0 if none played), and the arrays hold its new state.
        """
        if not 0 <= i < self.num_tables:
            raise ValueError(f"table={i} is out of range; allowed: 0..{self.num_tables - 1}")
        if game.rules is not self.rules and game.rules != self.rules:
            raise ValueError("the game's rules are not the batch's (the rules it was made with); load only "
                             "games of the batch's rules")
        if game.t.over:
            raise ValueError("the game is over; load only a game that waits on a decision")
        self._put(i, &game.t)

    def load_worlds(self, sampler, position, uint64_t hand, uint64_t unseen, uint64_t dead_known, card_counts,
                    int budget, int width):
        """``budget`` worlds of ``position`` sampled by ``sampler``, a ``CompiledSearch`` (agents/_search.pyx: the
        draws of its ``evaluate``, so of agents/sampling.py's sample_world for the same seed), world ``w`` loaded
        (:meth:`load`) at tables ``w * width`` to ``w * width + width - 1``: one table per candidate action of a
        search."""
        if sampler.rules is not self.rules and sampler.rules != self.rules:
            raise ValueError("the sampler's rules are not the batch's; sample worlds of the batch's rules")
        if budget < 1 or width < 1 or budget * width > self.num_tables:
            raise ValueError(f"budget={budget} worlds x width={width} tables each must be 1..{self.num_tables} "
                             f"tables (the batch's)")
        sampler.put_worlds(self, position, hand, unseen, dead_known, card_counts, budget, width)

    cdef void _put(self, int i, const Table *source) except *:
        """Table ``i`` becomes a copy of ``source`` (with copies of its inputs), then as after a step."""
        cdef Table *t = &self.tables[i]
        cdef int s
        t[0] = source[0]
        t.r, t.log, t.events = &self.r, NULL, NULL
        if source.inputs != NULL:
            _copy_inputs(&self.loaded[i], source.inputs)
            t.inputs = &self.loaded[i]
        for s in range(self.n):
            self.last_balance[i * MAX_SEATS + s] = t.balances[s]
        self._done[i] = 0
        self._deal_ended[i] = 0
        self.failed[i] = 0
        self._play_compiled(i)
        self.sessions_started += self._settle(i)
        if self.failed[i]:
            self._raise_failed()

    def observe(self, int seat, tables=None):
        """``seat``'s flat observation at each of ``tables`` (every table when None), whoever is to act:
        a new ``(len(tables), FLAT_SIZE)`` float32 array (the batch's observer, table by table)."""
        cdef long[::1] which = self._table_indices(tables) if tables is not None else None
        cdef int count = self.num_tables if which is None else which.shape[0]
        cdef int k
        if not 0 <= seat < self.n:
            raise ValueError(f"seat={seat} is not a seat; allowed: 0..{self.n - 1}")
        out = np.empty((count, self.obs_size), dtype=np.float32)
        cdef float[:, ::1] rows = out
        for k in range(count):
            self.observer.encode(&self.tables[k if which is None else which[k]], seat, &rows[k, 0])
        return out

    def states(self, seats=None, tables=None):
        """The privileged state at each of ``tables`` (every table when None), for training only: every hand,
        the dead hand, what each seat alone knows, the table and the chips (``observation/state_layout.py``;
        docs/observation.md). Seats are counted from ``seats``: each table's seat to act when None (the seat of
        its row of ``observations``), one seat for every table, or one seat per table. A new ``(len(tables),
        STATE_SIZE)`` float32 array; a table whose session is over, asked for its seat to act, gives zeros.
        Written by the batch's state observer (the observation layer's ``StateObserver``, registered as the
        ``"state"`` kind of :mod:`newmarket_env.engine.observers`), made at the first call."""
        cdef long[::1] which = self._table_indices(tables) if tables is not None else None
        cdef int count = self.num_tables if which is None else which.shape[0]
        cdef long[::1] perspective = self._state_seats(seats, which, count)
        cdef int k
        if self.state_observer is None:
            self.state_observer = table_observer(self.rules, "state")
        out = np.zeros((count, self.state_observer.size), dtype=np.float32)
        cdef float[:, ::1] rows = out
        for k in range(count):
            if perspective[k] >= 0:
                self.state_observer.encode(&self.tables[k if which is None else which[k]], perspective[k],
                                           &rows[k, 0])
        return out

    cdef long[::1] _state_seats(self, seats, long[::1] which, int count):
        """The seat each table's state counts from (-1: none, the table is over), checked; one-line errors."""
        cdef long[::1] view
        cdef int k
        if seats is None:
            out = np.empty(count, dtype=np.int_)
            view = out
            for k in range(count):
                view[k] = self.tables[k if which is None else which[k]].to_act
            return view
        given = np.asarray(seats)
        if given.dtype.kind not in "iu" or given.ndim > 1 or (given.ndim == 1 and given.shape[0] != count):
            raise ValueError(f"seats must be None, a seat or {count} seats (an int array of shape ({count},))")
        if given.size and (given.min() < 0 or given.max() >= self.n):
            raise ValueError(f"seats must be seats of the table; allowed: 0..{self.n - 1}")
        out = np.empty(count, dtype=np.int_)
        out[:] = given
        return out

    def random_actions(self):
        """A uniformly random legal action for every table (as the compiled ``random`` draws it, from the
        tables' own policy streams): a driver for tests, benchmarks and random exploration."""
        out = np.empty(self.num_tables, dtype=np.int_)
        cdef long[::1] view = out
        cdef int i
        for i in range(self.num_tables):
            view[i] = -1 if self.tables[i].over else self.tables[i].legal[
                _randbelow(&self.policy_rngs[i], self.tables[i].n_legal)]
        return out

    cdef long[::1] _table_indices(self, tables):
        # checked in C loops, not numpy calls: search rollouts step a few tables at a time, thousands of times
        cdef long[::1] view
        cdef int k, bad = 0
        which = np.asarray(tables)
        if which.ndim == 1 and which.dtype.kind in "iu":   # np.issubdtype(dtype, np.integer), bools excluded
            view = np.ascontiguousarray(which, dtype=np.int_)
            for k in range(view.shape[0]):
                bad |= not 0 <= view[k] < self.num_tables
        if which.ndim != 1 or which.dtype.kind not in "iu" or bad:
            raise ValueError(f"tables must be a 1-d int array of table numbers 0..{self.num_tables - 1}")
        for k in range(view.shape[0]):   # repeats: each table marked once (marks cleared again below)
            bad |= self.marks[view[k]]
            self.marks[view[k]] = 1
        for k in range(view.shape[0]):
            self.marks[view[k]] = 0
        if bad:
            raise ValueError("tables must not repeat a table")
        return view

    cdef long[::1] _checked(self, actions, long[::1] which, int count):
        """The actions as C longs, every one legal; else a one-line ValueError and nothing changed."""
        cdef Table *t
        cdef int k, i
        chosen = np.asarray(actions)
        if chosen.shape != (count,) or chosen.dtype.kind not in "iu":   # ints, not bools
            raise ValueError(f"actions must be {count} action ids (an int array of shape ({count},)); "
                             f"got {chosen.dtype} of shape {chosen.shape}")
        chosen = np.ascontiguousarray(chosen, dtype=np.int_)
        cdef long[::1] view = chosen
        for k in range(count):
            i = k if which is None else which[k]
            t = &self.tables[i]
            if t.over:
                raise ValueError(f"table {i}: the session is over; call restart([{i}]) first")
            if not 0 <= view[k] < NUM_ACTIONS or not is_legal(t, view[k]):
                legal = ", ".join(str(t.legal[j]) for j in range(t.n_legal))
                raise ValueError(f"action {view[k]} is not legal at table {i} (seat {t.to_act}); "
                                 f"legal actions: {legal}")
        return view

    cdef int _settle(self, int i) noexcept nogil:
        """Rewards of this call; a finished session is reported and (auto_restart) the next one started.
        Returns the sessions started."""
        cdef Table *t = &self.tables[i]
        cdef long *last = &self.last_balance[i * MAX_SEATS]
        cdef int s
        for s in range(self.n):
            self._rewards[i, s] = t.balances[s] - last[s]
            last[s] = t.balances[s]
        self._done[i] = t.over
        if not t.over:
            self._observe(i)
            return 0
        for s in range(self.n):
            self._results[i, s] = t.balances[s] - self.r.starting_chips
            self.observer.encode(t, s, &self._final[i, s, 0])
        if self.auto_restart:
            return self._start(i)
        self._observe(i)
        return 0

    def game(self, int i):
        """Table ``i`` as a :class:`FastGame` copy (for inspection and tests; not on the hot path)."""
        if not 0 <= i < self.num_tables:
            raise ValueError(f"table={i} is out of range; allowed: 0..{self.num_tables - 1}")
        cdef FastGame game = _game_around(self.rules, None, (), (), False, &self.r, &self.tables[i])
        if self.tables[i].inputs != NULL:   # a loaded table's inputs (a started session's table has none)
            _copy_inputs(&game.inputs, self.tables[i].inputs)
        else:
            game.t.inputs = NULL
        return game


cdef void _seed_policy_rng(Rng *rng, uint64_t seed) noexcept nogil:
    """``random.Random(seed + 2**64)``: a key one word longer than any table's, so a stream of its own."""
    cdef uint32_t key[3]
    key[0] = <uint32_t>(seed & 0xffffffffULL)
    key[1] = <uint32_t>(seed >> 32)
    key[2] = 1
    _init_by_array(rng, key, 3)


def policy_seed(seed, table):
    """The seed of table ``table``'s compiled seats' stream: ``random.Random(policy_seed(seed, table))``."""
    return table_seed(seed, table) + 2**64

/* simcuda's libcuda.so.1: a table of driver entry points that NVIDIA's cuda.bindings resolves through
 * cuGetProcAddress_v2, filled in from Python.
 *
 * This file knows nothing of CUDA semantics and includes no CUDA or Python headers. It holds:
 *   - the (name, version) pairs of entries.h (generated from simcuda/_generated/entry_table.py, request order);
 *   - two slot arrays, one for the default flags and one for CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
 *     filled by simcuda_set_entry() (from Python: ctypes callbacks, the "adapters");
 *   - for every entry, a "not simulated" stub answering 801 (CUDA_ERROR_NOT_SUPPORTED) that counts its calls;
 *   - cuGetProcAddress_v2 / cuGetProcAddress answering from the table as the real driver does;
 *   - the direct exports C callers and cuda.pathfinder use: cuDriverGetVersion, cuInit, cuGetExportTable;
 *   - the launch memo: a per-thread record of the last successful call of a cuLaunchKernel-shaped entry, so
 *     that a call with the same argument bits reaches Python through a one-argument "repeat" function
 *     instead of the eleven-argument adapter (Python decides whether the repeat stands, and the simulator
 *     answers it as any call);
 *   - the Python boundary ("the Python boundary" below): the few functions of the interpreter it calls, found
 *     at load with dlsym in the process (no header, no link), so that a call into a Python adapter runs with
 *     the GIL, with the caller's pending exception set aside and put back, and an exception the adapter hands
 *     back (Ctrl-C) left pending for the binding to raise; and so that no call touches Python once the
 *     interpreter finalizes.
 *
 * cuda.bindings resolves all of its entries at its first driver call and caches the pointers. The table hands
 * out trampolines, one per entry and slot, that jump through the slot at every call: an entry registered
 * later is seen. After simcuda_shutdown() (called when Python starts to finalize, before ctypes stops running
 * callbacks), and whenever the interpreter is finalizing or gone, every trampoline answers
 * CUDA_ERROR_DEINITIALIZED (4) in C, as the real driver answers while the process shuts it down: a call made then
 * never silently succeeds doing nothing. The entries that free (simcuda_set_closed_answer) answer CUDA_SUCCESS
 * instead: the handles a process frees while it ends (module teardown, C++ destructors of cuda.core's handles)
 * go with it, as the real driver, alive until after the interpreter finalized, frees them.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "entries.h"

#define EXPORT __attribute__((visibility("default")))

typedef int CUresult; /* a C enum: int-sized on every ABI this library is built for */
typedef uint64_t cuuint64_t;
typedef int CUdriverProcAddressQueryResult;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_UNKNOWN = 999,
};
enum { /* CUdriverProcAddressQueryResult */
    CU_GET_PROC_ADDRESS_SUCCESS = 0,
    CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
    CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
};
enum { /* CUdriverProcAddress_flags */
    CU_GET_PROC_ADDRESS_DEFAULT = 0,
    CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1,
    CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM = 2,
};

struct entry {
    const char *name;
    int version;
};

static const struct entry ENTRIES[SIMCUDA_ENTRY_COUNT] = {
#define X(index, name, version) {name, version},
    SIMCUDA_ENTRIES(X)
#undef X
};

/* ------------------------------------------------------------------ stubs: 801, counted per entry */

static uint64_t counts[SIMCUDA_ENTRY_COUNT];

/* Each stub is declared with no parameters and handed out as a pointer to a function of the entry's real
 * signature, so the binding calls it with arguments it ignores. ISO C leaves calls through a mismatched
 * function type undefined; the cdecl-family calling conventions this library is built for (System V x86-64,
 * AAPCS64 on aarch64) define them: arguments travel in registers and on a stack the caller owns and pops, the
 * callee that reads none of them leaves both untouched, and the int result comes back in the same register
 * whatever the parameters were. It is not safe for callee-pops conventions (stdcall), which are not built. */
#define X(index, name, version)                                                                             \
    static CUresult stub_##index(void) {                                                                   \
        __atomic_fetch_add(&counts[index], 1, __ATOMIC_RELAXED);                                           \
        return CUDA_ERROR_NOT_SUPPORTED;                                                                   \
    }
SIMCUDA_ENTRIES(X)
#undef X

typedef CUresult (*stub_fn)(void);
static const stub_fn STUBS[SIMCUDA_ENTRY_COUNT] = {
#define X(index, name, version) stub_##index,
    SIMCUDA_ENTRIES(X)
#undef X
};

/* ------------------------------------------------------------------ slots */

/* slots[0]: what the default (legacy-stream) flags get; NULL means the stub (or the built-in answer of the
 * few entries this file implements). slots[1]: the per-thread-default-stream variant; NULL means "none",
 * and the lookup falls back to slots[0], as the real driver falls back to the legacy variant. */
static void *slots[2][SIMCUDA_ENTRY_COUNT];
static uint64_t lookups; /* answers cuGetProcAddress gave with a pointer */
static int driver_version = SIMCUDA_DEFAULT_DRIVER_VERSION;

static CUresult builtin_driver_get_version(int *version);
EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *symbolStatus);

/* What slots[0][index] stands for while it is NULL. */
static void *default_pointer(int index) {
    switch (index) {
    case SIMCUDA_INDEX_CUDRIVERGETVERSION:
        return (void *)builtin_driver_get_version;
    case SIMCUDA_INDEX_CUGETPROCADDRESS:
        return (void *)cuGetProcAddress_v2;
    default:
        return (void *)STUBS[index];
    }
}

/* ------------------------------------------------------------------ trampolines */

/* A trampoline takes and forwards 16 pointer-sized integers: the most parameters an entry has (checked by
 * tools/gen_native_entries.py). Every parameter of the driver API is an integer, a pointer, or a struct passed
 * by value; under System V x86-64 and AAPCS64 those travel in the integer registers and, past them, in
 * caller-owned stack words, which the forwarding call copies in order (reading a few words of the caller's
 * frame that the entry has no parameter for, which the callee ignores). The four deprecated entries with a
 * float parameter (cuParamSetf, cuTexRefSetMipmapLevel*) are never simulated: their slot stays the stub, and
 * the trampoline, which uses no floating-point register, leaves the float where the stub ignores it. */
#define ARGS16                                                                                              \
    uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3, uintptr_t a4, uintptr_t a5, uintptr_t a6,      \
        uintptr_t a7, uintptr_t a8, uintptr_t a9, uintptr_t a10, uintptr_t a11, uintptr_t a12, uintptr_t a13, \
        uintptr_t a14, uintptr_t a15
#define PASS16 a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
typedef CUresult (*forward_fn)(ARGS16);

/* ------------------------------------------------------------------ the Python boundary */

/* The adapters behind the slots are ctypes callbacks (Python). A call into one is made here, not left to
 * ctypes alone, for three reasons:
 *   - the caller may have a Python exception pending: cuda.core frees a resource while its own exception
 *     propagates (a C++ destructor, a Cython error path). A Python function entered with an exception set
 *     fails at its first C call (SystemError), the free is lost and the caller's exception with it. So the
 *     pending exception is taken aside (PyErr_Fetch) before the call and put back (PyErr_Restore) after it;
 *   - an adapter cannot raise into C (ctypes reports the exception and leaves the result undefined). One that
 *     must hand an exception to the caller (a KeyboardInterrupt: Ctrl-C in a Python kernel or a graph
 *     replay) gives it to simcuda_hold_exception() and returns SIMCUDA_RAISED; the trampoline sets it as the
 *     thread's pending exception and answers CUDA_ERROR_NOT_FOUND (500): cuda.bindings declares every entry
 *     "except ?CUDA_ERROR_NOT_FOUND", so its wrapper, seeing 500, checks for a pending exception and raises
 *     it (with none pending, 500 is an ordinary answer). A Ctrl-C already pending when the call starts is
 *     raised the same way, before the adapter runs (PyErr_CheckSignals);
 *   - once the interpreter finalizes, taking the GIL from a thread makes CPython end that thread
 *     (pthread_exit), which aborts the process inside a C++ destructor ("FATAL: exception not rethrown"). So
 *     every entry first checks simcuda_shutdown()'s flag and the interpreter (Py_IsInitialized,
 *     _Py_IsFinalizing), and answers CUDA_ERROR_DEINITIALIZED without touching Python when either says so.
 *     simcuda_shutdown() waits (a bounded time, with the GIL released) for the calls already inside Python.
 * The GIL is taken here (PyGILState_Ensure) and held across the callback, whose own PyGILState_Ensure is then
 * a nested one: one acquisition per call, as before. The interpreter's functions are found with dlsym in the
 * process (simcuda_bind_python(), called by the loader): with none found (a C program, no Python), slots are
 * called directly. */
typedef int (*py_int_fn)(void);
typedef void (*py_fetch_fn)(void **, void **, void **);
typedef void (*py_obj_fn)(void *);
typedef void *(*py_new_fn)(void *);
static struct {
    int ready;
    py_int_fn is_initialized, is_finalizing, gil_ensure, check_signals;
    void (*gil_release)(int);
    py_fetch_fn fetch;
    void (*restore)(void *, void *, void *);
    py_obj_fn incref, decref;
    py_new_fn type_of, traceback_of;
} py;

#define SIMCUDA_RAISED (-2)          /* an adapter's answer: "the exception I held is the call's outcome" */
#define SIMCUDA_SHUTDOWN_WAIT_MS 2000 /* how long simcuda_shutdown() waits for calls inside Python */

static int shutting_down;        /* set by simcuda_shutdown() */
/* what an entry answers once Python is closed (simcuda_set_closed_answer): 0 = DEINITIALIZED; 1 = CUDA_SUCCESS;
 * 2 + k = CUDA_SUCCESS with a NULL pointer written through its (non-NULL) pointer argument k */
static unsigned char closed_answers[SIMCUDA_ENTRY_COUNT];
static int in_python;            /* calls between their checks and their return (nested ones counted too) */
static __thread void *held;      /* the exception an adapter handed back (a new reference), or NULL */

static void *python_symbol(const char *name) { return dlsym(RTLD_DEFAULT, name); }

/* Find the interpreter's functions in the process; 0 when all are there (the boundary is used), else -1. */
EXPORT int simcuda_bind_python(void) {
    if (py.ready)
        return 0;
    py.is_initialized = (py_int_fn)python_symbol("Py_IsInitialized");
    py.is_finalizing = (py_int_fn)python_symbol("Py_IsFinalizing"); /* 3.13 */
    if (py.is_finalizing == NULL)
        py.is_finalizing = (py_int_fn)python_symbol("_Py_IsFinalizing"); /* 3.8 .. 3.12 */
    py.gil_ensure = (py_int_fn)python_symbol("PyGILState_Ensure");
    py.gil_release = (void (*)(int))python_symbol("PyGILState_Release");
    py.check_signals = (py_int_fn)python_symbol("PyErr_CheckSignals");
    py.fetch = (py_fetch_fn)python_symbol("PyErr_Fetch");
    py.restore = (void (*)(void *, void *, void *))python_symbol("PyErr_Restore");
    py.incref = (py_obj_fn)python_symbol("Py_IncRef");
    py.decref = (py_obj_fn)python_symbol("Py_DecRef");
    py.type_of = (py_new_fn)python_symbol("PyObject_Type");
    py.traceback_of = (py_new_fn)python_symbol("PyException_GetTraceback");
    if (!py.is_initialized || !py.is_finalizing || !py.gil_ensure || !py.gil_release || !py.check_signals ||
        !py.fetch || !py.restore || !py.incref || !py.decref || !py.type_of || !py.traceback_of)
        return -1;
    __atomic_store_n(&py.ready, 1, __ATOMIC_RELEASE);
    return 0;
}

/* Called by an adapter, with the GIL, through a ctypes PYFUNCTYPE: keep `exc` (an exception instance) as the
 * outcome of this thread's current call, to be raised when it returns SIMCUDA_RAISED. Returns SIMCUDA_RAISED. */
EXPORT int simcuda_hold_exception(void *exc) {
    if (!py.ready || exc == NULL)
        return CUDA_ERROR_UNKNOWN;
    py.incref(exc);
    if (held != NULL)
        py.decref(held);
    held = exc;
    return SIMCUDA_RAISED;
}

EXPORT int simcuda_raised(void) { return SIMCUDA_RAISED; }

/* Whether no call may touch Python: simcuda_shutdown() ran, or the interpreter is finalizing or gone. */
static int python_closed(void) {
    if (__atomic_load_n(&shutting_down, __ATOMIC_SEQ_CST))
        return 1;
    return py.ready && (!py.is_initialized() || py.is_finalizing());
}

/* Make the held exception the thread's pending one (the GIL held); 500 when there was one, else 999. */
static CUresult raise_held(void) {
    void *exc = held;
    held = NULL;
    if (exc == NULL)
        return CUDA_ERROR_UNKNOWN; /* an adapter answered SIMCUDA_RAISED without holding: a simcuda bug */
    py.restore(py.type_of(exc), exc, py.traceback_of(exc)); /* steals the three references */
    return CUDA_ERROR_NOT_FOUND;
}

/* Call the Python adapter `fn` (a slot's function) with the GIL, the caller's pending exception set aside. */
static CUresult call_python(forward_fn fn, ARGS16) {
    int gil = py.gil_ensure();
    void *type = NULL, *value = NULL, *traceback = NULL;
    py.fetch(&type, &value, &traceback);
    CUresult rc;
    if (type == NULL && py.check_signals() < 0) {
        rc = CUDA_ERROR_NOT_FOUND; /* Ctrl-C came before the call: raised, the call not made */
    } else {
        rc = fn(PASS16);
        if (rc == SIMCUDA_RAISED) {
            rc = raise_held(); /* the adapter's exception replaces the one set aside (dropped) */
            if (type != NULL) {
                py.decref(type);
                if (value != NULL)
                    py.decref(value);
                if (traceback != NULL)
                    py.decref(traceback);
                type = NULL;
            }
        }
        if (type != NULL)
            py.restore(type, value, traceback);
    }
    py.gil_release(gil);
    return rc;
}

/* Every handed-out entry: DEINITIALIZED once Python is closed, its slot's function (through the boundary for a
 * Python one), or its default (the stub or a built-in answer, which touch no Python). */
static CUresult dispatch(int index, int ptds, ARGS16) {
    __atomic_fetch_add(&in_python, 1, __ATOMIC_SEQ_CST);
    CUresult rc;
    if (python_closed()) {
        unsigned answer = __atomic_load_n(&closed_answers[index], __ATOMIC_RELAXED);
        rc = answer ? CUDA_SUCCESS : CUDA_ERROR_DEINITIALIZED;
        if (answer >= 2) {
            const uintptr_t args[16] = {PASS16};
            void **out = (void **)args[answer - 2];
            if (out != NULL)
                *out = NULL;
        }
    } else {
        void *fn = NULL;
        if (ptds)
            fn = __atomic_load_n(&slots[1][index], __ATOMIC_ACQUIRE);
        if (fn == NULL)
            fn = __atomic_load_n(&slots[0][index], __ATOMIC_ACQUIRE);
        if (fn == NULL)
            rc = ((forward_fn)default_pointer(index))(PASS16);
        else if (__atomic_load_n(&py.ready, __ATOMIC_ACQUIRE))
            rc = call_python((forward_fn)fn, PASS16);
        else
            rc = ((forward_fn)fn)(PASS16);
    }
    __atomic_fetch_sub(&in_python, 1, __ATOMIC_SEQ_CST);
    return rc;
}

#define X(index, name, version)                                                                             \
    static CUresult tramp_##index##_0(ARGS16) { return dispatch(index, 0, PASS16); }                       \
    static CUresult tramp_##index##_1(ARGS16) { return dispatch(index, 1, PASS16); }
SIMCUDA_ENTRIES(X)
#undef X

static const forward_fn TRAMPOLINES[2][SIMCUDA_ENTRY_COUNT] = {
    {
#define X(index, name, version) tramp_##index##_0,
        SIMCUDA_ENTRIES(X)
#undef X
    },
    {
#define X(index, name, version) tramp_##index##_1,
        SIMCUDA_ENTRIES(X)
#undef X
    },
};

/* From now on every handed-out entry answers CUDA_ERROR_DEINITIALIZED (or its closed answer, see
 * simcuda_set_closed_answer) without calling its slot: called from
 * Python (atexit, through ctypes, so without the GIL) when the interpreter starts to finalize. It waits, up to
 * SIMCUDA_SHUTDOWN_WAIT_MS, for the calls already past their check (another thread's, waiting for the GIL or
 * inside an adapter) to return, so none is inside Python when finalization proper begins. */
EXPORT void simcuda_shutdown(void) {
    __atomic_store_n(&shutting_down, 1, __ATOMIC_SEQ_CST);
    const struct timespec tick = {0, 1000000};
    for (int ms = 0; ms < SIMCUDA_SHUTDOWN_WAIT_MS && __atomic_load_n(&in_python, __ATOMIC_SEQ_CST) > 0; ms++)
        nanosleep(&tick, NULL);
}

/* What entry `index` answers once Python is closed: DEINITIALIZED (answer 0, the default), CUDA_SUCCESS (1: an
 * entry that frees or destroys: what it would free goes with the process, as a real driver, still alive while the
 * interpreter finalizes, frees what cuda.core's destructors release then), or CUDA_SUCCESS with a NULL pointer
 * written through its pointer argument k (2 + k, k < 16: "no current context" for cuCtxGetCurrent, which those
 * destructors ask first). Returns 0, or -1 for an index or answer out of range. The loader sets them by name
 * (simcuda/faces/native/__init__.py: RELEASES, CLOSED_NULL_OUTPUTS). */
EXPORT int simcuda_set_closed_answer(int index, int answer) {
    if (index < 0 || index >= SIMCUDA_ENTRY_COUNT || answer < 0 || answer >= 2 + 16)
        return -1;
    __atomic_store_n(&closed_answers[index], (unsigned char)answer, __ATOMIC_RELAXED);
    return 0;
}

/* Whether simcuda_shutdown() ran (1) or not (0). */
EXPORT int simcuda_is_shut_down(void) { return __atomic_load_n(&shutting_down, __ATOMIC_SEQ_CST); }

/* ------------------------------------------------------------------ the launch memo */

/* A capture loop calls cuLaunchKernel thousands of times with the same arguments, and the Python adapter's
 * cost on the native route is mostly crossing into Python with eleven arguments and reading the kernelParams
 * array again. The memo compares a call's arguments, bit for bit, with the same thread's previous call of
 * the same memo slot; when they are all the same it calls the slot's "repeat" function (one argument) instead
 * of its "full" one (the entry's own adapter, with all of them). It decides nothing: the repeat function
 * (Python) makes the same call into the simulator as the full one did, which checks everything again, and it
 * may answer SIMCUDA_MEMO_MISS ("call the full function"), as it does whenever what the bits meant then may
 * differ now. What it knows of the entry is its C ABI only:
 *   CUresult (CUfunction f, unsigned gridDim x3, unsigned blockDim x3, unsigned sharedMemBytes, CUstream,
 *             void **kernelParams, void **extra)
 * and the byte sizes of kernelParams' items, which Python registers per function handle
 * (simcuda_set_layout) with a serial of its choosing; the serial of the layout a call was compared by is what
 * the repeat function receives. Only a call with a NULL extra, a non-NULL kernelParams, no NULL item pointer
 * and a registered layout is remembered: its bytes are copied before the full function is called, which is
 * given the copy (memo_take), and kept once it answered CUDA_SUCCESS (after it returned: a call made inside
 * the full function, on the same thread, is overwritten by the outer one, as Python's record of it is). No
 * pointer outside the address space a process can have is read (plausible(), below). */
#define SIMCUDA_MEMO_SLOTS 2
#define SIMCUDA_MEMO_MISS (-1)
#define SIMCUDA_MEMO_PARAMS 32  /* a layout with more items is not remembered */
#define SIMCUDA_MEMO_BYTES 512  /* nor one whose items need more bytes */
#define SIMCUDA_MEMO_ROOM (SIMCUDA_MEMO_BYTES + 8 * SIMCUDA_MEMO_PARAMS) /* the items, each at a multiple of 8 */
#define SIMCUDA_LAYOUTS 4096    /* function handles with a layout (open addressing; full: not remembered) */
#define SIMCUDA_LAYOUT_PROBES 16

typedef CUresult (*launch_fn)(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                              unsigned bz, unsigned shmem, void *stream, void **params, void **extra);
typedef int (*repeat_fn)(unsigned serial);

struct layout {
    uintptr_t handle; /* 0: empty */
    unsigned serial;
    int n;
    unsigned short sizes[SIMCUDA_MEMO_PARAMS];
};

struct memo {
    int valid;
    unsigned serial;
    void *f, *stream;
    unsigned dims[7]; /* grid x3, block x3, shared memory bytes */
    int n;
    unsigned short sizes[SIMCUDA_MEMO_PARAMS];
    unsigned used; /* bytes of `bytes` the items take, with their alignment */
    _Alignas(16) unsigned char bytes[SIMCUDA_MEMO_ROOM];
};

static struct layout layouts[SIMCUDA_LAYOUTS];
static int layouts_busy; /* a spin lock: held for a copy, never across a call */
static launch_fn memo_full[SIMCUDA_MEMO_SLOTS];
static repeat_fn memo_repeat[SIMCUDA_MEMO_SLOTS];
static __thread struct memo memos[SIMCUDA_MEMO_SLOTS];
static uint64_t memo_hits; /* calls the repeat function answered (not SIMCUDA_MEMO_MISS) */

static void layouts_lock(void) {
    while (__atomic_exchange_n(&layouts_busy, 1, __ATOMIC_ACQUIRE))
        ;
}

static void layouts_unlock(void) { __atomic_store_n(&layouts_busy, 0, __ATOMIC_RELEASE); }

static unsigned layout_home(uintptr_t handle) {
    return (unsigned)((handle * 0x9E3779B97F4A7C15ull) >> 52) % SIMCUDA_LAYOUTS;
}

/* Register (n >= 0) or forget (n < 0) the item sizes of kernelParams for launches of function `handle`.
 * Returns 0, or -1 when it is not kept (handle 0, too many items or bytes, the table full near its home, or
 * n < 0): launches of that function are then never remembered. */
EXPORT int simcuda_set_layout(uintptr_t handle, unsigned serial, int n, const unsigned short *sizes) {
    if (handle == 0 || (n > 0 && sizes == NULL))
        return -1;
    unsigned total = 0;
    for (int i = 0; i < n && i <= SIMCUDA_MEMO_PARAMS; i++)
        total += sizes[i];
    /* else: forget any older layout of the handle */
    int keep = n >= 0 && n <= SIMCUDA_MEMO_PARAMS && total <= SIMCUDA_MEMO_BYTES;
    int rc = keep ? -1 : 0;
    layouts_lock();
    unsigned home = layout_home(handle), slot = SIMCUDA_LAYOUTS;
    for (unsigned k = 0; k < SIMCUDA_LAYOUT_PROBES; k++) {
        unsigned at = (home + k) % SIMCUDA_LAYOUTS;
        if (layouts[at].handle == handle) {
            slot = at;
            break;
        }
        if (layouts[at].handle == 0 && slot == SIMCUDA_LAYOUTS)
            slot = at;
    }
    if (slot < SIMCUDA_LAYOUTS) {
        struct layout *L = &layouts[slot];
        if (!keep) {
            if (L->handle == handle)
                L->handle = 0; /* a hole is fine: a look-up scans all the probes of its home */
        } else {
            L->handle = handle;
            L->serial = serial;
            L->n = n;
            for (int i = 0; i < n; i++)
                L->sizes[i] = sizes[i];
            rc = 0;
        }
    }
    layouts_unlock();
    return keep ? rc : -1;
}

/* Copy the layout of `handle` into *out: 1, or 0 when it has none. */
static int layout_of(uintptr_t handle, struct layout *out) {
    int found = 0;
    layouts_lock();
    unsigned home = layout_home(handle);
    for (unsigned k = 0; k < SIMCUDA_LAYOUT_PROBES; k++) {
        const struct layout *L = &layouts[(home + k) % SIMCUDA_LAYOUTS];
        if (L->handle == handle) {
            *out = *L;
            found = 1;
            break;
        }
    }
    layouts_unlock();
    return found;
}

/* Where item i's bytes start in a memo's buffer: after the previous items, at a multiple of 8 (so an item
 * read in place through its pointer is aligned as the caller's was, up to 8 bytes). */
static unsigned item_end(unsigned offset, unsigned size) { return ((offset + 7u) & ~7u) + size; }

/* Whether a pointer may be read at all: not in the first 64 KiB (Linux's default vm.mmap_min_addr, never mapped)
 * nor past the user address space (47 bits on x86-64, 48 on AArch64). The memo reads no other pointer: a call
 * with one is never remembered nor compared, and the full function (Python) refuses it with the same rule
 * (simcuda/faces/native/kernel_args.py, check_address). Readability itself is not checked (the real driver
 * reads the array as given). */
#if defined(__x86_64__)
#define SIMCUDA_ADDRESS_HIGH (1ull << 47)
#else
#define SIMCUDA_ADDRESS_HIGH (1ull << 48)
#endif
static int plausible(const void *p) {
    return (uintptr_t)p >= ((uintptr_t)1 << 16) && (uint64_t)(uintptr_t)p < SIMCUDA_ADDRESS_HIGH;
}

/* Whether the call's arguments are the remembered call's, bit for bit. */
static int memo_same(const struct memo *m, void *f, const unsigned *dims, void *stream, void **params,
                     void **extra) {
    if (!m->valid || m->f != f || m->stream != stream || !plausible(params) || extra != NULL ||
        memcmp(m->dims, dims, sizeof m->dims) != 0)
        return 0;
    unsigned offset = 0;
    for (int i = 0; i < m->n; i++) {
        unsigned end = item_end(offset, m->sizes[i]);
        if (!plausible(params[i]) || memcmp(params[i], m->bytes + (end - m->sizes[i]), m->sizes[i]) != 0)
            return 0;
        offset = end;
    }
    return 1;
}

/* Take the call's arguments into *p (valid, unless the call cannot be remembered: then 0) and point copy[i]
 * at each item's bytes there. The full function is then given `copy` as its kernelParams, so the values it
 * decodes are the bytes remembered, whatever the caller's storage holds afterwards (a Python kernel, or
 * another thread, may change it during the launch): the real driver, too, reads the arguments at the call. */
static int memo_take(struct memo *p, void **copy, void *f, const unsigned *dims, void *stream, void **params,
                     void **extra) {
    struct layout L;
    p->valid = 0;
    if (!plausible(params) || extra != NULL || !layout_of((uintptr_t)f, &L))
        return 0;
    unsigned offset = 0;
    for (int i = 0; i < L.n; i++) {
        unsigned end = item_end(offset, L.sizes[i]);
        if (!plausible(params[i]) || end > SIMCUDA_MEMO_ROOM)
            return 0;
        copy[i] = p->bytes + (end - L.sizes[i]);
        memcpy(copy[i], params[i], L.sizes[i]);
        p->sizes[i] = L.sizes[i];
        offset = end;
    }
    p->serial = L.serial;
    p->n = L.n;
    p->f = f;
    p->stream = stream;
    memcpy(p->dims, dims, sizeof p->dims);
    p->used = offset;
    p->valid = 1;
    return 1;
}

static void memo_keep(struct memo *m, const struct memo *p) {
    m->serial = p->serial;
    m->f = p->f;
    m->stream = p->stream;
    memcpy(m->dims, p->dims, sizeof m->dims);
    m->n = p->n;
    memcpy(m->sizes, p->sizes, sizeof m->sizes[0] * (size_t)p->n);
    memcpy(m->bytes, p->bytes, p->used);
    m->used = p->used;
    m->valid = 1;
}

static CUresult memo_call(int k, void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                          unsigned bz, unsigned shmem, void *stream, void **params, void **extra) {
    struct memo *m = &memos[k];
    const unsigned dims[7] = {gx, gy, gz, bx, by, bz, shmem};
    if (memo_same(m, f, dims, stream, params, extra)) {
        int rc = __atomic_load_n(&memo_repeat[k], __ATOMIC_ACQUIRE)(m->serial);
        if (rc != SIMCUDA_MEMO_MISS) {
            __atomic_fetch_add(&memo_hits, 1, __ATOMIC_RELAXED);
            return rc;
        }
    }
    /* on this thread's stack: a launch made inside the full function (same thread) takes its own */
    struct memo pending;
    void *copy[SIMCUDA_MEMO_PARAMS];
    int taken = memo_take(&pending, copy, f, dims, stream, params, extra);
    CUresult rc = __atomic_load_n(&memo_full[k], __ATOMIC_ACQUIRE)(f, gx, gy, gz, bx, by, bz, shmem, stream,
                                                                   taken ? copy : params, extra);
    if (rc == CUDA_SUCCESS && taken)
        memo_keep(m, &pending);
    else
        m->valid = 0;
    return rc;
}

#define MEMO_ENTRY(k)                                                                                       \
    static CUresult memo_entry_##k(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, \
                                   unsigned bz, unsigned shmem, void *stream, void **params, void **extra) {  \
        return memo_call(k, f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra);                     \
    }
MEMO_ENTRY(0)
MEMO_ENTRY(1)
#undef MEMO_ENTRY
static const launch_fn MEMO_ENTRIES[SIMCUDA_MEMO_SLOTS] = {memo_entry_0, memo_entry_1};

/* Give memo slot k its full and repeat functions; returns the function to register as the entry (with
 * simcuda_set_entry), or NULL for k out of range or a NULL function. Each thread's remembered call of the
 * slot is forgotten lazily: a slot given new functions compares against calls the old ones answered, so
 * register a slot once, before its first call. */
EXPORT void *simcuda_launch_memo(int k, void *full, void *repeat) {
    if (k < 0 || k >= SIMCUDA_MEMO_SLOTS || full == NULL || repeat == NULL)
        return NULL;
    __atomic_store_n(&memo_full[k], (launch_fn)full, __ATOMIC_RELEASE);
    __atomic_store_n(&memo_repeat[k], (repeat_fn)repeat, __ATOMIC_RELEASE);
    return (void *)MEMO_ENTRIES[k];
}

EXPORT int simcuda_memo_slots(void) { return SIMCUDA_MEMO_SLOTS; }

EXPORT int simcuda_memo_miss(void) { return SIMCUDA_MEMO_MISS; }

/* How many calls the memo's repeat functions answered, over all slots and threads. */
EXPORT uint64_t simcuda_memo_hits(void) { return __atomic_load_n(&memo_hits, __ATOMIC_RELAXED); }

/* ------------------------------------------------------------------ the registration API (Python side) */

/* Put fn into the default (ptds == 0) or per-thread (ptds == 1) slot of entry `index`; NULL puts back the
 * default (the stub; for ptds, "fall back to the default slot"). Returns 0, or -1 for an index or ptds out of
 * range. Takes effect for lookups made afterwards only: callers keep the pointers they were given. */
EXPORT int simcuda_set_entry(int index, int ptds, void *fn) {
    if (index < 0 || index >= SIMCUDA_ENTRY_COUNT || (ptds != 0 && ptds != 1))
        return -1;
    __atomic_store_n(&slots[ptds][index], fn, __ATOMIC_RELEASE);
    return 0;
}

/* The number of entries; with name/version, the table, so the loader can check it matches its own. */
EXPORT int simcuda_entry_count(void) { return SIMCUDA_ENTRY_COUNT; }

EXPORT const char *simcuda_entry_name(int index) {
    return index >= 0 && index < SIMCUDA_ENTRY_COUNT ? ENTRIES[index].name : NULL;
}

EXPORT int simcuda_entry_version(int index) {
    return index >= 0 && index < SIMCUDA_ENTRY_COUNT ? ENTRIES[index].version : -1;
}

/* Copy the stubs' call counters into out[0 .. n-1] (n is clipped to the entry count); returns the count. */
EXPORT int simcuda_call_counts(uint64_t *out, int n) {
    if (out != NULL)
        for (int i = 0; i < n && i < SIMCUDA_ENTRY_COUNT; i++)
            out[i] = __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
    return SIMCUDA_ENTRY_COUNT;
}

EXPORT void simcuda_reset_call_counts(void) {
    for (int i = 0; i < SIMCUDA_ENTRY_COUNT; i++)
        __atomic_store_n(&counts[i], 0, __ATOMIC_RELAXED);
}

/* How many times cuGetProcAddress handed out a pointer: non-zero means a caller may hold cached pointers. */
EXPORT uint64_t simcuda_lookup_count(void) { return __atomic_load_n(&lookups, __ATOMIC_RELAXED); }

EXPORT void simcuda_set_driver_version(int version) {
    __atomic_store_n(&driver_version, version, __ATOMIC_RELAXED);
}

/* The digest of the sources this library was compiled from (the build passes it), "" when not given. */
#ifndef SIMCUDA_SOURCE_DIGEST
#define SIMCUDA_SOURCE_DIGEST ""
#endif
EXPORT const char *simcuda_source_digest(void) { return SIMCUDA_SOURCE_DIGEST; }

/* ------------------------------------------------------------------ cuGetProcAddress */

/* Find `symbol` for `cudaVersion`: the index of the entry with the highest version at or below it, or -1 with
 * *status saying whether the name exists at all (only at higher versions: VERSION_NOT_SUFFICIENT). */
static int find(const char *symbol, int cudaVersion, CUdriverProcAddressQueryResult *status) {
    int best = -1, named = 0;
    for (int i = 0; i < SIMCUDA_ENTRY_COUNT; i++) {
        if (strcmp(ENTRIES[i].name, symbol) != 0)
            continue;
        named = 1;
        if (ENTRIES[i].version <= cudaVersion && (best < 0 || ENTRIES[i].version > ENTRIES[best].version))
            best = i;
    }
    if (best >= 0)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    else
        *status = named ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return best;
}

/* The lookup both exports share. Returns CUDA_ERROR_INVALID_VALUE for a NULL symbol or pfn, flags other than
 * DEFAULT, LEGACY_STREAM and PER_THREAD_DEFAULT_STREAM, or a cudaVersion above the reported driver version;
 * otherwise CUDA_SUCCESS with *status set and *pfn the pointer, or NULL when the entry is not there. */
static CUresult lookup(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                       CUdriverProcAddressQueryResult *status) {
    if (symbol == NULL || pfn == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    if (flags != CU_GET_PROC_ADDRESS_DEFAULT && flags != CU_GET_PROC_ADDRESS_LEGACY_STREAM &&
        flags != CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM)
        return CUDA_ERROR_INVALID_VALUE;
    if (cudaVersion > __atomic_load_n(&driver_version, __ATOMIC_RELAXED))
        return CUDA_ERROR_INVALID_VALUE;
    int index = find(symbol, cudaVersion, status);
    if (index < 0) {
        *pfn = NULL;
        return CUDA_SUCCESS;
    }
    /* the entry's getProcAddress itself answers directly (it never calls into Python) */
    *pfn = index == SIMCUDA_INDEX_CUGETPROCADDRESS
               ? (void *)cuGetProcAddress_v2
               : (void *)TRAMPOLINES[flags == CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM][index];
    __atomic_fetch_add(&lookups, 1, __ATOMIC_RELAXED);
    return CUDA_SUCCESS;
}

/* cuGetProcAddress (the CUDA 12.0 ABI, symbol cuGetProcAddress_v2). As documented: CUDA_SUCCESS with *pfn
 * NULL and *symbolStatus SYMBOL_NOT_FOUND or VERSION_NOT_SUFFICIENT when no variant answers; symbolStatus
 * may be NULL. */
EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *symbolStatus) {
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult rc = lookup(symbol, pfn, cudaVersion, flags, &status);
    if (rc == CUDA_SUCCESS && symbolStatus != NULL)
        *symbolStatus = status;
    return rc;
}

/* cuGetProcAddress (the CUDA 11.3 ABI, no status): CUDA_ERROR_NOT_FOUND with *pfn NULL when no variant
 * answers, as the 11.x documentation of cuGetProcAddress gives it. */
EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags) {
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult rc = lookup(symbol, pfn, cudaVersion, flags, &status);
    if (rc == CUDA_SUCCESS && status != CU_GET_PROC_ADDRESS_SUCCESS)
        return CUDA_ERROR_NOT_FOUND;
    return rc;
}

/* ------------------------------------------------------------------ direct exports */

static CUresult builtin_driver_get_version(int *version) {
    if (version == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *version = __atomic_load_n(&driver_version, __ATOMIC_RELAXED);
    return CUDA_SUCCESS;
}

/* The direct exports go through the default trampoline of their entry, so what the binding resolves and what a
 * C caller (cuda.pathfinder's driver version query) reaches are the same function, behind the same boundary. */
EXPORT CUresult cuDriverGetVersion(int *driverVersion) {
    return ((CUresult(*)(int *))TRAMPOLINES[0][SIMCUDA_INDEX_CUDRIVERGETVERSION])(driverVersion);
}

EXPORT CUresult cuInit(unsigned int Flags) {
    return ((CUresult(*)(unsigned int))TRAMPOLINES[0][SIMCUDA_INDEX_CUINIT])(Flags);
}

/* Not simulated (the private tables NVIDIA's runtime and NVRTC ask for): the stub's 801, counted. */
EXPORT CUresult cuGetExportTable(const void **ppExportTable, const void *pExportTableId) {
    return ((CUresult(*)(const void **, const void *))TRAMPOLINES[0][SIMCUDA_INDEX_CUGETEXPORTTABLE])(
        ppExportTable, pExportTableId);
}

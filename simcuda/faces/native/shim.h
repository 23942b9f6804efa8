/* The common part of simcuda's compiler shims (libnvrtc_shim.c, libnvjitlink_shim.c).
 *
 * A shim is a library with the soname of an NVIDIA compiler library (libnvrtc.so.13, libnvJitLink.so.13). It is
 * loaded by path before cuda.pathfinder looks for the real one, so pathfinder finds it as "already loaded" (as it
 * finds simcuda's libcuda.so.1), and NVIDIA's cuda.bindings resolves the compiler's functions from it by name.
 * Every function forwards to the real library, which simcuda_shim_open() loads by its real path (RTLD_LOCAL: its
 * own symbols stay out of the global scope). A few functions also report what they handed out (a CUBIN and the
 * PTX of the same program) to one callback that Python registers, and a gated function first asks a second
 * callback, registered only while a fault is injected, whether to go on; the shim decides nothing and keeps
 * nothing.
 *
 * Like libcuda.c this knows no CUDA semantics and includes no NVIDIA or Python headers. A forwarder takes and
 * passes 16 pointer-sized integers (every parameter of these libraries is an integer or a pointer, the results
 * an int-sized enum), as libcuda.c explains for the System V x86-64 and AAPCS64 ABIs.
 *
 * Each shim defines, before including this file:
 *   SHIM_FUNCTIONS(X)  X(index, name, kind) per function, kind FWD (forwarded as is) or OWN (written in the shim)
 *   SHIM_COUNT         the number of functions
 *   SHIM_NOT_LOADED    the result a forwarder gives while no real library is open (and counts)
 */
#ifndef SIMCUDA_SHIM_H
#define SIMCUDA_SHIM_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

#define ARGS16                                                                                              \
    uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3, uintptr_t a4, uintptr_t a5, uintptr_t a6,      \
        uintptr_t a7, uintptr_t a8, uintptr_t a9, uintptr_t a10, uintptr_t a11, uintptr_t a12, uintptr_t a13, \
        uintptr_t a14, uintptr_t a15
#define PASS16 a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
typedef int (*forward_fn)(ARGS16);

/* what the shim reports: (what, program or link handle, first bytes, their size, second bytes, their size, an
 * integer); `what` values are each shim's own (see its SHIM_* enum) */
typedef void (*shim_report_fn)(int what, void *handle, const void *a, size_t na, const void *b, size_t nb,
                               int extra);

/* what a gate decides before a function runs: 0 goes on, any other value is returned instead (a fault injected by
 * simcuda.faults); (what, program or link handle, two integer arguments) */
typedef int (*shim_gate_fn)(int what, void *handle, uintptr_t a, uintptr_t b);

static void *real_lib;
static shim_gate_fn gate_fn;
static void *real[SHIM_COUNT];
static uint64_t not_loaded_calls;
static shim_report_fn report_fn;
static int shutting_down;
static char open_error[512];

static const char *const NAMES[SHIM_COUNT] = {
#define X(index, name, kind) #name,
    SHIM_FUNCTIONS(X)
#undef X
};

/* the real library's function `index`, or NULL (not opened, or it lacks the function) */
static inline void *real_fn(int index) { return __atomic_load_n(&real[index], __ATOMIC_ACQUIRE); }

/* hand (what, ...) to the Python callback, unless none is registered or Python is finalizing */
static inline void report(int what, void *handle, const void *a, size_t na, const void *b, size_t nb,
                          int extra) {
    shim_report_fn fn = (shim_report_fn)__atomic_load_n((void **)&report_fn, __ATOMIC_ACQUIRE);
    if (fn != NULL && !__atomic_load_n(&shutting_down, __ATOMIC_ACQUIRE))
        fn(what, handle, a, na, b, nb, extra);
}

/* the gate's answer for (what, ...): 0 (go on) unless a gate is registered and Python is not finalizing */
static inline int gate(int what, void *handle, uintptr_t a, uintptr_t b) {
    shim_gate_fn fn = (shim_gate_fn)__atomic_load_n((void **)&gate_fn, __ATOMIC_ACQUIRE);
    if (fn == NULL || __atomic_load_n(&shutting_down, __ATOMIC_ACQUIRE))
        return 0;
    return fn(what, handle, a, b);
}

#define SHIM_FWD(index, name)                                                                               \
    EXPORT int name(ARGS16) {                                                                              \
        forward_fn fn = (forward_fn)real_fn(index);                                                        \
        if (fn == NULL) {                                                                                  \
            __atomic_fetch_add(&not_loaded_calls, 1, __ATOMIC_RELAXED);                                    \
            return SHIM_NOT_LOADED;                                                                        \
        }                                                                                                  \
        return fn(PASS16);                                                                                 \
    }
#define SHIM_OWN(index, name)
#define X(index, name, kind) SHIM_##kind(index, name)
SHIM_FUNCTIONS(X)
#undef X

/* ------------------------------------------------------------------ the registration API (Python side) */

/* Load the real library at `path` (RTLD_NOW | RTLD_LOCAL) and take its functions; 0, or -1 with
 * simcuda_shim_error() saying why. A second call with a library open is refused (-1). */
EXPORT int simcuda_shim_open(const char *path) {
    if (__atomic_load_n(&real_lib, __ATOMIC_ACQUIRE) != NULL) {
        snprintf(open_error, sizeof open_error, "a real library is already open");
        return -1;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(open_error, sizeof open_error, "%s", e != NULL ? e : "dlopen failed");
        return -1;
    }
    for (int i = 0; i < SHIM_COUNT; i++)
        __atomic_store_n(&real[i], dlsym(h, NAMES[i]), __ATOMIC_RELEASE);
    __atomic_store_n(&real_lib, h, __ATOMIC_RELEASE);
    return 0;
}

EXPORT const char *simcuda_shim_error(void) { return open_error; }

EXPORT int simcuda_shim_count(void) { return SHIM_COUNT; }

EXPORT const char *simcuda_shim_name(int index) { return index >= 0 && index < SHIM_COUNT ? NAMES[index] : NULL; }

/* whether the real library has function `index` (after simcuda_shim_open) */
EXPORT int simcuda_shim_has(int index) { return index >= 0 && index < SHIM_COUNT && real_fn(index) != NULL; }

/* the calls answered SHIM_NOT_LOADED because the real library (or that function of it) was missing */
EXPORT uint64_t simcuda_shim_not_loaded_calls(void) { return __atomic_load_n(&not_loaded_calls, __ATOMIC_RELAXED); }

EXPORT void simcuda_shim_set_report(shim_report_fn fn) { __atomic_store_n((void **)&report_fn, (void *)fn, __ATOMIC_RELEASE); }

/* the gate (NULL: none); gated functions ask it before they forward */
EXPORT void simcuda_shim_set_gate(shim_gate_fn fn) { __atomic_store_n((void **)&gate_fn, (void *)fn, __ATOMIC_RELEASE); }

/* from now on nothing is reported (Python is finalizing); forwarding goes on */
EXPORT void simcuda_shim_shutdown(void) { __atomic_store_n(&shutting_down, 1, __ATOMIC_RELEASE); }

#endif

/* simcuda's libnvidia-ml.so.1: the NVML functions cuda.bindings.nvml resolves by name, filled in from Python.
 *
 * Like libcuda.c, this file knows nothing of NVML semantics and includes no NVIDIA or Python headers. It holds:
 *   - one exported function per NVML function of nvml_entries.h (generated from cuda-bindings' cynvml.pxd),
 *     each a trampoline through a slot that simcuda_nvml_set_entry() fills (from Python: ctypes callbacks);
 *     an empty slot answers NVML_ERROR_NOT_SUPPORTED (3) and counts the call;
 *   - nvmlErrorString, the one function returning a string, answered here from a fixed table;
 *   - simcuda_nvml_shutdown(): from then on every function answers NVML_SUCCESS without calling its slot (the
 *     Python side calls it when the interpreter starts to finalize, as libcuda.c's simcuda_shutdown).
 * The trampolines take and forward 16 pointer-sized integers (every NVML parameter is an integer or a pointer;
 * tools/gen_native_nvml.py checks the count), as libcuda.c explains for the System V x86-64 and AAPCS64 ABIs.
 */
#include <stddef.h>
#include <stdint.h>

#include "nvml_entries.h"

#define EXPORT __attribute__((visibility("default")))

typedef int nvmlReturn_t;
enum { NVML_SUCCESS = 0, NVML_ERROR_NOT_SUPPORTED = 3 };

#define ARGS16                                                                                              \
    uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3, uintptr_t a4, uintptr_t a5, uintptr_t a6,      \
        uintptr_t a7, uintptr_t a8, uintptr_t a9, uintptr_t a10, uintptr_t a11, uintptr_t a12, uintptr_t a13, \
        uintptr_t a14, uintptr_t a15
#define PASS16 a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
typedef nvmlReturn_t (*forward_fn)(ARGS16);

static void *slots[SIMCUDA_NVML_COUNT];
static uint64_t counts[SIMCUDA_NVML_COUNT];
static int shutting_down;

static const char *const NAMES[SIMCUDA_NVML_COUNT] = {
#define X(index, name) #name,
    SIMCUDA_NVML_ENTRIES(X)
#undef X
};

#define X(index, name)                                                                                      \
    EXPORT nvmlReturn_t name(ARGS16) {                                                                     \
        if (__atomic_load_n(&shutting_down, __ATOMIC_ACQUIRE))                                             \
            return NVML_SUCCESS;                                                                           \
        forward_fn fn = (forward_fn)__atomic_load_n(&slots[index], __ATOMIC_ACQUIRE);                      \
        if (fn == NULL) {                                                                                  \
            __atomic_fetch_add(&counts[index], 1, __ATOMIC_RELAXED);                                       \
            return NVML_ERROR_NOT_SUPPORTED;                                                               \
        }                                                                                                  \
        return fn(PASS16);                                                                                 \
    }
SIMCUDA_NVML_ENTRIES(X)
#undef X

/* nvmlErrorString: the texts NVML gives for the codes the simulated functions return. */
EXPORT const char *nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 6: return "Not Found";
    case 7: return "Insufficient Size";
    case 999: return "Unknown Error";
    default: return "Unknown Error";
    }
}

/* ------------------------------------------------------------------ the registration API (Python side) */

EXPORT int simcuda_nvml_count(void) { return SIMCUDA_NVML_COUNT; }

EXPORT const char *simcuda_nvml_name(int index) {
    return index >= 0 && index < SIMCUDA_NVML_COUNT ? NAMES[index] : NULL;
}

/* Put fn into slot `index` (NULL: back to the NOT_SUPPORTED answer); 0, or -1 for an index out of range. */
EXPORT int simcuda_nvml_set_entry(int index, void *fn) {
    if (index < 0 || index >= SIMCUDA_NVML_COUNT)
        return -1;
    __atomic_store_n(&slots[index], fn, __ATOMIC_RELEASE);
    return 0;
}

/* Copy the empty slots' call counters into out[0 .. n-1]; returns the count of functions. */
EXPORT int simcuda_nvml_call_counts(uint64_t *out, int n) {
    if (out != NULL)
        for (int i = 0; i < n && i < SIMCUDA_NVML_COUNT; i++)
            out[i] = __atomic_load_n(&counts[i], __ATOMIC_RELAXED);
    return SIMCUDA_NVML_COUNT;
}

EXPORT void simcuda_nvml_shutdown(void) { __atomic_store_n(&shutting_down, 1, __ATOMIC_RELEASE); }

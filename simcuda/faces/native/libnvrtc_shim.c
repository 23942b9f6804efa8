/* simcuda's libnvrtc.so.13: NVIDIA's NVRTC, forwarded, with the PTX of every CUBIN it hands out reported.
 *
 * A CUBIN from NVRTC holds SASS only, no PTX; the simulator runs kernels from their PTX (issue 17). So when a
 * program's CUBIN is taken (nvrtcGetCUBIN succeeds), this shim also asks the real NVRTC for the same program's PTX
 * (nvrtcGetPTXSize / nvrtcGetPTX; a program compiled to LTO-IR has none, and is reported with none) and reports
 * (CUBIN, PTX) to Python (simcuda.faces.native.compilers), which remembers the pair for the load of the CUBIN. Every
 * other function is forwarded as is; nvrtcGetErrorString is the shim's only so that it still answers a string
 * while no real library is open, and nvrtcCompileProgram asks the gate first (a compilation refused by
 * simcuda.faults.inject, which reaches C callers such as cuda.core's Program this way). See shim.h for how the shim is found and what it knows (nothing of CUDA).
 */
enum { NVRTC_ERROR_INTERNAL_ERROR = 11 };
#define SHIM_NOT_LOADED NVRTC_ERROR_INTERNAL_ERROR

/* the functions NVIDIA's cuda.bindings 13.5 resolves from libnvrtc (cuda/bindings/_internal/nvrtc) */
#define SHIM_FUNCTIONS(X)                                                                                   \
    X(0, nvrtcGetErrorString, OWN) X(1, nvrtcVersion, FWD) X(2, nvrtcGetNumSupportedArchs, FWD)            \
    X(3, nvrtcGetSupportedArchs, FWD) X(4, nvrtcCreateProgram, FWD) X(5, nvrtcDestroyProgram, FWD)         \
    X(6, nvrtcCompileProgram, OWN) X(7, nvrtcGetPTXSize, FWD) X(8, nvrtcGetPTX, FWD)                       \
    X(9, nvrtcGetCUBINSize, FWD) X(10, nvrtcGetCUBIN, OWN) X(11, nvrtcGetLTOIRSize, FWD)                   \
    X(12, nvrtcGetLTOIR, FWD) X(13, nvrtcGetOptiXIRSize, FWD) X(14, nvrtcGetOptiXIR, FWD)                  \
    X(15, nvrtcGetProgramLogSize, FWD) X(16, nvrtcGetProgramLog, FWD) X(17, nvrtcAddNameExpression, FWD)   \
    X(18, nvrtcGetLoweredName, FWD) X(19, nvrtcGetPCHHeapSize, FWD) X(20, nvrtcSetPCHHeapSize, FWD)        \
    X(21, nvrtcGetPCHCreateStatus, FWD) X(22, nvrtcGetPCHHeapSizeRequired, FWD)                            \
    X(23, nvrtcSetFlowCallback, FWD) X(24, nvrtcGetTileIRSize, FWD) X(25, nvrtcGetTileIR, FWD)             \
    X(26, nvrtcGetBundledHeadersInfo, FWD) X(27, nvrtcInstallBundledHeaders, FWD)                          \
    X(28, nvrtcRemoveBundledHeaders, FWD)
#define SHIM_COUNT 29

#include <stdlib.h>

#include "shim.h"

enum { SHIM_NVRTC_CUBIN = 1 }; /* report: (program, CUBIN, its size, PTX or NULL, its size, 0) */
enum { SHIM_NVRTC_COMPILE = 1 }; /* gate: (program, numOptions, options) */

typedef int (*get_fn)(void *prog, char *out);
typedef int (*size_fn)(void *prog, size_t *out);

/* the real NVRTC's output of `prog` through (size, get), malloc'd (the caller frees), or NULL */
static char *real_output(void *prog, int size_index, int get_index, size_t *n) {
    size_fn size = (size_fn)real_fn(size_index);
    get_fn get = (get_fn)real_fn(get_index);
    *n = 0;
    if (size == NULL || get == NULL || size(prog, n) != 0 || *n == 0)
        return NULL;
    char *buf = malloc(*n);
    if (buf != NULL && get(prog, buf) != 0) {
        free(buf);
        buf = NULL;
    }
    if (buf == NULL)
        *n = 0;
    return buf;
}

EXPORT const char *nvrtcGetErrorString(int result) {
    typedef const char *(*error_string_fn)(int);
    error_string_fn fn = (error_string_fn)real_fn(0);
    if (fn == NULL)
        return "NVRTC_ERROR_INTERNAL_ERROR";
    return fn(result);
}

EXPORT int nvrtcCompileProgram(void *prog, int num_options, const char *const *options) {
    typedef int (*compile_fn)(void *, int, const char *const *);
    compile_fn fn = (compile_fn)real_fn(6);
    if (fn == NULL) {
        __atomic_fetch_add(&not_loaded_calls, 1, __ATOMIC_RELAXED);
        return SHIM_NOT_LOADED;
    }
    int refused = gate(SHIM_NVRTC_COMPILE, prog, (uintptr_t)num_options, (uintptr_t)options);
    if (refused != 0)
        return refused;
    return fn(prog, num_options, options);
}

EXPORT int nvrtcGetCUBIN(void *prog, char *cubin) {
    get_fn fn = (get_fn)real_fn(10);
    if (fn == NULL) {
        __atomic_fetch_add(&not_loaded_calls, 1, __ATOMIC_RELAXED);
        return SHIM_NOT_LOADED;
    }
    int rc = fn(prog, cubin);
    size_t n = 0;
    size_fn size = (size_fn)real_fn(9);
    if (rc == 0 && cubin != NULL && size != NULL && size(prog, &n) == 0 && n > 0) {
        size_t np;
        char *ptx = real_output(prog, 7, 8, &np);
        report(SHIM_NVRTC_CUBIN, prog, cubin, n, ptx, np, 0);
        free(ptx);
    }
    return rc;
}

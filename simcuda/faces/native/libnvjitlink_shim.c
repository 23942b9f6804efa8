/* simcuda's libnvJitLink.so.13: NVIDIA's nvJitLink, forwarded, with what a linked CUBIN was made of reported.
 *
 * A linked CUBIN holds no PTX; the simulator runs kernels from their PTX (issue 17). This shim reports to Python
 * (simcuda.faces.native.compilers): a link's options (nvJitLinkCreate), each input it is given (nvJitLinkAddData: its type, bytes and name;
 * nvJitLinkAddFile: its type and file name), the linked CUBIN when it is taken (nvJitLinkGetLinkedCubin succeeds)
 * together with the linked PTX when the real nvJitLink has one (a link with -lto and -ptx), and the handle's end
 * (nvJitLinkDestroy). Python keeps the PTX inputs per handle and remembers (CUBIN, PTX) for the CUBIN's load.
 * Every other function is forwarded as is. See shim.h for how the shim is found and what it knows.
 */
enum { NVJITLINK_ERROR_INTERNAL = 6 };
#define SHIM_NOT_LOADED NVJITLINK_ERROR_INTERNAL

/* the functions NVIDIA's cuda.bindings 13.5 resolves from libnvJitLink (cuda/bindings/_internal/nvjitlink) */
#define SHIM_FUNCTIONS(X)                                                                                   \
    X(0, nvJitLinkCreate, OWN) X(1, nvJitLinkDestroy, OWN) X(2, nvJitLinkAddData, OWN)                     \
    X(3, nvJitLinkAddFile, OWN) X(4, nvJitLinkComplete, FWD) X(5, nvJitLinkGetLinkedCubinSize, FWD)        \
    X(6, nvJitLinkGetLinkedCubin, OWN) X(7, nvJitLinkGetLinkedPtxSize, FWD) X(8, nvJitLinkGetLinkedPtx, FWD) \
    X(9, nvJitLinkGetErrorLogSize, FWD) X(10, nvJitLinkGetErrorLog, FWD) X(11, nvJitLinkGetInfoLogSize, FWD) \
    X(12, nvJitLinkGetInfoLog, FWD) X(13, nvJitLinkVersion, FWD) X(14, nvJitLinkGetLinkedLTOIRSize, FWD)   \
    X(15, nvJitLinkGetLinkedLTOIR, FWD)
#define SHIM_COUNT 16

#include <stdlib.h>

#include "shim.h"

enum { /* report kinds */
    SHIM_JIT_CREATE = 6,  /* (handle, the options, each ending in NUL, their total size, NULL, 0, their count) */
    SHIM_JIT_DATA = 2,    /* (handle, the input's bytes, size, its name or NULL, the name's length, input type) */
    SHIM_JIT_FILE = 3,    /* (handle, the file name, its length, NULL, 0, input type) */
    SHIM_JIT_CUBIN = 4,   /* (handle, the linked CUBIN, size, the linked PTX or NULL, its size, 0) */
    SHIM_JIT_DESTROY = 5, /* (handle, NULL, 0, NULL, 0, 0) */
};

#define NOT_LOADED_IF_NULL(fn)                                                                              \
    if ((fn) == NULL) {                                                                                    \
        __atomic_fetch_add(&not_loaded_calls, 1, __ATOMIC_RELAXED);                                        \
        return SHIM_NOT_LOADED;                                                                            \
    }

EXPORT int nvJitLinkCreate(void **handle, uint32_t count, const char **options) {
    typedef int (*create_fn)(void **, uint32_t, const char **);
    create_fn fn = (create_fn)real_fn(0);
    NOT_LOADED_IF_NULL(fn)
    int rc = fn(handle, count, options);
    if (rc != 0 || handle == NULL || *handle == NULL)
        return rc;
    size_t n = 0;
    for (uint32_t i = 0; options != NULL && i < count; i++)
        n += (options[i] != NULL ? strlen(options[i]) : 0) + 1;
    char *all = malloc(n > 0 ? n : 1);
    if (all != NULL) {
        size_t at = 0;
        for (uint32_t i = 0; options != NULL && i < count; i++) {
            size_t k = options[i] != NULL ? strlen(options[i]) : 0;
            memcpy(all + at, options[i] != NULL ? options[i] : "", k + 1);
            at += k + 1;
        }
        report(SHIM_JIT_CREATE, *handle, all, n, NULL, 0, (int)count);
        free(all);
    }
    return rc;
}

EXPORT int nvJitLinkDestroy(void **handle) {
    typedef int (*destroy_fn)(void **);
    destroy_fn fn = (destroy_fn)real_fn(1);
    NOT_LOADED_IF_NULL(fn)
    if (handle != NULL && *handle != NULL)
        report(SHIM_JIT_DESTROY, *handle, NULL, 0, NULL, 0, 0);
    return fn(handle);
}

EXPORT int nvJitLinkAddData(void *handle, int type, const void *data, size_t size, const char *name) {
    typedef int (*add_data_fn)(void *, int, const void *, size_t, const char *);
    add_data_fn fn = (add_data_fn)real_fn(2);
    NOT_LOADED_IF_NULL(fn)
    int rc = fn(handle, type, data, size, name);
    if (rc == 0 && data != NULL)
        report(SHIM_JIT_DATA, handle, data, size, name, name != NULL ? strlen(name) : 0, type);
    return rc;
}

EXPORT int nvJitLinkAddFile(void *handle, int type, const char *file_name) {
    typedef int (*add_file_fn)(void *, int, const char *);
    add_file_fn fn = (add_file_fn)real_fn(3);
    NOT_LOADED_IF_NULL(fn)
    int rc = fn(handle, type, file_name);
    if (rc == 0 && file_name != NULL)
        report(SHIM_JIT_FILE, handle, file_name, strlen(file_name), NULL, 0, type);
    return rc;
}

EXPORT int nvJitLinkGetLinkedCubin(void *handle, void *cubin) {
    typedef int (*get_fn)(void *, void *);
    typedef int (*size_fn)(void *, size_t *);
    get_fn fn = (get_fn)real_fn(6);
    NOT_LOADED_IF_NULL(fn)
    int rc = fn(handle, cubin);
    size_fn cubin_size = (size_fn)real_fn(5), ptx_size = (size_fn)real_fn(7);
    get_fn get_ptx = (get_fn)real_fn(8);
    size_t n = 0, np = 0;
    if (rc == 0 && cubin != NULL && cubin_size != NULL && cubin_size(handle, &n) == 0 && n > 0) {
        char *ptx = NULL;
        if (ptx_size != NULL && get_ptx != NULL && ptx_size(handle, &np) == 0 && np > 0) {
            ptx = malloc(np);
            if (ptx != NULL && get_ptx(handle, ptx) != 0) {
                free(ptx);
                ptx = NULL;
            }
        }
        report(SHIM_JIT_CUBIN, handle, cubin, n, ptx, ptx != NULL ? np : 0, 0);
        free(ptx);
    }
    return rc;
}

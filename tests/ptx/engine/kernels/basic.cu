// CUDA C sources written for simcuda's engine tests (compiled by NVRTC at compute_80 in the tests)
#define T 16
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void mm(const float* A, const float* B, float* C, int n) {
    __shared__ float As[T][T], Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y, r = blockIdx.y * T + ty, c = blockIdx.x * T + tx;
    float s = 0;
    for (int k = 0; k < n / T; k++) {
        As[ty][tx] = A[r * n + k * T + tx];
        Bs[ty][tx] = B[(k * T + ty) * n + c];
        __syncthreads();
        for (int j = 0; j < T; j++) s += As[ty][j] * Bs[j][tx];
        __syncthreads();
    }
    C[r * n + c] = s;
}
extern "C" __global__ void hist(const int* d, unsigned* h, int n, unsigned* old) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) old[i] = atomicAdd(&h[d[i]], 1u);
}
extern "C" __global__ void casmax(const int* d, int* m, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int old = *m, assumed;
    do { assumed = old; old = atomicCAS(m, assumed, max(assumed, d[i])); } while (old != assumed);
}
extern "C" __global__ void warpsum(const int* d, int* out) {
    int v = d[blockIdx.x * blockDim.x + threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if ((threadIdx.x & 31) == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}
extern "C" __global__ void ballot(const int* d, unsigned* out, int* allany) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned b = __ballot_sync(0xffffffff, d[i] > 0);
    int a = __all_sync(0xffffffff, d[i] > 0), y = __any_sync(0xffffffff, d[i] > 0);
    if ((threadIdx.x & 31) == 0) { out[i / 32] = b; allany[2 * (i / 32)] = a; allany[2 * (i / 32) + 1] = y; }
}
extern "C" __global__ void diverge(int* out) {
    int i = threadIdx.x, v;
    if (i % 3 == 0) v = i * 10; else if (i % 3 == 1) v = -i; else { v = 0; for (int k = 0; k < i; k++) v += k; }
    __syncwarp();
    out[i] = v + __shfl_sync(0xffffffff, v, 0);
}
extern "C" __global__ void pf(int x, double y) { if (threadIdx.x == 1) printf("x=%d y=%.2f s=%s\n", x, y, "ok"); }
extern "C" __global__ void asrt(int x) { assert(x == 1); }
extern "C" __global__ void oob(int* p, long i) { p[i] = 1; }
extern "C" __global__ void misal(char* p) { *(int*)(p + 1) = 1; }
extern "C" __global__ void spin(volatile int* flag, int* out) {
    if (blockIdx.x == 0) { while (*flag == 0) {} out[0] = 7; }
    else { out[1] = 5; __threadfence(); *flag = 1; }
}
extern "C" __global__ void fmas(const float* a, const float* b, const float* c, float* o,
                                const double* da, const double* db, const double* dc, double* od) {
    int i = threadIdx.x;
    o[i] = __fmaf_rn(a[i], b[i], c[i]);
    od[i] = __fma_rn(da[i], db[i], dc[i]);
}
extern "C" __global__ void cpasync(const int* g, int* out) {
    __shared__ int s[256];
    unsigned sa = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(sa), "l"(g + threadIdx.x));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    __syncthreads();
    out[threadIdx.x] = s[255 - threadIdx.x] * 2;
}
extern "C" __global__ void shist(const int* d, unsigned* out, float* fsum) {
    __shared__ unsigned h[4];
    if (threadIdx.x < 4) h[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&h[d[i] & 3], 1u);
    atomicAdd(fsum, 0.5f);
    __syncthreads();
    if (threadIdx.x < 4) out[blockIdx.x * 4 + threadIdx.x] = h[threadIdx.x];
}
extern "C" __global__ void mth(const float* x, float* y, const double* dx, double* dy, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = sinf(x[i]) + expf(x[i]) + sqrtf(x[i]) + logf(x[i] + 1.f) + powf(x[i], 1.5f);
    dy[i] = sin(dx[i]) + exp(dx[i]) + sqrt(dx[i]) / (dx[i] + 1.0) + (double)(long long)(dx[i] * 1e6);
}

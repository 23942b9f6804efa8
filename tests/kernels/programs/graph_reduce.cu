// a two-stage sum: per-block partial sums of doubles in shared memory, then one block sums the partials
extern "C" __global__ void reduce_partial(const float *in, double *partial, unsigned n)
{
    extern __shared__ double cache[];
    double acc = 0;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += in[i];
    cache[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) cache[threadIdx.x] += cache[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = cache[0];
}

extern "C" __global__ void reduce_final(const double *partial, double *result, unsigned count)
{
    double acc = 0;
    for (unsigned i = threadIdx.x; i < count; i += 32) acc += partial[i];
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (threadIdx.x == 0) *result = acc;
}

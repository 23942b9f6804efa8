// each block copies its tile of global memory to shared memory with cp.async, waits, then writes it back reversed
extern "C" __global__ void async_reverse(const int *in, int *out)
{
    __shared__ int tile[256];
    unsigned t = threadIdx.x;
    const int *src = in + blockIdx.x * 256 + t;
    unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(dst), "l"(src) : "memory");
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    __syncthreads();
    out[blockIdx.x * 256 + t] = tile[255 - t] * 2 + 1;
}

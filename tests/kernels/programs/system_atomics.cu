// system-scope atomics on one array of counters (managed or mapped memory)
extern "C" __global__ void system_atomics(int *counters, int rounds)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < rounds; ++r) {
        atomicAdd_system(&counters[0], 1);
        atomicMax_system(&counters[1], tid);
        atomicMin_system(&counters[2], -tid);
        atomicOr_system(&counters[3], 1 << (tid % 31));
        atomicXor_system(&counters[4], tid);
        atomicCAS_system(&counters[5], 0, tid + 1);
    }
}

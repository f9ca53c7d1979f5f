// Records put in a new order on the device: the second half of a sort of host records by a key
// they carry (src/cuda/records.rs), once the keys' stable argsort has given the positions.
//   records_gather_<U>: out[i] = in[positions[i]] for records of `units` units of U each.
// The records are opaque: they move as 16-, 8- or 4-byte units, the widest one that divides the
// record (src/cuda/records.rs picks it), so a 32-byte record moves as two 16-byte loads and stores.
// One thread per unit: consecutive threads read consecutive units of one record, then of the next
// record, so the reads of one record coalesce and the writes are fully sequential.

template <class U>
__device__ __forceinline__ void gather(const U *in, const unsigned *positions, U *out, unsigned long long n,
                                       unsigned units) {
    const unsigned long long total = n * units;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += stride) {
        const unsigned long long record = t / units;
        const unsigned unit = (unsigned)(t - record * units);
        out[t] = in[(unsigned long long)positions[record] * units + unit];
    }
}

#define RECORDS_GATHER(NAME, U)                                                                                   \
    extern "C" __global__ void __launch_bounds__(256)                                                              \
        records_gather_##NAME(const U *in, const unsigned *positions, U *out, unsigned long long n,               \
                              unsigned units) {                                                                    \
        gather<U>(in, positions, out, n, units);                                                                   \
    }

RECORDS_GATHER(16, uint4)
RECORDS_GATHER(8, uint2)
RECORDS_GATHER(4, unsigned)

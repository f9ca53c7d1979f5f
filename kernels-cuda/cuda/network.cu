// Sorting networks: thin extern "C" entry points over network_bitonic.cuh and network_oddeven.cuh.
// Every kernel takes (src, dst, n, a, b, c) and runs NetPolicy::threads threads per block; src may equal
// dst for the kernels that own their tile outright (all but the odd-even windowed passes). Pairs
// travel as uint2 (8-byte loads and stores), keys as unsigned. Tiles live in dynamic shared memory:
// launches pass the SMEM_BYTES of net_tuning below.
#include "network_bitonic.cuh"
#include "network_oddeven.cuh"

// MINB: the __launch_bounds__ blocks per SM (policy_network.cuh).
#define NET_ENTRY_B(NAME, T, SUF, MINB, CALL)                                                     \
  extern "C" __global__ void __launch_bounds__(policy::NET.threads, MINB)                         \
      NAME##_##SUF(const T* src, T* dst, long long n, unsigned a, unsigned b, unsigned c) {       \
    (void)a;                                                                                      \
    (void)b;                                                                                      \
    (void)c;                                                                                      \
    wait_for_previous_grid();                                                                     \
    CALL;                                                                                         \
  }
#define NET_ENTRY(NAME, T, SUF, DESC, CALL) NET_ENTRY_B(NAME, T, SUF, policy::NET.min_blocks, CALL)
#define NET_ENTRY_TS(NAME, T, SUF, DESC, CALL) NET_ENTRY_B(NAME, T, SUF, policy::NET.min_blocks_tile_sort, CALL)
#define NET_ENTRY_OTS(NAME, T, SUF, DESC, CALL) NET_ENTRY_B(NAME, T, SUF, policy::NET.min_blocks_oe_tile_sort, CALL)

#define NET_TYPE(T, TS)                                                                           \
  NET_ENTRY_TS(net_bitonic_tile_sort, T, TS##_asc, false, net::bitonic_tile_sort<false>(src, dst, n)) \
  NET_ENTRY_TS(net_bitonic_tile_sort, T, TS##_desc, true, net::bitonic_tile_sort<true>(src, dst, n)) \
  NET_ENTRY(net_bitonic_tile_merge, T, TS##_asc, false, net::bitonic_tile_merge<false>(src, dst, n)) \
  NET_ENTRY(net_bitonic_tile_merge, T, TS##_desc, true, net::bitonic_tile_merge<true>(src, dst, n)) \
  NET_ENTRY(net_bitonic_global, T, TS##_asc, false, net::bitonic_global<false>(src, dst, n, a, b, c)) \
  NET_ENTRY(net_bitonic_global, T, TS##_desc, true, net::bitonic_global<true>(src, dst, n, a, b, c)) \
  NET_ENTRY_OTS(net_oddeven_tile_sort, T, TS##_asc, false, net::oddeven_tile_sort<false>(src, dst, n)) \
  NET_ENTRY_OTS(net_oddeven_tile_sort, T, TS##_desc, true, net::oddeven_tile_sort<true>(src, dst, n)) \
  NET_ENTRY(net_oddeven_tile_merge, T, TS##_asc, false, net::oddeven_tile_merge<false>(src, dst, n, a, b)) \
  NET_ENTRY(net_oddeven_tile_merge, T, TS##_desc, true, net::oddeven_tile_merge<true>(src, dst, n, a, b)) \
  NET_ENTRY(net_oddeven_global, T, TS##_asc, false, net::oddeven_global<false>(src, dst, n, a, b, c)) \
  NET_ENTRY(net_oddeven_global, T, TS##_desc, true, net::oddeven_global<true>(src, dst, n, a, b, c))

NET_TYPE(uint2, kvp)
NET_TYPE(unsigned, u32)

// What the host plans launches with (src/cuda/network/plan.rs `Tuning::from_words`), read from the
// loaded module, so it always matches the kernels: a magic word, then the policy_network.cuh numbers, then
// the dynamic shared memory of a pairs and of a keys tile.
extern "C" __device__ unsigned net_tuning[10] = {
    0x4e455433u,  // "NET3": every kernel waits for the previous pass (overlapped launches)
    (unsigned)policy::NET.tile_bytes,
    (unsigned)policy::NET.threads,
    (unsigned)policy::NET.oe_col_bits,
    (unsigned)policy::NET.oe_halo_strides,
    (unsigned)policy::NET.oe_merge_halo_bits,
    (unsigned)policy::NET.bitonic_min_row_bytes,
    (unsigned)policy::NET.reg_bits,
    net::Shape<uint2>::SMEM_BYTES,
    net::Shape<unsigned>::SMEM_BYTES,
};

// Sorting-network tuning numbers (network*.cu), chosen per architecture at compile time
// (__CUDA_ARCH__). Each number carries the measurement that chose it: GPU, size, time. The radix
// sort's are in tuning.cuh.
#pragma once

// ---- sorting networks (network*.cu) -----------------------------------------------------
// The image carries these numbers (net_tuning in network.cu) and src/cuda/network reads them when
// it loads the module, so a candidate built with -DNET_THREADS=512 etc. runs through
// GPUSORT_KERNELS_DIR without a Rust rebuild (ci/net/sweep.sh).
// One shared-memory tile per block (dynamic shared memory, plus 1/16 bank padding): 32 KB = 4096
// pairs or 8192 keys. H200, pairs, ms, 1M / 16M / 64M (ci/net/sweep.sh, 2026-11-22, with the other
// numbers as below): 32 KB x 256 threads bitonic 0.150 / 2.925 / 13.08, odd-even 0.293 / 5.18 /
// 23.19 <- chosen; 64 KB x 256 (3 blocks/SM, col bits 3) bitonic 0.176 / 2.96 / 12.78, odd-even
// 0.348 / 5.38 / 24.13; 64 KB x 512 (earlier kernels) and 32 KB x 512 with 8 registers per thread
// were slower at every size (odd-even 16M 6.27 and 8.14 against 6.19 then).
#ifndef NET_TILE_BYTES
#define NET_TILE_BYTES 32768
#endif
#ifndef NET_THREADS
#define NET_THREADS 256
#endif
// Blocks per SM the register allocation must allow (__launch_bounds__): 4 (<= 64 registers) for
// the merge and global kernels, 3 for the tile sorts, which spill at 64. H200, 16M pairs, ms:
// bitonic 3.20 / 3.16 / 2.93 and odd-even 9.42 / 9.30 / 8.84 with 1 / 3 / 4 for every kernel.
#ifndef NET_MIN_BLOCKS
#define NET_MIN_BLOCKS 4
#endif
#ifndef NET_MIN_BLOCKS_TILE_SORT
#define NET_MIN_BLOCKS_TILE_SORT 3
#endif
// The odd-even tile sort (registers for the top 4 strides of each stage, shared memory below)
// spills 164 bytes of pairs at 3 blocks (80 registers); none at 2. H200, pairs, odd-even ms
// (earlier kernels): 3 blocks 1M 0.342 / 16M 6.06 against 2 blocks 0.349 / 6.19 (one run each).
#ifndef NET_MIN_BLOCKS_OE_TILE_SORT
#define NET_MIN_BLOCKS_OE_TILE_SORT 2
#endif
// Comparators run in registers on 2^NET_REG_BITS elements per thread between shared-memory round
// trips: 4 strides per round trip, 16 pairs = 32 registers. Not swept.
#ifndef NET_REG_BITS
#define NET_REG_BITS 4
#endif
// The odd-even tile sort's register groups (its kernel may use 128 registers: 2 blocks per SM).
// H200, pairs, odd-even ms, 1M / 16M (2026-11-23): 5 bits (spills 204 bytes) 0.266 / 4.745,
// 4 bits 0.266 / 4.765; 4 stays.
#ifndef NET_OE_SORT_REG_BITS
#define NET_OE_SORT_REG_BITS NET_REG_BITS
#endif
// Bitonic global passes keep at least this many bytes of adjacent columns per row (half where a
// flip mirrors them). H200, pairs, ms, 1M / 16M / 64M, 2026-11-22 sweep: 128-byte rows (one pass
// fewer at 1M and 64M) 0.150 / 2.925 / 13.08 <- chosen, 256-byte rows 0.154 / 2.992 / 13.33.
// (An older kernel set measured the opposite at 64M: 14.5 against 13.9.)
#ifndef NET_BITONIC_MIN_ROW_BYTES
#define NET_BITONIC_MIN_ROW_BYTES 128
#endif
// Odd-even global passes: windows of 2^NET_OE_COL_BITS columns (8 = 64-byte rows of pairs) by W/8
// rows. A stage's top strides need no halo (its runs fit a window); the strides below them run at
// most NET_OE_HALO_STRIDES per pass with 2^k halo rows each side. The tile merges run the strides
// below 2^(tile bits - NET_OE_MERGE_HALO_BITS): halos of 1/16 tile each side at 4.
// H200, pairs, odd-even ms, 1M / 16M / 64M, 2026-11-22 sweep (bitonic rows 256 bytes):
//   col bits 4, merge halo bits 3: 0.291 / 5.411 / 24.61
//   col bits 3, merge halo bits 3: 0.296 / 5.348 / 24.05
//   col bits 3, merge halo bits 4: 0.294 / 5.100 / 23.27  <- chosen
//   col bits 4, merge halo bits 4 (before NET_OE_STEP_NEAR): 16M 6.04 against 6.19 at 3
// Halo strides 4 against 6 (col bits 4, before NET_OE_STEP_NEAR): 16M 6.31 / 6.19, 64M 28.13 / 28.15.
#ifndef NET_OE_COL_BITS
#define NET_OE_COL_BITS 3
#endif
#ifndef NET_OE_HALO_STRIDES
#define NET_OE_HALO_STRIDES 6
#endif
#ifndef NET_OE_MERGE_HALO_BITS
#define NET_OE_MERGE_HALO_BITS 4
#endif
// 1: odd-even steps of strides <= NET_THREADS slots address comparators as constant offsets from
// one computed slot (network_oddeven.cuh oe_step). H200, pairs, odd-even ms, 1M / 16M / 64M
// (col bits 4, merge halo bits 3): 1 gave 0.291 / 5.411 / 24.61, 0 gave 0.341 / 6.299 / 28.52.
#ifndef NET_OE_STEP_NEAR
#define NET_OE_STEP_NEAR 1
#endif
// 1: an odd-even shared-memory step writes back only the comparators that swapped (fewer lanes per
// store). H200, pairs, odd-even ms, 1M / 2M / 16M / 64M (2026-11-23, fixed merge halo): 0 gave
// 0.267 / 0.501 / 4.758 / 22.01, 1 gave 0.263 / 0.489 / 4.610 / 21.22. The register groups doing
// the same (a mask of the slots that moved) measured 0.267 / 0.499 / 4.611 / 21.21 on top: removed.
#ifndef NET_OE_STORE_SWAPS
#define NET_OE_STORE_SWAPS 1
#endif
// 1: the odd-even tile sort runs the stages whose runs fit one warp's share of the tile (512
// pairs, 1024 keys) warp by warp, with warp barriers instead of block barriers. H200, pairs,
// odd-even ms, 1M / 2M / 16M / 64M (2026-11-23): 1 gave 0.252 / 0.479 / 4.516 / 20.93, 0 gave
// 0.254 / 0.483 / 4.554 / 21.07 (the tile sort at 1M: 48.3 against 50.3 us, ncu).
#ifndef NET_OE_WARP_STAGES
#define NET_OE_WARP_STAGES 1
#endif
// Tiles load global -> shared with cp.async on sm_80+ (1), else with NET_LOAD_BATCH loads in
// registers per thread before the first shared store (network_common.cuh load_tile); the loop that
// stored each element as it arrived kept one load in flight per thread. H200, pairs, ms, 1M / 16M /
// 64M (2026-11-23), bitonic then odd-even: cp.async 0.131 / 2.529 / 11.27, 0.272 / 4.767 / 22.02;
// one load in flight 0.134 / 2.884 / 13.02, 0.288 / 4.978 / 22.87; batches of 16 0.137 / 2.794,
// 0.271 / 4.978; of 8 0.133 / 2.613, 0.269 / 4.849.
#ifndef NET_LOAD_ASYNC
#define NET_LOAD_ASYNC 1
#endif
#ifndef NET_LOAD_BATCH
#define NET_LOAD_BATCH 16
#endif
// Tried and removed (2026-11-23): the odd-even strides below 32 of the tile sort and tile merges
// per warp in registers (one shuffle per row of 32 and stride, a row of context on each side, one
// barrier instead of one per stride). Correct (network tests, compute-sanitizer clean) but slower,
// H200 pairs ms 1M / 16M / 64M: 0.348 / 6.12 / 27.46 against 0.276 / 4.96 / 22.83 (its pairs
// kernels spill 152-260 bytes; tile merge at 3 blocks per SM, tile sort at 1: no better).
// Overlapped launches (overlap.cuh wait_for_previous_grid): when a block lets the next pass
// launch. H200, pairs, ms, 1M / 16M, bitonic then odd-even (ci/net/sweep.sh, 2026-11-23): not
// overlapped 0.153 / 2.906, 0.300 / 5.011; as each block starts 0.191 / 2.861, 0.355 / 4.973;
// before its stores 0.151 / 2.870, 0.297 / 4.963; when it exits 0.131 / 2.867, 0.272 / 4.956 <- kept
// (the only one left in the code).

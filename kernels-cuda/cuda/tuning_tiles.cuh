// Radix sort tile shapes, chosen per architecture at compile time (__CUDA_ARCH__): the threads,
// items per thread and blocks per SM of each kernel set's sweep, each with the measurement that
// chose it. The other radix numbers are in tuning.cuh, which includes this file.
#pragma once

// ---- radix sort (radix*.cu) -------------------------------------------------------------
// Onesweep digit pass: a block ranks RADIX_SWEEP_THREADS * items keys (one tile). Shared memory
// holds the tile (tile * item bytes): static up to 48 KB, dynamic past it (radix.cuh
// sweep_dynamic_bytes). The register cap (blocks per SM) mattered
// most: uncapped, keys used 160 registers (1 block/SM) and ran 64M in 4.06 ms.
// H200, random u32 keys, median ms at 16M / 64M (ci/cub/sweep.sh, 2026-11-22), pairs = Kvp:
//   256 thr, kvp 16 items 3 blk, keys 24 items 3 blk:  kvp 0.817 / 3.079   keys 0.813 / 2.933
//   256 thr, kvp 12 items 4 blk, keys 16 items 4 blk:  kvp 0.880 / 3.126   keys 0.684 / 2.259  <- chosen
//   512 thr, kvp  8 items 2 blk, keys 12 items 2 blk:  kvp 0.965 / 3.275   keys 0.695 / 2.608
//   384 thr, kvp 10 items 2 blk, keys 16 items 2 blk:  kvp 0.935 / 3.429   keys 0.717 / 2.582
// (CUB 3.0.1 in the same run: pairs 0.554 / 1.926, keys 0.458 / 1.625.) Those rows ranked with
// ballots. With the atomic-OR ranking (RADIX_RANK 3, tuning.cuh), same chosen row, 2026-11-22 run 2:
//   256 thr, kvp 12 items 4 blk, keys 16 items 4 blk:  kvp 0.755 / 2.767   keys 0.566 / 2.051  <- chosen
//   256 thr, kvp 16 items 3 blk, keys 24 items 3 blk:  kvp 0.771 / 2.732   keys 0.697 / 2.478
//   256 thr, kvp  8 items 5 blk, keys 12 items 5 blk:  kvp 0.905 / 3.147   keys 0.606 / 2.233
// (CUB in that run: pairs 0.558 / 1.927, keys 0.458 / 1.627.) ncu on the chosen kvp kernel at 16M:
// L1/shared-memory pipe 72% busy, DRAM 30%, 50% occupancy (registers and shared memory both
// allow 4 blocks): shared-memory traffic of the ranking and staging is the limit now.
// Session 3, with early counts (tuning.cuh RADIX_EARLY_COUNTS), sweep of 2026-11-22 (ci/cub/sweep_configs_s3b.txt, H200,
// median ms at 16M / 64M, one run; CUB 3.0.1 in the same run: pairs 0.555 / 1.927, keys
// 0.460 / 1.625; u64 kernels take the kvp items, shared memory as one block per kernel):
//   256 thr, kvp 12 items 4 blk, keys 16 4 blk, pairs 12 4 blk: kvp 0.831 / 2.855  keys 0.615 / 1.943  pairs 0.899 / 2.984
//   256 thr, kvp 16 items 3 blk, keys 20 3 blk, pairs 16 3 blk: kvp 0.820 / 2.611  keys 0.581 / 2.166  pairs 0.862 / 3.327
//   512 thr, kvp 10 items 2 blk, keys 16 2 blk, pairs 10 2 blk: kvp 0.759 / 2.494  keys 0.533 / 1.851  pairs 0.743 / 2.726  <- chosen
//   (old ranking, 256 thr, first row's sizes:                   kvp 0.832 / 2.753  keys 0.611 / 2.071  pairs 1.036 / 3.779)
// This run was about 10% slower than the one before for the same kernel; compare within a run.
// Each kernel set has its own block shape (threads, items per thread, blocks per SM for the
// register cap); unset, the threads are RADIX_SWEEP_THREADS.
#ifndef RADIX_SWEEP_THREADS
#define RADIX_SWEEP_THREADS 512
#endif
#ifndef RADIX_SWEEP_THREADS_KVP
#define RADIX_SWEEP_THREADS_KVP RADIX_SWEEP_THREADS
#endif
#ifndef RADIX_SWEEP_THREADS_KEYS
#define RADIX_SWEEP_THREADS_KEYS 384
#endif
#ifndef RADIX_SWEEP_THREADS_PAIRS
#define RADIX_SWEEP_THREADS_PAIRS RADIX_SWEEP_THREADS
#endif
#ifndef RADIX_SWEEP_THREADS_PAIRS_MID
#define RADIX_SWEEP_THREADS_PAIRS_MID RADIX_SWEEP_THREADS
#endif
#ifndef RADIX_SWEEP_THREADS_PAIRS_F32
#define RADIX_SWEEP_THREADS_PAIRS_F32 RADIX_SWEEP_THREADS
#endif
#ifndef RADIX_SWEEP_THREADS_U64
#define RADIX_SWEEP_THREADS_U64 256
#endif
#ifndef RADIX_SWEEP_THREADS_PAIRS_U64
#define RADIX_SWEEP_THREADS_PAIRS_U64 RADIX_SWEEP_THREADS
#endif
// Kvp: 15 items on sm_90 and sm_100 (16 below 8M; 7680 pairs, 60 KB staged: dynamic shared memory,
// radix.cuh sweep_dynamic_bytes; 68 bytes of spills with RADIX_COUNTS_REREAD_KVP, 84 at 16), 10 elsewhere (40 KB,
// the most static shared memory holds; untimed there: sm_86/89 and sm_120, 100 KB per SM, would
// fit one 72 KB block per SM, sm_75 none). H200, session 35, Kvp ms at 16M / 64M / 256M, two rounds alternating per call:
//   call 1: 512 x 10 (before) 0.543 / 1.958-1.959  counts reread, 10 items 0.538-0.539 / 1.946-1.947
//           12 items 0.519-0.520 / 1.851  14 0.516-0.517 / 1.816  16 0.517 / 1.802-1.804
//           1024 x 10, 1 block per SM 0.596-0.598 / 2.133-2.135  768 x 12, 1 block 0.597 / 2.145-2.146
//   call 2: 512 x 10 0.542-0.543 / 1.958  16 items 0.515-0.518 / 1.803-1.804  18 0.568-0.571 /
//           1.879-1.882 (216 bytes of spills)  20 0.638-0.643 / 2.135-2.141  16 without the
//           counts reread (296 bytes of spills) 0.613-0.615 / 2.118-2.121
//   call 3: 512 x 10 0.543 / 1.959-1.960 / 7.623-7.629  16 items 0.518-0.519 / 1.804-1.805 /
//           6.944-6.948 <- chosen  14 items 0.516-0.518 / 1.815-1.816 / 7.006-7.014
//           (1M 0.076-0.083 against 0.079-0.081 and 4M 0.163-0.165 against 0.173-0.174: no mid set)
// Session 37: 15 items from src/tuning.rs RADIX_MID_KEYS_BELOW (8M) up, 16 below (the kvp_mid
// set). At 16 a tile of 8192 holds exactly 32 keys of each digit when the keys are sorted, so the
// 32 lanes of a warp, holding 32 consecutive digits, stage one digit run (32 slots) apart: all in
// one bank. 7680 keys per tile (30 per digit) make that a two-way conflict. H200, random / sorted
// keys, ms, two rounds alternating in one call each (16 -> 15 items):
//   8M 0.287 / 0.304 -> 0.287-0.289 / 0.228-0.229   32M 0.942 / 1.034-1.035 -> 0.941-0.943 / 0.776-0.777
//   16M 0.513-0.515 / 0.551 -> 0.511 / 0.411-0.413   64M 1.793-1.794 / 1.995-1.996 -> 1.792-1.794 / 1.497-1.499
//   256M 6.909-6.910 / 9.185-9.196 -> 6.914-6.915 / 7.247-7.248 (pass 3 of 2^28 sorted keys: 16
//   digits, 480 slots apart, still one bank)
// Below 8M 15 items lost on random keys (more tiles than block slots): 1M 0.075-0.076 -> 0.085,
// 2M 0.097-0.100 -> 0.112, 4M 0.162 -> 0.170; there sorted keys ran 0.073 / 0.107 / 0.164 at 16,
// and Kvp below 8M takes 448 x 18 instead (8064 pairs; figures with the keys' mid set below).
// Padding the staged slots instead (one word per 32, or rows rotated by XOR) cured sorted keys
// (64M 1.43) but cost random u32 keys 1.418 -> 1.515 and split pairs 1.97 -> 2.45 (spills 12 -> 136
// bytes): not kept.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#ifndef RADIX_SWEEP_ITEMS_KVP
#define RADIX_SWEEP_ITEMS_KVP 15
#endif
#ifndef RADIX_SWEEP_THREADS_KVP_MID
#define RADIX_SWEEP_THREADS_KVP_MID 448  // 8064 pairs: 31.5 of each digit per tile (below)
#endif
#ifndef RADIX_SWEEP_ITEMS_KVP_MID
#define RADIX_SWEEP_ITEMS_KVP_MID 18
#endif
#ifndef RADIX_COUNTS_REREAD_KVP
#define RADIX_COUNTS_REREAD_KVP 1
#endif
#endif
#ifndef RADIX_SWEEP_ITEMS_KVP
#define RADIX_SWEEP_ITEMS_KVP 10   // 5120 pairs, 40 KB staged
#endif
#ifndef RADIX_SWEEP_THREADS_KVP_MID
#define RADIX_SWEEP_THREADS_KVP_MID RADIX_SWEEP_THREADS_KVP
#endif
#ifndef RADIX_SWEEP_ITEMS_KVP_MID
#define RADIX_SWEEP_ITEMS_KVP_MID RADIX_SWEEP_ITEMS_KVP
#endif
// Kvp from src/tuning.rs RADIX_HUGE_FROM (128M): 448 x 17 on sm_90 and sm_100, 7616 pairs a
// tile. Sorted keys below 2^28 leave the last pass 16 digits a tile, whose runs start 480 slots
// apart at 512 x 15 (a multiple of 32: a warp's staging stores meet in one bank) and 476 apart
// here. H200, session 39, ms, random / sorted, 512 x 15 -> 448 x 17: 256M 6.905-6.911 / 7.239 ->
// 6.895 / 6.692-6.693; but 16M 0.510 / 0.409 -> 0.525 / 0.423 and 64M 1.792 / 1.498 -> 1.802 /
// 1.563, so only from 128M (docs/tuning.md). Session 41, one round, 128M / 256M random, 256M
// sorted: 448 x 17 3.510 / 6.901 / 6.681, 480 x 15 (runs 450 apart: two-way, not four-way, for
// 8-byte slots) 3.552 / 6.991 / 6.559, 416 x 17 3.557 / 7.004 / 6.622; 352 x 21 at 3 blocks
// spilled 384 bytes (not timed).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#ifndef RADIX_SWEEP_THREADS_KVP_HUGE
#define RADIX_SWEEP_THREADS_KVP_HUGE 448
#endif
#ifndef RADIX_SWEEP_ITEMS_KVP_HUGE
#define RADIX_SWEEP_ITEMS_KVP_HUGE 17
#endif
#endif
#ifndef RADIX_SWEEP_THREADS_KVP_HUGE
#define RADIX_SWEEP_THREADS_KVP_HUGE RADIX_SWEEP_THREADS_KVP
#endif
#ifndef RADIX_SWEEP_ITEMS_KVP_HUGE
#define RADIX_SWEEP_ITEMS_KVP_HUGE RADIX_SWEEP_ITEMS_KVP
#endif
// 32-bit keys alone and split u32 / i32 pairs from src/tuning.rs RADIX_HUGE_FROM (128M), for the
// same reason: sorted keys' 16 digits a tile at 384 x 24 (keys, 576 of each) and 512 x 15 (pairs,
// 480) stage into one bank. Runs 2 mod 4 apart reach 16 banks: tiles of 16 x (2 x odd) keys,
// so an odd number of warps, here keys 352 x 27 (594 of each digit; 352 x 31, 682, where the
// keys are staged as they are ranked, below) and pairs 480 x 15 (450).
// H200, session 40, ms, random / sorted keys, two rounds alternating (sm_90 images):
//   keys  256M 5.464-5.465 / 5.653-5.654 -> 5.483-5.485 / 5.386-5.391 (ptxas: 136 bytes of
//         spills, 88 before); 64M 1.416-1.418 / 1.236-1.237 -> 1.423 / 1.244-1.246; 16M 0.405-0.406
//         / 0.318-0.319 -> 0.410 / 0.327-0.328 (so not below 128M). 352 x 25 256M 5.508-5.509 /
//         5.438; 384 x 23 (4 banks) 5.805-5.806 / 5.711-5.715; 416 x 23 and 480 x 19 at 2 blocks
//         6.332 / 6.217-6.221 and 6.387 / 6.413-6.414.
//   pairs 256M 7.559 / 7.611 -> 7.600 / 7.064 (no spills); 64M 1.958 / 1.629 -> 1.972 / 1.688.
//         448 x 17 (212 bytes of spills) 7.845 / 7.279.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#ifndef RADIX_SWEEP_THREADS_KEYS_HUGE
#define RADIX_SWEEP_THREADS_KEYS_HUGE 352
#endif
#ifndef RADIX_SWEEP_ITEMS_KEYS_HUGE
#define RADIX_SWEEP_ITEMS_KEYS_HUGE (RADIX_STAGE_IN_RANK_KEYS ? RADIX_ITEMS_KEYS_HUGE_STAGED : 27)
#endif
#ifndef RADIX_SWEEP_THREADS_PAIRS_HUGE
#define RADIX_SWEEP_THREADS_PAIRS_HUGE 480
#endif
#endif
#ifndef RADIX_SWEEP_THREADS_KEYS_HUGE
#define RADIX_SWEEP_THREADS_KEYS_HUGE RADIX_SWEEP_THREADS_KEYS
#endif
#ifndef RADIX_SWEEP_ITEMS_KEYS_HUGE
#define RADIX_SWEEP_ITEMS_KEYS_HUGE RADIX_SWEEP_ITEMS_KEYS
#endif
#ifndef RADIX_SWEEP_THREADS_PAIRS_HUGE
#define RADIX_SWEEP_THREADS_PAIRS_HUGE RADIX_SWEEP_THREADS_PAIRS
#endif
// u32 keys staged as they are ranked (radix_keys.cuh StagedInRank), on sm_90 and sm_100: the
// staged tile needs shared memory of its own beside the counters (384 x 28: 72 KB a block; only
// the 228 KB of these chips hold three such blocks an SM), and no rank stays in a register
// through the ranking (ptxas, sm_90: 12 and 16 bytes of spills in the two sweeps, against 88 / 44
// at 384 x 24 and 136 / 68 at 352 x 27 before), which makes room for larger tiles. H200, session
// 51, ms, sm_90 images through GPUSORT_KERNELS_DIR, rounds alternating in one call:
//   off -> on at 384 x 24 / 384 x 28 (huge set 352 x 27 / 352 x 30), random keys, two rounds:
//     u32 keys 16M 0.389 -> 0.374 / 0.370, 64M 1.368 -> 1.288 / 1.280, 256M 5.194 -> 4.794 / 4.721
//     the mid set (512 x 16, two blocks) 1M 0.058 -> 0.061-0.085, 4M 0.120 -> 0.121; at 512 x 20
//       (132 bytes of spills) 0.070 / 0.169: off
//     u64 keys (256 x 20, mid 512 x 10) 4M 0.328 -> 0.406, 16M 1.056 -> 1.120, 64M 3.877 -> 3.906,
//       256M 15.21 -> 14.98: off
//     Kvp (512 x 15, two blocks) 16M 0.473 -> 0.477, 64M 1.682 -> 1.698: off.
//   the huge set's tile at an odd item count (the reason above), off / 352 x 31 / 352 x 29, 256M:
//     random 5.181-5.183 / 4.745-4.748 / 4.755, sorted 5.246 / 4.541 / 4.638, 16 distinct 4.849 /
//     4.179 / 4.223, one digit 2.135 / 2.015 / 2.024, one bucket 4.977 / 4.437 / 4.471, half
//     equal 5.069 / 4.583 / 4.607, zipf 5.211 / 4.798 / 4.802; 64M (384 x 28 for both) random
//     1.367 / 1.275-1.276, sorted 1.222 / 1.028, zipf 1.382 / 1.290, the others 8-12% faster.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#ifndef RADIX_STAGE_IN_RANK_KEYS
#define RADIX_STAGE_IN_RANK_KEYS 1
#endif
#endif
#ifndef RADIX_STAGE_IN_RANK_KEYS
#define RADIX_STAGE_IN_RANK_KEYS 0
#endif
#ifndef RADIX_ITEMS_KEYS_HUGE_STAGED
#define RADIX_ITEMS_KEYS_HUGE_STAGED 31
#endif
// u32 keys in larger tiles (dynamic shared memory past 48 KB), all with the counts reread (which
// alone took 384 x 24 from 1.423 to 1.656): H200, session 35, 16M / 64M ms, against 0.407-0.408 /
// 1.422-1.424 for 384 x 24, 3 blocks: 512 x 24, 2 blocks 0.546-0.547 / 1.917-1.918; 512 x 28
// 0.500-0.501 / 1.775-1.776; 512 x 32 0.464 / 1.648-1.652; 384 x 28, 3 blocks 0.451-0.454 /
// 1.555-1.556. Untried without the reread.
#ifndef RADIX_SWEEP_ITEMS_KEYS
#define RADIX_SWEEP_ITEMS_KEYS (RADIX_STAGE_IN_RANK_KEYS ? 28 : 24)  // 10752 / 9216 keys, 42 / 36 KB staged
#endif
// Split u32 and i32 pairs: 15 items on sm_90 and sm_100 (7680 keys beside 7680 values, 60 KB
// staged in one round, no spills), 18 on sm_120 (100 KB per SM: one such block; two
// rounds, 36 KB), 12 before (untimed there; sm_75 would fit one such block per SM).
// Larger tiles pay once each slot's digit, not its 64-bit output position, waits for the value
// scatter (RADIX_HOLD_DIGITS_PAIRS). H200, session 34, u32 pairs 16M / 64M ms, two rounds
// alternating in one call each (calls differ by up to 1%; base = 12 items with positions held):
//   call 1: base 0.595 / 2.136-2.138  positions 10 items 0.626 / 2.293-2.295  11 0.608 / 2.200-2.202
//           13 0.585-0.587 / 2.088-2.092 (40 bytes of spills)
//   call 2: base 0.595-0.597 / 2.135-2.136  positions 14 0.579-0.582 / 2.079  16 0.592-0.594 / 2.137-2.140
//           digits 12 0.598 / 2.144-2.147  13 0.589 / 2.100-2.102  14 0.572-0.574 / 2.056-2.059
//           16 0.571 / 2.033-2.036
//   call 3: base 0.595-0.599 / 2.137-2.139  digits 16 0.570 / 2.031-2.033  18 0.574 / 2.015-2.017
//           20 0.683-0.685 / 2.513-2.515 (292 bytes of spills)  18 + prefetch 24 ahead 0.570-0.571 / 2.004
// Session 36: 16 items staged in one round (RADIX_JOINT_STAGING_PAIRS, figures there).
// Session 37: 15 items <- chosen. At 16 sorted keys stage into one bank (as for Kvp above): 2.75 ms
// at 64M against 1.97 random. 16 -> 15 items, H200, random / sorted keys, ms, one call each:
//   8M 0.328 / 0.392 -> 0.325-0.327 / 0.247-0.248    16M 0.570 / 0.735-0.736 -> 0.576-0.579 / 0.472
//   32M 1.037-1.039 / 1.424-1.425 -> 1.052-1.055 / 0.916-0.917
//   64M 1.972-1.977 / 2.749-2.750 -> 2.013-2.019 / 1.810-1.814 (17 items, 32 bytes of spills, in
//   another call: 2.053-2.055 / 1.788-1.789 against 15's 2.052-2.054 / 1.833-1.837)
//   256M 7.608-7.619 / 12.03 -> 7.758-7.769 / 8.165-8.167
// One round, 64M, 16 -> 15: half the keys equal 1.799 -> 1.831, keys differing in one byte
// 0.887 -> 0.904, 16 distinct 1.542 -> 1.560. Random keys lose 1-2% for sorted ones' 35-50%.
// Below src/tuning.rs RADIX_MID_KEYS_BELOW the pairs take smaller tiles (RADIX_SWEEP_*_PAIRS_MID;
// 10 items staged in one round on sm_90 and sm_100 since session 42, tuning.cuh
// RADIX_JOINT_STAGING_PAIRS_MID; 12 elsewhere): a 1M sort has 114 tiles of 9216 for 264 block
// slots. f32 pairs keep 12 items (216 bytes of spills at 18 in the masked body, untimed).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#ifndef RADIX_SWEEP_ITEMS_PAIRS
#define RADIX_SWEEP_ITEMS_PAIRS 15
#endif
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#ifndef RADIX_SWEEP_ITEMS_PAIRS
#define RADIX_SWEEP_ITEMS_PAIRS 18  // staged in two rounds, 36 KB (untimed on sm_120)
#endif
#endif
#ifndef RADIX_SWEEP_ITEMS_PAIRS
#define RADIX_SWEEP_ITEMS_PAIRS 12 // 6144 keys then 6144 values, 24 KB staged (RADIX_VALUES_LATE)
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#ifndef RADIX_SWEEP_ITEMS_PAIRS_MID
#define RADIX_SWEEP_ITEMS_PAIRS_MID 10  // staged in one round (RADIX_JOINT_STAGING_PAIRS_MID)
#endif
#endif
#ifndef RADIX_SWEEP_ITEMS_PAIRS_MID
#define RADIX_SWEEP_ITEMS_PAIRS_MID 12
#endif
#ifndef RADIX_SWEEP_ITEMS_PAIRS_F32
#define RADIX_SWEEP_ITEMS_PAIRS_F32 12
#endif
#ifndef RADIX_SWEEP_ITEMS_U64
#define RADIX_SWEEP_ITEMS_U64 20   // 5120 keys, 40 KB staged
#endif
// u64 keys with u32 values: 10 items, 40 KB of 8-byte keys staged. Larger tiles in dynamic shared
// memory did not pay: H200, session 35, 16M / 64M ms, against 1.413 / 5.217-5.223 at 10: 12 items
// with the counts reread 1.451-1.455 / 5.311-5.314 (no spills); with digits held
// (RADIX_HOLD_DIGITS_PAIRS_U64) and the counts reread 12 / 14 / 16 items 1.576-1.581 / 5.951,
// 1.869 / 7.072-7.078, 2.104 / 7.954-7.960.
#ifndef RADIX_SWEEP_ITEMS_PAIRS_U64
#define RADIX_SWEEP_ITEMS_PAIRS_U64 10
#endif
// Blocks per SM the sweep kernels are register-capped for (__launch_bounds__ second argument):
// 2 blocks of 512 = 64 registers.
#ifndef RADIX_SWEEP_BLOCKS_KVP
#define RADIX_SWEEP_BLOCKS_KVP 2
#endif
#ifndef RADIX_SWEEP_BLOCKS_KEYS
#define RADIX_SWEEP_BLOCKS_KEYS 3
#endif
#ifndef RADIX_SWEEP_BLOCKS_PAIRS
#define RADIX_SWEEP_BLOCKS_PAIRS 2
#endif
#ifndef RADIX_SWEEP_BLOCKS_PAIRS_MID
#define RADIX_SWEEP_BLOCKS_PAIRS_MID 2
#endif
#ifndef RADIX_SWEEP_BLOCKS_PAIRS_F32
#define RADIX_SWEEP_BLOCKS_PAIRS_F32 2
#endif
#ifndef RADIX_SWEEP_BLOCKS_U64
#define RADIX_SWEEP_BLOCKS_U64 4
#endif
#ifndef RADIX_SWEEP_BLOCKS_PAIRS_U64
#define RADIX_SWEEP_BLOCKS_PAIRS_U64 2
#endif
// Keys alone below src/tuning.rs RADIX_MID_KEYS_BELOW (8M; u32 and i32 keys on sm_90 and sm_100 below
// 2.5M, RADIX_MID_U32_KEYS_BELOW_STAGED) take sets with more threads per tile: u32 and i32 keys the
// integer body, 64-bit keys the masked one (the shapes all keys had before session 18; figures there).
// Kvp below 8M takes 448 x 18 on sm_90 and sm_100 (8064 items a tile, so that sorted keys do not
// stage into one bank as at 8192, 32 of each digit); these keys keep 512 x 16. H200, session 39,
// ms at 1M / 2M / 4M, 512 x 16 -> 448 x 18: Kvp random 0.075 / 0.098 / 0.164 -> 0.077 / 0.100 /
// 0.170, sorted 0.073 / 0.108 / 0.165 -> 0.070 / 0.099 / 0.145; these keys random 0.071 / 0.089 /
// 0.134 -> 0.075 / 0.094 / 0.145, sorted 0.067 / 0.101 / 0.139 -> 0.067 / 0.091 / 0.120, and in
// the report of 5dda56c 1M u32 keys 0.081 against CUB's 0.083, i32 0.080 against 0.080 (0.071
// and 0.073 at 512 x 16 in the report of 569bf32): random keys weigh more (docs/tuning.md).
#ifndef RADIX_SWEEP_THREADS_KEYS_MID
#define RADIX_SWEEP_THREADS_KEYS_MID 512
#endif
#ifndef RADIX_SWEEP_ITEMS_KEYS_MID
#define RADIX_SWEEP_ITEMS_KEYS_MID 16
#endif
#ifndef RADIX_SWEEP_BLOCKS_KEYS_MID
#define RADIX_SWEEP_BLOCKS_KEYS_MID 2
#endif
#ifndef RADIX_SWEEP_THREADS_U64_MID
#define RADIX_SWEEP_THREADS_U64_MID 512
#endif
#ifndef RADIX_SWEEP_ITEMS_U64_MID
#define RADIX_SWEEP_ITEMS_U64_MID 10
#endif
#ifndef RADIX_SWEEP_BLOCKS_U64_MID
#define RADIX_SWEEP_BLOCKS_U64_MID 2
#endif
// The segmented sort's sweeps (32-bit keys of every type, alone and with values): the tile also
// decides when a segmented sort takes them (a tile per segment on average, src/cuda/radix/segmented.rs).
#ifndef RADIX_SEGMENT_THREADS
#define RADIX_SEGMENT_THREADS 512
#endif
#ifndef RADIX_SEGMENT_ITEMS_KEYS
#define RADIX_SEGMENT_ITEMS_KEYS 16
#endif
#ifndef RADIX_SEGMENT_ITEMS_PAIRS
#define RADIX_SEGMENT_ITEMS_PAIRS 12
#endif
#ifndef RADIX_SEGMENT_BLOCKS
#define RADIX_SEGMENT_BLOCKS 2
#endif
// Block shapes of 32-bit keys alone (u32, i32 and f32 on one kernel set) and of 64-bit keys
// (u64, i64, f64 alone), H200, session 18 (2026-11-26), one run, variant images through
// GPUSORT_KERNELS_DIR, medians in ms at 16M / 64M random keys (CUB 3.0.1 in the same device session:
// u32 0.461 / 1.620, i32 0.412 / 1.382, u64 1.150 / 4.189):
//   32-bit keys, run-time float mask (radix_keys.cuh FloatKeys):
//     384 x 24, 3 blocks 0.411 / 1.425 <- chosen    384 x 28, 3 blocks 0.423 / 1.442
//     384 x 20, 3 blocks 0.454 / 1.589              512 x 16, 2 blocks 0.456 / 1.637
//   32-bit keys, integer-only body (IntKeys): 512 x 16, 2 blocks 0.435 / 1.570 (the shape before);
//     384 x 16, 3 blocks 0.423 / 1.530; 384 x 20 1.916 and 384 x 24 2.109 at 64M (the integer
//     body spills more under the 56-register cap: 204 bytes at 384 x 24 against 88 for FloatKeys).
//   64-bit keys: 256 x 20, 4 blocks 1.099 / 3.925 <- chosen; 256 x 16 1.115 / 3.986; 256 x 12
//     1.235 / 4.550; 384 x 14, 3 blocks 1.115 / 4.056; 512 x 10, 2 blocks 1.178 / 4.440 (before).
//   Session 42, 32-bit keys (FloatKeys), two rounds alternating in one call, 16M / 64M against
//     384 x 24 0.406-0.407 / 1.417-1.419: 256 x 34, 4 blocks (64 registers, 184 bytes of spills)
//     0.417-0.419 / 1.391-1.393; 256 x 36 0.427-0.428 / 1.413-1.415; 288 x 32, 3 blocks (72
//     registers) 0.411-0.413 / 1.402-1.404 (sorted 64M 1.252 against 1.238); 288 x 28
//     0.473-0.474 / 1.620-1.621; 320 x 28, 3 blocks 0.410-0.411 / 1.415-1.416. ncu of one 64M
//     pass (CUB `int` 312 us, 384 x 20, 56 registers, no spills, 166M instructions; ours 324 us,
//     222M instructions; the run-time order flip, recomputed from `order` for every digit taken,
//     costs about 12 instructions each time): the L1 pipe is the limit (RADIX_RANK_LEADER_ADD).
// Not changed, no shape was better (64M unless noted): split u32 pairs 512 x 12, 2 blocks 0.603 /
// 2.195 (384 x 12 / 16 / 20, 3 blocks: 2.47 / 2.75 / 3.36; 384 x 20 / 24, 2 blocks, as CUB's 384 x
// 23: 2.47 / 2.97; the FloatKeys body 2.456); Kvp 512 x 10, 2 blocks 0.574 / 2.087 (384 x 13, 3
// blocks 0.580 / 2.050; 384 x 11 2.082; 384 x 12 / 14, 2 blocks 2.16 / 2.09; 256 x 16, 4 blocks
// 2.216); u64 keys with u32 values 512 x 10, 2 blocks 5.25 (384 x 14, 2 blocks 5.24; 384 x 10-14,
// 3 blocks 6.04-6.71; 256 x 16, 4 blocks 7.09; 256 x 20, 3 blocks 6.91). Shapes past 48 KB (Kvp
// 512 x 11) did not load then; they now take dynamic shared memory (radix.cuh sweep_dynamic_bytes).

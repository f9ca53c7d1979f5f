// Radix sort tuning numbers, chosen per architecture at compile time (__CUDA_ARCH__). Each number
// carries the measurement that chose it: GPU, size, time. The sweep's tile shapes are in
// tuning_tiles.cuh, the sorting networks' numbers in tuning_network.cuh.
#pragma once

#include "tuning_tiles.cuh"

// ---- radix sort (radix*.cu): how a sweep ranks, stages and scatters ----------------------
// Overlapped launches (overlap.cuh): the next kernel launches as this one's blocks exit, not as
// each block starts (session 47's way). H200, session 48, bench_device_radix, two rounds
// alternating in one call (sm_90 images), ms, at start -> at exit: Kvp 1M 0.0668-0.0678 ->
// 0.0626-0.0638, 16M 0.483-0.485 -> 0.472-0.473, 64M 1.696-1.697 -> 1.683-1.684; u32 keys 1M
// 0.063-0.066 -> 0.060, 16M 0.386-0.387 -> 0.388-0.389, 64M 1.366-1.367 -> 1.367-1.368; u64 keys
// with u32 values 16K 0.080 -> 0.082-0.083, 1M 0.143-0.144 -> 0.139-0.140, 16M 1.391-1.393 ->
// 1.386-1.388; 16K sorts of 32-bit keys 0.038-0.039 (keys) and 0.048-0.049 (Kvp) either way,
// split u32 pairs within 2% either way from 16K to 64M.
// How a warp finds the lanes sharing a digit (radix_rank.cuh warp_rank, figures there): 0 ballots,
// 1 match, 3 shared atomic OR (chosen: H200, 64M Kvp 2.77 ms and keys 2.05 ms, against 3.01 and
// 2.30 with ballots in the same run).
#ifndef RADIX_RANK
#define RADIX_RANK 3
#endif
// With RADIX_RANK 3, whether only the lowest lane of a digit reads and bumps the warp's count
// (atomic add, then a shuffle to its peers) rather than every lane loading it (radix_rank.cuh
// warp_rank LEADER_ADD), per family. ncu, H200, one sweep pass of 64M u32 keys (session 42): 57M
// shared-memory wavefronts against CUB `int`'s 30M, L1 pipe 83% busy against 55%, the ranking's
// five accesses per item about 3.15 wavefronts each. H200, session 42, ms, two rounds alternating
// in one call (sm_90 images), off -> on: Kvp 16M 0.511-0.512 -> 0.491, 64M 1.793-1.794 ->
// 1.708, 1M 0.079-0.082 -> 0.075-0.076 (sorted 64M 1.496 -> 1.524, 16 distinct 1.511 -> 1.514);
// split u32 pairs (jointly staged sets) 16M 0.528-0.529 -> 0.509, 64M 1.900-1.902 -> 1.824-1.825
// (sorted 1.509 both, 16 distinct 1.559 -> 1.534); but u32 keys 16M 0.406 -> 0.449-0.450, 64M
// 1.418 -> 1.518-1.519 (ptxas: spill loads 44 -> 104 bytes; 288 x 32 at 3 blocks, 72 registers,
// 1.570), two-round split pairs (the mid set before it staged jointly) 4M 0.198-0.200 ->
// 0.202, u64 keys with u32 values 64M 5.222-5.225 -> 5.227-5.235: on for Kvp and jointly staged
// split pairs only (u64 keys alone untimed: off).
#ifndef RADIX_RANK_LEADER_ADD
#define RADIX_RANK_LEADER_ADD 0
#endif
#ifndef RADIX_RANK_LEADER_ADD_KVP
#define RADIX_RANK_LEADER_ADD_KVP 1
#endif
#ifndef RADIX_RANK_LEADER_ADD_PAIRS
#define RADIX_RANK_LEADER_ADD_PAIRS 1
#endif
#ifndef RADIX_RANK_LEADER_ADD_KEYS
#define RADIX_RANK_LEADER_ADD_KEYS RADIX_RANK_LEADER_ADD
#endif
// With early counts, warps whose keys hold at most this many distinct digits rank with
// __match_any_sync instead of RADIX_RANK's way (radix_rank.cuh warp_rank GROUPED); 0: never. Keys grouped by an
// earlier pass put a whole warp on one digit, and its atomic ORs then hit one word. H200, median ms,
// one run (ci/cub/sweep_configs_s4b.txt), Kvp / u32 keys at 64M:
//   max 0:  random 2.78 / 1.88   16 distinct keys 2.82 / 2.26
//   max 8:  random 2.71 / 1.93   16 distinct keys 2.32 / 1.67
//   max 32: random 2.64 / 1.93   16 distinct keys 2.36 / 1.64   <- chosen
//   max 64: random 2.71 / 1.89   16 distinct keys 2.29 / 1.67
// (every warp on match: random 3.63 / 3.39, 16 distinct 2.25 / 1.77.) At 16M, 16 distinct keys
// went from 0.81 to 0.68 ms (Kvp); Zipf and sorted keys were no slower than random.
#ifndef RADIX_GROUPED_MAX
#define RADIX_GROUPED_MAX 32
#endif
// Per family (S::GROUPED_MAX in radix.cuh). Session 5, H200, random keys, median ms at 16M / 64M
// (ci/cub/sweep_configs_s5c.txt, one run): max 32 for all: Kvp 0.570 / 2.082, keys 0.457 / 1.661,
// pairs 0.633 / 2.260; max 0 for all: Kvp 0.552 / 2.014, keys 0.450 / 1.632, pairs 0.626 / 2.245.
// But Kvp with 16 distinct keys then sorts slower than random (s5d, 64M: max 0 random 2.026,
// 16 distinct 2.212; max 32 random 2.095, 16 distinct 1.798), so 32 stays for every family.
// 1: grouped and other warps share one unrolled ranking loop (radix_rank.cuh warp_rank `match`).
// H200, median ms at 64M, random / 16 distinct keys, one run (ci/cub/sweep_configs_s5e.txt):
//   0: Kvp 2.095 / 1.799   keys 1.572 / 1.285   pairs 2.286 / 1.917   <- kept
//   1: Kvp 2.063 / 1.829   keys 1.560 / 1.356   pairs 2.300 / 1.948
#ifndef RADIX_GROUPED_INLINE
#define RADIX_GROUPED_INLINE 0
#endif
#ifndef RADIX_GROUPED_MAX_KVP
#define RADIX_GROUPED_MAX_KVP RADIX_GROUPED_MAX
#endif
#ifndef RADIX_GROUPED_MAX_KEYS
#define RADIX_GROUPED_MAX_KEYS RADIX_GROUPED_MAX
#endif
#ifndef RADIX_GROUPED_MAX_PAIRS
#define RADIX_GROUPED_MAX_PAIRS RADIX_GROUPED_MAX
#endif
// Decoupled look-back: earlier tiles' words read at once (radix.cuh look_back), and whether a
// family looks back after staging its keys (the tiles before have had longer to publish). ncu
// (clocks locked), H200, 16M Kvp, mean of 8 sweep kernels, one run (ci/cub/sweep_configs_s4d.txt):
//   batch 1: 184.2 us   batch 4: 165.2   batch 8: 166.1   batch 4 late: 160.5   batch 8 late: 159.9
// Timed at 64M in the same run (median ms, Kvp / u32 keys / u32 pairs; CUB 1.923 / 1.626 pairs / keys):
//   batch 1: 2.77 / 2.17 / 2.92   batch 4: 2.48 / 1.83 / 2.88   batch 8: 2.60 / 1.83 / 2.70
//   batch 4 late: 2.55 / 2.47 / 2.64   batch 8 late: 2.37 / 2.34 / 2.65
// Late made the keys kernels spill (56 bytes) and slower, so keys look back early.
#ifndef RADIX_LOOKBACK_BATCH
#define RADIX_LOOKBACK_BATCH 8
#endif
// Per family (S::LOOKBACK_BATCH). Session 5 (pool keeping its memory, so the medians repeat within
// 1%), H200, median ms at 16M / 64M, one run (ci/cub/sweep_configs_s5c.txt):
//   batch 8: Kvp 0.570 / 2.082   keys 0.457 / 1.661   pairs 0.633 / 2.260
//   batch 4: Kvp 0.572 / 2.101   keys 0.433 / 1.567   pairs 0.632 / 2.258   <- keys
#ifndef RADIX_LOOKBACK_BATCH_KVP
#define RADIX_LOOKBACK_BATCH_KVP RADIX_LOOKBACK_BATCH
#endif
#ifndef RADIX_LOOKBACK_BATCH_KEYS
#define RADIX_LOOKBACK_BATCH_KEYS 4
#endif
#ifndef RADIX_LOOKBACK_BATCH_PAIRS
#define RADIX_LOOKBACK_BATCH_PAIRS RADIX_LOOKBACK_BATCH
#endif
#ifndef RADIX_LOOKBACK_LATE_KVP
#define RADIX_LOOKBACK_LATE_KVP 1
#endif
#ifndef RADIX_LOOKBACK_LATE_PAIRS
#define RADIX_LOOKBACK_LATE_PAIRS 1
#endif
#ifndef RADIX_LOOKBACK_LATE_KEYS
#define RADIX_LOOKBACK_LATE_KEYS 0
#endif
// Kvp: keep only the keys in registers while ranking and reload the pairs to stage them
// (radix.cuh onesweep). H200, Kvp 16M / 64M, same run: off 0.737 / 2.752 ms, on 0.758 / 2.870,
// on with 16 items 0.848 / 2.749, 16 items 3 blocks 0.801 / 2.944: off.
// (Kvp with the keys reloaded, again in session 5 with the pool keeping its memory: 16M / 64M
// 0.681 / 2.481 ms against 0.573 / 2.094 off.)
#ifndef RADIX_KEYS_FIRST
#define RADIX_KEYS_FIRST 0
#endif
// After counting, the digit threads keep each warp's count in registers through the scan (one
// per warp: 16 at 512 threads) or read them again from shared memory (radix.cuh onesweep). Reread
// frees the registers that let Kvp take 16 items (tuning_tiles.cuh) and is off for every other
// set. H200, session 35, 64M ms, same calls as the Kvp figures there: Kvp 10 items 1.946-1.947 against
// 1.958-1.959; u32 keys 384 x 24 1.656-1.659 against 1.423; split u32 pairs 18 items
// 2.106-2.108 against 2.006 (16 items 2.120-2.121); u64 keys with u32 values 512 x 10
// 6.941-6.943 against 5.217-5.223 (no spills either way; not looked into further).
#ifndef RADIX_COUNTS_REREAD
#define RADIX_COUNTS_REREAD 0
#endif
#ifndef RADIX_COUNTS_REREAD_KVP
#define RADIX_COUNTS_REREAD_KVP RADIX_COUNTS_REREAD
#endif
#ifndef RADIX_COUNTS_REREAD_KEYS
#define RADIX_COUNTS_REREAD_KEYS RADIX_COUNTS_REREAD
#endif
#ifndef RADIX_COUNTS_REREAD_PAIRS
#define RADIX_COUNTS_REREAD_PAIRS RADIX_COUNTS_REREAD
#endif
#ifndef RADIX_COUNTS_REREAD_U64
#define RADIX_COUNTS_REREAD_U64 RADIX_COUNTS_REREAD
#endif
#ifndef RADIX_COUNTS_REREAD_PAIRS_U64
#define RADIX_COUNTS_REREAD_PAIRS_U64 RADIX_COUNTS_REREAD
#endif
// Each Kvp sweep block, as it starts, asks L2 for the input tile RADIX_PREFETCH_TILES_KVP tiles
// ahead of its own (one cp.async.bulk.prefetch, sm_90 on), so the input streams in while the
// blocks of an SM rank (radix.cuh onesweep). H200, session 33, Kvp 16M / 64M / 256M ms, two rounds
// alternating in one call (gpu_radix bench_device_radix): off 0.563 / 2.051 / 8.010; 16 tiles
// ahead 0.559 / 2.004; 40 0.557 / 1.986; 80 0.557 / 1.985 / 7.713; 132 0.558 / 1.987 / 7.715;
// 264 0.567 / 2.022; 528 0.598 / 2.185 (264 resident blocks). CUB SortPairs 0.556 / 1.921 / 7.468
// the same day. u32 keys and split pairs lost with it (132 ahead, another call: keys 0.441 /
// 1.459 against 0.410 / 1.427, pairs with their values prefetched too 0.613 / 2.196 against 0.604
// / 2.179; one prefetch per 128-byte line, 264 ahead: pairs 2.557 at 64M): off for keys alone,
// and off before sm_90 (untimed there, and a smaller L2). Split u32 pairs prefetch their keys
// only (session 34, H200, 16M / 64M, one call: 12 items, 24 ahead 0.589-0.590 / 2.116-2.117, 80
// ahead 0.590-0.591 / 2.116-2.117, off 0.594-0.595 / 2.134-2.138; 16 items, 24 ahead 0.570 /
// 2.020-2.021 against 0.570 / 2.031-2.033 off; the 18 items chosen then 2.004 against 2.015).
// u64 keys with u32 values prefetch their keys 24 tiles ahead: H200, session 43, 16M / 64M /
// 256M ms, two rounds alternating per call (sm_90 images), off -> 24 ahead: call 3 1.4163-1.4168
// -> 1.4111-1.4127 / 5.219-5.224 -> 5.179-5.183 (80 ahead 1.413-1.415 / 5.179-5.182); call 4
// 1.430-1.436 -> 1.429-1.430 / 5.292-5.304 -> 5.247-5.248 / 20.780-20.781 -> 20.629-20.637;
// call 5, the committed images (with the plan index) against those before: 1.413-1.416 -> 1.413 /
// 5.220-5.223 -> 5.181-5.183, CUB 3.0.1 1.399 / 5.118 in the same call.
// u32 keys 24 ahead (call 4, one round at 256M): 0.425 / 1.431 / 5.386 against 0.407-0.409 /
// 1.421 / 5.502-5.506: slower in the large set, faster in the huge one (352 x 27), so only the
// huge set (from 128M, RADIX_PREFETCH_TILES_KEYS_HUGE) prefetches: H200, session 44, two rounds
// alternating in one call, off -> 24 ahead, random 128M 2.774-2.777 -> 2.738-2.740, 256M
// 5.491 -> 5.380-5.384; sorted 128M 2.460-2.464 -> 2.414-2.415, 256M 5.390-5.399 -> 5.292-5.293.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#ifndef RADIX_PREFETCH_TILES_KVP
#define RADIX_PREFETCH_TILES_KVP 80
#endif
#ifndef RADIX_PREFETCH_TILES_PAIRS
#define RADIX_PREFETCH_TILES_PAIRS 24
#endif
#ifndef RADIX_PREFETCH_TILES_PAIRS_U64
#define RADIX_PREFETCH_TILES_PAIRS_U64 24
#endif
#ifndef RADIX_PREFETCH_TILES_KEYS_HUGE
#define RADIX_PREFETCH_TILES_KEYS_HUGE 24
#endif
#endif
#ifndef RADIX_PREFETCH_TILES_KVP
#define RADIX_PREFETCH_TILES_KVP 0
#endif
#ifndef RADIX_PREFETCH_TILES_KEYS
#define RADIX_PREFETCH_TILES_KEYS 0
#endif
#ifndef RADIX_PREFETCH_TILES_KEYS_HUGE
#define RADIX_PREFETCH_TILES_KEYS_HUGE RADIX_PREFETCH_TILES_KEYS
#endif
#ifndef RADIX_PREFETCH_TILES_PAIRS
#define RADIX_PREFETCH_TILES_PAIRS 0
#endif
#ifndef RADIX_PREFETCH_TILES_PAIRS_U64
#define RADIX_PREFETCH_TILES_PAIRS_U64 0
#endif
#ifndef RADIX_PREFETCH_BULK
#define RADIX_PREFETCH_BULK 1
#endif
// Split pairs: when the values are loaded. 0: with the keys, held in registers through the
// ranking; 1: after the key scatter, straight into shared memory; 2: after the ranking, in flight
// while the keys scatter, which frees the ranking's registers for 12 items a thread (16 bytes of
// spills). H200, u32 pairs, median ms at 16M / 64M (ci/cub/sweep_configs_s5*.txt, CUB 3.0.1
// SortPairs 0.550 / 1.911 in the first run):
//   run 2: 0, 10 items 0.647 / 2.352   1, 10 items 0.835 / 3.144   0 + full-tile scatter 0.688 / 2.501
//   run 3: 0, 10 items 0.644 / 2.331   2, 10 items 0.686 / 2.506   0, 12 items 0.704 / 2.618
//          2, 12 items 0.635 / 2.261  <- chosen   2, 13 items at 384 threads 0.805 / 2.948
#ifndef RADIX_VALUES_LATE
#define RADIX_VALUES_LATE 2
#endif
// Split pairs: what each thread keeps of its slots between the key scatter and the value scatter
// (radix.cuh onesweep): 0 the 64-bit output position (2 registers a slot), 1 the digit (a
// quarter register a slot). At 12 items the two run the same (u32 pairs 64M 2.144-2.147 against
// 2.135-2.136 ms); the digits let split u32 pairs take 18 items (RADIX_SWEEP_ITEMS_PAIRS). The
// segmented sort's pairs hold positions (radix_keys.cuh PositionsHeld: with digits, 64M pairs in
// 256 segments took 2.45 ms against 2.34). u64 keys with values: untimed, 0.
#ifndef RADIX_HOLD_DIGITS_PAIRS
#define RADIX_HOLD_DIGITS_PAIRS 1
#endif
#ifndef RADIX_HOLD_DIGITS_PAIRS_U64
#define RADIX_HOLD_DIGITS_PAIRS_U64 0
#endif
// Split u32 pairs staged in one round: each value goes to shared memory beside its key's slot
// (its own array; 64 KB at 512 x 16) and one loop scatters both, so no digit waits in registers
// between a key scatter and a value scatter (radix.cuh onesweep, radix_keys.cuh JointStaging).
// The large and huge sets on sm_90 and sm_100 only (RADIX_SWEEP_ITEMS_PAIRS 15 there; 228 KB per
// SM hold two blocks), the mid set since session 42 (RADIX_JOINT_STAGING_PAIRS_MID below); the f32
// set, the segmented sort and other chips stage in two rounds. H200, session 36, u32 pairs ms, two
// rounds alternating per call, 16M / 64M: two rounds at 18 items (before) 0.576-0.578 /
// 2.031-2.039; one round 16 items 0.568-0.572 / 2.010-2.016 (12 bytes of spills), 18 items
// 0.576-0.579 / 2.064 (44), 20 items 0.592-0.594 / 2.129 (172). 256M: 7.501-7.507 against
// 7.645-7.646. Key and value in one 8-byte slot (one 64-bit shared store and load each) ran
// slower: 14 / 16 / 18 items 2.097-2.099 / 2.084-2.090 / 2.189-2.191 at 64M. u64 keys with u32
// values in one round, 512 x 10 / 12 / 14: 5.394-5.400 / 5.291-5.292 / 5.323-5.328 at 64M against
// 5.221 in two rounds (16-byte slots: 5.735 / 5.731-5.738 / 7.248-7.251); they keep two rounds.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#ifndef RADIX_JOINT_STAGING_PAIRS
#define RADIX_JOINT_STAGING_PAIRS 1
#endif
#endif
#ifndef RADIX_JOINT_STAGING_PAIRS
#define RADIX_JOINT_STAGING_PAIRS 0
#endif
// The mid split-pairs set (below src/tuning.rs RADIX_MID_KEYS_BELOW) staged in one round with
// items in the scratch as the large set, at 512 x 10 (radix_keys.cuh PairsU32Mid). H200, session
// 42, ms, two rounds alternating (sm_90 images), random / sorted keys, two rounds at 512 x 12
// (before) -> one round at 512 x 10: 1M 0.090-0.093 / 0.080-0.083 -> 0.082-0.084 / 0.070-0.071,
// 2M 0.130-0.131 / 0.128-0.133 -> 0.118-0.119 / 0.114-0.117, 4M 0.197-0.199 / 0.179-0.180 ->
// 0.181 / 0.136-0.137 (one round at 512 x 12: 1M 0.083-0.084, 4M 0.180 / 0.162; the items
// are set with RADIX_SWEEP_ITEMS_PAIRS_MID in tuning_tiles.cuh). Where the large set stages in two rounds, so
// does this one.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#ifndef RADIX_JOINT_STAGING_PAIRS_MID
#define RADIX_JOINT_STAGING_PAIRS_MID 1
#endif
#endif
#ifndef RADIX_JOINT_STAGING_PAIRS_MID
#define RADIX_JOINT_STAGING_PAIRS_MID 0
#endif
// Split u32 pairs (the sets staged in one round): the scratch buffer holds the pairs
// as 8-byte (key, value) items, so every other pass writes 8-byte items as a Kvp sort does
// (radix.cuh onesweep); the result is split back when an odd number of passes ran. H200, session
// 38, two rounds alternating, random / sorted keys, ms, split arrays -> items in the scratch:
// 8M 0.323 / 0.245-0.248 -> 0.309-0.310 / 0.240; 16M 0.571-0.574 / 0.466-0.467 -> 0.550-0.551 /
// 0.431-0.432; 64M 2.014-2.018 / 1.810-1.815 -> 1.960-1.962 / 1.623-1.624; 256M 7.631-7.632 /
// 8.072-8.086 -> 7.560-7.561 / 7.612-7.617. 64M patterns: 16 distinct keys 1.552 -> 1.569, one
// random byte (one pass, split back) 0.892 -> 0.853, half one key 1.812 -> 1.800. The other sets'
// SASS: pairs_u32_mid and pairs_f32 one address computation apart, the rest unchanged.
// 2: a second item buffer C (8n more bytes, src/cuda/radix.rs; the sort goes on without it where it
// cannot be allocated), so the passes between the first and the last go B -> C -> B as items and
// only the last one writes split arrays. H200, session 41, two rounds alternating (sm_90 images),
// random / sorted keys, ms, 1 -> 2: 16M 0.553-0.555 / 0.435 -> 0.542-0.543 / 0.358; 64M
// 1.972-1.975 / 1.636-1.637 -> 1.960 / 1.515-1.521; 256M 7.646-7.647 / 7.128-7.129 -> 7.627-7.629
// / 6.757-6.763. Then items read as items (one 8-byte load, the value held through the ranking)
// instead of as two 4-byte loads 8 bytes apart, the value's after the ranking, two rounds: 16M
// 0.540-0.542 / 0.354-0.356 -> 0.531 / 0.355, 64M 1.957-1.959 / 1.517 -> 1.907-1.911 / 1.515-1.516
// (ptxas, sm_90: 116 bytes of spills against none).
#ifndef RADIX_INTERLEAVE_B_PAIRS
#define RADIX_INTERLEAVE_B_PAIRS 2
#endif
// Session 3 (ci/cub/sweep_configs_s3.txt, H200, 2026-11-22, median ms at 16M / 64M, one run;
// ptxas sm_90 registers / spill-store bytes for the kvp, u32 and pairs_u32 sweep kernels):
//   B    (neither):                       kvp 0.729 / 2.668  keys 0.562 / 2.174  pairs 0.937 / 3.451  64/4, 64/0, 64/28
//   E    early counts:                    kvp 0.689 / 2.579  keys 0.538 / 1.965  pairs 0.781 / 2.849  64/0, 64/0, 64/0
//   EFP  E + full-tile scatter + pairs    kvp 0.801 / 2.593  keys 0.524 / 1.899  pairs 0.828 / 3.248
//        staged in one round:
// so early counts everywhere, and the unguarded full-tile scatter for keys only.
// Early counts (after CUB's "match early counts" ranking): each warp counts its digits first
// (ATOMS.POPC.INC), so the block publishes its look-back aggregate before ranking instead of after,
// and the warp counters start at the tile slots, so the ranks come out final: no second pass of
// two shared loads and a branch per key. The look-back moves after the ranking, when the tiles
// before have long published.
#ifndef RADIX_EARLY_COUNTS
#define RADIX_EARLY_COUNTS 1
#endif
// (Split pairs staged keys and values side by side in one round instead of two, so no 64-bit
// output positions waited in registers between the rounds: slower in the run above, EFP against E,
// and removed.)
// The sweep's shared memory as one variable per kernel, not one per float/integer instantiation:
// u32 and pairs_u32 kernels 19.5 KB per block instead of 39; without it they cannot take 24 keys or
// 384 threads (over the 48 KB static limit), and sm_75 (64 KB per SM) fits one block, not three.
#ifndef RADIX_SHARED_ONCE
#define RADIX_SHARED_ONCE 1
#endif
// Full tiles scatter without a guard per slot, so every slot's loads can be in flight at once
// (guarded, each slot is a branch around a dependent load-load-store chain). Per kernel family:
// keys gain (EFP against E above), Kvp loses at 16M. RADIX_FULL_TILE_SCATTER=1 turns it on for all.
#ifndef RADIX_FULL_TILE_SCATTER
#define RADIX_FULL_TILE_SCATTER 0
#endif
#ifndef RADIX_FULL_TILE_KEYS
#define RADIX_FULL_TILE_KEYS 1
#endif
#ifndef RADIX_FULL_TILE_KVP
#define RADIX_FULL_TILE_KVP RADIX_FULL_TILE_SCATTER
#endif
#ifndef RADIX_FULL_TILE_PAIRS
#define RADIX_FULL_TILE_PAIRS RADIX_FULL_TILE_SCATTER
#endif
// Full tiles take a copy of the sweep's body without the per-item tests against the end of the
// input (radix.cuh onesweep; the segmented sorts keep one body). Session 20, H200, median ms at
// 1M / 16M / 64M, two rounds alternating in one call, against the one body:
//   Kvp descending  0.074 / 0.563 / 2.038-2.042 against 0.079 / 0.572 / 2.084-2.086   <- on
//   split u32 pairs 0.085 / 0.594-0.598 / 2.153-2.156 against 0.085 / 0.604-0.605 / 2.194-2.197   <- on
//   u64 keys with u32 values 5.32-5.33 against 5.25 at 64M; u64 keys alone 6.35 against 3.98
//   at 64M (868 bytes of spills), u32 keys 1.474 against 1.429: off for those.
// (Loads from one pointer per lane with immediate offsets in the full body: no faster, pairs 2.206
// against 2.153 at 64M.)
#ifndef RADIX_FULL_TILE_PATH_KVP
#define RADIX_FULL_TILE_PATH_KVP 1
#endif
#ifndef RADIX_FULL_TILE_PATH_PAIRS
#define RADIX_FULL_TILE_PATH_PAIRS 1
#endif
#ifndef RADIX_FULL_TILE_PATH_PAIRS_U64
#define RADIX_FULL_TILE_PATH_PAIRS_U64 0
#endif
#ifndef RADIX_FULL_TILE_PATH_KEYS
#define RADIX_FULL_TILE_PATH_KEYS 0
#endif
// Up-front histogram of every digit: threads per block, loads in flight per thread, blocks per SM
// (one read of the keys; about 1/9 of the bytes of a 4-pass sort; figures below), and the copies
// of the counts a block keeps (radix_histogram.cuh hist_copies). One copy is bound by bank
// conflicts (ncu, H200, 64M u32 keys: 3.15 shared wavefronts per warp-wide atomic add, L1/shared
// 97.9% busy, DRAM 36%): a lane's bank follows its digit. One copy per lane, laid out digit-major,
// puts a warp's adds in 32 banks; its 128 KB a block (64-bit keys: 16 copies) leave room for one
// block a SM, so 1024 threads. H200, session 45, ms, two rounds alternating in one call (sm_90
// images), one copy at 256 x 4 blocks -> 32 copies at 1024 x 1: u32 keys 16M 0.402 -> 0.395-0.397,
// 64M 1.415 -> 1.373-1.375, 256M 5.376 -> 5.186; split u32 pairs 16M 0.501-0.502 -> 0.491-0.494,
// 64M 1.800-1.802 -> 1.761-1.763, 256M 7.106 -> 6.910; Kvp 64M 1.707 -> 1.701; u64 keys with u32
// values 16M 1.411-1.412 -> 1.395-1.398, 64M 5.175-5.181 -> 5.109. sm_100 (the same shared
// memory a SM) follows sm_90, untimed; the others keep one copy (sm_86/89/120 cannot give a block
// 128 KB; untimed there).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#ifndef RADIX_HIST_COPIES
#define RADIX_HIST_COPIES 32
#endif
#ifndef RADIX_HIST_THREADS
#define RADIX_HIST_THREADS 1024
#endif
#ifndef RADIX_HIST_BLOCKS_PER_SM
#define RADIX_HIST_BLOCKS_PER_SM 1
#endif
#endif
#ifndef RADIX_HIST_COPIES
#define RADIX_HIST_COPIES 1
#endif
#ifndef RADIX_HIST_THREADS
#define RADIX_HIST_THREADS 256
#endif
#ifndef RADIX_HIST_BLOCKS_PER_SM
#define RADIX_HIST_BLOCKS_PER_SM 4
#endif
// Shared memory the copies may take a block; copies halve until they fit (64-bit keys' 8 passes).
#ifndef RADIX_HIST_COPY_BYTES
#define RADIX_HIST_COPY_BYTES (128 << 10)
#endif
#ifndef RADIX_HIST_ITEMS
#define RADIX_HIST_ITEMS 8
#endif
// The segmented sort's histogram (radix_segments.cuh) flushes its counts at every segment's end,
// so it keeps one static copy and the shape the whole sort's histogram had before copies.
#ifndef RADIX_SEGMENT_HIST_THREADS
#define RADIX_SEGMENT_HIST_THREADS 256
#endif
#ifndef RADIX_SEGMENT_HIST_BLOCKS_PER_SM
#define RADIX_SEGMENT_HIST_BLOCKS_PER_SM 4
#endif
// The histogram's loads: 16 bytes (RADIX_HIST_ITEMS of them in flight) over the aligned middle of
// the input, or one item. H200, session 36, 64M ms, two rounds alternating per call, 16-byte loads
// against one item: u32 keys 1.420-1.421 against 1.425-1.427 (256M 5.463-5.464 against
// 5.491-5.492), split u32 pairs 2.021-2.024 against 2.032-2.034, but Kvp 1.816-1.818 against
// 1.794-1.796 and u64 keys with u32 values 5.233-5.238 against 5.221 (radix_keys.cuh: off for
// those, and for u64 keys alone, untimed). 4 loads of 16 bytes in flight instead of 8: the same;
// 8 blocks per SM instead of 4: Kvp 1.805-1.806, keys 1.422-1.423, pairs 2.030-2.034.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#ifndef RADIX_HIST_VECTOR_KEYS
#define RADIX_HIST_VECTOR_KEYS 1
#endif
#ifndef RADIX_HIST_VECTOR_PAIRS
#define RADIX_HIST_VECTOR_PAIRS 1
#endif
#endif
#ifndef RADIX_HIST_VECTOR_KEYS
#define RADIX_HIST_VECTOR_KEYS 0
#endif
#ifndef RADIX_HIST_VECTOR_PAIRS
#define RADIX_HIST_VECTOR_PAIRS 0
#endif
// One-block sort for small inputs: the whole input lives in shared memory (dynamic), every digit
// pass ranks it in place; one launch. H200, 16K, atomic-OR ranking: kvp 0.051 ms, keys 0.041
// (CUB 0.069 / 0.058 in the same run); 512 threads x 32 items measured the same (0.050 / 0.041),
// so 1024 x 16 stays. Chips with >= 200 KB of shared memory per block hold 16K pairs (128 KB
// staged + 66 KB counters); the others 4K pairs with 8 warps (32 KB + 17 KB, fits sm_75's 64 KB).
// Where the device cannot give that much, one-tile inputs take the multi-block path.
#if defined(RADIX_SMALL_THREADS) && defined(RADIX_SMALL_ITEMS)
// set on the command line (tuning runs)
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000)
#define RADIX_SMALL_THREADS 1024
#define RADIX_SMALL_ITEMS 16
#else
#define RADIX_SMALL_THREADS 256
#define RADIX_SMALL_ITEMS 16
#endif
// The one-block sort's own ranking and load (radix_small.cuh), per family on sm_90 and sm_100:
// RADIX_SMALL_LEADER_ADD_* ranks with the leader's add even where the sweep does not (keys alone),
// RADIX_SMALL_LOAD_ALL_* puts all of a thread's input loads in flight before the first staging
// store (a loop of four at a time before). H200, session 46, 16K, three rounds alternating in one
// call (sm_90 images), ms, before -> leader's add / all loads / both:
//   u64 keys (shapes bench) 0.0897-0.0919 -> 0.0828-0.0843 / 0.0884-0.0908 / 0.0810-0.0832  <- both
//   f64 keys                0.0896-0.0915 -> 0.0829-0.0845 / 0.0885-0.0909 / 0.0817-0.0835  <- both
//   u32 keys                0.0412-0.0424 -> 0.0399-0.0405 / 0.0424-0.0428 / 0.0406-0.0421  <- leader
//   Kvp (leader's add already on)        0.0511-0.0520 -> all loads 0.0491-0.0493         <- loads
//   split u32 pairs (on already)         0.0529-0.0545 -> all loads 0.0509-0.0516         <- loads
//   u64 keys with u32 values 0.0992-0.1032 -> 0.1000-0.1051 / 0.0978-0.1039 / 0.0986-0.1045 (no change: off)
// CUB 3.0.1 in the same call: u64 keys 0.0884, f64 0.0906, u64 keys with u32 values 0.1000.
// Untimed before sm_90 and for f32 pairs (two-round staging): off.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDA_ARCH__ < 1200
#ifndef RADIX_SMALL_LEADER_ADD_KEYS
#define RADIX_SMALL_LEADER_ADD_KEYS 1
#endif
#ifndef RADIX_SMALL_LOAD_ALL_U64
#define RADIX_SMALL_LOAD_ALL_U64 1
#endif
#ifndef RADIX_SMALL_LOAD_ALL_KVP
#define RADIX_SMALL_LOAD_ALL_KVP 1
#endif
#ifndef RADIX_SMALL_LOAD_ALL_PAIRS
#define RADIX_SMALL_LOAD_ALL_PAIRS 1
#endif
#endif
#ifndef RADIX_SMALL_LEADER_ADD_KEYS
#define RADIX_SMALL_LEADER_ADD_KEYS RADIX_RANK_LEADER_ADD_KEYS
#endif
#ifndef RADIX_SMALL_LOAD_ALL_U64
#define RADIX_SMALL_LOAD_ALL_U64 0
#endif
#ifndef RADIX_SMALL_LOAD_ALL_KVP
#define RADIX_SMALL_LOAD_ALL_KVP 0
#endif
#ifndef RADIX_SMALL_LOAD_ALL_PAIRS
#define RADIX_SMALL_LOAD_ALL_PAIRS 0
#endif

/*
 * Shared between the portable SHA-1 collision detection (sha1dc.c) and its x86 fast paths
 * (sha1dc_x86.c). Not part of the module's public interface.
 */
#ifndef CGW_SHA1DC_INTERNAL_H
#define CGW_SHA1DC_INTERNAL_H

#include "CGitWire.h"

#include <stddef.h>
#include <stdint.h>

/* A message hashed block by block from some point on: its job, the bytes of prefix, data and
 * padding taken so far (a multiple of 64), the prefix and data, and those with the padding. */
typedef struct {
    cgw_sha1dc_job *job;
    uint64_t position;
    uint64_t length;
    uint64_t padded;
} cgw_sha1dc_lane;

/* The digest of a SHA-1 state, big-endian. */
static inline void cgw_sha1dc_write_digest(const uint32_t state[5], uint8_t digest[20]) {
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (uint8_t)(state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)state[i];
    }
}

/* The 64 bytes of the lane's padded message at its position, written to `out` unless they lie
 * whole in the job's data, where the pointer returned then points. */
const uint8_t *cgw_sha1dc_lane_block(const cgw_sha1dc_lane *lane, uint8_t out[64]);
/* The condition masks of the first blocks of `blocks` (`count` of them, at least one), as many as
 * one batch of the fastest way `features` allows takes (at most 16, in masks[0...]); returns how
 * many. */
size_t cgw_sha1dc_condition_masks(int features, const uint8_t *blocks, size_t count, uint32_t masks[16]);
/* Compresses one block whose condition mask is `candidates` into the context's state and checks
 * it, moving to the safe hash if it completes an attack (the context's `attack` then set). */
void cgw_sha1dc_compress_and_check(cgw_sha1dc_ctx *ctx, const uint8_t *block, uint32_t candidates);
/* Hashes the rest of the lane's message on the streaming path from the context (its state that
 * of the lane's position), writing the job's digest and whether an attack was found. */
void cgw_sha1dc_finish_lane(const cgw_sha1dc_lane *lane, cgw_sha1dc_ctx *ctx);
/* Full checks of flagged blocks waiting to run sixteen at a time with AVX-512 (sha1dc.c), and the
 * jobs they found to hold an attack, to be hashed again from the start. */
typedef struct cgw_sha1dc_deferred cgw_sha1dc_deferred;
/* Compresses one block whose condition mask is `candidates` into the context's state on the SHA
 * extensions and queues its checks in `deferred`, going on as if it were no attack. */
void cgw_sha1dc_defer_check(
    cgw_sha1dc_deferred *deferred, cgw_sha1dc_ctx *ctx, cgw_sha1dc_job *job, const uint8_t *block, uint32_t candidates);
/* Hashes the rest of `count` lanes' messages, each from its context (as for
 * cgw_sha1dc_finish_lane), two at a time side by side on the SHA extensions, which the contexts'
 * features must include (see sha1dc_pairs.c). Flagged blocks are checked at once, or with
 * `deferred` queued there (whose owner then runs the checks and hashes again what they find). */
void cgw_sha1dc_finish_lanes_in_pairs(
    const cgw_sha1dc_lane *lanes, cgw_sha1dc_ctx *contexts, size_t count, cgw_sha1dc_deferred *deferred);

/* The mask of disturbance vectors whose unavoidable conditions the expanded message `w`
 * (at least words 0...64) meets; bit k stands for the k-th vector of the table. */
uint32_t cgw_sha1dc_condition_mask(const uint32_t w[80]);

#if defined(__x86_64__) || defined(__i386__)
#define CGW_SHA1DC_X86 1
/* SHA-1 compression of `count` consecutive 64-byte blocks with the SHA extensions. */
void cgw_sha1dc_compress_shani(uint32_t state[5], const uint8_t *blocks, size_t count);
/* `count` consecutive blocks of each of two messages, the two compressed side by side. */
void cgw_sha1dc_compress2_shani(
    uint32_t first[5], const uint8_t *first_blocks, uint32_t second[5], const uint8_t *second_blocks, size_t count);
/* The same for one block, also keeping its states midway (see below) for the collision check. */
void cgw_sha1dc_compress_shani_midway(uint32_t state[5], const uint8_t *block, uint32_t midway[16]);
/* A block's SHA-1 states before steps 56 and 64 as the SHA extensions hold them: words 0-3 are
 * D, C, B, A before step 56, words 4-7 the same four steps earlier (E before step 56 is A there,
 * rotated left by 30); words 8-15 likewise for step 64. */
static inline void cgw_sha1dc_midway_states(const uint32_t midway[16], uint32_t before56[5], uint32_t before64[5]) {
    for (int half = 0; half < 2; half++) {
        const uint32_t *v = midway + 8 * half;
        uint32_t *s = half ? before64 : before56;
        s[0] = v[3];
        s[1] = v[2];
        s[2] = v[1];
        s[3] = v[0];
        s[4] = (v[7] << 30) | (v[7] >> 2);
    }
}
/* The condition masks of eight consecutive 64-byte blocks, computed eight lanes at a time with
 * AVX2. */
void cgw_sha1dc_condition_masks_avx2(const uint8_t *blocks, uint32_t masks[8]);
/* The same for sixteen consecutive blocks with AVX-512F. */
void cgw_sha1dc_condition_masks_avx512(const uint8_t *blocks, uint32_t masks[16]);
/* One block of each of sixteen messages, lane k's at blocks[k], compressed into state (word i of
 * lane k's state in state[i][k]), with each block's condition mask and its states before steps 58
 * and 65 (the same layout), for the full check. */
void cgw_sha1dc_compress16_avx512(uint32_t state[5][16], const uint8_t *const blocks[16], uint32_t masks[16],
    uint32_t at58[5][16], uint32_t at65[5][16]);
/* The full check of sixteen (block, disturbance vector) pairs whose vectors all test from step
 * `test_step` (58 or 65): lane k's block at blocks[k], compressed to output[.][k], its state
 * before the test step in start[.][k], and its vector's expanded difference at differences +
 * 80 * vectors[k]. Returns the lanes (bit k for lane k) whose block completes an attack. */
uint32_t cgw_sha1dc_check16_avx512(const uint8_t *const blocks[16], const uint32_t *differences,
    const uint32_t vectors[16], int test_step, const uint32_t start[5][16], const uint32_t output[5][16]);
#endif

#endif

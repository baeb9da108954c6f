/*
 * Shared between the portable SHA-1 collision detection (sha1dc.c) and its x86 fast paths
 * (sha1dc_x86.c). Not part of the module's public interface.
 */
#ifndef CGW_SHA1DC_INTERNAL_H
#define CGW_SHA1DC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* The mask of disturbance vectors whose unavoidable conditions the expanded message `w`
 * (at least words 0...64) meets; bit k stands for the k-th vector of the table. */
uint32_t cgw_sha1dc_condition_mask(const uint32_t w[80]);

#if defined(__x86_64__) || defined(__i386__)
#define CGW_SHA1DC_X86 1
/* SHA-1 compression of `count` consecutive 64-byte blocks with the SHA extensions. */
void cgw_sha1dc_compress_shani(uint32_t state[5], const uint8_t *blocks, size_t count);
/* The condition masks of eight consecutive 64-byte blocks, computed eight lanes at a time with
 * AVX2. */
void cgw_sha1dc_condition_masks_avx2(const uint8_t *blocks, uint32_t masks[8]);
#endif

#endif

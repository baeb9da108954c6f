/*
 * SHA-256 (FIPS 180-4), for repositories whose objects are named with it
 * (`extensions.objectFormat = sha256`): object names, pack and index checksums. No collision
 * detection is needed (none is known). Blocks are compressed with the SHA extensions
 * (sha256rnds2, sha256msg1, sha256msg2) where CPUID says the CPU has them, else by portable C.
 */
#include "CGitWire.h"

#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#define CGW_SHA256_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t round_constants[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
    0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
    0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
    0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u, 0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
    0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
    0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
    0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

/* ---- Portable compression. ---- */

#define ROTR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void compress_portable(uint32_t state[8], const uint8_t *blocks, size_t count) {
    for (; count > 0; count--, blocks += 64) {
        uint32_t w[64];
        for (int t = 0; t < 16; t++) {
            const uint8_t *p = blocks + 4 * t;
            w[t] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        }
        for (int t = 16; t < 64; t++) {
            uint32_t s0 = ROTR(w[t - 15], 7) ^ ROTR(w[t - 15], 18) ^ (w[t - 15] >> 3);
            uint32_t s1 = ROTR(w[t - 2], 17) ^ ROTR(w[t - 2], 19) ^ (w[t - 2] >> 10);
            w[t] = w[t - 16] + s0 + w[t - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int t = 0; t < 64; t++) {
            uint32_t t1 = h + (ROTR(e, 6) ^ ROTR(e, 11) ^ ROTR(e, 25)) + ((e & f) ^ (~e & g)) + round_constants[t] + w[t];
            uint32_t t2 = (ROTR(a, 2) ^ ROTR(a, 13) ^ ROTR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}

/* ---- Compression with the SHA extensions. ----
 *
 * sha256rnds2 does two rounds on a state split across two registers, ABEF and CDGH (A in the
 * top lane), taking W+K of the two rounds from the low lanes of its third operand. A message
 * register holds four words of the schedule, the earliest in the lowest lane; sha256msg1 and
 * sha256msg2 compute the next four words from the sixteen before them (with the four words
 * seven back added in between, taken across two registers with palignr).
 */
#if defined(CGW_SHA256_X86)
#define SHA_TARGET __attribute__((target("sha,sse4.1,ssse3")))

/* Four rounds: W+K of group `k` from `message`. */
#define FOUR_ROUNDS(k, message) \
    do { \
        __m128i wk = _mm_add_epi32((message), _mm_loadu_si128((const __m128i *)(round_constants + 4 * (k)))); \
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk); \
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e)); \
    } while (0)

/* The schedule words of group `k` (k >= 4) into m0, which held group k - 4; m1, m2 and m3 hold
 * groups k - 3, k - 2 and k - 1. */
#define NEXT_WORDS(m0, m1, m2, m3) \
    (m0) = _mm_sha256msg2_epu32( \
        _mm_add_epi32(_mm_sha256msg1_epu32((m0), (m1)), _mm_alignr_epi8((m3), (m2), 4)), (m3))

SHA_TARGET static void compress_shani(uint32_t state[8], const uint8_t *blocks, size_t count) {
    const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i dcba = _mm_loadu_si128((const __m128i *)state);
    __m128i hgfe = _mm_loadu_si128((const __m128i *)(state + 4));
    __m128i cdab = _mm_shuffle_epi32(dcba, 0xb1);
    __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1b);
    __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
    __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xf0);
    for (; count > 0; count--, blocks += 64) {
        const __m128i abef_in = abef, cdgh_in = cdgh;
        __m128i m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)blocks), byte_swap);
        __m128i m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 16)), byte_swap);
        __m128i m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 32)), byte_swap);
        __m128i m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(blocks + 48)), byte_swap);
        FOUR_ROUNDS(0, m0);
        FOUR_ROUNDS(1, m1);
        FOUR_ROUNDS(2, m2);
        FOUR_ROUNDS(3, m3);
        for (int k = 4; k < 16; k += 4) {
            NEXT_WORDS(m0, m1, m2, m3);
            FOUR_ROUNDS(k, m0);
            NEXT_WORDS(m1, m2, m3, m0);
            FOUR_ROUNDS(k + 1, m1);
            NEXT_WORDS(m2, m3, m0, m1);
            FOUR_ROUNDS(k + 2, m2);
            NEXT_WORDS(m3, m0, m1, m2);
            FOUR_ROUNDS(k + 3, m3);
        }
        abef = _mm_add_epi32(abef, abef_in);
        cdgh = _mm_add_epi32(cdgh, cdgh_in);
    }
    __m128i feba = _mm_shuffle_epi32(abef, 0x1b);
    __m128i dchg = _mm_shuffle_epi32(cdgh, 0xb1);
    _mm_storeu_si128((__m128i *)state, _mm_blend_epi16(feba, dchg, 0xf0));
    _mm_storeu_si128((__m128i *)(state + 4), _mm_alignr_epi8(dchg, feba, 8));
}
#endif

/* ---- Implementation choice. ---- */

int cgw_sha256_available_features(void) {
    static int cached = -1;
    int features = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (features >= 0) return features;
    features = 0;
#if defined(CGW_SHA256_X86)
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
        unsigned b7 = 0;
        if (__get_cpuid_count(7, 0, &a, &b7, &c, &d) && ssse3 && sse41 && ((b7 >> 29) & 1))
            features |= CGW_SHA256_SHA_EXTENSIONS;
    }
#endif
    __atomic_store_n(&cached, features, __ATOMIC_RELAXED);
    return features;
}

static void compress_blocks(const cgw_sha256_ctx *ctx, uint32_t state[8], const uint8_t *blocks, size_t count) {
    if (count == 0) return;
#if defined(CGW_SHA256_X86)
    if (ctx->features & CGW_SHA256_SHA_EXTENSIONS) {
        compress_shani(state, blocks, count);
        return;
    }
#endif
    compress_portable(state, blocks, count);
}

/* ---- Streaming interface. ---- */

void cgw_sha256_init(cgw_sha256_ctx *ctx, int features) {
    static const uint32_t initial[8] = {
        0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u,
    };
    memcpy(ctx->state, initial, sizeof initial);
    ctx->total = 0;
    ctx->features = (uint8_t)(features & cgw_sha256_available_features());
}

void cgw_sha256_update(cgw_sha256_ctx *ctx, const void *data, size_t count) {
    const uint8_t *bytes = data;
    size_t used = (size_t)(ctx->total % 64);
    ctx->total += count;
    if (used > 0) {
        size_t take = 64 - used < count ? 64 - used : count;
        memcpy(ctx->buffer + used, bytes, take);
        bytes += take;
        count -= take;
        if (used + take < 64) return;
        compress_blocks(ctx, ctx->state, ctx->buffer, 1);
    }
    compress_blocks(ctx, ctx->state, bytes, count / 64);
    bytes += count / 64 * 64;
    if (count % 64) memcpy(ctx->buffer, bytes, count % 64);
}

void cgw_sha256_final(cgw_sha256_ctx *ctx, uint8_t digest[32]) {
    uint64_t bits = ctx->total * 8;
    size_t used = (size_t)(ctx->total % 64);
    uint8_t tail[128];
    memcpy(tail, ctx->buffer, used);
    tail[used] = 0x80;
    size_t length = used < 56 ? 64 : 128;
    memset(tail + used + 1, 0, length - used - 1);
    for (int i = 0; i < 8; i++) tail[length - 1 - i] = (uint8_t)(bits >> (8 * i));
    compress_blocks(ctx, ctx->state, tail, length / 64);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(ctx->state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(ctx->state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(ctx->state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)ctx->state[i];
    }
}

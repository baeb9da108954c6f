/*
 * x86 fast paths of SHA-1 collision detection (see sha1dc.c): block compression with the SHA
 * extensions, and the unavoidable-condition masks of eight blocks at once with AVX2. Each
 * function carries its own target attribute, so the file builds without -m flags; sha1dc.c calls
 * them only when CPUID says the instructions are there.
 */
#include "sha1dc_internal.h"

#if defined(CGW_SHA1DC_X86)
#include "sha1dc_tables.h"

#include <immintrin.h>

/* ---- Compression with the SHA extensions. ----
 *
 * The SHA-1 state sits in two registers: ABCD with A in the top lane, and E in the top lane of
 * another. Message registers hold four words of W, the earliest in the top lane. sha1rnds4 does
 * four steps, taking E plus the first word in the top lane; sha1nexte derives the E of the next
 * four steps from A four steps back and adds it to the next message register; sha1msg1 and
 * sha1msg2 compute four words of the message expansion from the sixteen before them.
 */

#define SHA_TARGET __attribute__((target("sha,sse4.1,ssse3")))
#define INLINE static inline __attribute__((always_inline))

/* Steps 4g...4g+3 of a block: `e_plus_w` is E plus the four words (it may read `previous`, the
 * ABCD of the four steps before, so it is evaluated first); `round_kind` picks f and K. */
#define FOUR_STEPS(round_kind, e_plus_w) \
    do { \
        const __m128i input = (e_plus_w); \
        previous = abcd; \
        abcd = _mm_sha1rnds4_epu32(abcd, input, round_kind); \
    } while (0)

/* Compresses one block into the state held in `*abcd_io` and `*e_io`. If `midway` is not NULL,
 * also keeps what the collision check needs: ABCD before steps 56 and 64, and ABCD four steps
 * earlier (whose A, rotated, is E), in the layout of cgw_sha1dc_midway_states. */
SHA_TARGET INLINE void compress_block(__m128i *abcd_io, __m128i *e_io, const uint8_t *block, __m128i *midway) {
    const __m128i byte_swap = _mm_set_epi64x(0x0001020304050607LL, 0x08090a0b0c0d0e0fLL);
    const __m128i abcd_in = *abcd_io, e_in = *e_io;
    __m128i abcd = abcd_in, previous;
    __m128i m0 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 0)), byte_swap);
    __m128i m1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16)), byte_swap);
    __m128i m2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 32)), byte_swap);
    __m128i m3 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 48)), byte_swap);

    /* Steps 0-15 use the block's own words. */
    FOUR_STEPS(0, _mm_add_epi32(e_in, m0));
    FOUR_STEPS(0, _mm_sha1nexte_epu32(previous, m1));
    FOUR_STEPS(0, _mm_sha1nexte_epu32(previous, m2));
    FOUR_STEPS(0, _mm_sha1nexte_epu32(previous, m3));

    /* Steps 16-79: each group's four words are the expansion of the four groups before it, held
     * in m0...m3 in turn. */
#define EXPANDED_STEPS(round_kind, oldest, second, third, newest) \
    do { \
        oldest = _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32(oldest, second), third), newest); \
        FOUR_STEPS(round_kind, _mm_sha1nexte_epu32(previous, oldest)); \
    } while (0)
    EXPANDED_STEPS(0, m0, m1, m2, m3); /* 16-19 */
    EXPANDED_STEPS(1, m1, m2, m3, m0); /* 20-23 */
    EXPANDED_STEPS(1, m2, m3, m0, m1);
    EXPANDED_STEPS(1, m3, m0, m1, m2);
    EXPANDED_STEPS(1, m0, m1, m2, m3);
    EXPANDED_STEPS(1, m1, m2, m3, m0); /* 36-39 */
    EXPANDED_STEPS(2, m2, m3, m0, m1); /* 40-43 */
    EXPANDED_STEPS(2, m3, m0, m1, m2);
    EXPANDED_STEPS(2, m0, m1, m2, m3);
    EXPANDED_STEPS(2, m1, m2, m3, m0);
    if (midway) {
        midway[0] = abcd;
        midway[1] = previous;
    }
    EXPANDED_STEPS(2, m2, m3, m0, m1); /* 56-59 */
    EXPANDED_STEPS(3, m3, m0, m1, m2); /* 60-63 */
    if (midway) {
        midway[2] = abcd;
        midway[3] = previous;
    }
    EXPANDED_STEPS(3, m0, m1, m2, m3);
    EXPANDED_STEPS(3, m1, m2, m3, m0);
    EXPANDED_STEPS(3, m2, m3, m0, m1);
    EXPANDED_STEPS(3, m3, m0, m1, m2); /* 76-79 */
#undef EXPANDED_STEPS

    /* E after step 79 is A after step 75 rotated; add the chaining input. */
    *e_io = _mm_sha1nexte_epu32(previous, e_in);
    *abcd_io = _mm_add_epi32(abcd, abcd_in);
}

#undef FOUR_STEPS

SHA_TARGET INLINE void load_state(const uint32_t state[5], __m128i *abcd, __m128i *e) {
    *abcd = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0x1b);
    *e = _mm_set_epi32((int)state[4], 0, 0, 0);
}

SHA_TARGET INLINE void store_state(uint32_t state[5], __m128i abcd, __m128i e) {
    _mm_storeu_si128((__m128i *)state, _mm_shuffle_epi32(abcd, 0x1b));
    state[4] = (uint32_t)_mm_extract_epi32(e, 3);
}

SHA_TARGET void cgw_sha1dc_compress_shani(uint32_t state[5], const uint8_t *blocks, size_t count) {
    __m128i abcd, e;
    load_state(state, &abcd, &e);
    for (size_t n = 0; n < count; n++) compress_block(&abcd, &e, blocks + 64 * n, NULL);
    store_state(state, abcd, e);
}

/* Two messages' blocks compressed in one loop: one message's steps depend each on the last, so
 * alone they leave the SHA units idle between sha1rnds4s; two chains side by side fill them (about
 * 1.6-1.8 times the bytes a second on the EPYC this was measured on; a third chain adds nothing). */
SHA_TARGET void cgw_sha1dc_compress2_shani(
    uint32_t first[5], const uint8_t *first_blocks, uint32_t second[5], const uint8_t *second_blocks, size_t count) {
    __m128i abcd1, e1, abcd2, e2;
    load_state(first, &abcd1, &e1);
    load_state(second, &abcd2, &e2);
    for (size_t n = 0; n < count; n++) {
        compress_block(&abcd1, &e1, first_blocks + 64 * n, NULL);
        compress_block(&abcd2, &e2, second_blocks + 64 * n, NULL);
    }
    store_state(first, abcd1, e1);
    store_state(second, abcd2, e2);
}

SHA_TARGET void cgw_sha1dc_compress_shani_midway(uint32_t state[5], const uint8_t *block, uint32_t midway[16]) {
    __m128i abcd, e;
    load_state(state, &abcd, &e);
    compress_block(&abcd, &e, block, (__m128i *)midway);
    store_state(state, abcd, e);
}

/* ---- Unavoidable-condition masks, eight blocks at once. ----
 *
 * Lane k of every vector belongs to block k. The 16 words of each block are loaded, byte-swapped
 * and transposed so that w[t] holds word t of all eight blocks; the expansion then runs on whole
 * vectors up to word 64, the last one a condition reads. A condition moves its two bits to bit 31
 * and XORs them; blendv then keeps the mask, or the mask without the condition's vectors, by
 * that sign bit.
 */

#define AVX2_TARGET __attribute__((target("avx2")))

typedef struct {
    __m256i w[65];
    __m256 mask;
} mask_work;

AVX2_TARGET INLINE __m256i rotate_left_1(__m256i x) {
    return _mm256_or_si256(_mm256_slli_epi32(x, 1), _mm256_srli_epi32(x, 31));
}

/* Loads words 8*half...8*half+7 of the eight blocks into w, transposed. */
AVX2_TARGET INLINE void load_transposed(mask_work *work, const uint8_t *blocks, int half) {
    const __m256i byte_swap = _mm256_set_epi8(
        12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    __m256i r[8], t[8], u[8];
    for (int k = 0; k < 8; k++)
        r[k] = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(blocks + 64 * k + 32 * half)), byte_swap);
    /* r[k] holds words 0..7 of block k; after the three shuffle rounds r[t] holds word t of
     * blocks 0..7. */
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_epi32(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_epi32(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        u[i] = _mm256_unpacklo_epi64(t[i], t[i + 2]);
        u[i + 1] = _mm256_unpackhi_epi64(t[i], t[i + 2]);
        u[i + 2] = _mm256_unpacklo_epi64(t[i + 1], t[i + 3]);
        u[i + 3] = _mm256_unpackhi_epi64(t[i + 1], t[i + 3]);
    }
    for (int i = 0; i < 4; i++) {
        work->w[8 * half + i] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x20);
        work->w[8 * half + i + 4] = _mm256_permute2x128_si256(u[i], u[i + 4], 0x31);
    }
}

AVX2_TARGET INLINE void expand_words(mask_work *work, int from, int to) {
    for (int t = from; t < to; t++) {
        __m256i x = _mm256_xor_si256(
            _mm256_xor_si256(work->w[t - 3], work->w[t - 8]), _mm256_xor_si256(work->w[t - 14], work->w[t - 16]));
        work->w[t] = rotate_left_1(x);
    }
}

/* Applies the conditions whose (i + j) % 3 is `part`: a fixed third of the list. */
AVX2_TARGET INLINE void apply_conditions(mask_work *work, int part) {
    __m256 mask = work->mask;
    const __m256i *w = work->w;
#define C(i, p, j, q, want, dvs) \
    if (((i) + (j)) % 3 == part) { \
        __m256i bit; \
        if ((p) == (q)) \
            bit = _mm256_slli_epi32(_mm256_xor_si256(w[i], w[j]), 31 - (p)); \
        else \
            bit = _mm256_xor_si256(_mm256_slli_epi32(w[i], 31 - (p)), _mm256_slli_epi32(w[j], 31 - (q))); \
        __m256 without = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_set1_epi32((int)(dvs))), mask); \
        if (want) \
            mask = _mm256_blendv_ps(without, mask, _mm256_castsi256_ps(bit)); \
        else \
            mask = _mm256_blendv_ps(mask, without, _mm256_castsi256_ps(bit)); \
    }
    CGW_SHA1DC_UNAVOIDABLE_CONDITIONS(C)
#undef C
    work->mask = mask;
}

AVX2_TARGET void cgw_sha1dc_condition_masks_avx2(const uint8_t *blocks, uint32_t masks[8]) {
    mask_work work;
    load_transposed(&work, blocks, 0);
    load_transposed(&work, blocks, 1);
    expand_words(&work, 16, 65);
    work.mask = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    apply_conditions(&work, 0);
    apply_conditions(&work, 1);
    apply_conditions(&work, 2);
    _mm256_storeu_si256((__m256i *)masks, _mm256_castps_si256(work.mask));
}

/* ---- Unavoidable-condition masks, sixteen blocks at once, with AVX-512. ----
 *
 * The same work on sixteen lanes, with what AVX-512F adds: word t of the sixteen blocks is
 * gathered straight from them, three-way XORs and byte swaps are one ternary-logic instruction,
 * rotations one instruction, and a condition needs no shifts when its bits line up: a rotation
 * brings them together, a test sets a mask register, and the vectors are cleared in the lanes
 * that fail it, about a third of the work of the AVX2 version per block.
 */

#define AVX512_TARGET __attribute__((target("avx512f")))

/* Loads word t of the sixteen 64-byte blocks at `blocks` (lane k from blocks + 64k) into w[t],
 * big-endian, for t < 16. */
AVX512_TARGET INLINE void load_words_avx512(__m512i w[16], const uint8_t *blocks) {
    const __m512i lanes = _mm512_set_epi32(
        15 * 64, 14 * 64, 13 * 64, 12 * 64, 11 * 64, 10 * 64, 9 * 64, 8 * 64, 7 * 64, 6 * 64, 5 * 64, 4 * 64, 3 * 64,
        2 * 64, 64, 0);
    const __m512i low_bytes = _mm512_set1_epi32(0x00ff00ff);
    for (int t = 0; t < 16; t++) {
        __m512i x = _mm512_i32gather_epi32(lanes, (const void *)(blocks + 4 * t), 1);
        /* Big-endian words: the low bytes of each half from x rotated by 8, the high ones from x
         * rotated by 24 (0xe4: where the third operand has a 1, the first, else the second). */
        w[t] = _mm512_ternarylogic_epi32(_mm512_rol_epi32(x, 8), _mm512_rol_epi32(x, 24), low_bytes, 0xe4);
    }
}

/* The same for sixteen blocks anywhere, lane k's at blocks[k]: each block is loaded whole and the
 * sixteen are transposed in registers (words within 128-bit lanes, then the lanes), which costs
 * less than gathering from sixteen addresses. */
AVX512_TARGET INLINE void load_words_at_avx512(__m512i w[16], const uint8_t *const blocks[16]) {
    __m512i r[16], t[16], u[16];
    for (int k = 0; k < 16; k++) r[k] = _mm512_loadu_si512((const void *)blocks[k]);
    for (int k = 0; k < 16; k += 2) {
        t[k] = _mm512_unpacklo_epi32(r[k], r[k + 1]);
        t[k + 1] = _mm512_unpackhi_epi32(r[k], r[k + 1]);
    }
    /* u[4g + j], 128-bit lane L: word 4L + j of blocks 4g...4g+3. */
    for (int g = 0; g < 16; g += 4) {
        u[g] = _mm512_unpacklo_epi64(t[g], t[g + 2]);
        u[g + 1] = _mm512_unpackhi_epi64(t[g], t[g + 2]);
        u[g + 2] = _mm512_unpacklo_epi64(t[g + 1], t[g + 3]);
        u[g + 3] = _mm512_unpackhi_epi64(t[g + 1], t[g + 3]);
    }
    const __m512i low_bytes = _mm512_set1_epi32(0x00ff00ff);
    for (int j = 0; j < 4; j++) {
        __m512i x0 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0x44), x1 = _mm512_shuffle_i32x4(u[j], u[4 + j], 0xee);
        __m512i x2 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0x44),
                x3 = _mm512_shuffle_i32x4(u[8 + j], u[12 + j], 0xee);
        __m512i words[4] = {_mm512_shuffle_i32x4(x0, x2, 0x88), _mm512_shuffle_i32x4(x0, x2, 0xdd),
            _mm512_shuffle_i32x4(x1, x3, 0x88), _mm512_shuffle_i32x4(x1, x3, 0xdd)};
        for (int l = 0; l < 4; l++)
            w[4 * l + j] =
                _mm512_ternarylogic_epi32(_mm512_rol_epi32(words[l], 8), _mm512_rol_epi32(words[l], 24), low_bytes, 0xe4);
    }
}

/* Fills w[from...to-1] by the message expansion. */
AVX512_TARGET INLINE void expand_words_avx512(__m512i *w, int from, int to) {
    for (int t = from; t < to; t++) {
        __m512i x = _mm512_ternarylogic_epi32(w[t - 3], w[t - 8], w[t - 14], 0x96);
        w[t] = _mm512_rol_epi32(_mm512_xor_si512(x, w[t - 16]), 1);
    }
}

/* The condition masks of the sixteen expanded messages in w (words 0...64 read). */
AVX512_TARGET INLINE __m512i condition_masks_avx512(const __m512i *w) {
    __m512i mask = _mm512_set1_epi32(-1);
#define C(i, p, j, q, want, dvs) \
    { \
        __m512i both = (p) == (q) ? _mm512_xor_si512(w[i], w[j]) \
                                  : _mm512_xor_si512(w[i], _mm512_rol_epi32(w[j], ((p) - (q) + 32) % 32)); \
        __mmask16 fail = (want) ? _mm512_testn_epi32_mask(both, _mm512_set1_epi32(1 << (p))) \
                                : _mm512_test_epi32_mask(both, _mm512_set1_epi32(1 << (p))); \
        mask = _mm512_mask_andnot_epi32(mask, fail, _mm512_set1_epi32((int)(dvs)), mask); \
    }
    CGW_SHA1DC_UNAVOIDABLE_CONDITIONS(C)
#undef C
    return mask;
}

AVX512_TARGET void cgw_sha1dc_condition_masks_avx512(const uint8_t *blocks, uint32_t masks[16]) {
    __m512i w[65];
    load_words_avx512(w, blocks);
    expand_words_avx512(w, 16, 65);
    _mm512_storeu_si512((void *)masks, condition_masks_avx512(w));
}

/* ---- Sixteen messages at once, with AVX-512. ----
 *
 * Lane k of every vector belongs to message k: one block of each is compressed per call with
 * plain AVX-512 arithmetic (no SHA instructions), its condition mask computed from the same
 * expanded words, and the states before steps 58 and 65 kept for the full check of the lanes whose
 * mask is not zero. Sixteen lanes of vector steps do about four times the work per second of the
 * SHA extensions on one message here. The full check itself, two partial compressions of the block
 * changed by a disturbance vector's difference, runs sixteen (block, vector) pairs at a time too.
 */

/* Steps from...to-1, all in round `round` (f picked by ternary logic: 0xca is "b ? c : d", 0x96
 * parity, 0xe8 majority). */
#define VECTOR_STEPS(round, from, to) \
    for (int t = (from); t < (to); t++) { \
        static const uint32_t constant[4] = {0x5a827999u, 0x6ed9eba1u, 0x8f1bbcdcu, 0xca62c1d6u}; \
        __m512i f = _mm512_ternarylogic_epi32(b, c, d, (round) == 0 ? 0xca : (round) == 2 ? 0xe8 : 0x96); \
        /* Only A's rotation and the last addition wait for the step before. */ \
        __m512i next = _mm512_add_epi32( \
            _mm512_rol_epi32(a, 5), \
            _mm512_add_epi32(f, _mm512_add_epi32(e, _mm512_add_epi32(w[t], _mm512_set1_epi32((int)constant[round]))))); \
        e = d; \
        d = c; \
        c = _mm512_rol_epi32(b, 30); \
        b = a; \
        a = next; \
    }

/* Writes the five state words of every lane. */
static inline AVX512_TARGET void store_state_avx512(
    uint32_t out[5][16], __m512i a, __m512i b, __m512i c, __m512i d, __m512i e) {
    _mm512_storeu_si512(out[0], a);
    _mm512_storeu_si512(out[1], b);
    _mm512_storeu_si512(out[2], c);
    _mm512_storeu_si512(out[3], d);
    _mm512_storeu_si512(out[4], e);
}

AVX512_TARGET void cgw_sha1dc_compress16_avx512(uint32_t state[5][16], const uint8_t *const blocks[16],
    uint32_t masks[16], uint32_t at58[5][16], uint32_t at65[5][16]) {
    __m512i w[80];
    load_words_at_avx512(w, blocks);
    expand_words_avx512(w, 16, 80);
    const __m512i a0 = _mm512_loadu_si512(state[0]), b0 = _mm512_loadu_si512(state[1]),
                  c0 = _mm512_loadu_si512(state[2]), d0 = _mm512_loadu_si512(state[3]),
                  e0 = _mm512_loadu_si512(state[4]);
    __m512i a = a0, b = b0, c = c0, d = d0, e = e0;
    VECTOR_STEPS(0, 0, 20)
    VECTOR_STEPS(1, 20, 40)
    /* The masks here, where their work can fill the gaps of the steps' dependency chain. */
    _mm512_storeu_si512((void *)masks, condition_masks_avx512(w));
    VECTOR_STEPS(2, 40, 58)
    store_state_avx512(at58, a, b, c, d, e);
    VECTOR_STEPS(2, 58, 60)
    VECTOR_STEPS(3, 60, 65)
    store_state_avx512(at65, a, b, c, d, e);
    VECTOR_STEPS(3, 65, 80)
    store_state_avx512(state, _mm512_add_epi32(a, a0), _mm512_add_epi32(b, b0), _mm512_add_epi32(c, c0),
        _mm512_add_epi32(d, d0), _mm512_add_epi32(e, e0));
}

/* Undoes steps to-1 down to from, all in round `round`. */
#define VECTOR_STEPS_BACK(round, from, to) \
    for (int t = (to) - 1; t >= (from); t--) { \
        static const uint32_t constant[4] = {0x5a827999u, 0x6ed9eba1u, 0x8f1bbcdcu, 0xca62c1d6u}; \
        __m512i earlier_b = _mm512_rol_epi32(c, 2); \
        __m512i f = _mm512_ternarylogic_epi32(earlier_b, d, e, (round) == 0 ? 0xca : (round) == 2 ? 0xe8 : 0x96); \
        __m512i earlier_e = _mm512_sub_epi32( \
            a, _mm512_add_epi32(_mm512_rol_epi32(b, 5), \
                   _mm512_add_epi32(f, _mm512_add_epi32(w[t], _mm512_set1_epi32((int)constant[round]))))); \
        a = b; \
        b = earlier_b; \
        c = d; \
        d = e; \
        e = earlier_e; \
    }

AVX512_TARGET uint32_t cgw_sha1dc_check16_avx512(const uint8_t *const blocks[16], const uint32_t *differences,
    const uint32_t vectors[16], int test_step, const uint32_t start[5][16], const uint32_t output[5][16]) {
    __m512i w[80];
    load_words_at_avx512(w, blocks);
    expand_words_avx512(w, 16, 80);
    /* The other block of the pair: each lane's word t changed by its vector's difference. */
    const __m512i rows = _mm512_mullo_epi32(_mm512_loadu_si512(vectors), _mm512_set1_epi32(80));
    for (int t = 0; t < 80; t++)
        w[t] = _mm512_xor_si512(
            w[t], _mm512_i32gather_epi32(_mm512_add_epi32(rows, _mm512_set1_epi32(t)), (const void *)differences, 4));
    const __m512i a0 = _mm512_loadu_si512(start[0]), b0 = _mm512_loadu_si512(start[1]),
                  c0 = _mm512_loadu_si512(start[2]), d0 = _mm512_loadu_si512(start[3]),
                  e0 = _mm512_loadu_si512(start[4]);
    /* Back to the chaining value the other block would need... */
    __m512i a = a0, b = b0, c = c0, d = d0, e = e0;
    if (test_step == 65) VECTOR_STEPS_BACK(3, 60, 65)
    VECTOR_STEPS_BACK(2, 40, test_step == 65 ? 60 : 58)
    VECTOR_STEPS_BACK(1, 20, 40)
    VECTOR_STEPS_BACK(0, 0, 20)
    const __m512i input[5] = {a, b, c, d, e};
    /* ...and on to its output from there. */
    a = a0, b = b0, c = c0, d = d0, e = e0;
    if (test_step == 58) VECTOR_STEPS(2, 58, 60)
    VECTOR_STEPS(3, test_step == 65 ? 65 : 60, 80)
    const __m512i end[5] = {a, b, c, d, e};
    __m512i differs = _mm512_setzero_si512();
    for (int i = 0; i < 5; i++)
        differs = _mm512_or_si512(
            differs, _mm512_xor_si512(_mm512_add_epi32(input[i], end[i]), _mm512_loadu_si512(output[i])));
    return (uint32_t)_mm512_testn_epi32_mask(differs, differs);
}

#undef VECTOR_STEPS_BACK
#undef VECTOR_STEPS

#endif

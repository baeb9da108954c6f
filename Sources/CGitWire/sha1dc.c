/*
 * SHA-1 with collision detection, after Stevens' counter-cryptanalysis (CRYPTO 2013) and Stevens
 * and Shumow's unavoidable attack conditions (USENIX Security 2017).
 *
 * Every known way of building a SHA-1 collision pairs two near-collision blocks built on one of
 * a few disturbance vectors. For a message block M compressed from chaining value IV, and a
 * vector with message difference D, detection asks: is there another chaining value IV' such
 * that block M ^ D compressed from IV' gives the same output as M from IV? If so, the block
 * completes a collision. The state after `t` steps of M (t = the vector's test step) is kept,
 * the steps before it are undone with M ^ D (giving IV') and the ones after it redone with M ^ D;
 * if IV' plus that state equals the real output, the block is an attack.
 *
 * That costs two compressions per vector, so a cheap filter runs first: an attack on a vector
 * must meet that vector's unavoidable bit conditions on the expanded message, which depend on
 * the message block alone. Blocks meeting no vector's conditions (about 95% of random blocks)
 * skip the check. The condition masks of eight blocks are computed at once with AVX2 and the
 * blocks are compressed with the SHA extensions where the CPU has them; a portable version of
 * both runs elsewhere. The two run one after the other, never interleaved in one function: the
 * SHA instructions have only legacy SSE encodings, and on some x86 cores (seen on a Xeon with
 * AVX-512) running them while 256-bit AVX state is live made hashing about 60 times slower.
 *
 * When a block is found to be an attack, the chaining value is replaced by compressing the block
 * twice more (the "safe hash" of the reference implementation, which git prints when it refuses
 * such data): the digest of attack data then differs from that of its colliding twin.
 */
#include "CGitWire.h"
#include "sha1dc_internal.h"
#include "sha1dc_tables.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(CGW_SHA1DC_X86)
#include <cpuid.h>
#endif

#define ROTL(x, n) (((x) << (n)) | ((x) >> (32 - (n))))

/* ---- The disturbance vectors. ---- */

enum { VECTOR_COUNT = 32 };

/* Each vector's test step and the first 16 words of its message difference (the other 64 are
 * their expansion, see sha1dc_tables.h). */
static const struct {
    int test_step;
    uint32_t difference[16];
} vectors[VECTOR_COUNT] = {
#define DV(type, k, b, step, ...) {step, {__VA_ARGS__}},
    CGW_SHA1DC_DISTURBANCE_VECTORS(DV)
#undef DV
};

/* The differences expanded to 80 words, filled once on first use. */
static uint32_t expanded_differences[VECTOR_COUNT][80];
static pthread_once_t expanded_once = PTHREAD_ONCE_INIT;

static void expand_message(uint32_t w[80]);

static void expand_differences(void) {
    for (int v = 0; v < VECTOR_COUNT; v++) {
        memcpy(expanded_differences[v], vectors[v].difference, sizeof vectors[v].difference);
        expand_message(expanded_differences[v]);
    }
}

static uint32_t load_big_endian(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/* Fills w[16...79] from w[0...15] by SHA-1's message expansion. */
static void expand_message(uint32_t w[80]) {
    for (int t = 16; t < 80; t++) {
        uint32_t x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16];
        w[t] = ROTL(x, 1);
    }
}

/* ---- Portable unavoidable-condition filter. ---- */

uint32_t cgw_sha1dc_condition_mask(const uint32_t w[80]) {
    uint32_t mask = 0xffffffffu;
#define C(i, p, j, q, want, dvs) \
    if ((((w[i] >> (p)) ^ (w[j] >> (q))) & 1u) != (want)) mask &= ~(uint32_t)(dvs);
    CGW_SHA1DC_UNAVOIDABLE_CONDITIONS(C)
#undef C
    return mask;
}

/* ---- SHA-1 steps, forward and backward, on a state {a, b, c, d, e}. ---- */

/* f and K of the four rounds of 20 steps; `round` is a constant wherever these are inlined. */
static inline uint32_t round_function(int round, uint32_t b, uint32_t c, uint32_t d) {
    if (round == 0) return ((c ^ d) & b) ^ d;
    if (round == 2) return (b & c) | ((b | c) & d);
    return b ^ c ^ d;
}

static inline uint32_t round_constant(int round) {
    static const uint32_t k[4] = {0x5a827999u, 0x6ed9eba1u, 0x8f1bbcdcu, 0xca62c1d6u};
    return k[round];
}

#define ALWAYS_INLINE static inline __attribute__((always_inline))

/* Steps from...to-1, all in round `round`, on the state {a, b, c, d, e} in s. */
ALWAYS_INLINE void forward_in_round(uint32_t s[5], int round, int from, int to, const uint32_t *w) {
    uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4];
    for (int t = from; t < to; t++) {
        uint32_t next = ROTL(a, 5) + round_function(round, b, c, d) + e + round_constant(round) + w[t];
        e = d;
        d = c;
        c = ROTL(b, 30);
        b = a;
        a = next;
    }
    s[0] = a, s[1] = b, s[2] = c, s[3] = d, s[4] = e;
}

/* Undoes steps to-1 down to from, all in round `round`: from the state after them to the one
 * before. */
ALWAYS_INLINE void backward_in_round(uint32_t s[5], int round, int from, int to, const uint32_t *w) {
    uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4];
    for (int t = to - 1; t >= from; t--) {
        uint32_t earlier_a = b, earlier_b = ROTL(c, 2), earlier_c = d, earlier_d = e;
        e = a - ROTL(earlier_a, 5) - round_function(round, earlier_b, earlier_c, earlier_d) - round_constant(round) - w[t];
        a = earlier_a;
        b = earlier_b;
        c = earlier_c;
        d = earlier_d;
    }
    s[0] = a, s[1] = b, s[2] = c, s[3] = d, s[4] = e;
}

/* Steps from...to-1 (0 <= from <= to <= 80). */
static void run_forward(uint32_t s[5], int from, int to, const uint32_t *w) {
#define SEGMENT(round) \
    { \
        int lo = from > 20 * round ? from : 20 * round, hi = to < 20 * round + 20 ? to : 20 * round + 20; \
        if (lo < hi) forward_in_round(s, round, lo, hi, w); \
    }
    SEGMENT(0) SEGMENT(1) SEGMENT(2) SEGMENT(3)
#undef SEGMENT
}

/* Undoes steps to-1 down to from (0 <= from <= to <= 80). */
static void run_backward(uint32_t s[5], int from, int to, const uint32_t *w) {
#define SEGMENT(round) \
    { \
        int lo = from > 20 * round ? from : 20 * round, hi = to < 20 * round + 20 ? to : 20 * round + 20; \
        if (lo < hi) backward_in_round(s, round, lo, hi, w); \
    }
    SEGMENT(3) SEGMENT(2) SEGMENT(1) SEGMENT(0)
#undef SEGMENT
}

static void compress_expanded(uint32_t state[5], const uint32_t w[80]) {
    uint32_t s[5];
    memcpy(s, state, sizeof s);
    run_forward(s, 0, 80, w);
    for (int i = 0; i < 5; i++) state[i] += s[i];
}

static void load_block(const uint8_t *block, uint32_t w[80]) {
    for (int t = 0; t < 16; t++) w[t] = load_big_endian(block + 4 * t);
    expand_message(w);
}

static void compress_portable(uint32_t state[5], const uint8_t *blocks, size_t count) {
    uint32_t w[80];
    for (size_t n = 0; n < count; n++, blocks += 64) {
        load_block(blocks, w);
        compress_expanded(state, w);
    }
}

/* ---- The full check of one block. ---- */

/* Whether the block `w`, compressed from `input` to `output`, completes a collision attack on
 * one of the vectors in `candidates` (or, with `reduced_round`, a reduced-round one). `before56`
 * and `before64` are the block's states before steps 56 and 64, or NULL to compute them. */
static int completes_attack_from(const uint32_t input[5], const uint32_t w[80], uint32_t candidates,
    const uint32_t output[5], int reduced_round, const uint32_t at58[5], const uint32_t at65[5]);

static int completes_attack(const uint32_t input[5], const uint32_t w[80], uint32_t candidates,
    const uint32_t output[5], int reduced_round, const uint32_t before56[5], const uint32_t before64[5]) {
    uint32_t at58[5], at65[5];
    if (before56 && before64) {
        memcpy(at58, before56, sizeof at58);
        run_forward(at58, 56, 58, w);
        memcpy(at65, before64, sizeof at65);
        run_forward(at65, 64, 65, w);
    } else {
        memcpy(at58, input, sizeof at58);
        run_forward(at58, 0, 58, w);
        memcpy(at65, at58, sizeof at65);
        run_forward(at65, 58, 65, w);
    }
    return completes_attack_from(input, w, candidates, output, reduced_round, at58, at65);
}

/* The same, given the block's states before steps 58 and 65. */
static int completes_attack_from(const uint32_t input[5], const uint32_t w[80], uint32_t candidates,
    const uint32_t output[5], int reduced_round, const uint32_t at58[5], const uint32_t at65[5]) {
    pthread_once(&expanded_once, expand_differences);
    for (int v = 0; v < VECTOR_COUNT; v++) {
        if (!(candidates >> v & 1)) continue;
        /* The other block of the pair an attack on this vector would make. */
        uint32_t other[80];
        for (int t = 0; t < 80; t++) other[t] = w[t] ^ expanded_differences[v][t];
        int from = vectors[v].test_step;
        uint32_t start[5], end[5];
        memcpy(start, from == 58 ? at58 : at65, sizeof start);
        memcpy(end, start, sizeof end);
        run_backward(start, 0, from, other);
        run_forward(end, from, 80, other);
        uint32_t output_differs = 0, input_differs = 0;
        for (int i = 0; i < 5; i++) {
            output_differs |= (start[i] + end[i]) ^ output[i];
            input_differs |= start[i] ^ input[i];
        }
        if (output_differs == 0 || (reduced_round && input_differs == 0)) return 1;
    }
    return 0;
}

/* ---- Implementation choice. ---- */

static int detected_features(void) {
    static int cached = -1;
    int features = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (features >= 0) return features;
    features = 0;
#if defined(CGW_SHA1DC_X86)
    unsigned a, b, c, d;
    if (__get_cpuid(1, &a, &b, &c, &d)) {
        int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
        unsigned b7 = 0;
        if (__get_cpuid_count(7, 0, &a, &b7, &c, &d)) {
            if (ssse3 && sse41 && ((b7 >> 29) & 1)) features |= CGW_SHA1DC_SHA_EXTENSIONS;
            if (osxsave && avx && ((b7 >> 5) & 1)) {
                unsigned lo, hi;
                __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
                if ((lo & 6) == 6) features |= CGW_SHA1DC_AVX2;
                /* AVX-512F, and the OS saving the mask and upper ZMM registers. */
                if ((lo & 0xe6) == 0xe6 && ((b7 >> 16) & 1)) features |= CGW_SHA1DC_AVX512;
            }
        }
    }
#endif
    __atomic_store_n(&cached, features, __ATOMIC_RELAXED);
    return features;
}

int cgw_sha1dc_available_features(void) { return detected_features(); }

/* ---- Streaming interface. ---- */

void cgw_sha1dc_init(cgw_sha1dc_ctx *ctx, int detect_collisions, int features) {
    static const uint32_t initial[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u};
    memcpy(ctx->state, initial, sizeof initial);
    ctx->total = 0;
    ctx->detect = detect_collisions ? 1 : 0;
    ctx->reduced_round = 0;
    ctx->attack = 0;
    ctx->features = (uint8_t)(features & detected_features());
}

void cgw_sha1dc_detect_reduced_round(cgw_sha1dc_ctx *ctx, int on) { ctx->reduced_round = on ? 1 : 0; }

static void compress_blocks(const cgw_sha1dc_ctx *ctx, uint32_t state[5], const uint8_t *blocks, size_t count) {
    if (count == 0) return;
#if defined(CGW_SHA1DC_X86)
    if (ctx->features & CGW_SHA1DC_SHA_EXTENSIONS) {
        cgw_sha1dc_compress_shani(state, blocks, count);
        return;
    }
#endif
    compress_portable(state, blocks, count);
}

/* Compresses the block whose condition mask is `candidates` into the context's state, and checks
 * it. If it completes an attack, records that and moves to the safe hash: the block compressed
 * twice more. With the SHA extensions the check starts from the states they leave midway. */
void cgw_sha1dc_compress_and_check(cgw_sha1dc_ctx *ctx, const uint8_t *block, uint32_t candidates) {
    uint32_t input[5], w[80], *before56 = NULL, *before64 = NULL;
    memcpy(input, ctx->state, sizeof input);
#if defined(CGW_SHA1DC_X86)
    uint32_t midway[16], states[2][5];
    if (ctx->features & CGW_SHA1DC_SHA_EXTENSIONS) {
        cgw_sha1dc_compress_shani_midway(ctx->state, block, midway);
        cgw_sha1dc_midway_states(midway, states[0], states[1]);
        before56 = states[0];
        before64 = states[1];
    } else
#endif
        compress_blocks(ctx, ctx->state, block, 1);
    load_block(block, w);
    if (completes_attack(input, w, candidates, ctx->state, ctx->reduced_round, before56, before64)) {
        ctx->attack = 1;
        compress_expanded(ctx->state, w);
        compress_expanded(ctx->state, w);
    }
}

/* Takes the blocks in batches: the condition masks of a batch (sixteen blocks with AVX-512, eight
 * with AVX2, else one), then the compression of the blocks up to each flagged one, its own, and
 * its check. */
/* From how many blocks a short batch takes the vector masks: for one block alone the portable
 * masks are as fast (measured on 100- to 20,000-byte messages). */
enum { SHORT_BATCH_MINIMUM = 2 };

size_t cgw_sha1dc_condition_masks(int features, const uint8_t *blocks, size_t count, uint32_t masks[16]) {
#if defined(CGW_SHA1DC_X86)
    if (count >= 16 && (features & CGW_SHA1DC_AVX512)) {
        cgw_sha1dc_condition_masks_avx512(blocks, masks);
        return 16;
    } else if (count >= 8 && (features & CGW_SHA1DC_AVX2)) {
        cgw_sha1dc_condition_masks_avx2(blocks, masks);
        return 8;
    } else if (count >= SHORT_BATCH_MINIMUM && (features & (CGW_SHA1DC_AVX512 | CGW_SHA1DC_AVX2))) {
        /* The last few blocks (most objects are a few blocks long): in a zeroed copy of a whole
         * batch, whose extra lanes are ignored; cheaper than the portable masks one by one. */
        uint8_t padded[16 * 64];
        uint32_t all[16];
        memcpy(padded, blocks, 64 * count);
        memset(padded + 64 * count, 0, sizeof padded - 64 * count);
        if (features & CGW_SHA1DC_AVX512)
            cgw_sha1dc_condition_masks_avx512(padded, all);
        else
            cgw_sha1dc_condition_masks_avx2(padded, all);
        memcpy(masks, all, count * sizeof *masks);
        return count;
    }
#else
    (void)features;
    (void)count;
#endif
    uint32_t w[80];
    load_block(blocks, w);
    masks[0] = cgw_sha1dc_condition_mask(w);
    return 1;
}

static void process_blocks(cgw_sha1dc_ctx *ctx, const uint8_t *blocks, size_t count) {
    while (count > 0) {
        uint32_t masks[16];
        size_t batch = cgw_sha1dc_condition_masks(ctx->features, blocks, count, masks);
        size_t done = 0;
        for (size_t k = 0; k < batch; k++) {
            if (masks[k] == 0) continue;
            compress_blocks(ctx, ctx->state, blocks + 64 * done, k - done);
            cgw_sha1dc_compress_and_check(ctx, blocks + 64 * k, masks[k]);
            done = k + 1;
        }
        compress_blocks(ctx, ctx->state, blocks + 64 * done, batch - done);
        blocks += 64 * batch;
        count -= batch;
    }
}

static void process(cgw_sha1dc_ctx *ctx, const uint8_t *blocks, size_t count) {
    if (!ctx->detect) {
        compress_blocks(ctx, ctx->state, blocks, count);
        return;
    }
    process_blocks(ctx, blocks, count);
}

void cgw_sha1dc_update(cgw_sha1dc_ctx *ctx, const void *data, size_t count) {
    if (count == 0) return; /* `data` may then be NULL */
    const uint8_t *bytes = data;
    size_t buffered = (size_t)(ctx->total & 63);
    ctx->total += count;
    if (buffered) {
        size_t take = 64 - buffered;
        if (take > count) take = count;
        memcpy(ctx->buffer + buffered, bytes, take);
        bytes += take;
        count -= take;
        if (buffered + take < 64) return;
        process(ctx, ctx->buffer, 1);
    }
    size_t whole = count / 64;
    process(ctx, bytes, whole);
    memcpy(ctx->buffer, bytes + 64 * whole, count - 64 * whole);
}

int cgw_sha1dc_final(cgw_sha1dc_ctx *ctx, uint8_t digest[20]) {
    uint64_t bits = ctx->total * 8;
    size_t buffered = (size_t)(ctx->total & 63);
    uint8_t tail[128];
    memcpy(tail, ctx->buffer, buffered);
    tail[buffered] = 0x80;
    size_t length = buffered < 56 ? 64 : 128;
    memset(tail + buffered + 1, 0, length - buffered - 1);
    for (int i = 0; i < 8; i++) tail[length - 1 - i] = (uint8_t)(bits >> (8 * i));
    process(ctx, tail, length / 64);
    for (int i = 0; i < 5; i++) {
        digest[4 * i] = (uint8_t)(ctx->state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(ctx->state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(ctx->state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)ctx->state[i];
    }
    return ctx->attack;
}

/* ---- Many messages at once. ----
 *
 * With AVX-512, up to sixteen messages are hashed side by side, one block of each per step (see
 * cgw_sha1dc_compress16_avx512). A lane whose message ends takes the next job; when fewer lanes
 * than HANDOFF_LANES are left busy and no job waits, the rest finish one by one on the streaming
 * path (the SHA extensions), which is faster for a few messages than a mostly idle vector: a step
 * of sixteen lanes costs what about six blocks cost one at a time (Tools/bench-hash-lanes.sh
 * measures it), so six busy lanes or fewer are no dearer streamed. */

enum { LANES = 16, HANDOFF_LANES = 7 };

typedef cgw_sha1dc_lane hash_lane;

const uint8_t *cgw_sha1dc_lane_block(const hash_lane *lane, uint8_t out[64]) {
    const cgw_sha1dc_job *job = lane->job;
    uint64_t p = lane->position;
    if (p >= job->prefix_length && p + 64 <= lane->length) return job->data + (p - job->prefix_length);
    for (int i = 0; i < 64; i++, p++) {
        if (p < job->prefix_length)
            out[i] = job->prefix[p];
        else if (p < lane->length)
            out[i] = job->data[p - job->prefix_length];
        else
            out[i] = p == lane->length ? 0x80 : 0;
    }
    if (lane->position + 64 == lane->padded) {
        uint64_t bits = lane->length * 8;
        for (int i = 0; i < 8; i++) out[63 - i] = (uint8_t)(bits >> (8 * i));
    }
    return out;
}

static const uint32_t initial_state[5] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u};

/* One job on the streaming path. */
static void hash_job(cgw_sha1dc_job *job, int features) {
    cgw_sha1dc_ctx ctx;
    cgw_sha1dc_init(&ctx, 1, features);
    cgw_sha1dc_update(&ctx, job->prefix, job->prefix_length);
    cgw_sha1dc_update(&ctx, job->data, job->length);
    job->attack = (uint8_t)cgw_sha1dc_final(&ctx, job->digest);
}

void cgw_sha1dc_finish_lane(const hash_lane *lane, cgw_sha1dc_ctx *ctx) {
    ctx->total = lane->position;
    cgw_sha1dc_job *job = lane->job;
    if (lane->position <= lane->length) {
        uint64_t p = lane->position;
        if (p < job->prefix_length) {
            cgw_sha1dc_update(ctx, job->prefix + p, job->prefix_length - p);
            p = job->prefix_length;
        }
        cgw_sha1dc_update(ctx, job->data + (p - job->prefix_length), lane->length - p);
        job->attack = (uint8_t)cgw_sha1dc_final(ctx, job->digest);
        return;
    }
    /* Only padding is left: its last block, checked as any other. */
    uint8_t block[64];
    process(ctx, cgw_sha1dc_lane_block(lane, block), 1);
    cgw_sha1dc_write_digest(ctx->state, job->digest);
    job->attack = ctx->attack;
}

#if defined(CGW_SHA1DC_X86)

/* Longest first: the short ones then fill the lanes the long ones leave, and the lanes run out
 * of work close together. */
static int longer_first(const void *x, const void *y) {
    const cgw_sha1dc_job *a = *(cgw_sha1dc_job *const *)x, *b = *(cgw_sha1dc_job *const *)y;
    size_t la = a->prefix_length + a->length, lb = b->prefix_length + b->length;
    return la > lb ? -1 : la < lb;
}

/* Full checks waiting for a vector of their own: one (block, disturbance vector) pair each, all
 * of vectors testing from one step. */
typedef struct {
    int test_step;
    int count;
    cgw_sha1dc_job *jobs[LANES];
    uint32_t vectors[LANES];
    uint32_t start[5][LANES], output[5][LANES];
    uint8_t blocks[LANES][64];
} check_queue;

/* The jobs found to hold an attack, to be hashed again on the streaming path. */
typedef struct {
    cgw_sha1dc_job **jobs;
    size_t count, capacity;
    int failed; /* no memory for the list: every job is hashed again */
} redo_list;

static void add_redo(redo_list *redo, cgw_sha1dc_job *job) {
    for (size_t n = 0; n < redo->count; n++)
        if (redo->jobs[n] == job) return;
    if (redo->count == redo->capacity) {
        size_t capacity = redo->capacity ? 2 * redo->capacity : 8;
        cgw_sha1dc_job **grown = realloc(redo->jobs, capacity * sizeof *grown);
        if (!grown) {
            redo->failed = 1;
            return;
        }
        redo->jobs = grown;
        redo->capacity = capacity;
    }
    redo->jobs[redo->count++] = job;
}

/* Runs the waiting checks, sixteen lanes at once (lanes left over check the first pair again). */
static void flush_checks(check_queue *queue, redo_list *redo) {
    if (queue->count == 0) return;
    const uint8_t *blocks[LANES];
    for (int k = 0; k < LANES; k++) {
        int from = k < queue->count ? k : 0;
        blocks[k] = queue->blocks[from];
        if (k >= queue->count) {
            queue->vectors[k] = queue->vectors[0];
            for (int i = 0; i < 5; i++) {
                queue->start[i][k] = queue->start[i][0];
                queue->output[i][k] = queue->output[i][0];
            }
        }
    }
    uint32_t attacks = cgw_sha1dc_check16_avx512(
        blocks, &expanded_differences[0][0], queue->vectors, queue->test_step, queue->start, queue->output);
    for (int k = 0; k < queue->count; k++)
        if (attacks >> k & 1) add_redo(redo, queue->jobs[k]);
    queue->count = 0;
}

/* Queues the full checks of lane k's block: one per vector of its condition mask. */
static void queue_checks(check_queue queues[2], redo_list *redo, cgw_sha1dc_job *job, const uint8_t *block,
    uint32_t mask, int k, uint32_t at58[5][LANES], uint32_t at65[5][LANES], uint32_t state[5][LANES]) {
    for (; mask; mask &= mask - 1) {
        int v = __builtin_ctz(mask);
        check_queue *queue = &queues[vectors[v].test_step == 58 ? 0 : 1];
        int slot = queue->count++;
        queue->jobs[slot] = job;
        queue->vectors[slot] = (uint32_t)v;
        memcpy(queue->blocks[slot], block, 64);
        for (int i = 0; i < 5; i++) {
            queue->start[i][slot] = queue->test_step == 58 ? at58[i][k] : at65[i][k];
            queue->output[i][slot] = state[i][k];
        }
        if (queue->count == LANES) flush_checks(queue, redo);
    }
}

struct cgw_sha1dc_deferred {
    check_queue *queues;
    redo_list *redo;
};

void cgw_sha1dc_defer_check(
    cgw_sha1dc_deferred *deferred, cgw_sha1dc_ctx *ctx, cgw_sha1dc_job *job, const uint8_t *block, uint32_t candidates) {
    uint32_t midway[16], before[2][5], w[80];
    cgw_sha1dc_compress_shani_midway(ctx->state, block, midway);
    cgw_sha1dc_midway_states(midway, before[0], before[1]);
    load_block(block, w);
    run_forward(before[0], 56, 58, w);
    run_forward(before[1], 64, 65, w);
    for (uint32_t mask = candidates; mask; mask &= mask - 1) {
        int v = __builtin_ctz(mask);
        int queue_index = vectors[v].test_step == 58 ? 0 : 1;
        check_queue *queue = &deferred->queues[queue_index];
        int slot = queue->count++;
        queue->jobs[slot] = job;
        queue->vectors[slot] = (uint32_t)v;
        memcpy(queue->blocks[slot], block, 64);
        for (int i = 0; i < 5; i++) {
            queue->start[i][slot] = before[queue_index][i];
            queue->output[i][slot] = ctx->state[i];
        }
        if (queue->count == LANES) flush_checks(queue, deferred->redo);
    }
}

/* Runs the checks still queued, then hashes again from the start, on the streaming path, each job
 * found to hold an attack (every job if the list of them could not be kept). */
static void finish_checks(check_queue queues[2], redo_list *redo, cgw_sha1dc_job *jobs, size_t count, int features) {
    flush_checks(&queues[0], redo);
    flush_checks(&queues[1], redo);
    if (redo->failed) {
        for (size_t n = 0; n < count; n++) hash_job(&jobs[n], features);
    } else {
        for (size_t n = 0; n < redo->count; n++) hash_job(redo->jobs[n], features);
    }
}

/* Hashes the jobs sixteen lanes at a time. A block flagged by its condition mask is not checked
 * at once: its checks wait until sixteen are queued and then run side by side, while the lane goes
 * on as if the block were no attack. A job found to hold one (which real data never does) is then
 * hashed again from the start on the streaming path, which switches to the safe hash where the
 * attack begins, as the lanes would have. */
static void hash_jobs_avx512(cgw_sha1dc_job *jobs, size_t count, int features) {
    cgw_sha1dc_job *order_buffer[256], **order = count <= 256 ? order_buffer : malloc(count * sizeof *order);
    check_queue *queues = malloc(2 * sizeof *queues);
    if (!order || !queues) {
        if (order != order_buffer) free(order);
        free(queues);
        for (size_t n = 0; n < count; n++) hash_job(&jobs[n], features);
        return;
    }
    pthread_once(&expanded_once, expand_differences);
    queues[0].test_step = 58;
    queues[1].test_step = 65;
    queues[0].count = queues[1].count = 0;
    redo_list redo = {NULL, 0, 0, 0};
    for (size_t n = 0; n < count; n++) order[n] = &jobs[n];
    qsort(order, count, sizeof *order, longer_first);
    hash_lane lanes[LANES];
    uint32_t state[5][LANES], at58[5][LANES], at65[5][LANES], masks[LANES];
    _Alignas(64) uint8_t scratch[LANES][64];
    const uint8_t *blocks[LANES];
    size_t next = 0;
    int busy = 0;
    memset(lanes, 0, sizeof lanes);
    memset(scratch, 0, sizeof scratch);
    memset(state, 0, sizeof state);
    for (;;) {
        for (int k = 0; k < LANES && next < count; k++) {
            if (lanes[k].job) continue;
            cgw_sha1dc_job *job = order[next++];
            hash_lane *lane = &lanes[k];
            lane->job = job;
            lane->position = 0;
            lane->length = job->prefix_length + job->length;
            lane->padded = (lane->length + 8 + 64) & ~(uint64_t)63;
            for (int i = 0; i < 5; i++) state[i][k] = initial_state[i];
            busy++;
        }
        if (busy == 0) break;
        if (next == count && busy < HANDOFF_LANES) break;
        for (int k = 0; k < LANES; k++) blocks[k] = lanes[k].job ? cgw_sha1dc_lane_block(&lanes[k], scratch[k]) : scratch[k];
        cgw_sha1dc_compress16_avx512(state, blocks, masks, at58, at65);
        for (int k = 0; k < LANES; k++) {
            hash_lane *lane = &lanes[k];
            if (!lane->job) continue;
            if (masks[k]) queue_checks(queues, &redo, lane->job, blocks[k], masks[k], k, at58, at65, state);
            lane->position += 64;
            if (lane->position == lane->padded) {
                uint32_t out[5];
                for (int i = 0; i < 5; i++) out[i] = state[i][k];
                cgw_sha1dc_write_digest(out, lane->job->digest);
                lane->job->attack = 0;
                lane->job = NULL;
                busy--;
            }
        }
    }
    /* The last few lanes on the streaming path, from the states the vectors left. */
    hash_lane rest[LANES];
    cgw_sha1dc_ctx contexts[LANES];
    size_t left = 0;
    for (int k = 0; k < LANES; k++) {
        if (!lanes[k].job) continue;
        rest[left] = lanes[k];
        cgw_sha1dc_init(&contexts[left], 1, features);
        for (int i = 0; i < 5; i++) contexts[left].state[i] = state[i][k];
        left++;
    }
    if (left >= 2 && (features & CGW_SHA1DC_SHA_EXTENSIONS)) {
        /* Their flagged blocks' checks join the same queues. */
        cgw_sha1dc_deferred deferred = {queues, &redo};
        cgw_sha1dc_finish_lanes_in_pairs(rest, contexts, left, &deferred);
    } else {
        for (size_t n = 0; n < left; n++) cgw_sha1dc_finish_lane(&rest[n], &contexts[n]);
    }
    finish_checks(queues, &redo, jobs, count, features);
    free(redo.jobs);
    free(queues);
    if (order != order_buffer) free(order);
}
#endif

/* Hashes lanes from their contexts two at a time (see sha1dc_pairs.c); with AVX-512 the checks of
 * flagged blocks wait in queues and run sixteen at a time, as in the lanes. */
static void finish_in_pairs(const hash_lane *lanes, cgw_sha1dc_ctx *contexts, size_t count, int features) {
#if defined(CGW_SHA1DC_X86)
    check_queue *queues = (features & CGW_SHA1DC_AVX512) ? malloc(2 * sizeof *queues) : NULL;
    if (queues) {
        pthread_once(&expanded_once, expand_differences);
        queues[0].test_step = 58;
        queues[1].test_step = 65;
        queues[0].count = queues[1].count = 0;
        redo_list redo = {NULL, 0, 0, 0};
        cgw_sha1dc_deferred deferred = {queues, &redo};
        cgw_sha1dc_finish_lanes_in_pairs(lanes, contexts, count, &deferred);
        /* The jobs of these lanes: hash_jobs_streaming's, consecutive. */
        finish_checks(queues, &redo, lanes[0].job, count, features);
        free(redo.jobs);
        free(queues);
        return;
    }
#else
    (void)features;
#endif
    cgw_sha1dc_finish_lanes_in_pairs(lanes, contexts, count, NULL);
}

/* Hashes `count` jobs from their start, two at a time side by side when the SHA extensions are
 * there (see sha1dc_pairs.c), else one after the other. */
static void hash_jobs_streaming(cgw_sha1dc_job *jobs, size_t count, int features) {
    enum { ON_STACK = 16 };
    hash_lane lanes_buffer[ON_STACK], *lanes = lanes_buffer;
    cgw_sha1dc_ctx contexts_buffer[ON_STACK], *contexts = contexts_buffer;
    if (count > ON_STACK) {
        lanes = malloc(count * sizeof *lanes);
        contexts = malloc(count * sizeof *contexts);
    }
    if (count < 2 || !(features & CGW_SHA1DC_SHA_EXTENSIONS) || !lanes || !contexts) {
        for (size_t n = 0; n < count; n++) hash_job(&jobs[n], features);
    } else {
        for (size_t n = 0; n < count; n++) {
            lanes[n].job = &jobs[n];
            lanes[n].position = 0;
            lanes[n].length = jobs[n].prefix_length + jobs[n].length;
            lanes[n].padded = (lanes[n].length + 8 + 64) & ~(uint64_t)63;
            cgw_sha1dc_init(&contexts[n], 1, features);
        }
        finish_in_pairs(lanes, contexts, count, features);
    }
    if (lanes != lanes_buffer) free(lanes);
    if (contexts != contexts_buffer) free(contexts);
}

void cgw_sha1dc_hash_jobs(cgw_sha1dc_job *jobs, size_t count, int features) {
    features &= detected_features();
#if defined(CGW_SHA1DC_X86)
    if ((features & CGW_SHA1DC_AVX512) && count >= HANDOFF_LANES) {
        hash_jobs_avx512(jobs, count, features);
        return;
    }
#endif
    hash_jobs_streaming(jobs, count, features);
}

/*
 * Messages hashed two at a time on the SHA extensions, with collision detection (see sha1dc.c).
 *
 * One message's SHA-1 is a chain of steps each waiting on the last, so hashed alone it leaves the
 * SHA units idle much of the time; two messages' blocks compressed in one loop fill them
 * (cgw_sha1dc_compress2_shani: 1.6-1.8 times the bytes a second). The batches of a few large
 * objects, and the last lanes of a batch hashed sixteen at a time, were hashed one by one on the
 * streaming path; they are now hashed in pairs. Each message keeps its own context, so its digest,
 * its collision checks and its safe hash are those of the streaming path: the condition masks of
 * up to sixteen blocks of each message are computed first (as the streaming path does, never
 * interleaved with the SHA instructions), then the blocks are compressed side by side up to the
 * next block either message's mask flags, which is compressed and checked alone.
 */
#include "CGitWire.h"
#include "sha1dc_internal.h"

#include <string.h>

#if defined(CGW_SHA1DC_X86)
/* Up to where the lane's next blocks lie whole in the job's data: their start, and in
 * `*available` how many of them there are. Elsewhere (the prefix's block, the last data and the
 * padding) one block, written to `scratch`. */
static const uint8_t *lane_run(const cgw_sha1dc_lane *lane, uint8_t scratch[64], size_t *available) {
    const cgw_sha1dc_job *job = lane->job;
    uint64_t p = lane->position;
    if (p >= job->prefix_length && p + 64 <= lane->length) {
        *available = (size_t)((lane->length - p) / 64);
        return job->data + (p - job->prefix_length);
    }
    *available = 1;
    return cgw_sha1dc_lane_block(lane, scratch);
}

/* `count` blocks of the two messages: side by side up to each block one of them flags. */
static void compress_pair(cgw_sha1dc_ctx *ctx[2], cgw_sha1dc_job *jobs[2], const uint8_t *blocks[2], uint32_t masks[2][16],
    size_t count, cgw_sha1dc_deferred *deferred) {
    size_t done = 0;
    for (size_t i = 0; i < count; i++) {
        if (!(masks[0][i] | masks[1][i])) continue;
        cgw_sha1dc_compress2_shani(ctx[0]->state, blocks[0] + 64 * done, ctx[1]->state, blocks[1] + 64 * done, i - done);
        for (int k = 0; k < 2; k++) {
            if (masks[k][i] && deferred)
                cgw_sha1dc_defer_check(deferred, ctx[k], jobs[k], blocks[k] + 64 * i, masks[k][i]);
            else if (masks[k][i])
                cgw_sha1dc_compress_and_check(ctx[k], blocks[k] + 64 * i, masks[k][i]);
            else
                cgw_sha1dc_compress_shani(ctx[k]->state, blocks[k] + 64 * i, 1);
        }
        done = i + 1;
    }
    cgw_sha1dc_compress2_shani(ctx[0]->state, blocks[0] + 64 * done, ctx[1]->state, blocks[1] + 64 * done, count - done);
}
#endif

void cgw_sha1dc_finish_lanes_in_pairs(
    const cgw_sha1dc_lane *lanes, cgw_sha1dc_ctx *contexts, size_t count, cgw_sha1dc_deferred *deferred) {
#if defined(CGW_SHA1DC_X86)
    cgw_sha1dc_lane pair[2];
    cgw_sha1dc_ctx *ctx[2] = {NULL, NULL};
    size_t next = 0;
    for (;;) {
        for (int k = 0; k < 2; k++) {
            if (ctx[k] || next == count) continue;
            pair[k] = lanes[next];
            ctx[k] = &contexts[next++];
        }
        if (!ctx[0] || !ctx[1]) {
            /* No other message to pair the last one with. */
            int k = ctx[0] ? 0 : 1;
            if (ctx[k]) cgw_sha1dc_finish_lane(&pair[k], ctx[k]);
            return;
        }
        uint8_t scratch[2][64];
        const uint8_t *blocks[2];
        size_t available[2];
        for (int k = 0; k < 2; k++) blocks[k] = lane_run(&pair[k], scratch[k], &available[k]);
        size_t run = available[0] < available[1] ? available[0] : available[1];
        if (run > 16) run = 16;
        uint32_t masks[2][16];
        for (int k = 0; k < 2; k++) {
            for (size_t done = 0; done < run;)
                done += cgw_sha1dc_condition_masks(ctx[k]->features, blocks[k] + 64 * done, run - done, masks[k] + done);
        }
        cgw_sha1dc_job *jobs[2] = {pair[0].job, pair[1].job};
        compress_pair(ctx, jobs, blocks, masks, run, deferred);
        for (int k = 0; k < 2; k++) {
            pair[k].position += 64 * run;
            if (pair[k].position < pair[k].padded) continue;
            cgw_sha1dc_write_digest(ctx[k]->state, pair[k].job->digest);
            pair[k].job->attack = ctx[k]->attack;
            ctx[k] = NULL;
        }
    }
#else
    (void)deferred;
    for (size_t n = 0; n < count; n++) cgw_sha1dc_finish_lane(&lanes[n], &contexts[n]);
#endif
}

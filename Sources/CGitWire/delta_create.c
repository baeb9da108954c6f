/*
 * Making git deltas: the instructions that rebuild a target from a source (copy a range of the
 * source, or insert literal bytes), for the packs a push writes. The source is indexed by a hash
 * of each 16-byte block at 16-byte steps; the target is scanned with a rolling hash of its last
 * 16 bytes, and a hit is checked byte by byte and grown both ways. The output is git's pack delta
 * format (gitformat-pack, "Deltified representation"), which cgw_delta_run reads.
 */
#include "CGitWire.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK 16
#define MAX_BUCKET 64
#define MAX_COPY 0x10000
#define MAX_INSERT 127
#define BASE 0x01000193u

struct cgw_delta_index {
    const uint8_t *source;
    size_t length;
    uint32_t mask;
    uint32_t *heads;   /* per bucket: first entry + 1, 0 for none */
    uint32_t *next;    /* per entry: next entry + 1 in the bucket */
    uint32_t *offsets; /* per entry: the block's offset in the source */
    uint16_t *counts;  /* per bucket: entries kept */
    uint32_t power;    /* BASE^BLOCK, to drop the oldest byte of the rolling hash */
};

static uint32_t block_hash(const uint8_t *p) {
    uint32_t h = 0;
    for (int i = 0; i < BLOCK; i++) h = h * BASE + p[i] + 1;
    return h;
}

static uint32_t bucket_of(uint32_t hash, uint32_t mask) { return (hash * 0x9E3779B1u) >> 7 & mask; }

cgw_delta_index *cgw_delta_index_new(const uint8_t *source, size_t length) {
    if (length > UINT32_MAX) return NULL;
    cgw_delta_index *index = calloc(1, sizeof *index);
    if (!index) return NULL;
    index->source = source;
    index->length = length;
    size_t blocks = length / BLOCK;
    uint32_t buckets = 16;
    while (buckets < blocks && buckets < (1u << 30)) buckets <<= 1;
    index->mask = buckets - 1;
    index->heads = calloc(buckets, sizeof(uint32_t));
    index->counts = calloc(buckets, sizeof(uint16_t));
    index->next = malloc((blocks + 1) * sizeof(uint32_t));
    index->offsets = malloc((blocks + 1) * sizeof(uint32_t));
    if (!index->heads || !index->counts || !index->next || !index->offsets) {
        cgw_delta_index_free(index);
        return NULL;
    }
    index->power = 1;
    for (int i = 0; i < BLOCK; i++) index->power *= BASE;
    /* From the end backwards, so that each bucket lists earlier blocks first. Long runs of one
     * hash (repeated content) keep only MAX_BUCKET entries: the search stays linear. */
    uint32_t entries = 0;
    for (size_t b = blocks; b-- > 0;) {
        size_t offset = b * BLOCK;
        uint32_t bucket = bucket_of(block_hash(source + offset), index->mask);
        if (index->counts[bucket] >= MAX_BUCKET) continue;
        index->counts[bucket]++;
        index->offsets[entries] = (uint32_t)offset;
        index->next[entries] = index->heads[bucket];
        index->heads[bucket] = ++entries;
    }
    return index;
}

void cgw_delta_index_free(cgw_delta_index *index) {
    if (!index) return;
    free(index->heads);
    free(index->counts);
    free(index->next);
    free(index->offsets);
    free(index);
}

size_t cgw_delta_index_size(const cgw_delta_index *index) {
    return sizeof *index + (index->mask + 1) * (sizeof(uint32_t) + sizeof(uint16_t)) +
           (index->length / BLOCK + 1) * 2 * sizeof(uint32_t);
}

static int put_varint(uint8_t *out, size_t *at, size_t limit, size_t value) {
    do {
        if (*at >= limit) return 0;
        uint8_t byte = value & 0x7f;
        value >>= 7;
        out[(*at)++] = byte | (value ? 0x80 : 0);
    } while (value);
    return 1;
}

static int put_insert(uint8_t *out, size_t *at, size_t limit, const uint8_t *bytes, size_t count) {
    while (count > 0) {
        size_t piece = count < MAX_INSERT ? count : MAX_INSERT;
        if (*at + 1 + piece > limit) return 0;
        out[(*at)++] = (uint8_t)piece;
        memcpy(out + *at, bytes, piece);
        *at += piece;
        bytes += piece;
        count -= piece;
    }
    return 1;
}

static int put_copy(uint8_t *out, size_t *at, size_t limit, size_t offset, size_t count) {
    while (count > 0) {
        size_t piece = count < MAX_COPY ? count : MAX_COPY;
        if (*at + 8 > limit) return 0;
        size_t op = (*at)++;
        uint8_t code = 0x80;
        for (int bit = 0; bit < 4; bit++) {
            uint8_t byte = (offset >> (8 * bit)) & 0xff;
            if (byte) {
                code |= 1u << bit;
                out[(*at)++] = byte;
            }
        }
        size_t size = piece == 0x10000 ? 0 : piece;
        for (int bit = 0; bit < 3; bit++) {
            uint8_t byte = (size >> (8 * bit)) & 0xff;
            if (byte) {
                code |= 0x10u << bit;
                out[(*at)++] = byte;
            }
        }
        out[op] = code;
        offset += piece;
        count -= piece;
    }
    return 1;
}

size_t cgw_delta_create(const cgw_delta_index *index, const uint8_t *target, size_t target_length, uint8_t *out,
    size_t out_limit) {
    const uint8_t *source = index->source;
    size_t source_length = index->length;
    size_t at = 0;
    if (!put_varint(out, &at, out_limit, source_length) || !put_varint(out, &at, out_limit, target_length)) return 0;
    size_t literal = 0; /* start of the bytes not yet emitted */
    size_t pos = 0;
    uint32_t hash = target_length >= BLOCK ? block_hash(target) : 0;
    while (pos + BLOCK <= target_length) {
        size_t best_length = 0, best_offset = 0;
        for (uint32_t e = index->heads[bucket_of(hash, index->mask)]; e; e = index->next[e - 1]) {
            size_t offset = index->offsets[e - 1];
            if (source[offset] != target[pos]) continue;
            size_t most = source_length - offset;
            if (most > target_length - pos) most = target_length - pos;
            size_t length = 0;
            while (length < most && source[offset + length] == target[pos + length]) length++;
            if (length > best_length) {
                best_length = length;
                best_offset = offset;
                if (length == most) break;
            }
        }
        if (best_length >= BLOCK) {
            /* Grow the match backwards over bytes still waiting to be inserted. */
            while (pos > literal && best_offset > 0 && source[best_offset - 1] == target[pos - 1]) {
                pos--;
                best_offset--;
                best_length++;
            }
            if (!put_insert(out, &at, out_limit, target + literal, pos - literal)) return 0;
            if (!put_copy(out, &at, out_limit, best_offset, best_length)) return 0;
            pos += best_length;
            literal = pos;
            if (pos + BLOCK <= target_length) hash = block_hash(target + pos);
            continue;
        }
        if (pos + BLOCK < target_length)
            hash = hash * BASE - (target[pos] + 1u) * index->power + target[pos + BLOCK] + 1u;
        pos++;
        if (at + (pos - literal) > out_limit) return 0;
    }
    if (!put_insert(out, &at, out_limit, target + literal, target_length - literal)) return 0;
    return at;
}

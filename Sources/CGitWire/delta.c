/*
 * Git's delta instructions run with memcpy: the hot loop of delta resolution. The rules are those
 * of GitWireCore's Delta.apply, which stays the reference: this only says whether the
 * instructions are valid and, if so, writes their result; the caller learns what is wrong with an
 * invalid delta from Delta.apply.
 */
#include "CGitWire.h"

#include <string.h>

int cgw_delta_run(const uint8_t *base, size_t base_length, const uint8_t *instructions, size_t length,
    uint8_t *out, size_t out_length) {
    const uint8_t *p = instructions, *end = instructions + length;
    size_t written = 0;
    while (p < end) {
        uint8_t opcode = *p++;
        if (opcode & 0x80) {
            size_t offset = 0, size = 0;
            for (int bit = 0; bit < 4; bit++) {
                if (!(opcode & (1u << bit))) continue;
                if (p == end) return 0;
                offset |= (size_t)*p++ << (8 * bit);
            }
            for (int bit = 0; bit < 3; bit++) {
                if (!(opcode & (0x10u << bit))) continue;
                if (p == end) return 0;
                size |= (size_t)*p++ << (8 * bit);
            }
            if (size == 0) size = 0x10000;
            if (offset > base_length || size > base_length - offset) return 0;
            if (size > out_length - written) return 0;
            memcpy(out + written, base + offset, size);
            written += size;
        } else if (opcode != 0) {
            size_t size = opcode;
            if ((size_t)(end - p) < size || size > out_length - written) return 0;
            memcpy(out + written, p, size);
            p += size;
            written += size;
        } else {
            return 0;
        }
    }
    return written == out_length;
}

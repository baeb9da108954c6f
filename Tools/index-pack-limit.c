/*
 * The speeds behind index-pack's limit, for Tools/index-pack-limit.sh: on the entries of a real
 * pack, how fast zlib and libdeflate inflate them, and how fast gitwire's SHA-1 hashes what they
 * inflate to, with collision detection and without (Sources/CGitWire/sha1dc*.c, compiled in).
 *
 *   index-pack-limit <pack> <idx>
 *
 * Prints: entries, compressed and inflated bytes, and MB/s of inflated output for zlib and
 * libdeflate, and MB/s for checked and plain SHA-1, each the best of three passes.
 */
#include "CGitWire.h"

#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned char *slurp(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (!file) {
        perror(path);
        exit(1);
    }
    fseek(file, 0, SEEK_END);
    *size = (size_t)ftell(file);
    fseek(file, 0, SEEK_SET);
    unsigned char *bytes = malloc(*size);
    if (fread(bytes, 1, *size, file) != *size) exit(1);
    fclose(file);
    return bytes;
}

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t big_endian(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: index-pack-limit <pack> <idx>\n");
        return 2;
    }
    size_t pack_size, index_size;
    unsigned char *pack = slurp(argv[1], &pack_size), *index = slurp(argv[2], &index_size);
    uint32_t count = big_endian(index + 8 + 255 * 4);
    uint64_t *offsets = malloc(sizeof *offsets * (count + 1));
    const unsigned char *small = index + 8 + 1024 + (size_t)count * 24;
    const unsigned char *large = small + (size_t)count * 4;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t word = big_endian(small + 4 * i);
        offsets[i] = word & 0x80000000u ? (uint64_t)big_endian(large + 8 * (word & 0x7fffffffu)) << 32 |
                                              big_endian(large + 8 * (word & 0x7fffffffu) + 4)
                                        : word;
    }
    qsort(offsets, count, sizeof *offsets, by_value);
    offsets[count] = pack_size - 20;

    size_t *starts = malloc(sizeof *starts * count), *sizes = malloc(sizeof *sizes * count);
    size_t compressed = 0, inflated = 0, largest = 0;
    for (uint32_t i = 0; i < count; i++) {
        const unsigned char *p = pack + offsets[i];
        unsigned byte = *p++;
        int type = (byte >> 4) & 7, shift = 4;
        size_t size = byte & 15;
        while (byte & 0x80) {
            byte = *p++;
            size |= (size_t)(byte & 0x7f) << shift;
            shift += 7;
        }
        if (type == 6) {
            do byte = *p++;
            while (byte & 0x80);
        } else if (type == 7) {
            p += 20;
        }
        starts[i] = (size_t)(p - pack);
        sizes[i] = size;
        compressed += offsets[i + 1] - starts[i];
        inflated += size;
        if (size > largest) largest = size;
    }
    unsigned char *output = malloc(largest + 1);

    double zlib_best = 1e9, deflate_best = 1e9, checked_best = 1e9, plain_best = 1e9;
    struct libdeflate_decompressor *decompressor = libdeflate_alloc_decompressor();
    for (int pass = 0; pass < 3; pass++) {
        z_stream stream;
        memset(&stream, 0, sizeof stream);
        inflateInit(&stream);
        double start = now();
        for (uint32_t i = 0; i < count; i++) {
            inflateReset(&stream);
            stream.next_in = pack + starts[i];
            stream.avail_in = (uInt)(offsets[i + 1] - starts[i]);
            stream.next_out = output;
            stream.avail_out = (uInt)sizes[i] + 1;
            if (inflate(&stream, Z_FINISH) != Z_STREAM_END) return 1;
        }
        double took = now() - start;
        inflateEnd(&stream);
        if (took < zlib_best) zlib_best = took;

        double hash_checked = 0, hash_plain = 0;
        start = now();
        for (uint32_t i = 0; i < count; i++) {
            size_t in = 0, out = 0;
            if (libdeflate_zlib_decompress_ex(
                    decompressor, pack + starts[i], offsets[i + 1] - starts[i], output, sizes[i], &in, &out))
                return 1;
            double before = now();
            cgw_sha1dc_ctx context;
            unsigned char digest[20];
            cgw_sha1dc_init(&context, 1, -1);
            cgw_sha1dc_update(&context, output, sizes[i]);
            cgw_sha1dc_final(&context, digest);
            double middle = now();
            cgw_sha1dc_init(&context, 0, -1);
            cgw_sha1dc_update(&context, output, sizes[i]);
            cgw_sha1dc_final(&context, digest);
            double after = now();
            hash_checked += middle - before;
            hash_plain += after - middle;
            start += after - before; /* hashing is not inflating */
        }
        took = now() - start;
        if (took < deflate_best) deflate_best = took;
        if (hash_checked < checked_best) checked_best = hash_checked;
        if (hash_plain < plain_best) plain_best = hash_plain;
    }
    printf("entries %u\ncompressed %zu\ninflated %zu\n", count, compressed, inflated);
    printf("zlib_mbps %.0f\nlibdeflate_mbps %.0f\n", inflated / zlib_best / 1e6, inflated / deflate_best / 1e6);
    printf("sha1_checked_mbps %.0f\nsha1_plain_mbps %.0f\n", inflated / checked_best / 1e6, inflated / plain_best / 1e6);
    return 0;
}

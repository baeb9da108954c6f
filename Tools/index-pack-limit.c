/*
 * The work behind index-pack's limit, for Tools/index-pack-limit.sh, timed on this machine:
 * every entry of a pack inflated (zlib and libdeflate, best of three passes), and every object of
 * it named as index-pack names it, SHA-1 over `<type> <size>\0<content>` with gitwire's
 * collision-detecting SHA-1 and with plain SHA-1 (Sources/CGitWire/sha1dc*.c, compiled in). The
 * objects come on standard input as `git cat-file --batch-all-objects --batch` writes them; only
 * the hashing is timed.
 *
 *   git cat-file --batch-all-objects --batch | index-pack-limit <pack> <idx>
 *
 * Prints entries, compressed and inflated bytes, seconds to inflate them all with each library,
 * objects and bytes named, and seconds to name them all with each hash.
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

    double zlib_best = 1e9, deflate_best = 1e9;
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

        start = now();
        for (uint32_t i = 0; i < count; i++) {
            size_t in = 0, out = 0;
            if (libdeflate_zlib_decompress_ex(
                    decompressor, pack + starts[i], offsets[i + 1] - starts[i], output, sizes[i], &in, &out))
                return 1;
        }
        took = now() - start;
        if (took < deflate_best) deflate_best = took;
    }

    /* Name every object from standard input, timing the two hashes only. */
    double checked = 0, plain = 0;
    size_t objects = 0, named = 0, capacity = 0;
    unsigned char *content = NULL;
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        char type[16];
        size_t size;
        if (sscanf(line, "%*s %15s %zu", type, &size) != 2) return 1;
        if (size + 1 > capacity) {
            capacity = size + 1;
            content = realloc(content, capacity);
        }
        if (fread(content, 1, size + 1, stdin) != size + 1) return 1;
        char header[64];
        int header_length = snprintf(header, sizeof header, "%s %zu", type, size) + 1;
        unsigned char digest[20];
        cgw_sha1dc_ctx context;
        double before = now();
        cgw_sha1dc_init(&context, 1, -1);
        cgw_sha1dc_update(&context, header, (size_t)header_length);
        cgw_sha1dc_update(&context, content, size);
        cgw_sha1dc_final(&context, digest);
        double middle = now();
        cgw_sha1dc_init(&context, 0, -1);
        cgw_sha1dc_update(&context, header, (size_t)header_length);
        cgw_sha1dc_update(&context, content, size);
        cgw_sha1dc_final(&context, digest);
        double after = now();
        checked += middle - before;
        plain += after - middle;
        objects++;
        named += size + (size_t)header_length;
    }
    printf("entries %u\ncompressed %zu\ninflated %zu\n", count, compressed, inflated);
    printf("zlib_seconds %.3f\nlibdeflate_seconds %.3f\n", zlib_best, deflate_best);
    printf("objects %zu\nnamed %zu\nchecked_seconds %.3f\nplain_seconds %.3f\n", objects, named, checked, plain);
    return 0;
}

/*
 * What a step of the sixteen SHA-1 lanes costs against one block on the streaming path, for
 * Tools/bench-hash-lanes.sh: hashes `count` messages of `size` random bytes with
 * cgw_sha1dc_hash_jobs, sixteen at once (AVX-512 lanes) and one at a time (the streaming path,
 * the SHA extensions), with collision detection, and prints the CPU time of each per byte, the
 * cost of one sixteen-lane step in single blocks, and the number of busy lanes from which the
 * lanes are the cheaper (what HANDOFF_LANES in Sources/CGitWire/sha1dc.c should be).
 *
 *   clang -O2 -ISources/CGitWire/include -ISources/CGitWire -o hash-lanes Tools/hash-lanes.c \
 *       Sources/CGitWire/sha1dc.c Sources/CGitWire/sha1dc_x86.c -lpthread
 *   hash-lanes [size=262144] [rounds=40] [file]
 *
 * The messages are random bytes, or with `file` its first 16 * size bytes (repeated if shorter):
 * how often blocks meet the collision checks' conditions depends on the data.
 */
#include "CGitWire.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/* CPU seconds per byte of hashing 16 messages with `features`, `rounds` times (the best of 3). */
static double per_byte(const uint8_t *data, size_t size, int rounds, int features) {
    static const uint8_t header[] = "blob 262144";
    cgw_sha1dc_job jobs[16];
    double best = 1e9;
    for (int attempt = 0; attempt < 3; attempt++) {
        double start = cpu_seconds();
        for (int round = 0; round < rounds; round++) {
            memset(jobs, 0, sizeof jobs);
            for (int k = 0; k < 16; k++) {
                jobs[k].prefix = header;
                jobs[k].prefix_length = sizeof header;
                jobs[k].data = data + (size_t)k * size;
                jobs[k].length = size;
            }
            cgw_sha1dc_hash_jobs(jobs, 16, features);
        }
        double seconds = (cpu_seconds() - start) / ((double)rounds * 16 * (double)size);
        if (seconds < best) best = seconds;
    }
    return best;
}

int main(int argc, char **argv) {
    size_t size = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 262144;
    int rounds = argc > 2 ? atoi(argv[2]) : 40;
    int features = cgw_sha1dc_available_features();
    if (!(features & CGW_SHA1DC_AVX512)) {
        fprintf(stderr, "this CPU has no AVX-512: cgw_sha1dc_hash_jobs hashes one message at a time\n");
        return 1;
    }
    uint8_t *data = malloc(16 * size);
    if (!data) return 1;
    size_t filled = 0;
    if (argc > 3) {
        FILE *file = fopen(argv[3], "rb");
        if (!file) {
            perror(argv[3]);
            return 1;
        }
        filled = fread(data, 1, 16 * size, file);
        fclose(file);
        if (filled == 0) {
            fprintf(stderr, "%s: empty\n", argv[3]);
            return 1;
        }
        for (size_t i = filled; i < 16 * size; i++) data[i] = data[i % filled];
    } else {
        uint64_t x = 0x9e3779b97f4a7c15u;
        for (size_t i = 0; i < 16 * size; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            data[i] = (uint8_t)x;
        }
    }
    double lanes = per_byte(data, size, rounds, features);
    double streaming = per_byte(data, size, rounds, features & ~CGW_SHA1DC_AVX512);
    double step = 16 * lanes / streaming;
    int from = (int)step + 1;
    printf("sixteen lanes: %.3f ns/byte (%.0f MB/s); one at a time: %.3f ns/byte (%.0f MB/s)\n", lanes * 1e9,
        1e-6 / lanes, streaming * 1e9, 1e-6 / streaming);
    printf("a step of sixteen lanes costs %.2f single blocks: the lanes are cheaper from %d busy lanes\n", step,
        from);
    free(data);
    return 0;
}

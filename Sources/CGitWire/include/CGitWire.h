#ifndef CGITWIRE_H
#define CGITWIRE_H

#include <stdint.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <zlib.h>
#include <openssl/sha.h>

/* epoll: struct epoll_event is packed on x86_64, so Swift gets a plain copy. */
typedef struct {
    uint32_t events;
    uint64_t token;
} cgw_epoll_event;

int cgw_epoll_create(void);
int cgw_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);
int cgw_epoll_wait(int epfd, cgw_epoll_event *events, int max_events, int timeout_ms);
int cgw_eventfd(void);

/* GNU extensions (need _GNU_SOURCE, which Swift's Glibc module does not set). */
int cgw_pipe_cloexec(int fds[2]);
int cgw_accept_nonblocking(int fd);
int cgw_mkstemp_cloexec(char *template_path);
/* A descriptor that becomes readable when process `pid` ends (Linux 5.3+); -1 with errno set. */
int cgw_pidfd_open(int pid);

/* zlib's init entry points are macros. */
int cgw_inflate_init(z_streamp stream);
int cgw_deflate_init(z_streamp stream, int level);

/* SHA-1 from the system libcrypto (its SHA1_* calls are deprecated in OpenSSL 3, but fastest). */
typedef struct {
    SHA_CTX ctx;
} cgw_sha1_ctx;

void cgw_sha1_init(cgw_sha1_ctx *ctx);
void cgw_sha1_update(cgw_sha1_ctx *ctx, const void *data, size_t count);
void cgw_sha1_final(cgw_sha1_ctx *ctx, uint8_t digest[20]);

/* SHA-1 with collision detection (gitwire's own; see sha1dc.c), as git's SHA-1DC: data carrying
 * the known collision-attack patterns is reported, and its digest is the "safe hash" git prints
 * when it refuses such data. With detection off it is plain SHA-1. Uses the SHA extensions and
 * AVX2 where the CPU has them. */
enum {
    CGW_SHA1DC_SHA_EXTENSIONS = 1, /* compress with sha1rnds4 and friends */
    CGW_SHA1DC_AVX2 = 2,           /* unavoidable-condition masks of eight blocks at once */
};

typedef struct {
    uint32_t state[5];
    uint64_t total;      /* bytes taken so far */
    uint8_t buffer[64];  /* the start of an incomplete block: total % 64 bytes */
    uint8_t detect;      /* check blocks for collision attacks */
    uint8_t reduced_round; /* also report collisions of reduced-round SHA-1 (a testing aid) */
    uint8_t attack;      /* an attack was found */
    uint8_t features;    /* the CGW_SHA1DC_* paths this context may take */
} cgw_sha1dc_ctx;

/* The CGW_SHA1DC_* paths this CPU can take. */
int cgw_sha1dc_available_features(void);
/* Starts a digest; `features` limits the paths taken (pass -1 for all the CPU has, 0 for the
 * portable code only). */
void cgw_sha1dc_init(cgw_sha1dc_ctx *ctx, int detect_collisions, int features);
/* Also reports blocks that complete a collision of reduced-round SHA-1 (for testing detection). */
void cgw_sha1dc_detect_reduced_round(cgw_sha1dc_ctx *ctx, int on);
void cgw_sha1dc_update(cgw_sha1dc_ctx *ctx, const void *data, size_t count);
/* Writes the digest; returns 1 if an attack was found (the digest is then the safe hash), else 0. */
int cgw_sha1dc_final(cgw_sha1dc_ctx *ctx, uint8_t digest[20]);

#endif

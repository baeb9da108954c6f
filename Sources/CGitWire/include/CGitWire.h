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

#endif

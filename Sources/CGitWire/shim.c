#define _GNU_SOURCE
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CGitWire.h"

#include <fcntl.h>
#include <stdlib.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <malloc.h>
#include <string.h>

int cgw_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cgw_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &event);
}

int cgw_epoll_wait(int epfd, cgw_epoll_event *events, int max_events, int timeout_ms) {
    struct epoll_event raw[256];
    if (max_events > 256) max_events = 256;
    int count = epoll_wait(epfd, raw, max_events, timeout_ms);
    for (int i = 0; i < count; i++) {
        events[i].events = raw[i].events;
        events[i].token = raw[i].data.u64;
    }
    return count;
}

int cgw_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int cgw_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int cgw_accept_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); }

int cgw_mkstemp_cloexec(char *template_path) { return mkostemp(template_path, O_CLOEXEC); }

/* zlib's own Adler-32 of the output is off (it is its scalar loop, 2% of index-pack's CPU time):
 * the caller checks each stream's trailer with libdeflate's vector Adler-32 (Inflater in
 * Zlib.swift). zlib still reads the header and the four trailer bytes where it did. */
int cgw_inflate_init(z_streamp stream) {
    int status = inflateInit(stream);
    if (status != Z_OK) return status;
    status = inflateValidate(stream, 0);
    if (status != Z_OK) inflateEnd(stream);
    return status;
}

int cgw_deflate_init(z_streamp stream, int level) { return deflateInit(stream, level); }
int cgw_inflate_init_gzip(z_streamp stream) { return inflateInit2(stream, 15 + 16); }
int cgw_deflate_init_gzip(z_streamp stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

void cgw_sha1_init(cgw_sha1_ctx *ctx) { cgw_sha1dc_init(&ctx->ctx, 0, cgw_sha1dc_available_features()); }
void cgw_sha1_update(cgw_sha1_ctx *ctx, const void *data, size_t count) { cgw_sha1dc_update(&ctx->ctx, data, count); }
void cgw_sha1_final(cgw_sha1_ctx *ctx, uint8_t digest[20]) { (void)cgw_sha1dc_final(&ctx->ctx, digest); }

int cgw_pidfd_open(int pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int cgw_lower_thread_priority(int steps) {
    id_t thread = (id_t)syscall(SYS_gettid);
    errno = 0;
    int current = getpriority(PRIO_PROCESS, thread);
    if (current == -1 && errno != 0) return -1;
    int wanted = current + steps > 19 ? 19 : current + steps;
    return setpriority(PRIO_PROCESS, thread, wanted);
}

void cgw_malloc_trim(void) { (void)malloc_trim(0); }

int cgw_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

int cgw_spawn_chdir(posix_spawn_file_actions_t *actions, const char *directory) {
    return posix_spawn_file_actions_addchdir_np(actions, directory);
}

int cgw_limit_malloc_arenas(int count) { return mallopt(M_ARENA_MAX, count); }

#ifndef CGITWIRE_H
#define CGITWIRE_H

#include <stdint.h>
#include <stddef.h>
#include <spawn.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <zlib.h>
#include <libdeflate.h>

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
/* Makes a spawned child close every descriptor from `lowest` up (glibc 2.34+), so that it
 * inherits none that another thread opened without close-on-exec. */
int cgw_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);
/* Makes a spawned child start in `directory` (glibc 2.29+). */
int cgw_spawn_chdir(posix_spawn_file_actions_t *actions, const char *directory);
/* Raises the calling thread's nice value by `steps` (at most to 19; Linux keeps one per thread).
 * 0, or -1 with errno set. */
int cgw_lower_thread_priority(int steps);
/* glibc's malloc_trim(0): gives the free memory of every arena back to the system. */
void cgw_malloc_trim(void);

/* Paths removed when the process is killed by a signal (see cleanup.c). `kind` is one of the
 * CGW_CLEANUP_ values; register returns a slot for unregister, or -1 (nothing registered). */
enum : int { CGW_CLEANUP_FILE = 0, CGW_CLEANUP_TREE = 1, CGW_CLEANUP_CONTENTS = 2 };
int cgw_cleanup_register(const char *path, int kind);
void cgw_cleanup_unregister(int slot);
/* Installs the handler for `signal_number`: it removes every registered path, then dies by the
 * signal with its default action. 0, or -1 with errno set. */
int cgw_cleanup_install(int signal_number);
/* Brackets a section in which a thread creates a path and registers it: a cleanup signal that
 * another thread takes meanwhile waits until the last such section has ended (then kills the
 * process as it would have), and a section entered while the process is dying never returns. */
void cgw_cleanup_enter(void);
void cgw_cleanup_leave(void);
/* Removes every registered path now (a process about to exit as git's die() exits). */
void cgw_cleanup_now(void);

/* zlib's init entry points are macros. cgw_inflate_init: a zlib (RFC 1950) stream whose Adler-32
 * zlib neither computes nor checks: the caller must (Inflater does, with libdeflate's). */
int cgw_inflate_init(z_streamp stream);
int cgw_deflate_init(z_streamp stream, int level);
/* deflate with a gzip wrapper (RFC 1952), for `Content-Encoding: gzip` request bodies. */
int cgw_deflate_init_gzip(z_streamp stream, int level);
/* inflate of a gzip stream (RFC 1952), for `Content-Encoding: gzip` bodies. */
int cgw_inflate_init_gzip(z_streamp stream);


/* libcurl, loaded with dlopen on first use so that programs which never speak HTTP do not pay
 * for loading it (and the dozen libraries it needs) at start-up. cgw_curl_load returns 0 once
 * the library is loaded and initialised, else -1 with a reason in `error`. The other calls may
 * only be made after a successful load. curl.h is not included here (its socket declarations
 * would shadow Glibc's in Swift): handles are `void *`, and the constants below are checked
 * against curl.h's when curl.c compiles. */
enum : int {
    CGW_CURLOPT_URL = 10002,
    CGW_CURLOPT_NOSIGNAL = 99,
    CGW_CURLOPT_PROTOCOLS_STR = 10318,
    CGW_CURLOPT_REDIR_PROTOCOLS_STR = 10319,
    CGW_CURLOPT_FOLLOWLOCATION = 52,
    CGW_CURLOPT_MAXREDIRS = 68,
    CGW_CURLOPT_USERAGENT = 10018,
    CGW_CURLOPT_ACCEPT_ENCODING = 10102,
    CGW_CURLOPT_ERRORBUFFER = 10010,
    CGW_CURLOPT_CONNECTTIMEOUT_MS = 156,
    CGW_CURLOPT_CAINFO = 10065,
    CGW_CURLOPT_CAPATH = 10097,
    CGW_CURLOPT_SSL_VERIFYPEER = 64,
    CGW_CURLOPT_SSL_VERIFYHOST = 81,
    CGW_CURLOPT_USERNAME = 10173,
    CGW_CURLOPT_PASSWORD = 10174,
    CGW_CURLOPT_HTTPAUTH = 107,
    CGW_CURLOPT_HTTPHEADER = 10023,
    CGW_CURLOPT_POST = 47,
    CGW_CURLOPT_POSTFIELDSIZE_LARGE = 30120,
    CGW_CURLOPT_POSTFIELDS = 10015,
    CGW_CURLOPT_HTTPGET = 80,
    CGW_CURLOPT_WRITEFUNCTION = 20011,
    CGW_CURLOPT_WRITEDATA = 10001,
    CGW_CURLOPT_READFUNCTION = 20012,
    CGW_CURLOPT_READDATA = 10009,
    CGW_CURLOPT_HEADERFUNCTION = 20079,
    CGW_CURLOPT_HEADERDATA = 10029,
    CGW_CURLOPT_NOPROXY = 10177,
    CGW_CURLOPT_PROXY = 10004,
    CGW_CURLOPT_VERBOSE = 41,
    CGW_CURLOPT_HTTP_VERSION = 84,
    CGW_CURLOPT_LOW_SPEED_LIMIT = 19,
    CGW_CURLOPT_LOW_SPEED_TIME = 20,
    CGW_CURLOPT_PROXYTYPE = 101,
    CGW_CURLOPT_PROXYUSERNAME = 10175,
    CGW_CURLOPT_PROXYPASSWORD = 10176,
    CGW_CURLOPT_PROXYAUTH = 111,
    CGW_CURL_HTTP_VERSION_1_1 = 2,
    CGW_CURL_HTTP_VERSION_2_0 = 3,
    CGW_CURLPROXY_HTTP = 0,
    CGW_CURLPROXY_HTTPS = 2,
    CGW_CURLPROXY_SOCKS4 = 4,
    CGW_CURLPROXY_SOCKS5 = 5,
    CGW_CURLPROXY_SOCKS4A = 6,
    CGW_CURLPROXY_SOCKS5_HOSTNAME = 7,
    CGW_CURLAUTH_DIGEST = 2,
    CGW_CURLAUTH_NEGOTIATE = 4,
    CGW_CURLAUTH_NTLM = 8,
    CGW_CURLINFO_RESPONSE_CODE = 2097154,
    CGW_CURLINFO_EFFECTIVE_URL = 1048577,
    CGW_CURLINFO_HTTPAUTH_AVAIL = 2097175,
    CGW_CURLAUTH_BASIC = 1,
    CGW_CURLE_OK = 0,
    CGW_CURLE_COULDNT_RESOLVE_HOST = 6,
    CGW_CURLE_COULDNT_RESOLVE_PROXY = 5,
    CGW_CURLE_COULDNT_CONNECT = 7,
    CGW_CURLE_OPERATION_TIMEDOUT = 28,
    CGW_CURLE_SSL_CONNECT_ERROR = 35,
    CGW_CURLE_PEER_FAILED_VERIFICATION = 60,
    CGW_CURLE_SSL_CERTPROBLEM = 58,
    CGW_CURLE_SSL_CIPHER = 59,
    CGW_CURLE_SSL_CACERT_BADFILE = 77,
    CGW_CURLE_SSL_ISSUER_ERROR = 83,
    CGW_CURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    CGW_CURLE_SSL_INVALIDCERTSTATUS = 91,
    CGW_CURLE_SSL_CRL_BADFILE = 82,
    CGW_CURLE_WRITE_ERROR = 23,
    CGW_CURL_POLL_IN = 1,
    CGW_CURL_POLL_OUT = 2,
    CGW_CURL_POLL_REMOVE = 4,
    CGW_CURL_CSELECT_IN = 1,
    CGW_CURL_CSELECT_OUT = 2,
    CGW_CURL_CSELECT_ERR = 4,
    CGW_CURL_SOCKET_TIMEOUT = -1,
    CGW_CURL_ERROR_SIZE = 256,
    /* What a write callback returns to stop the transfer's reading until cgw_curl_easy_unpause. */
    CGW_CURL_WRITEFUNC_PAUSE = 0x10000001,
    /* What a read callback returns to abandon the transfer (CURLE_ABORTED_BY_CALLBACK). */
    CGW_CURL_READFUNC_ABORT = 0x10000000,
    CGW_CURLE_ABORTED_BY_CALLBACK = 42,
};

int cgw_curl_load(char *error, size_t error_size);

void *cgw_curl_easy_init(void);
void cgw_curl_easy_cleanup(void *easy);
int cgw_curl_easy_setopt_long(void *easy, int option, long value);
int cgw_curl_easy_setopt_off(void *easy, int option, long long value);
int cgw_curl_easy_setopt_pointer(void *easy, int option, const void *value);
typedef size_t (*cgw_curl_data_callback)(char *data, size_t size, size_t count, void *user);
int cgw_curl_easy_setopt_data_callback(void *easy, int option, cgw_curl_data_callback callback);
int cgw_curl_easy_getinfo_long(void *easy, int info, long *value);
int cgw_curl_easy_getinfo_string(void *easy, int info, const char **value);
const char *cgw_curl_easy_strerror(int code);
/* curl_easy_pause(easy, CURLPAUSE_CONT): reading goes on; what libcurl held back while paused
 * may reach the write callback before this returns. */
int cgw_curl_easy_unpause(void *easy);
/* CURLAUTH_ANY, a macro Swift cannot import. */
long cgw_curl_auth_any(void);

void *cgw_curl_multi_init(void);
void cgw_curl_multi_cleanup(void *multi);
typedef int (*cgw_curl_socket_callback)(void *easy, int socket, int what, void *user, void *socket_user);
typedef int (*cgw_curl_timer_callback)(void *multi, long timeout_ms, void *user);
int cgw_curl_multi_set_callbacks(
    void *multi, cgw_curl_socket_callback on_socket, cgw_curl_timer_callback on_timer, void *user);
int cgw_curl_multi_add_handle(void *multi, void *easy);
int cgw_curl_multi_remove_handle(void *multi, void *easy);
int cgw_curl_multi_socket_action(void *multi, int socket, int events, int *running);
/* The next finished transfer: 1 with `easy` and `result` set, or 0 when there is none. */
int cgw_curl_multi_next_done(void *multi, void **easy, int *result);

/* `reference` (a Location value) resolved against `base` by libcurl's URL API as libcurl follows a
 * redirect, into `out`: 0, or -1 when libcurl refuses it, has no URL API, or `out` is too small.
 * For tests that hold gitwire's own resolution to libcurl's. */
int cgw_curl_url_resolve(const char *base, const char *reference, char *out, size_t out_size);

/* An opaque list of header lines. */
void *cgw_curl_slist_append(void *list, const char *text);
void cgw_curl_slist_free_all(void *list);
/* SHA-1 with collision detection (gitwire's own; see sha1dc.c), as git's SHA-1DC: data carrying
 * the known collision-attack patterns is reported, and its digest is the "safe hash" git prints
 * when it refuses such data. With detection off it is plain SHA-1. Uses the SHA extensions,
 * AVX2 and AVX-512 where the CPU has them. */
enum {
    CGW_SHA1DC_SHA_EXTENSIONS = 1, /* compress with sha1rnds4 and friends */
    CGW_SHA1DC_AVX2 = 2,           /* unavoidable-condition masks of eight blocks at once */
    CGW_SHA1DC_AVX512 = 4,         /* the same for sixteen blocks at once */
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

/* One message for cgw_sha1dc_hash_jobs: `prefix` then `data` (an object's header and content),
 * and, once hashed, its digest and whether it carries an attack (the digest is then the safe
 * hash). */
typedef struct {
    const uint8_t *prefix;
    size_t prefix_length;
    const uint8_t *data;
    size_t length;
    uint8_t digest[20];
    uint8_t attack;
} cgw_sha1dc_job;

/* Hashes every job with collision detection: with AVX-512, up to sixteen side by side (several
 * times the throughput of one message on the SHA extensions when there are many); otherwise one
 * after the other. `features` as for cgw_sha1dc_init. */
void cgw_sha1dc_hash_jobs(cgw_sha1dc_job *jobs, size_t count, int features);

/* SHA-256 (see sha256.c), for repositories with `extensions.objectFormat = sha256`: the SHA
 * extensions where the CPU has them, portable C elsewhere. */
enum {
    CGW_SHA256_SHA_EXTENSIONS = 1, /* compress with sha256rnds2 and friends */
};

typedef struct {
    uint32_t state[8];
    uint64_t total;     /* bytes taken so far */
    uint8_t buffer[64]; /* the start of an incomplete block: total % 64 bytes */
    uint8_t features;   /* the CGW_SHA256_* paths this context may take */
} cgw_sha256_ctx;

/* The CGW_SHA256_* paths this CPU can take. */
int cgw_sha256_available_features(void);
/* Starts a digest; `features` limits the paths taken (-1 for all the CPU has, 0 for portable C). */
void cgw_sha256_init(cgw_sha256_ctx *ctx, int features);
void cgw_sha256_update(cgw_sha256_ctx *ctx, const void *data, size_t count);
void cgw_sha256_final(cgw_sha256_ctx *ctx, uint8_t digest[32]);

/* Runs a git delta's instructions (`length` bytes after its two sizes) on `base`: returns 1 if
 * they are valid and make exactly `out_length` bytes, written to `out`, else 0 (out is then
 * partly written). GitWireCore's Delta.apply is the reference for the rules and the errors. */
int cgw_delta_run(const uint8_t *base, size_t base_length, const uint8_t *instructions, size_t length,
    uint8_t *out, size_t out_length);

/* An index of a delta source (its 16-byte blocks by hash), for making deltas against it. The
 * source must outlive the index. NULL when out of memory or the source is 4 GiB or more. */
typedef struct cgw_delta_index cgw_delta_index;
cgw_delta_index *cgw_delta_index_new(const uint8_t *source, size_t length);
void cgw_delta_index_free(cgw_delta_index *index);
/* The memory the index holds, in bytes. */
size_t cgw_delta_index_size(const cgw_delta_index *index);
/* Writes to `out` git's delta (both sizes, then copy and insert instructions) that makes
 * `target` from the index's source: returns its length, or 0 when it would be longer than
 * `out_limit` bytes. */
size_t cgw_delta_create(const cgw_delta_index *index, const uint8_t *target, size_t target_length, uint8_t *out,
    size_t out_limit);

/* Plain SHA-1: the same code with collision detection off (how fast, against libcrypto and git:
 * Documentation/Performance.md, "SHA-1"). */
typedef struct {
    cgw_sha1dc_ctx ctx;
} cgw_sha1_ctx;

void cgw_sha1_init(cgw_sha1_ctx *ctx);
void cgw_sha1_update(cgw_sha1_ctx *ctx, const void *data, size_t count);
void cgw_sha1_final(cgw_sha1_ctx *ctx, uint8_t digest[20]);

/* Limits glibc's malloc to `count` arenas (mallopt M_ARENA_MAX); returns 1 if it took the setting.
 * Called before the process starts threads, so that no arena beyond the limit exists yet. */
int cgw_limit_malloc_arenas(int count);

#endif

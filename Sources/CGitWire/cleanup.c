// Paths to remove when the process is killed by a signal, as git's tempfile.c removes its lock
// and temporary files: the handler does only async-signal-safe work (unlink, rmdir, openat,
// getdents64, close on paths stored beforehand), then restores the default action and raises
// the signal again, so the process still dies by it.
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "CGitWire.h"

enum { CHUNK_SLOTS = 1024, MAX_CHUNKS = 16384 };

typedef struct {
    _Atomic(char *) path;
    _Atomic int kind;
} cleanup_slot;

static _Atomic(cleanup_slot *) chunks[MAX_CHUNKS];
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static int *free_slots;
static size_t free_count, free_capacity;
static int next_unused;
/* Set first thing in the handler: a path unregistered after that is leaked, never freed, since
 * the handler may be reading it on another thread. */
static atomic_int in_handler;

int cgw_cleanup_register(const char *path, int kind) {
    char *copy = strdup(path);
    if (!copy) return -1;
    pthread_mutex_lock(&registry_lock);
    int slot;
    if (free_count > 0) {
        slot = free_slots[--free_count];
    } else {
        if (next_unused >= CHUNK_SLOTS * MAX_CHUNKS) {
            pthread_mutex_unlock(&registry_lock);
            free(copy);
            return -1;
        }
        slot = next_unused;
        int chunk = slot / CHUNK_SLOTS;
        if (!atomic_load(&chunks[chunk])) {
            cleanup_slot *fresh = calloc(CHUNK_SLOTS, sizeof(cleanup_slot));
            if (!fresh) {
                pthread_mutex_unlock(&registry_lock);
                free(copy);
                return -1;
            }
            atomic_store(&chunks[chunk], fresh);
        }
        next_unused++;
    }
    cleanup_slot *entry = &atomic_load(&chunks[slot / CHUNK_SLOTS])[slot % CHUNK_SLOTS];
    atomic_store(&entry->kind, kind);
    atomic_store(&entry->path, copy);
    pthread_mutex_unlock(&registry_lock);
    return slot;
}

void cgw_cleanup_unregister(int slot) {
    if (slot < 0) return;
    cleanup_slot *chunk = atomic_load(&chunks[slot / CHUNK_SLOTS]);
    if (!chunk) return;
    char *path = atomic_exchange(&chunk[slot % CHUNK_SLOTS].path, NULL);
    if (!path) return;
    if (!atomic_load(&in_handler)) free(path);
    pthread_mutex_lock(&registry_lock);
    if (free_count == free_capacity) {
        size_t capacity = free_capacity ? free_capacity * 2 : 256;
        int *grown = realloc(free_slots, capacity * sizeof(int));
        if (!grown) {
            pthread_mutex_unlock(&registry_lock);
            return; /* the slot is lost, nothing else */
        }
        free_slots = grown;
        free_capacity = capacity;
    }
    free_slots[free_count++] = slot;
    pthread_mutex_unlock(&registry_lock);
}

struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Removes everything below the directory `fd` (depth-limited; links are removed, never
 * followed), with system calls only. */
static void remove_contents(int fd, int depth) {
    char buffer[2048] __attribute__((aligned(8)));
    for (int pass = 0; pass < 64; pass++) {
        int removed_any = 0, seen_any = 0;
        if (lseek(fd, 0, SEEK_SET) == -1) return;
        for (;;) {
            long count = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
            if (count <= 0) break;
            for (long offset = 0; offset < count;) {
                struct linux_dirent64 *entry = (struct linux_dirent64 *)(buffer + offset);
                offset += entry->d_reclen;
                const char *name = entry->d_name;
                if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
                seen_any = 1;
                if (entry->d_type != DT_DIR && unlinkat(fd, name, 0) == 0) {
                    removed_any = 1;
                    continue;
                }
                if (depth < 32) {
                    int child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (child >= 0) {
                        remove_contents(child, depth + 1);
                        close(child);
                    }
                }
                if (unlinkat(fd, name, AT_REMOVEDIR) == 0) removed_any = 1;
            }
        }
        if (!seen_any || !removed_any) return;
    }
}

static void cleanup_everything(void) {
    atomic_store(&in_handler, 1);
    for (int chunk = 0; chunk < MAX_CHUNKS; chunk++) {
        cleanup_slot *slots = atomic_load(&chunks[chunk]);
        if (!slots) break;
        for (int index = 0; index < CHUNK_SLOTS; index++) {
            char *path = atomic_load(&slots[index].path);
            if (!path) continue;
            int kind = atomic_load(&slots[index].kind);
            if (kind == CGW_CLEANUP_FILE) {
                unlink(path);
                continue;
            }
            int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0) continue;
            remove_contents(fd, 0);
            close(fd);
            if (kind == CGW_CLEANUP_TREE) rmdir(path);
        }
    }
}

/* Threads between creating a path and registering it (cgw_cleanup_enter/leave), and the signal
 * the process is dying of (0 until one comes). The handler sets the signal, then looks at the
 * count; a section increments the count, then looks at the signal: with sequentially consistent
 * atomics one of them sees the other, so either the handler waits for the section or the
 * section creates nothing. */
static atomic_int open_sections;
static atomic_int dying_of;

void cgw_cleanup_enter(void) {
    atomic_fetch_add(&open_sections, 1);
    if (atomic_load(&dying_of)) {
        /* The process is about to die: create nothing more, and let the signal in here too. */
        cgw_cleanup_leave();
        sigset_t none;
        sigemptyset(&none);
        for (;;) sigsuspend(&none);
    }
}

void cgw_cleanup_leave(void) {
    if (atomic_fetch_sub(&open_sections, 1) == 1) {
        int signal_number = atomic_load(&dying_of);
        /* A signal taken meanwhile was put off: deliver it again, now that every path created
         * is registered (to the process: this thread may have it blocked). */
        if (signal_number) kill(getpid(), signal_number);
    }
}

void cgw_cleanup_now(void) { cleanup_everything(); }

static void cleanup_handler(int signal_number) {
    int saved = errno;
    int expected = 0;
    atomic_compare_exchange_strong(&dying_of, &expected, signal_number);
    if (atomic_load(&open_sections) > 0) {
        /* Another thread has created a path it has not registered yet: its leave delivers the
         * signal again. */
        errno = saved;
        return;
    }
    cleanup_everything();
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, NULL);
    /* Blocked while this handler runs: delivered, with the default action, when it returns. */
    raise(signal_number);
    errno = saved;
}

int cgw_cleanup_install(int signal_number) {
    struct sigaction action, previous;
    /* A signal the parent ignores (a background job's SIGINT, nohup's SIGHUP) stays ignored. */
    if (sigaction(signal_number, NULL, &previous) == -1) return -1;
    if (previous.sa_handler == SIG_IGN) return 0;
    memset(&action, 0, sizeof action);
    action.sa_handler = cleanup_handler;
    sigemptyset(&action.sa_mask);
    /* Other cleanup signals wait while one is being handled. */
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGTERM);
    sigaddset(&action.sa_mask, SIGHUP);
    sigaddset(&action.sa_mask, SIGQUIT);
    sigaddset(&action.sa_mask, SIGPIPE);
    action.sa_flags = SA_RESTART;
    return sigaction(signal_number, &action, NULL);
}

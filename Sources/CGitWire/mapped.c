// Read-only maps of files and copies out of them that survive the file shrinking under the map.
//
// A page of a map that lies past the file's end (the file was truncated after it was mapped)
// raises SIGBUS when touched. cgw_mapped_copy catches that for its own copy only: a handler,
// installed once, jumps back into the copy that faulted when the faulting thread is inside one,
// and otherwise hands the signal to whatever handled SIGBUS before (or to the default action).
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include "CGitWire.h"

static _Thread_local sigjmp_buf *volatile copy_jump;
static struct sigaction previous_bus;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

static void bus_handler(int signal_number, siginfo_t *info, void *context) {
    sigjmp_buf *jump = copy_jump;
    if (jump != NULL) {
        copy_jump = NULL;
        // The mask was saved as it was at sigsetjmp; SA_NODEFER left SIGBUS unblocked here.
        siglongjmp(*jump, 1);
    }
    if (previous_bus.sa_flags & SA_SIGINFO) {
        if (previous_bus.sa_sigaction != NULL) {
            previous_bus.sa_sigaction(signal_number, info, context);
            return;
        }
    } else if (previous_bus.sa_handler != SIG_DFL && previous_bus.sa_handler != SIG_IGN) {
        previous_bus.sa_handler(signal_number);
        return;
    }
    // Not a copy of ours and nobody else's: the default action, when the access is retried.
    signal(SIGBUS, SIG_DFL);
}

static void install_bus_handler(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = bus_handler;
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &previous_bus);
}

void *cgw_map_readonly(int fd, uint64_t offset, size_t length) {
    void *address = mmap(NULL, length, PROT_READ, MAP_SHARED, fd, (off_t)offset);
    return address == MAP_FAILED ? NULL : address;
}

int cgw_unmap(void *address, size_t length) { return munmap(address, length); }

int cgw_mapped_copy(void *destination, const void *source, size_t count) {
    pthread_once(&bus_once, install_bus_handler);
    sigjmp_buf jump;
    // 0: no signal mask saved (that would be a system call per copy); SA_NODEFER keeps SIGBUS
    // unblocked in the handler, so the mask after the jump is the one before the fault.
    if (sigsetjmp(jump, 0) != 0) return -1;
    copy_jump = &jump;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    memcpy(destination, source, count);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    copy_jump = NULL;
    return 0;
}

int cgw_mapped_crc32(uint32_t *crc, const void *source, size_t count) {
    pthread_once(&bus_once, install_bus_handler);
    sigjmp_buf jump;
    if (sigsetjmp(jump, 0) != 0) return -1;
    copy_jump = &jump;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint32_t result = libdeflate_crc32(*crc, source, count);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    copy_jump = NULL;
    *crc = result;
    return 0;
}

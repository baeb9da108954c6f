#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "CGitWire.h"

/* Whether a debugger or tracer is attached (or the answer is unknown): its breakpoints live in
 * private copies of code pages, which MADV_DONTNEED would throw away. */
static int traced(void) {
    FILE *status = fopen("/proc/self/status", "re");
    if (!status) return 1;
    char line[256];
    int tracer = 1;
    while (fgets(line, sizeof line, status)) {
        if (strncmp(line, "TracerPid:", 10) == 0) {
            tracer = atoi(line + 10);
            break;
        }
    }
    fclose(status);
    return tracer != 0;
}

/* Whether the object's loader wrote into its read-only segments (text relocations): those pages
 * are private copies that only the loader can make again. */
static int has_text_relocations(const struct dl_phdr_info *info) {
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
        const ElfW(Dyn) *entry = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        for (; entry->d_tag != DT_NULL; entry++) {
            if (entry->d_tag == DT_TEXTREL) return 1;
            if (entry->d_tag == DT_FLAGS && (entry->d_un.d_val & DF_TEXTREL)) return 1;
        }
    }
    return 0;
}

static int release_segments(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    size_t *released = data;
    /* The executable (named "") and the libraries loaded from files (named by their path); not
     * the kernel's vDSO, nor an object whose loader wrote into its read-only segments. */
    if (info->dlpi_name && info->dlpi_name[0] && info->dlpi_name[0] != '/') return 0;
    if (has_text_relocations(info)) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &info->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD || (segment->p_flags & PF_W)) continue;
        uintptr_t start = (info->dlpi_addr + segment->p_vaddr) & ~(uintptr_t)4095;
        uintptr_t end = (info->dlpi_addr + segment->p_vaddr + segment->p_memsz + 4095) & ~(uintptr_t)4095;
        if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) *released += end - start;
    }
    return 0;
}

size_t cgw_release_executable_pages(void) {
    if (traced()) return 0;
    size_t released = 0;
    dl_iterate_phdr(release_segments, &released);
    return released;
}
